//! `*.mlbundle`: the full container validation of `spec/mlbundle.md` (§2–§8) and the
//! `model.onnx` step of the validating load (§12.2) under the default [`ArchiveLimits`], and
//! inspection (§12).

use super::{CheckError, Format};
use crate::Progress;
use crate::source::{ReadError, Source, check_container, inspect};
use modelgate_core::mlbundle::ArchiveLimits;
use std::path::Path;

/// The `mlbundle` format.
pub struct Mlbundle;

fn to_check_error(e: ReadError) -> CheckError {
    match e {
        ReadError::Rejected(e) => CheckError::Rejected(e.rejection()),
        ReadError::Io(e) => CheckError::Io(e),
    }
}

impl Format for Mlbundle {
    fn name(&self) -> &'static str {
        "mlbundle"
    }

    fn kinds(&self) -> &'static [&'static str] {
        &[
            "InvalidContainer",
            "LimitExceeded",
            "InvalidManifest",
            "UnsupportedFormatVersion",
            "InvalidJSON",
            "IntegrityMismatch",
        ]
    }

    fn suffixes(&self) -> &'static [&'static str] {
        &[".mlbundle"]
    }

    /// A ZIP archive: a local file header, or the end record of an empty archive, at byte 0.
    fn sniff(&self, head: &[u8]) -> bool {
        head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06")
    }

    fn content(&self) -> Option<&'static str> {
        Some("a ZIP archive")
    }

    /// The archive (at most 512 MiB) is read whole, then validated in memory: no progress.
    fn check(&self, path: &Path, _: Progress<'_>) -> Result<(), CheckError> {
        check_container(Source::Path(path), &ArchiveLimits::DEFAULT).map_err(to_check_error)
    }

    fn check_bytes(&self, bytes: &[u8]) -> Result<(), CheckError> {
        check_container(Source::Bytes(bytes), &ArchiveLimits::DEFAULT).map_err(to_check_error)
    }

    fn inspect(&self, path: &Path, json: bool) -> Option<Result<String, CheckError>> {
        let view = inspect(Source::Path(path), &ArchiveLimits::DEFAULT).map_err(to_check_error);
        Some(view.map(|v| if json { v.to_json() } else { v.to_text() }))
    }
}
