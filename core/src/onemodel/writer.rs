//! The OneModel writer (`spec/onemodel.md` §4): one pass assigns tensor offsets in data order
//! (§1.3), then the canonical manifest (`spec/json.md` §9, members in §2's table order,
//! defaults left out), the header, zero padding and the tensors at multiples of 64. The same
//! model always gives the same bytes.

use super::Limits;
use super::base64;
use super::error::{Error, ErrorKind};
use super::header::{self, ALIGN, FORMAT_VERSION, HEADER_LEN, Header, MAX_FIELD};
use super::model::*;
use super::tensor;
use crate::json::Writer;
use alloc::string::String;
use alloc::vec::Vec;

type R<T> = Result<T, Error>;

fn invalid(kind: ErrorKind, message: &'static str) -> Error {
    Error::at_path(kind, String::from("model"), None, message)
}

/// Calls `f` on every tensor of `g` in data order (§1.3 steps 1–3).
fn graph_tensors<'m, 'a>(g: &'m Graph<'a>, f: &mut impl FnMut(&'m Tensor<'a>)) {
    g.initializers.iter().for_each(&mut *f);
    for s in &g.sparse_initializers {
        f(&s.values);
        f(&s.indices);
    }
    node_tensors(&g.nodes, f);
}

fn node_tensors<'m, 'a>(nodes: &'m [Node<'a>], f: &mut impl FnMut(&'m Tensor<'a>)) {
    for n in nodes {
        attr_tensors(&n.attributes, f);
    }
}

fn attr_tensors<'m, 'a>(attrs: &'m [Attribute<'a>], f: &mut impl FnMut(&'m Tensor<'a>)) {
    for a in attrs {
        match &a.value {
            Some(AttrValue::Tensor(t)) => f(t),
            Some(AttrValue::Tensors(ts)) => ts.iter().for_each(&mut *f),
            Some(AttrValue::SparseTensor(s)) => {
                f(&s.values);
                f(&s.indices);
            }
            Some(AttrValue::SparseTensors(ss)) => {
                for s in ss {
                    f(&s.values);
                    f(&s.indices);
                }
            }
            Some(AttrValue::Graph(g)) => graph_tensors(g, f),
            Some(AttrValue::Graphs(gs)) => gs.iter().for_each(|g| graph_tensors(g, f)),
            _ => {}
        }
    }
}

/// Every tensor of the model in data order (§1.3 steps 1–4).
fn model_tensors<'m, 'a>(m: &'m Model<'a>, f: &mut impl FnMut(&'m Tensor<'a>)) {
    graph_tensors(&m.graph, f);
    for func in &m.functions {
        node_tensors(&func.nodes, f);
        attr_tensors(&func.attribute_defaults, f);
    }
}

/// Checks a tensor the way a reader would (§2.5) so the writer never emits an unreadable
/// file; returns its raw bytes, or `None` for a string tensor.
fn checked_raw<'m>(t: &'m Tensor<'_>) -> R<Option<&'m [u8]>> {
    if !tensor::is_tensor_dtype(t.dtype) {
        return Err(invalid(ErrorKind::Unsupported, "unsupported dtype"));
    }
    if t.dims.iter().any(|&d| d > MAX_FIELD) {
        return Err(invalid(ErrorKind::OutOfRange, "dimension above 2^63 - 1"));
    }
    let count = tensor::element_count(&t.dims).map_err(|k| invalid(k, "element count at 2^60 or more"))?;
    match (&t.data, tensor::bits(t.dtype)) {
        (TensorData::Raw(bytes), Some(bits)) => {
            let bytes: &'m [u8] = bytes;
            let expected = tensor::byte_length(count, bits);
            if expected > u128::from(tensor::MAX_TENSOR_BYTES) {
                return Err(invalid(ErrorKind::Unsupported, "tensor larger than 2^31 - 1 bytes"));
            }
            if u128::try_from(bytes.len()).ok() != Some(expected) {
                return Err(invalid(
                    ErrorKind::OutOfRange,
                    "tensor bytes differ from dtype and dims",
                ));
            }
            Ok(Some(bytes))
        }
        (TensorData::Strings(s), None) if u64::try_from(s.len()).ok() == Some(count) => Ok(None),
        (TensorData::Strings(_), None) => Err(invalid(ErrorKind::OutOfRange, "string count differs from dims")),
        _ => Err(invalid(ErrorKind::Malformed, "tensor data does not match its dtype")),
    }
}

