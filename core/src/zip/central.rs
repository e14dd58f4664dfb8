//! Central directory headers (`spec/mlbundle.md` §2.3, with §1, §2.4–§2.9).

use super::bytes::{Fields, record};
use super::end::Directory;
use super::error::{ZipError, ZipReason};
use super::extra::{has_zip64_field, zip64_values};
use super::header::{FieldOffsets, STORED, check_common, name_index};
use alloc::vec::Vec;

/// Signature of a central directory header.
pub(crate) const CENTRAL_SIG: u32 = 0x0201_4b50;
/// Fixed length of a central header before its name.
pub(crate) const CENTRAL_LEN: u64 = 46;
/// Unix file-type mask and the regular-file type (§2.9).
const S_IFMT: u32 = 0o170_000;
const S_IFREG: u32 = 0o100_000;
/// DOS directory attribute bit (§2.9).
const DOS_DIRECTORY: u32 = 0x10;

/// One validated central directory header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CentralEntry {
    /// Index of the member's name in the caller's name table.
    pub name: usize,
    /// Archive offset of this central header.
    pub header_offset: u64,
    /// Version needed to extract.
    pub version_needed: u16,
    /// General-purpose flags.
    pub flags: u16,
    /// Compression method (0 or 8).
    pub method: u16,
    /// CRC-32 of the uncompressed data.
    pub crc32: u32,
    /// Compressed size, ZIP64-resolved.
    pub compressed: u64,
    /// Uncompressed size, ZIP64-resolved.
    pub uncompressed: u64,
    /// Offset of the local header, ZIP64-resolved.
    pub local_offset: u64,
}

/// Parses the whole central directory of `dir` (§2.3): exactly `dir.count` headers filling
/// exactly `dir.size` bytes, each name from `names` and unique.
pub(crate) fn read_central(data: &[u8], dir: &Directory, names: &[&str]) -> Result<Vec<CentralEntry>, ZipError> {
    let mut entries = Vec::new();
    // §1.2: one flag per allowed name, so duplicate detection is linear.
    let mut seen = alloc::vec![false; names.len()];
    let mut at = dir.offset;
    for _ in 0..dir.count {
        if at >= dir.end {
            return Err(ZipError::at(ZipReason::DirectoryCount, at));
        }
        let (entry, next) = read_one(data, at, dir.end, names)?;
        match seen.get_mut(entry.name) {
            Some(flag) if !*flag => *flag = true,
            _ => return Err(ZipError::at(ZipReason::DuplicateName, at).member(entry.name)),
        }
        entries
            .try_reserve(1)
            .map_err(|_| ZipError::at(ZipReason::OutOfMemory, at))?;
        entries.push(entry);
        at = next;
    }
    if at != dir.end {
        return Err(ZipError::at(ZipReason::DirectoryCount, at));
    }
    Ok(entries)
}

/// One central header at `at`, which must end by `limit`; returns it and the next offset.
fn read_one(data: &[u8], at: u64, limit: u64, names: &[&str]) -> Result<(CentralEntry, u64), ZipError> {
    let fixed_end = at.checked_add(CENTRAL_LEN).filter(|e| *e <= limit);
    let fixed_end = fixed_end.ok_or(ZipError::at(ZipReason::BadCentralHeader, at))?;
    let f = Fields(record(data, at, CENTRAL_LEN, ZipReason::BadCentralHeader)?);
    if f.u32(0) != CENTRAL_SIG {
        return Err(ZipError::at(ZipReason::BadCentralHeader, at));
    }
    let (name_len, extra_len, comment_len) = (f.u16(28), f.u16(30), f.u16(32));
    let var_len = u64::from(name_len) + u64::from(extra_len) + u64::from(comment_len);
    let end = fixed_end.saturating_add(var_len);
    if end > limit {
        return Err(ZipError::at(ZipReason::BadCentralHeader, at));
    }
    let name = record(data, fixed_end, u64::from(name_len), ZipReason::BadCentralHeader)?;
    // §1.1: exact names only.
    let index = name_index(names, name).ok_or(ZipError::at(ZipReason::UnknownName, fixed_end))?;
    let fail = |r: ZipReason, off: u64| ZipError::at(r, at.saturating_add(off)).member(index);
    if comment_len != 0 {
        return Err(fail(ZipReason::MemberComment, 32));
    }
    let extra_at = fixed_end.saturating_add(u64::from(name_len));
    let extra = record(data, extra_at, u64::from(extra_len), ZipReason::BadCentralHeader)?;
    let (csize, usize_, offset) = (f.u32(20), f.u32(24), f.u32(42));
    let needs = [usize_ == u32::MAX, csize == u32::MAX, offset == u32::MAX];
    let (version, flags, method) = (f.u16(6), f.u16(8), f.u16(10));
    let zip64 = has_zip64_field(extra);
    let offsets = FieldOffsets {
        method: at.saturating_add(10),
        version: at.saturating_add(6),
        flags: at.saturating_add(8),
    };
    check_common(method, version, flags, needs.contains(&true) || zip64, offsets).map_err(|e| e.member(index))?;
    if f.u16(34) != 0 || f.u16(36) > 1 {
        return Err(fail(ZipReason::BadCentralField, 34));
    }
    check_attributes(f.u32(38)).map_err(|r| fail(r, 38))?;
    let values = zip64_values(extra, extra_at, needs).map_err(|e| e.member(index))?;
    let [u, c, o] = values;
    let entry = CentralEntry {
        name: index,
        header_offset: at,
        version_needed: version,
        flags,
        method,
        crc32: f.u32(16),
        compressed: c.unwrap_or(u64::from(csize)),
        uncompressed: u.unwrap_or(u64::from(usize_)),
        local_offset: o.unwrap_or(u64::from(offset)),
    };
    if method == STORED && entry.compressed != entry.uncompressed {
        return Err(fail(ZipReason::StoredSizeMismatch, 20));
    }
    Ok((entry, end))
}

/// §2.9: an explicit Unix type must be regular; the DOS directory bit must be clear.
fn check_attributes(external: u32) -> Result<(), ZipReason> {
    let unix_type = (external >> 16) & S_IFMT;
    if (unix_type != 0 && unix_type != S_IFREG) || external & DOS_DIRECTORY != 0 {
        return Err(ZipReason::NotRegularFile);
    }
    Ok(())
}
