//! The ONNX writer (`spec/onemodel.md` §6.3): a [`Model`] back to a serialised `ModelProto`.
//! Fields are written in field-number order as the reference C++ serialiser does, repeated
//! numeric attribute fields unpacked (proto2, as onnx.proto declares them), tensors as
//! `raw_data` (strings as `string_data`), defaults left out. The same model always gives the
//! same bytes. Graphs, nodes, attributes and functions are written from a heap stack of
//! open messages and types by a loop, so the machine stack needed does not grow with the
//! model's nesting (`spec/onemodel.md` §3.3).

use super::wire::{put_key, put_len, put_varint};
use crate::onemodel::model::GraphHolder as Msg;
use crate::onemodel::model::*;
use crate::onemodel::{Error, ErrorKind};
use alloc::string::String;
use alloc::vec::Vec;

/// An open message: its bytes so far, the field number it goes into in its parent, and
/// where it is: `stage` counts the runs of plain fields and child lists written, `index`
/// the next child of the current list.
struct Open<'m, 'a> {
    msg: Msg<'m, 'a>,
    out: Vec<u8>,
    field: u32,
    stage: u8,
    index: usize,
}

/// Serialises `msg` with its nested graphs, keeping open messages on a heap stack: a child
/// is serialised completely before it is added, length-prefixed, to its parent.
fn message(msg: Msg<'_, '_>) -> Vec<u8> {
    let mut stack = alloc::vec![Open {
        msg,
        out: Vec::new(),
        field: 0,
        stage: 0,
        index: 0,
    }];
    loop {
        let Some(top) = stack.last_mut() else {
            return Vec::new();
        };
        match next_child(top) {
            Some((field, msg)) => stack.push(Open {
                msg,
                out: Vec::new(),
                field,
                stage: 0,
                index: 0,
            }),
            None => {
                let Some(done) = stack.pop() else { continue };
                match stack.last_mut() {
                    Some(parent) => put_len(&mut parent.out, done.field, &done.out),
                    None => return done.out,
                }
            }
        }
    }
}

/// Writes `o`'s plain fields up to its next child message and returns that child with its
/// field number, or `None` when `o` is complete. Fields come in field-number order (§6.3).
fn next_child<'m, 'a>(o: &mut Open<'m, 'a>) -> Option<(u32, Msg<'m, 'a>)> {
    let m = &mut o.out;
    loop {
        let child = match (o.msg, o.stage) {
            (Msg::Graph(g), 0) => g.nodes.get(o.index).map(|n| (1, Msg::Node(n))),
            (Msg::Graph(g), _) => {
                graph_rest(m, g);
                return None;
            }
            (Msg::Node(n), 0) => {
                node_head(m, n);
                None
            }
            (Msg::Node(n), 1) => n.attributes.get(o.index).map(|a| (5, Msg::Attribute(a))),
            (Msg::Node(n), _) => {
                node_rest(m, n);
                return None;
            }
            (Msg::Attribute(a), 0) => {
                attribute_head(m, a);
                None
            }
            (Msg::Attribute(a), 1) => match &a.value {
                Some(AttrValue::Graph(g)) if o.index == 0 => Some((6, Msg::Graph(g))),
                Some(AttrValue::Graphs(gs)) => gs.get(o.index).map(|g| (11, Msg::Graph(g))),
                _ => None,
            },
            (Msg::Attribute(a), _) => {
                attribute_rest(m, a);
                return None;
            }
            (Msg::Function(f), 0) => {
                put_len(m, 1, f.name.as_bytes());
                f.inputs.iter().for_each(|s| put_len(m, 4, s.as_bytes()));
                f.outputs.iter().for_each(|s| put_len(m, 5, s.as_bytes()));
                f.attribute_names.iter().for_each(|s| put_len(m, 6, s.as_bytes()));
                None
            }
            (Msg::Function(f), 1) => f.nodes.get(o.index).map(|n| (7, Msg::Node(n))),
            (Msg::Function(f), 2) => {
                put_str(m, 8, &f.doc);
                f.opsets.iter().for_each(|o| put_len(m, 9, &opset(o)));
                put_str(m, 10, &f.domain);
                None
            }
            (Msg::Function(f), 3) => f.attribute_defaults.get(o.index).map(|a| (11, Msg::Attribute(a))),
            (Msg::Function(f), _) => {
                f.value_info.iter().for_each(|v| put_len(m, 12, &value_info(v)));
                put_str(m, 13, &f.overload);
                entries(m, 14, &f.metadata);
                return None;
            }
        };
        match child {
            Some(c) => {
                o.index += 1;
                return Some(c);
            }
            None => {
                o.stage += 1;
                o.index = 0;
            }
        }
    }
}

/// Largest ONNX file the writer produces: protobuf caps a serialised message at 2 GiB − 1
/// bytes (`spec/onemodel.md` §6.3).
pub const MAX_ONNX_BYTES: u64 = (1 << 31) - 1;

