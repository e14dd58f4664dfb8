//! Local headers and their agreement with the central directory (`spec/mlbundle.md` §2.10).

use super::bytes::{Fields, record};
use super::central::CentralEntry;
use super::error::{ZipError, ZipReason};
use super::extra::{has_zip64_field, zip64_values};
use super::header::{FLAG_DESCRIPTOR, FieldOffsets, check_common};
use crate::invariant;

/// Signature of a local header.
pub(crate) const LOCAL_SIG: u32 = 0x0403_4b50;
/// Fixed length of a local header before its name.
pub(crate) const LOCAL_LEN: u64 = 30;

/// Where one member's local record puts its data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LocalRecord {
    /// Offset of the first compressed byte.
    pub data_start: u64,
    /// Offset just after the compressed data (where a descriptor would start).
    pub data_end: u64,
    /// The local header carries a ZIP64 field (decides the descriptor form, §2.11).
    pub zip64: bool,
}

/// Reads and checks the local header of `entry` against it (§2.10). `names` is the name
/// table the directory was read with.
pub(crate) fn read_local(data: &[u8], entry: &CentralEntry, names: &[&str]) -> Result<LocalRecord, ZipError> {
    let at = entry.local_offset;
    let fail = |r: ZipReason, off: u64| ZipError::at(r, at.saturating_add(off)).member(entry.name);
    let f = Fields(record(data, at, LOCAL_LEN, ZipReason::BadLocalHeader).map_err(|e| e.member(entry.name))?);
    if f.u32(0) != LOCAL_SIG {
        return Err(fail(ZipReason::BadLocalHeader, 0));
    }
    let (version, flags, method) = (f.u16(4), f.u16(6), f.u16(8));
    if version != entry.version_needed || flags != entry.flags || method != entry.method {
        return Err(fail(ZipReason::LocalMismatch, 4));
    }
    let (name_len, extra_len) = (u64::from(f.u16(26)), u64::from(f.u16(28)));
    let name_at = at.saturating_add(LOCAL_LEN);
    let name = record(data, name_at, name_len, ZipReason::BadLocalHeader).map_err(|e| e.member(entry.name))?;
    let expected = invariant::some(names.get(entry.name).map(|n| n.as_bytes()));
    if name != expected {
        return Err(fail(ZipReason::LocalMismatch, LOCAL_LEN));
    }
    let extra_at = name_at.saturating_add(name_len);
    let extra = record(data, extra_at, extra_len, ZipReason::BadLocalHeader).map_err(|e| e.member(entry.name))?;
    let (crc, csize, usize_) = (f.u32(14), f.u32(18), f.u32(22));
    let needs = [usize_ == u32::MAX, csize == u32::MAX, false];
    if needs[0] != needs[1] {
        // §2.4 (APPNOTE 4.5.3): a local ZIP64 field holds both sizes or none. A reader that
        // takes one size from the header and the other from the field would disagree with
        // one that reads the field as both.
        return Err(fail(ZipReason::LocalZip64OneSize, 18));
    }
    let zip64 = has_zip64_field(extra);
    let offsets = FieldOffsets {
        method: at.saturating_add(8),
        version: at.saturating_add(4),
        flags: at.saturating_add(6),
    };
    check_common(method, version, flags, zip64 || needs.contains(&true), offsets).map_err(|e| e.member(entry.name))?;
    let [u, c, _] = zip64_values(extra, extra_at, needs).map_err(|e| e.member(entry.name))?;
    let local = (crc, c.unwrap_or(u64::from(csize)), u.unwrap_or(u64::from(usize_)));
    let central = (entry.crc32, entry.compressed, entry.uncompressed);
    let agrees = if flags & FLAG_DESCRIPTOR != 0 {
        // §2.10: with a descriptor each local value is 0 or the directory's.
        (local.0 == 0 || local.0 == central.0)
            && (local.1 == 0 || local.1 == central.1)
            && (local.2 == 0 || local.2 == central.2)
    } else {
        local == central
    };
    if !agrees {
        return Err(fail(ZipReason::LocalMismatch, 14));
    }
    let data_start = extra_at.saturating_add(extra_len);
    let data_end = data_start
        .checked_add(entry.compressed)
        .ok_or(fail(ZipReason::Overlap, 18))?;
    Ok(LocalRecord {
        data_start,
        data_end,
        zip64,
    })
}
