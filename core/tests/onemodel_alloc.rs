//! The memory of a manifest read (`spec/onemodel.md` §3.3): the tape takes 16 bytes a
//! token and at most one 64 KiB chunk more, so a manifest of two-byte tokens needs at most
//! about 8 times its length, never the 16 to 24 times a doubling vector would hold while it
//! grows. Its own test binary, because it installs the counting global allocator.

use modelgate_core::onemodel::{Limits, read};
use modelgate_corpus_gen::counting::{Counting, measure};
use std::path::Path;

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The corpus file whose manifest is 131,072 numbers, `0,` each: a token per two bytes.
#[test]
fn a_manifest_of_two_byte_tokens_takes_at_most_eight_times_its_length() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../hostile-corpus/onemodel/Malformed-sparse-initializers-131072-numbers.onemodel");
    let bytes = std::fs::read(path).unwrap();
    let manifest = u64::from_le_bytes(bytes[16..24].try_into().unwrap()) as usize;
    assert!(manifest > 262_000, "{manifest}");
    let (read, usage) = measure(|| read(&bytes, Limits::DEFAULT).map(drop));
    assert!(read.is_err());
    // The tape, one chunk of slack, and the 64 KiB a table list reserves before it finds
    // that its first element is not a table.
    let bound = 8 * manifest + (64 << 10) + (64 << 10) + (16 << 10);
    assert!(usage.peak <= bound, "{} bytes at the peak, bound {bound}", usage.peak);
    assert!(
        usage.peak >= 8 * manifest - (64 << 10),
        "{} bytes: the tape was not measured",
        usage.peak
    );
}
