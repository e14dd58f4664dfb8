//! `Format::check_bytes`, the check of bytes that have no file, gives every hostile-corpus
//! file exactly the outcome `Format::check` gives the file: the same acceptance, or the same
//! kind, message and location. The one rule it cannot apply is MPK's file name rule
//! (`spec/mpk.md` §3.0), so a package whose name breaks it is compared with the check of
//! the same bytes under a name that keeps it. And `detect_content` tells every file's format
//! from its bytes as `detect` tells it from a name that no format claims.

use modelgate_io::check::{CheckError, detect, detect_content};
use modelgate_io::corpus::collect;
use std::fs;
use std::path::{Path, PathBuf};

/// The outcome as it is printed: `Ok` or the kind, message and location.
fn outcome(r: Result<(), CheckError>) -> Result<(), String> {
    r.map_err(|e| match e {
        CheckError::Rejected(r) => format!("{} {} ({})", r.kind, r.message, r.location),
        CheckError::Io(e) => panic!("not a rejection: {e}"),
    })
}

#[test]
fn bytes_are_checked_as_the_file_is_for_the_whole_corpus() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../hostile-corpus");
    let files = collect(std::slice::from_ref(&root)).unwrap().files;
    assert!(files.len() > 1000, "{}", files.len());
    let scratch = modelgate_io::temp::TempDir::create(&std::env::temp_dir(), "mg-check-bytes", "renamed").unwrap();
    let (mut renamed, mut rejected) = (0, 0);
    for (path, _) in &files {
        let format = detect(path).unwrap().unwrap();
        let name = path.file_name().unwrap().to_string_lossy();
        let bytes = fs::read(path).unwrap();
        let as_file = if format.name() == "mpk" && modelgate_core::mpk::check_extension(&name).is_err() {
            renamed += 1;
            let kept = scratch.path().join("package.tar.gz");
            fs::write(&kept, &bytes).unwrap();
            format.check(&kept, &mut |_, _| {})
        } else {
            format.check(path, &mut |_, _| {})
        };
        let as_file = outcome(as_file);
        rejected += usize::from(as_file.is_err());
        assert_eq!(outcome(format.check_bytes(&bytes)), as_file, "{}", path.display());
    }
    assert!(renamed >= 2, "{renamed} packages with a name §3.0 refuses");
    assert!(rejected > 600, "{rejected} rejections");
}

#[test]
fn content_is_told_as_for_a_file_whose_name_tells_nothing() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../hostile-corpus");
    let files = collect(std::slice::from_ref(&root)).unwrap().files;
    let scratch = modelgate_io::temp::TempDir::create(&std::env::temp_dir(), "mg-check-bytes", "unnamed").unwrap();
    let unnamed = scratch.path().join("input");
    let mut told = 0;
    for (path, _) in &files {
        let bytes = fs::read(path).unwrap();
        fs::write(&unnamed, &bytes).unwrap();
        let by_file = detect(&unnamed).unwrap().map(|f| f.name());
        assert_eq!(detect_content(&bytes).map(|f| f.name()), by_file, "{}", path.display());
        told += usize::from(by_file.is_some());
    }
    assert!(told > 500, "{told} files told by content");
}
