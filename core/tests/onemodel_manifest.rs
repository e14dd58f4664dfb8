//! The manifest reader over the strict parser's tape (`spec/onemodel.md` §1.2, §2, §3.2):
//! every hostile-corpus file gives exactly the failure (kind, location, offset, message) the
//! reader over an owned `json::Value` gave before the tape replaced it, members are read in
//! table order whatever order the file has them in, and names with escapes are found.

use modelgate_core::onemodel::writer::assemble;
use modelgate_core::onemodel::*;
use std::path::Path;

/// One line per `hostile-corpus/onemodel/*.onemodel` file, as the Value-based reader
/// (commit c53ea6f) reported it: `name<TAB>ok` or
/// `name<TAB>kind<TAB>field or path<TAB>offset<TAB>message`. A corpus change that adds or
/// changes a OneModel case updates this list with it (the one case added since,
/// `Malformed-sparse-initializers-131072-numbers`, with the outcome the tape reader gave
/// both before and after 273da6f).
const OUTCOMES: &str = include_str!("data/onemodel_corpus_outcomes.tsv");

fn outcome(bytes: &[u8]) -> String {
    match read(bytes) {
        Ok(_) => String::from("ok"),
        Err(e) => format!(
            "{}\t{}\t{}\t{}",
            e.kind.name(),
            e.field.map(String::from).or(e.path.clone()).unwrap_or_default(),
            e.offset.map_or(String::from("-"), |o| o.to_string()),
            e.message
        ),
    }
}

#[test]
fn every_corpus_file_fails_exactly_as_before() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../hostile-corpus/onemodel");
    let mut checked = 0;
    for line in OUTCOMES.lines() {
        let (name, expected) = line.split_once('\t').expect("name, tab, outcome");
        let bytes = std::fs::read(dir.join(name)).expect("corpus file");
        assert_eq!(outcome(&bytes), expected, "{name}");
        checked += 1;
    }
    let on_disk = std::fs::read_dir(&dir)
        .expect("corpus folder")
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "onemodel"))
        })
        .count();
    assert_eq!(checked, on_disk, "every .onemodel corpus file has a line");
}

fn manifest_file(manifest: &str) -> Vec<u8> {
    assemble(manifest.as_bytes(), &[0; 64])
}

fn at(manifest: &str, needle: &str) -> u64 {
    64 + manifest.find(needle).expect("needle") as u64
}

/// A tensor whose members come in reverse table order, with a bad `data` and a negative
/// dimension: `dims` comes before `data` in the table (§2.5), so the dimension is reported.
#[test]
fn members_out_of_writer_order_are_checked_in_table_order() {
    let m = r#"{"graph":{"initializers":[{"data":{"length":4,"offset":1},"dims":[-1],"dtype":1,"name":"w"}]},"ir_version":9}"#;
    let e = read(&manifest_file(m)).expect_err("negative dim");
    assert_eq!(
        (e.kind, e.path.as_deref(), e.offset),
        (
            ErrorKind::OutOfRange,
            Some("manifest.graph.initializers[0].dims[0]"),
            Some(at(m, "-1"))
        )
    );
    // The same tensor with a good dimension: now `data` is wrong (offset not aligned).
    let m = m.replace("[-1]", "[1]");
    let e = read(&manifest_file(&m)).expect_err("unaligned");
    assert_eq!(
        (e.kind, e.path.as_deref(), e.offset),
        (
            ErrorKind::OutOfRange,
            Some("manifest.graph.initializers[0].data.offset"),
            Some(at(&m, "1}"))
        )
    );
}

/// Member names are compared after unescaping (`spec/json.md` §5), out of order or not.
#[test]
fn escaped_member_names_are_found() {
    let m = r#"{"ir_version":9,"opsets":[{"version":17}],"graph":{"inputs":[{"name":"x"}],"outputs":[{"name":"y"}],"nodes":[{"outputs":["y"],"\u006fp":"Relu","inputs":["x"]}]}}"#;
    let bytes = manifest_file(m);
    let model = read(&bytes).expect("valid");
    assert_eq!(model.graph.nodes[0].op, "Relu");
    assert_eq!(model.graph.nodes[0].inputs, ["x"]);
}

/// A name-resolution failure found after the manifest was read still carries the file
/// offset of the offending string (§3.2), found again from its path.
#[test]
fn resolution_failures_carry_offsets() {
    let m = r#"{"ir_version":9,"opsets":[{"version":17}],"graph":{"nodes":[{"op":"Relu","inputs":["nowhere"],"outputs":["y"]}]}}"#;
    let e = read(&manifest_file(m)).expect_err("undefined");
    assert_eq!(
        (e.kind, e.path.as_deref(), e.offset),
        (
            ErrorKind::Malformed,
            Some("manifest.graph.nodes[0].inputs[0]"),
            Some(at(m, "\"nowhere\""))
        )
    );
    // A node that reads its own output: a cycle, reported at the node.
    let m = m.replace("nowhere", "y");
    let bytes = manifest_file(&m);
    let e = read(&bytes).expect_err("cycle");
    assert_eq!(
        (e.kind, e.path.as_deref(), e.offset),
        (
            ErrorKind::Malformed,
            Some("manifest.graph.nodes[0]"),
            Some(at(&m, "{\"op\""))
        )
    );
}
