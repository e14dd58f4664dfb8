//! Extraction fault tests (`spec/mpk.md` §6): nothing is left behind on failure, links at
//! the destination are refused, the extension rule comes before any byte is read.

mod progress;

use modelgate_core::gzip::write_gzip;
use modelgate_core::mpk::{MpkKind, MpkLimits, Registry, check_tar_gz};
use modelgate_core::tar::END_OF_ARCHIVE;
use modelgate_core::tar::{FileMeta, Flavor, TarWriter, file_header};
use modelgate_io::extract::{ExtractError, check_package, extract};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

const CONTRACT: &str = r#"{"name":"m","plugins":[{"name":"run","sequence":1,"processor":"MLA","type":"sgpProcess","config_params":{"desired_batch_size":1,"actual_batch_size":1},"input_nodes":[],"output_nodes":[],"resources":{"executable":"m.elf"}}]}"#;
const PIPELINE: &str = r#"{"pipelines":[{"sequence":[{"sequence_id":1,"name":"run","pluginId":"processmla","configPath":"run.json","processor":"MLA","kernel":"infer","input":"decoder"}]}]}"#;

/// A package laid out as the MPK tools lay it out: contract and configs under `etc/`, the
/// model under `share/`.
fn files() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("etc/m_mpk.json", CONTRACT.into()),
        ("etc/pipeline_sequence.json", PIPELINE.into()),
        ("etc/run.json", b"{}".to_vec()),
        ("share/m.elf", vec![0x7f; 200_000]),
    ]
}

fn tar_body(files: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut w = TarWriter::new(Flavor::Gnu);
    for (p, d) in files {
        w.append_file(p.as_bytes(), d, &FileMeta::FIXED).unwrap();
    }
    let mut t = w.finish();
    t.truncate(t.len() - END_OF_ARCHIVE.len());
    t
}

fn package(tar: Vec<u8>) -> Vec<u8> {
    write_gzip(&tar, usize::MAX).unwrap()
}

fn valid() -> Vec<u8> {
    let mut t = tar_body(&files());
    t.extend_from_slice(&END_OF_ARCHIVE);
    package(t)
}

