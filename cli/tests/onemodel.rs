//! `modelgate onemodel convert`, `to-onnx`, `check` and `inspect` on OneModel and ONNX files,
//! run as a user runs them (`spec/onemodel.md` §4–§6).

mod common;
use common::*;
use modelgate_core::onemodel::{Graph, Model, OperatorSet, Tensor, TensorData, TypedName};
use modelgate_core::onnx::{self, wire};
use std::path::Path;

fn path(dir: &Path, name: &str) -> String {
    dir.join(name).to_str().unwrap().to_string()
}

/// An ONNX model with one float initializer of `n` elements that is also the graph output.
fn onnx_model(n: u64) -> Vec<u8> {
    let bytes: Vec<u8> = (0..n * 4).map(|i| (i % 251) as u8).collect();
    let model = Model {
        ir_version: 10,
        opsets: vec![OperatorSet {
            domain: String::new(),
            version: 21,
        }],
        graph: Graph {
            initializers: vec![Tensor {
                name: "w".into(),
                dtype: 1,
                dims: vec![n],
                data: TensorData::Raw(bytes.into()),
                ..Tensor::default()
            }],
            outputs: vec![TypedName {
                name: "w".into(),
                ..TypedName::default()
            }],
            ..Graph::default()
        },
        ..Model::default()
    };
    onnx::write_model(&model).unwrap()
}

#[test]
fn convert_check_inspect_and_back() {
    let d = scratch("convert");
    let proto = onnx_model(4);
    let input = path(&d, "m.onnx");
    std::fs::write(&input, &proto).unwrap();
    let out = path(&d, "m.onemodel");
    let o = modelgate(&["onemodel", "convert", &input, &out]);
    let size = std::fs::metadata(&out).unwrap().len();
    assert_eq!(
        (o.status.code(), stdout(&o)),
        (Some(0), format!("{out}: written (onemodel, {size} bytes)\n"))
    );
    assert_eq!(stdout(&modelgate(&["check", &out])), format!("{out}: ok (onemodel)\n"));
    assert_eq!(stdout(&modelgate(&["check", &input])), format!("{input}: ok (onnx)\n"));
    let i = stdout(&modelgate(&["inspect", "--json", &out]));
    assert!(
        i.contains("\"initializers\":1,\"initializer_bytes\":16,\"largest_initializers\":[{\"name\":\"w\""),
        "{i}"
    );
    // An ONNX file is inspected too: the same description without the OneModel header.
    assert_eq!(
        all(&modelgate(&["inspect", &input])),
        (
            Some(0),
            format!(
                "{input}: ok (onnx)\nONNX model, 42 bytes\nir_version 10, producer \"\" \"\"\nopset ai.onnx 21\n\
                 graph \"\": 0 nodes, 1 initializers (16 bytes), 0 functions\noutput \"w\": type not declared\n\
                 largest initializers:\n  \"w\" float [4] 16 bytes\n"
            ),
            String::new()
        )
    );
    assert_eq!(
        stdout(&modelgate(&["inspect", "--json", &input])),
        "{\"format\":\"onnx\",\"file_length\":42,\"ir_version\":10,\"producer_name\":\"\",\"producer_version\":\"\",\
         \"opsets\":[{\"domain\":\"\",\"version\":21}],\"graph\":\"\",\"inputs\":[],\"outputs\":[{\"name\":\"w\",\
         \"type\":null,\"dtype\":null,\"shape\":null}],\"nodes\":0,\"ops\":[],\"initializers\":1,\"initializer_bytes\":16,\
         \"largest_initializers\":[{\"name\":\"w\",\"dtype\":\"float\",\"dims\":[4],\"bytes\":16}],\"functions\":0,\
         \"external_data\":[]}\n"
    );
    let back = path(&d, "back.onnx");
    assert_eq!(modelgate(&["onemodel", "to-onnx", &out, &back]).status.code(), Some(0));
    assert_eq!(
        std::fs::read(&back).unwrap(),
        proto,
        "ONNX -> OneModel -> ONNX gives the same bytes"
    );
}

