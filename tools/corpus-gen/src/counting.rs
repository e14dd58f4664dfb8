//! The one counting global allocator of the project's tests, fuzz targets and benchmark:
//! `std::alloc::System`, plus counters of what a call asks of the heap. A binary installs
//! it with `#[global_allocator] static ALLOC: Counting = Counting;` and measures a call
//! with [`measure`]:
//!
//! - the peak of live bytes above the level at the start of the call, over every thread
//!   (a reader that runs part of its work on a second thread is measured whole);
//! - the largest single allocation or reallocation request, failed ones included (asking
//!   for a declared size is the fault, whether or not the system grants it);
//! - the number of requests the measuring thread made (counted per thread, so that what
//!   the test harness's other threads allocate meanwhile is not);
//!
//! and [`refusing`] makes every request of one size fail, as a reservation the system
//! cannot grant does. The counters are process-wide: a binary runs one measurement at a
//! time (one test per binary, or libFuzzer's one input at a time).
//!
//! This is test and benchmark tooling, never shipped: the shipped crates keep their
//! `unsafe` to the memory map (`std-io/src/mmap.rs`).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// Bytes currently allocated.
static LIVE: AtomicUsize = AtomicUsize::new(0);
/// Highest `LIVE` since the last [`measure`] started.
static PEAK: AtomicUsize = AtomicUsize::new(0);
/// Largest single request since the last [`measure`] started.
static LARGEST: AtomicUsize = AtomicUsize::new(0);
/// Requests of exactly this many bytes fail (0: none); set by [`refusing`].
static REFUSED: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// Requests this thread has made.
    static REQUESTS: Cell<usize> = const { Cell::new(0) };
}

/// The counting allocator.
pub struct Counting;

/// Notes a request of `size` bytes; false when [`refusing`] makes it fail.
fn request(size: usize) -> bool {
    // A plain load first: the read-modify-write runs only when the maximum changes.
    if size > LARGEST.load(Relaxed) {
        LARGEST.fetch_max(size, Relaxed);
    }
    // `try_with`: the thread's counter may be gone while the thread shuts down.
    let _ = REQUESTS.try_with(|n| n.set(n.get().wrapping_add(1)));
    size == 0 || size != REFUSED.load(Relaxed)
}

fn granted(size: usize) {
    let live = LIVE.fetch_add(size, Relaxed).saturating_add(size);
    if live > PEAK.load(Relaxed) {
        PEAK.fetch_max(live, Relaxed);
    }
}

fn freed(size: usize) {
    LIVE.fetch_sub(size, Relaxed);
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged, or
// returns null, by which `alloc` and `realloc` may always report failure; besides, it only
// updates counters, none of which allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !request(layout.size()) {
            return std::ptr::null_mut();
        }
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract, which `System` shares.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            granted(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if !request(layout.size()) {
            return std::ptr::null_mut();
        }
        // SAFETY: as for `alloc`.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            granted(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `System` (through this wrapper) with `layout`.
        unsafe { System.dealloc(ptr, layout) };
        freed(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if !request(new_size) {
            return std::ptr::null_mut();
        }
        // SAFETY: `ptr` was allocated by `System` with `layout`; the caller upholds the
        // rest of `GlobalAlloc::realloc`'s contract.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            freed(layout.size());
            granted(new_size);
        }
        p
    }
}

/// What one measured call asked of the heap.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// The largest single allocation or reallocation request, in bytes.
    pub largest: usize,
    /// The peak of live bytes during the call, above the live bytes at its start.
    pub peak: usize,
    /// Allocation and reallocation requests the measuring thread made.
    pub requests: usize,
}

/// Runs `f` and returns its result with the heap [`Usage`] of the call.
pub fn measure<T>(f: impl FnOnce() -> T) -> (T, Usage) {
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    LARGEST.store(0, Relaxed);
    let requests = REQUESTS.with(Cell::get);
    let out = f();
    let usage = Usage {
        largest: LARGEST.load(Relaxed),
        peak: PEAK.load(Relaxed).saturating_sub(base),
        requests: REQUESTS.with(Cell::get).wrapping_sub(requests),
    };
    (out, usage)
}

/// Runs `f` and returns its result and the peak of live heap bytes above the start.
pub fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let (out, usage) = measure(f);
    (out, usage.peak)
}

/// Runs `f` with every request of exactly `size` bytes failing.
pub fn refusing<T>(size: usize, f: impl FnOnce() -> T) -> T {
    REFUSED.store(size, Relaxed);
    let out = f();
    REFUSED.store(0, Relaxed);
    out
}
