//! `modelgate mpk extract`, `check` and `inspect` on MPK packages, run as a user runs them
//! (`spec/mpk.md` §7), on the committed hostile corpus.

mod common;
use common::*;
use std::path::Path;
use std::process::Command;

#[test]
fn extract_valid_package() {
    let d = scratch("valid");
    let dest = d.join("out");
    let o = modelgate(&[
        "mpk",
        "extract",
        &corpus("mpk", "valid-minimal.tar.gz"),
        dest.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).contains("extracted 7 files, 3 stages"));
    assert!(dest.join("etc/mpk.json").is_file() && dest.join("lib/libpost.so").is_file());
    assert!(dest.join("share/resnet50_mla.elf").is_file());
}

#[test]
fn extract_rejected_package_exits_1_and_leaves_nothing() {
    let d = scratch("rejected");
    let dest = d.join("out");
    let o = modelgate(&[
        "mpk",
        "extract",
        &corpus("mpk", "path_traversal-symlink.tar.gz"),
        dest.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains("rejected (mpk) path_traversal: symbolic link entries are not allowed"),
        "{}",
        stdout(&o)
    );
    assert_eq!(std::fs::read_dir(&d).unwrap().count(), 0);
}

#[test]
fn extract_existing_destination_exits_2() {
    let d = scratch("exists");
    let o = modelgate(&[
        "mpk",
        "extract",
        &corpus("mpk", "valid-minimal.tar.gz"),
        d.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn extract_wrong_extension_rejected() {
    let d = scratch("ext");
    let o = modelgate(&[
        "mpk",
        "extract",
        &corpus("mpk", "invalid_archive-extension-tgz.tgz"),
        d.join("o").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("invalid_archive: package file name must end in .tar.gz"));
}

#[test]
fn check_detects_mpk_before_gzip() {
    let o = modelgate(&["check", &corpus("mpk", "valid-minimal.tar.gz")]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).ends_with("valid-minimal.tar.gz: ok (mpk)\n"));
}

#[test]
fn check_json_names_key_and_location() {
    let o = modelgate(&[
        "check",
        "--json",
        &corpus("mpk", "schema_error-duplicate-json-keys.tar.gz"),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let line = stdout(&o);
    assert!(line.contains(r#""kind":"schema_error""#), "{line}");
    assert!(
        line.contains(r#""location":{"member":"pre_config.json","offset":7}"#),
        "{line}"
    );
}

#[test]
fn inspect_lists_stages_in_order() {
    let o = modelgate(&["inspect", &corpus("mpk", "valid-stable-ordering.tar.gz")]);
    assert_eq!(o.status.code(), Some(0));
    let text = stdout(&o);
    let order: Vec<&str> = ["1. pre ", "2. pre_b ", "3. mla_0 ", "4. post "]
        .iter()
        .map(|s| text.find(s).map(|_| *s).unwrap_or("missing"))
        .collect();
    assert_eq!(order, ["1. pre ", "2. pre_b ", "3. mla_0 ", "4. post "], "{text}");
    let o = modelgate(&["inspect", "--json", &corpus("mpk", "valid-stable-ordering.tar.gz")]);
    let json = stdout(&o);
    let names: Vec<usize> = [
        "\"name\":\"pre\"",
        "\"name\":\"pre_b\"",
        "\"name\":\"mla_0\",\"pluginId\"",
        "\"name\":\"post\",\"pluginId\"",
    ]
    .iter()
    .map(|n| json.find(n).unwrap_or_else(|| panic!("{n} in {json}")))
    .collect();
    assert!(names.windows(2).all(|w| w[0] < w[1]), "{json}");
}

/// Differential check against Python's `tarfile` (a second, independent tar reader):
/// for every valid package of the corpus, both list the same regular files with the same
/// sizes (PAX sizes and long names included). Skipped when `python3` is absent.
#[test]
fn python_tarfile_reads_valid_packages_the_same_way() {
    let script = r#"
import json, sys, tarfile
with tarfile.open(sys.argv[1], "r:gz") as t:
    out = []
    for m in t.getmembers():
        if m.isfile():
            name = m.name[2:] if m.name.startswith("./") else m.name
            out.append([name.replace("//", "/"), m.size])
print(json.dumps(out))
"#;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../hostile-corpus/mpk");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        if !name.starts_with("valid-") {
            continue;
        }
        let Ok(py) = Command::new("python3").arg("-c").arg(script).arg(&path).output() else {
            eprintln!("python3 not available; skipped");
            return;
        };
        assert!(py.status.success(), "{name}: {}", String::from_utf8_lossy(&py.stderr));
        let theirs = modelgate_core::json::parse(&py.stdout, Default::default()).unwrap();
        let o = modelgate(&["inspect", "--json", path.to_str().unwrap()]);
        let ours = modelgate_core::json::parse(&o.stdout, Default::default()).unwrap();
        let ours: Vec<(String, String)> = match &ours.get("files").unwrap().node {
            modelgate_core::json::Node::Array(files) => files
                .iter()
                .map(|f| {
                    let p = f.get("path").unwrap().as_str().unwrap().to_string();
                    let s = match &f.get("size").unwrap().node {
                        modelgate_core::json::Node::Number(n) => n.as_str().to_string(),
                        _ => panic!(),
                    };
                    (p, s)
                })
                .collect(),
            _ => panic!(),
        };
        let theirs: Vec<(String, String)> = match &theirs.node {
            modelgate_core::json::Node::Array(files) => files
                .iter()
                .map(|f| match &f.node {
                    modelgate_core::json::Node::Array(pair) => (
                        pair[0].as_str().unwrap().to_string(),
                        match &pair[1].node {
                            modelgate_core::json::Node::Number(n) => n.as_str().to_string(),
                            _ => panic!(),
                        },
                    ),
                    _ => panic!(),
                })
                .collect(),
            _ => panic!(),
        };
        assert_eq!(ours, theirs, "{name}");
        checked += 1;
    }
    assert!(checked >= 15, "{checked}");
}
