//! The `.deflate` test frame of `spec/inflate.md` §6: declared size, CRC-32 and one raw
//! deflate stream, checked with every exact-size rule a ZIP member gets.

use super::{CheckError, Format, read_limited, within};
use crate::Progress;
use modelgate_core::inflate::check_frame;
use std::path::Path;

/// Largest frame file and largest declared output the checker accepts (256 MiB each).
const LIMIT: u64 = 256 * 1024 * 1024;

/// The `deflate` format.
pub struct Deflate;

impl Format for Deflate {
    fn name(&self) -> &'static str {
        "deflate"
    }

    fn kinds(&self) -> &'static [&'static str] {
        &["InvalidDeflate", "LimitExceeded"]
    }

    fn suffixes(&self) -> &'static [&'static str] {
        &[".deflate"]
    }

    fn check(&self, path: &Path, _: Progress<'_>) -> Result<(), CheckError> {
        let bytes = read_limited(path, LIMIT, "LimitExceeded")?;
        self.check_bytes(&bytes)
    }

    fn check_bytes(&self, bytes: &[u8]) -> Result<(), CheckError> {
        within(bytes, LIMIT, "LimitExceeded")?;
        check_frame(bytes, LIMIT)
            .map(|_| ())
            .map_err(|e| CheckError::Rejected(e.rejection()))
    }
}
