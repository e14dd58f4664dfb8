//! Strict JSON on two workers (`spec/json.md` §10): wherever the second worker starts, at
//! commas of the input (all of a short one) and at offsets that are not commas, the split
//! read's verdict is the one read's, error and offset included (§10.1); so is the meeting's,
//! with the second worker claiming before the first starts and after it has finished
//! (§10.5). Fuzzing builds defer the check of an object's names from its 24th (§5.1), and
//! the one read is held to a read that defers nothing. The first byte's high bit picks
//! `DEFAULT_HASH_KEY`, under which the second worker records no hashes (§10.3).
#![no_main]

use libfuzzer_sys::fuzz_target;
use modelgate_core::json::split::{Meeting, validate_split};
use modelgate_core::json::{DEFAULT_HASH_KEY, Limits, Parser, validate_keyed};

fuzz_target!(|data: &[u8]| {
    // The first byte picks a small depth limit so that the depth rule is crossed too, and
    // the key.
    let (depth, key, input) = match data.split_first() {
        Some((d, rest)) if *d >= 128 => (usize::from(*d % 40), DEFAULT_HASH_KEY, rest),
        Some((d, rest)) => (usize::from(*d % 40), [0x1234, 0x5678], rest),
        None => (0, DEFAULT_HASH_KEY, data),
    };
    let limits = Limits { max_bytes: 1 << 20, max_depth: depth };
    let whole = validate_keyed(input, limits, key);
    let immediate = Parser::new(input, limits).and_then(|p| p.with_hash_key(key).skip_to_end());
    assert_eq!(whole, immediate, "the one read and a read that defers nothing disagree");
    let commas: Vec<usize> = input.iter().enumerate().filter(|(_, b)| **b == b',').map(|(i, _)| i).collect();
    // Up to 32 commas spread over the input (every one of a short input), and a few
    // offsets that are not commas.
    let step = commas.len().div_ceil(32).max(1);
    let others = [0, 1, input.len() / 2, input.len()];
    for start in commas.iter().copied().step_by(step).chain(others) {
        assert_eq!(validate_split(input, limits, key, start), whole, "split at {start}");
    }
    for chunk in [1, 7, 64] {
        let meeting = Meeting::new(chunk);
        let second = meeting.read_suffix(input, limits, key);
        let first = meeting.read_prefix(input, limits, key);
        assert_eq!(first.finish(second.as_ref()), whole, "second worker first, chunk {chunk}");
        let meeting = Meeting::new(chunk);
        let first = meeting.read_prefix(input, limits, key);
        assert!(meeting.read_suffix(input, limits, key).is_none(), "a claim after the end");
        assert_eq!(first.finish(None), whole, "first worker alone, chunk {chunk}");
    }
});
