//! mvb export, import and verify on disk (`spec/mvb.md` §5 to §8): byte-identical exports,
//! stock GNU tar and Python `tarfile` recover the bundle, `darsay-verify.py` passes, and a
//! single flipped payload byte makes import refuse and leave the vault unchanged.

mod progress;

use modelgate_core::digest::{hex, sha256};
use modelgate_core::mvb::{MvbKind, bundle_hash, covers};
use modelgate_io::mvb::{MvbIoError, VERIFIER, check_archive, export, import, verify_archive, verify_folder};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

mod listing;
use listing::sorted_names;

const ID: &str = "qwen--qwen3-0.6b@c1899de289a0";
const DATE: &str = "2025-06-01T12:00:00Z";

fn scratch(tag: &str) -> PathBuf {
    static N: AtomicU32 = AtomicU32::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    let p = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("mvb-test-{}-{tag}-{n}", std::process::id()));
    let _ = fs::remove_dir_all(&p);
    fs::create_dir_all(&p).unwrap();
    p
}

fn payload() -> Vec<(String, Vec<u8>)> {
    let long = format!("model/{}/shard-00001-of-00002.safetensors", "nested-folder".repeat(9));
    vec![
        ("model/config.json".into(), br#"{"layers":28}"#.to_vec()),
        (
            "model/model.safetensors".into(),
            (0..200_000u32).map(|i| (i * 31 % 253) as u8).collect(),
        ),
        ("model/tokenizer/vocab.txt".into(), b"a\nb\nc\n".to_vec()),
        (long, vec![7u8; 70_000]),
        ("model/empty.bin".into(), Vec::new()),
    ]
}

fn manifest(files: &[(String, Vec<u8>)]) -> String {
    let inv: Vec<String> = files
        .iter()
        .map(|(p, d)| format!(r#"{{"path":"{p}","size":{},"sha256":"{}"}}"#, d.len(), hex(&sha256(d))))
        .collect();
    let hexes: Vec<(String, String)> = files.iter().map(|(p, d)| (p.clone(), hex(&sha256(d)))).collect();
    let h = bundle_hash(hexes.iter().map(|(p, x)| (p.as_str(), x.as_str())));
    format!(
        "{{\n  \"schema_version\": \"1.6.0\",\n  \"kind\": \"darsay.bundle\",\n  \"artifact_type\": \"model\",\n  \"bundle_id\": \"{ID}\",\n  \"inventory\": {{\"layout\": {{\"payload_root\": \"model/\"}}, \"files\": [{}], \"bundle_hash\": {{\"algorithm\": \"sha256-of-sorted-sha256-lines\", \"value\": \"{h}\", \"covers\": \"{}\"}}}},\n  \"archive\": {{\"date_archived\": \"{DATE}\", \"location\": \"/old/place\"}}\n}}\n",
        inv.join(", "),
        covers("model")
    )
}

/// A bundle folder with payload, manifest, metadata and the volatile files export skips.
fn make_bundle(parent: &Path) -> PathBuf {
    let dir = parent.join(ID);
    let files = payload();
    for (p, d) in &files {
        let f = dir.join(p);
        fs::create_dir_all(f.parent().unwrap()).unwrap();
        fs::write(f, d).unwrap();
    }
    fs::write(dir.join("manifest.json"), manifest(&files)).unwrap();
    fs::write(dir.join("README.md"), "# qwen3\n").unwrap();
    fs::write(dir.join("hydration.json"), "{}").unwrap();
    fs::write(dir.join("transfer.lock"), "").unwrap();
    fs::write(dir.join("model/.DS_Store"), "junk").unwrap();
    fs::write(dir.join("darsay-verify.py"), "stale copy").unwrap();
    dir
}

fn quiet() -> impl FnMut(u64, u64) {
    |_, _| {}
}

fn export_to(bundle: &Path, out: &Path) -> PathBuf {
    export(bundle, out, false, &mut quiet()).unwrap().path
}

#[test]
fn two_exports_of_one_state_are_byte_identical() {
    let s = scratch("det");
    let bundle = make_bundle(&s);
    let (a, b) = (s.join("a"), s.join("b"));
    fs::create_dir_all(&a).unwrap();
    fs::create_dir_all(&b).unwrap();
    let first = fs::read(export_to(&bundle, &a)).unwrap();
    // The first export wrote exports.json; it must not change the next export.
    assert!(bundle.join("exports.json").exists());
    let second = fs::read(export_to(&bundle, &b)).unwrap();
    assert_eq!(sha256(&first), sha256(&second));
    let log = fs::read_to_string(bundle.join("exports.json")).unwrap();
    assert_eq!(log.matches("file_sha256").count(), 2);
    assert!(log.contains(&hex(&sha256(&first))));
}

#[test]
fn export_refuses_existing_output() {
    let s = scratch("exists");
    let bundle = make_bundle(&s);
    let out = s.join("out");
    fs::create_dir_all(&out).unwrap();
    let dest = out.join(format!("{ID}.mvb.tar"));
    fs::write(&dest, "keep").unwrap();
    assert!(matches!(
        export(&bundle, &out, false, &mut quiet()),
        Err(MvbIoError::Exists(_))
    ));
    assert_eq!(fs::read(&dest).unwrap(), b"keep");
    // With `overwrite` the export replaces it.
    let replaced = export(&bundle, &out, true, &mut quiet()).unwrap();
    assert_eq!(replaced.path, dest);
    let tar = fs::read(&dest).unwrap();
    assert_eq!((tar.len() as u64, sha256(&tar)), (replaced.size, replaced.sha256));
}

#[test]
fn export_fails_when_payload_disagrees_with_inventory() {
    let s = scratch("disagree");
    let bundle = make_bundle(&s);
    let out = s.join("out");
    fs::create_dir_all(&out).unwrap();
    let mut d = fs::read(bundle.join("model/model.safetensors")).unwrap();
    d[1234] ^= 0x40;
    fs::write(bundle.join("model/model.safetensors"), d).unwrap();
    match export(&bundle, &out, false, &mut quiet()) {
        Err(MvbIoError::Rejected(e)) => {
            assert_eq!(e.kind, MvbKind::IntegrityMismatch);
            assert_eq!(e.location.member.as_deref(), Some("model/model.safetensors"));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(fs::read_dir(&out).unwrap().count(), 0, "nothing published");
    assert!(!bundle.join("exports.json").exists());
}

#[cfg(unix)]
#[test]
fn export_refuses_symlinks() {
    let s = scratch("symlink");
    let bundle = make_bundle(&s);
    std::os::unix::fs::symlink("/etc/passwd", bundle.join("model/link")).unwrap();
    let out = s.join("out");
    fs::create_dir_all(&out).unwrap();
    match export(&bundle, &out, false, &mut quiet()) {
        Err(MvbIoError::Rejected(e)) => assert_eq!(e.kind, MvbKind::PathTraversal),
        other => panic!("{other:?}"),
    }
    assert_eq!(fs::read_dir(&out).unwrap().count(), 0);
}

/// README "Adversarial review", races: a folder of the bundle swapped, during the export,
/// for a link to a copy outside it. The copy is identical, so the inventory's SHA-256s
/// cannot tell; by path the export would read it from outside and succeed. Read beneath the
/// bundle folder held open (`beneath.rs`), the link is refused and nothing is published.
#[cfg(unix)]
#[test]
fn export_refuses_a_folder_swapped_for_a_link_while_it_runs() {
    let s = scratch("swap");
    let bundle = make_bundle(&s);
    let outside = s.join("outside");
    fs::create_dir_all(&outside).unwrap();
    let tokenizer = bundle.join("model/tokenizer");
    fs::create_dir_all(outside.join("tokenizer")).unwrap();
    fs::copy(tokenizer.join("vocab.txt"), outside.join("tokenizer/vocab.txt")).unwrap();
    let out = s.join("out");
    fs::create_dir_all(&out).unwrap();
    let mut swapped = false;
    let mut swap = |_: u64, _: u64| {
        if !swapped {
            swapped = true;
            fs::rename(&tokenizer, bundle.join("model/tokenizer-moved")).unwrap();
            std::os::unix::fs::symlink(outside.join("tokenizer"), &tokenizer).unwrap();
        }
    };
    match export(&bundle, &out, false, &mut swap) {
        Err(MvbIoError::Io(e)) => {
            assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput, "{e}");
            assert_eq!(e.to_string(), "not a folder");
        }
        other => panic!("{other:?}"),
    }
    assert!(swapped);
    assert_eq!(fs::read_dir(&out).unwrap().count(), 0);
    // The same swap while `mvb verify` re-hashes the folder.
    let mut swapped = false;
    let mut swap_again = |_: u64, _: u64| {
        if !swapped {
            swapped = true;
            fs::rename(&tokenizer, bundle.join("model/tokenizer-moved")).unwrap();
            std::os::unix::fs::symlink(outside.join("tokenizer"), &tokenizer).unwrap();
        }
    };
    fs::remove_file(&tokenizer).unwrap();
    fs::rename(bundle.join("model/tokenizer-moved"), &tokenizer).unwrap();
    match verify_folder(&bundle, &mut swap_again) {
        Err(MvbIoError::Io(e)) => assert_eq!(e.to_string(), "not a folder"),
        other => panic!("{other:?}"),
    }
}

/// §5.2: a `manifest.json` over `max_manifest_bytes` is LimitExceeded at the limit, refused
/// from its size before it is read, and nothing is published.
#[test]
fn export_refuses_a_manifest_over_its_limit() {
    let s = scratch("big-manifest");
    let bundle = make_bundle(&s);
    let limit = modelgate_core::mvb::MvbLimits::DEFAULT.max_manifest_bytes;
    let f = fs::OpenOptions::new()
        .append(true)
        .open(bundle.join("manifest.json"))
        .unwrap();
    f.set_len(limit + 1).unwrap();
    let out = s.join("out");
    fs::create_dir_all(&out).unwrap();
    match export(&bundle, &out, false, &mut quiet()) {
        Err(MvbIoError::Rejected(e)) => {
            assert_eq!(e.kind, MvbKind::LimitExceeded);
            assert_eq!(e.location.offset, Some(limit));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(fs::read_dir(&out).unwrap().count(), 0);
}

#[test]
fn export_fails_on_extra_payload_file() {
    let s = scratch("extra");
    let bundle = make_bundle(&s);
    fs::write(bundle.join("model/unlisted.bin"), "x").unwrap();
    let out = s.join("out");
    fs::create_dir_all(&out).unwrap();
    match export(&bundle, &out, false, &mut quiet()) {
        Err(MvbIoError::Rejected(e)) => {
            assert_eq!(e.kind, MvbKind::IntegrityMismatch);
            assert_eq!(e.location.member.as_deref(), Some("model/unlisted.bin"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn gnu_tar_lists_normalized_metadata_and_recovers_the_bundle() {
    let s = scratch("gnutar");
    let bundle = make_bundle(&s);
    let out = s.join("out");
    fs::create_dir_all(&out).unwrap();
    let tar = export_to(&bundle, &out);
    let list = Command::new("tar").args(["--utc", "-tvf"]).arg(&tar).output().unwrap();
    assert!(list.status.success());
    let text = String::from_utf8(list.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].ends_with(&format!("{ID}/.mvb.json")), "{}", lines[0]);
    for l in &lines {
        assert!(l.starts_with("-rw-r--r-- 0/0 "), "{l}");
        assert!(l.contains(" 2025-06-01 12:00 "), "{l}");
    }
    let names: Vec<&str> = lines.iter().map(|l| l.rsplit(' ').next().unwrap()).collect();
    let mut sorted = names[1..].to_vec();
    sorted.sort();
    assert_eq!(names[1..], sorted[..]);
    assert!(
        names
            .iter()
            .all(|n| !n.contains("hydration") && !n.contains("transfer") && !n.contains(".DS_Store"))
    );
    let x = s.join("x");
    fs::create_dir_all(&x).unwrap();
    assert!(
        Command::new("tar")
            .arg("-xf")
            .arg(&tar)
            .arg("-C")
            .arg(&x)
            .status()
            .unwrap()
            .success()
    );
    for (p, d) in payload() {
        assert_eq!(fs::read(x.join(ID).join(&p)).unwrap(), d, "{p}");
    }
    assert_eq!(fs::read(x.join(ID).join("darsay-verify.py")).unwrap(), VERIFIER);
    let py = Command::new("python3")
        .arg(x.join(ID).join("darsay-verify.py"))
        .arg(x.join(ID))
        .output()
        .unwrap();
    assert_eq!(py.status.code(), Some(0), "{}", String::from_utf8_lossy(&py.stdout));
}

#[test]
fn python_tarfile_data_filter_extracts_and_verifier_passes_on_the_tar() {
    let s = scratch("python");
    let bundle = make_bundle(&s);
    let out = s.join("out");
    fs::create_dir_all(&out).unwrap();
    let tar = export_to(&bundle, &out);
    let x = s.join("px");
    let script =
        "import sys, tarfile\nwith tarfile.open(sys.argv[1]) as t:\n    t.extractall(sys.argv[2], filter='data')\n";
    let st = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(&tar)
        .arg(&x)
        .status()
        .unwrap();
    assert!(st.success());
    for (p, d) in payload() {
        assert_eq!(fs::read(x.join(ID).join(&p)).unwrap(), d, "{p}");
    }
    let verifier = s.join("darsay-verify.py");
    fs::write(&verifier, VERIFIER).unwrap();
    let py = Command::new("python3").arg(&verifier).arg(&tar).output().unwrap();
    assert_eq!(py.status.code(), Some(0), "{}", String::from_utf8_lossy(&py.stdout));
    let py = Command::new("python3").arg(&verifier).arg(&bundle).output().unwrap();
    assert_eq!(py.status.code(), Some(0), "{}", String::from_utf8_lossy(&py.stdout));
}

#[test]
fn verifier_fails_on_flipped_byte_and_reports_usage() {
    let s = scratch("pyflip");
    let bundle = make_bundle(&s);
    let out = s.join("out");
    fs::create_dir_all(&out).unwrap();
    let tar_path = export_to(&bundle, &out);
    let verifier = s.join("darsay-verify.py");
    fs::write(&verifier, VERIFIER).unwrap();
    let mut tar = fs::read(&tar_path).unwrap();
    let at = find(&tar, &payload()[1].1[..64]) + 100;
    tar[at] ^= 1;
    let bad = s.join(format!("bad-{ID}.mvb.tar"));
    fs::write(&bad, &tar).unwrap();
    let py = Command::new("python3").arg(&verifier).arg(&bad).output().unwrap();
    assert_eq!(py.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&py.stdout).contains("MISMATCH  model/model.safetensors"));
    let py = Command::new("python3").arg(&verifier).output().unwrap();
    assert_eq!(py.status.code(), Some(2));
    let py = Command::new("python3").arg(&verifier).arg(&verifier).output().unwrap();
    assert_eq!(py.status.code(), Some(2));
}

#[test]
fn verifier_reports_missing_and_extra_in_a_folder() {
    let s = scratch("pyfolder");
    let bundle = make_bundle(&s);
    fs::remove_file(bundle.join("model/config.json")).unwrap();
    fs::write(bundle.join("model/stray.bin"), "x").unwrap();
    let verifier = s.join("darsay-verify.py");
    fs::write(&verifier, VERIFIER).unwrap();
    let before: Vec<_> = walk_names(&bundle);
    let py = Command::new("python3").arg(&verifier).arg(&bundle).output().unwrap();
    assert_eq!(py.status.code(), Some(1));
    let out = String::from_utf8_lossy(&py.stdout);
    assert!(out.contains("MISSING   model/config.json"), "{out}");
    assert!(out.contains("EXTRA     model/stray.bin"), "{out}");
    assert!(out.contains("BUNDLE-HASH mismatch"), "{out}");
    assert!(out.ends_with("FAIL\n"), "{out}");
    assert_eq!(walk_names(&bundle), before, "the verifier writes nothing");
}

fn walk_names(dir: &Path) -> Vec<(PathBuf, u64)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(d).unwrap() {
            let e = e.unwrap();
            let m = e.metadata().unwrap();
            if m.is_dir() {
                stack.push(e.path());
            } else {
                out.push((e.path(), m.len()));
            }
        }
    }
    out.sort();
    out
}

fn find(hay: &[u8], needle: &[u8]) -> usize {
    hay.windows(needle.len()).position(|w| w == needle).unwrap()
}

#[test]
fn import_registers_the_bundle_with_provenance() {
    let s = scratch("import");
    let bundle = make_bundle(&s);
    let out = s.join("out");
    let vault = s.join("vault");
    fs::create_dir_all(&out).unwrap();
    fs::create_dir_all(&vault).unwrap();
    let tar = export_to(&bundle, &out);
    let tar_sha = hex(&sha256(&fs::read(&tar).unwrap()));
    let r = import(&tar, &vault, &mut quiet()).unwrap();
    assert_eq!(r.dest, vault.join(ID));
    assert_eq!(sorted_names(&vault), [ID]);
    for (p, d) in payload() {
        assert_eq!(fs::read(vault.join(ID).join(&p)).unwrap(), d, "{p}");
    }
    let m = fs::read_to_string(vault.join(ID).join("manifest.json")).unwrap();
    assert!(m.contains(&format!(r#""file_sha256":"{tar_sha}""#)), "{m}");
    assert!(m.contains(r#""mvb_format_version":"1.2""#));
    assert!(!m.contains("/old/place"));
    assert!(vault.join(ID).join("verification.json").exists());
    assert!(vault.join(ID).join("VERIFICATION.md").exists());
    assert!(
        verify_folder(&vault.join(ID), &mut quiet())
            .unwrap()
            .problems
            .is_empty()
    );
    // A second import of the same bundle is refused; the vault keeps the first.
    assert!(matches!(import(&tar, &vault, &mut quiet()), Err(MvbIoError::Exists(_))));
    assert_eq!(sorted_names(&vault), [ID]);
}

#[test]
fn imported_bundle_exports_again_with_the_same_bundle_hash() {
    let s = scratch("roundtrip");
    let bundle = make_bundle(&s);
    let (out, out2, vault, vault2) = (s.join("out"), s.join("out2"), s.join("vault"), s.join("vault2"));
    for d in [&out, &out2, &vault, &vault2] {
        fs::create_dir_all(d).unwrap();
    }
    let first = import(&export_to(&bundle, &out), &vault, &mut quiet()).unwrap();
    let again = export(&vault.join(ID), &out2, false, &mut quiet()).unwrap();
    let second = import(&again.path, &vault2, &mut quiet()).unwrap();
    assert_eq!(first.imported.bundle_hash, second.imported.bundle_hash);
    for (p, d) in payload() {
        assert_eq!(fs::read(vault2.join(ID).join(&p)).unwrap(), d, "{p}");
    }
    // The on-disk darsay-verify.py left by the import is replaced by the canonical copy.
    assert_eq!(fs::read(vault2.join(ID).join("darsay-verify.py")).unwrap(), VERIFIER);
}

#[test]
fn one_flipped_byte_in_any_payload_file_is_refused_and_vault_unchanged() {
    let s = scratch("flip");
    let bundle = make_bundle(&s);
    let out = s.join("out");
    let vault = s.join("vault");
    fs::create_dir_all(&out).unwrap();
    fs::create_dir_all(&vault).unwrap();
    let good = fs::read(export_to(&bundle, &out)).unwrap();
    for (path, data) in payload() {
        if data.is_empty() {
            continue;
        }
        let start = find(&good, &data[..data.len().min(64)]);
        for at in [0, data.len() / 2, data.len() - 1] {
            let mut tar = good.clone();
            tar[start + at] ^= 0x80;
            let file = s.join(format!("{ID}.mvb.tar"));
            fs::write(&file, &tar).unwrap();
            match import(&file, &vault, &mut quiet()) {
                Err(MvbIoError::Rejected(e)) => {
                    assert_eq!(e.kind, MvbKind::IntegrityMismatch, "{path} {at}");
                    assert_eq!(e.location.member.as_deref(), Some(path.as_str()));
                }
                other => panic!("{path} {at}: {other:?}"),
            }
            assert!(sorted_names(&vault).is_empty(), "vault changed for {path} {at}");
            let checked = {
                let _alone = CHECKING.lock().unwrap();
                check_archive(&file, &mut quiet())
            };
            assert!(matches!(checked, Err(MvbIoError::Rejected(_))));
            assert!(matches!(
                verify_archive(&file, &mut quiet()),
                Err(MvbIoError::Rejected(_))
            ));
        }
    }
}

#[test]
fn import_refuses_wrong_file_name_before_reading() {
    let s = scratch("name");
    let vault = s.join("vault");
    fs::create_dir_all(&vault).unwrap();
    let f = s.join("bundle.tar");
    fs::write(&f, "not even a tar").unwrap();
    match import(&f, &vault, &mut quiet()) {
        Err(MvbIoError::Rejected(e)) => assert_eq!(e.kind, MvbKind::InvalidArchive),
        other => panic!("{other:?}"),
    }
    assert!(sorted_names(&vault).is_empty());
}

#[test]
fn verify_folder_reports_every_problem() {
    let s = scratch("vfolder");
    let bundle = make_bundle(&s);
    fs::write(bundle.join("model/config.json"), "{}").unwrap();
    fs::remove_file(bundle.join("model/tokenizer/vocab.txt")).unwrap();
    fs::write(bundle.join("model/new.bin"), "x").unwrap();
    let r = verify_folder(&bundle, &mut quiet()).unwrap();
    let msgs: Vec<&str> = r.problems.iter().map(|e| e.message.as_ref()).collect();
    assert_eq!(
        msgs,
        [
            "payload SHA-256 differs from the inventory",
            "extra payload file not in the inventory",
            "missing payload file listed in the inventory",
            "bundle hash does not match the payload"
        ]
    );
}

#[test]
fn check_leaves_no_staging_behind() {
    let s = scratch("check");
    let bundle = make_bundle(&s);
    let out = s.join("out");
    fs::create_dir_all(&out).unwrap();
    let tar = export_to(&bundle, &out);
    let _alone = CHECKING.lock().unwrap();
    let before = staging_count();
    check_archive(&tar, &mut quiet()).unwrap();
    assert_eq!(staging_count(), before);
}

/// Held by the tests that check an archive (staging under the system temporary folder),
/// so that [`staging_count`] sees only its own test's folders.
static CHECKING: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn staging_count() -> usize {
    let pid = format!(".mvb-import.{}.", std::process::id());
    fs::read_dir(std::env::temp_dir())
        .unwrap()
        .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().starts_with(&pid))
        .count()
}

#[test]
fn verifier_agrees_with_the_corpus_on_integrity_traversal_and_versions() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../hostile-corpus/mvb");
    let s = scratch("pycorpus");
    let verifier = s.join("darsay-verify.py");
    fs::write(&verifier, VERIFIER).unwrap();
    let mut checked = 0;
    for e in fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let want = match name.split('-').next().unwrap() {
            "valid" => 0,
            "IntegrityMismatch" => 1,
            "PathTraversal" | "UnsupportedVersion" => 2,
            _ => continue,
        };
        let got = Command::new("python3")
            .arg(&verifier)
            .arg(&path)
            .output()
            .unwrap()
            .status
            .code();
        assert_eq!(got, Some(want), "{name}");
        checked += 1;
    }
    assert!(checked >= 30, "{checked}");
}

#[test]
fn check_reports_progress_monotone_to_the_total() {
    let s = scratch("progress");
    let bundle = make_bundle(&s);
    let out = s.join("out");
    fs::create_dir_all(&out).unwrap();
    let tar = export_to(&bundle, &out);
    let _alone = CHECKING.lock().unwrap();
    progress::assert_progress_monotone_to_the_total("mvb", &tar);
}

/// §5.5: the export log is replaced with the permission bits it had (`spec/mlbundle.md`
/// §11.2): a private `exports.json` stays private after an export appends to it.
#[cfg(unix)]
#[test]
fn export_keeps_the_export_logs_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let s = modelgate_io::temp::TempDir::create(Path::new(env!("CARGO_TARGET_TMPDIR")), "mvb-test", "modes").unwrap();
    let bundle = make_bundle(s.path());
    let log = bundle.join("exports.json");
    fs::write(&log, "[]\n").unwrap();
    fs::set_permissions(&log, fs::Permissions::from_mode(0o600)).unwrap();
    let out = s.path().join("out");
    fs::create_dir(&out).unwrap();
    export_to(&bundle, &out);
    assert_eq!(fs::read_to_string(&log).unwrap().matches("file_sha256").count(), 1);
    let mode = fs::metadata(&log).unwrap().permissions().mode() & 0o7777;
    assert_eq!(format!("{mode:o}"), "600");
}

/// §5.1: a bundle path that is itself within the limits of `spec/mpk.md` §2.6 but whose
/// entry path `<bundle_id>/<bundle path>` is not (255 segments plus the bundle folder)
/// makes export fail, as import would refuse the archive (§4.3 step 3); nothing is written.
#[test]
fn export_refuses_a_file_whose_entry_path_import_would_refuse() {
    let s = scratch("deep");
    let dir = s.join(ID);
    // The bundle folder holding `files` (bundle paths) and their manifest, plus `extra`
    // files the manifest does not list.
    let bundle = |files: &[(String, Vec<u8>)], extra: &[&str]| {
        let _ = fs::remove_dir_all(&dir);
        for (p, d) in files
            .iter()
            .map(|(p, d)| (p.as_str(), d.as_slice()))
            .chain(extra.iter().map(|p| (*p, b"x".as_slice())))
        {
            let f = dir.join(p);
            fs::create_dir_all(f.parent().unwrap()).unwrap();
            fs::write(f, d).unwrap();
        }
        fs::write(dir.join("manifest.json"), manifest(files)).unwrap();
    };
    let refused = |out: &Path| match export(&dir, out, false, &mut quiet()) {
        Err(MvbIoError::Rejected(e)) => e,
        other => panic!("{other:?}"),
    };
    let out = s.join("out");
    fs::create_dir_all(&out).unwrap();
    // §4.3 step 3: `<bundle_id>/<bundle path>` is one segment deeper than the bundle path.
    let deep = format!("model/{}x", "d/".repeat(253));
    let mut files = payload();
    files.push((deep.clone(), b"deep".to_vec()));
    bundle(&files, &[]);
    let e = refused(&out);
    assert_eq!(e.kind, MvbKind::InvalidArchive);
    assert_eq!(e.message, "path has more segments than the limit at path byte 542");
    assert_eq!(e.location.member.as_deref(), Some(format!("{ID}/{deep}").as_str()));
    // §4.3 step 5: a folder named like a bundle-root file import writes, in any case.
    bundle(&payload(), &["Verification.JSON/notes.txt"]);
    let e = refused(&out);
    assert_eq!(e.kind, MvbKind::InvalidArchive);
    assert_eq!(e.message, "folder at a bundle-root name import writes");
    assert_eq!(
        e.location.member.as_deref(),
        Some(format!("{ID}/Verification.JSON/notes.txt").as_str())
    );
    assert_eq!(fs::read_dir(&out).unwrap().count(), 0);
    // One segment fewer is exported, and imported.
    let mut files = payload();
    files.push((format!("model/{}x", "d/".repeat(252)), b"deep".to_vec()));
    bundle(&files, &[]);
    let vault = s.join("vault");
    fs::create_dir_all(&vault).unwrap();
    import(&export_to(&dir, &out), &vault, &mut quiet()).unwrap();
}
