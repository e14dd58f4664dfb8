//! The ONNX writer (`spec/onemodel.md` §6.3): a [`Model`] back to a serialised `ModelProto`.
//! Fields are written in field-number order as the reference C++ serialiser does, repeated
//! numeric attribute fields unpacked (proto2, as onnx.proto declares them), tensors as
//! `raw_data` (strings as `string_data`), defaults left out. The same model always gives the
//! same bytes. The output is laid out ([`Layout`]): tensor bytes stay where they are (in
//! memory or in a file) until the caller writes the pieces, so a model larger than memory
//! can be written. Initializers may go to a data file beside the model instead (external
//! data, [`Data`]). Graphs, nodes, attributes and functions are written from a heap stack
//! of open messages and types by a loop, so the machine stack needed does not grow with the
//! model's nesting (`spec/onemodel.md` §3.3).

use super::wire::{put_key, put_len, put_varint};
use crate::onemodel::header::align_up;
use crate::onemodel::layout::Layout;
use crate::onemodel::model::GraphHolder as Msg;
use crate::onemodel::model::*;
use crate::onemodel::{Error, ErrorKind, Limits};
use alloc::string::String;
use alloc::vec::Vec;

/// Largest ONNX file the writer produces: protobuf caps a serialised message at 2 GiB − 1
/// bytes (`spec/onemodel.md` §6.3).
pub(crate) const MAX_ONNX_BYTES: u64 = (1 << 31) - 1;

/// Initializers of at least this many bytes go to the data file when the writer writes
/// external data: the default `size_threshold` of the onnx package's `save_model` (§6.3).
pub(crate) const EXTERNAL_THRESHOLD: u64 = 1024;

/// Where the writer puts tensor bytes (§6.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Data<'s> {
    /// Every tensor in the model file.
    Inline,
    /// Each initializer of at least `EXTERNAL_THRESHOLD` bytes in one data file, named
    /// in the model by this `location` (a path relative to the model's folder), at an
    /// offset that is a multiple of 64.
    External(&'s str),
    /// [`Data::Inline`] when the model file fits `MAX_ONNX_BYTES`, else
    /// [`Data::External`] with this location.
    Auto(&'s str),
}

/// An ONNX model laid out: the model file, and the data file its external tensors name
/// (empty when none does).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Written<'t> {
    /// The serialised `ModelProto`.
    pub model: Layout<'t>,
    /// The external data file: each external tensor's bytes at the offset the model
    /// names, zero bytes between.
    pub data: Layout<'t>,
}

/// Serialises `model` as an ONNX `ModelProto` in one buffer (`spec/onemodel.md` §6.3),
/// every tensor inline: [`write_parts`] with [`Data::Inline`] under the default limits, its
/// pieces joined. A tensor kept in a file ([`TensorData::File`]) is Unsupported at
/// `model` here.
pub fn write_model(model: &Model<'_>) -> Result<Vec<u8>, Error> {
    write_parts(model, Data::Inline, Limits::DEFAULT)?.model.into_vec()
}

/// Lays `model` out as an ONNX model file and, with external data, its data file
/// (`spec/onemodel.md` §6.3). Tensors that share bytes in a OneModel file (§1.3) are each
/// written in full, so what that adds is capped as the OneModel writer caps it
/// (`Limits::max_shared_data`, §4): over it, LimitExceeded at `model` before anything is
/// laid out. A model file over `MAX_ONNX_BYTES`, which no ONNX reader takes, is
/// LimitExceeded at `model` too; [`Data::Auto`] first moves the initializers to the data
/// file. The ONNX writer makes no other check: reading its output back applies §6.2.
pub fn write_parts<'t>(model: &'t Model<'_>, data: Data<'_>, limits: Limits) -> Result<Written<'t>, Error> {
    crate::onemodel::writer::check_shared(model, limits)?;
    let (location, fallback) = match data {
        Data::Inline => (None, None),
        Data::External(at) => (Some(at), None),
        Data::Auto(at) => (None, Some(at)),
    };
    let mut external = location.is_some();
    let mut written = serialise(model, location)?;
    if let Some(at) = fallback.filter(|_| written.model.length() > MAX_ONNX_BYTES) {
        written = serialise(model, Some(at))?;
        external = true;
    }
    if written.model.length() > MAX_ONNX_BYTES {
        let message = if !external {
            "model over the 2 GiB an ONNX file can hold: write its initializers as external data (--external-data)"
        } else {
            "model over the 2 GiB an ONNX file can hold, even with its initializers as external data"
        };
        return Err(Error::at_path(
            ErrorKind::LimitExceeded,
            String::from("model"),
            None,
            message,
        ));
    }
    Ok(written)
}

