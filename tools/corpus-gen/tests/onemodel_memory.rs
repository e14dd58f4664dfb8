//! Reading any OneModel corpus file holds at most 16 MiB of heap above the input (issue 8's
//! hostile-corpus memory goal, CONVENTIONS "Sizes are checked before anything is allocated
//! from them"). `sparse_initializers_131072_numbers` is the case that pins it: a 256 KiB
//! manifest whose table list has 131072 two-byte elements, which a reader reserving for the
//! list's length up front would answer with about 38 MiB. A counting global allocator
//! measures the peak of live heap bytes while `onemodel::read` runs.

use modelgate_core::onemodel::read;
use modelgate_corpus_gen::onemodel::cases;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator unchanged; only counts bytes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
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

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The peak heap above the start while `f` runs (the test runs alone in its binary).
fn peak_of(f: impl FnOnce()) -> usize {
    let base = CURRENT.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    f();
    PEAK.load(Ordering::Relaxed).saturating_sub(base)
}

#[test]
fn every_onemodel_corpus_file_is_read_within_16_mib_of_heap() {
    let cases = cases();
    assert!(cases.iter().any(|c| c.name == "sparse_initializers_131072_numbers"));
    let mut worst = (0, "");
    for case in &cases {
        let peak = peak_of(|| drop(read(&case.bytes)));
        worst = worst.max((peak, case.name));
    }
    eprintln!("largest peak heap: {} B ({})", worst.0, worst.1);
    assert!(worst.0 <= 16 << 20, "{} B of heap for {}", worst.0, worst.1);
}
