//! The OneModel writer (`spec/onemodel.md` §4): one pass assigns tensor offsets in data order
//! (§1.3), then the canonical manifest (`spec/json.md` §9, members in §2's table order,
//! defaults left out), the header, zero padding and the tensors at multiples of 64. The same
//! model always gives the same bytes. [`layout`] lays the file out with each tensor's bytes
//! where they are (in memory or in a file), for a caller that writes a file larger than
//! memory; [`write()`] builds it in one buffer.

use super::Limits;
use super::error::{Error, ErrorKind};
use super::header::{self, ALIGN, FORMAT_VERSION, HEADER_LEN, Header, MAX_FIELD};
use super::layout::Layout;
use super::model::*;
use super::tensor;
use crate::json::Writer;
use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;
use data_order::model_tensors;
use manifest::ManifestWriter;

mod budget;
mod data_order;
mod manifest;

pub(crate) use budget::check_shared;

type R<T> = Result<T, Error>;

fn invalid(kind: ErrorKind, message: impl Into<Cow<'static, str>>) -> Error {
    Error::at_path(kind, String::from("model"), None, message)
}

/// Checks a tensor the way a reader would (§2.5) so the writer never emits an unreadable
/// file; returns its fixed-size data and length, or `None` for a string tensor.
fn checked_data<'m>(t: &'m Tensor<'_>, max_tensor_bytes: u64) -> R<Option<(&'m TensorData<'m>, u64)>> {
    if !tensor::is_tensor_dtype(t.dtype) {
        let message = tensor::unsupported_code("dtype", t.dtype, tensor::is_tensor_dtype);
        return Err(invalid(ErrorKind::Unsupported, message));
    }
    if t.dims.iter().any(|&d| d > MAX_FIELD) {
        return Err(invalid(ErrorKind::OutOfRange, "dimension above 2^63 - 1"));
    }
    let count = tensor::element_count(&t.dims).map_err(|k| invalid(k, "element count at 2^60 or more"))?;
    match (&t.data, tensor::bits(t.dtype), t.data.byte_length()) {
        (TensorData::Raw(_) | TensorData::File(_), Some(bits), Some(length)) => {
            let expected = tensor::size(count, bits, max_tensor_bytes).map_err(|e| invalid(e.kind(), e.message()))?;
            if length != expected {
                return Err(invalid(
                    ErrorKind::OutOfRange,
                    "tensor bytes differ from dtype and dims",
                ));
            }
            Ok(Some((&t.data, length)))
        }
        (TensorData::Strings(s), None, _) if u64::try_from(s.len()).ok() == Some(count) => Ok(None),
        (TensorData::Strings(_), None, _) => Err(invalid(ErrorKind::OutOfRange, "string count differs from dims")),
        _ => Err(invalid(ErrorKind::Malformed, "tensor data does not match its dtype")),
    }
}

/// Writes `model` as a OneModel file (§4) in one buffer: [`layout`], its pieces joined. A
/// tensor kept in a file ([`TensorData::File`]) is Unsupported at `model` here (copy it
/// with [`layout`]), and a buffer the system refuses is LimitExceeded at `model`.
pub fn write(model: &Model<'_>, limits: Limits) -> R<Vec<u8>> {
    layout(model, limits)?.into_vec()
}

/// Lays `model` out as a OneModel file (§4) that [`super::read`] with the same `limits`
/// accepts: the header, manifest and padding built, each tensor's bytes where they are.
/// Fails only for a model that reader would not accept (§4: bad dtype, bytes that disagree
/// with dims, tensors over `max_tensor_bytes`, integers outside a field's range, the
/// structural rules of §2, names that do not resolve (§3.1)): a model nesting graphs and
/// types deeper than `max_nesting` (§3.2) is LimitExceeded at `model`, and a manifest longer
/// than `max_manifest` (§1.1 check 10, capped like the reader's) is LimitExceeded at the
/// header field `manifest_length`. Tensors that share bytes (§1.3) are each written in full;
/// when that adds more than `max_shared_data` bytes to the bytes they occupy, the model is
/// LimitExceeded at `model` before anything is laid out (§4), so the output grows with the
/// memory and files the model holds, not with the number of tensors viewing them.
pub fn layout<'m>(model: &'m Model<'_>, limits: Limits) -> R<Layout<'m>> {
    // Pass 1 (§4 step 1): offsets in data order.
    let mut data: Vec<&'m TensorData<'m>> = Vec::new();
    let mut placed: Vec<(u64, u64)> = Vec::new();
    let mut end: u64 = 0;
    let mut failure = None;
    model_tensors(model, &mut |t| {
        let step = checked_data(t, limits.max_tensor_bytes).and_then(|d| {
            let Some((d, length)) = d else { return Ok(()) };
            let off =
                header::align_up(end).ok_or_else(|| invalid(ErrorKind::LimitExceeded, "data region too large"))?;
            end = off
                .checked_add(length)
                .filter(|&e| e <= MAX_FIELD)
                .ok_or_else(|| invalid(ErrorKind::LimitExceeded, "data region too large"))?;
            data.push(d);
            placed.push((off, length));
            Ok(())
        });
        if let Err(e) = step {
            failure.get_or_insert(e);
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    // §4: sharing (§1.3) may add at most `max_shared_data` bytes.
    check_shared(model, limits)?;
    // Step 2: the manifest.
    let mut w = ManifestWriter {
        w: Writer::new(),
        placed: &placed,
        next: 0,
        max_nesting: limits.max_nesting,
        failure: None,
    };
    w.model(model);
    if let Some(e) = w.failure {
        return Err(e);
    }
    // §3.1: names as the reader resolves them (a name defined twice, an undefined name, a
    // cycle, a domain without an operator set), with the manifest path of the offender.
    super::names::check(model)?;
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
    let mut out = Layout::default();
    let head = out.bytes();
    head.extend_from_slice(&header::encode(&h));
    head.extend_from_slice(&manifest);
    let mut at = HEADER_LEN + manifest_length;
    for (d, &(off, length)) in data.into_iter().zip(&placed) {
        zeros(&mut out, (data_offset + off) - at);
        out.tensor(d);
        at = data_offset + off + length;
    }
    zeros(&mut out, file_length - at);
    Ok(out)
}

/// Appends `n` zero bytes (padding, less than 64 between two tensors).
fn zeros(out: &mut Layout<'_>, n: u64) {
    debug_assert!(n < ALIGN, "padding is less than the alignment");
    let n = usize::try_from(n).unwrap_or(0);
    let bytes = out.bytes();
    bytes.resize(bytes.len() + n, 0);
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