/// The model's fields in field-number order, initializers to the data file named
/// `location` when one is given.
fn serialise<'t>(model: &'t Model<'_>, location: Option<&str>) -> Result<Written<'t>, Error> {
    let mut w = Writer {
        data: location.map(|location| DataFile {
            location,
            layout: Layout::default(),
            end: 0,
        }),
        failure: None,
    };
    let mut out = Layout::default();
    let b = out.bytes();
    put_key(b, 1, 0);
    put_varint(b, model.ir_version);
    put_str(b, 2, &model.producer_name);
    put_str(b, 3, &model.producer_version);
    put_str(b, 4, &model.domain);
    if model.model_version != 0 {
        put_int(b, 5, model.model_version);
    }
    put_str(b, 6, &model.doc);
    let graph = w.message(Msg::Graph(&model.graph));
    put_layout(&mut out, 7, graph);
    for o in &model.opsets {
        put_len(out.bytes(), 8, &opset(o));
    }
    entries(out.bytes(), 14, &model.metadata);
    for f in &model.functions {
        let function = w.message(Msg::Function(f));
        put_layout(&mut out, 25, function);
    }
    if let Some(e) = w.failure {
        return Err(e);
    }
    Ok(Written {
        model: out,
        data: w.data.map(|d| d.layout).unwrap_or_default(),
    })
}

/// A length-delimited field holding a laid-out message.
fn put_layout<'t>(out: &mut Layout<'t>, number: u32, message: Layout<'t>) {
    let b = out.bytes();
    put_key(b, number, 2);
    put_varint(b, message.length());
    out.append(message);
}

/// The external data file as it is laid out: its `location`, its pieces and its end.
struct DataFile<'t, 's> {
    location: &'s str,
    layout: Layout<'t>,
    end: u64,
}

impl<'t> DataFile<'t, '_> {
    /// Places a tensor's bytes at the next multiple of 64: its offset and length, `None`
    /// past 2^64.
    fn place(&mut self, data: &'t TensorData<'_>) -> Option<(u64, u64)> {
        let length = data.byte_length()?;
        let offset = align_up(self.end)?;
        let end = offset.checked_add(length)?;
        let pad = usize::try_from(offset - self.end).ok()?;
        let bytes = self.layout.bytes();
        bytes.resize(bytes.len() + pad, 0);
        self.layout.tensor(data);
        self.end = end;
        Some((offset, length))
    }
}

/// The writer's state: the data file when initializers go there, and the first failure.
struct Writer<'t, 's> {
    data: Option<DataFile<'t, 's>>,
    failure: Option<Error>,
}

/// An open message: its layout so far, the field number it goes into in its parent, and
/// where it is: `stage` counts the runs of plain fields and child lists written, `index`
/// the next child of the current list.
struct Open<'t, 'a> {
    msg: Msg<'t, 'a>,
    out: Layout<'t>,
    field: u32,
    stage: u8,
    index: usize,
}

