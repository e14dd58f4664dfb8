//! The tar reader against two independent readers (`spec/mpk.md` §1, §9.2): for every valid
//! tar of the MPK and mvb corpora, the entries modelgate's reader yields (name, size, type)
//! equal those Python's `tarfile` and GNU `tar -tv` list. A file that two readers read two
//! ways is what the strict reader exists to refuse, so an accepted file must read alike
//! everywhere. Skipped when `python3` or `tar` is absent.

use modelgate_core::gzip::gunzip;
use modelgate_core::tar::{EntryKind, TarLimits, entries};
use std::path::{Path, PathBuf};
use std::process::Command;

/// One entry as every reader can name it: its path without a trailing `/`, its size, and
/// `-` (file), `d` (directory) or `?` (anything else; no valid package or bundle has one).
type Listed = (String, u64, char);

/// The valid files of one corpus folder whose names end in `suffix`.
fn valid_files(folder: &str, suffix: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../hostile-corpus")
        .join(folder);
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_str().unwrap();
            name.starts_with("valid-") && name.ends_with(suffix)
        })
        .collect();
    out.sort();
    out
}

fn trimmed(name: &str) -> String {
    match name.trim_end_matches('/') {
        "" => String::from("/"),
        t => t.to_string(),
    }
}

/// modelgate's reading: gzip (for `.tar.gz`), then the tar reader.
fn ours(path: &Path) -> Vec<Listed> {
    let bytes = std::fs::read(path).unwrap();
    let tar = if path.to_str().unwrap().ends_with(".gz") {
        let mut out = Vec::new();
        gunzip(&bytes, u64::MAX, |c| out.extend_from_slice(c)).unwrap();
        out
    } else {
        bytes
    };
    entries(&tar, TarLimits::DEFAULT)
        .map(|r| {
            let (e, _) = r.unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let kind = match e.kind {
                EntryKind::Regular => '-',
                EntryKind::Directory => 'd',
                _ => '?',
            };
            (trimmed(&String::from_utf8_lossy(&e.path)), e.size, kind)
        })
        .collect()
}

const PYTHON: &str = r#"
import json, sys, tarfile
with tarfile.open(sys.argv[1], "r:*") as t:
    print(json.dumps([[m.name, m.size, "-" if m.isfile() else "d" if m.isdir() else "?"]
                      for m in t.getmembers()]))
"#;

/// Python's `tarfile` reading, or `None` without python3.
fn python(path: &Path) -> Option<Vec<Listed>> {
    let out = Command::new("python3").arg("-c").arg(PYTHON).arg(path).output().ok()?;
    assert!(
        out.status.success(),
        "{}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let doc = modelgate_core::json::parse(&out.stdout, modelgate_core::json::Limits::DEFAULT).unwrap();
    let modelgate_core::json::Node::Array(items) = &doc.node else {
        panic!()
    };
    Some(
        items
            .iter()
            .map(|i| {
                let modelgate_core::json::Node::Array(f) = &i.node else {
                    panic!()
                };
                let modelgate_core::json::Node::Number(size) = &f[1].node else {
                    panic!()
                };
                let kind = f[2].as_str().unwrap().chars().next().unwrap();
                let name = f[0].as_str().unwrap();
                // tarfile names the root folder entry `./` as `.`.
                let name = if name == "." { "./" } else { name };
                (trimmed(name), size.to_u64().unwrap(), kind)
            })
            .collect(),
    )
}

/// GNU tar's listing (`tar --numeric-owner -tv`), or `None` without tar.
fn gnu_tar(path: &Path) -> Option<Vec<Listed>> {
    let out = Command::new("tar")
        .args(["--numeric-owner", "--quoting-style=literal", "-tvf"])
        .arg(path)
        .env("LC_ALL", "C.UTF-8")
        .output()
        .ok()?;
    assert!(
        out.status.success(),
        "{}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    Some(
        text.lines()
            .map(|line| {
                // `-rw-r--r-- 0/0   33 1970-01-01 00:00 NAME`
                let mut fields = line.splitn(6, char::is_whitespace).filter(|f| !f.is_empty());
                let perms = fields.next().unwrap();
                let rest: Vec<&str> = line.split_whitespace().collect();
                let size: u64 = rest[2].parse().unwrap();
                let at = line.find(rest[4]).unwrap() + rest[4].len() + 1;
                let kind = match perms.chars().next().unwrap() {
                    '-' => '-',
                    'd' => 'd',
                    _ => '?',
                };
                (trimmed(&line[at..]), size, kind)
            })
            .collect(),
    )
}

fn all_read_alike(folder: &str, suffix: &str) {
    let files = valid_files(folder, suffix);
    assert!(files.len() >= 10, "{folder}: {} valid files", files.len());
    for path in files {
        let ours = ours(&path);
        let (Some(py), Some(gnu)) = (python(&path), gnu_tar(&path)) else {
            eprintln!("python3 or tar not available; skipped");
            return;
        };
        assert_eq!(ours, py, "{}: Python tarfile reads it otherwise", path.display());
        assert_eq!(ours, gnu, "{}: GNU tar reads it otherwise", path.display());
    }
}

#[test]
fn every_valid_mpk_package_reads_alike_in_python_and_gnu_tar() {
    all_read_alike("mpk", ".tar.gz");
}

#[test]
fn every_valid_mvb_bundle_reads_alike_in_python_and_gnu_tar() {
    all_read_alike("mvb", ".mvb.tar");
}
