//! The data region (`spec/onemodel.md` §1.3) as a manifest's tensors see it: its bytes, each
//! tensor a view of them, or only where it lies in the file, when a file is read from its
//! head without its tensors (§5, [`super::read_head`]): each tensor is then a range of the
//! file ([`FileRange`]). The tensor rules (§2.5 rules 1–5) need the length alone, so both
//! give the same verdicts.

use super::model::{FileRange, TensorData};
use alloc::borrow::Cow;
use core::ops::Range;

/// A file's data region: its bytes, or where it lies in the file.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Region<'a> {
    /// The region's bytes; every tensor is a view of them.
    Bytes(&'a [u8]),
    /// The region's place in file 0: `data_offset` and `data_length` (§1.1); every tensor
    /// is a range of the file.
    File {
        /// Where the region starts in the file.
        offset: u64,
        /// Its length.
        length: u64,
    },
}

impl<'a> Region<'a> {
    /// The region's length in bytes (§1.1 `data_length`).
    pub(crate) fn length(self) -> u64 {
        match self {
            Region::Bytes(b) => u64::try_from(b.len()).unwrap_or(u64::MAX),
            Region::File { length, .. } => length,
        }
    }

    /// The tensor of `range`, which `tensor::check_range` has placed inside the region
    /// (§2.5 rule 5): a view of its bytes, or its range of the file; `None` only if it is
    /// not inside.
    pub(crate) fn tensor(self, range: Range<u64>) -> Option<TensorData<'a>> {
        match self {
            Region::Bytes(b) => {
                let view = b.get(usize::try_from(range.start).ok()?..usize::try_from(range.end).ok()?)?;
                Some(TensorData::Raw(Cow::Borrowed(view)))
            }
            Region::File { offset, length } if range.end <= length => Some(TensorData::File(FileRange {
                file: 0,
                offset: offset.checked_add(range.start)?,
                length: range.end.checked_sub(range.start)?,
            })),
            Region::File { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_region_of_bytes_and_one_in_a_file_agree_on_every_range() {
        let bytes = [7u8; 10];
        for start in 0..12u64 {
            for end in 0..12u64 {
                let of_bytes = Region::Bytes(&bytes).tensor(start..end);
                let in_file = Region::File {
                    offset: 128,
                    length: 10,
                }
                .tensor(start..end);
                assert_eq!(of_bytes.is_some(), in_file.is_some(), "{start}..{end}");
                if let (Some(b), Some(f)) = (of_bytes, in_file) {
                    assert_eq!(b.byte_length(), Some(end - start), "{start}..{end}");
                    let range = FileRange {
                        file: 0,
                        offset: 128 + start,
                        length: end - start,
                    };
                    assert_eq!(f, TensorData::File(range), "{start}..{end}");
                }
            }
        }
        assert_eq!(Region::Bytes(&bytes).length(), 10);
        assert_eq!(
            Region::File {
                offset: 64,
                length: 1 << 40
            }
            .length(),
            1 << 40
        );
    }
}
