//! Little-endian field access over archive bytes with checked bounds: every read of a
//! record goes through [`record`], so a truncated record is an error, never a panic.

use super::error::{ZipError, ZipReason};

/// The `len` bytes at archive offset `offset`, or `reason` at `offset` when they run past
/// the end of `data`.
pub(crate) fn record(data: &[u8], offset: u64, len: u64, reason: ZipReason) -> Result<&[u8], ZipError> {
    let err = ZipError::at(reason, offset);
    let start = usize::try_from(offset).map_err(|_| err)?;
    let len = usize::try_from(len).map_err(|_| err)?;
    let end = start.checked_add(len).ok_or(err)?;
    data.get(start..end).ok_or(err)
}

/// Fixed-size fields of one record, read by their offset inside the record.
#[derive(Clone, Copy)]
pub(crate) struct Fields<'a>(pub &'a [u8]);

impl Fields<'_> {
    /// The `N` bytes at `at`, zeros when out of range (callers slice records to their
    /// fixed length first, so this never happens).
    fn array<const N: usize>(&self, at: usize) -> [u8; N] {
        let mut out = [0u8; N];
        if let Some(src) = at.checked_add(N).and_then(|end| self.0.get(at..end)) {
            out.copy_from_slice(src);
        }
        out
    }

    /// Little-endian u16 at `at`.
    pub(crate) fn u16(&self, at: usize) -> u16 {
        u16::from_le_bytes(self.array(at))
    }

    /// Little-endian u32 at `at`.
    pub(crate) fn u32(&self, at: usize) -> u32 {
        u32::from_le_bytes(self.array(at))
    }

    /// Little-endian u64 at `at`.
    pub(crate) fn u64(&self, at: usize) -> u64 {
        u64::from_le_bytes(self.array(at))
    }
}

/// `usize` to `u64` (lossless on every supported target).
pub(crate) fn to_u64(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}
