//! Allocations of `json::parse` (`spec/json.md` §8): one per non-empty container plus one
//! per text longer than 22 bytes, escapes or not. Its own test binary, because it installs
//! a counting global allocator; it counts only the requests of the thread that measures.

use modelgate_core::json::{self, Limits};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    /// Allocation requests of this thread while [`COUNTING`] is set.
    static REQUESTS: Cell<usize> = const { Cell::new(0) };
    static COUNTING: Cell<bool> = const { Cell::new(false) };
}

fn note_request() {
    // `try_with`: the thread-locals may already be gone while a thread shuts down.
    let _ = COUNTING.try_with(|on| {
        if on.get() {
            let _ = REQUESTS.try_with(|n| n.set(n.get() + 1));
        }
    });
}

// SAFETY: forwards every request to the system allocator unchanged; only counts them.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note_request();
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note_request();
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Allocation requests made while parsing `doc` (the value is dropped outside the count).
fn requests(doc: &str) -> usize {
    REQUESTS.with(|n| n.set(0));
    COUNTING.with(|on| on.set(true));
    let value = json::parse(doc.as_bytes(), Limits::DEFAULT);
    COUNTING.with(|on| on.set(false));
    assert!(value.is_ok(), "{doc}");
    REQUESTS.with(Cell::get)
}

/// Unescaping a name or string costs no allocation of its own: a document whose names and
/// strings have escapes allocates as often as the same document without them, whether the
/// texts are short (inline) or long (one allocation each), up to the few times the buffers
/// that hold unescaped text grow, which do not depend on the number of escapes.
#[test]
fn escapes_cost_no_allocation_of_their_own() {
    for len in [10, 40] {
        let text = "x".repeat(len);
        let doc = |name: &str, value: &str| {
            let members: Vec<String> = (0..500)
                .map(|i| format!(r#"{{"{text}{name}":"{text}{value}","{i}":["{text}{value}"]}}"#))
                .collect();
            format!("[{}]", members.join(","))
        };
        let plain = requests(&doc("a", "b"));
        let escaped = requests(&doc("\\n", "\\u0041"));
        assert!(
            escaped <= plain + 32,
            "texts of {} bytes: {escaped} allocations with escapes, {plain} without",
            len + 1
        );
    }
}
