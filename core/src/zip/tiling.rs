//! Records tile the archive from byte 0 to the central directory (`spec/mlbundle.md` §2.12).

use super::central::CentralEntry;
use super::descriptor::check_descriptor;
use super::end::Directory;
use super::error::{ZipError, ZipReason};
use super::header::FLAG_DESCRIPTOR;
use super::local::{LocalRecord, read_local};
use alloc::vec::Vec;

/// Walks the local records in offset order and checks that local headers, data and
/// descriptors cover `0..dir.offset` exactly, with no gap or overlap (§2.12). Returns the
/// local record of each entry, in the entries' (central) order.
pub(crate) fn tile(
    data: &[u8],
    dir: &Directory,
    entries: &[CentralEntry],
    names: &[&str],
) -> Result<Vec<LocalRecord>, ZipError> {
    let mut order: Vec<usize> = Vec::new();
    order
        .try_reserve_exact(entries.len())
        .map_err(|_| ZipError::at(ZipReason::OutOfMemory, dir.offset))?;
    order.extend(0..entries.len());
    // Stable: entries sharing a local offset keep central order, so the reported one is fixed.
    order.sort_by_key(|&i| entries.get(i).map_or(u64::MAX, |e| e.local_offset));
    let mut locals: Vec<Option<LocalRecord>> = alloc::vec![None; entries.len()];
    let mut pos = 0u64;
    for (k, &i) in order.iter().enumerate() {
        let Some(entry) = entries.get(i) else { continue };
        if entry.local_offset < pos {
            return Err(ZipError::at(ZipReason::Overlap, entry.local_offset).member(entry.name));
        }
        if entry.local_offset > pos {
            return Err(ZipError::at(ZipReason::Gap, pos));
        }
        let local = read_local(data, entry, names)?;
        let next = order
            .get(k + 1)
            .and_then(|&j| entries.get(j))
            .map_or(dir.offset, |e| e.local_offset);
        if local.data_end > next {
            return Err(ZipError::at(ZipReason::Overlap, next).member(entry.name));
        }
        pos = if entry.flags & FLAG_DESCRIPTOR != 0 {
            check_descriptor(data, local.data_end, next - local.data_end, local.zip64, entry)?;
            next
        } else {
            local.data_end
        };
        if let Some(slot) = locals.get_mut(i) {
            *slot = Some(local);
        }
    }
    if pos != dir.offset {
        return Err(ZipError::at(ZipReason::Gap, pos));
    }
    Ok(locals.into_iter().flatten().collect())
}
