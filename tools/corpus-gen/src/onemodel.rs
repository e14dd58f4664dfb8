//! `hostile-corpus/onemodel/`: one file per rule of `spec/onemodel.md`, each named for the rule
//! and carrying its exact outcome (`valid`, or the kind, the header field or manifest path,
//! and the file offset) that the tests below assert through `modelgate_core::onemodel::read`.

use crate::{Case, CorpusFile, Expected};
use modelgate_core::onemodel::assemble;
use modelgate_core::onemodel::*;

/// What a case must give.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expect {
    /// Accepted.
    Valid,
    /// Rejected with this kind, at this header field or manifest path, at this file offset.
    Reject(ErrorKind, String, u64),
}

use ErrorKind::{LimitExceeded as Limit, Malformed as Bad, OutOfRange as Range, Unsupported as Unsup};
use Expect::Valid;

fn reject(kind: ErrorKind, location: &str, offset: u64) -> Expect {
    Expect::Reject(kind, location.to_string(), offset)
}

impl Expected for Expect {
    fn expected(&self) -> &'static str {
        match self {
            Valid => "valid",
            Expect::Reject(k, _, _) => k.name(),
        }
    }
}

/// The outcome the library gives for `bytes` with the default limits (as `modelgate check`).
pub fn outcome(bytes: &[u8]) -> Expect {
    match read(bytes, Limits::DEFAULT) {
        Ok(_) => Valid,
        Err(e) => Expect::Reject(
            e.kind,
            e.field.map(String::from).or(e.path).unwrap_or_default(),
            e.offset.unwrap_or(u64::MAX),
        ),
    }
}

// ------------------------------------------------------------------------ builders

const EMPTY: &str = "{\"ir_version\":9,\"graph\":{}}";

/// A file from manifest text and data bytes.
fn file(manifest: &str, data: &[u8]) -> Vec<u8> {
    assemble(manifest.as_bytes(), data)
}

/// File offset of the first (or, with `last`, the last) `needle` in `manifest`.
fn at(manifest: &str, needle: &str) -> u64 {
    64 + manifest.find(needle).map_or(u64::MAX - 64, |i| i as u64)
}

fn at_last(manifest: &str, needle: &str) -> u64 {
    64 + manifest.rfind(needle).map_or(u64::MAX - 64, |i| i as u64)
}

fn patched(mut bytes: Vec<u8>, offset: usize, value: &[u8]) -> Vec<u8> {
    if let Some(dst) = bytes.get_mut(offset..offset + value.len()) {
        dst.copy_from_slice(value);
    }
    bytes
}

fn with_u64(offset: usize, v: u64) -> Vec<u8> {
    patched(file(EMPTY, &[0; 64]), offset, &v.to_le_bytes())
}

/// A manifest of IR version 9 and operator set 17 around this graph (`spec/onemodel.md` §2).
pub fn gm(graph: &str) -> String {
    format!("{{\"ir_version\":9,\"opsets\":[{{\"version\":17}}],\"graph\":{graph}}}")
}

fn init(tensor: &str) -> String {
    gm(&format!("{{\"initializers\":[{tensor}]}}"))
}

fn attr(attr: &str) -> String {
    gm(&format!(
        "{{\"nodes\":[{{\"op\":\"C\",\"outputs\":[\"y\"],\"attributes\":[{attr}]}}],\"outputs\":[{{\"name\":\"y\"}}]}}"
    ))
}

fn input_type(ty: &str) -> String {
    gm(&format!("{{\"inputs\":[{{\"name\":\"x\",\"type\":{ty}}}]}}"))
}

fn sequences(levels: usize) -> String {
    let mut ty = String::from("{\"kind\":\"tensor\",\"elem_type\":1}");
    for _ in 0..levels {
        ty = format!("{{\"kind\":\"sequence\",\"elem\":{ty}}}");
    }
    ty
}

fn nested_graphs(levels: usize) -> String {
    let mut g = String::from("{}");
    for _ in 0..levels {
        g = format!("{{\"nodes\":[{{\"op\":\"If\",\"attributes\":[{{\"name\":\"b\",\"type\":5,\"value\":{g}}}]}}]}}");
    }
    gm(&g)
}

/// A node of operator `op` with these inputs and outputs, nothing else (§2.2).
pub fn node(op: &str, inputs: &[&str], outputs: &[&str]) -> String {
    let q = |v: &[&str]| v.iter().map(|s| format!("\"{s}\"")).collect::<Vec<_>>().join(",");
    format!(
        "{{\"op\":\"{op}\",\"inputs\":[{}],\"outputs\":[{}]}}",
        q(inputs),
        q(outputs)
    )
}

/// A manifest whose graph has these named inputs, nodes and named outputs (§2.2, §3.1).
pub fn net(inputs: &[&str], nodes: &[String], outputs: &[&str]) -> String {
    let names = |v: &[&str]| {
        v.iter()
            .map(|s| format!("{{\"name\":\"{s}\"}}"))
            .collect::<Vec<_>>()
            .join(",")
    };
    gm(&format!(
        "{{\"inputs\":[{}],\"outputs\":[{}],\"nodes\":[{}]}}",
        names(inputs),
        names(outputs),
        nodes.join(",")
    ))
}

fn raw(dtype: u8, dims: &str, offset: u64, length: u64) -> String {
    format!("{{\"name\":\"w\",\"dtype\":{dtype},\"dims\":{dims},\"data\":{{\"offset\":{offset},\"length\":{length}}}}}")
}

fn a<'b>(name: &str, value: AttrValue<'b>) -> Attribute<'b> {
    Attribute {
        name: name.into(),
        ty: value.type_code(),
        value: Some(value),
        ..Attribute::default()
    }
}

fn t<'b>(name: &'b str, dtype: u8, dims: Vec<u64>, bytes: &'b [u8]) -> Tensor<'b> {
    Tensor {
        name: name.into(),
        dtype,
        dims,
        data: TensorData::Raw(bytes.into()),
        ..Tensor::default()
    }
}

