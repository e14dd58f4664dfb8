//! The bounded ONNX reader (`spec/onemodel.md` §6): `ModelProto` and every message it
//! contains, decoded by hand from the protobuf wire format into the same [`Model`] the
//! OneModel reader produces. Lengths are checked before use (`wire`), graph and type nesting
//! is bounded like OneModel's (§3.2), singular fields may appear once, strings must be
//! UTF-8, tensors are checked against dtype and dims, and `raw_data` stays a view of the
//! input. Failures use OneModel's four kinds with a path such as `onnx.graph.node[3]`.

use super::wire::{Field, Fields, Value, WireError};
use crate::onemodel::error::{Error, ErrorKind};
use crate::onemodel::model::*;
use crate::onemodel::tensor;
use alloc::borrow::Cow;
use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

type R<T> = Result<T, Error>;

/// Runs `$body` for each field of the message `$buf` at absolute offset `$base`, with `$d`
/// the decoder and `$f` the field, rejecting a second occurrence of any number in
/// `$singular` (§6.1). A macro rather than a closure-taking method so that nesting costs
/// one stack frame per message level (graphs nest 64 deep).
macro_rules! each {
    ($self:ident, $buf:expr, $base:expr, $singular:expr, |$d:ident, $f:ident| $body:block) => {{
        let mut seen: u64 = 0;
        for field in Fields::new($buf, $base) {
            let $f = field.map_err(|e| $self.wire(e))?;
            if $singular.contains(&$f.number) && $f.number < 64 {
                let bit = 1u64 << $f.number;
                if seen & bit != 0 {
                    return Err($self.error(ErrorKind::Malformed, $f.offset, "singular field repeated"));
                }
                seen |= bit;
            }
            let $d = &mut *$self;
            let step: R<()> = $body;
            step?;
        }
    }};
}

/// Evaluates `$e` with `$seg` appended to the decoder's path.
macro_rules! nested {
    ($d:ident, $seg:expr, $e:expr) => {{
        $d.path.push($seg);
        let r = $e;
        $d.path.pop();
        r
    }};
}

#[derive(Clone, Copy)]
enum Seg {
    Name(&'static str),
    Index(&'static str, usize),
}

/// Reader limits for ONNX input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Most graphs and types open at once (64, as OneModel §3.2).
    pub max_nesting: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_nesting: 64 }
    }
}

/// Where an ONNX tensor's bytes live outside the model file (`TensorProto.external_data`,
/// §6.2): a path relative to the model's folder, an offset and an optional length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExternalRef<'s> {
    /// `location`: a relative path; the resolver decides whether it is acceptable.
    pub location: &'s str,
    /// `offset` (0 when absent).
    pub offset: u64,
    /// `length` (the rest of the file when absent).
    pub length: Option<u64>,
    /// The byte length dtype × dims require; the resolver must return exactly this many.
    pub expected: u64,
}

/// Why a resolver could not supply external bytes: a kind and a message.
pub type ExternalError = (ErrorKind, &'static str);

/// Supplies the bytes of an external tensor (std-io reads them from the model's folder).
pub type Resolver<'r> = dyn FnMut(&ExternalRef<'_>) -> Result<Vec<u8>, ExternalError> + 'r;

struct Decoder<'r> {
    path: Vec<Seg>,
    max_nesting: usize,
    resolver: Option<&'r mut Resolver<'r>>,
}

/// Decodes a serialised `ModelProto` (`spec/onemodel.md` §6). Tensors with `raw_data` are
/// views of `bytes`; typed fields (`float_data`, …) are converted to `raw_data` layout.
/// Tensors kept in external files are `Unsupported` here (the std-io converter resolves
/// them before conversion). Names are not resolved: call [`crate::onemodel::names::resolve`].
pub fn read_model(bytes: &[u8], limits: Limits) -> R<Model<'_>> {
    let mut d = Decoder {
        path: Vec::new(),
        max_nesting: limits.max_nesting,
        resolver: None,
    };
    d.model(bytes, 0)
}

