//! The MPK error taxonomy (`spec/mpk.md` §5): five keys, every message starting with its
//! key, every error with a location.

use crate::Location;
use crate::archive_path::{PathError, PathLimits, PathReason, normalize};
use crate::gzip::GzipError;
use crate::json::{Cursor, FieldError, Problem};
use crate::report::Rejection;
use crate::tar::TarError;
use crate::tar::reader::lossy_name;
use alloc::format;
use alloc::string::{String, ToString};
use core::fmt;

/// The five taxonomy keys of the MPK format (`spec/mpk.md` §5, `spec/errors.md` §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MpkKind {
    /// Not a well-formed package: extension, gzip, tar, entry types, classes, duplicates.
    InvalidArchive,
    /// A path that could escape the root, a link entry, invalid UTF-8 in a path.
    PathTraversal,
    /// JSON syntax, duplicate keys, depth and every contract rule.
    SchemaError,
    /// An MPK contract version this reader does not support.
    UnsupportedVersion,
    /// A configured size or count limit.
    SizeLimitExceeded,
}

impl MpkKind {
    /// The exact key (`spec/errors.md` §1).
    pub fn key(self) -> &'static str {
        match self {
            MpkKind::InvalidArchive => "invalid_archive",
            MpkKind::PathTraversal => "path_traversal",
            MpkKind::SchemaError => "schema_error",
            MpkKind::UnsupportedVersion => "unsupported_version",
            MpkKind::SizeLimitExceeded => "size_limit_exceeded",
        }
    }

    /// Every key, for the format registry.
    pub const KEYS: [&'static str; 5] = [
        "invalid_archive",
        "path_traversal",
        "schema_error",
        "unsupported_version",
        "size_limit_exceeded",
    ];
}

/// A rejected package: its kind, the detail (the message without its key; the message
/// and the display start with the key) and where (`spec/mpk.md` §5).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MpkError {
    /// The taxonomy key.
    pub kind: MpkKind,
    /// What is wrong, never echoing file contents.
    pub detail: String,
    /// Entry name (`member`), JSON path and byte offset, where known.
    pub location: Location,
}

impl MpkError {
    /// An error of `kind` with `detail` at `location`.
    pub fn new(kind: MpkKind, detail: impl Into<String>, location: Location) -> Self {
        MpkError {
            kind,
            detail: detail.into(),
            location,
        }
    }

    /// The public message: `<key>: <detail>` (messages include the key, `spec/mpk.md` §5.1).
    pub fn message(&self) -> String {
        format!("{}: {}", self.kind.key(), self.detail)
    }

    /// The gzip layer failed (`spec/mpk.md` §5.2): `size_limit_exceeded` for the output
    /// bound, else `invalid_archive`; the offset is in the compressed file.
    pub(crate) fn from_gzip(e: &GzipError) -> Self {
        let kind = if e.kind() == "LimitExceeded" {
            MpkKind::SizeLimitExceeded
        } else {
            MpkKind::InvalidArchive
        };
        MpkError::new(kind, format!("gzip: {}", e.reason), Location::at(e.offset))
    }

    /// The tar layer failed (`spec/mpk.md` §5.2); the offset is in the tar stream.
    pub(crate) fn from_tar(e: &TarError) -> Self {
        let kind = if e.reason.is_limit() {
            MpkKind::SizeLimitExceeded
        } else {
            MpkKind::InvalidArchive
        };
        let mut location = Location::at(e.offset);
        location.member.clone_from(&e.entry);
        MpkError::new(kind, format!("tar: {}", e.reason), location)
    }

    /// An entry path failed `spec/mpk.md` §2 (§5.2): traversal-class rules are
    /// `path_traversal`, the rest `invalid_archive`; so is invalid UTF-8, as the MPK loader
    /// classes it (§3.1 step 2).
    pub(crate) fn from_path(e: &PathError, entry: &str, header_offset: u64) -> Self {
        let kind = if e.reason.is_traversal() && e.reason != PathReason::InvalidUtf8 {
            MpkKind::PathTraversal
        } else {
            MpkKind::InvalidArchive
        };
        let detail = format!("{} (path byte {})", e.reason, e.offset);
        MpkError::new(kind, detail, Location::at(header_offset).in_member(entry))
    }

    /// A JSON document of the package failed strict parsing (§3.1): depth is
    /// `schema_error` like every other JSON failure (`spec/errors.md` §5).
    pub fn from_json(e: &crate::json::Error, member: &str) -> Self {
        let detail = format!("invalid JSON: {}", crate::json::Message(e.reason));
        MpkError::new(
            MpkKind::SchemaError,
            detail,
            Location::at(u64::try_from(e.offset).unwrap_or(u64::MAX)).in_member(member),
        )
    }

    /// A typed read failed in a JSON document (§3).
    pub(crate) fn from_field(e: &FieldError, member: &str) -> Self {
        MpkError::at_value(MpkKind::SchemaError, e.problem.to_string(), e, member)
    }

    /// An error of `kind` about the JSON value `at` points at (its path and offset) in file
    /// `member`: a rule whose kind is not `schema_error` (a limit, a version, a path).
    pub(crate) fn at_value(kind: MpkKind, detail: impl Into<String>, at: &FieldError, member: &str) -> Self {
        let offset = u64::try_from(at.offset).unwrap_or(u64::MAX);
        MpkError::new(kind, detail, Location::path(at.path.clone(), offset).in_member(member))
    }

    /// The format-independent rejection for `modelgate check`, which prints it as
    /// `KIND: detail`, so the printed message starts with the key (§5.1); the key is
    /// not repeated inside `message`.
    pub fn rejection(&self) -> Rejection {
        Rejection {
            kind: self.kind.key(),
            message: self.detail.clone(),
            location: self.location.clone(),
        }
    }
}

impl fmt::Display for MpkError {
    /// `<key>: <detail> (<location>)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.key(), self.detail)?;
        if !self.location.is_none() {
            write!(f, " ({})", self.location)?;
        }
        Ok(())
    }
}

impl core::error::Error for MpkError {}

/// A path that the JSON member under `at` of file `member` gives (`configPath`, §3.4.4;
/// `executable`, §3.7.3), normalised by the archive path rules (§2). A path that breaks a
/// traversal rule is `path_traversal`, any other §2 failure `schema_error`, either at that
/// member with the message `{what}: {reason}`.
pub(crate) fn member_path(raw: &str, at: &Cursor<'_, '_>, member: &str, what: &str) -> Result<String, MpkError> {
    normalize(raw.as_bytes(), &PathLimits::DEFAULT).map_err(|e| {
        let kind = if e.reason.is_traversal() {
            MpkKind::PathTraversal
        } else {
            MpkKind::SchemaError
        };
        let here = at.error(Problem::Rule("invalid path"));
        MpkError::at_value(kind, format!("{what}: {}", e.reason), &here, member)
    })
}

/// A JSON string value as a message shows it: quoted, control characters escaped, at most
/// 256 bytes of it (messages never echo long input).
pub(crate) fn shown(value: &str) -> String {
    format!("\"{}\"", lossy_name(value.as_bytes()))
}
