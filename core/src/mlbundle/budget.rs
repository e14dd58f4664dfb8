//! Limits checked from directory metadata before any member is read
//! (`spec/mlbundle.md` §3.3, §3.4).

use super::error::{Error, ErrorKind};
use super::limits::{ArchiveLimits, Limit};
use super::names::MemberName;
use crate::Location;
use crate::zip::Archive;
use alloc::format;

/// Checks every entry's declared sizes, in directory order: member cap, ratio, then the
/// running compressed and uncompressed sums (§3.4).
pub(crate) fn check_budget(archive: &Archive, limits: &ArchiveLimits) -> Result<(), Error> {
    let (mut compressed, mut uncompressed) = (0u64, 0u64);
    for entry in &archive.entries {
        let c = &entry.central;
        let Some(name) = MemberName::from_index(c.name) else {
            continue;
        };
        let at = Location::at(c.header_offset);
        let limit = |msg: alloc::string::String| Error::new(ErrorKind::LimitExceeded, msg, at.clone()).about(name);
        let cap = limits.member_cap(name);
        if c.uncompressed > cap {
            return Err(limit(format!(
                "declared size {} exceeds the {cap}-byte member limit",
                c.uncompressed
            )));
        }
        check_ratio(c.compressed, c.uncompressed, limits.get(Limit::Ratio), &at).map_err(|e| e.about(name))?;
        compressed = compressed.saturating_add(c.compressed);
        if compressed > limits.get(Limit::CompressedTotal) {
            let max = limits.get(Limit::CompressedTotal);
            return Err(limit(format!("compressed sizes exceed the {max}-byte total limit")));
        }
        uncompressed = uncompressed.saturating_add(c.uncompressed);
        if uncompressed > limits.get(Limit::UncompressedTotal) {
            let max = limits.get(Limit::UncompressedTotal);
            return Err(limit(format!("uncompressed sizes exceed the {max}-byte total limit")));
        }
    }
    Ok(())
}

/// §3.3: `uncompressed <= ratio * compressed`; both zero is exempt; nonempty with compressed
/// size 0 is `InvalidContainer`.
pub(crate) fn check_ratio(compressed: u64, uncompressed: u64, ratio: u64, at: &Location) -> Result<(), Error> {
    if uncompressed == 0 {
        return Ok(());
    }
    if compressed == 0 {
        let msg = "nonempty member with compressed size 0";
        return Err(Error::new(ErrorKind::InvalidContainer, msg, at.clone()));
    }
    if u128::from(uncompressed) > u128::from(ratio) * u128::from(compressed) {
        let msg = format!("uncompressed/compressed ratio exceeds {ratio}");
        return Err(Error::new(ErrorKind::LimitExceeded, msg, at.clone()));
    }
    Ok(())
}
