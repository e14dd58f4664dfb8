//! The data region (`spec/onemodel.md` §1.3) as a manifest's tensors see it: its bytes, each
//! tensor a view of them, or only its length, when a file is checked without reading its
//! tensors (§5, [`super::check_head`]). The tensor rules (§2.5 rules 1–5) need the length
//! alone, so both give the same verdicts.

use core::ops::Range;

/// A file's data region: its bytes, or only their count.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Region<'a> {
    /// The region's bytes; every tensor is a view of them.
    Bytes(&'a [u8]),
    /// The region's length alone; every tensor's view is empty.
    Length(u64),
}

impl<'a> Region<'a> {
    /// The region's length in bytes (§1.1 `data_length`).
    pub(crate) fn length(self) -> u64 {
        match self {
            Region::Bytes(b) => u64::try_from(b.len()).unwrap_or(u64::MAX),
            Region::Length(n) => n,
        }
    }

    /// The bytes of `range`, which `tensor::check_range` has placed inside the region
    /// (§2.5 rule 5): `None` only if it is not; empty when only the length is known.
    pub(crate) fn view(self, range: Range<u64>) -> Option<&'a [u8]> {
        match self {
            Region::Bytes(b) => b.get(usize::try_from(range.start).ok()?..usize::try_from(range.end).ok()?),
            Region::Length(n) => (range.start <= range.end && range.end <= n).then_some(&[]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_region_of_bytes_and_one_of_their_length_agree_on_every_range() {
        let bytes = [7u8; 10];
        for start in 0..12u64 {
            for end in 0..12u64 {
                let of_bytes = Region::Bytes(&bytes).view(start..end);
                let of_length = Region::Length(10).view(start..end);
                assert_eq!(of_bytes.is_some(), of_length.is_some(), "{start}..{end}");
                if let (Some(b), Some(l)) = (of_bytes, of_length) {
                    assert_eq!((b.len() as u64, l.len()), (end - start, 0), "{start}..{end}");
                }
            }
        }
        assert_eq!(Region::Bytes(&bytes).length(), 10);
        assert_eq!(Region::Length(1 << 40).length(), 1 << 40);
    }
}
