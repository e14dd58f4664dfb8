//! The manifest reader over the strict parser's tape (`spec/onemodel.md` §1.2, §2, §3.2):
//! every hostile-corpus file gives exactly the failure (kind, location, offset, message) the
//! reader over an owned `json::Value` gave before the tape replaced it, members are read in
//! table order whatever order the file has them in, and names with escapes are found.

use modelgate_core::onemodel::assemble;
use modelgate_core::onemodel::*;
use std::path::Path;

/// One line per `hostile-corpus/onemodel/*.onemodel` file, as the Value-based reader
/// (commit c53ea6f) reported it: `name<TAB>ok` or
/// `name<TAB>kind<TAB>field or path<TAB>offset<TAB>message`. A corpus change that adds or
/// changes a OneModel case updates this list with it (the one case added since,
/// `Malformed-sparse-initializers-131072-numbers`, with the outcome the tape reader gave
/// both before and after 273da6f), and so does a change of message: the messages of
/// unsupported codes, kinds and versions name the value found and the values expected
/// since the `messages` branch (kinds, locations and offsets unchanged).
const OUTCOMES: &str = include_str!("data/onemodel_corpus_outcomes.tsv");

fn outcome(bytes: &[u8]) -> String {
    match read(bytes, Limits::DEFAULT) {
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
    let e = read(&manifest_file(m), Limits::DEFAULT).expect_err("negative dim");
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
    let e = read(&manifest_file(&m), Limits::DEFAULT).expect_err("unaligned");
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
    let model = read(&bytes, Limits::DEFAULT).expect("valid");
    assert_eq!(model.graph.nodes[0].op, "Relu");
    assert_eq!(model.graph.nodes[0].inputs, ["x"]);
}

/// A name-resolution failure found after the manifest was read still carries the file
/// offset of the offending string (§3.2), found again from its path.
#[test]
fn resolution_failures_carry_offsets() {
    let m = r#"{"ir_version":9,"opsets":[{"version":17}],"graph":{"nodes":[{"op":"Relu","inputs":["nowhere"],"outputs":["y"]}]}}"#;
    let e = read(&manifest_file(m), Limits::DEFAULT).expect_err("undefined");
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
    let e = read(&bytes, Limits::DEFAULT).expect_err("cycle");
    assert_eq!(
        (e.kind, e.path.as_deref(), e.offset),
        (
            ErrorKind::Malformed,
            Some("manifest.graph.nodes[0]"),
            Some(at(&m, "{\"op\""))
        )
    );
}

/// What a manifest reads as does not depend on how its JSON is written (§1.2, §3.4): members
/// out of table order, unknown members, escaped member names, members of another type kind
/// and whitespace between tokens give the model the writer's own text gives, and the writer
/// writes that model back as its own text.
#[test]
fn every_spelling_of_a_manifest_reads_as_the_writers() {
    let canonical = r#"{"ir_version":8,"opsets":[{"version":17}],"graph":{"inputs":[{"name":"x","type":{"kind":"tensor","elem_type":1}}],"outputs":[{"name":"y"}],"nodes":[{"name":"","op":"Relu","domain":"","overload":"","inputs":["x"],"outputs":["y"],"attributes":[]}]}}"#;
    let bytes = manifest_file(canonical);
    let model = read(&bytes, Limits::DEFAULT).expect("valid");
    assert_eq!(
        write(&model, Limits::DEFAULT).expect("writes"),
        assemble(canonical.as_bytes(), &[])
    );
    let spellings = [
        (
            "members out of table order",
            r#"{"graph":{"nodes":[{"outputs":["y"],"inputs":["x"],"op":"Relu"}],"outputs":[{"name":"y"}],"inputs":[{"type":{"elem_type":1,"kind":"tensor"},"name":"x"}]},"opsets":[{"version":17}],"ir_version":8}"#,
        ),
        (
            "unknown members",
            r#"{"ir_version":8,"later":{"a":[1]},"opsets":[{"version":17,"x":null}],"graph":{"inputs":[{"name":"x","type":{"kind":"tensor","elem_type":1}}],"outputs":[{"name":"y"}],"nodes":[{"op":"Relu","inputs":["x"],"outputs":["y"],"z":"z"}]}}"#,
        ),
        (
            "escaped member names",
            r#"{"ir\u005fversion":8,"opsets":[{"version":17}],"graph":{"inputs":[{"name":"x","type":{"\u006bind":"tensor","elem_type":1}}],"outputs":[{"name":"y"}],"nodes":[{"op":"Relu","inputs":["x"],"outputs":["y"]}]}}"#,
        ),
        (
            "a member of another type kind",
            r#"{"ir_version":8,"opsets":[{"version":17}],"graph":{"inputs":[{"name":"x","type":{"kind":"tensor","elem_type":1,"key_type":7,"elem":{}}}],"outputs":[{"name":"y"}],"nodes":[{"op":"Relu","inputs":["x"],"outputs":["y"]}]}}"#,
        ),
        (
            "whitespace between tokens",
            " {\"ir_version\" :8,\n\"opsets\":[ {\"version\":17} ],\t\"graph\":{\"inputs\":[{\"name\":\"x\",\"type\":{\"kind\":\"tensor\",\"elem_type\":1}}],\r\"outputs\":[{\"name\":\"y\"}],\"nodes\":[{\"op\":\"Relu\",\"inputs\":[\"x\"],\"outputs\":[\"y\"]}]}} \n",
        ),
    ];
    for (what, text) in spellings {
        let bytes = manifest_file(text);
        assert_eq!(read(&bytes, Limits::DEFAULT).as_ref(), Ok(&model), "{what}");
    }
}
