//! Typed failures of mvb bundles (`spec/mvb.md` §9).

use crate::Location;
use crate::archive_path::PathError;
use crate::json::FieldError;
use crate::tar::TarError;
use alloc::borrow::Cow;
use alloc::string::String;
use core::fmt;

/// The six mvb error kinds (`spec/mvb.md` §9, `spec/errors.md` §1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MvbKind {
    /// Tar structure, order, entry types other than links, misplaced or non-canonical
    /// paths, duplicates, volatile files, a missing marker.
    InvalidArchive,
    /// Links and the traversal rules of `spec/mpk.md` §2.
    PathTraversal,
    /// Marker or manifest schema, JSON syntax.
    InvalidManifest,
    /// Container or record major version.
    UnsupportedVersion,
    /// Sizes, hashes, missing or extra payload, marker/manifest disagreement.
    IntegrityMismatch,
    /// A configured limit (`spec/mvb.md` §4.7).
    LimitExceeded,
}

impl MvbKind {
    /// Every kind, in the order of `spec/errors.md` §1.
    pub const ALL: [MvbKind; 6] = [
        MvbKind::InvalidArchive,
        MvbKind::PathTraversal,
        MvbKind::InvalidManifest,
        MvbKind::UnsupportedVersion,
        MvbKind::IntegrityMismatch,
        MvbKind::LimitExceeded,
    ];

    /// Every kind's exact name.
    pub const NAMES: [&'static str; 6] = [
        "InvalidArchive",
        "PathTraversal",
        "InvalidManifest",
        "UnsupportedVersion",
        "IntegrityMismatch",
        "LimitExceeded",
    ];

    /// The exact name used in CLI output and corpus file names.
    pub fn name(self) -> &'static str {
        match self {
            MvbKind::InvalidArchive => "InvalidArchive",
            MvbKind::PathTraversal => "PathTraversal",
            MvbKind::InvalidManifest => "InvalidManifest",
            MvbKind::UnsupportedVersion => "UnsupportedVersion",
            MvbKind::IntegrityMismatch => "IntegrityMismatch",
            MvbKind::LimitExceeded => "LimitExceeded",
        }
    }
}

/// A rejected bundle: kind, a message that never echoes input, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MvbError {
    /// The kind.
    pub kind: MvbKind,
    /// What is wrong.
    pub message: Cow<'static, str>,
    /// Entry (member), JSON path and/or tar offset.
    pub location: Location,
}

impl MvbError {
    /// An error of `kind` with a fixed message.
    pub fn new(kind: MvbKind, message: &'static str, location: Location) -> Self {
        MvbError {
            kind,
            message: Cow::Borrowed(message),
            location,
        }
    }

    /// An error of `kind` with a composed message.
    pub fn owned(kind: MvbKind, message: String, location: Location) -> Self {
        MvbError {
            kind,
            message: Cow::Owned(message),
            location,
        }
    }

    /// A tar-layer failure (`spec/mvb.md` §4.1).
    pub(crate) fn from_tar(e: &TarError) -> Self {
        let kind = if e.reason.is_limit() {
            MvbKind::LimitExceeded
        } else {
            MvbKind::InvalidArchive
        };
        let mut location = Location::at(e.offset);
        location.member.clone_from(&e.entry);
        MvbError::owned(kind, alloc::format!("{}", e.reason), location)
    }

    /// A path failure of `spec/mpk.md` §2 at `location`: the entry, and its header's offset
    /// when it was read from an archive (`spec/mvb.md` §4.3.3).
    pub(crate) fn from_path(e: &PathError, location: Location) -> Self {
        let kind = if e.reason.is_traversal() {
            MvbKind::PathTraversal
        } else {
            MvbKind::InvalidArchive
        };
        MvbError::owned(kind, alloc::format!("{e}"), location)
    }

    /// A schema failure in the JSON document `member` (`.mvb.json`, `manifest.json`).
    pub(crate) fn from_field(kind: MvbKind, e: &FieldError, member: &str) -> Self {
        let location = Location::path(e.path.clone(), e.offset as u64).in_member(member);
        MvbError::owned(kind, alloc::format!("{}", e.problem), location)
    }

    /// A JSON syntax or limit failure in `member` (`spec/json.md` §7).
    pub fn from_json(e: &crate::json::Error, member: &str) -> Self {
        let kind = match e.kind() {
            crate::json::ErrorKind::LimitExceeded => MvbKind::LimitExceeded,
            crate::json::ErrorKind::InvalidJson => MvbKind::InvalidManifest,
        };
        let location = Location::at(e.offset as u64).in_member(member);
        MvbError::owned(kind, alloc::format!("{}", crate::json::Message(e.reason)), location)
    }

    /// The format-independent rejection `modelgate check` prints.
    pub fn rejection(&self) -> crate::Rejection {
        crate::Rejection {
            kind: self.kind.name(),
            message: String::from(self.message.as_ref()),
            location: self.location.clone(),
        }
    }
}

impl fmt::Display for MvbError {
    /// `KIND: message (location)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.name(), self.message)?;
        if !self.location.is_none() {
            write!(f, " ({})", self.location)?;
        }
        Ok(())
    }
}

impl core::error::Error for MvbError {}
