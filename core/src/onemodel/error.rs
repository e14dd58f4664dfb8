//! The four OneModel failure kinds (`spec/onemodel.md` §3.2, `spec/errors.md` §1) and
//! the error that carries one with its location.

use crate::json::{self, FieldError, Problem};
use crate::{Location, Rejection};
use alloc::borrow::Cow;
use alloc::string::String;
use core::fmt;

/// Offset of the manifest in the file; JSON offsets are relative to it.
pub(crate) const MANIFEST_START: u64 = 64;

/// The corpus-visible kind of a OneModel failure (`spec/onemodel.md` §3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// Not a well-formed file: magic, reserved or padding bytes, JSON, types, base64, names.
    Malformed,
    /// A size, offset, length or dimension that disagrees with the file or dtype × dims.
    OutOfRange,
    /// A value this version does not support (version, dtype, kind, attribute type, size).
    Unsupported,
    /// A reader limit: manifest size, JSON depth, graph/type nesting, element count.
    LimitExceeded,
}

impl ErrorKind {
    /// The exact kind name used in CLI output and corpus file names.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Malformed => "Malformed",
            ErrorKind::OutOfRange => "OutOfRange",
            ErrorKind::Unsupported => "Unsupported",
            ErrorKind::LimitExceeded => "LimitExceeded",
        }
    }
}

/// A OneModel failure: its kind, a message that never echoes file contents, and where it is:
/// a header field name or a manifest path, and a file offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// The kind (§3.2).
    pub kind: ErrorKind,
    /// What is wrong.
    pub message: Cow<'static, str>,
    /// The header field (`file_length`, `reserved`, …) when the failure is in the header.
    pub field: Option<&'static str>,
    /// The manifest path (`manifest.graph.nodes[3].inputs[1]`) when in the manifest.
    pub path: Option<String>,
    /// File offset of the offending byte or value, when there is one.
    pub offset: Option<u64>,
}

impl Error {
    /// A failure in the header field `field` at file offset `offset`.
    pub fn header(kind: ErrorKind, field: &'static str, offset: u64, message: impl Into<Cow<'static, str>>) -> Self {
        Error {
            kind,
            message: message.into(),
            field: Some(field),
            path: None,
            offset: Some(offset),
        }
    }

    /// A failure at a manifest path with an optional file offset.
    pub(crate) fn at_path(
        kind: ErrorKind,
        path: String,
        offset: Option<u64>,
        message: impl Into<Cow<'static, str>>,
    ) -> Self {
        Error {
            kind,
            message: message.into(),
            field: None,
            path: Some(path),
            offset,
        }
    }

    /// A typed-read failure from [`json::Cursor`]; `OutOfRange` integers keep that kind,
    /// everything else (missing member, wrong type, not an integer) is Malformed (§1.2).
    pub fn field(e: FieldError) -> Self {
        let kind = match e.problem {
            Problem::OutOfRange => ErrorKind::OutOfRange,
            _ => ErrorKind::Malformed,
        };
        Error::field_as(kind, e)
    }

    /// A typed-read failure reported with the given kind.
    pub(crate) fn field_as(kind: ErrorKind, e: FieldError) -> Self {
        let message = match e.problem {
            Problem::Rule(r) => Cow::Borrowed(r),
            Problem::Stated(s) => Cow::Owned(s),
            p => Cow::Owned(alloc::format!("{p}")),
        };
        Error::at_path(kind, e.path, Some(manifest_offset(e.offset)), message)
    }

    /// A JSON failure in the manifest (§1.2): depth and size are LimitExceeded, the rest Malformed.
    pub fn json(e: json::Error) -> Self {
        let kind = match e.kind() {
            json::ErrorKind::LimitExceeded => ErrorKind::LimitExceeded,
            json::ErrorKind::InvalidJson => ErrorKind::Malformed,
        };
        Error::at_path(
            kind,
            String::from("manifest"),
            Some(manifest_offset(e.offset)),
            alloc::format!("{}", json::Message(e.reason)),
        )
    }

    /// The same failure as a format-independent [`Rejection`]; the header field goes into
    /// the location's `member`.
    pub fn rejection(&self) -> Rejection {
        Rejection {
            kind: self.kind.name(),
            message: String::from(self.message.as_ref()),
            location: Location {
                member: self.field.map(String::from),
                path: self.path.clone(),
                offset: self.offset,
            },
        }
    }
}

/// File offset of a manifest-relative offset.
pub(crate) fn manifest_offset(offset: usize) -> u64 {
    MANIFEST_START.saturating_add(u64::try_from(offset).unwrap_or(u64::MAX))
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.rejection())
    }
}

impl core::error::Error for Error {}
