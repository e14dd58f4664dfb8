//! Strict JSON (`spec/json.md`): never panics; accepted input re-serialises canonically and
//! parses to the same value; the pull parser, `validate` and `parse` agree; limits hold.
#![no_main]

use libfuzzer_sys::fuzz_target;
use modelgate_core::json::{self, Limits, Parser};

fuzz_target!(|data: &[u8]| {
    // The first byte picks a small depth limit so that limit errors are reached too.
    let (depth, input) = match data.split_first() {
        Some((d, rest)) => (usize::from(*d % 40), rest),
        None => (0, data),
    };
    let limits = Limits { max_bytes: 1 << 20, max_depth: depth };
    let parsed = json::parse(input, limits);
    let validated = json::validate_keyed(input, limits, [0x1234, 0x5678]);
    assert_eq!(parsed.as_ref().err(), validated.as_ref().err(), "parse and validate disagree");

    let mut pull_depth = 0usize;
    if let Ok(mut p) = Parser::new(input, limits) {
        while let Ok(Some(_)) = p.next_event() {
            pull_depth = pull_depth.max(p.depth());
        }
    }
    assert!(pull_depth <= depth, "depth limit exceeded");

    if let Ok(value) = parsed {
        let canonical = json::to_canonical(&value);
        let again = json::parse(canonical.as_bytes(), limits).expect("canonical text must parse");
        assert_eq!(again, value, "canonical text parses to a different value");
        assert_eq!(json::to_canonical(&again), canonical, "canonical form is not a fixed point");
        assert!(canonical.len() <= input.len(), "canonical text is never longer than the input");
    }
});
