//! OneModel (`spec/onemodel.md`): never panics; every rejection has one of the four kinds and
//! a location; the read gives exactly what the exact read over the tape gives, so the direct
//! read of §3.4 never reads a manifest another way; the check from the header and manifest
//! alone (§5, `check_head`) gives the same verdict; an accepted file's model writes back,
//! reads back equal, and writing it again gives the same bytes (§4: same model, same bytes). (A file can only fail to write back
//! when its tensors' sharing adds over 2 GiB, §4 `max_shared_data`, out of a fuzz input's
//! reach.) Inputs are either a whole file or a
//! manifest and data region framed with a correct header, so the fuzzer reaches the
//! manifest and name rules without guessing header fields.
#![no_main]

use libfuzzer_sys::fuzz_target;
use modelgate_core::json::DEFAULT_HASH_KEY;
use modelgate_core::onemodel::{self, Limits, header::MAGIC, writer::assemble};

/// `modelgate check`'s read (§5): the first 64 bytes, then as many as `head_length` asks for.
fn by_head(f: &[u8]) -> Result<(), onemodel::Error> {
    let len = f.len() as u64;
    let need = onemodel::head_length(f.get(..64).unwrap_or(f), len, Limits::DEFAULT)?;
    let head = f.get(..usize::try_from(need).expect("fits")).expect("head_length within the file");
    onemodel::check_head(head, len, Limits::DEFAULT, DEFAULT_HASH_KEY)
}

fuzz_target!(|data: &[u8]| {
    // A file (corpus seeds start with the magic) is read as it is; anything else is taken
    // as manifest text and framed with an empty data region, so the manifest reader is
    // reached directly.
    let bytes = if data.starts_with(&MAGIC) { data.to_vec() } else { assemble(data, &[]) };
    let read = onemodel::read(&bytes);
    let exact = onemodel::read_exact(&bytes, Limits::DEFAULT, DEFAULT_HASH_KEY);
    assert_eq!(read, exact, "the direct read differs from the exact read");
    assert_eq!(by_head(&bytes), read.as_ref().map(drop).map_err(Clone::clone), "the check by head differs");
    match read {
        Err(e) => {
            assert!(e.field.is_some() || e.path.is_some(), "rejection without a location: {e}");
        }
        Ok(model) => {
            let written = onemodel::write(&model).expect("an accepted model writes");
            let back = onemodel::read(&written).expect("the writer's output reads");
            let exact = onemodel::read_exact(&written, Limits::DEFAULT, DEFAULT_HASH_KEY);
            assert_eq!(exact.as_ref(), Ok(&back), "the writer's output reads two ways");
            assert_eq!(back, model, "round trip changed the model");
            assert_eq!(onemodel::write(&back).expect("writes again"), written, "writer not deterministic");
        }
    }
});