/// A fresh, empty folder for one test.
fn scratch(name: &str) -> PathBuf {
    static N: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "modelgate-extract-{name}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// Every path under `dir`, relative, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            out.push(p.strip_prefix(dir).unwrap().to_string_lossy().into_owned());
            if fs::symlink_metadata(&p).unwrap().is_dir() {
                stack.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn valid_package_extracted_atomically() {
    let dir = scratch("valid");
    let pkg = dir.join("model.tar.gz");
    fs::write(&pkg, valid()).unwrap();
    let dest = dir.join("out");
    let p = extract(&pkg, &dest, MpkLimits::DEFAULT, &mut |_, _| {}).unwrap();
    assert_eq!(p.pipelines.unwrap()[0].stages[0].name, "run");
    assert_eq!(p.contract.plugins[0].resolved.as_deref(), Some("share/m.elf"));
    assert_eq!(
        listing(&dir),
        [
            "model.tar.gz",
            "out",
            "out/etc",
            "out/etc/m_mpk.json",
            "out/etc/pipeline_sequence.json",
            "out/etc/run.json",
            "out/share",
            "out/share/m.elf"
        ]
    );
    assert_eq!(fs::read(dest.join("share/m.elf")).unwrap(), vec![0x7f; 200_000]);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn last_entry_rejected_leaves_no_file_anywhere() {
    let dir = scratch("last");
    let mut t = tar_body(&files());
    // The last entry is a symlink: everything before it was already written to the
    // temporary root when it is rejected.
    let mut h = file_header(b"evil.so", 0, &FileMeta::FIXED, Flavor::Gnu).unwrap();
    h[156] = b'2';
    h[157..168].copy_from_slice(b"/etc/passwd");
    h[148..156].copy_from_slice(b"        ");
    let sum: u32 = h.iter().map(|&x| u32::from(x)).sum();
    h[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
    t.extend_from_slice(&h);
    t.extend_from_slice(&END_OF_ARCHIVE);
    let pkg = dir.join("model.tar.gz");
    fs::write(&pkg, package(t)).unwrap();
    let dest = dir.join("out");
    match extract(&pkg, &dest, MpkLimits::DEFAULT, &mut |_, _| {}) {
        Err(ExtractError::Rejected(e)) => assert_eq!(e.kind, MpkKind::PathTraversal),
        other => panic!("{other:?}"),
    }
    assert_eq!(listing(&dir), ["model.tar.gz"]);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn missing_end_rejected_after_content_leaves_nothing() {
    let dir = scratch("noend");
    let pkg = dir.join("model.tar.gz");
    fs::write(&pkg, package(tar_body(&files()))).unwrap();
    let err = extract(&pkg, &dir.join("out"), MpkLimits::DEFAULT, &mut |_, _| {}).unwrap_err();
    assert!(
        matches!(err, ExtractError::Rejected(ref e) if e.kind == MpkKind::InvalidArchive),
        "{err}"
    );
    assert_eq!(listing(&dir), ["model.tar.gz"]);
    fs::remove_dir_all(&dir).unwrap();
}

#[cfg(unix)]
#[test]
fn symlink_planted_at_destination_refused() {
    let dir = scratch("planted");
    let outside = scratch("outside");
    let pkg = dir.join("model.tar.gz");
    fs::write(&pkg, valid()).unwrap();
    let dest = dir.join("out");
    std::os::unix::fs::symlink(&outside, &dest).unwrap();
    let err = extract(&pkg, &dest, MpkLimits::DEFAULT, &mut |_, _| {}).unwrap_err();
    assert!(matches!(err, ExtractError::Exists(_)), "{err}");
    assert!(listing(&outside).is_empty(), "nothing written through the link");
    assert_eq!(listing(&dir), ["model.tar.gz", "out"]);
    // A dangling link is refused too.
    fs::remove_dir_all(&outside).unwrap();
    assert!(matches!(
        extract(&pkg, &dest, MpkLimits::DEFAULT, &mut |_, _| {}),
        Err(ExtractError::Exists(_))
    ));
    assert!(!outside.exists());
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn existing_destination_refused() {
    let dir = scratch("exists");
    let pkg = dir.join("model.tar.gz");
    fs::write(&pkg, valid()).unwrap();
    fs::create_dir(dir.join("out")).unwrap();
    assert!(matches!(
        extract(&pkg, &dir.join("out"), MpkLimits::DEFAULT, &mut |_, _| {}),
        Err(ExtractError::Exists(_))
    ));
    assert_eq!(listing(&dir), ["model.tar.gz", "out"]);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn extension_rule_before_any_byte() {
    // The files do not even exist: the name alone decides.
    for name in ["model.tgz", "model.mpk", "model.tar", "model.gz", "model.TAR.GZ"] {
        let path = Path::new("/nonexistent-modelgate").join(name);
        match check_package(&path, MpkLimits::DEFAULT, &mut |_, _| {}) {
            Err(ExtractError::Rejected(e)) => {
                assert_eq!(e.kind, MpkKind::InvalidArchive);
                assert!(e.to_string().starts_with("invalid_archive: "));
            }
            other => panic!("{name}: {other:?}"),
        }
    }
}

#[test]
fn archive_size_limit_from_metadata() {
    let dir = scratch("size");
    let pkg = dir.join("model.tar.gz");
    fs::write(&pkg, valid()).unwrap();
    let limits = MpkLimits {
        max_archive_bytes: 100,
        ..MpkLimits::DEFAULT
    };
    match check_package(&pkg, limits, &mut |_, _| {}) {
        Err(ExtractError::Rejected(e)) => assert_eq!(e.kind, MpkKind::SizeLimitExceeded),
        other => panic!("{other:?}"),
    }
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn check_writes_nothing() {
    let dir = scratch("check");
    let pkg = dir.join("model.tar.gz");
    fs::write(&pkg, valid()).unwrap();
    check_package(&pkg, MpkLimits::DEFAULT, &mut |_, _| {}).unwrap();
    assert_eq!(listing(&dir), ["model.tar.gz"]);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn check_reports_progress_monotone_to_the_total() {
    let dir = scratch("progress");
    let mut content = files();
    // Incompressible, so the package is several read chunks long.
    content[3].1 = modelgate_corpus_gen::rng::pseudorandom(300_000, 0x9e37_79b9_7f4a_7c15);
    let mut t = tar_body(&content);
    t.extend_from_slice(&END_OF_ARCHIVE);
    let pkg = dir.join("model.tar.gz");
    fs::write(&pkg, package(t)).unwrap();
    progress::assert_progress_monotone_to_the_total("mpk", &pkg);
    fs::remove_dir_all(&dir).unwrap();
}

/// What one run over a package gave: the package, the rejection, or another failure.
fn outcome<T: std::fmt::Debug>(r: Result<T, ExtractError>) -> Result<T, String> {
    match r {
        Ok(p) => Ok(p),
        Err(ExtractError::Rejected(e)) => Err(format!("{e:?}")),
        Err(other) => panic!("not a rejection: {other:?}"),
    }
}

/// The two-thread extraction and check (§6.2) report exactly what the one-thread
/// `MpkReader` in core reports for every hostile-corpus package: the same package, or the
/// same kind, message and location. Covers an inflate error preceded by tar-invalid output
/// (`invalid_archive-tar-error-before-deflate-error`), which must lose to the tar error.
#[test]
fn threads_report_what_the_serial_reader_reports_for_the_corpus() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../hostile-corpus/mpk");
    let dir = scratch("corpus");
    let mut seen = 0;
    for entry in fs::read_dir(&corpus).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.ends_with(".json") {
            continue;
        }
        let bytes = fs::read(&path).unwrap();
        let serial = modelgate_core::mpk::check_extension(&name)
            .and_then(|()| check_tar_gz(&bytes, MpkLimits::DEFAULT, Registry::DEFAULT, [1, 2]))
            .map_err(|e| format!("{e:?}"));
        let checked = outcome(check_package(&path, MpkLimits::DEFAULT, &mut |_, _| {}));
        assert_eq!(checked, serial, "check {name}");
        let dest = dir.join(format!("out-{seen}"));
        let extracted = outcome(extract(&path, &dest, MpkLimits::DEFAULT, &mut |_, _| {}));
        assert_eq!(extracted, serial, "extract {name}");
        assert_eq!(dest.exists(), serial.is_ok(), "{name}");
        seen += 1;
    }
    assert!(seen > 100, "{seen} packages");
    fs::remove_dir_all(&dir).unwrap();
}

/// Every folder under `dir`, `dir` itself excluded.
fn folders(dir: &Path) -> u64 {
    let mut n = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if fs::symlink_metadata(&p).unwrap().is_dir() {
                n += 1;
                stack.push(p);
            }
        }
    }
    n
}

/// `spec/mpk.md` §3.2.2, §6.3: files are extracted under their names alone, so forty files
/// 254 archive folders deep (the deepest §2.6 allows) land in `lib/` beside each other, and
/// extraction makes the class folders only: one `mkdir` each.
#[test]
fn deep_archive_folders_are_flattened() {
    let tmp = modelgate_io::temp::TempDir::create(&std::env::temp_dir(), "mg-extract", "deep").unwrap();
    let deep = "a/".repeat(254);
    let mut all = files();
    let names: Vec<String> = (0..40).map(|i| format!("{deep}f{i}.so")).collect();
    all.extend(names.iter().map(|n| (n.as_str(), vec![b'x'])));
    let mut t = tar_body(&all);
    t.extend_from_slice(&END_OF_ARCHIVE);
    let pkg = tmp.path().join("deep.tar.gz");
    fs::write(&pkg, package(t)).unwrap();
    let dest = tmp.path().join("out");
    // The sink runs on the calling thread (§6.2), where the operations are counted.
    let before = modelgate_io::dirsink::folder_operations();
    let p = extract(&pkg, &dest, MpkLimits::DEFAULT, &mut |_, _| {}).unwrap();
    let ops = modelgate_io::dirsink::folder_operations() - before;
    assert_eq!(p.files.len(), 44);
    assert_eq!(p.files.last().unwrap().dest, "lib/f39.so");
    assert_eq!(folders(&dest), 3);
    assert_eq!(ops, 3);
    assert_eq!(fs::read(dest.join("lib/f39.so")).unwrap(), b"x");
}
