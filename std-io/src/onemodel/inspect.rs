//! What `modelgate inspect` says of a OneModel or ONNX model (`spec/onemodel.md` §7): the
//! file's framing (the OneModel header, or the ONNX file's length), the producer and
//! operator sets, the graph's inputs and outputs (name, element type, shape with symbolic
//! dimensions), the nodes by operator (the ten most frequent), the initializers' count and
//! bytes, the ten largest, and the external data files. As text, or as one canonical JSON
//! document. The model is the one the check reads: a OneModel file from its head, ONNX with
//! its external references checked; no tensor byte is read.

use super::external::ExternalFile;
use modelgate_core::json::Writer;
use modelgate_core::onemodel::{AttrValue, DimValue, Graph, Tensor, TypeKind, TypedName};
use modelgate_core::onemodel::{Header, Model, dtype_name};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// How many operators and tensors the lists name at most.
const TOP: usize = 10;

/// What the file is besides its model.
pub(crate) enum Framing<'f> {
    /// A OneModel file: its header (§1.1).
    OneModel(&'f Header),
    /// An ONNX file of this many bytes and the external data files it names (§6.2).
    Onnx(u64, &'f [ExternalFile]),
}

/// The description of `model` in `framing`: text, or canonical JSON when `json` is set.
pub(crate) fn describe(model: &Model<'_>, framing: &Framing<'_>, json: bool) -> String {
    let facts = Facts::of(model);
    if json {
        facts.json(model, framing)
    } else {
        facts.text(model, framing)
    }
}

/// What the description counts.
struct Facts<'m> {
    /// Nodes in the graph and its subgraphs.
    nodes: u64,
    /// Nodes by (domain, `ai.onnx` folded into `""`, and operator), most frequent first,
    /// then by domain and operator.
    ops: Vec<((&'m str, &'m str), u64)>,
    /// Initializers and sparse initializers of the graph.
    initializers: u64,
    /// Their bytes (fixed-size data; string tensors count nothing).
    initializer_bytes: u64,
    /// The largest initializers, largest first, then by name.
    largest: Vec<(&'m Tensor<'m>, u64)>,
}

