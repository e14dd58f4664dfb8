//! The manifest reader (`spec/onemodel.md` §1.2, §2): typed reads through [`Cursor`]
//! over the manifest's tape ([`Tape`]: the strict parser's tokens in one vector), one
//! function per table, members in table order. Every failure is one of the four kinds with
//! its manifest path and file offset. Tensor `data` becomes a view into the caller's bytes,
//! or a range of the file when only its head is read (§2.5, §5); nothing is copied.

use super::base64;
use super::error::{Error, ErrorKind};
use super::model::*;
use super::region::Region;
use super::tensor::{self, RangeError};
use super::unique;
use crate::json::Problem;
use alloc::borrow::Cow;
use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;
pub(crate) use cursor::{Cursor, Field, Seg, locate, render};
use nested::Started;
pub(crate) use tape::{Children, Tape, Val, same};

mod cursor;
mod nested;
mod tape;

type R<T> = Result<T, Error>;

/// The members of each manifest table in table order (§2), the order they are read in.
const MODEL: [&str; 10] = [
    "ir_version",
    "opsets",
    "producer_name",
    "producer_version",
    "domain",
    "model_version",
    "doc",
    "metadata",
    "graph",
    "functions",
];
/// Characters of a string value that a message shows (`unsupported type kind "…"`).
const KIND_CHARS: usize = 64;

/// OperatorSet (§2.1).
const OPSET: [&str; 2] = ["domain", "version"];
/// StringEntry (§2.1).
const ENTRY: [&str; 2] = ["key", "value"];
/// Graph (§2.2).
const GRAPH: [&str; 9] = [
    "name",
    "doc",
    "initializers",
    "sparse_initializers",
    "inputs",
    "outputs",
    "value_info",
    "nodes",
    "metadata",
];
/// TypedName (§2.2).
const TYPED_NAME: [&str; 4] = ["name", "type", "doc", "metadata"];
/// Node (§2.3).
const NODE: [&str; 9] = [
    "name",
    "op",
    "domain",
    "overload",
    "doc",
    "inputs",
    "outputs",
    "attributes",
    "metadata",
];
/// Attribute (§2.4).
const ATTRIBUTE: [&str; 5] = ["name", "type", "doc", "ref", "value"];
/// Tensor (§2.5).
const TENSOR: [&str; 7] = ["name", "dtype", "dims", "doc", "data", "strings", "metadata"];
/// A tensor's `data` (§2.5).
const DATA: [&str; 2] = ["offset", "length"];
/// SparseTensor (§2.6).
const SPARSE: [&str; 3] = ["values", "indices", "dims"];
/// Type (§2.7), every kind's members.
const TYPE: [&str; 7] = ["kind", "denotation", "elem_type", "key_type", "shape", "elem", "value"];
/// Dim (§2.7).
const DIM: [&str; 3] = ["value", "param", "denotation"];
/// Function (§2.8).
const FUNCTION: [&str; 12] = [
    "name",
    "domain",
    "overload",
    "doc",
    "inputs",
    "outputs",
    "attribute_names",
    "attribute_defaults",
    "nodes",
    "opsets",
    "value_info",
    "metadata",
];

/// Reads manifest tables against one data region.
pub(crate) struct Reader<'a> {
    /// The manifest text the tape was parsed from, which names are borrowed from.
    pub text: &'a str,
    /// The data region (`data_length` bytes at `data_offset`), or only its length.
    pub data: Region<'a>,
    /// Most graphs and types open at once (§3.2; 64 by default).
    pub max_nesting: usize,
    /// Largest tensor in bytes (§2.5 rule 2; 2^31 − 1 by default).
    pub max_tensor_bytes: u64,
}

fn fe(e: crate::json::FieldError) -> Error {
    Error::field(e)
}

fn rule(c: &Cursor<'_, '_>, kind: ErrorKind, msg: &'static str) -> Error {
    Error::field_as(kind, c.error(Problem::Rule(msg)))
}

