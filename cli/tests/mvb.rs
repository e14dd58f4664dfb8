//! `modelgate mvb verify|import`, `check` and `inspect` on mvb archives, run as a user runs
//! them (`spec/mvb.md` §6 to §8), on the committed hostile corpus.

mod common;
use common::*;

#[test]
fn check_and_inspect_valid_archive() {
    let f = corpus("mvb", "valid-model-bundle.mvb.tar");
    let o = modelgate(&["check", &f]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o), format!("{f}: ok (mvb)\n"));
    let o = modelgate(&["inspect", "--json", &f]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains(r#""format":"mvb""#));
}

#[test]
fn check_reports_kind_and_location() {
    let f = corpus("mvb", "IntegrityMismatch-payload-flipped-middle-byte.mvb.tar");
    let o = modelgate(&["check", &f]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stdout(&o),
        format!(
            "{f}: rejected (mvb) IntegrityMismatch: payload SHA-256 differs from the inventory (member \
             model/model.safetensors, byte 5120)\n"
        )
    );
}

#[test]
fn import_then_verify_then_refuse_second_import() {
    let d = scratch("import");
    let file = d.join("qwen--qwen3-0.6b@c1899de289a0.mvb.tar");
    std::fs::copy(corpus("mvb", "valid-model-bundle.mvb.tar"), &file).unwrap();
    let vault = d.join("vault");
    std::fs::create_dir_all(&vault).unwrap();
    let (f, v) = (file.to_str().unwrap(), vault.to_str().unwrap());
    let o = modelgate(&["mvb", "import", f, v]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let bundle = vault.join("qwen--qwen3-0.6b@c1899de289a0");
    let o = modelgate(&["mvb", "verify", bundle.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let o = modelgate(&["mvb", "verify", f]);
    assert_eq!(o.status.code(), Some(0));
    let o = modelgate(&["mvb", "import", f, v]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn import_rejected_leaves_vault_empty() {
    let d = scratch("reject");
    let file = d.join("x.mvb.tar");
    std::fs::copy(corpus("mvb", "PathTraversal-symlink-entry.mvb.tar"), &file).unwrap();
    let vault = d.join("vault");
    std::fs::create_dir_all(&vault).unwrap();
    let o = modelgate(&["mvb", "import", file.to_str().unwrap(), vault.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("rejected (mvb) PathTraversal: link entry in bundle"));
    assert_eq!(std::fs::read_dir(&vault).unwrap().count(), 0);
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(modelgate(&["mvb", "export"]).status.code(), Some(2));
    assert_eq!(
        modelgate(&["mvb", "verify", "/nonexistent/x.mvb.tar"]).status.code(),
        Some(2)
    );
}
