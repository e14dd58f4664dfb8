//! Inputs that are not regular files: a FIFO is refused before it is opened (opening one
//! for reading blocks until a writer comes, so a reader that opened first would hang), and a
//! device is refused before it is read (`spec/mpk.md` §6.1, `spec/mvb.md` §5.2, §6.1, §8.1,
//! `spec/mlbundle.md` §11.1, `spec/onemodel.md` §5).
#![cfg(unix)]

use modelgate_core::mpk::MpkLimits;
use modelgate_io::check;
use modelgate_io::failure::FileError;
use modelgate_io::mmap::{self, Mode};
use modelgate_io::temp::TempDir;
use std::fs::{self, OpenOptions};
use std::io;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

/// How long a refusal may take before the call counts as hung.
const PROMPT: Duration = Duration::from_secs(5);

/// A fresh folder, removed with its contents when the test ends, whether it passes or panics.
fn scratch(name: &str) -> TempDir {
    TempDir::create(&std::env::temp_dir(), "mg-special", name).unwrap()
}

/// Makes a FIFO at `dir/name` with `mkfifo`.
fn fifo(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    let status = Command::new("mkfifo").arg(&path).status().unwrap();
    assert!(status.success(), "mkfifo failed");
    assert!(fs::symlink_metadata(&path).unwrap().file_type().is_fifo());
    path
}

/// Runs `f` on a thread of its own and returns its result, failing the test if it has not
/// returned within [`PROMPT`]. A call stuck opening `fifo` is then released by opening the
/// FIFO for writing once (on yet another thread, in case nothing is waiting on it).
fn promptly<T: Send + 'static>(fifo: &Path, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(PROMPT) {
        Ok(value) => value,
        Err(_) => {
            let fifo = fifo.to_path_buf();
            thread::spawn(move || drop(OpenOptions::new().write(true).open(fifo)));
            panic!("the call did not return within {PROMPT:?}: it blocked on the FIFO");
        }
    }
}

/// The error is the refusal of a path that is not a regular file.
fn assert_not_regular(e: &io::Error) {
    assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{e}");
    assert_eq!(e.to_string(), "not a regular file");
}

fn assert_io_not_regular<R: std::fmt::Debug>(r: Result<impl std::fmt::Debug, FileError<R>>) {
    match r {
        Err(FileError::Io(e)) => assert_not_regular(&e),
        other => panic!("expected the not-a-regular-file I/O error, got {other:?}"),
    }
}

#[test]
fn mpk_check_and_extract_refuse_a_fifo_package() {
    let tmp = scratch("mpk");
    let pkg = fifo(tmp.path(), "p.tar.gz");
    let p = pkg.clone();
    let r = promptly(&pkg, move || {
        modelgate_io::extract::check_package(&p, MpkLimits::DEFAULT, &mut |_, _| {}).map(drop)
    });
    assert_io_not_regular(r);
    let (p, dest) = (pkg.clone(), tmp.path().join("out"));
    let r = promptly(&pkg, move || {
        modelgate_io::extract::extract(&p, &dest, MpkLimits::DEFAULT, &mut |_, _| {}).map(drop)
    });
    assert_io_not_regular(r);
    // Nothing was written: no destination, no temporary root.
    let names: Vec<_> = fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["p.tar.gz"]);
}

#[test]
fn mvb_verify_check_and_import_refuse_a_fifo_archive() {
    let tmp = scratch("mvb");
    let archive = fifo(tmp.path(), "b.mvb.tar");
    let a = archive.clone();
    assert_io_not_regular(promptly(&archive, move || {
        modelgate_io::mvb::verify_archive(&a, &mut |_, _| {}).map(drop)
    }));
    let a = archive.clone();
    assert_io_not_regular(promptly(&archive, move || {
        modelgate_io::mvb::check_archive(&a, &mut |_, _| {}).map(drop)
    }));
    let vault = tmp.path().join("vault");
    fs::create_dir(&vault).unwrap();
    let (a, v) = (archive.clone(), vault.clone());
    assert_io_not_regular(promptly(&archive, move || {
        modelgate_io::mvb::import(&a, &v, &mut |_, _| {}).map(drop)
    }));
    assert_eq!(fs::read_dir(&vault).unwrap().count(), 0);
}