/// A model using every attribute type, every Type kind, string, sub-byte and sparse
/// tensors, a subgraph and a function, written by the library's writer.
fn everything() -> Vec<u8> {
    let w: Vec<u8> = (0u8..64).collect();
    let w = w.as_slice();
    let ty = |kind| Type {
        denotation: String::new(),
        kind,
    };
    let tensor_ty = ty(TypeKind::Tensor {
        elem_type: 1,
        shape: Some(vec![
            Dim {
                value: DimValue::Value(2),
                denotation: String::new(),
            },
            Dim {
                value: DimValue::Param("N".into()),
                denotation: "DATA_BATCH".into(),
            },
            Dim::default(),
        ]),
    });
    let map_ty = ty(TypeKind::Map {
        key_type: 7,
        value: Box::new(ty(TypeKind::Sequence(Box::new(ty(TypeKind::Optional(Box::new(ty(
            TypeKind::SparseTensor {
                elem_type: 10,
                shape: None,
            },
        )))))))),
    });
    let sparse = SparseTensor {
        values: t("sv", 1, vec![1], &w[..4]),
        indices: t("", 7, vec![1], &w[8..16]),
        dims: vec![8],
    };
    let sub = Graph {
        name: "then".into(),
        nodes: vec![Node {
            op: "Identity".into(),
            inputs: vec!["x".into()],
            outputs: vec!["t".into()],
            ..Node::default()
        }],
        outputs: vec![TypedName {
            name: "t".into(),
            ..TypedName::default()
        }],
        ..Graph::default()
    };
    let strings = Tensor {
        name: "s".into(),
        dtype: 8,
        dims: vec![2],
        data: TensorData::Strings(vec![b"ab".to_vec(), vec![0, 0xff]]),
        ..Tensor::default()
    };
    let attrs = vec![
        a("f", AttrValue::Float(0x7fc0_0001)),
        a("i", AttrValue::Int(i64::MIN)),
        a("s", AttrValue::String(vec![0, 1, 2])),
        a("t", AttrValue::Tensor(t("at", 22, vec![3], &w[..2]))),
        a("g", AttrValue::Graph(Box::new(sub.clone()))),
        a("fs", AttrValue::Floats(vec![0x3f80_0000, 0x8000_0000, 0x7f80_0000])),
        a("is", AttrValue::Ints(vec![-1, 0, i64::MAX])),
        a("ss", AttrValue::Strings(vec![vec![], b"x".to_vec()])),
        a(
            "ts",
            AttrValue::Tensors(vec![t("a1", 15, vec![1], &w[..16]), t("a2", 26, vec![5], &w[..2])]),
        ),
        a("gs", AttrValue::Graphs(vec![sub.clone(), sub])),
        a(
            "sp",
            AttrValue::SparseTensor(Box::new(SparseTensor {
                values: t("", 1, vec![1], &w[..4]),
                indices: t("", 7, vec![1], &w[..8]),
                dims: vec![3],
            })),
        ),
        a("sps", AttrValue::SparseTensors(vec![])),
        a("tp", AttrValue::Type(map_ty.clone())),
        a("tps", AttrValue::Types(vec![map_ty, tensor_ty.clone()])),
        Attribute {
            name: "r".into(),
            ty: 2,
            ref_name: "outer".into(),
            ..Attribute::default()
        },
    ];
    let model = Model {
        ir_version: 10,
        opsets: vec![
            OperatorSet {
                domain: String::new(),
                version: 21,
            },
            OperatorSet {
                domain: "local".into(),
                version: 1,
            },
        ],
        producer_name: "modelgate-corpus-gen".into(),
        producer_version: "1".into(),
        domain: "test".into(),
        model_version: 7,
        doc: "every table".into(),
        metadata: vec![StringEntry {
            key: "k".into(),
            value: "v".into(),
        }],
        graph: Graph {
            name: "main".into(),
            initializers: vec![t("w", 1, vec![2, 2], &w[..16]), strings, t("e", 1, vec![0], &[])],
            sparse_initializers: vec![sparse],
            inputs: vec![TypedName {
                name: "x".into(),
                ty: Some(tensor_ty),
                ..TypedName::default()
            }],
            outputs: vec![TypedName {
                name: "y".into(),
                ..TypedName::default()
            }],
            nodes: vec![Node {
                op: "F".into(),
                domain: "local".into(),
                inputs: vec!["x".into(), "w".into(), "sv".into(), "".into()],
                outputs: vec!["y".into()],
                attributes: attrs,
                ..Node::default()
            }],
            ..Graph::default()
        },
        functions: vec![Function {
            name: "F".into(),
            domain: "local".into(),
            inputs: vec!["a".into()],
            outputs: vec!["b".into()],
            attribute_names: vec!["outer".into()],
            nodes: vec![Node {
                op: "Relu".into(),
                inputs: vec!["a".into()],
                outputs: vec!["b".into()],
                ..Node::default()
            }],
            opsets: vec![OperatorSet {
                domain: String::new(),
                version: 21,
            }],
            ..Function::default()
        }],
    };
    write(&model, Limits::DEFAULT).unwrap_or_default()
}

// Manifests shared by a case's bytes and its expectation.
fn m_dup_opset() -> String {
    "{\"ir_version\":9,\"opsets\":[{\"version\":1},{\"domain\":\"ai.onnx\",\"version\":2}],\"graph\":{}}".into()
}

/// 2000 operator sets and 2000 functions, the last function's node in a domain no set
/// declares (§3.1 rule 4). Checking each function's domains against a copy of the model's
/// set would cost opsets × functions (4 M set entries here, some 50 ms); resolution is
/// O(n log n). (Twice as many of each take about 12 ms, linear in the count: each empty
/// function costs a few µs of tables and resolution, more than the 10 ms hostile goal allows
/// for a 190 KB file of them.)
fn m_many_functions() -> String {
    let opsets: Vec<String> = (0..2000)
        .map(|i| format!("{{\"domain\":\"d{i}\",\"version\":1}}"))
        .collect();
    let mut functions: Vec<String> = (0..1999).map(|i| format!("{{\"name\":\"f{i}\"}}")).collect();
    functions.push(
        "{\"name\":\"last\",\"outputs\":[\"y\"],\"nodes\":[{\"op\":\"F\",\"domain\":\"nowhere\",\"outputs\":[\"y\"]}]}"
            .into(),
    );
    format!(
        "{{\"ir_version\":9,\"opsets\":[{}],\"graph\":{{}},\"functions\":[{}]}}",
        opsets.join(","),
        functions.join(",")
    )
}

/// A table list (`sparse_initializers`) of 131072 numbers: two manifest bytes per element,
/// about 300 bytes per table element, so reserving for its length up front would ask for
/// about 38 MiB for a 256 KiB file (`spec/errors.md` §2.3: nothing allocated from an unchecked size;
/// the hostile-corpus memory goal is 16 MiB above the input).
fn m_sparse_numbers() -> String {
    gm(&format!("{{\"sparse_initializers\":[{}1]}}", "1,".repeat(131_071)))
}

// Manifests of the cases added by the rule audit (one per rule of `spec/onemodel.md` that
// had no file), shared by a case's bytes and its expectation.

/// §2.5: `strings` on a fixed-size dtype.
fn m_strings_on_float() -> String {
    init("{\"name\":\"w\",\"dtype\":1,\"dims\":[1],\"strings\":[\"AAAAAA==\"]}")
}

/// §2.5: a fixed-size tensor with neither `data` nor `strings`.
fn m_data_missing() -> String {
    init("{\"name\":\"w\",\"dtype\":1,\"dims\":[1]}")
}

/// §2.5: a string tensor (dtype 8) without `strings`.
fn m_strings_missing() -> String {
    init("{\"name\":\"s\",\"dtype\":8,\"dims\":[1]}")
}

/// §2.5 data rule 1 for `length`.
fn m_length_negative() -> String {
    init(&raw(2, "[0]", 0, 0).replace("\"length\":0", "\"length\":-1"))
}

/// §2.5: a negative dtype code.
fn m_dtype_negative() -> String {
    init(&raw(1, "[]", 0, 4).replace("\"dtype\":1", "\"dtype\":-1"))
}

/// §2.6: a negative sparse dimension.
fn m_sparse_dim_negative() -> String {
    gm(
        "{\"sparse_initializers\":[{\"values\":{\"name\":\"s\",\"dtype\":1,\"dims\":[0],\"data\":{\"offset\":0,\"length\":0}},\"indices\":{\"dtype\":7,\"dims\":[0],\"data\":{\"offset\":0,\"length\":0}},\"dims\":[-4]}]}",
    )
}

/// §2.6: index values are data, not checked (index 99 and -5 in a tensor of 4 elements).
fn m_sparse_indices_unchecked() -> String {
    gm(
        "{\"sparse_initializers\":[{\"values\":{\"name\":\"s\",\"dtype\":1,\"dims\":[2],\"data\":{\"offset\":0,\"length\":8}},\"indices\":{\"dtype\":7,\"dims\":[2],\"data\":{\"offset\":64,\"length\":16}},\"dims\":[4]}],\"outputs\":[{\"name\":\"s\"}]}",
    )
}

