//! What the writers write against what the model holds (`spec/onemodel.md` §4, §6.3).
//! Tensors may share bytes in a OneModel file (§1.3), and both writers write each tensor in
//! full, so their output can grow with the number of tensors that share, not with the
//! memory the model holds. Both count a tensor's bytes the same way; the ONNX writer caps
//! the total (protobuf's 2 GiB), the OneModel writer caps what sharing adds
//! (`Limits::max_shared_data`).

#[cfg(feature = "onnx")]
use crate::onemodel::model::*;
use alloc::vec::Vec;

/// Bytes of tensor data in `model`, each tensor counted on its own even where tensors share
/// bytes (§1.3): what an ONNX `ModelProto` of the model holds at least, its tensors being
/// `raw_data` or `string_data` (§6.3).
#[cfg(feature = "onnx")]
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every list of up to three windows of a 6-byte buffer (empty ones included) and of a
    /// second buffer: what sharing adds is the sum of the lengths less the bytes covered,
    /// each counted once, as counting byte by byte gives.
    #[test]
    fn shared_bytes_is_the_sum_of_lengths_less_the_bytes_covered() {
        let a = [0u8; 6];
        let b = [0u8; 6];
        let mut windows: Vec<(usize, usize, usize)> = Vec::new();
        for buf in 0..2 {
            for start in 0..=6 {
                for end in start..=6 {
                    windows.push((buf, start, end));
                }
            }
        }
        let slice = |&(buf, start, end): &(usize, usize, usize)| if buf == 0 { &a[start..end] } else { &b[start..end] };
        let n = windows.len();
        for code in 0..n * n * n {
            let picks = [code % n, code / n % n, code / n / n];
            for len in 0..=3 {
                let chosen: Vec<&(usize, usize, usize)> = picks[..len].iter().map(|&i| &windows[i]).collect();
                let raws: Vec<&[u8]> = chosen.iter().map(|w| slice(w)).collect();
                let written: usize = raws.iter().map(|r| r.len()).sum();
                let mut covered = [[false; 6]; 2];
                for &&(buf, start, end) in &chosen {
                    covered[buf][start..end].iter_mut().for_each(|c| *c = true);
                }
                let held = covered.iter().flatten().filter(|&&c| c).count();
                assert_eq!(shared_bytes(&raws), Some((written - held) as u64), "{chosen:?}");
            }
        }
    }
}