impl<'m> Facts<'m> {
    fn of(model: &'m Model<'m>) -> Self {
        let mut ops: BTreeMap<(&str, &str), u64> = BTreeMap::new();
        let mut nodes = 0u64;
        // The graph and its subgraphs, from a heap stack (`spec/onemodel.md` §3.3).
        let mut graphs: Vec<&Graph<'_>> = vec![&model.graph];
        while let Some(g) = graphs.pop() {
            for n in &g.nodes {
                nodes += 1;
                let domain = modelgate_core::onemodel::manifest_domain(&n.domain);
                *ops.entry((domain, n.op.as_ref())).or_default() += 1;
                for a in &n.attributes {
                    match &a.value {
                        Some(AttrValue::Graph(g)) => graphs.push(g),
                        Some(AttrValue::Graphs(gs)) => graphs.extend(gs.iter()),
                        _ => {}
                    }
                }
            }
        }
        let mut ops: Vec<_> = ops.into_iter().collect();
        ops.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        ops.truncate(TOP);
        let g = &model.graph;
        let bytes = |t: &Tensor<'_>| t.data.byte_length().unwrap_or(0);
        let mut largest: Vec<(&Tensor<'_>, u64)> = g.initializers.iter().map(|t| (t, bytes(t))).collect();
        largest.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.name.cmp(&b.0.name)));
        largest.truncate(TOP);
        let sparse = g
            .sparse_initializers
            .iter()
            .map(|s| bytes(&s.values).saturating_add(bytes(&s.indices)));
        let initializer_bytes = g
            .initializers
            .iter()
            .map(bytes)
            .chain(sparse)
            .fold(0u64, u64::saturating_add);
        Facts {
            nodes,
            ops,
            initializers: (g.initializers.len() + g.sparse_initializers.len()) as u64,
            initializer_bytes,
            largest,
        }
    }

    fn text(&self, model: &Model<'_>, framing: &Framing<'_>) -> String {
        let mut out = String::new();
        match framing {
            Framing::OneModel(h) => {
                let _ = writeln!(out, "OneModel format version {}", h.format_version);
                let _ = writeln!(
                    out,
                    "manifest {} bytes, data region {} bytes at offset {}",
                    h.manifest_length, h.data_length, h.data_offset
                );
            }
            Framing::Onnx(length, _) => {
                let _ = writeln!(out, "ONNX model, {length} bytes");
            }
        }
        let _ = writeln!(
            out,
            "ir_version {}, producer {:?} {:?}",
            model.ir_version, model.producer_name, model.producer_version
        );
        for o in &model.opsets {
            let domain = if o.domain.is_empty() { "ai.onnx" } else { &o.domain };
            let _ = writeln!(out, "opset {domain} {}", o.version);
        }
        let g = &model.graph;
        let _ = writeln!(
            out,
            "graph {:?}: {} nodes, {} initializers ({} bytes), {} functions",
            g.name,
            self.nodes,
            self.initializers,
            self.initializer_bytes,
            model.functions.len()
        );
        for (what, list) in [("input", &g.inputs), ("output", &g.outputs)] {
            for v in list {
                let _ = writeln!(out, "{what} {:?}: {}", v.name, type_text(v));
            }
        }
        if !self.ops.is_empty() {
            let ops: Vec<String> = self
                .ops
                .iter()
                .map(|((d, op), n)| format!("{} {n}", op_name(d, op)))
                .collect();
            let _ = writeln!(out, "ops: {}", ops.join(", "));
        }
        if !self.largest.is_empty() {
            let _ = writeln!(out, "largest initializers:");
            for (t, bytes) in &self.largest {
                let dims: Vec<String> = t.dims.iter().map(u64::to_string).collect();
                let _ = writeln!(
                    out,
                    "  {:?} {} [{}] {bytes} bytes",
                    t.name,
                    dtype(t.dtype),
                    dims.join(", ")
                );
            }
        }
        if let Framing::Onnx(_, files) = framing {
            for f in *files {
                let _ = writeln!(
                    out,
                    "external data {:?}: {} bytes, {} tensors name {} bytes",
                    f.location, f.size, f.tensors, f.bytes
                );
            }
        }
        out
    }

    fn json(&self, model: &Model<'_>, framing: &Framing<'_>) -> String {
        let mut w = Writer::new();
        w.begin_object();
        match framing {
            Framing::OneModel(h) => {
                w.name("format").string("onemodel");
                w.name("format_version").u64(h.format_version);
                w.name("manifest_length").u64(h.manifest_length);
                w.name("data_offset").u64(h.data_offset);
                w.name("data_length").u64(h.data_length);
            }
            Framing::Onnx(length, _) => {
                w.name("format").string("onnx");
                w.name("file_length").u64(*length);
            }
        }
        w.name("ir_version").u64(model.ir_version);
        w.name("producer_name").string(&model.producer_name);
        w.name("producer_version").string(&model.producer_version);
        w.name("opsets").begin_array();
        for o in &model.opsets {
            w.begin_object()
                .name("domain")
                .string(&o.domain)
                .name("version")
                .u64(o.version)
                .end_object();
        }
        w.end_array();
        let g = &model.graph;
        w.name("graph").string(&g.name);
        for (name, list) in [("inputs", &g.inputs), ("outputs", &g.outputs)] {
            w.name(name).begin_array();
            for v in list {
                typed_json(&mut w, v);
            }
            w.end_array();
        }
        w.name("nodes").u64(self.nodes);
        w.name("ops").begin_array();
        for ((domain, op), n) in &self.ops {
            w.begin_object()
                .name("domain")
                .string(domain)
                .name("op")
                .string(op)
                .name("count")
                .u64(*n)
                .end_object();
        }
        w.end_array();
        w.name("initializers").u64(self.initializers);
        w.name("initializer_bytes").u64(self.initializer_bytes);
        w.name("largest_initializers").begin_array();
        for (t, bytes) in &self.largest {
            w.begin_object().name("name").string(&t.name);
            w.name("dtype").string(&dtype(t.dtype));
            w.name("dims").begin_array();
            for d in &t.dims {
                w.u64(*d);
            }
            w.end_array().name("bytes").u64(*bytes).end_object();
        }
        w.end_array();
        w.name("functions").u64(model.functions.len() as u64);
        w.name("external_data").begin_array();
        if let Framing::Onnx(_, files) = framing {
            for f in *files {
                w.begin_object().name("location").string(&f.location);
                w.name("size").u64(f.size).name("tensors").u64(f.tensors);
                w.name("bytes").u64(f.bytes).end_object();
            }
        }
        w.end_array();
        w.end_object();
        w.finish()
    }
}

