//! Rules that local and central headers share: method, version needed, flags
//! (`spec/mlbundle.md` §2.5, §2.6, §2.7).

use super::error::{ZipError, ZipReason};

/// Method 0: stored.
pub(crate) const STORED: u16 = 0;
/// Method 8: deflated.
pub(crate) const DEFLATED: u16 = 8;
/// Flag bit 0: encrypted.
pub(crate) const FLAG_ENCRYPTED: u16 = 1;
/// Flag bits 1–2: deflate options.
pub(crate) const FLAG_DEFLATE_OPTIONS: u16 = 0b110;
/// Flag bit 3: data descriptor follows the data.
pub(crate) const FLAG_DESCRIPTOR: u16 = 1 << 3;
/// Flag bit 11: names are UTF-8.
pub(crate) const FLAG_UTF8: u16 = 1 << 11;

/// Offsets (in the archive) of one header's method, version and flags fields.
#[derive(Clone, Copy)]
pub(crate) struct FieldOffsets {
    pub method: u64,
    pub version: u64,
    pub flags: u64,
}

/// Checks method (§2.5), flags (§2.7) and version needed (§2.6) of one header.
pub(crate) fn check_common(
    method: u16,
    version: u16,
    flags: u16,
    zip64: bool,
    at: FieldOffsets,
) -> Result<(), ZipError> {
    if method != STORED && method != DEFLATED {
        return Err(ZipError::at(ZipReason::UnsupportedMethod(method), at.method));
    }
    if flags & FLAG_ENCRYPTED != 0 {
        return Err(ZipError::at(ZipReason::Encrypted, at.flags));
    }
    let mut allowed = FLAG_UTF8 | FLAG_DESCRIPTOR;
    if method == DEFLATED {
        allowed |= FLAG_DEFLATE_OPTIONS;
    }
    if flags & !allowed != 0 {
        return Err(ZipError::at(ZipReason::BadFlags, at.flags));
    }
    let version_ok = match version {
        10 => method == STORED && !zip64,
        20 => !zip64,
        45 => true,
        _ => false,
    };
    if !version_ok {
        return Err(ZipError::at(ZipReason::BadVersionNeeded(version), at.version));
    }
    Ok(())
}

/// Index of `name` in `names`, compared byte for byte (§1.1).
pub(crate) fn name_index(names: &[&str], name: &[u8]) -> Option<usize> {
    names.iter().position(|n| n.as_bytes() == name)
}
