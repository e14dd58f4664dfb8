//! The `.deflate` test and fuzzing frame (`spec/inflate.md` §6): a raw deflate
//! stream behind the metadata a ZIP member would carry, so that the exact-size rules
//! can be exercised without a ZIP container.
//!
//! Layout: bytes 0..8 declared uncompressed size (u64 LE), bytes 8..12 expected
//! CRC-32 (u32 LE), bytes 12.. exactly one complete raw deflate stream.

use crate::Location;
use crate::digest::{ChunkDigest, Digests};
use crate::inflate::deflate::{DeflateError, append, deflate};
use crate::inflate::error::{InflateError, InflateReason};
use crate::inflate::member::inflate_exact;
use crate::inflate::raw::to_u64;
use crate::report::Rejection;
use alloc::string::ToString;
use alloc::vec::Vec;
use core::fmt;

/// Length of the frame's fixed header (`spec/inflate.md` §6.1).
pub const FRAME_HEADER_LEN: usize = 12;

/// A rejected `.deflate` frame: the reason and the absolute byte offset in the
/// frame file (`spec/inflate.md` §6.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameError {
    /// What was wrong.
    pub reason: InflateReason,
    /// Offset from the first byte of the frame file.
    pub offset: u64,
}

impl FrameError {
    /// Corpus kind (`spec/inflate.md` §7): `LimitExceeded` for a limit, else
    /// `InvalidDeflate`.
    pub fn kind(&self) -> &'static str {
        if self.reason.is_limit() {
            "LimitExceeded"
        } else {
            "InvalidDeflate"
        }
    }

    /// The rejection `modelgate check` prints: kind, message and byte offset (§7).
    pub fn rejection(&self) -> Rejection {
        Rejection::from(self)
    }
}

impl From<&FrameError> for Rejection {
    /// Kind per `spec/inflate.md` §7, the reason's message, `Location::at(offset)`.
    fn from(e: &FrameError) -> Self {
        Rejection {
            kind: e.kind(),
            message: e.reason.to_string(),
            location: Location::at(e.offset),
        }
    }
}

impl From<InflateError> for FrameError {
    /// Moves an engine error (offset relative to the deflate stream) to its absolute
    /// place in the frame (`spec/inflate.md` §6.3).
    fn from(e: InflateError) -> Self {
        let e = e.shifted(to_u64(FRAME_HEADER_LEN));
        FrameError {
            reason: e.reason,
            offset: e.offset,
        }
    }
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.reason, self.offset)
    }
}

impl core::error::Error for FrameError {}

/// Checks a whole `.deflate` frame (`spec/inflate.md` §6.2): the 12-byte header is
/// present (else `Truncated` at the file length), the declared size is at most
/// `max_output` (else `DeclaredTooLarge` at offset 0, before any decoding), and the
/// rest is exactly one complete raw deflate stream of the declared size and CRC-32
/// (§3.1), decoded into a discarding sink so memory stays bounded.
pub fn check_frame(bytes: &[u8], max_output: u64) -> Result<Digests, FrameError> {
    let (declared, crc, stream) = split_header(bytes)?;
    if declared > max_output {
        // spec/inflate.md §6.2: the declared size is checked before inflating.
        return Err(FrameError {
            reason: InflateReason::DeclaredTooLarge,
            offset: 0,
        });
    }
    Ok(inflate_exact(stream, declared, Some(crc), false, |_| {})?)
}

/// Builds a frame for `data` with the deterministic writer (`spec/inflate.md` §6.4).
pub fn write_frame(data: &[u8]) -> Result<Vec<u8>, DeflateError> {
    let stream = deflate(data, usize::MAX)?;
    let mut digest = ChunkDigest::crc_only();
    digest.update(data);
    let mut out = Vec::new();
    append(&mut out, &to_u64(data.len()).to_le_bytes())?;
    append(&mut out, &digest.crc32().to_le_bytes())?;
    append(&mut out, &stream)?;
    Ok(out)
}

/// Declared size, declared CRC-32 and the deflate stream (§6.1).
fn split_header(bytes: &[u8]) -> Result<(u64, u32, &[u8]), FrameError> {
    let truncated = FrameError {
        // spec/inflate.md §6.2: a file shorter than the header is truncated at its end.
        reason: InflateReason::Truncated,
        offset: to_u64(bytes.len()),
    };
    let (header, stream) = bytes.split_at_checked(FRAME_HEADER_LEN).ok_or(truncated)?;
    let (size, crc) = header.split_first_chunk::<8>().ok_or(truncated)?;
    let crc: &[u8; 4] = crc.try_into().map_err(|_| truncated)?;
    Ok((u64::from_le_bytes(*size), u32::from_le_bytes(*crc), stream))
}