/// An optional string member (`""` when absent).
fn opt_string(f: &Field<'_, '_>) -> R<String> {
    match f.opt() {
        Some(c) => string_of(&c),
        None => Ok(String::new()),
    }
}

fn req_string(f: &Field<'_, '_>) -> R<String> {
    string_of(&f.req().map_err(fe)?)
}

/// An optional array member, each element read by `item` (`[]` when absent).
fn opt_list<'v, T>(f: &Field<'v, '_>, mut item: impl FnMut(&Cursor<'v, '_>) -> R<T>) -> R<Vec<T>> {
    match f.opt() {
        Some(c) => list(&c, &mut item),
        None => Ok(Vec::new()),
    }
}

/// The elements of an optional array member and their number (none when absent).
fn opt_items<'v>(f: &Field<'v, '_>, tape: &'v Tape<'v>) -> R<(Children<'v>, usize)> {
    match f.opt() {
        Some(c) => c.array().map_err(fe),
        None => Ok((Children::empty(tape), 0)),
    }
}

/// Most bytes reserved for a list before its elements are read.
const RESERVE_BYTES: usize = 64 * 1024;

/// An empty vector for an array of `n` elements, with room for `n` but at most
/// [`RESERVE_BYTES`] reserved up front: an array of tiny values (`[1,1,…]`, two manifest
/// bytes each) must not make the reader reserve many times the manifest's size for table
/// elements it then rejects. Longer lists grow as they are read.
fn reserve<T>(n: usize) -> Vec<T> {
    Vec::with_capacity(n.min(RESERVE_BYTES / core::mem::size_of::<T>().max(1)))
}

fn list<'v, T>(c: &Cursor<'v, '_>, item: &mut impl FnMut(&Cursor<'v, '_>) -> R<T>) -> R<Vec<T>> {
    let mut out = reserve(c.array().map_err(fe)?.1);
    for e in c.items().map_err(fe)? {
        out.push(item(&e)?);
    }
    Ok(out)
}

/// The string `c`, borrowed from the manifest text unless it has escapes.
fn name_of<'a>(text: &'a str, c: &Cursor<'_, '_>) -> R<Cow<'a, str>> {
    match c.value().span().and_then(|r| text.get(r)) {
        Some(t) => Ok(Cow::Borrowed(t)),
        None => Ok(Cow::Owned(String::from(c.str().map_err(fe)?))),
    }
}

fn string_of(c: &Cursor<'_, '_>) -> R<String> {
    Ok(String::from(c.str().map_err(fe)?))
}

fn bytes_of(c: &Cursor<'_, '_>) -> R<Vec<u8>> {
    base64::decode(c.str().map_err(fe)?).ok_or_else(|| rule(c, ErrorKind::Malformed, "invalid base64"))
}

/// An integer in 0..=2^63 − 1 (offsets, lengths, versions, dims); negative is OutOfRange.
fn u63(c: &Cursor<'_, '_>) -> R<u64> {
    let v = c.i64().map_err(fe)?;
    u64::try_from(v).map_err(|_| rule(c, ErrorKind::OutOfRange, "negative value"))
}

fn opt_i64(f: &Field<'_, '_>) -> R<i64> {
    f.opt().map_or(Ok(0), |c| c.i64().map_err(fe))
}

/// A binary32 bit pattern: an integer 0..=2^32 − 1 (§1.2).
fn float_bits(c: &Cursor<'_, '_>) -> R<u32> {
    let v = c.u64().map_err(fe)?;
    u32::try_from(v).map_err(|_| rule(c, ErrorKind::OutOfRange, "float bit pattern above 2^32 - 1"))
}

