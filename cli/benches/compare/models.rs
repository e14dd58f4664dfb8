//! Model fixtures: a transformer-shaped model (embedding, attention and MLP float32
//! weights, optional sparse initializers) written as ONNX protobuf by `onnx::write_model`,
//! as OneModel by `onemodel::write`, and the same dense tensors as safetensors; and the
//! same dense model as ONNX with external data, written tensor by tensor.

use crate::data::{cached, write};
use crate::measure::fail;
use crate::payload::{sparse, weights};
use modelgate_core::onemodel::{
    self, Dim, DimValue, Graph, Model, Node, OperatorSet, SparseTensor, Tensor, TensorData, Type, TypeKind, TypedName,
};
use modelgate_core::onnx;
use std::borrow::Cow;
use std::path::{Path, PathBuf};

const FLOAT: u8 = 1;
const INT64: u8 = 7;

/// Width of every layer of the full-size models.
pub const D: u64 = 1024;

/// The ONNX fixture (with sparse initializers), `total` bytes of dense weights.
pub fn onnx_file(dir: &Path, total: u64) -> PathBuf {
    cached(&dir.join("model.onnx"), &format!("total={total}"), |p| {
        write(
            p,
            &onnx::write_model(&model(total, D, true)).expect("model within 2 GiB"),
        );
    })
}

/// A OneModel file of `total` bytes of dense weights in layers of width `d` (the tensor
/// count depends only on `total / d²`).
pub fn onemodel_file(dir: &Path, name: &str, total: u64, d: u64) -> PathBuf {
    cached(
        &dir.join(format!("{name}.onemodel")),
        &format!("total={total} d={d}"),
        |p| {
            let m = model(total, d, false);
            let bytes = onemodel::write(&m, onemodel::Limits::DEFAULT)
                .unwrap_or_else(|e| fail(&format!("onemodel::write: {e:?}")));
            write(p, &bytes);
        },
    )
}

/// A OneModel file of the same tensors as [`onemodel_file`] and nothing else: its graph has
/// no nodes, inputs or outputs, so its manifest holds what a safetensors header holds.
pub fn onemodel_tensors_file(dir: &Path, name: &str, total: u64, d: u64) -> PathBuf {
    cached(
        &dir.join(format!("{name}.onemodel")),
        &format!("total={total} d={d} tensors-only"),
        |p| {
            let mut m = model(total, d, false);
            m.graph.nodes.clear();
            m.graph.inputs.clear();
            m.graph.outputs.clear();
            let bytes = onemodel::write(&m, onemodel::Limits::DEFAULT)
                .unwrap_or_else(|e| fail(&format!("onemodel::write: {e:?}")));
            write(p, &bytes);
        },
    )
}

/// The safetensors file of the same tensors as [`onemodel_file`].
pub fn safetensors_file(dir: &Path, name: &str, total: u64, d: u64) -> PathBuf {
    cached(
        &dir.join(format!("{name}.safetensors")),
        &format!("total={total} d={d}"),
        |p| {
            write(p, &safetensors_of(&model(total, d, false)));
        },
    )
}

fn tensor(name: String, dtype: u8, dims: Vec<u64>, data: Vec<u8>) -> Tensor<'static> {
    Tensor {
        name: name.into(),
        dtype,
        dims,
        data: TensorData::Raw(Cow::Owned(data)),
        ..Tensor::default()
    }
}

/// Makes a dense tensor's data from its byte length and seed: its bytes, or where they
/// will be.
type DenseData<'f> = dyn FnMut(u64, u64) -> TensorData<'static> + 'f;

fn dense(name: String, dims: Vec<u64>, seed: u64, data: &mut DenseData<'_>) -> Tensor<'static> {
    let bytes = dims.iter().product::<u64>() * 4;
    Tensor {
        name: name.into(),
        dtype: FLOAT,
        dims,
        data: data(bytes, seed),
        ..Tensor::default()
    }
}

/// Dense weights in memory.
fn in_memory(bytes: u64, seed: u64) -> TensorData<'static> {
    TensorData::Raw(Cow::Owned(weights(usize::try_from(bytes).unwrap_or(0), seed)))
}

/// The external-data fixture (`spec/onemodel.md` §6.3): `model.onnx` naming
/// `model.onnx.data`, `total` bytes of the dense weights of [`onemodel_file`]'s model
/// (every initializer of at least 1024 bytes goes there), in a folder of its own; the
/// weights are generated one tensor at a time, straight into the data file.
pub fn onnx_external_folder(dir: &Path, total: u64) -> PathBuf {
    use std::io::Write;
    cached(
        &dir.join("external"),
        &format!("total={total} d={D} external"),
        |folder| {
            // Each tensor is a range of a file that does not exist yet: the data file, laid
            // out by the ONNX writer and written here tensor by tensor.
            let mut seeds = std::collections::BTreeMap::new();
            let mut next = 0u64;
            let m = model_with(total, D, false, &mut |bytes, seed| {
                seeds.insert(next, seed);
                let range = onemodel::FileRange {
                    file: 0,
                    offset: next,
                    length: bytes,
                };
                next += bytes.div_ceil(64) * 64;
                TensorData::File(range)
            });
            let written = onnx::write_parts(&m, onnx::Data::External("model.onnx.data"), onemodel::Limits::DEFAULT)
                .unwrap_or_else(|e| fail(&format!("onnx::write_parts: {e:?}")));
            let proto = written
                .model
                .into_vec()
                .unwrap_or_else(|e| fail(&format!("model.onnx: {e:?}")));
            write(&folder.join("model.onnx"), &proto);
            let path = folder.join("model.onnx.data");
            let mut f = std::fs::File::create(&path).unwrap_or_else(|e| fail(&format!("{}: {e}", path.display())));
            for piece in written.data.pieces() {
                let bytes = match piece {
                    onemodel::Piece::Bytes(b) => b.to_vec(),
                    onemodel::Piece::File(r) => weights(usize::try_from(r.length).unwrap_or(0), seeds[&r.offset]),
                };
                f.write_all(&bytes)
                    .unwrap_or_else(|e| fail(&format!("{}: {e}", path.display())));
            }
        },
    )
}

