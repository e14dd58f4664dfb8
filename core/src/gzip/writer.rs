//! Deterministic single-member gzip writer (`spec/inflate.md` §5.13).

use crate::digest::ChunkDigest;
use crate::inflate::deflate::{DeflateError, Deflater, append};
use crate::inflate::raw::to_u64;
use alloc::vec::Vec;

/// The fixed header the writer emits: ID1 ID2 CM, no flags, MTIME 0, XFL 0,
/// OS 255 "unknown" (`spec/inflate.md` §5.13).
pub(crate) const WRITER_HEADER: [u8; 10] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255];

/// Smallest possible member: header, the two-byte empty deflate stream, trailer.
const MIN_MEMBER: u64 = 10 + 2 + 8;

/// Compresses `data` into one gzip member of at most `max_output` bytes with the
/// fixed header `WRITER_HEADER` and the deterministic deflate writer (§4, §5.13).
/// The same input always gives the same bytes.
pub fn write_gzip(data: &[u8], max_output: usize) -> Result<Vec<u8>, DeflateError> {
    let max_output = to_u64(max_output);
    let too_large = DeflateError::OutputTooLarge { max_output };
    let body_max = max_output.checked_sub(MIN_MEMBER - 2).ok_or(too_large)?;
    let mut out = Vec::new();
    append(&mut out, &WRITER_HEADER)?;
    let mut deflater = Deflater::new(body_max);
    let mut sink = |chunk: &[u8]| append(&mut out, chunk);
    deflater.write(data, &mut sink)?;
    deflater.finish(&mut sink)?;
    let mut digest = ChunkDigest::crc_only();
    digest.update(data);
    append(&mut out, &digest.crc32().to_le_bytes())?;
    let isize = u32::try_from(to_u64(data.len()) & u64::from(u32::MAX)).unwrap_or_default();
    append(&mut out, &isize.to_le_bytes())?;
    Ok(out)
}
