//! Allocations of `json::parse` (`spec/json.md` §8): one per non-empty container plus one
//! per text longer than 22 bytes, escapes or not. Its own test binary, because it installs
//! the counting global allocator, which counts the requests of the thread that measures.

use modelgate_core::json::{self, Limits};
use modelgate_corpus_gen::counting::{Counting, measure};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Allocation requests made while parsing `doc` (the value is dropped outside the count).
fn requests(doc: &str) -> usize {
    let (value, usage) = measure(|| json::parse(doc.as_bytes(), Limits::DEFAULT));
    assert!(value.is_ok(), "{doc}");
    usage.requests
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
