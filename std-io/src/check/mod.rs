//! The validating read behind `modelgate check` and `corpus-check` (CONVENTIONS.md
//! "Command line"), and the one registry of formats.
//!
//! Adding a format means writing one [`Format`] implementation and listing it in
//! [`FORMATS`]; detection, `--format`, `--json` output and `corpus-check` follow from it.

mod deflate;
mod gzip;
mod json;
mod mlbundle;
mod mpk;
mod mvb;
mod onemodel;

use crate::Progress;
use modelgate_core::Rejection;
use std::io;
use std::path::Path;

/// A file format that `modelgate check` can validate.
pub trait Format: Sync {
    /// The name used by `--format` and printed in results, for example `json`.
    fn name(&self) -> &'static str;
    /// Every error kind this format can report (CONVENTIONS.md error table or `spec/errors.md`).
    fn kinds(&self) -> &'static [&'static str];
    /// File-name suffixes that select this format, for example `.json`.
    fn suffixes(&self) -> &'static [&'static str];
    /// True when the file's first bytes identify this format (used when the name does not).
    fn sniff(&self, _head: &[u8]) -> bool {
        false
    }
    /// Runs the full validating read of the file at `path` without writing anything
    /// outside a private temporary folder. Formats that stream large files (`mpk`, `mvb`)
    /// report the bytes read to `progress` (monotone, ending at the file's length after a
    /// complete pass); the others read a bounded file whole and do not call it.
    fn check(&self, path: &Path, progress: Progress<'_>) -> Result<(), CheckError>;
    /// Validates the file like [`Format::check`] and describes it for `modelgate inspect`:
    /// human-readable text, or one canonical JSON document when `json` is set. `None` when
    /// the format has no inspection.
    fn inspect(&self, _path: &Path, _json: bool) -> Option<Result<String, CheckError>> {
        None
    }
}

/// Why a file did not pass.
#[derive(Debug)]
pub enum CheckError {
    /// The file was read and rejected.
    Rejected(Rejection),
    /// The file could not be read.
    Io(io::Error),
}

impl From<io::Error> for CheckError {
    fn from(e: io::Error) -> Self {
        CheckError::Io(e)
    }
}

/// Every registered format, in detection order.
pub static FORMATS: &[&dyn Format] = &[
    &json::Json,
    &gzip::Gzip,
    &deflate::Deflate,
    &mlbundle::Mlbundle,
    &onemodel::OneModel,
    &onemodel::Onnx,
    &mpk::Mpk,
    &mvb::Mvb,
];

/// The format named `name` (`--format`).
pub fn by_name(name: &str) -> Option<&'static dyn Format> {
    FORMATS.iter().copied().find(|f| f.name() == name)
}

/// The names of every registered format, for messages.
pub fn names() -> Vec<&'static str> {
    FORMATS.iter().map(|f| f.name()).collect()
}

/// The format of `path`: the longest matching file-name suffix, then the first bytes. Only
/// a regular file is sniffed: anything else is an I/O error of kind `InvalidInput`, without
/// being opened (a FIFO would block the open).
pub fn detect(path: &Path) -> io::Result<Option<&'static dyn Format>> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let by_suffix = FORMATS
        .iter()
        .filter_map(|f| {
            f.suffixes()
                .iter()
                .filter(|s| name.ends_with(*s))
                .map(|s| (s.len(), *f))
                .max_by_key(|(l, _)| *l)
        })
        .max_by_key(|(l, _)| *l)
        .map(|(_, f)| f);
    if by_suffix.is_some() {
        return Ok(by_suffix);
    }
    let mut head = [0u8; 8];
    let n = read_head(path, &mut head)?;
    let head = head.get(..n).unwrap_or_default();
    Ok(FORMATS.iter().copied().find(|f| f.sniff(head)))
}

fn read_head(path: &Path, buf: &mut [u8]) -> io::Result<usize> {
    use std::io::Read;
    // Stat'ed before it is opened: a FIFO is refused, never opened (the open would block).
    let (mut f, _) = crate::read::open_regular_file(path)?;
    let mut n = 0;
    while n < buf.len() {
        let Some(rest) = buf.get_mut(n..) else { break };
        match f.read(rest)? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

/// True when `kind` is an error kind of any registered format.
pub fn is_known_kind(kind: &str) -> bool {
    FORMATS.iter().any(|f| f.kinds().contains(&kind))
}

/// Maps a bounded-read failure to the format's limit kind or an I/O error.
pub(crate) fn read_limited(path: &Path, limit: u64, limit_kind: &'static str) -> Result<Vec<u8>, CheckError> {
    match crate::read::read_bounded(path, limit) {
        Ok(bytes) => Ok(bytes),
        Err(crate::read::ReadError::Io(e)) => Err(CheckError::Io(e)),
        Err(crate::read::ReadError::TooLarge { limit }) => Err(CheckError::Rejected(Rejection {
            kind: limit_kind,
            message: format!("file is larger than the {limit}-byte limit"),
            location: modelgate_core::Location::at(limit),
        })),
    }
}