/// A type code (dtype, elem_type, key_type, attribute type) accepted by `ok`; any other
/// integer, negative or large, even beyond the i64 range, is Unsupported (§2.4, §2.5, §2.7),
/// with a message that names the code found and the codes `expected`. A number with a
/// fraction or exponent stays Malformed (§1.2).
fn code(c: &Cursor<'_, '_>, ok: impl Fn(u8) -> bool, what: &str, expected: impl Fn(u8) -> bool) -> R<u8> {
    let v = match c.i64() {
        Ok(v) => Some(v),
        Err(e) if e.problem == Problem::OutOfRange => None,
        Err(e) => return Err(fe(e)),
    };
    match v.map(u8::try_from) {
        Some(Ok(b)) if ok(b) => Ok(b),
        _ => {
            let found = match v {
                Some(v) => alloc::format!("{v}"),
                None => integer_text(c.lexeme().map_err(fe)?),
            };
            let message = tensor::unsupported_code(what, found, expected);
            Err(Error::field_as(
                ErrorKind::Unsupported,
                c.error(Problem::Stated(message)),
            ))
        }
    }
}

/// An integer's text for a message: whole up to 24 characters, else its first 20 and `…`
/// with its length (messages never echo long input).
fn integer_text(lexeme: &str) -> String {
    match lexeme.get(..20) {
        Some(head) if lexeme.len() > 24 => {
            let digits = lexeme.trim_start_matches('-').len();
            alloc::format!("{head}… ({digits} digits)")
        }
        _ => String::from(lexeme),
    }
}

/// A `metadata` member: StringEntry tables (§2.1).
fn metadata(f: &Field<'_, '_>) -> R<Vec<StringEntry>> {
    opt_list(f, |e| {
        let [key, value] = e.fields(ENTRY).map_err(fe)?;
        Ok(StringEntry {
            key: opt_string(&key)?,
            value: opt_string(&value)?,
        })
    })
}

/// `""` and `ai.onnx` name the same domain (§2.1).
pub(crate) fn normal_domain(d: &str) -> &str {
    if d == "ai.onnx" { "" } else { d }
}

/// OperatorSet list with the no-duplicate-domain rule (§2.1).
fn opsets(f: &Field<'_, '_>) -> R<Vec<OperatorSet>> {
    let set = |e: &Cursor<'_, '_>| {
        let [domain, version] = e.fields(OPSET).map_err(fe)?;
        Ok(OperatorSet {
            domain: opt_string(&domain)?,
            version: u63(&version.req().map_err(fe)?)?,
        })
    };
    unique_list(f, set, unique::duplicate_opset, "second operator set for one domain")
}

/// An optional array member read by `item` whose elements must not repeat a key (§2.1,
/// §2.8): `repeat` gives the first element whose key an earlier one has, which is
/// Malformed with `msg` at that element. The elements are read first and their keys
/// compared once ([`crate::unique::first_repeat`]); when element `j` fails to read, a repeat
/// among the elements before it is reported instead, as one check per element in
/// reading order would.
fn unique_list<'v, T>(
    f: &Field<'v, '_>,
    mut item: impl FnMut(&Cursor<'v, '_>) -> R<T>,
    repeat: impl Fn(&[T]) -> Option<usize>,
    msg: &'static str,
) -> R<Vec<T>> {
    let Some(c) = f.opt() else {
        return Ok(Vec::new());
    };
    let mut out = reserve(c.array().map_err(fe)?.1);
    let mut failure = None;
    for e in c.items().map_err(fe)? {
        match item(&e) {
            Ok(v) => out.push(v),
            Err(e) => {
                failure = Some(e);
                break;
            }
        }
    }
    if let Some(i) = repeat(&out) {
        let at = c.items().map_err(fe)?.nth(i);
        return Err(at.map_or_else(
            || rule(&c, ErrorKind::Malformed, msg),
            |e| rule(&e, ErrorKind::Malformed, msg),
        ));
    }
    failure.map_or(Ok(out), Err)
}

