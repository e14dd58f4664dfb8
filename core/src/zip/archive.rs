//! The whole-archive validation (`spec/mlbundle.md` §2): end records, directory, local
//! records, descriptors and tiling, all before any member is inflated.

use super::bytes::to_u64;
use super::central::{CentralEntry, read_central};
use super::end::{Directory, read_end};
use super::error::{ZipError, ZipReason};
use super::local::LocalRecord;
use super::tiling::tile;
use alloc::vec::Vec;

/// One member of a validated archive: its central header and its local record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The validated central header.
    pub central: CentralEntry,
    /// Where its data lies.
    pub local: LocalRecord,
}

/// A validated archive: every structure rule of §2 holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Archive {
    /// Where the central directory is.
    pub directory: Directory,
    /// The members in central-directory order.
    pub entries: Vec<Entry>,
}

impl Archive {
    /// Validates the structure of `data` (§2) with member names from `names`
    /// and at most `max_entries` members (checked from the end record before the directory
    /// is parsed, §3.4: [`ZipReason::TooManyEntries`]). Reads no member data.
    pub fn parse(data: &[u8], names: &[&str], max_entries: u64) -> Result<Archive, ZipError> {
        let directory = read_end(data)?;
        if directory.count > max_entries {
            return Err(ZipError::at(ZipReason::TooManyEntries, directory.end));
        }
        if directory.end > to_u64(data.len()) {
            return Err(ZipError::at(ZipReason::DirectoryEnd, directory.end));
        }
        let central = read_central(data, &directory, names)?;
        let locals = tile(data, &directory, &central, names)?;
        let entries = central
            .into_iter()
            .zip(locals)
            .map(|(central, local)| Entry { central, local })
            .collect();
        Ok(Archive { directory, entries })
    }

    /// The entry whose name has index `name`, if present.
    pub fn entry(&self, name: usize) -> Option<&Entry> {
        self.entries.iter().find(|e| e.central.name == name)
    }
}