/// The data region of [`m_sparse_indices_unchecked`]: two floats, then indices 99 and -5.
fn d_sparse_indices_unchecked() -> Vec<u8> {
    let mut d = vec![0u8; 64];
    d[..4].copy_from_slice(&1f32.to_le_bytes());
    d[4..8].copy_from_slice(&2f32.to_le_bytes());
    d.extend_from_slice(&99i64.to_le_bytes());
    d.extend_from_slice(&(-5i64).to_le_bytes());
    d
}

/// §2.4: a reference attribute of type 0.
fn m_reference_type_0() -> String {
    attr("{\"name\":\"a\",\"type\":0,\"ref\":\"r\"}")
}

/// §1.2: base64 without its padding.
fn m_base64_unpadded() -> String {
    attr("{\"name\":\"s\",\"type\":3,\"value\":\"YQ\"}")
}

/// §1.2: a float bit pattern below 0.
fn m_float_bits_negative() -> String {
    attr("{\"name\":\"f\",\"type\":1,\"value\":-1}")
}

/// §2.1: an operator set version below 0.
fn m_opset_version_negative() -> String {
    "{\"ir_version\":9,\"opsets\":[{\"version\":-1}],\"graph\":{}}".into()
}

/// §2.7: a sequence type without its required `elem`.
fn m_type_elem_missing() -> String {
    input_type("{\"kind\":\"sequence\"}")
}

/// §3.1 rule 1: a subgraph may define a name its enclosing graph defines (the inner wins).
fn m_subgraph_shadows() -> String {
    gm(
        "{\"inputs\":[{\"name\":\"x\"}],\"nodes\":[{\"op\":\"If\",\"inputs\":[\"x\"],\"outputs\":[\"y\"],\"attributes\":[{\"name\":\"then_branch\",\"type\":5,\"value\":{\"inputs\":[{\"name\":\"x\"}],\"nodes\":[{\"op\":\"Neg\",\"inputs\":[\"x\"],\"outputs\":[\"x2\"]}],\"outputs\":[{\"name\":\"x2\"}]}}]}],\"outputs\":[{\"name\":\"y\"}]}",
    )
}

/// §3.1 rule 2: a function body sees only its own inputs and node outputs, not the graph's.
fn m_function_reads_graph() -> String {
    "{\"ir_version\":9,\"opsets\":[{\"version\":17}],\"graph\":{\"inputs\":[{\"name\":\"x\"}]},\"functions\":[{\"name\":\"F\",\"outputs\":[\"y\"],\"nodes\":[{\"op\":\"Relu\",\"inputs\":[\"x\"],\"outputs\":[\"y\"]}]}]}".into()
}

/// §3.1 rule 3: a node depends on the nodes whose outputs its subgraphs read, so a
/// subgraph reading a later node's output that itself needs this node is a cycle.
fn m_cycle_through_subgraph() -> String {
    gm(
        "{\"inputs\":[{\"name\":\"x\"}],\"nodes\":[{\"op\":\"If\",\"inputs\":[\"x\"],\"outputs\":[\"a\"],\"attributes\":[{\"name\":\"g\",\"type\":5,\"value\":{\"nodes\":[{\"op\":\"Identity\",\"inputs\":[\"b\"],\"outputs\":[\"t\"]}],\"outputs\":[{\"name\":\"t\"}]}}]},{\"op\":\"Relu\",\"inputs\":[\"a\"],\"outputs\":[\"b\"]}],\"outputs\":[{\"name\":\"b\"}]}",
    )
}

/// §3.1 rule 3: the same subgraph read, without the cycle, puts the later node first.
fn m_subgraph_read_orders_nodes() -> String {
    gm(
        "{\"inputs\":[{\"name\":\"x\"}],\"nodes\":[{\"op\":\"If\",\"inputs\":[\"x\"],\"outputs\":[\"a\"],\"attributes\":[{\"name\":\"g\",\"type\":5,\"value\":{\"nodes\":[{\"op\":\"Identity\",\"inputs\":[\"b\"],\"outputs\":[\"t\"]}],\"outputs\":[{\"name\":\"t\"}]}}]},{\"op\":\"Relu\",\"inputs\":[\"x\"],\"outputs\":[\"b\"]}],\"outputs\":[{\"name\":\"a\"}]}",
    )
}

/// §3.1 rule 4: `ai.onnx` is the default domain `""`.
fn m_ai_onnx_domain() -> String {
    net(
        &["x"],
        &["{\"op\":\"Relu\",\"domain\":\"ai.onnx\",\"inputs\":[\"x\"],\"outputs\":[\"y\"]}".into()],
        &["y"],
    )
}

/// §3.1 rule 4: a function's node may use an operator set only the model declares.
fn m_function_uses_model_opset() -> String {
    "{\"ir_version\":9,\"opsets\":[{\"version\":17},{\"domain\":\"com.x\",\"version\":1}],\"graph\":{},\"functions\":[{\"name\":\"F\",\"inputs\":[\"a\"],\"outputs\":[\"b\"],\"nodes\":[{\"op\":\"G\",\"domain\":\"com.x\",\"inputs\":[\"a\"],\"outputs\":[\"b\"]}],\"opsets\":[{\"version\":17}]}]}".into()
}

/// §3.1 rule 5: two `value_info` entries for one name in one graph.
fn m_value_info_twice() -> String {
    gm("{\"inputs\":[{\"name\":\"x\"}],\"value_info\":[{\"name\":\"x\"},{\"name\":\"x\"}]}")
}

/// §1.3: two tensors at the same bytes.
fn m_tensors_share_bytes() -> String {
    gm(
        "{\"initializers\":[{\"name\":\"a\",\"dtype\":1,\"dims\":[2],\"data\":{\"offset\":0,\"length\":8}},{\"name\":\"b\",\"dtype\":7,\"dims\":[1],\"data\":{\"offset\":0,\"length\":8}}]}",
    )
}

/// §2.5 data rule 4: alignment is required only when `length` > 0.
fn m_empty_tensor_unaligned() -> String {
    init(&raw(1, "[0]", 7, 0))
}

/// §2.5: codes 27 and 28 are 6 bits per element, rounded up to whole bytes.
fn m_six_bit_tensor() -> String {
    init(&raw(27, "[3]", 0, 3))
}

/// §2.7: `elem_type` 8 (string) is allowed in a type though it has no fixed size.
fn m_elem_type_string() -> String {
    input_type("{\"kind\":\"tensor\",\"elem_type\":8,\"shape\":[]}")
}

