//! Data descriptors in their four forms (`spec/mlbundle.md` §2.11).

use super::bytes::{Fields, record};
use super::central::CentralEntry;
use super::error::{ZipError, ZipReason};
use super::header::STORED;

/// Optional signature of a data descriptor.
pub(crate) const DESCRIPTOR_SIG: u32 = 0x0807_4b50;

/// Checks the descriptor of `entry` occupying exactly `len` bytes at `at` (§2.11): the
/// length decides the form (12/16 for 32-bit sizes without/with signature, 20/24 for
/// 64-bit sizes), the 64-bit forms are used exactly when the local header is ZIP64, an
/// unsigned form neither follows stored data (§2.11.1) nor starts with the signature's
/// bytes, and CRC-32 and both sizes equal the directory.
pub(crate) fn check_descriptor(
    data: &[u8],
    at: u64,
    len: u64,
    zip64: bool,
    entry: &CentralEntry,
) -> Result<(), ZipError> {
    let fail = ZipError::at(ZipReason::BadDescriptor, at).member(entry.name);
    let (signed, wide) = match (len, zip64) {
        (12, false) => (false, false),
        (16, false) => (true, false),
        (20, true) => (false, true),
        (24, true) => (true, true),
        _ => return Err(fail),
    };
    let f = Fields(record(data, at, len, ZipReason::BadDescriptor).map_err(|e| e.member(entry.name))?);
    let base = if signed { 4 } else { 0 };
    if signed && f.u32(0) != DESCRIPTOR_SIG {
        return Err(fail);
    }
    if !signed && entry.method == STORED {
        // §2.11.1: a streaming reader ends stored data only at a signed descriptor, so past
        // an unsigned one it reads on into the next record.
        return Err(ZipError::at(ZipReason::UnsignedStoredDescriptor, at).member(entry.name));
    }
    if !signed && f.u32(0) == DESCRIPTOR_SIG {
        // §2.11: readers that tell the form by its first four bytes take this CRC-32 for the
        // signature and read four bytes too many.
        return Err(ZipError::at(ZipReason::DescriptorCrcIsSignature, at).member(entry.name));
    }
    let crc = f.u32(base);
    let (c, u) = if wide {
        (f.u64(base + 4), f.u64(base + 12))
    } else {
        (u64::from(f.u32(base + 4)), u64::from(f.u32(base + 8)))
    };
    if (crc, c, u) != (entry.crc32, entry.compressed, entry.uncompressed) {
        return Err(fail);
    }
    Ok(())
}
