//! The canonical manifest (`spec/onemodel.md` §4 step 2, `spec/json.md` §9): members in the
//! order of §2's tables, defaults left out, tensors' `data` at the offsets of the first
//! pass. Graphs, nodes, attributes and functions are written from a heap stack of open
//! tables, and types by a loop, so the machine stack needed does not grow with the
//! model's nesting (§3.3); graphs and types are counted as §3.2 counts them.

use super::data_order::node_tensors;
use super::invalid;
use crate::invariant;
use crate::json::Writer;
use crate::onemodel::base64;
use crate::onemodel::error::{Error, ErrorKind};
use crate::onemodel::header::MAX_FIELD;
use crate::onemodel::model::GraphHolder as Msg;
use crate::onemodel::model::*;
use crate::onemodel::tensor;
use crate::onemodel::unique;
use alloc::borrow::Cow;

pub(super) struct ManifestWriter<'r> {
    pub(super) w: Writer,
    /// Each tensor with `data` in data order (§1.3): its offset in the data region and length.
    pub(super) placed: &'r [(u64, u64)],
    /// The next tensor with `data`, in data order (§1.3).
    pub(super) next: usize,
    /// The most graphs and types open at once (§3.2).
    pub(super) max_nesting: usize,
    /// The first rule of §2 or §3.2 the model breaks, in writing order: the file would be
    /// unreadable, so the writer refuses it (§4).
    pub(super) failure: Option<Error>,
}

/// An open table: its nesting level (§3.2), `stage` counts the runs of members and child
/// lists written, `index` the next child; a function keeps the tensor positions of its
/// nodes (`first`) and after its defaults (`after`).
struct Open<'m, 'a> {
    msg: Msg<'m, 'a>,
    depth: usize,
    stage: u8,
    index: usize,
    first: usize,
    after: usize,
}

impl<'m, 'a> Open<'m, 'a> {
    fn new(msg: Msg<'m, 'a>, depth: usize) -> Self {
        Open {
            msg,
            depth,
            stage: 0,
            index: 0,
            first: 0,
            after: 0,
        }
    }
}

