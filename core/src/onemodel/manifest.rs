//! The manifest reader (`spec/onemodel.md` §1.2, §2): typed reads through [`Cursor`]
//! over the manifest's tape ([`Tape`]: the strict parser's tokens in one vector), one
//! function per table, members in table order. Every failure is one of the four kinds with
//! its manifest path and file offset. Tensor `data` becomes a view into the caller's bytes
//! (§2.5); nothing is copied.

use super::base64;
use super::error::{Error, ErrorKind};
use super::model::*;
use super::tensor::{self, RangeError};
use crate::json::Problem;
use alloc::borrow::Cow;
use alloc::boxed::Box;
use alloc::collections::BTreeSet;
use alloc::string::String;
use alloc::vec::Vec;
pub(crate) use cursor::{Cursor, Seg, locate, render};
use nested::Started;
pub(crate) use tape::{Children, Tape, Val};

mod cursor;
mod nested;
mod tape;

type R<T> = Result<T, Error>;

/// Reads manifest tables against one data region.
pub(crate) struct Reader<'a> {
    /// The data region (`data_length` bytes at `data_offset`).
    pub data: &'a [u8],
    /// Most graphs and types open at once (§3.2; 64 by default).
    pub max_nesting: usize,
}

fn fe(e: crate::json::FieldError) -> Error {
    Error::field(e)
}

fn rule(c: &Cursor<'_, '_>, kind: ErrorKind, msg: &'static str) -> Error {
    Error::field_as(kind, c.error(Problem::Rule(msg)))
}

fn opt_string(c: &Cursor<'_, '_>, name: &'static str) -> R<String> {
    match c.opt_field(name).map_err(fe)? {
        Some(f) => Ok(String::from(f.str().map_err(fe)?)),
        None => Ok(String::new()),
    }
}

fn req_string(c: &Cursor<'_, '_>, name: &'static str) -> R<String> {
    let f = c.field(name).map_err(fe)?;
    Ok(String::from(f.str().map_err(fe)?))
}

/// The optional array `name`, each element read by `item` (`[]` when absent).
fn opt_list<'v, T>(c: &Cursor<'v, '_>, name: &'static str, mut item: impl FnMut(&Cursor<'v, '_>) -> R<T>) -> R<Vec<T>> {
    match c.opt_field(name).map_err(fe)? {
        Some(f) => list(&f, &mut item),
        None => Ok(Vec::new()),
    }
}

fn list<'v, T>(c: &Cursor<'v, '_>, item: &mut impl FnMut(&Cursor<'v, '_>) -> R<T>) -> R<Vec<T>> {
    let mut out = Vec::with_capacity(c.array().map_err(fe)?.1);
    for e in c.items().map_err(fe)? {
        out.push(item(&e)?);
    }
    Ok(out)
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

fn opt_i64(c: &Cursor<'_, '_>, name: &'static str) -> R<i64> {
    c.opt_field(name).map_err(fe)?.map_or(Ok(0), |f| f.i64().map_err(fe))
}

/// A binary32 bit pattern: an integer 0..=2^32 − 1 (§1.2).
fn float_bits(c: &Cursor<'_, '_>) -> R<u32> {
    let v = c.u64().map_err(fe)?;
    u32::try_from(v).map_err(|_| rule(c, ErrorKind::OutOfRange, "float bit pattern above 2^32 - 1"))
}

/// A type code (dtype, elem_type, key_type, attribute type) accepted by `ok`; any other
/// integer, negative or large, is Unsupported (§2.4, §2.5, §2.7).
fn code(c: &Cursor<'_, '_>, ok: impl Fn(u8) -> bool, msg: &'static str) -> R<u8> {
    let v = c.i64().map_err(fe)?;
    match u8::try_from(v) {
        Ok(b) if ok(b) => Ok(b),
        _ => Err(rule(c, ErrorKind::Unsupported, msg)),
    }
}

fn metadata(c: &Cursor<'_, '_>) -> R<Vec<StringEntry>> {
    opt_list(c, "metadata", |e| {
        Ok(StringEntry {
            key: opt_string(e, "key")?,
            value: opt_string(e, "value")?,
        })
    })
}

/// `""` and `ai.onnx` name the same domain (§2.1).
pub(crate) fn normal_domain(d: &str) -> &str {
    if d == "ai.onnx" { "" } else { d }
}

