//! Reading one member's bytes after the whole archive was validated
//! (`spec/mlbundle.md` §4): exact size, CRC-32 and SHA-256 in one pass.

use super::archive::Entry;
use super::descriptor::DESCRIPTOR_SIG;
use super::error::{ZipError, ZipReason};
use super::header::{FLAG_DESCRIPTOR, STORED};
use crate::digest::{ChunkDigest, crc32_continue};
use crate::inflate::{MAX_CHUNK, inflate_exact};
use crate::invariant;
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
        // member's bytes. With a descriptor, each chunk is also searched for a planted one
        // (§2.11) while it is in cache.
        let descriptor = entry.central.flags & FLAG_DESCRIPTOR != 0;
        let mut digest = ChunkDigest::with_sha256();
        let mut running = RunningCrc::default();
        let mut at = 0usize;
        for chunk in input.chunks(MAX_CHUNK) {
            digest.update(chunk);
            if descriptor && let Some(k) = planted_descriptor(data, start, at, chunk, &mut running) {
                return Err(fail(ZipReason::PlantedDescriptor, start.saturating_add(k)));
            }
            at = at.saturating_add(chunk.len());
        }
        let d = digest.finish();
        // SHA-256 was asked for.
        return stored_read(entry, input, d.crc32, invariant::some(d.sha256));
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
    // SHA-256 was asked for (`inflate_exact`'s `true`).
    Ok((Cow::Owned(out), invariant::some(digests.sha256)))
}

/// §2.11.1: the first offset `k` of `chunk` (which starts `from` bytes into the member's data,
/// which starts at `start` in `data`) where a signed data descriptor begins whose compressed
/// and uncompressed sizes both equal `k`, in the 32-bit or the 64-bit form, or whose CRC-32 is
/// that of the member's first `k` bytes. Such a member reads as `k` bytes to a streaming
/// reader, which knows no size and stops at the first descriptor that fits what it has read
/// (libarchive's stops at the first whose CRC-32 fits). The descriptor may run past the chunk
/// and past the member's data: its bytes are read from `data`. Linear in the chunk; each `P`
/// costs at most 24 bytes read, and `running` reads each byte of the member at most once.
fn planted_descriptor(data: &[u8], start: u64, from: usize, chunk: &[u8], running: &mut RunningCrc) -> Option<u64> {
    let mut i = 0usize;
    while let Some(p) = chunk.get(i..).and_then(|rest| rest.iter().position(|&b| b == b'P')) {
        let k = u64::try_from(from.saturating_add(i).saturating_add(p)).ok()?;
        let at = usize::try_from(start.saturating_add(k)).ok()?;
        let field = |off: usize, len: usize| data.get(at.checked_add(off)?..at.checked_add(off + len)?);
        let le = |b: &[u8]| b.iter().rev().fold(0u64, |v, &x| (v << 8) | u64::from(x));
        if field(0, 4) == Some(&DESCRIPTOR_SIG.to_le_bytes()[..]) {
            let narrow = field(8, 4).map(le) == Some(k) && field(12, 4).map(le) == Some(k);
            let wide = field(8, 8).map(le) == Some(k) && field(16, 8).map(le) == Some(k);
            let crc = field(4, 4).map(le) == Some(u64::from(running.up_to(data, start, at)));
            if narrow || wide || crc {
                return Some(k);
            }
        }
        i = i.saturating_add(p).saturating_add(1);
    }
    None
}

/// The CRC-32 of a stored member's data up to a point, carried from one candidate of the
/// §2.11.1 search to the next (candidates come in increasing order).
#[derive(Clone, Copy, Debug, Default)]
struct RunningCrc {
    /// Archive offset up to which `crc` is computed (0: from the data's start).
    end: usize,
    /// CRC-32 of the data's bytes before `end`.
    crc: u32,
}

