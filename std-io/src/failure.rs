//! Why an operation that reads an archive and writes files failed: the archive broke a rule
//! of its format, the destination exists, or the operating system refused. One type for
//! MPK extraction ([`crate::extract::ExtractError`]) and mvb export, import and verify
//! ([`crate::mvb::MvbIoError`]).

use crate::check::CheckError;
use modelgate_core::Rejection;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// A failed operation; `R` is the format's error type.
#[derive(Debug)]
pub enum FileError<R> {
    /// The input broke a rule of its format.
    Rejected(R),
    /// The destination exists (any kind of file, a symbolic link included).
    Exists(PathBuf),
    /// The operating system refused.
    Io(io::Error),
}

impl<R> FileError<R> {
    /// The error of an I/O step that writes `dest`: `AlreadyExists` means the destination
    /// is taken ([`FileError::Exists`]), anything else is [`FileError::Io`].
    pub fn at(dest: &Path, e: io::Error) -> Self {
        match e.kind() {
            io::ErrorKind::AlreadyExists => FileError::Exists(dest.to_path_buf()),
            _ => FileError::Io(e),
        }
    }

    /// [`FileError::Exists`] when anything exists at `dest`, a symbolic link (even dangling)
    /// included ([`crate::temp::refuse_taken`]).
    pub(crate) fn refuse_existing(dest: &Path) -> Result<(), Self> {
        crate::temp::refuse_taken(dest).map_err(|e| FileError::at(dest, e))
    }

    /// The outcome `modelgate check` reports: the rejection as a [`Rejection`] (made by
    /// `rejection`), anything else as an I/O error.
    pub(crate) fn into_check(self, rejection: impl FnOnce(&R) -> Rejection) -> CheckError {
        match self {
            FileError::Rejected(e) => CheckError::Rejected(rejection(&e)),
            FileError::Io(e) => CheckError::Io(e),
            FileError::Exists(p) => CheckError::Io(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!("{} already exists", p.display()),
            )),
        }
    }
}

impl<R: fmt::Display> fmt::Display for FileError<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileError::Rejected(e) => write!(f, "{e}"),
            FileError::Exists(p) => write!(f, "{} already exists", p.display()),
            FileError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl<R: fmt::Debug + fmt::Display> std::error::Error for FileError<R> {}

/// A sink that cannot fail ([`modelgate_core::tar::Discard`]).
impl<R> From<std::convert::Infallible> for FileError<R> {
    fn from(never: std::convert::Infallible) -> Self {
        match never {}
    }
}

impl<R> From<io::Error> for FileError<R> {
    fn from(e: io::Error) -> Self {
        FileError::Io(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use modelgate_core::Location;

    fn rejection(kind: &&'static str) -> Rejection {
        Rejection {
            kind,
            message: "bad".into(),
            location: Location::at(3),
        }
    }

    #[test]
    fn check_sees_rejections_as_rejections_and_the_rest_as_io() {
        match FileError::Rejected("LimitExceeded").into_check(rejection) {
            CheckError::Rejected(r) => assert_eq!((r.kind, r.location.offset), ("LimitExceeded", Some(3))),
            CheckError::Io(e) => panic!("{e}"),
        }
        match FileError::<&str>::Exists(PathBuf::from("/v/b")).into_check(rejection) {
            CheckError::Io(e) => {
                assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
                assert_eq!(e.to_string(), "/v/b already exists");
            }
            CheckError::Rejected(r) => panic!("{r}"),
        }
    }
}