/// OperatorSet list with the no-duplicate-domain rule (§2.1).
fn opsets(c: &Cursor<'_, '_>) -> R<Vec<OperatorSet>> {
    let mut seen = BTreeSet::new();
    opt_list(c, "opsets", |e| {
        let set = OperatorSet {
            domain: opt_string(e, "domain")?,
            version: u63(&e.field("version").map_err(fe)?)?,
        };
        if !seen.insert(String::from(normal_domain(&set.domain))) {
            return Err(rule(e, ErrorKind::Malformed, "second operator set for one domain"));
        }
        Ok(set)
    })
}

/// Dimensions: integers ≥ 0 (§2.5), then the element count below 2^60.
fn dims(c: &Cursor<'_, '_>) -> R<(Vec<u64>, u64)> {
    let dims = list(c, &mut |e| u63(e))?;
    let count = tensor::element_count(&dims).map_err(|k| rule(c, k, "element count at 2^60 or more"))?;
    Ok((dims, count))
}

impl<'a> Reader<'a> {
    /// The Model table (§2.1).
    pub fn model(&self, c: &Cursor<'_, '_>) -> R<Model<'a>> {
        c.object().map_err(fe)?;
        let ir_version = u63(&c.field("ir_version").map_err(fe)?)?;
        let opsets = opsets(c)?;
        let producer_name = opt_string(c, "producer_name")?;
        let producer_version = opt_string(c, "producer_version")?;
        let domain = opt_string(c, "domain")?;
        let model_version = opt_i64(c, "model_version")?;
        let doc = opt_string(c, "doc")?;
        let metadata = metadata(c)?;
        let graph = self.graph(&c.field("graph").map_err(fe)?, 1)?;
        let mut seen = BTreeSet::new();
        let functions = opt_list(c, "functions", |f| {
            let func = self.function(f)?;
            if !seen.insert((func.domain.clone(), func.name.clone(), func.overload.clone())) {
                return Err(rule(
                    f,
                    ErrorKind::Malformed,
                    "second function with this domain, name and overload",
                ));
            }
            Ok(func)
        })?;
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
        Ok(TypedName {
            name: req_string(c, "name")?,
            ty: match c.opt_field("type").map_err(fe)? {
                Some(t) => Some(self.ty(&t, depth + 1)?),
                None => None,
            },
            doc: opt_string(c, "doc")?,
            metadata: metadata(c)?,
        })
    }

    /// The Node table (§2.3) up to its `attributes`, which `nested` reads next, then
    /// `metadata`.
    fn node_head(&self, c: &Cursor<'_, '_>) -> R<Node<'a>> {
        Ok(Node {
            name: opt_string(c, "name")?,
            op: req_string(c, "op")?,
            domain: opt_string(c, "domain")?,
            overload: opt_string(c, "overload")?,
            doc: opt_string(c, "doc")?,
            inputs: opt_list(c, "inputs", string_of)?,
            outputs: opt_list(c, "outputs", string_of)?,
            ..Node::default()
        })
    }

    /// The Attribute table (§2.4) of a node in a graph at level `depth`. A GRAPH or GRAPHS
    /// value is returned as the graphs still to read (`nested` reads them at `depth + 1`).
    fn attribute<'v>(&self, c: &Cursor<'v, '_>, depth: usize) -> R<Started<'v, 'a>> {
        let name = req_string(c, "name")?;
        let type_c = c.field("type").map_err(fe)?;
        let ty = code(&type_c, |b| b <= 14, "unsupported attribute type")?;
        let doc = opt_string(c, "doc")?;
        let ref_name = opt_string(c, "ref")?;
        let value_c = c.opt_field("value").map_err(fe)?;
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
        let v = c.field("value").map_err(fe)?;
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
    pub fn tensor(&self, c: &Cursor<'_, '_>) -> R<Tensor<'a>> {
        let name = opt_string(c, "name")?;
        let dtype = code(
            &c.field("dtype").map_err(fe)?,
            tensor::is_tensor_dtype,
            "unsupported dtype",
        )?;
        let (dims, count) = dims(&c.field("dims").map_err(fe)?)?;
        let doc = opt_string(c, "doc")?;
        let data_c = c.opt_field("data").map_err(fe)?;
        let strings_c = c.opt_field("strings").map_err(fe)?;
        let data = match tensor::bits(dtype) {
            Some(bits) => {
                if let Some(s) = strings_c {
                    return Err(rule(
                        &s,
                        ErrorKind::Malformed,
                        "strings on a tensor that is not of dtype 8",
                    ));
                }
                TensorData::Raw(Cow::Borrowed(self.data_range(
                    &c.field("data").map_err(fe)?,
                    bits,
                    count,
                )?))
            }
            None => {
                if let Some(d) = data_c {
                    return Err(rule(&d, ErrorKind::Malformed, "data on a string tensor (dtype 8)"));
                }
                let s = c.field("strings").map_err(fe)?;
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
            metadata: metadata(c)?,
        })
    }

    /// A tensor's `data` (§2.5 rules 1–5), as a view of the data region.
    fn data_range(&self, c: &Cursor<'_, '_>, bits: u64, count: u64) -> R<&'a [u8]> {
        c.object().map_err(fe)?;
        let off_c = c.field("offset").map_err(fe)?;
        let len_c = c.field("length").map_err(fe)?;
        let offset = u63(&off_c)?;
        let length = u63(&len_c)?;
        let data_length = u64::try_from(self.data.len()).unwrap_or(u64::MAX);
        match tensor::check_range(bits, count, offset, length, data_length) {
            Ok(r) => {
                let start = usize::try_from(r.start).unwrap_or(usize::MAX);
                let end = usize::try_from(r.end).unwrap_or(usize::MAX);
                self.data
                    .get(start..end)
                    .ok_or_else(|| rule(&off_c, ErrorKind::OutOfRange, "tensor range outside the data region"))
            }
            Err(RangeError::TooLarge) => Err(rule(c, ErrorKind::Unsupported, "tensor larger than 2^31 - 1 bytes")),
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
        let values = self.tensor(&c.field("values").map_err(fe)?)?;
        let ic = c.field("indices").map_err(fe)?;
        let indices = self.tensor(&ic)?;
        if indices.dtype != 7 {
            return Err(rule(
                &ic.field("dtype").map_err(fe)?,
                ErrorKind::Malformed,
                "sparse indices must be int64",
            ));
        }
        let (dims, _) = dims(&c.field("dims").map_err(fe)?)?;
        Ok(SparseTensor { values, indices, dims })
    }

    /// Type (§2.7) at nesting level `depth`, read without recursion (§3.3): down through
    /// `sequence`, `optional` and `map` wrappers to the tensor type at the bottom, members
    /// in table order at each level, then wrapped back up.
    pub fn ty(&self, c: &Cursor<'_, '_>, depth: usize) -> R<Type> {
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
            let kind_c = c.field("kind").map_err(fe)?;
            let kind_s = kind_c.str().map_err(fe)?;
            let denotation = opt_string(c, "denotation")?;
            let elem = |name: &'static str| -> R<u8> {
                c.opt_field(name).map_err(fe)?.map_or(Ok(0), |f| {
                    code(&f, |b| b == 0 || tensor::is_tensor_dtype(b), "unsupported element type")
                })
            };
            let (member, wrapper) = match kind_s {
                "tensor" | "sparse_tensor" => {
                    let (elem_type, shape) = (elem("elem_type")?, self.shape(c)?);
                    let kind = if kind_s == "tensor" {
                        TypeKind::Tensor { elem_type, shape }
                    } else {
                        TypeKind::SparseTensor { elem_type, shape }
                    };
                    break Type { denotation, kind };
                }
                "sequence" => ("elem", TypeKind::Sequence(Box::new(placeholder()))),
                "optional" => ("elem", TypeKind::Optional(Box::new(placeholder()))),
                "map" => {
                    let key_type = elem("key_type")?;
                    let value = Box::new(placeholder());
                    ("value", TypeKind::Map { key_type, value })
                }
                _ => return Err(rule(&kind_c, ErrorKind::Unsupported, "unsupported type kind")),
            };
            let inner = c.field(member).map_err(fe)?.value();
            let outer = (level == depth).then(|| c.segs());
            if let Some(outer) = outer {
                segs = outer;
            }
            segs.push(Seg::Name(member));
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

    fn shape(&self, c: &Cursor<'_, '_>) -> R<Option<Vec<Dim>>> {
        let Some(s) = c.opt_field("shape").map_err(fe)? else {
            return Ok(None);
        };
        let dims = list(&s, &mut |d| {
            let value = d.opt_field("value").map_err(fe)?;
            let param = d.opt_field("param").map_err(fe)?;
            let value = match (value, param) {
                (Some(_), Some(p)) => {
                    return Err(rule(&p, ErrorKind::Malformed, "dimension with both value and param"));
                }
                (Some(v), None) => DimValue::Value(u63(&v)?),
                (None, Some(p)) => DimValue::Param(string_of(&p)?),
                (None, None) => DimValue::Unknown,
            };
            Ok(Dim {
                value,
                denotation: opt_string(d, "denotation")?,
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
