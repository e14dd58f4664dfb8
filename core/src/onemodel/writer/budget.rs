//! What the writers write against what the model holds (`spec/onemodel.md` §4, §6.3).
//! Tensors may share bytes in a OneModel file (§1.3), and both writers write each tensor in
//! full, so their output can grow with the number of tensors that share, not with the
//! memory and files the model holds. Both cap what sharing adds at
//! `Limits::max_shared_data`, counted here once for both.

use crate::onemodel::Limits;
use crate::onemodel::error::{Error, ErrorKind};
use crate::onemodel::model::*;
use alloc::string::String;
use alloc::vec::Vec;

/// The space of a range in memory, apart from every file's.
const MEMORY: usize = usize::MAX;

/// Refuses a model whose tensors, each written in full, would add more than
/// `limits.max_shared_data` bytes to the bytes they occupy (§4): LimitExceeded at `model`,
/// before anything is laid out.
pub(crate) fn check_shared(model: &Model<'_>, limits: Limits) -> Result<(), Error> {
    let mut tensors: Vec<&TensorData<'_>> = Vec::new();
    super::model_tensors(model, &mut |t| tensors.push(&t.data));
    let limit = |message| Error::at_path(ErrorKind::LimitExceeded, String::from("model"), None, message);
    let shared = shared_bytes(&tensors).ok_or_else(|| limit("too many tensors for memory"))?;
    if shared > limits.max_shared_data {
        return Err(limit("tensors that share bytes would be written over max_shared_data"));
    }
    Ok(())
}

/// What writing each of `tensors` in full adds beyond the bytes they occupy (§4): the sum
/// of their lengths less the union of their ranges, in memory (by address) and in each file
/// (by offset) apart, each byte counted once. Tensors with bytes of their own add nothing;
/// `n` tensors that view one range of `l` bytes add `(n − 1) × l`, and overlapping windows
/// what they overlap. `None` when the memory to sort the ranges (three words per tensor)
/// is refused.
pub(super) fn shared_bytes(tensors: &[&TensorData<'_>]) -> Option<u64> {
    let mut ranges: Vec<(usize, u64, u64)> = Vec::new();
    ranges.try_reserve_exact(tensors.len()).ok()?;
    ranges.extend(tensors.iter().filter_map(|t| match t {
        TensorData::Raw(b) if !b.is_empty() => {
            let start = len64(b.as_ptr().addr());
            Some((MEMORY, start, start.saturating_add(len64(b.len()))))
        }
        TensorData::File(r) if r.length > 0 => Some((r.file, r.offset, r.offset.saturating_add(r.length))),
        _ => None,
    }));
    ranges.sort_unstable();
    let (mut written, mut held, mut covered, mut space) = (0u64, 0u64, 0u64, None);
    for &(within, start, end) in &ranges {
        if space != Some(within) {
            (space, covered) = (Some(within), 0);
        }
        written = written.saturating_add(end - start);
        held = held.saturating_add(end.saturating_sub(start.max(covered)));
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

    /// Every list of up to three windows of a 4-byte buffer (empty ones included), of a
    /// second buffer and of two files at the same offsets: what sharing adds is the sum of
    /// the lengths less the bytes covered, each counted once per buffer or file, as counting
    /// byte by byte gives.
    #[test]
    fn shared_bytes_is_the_sum_of_lengths_less_the_bytes_covered() {
        let a = [0u8; 4];
        let b = [0u8; 4];
        let mut windows: Vec<(usize, usize, usize)> = Vec::new();
        for within in 0..4 {
            for start in 0..=4 {
                for end in start..=4 {
                    windows.push((within, start, end));
                }
            }
        }
        let data = |&(within, start, end): &(usize, usize, usize)| match within {
            0 => TensorData::Raw(alloc::borrow::Cow::Borrowed(&a[start..end])),
            1 => TensorData::Raw(alloc::borrow::Cow::Borrowed(&b[start..end])),
            file => TensorData::File(FileRange {
                file,
                offset: start as u64,
                length: (end - start) as u64,
            }),
        };
        let n = windows.len();
        for code in 0..n * n * n {
            let picks = [code % n, code / n % n, code / n / n];
            for len in 0..=3 {
                let chosen: Vec<&(usize, usize, usize)> = picks[..len].iter().map(|&i| &windows[i]).collect();
                let tensors: Vec<TensorData<'_>> = chosen.iter().map(|w| data(w)).collect();
                let refs: Vec<&TensorData<'_>> = tensors.iter().collect();
                let written: usize = chosen.iter().map(|w| w.2 - w.1).sum();
                let mut covered = [[false; 4]; 4];
                for &&(within, start, end) in &chosen {
                    covered[within][start..end].iter_mut().for_each(|c| *c = true);
                }
                let held = covered.iter().flatten().filter(|&&c| c).count();
                assert_eq!(shared_bytes(&refs), Some((written - held) as u64), "{chosen:?}");
            }
        }
    }
}
