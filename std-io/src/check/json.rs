//! A plain `.json` file: strict JSON with the generic limits, depth 1024 and 256 MiB
//! (`spec/errors.md` §3.1, `spec/json.md` §6).

use super::{CheckError, Format, read_limited, within};
use crate::Progress;
use modelgate_core::json::{self, ErrorKind, Limits};
use std::path::Path;

/// The `json` format.
pub struct Json;

impl Format for Json {
    fn name(&self) -> &'static str {
        "json"
    }

    fn kinds(&self) -> &'static [&'static str] {
        &["InvalidJSON", "LimitExceeded"]
    }

    fn suffixes(&self) -> &'static [&'static str] {
        &[".json"]
    }

    fn check(&self, path: &Path, _: Progress<'_>) -> Result<(), CheckError> {
        let bytes = read_limited(path, MAX_BYTES, ErrorKind::LimitExceeded.name())?;
        self.check_bytes(&bytes)
    }

    fn check_bytes(&self, bytes: &[u8]) -> Result<(), CheckError> {
        within(bytes, MAX_BYTES, ErrorKind::LimitExceeded.name())?;
        let limits = Limits {
            hash_key: crate::hash_key(),
            ..Limits::DEFAULT
        };
        json::validate(bytes, limits).map_err(|e| CheckError::Rejected(e.rejection()))
    }
}

/// The generic limit on a document's length (§6).
const MAX_BYTES: u64 = Limits::DEFAULT.max_bytes as u64;