/// Dimensions: integers ≥ 0 (§2.5), then the element count below 2^60.
fn dims(c: &Cursor<'_, '_>) -> R<(Vec<u64>, u64)> {
    let dims = list(c, &mut |e| u63(e))?;
    let count = tensor::element_count(&dims).map_err(|k| rule(c, k, "element count at 2^60 or more"))?;
    Ok((dims, count))
}

impl<'a> Reader<'a> {
    /// A string value, borrowed from the manifest text unless it has escapes.
    fn name(&self, c: &Cursor<'_, '_>) -> R<Cow<'a, str>> {
        name_of(self.text, c)
    }

    /// An optional string member as [`Reader::name`] reads it (`""` when absent).
    fn opt_name(&self, f: &Field<'_, '_>) -> R<Cow<'a, str>> {
        f.opt().map_or(Ok(Cow::Borrowed("")), |c| self.name(&c))
    }

    /// The Model table (§2.1).
    pub(crate) fn model(&self, c: &Cursor<'_, '_>) -> R<Model<'a>> {
        let [
            ir_version,
            opsets_f,
            producer_name,
            producer_version,
            domain,
            model_version,
            doc,
            metadata_f,
            graph,
            functions,
        ] = c.fields(MODEL).map_err(fe)?;
        let ir_version = u63(&ir_version.req().map_err(fe)?)?;
        let opsets = opsets(&opsets_f)?;
        let producer_name = opt_string(&producer_name)?;
        let producer_version = opt_string(&producer_version)?;
        let domain = opt_string(&domain)?;
        let model_version = opt_i64(&model_version)?;
        let doc = opt_string(&doc)?;
        let metadata = metadata(&metadata_f)?;
        let graph = self.graph(&graph.req().map_err(fe)?, 1)?;
        let functions = unique_list(
            &functions,
            |f| self.function(f),
            unique::duplicate_function,
            "second function with this domain, name and overload",
        )?;
        Ok(Model {
            ir_version,
            opsets,
            producer_name,
            producer_version,
            domain,
            model_version,
            doc,
            metadata,
            graph,
            functions,
        })
    }

    fn typed_name(&self, c: &Cursor<'_, '_>, depth: usize) -> R<TypedName> {
        let [name, ty, doc, metadata_f] = c.fields(TYPED_NAME).map_err(fe)?;
        Ok(TypedName {
            name: req_string(&name)?,
            ty: match ty.opt() {
                Some(t) => Some(self.ty(&t, depth + 1)?),
                None => None,
            },
            doc: opt_string(&doc)?,
            metadata: metadata(&metadata_f)?,
        })
    }

    /// The Node table (§2.3) up to its `attributes`, which `nested` reads next, then
    /// `metadata`: the node so far, the elements of `attributes` and the value of
    /// `metadata`.
    fn node_head<'v>(&self, c: &Cursor<'v, '_>) -> R<(Node<'a>, (Children<'v>, usize), Option<Val<'v>>)> {
        let [name, op, domain, overload, doc, inputs, outputs, attributes, metadata] = c.fields(NODE).map_err(fe)?;
        let node = Node {
            name: self.opt_name(&name)?,
            op: self.name(&op.req().map_err(fe)?)?,
            domain: self.opt_name(&domain)?,
            overload: self.opt_name(&overload)?,
            doc: opt_string(&doc)?,
            inputs: opt_list(&inputs, |e| self.name(e))?,
            outputs: opt_list(&outputs, |e| self.name(e))?,
            ..Node::default()
        };
        let attributes = opt_items(&attributes, c.value().tape())?;
        Ok((node, attributes, metadata.value()))
    }

    /// The Attribute table (§2.4) of a node in a graph at level `depth`. A GRAPH or GRAPHS
    /// value is returned as the graphs still to read (`nested` reads them at `depth + 1`).
    fn attribute<'v>(&self, c: &Cursor<'v, '_>, depth: usize) -> R<Started<'v, 'a>> {
        let [name, type_f, doc, ref_name, value_f] = c.fields(ATTRIBUTE).map_err(fe)?;
        let name = req_string(&name)?;
        let type_c = type_f.req().map_err(fe)?;
        // 0 is read here and refused below as Malformed (§2.4).
        let ty = code(&type_c, |b| b <= 14, "attribute type", tensor::is_attribute_type)?;
        let doc = opt_string(&doc)?;
        let ref_name = opt_string(&ref_name)?;
        let value_c = value_f.opt();
        let mut a = Attribute {
            name,
            ty,
            doc,
            ref_name,
            value: None,
        };
        if !a.ref_name.is_empty() {
            if let Some(v) = value_c {
                return Err(rule(&v, ErrorKind::Malformed, "a reference attribute has no value"));
            }
            if ty == 0 {
                return Err(rule(&type_c, ErrorKind::Malformed, "attribute type 0 (undefined)"));
            }
            return Ok(Started::Done(a));
        }
        if ty == 0 {
            return Err(rule(&type_c, ErrorKind::Malformed, "attribute type 0 (undefined)"));
        }
        let v = value_f.req().map_err(fe)?;
        match ty {
            5 => Ok(Started::Graphs(a, Children::one(v.value()), true)),
            10 => Ok(Started::Graphs(a, v.array().map_err(fe)?.0, false)),
            _ => {
                a.value = Some(self.attr_value(&v, ty, depth)?);
                Ok(Started::Done(a))
            }
        }
    }

    /// An attribute value of a type other than GRAPH and GRAPHS (§2.4 value table).
    fn attr_value(&self, v: &Cursor<'_, '_>, ty: u8, depth: usize) -> R<AttrValue<'a>> {
        Ok(match ty {
            1 => AttrValue::Float(float_bits(v)?),
            2 => AttrValue::Int(v.i64().map_err(fe)?),
            3 => AttrValue::String(bytes_of(v)?),
            4 => AttrValue::Tensor(self.tensor(v)?),
            6 => AttrValue::Floats(list(v, &mut |e| float_bits(e))?),
            7 => AttrValue::Ints(list(v, &mut |e| e.i64().map_err(fe))?),
            8 => AttrValue::Strings(list(v, &mut |e| bytes_of(e))?),
            9 => AttrValue::Tensors(list(v, &mut |e| self.tensor(e))?),
            11 => AttrValue::SparseTensor(Box::new(self.sparse(v)?)),
            12 => AttrValue::SparseTensors(list(v, &mut |e| self.sparse(e))?),
            13 => AttrValue::Type(self.ty(v, depth + 1)?),
            _ => AttrValue::Types(list(v, &mut |e| self.ty(e, depth + 1))?),
        })
    }

    /// The Tensor table (§2.5): dtype, dims, count, then `data` (a view) or `strings`.
    pub(crate) fn tensor(&self, c: &Cursor<'_, '_>) -> R<Tensor<'a>> {
        let [name, dtype, dims_f, doc, data_f, strings_f, metadata_f] = c.fields(TENSOR).map_err(fe)?;
        let name = self.opt_name(&name)?;
        let dtype = code(
            &dtype.req().map_err(fe)?,
            tensor::is_tensor_dtype,
            "dtype",
            tensor::is_tensor_dtype,
        )?;
        let (dims, count) = dims(&dims_f.req().map_err(fe)?)?;
        let doc = opt_string(&doc)?;
        let data_c = data_f.opt();
        let strings_c = strings_f.opt();
        let data = match tensor::bits(dtype) {
            Some(bits) => {
                if let Some(s) = strings_c {
                    return Err(rule(
                        &s,
                        ErrorKind::Malformed,
                        "strings on a tensor that is not of dtype 8",
                    ));
                }
                self.data_range(&data_f.req().map_err(fe)?, bits, count)?
            }
            None => {
                if let Some(d) = data_c {
                    return Err(rule(&d, ErrorKind::Malformed, "data on a string tensor (dtype 8)"));
                }
                let s = strings_f.req().map_err(fe)?;
                if u64::try_from(s.array().map_err(fe)?.1).ok() != Some(count) {
                    return Err(rule(
                        &s,
                        ErrorKind::OutOfRange,
                        "string count differs from the element count",
                    ));
                }
                TensorData::Strings(list(&s, &mut |e| bytes_of(e))?)
            }
        };
        Ok(Tensor {
            name,
            dtype,
            dims,
            doc,
            data,
            metadata: metadata(&metadata_f)?,
        })
    }

    /// A tensor's `data` (§2.5 rules 1–5), as a view of the data region or its range of
    /// the file.
    fn data_range(&self, c: &Cursor<'_, '_>, bits: u64, count: u64) -> R<TensorData<'a>> {
        let [offset, length] = c.fields(DATA).map_err(fe)?;
        let off_c = offset.req().map_err(fe)?;
        let len_c = length.req().map_err(fe)?;
        let offset = u63(&off_c)?;
        let length = u63(&len_c)?;
        match tensor::check_range(bits, count, offset, length, self.data.length(), self.max_tensor_bytes) {
            Ok(r) => self
                .data
                .tensor(r)
                .ok_or_else(|| rule(&off_c, ErrorKind::OutOfRange, "tensor range outside the data region")),
            Err(RangeError::Size(e)) => Err(rule(c, e.kind(), e.message())),
            Err(RangeError::Length) => Err(rule(
                &len_c,
                ErrorKind::OutOfRange,
                "length differs from dtype and dims",
            )),
            Err(RangeError::Alignment) => Err(rule(&off_c, ErrorKind::OutOfRange, "offset is not a multiple of 64")),
            Err(RangeError::Range) => Err(rule(
                &off_c,
                ErrorKind::OutOfRange,
                "tensor range outside the data region",
            )),
        }
    }

    /// SparseTensor (§2.6).
    fn sparse(&self, c: &Cursor<'_, '_>) -> R<SparseTensor<'a>> {
        let [values, indices, dims_f] = c.fields(SPARSE).map_err(fe)?;
        let values = self.tensor(&values.req().map_err(fe)?)?;
        let ic = indices.req().map_err(fe)?;
        let indices = self.tensor(&ic)?;
        if indices.dtype != 7 {
            let message = alloc::format!("sparse indices must be int64 (dtype 7), not dtype {}", indices.dtype);
            let dtype = ic.field("dtype").map_err(fe)?;
            return Err(Error::field_as(
                ErrorKind::Malformed,
                dtype.error(Problem::Stated(message)),
            ));
        }
        let (dims, _) = dims(&dims_f.req().map_err(fe)?)?;
        Ok(SparseTensor { values, indices, dims })
    }

    /// Type (§2.7) at nesting level `depth`, read without recursion (§3.3): down through
    /// `sequence`, `optional` and `map` wrappers to the tensor type at the bottom, members
    /// in table order at each level, then wrapped back up.
    pub(crate) fn ty(&self, c: &Cursor<'_, '_>, depth: usize) -> R<Type> {
        let mut wrappers: Vec<(String, TypeKind)> = Vec::new();
        // The path of a wrapped type, built only when there is a wrapper.
        let mut segs: Vec<Seg> = Vec::new();
        let mut value = c.value();
        let mut level = depth;
        let bottom = loop {
            let here;
            let c = if level == depth {
                c
            } else {
                here = Cursor::at(value, &segs);
                &here
            };
            if level > self.max_nesting {
                return Err(rule(c, ErrorKind::LimitExceeded, "graphs and types nested too deeply"));
            }
            let [kind, denotation, elem_type, key_type, shape, elem_f, value_f] = c.fields(TYPE).map_err(fe)?;
            let kind_c = kind.req().map_err(fe)?;
            let kind_s = kind_c.str().map_err(fe)?;
            let denotation = opt_string(&denotation)?;
            let elem = |f: &Field<'_, '_>| -> R<u8> {
                f.opt().map_or(Ok(0), |c| {
                    code(&c, tensor::is_elem_type, "element type", tensor::is_elem_type)
                })
            };
            let (member, wrapper) = match kind_s {
                "tensor" | "sparse_tensor" => {
                    let (elem_type, shape) = (elem(&elem_type)?, self.shape(&shape)?);
                    let kind = if kind_s == "tensor" {
                        TypeKind::Tensor { elem_type, shape }
                    } else {
                        TypeKind::SparseTensor { elem_type, shape }
                    };
                    break Type { denotation, kind };
                }
                "sequence" => (elem_f, TypeKind::Sequence(Box::new(placeholder()))),
                "optional" => (elem_f, TypeKind::Optional(Box::new(placeholder()))),
                "map" => {
                    let key_type = elem(&key_type)?;
                    let value = Box::new(placeholder());
                    (value_f, TypeKind::Map { key_type, value })
                }
                _ => {
                    let message = alloc::format!(
                        "unsupported type kind {} (expected tensor, sparse_tensor, sequence, optional or map)",
                        crate::json::quoted(kind_s, KIND_CHARS)
                    );
                    return Err(Error::field_as(
                        ErrorKind::Unsupported,
                        kind_c.error(Problem::Stated(message)),
                    ));
                }
            };
            let (inner, name) = (member.req().map_err(fe)?.value(), member.name());
            let outer = (level == depth).then(|| c.segs());
            if let Some(outer) = outer {
                segs = outer;
            }
            segs.push(Seg::Name(name));
            wrappers.push((denotation, wrapper));
            value = inner;
            level += 1;
        };
        Ok(wrappers
            .into_iter()
            .rev()
            .fold(bottom, |inner, (denotation, mut kind)| {
                if let TypeKind::Sequence(e) | TypeKind::Optional(e) | TypeKind::Map { value: e, .. } = &mut kind {
                    **e = inner;
                }
                Type { denotation, kind }
            }))
    }

    fn shape(&self, f: &Field<'_, '_>) -> R<Option<Vec<Dim>>> {
        let Some(s) = f.opt() else {
            return Ok(None);
        };
        let dims = list(&s, &mut |d| {
            let [value, param, denotation] = d.fields(DIM).map_err(fe)?;
            let value = match (value.opt(), param.opt()) {
                (Some(_), Some(p)) => {
                    return Err(rule(&p, ErrorKind::Malformed, "dimension with both value and param"));
                }
                (Some(v), None) => DimValue::Value(u63(&v)?),
                (None, Some(p)) => DimValue::Param(string_of(&p)?),
                (None, None) => DimValue::Unknown,
            };
            Ok(Dim {
                value,
                denotation: opt_string(&denotation)?,
            })
        })?;
        Ok(Some(dims))
    }
}

/// A stand-in for a wrapper's inner type until it is read.
fn placeholder() -> Type {
    Type {
        denotation: String::new(),
        kind: TypeKind::Tensor {
            elem_type: 0,
            shape: None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Up-front reservations are capped by bytes, whatever the element count and size;
    /// small lists get exactly their length.
    #[test]
    fn reservations_are_capped() {
        let big: Vec<Tensor<'_>> = reserve(usize::MAX / 2);
        assert!(big.capacity() * core::mem::size_of::<Tensor<'_>>() <= RESERVE_BYTES);
        assert!(big.capacity() >= RESERVE_BYTES / core::mem::size_of::<Tensor<'_>>());
        let bytes: Vec<[u8; 1024]> = reserve(1_000_000);
        assert_eq!(bytes.capacity(), 64);
        let small: Vec<u64> = reserve(3);
        assert_eq!(small.capacity(), 3);
    }
}
