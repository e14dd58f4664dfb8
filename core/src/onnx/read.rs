//! The bounded ONNX reader (`spec/onemodel.md` §6): `ModelProto` and every message it
//! contains, decoded by hand from the protobuf wire format into the same [`Model`] the
//! OneModel reader produces. Lengths are checked before use (`wire`), graph and type nesting
//! is bounded like OneModel's (§3.2), singular fields may appear once, strings must be
//! UTF-8, tensors are checked against dtype and dims, and `raw_data` stays a view of the
//! input. Failures use OneModel's four kinds with a path such as `onnx.graph.node[3]`.

use super::wire::{Fault, Field, Fields, Value, WireError};
use crate::invariant;
use crate::onemodel::Limits;
use crate::onemodel::error::{Error, ErrorKind};
use crate::onemodel::model::*;
use crate::onemodel::tensor;
use crate::onemodel::unique;
use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

/// §2.1: what a second operator set for one domain is reported as.
const SECOND_OPSET: &str = "second operator set for one domain";

pub(super) type R<T> = Result<T, Error>;

/// Runs `$body` for each field of the message `$buf` at absolute offset `$base`, with `$d`
/// the decoder and `$f` the field, rejecting a second occurrence of any number in
/// `$singular` (§6.1). Used for the messages that hold no graph or type; those that do are
/// decoded by `nested` on a heap stack (§3.3).
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

/// One step of an error path (`onnx.graph.node[3]`).
#[derive(Clone, Copy)]
pub(super) enum Seg {
    Name(&'static str),
    Index(&'static str, usize),
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
    /// The byte length dtype × dims require; the range must be exactly this long.
    pub expected: u64,
}

/// Why a resolver refused an external reference: a kind and a message.
pub type ExternalError = (ErrorKind, &'static str);

/// Checks an external tensor's reference and numbers its file, reading none of its bytes
/// (std-io checks the location, the file and the range in the model's folder, §6.2): the
/// tensor becomes `expected` bytes at `offset` of that file ([`TensorData::File`]).
pub type Resolver<'r> = dyn FnMut(&ExternalRef<'_>) -> Result<usize, ExternalError> + 'r;

/// The decoder's state: the path of the message being decoded (for errors), the nesting
/// and tensor size limits, the resolver for external tensors, and whether a field that
/// `ModelProto` defines has been read (until then, a failure suggests the input is not
/// ONNX at all).
pub(super) struct Decoder<'r> {
    pub(super) path: Vec<Seg>,
    pub(super) max_nesting: usize,
    max_tensor_bytes: u64,
    resolver: Option<&'r mut Resolver<'r>>,
    model_field_read: bool,
}

/// How [`read_model`] reads: under which limits, and how it places tensors kept in external
/// files (§6.2). A [`Limits`] converts into the options without a resolver.
pub struct ReadOptions<'r> {
    /// The nesting and tensor size bounds (`max_nesting`, `max_tensor_bytes`; the others are
    /// the manifest's).
    pub limits: Limits,
    /// `None`: a tensor kept in an external file is `Unsupported`. A resolver: each becomes
    /// a range of the file the resolver numbers ([`TensorData::File`]), never read here.
    pub resolver: Option<&'r mut Resolver<'r>>,
}

impl From<Limits> for ReadOptions<'_> {
    fn from(limits: Limits) -> Self {
        ReadOptions { limits, resolver: None }
    }
}

/// Decodes a serialised `ModelProto` (`spec/onemodel.md` §6) under the options' limits,
/// external tensors placed by their resolver. Tensors with `raw_data` are views of `bytes`;
/// typed fields (`float_data`, …) are converted to `raw_data` layout. Names are not
/// resolved: [`super::to_model`] reads and resolves.
pub fn read_model<'a, 'r>(bytes: &'a [u8], options: impl Into<ReadOptions<'r>>) -> R<Model<'a>> {
    let ReadOptions { limits, resolver } = options.into();
    let mut d = Decoder {
        path: Vec::new(),
        max_nesting: limits.max_nesting,
        max_tensor_bytes: limits.max_tensor_bytes,
        resolver,
        model_field_read: false,
    };
    d.model(bytes, 0)
}