#[test]
fn convert_is_deterministic_and_respects_overwrite() {
    let d = scratch("overwrite");
    let input = path(&d, "m.onnx");
    std::fs::write(&input, onnx_model(3)).unwrap();
    let (a, b) = (path(&d, "a.onemodel"), path(&d, "b.onemodel"));
    assert_eq!(modelgate(&["onemodel", "convert", &input, &a]).status.code(), Some(0));
    assert_eq!(modelgate(&["onemodel", "convert", &input, &b]).status.code(), Some(0));
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    assert_eq!(
        all(&modelgate(&["onemodel", "convert", &input, &a])),
        (
            Some(2),
            String::new(),
            format!("{a}: already exists; use --overwrite to replace it\n")
        ),
        "exists, no --overwrite"
    );
    assert_eq!(
        modelgate(&["onemodel", "convert", &input, &a, "--overwrite"])
            .status
            .code(),
        Some(0)
    );
}

/// `check` and `inspect` of a OneModel file read its head alone (§5): the data region is
/// described by its place and length, and the largest tensor by its size.
#[test]
fn large_file_is_checked_and_inspected_from_its_head() {
    let d = scratch("mapped");
    let input = path(&d, "big.onnx");
    std::fs::write(&input, onnx_model(300_000)).unwrap();
    let out = path(&d, "big.onemodel");
    assert_eq!(modelgate(&["onemodel", "convert", &input, &out]).status.code(), Some(0));
    let i = stdout(&modelgate(&["inspect", &out]));
    assert!(i.contains(", data region 1200000 bytes at offset "), "{i}");
    assert!(i.contains("\n  \"w\" float [300000] 1200000 bytes\n"), "{i}");
    assert_eq!(stdout(&modelgate(&["check", &out])), format!("{out}: ok (onemodel)\n"));
    let i = stdout(&modelgate(&["inspect", "--json", &input]));
    assert!(
        i.starts_with(&format!(
            "{{\"format\":\"onnx\",\"file_length\":{},",
            std::fs::metadata(&input).unwrap().len()
        )),
        "{i}"
    );
    assert!(i.contains("\"initializers\":1,\"initializer_bytes\":1200000,"), "{i}");
}

#[test]
fn convert_progress_silent_when_stderr_is_not_a_terminal() {
    // spec/errors.md §3.6: progress on stderr only when it is a terminal. 6 MB of weights are
    // written in more than one progress chunk; with stderr a pipe nothing reaches it.
    let d = scratch("progress");
    let input = path(&d, "big.onnx");
    std::fs::write(&input, onnx_model(1_500_000)).unwrap();
    let (out, back) = (path(&d, "big.onemodel"), path(&d, "back.onnx"));
    for args in [
        ["onemodel", "convert", &input, &out],
        ["onemodel", "to-onnx", &out, &back],
    ] {
        let o = modelgate(&args);
        assert_eq!(o.status.code(), Some(0));
        assert!(o.stderr.is_empty(), "{}", String::from_utf8_lossy(&o.stderr));
        let size = std::fs::metadata(args[3]).unwrap().len();
        assert!(size > 4 << 20);
        assert!(stdout(&o).ends_with(&format!(", {size} bytes)\n")));
    }
}

#[test]
fn hostile_onnx_rejected_with_kind() {
    let d = scratch("hostile");
    let input = path(&d, "bad.onnx");
    std::fs::write(&input, [0x0f, 0x00]).unwrap();
    let o = modelgate(&["onemodel", "convert", &input, &path(&d, "x.onemodel")]);
    // A writing command's rejection goes to stderr, naming the input.
    assert_eq!(
        all(&o),
        (
            Some(1),
            String::new(),
            format!(
                "{input}: rejected (onnx) Malformed: field 1 of ModelProto has undefined wire type 7 (expected 0, 1, 2 or 5): not an ONNX model (onnx, byte 0)\n"
            )
        )
    );
    assert!(!d.join("x.onemodel").exists(), "nothing published");
    // `check` and `inspect` say the same on stdout.
    assert_eq!(
        all(&modelgate(&["inspect", &input])),
        (
            Some(1),
            format!(
                "{input}: rejected (onnx) Malformed: field 1 of ModelProto has undefined wire type 7 (expected 0, 1, 2 or 5): not an ONNX model (onnx, byte 0)\n"
            ),
            String::new()
        )
    );
}