/// Serialises `model` as an ONNX `ModelProto` (`spec/onemodel.md` §6.3). A model whose tensor
/// bytes alone exceed [`MAX_ONNX_BYTES`] is refused before anything is written
/// (LimitExceeded at `model`): no ONNX reader takes it, and tensors that share bytes in a
/// OneModel file (§1.3) are each written in full here, so the output would otherwise grow
/// with the number of tensors sharing, not with the file. The count is the OneModel
/// writer's (each tensor in full); the cap is the same 2^31 − 1 that writer lets sharing
/// add by default (`Limits::max_shared_data`, §4).
pub fn write_model(model: &Model<'_>) -> Result<Vec<u8>, Error> {
    if crate::onemodel::writer::tensor_data_bytes(model) > MAX_ONNX_BYTES {
        return Err(Error::at_path(
            ErrorKind::LimitExceeded,
            String::from("model"),
            None,
            "tensor data over the 2 GiB an ONNX file can hold",
        ));
    }
    let mut out = Vec::new();
    put_key(&mut out, 1, 0);
    put_varint(&mut out, model.ir_version);
    put_str(&mut out, 2, &model.producer_name);
    put_str(&mut out, 3, &model.producer_version);
    put_str(&mut out, 4, &model.domain);
    if model.model_version != 0 {
        put_int(&mut out, 5, model.model_version);
    }
    put_str(&mut out, 6, &model.doc);
    put_len(&mut out, 7, &message(Msg::Graph(&model.graph)));
    for o in &model.opsets {
        put_len(&mut out, 8, &opset(o));
    }
    entries(&mut out, 14, &model.metadata);
    for f in &model.functions {
        put_len(&mut out, 25, &message(Msg::Function(f)));
    }
    Ok(out)
}

fn put_str(out: &mut Vec<u8>, number: u32, s: &str) {
    if !s.is_empty() {
        put_len(out, number, s.as_bytes());
    }
}

fn put_int(out: &mut Vec<u8>, number: u32, v: i64) {
    put_key(out, number, 0);
    put_varint(out, v as u64);
}

fn entries(out: &mut Vec<u8>, number: u32, es: &[StringEntry]) {
    for e in es {
        let mut m = Vec::new();
        put_str(&mut m, 1, &e.key);
        put_str(&mut m, 2, &e.value);
        put_len(out, number, &m);
    }
}

fn opset(o: &OperatorSet) -> Vec<u8> {
    let mut m = Vec::new();
    put_len(&mut m, 1, o.domain.as_bytes());
    put_key(&mut m, 2, 0);
    put_varint(&mut m, o.version);
    m
}

/// A graph's fields after its nodes (1).
fn graph_rest(m: &mut Vec<u8>, g: &Graph<'_>) {
    put_str(m, 2, &g.name);
    for t in &g.initializers {
        put_len(m, 5, &tensor(t));
    }
    put_str(m, 10, &g.doc);
    for (number, list) in [(11, &g.inputs), (12, &g.outputs), (13, &g.value_info)] {
        for v in list {
            put_len(m, number, &value_info(v));
        }
    }
    for s in &g.sparse_initializers {
        put_len(m, 15, &sparse(s));
    }
    entries(m, 16, &g.metadata);
}

fn value_info(v: &TypedName) -> Vec<u8> {
    let mut m = Vec::new();
    put_len(&mut m, 1, v.name.as_bytes());
    if let Some(t) = &v.ty {
        put_len(&mut m, 2, &ty(t));
    }
    put_str(&mut m, 3, &v.doc);
    entries(&mut m, 4, &v.metadata);
    m
}

/// A node's fields before its attributes (5).
fn node_head(m: &mut Vec<u8>, n: &Node<'_>) {
    for i in &n.inputs {
        put_len(m, 1, i.as_bytes());
    }
    for o in &n.outputs {
        put_len(m, 2, o.as_bytes());
    }
    put_str(m, 3, &n.name);
    put_len(m, 4, n.op.as_bytes());
}

/// A node's fields after its attributes.
fn node_rest(m: &mut Vec<u8>, n: &Node<'_>) {
    put_str(m, 6, &n.doc);
    put_str(m, 7, &n.domain);
    put_str(m, 8, &n.overload);
    entries(m, 9, &n.metadata);
}

/// An attribute's name and the value fields 2 to 10 (a GRAPH (6) or GRAPHS (11) value is
/// written by `next_child` after this).
fn attribute_head(m: &mut Vec<u8>, a: &Attribute<'_>) {
    put_len(m, 1, a.name.as_bytes());
    match &a.value {
        Some(AttrValue::Float(f)) => {
            put_key(m, 2, 5);
            m.extend_from_slice(&f.to_le_bytes());
        }
        Some(AttrValue::Int(i)) => put_int(m, 3, *i),
        Some(AttrValue::String(s)) => put_len(m, 4, s),
        Some(AttrValue::Tensor(t)) => put_len(m, 5, &tensor(t)),
        Some(AttrValue::Floats(fs)) => {
            for f in fs {
                put_key(m, 7, 5);
                m.extend_from_slice(&f.to_le_bytes());
            }
        }
        Some(AttrValue::Ints(is)) => is.iter().for_each(|i| put_int(m, 8, *i)),
        Some(AttrValue::Strings(ss)) => ss.iter().for_each(|s| put_len(m, 9, s)),
        Some(AttrValue::Tensors(ts)) => ts.iter().for_each(|t| put_len(m, 10, &tensor(t))),
        _ => {}
    }
}

