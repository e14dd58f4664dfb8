//! Strict version strings, the reader's own version and the re-export hint
//! (`spec/mlbundle.md` §5.4, §5.7).

use alloc::string::String;

/// The version this reader and writer report, written as `writer_version` (§5.4).
pub const READER_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Longest version text a message may show (§9.2).
pub(crate) const MAX_VERSION_CHARS: usize = 64;

/// True for a strict version string (§5.4): 1–64 ASCII characters, `MAJOR.MINOR.PATCH`
/// without leading zeros, optionally `-` and a pre-release of `[0-9A-Za-z.-]`.
pub(crate) fn is_strict_version(s: &str) -> bool {
    if s.is_empty() || s.len() > MAX_VERSION_CHARS || !s.is_ascii() {
        return false;
    }
    let (core, pre) = match s.split_once('-') {
        Some((c, p)) => (c, Some(p)),
        None => (s, None),
    };
    let numbers_ok = core.split('.').count() == 3 && core.split('.').all(is_number);
    let pre_ok =
        pre.is_none_or(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-'));
    numbers_ok && pre_ok
}

fn is_number(part: &str) -> bool {
    !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()) && (part == "0" || !part.starts_with('0'))
}

/// The re-export hint appended to an `InvalidManifest` message when `writer_version` is a
/// strict version different from [`READER_VERSION`] (§5.7); empty otherwise.
pub(crate) fn reexport_hint(writer_version: Option<&str>) -> String {
    match writer_version {
        Some(v) if is_strict_version(v) && v != READER_VERSION => alloc::format!(
            "; written by writer version {v} (this reader is {READER_VERSION}): format 1 is not frozen, \
             re-export the bundle with this version"
        ),
        _ => String::new(),
    }
}

/// At most 64 characters of `s`, JSON-escaped and quoted, for messages (§9.2).
pub(crate) fn quote_version(s: &str) -> String {
    crate::json::quoted(s, MAX_VERSION_CHARS)
}
