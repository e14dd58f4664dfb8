//! A counting global allocator for the memory tests: the peak of live heap bytes while a
//! closure runs, and a switch that makes requests of one size fail (a reservation the
//! system cannot grant). Each test binary that uses it installs it with `#[global_allocator]`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Forwards to the system allocator and counts live bytes and their peak; refuses requests
/// of the size [`refusing`] names while it runs.
pub struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
/// Requests of exactly this many bytes fail (0: none).
static REFUSED: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator unchanged, or returns null, which `alloc` may
// always do to report failure; only counts bytes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.size() != 0 && layout.size() == REFUSED.load(Ordering::Relaxed) {
            return std::ptr::null_mut();
        }
        let now = CURRENT.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(now, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// Runs `f` and returns its result and the peak heap above the start, in bytes. The test
/// binary must run one such measurement at a time (one test per binary).
#[allow(dead_code)]
pub fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = CURRENT.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let value = f();
    (value, PEAK.load(Ordering::Relaxed).saturating_sub(base))
}

/// Runs `f` with every allocation of exactly `size` bytes failing. The test binary must run
/// one such call at a time.
#[allow(dead_code)]
pub fn refusing<T>(size: usize, f: impl FnOnce() -> T) -> T {
    REFUSED.store(size, Ordering::Relaxed);
    let value = f();
    REFUSED.store(0, Ordering::Relaxed);
    value
}
