//! What the writers write against what the model holds (`spec/onemodel.md` §4, §6.3).
//! Tensors may share bytes in a OneModel file (§1.3), and both writers write each tensor in
//! full, so their output can grow with the number of tensors that share, not with the
//! memory the model holds. Both count a tensor's bytes the same way; the ONNX writer caps
//! the total (protobuf's 2 GiB), the OneModel writer caps what sharing adds
//! (`Limits::max_shared_data`).

use crate::onemodel::model::*;
use alloc::vec::Vec;

/// Bytes of tensor data in `model`, each tensor counted on its own even where tensors share
/// bytes (§1.3): what an ONNX `ModelProto` of the model holds at least, its tensors being
/// `raw_data` or `string_data` (§6.3).
pub(crate) fn tensor_data_bytes(model: &Model<'_>) -> u64 {
    let mut total = 0u64;
    super::model_tensors(model, &mut |t| {
        let n = match &t.data {
            TensorData::Raw(b) => b.len(),
            TensorData::Strings(s) => s.iter().map(Vec::len).fold(0usize, usize::saturating_add),
        };
        total = total.saturating_add(len64(n));
    });
    total
}

/// What writing each of `raws` in full adds beyond the memory they occupy (§4): the sum of
/// their lengths less the union of their address ranges, each byte of memory counted once.
/// Tensors with bytes of their own add nothing; `n` tensors that view one range of `l`
/// bytes add `(n − 1) × l`, and overlapping windows what they overlap. `None` when the
/// memory to sort the ranges (two words per tensor) is refused.
pub(super) fn shared_bytes(raws: &[&[u8]]) -> Option<u64> {
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    ranges.try_reserve_exact(raws.len()).ok()?;
    ranges.extend(
        raws.iter()
            .filter(|b| !b.is_empty())
            .map(|b| (b.as_ptr().addr(), b.as_ptr().addr().saturating_add(b.len()))),
    );
    ranges.sort_unstable();
    let (mut written, mut held, mut covered) = (0u64, 0u64, 0usize);
    for &(start, end) in &ranges {
        written = written.saturating_add(len64(end.saturating_sub(start)));
        held = held.saturating_add(len64(end.saturating_sub(start.max(covered))));
        covered = covered.max(end);
    }
    Some(written.saturating_sub(held))
}

fn len64(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}
