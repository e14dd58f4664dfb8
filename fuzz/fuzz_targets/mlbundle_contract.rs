//! The §8.2 and §8.3 contracts (`spec/mlbundle.md` §8.1–§8.3): for any input that passes the
//! §8.1 member check, the token sinks the reader runs (`check_schema`, `check_samples`) give
//! exactly what the same rules checked on the decoded value give
//! (`declaration::reference`): the same acceptance, input count, error kind, message, path
//! and offset, for a schema and for samples against 0 to 3 inputs.
//!
//! Input: a first byte of 0 takes the rest as the member; 1 to 127 build a `schema.json`
//! from the rest, 128 to 255 a `samples.json`, with the generators the unit test uses
//! (`declaration::reference::schema_doc`, `samples_doc`), the rest of the input making their
//! choices, so that most inputs reach the rules rather than the tokenizer.
#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use modelgate_core::mlbundle::contract_reference as reference;
use modelgate_core::mlbundle::{ArchiveLimits, MemberName};
use modelgate_core::mlbundle::{check_member, check_samples, check_schema};
use modelgate_core::test_docs::Choose;

/// The generators' choices, read from the fuzz input (0 once it runs out).
struct Bytes<'a>(Unstructured<'a>);

impl Choose for Bytes<'_> {
    fn below(&mut self, n: usize) -> usize {
        self.0.choose_index(n).unwrap_or(0)
    }
}

fuzz_target!(|data: &[u8]| {
    let built;
    let bytes = match data.split_first() {
        Some((0, rest)) => rest,
        Some((&first, rest)) => {
            let mut choices = Bytes(Unstructured::new(rest));
            built = if first < 128 {
                reference::schema_doc(&mut choices)
            } else {
                reference::samples_doc(&mut choices)
            };
            built.as_bytes()
        }
        None => return,
    };
    let limits = ArchiveLimits::DEFAULT;
    // The reader runs the contracts only over members that passed §8.1.
    if check_member(MemberName::Schema, bytes, &limits).is_err() {
        return;
    }
    assert_eq!(check_schema(bytes, &limits), reference::check_schema(bytes, &limits));
    for inputs in 0..4 {
        assert_eq!(
            check_samples(bytes, inputs, &limits),
            reference::check_samples(bytes, inputs, &limits)
        );
    }
});