cases! {
    expect: Expect;
    ext: "onemodel";
    check: |case| assert_eq!(outcome(&case.bytes), case.expect);
    // Valid files (§1–§4).
    minimal: file(EMPTY, &[]) => Valid;
    every_table_and_attribute_type: everything() => Valid;
    unknown_members_ignored: file("{\"ir_version\":9,\"later\":{\"x\":[1]},\"graph\":{\"later\":true}}", &[]) => Valid;
    nodes_out_of_order: file(&net(&["x"], &[node("B", &["a"], &["b"]), node("A", &["x"], &["a"])], &["b"]), &[]) => Valid;
    initializer_attaches_to_input: file(&gm("{\"inputs\":[{\"name\":\"w\"}],\"initializers\":[{\"name\":\"w\",\"dtype\":1,\"dims\":[0],\"data\":{\"offset\":0,\"length\":0}}],\"outputs\":[{\"name\":\"w\"}]}"), &[]) => Valid;
    int4_tensor_rounds_up: file(&init(&raw(22, "[3]", 0, 2)), &[0x21, 0x03]) => Valid;
    zero_dimension_any_other: file(&init(&raw(1, "[1152921504606846976,0]", 0, 0)), &[]) => Valid;
    nesting_64: file(&input_type(&sequences(62)), &[]) => Valid;
    int64_beyond_2_53: file(&attr("{\"name\":\"i\",\"type\":2,\"value\":-9007199254740993}"), &[]) => Valid;

    // Valid edge cases added by the rule audit: what a rule accepts that a reader might not.
    uncovered_data_bytes_ignored: file(EMPTY, &[0xa5; 64]) => Valid;
    tensors_share_bytes: file(&m_tensors_share_bytes(), &[0x11; 64]) => Valid;
    empty_tensor_unaligned_offset: file(&m_empty_tensor_unaligned(), &[0; 64]) => Valid;
    six_bit_tensor_rounds_up: file(&m_six_bit_tensor(), &[0xff, 0x0f, 0x3c]) => Valid;
    sparse_indices_not_checked: file(&m_sparse_indices_unchecked(), &d_sparse_indices_unchecked()) => Valid;
    type_elem_type_string: file(&m_elem_type_string(), &[]) => Valid;
    subgraph_shadows_outer_name: file(&m_subgraph_shadows(), &[]) => Valid;
    subgraph_read_orders_nodes: file(&m_subgraph_read_orders_nodes(), &[]) => Valid;
    ai_onnx_domain_is_default: file(&m_ai_onnx_domain(), &[]) => Valid;
    function_uses_model_opset: file(&m_function_uses_model_opset(), &[]) => Valid;

    // §1.1 header, in check order.
    file_shorter_than_magic: file(EMPTY, &[]).get(..5).unwrap_or_default().to_vec() => reject(Bad, "magic", 0);
    magic_wrong: patched(file(EMPTY, &[]), 1, b"X") => reject(Bad, "magic", 0);
    magic_is_onnx_protobuf: patched(file(EMPTY, &[]), 0, &[0x08, 0x09]) => reject(Bad, "magic", 0);
    header_truncated: file(EMPTY, &[]).get(..40).unwrap_or_default().to_vec() => reject(Range, "header", 40);
    format_version_2: with_u64(8, 2) => reject(Unsup, "format_version", 8);
    format_version_0: with_u64(8, 0) => reject(Unsup, "format_version", 8);
    format_version_max: with_u64(8, u64::MAX) => reject(Unsup, "format_version", 8);
    manifest_length_above_2_63: with_u64(16, 1 << 63) => reject(Range, "manifest_length", 16);
    data_offset_above_2_63: with_u64(24, u64::MAX) => reject(Range, "data_offset", 24);
    data_length_above_2_63: with_u64(32, 1 << 63) => reject(Range, "data_length", 32);
    file_length_above_2_63: with_u64(40, 1 << 63) => reject(Range, "file_length", 40);
    reserved_nonzero: patched(file(EMPTY, &[]), 63, &[1]) => reject(Bad, "reserved", 63);
    file_extended: { let mut f = file(EMPTY, &[]); f.push(0); f } => reject(Range, "file_length", 40);
    file_truncated: { let f = file(EMPTY, &[7; 64]); f.get(..f.len() - 1).unwrap_or_default().to_vec() } => reject(Range, "file_length", 40);
    manifest_length_past_end: with_u64(16, 500) => reject(Range, "manifest_length", 16);
    data_offset_not_manifest_end: with_u64(24, 192) => reject(Range, "data_offset", 24);
    data_length_short: with_u64(32, 0) => reject(Range, "data_length", 32);
    padding_nonzero: patched(file(EMPTY, &[]), 64 + EMPTY.len() + 1, &[1]) => reject(Bad, "padding", 64 + EMPTY.len() as u64 + 1);

    // §1.2 manifest JSON.
    manifest_trailing_comma: file("{\"ir_version\":9,}", &[]) => reject(Bad, "manifest", 64 + 16);
    manifest_byte_order_mark: file("\u{feff}{\"ir_version\":9,\"graph\":{}}", &[]) => reject(Bad, "manifest", 64);
    manifest_duplicate_member: file("{\"ir_version\":9,\"ir_version\":9,\"graph\":{}}", &[]) => reject(Bad, "manifest", 64 + 16);
    manifest_depth_1025: file(&format!("{{\"x\":{}{}}}", "[".repeat(1024), "]".repeat(1024)), &[]) => reject(Limit, "manifest", 64 + 5 + 1023);
    manifest_not_object: file("[]", &[]) => reject(Bad, "manifest", 64);
    manifest_empty: file("", &[]) => reject(Bad, "manifest", 64);
    graph_missing: file("{\"ir_version\":9}", &[]) => reject(Bad, "manifest.graph", 64);
    ir_version_fraction: file("{\"ir_version\":9.0,\"graph\":{}}", &[]) => reject(Bad, "manifest.ir_version", 64 + 14);
    ir_version_negative: file("{\"ir_version\":-1,\"graph\":{}}", &[]) => reject(Range, "manifest.ir_version", 64 + 14);
    ir_version_above_i64: file("{\"ir_version\":9223372036854775808,\"graph\":{}}", &[]) => reject(Range, "manifest.ir_version", 64 + 14);
    producer_name_null: file("{\"ir_version\":9,\"producer_name\":null,\"graph\":{}}", &[]) => reject(Bad, "manifest.producer_name", 64 + 32);
    opset_domain_twice: file(&m_dup_opset(), &[]) => reject(Bad, "manifest.opsets[1]", at(&m_dup_opset(), "{\"domain"));

    ir_version_exponent: file("{\"ir_version\":9e0,\"graph\":{}}", &[]) => reject(Bad, "manifest.ir_version", 64 + 14);
    opset_version_negative: file(&m_opset_version_negative(), &[])
        => reject(Range, "manifest.opsets[0].version", at(&m_opset_version_negative(), "-1"));

    // §2.4 attributes.
    float_bits_above_u32: file(&attr("{\"name\":\"f\",\"type\":1,\"value\":4294967296}"), &[])
        => reject(Range, "manifest.graph.nodes[0].attributes[0].value", at(&attr("{\"name\":\"f\",\"type\":1,\"value\":4294967296}"), "4294967296"));
    float_as_decimal: file(&attr("{\"name\":\"f\",\"type\":1,\"value\":1.5}"), &[])
        => reject(Bad, "manifest.graph.nodes[0].attributes[0].value", at(&attr("{\"name\":\"f\",\"type\":1,\"value\":1.5}"), "1.5"));
    base64_non_canonical: file(&attr("{\"name\":\"s\",\"type\":3,\"value\":\"AP9=\"}"), &[])
        => reject(Bad, "manifest.graph.nodes[0].attributes[0].value", at(&attr("{\"name\":\"s\",\"type\":3,\"value\":\"AP9=\"}"), "\"AP9="));
    base64_url_alphabet: file(&attr("{\"name\":\"s\",\"type\":8,\"value\":[\"-_8=\"]}"), &[])
        => reject(Bad, "manifest.graph.nodes[0].attributes[0].value[0]", at(&attr("{\"name\":\"s\",\"type\":8,\"value\":[\"-_8=\"]}"), "\"-_"));
    attribute_type_15: file(&attr("{\"name\":\"a\",\"type\":15,\"value\":1}"), &[])
        => reject(Unsup, "manifest.graph.nodes[0].attributes[0].type", at(&attr("{\"name\":\"a\",\"type\":15,\"value\":1}"), "15"));
    attribute_type_negative: file(&attr("{\"name\":\"a\",\"type\":-2,\"value\":1}"), &[])
        => reject(Unsup, "manifest.graph.nodes[0].attributes[0].type", at(&attr("{\"name\":\"a\",\"type\":-2,\"value\":1}"), "-2"));
    attribute_type_2_64: file(&attr("{\"name\":\"a\",\"type\":18446744073709551616,\"value\":1}"), &[])
        => reject(Unsup, "manifest.graph.nodes[0].attributes[0].type", at(&attr("{\"name\":\"a\",\"type\":18446744073709551616,\"value\":1}"), "1844"));
    attribute_type_0: file(&attr("{\"name\":\"a\",\"type\":0,\"value\":1}"), &[])
        => reject(Bad, "manifest.graph.nodes[0].attributes[0].type", at(&attr("{\"name\":\"a\",\"type\":0,\"value\":1}"), "0,\"value"));
    attribute_value_missing: file(&attr("{\"name\":\"a\",\"type\":2}"), &[])
        => reject(Bad, "manifest.graph.nodes[0].attributes[0].value", at(&attr("{\"name\":\"a\",\"type\":2}"), "{\"name\":\"a\""));
    reference_with_value: file(&attr("{\"name\":\"a\",\"type\":2,\"ref\":\"r\",\"value\":1}"), &[])
        => reject(Bad, "manifest.graph.nodes[0].attributes[0].value", at(&attr("{\"name\":\"a\",\"type\":2,\"ref\":\"r\",\"value\":1}"), "1}]"));
    ints_with_string: file(&attr("{\"name\":\"a\",\"type\":7,\"value\":[1,\"2\"]}"), &[])
        => reject(Bad, "manifest.graph.nodes[0].attributes[0].value[1]", at(&attr("{\"name\":\"a\",\"type\":7,\"value\":[1,\"2\"]}"), "\"2\""));

    float_bits_negative: file(&m_float_bits_negative(), &[])
        => reject(Range, "manifest.graph.nodes[0].attributes[0].value", at(&m_float_bits_negative(), "-1"));
    base64_unpadded: file(&m_base64_unpadded(), &[])
        => reject(Bad, "manifest.graph.nodes[0].attributes[0].value", at(&m_base64_unpadded(), "\"YQ"));
    reference_type_0: file(&m_reference_type_0(), &[])
        => reject(Bad, "manifest.graph.nodes[0].attributes[0].type", at(&m_reference_type_0(), "0,\"ref"));

    // §2.5 tensors.
    sparse_initializers_131072_numbers: file(&m_sparse_numbers(), &[])
        => reject(Bad, "manifest.graph.sparse_initializers[0]", at(&m_sparse_numbers(), "[1,") + 1);
    dtype_0: file(&init(&raw(0, "[]", 0, 0)), &[]) => reject(Unsup, "manifest.graph.initializers[0].dtype", at(&init(&raw(0, "[]", 0, 0)), "0,\"dims"));
    dtype_29: file(&init(&raw(29, "[]", 0, 0)), &[]) => reject(Unsup, "manifest.graph.initializers[0].dtype", at(&init(&raw(29, "[]", 0, 0)), "29"));
    dtype_256: file(&init("{\"dtype\":257,\"dims\":[],\"data\":{\"offset\":0,\"length\":0}}"), &[])
        => reject(Unsup, "manifest.graph.initializers[0].dtype", at(&init("{\"dtype\":257,\"dims\":[],\"data\":{\"offset\":0,\"length\":0}}"), "257"));
    dtype_2_63: file(&init("{\"dtype\":9223372036854775808,\"dims\":[],\"data\":{\"offset\":0,\"length\":0}}"), &[])
        => reject(Unsup, "manifest.graph.initializers[0].dtype", at(&init("{\"dtype\":9223372036854775808,\"dims\":[],\"data\":{\"offset\":0,\"length\":0}}"), "9223"));
    dim_negative: file(&init(&raw(1, "[2,-1]", 0, 0)), &[]) => reject(Range, "manifest.graph.initializers[0].dims[1]", at(&init(&raw(1, "[2,-1]", 0, 0)), "-1"));
    element_count_2_60: file(&init(&raw(2, "[1073741824,1073741824]", 0, 0)), &[])
        => reject(Limit, "manifest.graph.initializers[0].dims", at(&init(&raw(2, "[1073741824,1073741824]", 0, 0)), "[1073"));
    element_count_overflows_u64: file(&init(&raw(2, "[4294967296,4294967296,4294967296]", 0, 0)), &[])
        => reject(Limit, "manifest.graph.initializers[0].dims", at(&init(&raw(2, "[4294967296,4294967296,4294967296]", 0, 0)), "[4294"));
    sparse_dims_count_2_60: file(&gm("{\"sparse_initializers\":[{\"values\":{\"name\":\"s\",\"dtype\":1,\"dims\":[0],\"data\":{\"offset\":0,\"length\":0}},\"indices\":{\"dtype\":7,\"dims\":[0],\"data\":{\"offset\":0,\"length\":0}},\"dims\":[1152921504606846976]}]}"), &[])
        => reject(Limit, "manifest.graph.sparse_initializers[0].dims", at(&gm("{\"sparse_initializers\":[{\"values\":{\"name\":\"s\",\"dtype\":1,\"dims\":[0],\"data\":{\"offset\":0,\"length\":0}},\"indices\":{\"dtype\":7,\"dims\":[0],\"data\":{\"offset\":0,\"length\":0}},\"dims\":[1152921504606846976]}]}"), "[1152"));
    attribute_tensor_count_2_60: file(&attr("{\"name\":\"t\",\"type\":4,\"value\":{\"dtype\":9,\"dims\":[1152921504606846976],\"data\":{\"offset\":0,\"length\":0}}}"), &[])
        => reject(Limit, "manifest.graph.nodes[0].attributes[0].value.dims", at(&attr("{\"name\":\"t\",\"type\":4,\"value\":{\"dtype\":9,\"dims\":[1152921504606846976],\"data\":{\"offset\":0,\"length\":0}}}"), "[1152"));
    tensor_over_2_31_bytes: file(&init(&raw(1, "[536870912]", 0, 2147483648)), &[])
        => reject(Unsup, "manifest.graph.initializers[0].data", at(&init(&raw(1, "[536870912]", 0, 2147483648)), "{\"offset"));
    tensor_int4_over_2_31_bytes: file(&init(&raw(22, "[4294967296]", 0, 2147483648)), &[])
        => reject(Unsup, "manifest.graph.initializers[0].data", at(&init(&raw(22, "[4294967296]", 0, 2147483648)), "{\"offset"));
    length_not_dtype_times_dims: file(&init(&raw(1, "[3]", 0, 16)), &[0; 16])
        => reject(Range, "manifest.graph.initializers[0].data.length", at(&init(&raw(1, "[3]", 0, 16)), "16}"));
    offset_not_multiple_of_64: file(&init(&raw(2, "[1]", 1, 1)), &[0; 64])
        => reject(Range, "manifest.graph.initializers[0].data.offset", at(&init(&raw(2, "[1]", 1, 1)), "1,\"length"));
    range_past_data_region: file(&init(&raw(2, "[65]", 0, 65)), &[0; 64])
        => reject(Range, "manifest.graph.initializers[0].data.offset", at(&init(&raw(2, "[65]", 0, 65)), "0,\"length"));
    range_overflows_u64: file(&init(&raw(2, "[64]", 9223372036854775744, 64)), &[0; 64])
        => reject(Range, "manifest.graph.initializers[0].data.offset", at(&init(&raw(2, "[64]", 9223372036854775744, 64)), "9223"));
    offset_negative: file(&init(&raw(2, "[0]", 0, 0).replace("\"offset\":0", "\"offset\":-64")), &[])
        => reject(Range, "manifest.graph.initializers[0].data.offset", at(&init(&raw(2, "[0]", 0, 0).replace("\"offset\":0", "\"offset\":-64")), "-64"));
    string_count_mismatch: file(&init("{\"dtype\":8,\"dims\":[2],\"strings\":[\"YQ==\"]}"), &[])
        => reject(Range, "manifest.graph.initializers[0].strings", at(&init("{\"dtype\":8,\"dims\":[2],\"strings\":[\"YQ==\"]}"), "[\"YQ"));
    string_tensor_with_data: file(&init(&raw(8, "[]", 0, 0)), &[])
        => reject(Bad, "manifest.graph.initializers[0].data", at(&init(&raw(8, "[]", 0, 0)), "{\"offset"));
    sparse_indices_int32: file(&gm("{\"sparse_initializers\":[{\"values\":{\"name\":\"s\",\"dtype\":1,\"dims\":[0],\"data\":{\"offset\":0,\"length\":0}},\"indices\":{\"dtype\":6,\"dims\":[0],\"data\":{\"offset\":0,\"length\":0}},\"dims\":[4]}]}"), &[])
        => reject(Bad, "manifest.graph.sparse_initializers[0].indices.dtype", at(&gm("{\"sparse_initializers\":[{\"values\":{\"name\":\"s\",\"dtype\":1,\"dims\":[0],\"data\":{\"offset\":0,\"length\":0}},\"indices\":{\"dtype\":6,\"dims\":[0],\"data\":{\"offset\":0,\"length\":0}},\"dims\":[4]}]}"), "6,"));

    dtype_negative: file(&m_dtype_negative(), &[])
        => reject(Unsup, "manifest.graph.initializers[0].dtype", at(&m_dtype_negative(), "-1"));
    length_negative: file(&m_length_negative(), &[])
        => reject(Range, "manifest.graph.initializers[0].data.length", at(&m_length_negative(), "-1"));
    strings_on_float_tensor: file(&m_strings_on_float(), &[])
        => reject(Bad, "manifest.graph.initializers[0].strings", at(&m_strings_on_float(), "[\"AAAA"));
    tensor_data_missing: file(&m_data_missing(), &[])
        => reject(Bad, "manifest.graph.initializers[0].data", at(&m_data_missing(), "{\"name\":\"w\""));
    string_tensor_strings_missing: file(&m_strings_missing(), &[])
        => reject(Bad, "manifest.graph.initializers[0].strings", at(&m_strings_missing(), "{\"name\":\"s\""));
    sparse_dim_negative: file(&m_sparse_dim_negative(), &[])
        => reject(Range, "manifest.graph.sparse_initializers[0].dims[0]", at(&m_sparse_dim_negative(), "-4"));

    // §2.7 types and §3.2 nesting.
    type_kind_unknown: file(&input_type("{\"kind\":\"tuple\"}"), &[])
        => reject(Unsup, "manifest.graph.inputs[0].type.kind", at(&input_type("{\"kind\":\"tuple\"}"), "\"tuple"));
    type_elem_type_unknown: file(&input_type("{\"kind\":\"tensor\",\"elem_type\":99}"), &[])
        => reject(Unsup, "manifest.graph.inputs[0].type.elem_type", at(&input_type("{\"kind\":\"tensor\",\"elem_type\":99}"), "99"));
    type_elem_type_2_63: file(&input_type("{\"kind\":\"tensor\",\"elem_type\":9223372036854775808}"), &[])
        => reject(Unsup, "manifest.graph.inputs[0].type.elem_type", at(&input_type("{\"kind\":\"tensor\",\"elem_type\":9223372036854775808}"), "9223"));
    map_key_type_2_63: file(&input_type("{\"kind\":\"map\",\"key_type\":9223372036854775808,\"value\":{\"kind\":\"tensor\"}}"), &[])
        => reject(Unsup, "manifest.graph.inputs[0].type.key_type", at(&input_type("{\"kind\":\"map\",\"key_type\":9223372036854775808,\"value\":{\"kind\":\"tensor\"}}"), "9223"));
    map_key_type_unknown: file(&input_type("{\"kind\":\"map\",\"key_type\":30,\"value\":{\"kind\":\"tensor\"}}"), &[])
        => reject(Unsup, "manifest.graph.inputs[0].type.key_type", at(&input_type("{\"kind\":\"map\",\"key_type\":30,\"value\":{\"kind\":\"tensor\"}}"), "30"));
    dim_value_and_param: file(&input_type("{\"kind\":\"tensor\",\"shape\":[{\"value\":1,\"param\":\"N\"}]}"), &[])
        => reject(Bad, "manifest.graph.inputs[0].type.shape[0].param", at(&input_type("{\"kind\":\"tensor\",\"shape\":[{\"value\":1,\"param\":\"N\"}]}"), "\"N\""));
    dim_value_negative: file(&input_type("{\"kind\":\"tensor\",\"shape\":[{\"value\":-3}]}"), &[])
        => reject(Range, "manifest.graph.inputs[0].type.shape[0].value", at(&input_type("{\"kind\":\"tensor\",\"shape\":[{\"value\":-3}]}"), "-3"));
    type_nesting_65: file(&input_type(&sequences(63)), &[])
        => reject(Limit, &format!("manifest.graph.inputs[0].type{}", ".elem".repeat(63)), at(&input_type(&sequences(63)), "{\"kind\":\"tensor"));
    graph_nesting_65: file(&nested_graphs(64), &[])
        => reject(Limit, &format!("manifest.graph{}", ".nodes[0].attributes[0].value".repeat(64)), at_last(&nested_graphs(64), "{}"));
    type_in_deep_graph_65: file(&nested_graphs(63).replacen("{}", "{\"inputs\":[{\"name\":\"q\",\"type\":{\"kind\":\"tensor\"}}]}", 1), &[])
        => reject(Limit, &format!("manifest.graph{}.inputs[0].type", ".nodes[0].attributes[0].value".repeat(63)), at(&nested_graphs(63).replacen("{}", "{\"inputs\":[{\"name\":\"q\",\"type\":{\"kind\":\"tensor\"}}]}", 1), "{\"kind\":\"tensor"));
    type_attribute_nesting_65: file(&attr(&format!("{{\"name\":\"t\",\"type\":13,\"value\":{}}}", sequences(63))), &[])
        => reject(Limit, &format!("manifest.graph.nodes[0].attributes[0].value{}", ".elem".repeat(63)), at(&attr(&format!("{{\"name\":\"t\",\"type\":13,\"value\":{}}}", sequences(63))), "{\"kind\":\"tensor"));

    type_elem_missing: file(&m_type_elem_missing(), &[])
        => reject(Bad, "manifest.graph.inputs[0].type.elem", at(&m_type_elem_missing(), "{\"kind\":\"sequence"));

    // §3.1 names.
    name_defined_twice: file(&net(&["x"], &[node("Relu", &["x"], &["x"])], &["x"]), &[])
        => reject(Bad, "manifest.graph.nodes[0].outputs[0]", at(&net(&["x"], &[node("Relu", &["x"], &["x"])], &["x"]), "\"x\"]}"));
    two_inputs_same_name: file(&net(&["x", "x"], &[], &[]), &[])
        => reject(Bad, "manifest.graph.inputs[1].name", at_last(&net(&["x", "x"], &[], &[]), "\"x\""));
    undefined_node_input: file(&net(&["x"], &[node("Add", &["x", "z"], &["y"])], &["y"]), &[])
        => reject(Bad, "manifest.graph.nodes[0].inputs[1]", at(&net(&["x"], &[node("Add", &["x", "z"], &["y"])], &["y"]), "\"z\""));
    undefined_graph_output: file(&net(&["x"], &[], &["q"]), &[])
        => reject(Bad, "manifest.graph.outputs[0].name", at(&net(&["x"], &[], &["q"]), "\"q\""));
    cycle: file(&net(&["x"], &[node("A", &["x", "b"], &["a"]), node("B", &["a"], &["b"])], &["b"]), &[])
        => reject(Bad, "manifest.graph.nodes[0]", at(&net(&["x"], &[node("A", &["x", "b"], &["a"]), node("B", &["a"], &["b"])], &["b"]), "{\"op\":\"A\""));
    self_loop: file(&net(&[], &[node("A", &["a"], &["a"])], &["a"]), &[])
        => reject(Bad, "manifest.graph.nodes[0]", at(&net(&[], &[node("A", &["a"], &["a"])], &["a"]), "{\"op\":\"A\""));
    unknown_opset_domain: file(&net(&["x"], &["{\"op\":\"F\",\"domain\":\"com.x\",\"inputs\":[\"x\"],\"outputs\":[\"y\"]}".into()], &["y"]), &[])
        => reject(Bad, "manifest.graph.nodes[0].domain", at(&net(&["x"], &["{\"op\":\"F\",\"domain\":\"com.x\",\"inputs\":[\"x\"],\"outputs\":[\"y\"]}".into()], &["y"]), "\"com.x\""));
    value_info_undefined: file(&gm("{\"value_info\":[{\"name\":\"v\"}]}"), &[])
        => reject(Bad, "manifest.graph.value_info[0].name", at(&gm("{\"value_info\":[{\"name\":\"v\"}]}"), "\"v\""));
    opsets_2000_functions_2000: file(&m_many_functions(), &[])
        => reject(Bad, "manifest.functions[1999].nodes[0].domain", at(&m_many_functions(), "\"nowhere\""));
    function_duplicate: file("{\"ir_version\":9,\"graph\":{},\"functions\":[{\"name\":\"F\"},{\"name\":\"F\"}]}", &[])
        => reject(Bad, "manifest.functions[1]", 64 + 53);
    function_reads_graph_value: file(&m_function_reads_graph(), &[])
        => reject(Bad, "manifest.functions[0].nodes[0].inputs[0]", at_last(&m_function_reads_graph(), "\"x\""));
    cycle_through_subgraph: file(&m_cycle_through_subgraph(), &[])
        => reject(Bad, "manifest.graph.nodes[0]", at(&m_cycle_through_subgraph(), "{\"op\":\"If\""));
    value_info_twice: file(&m_value_info_twice(), &[])
        => reject(Bad, "manifest.graph.value_info[1].name", at_last(&m_value_info_twice(), "\"x\""));
}

