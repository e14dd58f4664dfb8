//! `read_container` and where a member's bytes live (`spec/mlbundle.md` §4.1, §4.2): from
//! `Source::Bytes` a stored member is borrowed from those bytes; from a stream or a path the
//! archive is loaded here, so every member comes back owned, and a stored member's copy that
//! cannot be reserved is rejected exactly as a deflated member's buffer is, never an abort.

use modelgate_core::mlbundle::{ArchiveLimits, MemberName, Recipe};
use modelgate_corpus_gen::mlbundle::zip::{Member, Zip};
use modelgate_corpus_gen::mlbundle::{SCHEMA, manifest_for};
use modelgate_corpus_gen::rng::pseudorandom;
use modelgate_io::source::{Source, read_container};
use std::borrow::Cow;
use std::sync::Mutex;

use modelgate_corpus_gen::counting;

#[global_allocator]
static GLOBAL: counting::Counting = counting::Counting;

/// Held by every test here: while one refuses an allocation size, no other may run.
static ALONE: Mutex<()> = Mutex::new(());

/// Length of `model.cbm`: an odd size no other allocation of these reads asks for.
const MODEL_LEN: usize = 300_001;

/// A bundle of manifest, `model.cbm` and schema, every member stored or every member
/// deflated, and the archive offset of the model's data.
fn bundle(stored: bool) -> (Vec<u8>, u64) {
    let model = pseudorandom(MODEL_LEN, 0x6f776e);
    let manifest = manifest_for(
        Recipe::Standalone(MemberName::ModelCbm),
        &[("model.cbm", &model), ("schema.json", SCHEMA)],
    );
    let mut members = vec![
        Member::new("manifest.json", manifest.as_bytes()),
        Member::new("model.cbm", &model),
        Member::new("schema.json", SCHEMA),
    ];
    if stored {
        members = members.into_iter().map(Member::stored).collect();
    }
    let (bytes, layout) = Zip::new(members).build();
    (bytes, layout.data[1])
}

#[test]
fn stored_members_borrow_the_given_bytes_and_are_owned_from_a_stream() {
    let _alone = ALONE.lock().unwrap();
    let (bytes, _) = bundle(true);
    let range = bytes.as_ptr_range();
    let borrowed = read_container(Source::Bytes(&bytes), &ArchiveLimits::DEFAULT).unwrap();
    assert_eq!(borrowed.members.len(), 3);
    for (name, m) in &borrowed.members {
        assert!(matches!(m, Cow::Borrowed(_)) && range.contains(&m.as_ptr()), "{name:?}");
    }
    let mut stream = &bytes[..];
    let streamed = read_container(Source::Stream(&mut stream), &ArchiveLimits::DEFAULT).unwrap();
    assert!(streamed.members.values().all(|m| matches!(m, Cow::Owned(_))));
    assert_eq!(streamed.members, borrowed.members);
}

/// §4.1: a member buffer that cannot be reserved is `LimitExceeded` about the member at its
/// data offset; a stored member copied out of a loaded stream gets the same rejection as a
/// deflated member inflated into its buffer. From `Source::Bytes` nothing is copied.
#[test]
fn a_stored_copy_that_cannot_be_reserved_is_rejected_like_a_deflated_buffer() {
    let _alone = ALONE.lock().unwrap();
    for stored in [true, false] {
        let (bytes, model_data) = bundle(stored);
        let e = counting::refusing(MODEL_LEN, || {
            read_container(Source::Stream(&mut &bytes[..]), &ArchiveLimits::DEFAULT).unwrap_err()
        });
        let r = e.rejection().unwrap();
        assert_eq!(r.kind, "LimitExceeded", "stored {stored}");
        assert_eq!(
            r.message, "model.cbm: member buffer could not be reserved",
            "stored {stored}"
        );
        assert_eq!(r.location, modelgate_core::Location::at(model_data), "stored {stored}");
    }
    let (bytes, _) = bundle(true);
    let read = counting::refusing(MODEL_LEN, || {
        read_container(Source::Bytes(&bytes), &ArchiveLimits::DEFAULT)
    });
    assert!(read.is_ok());
}
