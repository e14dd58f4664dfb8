//! OneModel (`spec/onemodel.md`): never panics; every rejection has one of the four kinds and
//! a location; the check from the header and manifest alone (§5, `check_head`) gives the
//! read's verdict; an accepted file's model writes back, reads back equal, and writing it
//! again gives the same bytes (§4: same model, same bytes). (A file can only fail to write
//! back when its tensors' sharing adds over 2 GiB, §4 `max_shared_data`, out of a fuzz
//! input's reach.) Inputs are either a whole file or a manifest and data region framed with
//! a correct header, so the fuzzer reaches the manifest and name rules without guessing
//! header fields.
#![no_main]

use libfuzzer_sys::fuzz_target;
use modelgate_core::onemodel::{self, Limits, MAGIC, assemble};

/// `modelgate check`'s read (§5): the first 64 bytes, then as many as `head_length` asks for.
fn by_head(f: &[u8]) -> Result<(), onemodel::Error> {
    let len = f.len() as u64;
    let need = onemodel::head_length(f.get(..64).unwrap_or(f), len, Limits::DEFAULT)?;
    let head = f.get(..usize::try_from(need).expect("fits")).expect("head_length within the file");
    onemodel::check_head(head, len, Limits::DEFAULT)
}

fuzz_target!(|data: &[u8]| {
    // A file (corpus seeds start with the magic) is read as it is; anything else is taken
    // as manifest text and framed with an empty data region, so the manifest reader is
    // reached directly.
    let bytes = if data.starts_with(&MAGIC) { data.to_vec() } else { assemble(data, &[]) };
    let read = onemodel::read(&bytes, Limits::DEFAULT);
    assert_eq!(by_head(&bytes), read.as_ref().map(drop).map_err(Clone::clone), "the check by head differs");
    match read {
        Err(e) => {
            assert!(e.field.is_some() || e.path.is_some(), "rejection without a location: {e}");
        }
        Ok(model) => {
            let written = onemodel::write(&model, Limits::DEFAULT).expect("an accepted model writes");
            let back = onemodel::read(&written, Limits::DEFAULT).expect("the writer's output reads");
            assert_eq!(back, model, "round trip changed the model");
            assert_eq!(
                onemodel::write(&back, Limits::DEFAULT).expect("writes again"),
                written,
                "writer not deterministic"
            );
        }
    }
});
