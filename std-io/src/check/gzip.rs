//! A standalone `.gz` file: RFC 1952 members checked as `spec/inflate.md` §5 says, output
//! discarded as it is produced (memory stays at one chunk) and bounded at 256 MiB.

use super::{CheckError, Format, read_limited, within};
use crate::Progress;
use modelgate_core::gzip::gunzip;
use std::path::Path;

/// Largest input file and largest total output the checker accepts (256 MiB each).
const LIMIT: u64 = 256 * 1024 * 1024;

/// The `gzip` format.
pub struct Gzip;

impl Format for Gzip {
    fn name(&self) -> &'static str {
        "gzip"
    }

    fn kinds(&self) -> &'static [&'static str] {
        &["InvalidGzip", "LimitExceeded"]
    }

    fn suffixes(&self) -> &'static [&'static str] {
        &[".gz"]
    }

    fn sniff(&self, head: &[u8]) -> bool {
        head.starts_with(&[0x1f, 0x8b])
    }

    fn content(&self) -> Option<&'static str> {
        Some("other gzip")
    }

    fn check(&self, path: &Path, _: Progress<'_>) -> Result<(), CheckError> {
        let bytes = read_limited(path, LIMIT, "LimitExceeded")?;
        self.check_bytes(&bytes)
    }

    fn check_bytes(&self, bytes: &[u8]) -> Result<(), CheckError> {
        within(bytes, LIMIT, "LimitExceeded")?;
        gunzip(bytes, LIMIT, |_| {})
            .map(|_| ())
            .map_err(|e| CheckError::Rejected(e.rejection()))
    }
}