impl ManifestWriter<'_> {
    /// Records that the model breaks a reader's rule (the first one is reported).
    fn fail(&mut self, kind: ErrorKind, message: impl Into<Cow<'static, str>>) {
        self.failure.get_or_insert_with(|| invalid(kind, message));
    }

    /// Checks a value that a reader reads as an integer 0..=2^63 − 1 (§1.2).
    fn u63(&mut self, v: u64, message: &'static str) {
        if v > MAX_FIELD {
            self.fail(ErrorKind::OutOfRange, message);
        }
    }

    /// The Model table (§2.1).
    pub(super) fn model(&mut self, m: &Model<'_>) {
        self.w.begin_object();
        self.u63(m.ir_version, "ir_version above 2^63 - 1");
        self.w.name("ir_version").u64(m.ir_version);
        self.opsets(&m.opsets);
        self.opt_str("producer_name", &m.producer_name);
        self.opt_str("producer_version", &m.producer_version);
        self.opt_str("domain", &m.domain);
        if m.model_version != 0 {
            self.w.name("model_version").i64(m.model_version);
        }
        self.opt_str("doc", &m.doc);
        self.metadata(&m.metadata);
        self.w.name("graph");
        self.table(Msg::Graph(&m.graph), 1);
        // §2.8: no two functions with the same (domain, name, overload).
        if unique::duplicate_function(&m.functions).is_some() {
            self.fail(
                ErrorKind::Malformed,
                "second function with this domain, name and overload",
            );
        }
        // A function body is level 1 (§3.2).
        self.list("functions", &m.functions, |s, f| s.table(Msg::Function(f), 1));
        self.w.end_object();
    }

    /// Writes `msg` and everything it holds: the top table writes its members up to its
    /// next child, which is pushed; a finished table is popped.
    fn table<'m, 'a>(&mut self, msg: Msg<'m, 'a>, depth: usize) {
        let mut stack = alloc::vec![Open::new(msg, depth)];
        while let Some(top) = stack.last_mut() {
            match self.next_child(top) {
                Some(child) => stack.push(child),
                None => {
                    stack.pop();
                }
            }
        }
    }

    /// Writes `o`'s members up to its next child table and returns it, or `None` when `o`
    /// is complete.
    fn next_child<'m, 'a>(&mut self, o: &mut Open<'m, 'a>) -> Option<Open<'m, 'a>> {
        loop {
            let child = match o.msg {
                Msg::Graph(g) => self.graph_step(g, o),
                Msg::Node(n) => self.node_step(n, o),
                Msg::Attribute(a) => self.attribute_step(a, o),
                Msg::Function(f) => self.function_step(f, o),
            };
            match child {
                Step::Child(msg, depth) => {
                    o.index += 1;
                    return Some(Open::new(msg, depth));
                }
                Step::Next => {
                    o.stage += 1;
                    o.index = 0;
                }
                Step::Done => return None,
            }
        }
    }

    /// The Graph table (§2.2): members up to `nodes`, the nodes, then `metadata`. A graph
    /// beyond the nesting limit is not descended into (the write fails, §4).
    fn graph_step<'m, 'a>(&mut self, g: &'m Graph<'a>, o: &Open<'m, 'a>) -> Step<'m, 'a> {
        match o.stage {
            0 => {
                if o.depth > self.max_nesting {
                    self.fail(ErrorKind::LimitExceeded, "graphs and types nested too deeply");
                    return Step::Done;
                }
                self.w.begin_object();
                self.opt_str("name", &g.name);
                self.opt_str("doc", &g.doc);
                self.list("initializers", &g.initializers, |s, t| s.tensor(t));
                self.list("sparse_initializers", &g.sparse_initializers, |s, t| s.sparse(t));
                let depth = o.depth;
                self.list("inputs", &g.inputs, |s, t| s.typed_name(t, depth));
                self.list("outputs", &g.outputs, |s, t| s.typed_name(t, depth));
                self.list("value_info", &g.value_info, |s, t| s.typed_name(t, depth));
                if !g.nodes.is_empty() {
                    self.w.name("nodes").begin_array();
                }
                Step::Next
            }
            1 => child(g.nodes.get(o.index).map(Msg::Node), o.depth),
            _ => {
                if !g.nodes.is_empty() {
                    self.w.end_array();
                }
                self.metadata(&g.metadata);
                self.w.end_object();
                Step::Done
            }
        }
    }

    /// The Node table (§2.3); `name`, `domain`, `overload`, `inputs`, `outputs` and
    /// `attributes` always written.
    fn node_step<'m, 'a>(&mut self, n: &'m Node<'a>, o: &Open<'m, 'a>) -> Step<'m, 'a> {
        match o.stage {
            0 => {
                self.w.begin_object();
                self.w.name("name").string(&n.name);
                self.w.name("op").string(&n.op);
                self.w.name("domain").string(&n.domain);
                self.w.name("overload").string(&n.overload);
                self.opt_str("doc", &n.doc);
                self.strs("inputs", &n.inputs, true);
                self.strs("outputs", &n.outputs, true);
                self.w.name("attributes").begin_array();
                Step::Next
            }
            1 => child(n.attributes.get(o.index).map(Msg::Attribute), o.depth),
            _ => {
                self.w.end_array();
                self.metadata(&n.metadata);
                self.w.end_object();
                Step::Done
            }
        }
    }

    /// The Attribute table (§2.4); GRAPH and GRAPHS values are child tables one level down.
    fn attribute_step<'m, 'a>(&mut self, a: &'m Attribute<'a>, o: &Open<'m, 'a>) -> Step<'m, 'a> {
        match (o.stage, &a.value) {
            (0, value) => {
                // §2.4: a reference has a type 1..=14 and no value; any other attribute a value.
                match (value, a.ref_name.is_empty()) {
                    (Some(_), false) => self.fail(ErrorKind::Malformed, "a reference attribute has no value"),
                    (None, _) if a.ty > 14 => self.fail(
                        ErrorKind::Unsupported,
                        tensor::unsupported_code("attribute type", a.ty, tensor::is_attribute_type),
                    ),
                    (None, _) if a.ty == 0 => self.fail(ErrorKind::Malformed, "attribute type 0 (undefined)"),
                    (None, true) => self.fail(ErrorKind::Malformed, "attribute value is missing"),
                    _ => {}
                }
                self.w.begin_object();
                self.w.name("name").string(&a.name);
                let ty = value.as_ref().map_or(a.ty, AttrValue::type_code);
                self.w.name("type").u64(u64::from(ty));
                self.opt_str("doc", &a.doc);
                self.opt_str("ref", &a.ref_name);
                match value {
                    Some(AttrValue::Graph(_)) => {
                        self.w.name("value");
                    }
                    Some(AttrValue::Graphs(_)) => {
                        self.w.name("value").begin_array();
                    }
                    Some(v) => {
                        self.w.name("value");
                        self.attr_value(v, o.depth);
                        self.w.end_object();
                        return Step::Done;
                    }
                    None => {
                        self.w.end_object();
                        return Step::Done;
                    }
                }
                Step::Next
            }
            (1, Some(AttrValue::Graph(g))) if o.index == 0 => Step::Child(Msg::Graph(g), o.depth + 1),
            (1, Some(AttrValue::Graphs(gs))) => child(gs.get(o.index).map(Msg::Graph), o.depth + 1),
            (1, _) => Step::Next,
            (_, value) => {
                if let Some(AttrValue::Graphs(_)) = value {
                    self.w.end_array();
                }
                self.w.end_object();
                Step::Done
            }
        }
    }

    /// The Function table (§2.8). Data order puts the nodes' tensors before the defaults'
    /// (§1.3 step 4), while the manifest lists `attribute_defaults` first: skip ahead, then
    /// come back.
    fn function_step<'m, 'a>(&mut self, f: &'m Function<'a>, o: &mut Open<'m, 'a>) -> Step<'m, 'a> {
        match o.stage {
            0 => {
                self.w.begin_object();
                self.w.name("name").string(&f.name);
                self.opt_str("domain", &f.domain);
                self.opt_str("overload", &f.overload);
                self.opt_str("doc", &f.doc);
                self.strs("inputs", &f.inputs, false);
                self.strs("outputs", &f.outputs, false);
                self.strs("attribute_names", &f.attribute_names, false);
                o.first = self.next;
                let mut in_nodes = 0usize;
                node_tensors(&f.nodes, &mut |t| {
                    in_nodes += usize::from(t.data.byte_length().is_some())
                });
                self.next = o.first + in_nodes;
                if !f.attribute_defaults.is_empty() {
                    self.w.name("attribute_defaults").begin_array();
                }
                Step::Next
            }
            1 => child(f.attribute_defaults.get(o.index).map(Msg::Attribute), o.depth),
            2 => {
                if !f.attribute_defaults.is_empty() {
                    self.w.end_array();
                }
                o.after = self.next;
                self.next = o.first;
                if !f.nodes.is_empty() {
                    self.w.name("nodes").begin_array();
                }
                Step::Next
            }
            3 => child(f.nodes.get(o.index).map(Msg::Node), o.depth),
            _ => {
                if !f.nodes.is_empty() {
                    self.w.end_array();
                }
                self.next = o.after;
                self.opsets(&f.opsets);
                let depth = o.depth;
                self.list("value_info", &f.value_info, |s, t| s.typed_name(t, depth));
                self.metadata(&f.metadata);
                self.w.end_object();
                Step::Done
            }
        }
    }

    /// TypedName (§2.2) in a table at level `depth`; its type is one level down.
    fn typed_name(&mut self, t: &TypedName, depth: usize) {
        self.w.begin_object();
        self.w.name("name").string(&t.name);
        if let Some(ty) = &t.ty {
            self.w.name("type");
            self.ty(ty, depth + 1);
        }
        self.opt_str("doc", &t.doc);
        self.metadata(&t.metadata);
        self.w.end_object();
    }

    /// A value of a type other than GRAPH and GRAPHS (§2.4 value table).
    fn attr_value(&mut self, v: &AttrValue<'_>, depth: usize) {
        match v {
            AttrValue::Float(f) => {
                self.w.u64(u64::from(*f));
            }
            AttrValue::Int(i) => {
                self.w.i64(*i);
            }
            AttrValue::String(b) => {
                self.w.string(&base64::encode(b));
            }
            AttrValue::Tensor(t) => self.tensor(t),
            AttrValue::Floats(fs) => self.array(fs, |s, f| {
                s.w.u64(u64::from(*f));
            }),
            AttrValue::Ints(is) => self.array(is, |s, i| {
                s.w.i64(*i);
            }),
            AttrValue::Strings(bs) => self.array(bs, |s, b| {
                s.w.string(&base64::encode(b));
            }),
            AttrValue::Tensors(ts) => self.array(ts, |s, t| s.tensor(t)),
            AttrValue::SparseTensor(t) => self.sparse(t),
            AttrValue::SparseTensors(ts) => self.array(ts, |s, t| s.sparse(t)),
            AttrValue::Type(t) => self.ty(t, depth + 1),
            AttrValue::Types(ts) => self.array(ts, |s, t| s.ty(t, depth + 1)),
            AttrValue::Graph(_) | AttrValue::Graphs(_) => {}
        }
    }

    /// Type (§2.7) at level `depth`, written by a loop: each wrapper's members down to its
    /// `elem` or `value`, the tensor type at the bottom, then the wrappers' closing braces.
    fn ty(&mut self, t: &Type, depth: usize) {
        let mut at = t;
        let mut level = depth;
        loop {
            if level > self.max_nesting {
                self.fail(ErrorKind::LimitExceeded, "graphs and types nested too deeply");
            }
            self.w.begin_object();
            let kind = match &at.kind {
                TypeKind::Tensor { .. } => "tensor",
                TypeKind::SparseTensor { .. } => "sparse_tensor",
                TypeKind::Sequence(_) => "sequence",
                TypeKind::Map { .. } => "map",
                TypeKind::Optional(_) => "optional",
            };
            self.w.name("kind").string(kind);
            self.opt_str("denotation", &at.denotation);
            match &at.kind {
                TypeKind::Tensor { elem_type, shape } | TypeKind::SparseTensor { elem_type, shape } => {
                    self.elem_code(*elem_type);
                    if *elem_type != 0 {
                        self.w.name("elem_type").u64(u64::from(*elem_type));
                    }
                    if let Some(shape) = shape {
                        self.w.name("shape");
                        self.array(shape, |s, d| s.dim(d));
                    }
                    break;
                }
                TypeKind::Sequence(e) | TypeKind::Optional(e) => {
                    self.w.name("elem");
                    at = e;
                }
                TypeKind::Map { key_type, value } => {
                    self.elem_code(*key_type);
                    if *key_type != 0 {
                        self.w.name("key_type").u64(u64::from(*key_type));
                    }
                    self.w.name("value");
                    at = value;
                }
            }
            level += 1;
        }
        for _ in depth..=level {
            self.w.end_object();
        }
    }

    /// `elem_type` and `key_type`: 0 or a dtype code (§2.7).
    fn elem_code(&mut self, code: u8) {
        if !tensor::is_elem_type(code) {
            self.fail(
                ErrorKind::Unsupported,
                tensor::unsupported_code("element type", code, tensor::is_elem_type),
            );
        }
    }

    fn opt_str(&mut self, name: &str, v: &str) {
        if !v.is_empty() {
            self.w.name(name).string(v);
        }
    }

    fn strs(&mut self, name: &str, v: &[impl AsRef<str>], always: bool) {
        if always || !v.is_empty() {
            self.w.name(name).begin_array();
            for s in v {
                self.w.string(s.as_ref());
            }
            self.w.end_array();
        }
    }

    fn list<T>(&mut self, name: &str, v: &[T], mut item: impl FnMut(&mut Self, &T)) {
        if !v.is_empty() {
            self.w.name(name).begin_array();
            for x in v {
                item(self, x);
            }
            self.w.end_array();
        }
    }

    fn metadata(&mut self, v: &[StringEntry]) {
        self.list("metadata", v, |s, e| {
            s.w.begin_object();
            s.opt_str("key", &e.key);
            s.opt_str("value", &e.value);
            s.w.end_object();
        });
    }

    /// OperatorSet list (§2.1): versions 0..=2^63 − 1, one set per domain.
    fn opsets(&mut self, v: &[OperatorSet]) {
        if unique::duplicate_opset(v).is_some() {
            self.fail(ErrorKind::Malformed, "second operator set for one domain");
        }
        self.list("opsets", v, |s, o| {
            s.u63(o.version, "operator set version above 2^63 - 1");
            s.w.begin_object();
            s.opt_str("domain", &o.domain);
            s.w.name("version").u64(o.version);
            s.w.end_object();
        });
    }

    fn array<T>(&mut self, v: &[T], mut item: impl FnMut(&mut Self, &T)) {
        self.w.begin_array();
        for x in v {
            item(self, x);
        }
        self.w.end_array();
    }

    fn dims(&mut self, name: &str, dims: &[u64]) {
        self.w.name(name).begin_array();
        for &d in dims {
            self.w.u64(d);
        }
        self.w.end_array();
    }

    fn tensor(&mut self, t: &Tensor<'_>) {
        self.w.begin_object();
        self.opt_str("name", &t.name);
        self.w.name("dtype").u64(u64::from(t.dtype));
        self.dims("dims", &t.dims);
        self.opt_str("doc", &t.doc);
        match &t.data {
            TensorData::Raw(_) | TensorData::File(_) => {
                let i = self.next;
                self.next += 1;
                let (off, len) = invariant::item(self.placed, i);
                self.w.name("data").begin_object();
                self.w.name("offset").u64(off);
                self.w.name("length").u64(len);
                self.w.end_object();
            }
            TensorData::Strings(ss) => {
                self.w.name("strings");
                self.array(ss, |s, b| {
                    s.w.string(&base64::encode(b));
                });
            }
        }
        self.metadata(&t.metadata);
        self.w.end_object();
    }

    /// SparseTensor (§2.6): int64 indices, dims as a tensor's (§2.5).
    fn sparse(&mut self, s: &SparseTensor<'_>) {
        if s.indices.dtype != 7 {
            let message = alloc::format!("sparse indices must be int64 (dtype 7), not dtype {}", s.indices.dtype);
            self.fail(ErrorKind::Malformed, message);
        }
        if s.dims.iter().any(|&d| d > MAX_FIELD) {
            self.fail(ErrorKind::OutOfRange, "dimension above 2^63 - 1");
        }
        if let Err(kind) = tensor::element_count(&s.dims) {
            self.fail(kind, "element count at 2^60 or more");
        }
        self.w.begin_object();
        self.w.name("values");
        self.tensor(&s.values);
        self.w.name("indices");
        self.tensor(&s.indices);
        self.dims("dims", &s.dims);
        self.w.end_object();
    }

    fn dim(&mut self, d: &Dim) {
        self.w.begin_object();
        match &d.value {
            DimValue::Unknown => {}
            DimValue::Value(v) => {
                self.u63(*v, "dimension above 2^63 - 1");
                self.w.name("value").u64(*v);
            }
            DimValue::Param(p) => {
                self.w.name("param").string(p);
            }
        }
        self.opt_str("denotation", &d.denotation);
        self.w.end_object();
    }
}

/// What a table's step did: opened a child table (at a level), finished a run, or finished.
enum Step<'m, 'a> {
    Child(Msg<'m, 'a>, usize),
    Next,
    Done,
}

fn child<'m, 'a>(msg: Option<Msg<'m, 'a>>, depth: usize) -> Step<'m, 'a> {
    match msg {
        Some(m) => Step::Child(m, depth),
        None => Step::Next,
    }
}