impl<'t> Writer<'t, '_> {
    /// Serialises `msg` with its nested graphs, keeping open messages on a heap stack: a
    /// child is laid out completely before it is added, length-prefixed, to its parent.
    fn message(&mut self, msg: Msg<'t, '_>) -> Layout<'t> {
        let mut stack = alloc::vec![Open {
            msg,
            out: Layout::default(),
            field: 0,
            stage: 0,
            index: 0,
        }];
        loop {
            let Some(top) = stack.last_mut() else {
                return Layout::default();
            };
            match self.next_child(top) {
                Some((field, msg)) => stack.push(Open {
                    msg,
                    out: Layout::default(),
                    field,
                    stage: 0,
                    index: 0,
                }),
                None => {
                    let Some(done) = stack.pop() else { continue };
                    match stack.last_mut() {
                        Some(parent) => put_layout(&mut parent.out, done.field, done.out),
                        None => return done.out,
                    }
                }
            }
        }
    }

    /// Writes `o`'s plain fields up to its next child message and returns that child with
    /// its field number, or `None` when `o` is complete. Fields come in field-number order
    /// (§6.3).
    fn next_child<'a>(&mut self, o: &mut Open<'t, 'a>) -> Option<(u32, Msg<'t, 'a>)> {
        loop {
            let m = &mut o.out;
            let child = match (o.msg, o.stage) {
                (Msg::Graph(g), 0) => g.nodes.get(o.index).map(|n| (1, Msg::Node(n))),
                (Msg::Graph(g), _) => {
                    self.graph_rest(m, g);
                    return None;
                }
                (Msg::Node(n), 0) => {
                    node_head(m.bytes(), n);
                    None
                }
                (Msg::Node(n), 1) => n.attributes.get(o.index).map(|a| (5, Msg::Attribute(a))),
                (Msg::Node(n), _) => {
                    node_rest(m.bytes(), n);
                    return None;
                }
                (Msg::Attribute(a), 0) => {
                    self.attribute_head(m, a);
                    None
                }
                (Msg::Attribute(a), 1) => match &a.value {
                    Some(AttrValue::Graph(g)) if o.index == 0 => Some((6, Msg::Graph(g))),
                    Some(AttrValue::Graphs(gs)) => gs.get(o.index).map(|g| (11, Msg::Graph(g))),
                    _ => None,
                },
                (Msg::Attribute(a), _) => {
                    self.attribute_rest(m, a);
                    return None;
                }
                (Msg::Function(f), 0) => {
                    let m = m.bytes();
                    put_len(m, 1, f.name.as_bytes());
                    f.inputs.iter().for_each(|s| put_len(m, 4, s.as_bytes()));
                    f.outputs.iter().for_each(|s| put_len(m, 5, s.as_bytes()));
                    f.attribute_names.iter().for_each(|s| put_len(m, 6, s.as_bytes()));
                    None
                }
                (Msg::Function(f), 1) => f.nodes.get(o.index).map(|n| (7, Msg::Node(n))),
                (Msg::Function(f), 2) => {
                    let m = m.bytes();
                    put_str(m, 8, &f.doc);
                    f.opsets.iter().for_each(|o| put_len(m, 9, &opset(o)));
                    put_str(m, 10, &f.domain);
                    None
                }
                (Msg::Function(f), 3) => f.attribute_defaults.get(o.index).map(|a| (11, Msg::Attribute(a))),
                (Msg::Function(f), _) => {
                    let m = m.bytes();
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

    /// A graph's fields after its nodes (1); its initializers may go to the data file.
    fn graph_rest(&mut self, m: &mut Layout<'t>, g: &'t Graph<'_>) {
        put_str(m.bytes(), 2, &g.name);
        for t in &g.initializers {
            let tensor = self.tensor(t, true);
            put_layout(m, 5, tensor);
        }
        put_str(m.bytes(), 10, &g.doc);
        for (number, list) in [(11, &g.inputs), (12, &g.outputs), (13, &g.value_info)] {
            for v in list {
                put_len(m.bytes(), number, &value_info(v));
            }
        }
        for s in &g.sparse_initializers {
            let sparse = self.sparse(s);
            put_layout(m, 15, sparse);
        }
        entries(m.bytes(), 16, &g.metadata);
    }

    /// An attribute's name and the value fields 2 to 10 (a GRAPH (6) or GRAPHS (11) value
    /// is written by `next_child` after this).
    fn attribute_head(&mut self, m: &mut Layout<'t>, a: &'t Attribute<'_>) {
        put_len(m.bytes(), 1, a.name.as_bytes());
        match &a.value {
            Some(AttrValue::Float(f)) => {
                let b = m.bytes();
                put_key(b, 2, 5);
                b.extend_from_slice(&f.to_le_bytes());
            }
            Some(AttrValue::Int(i)) => put_int(m.bytes(), 3, *i),
            Some(AttrValue::String(s)) => put_len(m.bytes(), 4, s),
            Some(AttrValue::Tensor(t)) => {
                let tensor = self.tensor(t, false);
                put_layout(m, 5, tensor);
            }
            Some(AttrValue::Floats(fs)) => {
                let b = m.bytes();
                for f in fs {
                    put_key(b, 7, 5);
                    b.extend_from_slice(&f.to_le_bytes());
                }
            }
            Some(AttrValue::Ints(is)) => is.iter().for_each(|i| put_int(m.bytes(), 8, *i)),
            Some(AttrValue::Strings(ss)) => ss.iter().for_each(|s| put_len(m.bytes(), 9, s)),
            Some(AttrValue::Tensors(ts)) => {
                for t in ts {
                    let tensor = self.tensor(t, false);
                    put_layout(m, 10, tensor);
                }
            }
            _ => {}
        }
    }

    /// An attribute's fields after its graph values: doc, types, type code, reference,
    /// sparse.
    fn attribute_rest(&mut self, m: &mut Layout<'t>, a: &'t Attribute<'_>) {
        let b = m.bytes();
        put_str(b, 13, &a.doc);
        match &a.value {
            Some(AttrValue::Type(t)) => put_len(b, 14, &ty(t)),
            Some(AttrValue::Types(ts)) => ts.iter().for_each(|t| put_len(b, 15, &ty(t))),
            _ => {}
        }
        let code = a.value.as_ref().map_or(a.ty, AttrValue::type_code);
        put_int(b, 20, i64::from(code));
        put_str(b, 21, &a.ref_name);
        match &a.value {
            Some(AttrValue::SparseTensor(s)) => {
                let sparse = self.sparse(s);
                put_layout(m, 22, sparse);
            }
            Some(AttrValue::SparseTensors(ss)) => {
                for s in ss {
                    let sparse = self.sparse(s);
                    put_layout(m, 23, sparse);
                }
            }
            _ => {}
        }
    }

    /// A `TensorProto`. An initializer of at least [`EXTERNAL_THRESHOLD`] bytes goes to the
    /// data file when there is one: its `external_data` names the data file's location,
    /// the offset and the length, and `data_location` is EXTERNAL (1).
    fn tensor(&mut self, t: &'t Tensor<'_>, initializer: bool) -> Layout<'t> {
        let mut m = Layout::default();
        let b = m.bytes();
        for &d in &t.dims {
            put_key(b, 1, 0);
            put_varint(b, d);
        }
        put_int(b, 2, i64::from(t.dtype));
        if let TensorData::Strings(ss) = &t.data {
            ss.iter().for_each(|s| put_len(b, 6, s));
        }
        put_str(b, 8, &t.name);
        let external = match (&mut self.data, t.data.byte_length()) {
            (Some(file), Some(n)) if initializer && n >= EXTERNAL_THRESHOLD => match file.place(&t.data) {
                Some((offset, length)) => Some((file.location, offset, length)),
                None => {
                    let e = Error::at_path(
                        ErrorKind::LimitExceeded,
                        String::from("model"),
                        None,
                        "external data file too large",
                    );
                    self.failure.get_or_insert(e);
                    None
                }
            },
            _ => None,
        };
        if let (None, Some(n)) = (external, t.data.byte_length()) {
            let b = m.bytes();
            put_key(b, 9, 2);
            put_varint(b, n);
            m.tensor(&t.data);
        }
        let b = m.bytes();
        put_str(b, 12, &t.doc);
        if let Some((location, offset, length)) = external {
            for (key, value) in [
                ("location", String::from(location)),
                ("offset", alloc::format!("{offset}")),
                ("length", alloc::format!("{length}")),
            ] {
                let mut entry = Vec::new();
                put_str(&mut entry, 1, key);
                put_str(&mut entry, 2, &value);
                put_len(b, 13, &entry);
            }
            put_int(b, 14, 1);
        }
        entries(b, 16, &t.metadata);
        m
    }

    /// A `SparseTensorProto`: values, indices (both inline), dims.
    fn sparse(&mut self, s: &'t SparseTensor<'_>) -> Layout<'t> {
        let mut m = Layout::default();
        let values = self.tensor(&s.values, false);
        put_layout(&mut m, 1, values);
        let indices = self.tensor(&s.indices, false);
        put_layout(&mut m, 2, indices);
        let b = m.bytes();
        for &d in &s.dims {
            put_key(b, 3, 0);
            put_varint(b, d);
        }
        m
    }
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
