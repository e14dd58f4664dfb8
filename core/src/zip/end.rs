//! The ordinary end record and, when required, the ZIP64 end record and its locator
//! (`spec/mlbundle.md` §2.1, §2.2).

use super::bytes::{Fields, record, to_u64};
use super::error::{ZipError, ZipReason};

/// Signature of the ordinary end record.
pub(crate) const END_SIG: u32 = 0x0605_4b50;
/// Signature of the ZIP64 end record.
pub(crate) const ZIP64_END_SIG: u32 = 0x0606_4b50;
/// Signature of the ZIP64 end record locator.
pub(crate) const LOCATOR_SIG: u32 = 0x0706_4b50;
/// Length of the ordinary end record without comment.
pub(crate) const END_LEN: u64 = 22;
/// Length of the ZIP64 end record with its fixed 44-byte body.
pub(crate) const ZIP64_END_LEN: u64 = 56;
/// Length of the locator.
pub(crate) const LOCATOR_LEN: u64 = 20;
/// The only accepted "size of ZIP64 end record" value: the standard fixed body (§2.2).
pub(crate) const ZIP64_BODY: u64 = 44;

/// Where the central directory is, from the end records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Directory {
    /// Offset of the first central header.
    pub offset: u64,
    /// Size of the central directory in bytes.
    pub size: u64,
    /// Number of central headers.
    pub count: u64,
    /// Offset where the directory must end: the ordinary or ZIP64 end record.
    pub end: u64,
    /// Whether ZIP64 end records are present.
    pub zip64: bool,
}

/// Reads the end records of `data` (§2.1, §2.2). Checks signature, no comment, disks,
/// counts and, with ZIP64, the locator, the fixed body and agreement.
pub(crate) fn read_end(data: &[u8]) -> Result<Directory, ZipError> {
    let len = to_u64(data.len());
    let at = len.checked_sub(END_LEN).ok_or(ZipError::at(ZipReason::TooShort, 0))?;
    let f = Fields(record(data, at, END_LEN, ZipReason::TooShort)?);
    // §2.1: the end record is the last 22 bytes, so a comment or appended bytes leave none there.
    if f.u32(0) != END_SIG || f.u16(20) != 0 {
        return Err(ZipError::at(ZipReason::NoEndRecord, at));
    }
    let (disk, cd_disk, on_disk, total) = (f.u16(4), f.u16(6), f.u16(8), f.u16(10));
    let (size, offset) = (f.u32(12), f.u32(16));
    let sentinel = disk == u16::MAX
        || cd_disk == u16::MAX
        || on_disk == u16::MAX
        || total == u16::MAX
        || size == u32::MAX
        || offset == u32::MAX;
    let plain_end = u64::from(offset).checked_add(u64::from(size)) == Some(at);
    if !sentinel && plain_end {
        // §2.1: no multi-disk archives.
        if disk != 0 || cd_disk != 0 || on_disk != total {
            return Err(ZipError::at(ZipReason::MultiDisk, at.saturating_add(4)));
        }
        // §2.2: where a locator would stand, a plain archive holds no locator signature
        // (the tail of its last central header could): readers that look there first,
        // as Python's zipfile does, would take the archive for ZIP64 and read it otherwise.
        if let Some(loc_at) = at.checked_sub(LOCATOR_LEN)
            && let Ok(l) = record(data, loc_at, 4, ZipReason::BadLocator)
            && Fields(l).u32(0) == LOCATOR_SIG
        {
            return Err(ZipError::at(ZipReason::BadLocator, loc_at));
        }
        return Ok(Directory {
            offset: u64::from(offset),
            size: u64::from(size),
            count: u64::from(total),
            end: at,
            zip64: false,
        });
    }
    let z = read_zip64(data, at)?;
    // §2.2: each ordinary field is its sentinel or equals the ZIP64 value.
    let agree16 = |v: u16, z: u64| v == u16::MAX || u64::from(v) == z;
    let agree32 = |v: u32, z: u64| v == u32::MAX || u64::from(v) == z;
    let ok = agree16(disk, 0)
        && agree16(cd_disk, 0)
        && agree16(on_disk, z.count)
        && agree16(total, z.count)
        && agree32(size, z.size)
        && agree32(offset, z.offset);
    if !ok {
        return Err(ZipError::at(ZipReason::EndRecordsDisagree, at));
    }
    Ok(z)
}

/// The locator just before the ordinary end record at `end_at`, and the ZIP64 end record
/// just before it (§2.2).
fn read_zip64(data: &[u8], end_at: u64) -> Result<Directory, ZipError> {
    let loc_at = end_at
        .checked_sub(LOCATOR_LEN)
        .ok_or(ZipError::at(ZipReason::DirectoryEnd, end_at))?;
    let l = Fields(record(data, loc_at, LOCATOR_LEN, ZipReason::BadLocator)?);
    if l.u32(0) != LOCATOR_SIG {
        // Without a locator the directory must end at the end record (§2.2, §2.12).
        return Err(ZipError::at(ZipReason::DirectoryEnd, end_at));
    }
    let z_at = loc_at
        .checked_sub(ZIP64_END_LEN)
        .ok_or(ZipError::at(ZipReason::BadLocator, loc_at))?;
    if l.u32(4) != 0 || l.u32(16) != 1 {
        return Err(ZipError::at(ZipReason::MultiDisk, loc_at.saturating_add(4)));
    }
    if l.u64(8) != z_at {
        return Err(ZipError::at(ZipReason::BadLocator, loc_at.saturating_add(8)));
    }
    let z = Fields(record(data, z_at, ZIP64_END_LEN, ZipReason::BadZip64End)?);
    if z.u32(0) != ZIP64_END_SIG {
        return Err(ZipError::at(ZipReason::BadZip64End, z_at));
    }
    if z.u64(4) != ZIP64_BODY {
        return Err(ZipError::at(ZipReason::BadZip64End, z_at.saturating_add(4)));
    }
    if z.u16(14) != 45 {
        return Err(ZipError::at(
            ZipReason::BadVersionNeeded(z.u16(14)),
            z_at.saturating_add(14),
        ));
    }
    if z.u32(16) != 0 || z.u32(20) != 0 || z.u64(24) != z.u64(32) {
        return Err(ZipError::at(ZipReason::MultiDisk, z_at.saturating_add(16)));
    }
    let dir = Directory {
        offset: z.u64(48),
        size: z.u64(40),
        count: z.u64(32),
        end: z_at,
        zip64: true,
    };
    if dir.offset.checked_add(dir.size) != Some(z_at) {
        return Err(ZipError::at(ZipReason::DirectoryEnd, z_at));
    }
    Ok(dir)
}