/// Writes `model` as a OneModel file (§4) that [`super::read`] accepts. Fails only for a
/// model no reader with the default limits would accept (§4: bad dtype, bytes that disagree
/// with dims, tensors over 2^31 − 1 bytes, nesting over 64, a manifest over 512 MiB).
pub fn write(model: &Model<'_>) -> R<Vec<u8>> {
    write_with(model, Limits::DEFAULT)
}

/// [`write`] for a reader with `limits`: a model nesting graphs and types deeper than
/// `max_nesting` (§3.2) is LimitExceeded at `model`, and a manifest longer than
/// `max_manifest` (§1.1 check 10, capped like the reader's) is LimitExceeded at the header
/// field `manifest_length`, so the writer never makes a file that reader rejects.
pub fn write_with(model: &Model<'_>, limits: Limits) -> R<Vec<u8>> {
    // Pass 1 (§4 step 1): offsets in data order.
    let mut raws: Vec<&[u8]> = Vec::new();
    let mut failure = None;
    model_tensors(model, &mut |t| match checked_raw(t) {
        Ok(Some(b)) => raws.push(b),
        Ok(None) => {}
        Err(e) => {
            failure.get_or_insert(e);
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    let mut offsets = Vec::with_capacity(raws.len());
    let mut end: u64 = 0;
    for b in &raws {
        let off = header::align_up(end).ok_or_else(|| invalid(ErrorKind::LimitExceeded, "data region too large"))?;
        offsets.push(off);
        end = off
            .checked_add(u64::try_from(b.len()).unwrap_or(u64::MAX))
            .filter(|&e| e <= MAX_FIELD)
            .ok_or_else(|| invalid(ErrorKind::LimitExceeded, "data region too large"))?;
    }
    // Step 2: the manifest.
    let mut w = ManifestWriter {
        w: Writer::new(),
        raws: &raws,
        offsets: &offsets,
        next: 0,
        depth: 0,
        max_nesting: limits.max_nesting,
        too_deep: false,
    };
    w.model(model);
    if w.too_deep {
        return Err(invalid(ErrorKind::LimitExceeded, "graphs and types nested too deeply"));
    }
    let manifest = w.w.finish();
    // `spec/json.md` §9.3: a noncharacter in any string would make the manifest unreadable.
    if !crate::json::is_ijson_text(&manifest) {
        return Err(invalid(ErrorKind::Unsupported, "a string holds a Unicode noncharacter"));
    }
    let manifest = manifest.into_bytes();
    // Step 3: the header, with the manifest within the reader's size limit (§1.1 check 10).
    let manifest_length = u64::try_from(manifest.len()).unwrap_or(u64::MAX);
    if manifest_length > limits.max_manifest.min(crate::json::MAX_INPUT as u64) {
        return Err(Error::header(
            ErrorKind::LimitExceeded,
            "manifest_length",
            16,
            "manifest larger than the reader's limit",
        ));
    }
    let data_offset = header::align_up(HEADER_LEN + manifest_length)
        .ok_or_else(|| invalid(ErrorKind::LimitExceeded, "manifest too large"))?;
    let file_length = data_offset
        .checked_add(end)
        .filter(|&e| e <= MAX_FIELD)
        .ok_or_else(|| invalid(ErrorKind::LimitExceeded, "file too large"))?;
    let h = Header {
        format_version: FORMAT_VERSION,
        manifest_length,
        data_offset,
        data_length: end,
        file_length,
    };
    // Step 4: header, manifest, padding, tensors with zero bytes between.
    let total = usize::try_from(file_length).map_err(|_| invalid(ErrorKind::LimitExceeded, "file too large"))?;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(&header::encode(&h));
    out.extend_from_slice(&manifest);
    for (b, &off) in raws.iter().zip(&offsets) {
        let at = usize::try_from(data_offset + off).unwrap_or(usize::MAX);
        out.resize(at, 0);
        out.extend_from_slice(b);
    }
    out.resize(total, 0);
    Ok(out)
}

const _: () = assert!(ALIGN == 64);

/// Frames raw manifest bytes and a data region as a OneModel file with a correct header and
/// zero padding (§1), checking nothing in them: for hand-assembled files in tests, the
/// hostile corpus and tools. `data` is placed at the first multiple of 64 after the manifest.
pub fn assemble(manifest: &[u8], data: &[u8]) -> Vec<u8> {
    let manifest_length = manifest.len() as u64;
    let data_offset = header::align_up(HEADER_LEN + manifest_length).unwrap_or(u64::MAX);
    let h = Header {
        format_version: FORMAT_VERSION,
        manifest_length,
        data_offset,
        data_length: data.len() as u64,
        file_length: data_offset.saturating_add(data.len() as u64),
    };
    let mut out = Vec::new();
    out.extend_from_slice(&header::encode(&h));
    out.extend_from_slice(manifest);
    out.resize(usize::try_from(data_offset).unwrap_or(usize::MAX), 0);
    out.extend_from_slice(data);
    out
}

struct ManifestWriter<'r, 'b> {
    w: Writer,
    raws: &'r [&'b [u8]],
    offsets: &'r [u64],
    next: usize,
    /// Graphs and types open (§3.2), the most allowed, and whether that was exceeded.
    depth: usize,
    max_nesting: usize,
    too_deep: bool,
}

impl ManifestWriter<'_, '_> {
    /// Counts one more graph or type open (§3.2).
    fn enter(&mut self) {
        self.depth += 1;
        self.too_deep |= self.depth > self.max_nesting;
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    fn opt_str(&mut self, name: &str, v: &str) {
        if !v.is_empty() {
            self.w.name(name).string(v);
        }
    }

    fn strs(&mut self, name: &str, v: &[String], always: bool) {
        if always || !v.is_empty() {
            self.w.name(name).begin_array();
            for s in v {
                self.w.string(s);
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

    fn opsets(&mut self, v: &[OperatorSet]) {
        self.list("opsets", v, |s, o| {
            s.w.begin_object();
            s.opt_str("domain", &o.domain);
            s.w.name("version").u64(o.version);
            s.w.end_object();
        });
    }

    fn model(&mut self, m: &Model<'_>) {
        self.w.begin_object();
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
        self.graph(&m.graph);
        self.list("functions", &m.functions, |s, f| s.function(f));
        self.w.end_object();
    }

    fn graph(&mut self, g: &Graph<'_>) {
        self.enter();
        self.w.begin_object();
        self.opt_str("name", &g.name);
        self.opt_str("doc", &g.doc);
        self.list("initializers", &g.initializers, |s, t| s.tensor(t));
        self.list("sparse_initializers", &g.sparse_initializers, |s, t| s.sparse(t));
        self.list("inputs", &g.inputs, |s, t| s.typed_name(t));
        self.list("outputs", &g.outputs, |s, t| s.typed_name(t));
        self.list("value_info", &g.value_info, |s, t| s.typed_name(t));
        self.list("nodes", &g.nodes, |s, n| s.node(n));
        self.metadata(&g.metadata);
        self.w.end_object();
        self.leave();
    }

    fn typed_name(&mut self, t: &TypedName) {
        self.w.begin_object();
        self.w.name("name").string(&t.name);
        if let Some(ty) = &t.ty {
            self.w.name("type");
            self.ty(ty);
        }
        self.opt_str("doc", &t.doc);
        self.metadata(&t.metadata);
        self.w.end_object();
    }

    fn node(&mut self, n: &Node<'_>) {
        self.w.begin_object();
        self.w.name("name").string(&n.name);
        self.w.name("op").string(&n.op);
        self.w.name("domain").string(&n.domain);
        self.w.name("overload").string(&n.overload);
        self.opt_str("doc", &n.doc);
        self.strs("inputs", &n.inputs, true);
        self.strs("outputs", &n.outputs, true);
        self.w.name("attributes").begin_array();
        for a in &n.attributes {
            self.attribute(a);
        }
        self.w.end_array();
        self.metadata(&n.metadata);
        self.w.end_object();
    }

    fn attribute(&mut self, a: &Attribute<'_>) {
        self.w.begin_object();
        self.w.name("name").string(&a.name);
        let ty = a.value.as_ref().map_or(a.ty, AttrValue::type_code);
        self.w.name("type").u64(u64::from(ty));
        self.opt_str("doc", &a.doc);
        self.opt_str("ref", &a.ref_name);
        if let Some(v) = &a.value {
            self.w.name("value");
            self.attr_value(v);
        }
        self.w.end_object();
    }

    fn attr_value(&mut self, v: &AttrValue<'_>) {
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
            AttrValue::Graph(g) => self.graph(g),
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
            AttrValue::Graphs(gs) => self.array(gs, |s, g| s.graph(g)),
            AttrValue::SparseTensor(t) => self.sparse(t),
            AttrValue::SparseTensors(ts) => self.array(ts, |s, t| s.sparse(t)),
            AttrValue::Type(t) => self.ty(t),
            AttrValue::Types(ts) => self.array(ts, |s, t| s.ty(t)),
        }
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
            TensorData::Raw(_) => {
                let i = self.next;
                self.next += 1;
                let off = self.offsets.get(i).copied().unwrap_or(0);
                let len = self.raws.get(i).map_or(0, |b| b.len());
                self.w.name("data").begin_object();
                self.w.name("offset").u64(off);
                self.w.name("length").u64(u64::try_from(len).unwrap_or(u64::MAX));
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

    fn sparse(&mut self, s: &SparseTensor<'_>) {
        self.w.begin_object();
        self.w.name("values");
        self.tensor(&s.values);
        self.w.name("indices");
        self.tensor(&s.indices);
        self.dims("dims", &s.dims);
        self.w.end_object();
    }

    fn ty(&mut self, t: &Type) {
        self.enter();
        self.w.begin_object();
        let kind = match &t.kind {
            TypeKind::Tensor { .. } => "tensor",
            TypeKind::SparseTensor { .. } => "sparse_tensor",
            TypeKind::Sequence(_) => "sequence",
            TypeKind::Map { .. } => "map",
            TypeKind::Optional(_) => "optional",
        };
        self.w.name("kind").string(kind);
        self.opt_str("denotation", &t.denotation);
        match &t.kind {
            TypeKind::Tensor { elem_type, shape } | TypeKind::SparseTensor { elem_type, shape } => {
                if *elem_type != 0 {
                    self.w.name("elem_type").u64(u64::from(*elem_type));
                }
                if let Some(shape) = shape {
                    self.w.name("shape");
                    self.array(shape, |s, d| s.dim(d));
                }
            }
            TypeKind::Sequence(e) | TypeKind::Optional(e) => {
                self.w.name("elem");
                self.ty(e);
            }
            TypeKind::Map { key_type, value } => {
                if *key_type != 0 {
                    self.w.name("key_type").u64(u64::from(*key_type));
                }
                self.w.name("value");
                self.ty(value);
            }
        }
        self.w.end_object();
        self.leave();
    }

    fn dim(&mut self, d: &Dim) {
        self.w.begin_object();
        match &d.value {
            DimValue::Unknown => {}
            DimValue::Value(v) => {
                self.w.name("value").u64(*v);
            }
            DimValue::Param(p) => {
                self.w.name("param").string(p);
            }
        }
        self.opt_str("denotation", &d.denotation);
        self.w.end_object();
    }

    fn function(&mut self, f: &Function<'_>) {
        // A function body is level 1 (§3.2).
        let outer = core::mem::replace(&mut self.depth, 1);
        self.w.begin_object();
        self.w.name("name").string(&f.name);
        self.opt_str("domain", &f.domain);
        self.opt_str("overload", &f.overload);
        self.opt_str("doc", &f.doc);
        self.strs("inputs", &f.inputs, false);
        self.strs("outputs", &f.outputs, false);
        self.strs("attribute_names", &f.attribute_names, false);
        // Data order puts the nodes' tensors before the defaults' (§1.3 step 4), while the
        // manifest lists attribute_defaults first: skip ahead, then come back.
        let first = self.next;
        let mut in_nodes = 0usize;
        node_tensors(&f.nodes, &mut |t| {
            in_nodes += usize::from(matches!(t.data, TensorData::Raw(_)))
        });
        self.next = first + in_nodes;
        self.list("attribute_defaults", &f.attribute_defaults, |s, a| s.attribute(a));
        let after = self.next;
        self.next = first;
        self.list("nodes", &f.nodes, |s, n| s.node(n));
        self.next = after;
        self.opsets(&f.opsets);
        self.list("value_info", &f.value_info, |s, t| s.typed_name(t));
        self.metadata(&f.metadata);
        self.w.end_object();
        self.depth = outer;
    }
}
