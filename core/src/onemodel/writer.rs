//! The OneModel writer (`spec/onemodel.md` §4): one pass assigns tensor offsets in data order
//! (§1.3), then the canonical manifest (`spec/json.md` §9, members in §2's table order,
//! defaults left out), the header, zero padding and the tensors at multiples of 64. The same
//! model always gives the same bytes.

use super::Limits;
use super::error::{Error, ErrorKind};
use super::header::{self, ALIGN, FORMAT_VERSION, HEADER_LEN, Header, MAX_FIELD};
use super::model::*;
use super::tensor;
use crate::json::Writer;
use alloc::string::String;
use alloc::vec::Vec;
use data_order::model_tensors;
use manifest::ManifestWriter;

mod budget;
mod data_order;
mod manifest;

pub(crate) use budget::tensor_data_bytes;

type R<T> = Result<T, Error>;

fn invalid(kind: ErrorKind, message: &'static str) -> Error {
    Error::at_path(kind, String::from("model"), None, message)
}

/// Checks a tensor the way a reader would (§2.5) so the writer never emits an unreadable
/// file; returns its raw bytes, or `None` for a string tensor.
fn checked_raw<'m>(t: &'m Tensor<'_>, max_tensor_bytes: u64) -> R<Option<&'m [u8]>> {
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
            let expected = tensor::size(count, bits, max_tensor_bytes).map_err(|e| invalid(e.kind(), e.message()))?;
            if u64::try_from(bytes.len()).ok() != Some(expected) {
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

/// Writes `model` as a OneModel file (§4) that [`super::read`] with the same `limits`
/// accepts. Fails only for a model that reader would not accept (§4: bad dtype, bytes that
/// disagree with dims, tensors over `max_tensor_bytes`, integers outside a field's range, the
/// structural rules of §2, names that do not resolve (§3.1)): a model nesting graphs and
/// types deeper than `max_nesting` (§3.2) is LimitExceeded at `model`, and a manifest longer
/// than `max_manifest` (§1.1 check 10, capped like the reader's) is LimitExceeded at the
/// header field `manifest_length`. Tensors that share bytes (§1.3) are each written in full;
/// when that adds more than `max_shared_data` bytes to the memory they occupy, the model is
/// LimitExceeded at `model` before anything is reserved (§4), so the output grows with the
/// memory the model holds, not with the number of tensors viewing it.
pub fn write(model: &Model<'_>, limits: Limits) -> R<Vec<u8>> {
    // Pass 1 (§4 step 1): offsets in data order.
    let mut raws: Vec<&[u8]> = Vec::new();
    let mut failure = None;
    model_tensors(model, &mut |t| match checked_raw(t, limits.max_tensor_bytes) {
        Ok(Some(b)) => raws.push(b),
        Ok(None) => {}
        Err(e) => {
            failure.get_or_insert(e);
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    // §4: sharing (§1.3) may add at most `max_shared_data` bytes, checked before anything
    // is reserved from the data region's length.
    let shared =
        budget::shared_bytes(&raws).ok_or_else(|| invalid(ErrorKind::LimitExceeded, "too many tensors for memory"))?;
    if shared > limits.max_shared_data {
        return Err(invalid(
            ErrorKind::LimitExceeded,
            "tensors that share bytes would be written over max_shared_data",
        ));
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
    let total = usize::try_from(file_length).map_err(|_| invalid(ErrorKind::LimitExceeded, "file too large"))?;
    let mut out = Vec::new();
    // The size is known and checked above; memory for it may still be refused, which is
    // LimitExceeded, not an abort.
    out.try_reserve_exact(total)
        .map_err(|_| invalid(ErrorKind::LimitExceeded, "file too large for memory"))?;
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
