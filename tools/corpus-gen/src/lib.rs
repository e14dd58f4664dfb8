//! The hostile-corpus generator: every file under `hostile-corpus/` that a program can
//! make comes from here, bit for bit, together with its `SHA256SUMS` manifest.
//!
//! Each module owns one folder and a case table; its tests assert the exact outcome
//! (kind, reason and byte offset) of every case through the library, so a corpus file
//! can never silently pass for the wrong reason.

/// Defines a module's case table: `pub fn cases()` and, under `cfg(test)`, one test per
/// case, named for it, asserting that the module's `outcome` gives exactly the expectation.
macro_rules! cases {
    (reason: $reason:ty; $($name:ident : $bytes:expr => $expect:expr;)*) => {
        /// Every corpus case of this module.
        pub fn cases() -> Vec<$crate::Case<$reason>> {
            vec![$($crate::Case { name: stringify!($name), bytes: Vec::from($bytes), expect: $expect }),*]
        }

        #[cfg(test)]
        mod named {
            use super::*;
            $(
                #[test]
                fn $name() {
                    let bytes: Vec<u8> = Vec::from($bytes);
                    assert_eq!(outcome(&bytes), $expect);
                }
            )*
        }
    };
}

pub mod deflate;
pub mod gzip;
pub mod json;
pub mod mlbundle;
pub mod mpk;
pub mod mvb;
pub mod onemodel;

use modelgate_core::digest::{hex, sha256};

/// One generated file, its path relative to `hostile-corpus/`.
pub struct CorpusFile {
    /// Relative path with `/` separators, for example `json/valid-empty-object.json`.
    pub path: String,
    /// The exact bytes.
    pub bytes: Vec<u8>,
}

impl CorpusFile {
    /// The file of one case: `<folder>/<expected>-<case>.<ext>`, the case's snake-case rule
    /// name written with dashes (CONVENTIONS.md `corpus-check`: `<Expected>` is `valid` or
    /// the kind the file must be rejected with).
    pub fn case(folder: &str, expected: &str, name: &str, ext: &str, bytes: &[u8]) -> CorpusFile {
        CorpusFile {
            path: format!("{folder}/{expected}-{}.{ext}", name.replace('_', "-")),
            bytes: bytes.to_vec(),
        }
    }
}

/// What a case must give: accepted, or rejected for a precise reason `R` at a byte offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect<R> {
    /// Accepted.
    Valid,
    /// Rejected for this reason at this byte offset.
    Reject(R, u64),
}

/// One corpus case: a rule name, the file's bytes and the exact outcome.
pub struct Case<R> {
    /// Rule name, snake case; the file name uses it with dashes.
    pub name: &'static str,
    /// The file's bytes.
    pub bytes: Vec<u8>,
    /// The exact outcome.
    pub expect: Expect<R>,
}

impl<R: Copy> Case<R> {
    /// `<folder>/<Expected>-<case>.<ext>`, the kind named by `kind` for a rejection.
    pub fn file(&self, folder: &str, ext: &str, kind: fn(R, u64) -> &'static str) -> CorpusFile {
        let expected = match self.expect {
            Expect::Valid => "valid",
            Expect::Reject(reason, offset) => kind(reason, offset),
        };
        CorpusFile::case(folder, expected, self.name, ext, &self.bytes)
    }
}

/// One PAX extended-header record `"<len> <key>=<value>\n"`, its decimal length prefix
/// counting itself (POSIX pax format; `spec/mpk.md` §1), for the tar-based corpora.
pub fn pax_record(key: &str, value: &[u8]) -> Vec<u8> {
    let body = key.len() + value.len() + 3;
    let mut len = body + 1;
    while format!("{len}").len() + body != len {
        len += 1;
    }
    let mut v = format!("{len} {key}=").into_bytes();
    v.extend_from_slice(value);
    v.push(b'\n');
    v
}

/// Every generated file, sorted by path.
pub fn all() -> Vec<CorpusFile> {
    let mut files = json::files();
    files.extend(gzip::files());
    files.extend(deflate::files());
    files.extend(mlbundle::files());
    files.extend(mpk::files());
    files.extend(mvb::files());
    files.extend(onemodel::files());
    files.sort_by(|a, b| a.path.cmp(&b.path));
    files
}

/// Name of the checksum manifest inside `hostile-corpus/`.
pub const SUMS: &str = "SHA256SUMS";

/// The checksum manifest: `sha256sum`-compatible lines `<hex>  <path>`, sorted by path.
pub fn sums(files: &[CorpusFile]) -> String {
    files
        .iter()
        .map(|f| format!("{}  {}\n", hex(&sha256(&f.bytes)), f.path))
        .collect()
}

/// Asserts that a module's case names are at least `min` and all distinct (the issue's
/// minimum corpus size for the folder).
#[cfg(test)]
pub(crate) fn assert_enough_distinct<'a>(names: impl Iterator<Item = &'a str>, min: usize) {
    let mut names: Vec<&str> = names.collect();
    let count = names.len();
    assert!(count >= min, "{count} cases, want at least {min}");
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), count, "case names repeat");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_unique_and_follow_the_naming_rule() {
        let files = all();
        let mut paths: Vec<_> = files.iter().map(|f| f.path.as_str()).collect();
        paths.dedup();
        assert_eq!(paths.len(), files.len(), "duplicate corpus paths");
        for p in paths {
            let name = p.rsplit('/').next().unwrap_or(p);
            if name == "fixtures_manifest.json" {
                continue; // a format's checksum manifest (mpk), not a case
            }
            let (expected, rest) = name.split_once('-').expect("Expected-case name");
            assert!(!expected.is_empty() && !rest.is_empty(), "{p}");
            assert!(
                rest.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.'),
                "{p}"
            );
        }
    }

    #[test]
    fn generation_is_deterministic() {
        assert_eq!(sums(&all()), sums(&all()));
    }
}
