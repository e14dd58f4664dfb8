//! The 8-byte gzip member trailer: CRC-32 and ISIZE (RFC 1952 §2.3.1;
//! `spec/inflate.md` §5.6).

use crate::digest::Digests;
use crate::gzip::error::{GzipError, GzipReason};

/// Length of the trailer (§5.6).
pub(crate) const TRAILER_LEN: usize = 8;

/// A member trailer's two fields (§5.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Trailer {
    /// CRC-32 of the member's uncompressed output.
    pub crc32: u32,
    /// Output length mod 2^32.
    pub isize: u32,
}

impl Trailer {
    /// Checks the trailer against the member's output, in field order: CRC-32 (error
    /// at the trailer's first byte), then ISIZE (error 4 bytes further)
    /// (`spec/inflate.md` §5.6). `at` is the trailer's absolute offset.
    pub(crate) fn check(&self, output: &Digests, at: u64) -> Result<(), GzipError> {
        if self.crc32 != output.crc32 {
            // spec/inflate.md §5.6: CRC-32 of the member's output must match.
            return Err(GzipError::new(
                GzipReason::CrcMismatch {
                    expected: self.crc32,
                    actual: output.crc32,
                },
                at,
            ));
        }
        let actual = low_32_bits(output.len);
        if self.isize != actual {
            // spec/inflate.md §5.6: ISIZE is the output length mod 2^32.
            return Err(GzipError::new(
                GzipReason::SizeMismatch {
                    expected: self.isize,
                    actual,
                },
                at.saturating_add(4),
            ));
        }
        Ok(())
    }
}

/// Collects the trailer's 8 bytes from pieces of any size (`spec/inflate.md` §5.6).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct TrailerParser {
    buf: [u8; TRAILER_LEN],
    have: usize,
}

impl TrailerParser {
    /// A parser with no byte yet (§5.6).
    pub(crate) fn new() -> Self {
        TrailerParser::default()
    }

    /// Takes up to the missing trailer bytes from `input`; returns how many it took
    /// and the trailer once all 8 bytes are in (§5.6).
    pub(crate) fn feed(&mut self, input: &[u8]) -> (usize, Option<Trailer>) {
        let missing = TRAILER_LEN.saturating_sub(self.have);
        let n = missing.min(input.len());
        let end = self.have.saturating_add(n);
        if let (Some(dst), Some(src)) = (self.buf.get_mut(self.have..end), input.get(..n)) {
            dst.copy_from_slice(src);
        }
        self.have = end;
        (n, self.trailer())
    }

    fn trailer(&self) -> Option<Trailer> {
        if self.have < TRAILER_LEN {
            return None;
        }
        let (crc, size) = self.buf.split_first_chunk::<4>()?;
        let size: &[u8; 4] = size.try_into().ok()?;
        Some(Trailer {
            crc32: u32::from_le_bytes(*crc),
            isize: u32::from_le_bytes(*size),
        })
    }
}

/// `len mod 2^32`.
fn low_32_bits(len: u64) -> u32 {
    u32::try_from(len & u64::from(u32::MAX)).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ISIZE is the output length mod 2^32 (§5.6), and a mismatch is reported 4 bytes
    /// after the trailer's start.
    #[test]
    fn isize_is_length_mod_2_pow_32() {
        let output = Digests {
            crc32: 9,
            sha256: None,
            len: (1 << 32) + 5,
        };
        assert_eq!(Trailer { crc32: 9, isize: 5 }.check(&output, 100), Ok(()));
        let reason = GzipReason::SizeMismatch { expected: 6, actual: 5 };
        assert_eq!(
            Trailer { crc32: 9, isize: 6 }.check(&output, 100),
            Err(GzipError::new(reason, 104))
        );
    }
}
