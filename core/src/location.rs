//! Where in a file a failure was found (`spec/errors.md` §2: every failure carries a
//! location where there is one).

use alloc::string::String;
use core::fmt;

/// A failure's location: any of an archive member (or tar entry, or header field name),
/// a manifest path such as `manifest.graph.nodes[3].inputs[1]`, and a byte offset.
///
/// Offsets count from the start of the outermost input the caller handed in, unless
/// `member` is set, in which case they count from the start of that member's bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Location {
    /// Archive member, tar entry or header field the failure belongs to.
    pub member: Option<String>,
    /// JSON path of the offending value (`spec/json.md` §Paths).
    pub path: Option<String>,
    /// Byte offset of the offending byte or structure.
    pub offset: Option<u64>,
}

impl Location {
    /// No location is known.
    pub const NONE: Location = Location {
        member: None,
        path: None,
        offset: None,
    };

    /// A byte offset only.
    pub fn at(offset: u64) -> Self {
        Location {
            offset: Some(offset),
            ..Location::NONE
        }
    }

    /// A JSON path with the byte offset of the value it names.
    pub fn path(path: String, offset: u64) -> Self {
        Location {
            path: Some(path),
            offset: Some(offset),
            member: None,
        }
    }

    /// The same location, inside the named member.
    pub fn in_member(mut self, member: &str) -> Self {
        self.member = Some(String::from(member));
        self
    }

    /// True when nothing is known.
    pub fn is_none(&self) -> bool {
        self.member.is_none() && self.path.is_none() && self.offset.is_none()
    }
}

impl fmt::Display for Location {
    /// `member NAME, PATH, byte N` with absent parts left out; empty when nothing is known.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut sep = "";
        if let Some(m) = &self.member {
            write!(f, "member {m}")?;
            sep = ", ";
        }
        if let Some(p) = &self.path {
            write!(f, "{sep}{p}")?;
            sep = ", ";
        }
        if let Some(o) = self.offset {
            write!(f, "{sep}byte {o}")?;
        }
        Ok(())
    }
}