/// A dtype's ONNX name, or its code when it has none (0: not declared).
fn dtype(code: u8) -> String {
    dtype_name(code).map_or_else(|| format!("dtype {code}"), String::from)
}

/// An operator with its domain when it is not the default one.
fn op_name(domain: &str, op: &str) -> String {
    match domain {
        "" => op.to_string(),
        d => format!("{d}.{op}"),
    }
}

/// A value's type as text: `float [batch, 3, 224, 224]`, `?` for an unknown dimension, no
/// brackets for an unknown rank; the kind for other types.
fn type_text(v: &TypedName) -> String {
    match v.ty.as_ref().map(|t| &t.kind) {
        None => String::from("type not declared"),
        Some(TypeKind::Tensor { elem_type, shape } | TypeKind::SparseTensor { elem_type, shape }) => {
            let sparse = matches!(v.ty.as_ref().map(|t| &t.kind), Some(TypeKind::SparseTensor { .. }));
            let mut s = format!("{}{}", if sparse { "sparse " } else { "" }, dtype(*elem_type));
            if let Some(dims) = shape {
                let dims: Vec<String> = dims
                    .iter()
                    .map(|d| match &d.value {
                        DimValue::Value(n) => n.to_string(),
                        DimValue::Param(p) => p.clone(),
                        DimValue::Unknown => String::from("?"),
                    })
                    .collect();
                let _ = write!(s, " [{}]", dims.join(", "));
            }
            s
        }
        Some(TypeKind::Sequence(_)) => String::from("sequence"),
        Some(TypeKind::Map { .. }) => String::from("map"),
        Some(TypeKind::Optional(_)) => String::from("optional"),
    }
}

/// A value as JSON: `name`, `type` (the kind, null when not declared), `dtype` (null when
/// not a tensor or not declared) and `shape` (numbers, symbolic names and null for unknown
/// dimensions; null when the rank is unknown).
fn typed_json(w: &mut Writer, v: &TypedName) {
    w.begin_object().name("name").string(&v.name);
    let kind = v.ty.as_ref().map(|t| &t.kind);
    w.name("type");
    match kind {
        None => w.null(),
        Some(TypeKind::Tensor { .. }) => w.string("tensor"),
        Some(TypeKind::SparseTensor { .. }) => w.string("sparse_tensor"),
        Some(TypeKind::Sequence(_)) => w.string("sequence"),
        Some(TypeKind::Map { .. }) => w.string("map"),
        Some(TypeKind::Optional(_)) => w.string("optional"),
    };
    match kind {
        Some(TypeKind::Tensor { elem_type, shape } | TypeKind::SparseTensor { elem_type, shape }) => {
            w.name("dtype");
            match elem_type {
                0 => w.null(),
                code => w.string(&dtype(*code)),
            };
            w.name("shape");
            match shape {
                None => {
                    w.null();
                }
                Some(dims) => {
                    w.begin_array();
                    for d in dims {
                        match &d.value {
                            DimValue::Value(n) => w.u64(*n),
                            DimValue::Param(p) => w.string(p),
                            DimValue::Unknown => w.null(),
                        };
                    }
                    w.end_array();
                }
            }
        }
        _ => {
            w.name("dtype").null().name("shape").null();
        }
    }
    w.end_object();
}

#[cfg(test)]
mod tests {
    use super::*;
    use modelgate_core::onemodel::{Attribute, Dim, Node, Type};
    use modelgate_core::onemodel::{FileRange, TensorData};

    fn tensor_type(elem_type: u8, dims: &[DimValue]) -> Option<Type> {
        let shape = dims
            .iter()
            .map(|v| Dim {
                value: v.clone(),
                denotation: String::new(),
            })
            .collect();
        Some(Type {
            denotation: String::new(),
            kind: TypeKind::Tensor {
                elem_type,
                shape: Some(shape),
            },
        })
    }

