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
    let bundle = vault.join("qwen--qwen3-0.6b@c1899de289a0");
    assert_eq!(
        all(&o),
        (
            Some(0),
            format!(
                "{f}: imported qwen--qwen3-0.6b@c1899de289a0 to {} (bundle hash \
                 8ee234be86b24a89a0c99c064da61bd144ef646dc2a5ccc14d48bf574b39407f)\n",
                bundle.display()
            ),
            String::new()
        )
    );
    let o = modelgate(&["mvb", "verify", bundle.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let o = modelgate(&["mvb", "verify", f]);
    assert_eq!(o.status.code(), Some(0));
    let o = modelgate(&["mvb", "import", f, v]);
    assert_eq!(
        all(&o),
        (
            Some(2),
            String::new(),
            format!("{}: already exists; a folder is never replaced\n", bundle.display())
        )
    );
    // --quiet leaves out what succeeded: `verify`'s ok line too.
    assert_eq!(
        all(&modelgate(&["-q", "mvb", "verify", f])),
        (Some(0), String::new(), String::new())
    );
}

#[test]
fn import_and_export_name_the_folder_that_is_missing() {
    let d = scratch("missing");
    let file = d.join("x.mvb.tar");
    std::fs::copy(corpus("mvb", "valid-model-bundle.mvb.tar"), &file).unwrap();
    let (f, vault) = (file.to_str().unwrap(), d.join("vault"));
    assert_eq!(
        all(&modelgate(&["mvb", "import", f, vault.to_str().unwrap()])),
        (
            Some(2),
            String::new(),
            format!("{}: No such file or directory (os error 2)\n", vault.display())
        )
    );
    assert_eq!(
        all(&modelgate(&["mvb", "export", d.to_str().unwrap(), f])),
        (Some(2), String::new(), format!("{f}: not a folder\n"))
    );
}

#[test]
fn export_refuses_an_existing_file_unless_overwrite() {
    let d = scratch("export");
    let file = d.join("x.mvb.tar");
    std::fs::copy(corpus("mvb", "valid-model-bundle.mvb.tar"), &file).unwrap();
    let vault = d.join("vault");
    std::fs::create_dir_all(&vault).unwrap();
    let o = modelgate(&["mvb", "import", file.to_str().unwrap(), vault.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    let bundle = vault.join("qwen--qwen3-0.6b@c1899de289a0");
    let (b, out) = (bundle.to_str().unwrap(), d.to_str().unwrap());
    let first = modelgate(&["mvb", "export", b, out]);
    let dest = d.join("qwen--qwen3-0.6b@c1899de289a0.mvb.tar");
    let (code, text, err) = all(&first);
    assert_eq!((code, err), (Some(0), String::new()));
    assert!(
        text.starts_with(&format!("{}: exported 7 files, ", dest.display())),
        "{text}"
    );
    assert_eq!(
        all(&modelgate(&["mvb", "export", b, out])),
        (
            Some(2),
            String::new(),
            format!("{}: already exists; use --overwrite to replace it\n", dest.display())
        )
    );
    let again = modelgate(&["mvb", "export", "--overwrite", b, out]);
    assert_eq!(all(&again), (Some(0), text, String::new()), "the same bytes again");
}

#[test]
fn import_rejected_leaves_vault_empty() {
    let d = scratch("reject");
    let file = d.join("x.mvb.tar");
    std::fs::copy(corpus("mvb", "PathTraversal-symlink-entry.mvb.tar"), &file).unwrap();
    let vault = d.join("vault");
    std::fs::create_dir_all(&vault).unwrap();
    let o = modelgate(&["mvb", "import", file.to_str().unwrap(), vault.to_str().unwrap()]);
    // A writing command's rejection goes to stderr, naming the file.
    let (code, out, err) = all(&o);
    assert_eq!((code, out), (Some(1), String::new()));
    assert!(
        err.starts_with(&format!(
            "{}: rejected (mvb) PathTraversal: link entry in bundle",
            file.display()
        )),
        "{err}"
    );
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
