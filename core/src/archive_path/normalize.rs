//! One raw entry path to its normalised form (`spec/mpk.md` §2.1 to §2.6).

use super::confusables::{is_dot_confusable, is_ignorable, is_rewritten_dot, is_slash_confusable};
use super::error::{PathError, PathReason};
use alloc::string::String;

/// Length limits (`spec/mpk.md` §2.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PathLimits {
    /// Longest raw path in bytes (default 4096).
    pub max_bytes: usize,
    /// Longest segment in bytes (default 255).
    pub max_segment_bytes: usize,
    /// Most segments in the normalised path (default 255): extraction makes one folder per
    /// segment, and removing a tree takes one open folder per level.
    pub max_segments: usize,
}

impl PathLimits {
    /// The defaults of §2.6.
    pub const DEFAULT: PathLimits = PathLimits {
        max_bytes: 4096,
        max_segment_bytes: 255,
        max_segments: 255,
    };
}

impl Default for PathLimits {
    fn default() -> Self {
        PathLimits::DEFAULT
    }
}

fn err(reason: PathReason, offset: usize) -> PathError {
    PathError { reason, offset }
}

/// Validates a raw entry path and returns its normalised form (`spec/mpk.md` §2):
/// segments joined by `/`, without empty or `.` segments. Work is linear in the path.
pub fn normalize(raw: &[u8], limits: &PathLimits) -> Result<String, PathError> {
    if raw.len() > limits.max_bytes {
        // §2.6: checked first, so the rest of the work is bounded.
        return Err(err(PathReason::TooLong, limits.max_bytes));
    }
    // §2.1: UTF-8 only.
    let text = core::str::from_utf8(raw).map_err(|e| err(PathReason::InvalidUtf8, e.valid_up_to()))?;
    // §2.2: relative only.
    if text.starts_with('/') {
        return Err(err(PathReason::Absolute, 0));
    }
    check_characters(text)?;
    let mut out = String::with_capacity(text.len());
    let mut start = 0usize;
    let mut kept = 0usize;
    for segment in text.split('/') {
        check_segment(segment, start, limits)?;
        if !segment.is_empty() && segment != "." {
            // §2.6: the segment count, at the first segment beyond the limit.
            kept += 1;
            if kept > limits.max_segments {
                return Err(err(PathReason::TooDeep, start));
            }
            if !out.is_empty() {
                out.push('/');
            }
            out.push_str(segment);
        }
        start += segment.len() + 1;
    }
    if out.is_empty() {
        // §2.6: something must remain.
        return Err(err(PathReason::Empty, 0));
    }
    Ok(out)
}

/// §2.1 and §2.4: characters that are never allowed.
fn check_characters(text: &str) -> Result<(), PathError> {
    for (i, c) in text.char_indices() {
        let reason = match c {
            '\0' => PathReason::Nul,
            '\\' => PathReason::Backslash,
            ':' if i == 1 && text.starts_with(|f: char| f.is_ascii_alphabetic()) => PathReason::DrivePrefix,
            ':' => PathReason::Colon,
            c if c.is_ascii_control() => PathReason::ControlCharacter,
            c if is_slash_confusable(c) => PathReason::SlashConfusable,
            c if is_rewritten_dot(c) => PathReason::DotLookalike,
            _ => continue,
        };
        return Err(err(reason, i));
    }
    Ok(())
}

/// §2.3, §2.5, §2.6: one segment at offset `start`.
fn check_segment(segment: &str, start: usize, limits: &PathLimits) -> Result<(), PathError> {
    if segment.is_empty() || segment == "." {
        return Ok(());
    }
    if segment == ".." {
        return Err(err(PathReason::Traversal, start));
    }
    if segment.len() > limits.max_segment_bytes {
        return Err(err(PathReason::TooLong, start));
    }
    let mut lookalike = false;
    let mut only_dots = true;
    for c in segment.chars() {
        match c {
            '.' | ' ' => {}
            c if is_dot_confusable(c) || is_ignorable(c) => lookalike = true,
            _ => only_dots = false,
        }
    }
    if only_dots {
        let reason = if lookalike {
            PathReason::DotConfusable
        } else {
            PathReason::DotSegment
        };
        return Err(err(reason, start));
    }
    if segment.ends_with(['.', ' ']) {
        let at = start + segment.len() - 1;
        return Err(err(PathReason::TrailingDotOrSpace, at));
    }
    Ok(())
}
