//! The hostile-corpus generator: every file under `hostile-corpus/` that a program can
//! make comes from here, bit for bit, together with its `SHA256SUMS` manifest.
//!
//! Each module owns one folder and a case table; its tests assert the exact outcome
//! (kind, reason and byte offset) of every case through the library, so a corpus file
//! can never silently pass for the wrong reason.

/// Defines a module's case table: `pub fn cases()` and, under `cfg(test)`, one test per
/// case, named for it, that hands the case to `check` (a function of `&Case`), which
/// asserts its exact outcome.
///
/// Each row is `name: bytes => expectation;`; in a table that starts with `@pairs`, each
/// is `name => (bytes, expectation);`, where both come from one computation. An optional
/// `."ext"` after the name sets the file's extension; the table's `ext` is the default.
macro_rules! cases {
    (expect: $expect:ty; ext: $default:literal; check: $check:expr; $($name:ident $(. $ext:literal)? : $bytes:expr => $outcome:expr;)*) => {
        cases! { @pairs expect: $expect; ext: $default; check: $check; $($name $(. $ext)? => (Vec::from($bytes), $outcome);)* }
    };
    (@pairs expect: $expect:ty; ext: $default:literal; check: $check:expr; $($name:ident $(. $ext:literal)? => $pair:expr;)*) => {
        /// Every corpus case of this module.
        pub fn cases() -> Vec<$crate::Case<$expect>> {
            vec![$({
                let (bytes, expect): (Vec<u8>, $expect) = $pair;
                $crate::Case { name: stringify!($name), ext: $crate::ext_or(&[$($ext)?], $default), bytes, expect }
            }),*]
        }

        #[cfg(test)]
        mod named {
            use super::*;
            $(
                #[test]
                fn $name() {
                    let (bytes, expect): (Vec<u8>, $expect) = $pair;
                    let ext = $crate::ext_or(&[$($ext)?], $default);
                    let check: fn(&$crate::Case<$expect>) = $check;
                    check(&$crate::Case { name: stringify!($name), ext, bytes, expect });
                }
            )*
        }
    };
}

pub mod counting;
pub mod deflate;
pub mod gzip;
pub mod json;
pub mod mlbundle;
pub mod mpk;
pub mod mvb;
pub mod onemodel;
pub mod rng;

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
    /// name written with dashes (`spec/errors.md` §4: `<Expected>` is `valid` or the
    /// kind the file must be rejected with).
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

/// What a case's file name says it must give (`spec/errors.md` §4): `valid`, or
/// the kind the file must be rejected with.
pub trait Expected {
    /// `valid`, or the kind of the rejection.
    fn expected(&self) -> &'static str;
}

/// The kind a rejection for reason `Self` at a byte offset has (some kinds depend on where
/// the reason arose), for [`Expect`].
pub trait Kind: Copy {
    /// The kind's name.
    fn kind(self, offset: u64) -> &'static str;
}

impl<R: Kind> Expected for Expect<R> {
    fn expected(&self) -> &'static str {
        match *self {
            Expect::Valid => "valid",
            Expect::Reject(reason, offset) => reason.kind(offset),
        }
    }
}

/// One corpus case: a rule name, the file's extension and bytes, and the exact outcome.
pub struct Case<E> {
    /// Rule name, snake case; the file name uses it with dashes.
    pub name: &'static str,
    /// The file's extension.
    pub ext: &'static str,
    /// The file's bytes.
    pub bytes: Vec<u8>,
    /// The exact outcome.
    pub expect: E,
}

impl<E: Expected> Case<E> {
    /// `<folder>/<Expected>-<case>.<ext>`.
    pub fn file(&self, folder: &str) -> CorpusFile {
        CorpusFile::case(folder, self.expect.expected(), self.name, self.ext, &self.bytes)
    }
}

/// The extension a case table row names, else the table's default.
pub fn ext_or(ext: &[&'static str], default: &'static str) -> &'static str {
    ext.first().copied().unwrap_or(default)
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

/// Asserts that `outcome` (another way of reading the files, such as byte by byte) gives
/// every case exactly its expectation.
#[cfg(test)]
pub(crate) fn assert_every_case<E: PartialEq + std::fmt::Debug>(cases: &[Case<E>], outcome: impl Fn(&[u8]) -> E) {
    for case in cases {
        assert_eq!(outcome(&case.bytes), case.expect, "{}", case.name);
    }
}

/// True when some case is rejected for a reason that `want` accepts.
#[cfg(test)]
pub(crate) fn has_reason<R: Copy>(cases: &[Case<Expect<R>>], want: impl Fn(R) -> bool) -> bool {
    cases
        .iter()
        .any(|c| matches!(c.expect, Expect::Reject(r, _) if want(r)))
}

/// Asserts that a module's case names are at least `min` and all distinct (the folder's
/// minimum corpus size).
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