/// Every OneModel corpus file.
pub fn files() -> Vec<CorpusFile> {
    let mut files: Vec<CorpusFile> = cases().iter().map(|c| c.file("onemodel")).collect();
    files.extend(onnx_cases().iter().map(|c| c.file("onemodel")));
    files
}

// ------------------------------------------------------------------------ ONNX (§6)

/// Protobuf fields for hand-built ONNX files (`spec/onemodel.md` §6).
pub mod pb {
    use modelgate_core::onnx::wire::{put_key, put_len, put_varint};

    /// A length-delimited field `number` holding `bytes`.
    pub fn len(number: u32, bytes: &[u8]) -> Vec<u8> {
        let mut v = Vec::new();
        put_len(&mut v, number, bytes);
        v
    }

    /// A varint field `number` holding `value`.
    pub fn int(number: u32, value: u64) -> Vec<u8> {
        let mut v = Vec::new();
        put_key(&mut v, number, 0);
        put_varint(&mut v, value);
        v
    }

    /// ModelProto { ir_version 9, opset_import { version 17 }, graph }.
    pub fn model(graph: &[u8]) -> Vec<u8> {
        [int(1, 9), len(7, graph), len(8, &int(2, 17))].concat()
    }

    /// A graph holding one initializer.
    pub fn with_tensor(tensor: &[u8]) -> Vec<u8> {
        model(&len(5, tensor))
    }
}

