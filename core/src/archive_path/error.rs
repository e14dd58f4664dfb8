//! Why a path was rejected (`spec/mpk.md` §2).

use core::fmt;

/// The rule of `spec/mpk.md` §2 a path breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PathReason {
    /// Not valid UTF-8 (§2.1).
    InvalidUtf8,
    /// A NUL byte (§2.1).
    Nul,
    /// An ASCII control character (§2.1).
    ControlCharacter,
    /// A backslash (§2.1).
    Backslash,
    /// A drive prefix such as `C:` (§2.1).
    DrivePrefix,
    /// A colon elsewhere (§2.1).
    Colon,
    /// Starts with `/` (§2.2).
    Absolute,
    /// A `..` segment (§2.3).
    Traversal,
    /// A slash or backslash confusable (§2.4).
    SlashConfusable,
    /// A dot look-alike that another reader rewrites to `.`, anywhere (§2.4).
    DotLookalike,
    /// A traversal-like segment holding a dot confusable or ignorable (§2.5).
    DotConfusable,
    /// A segment of dots and spaces other than `.` and `..` (§2.5).
    DotSegment,
    /// A segment ending in a dot or space (§2.5).
    TrailingDotOrSpace,
    /// Nothing left after normalisation (§2.6).
    Empty,
    /// Longer than the limits (§2.6).
    TooLong,
    /// More segments than the limit (§2.6).
    TooDeep,
}

impl PathReason {
    /// True for the rules that stop escapes from the root (traversal, absolute, drive,
    /// separators and confusables, invalid UTF-8) rather than malformed names.
    pub fn is_traversal(self) -> bool {
        !matches!(
            self,
            PathReason::ControlCharacter
                | PathReason::Empty
                | PathReason::TooLong
                | PathReason::TooDeep
                | PathReason::TrailingDotOrSpace
        )
    }
}

impl fmt::Display for PathReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PathReason::InvalidUtf8 => "path is not valid UTF-8",
            PathReason::Nul => "path holds a NUL byte",
            PathReason::ControlCharacter => "path holds a control character",
            PathReason::Backslash => "path holds a backslash",
            PathReason::DrivePrefix => "path has a drive prefix",
            PathReason::Colon => "path holds a colon",
            PathReason::Absolute => "path is absolute",
            PathReason::Traversal => "path has a .. segment",
            PathReason::SlashConfusable => "path holds a Unicode slash or backslash look-alike",
            PathReason::DotLookalike => "path holds a Unicode dot look-alike (U+FF0E, U+2024 or U+FE52)",
            PathReason::DotConfusable => "path segment is a dot look-alike traversal",
            PathReason::DotSegment => "path segment is made of dots and spaces",
            PathReason::TrailingDotOrSpace => "path segment ends in a dot or space",
            PathReason::Empty => "path is empty after normalisation",
            PathReason::TooLong => "path exceeds the length limit",
            PathReason::TooDeep => "path has more segments than the limit",
        })
    }
}

/// A rejected path: the rule and the byte offset in the raw path (§2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PathError {
    /// The rule broken.
    pub reason: PathReason,
    /// Offset of the offending byte or segment in the raw path.
    pub offset: usize,
}

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at path byte {}", self.reason, self.offset)
    }
}

impl core::error::Error for PathError {}