/// An attribute's fields after its graph values: doc, types, type code, reference, sparse.
fn attribute_rest(m: &mut Vec<u8>, a: &Attribute<'_>) {
    put_str(m, 13, &a.doc);
    match &a.value {
        Some(AttrValue::Type(t)) => put_len(m, 14, &ty(t)),
        Some(AttrValue::Types(ts)) => ts.iter().for_each(|t| put_len(m, 15, &ty(t))),
        _ => {}
    }
    let code = a.value.as_ref().map_or(a.ty, AttrValue::type_code);
    put_int(m, 20, i64::from(code));
    put_str(m, 21, &a.ref_name);
    match &a.value {
        Some(AttrValue::SparseTensor(s)) => put_len(m, 22, &sparse(s)),
        Some(AttrValue::SparseTensors(ss)) => ss.iter().for_each(|s| put_len(m, 23, &sparse(s))),
        _ => {}
    }
}

fn tensor(t: &Tensor<'_>) -> Vec<u8> {
    let mut m = Vec::new();
    for &d in &t.dims {
        put_key(&mut m, 1, 0);
        put_varint(&mut m, d);
    }
    put_int(&mut m, 2, i64::from(t.dtype));
    if let TensorData::Strings(ss) = &t.data {
        ss.iter().for_each(|s| put_len(&mut m, 6, s));
    }
    put_str(&mut m, 8, &t.name);
    if let TensorData::Raw(b) = &t.data {
        put_len(&mut m, 9, b);
    }
    put_str(&mut m, 12, &t.doc);
    entries(&mut m, 16, &t.metadata);
    m
}

fn sparse(s: &SparseTensor<'_>) -> Vec<u8> {
    let mut m = Vec::new();
    put_len(&mut m, 1, &tensor(&s.values));
    put_len(&mut m, 2, &tensor(&s.indices));
    for &d in &s.dims {
        put_key(&mut m, 3, 0);
        put_varint(&mut m, d);
    }
    m
}

fn shape_of(elem_type: u8, shape: &Option<Vec<Dim>>) -> Vec<u8> {
    let mut m = Vec::new();
    if elem_type != 0 {
        put_int(&mut m, 1, i64::from(elem_type));
    }
    if let Some(dims) = shape {
        let mut s = Vec::new();
        for d in dims {
            let mut dm = Vec::new();
            match &d.value {
                DimValue::Unknown => {}
                DimValue::Value(v) => {
                    put_key(&mut dm, 1, 0);
                    put_varint(&mut dm, *v);
                }
                DimValue::Param(p) => put_len(&mut dm, 2, p.as_bytes()),
            }
            put_str(&mut dm, 3, &d.denotation);
            put_len(&mut s, 1, &dm);
        }
        put_len(&mut m, 2, &s);
    }
    m
}

/// A `TypeProto`, built from the innermost type outwards without recursion.
fn ty(t: &Type) -> Vec<u8> {
    let mut chain = Vec::new();
    let mut at = t;
    while let TypeKind::Sequence(e) | TypeKind::Optional(e) | TypeKind::Map { value: e, .. } = &at.kind {
        chain.push(at);
        at = e;
    }
    let mut inner = type_message(at, &[]);
    for t in chain.into_iter().rev() {
        inner = type_message(t, &inner);
    }
    inner
}

/// One `TypeProto` level; `inner` is the serialised element or value type of a wrapper.
fn type_message(t: &Type, inner: &[u8]) -> Vec<u8> {
    let mut m = Vec::new();
    match &t.kind {
        TypeKind::Tensor { elem_type, shape } => put_len(&mut m, 1, &shape_of(*elem_type, shape)),
        TypeKind::Sequence(_) => {
            let mut s = Vec::new();
            put_len(&mut s, 1, inner);
            put_len(&mut m, 4, &s);
        }
        TypeKind::Map { key_type, .. } => {
            let mut s = Vec::new();
            if *key_type != 0 {
                put_int(&mut s, 1, i64::from(*key_type));
            }
            put_len(&mut s, 2, inner);
            put_len(&mut m, 5, &s);
        }
        _ => {}
    }
    put_str(&mut m, 6, &t.denotation);
    match &t.kind {
        TypeKind::SparseTensor { elem_type, shape } => put_len(&mut m, 8, &shape_of(*elem_type, shape)),
        TypeKind::Optional(_) => {
            let mut s = Vec::new();
            put_len(&mut s, 1, inner);
            put_len(&mut m, 9, &s);
        }
        _ => {}
    }
    m
}
