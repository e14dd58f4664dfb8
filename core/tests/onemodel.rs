//! OneModel rules, one test per rule of `spec/onemodel.md`, each asserting the exact kind,
//! location (header field or manifest path) and file offset.

use modelgate_core::onemodel::assemble;
use modelgate_core::onemodel::*;
use modelgate_corpus_gen::onemodel::{gm as graph_manifest, net, node};

fn read_err(file: &[u8]) -> Error {
    read(file, Limits::DEFAULT).expect_err("must be rejected")
}

/// A file from manifest text and data bytes.
fn file(manifest: &str, data: &[u8]) -> Vec<u8> {
    assemble(manifest.as_bytes(), data)
}

/// File offset of the first occurrence of `needle` in `manifest`.
fn at(manifest: &str, needle: &str) -> u64 {
    64 + manifest.find(needle).expect("needle in manifest") as u64
}

fn assert_path(e: &Error, kind: ErrorKind, path: &str, offset: u64) {
    assert_eq!(
        (e.kind, e.path.as_deref(), e.offset),
        (kind, Some(path), Some(offset)),
        "{e}"
    );
}

fn assert_header(e: &Error, kind: ErrorKind, field: &str, offset: u64) {
    assert_eq!((e.kind, e.field, e.offset), (kind, Some(field), Some(offset)), "{e}");
}

const EMPTY: &str = "{\"ir_version\":9,\"graph\":{}}";

