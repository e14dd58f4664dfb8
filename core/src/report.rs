//! The format-independent shape of a rejection, as `modelgate check` and `corpus-check`
//! print it (`spec/errors.md` §1, §3).

use crate::Location;
use alloc::string::String;
use core::fmt;

/// A rejected input: the error kind's exact name from `spec/errors.md` §1,
/// a message that never echoes raw input, and where it was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejection {
    /// Exact kind name, for example `InvalidJSON` or `invalid_archive`.
    pub kind: &'static str,
    /// Human-readable explanation, without raw JSON blobs or file contents.
    pub message: String,
    /// Where the failure was found.
    pub location: Location,
}

impl fmt::Display for Rejection {
    /// `KIND: message (location)`, the location part omitted when unknown.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind, self.message)?;
        if !self.location.is_none() {
            write!(f, " ({})", self.location)?;
        }
        Ok(())
    }
}