/// The `TensorProto` field that holds the data of dtype `code` other than `raw_data` (§6.2):
/// 6 `string_data`, 4 `float_data`, 10 `double_data`, 7 `int64_data`, 11 `uint64_data`, or
/// 5 `int32_data` for every other fixed-size type.
fn data_field(code: u8) -> u32 {
    match code {
        tensor::STRING => 6,
        1 | 14 => 4,
        11 | 15 => 10,
        7 => 7,
        12 | 13 => 11,
        _ => 5,
    }
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
    pub(super) fn error(&self, kind: ErrorKind, offset: usize, message: impl Into<Cow<'static, str>>) -> Error {
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

    /// A wire-level failure (Malformed); in the file's first field, with the hint that the
    /// file may not be ONNX at all.
    /// A wire-level failure (Malformed), with the hint of [`Decoder::hint`].
    pub(super) fn wire(&self, e: WireError) -> Error {
        let message = e.what.message(self.message_type());
        let message = match e.what {
            Fault::WireType { .. } => message,
            _ => self.hint(message),
        };
        self.error(ErrorKind::Malformed, e.offset, message)
    }

    /// The protobuf message type being decoded, named where it is sure: `ModelProto` at
    /// the top level (elsewhere the error's path says where).
    fn message_type(&self) -> Option<&'static str> {
        self.path.is_empty().then_some("ModelProto")
    }

    /// `message`, followed by `: not an ONNX model?` when the failure is at the top level
    /// before any field `ModelProto` defines has been read: such an input is more likely
    /// not ONNX at all (a JPEG, a JSON file) than a damaged model.
    fn hint(&self, mut message: String) -> String {
        if self.path.is_empty() && !self.model_field_read {
            message.push_str(": not an ONNX model?");
        }
        message
    }

    /// The Malformed error of field `f` whose wire type is not the one its number has:
    /// `field 7 has wire type 0 (varint), expected 2 (bytes)`, the message type named at
    /// the top level (`field 1 of ModelProto ...`), with the hint of [`Decoder::hint`].
    pub(super) fn wrong_wire_type(&self, f: &Field<'_>, expected: &str) -> Error {
        let (wire, name) = match f.value {
            Value::Varint(_) => (0, "varint"),
            Value::Fixed64(_) => (1, "fixed64"),
            Value::Len(_) => (2, "bytes"),
            Value::Fixed32(_) => (5, "fixed32"),
        };
        let of = self
            .message_type()
            .map(|t| alloc::format!(" of {t}"))
            .unwrap_or_default();
        let message = alloc::format!(
            "field {}{of} has wire type {wire} ({name}), expected {expected}",
            f.number
        );
        self.error(ErrorKind::Malformed, f.offset, self.hint(message))
    }

    pub(super) fn bytes<'a>(&self, f: &Field<'a>) -> R<&'a [u8]> {
        match f.value {
            Value::Len(b) => Ok(b),
            _ => Err(self.wrong_wire_type(f, "2 (bytes)")),
        }
    }

    pub(super) fn string(&self, f: &Field<'_>) -> R<String> {
        let b = self.bytes(f)?;
        utf8(b).ok_or_else(|| self.error(ErrorKind::Malformed, f.payload, "string is not UTF-8"))
    }

    fn varint(&self, f: &Field<'_>) -> R<u64> {
        match f.value {
            Value::Varint(v) => Ok(v),
            _ => Err(self.wrong_wire_type(f, "0 (varint)")),
        }
    }

    pub(super) fn int64(&self, f: &Field<'_>) -> R<i64> {
        Ok(self.varint(f)? as i64)
    }

    fn nonneg(&self, f: &Field<'_>) -> R<u64> {
        u64::try_from(self.int64(f)?).map_err(|_| self.error(ErrorKind::OutOfRange, f.payload, "negative value"))
    }

    /// Repeated varints, packed or not.
    pub(super) fn push_varints(&self, f: &Field<'_>, out: &mut Vec<u64>) -> R<()> {
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
            _ => return Err(self.wrong_wire_type(f, "0 (varint) or 2 (packed)")),
        }
        Ok(())
    }

    /// Repeated fixed-size values (4 or 8 bytes), packed or not, as little-endian u64.
    pub(super) fn push_fixed(&self, f: &Field<'_>, width: usize, out: &mut Vec<u64>) -> R<()> {
        match (f.value, width) {
            (Value::Fixed32(v), 4) => out.push(u64::from(v)),
            (Value::Fixed64(v), 8) => out.push(v),
            (Value::Len(b), _) if b.len() % width == 0 => {
                for c in b.chunks_exact(width) {
                    let mut w = [0u8; 8];
                    invariant::sub_mut(&mut w, ..width).copy_from_slice(c);
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
            _ => return Err(self.wrong_wire_type(f, "1 (fixed64), 5 (fixed32) or 2 (packed)")),
        }
        Ok(())
    }

    /// Runs `f` with `seg` appended to the path (errors inside it are located there).
    pub(super) fn within<T>(&mut self, seg: Seg, f: impl FnOnce(&mut Self) -> R<T>) -> R<T> {
        self.path.push(seg);
        let r = f(self);
        self.path.pop();
        r
    }

    fn model<'a>(&mut self, buf: &'a [u8], base: usize) -> R<Model<'a>> {
        let mut m = Model::default();
        let mut graph = None;
        let mut has_ir = false;
        let (mut n_opset, mut n_meta, mut n_fn) = (0, 0, 0);
        // Where each opset_import and function field starts, to locate the §2.1 and §2.8
        // rules, which are checked once the model is read.
        let (mut opset_at, mut function_at) = (Vec::new(), Vec::new());
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
                    opset_at.push(f.offset);
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
                    function_at.push(f.offset);
                    n_fn += 1;
                }
                _ => {}
            }
            // Field numbers ModelProto defines (20 has failed above).
            if matches!(f.number, 1..=8 | 14 | 25) {
                d.model_field_read = true;
            }
            Ok(())
        });
        if !has_ir {
            let message = self.hint(String::from("ir_version is missing"));
            return Err(self.error(ErrorKind::Malformed, base, message));
        }
        // The manifest rules of §2.1 and §2.8, so a converted model is one OneModel accepts:
        // located at the second operator set's field, or at the function's.
        if let Some(i) = unique::duplicate_opset(&m.opsets) {
            let at = invariant::some_or(opset_at.get(i).copied(), base);
            return Err(self.located(Seg::Index("opset_import", i), at, SECOND_OPSET));
        }
        let duplicate = unique::duplicate_function(&m.functions);
        for (i, f) in m.functions.iter().enumerate() {
            let at = invariant::some_or(function_at.get(i).copied(), base);
            if unique::duplicate_opset(&f.opsets).is_some() {
                return Err(self.located(Seg::Index("functions", i), at, SECOND_OPSET));
            }
            if duplicate == Some(i) {
                return Err(self.located(
                    Seg::Index("functions", i),
                    at,
                    "second function with this domain, name and overload",
                ));
            }
        }
        m.graph = graph.ok_or_else(|| self.error(ErrorKind::Malformed, base, "graph is missing"))?;
        Ok(m)
    }

    /// A Malformed error at `offset`, with `seg` appended to the path.
    fn located(&mut self, seg: Seg, offset: usize, message: &'static str) -> Error {
        self.path.push(seg);
        let e = self.error(ErrorKind::Malformed, offset, message);
        self.path.pop();
        e
    }

    pub(super) fn opset(&mut self, buf: &[u8], base: usize) -> R<OperatorSet> {
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

    pub(super) fn entry(&mut self, buf: &[u8], base: usize) -> R<StringEntry> {
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

    pub(super) fn tensor<'a>(&mut self, buf: &'a [u8], base: usize) -> R<Tensor<'a>> {
        let mut t = Tensor::default();
        let mut dims = Vec::new();
        let mut dtype: i64 = 0;
        let mut raw: Option<&'a [u8]> = None;
        let (mut f32s, mut i32s, mut i64s, mut f64s, mut u64s) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut strings = Vec::new();
        // The data fields present (6 `string_data`, 9 `raw_data`, the typed ones), each with
        // the key offset of its first occurrence, in file order.
        let mut data_fields: Vec<(u32, usize)> = Vec::new();
        let mut external: Vec<StringEntry> = Vec::new();
        let mut is_external = false;
        each!(self, buf, base, &[2, 8, 9, 12, 14], |d, f| {
            match f.number {
                1 => d.push_varints(&f, &mut dims)?,
                // A code too large for int32 is still a code: Unsupported below (§2.5).
                2 => dtype = d.int64(&f)?,
                3 => return Err(d.error(ErrorKind::Unsupported, f.offset, "tensor segments are not supported")),
                4 => d.push_fixed(&f, 4, &mut f32s)?,
                5 => d.push_varints(&f, &mut i32s)?,
                6 => strings.push(d.bytes(&f)?.to_vec()),
                7 => d.push_varints(&f, &mut i64s)?,
                8 => t.name = d.string(&f)?.into(),
                9 => raw = Some(d.bytes(&f)?),
                10 => d.push_fixed(&f, 8, &mut f64s)?,
                11 => d.push_varints(&f, &mut u64s)?,
                12 => t.doc = d.string(&f)?,
                13 => {
                    let b = d.bytes(&f)?;
                    let i = external.len();
                    external.push(nested!(d, Seg::Index("external_data", i), d.entry(b, f.payload))?);
                }
                14 => match d.int64(&f)? {
                    0 => {}
                    1 => is_external = true,
                    other => {
                        let message =
                            alloc::format!("unknown data_location {other} (expected 0 for DEFAULT or 1 for EXTERNAL)");
                        return Err(d.error(ErrorKind::Unsupported, f.payload, message));
                    }
                },
                16 => {
                    let b = d.bytes(&f)?;
                    let i = t.metadata.len();
                    t.metadata
                        .push(nested!(d, Seg::Index("metadata_props", i), d.entry(b, f.payload))?);
                }
                _ => {}
            }
            if matches!(f.number, 4..=7 | 9..=11) && !data_fields.iter().any(|&(n, _)| n == f.number) {
                data_fields.push((f.number, f.offset));
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
            .ok_or_else(|| {
                let message = tensor::unsupported_code("dtype", dtype, tensor::is_tensor_dtype);
                self.error(ErrorKind::Unsupported, base, message)
            })?;
        t.dtype = code;
        let count = tensor::element_count(&t.dims).map_err(|k| self.error(k, base, "element count at 2^60 or more"))?;
        // §6.2: the data is in exactly one field, the one the dtype reads it from (or
        // `raw_data`); the first field in file order that breaks this is reported.
        let own = data_field(code);
        let mut holder = None;
        for &(number, at) in &data_fields {
            let allowed = number == own || (number == 9 && own != 6);
            if !allowed || holder.is_some_and(|h| h != number) {
                let message = if allowed {
                    "tensor data in more than one field"
                } else {
                    "tensor data in a field its dtype does not use"
                };
                return Err(self.error(ErrorKind::Malformed, at, message));
            }
            holder = Some(number);
        }
        let Some(bits) = tensor::bits(code) else {
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
        let expected =
            tensor::size(count, bits, self.max_tensor_bytes).map_err(|e| self.error(e.kind(), base, e.message()))?;
        if is_external == external.is_empty() {
            return Err(self.error(ErrorKind::Malformed, base, "external_data and data_location disagree"));
        }
        if is_external {
            if holder.is_some() {
                return Err(self.error(ErrorKind::Malformed, base, "tensor data in more than one field"));
            }
            t.data = TensorData::File(self.external(&external, expected, base)?);
            return Ok(t);
        }
        let bytes: Cow<'a, [u8]> = match raw {
            Some(r) => Cow::Borrowed(r),
            None => Cow::Owned(self.typed(code, bits, &f32s, &i32s, &i64s, &f64s, &u64s, base)?),
        };
        if u64::try_from(bytes.len()).ok() != Some(expected) {
            return Err(self.error(ErrorKind::OutOfRange, base, "tensor bytes differ from dtype and dims"));
        }
        t.data = TensorData::Raw(bytes);
        Ok(t)
    }

    /// An external tensor's range, its reference checked by the resolver (§6.2).
    fn external(&mut self, entries: &[StringEntry], expected: u64, at: usize) -> R<FileRange> {
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
                "tensor data in an external file, which this read does not resolve",
            ));
        };
        let file = resolver(&r).map_err(|(kind, message)| self.error(kind, at, message))?;
        Ok(FileRange {
            file,
            offset,
            length: expected,
        })
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
                .for_each(|v| out.extend_from_slice(invariant::sub(&v.to_le_bytes(), ..4))),
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
                    out.extend_from_slice(invariant::sub(&le, ..usize::try_from(width / 8).unwrap_or(4)));
                }
            }
        }
        Ok(out)
    }

    pub(super) fn sparse<'a>(&mut self, buf: &'a [u8], base: usize) -> R<SparseTensor<'a>> {
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
            let message = alloc::format!("sparse indices must be int64 (dtype 7), not dtype {}", indices.dtype);
            return Err(self.error(ErrorKind::Malformed, base, message));
        }
        if dims.iter().any(|&v| i64::try_from(v).is_err()) {
            return Err(self.error(ErrorKind::OutOfRange, base, "negative dimension"));
        }
        tensor::element_count(&dims).map_err(|k| self.error(k, base, "element count at 2^60 or more"))?;
        Ok(SparseTensor { values, indices, dims })
    }

    /// `elem_type` or `key_type`: 0 or a dtype code; any other value, even one too large for
    /// int32, is Unsupported (§2.7).
    pub(super) fn elem_code(&self, f: &Field<'_>) -> R<u8> {
        let v = self.int64(f)?;
        u8::try_from(v)
            .ok()
            .filter(|&c| tensor::is_elem_type(c))
            .ok_or_else(|| {
                let message = tensor::unsupported_code("element type", v, tensor::is_elem_type);
                self.error(ErrorKind::Unsupported, f.payload, message)
            })
    }

    pub(super) fn tensor_type(&mut self, buf: &[u8], base: usize) -> R<(u8, Option<Vec<Dim>>)> {
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
}
