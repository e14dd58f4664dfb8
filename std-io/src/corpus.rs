//! `corpus-check` (CONVENTIONS.md "Command line"): every file named
//! `<Expected>-<case>.<ext>` under the given folders is checked as `modelgate check` would
//! check it, and must give exactly the outcome its name states: `valid` (accepted) or an
//! error kind (rejected with exactly that kind). Other files are skipped.

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

/// The expectation encoded in a file name, or `None` when the name does not follow
/// `<Expected>-<case>.<ext>` with a known kind (such files are skipped).
pub fn expectation(file_name: &str) -> Option<Expected> {
    let (prefix, rest) = file_name.split_once('-')?;
    if rest.is_empty() || !rest.contains('.') {
        return None;
    }
    if prefix == "valid" {
        Some(Expected::Valid)
    } else if check::is_known_kind(prefix) {
        Some(Expected::Kind(prefix.to_string()))
    } else {
        None
    }
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

/// Every candidate corpus file under `roots`, recursively, sorted by path.
///
/// A root is what the user named, so a link there is followed: a folder given through a
/// link is walked, not passed over as an empty corpus. Below the roots a link is a file of
/// the corpus like any other: a link to a regular file is checked as `modelgate check` would
/// check it (through the link), one that cannot be followed is checked and reported as an
/// I/O error, and a link to a folder is not walked (a link back up would make the walk
/// endless).
pub fn collect(roots: &[PathBuf]) -> io::Result<Vec<(PathBuf, Expected)>> {
    let mut out = Vec::new();
    let mut stack: Vec<(PathBuf, bool)> = roots.iter().map(|r| (r.clone(), true)).collect();
    while let Some((p, root)) = stack.pop() {
        let own = std::fs::symlink_metadata(&p)?;
        let link = own.file_type().is_symlink();
        let target = if link { std::fs::metadata(&p) } else { Ok(own) };
        match target {
            Ok(meta) if meta.is_dir() => {
                if root || !link {
                    for entry in std::fs::read_dir(&p)? {
                        stack.push((entry?.path(), false));
                    }
                }
                continue;
            }
            Ok(meta) if !meta.is_file() => continue,
            Err(e) if root => return Err(e),
            _ => {}
        }
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if let Some(e) = expectation(&name) {
            out.push((p, e));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
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
        assert_eq!(expectation("valid-empty-object.json"), Some(Expected::Valid));
        assert_eq!(
            expectation("InvalidJSON-bom.json"),
            Some(Expected::Kind("InvalidJSON".into()))
        );
        assert_eq!(
            expectation("LimitExceeded-deep.json"),
            Some(Expected::Kind("LimitExceeded".into()))
        );
        assert_eq!(expectation("README.md"), None);
        assert_eq!(expectation("SHA256SUMS"), None);
        assert_eq!(expectation("NoSuchKind-x.json"), None);
        assert_eq!(expectation("valid-noext"), None);
    }
}
