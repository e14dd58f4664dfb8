//! `modelgate mlbundle pack`, `check` and `inspect` on mlbundle files, run as a user runs
//! them (`spec/mlbundle.md` §10–§12).

mod common;
use common::*;
use std::path::Path;
use std::process::Output;

const SCHEMA: &[u8] = br#"{"inputs":[{"name":"x","dtype":"float64"}]}"#;
/// ModelProto { ir_version 7, graph {} }: the smallest self-contained ONNX model.
const ONNX: &[u8] = b"\x08\x07\x3a\x00";

fn pack(dir: &Path, extra: &[&str]) -> (Output, String) {
    let model = write(dir, "m.onnx", ONNX);
    let schema = write(dir, "schema.json", SCHEMA);
    let out = dir.join("out.mlbundle").to_str().unwrap().to_string();
    let mut args = vec!["mlbundle", "pack", "--model", &model, "--schema", &schema];
    args.extend_from_slice(extra);
    args.push(&out);
    (modelgate(&args), out)
}

#[test]
fn pack_then_check_and_inspect() {
    let d = scratch("pack");
    let (o, out) = pack(&d, &[]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let size = std::fs::metadata(&out).unwrap().len();
    assert_eq!(stdout(&o), format!("{out}: written (mlbundle, {size} bytes)\n"));
    let c = modelgate(&["check", &out]);
    assert_eq!(stdout(&c), format!("{out}: ok (mlbundle)\n"));
    let i = modelgate(&["inspect", "--json", &out]);
    assert_eq!(i.status.code(), Some(0));
    let text = stdout(&i);
    assert!(text.contains("\"name\":\"model.onnx\""), "{text}");
    assert!(text.contains("\"schema\":{\"inputs\""), "{text}");
}

#[test]
fn pack_is_deterministic() {
    let d = scratch("determinism");
    let (_, out) = pack(&d, &[]);
    let first = std::fs::read(&out).unwrap();
    let (o, _) = pack(&d, &["--overwrite"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(std::fs::read(&out).unwrap(), first);
}

#[test]
fn pack_refuses_existing_output_without_overwrite() {
    let d = scratch("exists");
    let out = write(&d, "out.mlbundle", b"keep");
    let (o, _) = pack(&d, &[]);
    assert_eq!(
        all(&o),
        (
            Some(2),
            String::new(),
            format!("{out}: already exists; use --overwrite to replace it\n")
        )
    );
    assert_eq!(std::fs::read(&out).unwrap(), b"keep");
}

#[test]
fn pack_names_the_output_whose_folder_is_missing_and_the_input_it_cannot_read() {
    let d = scratch("paths");
    let model = write(&d, "m.onnx", b"onnx model bytes");
    let schema = write(&d, "schema.json", SCHEMA);
    let out = d.join("no/such/folder/out.mlbundle");
    let out = out.to_str().unwrap();
    let o = modelgate(&["mlbundle", "pack", "--model", &model, "--schema", &schema, out]);
    assert_eq!(
        all(&o),
        (
            Some(2),
            String::new(),
            format!("{out}: folder {} does not exist\n", d.join("no/such/folder").display())
        )
    );
    let out = d.join("out.mlbundle");
    let out = out.to_str().unwrap();
    let missing = d.join("missing.json");
    let missing = missing.to_str().unwrap();
    let o = modelgate(&["mlbundle", "pack", "--model", &model, "--schema", missing, out]);
    assert_eq!(
        all(&o),
        (
            Some(2),
            String::new(),
            format!("{missing}: No such file or directory (os error 2)\n")
        )
    );
    assert!(!Path::new(out).exists());
}

#[test]
fn pack_rejects_invalid_schema_with_kind() {
    let d = scratch("badschema");
    let model = write(&d, "m.ubj", b"u");
    let schema = write(&d, "schema.json", b"{\"inputs\":[]}");
    let out = d.join("out.mlbundle").to_str().unwrap().to_string();
    let o = modelgate(&["mlbundle", "pack", "--model", &model, "--schema", &schema, &out]);
    // A writing command's rejection goes to stderr and names the input it is about.
    assert_eq!(
        all(&o),
        (
            Some(1),
            String::new(),
            format!(
                "{schema}: rejected (mlbundle) InvalidJSON: schema.inputs: inputs must not be empty \
                 (member schema.json, schema.inputs, byte 10)\n"
            )
        )
    );
    assert!(!Path::new(&out).exists());
}

/// §12.2: `pack` parses `model.onnx` as the validating load does and refuses what is not
/// a self-contained ONNX model before writing anything: bytes that are not ONNX, and a
/// model whose weights are in an external file.
#[test]
fn pack_refuses_a_model_onnx_that_is_not_self_contained() {
    let d = scratch("notonnx");
    let schema = write(&d, "schema.json", SCHEMA);
    let out = d.join("out.mlbundle").to_str().unwrap().to_string();
    // ir_version 7, graph { initializer { dims 4, float, name "w", external_data
    // { location "w.bin" }, data_location EXTERNAL } }.
    let stub = b"\x08\x07\x3a\x1e\x2a\x1c\x08\x04\x10\x01\x42\x01w\x6a\x11\x0a\x08location\x12\x05w.bin\x70\x01";
    for (bytes, message) in [
        (
            &b"onnx model bytes"[..],
            "model.onnx is not a self-contained ONNX model: field 13 of ModelProto has undefined wire type 7 (expected 0, 1, 2 or 5): not an ONNX model (member model.onnx, onnx, byte 0)",
        ),
        (
            &stub[..],
            "model.onnx is not a self-contained ONNX model: tensor data in an external file, which this read does not resolve (member model.onnx, onnx.graph.initializer[0], byte 6)",
        ),
    ] {
        let model = write(&d, "m.onnx", bytes);
        let o = modelgate(&["mlbundle", "pack", "--model", &model, "--schema", &schema, &out]);
        assert_eq!(o.status.code(), Some(1), "{o:?}");
        // A rejection goes to stderr, naming the input the rejected member came from.
        assert_eq!(stdout(&o), "");
        assert_eq!(
            String::from_utf8_lossy(&o.stderr),
            format!("{model}: rejected (mlbundle) InvalidContainer: {message}\n")
        );
        assert!(!Path::new(&out).exists());
    }
}

#[test]
fn pack_composite_and_unsupported_pairs() {
    let d = scratch("composite");
    let skops = write(&d, "m.skops", b"s");
    let cbm = write(&d, "m.cbm", b"c");
    let onnx = write(&d, "m.onnx", b"o");
    let schema = write(&d, "schema.json", SCHEMA);
    let out = d.join("out.mlbundle").to_str().unwrap().to_string();
    let ok = modelgate(&[
        "mlbundle", "pack", "--model", &cbm, "--model", &skops, "--schema", &schema, &out,
    ]);
    assert_eq!(ok.status.code(), Some(0), "{ok:?}");
    let bad = modelgate(&[
        "mlbundle", "pack", "--model", &onnx, "--model", &skops, "--schema", &schema, &out,
    ]);
    assert_eq!(
        all(&bad),
        (
            Some(2),
            String::new(),
            "modelgate mlbundle pack: the models give model.onnx and model.skops; expected one model, \
             or model.skops with model.ubj or model.cbm\n"
                .to_string()
        )
    );
    let txt = write(&d, "m.txt", b"t");
    let bad = modelgate(&["mlbundle", "pack", "--model", &txt, "--schema", &schema, &out]);
    assert_eq!(
        all(&bad),
        (
            Some(2),
            String::new(),
            format!(
                "modelgate mlbundle pack: {txt}: the model's extension is .txt; expected .onnx, .skops, .ubj or .cbm\n"
            )
        )
    );
}

#[test]
fn check_reports_kind_of_hostile_bundle() {
    let d = scratch("hostile");
    let (_, out) = pack(&d, &[]);
    let mut bytes = std::fs::read(&out).unwrap();
    bytes.push(0);
    let bad = write(&d, "appended.mlbundle", &bytes);
    let o = modelgate(&["check", &bad]);
    assert_eq!(o.status.code(), Some(1));
    let at = bytes.len() - 22;
    assert_eq!(
        stdout(&o),
        format!(
            "{bad}: rejected (mlbundle) InvalidContainer: no end record at the end of the archive \
             (comments and appended bytes are rejected) (byte {at})\n"
        )
    );
}
