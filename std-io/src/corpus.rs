//! `corpus-check` (`spec/errors.md` §4): every file named
//! `<Expected>-<case>.<ext>` under the given folders is checked as `modelgate check` would
//! check it, and must give exactly the outcome its name states: `valid` (accepted) or an
//! error kind (rejected with exactly that kind). Every other path is skipped and reported
//! with the reason ([`Skip`]); a folder named that does not exist is reported too.

use crate::check::{self, CheckError};
use modelgate_core::Rejection;
use std::io;
use std::path::{Path, PathBuf};

/// The outcome a corpus file's name asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expected {
    /// Must be accepted.
    Valid,
    /// Must be rejected with this kind.
    Kind(String),
}

/// The expectation encoded in a file name, or why the file is skipped: the name does not
/// follow `<Expected>-<case>.<ext>`, or its `<Expected>` is neither `valid` nor a known kind.
pub fn expectation(file_name: &str) -> Result<Expected, Skip> {
    let Some((prefix, rest)) = file_name.split_once('-') else {
        return Err(Skip::Name);
    };
    if prefix.is_empty() || rest.is_empty() || !rest.contains('.') {
        return Err(Skip::Name);
    }
    if prefix == "valid" {
        Ok(Expected::Valid)
    } else if check::is_known_kind(prefix) {
        Ok(Expected::Kind(prefix.to_string()))
    } else {
        Err(Skip::UnknownKind(prefix.to_string()))
    }
}

/// Why a path under the folders was not checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Skip {
    /// The name is not `<Expected>-<case>.<ext>`.
    Name,
    /// The name's `<Expected>` is neither `valid` nor an error kind of any format.
    UnknownKind(String),
    /// Not a regular file, nor a link to one (a FIFO, socket or device).
    NotAFile,
    /// A link to a folder below the folders named (never walked: a link back up would make
    /// the walk endless).
    FolderLink,
}

impl std::fmt::Display for Skip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Skip::Name => f.write_str("name is not <Expected>-<case>.<ext>"),
            Skip::UnknownKind(k) => write!(f, "{k:?} is neither valid nor the error kind of a format"),
            Skip::NotAFile => f.write_str("not a regular file"),
            Skip::FolderLink => f.write_str("link to a folder, not walked"),
        }
    }
}

/// What the walk of the folders found.
#[derive(Debug, Default)]
pub struct Walk {
    /// Every file to check with what its name asks for, sorted by path.
    pub files: Vec<(PathBuf, Expected)>,
    /// Every other path below the folders with why it was skipped, sorted by path.
    pub skipped: Vec<(PathBuf, Skip)>,
    /// The paths named that do not exist (a dangling link included), in the order given.
    pub missing: Vec<PathBuf>,
}

/// What one corpus file gave, when it did not give what its name asks for.
#[derive(Debug)]
pub struct Mismatch {
    /// The file.
    pub path: PathBuf,
    /// What its name asks for.
    pub expected: Expected,
    /// What it gave: `Ok(format)` for accepted, or the rejection, or why it could not be checked.
    pub got: Result<&'static str, Got>,
}

/// A non-accepting outcome.
#[derive(Debug)]
pub enum Got {
    /// Rejected by this format.
    Rejected(&'static str, Rejection),
    /// No format could be determined from the name or content.
    NoFormat,
    /// The file could not be read.
    Io(io::Error),
}

/// Walks `roots` recursively: every corpus file with what its name asks for, every other
/// path with why it is skipped, and the roots that do not exist.
///
/// A root is what the user named, so a link there is followed: a folder given through a
/// link is walked, not passed over as an empty corpus. Below the roots a link is a file of
/// the corpus like any other: a link to a regular file is checked as `modelgate check` would
/// check it (through the link), one that cannot be followed is checked and reported as an
/// I/O error, and a link to a folder is skipped, not walked (a link back up would make the
/// walk endless). Any other I/O error ends the walk with the path it is about.
pub fn collect(roots: &[PathBuf]) -> Result<Walk, (PathBuf, io::Error)> {
    let mut walk = Walk::default();
    let mut stack: Vec<(PathBuf, bool)> = roots.iter().rev().map(|r| (r.clone(), true)).collect();
    while let Some((p, root)) = stack.pop() {
        let own = match std::fs::symlink_metadata(&p) {
            Ok(m) => m,
            Err(e) if root && e.kind() == io::ErrorKind::NotFound => {
                walk.missing.push(p);
                continue;
            }
            Err(e) => return Err((p, e)),
        };
        let link = own.file_type().is_symlink();
        let target = if link { std::fs::metadata(&p) } else { Ok(own) };
        match target {
            Ok(meta) if meta.is_dir() => {
                if root || !link {
                    let entries = std::fs::read_dir(&p).map_err(|e| (p.clone(), e))?;
                    for entry in entries {
                        stack.push((entry.map_err(|e| (p.clone(), e))?.path(), false));
                    }
                } else {
                    walk.skipped.push((p, Skip::FolderLink));
                }
                continue;
            }
            Ok(meta) if !meta.is_file() => {
                walk.skipped.push((p, Skip::NotAFile));
                continue;
            }
            Err(e) if root && e.kind() == io::ErrorKind::NotFound => {
                walk.missing.push(p);
                continue;
            }
            Err(e) if root => return Err((p, e)),
            _ => {}
        }
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        match expectation(&name) {
            Ok(e) => walk.files.push((p, e)),
            Err(s) => walk.skipped.push((p, s)),
        }
    }
    walk.files.sort_by(|a, b| a.0.cmp(&b.0));
    walk.skipped.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(walk)
}

/// Checks one corpus file; `None` when it gave what its name asks for.
pub fn check_one(path: &Path, expected: &Expected) -> Option<Mismatch> {
    let got = match check::detect(path) {
        Err(e) => Err(Got::Io(e)),
        Ok(None) => Err(Got::NoFormat),
        Ok(Some(format)) => match format.check(path, &mut |_, _| {}) {
            Ok(()) => Ok(format.name()),
            Err(CheckError::Rejected(r)) => Err(Got::Rejected(format.name(), r)),
            Err(CheckError::Io(e)) => Err(Got::Io(e)),
        },
    };
    let pass = match (&got, expected) {
        (Ok(_), Expected::Valid) => true,
        (Err(Got::Rejected(_, r)), Expected::Kind(k)) => r.kind == k,
        _ => false,
    };
    (!pass).then(|| Mismatch {
        path: path.to_path_buf(),
        expected: expected.clone(),
        got,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_select_expectations() {
        assert_eq!(expectation("valid-empty-object.json"), Ok(Expected::Valid));
        assert_eq!(
            expectation("InvalidJSON-bom.json"),
            Ok(Expected::Kind("InvalidJSON".into()))
        );
        assert_eq!(
            expectation("LimitExceeded-deep.json"),
            Ok(Expected::Kind("LimitExceeded".into()))
        );
        assert_eq!(expectation("README.md"), Err(Skip::Name));
        assert_eq!(expectation("SHA256SUMS"), Err(Skip::Name));
        assert_eq!(expectation("-x.json"), Err(Skip::Name));
        assert_eq!(expectation("valid-noext"), Err(Skip::Name));
        assert_eq!(
            expectation("NoSuchKind-x.json"),
            Err(Skip::UnknownKind("NoSuchKind".into()))
        );
        assert_eq!(
            Skip::UnknownKind("InvalidJson".into()).to_string(),
            "\"InvalidJson\" is neither valid nor the error kind of a format"
        );
    }
}
