//! Archive paths (`spec/mpk.md` §2): never panics; every accepted path, joined to a root,
//! stays inside it (only plain components, no root, prefix, `.` or `..`); normalisation
//! is idempotent; inserting a path twice is a duplicate.
#![no_main]

use libfuzzer_sys::fuzz_target;
use modelgate_core::archive_path::{PathLimits, PathSet, SetError, normalize};
use std::path::{Component, Path};

fuzz_target!(|data: &[u8]| {
    let Ok(n) = normalize(data, &PathLimits::DEFAULT) else {
        return;
    };
    let root = Path::new("/extract/root");
    let joined = root.join(&n);
    assert!(joined.starts_with(root), "{n:?} escapes the root");
    let rel = joined.strip_prefix(root).expect("inside the root");
    assert!(rel.components().count() > 0);
    for c in rel.components() {
        assert!(matches!(c, Component::Normal(_)), "{n:?} has component {c:?}");
    }
    assert!(!n.contains('\\') && !n.contains('\0') && !n.starts_with('/'));
    assert_eq!(
        normalize(n.as_bytes(), &PathLimits::DEFAULT).as_deref(),
        Ok(n.as_str()),
        "not idempotent"
    );
    let mut set = PathSet::new([7, 9]);
    set.insert(&n, false).expect("first insert");
    assert_eq!(set.insert(&n, false), Err(SetError::Duplicate));
});
