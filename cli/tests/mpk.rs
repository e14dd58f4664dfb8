//! `modelgate mpk extract`, `check` and `inspect` on MPK packages, run as a user runs them
//! (`spec/mpk.md` §7), on the committed hostile corpus.

mod common;
use common::*;
use std::path::Path;

#[test]
fn extract_valid_package() {
    let d = scratch("valid");
    let dest = d.join("out");
    let o = modelgate(&[
        "mpk",
        "extract",
        &corpus("mpk", "valid-basic-valid.tar.gz"),
        dest.to_str().unwrap(),
    ]);
    let package = corpus("mpk", "valid-basic-valid.tar.gz");
    assert_eq!(
        all(&o),
        (
            Some(0),
            format!("{package}: extracted 6 files, 2 plugins to {}\n", dest.display()),
            String::new()
        )
    );
    assert_eq!(
        listing(&dest),
        [
            "etc/0_preproc.json",
            "etc/0_process_mla.json",
            "etc/model_mpk.json",
            "etc/pipeline_sequence.json",
            "lib/model.so",
            "share/model.elf"
        ]
    );
}

#[test]
fn extract_rejected_package_exits_1_and_leaves_nothing() {
    let d = scratch("rejected");
    let dest = d.join("out");
    let o = modelgate(&[
        "mpk",
        "extract",
        &corpus("mpk", "path_traversal-symlink-escape.tar.gz"),
        dest.to_str().unwrap(),
    ]);
    // A writing command's rejection goes to stderr.
    let (code, out, err) = all(&o);
    assert_eq!((code, out), (Some(1), String::new()));
    assert!(
        err.starts_with(&format!(
            "{}: rejected (mpk) path_traversal: symbolic link entries are not allowed",
            corpus("mpk", "path_traversal-symlink-escape.tar.gz")
        )),
        "{err}"
    );
    assert_eq!(std::fs::read_dir(&d).unwrap().count(), 0);
}

#[test]
fn extract_existing_destination_exits_2() {
    let d = scratch("exists");
    let o = modelgate(&[
        "mpk",
        "extract",
        &corpus("mpk", "valid-basic-valid.tar.gz"),
        d.to_str().unwrap(),
    ]);
    assert_eq!(
        all(&o),
        (
            Some(2),
            String::new(),
            format!("{}: already exists; a folder is never replaced\n", d.display())
        )
    );
}

#[test]
fn extract_names_the_missing_package_and_the_missing_folder() {
    let d = scratch("paths");
    let missing = d.join("x.tar.gz");
    let o = modelgate(&[
        "mpk",
        "extract",
        missing.to_str().unwrap(),
        d.join("out").to_str().unwrap(),
    ]);
    assert_eq!(
        all(&o),
        (
            Some(2),
            String::new(),
            format!("{}: No such file or directory (os error 2)\n", missing.display())
        )
    );
    let dest = d.join("no/out");
    let o = modelgate(&[
        "mpk",
        "extract",
        &corpus("mpk", "valid-basic-valid.tar.gz"),
        dest.to_str().unwrap(),
    ]);
    assert_eq!(
        all(&o),
        (
            Some(2),
            String::new(),
            format!("{}: folder {} does not exist\n", dest.display(), d.join("no").display())
        )
    );
    assert_eq!(std::fs::read_dir(&d).unwrap().count(), 0);
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
    assert_eq!(
        all(&o),
        (
            Some(1),
            String::new(),
            format!(
                "{}: rejected (mpk) invalid_archive: package file name must end in .tar.gz\n",
                corpus("mpk", "invalid_archive-extension-tgz.tgz")
            )
        )
    );
}

#[test]
fn check_detects_mpk_before_gzip() {
    let o = modelgate(&["check", &corpus("mpk", "valid-basic-valid.tar.gz")]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).ends_with("valid-basic-valid.tar.gz: ok (mpk)\n"));
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
        line.contains(r#""location":{"member":"etc/0_preproc.json","offset":7}"#),
        "{line}"
    );
}

/// `spec/mpk.md` §7.2: plugins in `sequence` order with their resolved executables, stages
/// in execution order with their inputs, every file with its destination.
#[test]
fn inspect_lists_plugins_and_stages_in_order() {
    let file = corpus("mpk", "valid-legacy-cvu-pipeline-at-root.tar.gz");
    let o = modelgate(&["inspect", &file]);
    assert_eq!(o.status.code(), Some(0));
    let text = stdout(&o);
    for line in [
        "contract legacy_mpk.json (name model, model_sdk_version 2.0.0)\n",
        "plugin 1 quantize_0 on EV74 kernel quantization_transform executable kernel_name_tbd (not a package file)\n",
        "plugin 2 mla_0 on MLA executable share/legacy.elf\n",
        "plugin 3 dequantize_0 on EV74 kernel dequantization_transform\n",
        "file legacy.elf -> share/legacy.elf (27 bytes)\n",
        "  1. quant_0 (sequence_id 1) CVU/quant plugin processcvu config etc/0_quant.json input decoder\n",
        "  2. tess_0 (sequence_id 1) CVU/tess plugin processcvu config etc/0_tess.json input quant_0\n",
        "  5. dequant_0 (sequence_id 4) CVU/dequantize plugin processcvu config etc/0_dequant.json input detess_0, decoder\n",
    ] {
        assert!(text.contains(line), "{line:?} not in {text}");
    }
    let o = modelgate(&["inspect", "--json", &file]);
    let json = stdout(&o);
    let doc = modelgate_core::json::parse(json.as_bytes(), modelgate_core::json::Limits::DEFAULT).unwrap();
    let plugins: Vec<&str> = match &doc.get("plugins").unwrap().node {
        modelgate_core::json::Node::Array(p) => p.iter().map(|p| p.get("name").unwrap().as_str().unwrap()).collect(),
        _ => panic!("{json}"),
    };
    assert_eq!(plugins, ["quantize_0", "mla_0", "dequantize_0"]);
    assert!(json.contains(r#""resolved":"share/legacy.elf","sequence":2"#), "{json}");
    assert!(json.contains(r#""input":["detess_0","decoder"]"#), "{json}");
    let o = modelgate(&[
        "inspect",
        "--json",
        &corpus("mpk", "valid-missing-pipeline-sequence.tar.gz"),
    ]);
    assert!(stdout(&o).contains(r#""pipelines":null"#), "{}", stdout(&o));
}

/// Every regular file below `dir`, relative, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    out.sort();
    out
}
