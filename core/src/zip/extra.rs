//! Extra fields: at most one ZIP64 extended information field holding exactly the
//! replacements for the header's sentinel fields, in ZIP order (`spec/mlbundle.md` §2.4).

use super::bytes::{Fields, to_u64};
use super::error::{ZipError, ZipReason};

/// Header ID of the ZIP64 extended information extra field.
pub(crate) const ZIP64_ID: u16 = 0x0001;

/// The values a header's sentinel fields need, in ZIP order: uncompressed size, compressed
/// size, local header offset. `true` where the header holds the sentinel.
pub(crate) type Needs = [bool; 3];

/// True when `extra` starts with a ZIP64 field: the header is a ZIP64 header and needs
/// version 45 (§2.6). Any other content is rejected by [`zip64_values`].
pub(crate) fn has_zip64_field(extra: &[u8]) -> bool {
    extra.len() >= 4 && Fields(extra).u16(0) == ZIP64_ID
}

/// Checks `extra` (starting at archive offset `at`) against `needs` and returns the
/// replacement values in ZIP order (§2.4). An empty extra field is the only accepted form
/// when nothing is needed; otherwise exactly one ZIP64 field with one 8-byte value per
/// sentinel.
pub(crate) fn zip64_values(extra: &[u8], at: u64, needs: Needs) -> Result<[Option<u64>; 3], ZipError> {
    let mut out = [None; 3];
    let wanted = needs.iter().filter(|n| **n).count();
    if extra.is_empty() {
        return match wanted {
            0 => Ok(out),
            _ => Err(ZipError::at(ZipReason::MissingZip64Value, at)),
        };
    }
    if wanted == 0 {
        // §2.4: a ZIP64 field (even an empty one) where no field holds a sentinel.
        let id = Fields(extra).u16(0);
        let reason = if extra.len() >= 4 && id == ZIP64_ID {
            ZipReason::RedundantZip64Value
        } else {
            ZipReason::BadExtraField
        };
        return Err(ZipError::at(reason, at));
    }
    let head = Fields(extra);
    let (id, len) = (head.u16(0), usize::from(head.u16(2)));
    let body = extra.get(4..).unwrap_or_default();
    if extra.len() < 4 || id != ZIP64_ID || len > body.len() {
        return Err(ZipError::at(ZipReason::BadExtraField, at));
    }
    if len < body.len() {
        // A second field (of any ID) after the ZIP64 field.
        return Err(ZipError::at(
            ZipReason::BadExtraField,
            at.saturating_add(to_u64(4 + len)),
        ));
    }
    let expected = wanted.saturating_mul(8);
    if len < expected {
        return Err(ZipError::at(ZipReason::MissingZip64Value, at));
    }
    if len > expected {
        return Err(ZipError::at(ZipReason::RedundantZip64Value, at));
    }
    let values = Fields(body);
    let mut next = 0usize;
    for (slot, need) in out.iter_mut().zip(needs) {
        if need {
            *slot = Some(values.u64(next));
            next = next.saturating_add(8);
        }
    }
    Ok(out)
}