/// [`read_model`] with a resolver for tensors kept in external files: their bytes are
/// copied into the model (§4: external weights are copied into the data region).
pub fn read_model_with<'a, 'r>(bytes: &'a [u8], limits: Limits, resolver: &'r mut Resolver<'r>) -> R<Model<'a>> {
    let mut d = Decoder {
        path: Vec::new(),
        max_nesting: limits.max_nesting,
        resolver: Some(resolver),
    };
    d.model(bytes, 0)
}

/// A decimal ASCII integer without sign or leading zeros (external_data offset/length).
fn decimal(s: &str) -> Option<u64> {
    if s.is_empty() || (s.len() > 1 && s.starts_with('0')) || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

fn utf8(b: &[u8]) -> Option<String> {
    core::str::from_utf8(b).ok().map(String::from)
}

impl Decoder<'_> {
    fn error(&self, kind: ErrorKind, offset: usize, message: &'static str) -> Error {
        let mut path = String::from("onnx");
        for s in &self.path {
            match s {
                Seg::Name(n) => {
                    path.push('.');
                    path.push_str(n);
                }
                Seg::Index(n, i) => {
                    let _ = write!(path, ".{n}[{i}]");
                }
            }
        }
        Error::at_path(kind, path, Some(offset as u64), message)
    }

    fn wire(&self, e: WireError) -> Error {
        self.error(ErrorKind::Malformed, e.offset, e.what)
    }

    fn bytes<'a>(&self, f: &Field<'a>) -> R<&'a [u8]> {
        match f.value {
            Value::Len(b) => Ok(b),
            _ => Err(self.error(ErrorKind::Malformed, f.offset, "wrong wire type")),
        }
    }

    fn string(&self, f: &Field<'_>) -> R<String> {
        let b = self.bytes(f)?;
        utf8(b).ok_or_else(|| self.error(ErrorKind::Malformed, f.payload, "string is not UTF-8"))
    }

    fn varint(&self, f: &Field<'_>) -> R<u64> {
        match f.value {
            Value::Varint(v) => Ok(v),
            _ => Err(self.error(ErrorKind::Malformed, f.offset, "wrong wire type")),
        }
    }

    fn int64(&self, f: &Field<'_>) -> R<i64> {
        Ok(self.varint(f)? as i64)
    }

    fn int32(&self, f: &Field<'_>) -> R<i32> {
        i32::try_from(self.int64(f)?).map_err(|_| self.error(ErrorKind::OutOfRange, f.payload, "int32 out of range"))
    }

    fn nonneg(&self, f: &Field<'_>) -> R<u64> {
        u64::try_from(self.int64(f)?).map_err(|_| self.error(ErrorKind::OutOfRange, f.payload, "negative value"))
    }

    /// Repeated varints, packed or not.
    fn push_varints(&self, f: &Field<'_>, out: &mut Vec<u64>) -> R<()> {
        match f.value {
            Value::Varint(v) => out.push(v),
            Value::Len(b) => {
                let mut pos = 0;
                while pos < b.len() {
                    let (v, next) = super::wire::varint(b, pos, f.payload).map_err(|e| self.wire(e))?;
                    out.push(v);
                    pos = next;
                }
            }
            _ => return Err(self.error(ErrorKind::Malformed, f.offset, "wrong wire type")),
        }
        Ok(())
    }

    /// Repeated fixed-size values (4 or 8 bytes), packed or not, as little-endian u64.
    fn push_fixed(&self, f: &Field<'_>, width: usize, out: &mut Vec<u64>) -> R<()> {
        match (f.value, width) {
            (Value::Fixed32(v), 4) => out.push(u64::from(v)),
            (Value::Fixed64(v), 8) => out.push(v),
            (Value::Len(b), _) if b.len() % width == 0 => {
                for c in b.chunks_exact(width) {
                    let mut w = [0u8; 8];
                    w.get_mut(..width).unwrap_or_default().copy_from_slice(c);
                    out.push(u64::from_le_bytes(w));
                }
            }
            (Value::Len(_), _) => {
                return Err(self.error(
                    ErrorKind::Malformed,
                    f.payload,
                    "packed length not a multiple of the width",
                ));
            }
            _ => return Err(self.error(ErrorKind::Malformed, f.offset, "wrong wire type")),
        }
        Ok(())
    }

    fn enter(&self, depth: usize, offset: usize) -> R<()> {
        if depth > self.max_nesting {
            return Err(self.error(ErrorKind::LimitExceeded, offset, "graphs and types nested too deeply"));
        }
        Ok(())
    }

    fn model<'a>(&mut self, buf: &'a [u8], base: usize) -> R<Model<'a>> {
        let mut m = Model::default();
        let mut graph = None;
        let mut has_ir = false;
        let (mut n_opset, mut n_meta, mut n_fn) = (0, 0, 0);
        each!(self, buf, base, &[1, 2, 3, 4, 5, 6, 7], |d, f| {
            match f.number {
                1 => {
                    m.ir_version = d.nonneg(&f)?;
                    has_ir = true;
                }
                2 => m.producer_name = d.string(&f)?,
                3 => m.producer_version = d.string(&f)?,
                4 => m.domain = d.string(&f)?,
                5 => m.model_version = d.int64(&f)?,
                6 => m.doc = d.string(&f)?,
                7 => {
                    let b = d.bytes(&f)?;
                    graph = Some(nested!(d, Seg::Name("graph"), d.graph(b, f.payload, 1))?);
                }
                8 => {
                    let b = d.bytes(&f)?;
                    m.opsets
                        .push(nested!(d, Seg::Index("opset_import", n_opset), d.opset(b, f.payload))?);
                    n_opset += 1;
                }
                14 => {
                    let b = d.bytes(&f)?;
                    m.metadata
                        .push(nested!(d, Seg::Index("metadata_props", n_meta), d.entry(b, f.payload))?);
                    n_meta += 1;
                }
                20 => {
                    return Err(d.error(ErrorKind::Unsupported, f.offset, "training_info is not carried"));
                }
                25 => {
                    let b = d.bytes(&f)?;
                    m.functions
                        .push(nested!(d, Seg::Index("functions", n_fn), d.function(b, f.payload))?);
                    n_fn += 1;
                }
                _ => {}
            }
            Ok(())
        });
        if !has_ir {
            return Err(self.error(ErrorKind::Malformed, base, "ir_version is missing"));
        }
        // The manifest rules of §2.1 and §2.8, so a converted model is one OneModel accepts.
        self.unique_opsets(&m.opsets, base)?;
        let mut seen = alloc::collections::BTreeSet::new();
        for f in &m.functions {
            self.unique_opsets(&f.opsets, base)?;
            if !seen.insert((f.domain.as_str(), f.name.as_str(), f.overload.as_str())) {
                return Err(self.error(
                    ErrorKind::Malformed,
                    base,
                    "second function with this domain, name and overload",
                ));
            }
        }
        m.graph = graph.ok_or_else(|| self.error(ErrorKind::Malformed, base, "graph is missing"))?;
        Ok(m)
    }

    fn unique_opsets(&self, opsets: &[OperatorSet], at: usize) -> R<()> {
        let mut seen = alloc::collections::BTreeSet::new();
        for o in opsets {
            if !seen.insert(crate::onemodel::manifest_domain(&o.domain)) {
                return Err(self.error(ErrorKind::Malformed, at, "second operator set for one domain"));
            }
        }
        Ok(())
    }

    fn opset(&mut self, buf: &[u8], base: usize) -> R<OperatorSet> {
        let mut o = OperatorSet::default();
        each!(self, buf, base, &[1, 2], |d, f| {
            match f.number {
                1 => o.domain = d.string(&f)?,
                2 => o.version = d.nonneg(&f)?,
                _ => {}
            }
            Ok(())
        });
        Ok(o)
    }

    fn entry(&mut self, buf: &[u8], base: usize) -> R<StringEntry> {
        let mut e = StringEntry::default();
        each!(self, buf, base, &[1, 2], |d, f| {
            match f.number {
                1 => e.key = d.string(&f)?,
                2 => e.value = d.string(&f)?,
                _ => {}
            }
            Ok(())
        });
        Ok(e)
    }

    fn graph<'a>(&mut self, buf: &'a [u8], base: usize, depth: usize) -> R<Graph<'a>> {
        self.enter(depth, base)?;
        let mut g = Graph::default();
        let mut n = [0usize; 17];
        each!(self, buf, base, &[2, 10], |d, f| {
            let i = n.get(f.number as usize).copied().unwrap_or(0);
            if let Some(c) = n.get_mut(f.number as usize) {
                *c += 1;
            }
            match f.number {
                1 => {
                    let b = d.bytes(&f)?;
                    g.nodes
                        .push(nested!(d, Seg::Index("node", i), d.node(b, f.payload, depth))?);
                }
                2 => g.name = d.string(&f)?,
                5 => {
                    let b = d.bytes(&f)?;
                    g.initializers
                        .push(nested!(d, Seg::Index("initializer", i), d.tensor(b, f.payload))?);
                }
                10 => g.doc = d.string(&f)?,
                11..=13 => {
                    let b = d.bytes(&f)?;
                    let name = match f.number {
                        11 => "input",
                        12 => "output",
                        _ => "value_info",
                    };
                    let v = nested!(d, Seg::Index(name, i), d.value_info(b, f.payload, depth))?;
                    match f.number {
                        11 => g.inputs.push(v),
                        12 => g.outputs.push(v),
                        _ => g.value_info.push(v),
                    }
                }
                14 => {
                    return Err(d.error(
                        ErrorKind::Unsupported,
                        f.offset,
                        "quantization_annotation is not carried",
                    ));
                }
                15 => {
                    let b = d.bytes(&f)?;
                    g.sparse_initializers.push(nested!(
                        d,
                        Seg::Index("sparse_initializer", i),
                        d.sparse(b, f.payload)
                    )?);
                }
                16 => {
                    let b = d.bytes(&f)?;
                    g.metadata
                        .push(nested!(d, Seg::Index("metadata_props", i), d.entry(b, f.payload))?);
                }
                _ => {}
            }
            Ok(())
        });
        Ok(g)
    }

    fn value_info(&mut self, buf: &[u8], base: usize, depth: usize) -> R<TypedName> {
        let mut v = TypedName::default();
        let mut n_meta = 0;
        each!(self, buf, base, &[1, 2, 3], |d, f| {
            match f.number {
                1 => v.name = d.string(&f)?,
                2 => {
                    let b = d.bytes(&f)?;
                    v.ty = Some(nested!(d, Seg::Name("type"), d.ty(b, f.payload, depth + 1))?);
                }
                3 => v.doc = d.string(&f)?,
                4 => {
                    let b = d.bytes(&f)?;
                    v.metadata
                        .push(nested!(d, Seg::Index("metadata_props", n_meta), d.entry(b, f.payload))?);
                    n_meta += 1;
                }
                _ => {}
            }
            Ok(())
        });
        Ok(v)
    }

    fn node<'a>(&mut self, buf: &'a [u8], base: usize, depth: usize) -> R<Node<'a>> {
        let mut node = Node::default();
        let (mut n_attr, mut n_meta) = (0, 0);
        each!(self, buf, base, &[3, 4, 6, 7, 8], |d, f| {
            match f.number {
                1 => node.inputs.push(d.string(&f)?),
                2 => node.outputs.push(d.string(&f)?),
                3 => node.name = d.string(&f)?,
                4 => node.op = d.string(&f)?,
                5 => {
                    let b = d.bytes(&f)?;
                    node.attributes.push(nested!(
                        d,
                        Seg::Index("attribute", n_attr),
                        d.attribute(b, f.payload, depth)
                    )?);
                    n_attr += 1;
                }
                6 => node.doc = d.string(&f)?,
                7 => node.domain = d.string(&f)?,
                8 => node.overload = d.string(&f)?,
                9 => {
                    let b = d.bytes(&f)?;
                    node.metadata
                        .push(nested!(d, Seg::Index("metadata_props", n_meta), d.entry(b, f.payload))?);
                    n_meta += 1;
                }
                10 => {
                    return Err(d.error(
                        ErrorKind::Unsupported,
                        f.offset,
                        "device_configurations are not carried",
                    ));
                }
                _ => {}
            }
            Ok(())
        });
        Ok(node)
    }

    fn attribute<'a>(&mut self, buf: &'a [u8], base: usize, depth: usize) -> R<Attribute<'a>> {
        let mut a = Attribute::default();
        let mut ty: i64 = 0;
        let (mut f_, mut i_, mut s_, mut t_, mut g_, mut sp_, mut tp_) = (None, None, None, None, None, None, None);
        let (mut floats, mut ints) = (Vec::new(), Vec::new());
        let (mut strings, mut tensors, mut graphs, mut sparses, mut types) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut present = [false; 24];
        each!(self, buf, base, &[1, 2, 3, 4, 5, 6, 13, 14, 20, 21, 22], |d, f| {
            if let Some(p) = present.get_mut(f.number as usize) {
                *p = true;
            }
            match f.number {
                1 => a.name = d.string(&f)?,
                2 => match f.value {
                    Value::Fixed32(v) => f_ = Some(v),
                    _ => return Err(d.error(ErrorKind::Malformed, f.offset, "wrong wire type")),
                },
                3 => i_ = Some(d.int64(&f)?),
                4 => s_ = Some(d.bytes(&f)?.to_vec()),
                5 => {
                    let b = d.bytes(&f)?;
                    t_ = Some(nested!(d, Seg::Name("t"), d.tensor(b, f.payload))?);
                }
                6 => {
                    let b = d.bytes(&f)?;
                    g_ = Some(nested!(d, Seg::Name("g"), d.graph(b, f.payload, depth + 1))?);
                }
                7 => {
                    let mut v = Vec::new();
                    d.push_fixed(&f, 4, &mut v)?;
                    floats.extend(v.into_iter().map(|x| u32::try_from(x).unwrap_or(0)));
                }
                8 => {
                    let mut v = Vec::new();
                    d.push_varints(&f, &mut v)?;
                    ints.extend(v.into_iter().map(|x| x as i64));
                }
                9 => strings.push(d.bytes(&f)?.to_vec()),
                10 => {
                    let b = d.bytes(&f)?;
                    let i = tensors.len();
                    tensors.push(nested!(d, Seg::Index("tensors", i), d.tensor(b, f.payload))?);
                }
                11 => {
                    let b = d.bytes(&f)?;
                    let i = graphs.len();
                    graphs.push(nested!(d, Seg::Index("graphs", i), d.graph(b, f.payload, depth + 1))?);
                }
                13 => a.doc = d.string(&f)?,
                14 => {
                    let b = d.bytes(&f)?;
                    tp_ = Some(nested!(d, Seg::Name("tp"), d.ty(b, f.payload, depth + 1))?);
                }
                15 => {
                    let b = d.bytes(&f)?;
                    let i = types.len();
                    types.push(nested!(d, Seg::Index("type_protos", i), d.ty(b, f.payload, depth + 1))?);
                }
                20 => ty = d.int64(&f)?,
                21 => a.ref_name = d.string(&f)?,
                22 => {
                    let b = d.bytes(&f)?;
                    sp_ = Some(nested!(d, Seg::Name("sparse_tensor"), d.sparse(b, f.payload))?);
                }
                23 => {
                    let b = d.bytes(&f)?;
                    let i = sparses.len();
                    sparses.push(nested!(d, Seg::Index("sparse_tensors", i), d.sparse(b, f.payload))?);
                }
                _ => {}
            }
            Ok(())
        });
        let code = u8::try_from(ty)
            .ok()
            .filter(|&c| c <= 14)
            .ok_or_else(|| self.error(ErrorKind::Unsupported, base, "unsupported attribute type"))?;
        if code == 0 {
            return Err(self.error(ErrorKind::Malformed, base, "attribute type missing or 0"));
        }
        a.ty = code;
        if !a.ref_name.is_empty() {
            return Ok(a);
        }
        // The field each type selects (§2.4 value table); other value fields must be absent.
        let field_of = [0usize, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 22, 23, 14, 15];
        let own = field_of.get(usize::from(code)).copied().unwrap_or(0);
        if field_of
            .iter()
            .skip(1)
            .any(|&n| n != own && present.get(n).copied().unwrap_or(false))
        {
            return Err(self.error(
                ErrorKind::Malformed,
                base,
                "attribute has a value field of another type",
            ));
        }
        let missing = || self.error(ErrorKind::Malformed, base, "attribute value is missing");
        a.value = Some(match code {
            1 => AttrValue::Float(f_.unwrap_or(0)),
            2 => AttrValue::Int(i_.unwrap_or(0)),
            3 => AttrValue::String(s_.unwrap_or_default()),
            4 => AttrValue::Tensor(t_.ok_or_else(missing)?),
            5 => AttrValue::Graph(Box::new(g_.ok_or_else(missing)?)),
            6 => AttrValue::Floats(floats),
            7 => AttrValue::Ints(ints),
            8 => AttrValue::Strings(strings),
            9 => AttrValue::Tensors(tensors),
            10 => AttrValue::Graphs(graphs),
            11 => AttrValue::SparseTensor(Box::new(sp_.ok_or_else(missing)?)),
            12 => AttrValue::SparseTensors(sparses),
            13 => AttrValue::Type(tp_.ok_or_else(missing)?),
            _ => AttrValue::Types(types),
        });
        Ok(a)
    }

    fn tensor<'a>(&mut self, buf: &'a [u8], base: usize) -> R<Tensor<'a>> {
        let mut t = Tensor::default();
        let mut dims = Vec::new();
        let mut dtype: i64 = 0;
        let mut raw: Option<&'a [u8]> = None;
        let (mut f32s, mut i32s, mut i64s, mut f64s, mut u64s) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut strings = Vec::new();
        let mut typed_at = None;
        let mut external: Vec<StringEntry> = Vec::new();
        let mut is_external = false;
        each!(self, buf, base, &[2, 8, 9, 12, 14], |d, f| {
            match f.number {
                1 => d.push_varints(&f, &mut dims)?,
                2 => dtype = i64::from(d.int32(&f)?),
                3 => return Err(d.error(ErrorKind::Unsupported, f.offset, "tensor segments are not supported")),
                4 => d.push_fixed(&f, 4, &mut f32s)?,
                5 => d.push_varints(&f, &mut i32s)?,
                6 => strings.push(d.bytes(&f)?.to_vec()),
                7 => d.push_varints(&f, &mut i64s)?,
                8 => t.name = d.string(&f)?,
                9 => raw = Some(d.bytes(&f)?),
                10 => d.push_fixed(&f, 8, &mut f64s)?,
                11 => d.push_varints(&f, &mut u64s)?,
                12 => t.doc = d.string(&f)?,
                13 => {
                    let b = d.bytes(&f)?;
                    let i = external.len();
                    external.push(nested!(d, Seg::Index("external_data", i), d.entry(b, f.payload))?);
                }
                14 => match d.int32(&f)? {
                    0 => {}
                    1 => is_external = true,
                    _ => return Err(d.error(ErrorKind::Unsupported, f.payload, "unknown data_location")),
                },
                16 => {
                    let b = d.bytes(&f)?;
                    let i = t.metadata.len();
                    t.metadata
                        .push(nested!(d, Seg::Index("metadata_props", i), d.entry(b, f.payload))?);
                }
                _ => {}
            }
            if matches!(f.number, 4 | 5 | 7 | 10 | 11) {
                typed_at.get_or_insert(f.offset);
            }
            Ok(())
        });
        for (i, &v) in dims.iter().enumerate() {
            let v = i64::try_from(v).unwrap_or(-1);
            let _ = i;
            if v < 0 {
                return Err(self.error(ErrorKind::OutOfRange, base, "negative dimension"));
            }
        }
        t.dims = dims;
        let code = u8::try_from(dtype)
            .ok()
            .filter(|&c| tensor::is_tensor_dtype(c))
            .ok_or_else(|| self.error(ErrorKind::Unsupported, base, "unsupported dtype"))?;
        t.dtype = code;
        let count = tensor::element_count(&t.dims).map_err(|k| self.error(k, base, "element count at 2^60 or more"))?;
        let Some(bits) = tensor::bits(code) else {
            if raw.is_some() || typed_at.is_some() {
                return Err(self.error(ErrorKind::Malformed, base, "string tensor with numeric data"));
            }
            if u64::try_from(strings.len()).ok() != Some(count) {
                return Err(self.error(
                    ErrorKind::OutOfRange,
                    base,
                    "string count differs from the element count",
                ));
            }
            t.data = TensorData::Strings(strings);
            return Ok(t);
        };
        if !strings.is_empty() || (raw.is_some() && typed_at.is_some()) {
            return Err(self.error(ErrorKind::Malformed, base, "tensor data in more than one field"));
        }
        let expected = tensor::byte_length(count, bits);
        if expected > u128::from(tensor::MAX_TENSOR_BYTES) {
            return Err(self.error(ErrorKind::Unsupported, base, "tensor larger than 2^31 - 1 bytes"));
        }
        let expected = usize::try_from(expected).unwrap_or(usize::MAX);
        if is_external == external.is_empty() {
            return Err(self.error(ErrorKind::Malformed, base, "external_data and data_location disagree"));
        }
        let bytes: Cow<'a, [u8]> = match raw {
            _ if is_external => {
                if raw.is_some() || typed_at.is_some() {
                    return Err(self.error(ErrorKind::Malformed, base, "tensor data in more than one field"));
                }
                Cow::Owned(self.external(&external, expected as u64, base)?)
            }
            Some(r) => Cow::Borrowed(r),
            None => Cow::Owned(self.typed(code, bits, &f32s, &i32s, &i64s, &f64s, &u64s, base)?),
        };
        if bytes.len() != expected {
            return Err(self.error(ErrorKind::OutOfRange, base, "tensor bytes differ from dtype and dims"));
        }
        t.data = TensorData::Raw(bytes);
        Ok(t)
    }

    /// The bytes of an external tensor through the resolver (§6.2).
    fn external(&mut self, entries: &[StringEntry], expected: u64, at: usize) -> R<Vec<u8>> {
        let (mut location, mut offset, mut length) = (None, None, None);
        for e in entries {
            let slot = match e.key.as_str() {
                "location" => &mut location,
                "offset" => &mut offset,
                "length" => &mut length,
                _ => continue,
            };
            if slot.replace(e.value.as_str()).is_some() {
                return Err(self.error(ErrorKind::Malformed, at, "external_data key repeated"));
            }
        }
        let bad = |m| self.error(ErrorKind::Malformed, at, m);
        let location = location
            .filter(|l| !l.is_empty())
            .ok_or_else(|| bad("external_data without a location"))?;
        let offset = match offset {
            Some(o) => decimal(o).ok_or_else(|| bad("external_data offset is not a decimal integer"))?,
            None => 0,
        };
        let length = match length {
            Some(l) => Some(decimal(l).ok_or_else(|| bad("external_data length is not a decimal integer"))?),
            None => None,
        };
        let r = ExternalRef {
            location,
            offset,
            length,
            expected,
        };
        let Some(resolver) = self.resolver.as_mut() else {
            return Err(self.error(
                ErrorKind::Unsupported,
                at,
                "external data needs a resolver (convert from a file)",
            ));
        };
        let bytes = resolver(&r).map_err(|(kind, message)| self.error(kind, at, message))?;
        if u64::try_from(bytes.len()).ok() != Some(expected) {
            return Err(self.error(
                ErrorKind::OutOfRange,
                at,
                "external data length differs from dtype and dims",
            ));
        }
        Ok(bytes)
    }

    /// Typed ONNX fields to `raw_data` layout (ONNX `TensorProto` field comments).
    #[allow(clippy::too_many_arguments)]
    fn typed(
        &self,
        code: u8,
        bits: u64,
        f32s: &[u64],
        i32s: &[u64],
        i64s: &[u64],
        f64s: &[u64],
        u64s: &[u64],
        at: usize,
    ) -> R<Vec<u8>> {
        let mut out = Vec::new();
        let range = || self.error(ErrorKind::OutOfRange, at, "typed value out of range for the dtype");
        match code {
            1 | 14 => f32s
                .iter()
                .for_each(|v| out.extend_from_slice(v.to_le_bytes().get(..4).unwrap_or_default())),
            11 | 15 => f64s.iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes())),
            7 => i64s.iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes())),
            12 => {
                for &v in u64s {
                    out.extend_from_slice(&u32::try_from(v).map_err(|_| range())?.to_le_bytes());
                }
            }
            13 => u64s.iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes())),
            _ => {
                // int32_data: one element per value for 8-, 16- and 32-bit types; for types
                // narrower than a byte, one packed byte per value.
                let width = if bits < 8 { 8 } else { bits };
                for &v in i32s {
                    let v = i32::try_from(v as i64).map_err(|_| range())?;
                    let v = i64::from(v);
                    let lo = -(1i64 << (width - 1));
                    let hi = (1i64 << width) - 1;
                    if width < 32 && (v < lo || v > hi) {
                        return Err(range());
                    }
                    let le = v.to_le_bytes();
                    out.extend_from_slice(le.get(..usize::try_from(width / 8).unwrap_or(4)).unwrap_or_default());
                }
            }
        }
        Ok(out)
    }

    fn sparse<'a>(&mut self, buf: &'a [u8], base: usize) -> R<SparseTensor<'a>> {
        let (mut values, mut indices, mut dims) = (None, None, Vec::new());
        each!(self, buf, base, &[1, 2], |d, f| {
            match f.number {
                1 => {
                    let b = d.bytes(&f)?;
                    values = Some(nested!(d, Seg::Name("values"), d.tensor(b, f.payload))?);
                }
                2 => {
                    let b = d.bytes(&f)?;
                    indices = Some(nested!(d, Seg::Name("indices"), d.tensor(b, f.payload))?);
                }
                3 => d.push_varints(&f, &mut dims)?,
                _ => {}
            }
            Ok(())
        });
        let values = values.ok_or_else(|| self.error(ErrorKind::Malformed, base, "sparse values missing"))?;
        let indices = indices.ok_or_else(|| self.error(ErrorKind::Malformed, base, "sparse indices missing"))?;
        if indices.dtype != 7 {
            return Err(self.error(ErrorKind::Malformed, base, "sparse indices must be int64"));
        }
        if dims.iter().any(|&v| i64::try_from(v).is_err()) {
            return Err(self.error(ErrorKind::OutOfRange, base, "negative dimension"));
        }
        tensor::element_count(&dims).map_err(|k| self.error(k, base, "element count at 2^60 or more"))?;
        Ok(SparseTensor { values, indices, dims })
    }

    fn ty(&mut self, buf: &[u8], base: usize, depth: usize) -> R<Type> {
        self.enter(depth, base)?;
        let mut kind = None;
        let mut denotation = String::new();
        each!(self, buf, base, &[1, 4, 5, 6, 8, 9], |d, f| {
            let k = match f.number {
                1 | 8 => {
                    let b = d.bytes(&f)?;
                    let (elem_type, shape) = d.tensor_type(b, f.payload)?;
                    Some(if f.number == 1 {
                        TypeKind::Tensor { elem_type, shape }
                    } else {
                        TypeKind::SparseTensor { elem_type, shape }
                    })
                }
                4 | 9 => {
                    let b = d.bytes(&f)?;
                    let name = if f.number == 4 {
                        "sequence_type"
                    } else {
                        "optional_type"
                    };
                    let elem = nested!(d, Seg::Name(name), d.single_elem(b, f.payload, depth))?;
                    Some(if f.number == 4 {
                        TypeKind::Sequence(Box::new(elem))
                    } else {
                        TypeKind::Optional(Box::new(elem))
                    })
                }
                5 => {
                    let b = d.bytes(&f)?;
                    Some(nested!(d, Seg::Name("map_type"), d.map_type(b, f.payload, depth))?)
                }
                6 => {
                    denotation = d.string(&f)?;
                    None
                }
                7 => return Err(d.error(ErrorKind::Unsupported, f.offset, "opaque types are not supported")),
                _ => None,
            };
            if let Some(k) = k {
                if kind.is_some() {
                    return Err(d.error(ErrorKind::Malformed, f.offset, "type with more than one kind"));
                }
                kind = Some(k);
            }
            Ok(())
        });
        let kind = kind.ok_or_else(|| self.error(ErrorKind::Unsupported, base, "type without a kind"))?;
        Ok(Type { denotation, kind })
    }

    fn elem_code(&self, f: &Field<'_>) -> R<u8> {
        let v = self.int32(f)?;
        u8::try_from(v)
            .ok()
            .filter(|&c| c == 0 || tensor::is_tensor_dtype(c))
            .ok_or_else(|| self.error(ErrorKind::Unsupported, f.payload, "unsupported element type"))
    }

    fn tensor_type(&mut self, buf: &[u8], base: usize) -> R<(u8, Option<Vec<Dim>>)> {
        let (mut elem, mut shape) = (0u8, None);
        each!(self, buf, base, &[1, 2], |d, f| {
            match f.number {
                1 => elem = d.elem_code(&f)?,
                2 => shape = Some(d.shape(d.bytes(&f)?, f.payload)?),
                _ => {}
            }
            Ok(())
        });
        Ok((elem, shape))
    }

    fn shape(&mut self, buf: &[u8], base: usize) -> R<Vec<Dim>> {
        let mut dims = Vec::new();
        each!(self, buf, base, &[], |d, f| {
            if f.number == 1 {
                let b = d.bytes(&f)?;
                let mut dim = Dim::default();
                each!(d, b, f.payload, &[1, 2, 3], |d, f| {
                    match f.number {
                        1 | 2 if dim.value != DimValue::Unknown => {
                            return Err(d.error(ErrorKind::Malformed, f.offset, "dimension with both value and param"));
                        }
                        1 => dim.value = DimValue::Value(d.nonneg(&f)?),
                        2 => dim.value = DimValue::Param(d.string(&f)?),
                        3 => dim.denotation = d.string(&f)?,
                        _ => {}
                    }
                    Ok(())
                });
                dims.push(dim);
            }
            Ok(())
        });
        Ok(dims)
    }

    fn single_elem(&mut self, buf: &[u8], base: usize, depth: usize) -> R<Type> {
        let mut elem = None;
        each!(self, buf, base, &[1], |d, f| {
            if f.number == 1 {
                elem = Some(d.ty(d.bytes(&f)?, f.payload, depth + 1)?);
            }
            Ok(())
        });
        elem.ok_or_else(|| self.error(ErrorKind::Malformed, base, "element type missing"))
    }

    fn map_type(&mut self, buf: &[u8], base: usize, depth: usize) -> R<TypeKind> {
        let (mut key, mut value) = (0u8, None);
        each!(self, buf, base, &[1, 2], |d, f| {
            match f.number {
                1 => key = d.elem_code(&f)?,
                2 => value = Some(d.ty(d.bytes(&f)?, f.payload, depth + 1)?),
                _ => {}
            }
            Ok(())
        });
        let value = value.ok_or_else(|| self.error(ErrorKind::Malformed, base, "map value type missing"))?;
        Ok(TypeKind::Map {
            key_type: key,
            value: Box::new(value),
        })
    }

    fn function<'a>(&mut self, buf: &'a [u8], base: usize) -> R<Function<'a>> {
        let mut func = Function::default();
        let mut n = [0usize; 15];
        each!(self, buf, base, &[1, 8, 10, 13], |d, f| {
            let i = n.get(f.number as usize).copied().unwrap_or(0);
            if let Some(c) = n.get_mut(f.number as usize) {
                *c += 1;
            }
            match f.number {
                1 => func.name = d.string(&f)?,
                4 => func.inputs.push(d.string(&f)?),
                5 => func.outputs.push(d.string(&f)?),
                6 => func.attribute_names.push(d.string(&f)?),
                7 => {
                    let b = d.bytes(&f)?;
                    func.nodes
                        .push(nested!(d, Seg::Index("node", i), d.node(b, f.payload, 1))?);
                }
                8 => func.doc = d.string(&f)?,
                9 => {
                    let b = d.bytes(&f)?;
                    func.opsets
                        .push(nested!(d, Seg::Index("opset_import", i), d.opset(b, f.payload))?);
                }
                10 => func.domain = d.string(&f)?,
                11 => {
                    let b = d.bytes(&f)?;
                    func.attribute_defaults.push(nested!(
                        d,
                        Seg::Index("attribute_proto", i),
                        d.attribute(b, f.payload, 1)
                    )?);
                }
                12 => {
                    let b = d.bytes(&f)?;
                    func.value_info
                        .push(nested!(d, Seg::Index("value_info", i), d.value_info(b, f.payload, 1))?);
                }
                13 => func.overload = d.string(&f)?,
                14 => {
                    let b = d.bytes(&f)?;
                    func.metadata
                        .push(nested!(d, Seg::Index("metadata_props", i), d.entry(b, f.payload))?);
                }
                _ => {}
            }
            Ok(())
        });
        Ok(func)
    }
}
