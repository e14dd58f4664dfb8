//! A `#[global_allocator]` wrapper around `std::alloc::System` that counts what a call
//! asks of the heap (issue 7: "declared-size checks precede allocation (assert allocation
//! stays under the limits with a counting allocator)").
//!
//! [`measure`] runs a closure and returns the largest single allocation request (failed
//! requests included: asking for a declared size is the fault, whether or not the system
//! grants it) and the peak of live bytes above the level at the start of the call. Each
//! target that includes this module installs it with
//! `#[global_allocator] static ALLOC: Counting = Counting;`. libFuzzer runs one input at a
//! time on one thread, so the global counters belong to the call being measured.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// Bytes currently allocated through [`Counting`].
static LIVE: AtomicUsize = AtomicUsize::new(0);
/// Highest `LIVE` since the last [`measure`] started.
static PEAK: AtomicUsize = AtomicUsize::new(0);
/// Largest single request since the last [`measure`] started.
static LARGEST: AtomicUsize = AtomicUsize::new(0);

/// The counting allocator: `System`, plus three counters.
pub struct Counting;

fn requested(size: usize) {
    LARGEST.fetch_max(size, Relaxed);
}

fn granted(size: usize) {
    let live = LIVE.fetch_add(size, Relaxed).saturating_add(size);
    PEAK.fetch_max(live, Relaxed);
}

fn freed(size: usize) {
    LIVE.fetch_sub(size, Relaxed);
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged and only
// updates atomic counters besides; the pointers returned are `System`'s.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        requested(layout.size());
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract, which `System` shares.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            granted(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        requested(layout.size());
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
        requested(new_size);
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
}

/// Runs `f` and returns its result with the heap [`Usage`] of the call.
pub fn measure<T>(f: impl FnOnce() -> T) -> (T, Usage) {
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    LARGEST.store(0, Relaxed);
    let out = f();
    let usage = Usage {
        largest: LARGEST.load(Relaxed),
        peak: PEAK.load(Relaxed).saturating_sub(base),
    };
    (out, usage)
}