    fn node(op: &str, domain: &str) -> Node<'static> {
        Node {
            op: op.to_string().into(),
            domain: domain.to_string().into(),
            ..Node::default()
        }
    }

    /// A model of 12 kinds of operator (Relu 3 times, one in a subgraph), three
    /// initializers (one in a file), an input with a symbolic and an unknown dimension.
    fn model() -> Model<'static> {
        let mut nodes: Vec<Node<'static>> = (0..10).map(|i| node(&format!("Op{i:02}"), "")).collect();
        nodes.push(node("Relu", ""));
        nodes.push(node("Relu", "ai.onnx"));
        nodes.push(node("Gelu", "com.microsoft"));
        let sub = Graph {
            nodes: vec![node("Relu", "")],
            ..Graph::default()
        };
        nodes.push(Node {
            op: "If".into(),
            attributes: vec![Attribute {
                name: "then_branch".into(),
                ty: 5,
                value: Some(AttrValue::Graph(Box::new(sub))),
                ..Attribute::default()
            }],
            ..Node::default()
        });
        let t = |name: &str, dims: Vec<u64>, data: TensorData<'static>| Tensor {
            name: name.to_string().into(),
            dtype: 1,
            dims,
            data,
            ..Tensor::default()
        };
        let file = FileRange {
            file: 0,
            offset: 64,
            length: 4096,
        };
        Model {
            ir_version: 9,
            graph: Graph {
                name: "g".into(),
                nodes,
                initializers: vec![
                    t("a", vec![2], TensorData::Raw(vec![0u8; 8].into())),
                    t("big", vec![32, 32], TensorData::File(file)),
                    t("b", vec![2], TensorData::Raw(vec![0u8; 8].into())),
                ],
                inputs: vec![TypedName {
                    name: "x".into(),
                    ty: tensor_type(
                        1,
                        &[DimValue::Param("batch".into()), DimValue::Value(3), DimValue::Unknown],
                    ),
                    ..TypedName::default()
                }],
                outputs: vec![TypedName {
                    name: "y".into(),
                    ..TypedName::default()
                }],
                ..Graph::default()
            },
            ..Model::default()
        }
    }

    #[test]
    fn the_description_names_types_ops_and_tensors() {
        let m = model();
        let files = [ExternalFile {
            location: "m.onnx.data".into(),
            size: 8192,
            tensors: 1,
            bytes: 4096,
        }];
        let framing = Framing::Onnx(300, &files);
        let json = describe(&m, &framing, true);
        let expected = concat!(
            r#"{"format":"onnx","file_length":300,"ir_version":9,"producer_name":"","producer_version":"","#,
            r#""opsets":[],"graph":"g","#,
            r#""inputs":[{"name":"x","type":"tensor","dtype":"float","shape":["batch",3,null]}],"#,
            r#""outputs":[{"name":"y","type":null,"dtype":null,"shape":null}],"nodes":15,"#,
            r#""ops":[{"domain":"","op":"Relu","count":3},{"domain":"","op":"If","count":1},"#,
            r#"{"domain":"","op":"Op00","count":1},{"domain":"","op":"Op01","count":1},"#,
            r#"{"domain":"","op":"Op02","count":1},{"domain":"","op":"Op03","count":1},"#,
            r#"{"domain":"","op":"Op04","count":1},{"domain":"","op":"Op05","count":1},"#,
            r#"{"domain":"","op":"Op06","count":1},{"domain":"","op":"Op07","count":1}],"#,
            r#""initializers":3,"initializer_bytes":4112,"#,
            r#""largest_initializers":[{"name":"big","dtype":"float","dims":[32,32],"bytes":4096},"#,
            r#"{"name":"a","dtype":"float","dims":[2],"bytes":8},{"name":"b","dtype":"float","dims":[2],"bytes":8}],"#,
            r#""functions":0,"#,
            r#""external_data":[{"location":"m.onnx.data","size":8192,"tensors":1,"bytes":4096}]}"#
        );
        assert_eq!(json, expected);
        let text = describe(&m, &framing, false);
        assert!(text.starts_with("ONNX model, 300 bytes\n"), "{text}");
        assert!(text.contains("\ninput \"x\": float [batch, 3, ?]\n"), "{text}");
        assert!(text.contains("\noutput \"y\": type not declared\n"), "{text}");
        assert!(text.contains("\nops: Relu 3, If 1, Op00 1,"), "{text}");
        assert!(text.contains("\n  \"big\" float [32, 32] 4096 bytes\n"), "{text}");
        assert!(
            text.ends_with("external data \"m.onnx.data\": 8192 bytes, 1 tensors name 4096 bytes\n"),
            "{text}"
        );
    }
}