impl RunningCrc {
    /// The CRC-32 of `data[start..at]`, computed from where the previous call left off.
    fn up_to(&mut self, data: &[u8], start: u64, at: usize) -> u32 {
        let from = self.end.max(usize::try_from(start).unwrap_or(usize::MAX));
        // Candidates come in increasing order, within the data.
        self.crc = crc32_continue(self.crc, invariant::sub(data, from..at));
        self.end = at;
        self.crc
    }
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

/// A stored member's bytes as they lie in the archive (method 0, so they are the member's
/// uncompressed bytes, §2.5), neither copied nor checked; `None` for a deflated member or
/// data outside `data`. Lets a caller look at a stored member while [`read_member`] checks
/// the same bytes; only [`read_member`]'s result says whether they are the member.
pub(crate) fn stored_data<'a>(data: &'a [u8], entry: &Entry) -> Option<&'a [u8]> {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A payload of `len` bytes with a signed descriptor planted at `k` whose sizes are
    /// `sizes`, in the 32-bit or the 64-bit form, after a 30-byte header.
    fn archive(len: usize, k: usize, sizes: u64, wide: bool) -> Vec<u8> {
        let mut d = alloc::vec![0x55u8; 30 + len + 24];
        let at = 30 + k;
        d[at..at + 4].copy_from_slice(&DESCRIPTOR_SIG.to_le_bytes());
        if wide {
            d[at + 8..at + 16].copy_from_slice(&sizes.to_le_bytes());
            d[at + 16..at + 24].copy_from_slice(&sizes.to_le_bytes());
        } else {
            d[at + 8..at + 12].copy_from_slice(&(sizes as u32).to_le_bytes());
            d[at + 12..at + 16].copy_from_slice(&(sizes as u32).to_le_bytes());
        }
        d
    }

    /// The search as `read_member` runs it: chunk by chunk.
    fn search(d: &[u8], len: usize) -> Option<u64> {
        let payload = &d[30..30 + len];
        let mut from = 0;
        let mut running = RunningCrc::default();
        for chunk in payload.chunks(MAX_CHUNK) {
            if let Some(k) = planted_descriptor(d, 30, from, chunk, &mut running) {
                return Some(k);
            }
            from += chunk.len();
        }
        None
    }

    /// §2.11.1: found at its offset in either form, at the start, and across a chunk's end
    /// (its fields read from the archive); not found when its sizes are not its offset.
    #[test]
    fn a_planted_descriptor_is_found_where_a_streaming_reader_stops() {
        let len = 3 * MAX_CHUNK;
        for wide in [false, true] {
            for k in [0, 7, MAX_CHUNK - 2, MAX_CHUNK - 1, 2 * MAX_CHUNK + 5, len - 1] {
                assert_eq!(
                    search(&archive(len, k, k as u64, wide), len),
                    Some(k as u64),
                    "{k} {wide}"
                );
                assert_eq!(search(&archive(len, k, k as u64 + 1, wide), len), None, "{k} {wide}");
            }
        }
        // The real descriptor, just after the data, is not inside it.
        assert_eq!(search(&archive(len, len, len as u64, false), len), None);
    }

    /// §2.11.1: a descriptor whose CRC-32 is that of the bytes before it is found whatever its
    /// sizes, also after earlier signatures that fit nothing (the running CRC-32 carries on);
    /// a CRC-32 of other bytes is not.
    #[test]
    fn a_planted_descriptor_is_found_by_its_crc() {
        let len = 3 * MAX_CHUNK;
        for k in [0, 7, MAX_CHUNK - 1, 2 * MAX_CHUNK + 5, len - 1] {
            let mut d = archive(len, k, k as u64 + 1, false);
            for early in [k / 3, k / 2] {
                if early + 16 <= k {
                    d[30 + early..30 + early + 4].copy_from_slice(&DESCRIPTOR_SIG.to_le_bytes());
                }
            }
            let crc = crate::digest::crc32(&d[30..30 + k]);
            d[30 + k + 4..30 + k + 8].copy_from_slice(&crc.to_le_bytes());
            assert_eq!(search(&d, len), Some(k as u64), "{k}");
            d[30 + k + 4..30 + k + 8].copy_from_slice(&(crc ^ 1).to_le_bytes());
            assert_eq!(search(&d, len), None, "{k}");
        }
    }
}
