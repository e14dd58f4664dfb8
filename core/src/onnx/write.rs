//! The ONNX writer (`spec/onemodel.md` §6.3): a [`Model`] back to a serialised `ModelProto`.
//! Fields are written in field-number order as the reference C++ serialiser does, repeated
//! numeric attribute fields unpacked (proto2, as onnx.proto declares them), tensors as
//! `raw_data` (strings as `string_data`), defaults left out. The same model always gives the
//! same bytes.

use super::wire::{put_key, put_len, put_varint};
use crate::onemodel::model::*;
use alloc::vec::Vec;

/// Serialises `model` as an ONNX `ModelProto`.
pub fn write_model(model: &Model<'_>) -> Vec<u8> {
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
    put_len(&mut out, 7, &graph(&model.graph));
    for o in &model.opsets {
        put_len(&mut out, 8, &opset(o));
    }
    entries(&mut out, 14, &model.metadata);
    for f in &model.functions {
        put_len(&mut out, 25, &function(f));
    }
    out
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

fn graph(g: &Graph<'_>) -> Vec<u8> {
    let mut m = Vec::new();
    for n in &g.nodes {
        put_len(&mut m, 1, &node(n));
    }
    put_str(&mut m, 2, &g.name);
    for t in &g.initializers {
        put_len(&mut m, 5, &tensor(t));
    }
    put_str(&mut m, 10, &g.doc);
    for (number, list) in [(11, &g.inputs), (12, &g.outputs), (13, &g.value_info)] {
        for v in list {
            put_len(&mut m, number, &value_info(v));
        }
    }
    for s in &g.sparse_initializers {
        put_len(&mut m, 15, &sparse(s));
    }
    entries(&mut m, 16, &g.metadata);
    m
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

fn node(n: &Node<'_>) -> Vec<u8> {
    let mut m = Vec::new();
    for i in &n.inputs {
        put_len(&mut m, 1, i.as_bytes());
    }
    for o in &n.outputs {
        put_len(&mut m, 2, o.as_bytes());
    }
    put_str(&mut m, 3, &n.name);
    put_len(&mut m, 4, n.op.as_bytes());
    for a in &n.attributes {
        put_len(&mut m, 5, &attribute(a));
    }
    put_str(&mut m, 6, &n.doc);
    put_str(&mut m, 7, &n.domain);
    put_str(&mut m, 8, &n.overload);
    entries(&mut m, 9, &n.metadata);
    m
}

fn attribute(a: &Attribute<'_>) -> Vec<u8> {
    let mut m = Vec::new();
    put_len(&mut m, 1, a.name.as_bytes());
    match &a.value {
        Some(AttrValue::Float(f)) => {
            put_key(&mut m, 2, 5);
            m.extend_from_slice(&f.to_le_bytes());
        }
        Some(AttrValue::Int(i)) => put_int(&mut m, 3, *i),
        Some(AttrValue::String(s)) => put_len(&mut m, 4, s),
        Some(AttrValue::Tensor(t)) => put_len(&mut m, 5, &tensor(t)),
        Some(AttrValue::Graph(g)) => put_len(&mut m, 6, &graph(g)),
        Some(AttrValue::Floats(fs)) => {
            for f in fs {
                put_key(&mut m, 7, 5);
                m.extend_from_slice(&f.to_le_bytes());
            }
        }
        Some(AttrValue::Ints(is)) => is.iter().for_each(|i| put_int(&mut m, 8, *i)),
        Some(AttrValue::Strings(ss)) => ss.iter().for_each(|s| put_len(&mut m, 9, s)),
        Some(AttrValue::Tensors(ts)) => ts.iter().for_each(|t| put_len(&mut m, 10, &tensor(t))),
        Some(AttrValue::Graphs(gs)) => gs.iter().for_each(|g| put_len(&mut m, 11, &graph(g))),
        _ => {}
    }
    put_str(&mut m, 13, &a.doc);
    match &a.value {
        Some(AttrValue::Type(t)) => put_len(&mut m, 14, &ty(t)),
        Some(AttrValue::Types(ts)) => ts.iter().for_each(|t| put_len(&mut m, 15, &ty(t))),
        _ => {}
    }
    let code = a.value.as_ref().map_or(a.ty, AttrValue::type_code);
    put_int(&mut m, 20, i64::from(code));
    put_str(&mut m, 21, &a.ref_name);
    match &a.value {
        Some(AttrValue::SparseTensor(s)) => put_len(&mut m, 22, &sparse(s)),
        Some(AttrValue::SparseTensors(ss)) => ss.iter().for_each(|s| put_len(&mut m, 23, &sparse(s))),
        _ => {}
    }
    m
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

fn ty(t: &Type) -> Vec<u8> {
    let mut m = Vec::new();
    match &t.kind {
        TypeKind::Tensor { elem_type, shape } => put_len(&mut m, 1, &shape_of(*elem_type, shape)),
        TypeKind::Sequence(e) => {
            let mut s = Vec::new();
            put_len(&mut s, 1, &ty(e));
            put_len(&mut m, 4, &s);
        }
        TypeKind::Map { key_type, value } => {
            let mut s = Vec::new();
            if *key_type != 0 {
                put_int(&mut s, 1, i64::from(*key_type));
            }
            put_len(&mut s, 2, &ty(value));
            put_len(&mut m, 5, &s);
        }
        _ => {}
    }
    put_str(&mut m, 6, &t.denotation);
    match &t.kind {
        TypeKind::SparseTensor { elem_type, shape } => put_len(&mut m, 8, &shape_of(*elem_type, shape)),
        TypeKind::Optional(e) => {
            let mut s = Vec::new();
            put_len(&mut s, 1, &ty(e));
            put_len(&mut m, 9, &s);
        }
        _ => {}
    }
    m
}

fn function(f: &Function<'_>) -> Vec<u8> {
    let mut m = Vec::new();
    put_len(&mut m, 1, f.name.as_bytes());
    f.inputs.iter().for_each(|s| put_len(&mut m, 4, s.as_bytes()));
    f.outputs.iter().for_each(|s| put_len(&mut m, 5, s.as_bytes()));
    f.attribute_names.iter().for_each(|s| put_len(&mut m, 6, s.as_bytes()));
    f.nodes.iter().for_each(|n| put_len(&mut m, 7, &node(n)));
    put_str(&mut m, 8, &f.doc);
    f.opsets.iter().for_each(|o| put_len(&mut m, 9, &opset(o)));
    put_str(&mut m, 10, &f.domain);
    f.attribute_defaults
        .iter()
        .for_each(|a| put_len(&mut m, 11, &attribute(a)));
    f.value_info.iter().for_each(|v| put_len(&mut m, 12, &value_info(v)));
    put_str(&mut m, 13, &f.overload);
    entries(&mut m, 14, &f.metadata);
    m
}