#[test]
fn convert_names_the_path_that_is_the_problem() {
    let d = scratch("paths");
    let input = path(&d, "cnn.onnx");
    std::fs::write(&input, onnx_model(2)).unwrap();
    // A missing output folder is the output's problem, not the input's.
    let out = path(&d, "no/mlp.onemodel");
    assert_eq!(
        all(&modelgate(&["onemodel", "convert", &input, &out])),
        (
            Some(2),
            String::new(),
            format!("{out}: folder {} does not exist\n", d.join("no").display())
        )
    );
    let missing = path(&d, "missing.onemodel");
    assert_eq!(
        all(&modelgate(&["onemodel", "to-onnx", &missing, &path(&d, "x.onnx")])),
        (
            Some(2),
            String::new(),
            format!("{missing}: No such file or directory (os error 2)\n")
        )
    );
    // --overwrite does not replace a folder with a file.
    let folder = path(&d, "dir.onemodel");
    std::fs::create_dir_all(&folder).unwrap();
    assert_eq!(
        all(&modelgate(&["onemodel", "convert", "--overwrite", &input, &folder])),
        (
            Some(2),
            String::new(),
            format!("{folder}: is a folder; give the path of the file to write\n")
        )
    );
    assert_eq!(
        all(&modelgate(&[
            "-q",
            "onemodel",
            "convert",
            &input,
            &path(&d, "ok.onemodel")
        ])),
        (Some(0), String::new(), String::new()),
        "--quiet"
    );
}

fn external_model(location: &str) -> Vec<u8> {
    let entry = |k: &str, v: &str| {
        let mut e = Vec::new();
        wire::put_len(&mut e, 1, k.as_bytes());
        wire::put_len(&mut e, 2, v.as_bytes());
        e
    };
    let mut t = Vec::new();
    wire::put_key(&mut t, 1, 0);
    wire::put_varint(&mut t, 2);
    wire::put_key(&mut t, 2, 0);
    wire::put_varint(&mut t, 1);
    wire::put_len(&mut t, 8, b"w");
    wire::put_len(&mut t, 13, &entry("location", location));
    wire::put_key(&mut t, 14, 0);
    wire::put_varint(&mut t, 1);
    let mut g = Vec::new();
    wire::put_len(&mut g, 5, &t);
    let mut m = Vec::new();
    wire::put_key(&mut m, 1, 0);
    wire::put_varint(&mut m, 9);
    wire::put_len(&mut m, 7, &g);
    m
}

#[test]
fn external_data_copied_into_the_data_region() {
    let d = scratch("external");
    std::fs::write(d.join("w.bin"), [1u8, 0, 0, 0, 2, 0, 0, 0]).unwrap();
    let input = path(&d, "m.onnx");
    std::fs::write(&input, external_model("w.bin")).unwrap();
    let out = path(&d, "m.onemodel");
    assert_eq!(modelgate(&["onemodel", "convert", &input, &out]).status.code(), Some(0));
    let bytes = std::fs::read(&out).unwrap();
    let model = modelgate_core::onemodel::read(&bytes, modelgate_core::onemodel::Limits::DEFAULT).unwrap();
    let TensorData::Raw(w) = &model.graph.initializers[0].data else {
        panic!()
    };
    assert_eq!(w.as_ref(), &[1, 0, 0, 0, 2, 0, 0, 0]);
}

#[test]
fn external_data_traversal_rejected() {
    let d = scratch("traversal");
    std::fs::write(d.join("w.bin"), [0u8; 8]).unwrap();
    let inner = d.join("m");
    std::fs::create_dir_all(&inner).unwrap();
    let input = path(&inner, "m.onnx");
    std::fs::write(&input, external_model("../w.bin")).unwrap();
    let o = modelgate(&["onemodel", "convert", &input, &path(&d, "x.onemodel")]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("rejected (onnx) Malformed: external data location escapes"),
        "{}",
        stderr(&o)
    );
    // A location that escapes nothing but breaks another path rule (here the 255 segments of
    // spec/mpk.md §2.6) is named for what it is.
    std::fs::write(&input, external_model(&("d/".repeat(255) + "w.bin"))).unwrap();
    let o = modelgate(&["onemodel", "convert", &input, &path(&d, "x.onemodel")]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("rejected (onnx) Malformed: external data location is not a valid relative path"),
        "{}",
        stderr(&o)
    );
}