#[test]
fn mvb_export_and_folder_verify_refuse_a_fifo_manifest() {
    let tmp = scratch("manifest");
    let bundle = tmp.path().join("bundle");
    fs::create_dir(&bundle).unwrap();
    let manifest = fifo(&bundle, "manifest.json");
    let out = tmp.path().join("out");
    fs::create_dir(&out).unwrap();
    let (b, o) = (bundle.clone(), out.clone());
    assert_io_not_regular(promptly(&manifest, move || {
        modelgate_io::mvb::export(&b, &o, false, &mut |_, _| {}).map(drop)
    }));
    let b = bundle.clone();
    assert_io_not_regular(promptly(&manifest, move || {
        modelgate_io::mvb::verify_folder(&b, &mut |_, _| {}).map(drop)
    }));
    assert_eq!(fs::read_dir(&out).unwrap().count(), 0);
    assert!(!bundle.join("exports.json").exists());
}

#[test]
fn bounded_readers_and_detection_refuse_a_fifo() {
    let tmp = scratch("readers");
    let path = fifo(tmp.path(), "input");
    let p = path.clone();
    match promptly(&path, move || modelgate_io::read::read_bounded(&p, 1 << 20)) {
        Err(modelgate_io::read::ReadError::Io(e)) => assert_not_regular(&e),
        other => panic!("expected the not-a-regular-file I/O error, got {other:?}"),
    }
    let p = path.clone();
    let r = promptly(&path, move || {
        modelgate_io::source::load(modelgate_io::source::Source::Path(&p), 1 << 20).map(|b| b.len())
    });
    match r {
        Err(modelgate_io::source::SourceError::Io(e)) => assert_not_regular(&e),
        other => panic!("expected the not-a-regular-file I/O error, got {other:?}"),
    }
    // No suffix, so detection sniffs the first bytes: only of a regular file.
    let p = path.clone();
    let e = promptly(&path, move || check::detect(&p).map(|f| f.map(|f| f.name()))).unwrap_err();
    assert_not_regular(&e);
}

#[test]
fn model_loading_refuses_a_fifo() {
    let tmp = scratch("mmap");
    let path = fifo(tmp.path(), "m.onemodel");
    for mode in [Mode::Auto, Mode::Read] {
        let p = path.clone();
        let e = promptly(&path, move || mmap::load(&p, 1 << 20, mode).map(|b| b.len())).unwrap_err();
        assert_not_regular(&e);
    }
    // `modelgate check`'s read of the header and manifest alone refuses it the same way.
    let p = path.clone();
    match promptly(&path, move || {
        modelgate_io::onemodel::check_file(&p, modelgate_io::onemodel::limits())
    }) {
        Err(modelgate_io::onemodel::Failure::Io(e)) => assert_not_regular(&e),
        other => panic!("expected the not-a-regular-file I/O error, got {other:?}"),
    }
}

/// `/dev/zero` says its length is 0 and never ends: it is refused before a byte is read,
/// not read up to the limit (with the model limit of 2^63 − 1 bytes, never).
#[test]
fn model_loading_refuses_a_device() {
    let zero = Path::new("/dev/zero");
    assert!(fs::metadata(zero).unwrap().file_type().is_char_device());
    for mode in [Mode::Auto, Mode::Read] {
        assert_not_regular(&mmap::load(zero, 1 << 20, mode).unwrap_err());
    }
    match modelgate_io::onemodel::check_file(zero, modelgate_io::onemodel::limits()) {
        Err(modelgate_io::onemodel::Failure::Io(e)) => assert_not_regular(&e),
        other => panic!("expected the not-a-regular-file I/O error, got {other:?}"),
    }
}
