//! Reading one member's bytes after the whole archive was validated
//! (`spec/mlbundle.md` §4): exact size, CRC-32 and SHA-256 in one pass.

use super::archive::Entry;
use super::error::{ZipError, ZipReason};
use super::header::STORED;
use crate::digest::ChunkDigest;
use crate::digest::lanes::{CompressPair, PairDigest, sha256_pair};
use crate::inflate::{MAX_CHUNK, inflate_exact};
use alloc::borrow::Cow;
use alloc::vec::Vec;

/// What [`read_member_with`] returns: the member's bytes (borrowed from the archive when
/// stored, its own buffer when deflated) and their SHA-256 when it was asked for.
pub type MemberRead<'a> = (Cow<'a, [u8]>, Option<[u8; 32]>);

/// The member's uncompressed bytes and their SHA-256. Deflated data goes through
/// [`inflate_exact`] (exact size, one byte of lookahead, complete stream, CRC-32 and SHA-256
/// in the same pass) into a buffer reserved with `try_reserve_exact` for the declared size
/// (already checked against the caller's limits). Stored data is not copied: its CRC-32 and
/// SHA-256 run over it in 64 KiB chunks through one [`ChunkDigest`], and the bytes come back
/// borrowed from `data` (`spec/mlbundle.md` §4.2).
pub fn read_member<'a>(data: &'a [u8], entry: &Entry) -> Result<(Cow<'a, [u8]>, [u8; 32]), ZipError> {
    let (bytes, sha) = read_member_with(data, entry, true)?;
    Ok((bytes, sha.unwrap_or_default()))
}

/// [`read_member`] with the SHA-256 in the same pass only when `sha256` is set (`None`
/// otherwise): every other check (size, stream, CRC-32) is the same. For a caller that
/// hashes the bytes elsewhere, for example on another thread (`spec/mlbundle.md` §12.0).
pub fn read_member_with<'a>(data: &'a [u8], entry: &Entry, sha256: bool) -> Result<MemberRead<'a>, ZipError> {
    let fail = |r: ZipReason, off: u64| ZipError::at(r, off).member(entry.central.name);
    let start = entry.local.data_start;
    let input = super::bytes::record(data, start, entry.central.compressed, ZipReason::Overlap)
        .map_err(|e| e.member(entry.central.name))?;
    if entry.central.method == STORED {
        // The central directory check made the stored sizes equal (§2.5): `input` is the
        // member's bytes.
        let mut digest = if sha256 {
            ChunkDigest::with_sha256()
        } else {
            ChunkDigest::crc_only()
        };
        for chunk in input.chunks(MAX_CHUNK) {
            digest.update(chunk);
        }
        let d = digest.finish();
        return stored_read(entry, input, d.crc32, d.sha256);
    }
    let size = usize::try_from(entry.central.uncompressed).map_err(|_| fail(ZipReason::OutOfMemory, start))?;
    let mut out = Vec::new();
    out.try_reserve_exact(size)
        .map_err(|_| fail(ZipReason::OutOfMemory, start))?;
    // Output is appended to the reserved buffer as the engine produces it, so a declared
    // size the data does not back costs address space, never written memory.
    let expected = entry.central.uncompressed;
    let digests = inflate_exact(input, expected, Some(entry.central.crc32), sha256, |chunk| {
        // Within the reserved capacity: the Exact bound caps the total (spec/inflate.md §2.5).
        out.extend_from_slice(chunk);
    })
    .map_err(|e| fail(ZipReason::Inflate(e.reason), start.saturating_add(e.offset)))?;
    Ok((Cow::Owned(out), digests.sha256))
}

/// [`read_member`] of two stored members at once (`spec/mlbundle.md` §12.0): their CRC-32s
/// and SHA-256s in one pass over both, the two members stepped side by side by `pair`
/// ([`sha256_pair`]), which folds each block into both digests of its member. Each result
/// is what [`read_member`] gives for its member; a member that is not stored, or whose
/// bytes are not inside `data`, is read by [`read_member_with`] on its own.
pub fn read_stored_pair<'a>(
    data: &'a [u8],
    [a, b]: [&Entry; 2],
    pair: CompressPair,
) -> [Result<MemberRead<'a>, ZipError>; 2] {
    let (Some(x), Some(y)) = (stored_data(data, a), stored_data(data, b)) else {
        return [a, b].map(|e| read_member_with(data, e, true));
    };
    let [dx, dy] = sha256_pair(x, y, pair, true);
    let read = |e: &Entry, bytes: &'a [u8], d: PairDigest| match d.crc32 {
        Some(crc) => stored_read(e, bytes, crc, Some(d.sha256)),
        // A compressor that dropped the CRC-32 it was asked for: the member is read alone.
        None => read_member_with(data, e, true),
    };
    [read(a, x, dx), read(b, y, dy)]
}

/// The outcome of a stored member's read from its bytes `input` as they lie in the archive
/// and their digests: accepted when the CRC-32 is the central directory's (§2.5).
fn stored_read<'a>(
    entry: &Entry,
    input: &'a [u8],
    crc32: u32,
    sha256: Option<[u8; 32]>,
) -> Result<MemberRead<'a>, ZipError> {
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
