//! A plain `.json` file: strict JSON with the generic limits, depth 1024 and 256 MiB
//! (`spec/errors.md` §3.1, `spec/json.md` §6).

use super::{CheckError, Format, read_limited};
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
        let limits = Limits {
            hash_key: crate::hash_key(),
            ..Limits::DEFAULT
        };
        let bytes = read_limited(path, limits.max_bytes as u64, ErrorKind::LimitExceeded.name())?;
        json::validate(&bytes, limits).map_err(|e| CheckError::Rejected(e.rejection()))
    }
}
