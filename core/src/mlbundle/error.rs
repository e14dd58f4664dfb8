//! The mlbundle error taxonomy (`spec/mlbundle.md` §9).

use crate::zip::{ZipError, ZipReason};
use crate::{Location, Rejection};
use alloc::format;
use alloc::string::String;
use core::fmt;

use super::names::{MemberName, NAMES};

/// The six mlbundle kinds (§9.1, `spec/errors.md` §1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// ZIP structure, layout, names, admission, CRC-32, deflate data.
    InvalidContainer,
    /// A resource ceiling of [`super::ArchiveLimits`].
    LimitExceeded,
    /// Manifest JSON, typed fields or recipe agreement.
    InvalidManifest,
    /// A `format_version` other than `"1"` under the mlbundle identity.
    UnsupportedFormatVersion,
    /// A JSON member's syntax or declaration contract.
    InvalidJson,
    /// A member's hash or size disagrees with its integrity record.
    IntegrityMismatch,
}

impl ErrorKind {
    /// The exact kind name (CLI output, corpus file names).
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::InvalidContainer => "InvalidContainer",
            ErrorKind::LimitExceeded => "LimitExceeded",
            ErrorKind::InvalidManifest => "InvalidManifest",
            ErrorKind::UnsupportedFormatVersion => "UnsupportedFormatVersion",
            ErrorKind::InvalidJson => "InvalidJSON",
            ErrorKind::IntegrityMismatch => "IntegrityMismatch",
        }
    }
}

/// A rejected bundle: kind, a message without raw input (§9.2), and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// The kind.
    pub kind: ErrorKind,
    /// Fixed text plus numbers, member names, JSON paths and at most 64 characters of a
    /// string that is not one of its allowed values (`spec/mlbundle.md` §9.3).
    pub message: String,
    /// Where: for ZIP structure and limit errors the archive offset (the member is in
    /// [`Error::member`] and the message); for JSON errors the member, the JSON path and the
    /// offset inside the member's bytes (`Location`'s convention).
    pub location: Location,
    /// The member the failure belongs to, where there is one.
    pub member: Option<MemberName>,
}

impl Error {
    /// An error of `kind` with `message` at `location`.
    /// The member is taken from `location.member` when that names one.
    pub fn new(kind: ErrorKind, message: impl Into<String>, location: Location) -> Self {
        let member = location.member.as_deref().and_then(MemberName::parse);
        Error {
            kind,
            message: message.into(),
            location,
            member,
        }
    }

    /// The same error about `member`, whose location stays an archive offset: the member is
    /// recorded and named at the start of the message.
    pub fn about(mut self, member: MemberName) -> Self {
        self.member = Some(member);
        self.message = format!("{member}: {}", self.message);
        self
    }

    /// The format-independent rejection for `modelgate check`.
    pub fn rejection(&self) -> Rejection {
        Rejection {
            kind: self.kind.name(),
            message: self.message.clone(),
            location: self.location.clone(),
        }
    }

    /// The same error located in `member` (offsets inside its bytes).
    pub fn in_member(mut self, member: MemberName) -> Self {
        self.location.member = Some(String::from(member.as_str()));
        self.member = Some(member);
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.rejection(), f)
    }
}

impl core::error::Error for Error {}

impl From<ZipError> for Error {
    /// Limit reasons become `LimitExceeded`, every other ZIP reason `InvalidContainer`
    /// (§9.1), at the archive offset the reader found, about the member it names.
    fn from(e: ZipError) -> Self {
        let kind = if e.reason.is_limit() {
            ErrorKind::LimitExceeded
        } else {
            ErrorKind::InvalidContainer
        };
        let message = match e.reason {
            // The name is at the error's offset; the reader knows the set.
            ZipReason::UnknownName => format!("{} (expected one of {})", e.reason, NAMES.join(", ")),
            reason => format!("{reason}"),
        };
        let error = Error::new(kind, message, Location::at(e.offset));
        match e.member.and_then(MemberName::from_index) {
            Some(name) => error.about(name),
            None => error,
        }
    }
}