fn typed(name: &str, elem_type: u8, dims: &[u64]) -> TypedName {
    let shape = dims
        .iter()
        .map(|&d| Dim {
            value: DimValue::Value(d),
            ..Dim::default()
        })
        .collect();
    TypedName {
        name: name.into(),
        ty: Some(Type {
            denotation: String::new(),
            kind: TypeKind::Tensor {
                elem_type,
                shape: Some(shape),
            },
        }),
        ..TypedName::default()
    }
}

fn node(name: String, op: &str, inputs: &[&str], output: &str) -> Node<'static> {
    Node {
        name: name.into(),
        op: Cow::Owned(op.to_string()),
        inputs: inputs.iter().map(|s| Cow::Owned((*s).to_string())).collect(),
        outputs: vec![Cow::Owned(output.to_string())],
        ..Node::default()
    }
}

/// Layers of 4 attention matrices d×d and two MLP matrices d×4d, then an embedding that
/// takes the rest of `total`.
fn model(total: u64, d: u64, with_sparse: bool) -> Model<'static> {
    model_with(total, d, with_sparse, &mut in_memory)
}

/// [`model`] with the dense weights' data made by `data`.
fn model_with(total: u64, d: u64, with_sparse: bool, data: &mut DenseData<'_>) -> Model<'static> {
    let per_layer = 12 * d * d * 4;
    let layers = total / per_layer;
    let rows = ((total - layers * per_layer) / (4 * d)).max(1);
    let mut g = Graph {
        name: "bench".into(),
        inputs: vec![typed("ids", INT64, &[1])],
        outputs: vec![typed("y", FLOAT, &[1, d])],
        ..Graph::default()
    };
    g.initializers.push(dense("embed".into(), vec![rows, d], 100, data));
    g.nodes.push(node("embed".into(), "Gather", &["embed", "ids"], "x0"));
    for l in 0..layers {
        layer(&mut g, l, d, with_sparse, data);
    }
    g.nodes
        .push(node("out".into(), "Identity", &[&format!("x{layers}")], "y"));
    Model {
        ir_version: 8,
        opsets: vec![OperatorSet {
            domain: String::new(),
            version: 17,
        }],
        producer_name: "modelgate-bench".into(),
        graph: g,
        ..Model::default()
    }
}

fn layer(g: &mut Graph<'static>, l: u64, d: u64, with_sparse: bool, data: &mut DenseData<'_>) {
    let w = |s: &str| format!("l{l}.{s}");
    for (i, s) in ["q", "k", "v", "o"].iter().enumerate() {
        g.initializers.push(dense(w(s), vec![d, d], l * 16 + i as u64, data));
    }
    g.initializers.push(dense(w("up"), vec![d, 4 * d], l * 16 + 8, data));
    g.initializers.push(dense(w("down"), vec![4 * d, d], l * 16 + 9, data));
    if with_sparse {
        let nnz = d * d / 100;
        let (values, indices) = sparse(d * d, nnz, l * 16 + 10);
        g.sparse_initializers.push(SparseTensor {
            values: tensor(w("mask"), FLOAT, vec![nnz], values),
            indices: tensor(w("mask.indices"), INT64, vec![nnz], indices),
            dims: vec![d, d],
        });
    }
    let x = format!("x{l}");
    let steps: [(&str, &str, [String; 2], String); 9] = [
        ("q", "MatMul", [x.clone(), w("q")], w("a")),
        ("k", "MatMul", [x.clone(), w("k")], w("b")),
        ("v", "MatMul", [x.clone(), w("v")], w("c")),
        ("ab", "Add", [w("a"), w("b")], w("s")),
        ("abc", "Add", [w("s"), w("c")], w("t")),
        ("o", "MatMul", [w("t"), w("o")], w("h")),
        ("res", "Add", [x, w("h")], w("r")),
        ("up", "MatMul", [w("r"), w("up")], w("u")),
        ("down", "MatMul", [w("u"), w("down")], format!("x{}", l + 1)),
    ];
    for (name, op, [a, b], out) in steps {
        g.nodes.push(node(w(name), op, &[&a, &b], &out));
    }
}

/// safetensors layout: u64 header length, JSON header (padded with spaces to 8 bytes),
/// then the tensors back to back in header order.
fn safetensors_of(m: &Model<'_>) -> Vec<u8> {
    let mut entries = Vec::new();
    let mut offset = 0usize;
    for t in &m.graph.initializers {
        let len = match &t.data {
            TensorData::Raw(b) => b.len(),
            TensorData::Strings(_) | TensorData::File(_) => 0,
        };
        let dims: Vec<String> = t.dims.iter().map(u64::to_string).collect();
        entries.push(format!(
            r#""{}":{{"dtype":"F32","shape":[{}],"data_offsets":[{offset},{}]}}"#,
            t.name,
            dims.join(","),
            offset + len
        ));
        offset += len;
    }
    let mut header = format!("{{{}}}", entries.join(",")).into_bytes();
    while header.len() % 8 != 0 {
        header.push(b' ');
    }
    let mut out = Vec::with_capacity(8 + header.len() + offset);
    out.extend_from_slice(&(header.len() as u64).to_le_bytes());
    out.extend_from_slice(&header);
    for t in &m.graph.initializers {
        if let TensorData::Raw(b) = &t.data {
            out.extend_from_slice(b);
        }
    }
    out
}
