//! Reading one member's bytes after the whole archive was validated
//! (`spec/mlbundle.md` §4): exact size, CRC-32 and SHA-256 in one pass.

use super::archive::Entry;
use super::error::{ZipError, ZipReason};
use super::header::STORED;
use crate::digest::ChunkDigest;
use crate::inflate::{MAX_CHUNK, inflate_exact};
use alloc::borrow::Cow;
use alloc::vec::Vec;

/// The member's uncompressed bytes and their SHA-256. Deflated data goes through
/// [`inflate_exact`] (exact size, one byte of lookahead, complete stream, CRC-32 and SHA-256
/// in the same pass) into a buffer reserved with `try_reserve_exact` for the declared size
/// (already checked against the caller's limits). Stored data is not copied: its CRC-32 and
/// SHA-256 run over it in 64 KiB chunks through one [`ChunkDigest`], and the bytes come back
/// borrowed from `data` (`spec/mlbundle.md` §4.2).
pub fn read_member<'a>(data: &'a [u8], entry: &Entry) -> Result<(Cow<'a, [u8]>, [u8; 32]), ZipError> {
    let fail = |r: ZipReason, off: u64| ZipError::at(r, off).member(entry.central.name);
    let start = entry.local.data_start;
    let input = super::bytes::record(data, start, entry.central.compressed, ZipReason::Overlap)
        .map_err(|e| e.member(entry.central.name))?;
    if entry.central.method == STORED {
        // The central directory check made the stored sizes equal (§2.5): `input` is the
        // member's bytes.
        let mut digest = ChunkDigest::with_sha256();
        for chunk in input.chunks(MAX_CHUNK) {
            digest.update(chunk);
        }
        let d = digest.finish();
        return stored_read(entry, input, d.crc32, sha256_of(d.sha256));
    }
    let size = usize::try_from(entry.central.uncompressed).map_err(|_| fail(ZipReason::OutOfMemory, start))?;
    let mut out = Vec::new();
    out.try_reserve_exact(size)
        .map_err(|_| fail(ZipReason::OutOfMemory, start))?;
    // Output is appended to the reserved buffer as the engine produces it, so a declared
    // size the data does not back costs address space, never written memory.
    let expected = entry.central.uncompressed;
    let digests = inflate_exact(input, expected, Some(entry.central.crc32), true, |chunk| {
        // Within the reserved capacity: the Exact bound caps the total (spec/inflate.md §2.5).
        out.extend_from_slice(chunk);
    })
    .map_err(|e| fail(ZipReason::Inflate(e.reason), start.saturating_add(e.offset)))?;
    Ok((Cow::Owned(out), sha256_of(digests.sha256)))
}

/// The outcome of a stored member's read from its bytes `input` as they lie in the archive
/// and their digests: accepted when the CRC-32 is the central directory's (§2.5).
fn stored_read<'a>(
    entry: &Entry,
    input: &'a [u8],
    crc32: u32,
    sha256: [u8; 32],
) -> Result<(Cow<'a, [u8]>, [u8; 32]), ZipError> {
    if crc32 != entry.central.crc32 {
        let reason = ZipReason::CrcMismatch {
            expected: entry.central.crc32,
            actual: crc32,
        };
        let end = entry.local.data_start.saturating_add(entry.central.compressed);
        return Err(ZipError::at(reason, end).member(entry.central.name));
    }
    Ok((Cow::Borrowed(input), sha256))
}

/// The SHA-256 of a digest that was asked for one: always there.
fn sha256_of(sha256: Option<[u8; 32]>) -> [u8; 32] {
    debug_assert!(sha256.is_some(), "the SHA-256 was asked for");
    sha256.unwrap_or_default()
}

/// A stored member's bytes as they lie in the archive (method 0, so they are the member's
/// uncompressed bytes, §2.5), neither copied nor checked; `None` for a deflated member or
/// data outside `data`. Lets a caller look at a stored member while [`read_member`] checks
/// the same bytes; only [`read_member`]'s result says whether they are the member.
pub fn stored_data<'a>(data: &'a [u8], entry: &Entry) -> Option<&'a [u8]> {
    if entry.central.method != STORED {
        return None;
    }
    super::bytes::record(
        data,
        entry.local.data_start,
        entry.central.compressed,
        ZipReason::Overlap,
    )
    .ok()
}