fn set_u64(f: &mut [u8], at: usize, v: u64) {
    f[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

// ---- §1.1 header -------------------------------------------------------------------------

#[test]
fn minimal_file_is_valid() {
    let bytes_m = file(EMPTY, &[]);
    let m = read(&bytes_m, Limits::DEFAULT).unwrap();
    assert_eq!(m.ir_version, 9);
    assert!(m.graph.nodes.is_empty());
}

#[test]
fn magic_first_byte_is_protobuf_wire_type_7() {
    assert_eq!(MAGIC[0] & 7, 7);
    assert!(is_onemodel(&file(EMPTY, &[])));
    assert!(!is_onemodel(&[0x08, 0x07]));
}

#[test]
fn magic_mismatch_rejected() {
    let mut f = file(EMPTY, &[]);
    f[1] = b'X';
    assert_header(&read_err(&f), ErrorKind::Malformed, "magic", 0);
    assert_header(&read_err(&f[..0]), ErrorKind::Malformed, "magic", 0);
    assert_header(&read_err(&MAGIC[..5]), ErrorKind::Malformed, "magic", 0);
}

#[test]
fn truncated_header_rejected() {
    let f = file(EMPTY, &[]);
    assert_header(&read_err(&f[..40]), ErrorKind::OutOfRange, "header", 40);
}

#[test]
fn format_version_2_unsupported() {
    let mut f = file(EMPTY, &[]);
    set_u64(&mut f, 8, 2);
    assert_header(&read_err(&f), ErrorKind::Unsupported, "format_version", 8);
}

#[test]
fn header_field_above_2_63_rejected() {
    for (at, name) in [
        (16, "manifest_length"),
        (24, "data_offset"),
        (32, "data_length"),
        (40, "file_length"),
    ] {
        let mut f = file(EMPTY, &[]);
        set_u64(&mut f, at, 1 << 63);
        assert_header(&read_err(&f), ErrorKind::OutOfRange, name, at as u64);
    }
}

#[test]
fn reserved_byte_nonzero_rejected() {
    let mut f = file(EMPTY, &[]);
    f[57] = 1;
    assert_header(&read_err(&f), ErrorKind::Malformed, "reserved", 57);
}

#[test]
fn file_length_mismatch_rejected() {
    let mut f = file(EMPTY, &[]);
    f.push(0);
    assert_header(&read_err(&f), ErrorKind::OutOfRange, "file_length", 40);
    let f = file(EMPTY, &[1; 64]);
    assert_header(&read_err(&f[..f.len() - 1]), ErrorKind::OutOfRange, "file_length", 40);
}

#[test]
fn manifest_length_past_end_rejected() {
    let mut f = file(EMPTY, &[]);
    set_u64(&mut f, 16, 1000);
    assert_header(&read_err(&f), ErrorKind::OutOfRange, "manifest_length", 16);
}

#[test]
fn data_offset_not_aligned_manifest_end_rejected() {
    let mut f = file(EMPTY, &[0; 64]);
    set_u64(&mut f, 24, 192);
    assert_header(&read_err(&f), ErrorKind::OutOfRange, "data_offset", 24);
}

#[test]
fn data_length_mismatch_rejected() {
    let mut f = file(EMPTY, &[0; 64]);
    set_u64(&mut f, 32, 0);
    assert_header(&read_err(&f), ErrorKind::OutOfRange, "data_length", 32);
}

#[test]
fn manifest_over_size_limit_rejected() {
    let f = file(EMPTY, &[]);
    let limits = Limits {
        max_manifest: 10,
        ..Limits::DEFAULT
    };
    let e = read(
        &f,
        Limits {
            hash_key: [0, 0],
            ..limits
        },
    )
    .unwrap_err();
    assert_header(&e, ErrorKind::LimitExceeded, "manifest_length", 16);
}

#[test]
fn padding_nonzero_rejected() {
    let mut f = file(EMPTY, &[]);
    let end = 64 + EMPTY.len();
    f[end + 2] = 7;
    assert_header(&read_err(&f), ErrorKind::Malformed, "padding", end as u64 + 2);
}

// ---- §1.2 manifest JSON ----------------------------------------------------------------------

#[test]
fn manifest_json_syntax_rejected() {
    let m = "{\"ir_version\":9,}";
    assert_path(&read_err(&file(m, &[])), ErrorKind::Malformed, "manifest", at(m, "}"));
}

#[test]
fn manifest_duplicate_member_rejected() {
    let m = "{\"ir_version\":9,\"ir_version\":9,\"graph\":{}}";
    assert_path(&read_err(&file(m, &[])), ErrorKind::Malformed, "manifest", 64 + 16);
}

#[test]
fn manifest_json_depth_over_1024_rejected() {
    let m = format!("{{\"x\":{}{}}}", "[".repeat(1024), "]".repeat(1024));
    let e = read_err(&file(&m, &[]));
    assert_path(&e, ErrorKind::LimitExceeded, "manifest", 64 + 5 + 1023);
}

#[test]
fn manifest_not_an_object_rejected() {
    assert_path(&read_err(&file("[]", &[])), ErrorKind::Malformed, "manifest", 64);
}

#[test]
fn missing_graph_rejected() {
    let m = "{\"ir_version\":9}";
    assert_path(&read_err(&file(m, &[])), ErrorKind::Malformed, "manifest.graph", 64);
}

#[test]
fn ir_version_fraction_rejected() {
    let m = "{\"ir_version\":9.0,\"graph\":{}}";
    assert_path(
        &read_err(&file(m, &[])),
        ErrorKind::Malformed,
        "manifest.ir_version",
        at(m, "9.0"),
    );
}

#[test]
fn ir_version_negative_out_of_range() {
    let m = "{\"ir_version\":-1,\"graph\":{}}";
    assert_path(
        &read_err(&file(m, &[])),
        ErrorKind::OutOfRange,
        "manifest.ir_version",
        at(m, "-1"),
    );
}

#[test]
fn int64_beyond_2_53_kept_exactly() {
    let g = "{\"nodes\":[{\"op\":\"C\",\"outputs\":[\"y\"],\"attributes\":[{\"name\":\"v\",\"type\":2,\"value\":-9007199254740993}]}],\"outputs\":[{\"name\":\"y\"}]}";
    let bytes_m = file(&graph_manifest(g), &[]);
    let m = read(&bytes_m, Limits::DEFAULT).unwrap();
    assert_eq!(
        m.graph.nodes[0].attributes[0].value,
        Some(AttrValue::Int(-9007199254740993))
    );
}

#[test]
fn wrong_json_type_rejected() {
    let m = "{\"ir_version\":9,\"producer_name\":null,\"graph\":{}}";
    assert_path(
        &read_err(&file(m, &[])),
        ErrorKind::Malformed,
        "manifest.producer_name",
        at(m, "null"),
    );
}

#[test]
fn unknown_members_ignored() {
    let m = "{\"ir_version\":9,\"future\":{\"x\":[1,2]},\"graph\":{\"later\":true}}";
    assert!(read(&file(m, &[]), Limits::DEFAULT).is_ok());
}

#[test]
fn duplicate_opset_domain_rejected() {
    let m = "{\"ir_version\":9,\"opsets\":[{\"version\":1},{\"domain\":\"ai.onnx\",\"version\":2}],\"graph\":{}}";
    assert_path(
        &read_err(&file(m, &[])),
        ErrorKind::Malformed,
        "manifest.opsets[1]",
        at(m, "{\"domain"),
    );
}

/// §2.1 in reading order: a repeated domain is reported at the repeat even when a later set
/// is malformed, and a malformed set before the repeat is reported instead of it.
#[test]
fn duplicate_opset_domain_reported_in_reading_order() {
    let m = "{\"ir_version\":9,\"opsets\":[{\"domain\":\"a\",\"version\":1},{\"domain\":\"b\",\"version\":1},{\"domain\":\"a\",\"version\":2},{\"domain\":\"c\"}],\"graph\":{}}";
    let e = read_err(&file(m, &[]));
    assert_path(
        &e,
        ErrorKind::Malformed,
        "manifest.opsets[2]",
        at(m, "{\"domain\":\"a\",\"version\":2"),
    );
    let m = "{\"ir_version\":9,\"opsets\":[{\"domain\":\"a\",\"version\":1},{\"domain\":\"c\"},{\"domain\":\"a\",\"version\":2}],\"graph\":{}}";
    let e = read_err(&file(m, &[]));
    assert_eq!(
        (e.kind, e.path.as_deref()),
        (ErrorKind::Malformed, Some("manifest.opsets[1].version")),
        "{e}"
    );
}

// ---- §2.4 attributes -----------------------------------------------------------------------

fn attr_graph(attr: &str) -> String {
    graph_manifest(&format!(
        "{{\"nodes\":[{{\"op\":\"C\",\"outputs\":[\"y\"],\"attributes\":[{attr}]}}],\"outputs\":[{{\"name\":\"y\"}}]}}"
    ))
}

#[test]
fn float_attribute_is_bit_pattern() {
    let m = attr_graph("{\"name\":\"f\",\"type\":6,\"value\":[1065353216,2143289345,2147483648]}");
    let bytes_model = file(&m, &[]);
    let model = read(&bytes_model, Limits::DEFAULT).unwrap();
    let Some(AttrValue::Floats(f)) = &model.graph.nodes[0].attributes[0].value else {
        panic!()
    };
    assert_eq!(f32::from_bits(f[0]), 1.0);
    assert_eq!(f[1], 0x7fc0_0001, "NaN payload survives");
    assert_eq!(f32::from_bits(f[2]).to_bits(), (-0.0f32).to_bits());
}

#[test]
fn float_attribute_above_u32_out_of_range() {
    let m = attr_graph("{\"name\":\"f\",\"type\":1,\"value\":4294967296}");
    let p = "manifest.graph.nodes[0].attributes[0].value";
    assert_path(
        &read_err(&file(&m, &[])),
        ErrorKind::OutOfRange,
        p,
        at(&m, "4294967296"),
    );
}

#[test]
fn float_attribute_decimal_rejected() {
    let m = attr_graph("{\"name\":\"f\",\"type\":1,\"value\":1.5}");
    let p = "manifest.graph.nodes[0].attributes[0].value";
    assert_path(&read_err(&file(&m, &[])), ErrorKind::Malformed, p, at(&m, "1.5"));
}

#[test]
fn string_attribute_base64_decoded() {
    let m = attr_graph("{\"name\":\"s\",\"type\":3,\"value\":\"AP8=\"}");
    let bytes_model = file(&m, &[]);
    let model = read(&bytes_model, Limits::DEFAULT).unwrap();
    assert_eq!(
        model.graph.nodes[0].attributes[0].value,
        Some(AttrValue::String(vec![0, 255]))
    );
}

#[test]
fn string_attribute_bad_base64_rejected() {
    let m = attr_graph("{\"name\":\"s\",\"type\":3,\"value\":\"AP9=\"}");
    let p = "manifest.graph.nodes[0].attributes[0].value";
    assert_path(&read_err(&file(&m, &[])), ErrorKind::Malformed, p, at(&m, "\"AP9="));
}

#[test]
fn attribute_type_15_unsupported() {
    let m = attr_graph("{\"name\":\"a\",\"type\":15,\"value\":1}");
    let p = "manifest.graph.nodes[0].attributes[0].type";
    assert_path(&read_err(&file(&m, &[])), ErrorKind::Unsupported, p, at(&m, "15"));
}

#[test]
fn attribute_type_0_rejected() {
    let m = attr_graph("{\"name\":\"a\",\"type\":0,\"value\":1}");
    let p = "manifest.graph.nodes[0].attributes[0].type";
    assert_path(&read_err(&file(&m, &[])), ErrorKind::Malformed, p, at(&m, "0,\"value"));
}

#[test]
fn attribute_missing_value_rejected() {
    let m = attr_graph("{\"name\":\"a\",\"type\":2}");
    let p = "manifest.graph.nodes[0].attributes[0].value";
    assert_path(
        &read_err(&file(&m, &[])),
        ErrorKind::Malformed,
        p,
        at(&m, "{\"name\":\"a\""),
    );
}

#[test]
fn reference_attribute_with_value_rejected() {
    let m = attr_graph("{\"name\":\"a\",\"type\":2,\"ref\":\"r\",\"value\":1}");
    let p = "manifest.graph.nodes[0].attributes[0].value";
    assert_path(&read_err(&file(&m, &[])), ErrorKind::Malformed, p, at(&m, "1}]"));
}

#[test]
fn attribute_value_wrong_shape_rejected() {
    let m = attr_graph("{\"name\":\"a\",\"type\":7,\"value\":[1,\"2\"]}");
    let p = "manifest.graph.nodes[0].attributes[0].value[1]";
    assert_path(&read_err(&file(&m, &[])), ErrorKind::Malformed, p, at(&m, "\"2\""));
}

// ---- §2.5 tensors ----------------------------------------------------------------------------

fn init_graph(tensor: &str) -> String {
    graph_manifest(&format!("{{\"initializers\":[{tensor}]}}"))
}

const INIT: &str = "manifest.graph.initializers[0]";

#[test]
fn tensor_is_a_view_of_the_file() {
    let m = init_graph("{\"name\":\"w\",\"dtype\":1,\"dims\":[2,2],\"data\":{\"offset\":64,\"length\":16}}");
    let mut data = vec![0u8; 80];
    data[64..80].copy_from_slice(&[1; 16]);
    let f = file(&m, &data);
    let model = read(&f, Limits::DEFAULT).unwrap();
    let TensorData::Raw(bytes) = &model.graph.initializers[0].data else {
        panic!()
    };
    assert_eq!(bytes.as_ref(), &[1; 16]);
    assert!(matches!(bytes, std::borrow::Cow::Borrowed(_)));
    let start = bytes.as_ptr() as usize - f.as_ptr() as usize;
    assert_eq!(
        start,
        f.len() - 16,
        "zero-copy: the view points into the caller's bytes"
    );
    assert_eq!(start % 64, 0);
}

/// Node and tensor names without escapes are views of the manifest bytes; a name with an
/// escape is its unescaped text, owned.
#[test]
fn names_are_views_of_the_manifest_unless_escaped() {
    use std::borrow::Cow;
    let m = graph_manifest(concat!(
        r#"{"initializers":[{"name":"w","dtype":1,"dims":[0],"data":{"offset":0,"length":0}}],"#,
        r#""inputs":[{"name":"x"}],"outputs":[{"name":"y\u0031"}],"#,
        r#""nodes":[{"name":"n0","op":"Add","inputs":["x","w"],"outputs":["y\u0031"]}]}"#
    ));
    let f = file(&m, &[]);
    let model = read(&f, Limits::DEFAULT).unwrap();
    let inside = |s: &str| {
        let at = s.as_ptr() as usize;
        at >= f.as_ptr() as usize && at + s.len() <= f.as_ptr() as usize + f.len()
    };
    let node = &model.graph.nodes[0];
    let tensor = &model.graph.initializers[0];
    for name in [&node.name, &node.op, &node.inputs[0], &node.inputs[1], &tensor.name] {
        assert!(matches!(name, Cow::Borrowed(_)) && inside(name), "{name}");
    }
    assert_eq!((&*node.name, &*node.op, &*tensor.name), ("n0", "Add", "w"));
    assert_eq!(node.outputs, ["y1"]);
    assert!(matches!(node.outputs[0], Cow::Owned(_)));
    assert!(matches!(node.domain, Cow::Borrowed("")));
}

#[test]
fn dtype_unknown_unsupported() {
    for code in ["0", "29", "-1", "300"] {
        let m = init_graph(&format!(
            "{{\"dtype\":{code},\"dims\":[],\"data\":{{\"offset\":0,\"length\":0}}}}"
        ));
        let e = read_err(&file(&m, &[]));
        assert_path(
            &e,
            ErrorKind::Unsupported,
            &format!("{INIT}.dtype"),
            at(&m, &format!(":{code},")) + 1,
        );
    }
}

/// §2.4, §2.5, §2.7: a type code too large (or too negative) for an i64 is still an
/// unsupported code, not an integer out of range; a fraction stays Malformed (§1.2).
#[test]
fn type_codes_beyond_i64_unsupported() {
    let big = "9223372036854775808";
    let m = init_graph(&format!(
        "{{\"dtype\":{big},\"dims\":[],\"data\":{{\"offset\":0,\"length\":0}}}}"
    ));
    assert_path(
        &read_err(&file(&m, &[])),
        ErrorKind::Unsupported,
        &format!("{INIT}.dtype"),
        at(&m, big),
    );
    let m = init_graph("{\"dtype\":-9223372036854775809,\"dims\":[],\"data\":{\"offset\":0,\"length\":0}}");
    assert_path(
        &read_err(&file(&m, &[])),
        ErrorKind::Unsupported,
        &format!("{INIT}.dtype"),
        at(&m, "-9"),
    );
    let m = attr_graph("{\"name\":\"a\",\"type\":18446744073709551616,\"value\":1}");
    let p = "manifest.graph.nodes[0].attributes[0].type";
    assert_path(&read_err(&file(&m, &[])), ErrorKind::Unsupported, p, at(&m, "1844"));
    let m = typed_input(&format!(
        "{{\"kind\":\"map\",\"key_type\":{big},\"value\":{{\"kind\":\"tensor\"}}}}"
    ));
    let p = "manifest.graph.inputs[0].type.key_type";
    assert_path(&read_err(&file(&m, &[])), ErrorKind::Unsupported, p, at(&m, big));
    let m = typed_input(&format!(
        "{{\"kind\":\"sequence\",\"elem\":{{\"kind\":\"tensor\",\"elem_type\":{big}}}}}"
    ));
    let p = "manifest.graph.inputs[0].type.elem.elem_type";
    assert_path(&read_err(&file(&m, &[])), ErrorKind::Unsupported, p, at(&m, big));
    let m = init_graph("{\"dtype\":1.5,\"dims\":[],\"data\":{\"offset\":0,\"length\":0}}");
    assert_path(
        &read_err(&file(&m, &[])),
        ErrorKind::Malformed,
        &format!("{INIT}.dtype"),
        at(&m, "1.5"),
    );
}

/// The message of an unsupported code names it as written, however large (a long one cut
/// after 20 digits), with the codes expected.
#[test]
fn unsupported_codes_are_named_as_written() {
    let message = |dtype: &str| {
        let m = init_graph(&format!(
            "{{\"dtype\":{dtype},\"dims\":[],\"data\":{{\"offset\":0,\"length\":0}}}}"
        ));
        read_err(&file(&m, &[])).message.into_owned()
    };
    assert_eq!(message("0"), "unsupported dtype 0 (expected 1 to 28)");
    assert_eq!(
        message("-9223372036854775809"),
        "unsupported dtype -9223372036854775809 (expected 1 to 28)"
    );
    let long = "1".repeat(400);
    assert_eq!(
        message(&long),
        "unsupported dtype 11111111111111111111… (400 digits) (expected 1 to 28)"
    );
}

#[test]
fn negative_dim_out_of_range() {
    let m = init_graph("{\"dtype\":1,\"dims\":[2,-1],\"data\":{\"offset\":0,\"length\":0}}");
    assert_path(
        &read_err(&file(&m, &[])),
        ErrorKind::OutOfRange,
        &format!("{INIT}.dims[1]"),
        at(&m, "-1"),
    );
}

#[test]
fn element_count_2_60_limit_exceeded() {
    let m = init_graph("{\"dtype\":2,\"dims\":[1073741824,1073741824],\"data\":{\"offset\":0,\"length\":0}}");
    assert_path(
        &read_err(&file(&m, &[])),
        ErrorKind::LimitExceeded,
        &format!("{INIT}.dims"),
        at(&m, "[1073"),
    );
}

#[test]
fn zero_dim_makes_count_zero() {
    let m = init_graph("{\"dtype\":1,\"dims\":[1152921504606846976,0],\"data\":{\"offset\":0,\"length\":0}}");
    assert!(read(&file(&m, &[]), Limits::DEFAULT).is_ok());
}

#[test]
fn tensor_over_2_31_bytes_unsupported() {
    let m = init_graph("{\"dtype\":1,\"dims\":[536870912],\"data\":{\"offset\":0,\"length\":2147483648}}");
    let e = read_err(&file(&m, &[]));
    assert_path(&e, ErrorKind::Unsupported, &format!("{INIT}.data"), at(&m, "{\"offset"));
    assert!(e.message.contains("--max-tensor-bytes"), "{e}");
}

/// §2.5 rule 2 under a raised `max_tensor_bytes`: the tensor of 2^31 bytes goes on to rules
/// 3–5 (here rule 5: the data region is empty), and a bound one byte short still refuses it.
/// The same in the ONNX reader and the writer.
#[test]
fn raised_max_tensor_bytes_reads_past_rule_2() {
    let m = init_graph("{\"dtype\":1,\"dims\":[536870912],\"data\":{\"offset\":0,\"length\":2147483648}}");
    let raised = Limits {
        max_tensor_bytes: 1 << 31,
        ..Limits::DEFAULT
    };
    let e = read(&file(&m, &[]), raised).unwrap_err();
    assert_path(&e, ErrorKind::OutOfRange, &format!("{INIT}.data.offset"), at(&m, "0,"));
    let short = Limits {
        max_tensor_bytes: (1 << 31) - 1,
        ..Limits::DEFAULT
    };
    assert_eq!(read(&file(&m, &[]), short).unwrap_err().kind, ErrorKind::Unsupported);
    // Rule 2 sees the bound, not the default: 64 bytes over a bound of 63.
    let small = init_graph("{\"dtype\":2,\"dims\":[64],\"data\":{\"offset\":0,\"length\":64}}");
    let bytes = file(&small, &[1; 64]);
    let tight = Limits {
        max_tensor_bytes: 63,
        ..Limits::DEFAULT
    };
    assert!(read(&bytes, Limits::DEFAULT).is_ok());
    let e = read(&bytes, tight).unwrap_err();
    assert_path(
        &e,
        ErrorKind::Unsupported,
        &format!("{INIT}.data"),
        at(&small, "{\"offset"),
    );
    let model = read(&bytes, Limits::DEFAULT).unwrap();
    let e = write(&model, tight).unwrap_err();
    assert_eq!((e.kind, e.path.as_deref()), (ErrorKind::Unsupported, Some("model")));
    assert!(write(&model, Limits::DEFAULT).is_ok());
}

#[test]
fn length_disagrees_with_dims_out_of_range() {
    let m = init_graph("{\"dtype\":1,\"dims\":[3],\"data\":{\"offset\":0,\"length\":16}}");
    let e = read_err(&file(&m, &[0; 16]));
    assert_path(&e, ErrorKind::OutOfRange, &format!("{INIT}.data.length"), at(&m, "16"));
}

#[test]
fn sub_byte_length_rounds_up() {
    let m = init_graph("{\"dtype\":22,\"dims\":[3],\"data\":{\"offset\":0,\"length\":2}}");
    assert!(read(&file(&m, &[0x21, 0x03]), Limits::DEFAULT).is_ok());
}

#[test]
fn offset_not_multiple_of_64_out_of_range() {
    let m = init_graph("{\"dtype\":2,\"dims\":[1],\"data\":{\"offset\":1,\"length\":1}}");
    let e = read_err(&file(&m, &[0; 64]));
    assert_path(
        &e,
        ErrorKind::OutOfRange,
        &format!("{INIT}.data.offset"),
        at(&m, "1,\"length"),
    );
}

#[test]
fn range_past_data_region_out_of_range() {
    let m = init_graph("{\"dtype\":2,\"dims\":[65],\"data\":{\"offset\":0,\"length\":65}}");
    let e = read_err(&file(&m, &[0; 64]));
    assert_path(
        &e,
        ErrorKind::OutOfRange,
        &format!("{INIT}.data.offset"),
        at(&m, "0,\"length"),
    );
}

#[test]
fn range_overflow_out_of_range() {
    let m = init_graph("{\"dtype\":2,\"dims\":[1],\"data\":{\"offset\":9223372036854775744,\"length\":1}}");
    let e = read_err(&file(&m, &[0; 64]));
    assert_path(
        &e,
        ErrorKind::OutOfRange,
        &format!("{INIT}.data.offset"),
        at(&m, "9223"),
    );
}

#[test]
fn string_tensor_count_mismatch_out_of_range() {
    let m = init_graph("{\"dtype\":8,\"dims\":[2],\"strings\":[\"YQ==\"]}");
    let e = read_err(&file(&m, &[]));
    assert_path(&e, ErrorKind::OutOfRange, &format!("{INIT}.strings"), at(&m, "[\"YQ"));
}

#[test]
fn string_tensor_with_data_rejected() {
    let m = init_graph("{\"dtype\":8,\"dims\":[],\"data\":{\"offset\":0,\"length\":0}}");
    let e = read_err(&file(&m, &[]));
    assert_path(&e, ErrorKind::Malformed, &format!("{INIT}.data"), at(&m, "{\"offset"));
}

#[test]
fn numeric_tensor_with_strings_rejected() {
    let m = init_graph("{\"dtype\":1,\"dims\":[],\"strings\":[]}");
    let e = read_err(&file(&m, &[]));
    assert_path(&e, ErrorKind::Malformed, &format!("{INIT}.strings"), at(&m, "[]}"));
}

#[test]
fn sparse_indices_must_be_int64() {
    let g = "{\"sparse_initializers\":[{\"values\":{\"name\":\"s\",\"dtype\":1,\"dims\":[0],\"data\":{\"offset\":0,\"length\":0}},\"indices\":{\"dtype\":6,\"dims\":[0],\"data\":{\"offset\":0,\"length\":0}},\"dims\":[4]}]}";
    let m = graph_manifest(g);
    let e = read_err(&file(&m, &[]));
    assert_path(
        &e,
        ErrorKind::Malformed,
        "manifest.graph.sparse_initializers[0].indices.dtype",
        at(&m, "6,"),
    );
}

// ---- §2.7 types and §3.2 nesting -------------------------------------------------------------

fn typed_input(ty: &str) -> String {
    graph_manifest(&format!("{{\"inputs\":[{{\"name\":\"x\",\"type\":{ty}}}]}}"))
}

#[test]
fn type_kind_unknown_unsupported() {
    let m = typed_input("{\"kind\":\"tuple\"}");
    let e = read_err(&file(&m, &[]));
    assert_path(
        &e,
        ErrorKind::Unsupported,
        "manifest.graph.inputs[0].type.kind",
        at(&m, "\"tuple"),
    );
}

#[test]
fn dim_with_value_and_param_rejected() {
    let m = typed_input("{\"kind\":\"tensor\",\"elem_type\":1,\"shape\":[{\"value\":1,\"param\":\"N\"}]}");
    let e = read_err(&file(&m, &[]));
    assert_path(
        &e,
        ErrorKind::Malformed,
        "manifest.graph.inputs[0].type.shape[0].param",
        at(&m, "\"N\""),
    );
}

#[test]
fn shape_absent_and_empty_differ() {
    let m = typed_input("{\"kind\":\"tensor\",\"elem_type\":1}");
    let bytes_a = file(&m, &[]);
    let a = read(&bytes_a, Limits::DEFAULT).unwrap();
    let m = typed_input("{\"kind\":\"tensor\",\"elem_type\":1,\"shape\":[]}");
    let bytes_b = file(&m, &[]);
    let b = read(&bytes_b, Limits::DEFAULT).unwrap();
    assert_ne!(a.graph.inputs[0].ty, b.graph.inputs[0].ty);
}

fn nested_sequences(levels: usize) -> String {
    let mut ty = String::from("{\"kind\":\"tensor\",\"elem_type\":1}");
    for _ in 0..levels {
        ty = format!("{{\"kind\":\"sequence\",\"elem\":{ty}}}");
    }
    ty
}

#[test]
fn nesting_64_accepted() {
    // Graph (1) + 63 types.
    assert!(read(&file(&typed_input(&nested_sequences(62)), &[]), Limits::DEFAULT).is_ok());
}

#[test]
fn nesting_65_limit_exceeded() {
    let m = typed_input(&nested_sequences(63));
    let e = read_err(&file(&m, &[]));
    assert_eq!(e.kind, ErrorKind::LimitExceeded);
    let path = format!("manifest.graph.inputs[0].type{}", ".elem".repeat(63));
    assert_path(&e, ErrorKind::LimitExceeded, &path, at(&m, "{\"kind\":\"tensor"));
}

#[test]
fn nested_subgraphs_count_toward_nesting() {
    let mut g = String::from("{}");
    for _ in 0..64 {
        g = format!("{{\"nodes\":[{{\"op\":\"If\",\"attributes\":[{{\"name\":\"b\",\"type\":5,\"value\":{g}}}]}}]}}");
    }
    let e = read_err(&file(&graph_manifest(&g), &[]));
    assert_eq!(e.kind, ErrorKind::LimitExceeded);
    assert!(e.path.unwrap().ends_with("attributes[0].value"));
}

// ---- §3.1 names ------------------------------------------------------------------------------

#[test]
fn name_defined_twice_rejected() {
    let m = net(&["x"], &[node("Relu", &["x"], &["x"])], &["x"]);
    let e = read_err(&file(&m, &[]));
    assert_path(
        &e,
        ErrorKind::Malformed,
        "manifest.graph.nodes[0].outputs[0]",
        at(&m, "\"x\"]}"),
    );
}

#[test]
fn initializer_attaches_to_input() {
    let g = "{\"inputs\":[{\"name\":\"w\"}],\"initializers\":[{\"name\":\"w\",\"dtype\":1,\"dims\":[0],\"data\":{\"offset\":0,\"length\":0}}],\"outputs\":[{\"name\":\"w\"}]}";
    assert!(read(&file(&graph_manifest(g), &[]), Limits::DEFAULT).is_ok());
}

#[test]
fn two_initializers_for_one_input_rejected() {
    let t = "{\"name\":\"w\",\"dtype\":1,\"dims\":[0],\"data\":{\"offset\":0,\"length\":0}}";
    let g = format!("{{\"inputs\":[{{\"name\":\"w\"}}],\"initializers\":[{t},{t}]}}");
    let m = graph_manifest(&g);
    let e = read_err(&file(&m, &[]));
    let second = 64 + m.rfind("\"w\",\"dtype").unwrap() as u64;
    assert_path(&e, ErrorKind::Malformed, "manifest.graph.initializers[1].name", second);
}

#[test]
fn undefined_node_input_rejected() {
    let m = net(&["x"], &[node("Add", &["x", "z"], &["y"])], &["y"]);
    let e = read_err(&file(&m, &[]));
    assert_path(
        &e,
        ErrorKind::Malformed,
        "manifest.graph.nodes[0].inputs[1]",
        at(&m, "\"z\""),
    );
}

#[test]
fn empty_input_is_omitted_operand() {
    let m = net(&["x"], &[node("Clip", &["x", "", ""], &["y"])], &["y"]);
    assert!(read(&file(&m, &[]), Limits::DEFAULT).is_ok());
}

#[test]
fn undefined_graph_output_rejected() {
    let m = net(&["x"], &[], &["q"]);
    let e = read_err(&file(&m, &[]));
    assert_path(
        &e,
        ErrorKind::Malformed,
        "manifest.graph.outputs[0].name",
        at(&m, "\"q\""),
    );
}

#[test]
fn nodes_reordered_stably() {
    let m = net(
        &["x"],
        &[
            node("B", &["a"], &["b"]),
            node("A", &["x"], &["a"]),
            node("C", &["x"], &["c"]),
        ],
        &["b", "c"],
    );
    let bytes_model = file(&m, &[]);
    let model = read(&bytes_model, Limits::DEFAULT).unwrap();
    let ops: Vec<_> = model.graph.nodes.iter().map(|n| &*n.op).collect();
    assert_eq!(ops, ["A", "B", "C"]);
}

#[test]
fn nodes_in_order_keep_positions() {
    let m = net(
        &["x"],
        &[
            node("C", &["x"], &["c"]),
            node("A", &["x"], &["a"]),
            node("B", &["a", "c"], &["b"]),
        ],
        &["b"],
    );
    let bytes_model = file(&m, &[]);
    let model = read(&bytes_model, Limits::DEFAULT).unwrap();
    let ops: Vec<_> = model.graph.nodes.iter().map(|n| &*n.op).collect();
    assert_eq!(ops, ["C", "A", "B"]);
}

#[test]
fn cycle_rejected() {
    let m = net(
        &["x"],
        &[node("A", &["x", "b"], &["a"]), node("B", &["a"], &["b"])],
        &["b"],
    );
    let e = read_err(&file(&m, &[]));
    assert_path(
        &e,
        ErrorKind::Malformed,
        "manifest.graph.nodes[0]",
        at(&m, "{\"op\":\"A\""),
    );
}

#[test]
fn self_loop_rejected() {
    let m = net(&[], &[node("A", &["a"], &["a"])], &["a"]);
    let e = read_err(&file(&m, &[]));
    assert_path(
        &e,
        ErrorKind::Malformed,
        "manifest.graph.nodes[0]",
        at(&m, "{\"op\":\"A\""),
    );
}

#[test]
fn unknown_opset_domain_rejected() {
    let m = net(
        &["x"],
        &["{\"op\":\"F\",\"domain\":\"com.x\",\"inputs\":[\"x\"],\"outputs\":[\"y\"]}".into()],
        &["y"],
    );
    let e = read_err(&file(&m, &[]));
    assert_path(
        &e,
        ErrorKind::Malformed,
        "manifest.graph.nodes[0].domain",
        at(&m, "\"com.x\""),
    );
}

#[test]
fn subgraph_reads_enclosing_value_and_orders_its_node() {
    // Node 0 (If) has a subgraph reading "a", which node 1 produces: node 1 must come first.
    let sub = "{\"outputs\":[{\"name\":\"a\"}]}";
    let if_node = format!(
        "{{\"op\":\"If\",\"inputs\":[\"x\"],\"outputs\":[\"y\"],\"attributes\":[{{\"name\":\"then_branch\",\"type\":5,\"value\":{sub}}}]}}"
    );
    let m = net(&["x"], &[if_node, node("A", &["x"], &["a"])], &["y"]);
    let bytes_model = file(&m, &[]);
    let model = read(&bytes_model, Limits::DEFAULT).unwrap();
    let ops: Vec<_> = model.graph.nodes.iter().map(|n| &*n.op).collect();
    assert_eq!(ops, ["A", "If"]);
}

#[test]
fn nodes_reordered_in_every_subgraph_and_function() {
    // §3.1 rule 3 in each graph: out-of-order nodes in two GRAPHS subgraphs, in a GRAPH
    // subgraph nested in a GRAPH subgraph, in a function and in its attribute defaults.
    let body = "{\"nodes\":[{\"op\":\"B\",\"inputs\":[\"a\"],\"outputs\":[\"b\"]},{\"op\":\"A\",\"outputs\":[\"a\"]}],\"outputs\":[{\"name\":\"b\"}]}";
    let attr = |name: &str, ty: u8, value: &str| format!("{{\"name\":\"{name}\",\"type\":{ty},\"value\":{value}}}");
    let holder = |attrs: &[String], out: &str| {
        format!(
            "{{\"op\":\"If\",\"outputs\":[\"{out}\"],\"attributes\":[{}]}}",
            attrs.join(",")
        )
    };
    let deeper = format!(
        "{{\"nodes\":[{}],\"outputs\":[{{\"name\":\"z\"}}]}}",
        holder(&[attr("g", 5, body)], "z")
    );
    let main = [
        node("D", &["c"], &["d"]),
        holder(
            &[attr("gs", 10, &format!("[{body},{body}]")), attr("g", 5, &deeper)],
            "c",
        ),
    ];
    let function = format!(
        "{{\"name\":\"F\",\"outputs\":[\"b\"],\"attribute_defaults\":[{}],\"nodes\":[{},{}]}}",
        attr("g", 5, body),
        node("B", &["a"], &["b"]),
        node("A", &[], &["a"]),
    );
    let m = net(&[], &main, &["d"]);
    let m = format!("{},\"functions\":[{function}]}}", &m[..m.len() - 1]);
    let bytes = file(&m, &[]);
    let model = read(&bytes, Limits::DEFAULT).unwrap();
    let ops = |nodes: &[Node]| nodes.iter().map(|n| n.op.to_string()).collect::<Vec<_>>();
    fn sub<'m, 'a>(a: &'m Attribute<'a>, i: usize) -> &'m Graph<'a> {
        match a.value.as_ref().unwrap() {
            AttrValue::Graph(g) => g,
            AttrValue::Graphs(gs) => &gs[i],
            _ => panic!("not a graph"),
        }
    }
    assert_eq!(ops(&model.graph.nodes), ["If", "D"]);
    let attrs = &model.graph.nodes[0].attributes;
    assert_eq!(ops(&sub(&attrs[0], 0).nodes), ["A", "B"]);
    assert_eq!(ops(&sub(&attrs[0], 1).nodes), ["A", "B"]);
    let deeper = sub(&attrs[1], 0);
    assert_eq!(ops(&sub(&deeper.nodes[0].attributes[0], 0).nodes), ["A", "B"]);
    let f = &model.functions[0];
    assert_eq!(ops(&f.nodes), ["A", "B"]);
    assert_eq!(ops(&sub(&f.attribute_defaults[0], 0).nodes), ["A", "B"]);
}

#[test]
fn subgraph_undefined_name_rejected() {
    let sub = "{\"outputs\":[{\"name\":\"nope\"}]}";
    let if_node = format!(
        "{{\"op\":\"If\",\"inputs\":[\"x\"],\"outputs\":[\"y\"],\"attributes\":[{{\"name\":\"g\",\"type\":5,\"value\":{sub}}}]}}"
    );
    let m = net(&["x"], &[if_node], &["y"]);
    let e = read_err(&file(&m, &[]));
    let p = "manifest.graph.nodes[0].attributes[0].value.outputs[0].name";
    assert_path(&e, ErrorKind::Malformed, p, at(&m, "\"nope\""));
}

#[test]
fn value_info_undefined_rejected() {
    let g = "{\"inputs\":[{\"name\":\"x\"}],\"value_info\":[{\"name\":\"v\"}]}";
    let m = graph_manifest(g);
    let e = read_err(&file(&m, &[]));
    assert_path(
        &e,
        ErrorKind::Malformed,
        "manifest.graph.value_info[0].name",
        at(&m, "\"v\""),
    );
}

/// §3.1 rule 5: the first entry that breaks the rule either way is the one reported, an
/// undefined name before a later repeat and a repeat before a later undefined name.
#[test]
fn value_info_reports_its_first_failure() {
    let cases = [
        (
            r#"[{"name":"x"},{"name":"q"},{"name":"x"}]"#,
            "value_info names an undefined value",
        ),
        (
            r#"[{"name":"x"},{"name":"x"},{"name":"q"}]"#,
            "second value_info entry for one name",
        ),
    ];
    for (entries, message) in cases {
        let m = graph_manifest(&format!(r#"{{"inputs":[{{"name":"x"}}],"value_info":{entries}}}"#));
        let e = read_err(&file(&m, &[]));
        // The third `{"name":` is value_info[1]'s (the input's is the first).
        let entry = m.match_indices(r#"{"name":"#).nth(2).unwrap().0;
        let value = 64 + (entry + r#"{"name":"#.len()) as u64;
        assert_path(&e, ErrorKind::Malformed, "manifest.graph.value_info[1].name", value);
        assert_eq!(e.message, message);
    }
}

#[test]
fn function_body_resolved_and_ordered() {
    let m = "{\"ir_version\":9,\"opsets\":[{\"version\":17},{\"domain\":\"f\",\"version\":1}],\"graph\":{},\"functions\":[{\"name\":\"F\",\"domain\":\"f\",\"inputs\":[\"a\"],\"outputs\":[\"c\"],\"nodes\":[{\"op\":\"N\",\"inputs\":[\"b\"],\"outputs\":[\"c\"]},{\"op\":\"M\",\"inputs\":[\"a\"],\"outputs\":[\"b\"]}]}]}";
    let bytes_model = file(m, &[]);
    let model = read(&bytes_model, Limits::DEFAULT).unwrap();
    let ops: Vec<_> = model.functions[0].nodes.iter().map(|n| &*n.op).collect();
    assert_eq!(ops, ["M", "N"]);
}

#[test]
fn function_undefined_input_rejected() {
    let m = "{\"ir_version\":9,\"opsets\":[{\"version\":17}],\"graph\":{},\"functions\":[{\"name\":\"F\",\"nodes\":[{\"op\":\"N\",\"inputs\":[\"zz\"]}]}]}";
    let e = read_err(&file(m, &[]));
    assert_path(
        &e,
        ErrorKind::Malformed,
        "manifest.functions[0].nodes[0].inputs[0]",
        at(m, "\"zz\""),
    );
}

#[test]
fn duplicate_function_rejected() {
    let m = "{\"ir_version\":9,\"graph\":{},\"functions\":[{\"name\":\"F\"},{\"name\":\"F\"}]}";
    let e = read_err(&file(m, &[]));
    assert_path(
        &e,
        ErrorKind::Malformed,
        "manifest.functions[1]",
        64 + m.rfind("{\"name").unwrap() as u64,
    );
}

/// §2.8 in reading order: the first repeated key is reported, at the repeat, before a later
/// function that fails to read; a failure before any repeat is reported instead.
#[test]
fn duplicate_function_reported_in_reading_order() {
    let m = "{\"ir_version\":9,\"graph\":{},\"functions\":[{\"name\":\"F\"},{\"name\":\"G\"},{\"name\":\"G\",\"domain\":\"d\"},{\"name\":\"G\"},{\"name\":\"F\"},{\"name\":7}]}";
    let e = read_err(&file(m, &[]));
    assert_path(
        &e,
        ErrorKind::Malformed,
        "manifest.functions[3]",
        at(m, "{\"name\":\"G\"},{\"name\":\"F"),
    );
    let m = "{\"ir_version\":9,\"graph\":{},\"functions\":[{\"name\":\"F\"},{\"name\":7},{\"name\":\"F\"}]}";
    let e = read_err(&file(m, &[]));
    assert_eq!(
        (e.kind, e.path.as_deref()),
        (ErrorKind::Malformed, Some("manifest.functions[1].name")),
        "{e}"
    );
}

// ---- §4 writer -------------------------------------------------------------------------------

fn sample_model<'a>(w: &'a [u8], idx: &'a [u8]) -> Model<'a> {
    let ty = Type {
        denotation: String::new(),
        kind: TypeKind::Tensor {
            elem_type: 1,
            shape: Some(vec![
                Dim {
                    value: DimValue::Value(3),
                    denotation: String::new(),
                },
                Dim {
                    value: DimValue::Param("N".into()),
                    denotation: "BATCH".into(),
                },
            ]),
        },
    };
    let tensor = |name: &'a str, dtype, dims: Vec<u64>, bytes: &'a [u8]| Tensor {
        name: name.into(),
        dtype,
        dims,
        data: TensorData::Raw(bytes.into()),
        ..Tensor::default()
    };
    let sub = Graph {
        initializers: vec![tensor("k", 2, vec![3], &w[..3])],
        outputs: vec![TypedName {
            name: "x".into(),
            ..TypedName::default()
        }],
        ..Graph::default()
    };
    Model {
        ir_version: 10,
        opsets: vec![OperatorSet {
            domain: String::new(),
            version: 21,
        }],
        producer_name: "test".into(),
        model_version: -3,
        metadata: vec![StringEntry {
            key: "k".into(),
            value: "v".into(),
        }],
        graph: Graph {
            name: "g".into(),
            initializers: vec![tensor("w", 1, vec![3], &w[..12])],
            sparse_initializers: vec![SparseTensor {
                values: tensor("s", 1, vec![1], &w[..4]),
                indices: tensor("", 7, vec![1], idx),
                dims: vec![5],
            }],
            inputs: vec![TypedName {
                name: "x".into(),
                ty: Some(ty),
                ..TypedName::default()
            }],
            outputs: vec![TypedName {
                name: "y".into(),
                ..TypedName::default()
            }],
            nodes: vec![Node {
                op: "If".into(),
                inputs: vec!["x".into(), "w".into(), "s".into()],
                outputs: vec!["y".into()],
                attributes: vec![
                    Attribute {
                        name: "f".into(),
                        ty: 1,
                        value: Some(AttrValue::Float(0x7fc0_0001)),
                        ..Attribute::default()
                    },
                    Attribute {
                        name: "g".into(),
                        ty: 5,
                        value: Some(AttrValue::Graph(Box::new(sub))),
                        ..Attribute::default()
                    },
                    Attribute {
                        name: "t".into(),
                        ty: 4,
                        value: Some(AttrValue::Tensor(Tensor {
                            dtype: 8,
                            dims: vec![2],
                            data: TensorData::Strings(vec![b"a".to_vec(), vec![0xff]]),
                            ..Tensor::default()
                        })),
                        ..Attribute::default()
                    },
                ],
                ..Node::default()
            }],
            ..Graph::default()
        },
        ..Model::default()
    }
}

#[test]
fn writer_round_trip_is_identity() {
    let w: Vec<u8> = (0..16).collect();
    let idx = 2u64.to_le_bytes();
    let model = sample_model(&w, &idx);
    let bytes = write(&model, Limits::DEFAULT).unwrap();
    let back = read(&bytes, Limits::DEFAULT).unwrap();
    assert_eq!(back, model);
    assert_eq!(write(&back, Limits::DEFAULT).unwrap(), bytes, "same model, same bytes");
}

#[test]
fn writer_places_tensors_at_64_byte_multiples_in_data_order() {
    let w: Vec<u8> = (0..16).collect();
    let idx = 2u64.to_le_bytes();
    let bytes = write(&sample_model(&w, &idx), Limits::DEFAULT).unwrap();
    let h = read_header(&bytes, bytes.len() as u64, u64::MAX).unwrap();
    assert_eq!(h.data_offset % 64, 0);
    // Initializer w, sparse values s, sparse indices, then the subgraph's k.
    let d = h.data_offset as usize;
    assert_eq!(&bytes[d..d + 12], &w[..12]);
    assert_eq!(&bytes[d + 64..d + 68], &w[..4]);
    assert_eq!(&bytes[d + 128..d + 136], &idx);
    assert_eq!(&bytes[d + 192..d + 195], &w[..3]);
    assert_eq!(h.data_length, 195);
    assert!(bytes[d + 12..d + 64].iter().all(|&b| b == 0));
    let manifest = std::str::from_utf8(&bytes[64..64 + h.manifest_length as usize]).unwrap();
    assert!(!manifest.contains(' ') && !manifest.contains('\n'));
}

#[test]
fn writer_rejects_noncharacter_strings() {
    let model = Model {
        producer_name: "a\u{FFFE}".into(),
        ..Model::default()
    };
    assert_eq!(write(&model, Limits::DEFAULT).unwrap_err().kind, ErrorKind::Unsupported);
}

#[test]
fn writer_rejects_bytes_disagreeing_with_dims() {
    let w = [0u8; 5];
    let model = Model {
        graph: Graph {
            initializers: vec![Tensor {
                dtype: 1,
                dims: vec![2],
                data: TensorData::Raw(w[..].into()),
                ..Tensor::default()
            }],
            ..Graph::default()
        },
        ..Model::default()
    };
    assert_eq!(write(&model, Limits::DEFAULT).unwrap_err().kind, ErrorKind::OutOfRange);
}

/// What the writer says about `sample_model` changed by `change`: it must refuse it (§4), so
/// it never writes a file its reader rejects.
fn writer_refusal(change: impl FnOnce(&mut Model<'_>)) -> Error {
    let w: Vec<u8> = (0..16).collect();
    let idx = 2u64.to_le_bytes();
    let mut model = sample_model(&w, &idx);
    change(&mut model);
    write(&model, Limits::DEFAULT).expect_err("the writer must refuse a model its reader would reject")
}

fn assert_refused(e: &Error, kind: ErrorKind, path: &str) {
    assert_eq!((e.kind, e.path.as_deref(), e.offset), (kind, Some(path), None), "{e}");
}

/// §2.1: the reader takes `ir_version` 0..=2^63 − 1 (OutOfRange above).
#[test]
fn writer_refuses_ir_version_above_2_63() {
    let e = writer_refusal(|m| m.ir_version = u64::MAX);
    assert_refused(&e, ErrorKind::OutOfRange, "model");
    let e = writer_refusal(|m| m.opsets[0].version = 1 << 63);
    assert_refused(&e, ErrorKind::OutOfRange, "model");
}

/// §2.6: a sparse tensor's `dims` follow §2.5: an element count at 2^60 or more is
/// LimitExceeded, a dimension above 2^63 − 1 OutOfRange.
#[test]
fn writer_refuses_sparse_dims_count_2_60() {
    let e = writer_refusal(|m| m.graph.sparse_initializers[0].dims = vec![1 << 40, 1 << 40]);
    assert_refused(&e, ErrorKind::LimitExceeded, "model");
    let e = writer_refusal(|m| m.graph.sparse_initializers[0].dims = vec![0, u64::MAX]);
    assert_refused(&e, ErrorKind::OutOfRange, "model");
}

/// §2.6: sparse indices must have dtype 7 (Malformed otherwise).
#[test]
fn writer_refuses_sparse_indices_not_int64() {
    let four = [0u8; 4];
    let e = writer_refusal(|m| {
        let indices = &mut m.graph.sparse_initializers[0].indices;
        indices.dtype = 1;
        indices.data = TensorData::Raw(four[..].to_vec().into());
    });
    assert_refused(&e, ErrorKind::Malformed, "model");
    assert_eq!(e.message, "sparse indices must be int64 (dtype 7), not dtype 1");
}

/// §2.5: a tensor's dtype is one of the table's codes; the refusal names the code found
/// and the codes allowed.
#[test]
fn writer_refuses_unknown_dtype_naming_it() {
    let e = writer_refusal(|m| m.graph.initializers[0].dtype = 99);
    assert_refused(&e, ErrorKind::Unsupported, "model");
    assert_eq!(e.message, "unsupported dtype 99 (expected 1 to 28)");
}

/// §2.7: a Dim `value` is an integer ≥ 0 the reader reads as an i64 (OutOfRange above).
#[test]
fn writer_refuses_dim_value_above_2_63() {
    let e = writer_refusal(|m| {
        let Some(TypeKind::Tensor { shape: Some(shape), .. }) = m.graph.inputs[0].ty.as_mut().map(|t| &mut t.kind)
        else {
            panic!()
        };
        shape[0].value = DimValue::Value(u64::MAX);
    });
    assert_refused(&e, ErrorKind::OutOfRange, "model");
}

/// §3.1 rule 1: a name defined twice in one graph is Malformed at the second definer, as the
/// reader resolves it (manifest path, no offset: there is no file yet).
#[test]
fn writer_refuses_name_defined_twice() {
    let e = writer_refusal(|m| m.graph.nodes[0].outputs[0] = "w".into());
    assert_refused(&e, ErrorKind::Malformed, "manifest.graph.nodes[0].outputs[0]");
}

/// §3.1 rules 2 and 4: an undefined name and a node domain without an operator set.
#[test]
fn writer_refuses_unresolvable_names() {
    let e = writer_refusal(|m| m.graph.outputs[0].name = "nowhere".into());
    assert_refused(&e, ErrorKind::Malformed, "manifest.graph.outputs[0].name");
    let e = writer_refusal(|m| m.graph.nodes[0].domain = "com.nowhere".into());
    assert_refused(&e, ErrorKind::Malformed, "manifest.graph.nodes[0].domain");
}

/// §2.1, §2.8: one operator set per domain, one function per (domain, name, overload).
#[test]
fn writer_refuses_duplicate_opsets_and_functions() {
    let e = writer_refusal(|m| {
        m.opsets.push(OperatorSet {
            domain: "ai.onnx".into(),
            version: 1,
        })
    });
    assert_refused(&e, ErrorKind::Malformed, "model");
    let e = writer_refusal(|m| {
        let f = Function {
            name: "F".into(),
            ..Function::default()
        };
        m.functions = vec![f.clone(), f];
    });
    assert_refused(&e, ErrorKind::Malformed, "model");
}

/// §2.4: a reference has no value, any other attribute has one, and a type code without
/// a value must be 1..=14.
#[test]
fn writer_refuses_attributes_a_reader_rejects() {
    let e = writer_refusal(|m| m.graph.nodes[0].attributes[0].ref_name = "outer".into());
    assert_refused(&e, ErrorKind::Malformed, "model");
    let e = writer_refusal(|m| m.graph.nodes[0].attributes[0].value = None);
    assert_refused(&e, ErrorKind::Malformed, "model");
    let unset = |ty| {
        move |m: &mut Model<'_>| {
            let a = &mut m.graph.nodes[0].attributes[0];
            (a.value, a.ty, a.ref_name) = (None, ty, "outer".into());
        }
    };
    assert_refused(&writer_refusal(unset(0)), ErrorKind::Malformed, "model");
    let e = writer_refusal(unset(15));
    assert_refused(&e, ErrorKind::Unsupported, "model");
    assert_eq!(e.message, "unsupported attribute type 15 (expected 1 to 14)");
}

/// §2.7: `elem_type` and `key_type` are 0 or a dtype code (Unsupported otherwise).
#[test]
fn writer_refuses_unknown_element_type() {
    let e = writer_refusal(|m| {
        if let Some(TypeKind::Tensor { elem_type, .. }) = m.graph.inputs[0].ty.as_mut().map(|t| &mut t.kind) {
            *elem_type = 99;
        }
    });
    assert_refused(&e, ErrorKind::Unsupported, "model");
    assert_eq!(e.message, "unsupported element type 99 (expected 0 to 28)");
}

/// A model whose graphs nest `levels` deep through GRAPH attributes of If nodes.
fn nested_graph_model(levels: usize) -> Model<'static> {
    let mut g = Graph::default();
    for _ in 1..levels {
        let attr = Attribute {
            name: "b".into(),
            ty: 5,
            value: Some(AttrValue::Graph(Box::new(g))),
            ..Attribute::default()
        };
        g = Graph {
            nodes: vec![Node {
                op: "If".into(),
                attributes: vec![attr],
                ..Node::default()
            }],
            ..Graph::default()
        };
    }
    Model {
        ir_version: 9,
        opsets: vec![OperatorSet {
            domain: String::new(),
            version: 17,
        }],
        graph: g,
        ..Model::default()
    }
}

#[test]
fn writer_refuses_manifest_over_reader_limit() {
    // §4: the writer never makes a file its reader rejects; with the manifest size limit
    // lowered to just below this model's manifest, it fails as the reader would (§1.1
    // check 10: LimitExceeded at manifest_length, offset 16).
    let model = Model {
        doc: "d".repeat(1000),
        ..nested_graph_model(1)
    };
    let bytes = write(&model, Limits::DEFAULT).unwrap();
    let len = read_header(&bytes, bytes.len() as u64, u64::MAX)
        .unwrap()
        .manifest_length;
    let limits = |max_manifest| Limits {
        max_manifest,
        ..Limits::DEFAULT
    };
    assert_eq!(write(&model, limits(len)).unwrap(), bytes);
    assert!(
        read(
            &bytes,
            Limits {
                hash_key: [1, 2],
                ..limits(len)
            }
        )
        .is_ok()
    );
    let e = write(&model, limits(len - 1)).unwrap_err();
    assert_header(&e, ErrorKind::LimitExceeded, "manifest_length", 16);
    assert_header(
        &read(
            &bytes,
            Limits {
                hash_key: [1, 2],
                ..limits(len - 1)
            },
        )
        .unwrap_err(),
        ErrorKind::LimitExceeded,
        "manifest_length",
        16,
    );
    assert_eq!(Limits::DEFAULT.max_manifest, 512 << 20, "spec §1.2: 512 MiB");
}

#[test]
fn writer_refuses_nesting_over_64() {
    // §3.2 and §4: 64 graph levels write and read back; 65 are LimitExceeded in the writer
    // as in the reader.
    let bytes = write(&nested_graph_model(64), Limits::DEFAULT).unwrap();
    assert_eq!(read(&bytes, Limits::DEFAULT).unwrap(), nested_graph_model(64));
    let e = write(&nested_graph_model(65), Limits::DEFAULT).unwrap_err();
    assert_eq!((e.kind, e.path.as_deref()), (ErrorKind::LimitExceeded, Some("model")));
    // Types count too: a graph input typed 64 levels deep is level 65.
    let mut ty = Type {
        denotation: String::new(),
        kind: TypeKind::Tensor {
            elem_type: 1,
            shape: None,
        },
    };
    for _ in 1..64 {
        ty = Type {
            denotation: String::new(),
            kind: TypeKind::Sequence(Box::new(ty)),
        };
    }
    let mut model = nested_graph_model(1);
    model.graph.inputs.push(TypedName {
        name: "x".into(),
        ty: Some(ty),
        ..TypedName::default()
    });
    assert_eq!(
        write(&model, Limits::DEFAULT).unwrap_err().kind,
        ErrorKind::LimitExceeded
    );
}

/// §1.3 lets tensors share bytes; ONNX holds each tensor's bytes in full (§6.3). 2049
/// initializers over one 1 MiB range (a 1.2 MB file) would make a 2 GiB ONNX file: the
/// writer refuses it before writing anything, as LimitExceeded at `model`.
#[test]
fn onnx_writer_refuses_shared_tensor_bytes_over_2_gib() {
    let tensor = |i: usize| {
        format!("{{\"name\":\"t{i}\",\"dtype\":2,\"dims\":[1048576],\"data\":{{\"offset\":0,\"length\":1048576}}}}")
    };
    let list: Vec<String> = (0..2049).map(tensor).collect();
    let manifest = format!(
        "{{\"ir_version\":9,\"graph\":{{\"initializers\":[{}]}}}}",
        list.join(",")
    );
    let file = assemble(manifest.as_bytes(), &vec![7u8; 1 << 20]);
    let model = read(&file, Limits::DEFAULT).unwrap();
    let e = modelgate_core::onnx::write_model(&model).unwrap_err();
    assert_eq!((e.kind, e.path.as_deref()), (ErrorKind::LimitExceeded, Some("model")));
}

/// A uint8 initializer named `name` of `data`'s length.
fn uint8(name: &str, data: TensorData<'static>) -> Tensor<'static> {
    Tensor {
        name: name.to_string().into(),
        dtype: 2,
        dims: vec![data.byte_length().unwrap()],
        data,
        ..Tensor::default()
    }
}

/// A model whose graph holds `initializers`, each also a graph output.
fn model_of(initializers: Vec<Tensor<'static>>) -> Model<'static> {
    let outputs = initializers
        .iter()
        .map(|t| TypedName {
            name: t.name.to_string(),
            ..TypedName::default()
        })
        .collect();
    Model {
        ir_version: 9,
        graph: Graph {
            initializers,
            outputs,
            ..Graph::default()
        },
        ..Model::default()
    }
}

/// §6.3: the model file may hold at most 2^31 − 1 bytes. Inline, a model with a tensor of
/// 2^31 bytes (kept in a file, so nothing is in memory) is refused naming
/// `--external-data`; `Auto` moves the initializers of 1024 bytes or more to the data file,
/// each at the next multiple of 64, and the model names them by location, offset and
/// length; a smaller one stays inline. The model reads back to the same tensors, as ranges
/// of the data file.
#[test]
fn onnx_writer_moves_initializers_to_a_data_file() {
    use modelgate_core::onnx::{self, Data};
    let a: Vec<u8> = (0..2000u32).map(|i| (i % 251) as u8).collect();
    let big = FileRange {
        file: 0,
        offset: 4096,
        length: 1 << 31,
    };
    let model = model_of(vec![
        uint8("small", TensorData::Raw(vec![1u8; 1023].into())),
        uint8("a", TensorData::Raw(a.clone().into())),
        uint8("big", TensorData::File(big)),
    ]);
    let e = onnx::write_parts(&model, Data::Inline, Limits::DEFAULT).unwrap_err();
    assert_eq!((e.kind, e.path.as_deref()), (ErrorKind::LimitExceeded, Some("model")));
    assert!(e.message.contains("--external-data"), "{e}");
    let written = onnx::write_parts(&model, Data::Auto("m.onnx.data"), Limits::DEFAULT).unwrap();
    let data: Vec<Piece<'_>> = written.data.pieces().collect();
    let mut padded = a.clone();
    padded.resize(2048, 0);
    let joined = [Piece::Bytes(&a), Piece::Bytes(&padded[2000..])];
    assert_eq!(data, [joined[0], joined[1], Piece::File(big)]);
    assert_eq!(written.data.length(), 2048 + (1 << 31));
    let proto = written.model.clone().into_vec().unwrap();
    assert!(proto.len() < 2000, "{}", proto.len());
    let raised = Limits {
        max_tensor_bytes: 1 << 31,
        ..Limits::DEFAULT
    };
    let mut seen = Vec::new();
    let mut resolver = |r: &onnx::ExternalRef<'_>| {
        seen.push((r.location.to_string(), r.offset, r.length));
        Ok(5)
    };
    let back = onnx::read_model(
        &proto,
        onnx::ReadOptions {
            limits: raised,
            resolver: Some(&mut resolver),
        },
    )
    .unwrap();
    let range = |offset, length| {
        TensorData::File(FileRange {
            file: 5,
            offset,
            length,
        })
    };
    let data: Vec<&TensorData<'_>> = back.graph.initializers.iter().map(|t| &t.data).collect();
    assert_eq!(
        data,
        [
            &TensorData::Raw(vec![1u8; 1023].into()),
            &range(0, 2000),
            &range(2048, 1 << 31)
        ]
    );
    assert_eq!(
        seen,
        [
            ("m.onnx.data".to_string(), 0, Some(2000)),
            ("m.onnx.data".to_string(), 2048, Some(1 << 31))
        ]
    );
    // With everything inline the model fits: `Auto` keeps the one file, byte for byte.
    let small = model_of(vec![uint8("a", TensorData::Raw(a.into()))]);
    let one = onnx::write_parts(&small, Data::Auto("m.onnx.data"), Limits::DEFAULT).unwrap();
    assert!(one.data.is_empty());
    assert_eq!(one.model.into_vec().unwrap(), onnx::write_model(&small).unwrap());
    let external = onnx::write_parts(&small, Data::External("m.onnx.data"), Limits::DEFAULT).unwrap();
    assert_eq!(external.data.length(), 2000);
}

/// §4, §6.3: tensors that name one range of a file are each written in full, and both
/// writers cap what that adds at `max_shared_data`, before anything is laid out.
#[test]
fn writers_cap_shared_file_ranges_at_max_shared_data() {
    use modelgate_core::onnx::{self, Data};
    let range = |offset| {
        TensorData::File(FileRange {
            file: 1,
            offset,
            length: 1 << 30,
        })
    };
    let tied = model_of(vec![uint8("a", range(0)), uint8("b", range(0))]);
    let disjoint = model_of(vec![uint8("a", range(0)), uint8("b", range(1 << 30))]);
    let tight = Limits {
        max_shared_data: (1 << 30) - 1,
        ..Limits::DEFAULT
    };
    for m in [&tied, &disjoint] {
        assert!(layout(m, Limits::DEFAULT).is_ok());
        assert!(onnx::write_parts(m, Data::External("d"), Limits::DEFAULT).is_ok());
    }
    assert!(layout(&disjoint, tight).is_ok());
    let e = layout(&tied, tight).unwrap_err();
    assert_eq!((e.kind, e.path.as_deref()), (ErrorKind::LimitExceeded, Some("model")));
    let e = onnx::write_parts(&tied, Data::External("d"), tight).unwrap_err();
    assert_eq!((e.kind, e.path.as_deref()), (ErrorKind::LimitExceeded, Some("model")));
    // A OneModel file of tensors in files is laid out, not joined in one buffer.
    let e = write(&disjoint, Limits::DEFAULT).unwrap_err();
    assert_eq!((e.kind, e.path.as_deref()), (ErrorKind::Unsupported, Some("model")));
}

/// A file whose data region is `region` bytes of 7 and whose initializers are uint8 tensors
/// at the given (offset, length) ranges of it (§1.3 lets them share bytes).
fn shared_file(region: usize, ranges: impl Iterator<Item = (usize, usize)>) -> Vec<u8> {
    let list: Vec<String> = ranges
        .enumerate()
        .map(|(i, (offset, length))| {
            format!("{{\"name\":\"t{i}\",\"dtype\":2,\"dims\":[{length}],\"data\":{{\"offset\":{offset},\"length\":{length}}}}}")
        })
        .collect();
    let manifest = format!(
        "{{\"ir_version\":9,\"graph\":{{\"initializers\":[{}]}}}}",
        list.join(",")
    );
    assemble(manifest.as_bytes(), &vec![7u8; region])
}

/// The writer's failure; a file written instead is reported by its length, not printed.
fn refused(written: Result<Vec<u8>, Error>) -> Error {
    written.map(|file| file.len()).unwrap_err()
}

fn max_shared(max_shared_data: u64) -> Limits {
    Limits {
        max_shared_data,
        ..Limits::DEFAULT
    }
}

/// §4: the writer writes each tensor in full, so 1024 tensors over one 4 KiB range (an
/// 80 KB file) would make a 4 MiB data region, and sliding windows of 32 KiB every 64
/// bytes over 64 KiB another 16 MiB; what sharing adds is capped by `max_shared_data`:
/// LimitExceeded at `model`. Under the default (2^31 − 1) the first is written in full.
#[test]
fn writer_refuses_tensors_sharing_bytes_over_max_shared_data() {
    let same = shared_file(4096, (0..1024).map(|_| (0, 4096)));
    let model = read(&same, Limits::DEFAULT).unwrap();
    let e = refused(write(&model, max_shared(1 << 20)));
    assert_refused(&e, ErrorKind::LimitExceeded, "model");
    let bytes = write(&model, Limits::DEFAULT).unwrap();
    assert_eq!(
        read_header(&bytes, bytes.len() as u64, u64::MAX).unwrap().data_length,
        1024 * 4096
    );
    assert_eq!(read(&bytes, Limits::DEFAULT).unwrap(), model);

    let windows = shared_file(1 << 16, (0..512).map(|i| (64 * i, 1 << 15)));
    let e = refused(write(&read(&windows, Limits::DEFAULT).unwrap(), max_shared(1 << 20)));
    assert_refused(&e, ErrorKind::LimitExceeded, "model");
    assert_eq!(Limits::DEFAULT.max_shared_data, (1 << 31) - 1, "spec §4: 2^31 - 1");
}

/// §4: three tensors over one 1024-byte range add 2048 bytes: written at a limit of 2048
/// (each tensor its own bytes, the file reads back as the same model), refused at 2047.
/// Tensors with bytes of their own add nothing, even when the bytes are equal: a model
/// without sharing writes at a limit of 0. Overlapping windows add what they overlap.
#[test]
fn writer_writes_shared_bytes_up_to_max_shared_data() {
    let file = shared_file(1024, (0..3).map(|_| (0, 1024)));
    let model = read(&file, Limits::DEFAULT).unwrap();
    let bytes = write(&model, max_shared(2048)).unwrap();
    assert_eq!(
        read_header(&bytes, bytes.len() as u64, u64::MAX).unwrap().data_length,
        3 * 1024
    );
    let back = read(
        &bytes,
        Limits {
            hash_key: [1, 2],
            ..max_shared(0)
        },
    )
    .unwrap();
    assert_eq!(back, model);
    assert_eq!(write(&back, max_shared(0)).unwrap(), bytes, "same model, same bytes");
    let e = refused(write(&model, max_shared(2047)));
    assert_refused(&e, ErrorKind::LimitExceeded, "model");
    // Windows of 128 bytes every 64 over 256: 384 bytes written, 256 held, 128 added.
    let file = shared_file(256, (0..3).map(|i| (64 * i, 128)));
    let windows = read(&file, Limits::DEFAULT).unwrap();
    let bytes = write(&windows, max_shared(128)).unwrap();
    assert_eq!(read(&bytes, Limits::DEFAULT).unwrap(), windows);
    let e = refused(write(&windows, max_shared(127)));
    assert_refused(&e, ErrorKind::LimitExceeded, "model");
}

/// §4: every tensor the writer writes counts, wherever it is (§1.3's data order): an
/// initializer, a sparse initializer's values, a node's tensor attribute, an initializer of
/// a subgraph and a function's attribute default, all five over one 1024-byte range, add
/// 4096 bytes.
#[test]
fn writer_counts_shared_bytes_of_tensors_everywhere_in_the_model() {
    let t = |name: &str| {
        format!("{{\"name\":\"{name}\",\"dtype\":2,\"dims\":[1024],\"data\":{{\"offset\":0,\"length\":1024}}}}")
    };
    let indices = "{\"dtype\":7,\"dims\":[0],\"data\":{\"offset\":0,\"length\":0}}";
    let manifest = format!(
        "{{\"ir_version\":9,\"opsets\":[{{\"version\":1}}],\"graph\":{{\"initializers\":[{}],\
         \"sparse_initializers\":[{{\"values\":{},\"indices\":{indices},\"dims\":[1024]}}],\
         \"nodes\":[{{\"op\":\"If\",\"attributes\":[{{\"name\":\"t\",\"type\":4,\"value\":{}}},\
         {{\"name\":\"g\",\"type\":5,\"value\":{{\"initializers\":[{}]}}}}]}}]}},\
         \"functions\":[{{\"name\":\"F\",\"attribute_defaults\":[{{\"name\":\"d\",\"type\":4,\"value\":{}}}]}}]}}",
        t("a"),
        t("b"),
        t("c"),
        t("d"),
        t("e")
    );
    let file = assemble(manifest.as_bytes(), &[7u8; 1024]);
    let model = read(&file, Limits::DEFAULT).unwrap();
    let bytes = write(&model, max_shared(4096)).unwrap();
    assert_eq!(
        read_header(&bytes, bytes.len() as u64, u64::MAX).unwrap().data_length,
        4 * 1024 + 1024
    );
    assert_eq!(read(&bytes, Limits::DEFAULT).unwrap(), model);
    let e = refused(write(&model, max_shared(4095)));
    assert_refused(&e, ErrorKind::LimitExceeded, "model");
}

// ---- §6 ONNX protobuf ------------------------------------------------------------------------

mod onnx_proto {
    use super::*;
    use modelgate_core::onnx::{self, wire::*};
    use modelgate_corpus_gen::onemodel::pb::{int, len};

    /// ModelProto { ir_version: 9, graph: { initializer: [tensor] } }.
    fn model_with_tensor(tensor: &[u8]) -> Vec<u8> {
        [int(1, 9), len(7, &len(5, tensor))].concat()
    }

    fn err(bytes: &[u8]) -> Error {
        onnx::to_model(bytes, Limits::DEFAULT).expect_err("must be rejected")
    }

    #[test]
    fn onnx_round_trip_is_identity() {
        let w: Vec<u8> = (0..16).collect();
        let idx = 2u64.to_le_bytes();
        let model = sample_model(&w, &idx);
        let proto = onnx::write_model(&model).unwrap();
        let back = onnx::to_model(&proto, Limits::DEFAULT).unwrap();
        assert_eq!(back, model);
        assert_eq!(
            onnx::write_model(&back).unwrap(),
            proto,
            "same model, same protobuf bytes"
        );
    }

    #[test]
    fn onnx_to_onemodel_to_onnx() {
        let w: Vec<u8> = (0..16).collect();
        let idx = 2u64.to_le_bytes();
        let proto = onnx::write_model(&sample_model(&w, &idx)).unwrap();
        let one = write(&onnx::to_model(&proto, Limits::DEFAULT).unwrap(), Limits::DEFAULT).unwrap();
        let again = write(&onnx::to_model(&proto, Limits::DEFAULT).unwrap(), Limits::DEFAULT).unwrap();
        assert_eq!(one, again, "converting twice gives identical bytes");
        assert_eq!(onnx::write_model(&read(&one, Limits::DEFAULT).unwrap()).unwrap(), proto);
    }

    #[test]
    fn onnx_raw_data_is_a_view() {
        let tensor = [int(1, 2), int(2, 1), len(9, &[0, 0, 128, 63, 0, 0, 0, 64])].concat();
        let proto = model_with_tensor(&tensor);
        let m = onnx::to_model(&proto, Limits::DEFAULT).unwrap();
        let TensorData::Raw(b) = &m.graph.initializers[0].data else {
            panic!()
        };
        assert!(matches!(b, std::borrow::Cow::Borrowed(_)));
    }

    #[test]
    fn onnx_typed_float_data_converted() {
        let mut packed = Vec::new();
        packed.extend_from_slice(&1.0f32.to_le_bytes());
        packed.extend_from_slice(&f32::NAN.to_le_bytes());
        let tensor = [int(1, 2), int(2, 1), len(4, &packed)].concat();
        let proto = model_with_tensor(&tensor);
        let m = onnx::to_model(&proto, Limits::DEFAULT).unwrap();
        let TensorData::Raw(b) = &m.graph.initializers[0].data else {
            panic!()
        };
        assert_eq!(b.as_ref(), packed.as_slice());
    }

    #[test]
    fn onnx_int32_data_for_uint8_out_of_range() {
        let tensor = [int(1, 1), int(2, 2), int(5, 300)].concat();
        assert_eq!(err(&model_with_tensor(&tensor)).kind, ErrorKind::OutOfRange);
        let tensor = [int(1, 2), int(2, 2), int(5, 255), int(5, 7)].concat();
        let proto = model_with_tensor(&tensor);
        let m = onnx::to_model(&proto, Limits::DEFAULT).unwrap();
        let TensorData::Raw(b) = &m.graph.initializers[0].data else {
            panic!()
        };
        assert_eq!(b.as_ref(), &[255, 7]);
    }

    /// §2.5, §2.7, §6.2: `data_type`, `elem_type` and `key_type` codes too large for int32
    /// are unsupported codes, as in OneModel, not integers out of range.
    #[test]
    fn onnx_type_codes_beyond_int32_unsupported() {
        for code in [1 << 31, 1 << 40, 1 << 63, u64::MAX] {
            let e = err(&model_with_tensor(&[int(1, 0), int(2, code)].concat()));
            assert_eq!(
                (e.kind, e.path.as_deref(), e.offset),
                (ErrorKind::Unsupported, Some("onnx.graph.initializer[0]"), Some(6)),
                "{code}"
            );
            // ValueInfoProto { name: "x", type: { tensor_type { elem_type: code } } }.
            let input = [len(1, b"x"), len(2, &len(1, &int(1, code)))].concat();
            let e = err(&[int(1, 9), len(7, &len(11, &input))].concat());
            assert_eq!(
                (e.kind, e.path.as_deref(), e.offset),
                (ErrorKind::Unsupported, Some("onnx.graph.input[0].type"), Some(14)),
                "{code}"
            );
            // TypeProto { map_type { key_type: code, value_type: { tensor_type {} } } }.
            let map = [int(1, code), len(2, &len(1, &[]))].concat();
            let input = [len(1, b"x"), len(2, &len(5, &map))].concat();
            let e = err(&[int(1, 9), len(7, &len(11, &input))].concat());
            assert_eq!(
                (e.kind, e.path.as_deref(), e.offset),
                (
                    ErrorKind::Unsupported,
                    Some("onnx.graph.input[0].type.map_type"),
                    Some(14)
                ),
                "{code}"
            );
        }
        let e = err(&model_with_tensor(&[int(1, 0), int(2, 1), int(14, 1 << 40)].concat()));
        assert_eq!(e.kind, ErrorKind::Unsupported);
    }

    /// Where a set of values is allowed, the message names the value found and the set.
    #[test]
    fn onnx_messages_name_the_value_and_the_allowed_set() {
        let message = |bytes: &[u8]| err(bytes).message.into_owned();
        assert_eq!(
            message(&model_with_tensor(&[int(1, 0), int(2, 99)].concat())),
            "unsupported dtype 99 (expected 1 to 28)"
        );
        assert_eq!(
            message(&model_with_tensor(&[int(1, 0), int(2, 1 << 63)].concat())),
            "unsupported dtype -9223372036854775808 (expected 1 to 28)"
        );
        assert_eq!(
            message(&model_with_tensor(&[int(1, 0), int(2, 1), int(14, 2)].concat())),
            "unknown data_location 2 (expected 0 for DEFAULT or 1 for EXTERNAL)"
        );
        let input = [len(1, b"x"), len(2, &len(1, &int(1, 29)))].concat();
        assert_eq!(
            message(&[int(1, 9), len(7, &len(11, &input))].concat()),
            "unsupported element type 29 (expected 0 to 28)"
        );
        // GraphProto { node { attribute { name "a", type 15 } } }.
        let attribute = [len(1, b"a"), int(20, 15)].concat();
        assert_eq!(
            message(&[int(1, 9), len(7, &len(1, &len(5, &attribute)))].concat()),
            "unsupported attribute type 15 (expected 1 to 14)"
        );
    }

    /// A known field of the wrong wire type names the field, the wire type found and the
    /// one expected; at the top level the message type is named, and before any field of
    /// `ModelProto` has been read, the input is said not to look like ONNX.
    #[test]
    fn onnx_wire_errors_name_field_and_wire_type() {
        let e = err(&len(1, b"x"));
        assert_eq!(
            (e.message.as_ref(), e.path.as_deref(), e.offset),
            (
                "field 1 of ModelProto has wire type 2 (bytes), expected 0 (varint): not an ONNX model?",
                Some("onnx"),
                Some(0)
            )
        );
        let e = err(&[int(1, 9), int(7, 1)].concat());
        assert_eq!(
            (e.message.as_ref(), e.offset),
            (
                "field 7 of ModelProto has wire type 0 (varint), expected 2 (bytes)",
                Some(2)
            )
        );
        let e = err(&[int(1, 9), len(7, &int(5, 1))].concat());
        assert_eq!(
            (e.message.as_ref(), e.path.as_deref()),
            (
                "field 5 has wire type 0 (varint), expected 2 (bytes)",
                Some("onnx.graph")
            )
        );
        // Files that are not ONNX at all: JSON, a JPEG, text, an empty file.
        for (bytes, expected) in [
            (
                &br#"{"ir_version": 9}"#[..],
                "field 15 of ModelProto has group wire type 3 (expected 0, 1, 2 or 5): not an ONNX model",
            ),
            (
                &b"\xff\xd8\xff\xe0\x00\x10JFIF\x00"[..],
                "field 25427343 of ModelProto has undefined wire type 7 (expected 0, 1, 2 or 5): not an ONNX model",
            ),
            (
                &b"\n  model\n"[..],
                "field 1 of ModelProto has length 32, which runs past the end of the message (7 bytes left): \
                 not an ONNX model?",
            ),
            (&b""[..], "ir_version is missing: not an ONNX model?"),
        ] {
            assert_eq!(err(bytes).message, expected);
        }
        // After ir_version, a broken key is a damaged model, not a foreign file.
        assert_eq!(
            err(&[int(1, 9), vec![0]].concat()).message,
            "invalid field number 0 (expected 1 to 536870911)"
        );
    }

    fn fixed64(number: u32, value: u64) -> Vec<u8> {
        let mut v = Vec::new();
        put_key(&mut v, number, 1);
        v.extend_from_slice(&value.to_le_bytes());
        v
    }

    /// §6.2: a tensor's data is in exactly one field, the one its dtype reads (or
    /// `raw_data`); anything else is Malformed at the first field, in file order, that
    /// breaks the rule (the tensor's path, that field's key offset), before the byte length
    /// is compared with dtype × dims.
    #[test]
    fn onnx_tensor_data_in_one_field_only() {
        let one = 1f32.to_le_bytes();
        let cases: [(Vec<u8>, Vec<u8>); 7] = [
            // dims [1], FLOAT, float_data [1.0], then int64_data [7].
            ([int(1, 1), int(2, 1), len(4, &one)].concat(), int(7, 7)),
            // dims [0], FLOAT, int64_data [7, 8]: the field FLOAT does not use.
            ([int(1, 0), int(2, 1)].concat(), len(7, &[7, 8])),
            // dims [1], INT32, int32_data [5], then double_data.
            ([int(1, 1), int(2, 6), int(5, 5)].concat(), fixed64(10, 0)),
            // dims [1], FLOAT, raw_data, then float_data.
            ([int(1, 1), int(2, 1), len(9, &one)].concat(), len(4, &one)),
            // dims [1], FLOAT, float_data, then raw_data.
            ([int(1, 1), int(2, 1), len(4, &one)].concat(), len(9, &one)),
            // dims [1], STRING, raw_data.
            ([int(1, 1), int(2, 8)].concat(), len(9, b"a")),
            // dims [0], FLOAT, string_data.
            ([int(1, 0), int(2, 1)].concat(), len(6, b"a")),
        ];
        for (i, (head, culprit)) in cases.into_iter().enumerate() {
            let tensor = [head.as_slice(), &culprit].concat();
            let e = err(&model_with_tensor(&tensor));
            assert_eq!(
                (e.kind, e.path.as_deref(), e.offset),
                (
                    ErrorKind::Malformed,
                    Some("onnx.graph.initializer[0]"),
                    Some(6 + head.len() as u64)
                ),
                "case {i}: {e}"
            );
        }
        // The dtype's own field, repeated unpacked, is one field.
        let tensor = [int(1, 2), int(2, 6), int(5, 5), int(5, 6)].concat();
        let proto = model_with_tensor(&tensor);
        let m = onnx::to_model(&proto, Limits::DEFAULT).unwrap();
        let TensorData::Raw(b) = &m.graph.initializers[0].data else {
            panic!()
        };
        assert_eq!(b.as_ref(), &[5, 0, 0, 0, 6, 0, 0, 0]);
    }

    /// §2.4 through §6.2: a reference attribute (`ref_attr_name`) has no value; one with
    /// `i` is Malformed at the attribute, as the manifest reader rejects `ref` with `value`,
    /// instead of being accepted with the value dropped.
    #[test]
    fn onnx_reference_attribute_with_value_rejected() {
        let proto = |attr: &[u8]| {
            let node = [len(2, b"y"), len(4, b"C"), len(5, attr)].concat();
            let graph = [len(1, &node), len(12, &len(1, b"y"))].concat();
            [int(1, 9), len(7, &graph), len(8, &int(2, 17))].concat()
        };
        let reference = [len(1, b"r"), int(20, 2), len(21, b"outer")].concat();
        let ok = proto(&reference);
        let m = onnx::to_model(&ok, Limits::DEFAULT).unwrap();
        let a = &m.graph.nodes[0].attributes[0];
        assert_eq!((a.ty, a.ref_name.as_str(), &a.value), (2, "outer", &None));
        for value in [int(3, 42), len(7, &[]), len(5, &[int(1, 0), int(2, 1)].concat())] {
            let attr = [len(1, b"r"), value, int(20, 2), len(21, b"outer")].concat();
            let bytes = proto(&attr);
            let at = bytes.windows(attr.len()).position(|w| w == attr).unwrap();
            let e = err(&bytes);
            assert_eq!(
                (e.kind, e.path.as_deref(), e.offset),
                (
                    ErrorKind::Malformed,
                    Some("onnx.graph.node[0].attribute[0]"),
                    Some(at as u64)
                ),
                "{e}"
            );
        }
    }

    /// §2.5 rule 2 in the ONNX reader: a uint8 tensor of 2^31 elements is Unsupported under
    /// the default bound, at the tensor, before its data is looked at; raised, it goes on to
    /// compare its 8 bytes with the 2^31 its dims need.
    #[test]
    fn onnx_tensor_over_max_tensor_bytes() {
        let tensor = [int(1, 1 << 31), int(2, 2), len(9, &[0; 8])].concat();
        let proto = model_with_tensor(&tensor);
        let e = onnx::read_model(&proto, Limits::DEFAULT).unwrap_err();
        assert_eq!(
            (e.kind, e.path.as_deref()),
            (ErrorKind::Unsupported, Some("onnx.graph.initializer[0]"))
        );
        assert!(e.message.contains("--max-tensor-bytes"), "{e}");
        let raised = Limits {
            max_tensor_bytes: 1 << 31,
            ..Limits::DEFAULT
        };
        let e = onnx::read_model(&proto, raised).unwrap_err();
        assert_eq!(
            (e.kind, e.path.as_deref()),
            (ErrorKind::OutOfRange, Some("onnx.graph.initializer[0]"))
        );
    }

    #[test]
    fn onnx_raw_data_length_mismatch_out_of_range() {
        let tensor = [int(1, 3), int(2, 1), len(9, &[0; 8])].concat();
        let e = err(&model_with_tensor(&tensor));
        assert_eq!(
            (e.kind, e.path.as_deref()),
            (ErrorKind::OutOfRange, Some("onnx.graph.initializer[0]"))
        );
    }

    fn external_tensor(entries: &[(&str, &str)]) -> Vec<u8> {
        let mut t = [int(1, 4), int(2, 1), len(8, b"w"), int(14, 1)].concat();
        for (k, v) in entries {
            t.extend(len(13, &[len(1, k.as_bytes()), len(2, v.as_bytes())].concat()));
        }
        model_with_tensor(&t)
    }

    #[test]
    fn onnx_external_data_unsupported_in_core() {
        let e = err(&external_tensor(&[("location", "w.bin")]));
        assert_eq!(e.kind, ErrorKind::Unsupported);
    }

    #[test]
    fn onnx_external_location_without_entries_rejected() {
        assert_eq!(err(&external_tensor(&[])).kind, ErrorKind::Malformed);
    }

    /// §6.2: an external tensor is a range of the file the resolver numbers, its bytes
    /// never read; the resolver's refusal is located at the tensor.
    #[test]
    fn onnx_external_data_is_a_range_of_the_resolvers_file() {
        let proto = external_tensor(&[("location", "w.bin"), ("offset", "64"), ("length", "16")]);
        let mut seen = Vec::new();
        let mut resolver = |r: &onnx::ExternalRef<'_>| {
            seen.push((r.location.to_string(), r.offset, r.length, r.expected));
            Ok(3)
        };
        let m = onnx::read_model(
            &proto,
            onnx::ReadOptions {
                limits: Limits::DEFAULT,
                resolver: Some(&mut resolver),
            },
        )
        .unwrap();
        let range = FileRange {
            file: 3,
            offset: 64,
            length: 16,
        };
        assert_eq!(m.graph.initializers[0].data, TensorData::File(range));
        assert_eq!(seen, [("w.bin".to_string(), 64, Some(16), 16)]);
        let mut refuse = |_: &onnx::ExternalRef<'_>| Err((ErrorKind::OutOfRange, "outside"));
        let e = onnx::read_model(
            &proto,
            onnx::ReadOptions {
                limits: Limits::DEFAULT,
                resolver: Some(&mut refuse),
            },
        )
        .unwrap_err();
        assert_eq!(
            (e.kind, e.path.as_deref(), e.message.as_ref()),
            (ErrorKind::OutOfRange, Some("onnx.graph.initializer[0]"), "outside")
        );
    }

    #[test]
    fn onnx_external_offset_not_decimal_rejected() {
        let proto = external_tensor(&[("location", "w.bin"), ("offset", "0x40")]);
        let mut resolver = |_: &onnx::ExternalRef<'_>| Ok(0);
        let e = onnx::read_model(
            &proto,
            onnx::ReadOptions {
                limits: Limits::DEFAULT,
                resolver: Some(&mut resolver),
            },
        )
        .unwrap_err();
        assert_eq!(e.kind, ErrorKind::Malformed);
    }

    #[test]
    fn onnx_training_info_unsupported() {
        let proto = [int(1, 9), len(7, &[]), len(20, &[])].concat();
        let e = err(&proto);
        assert_eq!((e.kind, e.offset), (ErrorKind::Unsupported, Some(4)));
    }

    #[test]
    fn onnx_onemodel_magic_is_not_protobuf() {
        let e = err(&file(EMPTY, &[]));
        assert_eq!((e.kind, e.offset), (ErrorKind::Malformed, Some(0)));
    }

    #[test]
    fn onnx_truncated_length_rejected() {
        let mut proto = [int(1, 9), len(7, &len(2, b"graph"))].concat();
        proto.truncate(proto.len() - 2);
        assert_eq!(err(&proto).kind, ErrorKind::Malformed);
    }

    #[test]
    fn onnx_singular_field_repeated_rejected() {
        let proto = [int(1, 9), int(1, 8), len(7, &[])].concat();
        let e = err(&proto);
        assert_eq!((e.kind, e.offset), (ErrorKind::Malformed, Some(2)));
    }

    #[test]
    fn onnx_duplicate_opset_domain_rejected() {
        let proto = [
            int(1, 9),
            len(7, &[]),
            len(8, &int(2, 17)),
            len(8, &[len(1, b"ai.onnx"), int(2, 18)].concat()),
        ]
        .concat();
        assert_eq!(err(&proto).kind, ErrorKind::Malformed);
    }

    #[test]
    fn onnx_missing_graph_rejected() {
        assert_eq!(err(&int(1, 9)).kind, ErrorKind::Malformed);
    }

    #[test]
    fn onnx_type_nesting_65_limit_exceeded() {
        // TypeProto { sequence_type { elem_type: ... } } 64 deep inside a graph input.
        let mut ty = len(1, &int(1, 1));
        for _ in 0..64 {
            ty = len(4, &len(1, &ty));
        }
        let proto = [int(1, 9), len(7, &len(11, &[len(1, b"x"), len(2, &ty)].concat()))].concat();
        assert_eq!(err(&proto).kind, ErrorKind::LimitExceeded);
    }

    /// GraphProto nested `levels` deep through If-style node attributes (type 5).
    fn nested_onnx_graphs(levels: usize) -> Vec<u8> {
        let mut g = Vec::new();
        for _ in 0..levels {
            let attr = [len(1, b"b"), len(6, &g), int(20, 5)].concat();
            let node = [len(4, b"If"), len(5, &attr)].concat();
            g = len(1, &node);
        }
        [int(1, 9), len(7, &g), len(8, &int(2, 17))].concat()
    }

    /// Runs on the ordinary test thread: decoding needs no stack per level (§3.3).
    #[test]
    fn onnx_graph_nesting_64_accepted_65_limit_exceeded() {
        assert!(onnx::to_model(&nested_onnx_graphs(63), Limits::DEFAULT).is_ok());
        let e = err(&nested_onnx_graphs(64));
        assert_eq!(e.kind, ErrorKind::LimitExceeded);
        assert!(e.path.unwrap().ends_with(".node[0].attribute[0].g"));
    }

    #[test]
    fn onnx_graph_names_resolved() {
        // A node reading an undefined value.
        let node = [len(1, b"nope"), len(2, b"y"), len(4, b"Relu")].concat();
        let proto = [int(1, 9), len(7, &len(1, &node)), len(8, &int(2, 17))].concat();
        let e = err(&proto);
        assert_eq!(e.kind, ErrorKind::Malformed);
    }
}