/// The outcome of the ONNX reader (`modelgate check FILE.onnx` without external data).
pub fn onnx_outcome(bytes: &[u8]) -> Expect {
    match modelgate_core::onnx::to_model(bytes, Limits::DEFAULT) {
        Ok(_) => Valid,
        Err(e) => Expect::Reject(e.kind, e.path.unwrap_or_default(), e.offset.unwrap_or(u64::MAX)),
    }
}

/// A model whose graph input's type nests `levels` sequences (§3.2: 64 is one too many).
pub fn nested_onnx_types(levels: usize) -> Vec<u8> {
    let mut ty = pb::len(1, &pb::int(1, 1));
    for _ in 0..levels {
        ty = pb::len(4, &pb::len(1, &ty));
    }
    pb::model(&pb::len(11, &[pb::len(1, b"x"), pb::len(2, &ty)].concat()))
}

/// Hostile and valid `.onnx` files for the protobuf reader (§6), with exact outcomes.
pub fn onnx_cases() -> Vec<Case<Expect>> {
    use pb::{int, len, model, with_tensor};
    let case = |name, bytes: Vec<u8>, expect| Case {
        name,
        ext: "onnx",
        bytes,
        expect,
    };
    let node = |inputs: &[&str]| {
        let mut n = Vec::new();
        for i in inputs {
            n.extend(len(1, i.as_bytes()));
        }
        n.extend(len(2, b"y"));
        n.extend(len(4, b"Relu"));
        n
    };
    let everything_onnx = read(&everything(), Limits::DEFAULT)
        .ok()
        .and_then(|m| modelgate_core::onnx::write_model(&m).ok())
        .unwrap_or_default();
    vec![
        case("minimal", model(&[]), Valid),
        case("every_table_and_attribute_type", everything_onnx, Valid),
        case(
            "typed_float_data",
            with_tensor(&[int(1, 1), int(2, 1), len(4, &1f32.to_le_bytes())].concat()),
            Valid,
        ),
        case("onemodel_magic_wire_type_7", file(EMPTY, &[]), reject(Bad, "onnx", 0)),
        case("wire_type_6", vec![0x0e, 0], reject(Bad, "onnx", 0)),
        case("group_wire_type", vec![0x0b, 0x0c], reject(Bad, "onnx", 0)),
        case(
            "varint_11_bytes",
            [vec![0x08], vec![0xff; 10], vec![0x01]].concat(),
            reject(Bad, "onnx", 10),
        ),
        case("length_past_end", vec![0x3a, 0x10, 0x00], reject(Bad, "onnx", 0)),
        case(
            "singular_field_twice",
            [int(1, 9), int(1, 9), len(7, &[])].concat(),
            reject(Bad, "onnx", 2),
        ),
        case(
            "string_not_utf8",
            [int(1, 9), len(2, &[0xc0, 0xaf]), len(7, &[])].concat(),
            reject(Bad, "onnx", 4),
        ),
        case("graph_missing", int(1, 9), reject(Bad, "onnx", 0)),
        case(
            "node_input_undefined",
            model(&len(1, &node(&["nope"]))),
            reject(Bad, "manifest.graph.nodes[0].inputs[0]", u64::MAX),
        ),
        case(
            "training_info",
            [int(1, 9), len(7, &[]), len(20, &[])].concat(),
            reject(Unsup, "onnx", 4),
        ),
        case(
            "dtype_99",
            with_tensor(&[int(2, 99)].concat()),
            reject(Unsup, "onnx.graph.initializer[0]", 6),
        ),
        case(
            "dtype_2_40",
            with_tensor(&[int(2, 1 << 40)].concat()),
            reject(Unsup, "onnx.graph.initializer[0]", 6),
        ),
        case(
            "elem_type_2_40",
            model(&len(11, &[len(1, b"x"), len(2, &len(1, &int(1, 1 << 40)))].concat())),
            reject(Unsup, "onnx.graph.input[0].type", 14),
        ),
        case(
            "float_data_and_int64_data",
            with_tensor(&[int(1, 1), int(2, 1), len(4, &1f32.to_le_bytes()), int(7, 7)].concat()),
            reject(Bad, "onnx.graph.initializer[0]", 6 + 10),
        ),
        case(
            "int64_data_for_float",
            with_tensor(&[int(1, 0), int(2, 1), len(7, &[7, 8])].concat()),
            reject(Bad, "onnx.graph.initializer[0]", 6 + 4),
        ),
        case(
            "int32_data_and_double_data",
            with_tensor(&[int(1, 1), int(2, 6), int(5, 5), len(10, &[0; 8])].concat()),
            reject(Bad, "onnx.graph.initializer[0]", 6 + 6),
        ),
        case(
            "reference_with_value",
            model(
                &[
                    len(
                        1,
                        &[
                            len(2, b"y"),
                            len(4, b"C"),
                            len(5, &[len(1, b"r"), int(3, 42), int(20, 2), len(21, b"outer")].concat()),
                        ]
                        .concat(),
                    ),
                    len(12, &len(1, b"y")),
                ]
                .concat(),
            ),
            reject(Bad, "onnx.graph.node[0].attribute[0]", 14),
        ),
        case(
            "tensor_segment",
            with_tensor(&len(3, &[])),
            reject(Unsup, "onnx.graph.initializer[0]", 6),
        ),
        case(
            "raw_data_length",
            with_tensor(&[int(1, 3), int(2, 1), len(9, &[0; 8])].concat()),
            reject(Range, "onnx.graph.initializer[0]", 6),
        ),
        case(
            "int32_data_uint8_300",
            with_tensor(&[int(1, 1), int(2, 2), int(5, 300)].concat()),
            reject(Range, "onnx.graph.initializer[0]", 6),
        ),
        case(
            "negative_dim",
            with_tensor(&[int(1, u64::MAX), int(2, 1)].concat()),
            reject(Range, "onnx.graph.initializer[0]", 6),
        ),
        case(
            "element_count_2_60",
            with_tensor(&[int(1, 1 << 30), int(1, 1 << 30), int(2, 1)].concat()),
            reject(Limit, "onnx.graph.initializer[0]", 6),
        ),
        // Rules of §6 that had no file (rule audit).
        case("field_number_0", vec![0x00, 0x00], reject(Bad, "onnx", 0)),
        case(
            "known_field_wrong_wire_type",
            [len(1, &[9]), len(7, &[])].concat(),
            reject(Bad, "onnx", 0),
        ),
        case("ir_version_missing", len(7, &[]), reject(Bad, "onnx", 0)),
        // §2.1 and §2.8 are checked once the model is read, located at the offending field.
        case(
            "opset_domain_twice",
            [
                int(1, 9),
                len(7, &[]),
                len(8, &int(2, 17)),
                len(8, &[len(1, b"ai.onnx"), int(2, 18)].concat()),
            ]
            .concat(),
            reject(Bad, "onnx.opset_import[1]", 8),
        ),
        case(
            "function_duplicate",
            [
                int(1, 9),
                len(7, &[]),
                len(8, &int(2, 17)),
                len(25, &[len(1, b"f"), len(10, b"d")].concat()),
                len(25, &[len(1, b"f"), len(10, b"d")].concat()),
            ]
            .concat(),
            reject(Bad, "onnx.functions[1]", 17),
        ),
        case(
            "function_opset_domain_twice",
            [
                int(1, 9),
                len(7, &[]),
                len(8, &int(2, 17)),
                len(25, &[len(1, b"f"), len(9, &int(2, 1)), len(9, &int(2, 2))].concat()),
            ]
            .concat(),
            reject(Bad, "onnx.functions[0]", 8),
        ),
        case(
            "quantization_annotation",
            model(&len(14, &[])),
            reject(Unsup, "onnx.graph", 4),
        ),
        case(
            "device_configurations",
            model(&len(1, &[node(&[]), len(10, &[])].concat())),
            reject(Unsup, "onnx.graph.node[0]", 15),
        ),
        case(
            "attribute_type_absent",
            model(
                &[
                    len(
                        1,
                        &[len(2, b"y"), len(4, b"C"), len(5, &[len(1, b"a"), int(3, 1)].concat())].concat(),
                    ),
                    len(12, &len(1, b"y")),
                ]
                .concat(),
            ),
            reject(Bad, "onnx.graph.node[0].attribute[0]", 14),
        ),
        case(
            "attribute_value_of_other_type",
            model(
                &[
                    len(
                        1,
                        &[
                            len(2, b"y"),
                            len(4, b"C"),
                            len(5, &[len(1, b"a"), len(4, b"s"), int(20, 2)].concat()),
                        ]
                        .concat(),
                    ),
                    len(12, &len(1, b"y")),
                ]
                .concat(),
            ),
            reject(Bad, "onnx.graph.node[0].attribute[0]", 14),
        ),
        case(
            "type_opaque",
            model(&len(11, &[len(1, b"x"), len(2, &len(7, &[]))].concat())),
            reject(Unsup, "onnx.graph.input[0].type", 11),
        ),
        case(
            "type_without_kind",
            model(&len(11, &[len(1, b"x"), len(2, &len(6, b"IMAGE"))].concat())),
            reject(Unsup, "onnx.graph.input[0].type", 11),
        ),
        case(
            "type_two_kinds",
            model(&len(
                11,
                &[
                    len(1, b"x"),
                    len(2, &[len(1, &int(1, 1)), len(4, &len(1, &len(1, &int(1, 1))))].concat()),
                ]
                .concat(),
            )),
            reject(Bad, "onnx.graph.input[0].type", 15),
        ),
        case(
            "data_location_2",
            with_tensor(&[int(1, 0), int(2, 1), int(14, 2)].concat()),
            reject(Unsup, "onnx.graph.initializer[0]", 11),
        ),
        case(
            "uint64_data_uint32_above_2_32",
            with_tensor(&[int(1, 1), int(2, 12), int(11, 1 << 32)].concat()),
            reject(Range, "onnx.graph.initializer[0]", 6),
        ),
        case(
            "type_nesting_65",
            nested_onnx_types(64),
            reject(
                Limit,
                &format!("onnx.graph.input[0].type{}", ".sequence_type".repeat(63)),
                332,
            ),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_least_64_cases_and_8_of_each_kind() {
        let all = cases();
        assert!(all.len() >= 64, "{}", all.len());
        for kind in [Bad, Range, Unsup, Limit] {
            let n = all
                .iter()
                .filter(|c| matches!(&c.expect, Expect::Reject(k, _, _) if *k == kind))
                .count();
            assert!(n >= 8, "{} has {n}", kind.name());
        }
    }

    #[test]
    fn onnx_cases_give_their_outcomes() {
        for c in onnx_cases() {
            assert_eq!(onnx_outcome(&c.bytes), c.expect, "{}", c.name);
        }
    }

    #[test]
    fn everything_round_trips_bit_for_bit() {
        let bytes = everything();
        let model = read(&bytes, Limits::DEFAULT).unwrap();
        assert_eq!(write(&model, Limits::DEFAULT).unwrap(), bytes);
    }
}
