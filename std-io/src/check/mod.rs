//! The validating read behind `modelgate check` and `corpus-check` (`spec/errors.md` §3,
//! §4), and the one registry of formats.
//!
//! Adding a format means writing one [`Format`] implementation and listing it in
//! [`FORMATS`]; detection, `--format`, `--json` output and `corpus-check` follow from it.
//!
//! Detection ([`detect`]) takes the longest file-name suffix a format claims; a name that
//! none claims is told by its first bytes, at most 64 KiB (`HEAD_LEN`) of them: a ZIP archive is an
//! mlbundle, the OneModel magic a OneModel file, gzip whose first decoded block is a tar
//! header an MPK package, a tar header an mvb export, and other gzip is gzip.

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
    /// Every error kind this format can report (`spec/errors.md` §1).
    fn kinds(&self) -> &'static [&'static str];
    /// File-name suffixes that select this format, for example `.json`.
    fn suffixes(&self) -> &'static [&'static str];
    /// True when the file's first bytes (at most 64 KiB, `HEAD_LEN`) identify this format (used
    /// when the name does not).
    fn sniff(&self, _head: &[u8]) -> bool {
        false
    }
    /// What [`Format::sniff`] recognises, for help texts; `None` when the format is told by
    /// its name alone.
    fn content(&self) -> Option<&'static str> {
        None
    }
    /// Runs the full validating read of the file at `path` without writing anything
    /// outside a private temporary folder. Formats that stream large files (`mpk`, `mvb`)
    /// report the bytes read to `progress` (monotone, ending at the file's length after a
    /// complete pass); the others read a bounded file whole and do not call it.
    fn check(&self, path: &Path, progress: Progress<'_>) -> Result<(), CheckError>;
    /// Runs the same validating read over a file's bytes held in memory, for a caller that
    /// has bytes and no file (the Python package's `check(bytes)`): the rules and limits of
    /// [`Format::check`], less the two that need a file system. An MPK package's file name
    /// (`spec/mpk.md` §3.0) is not known, so not checked; an ONNX model's external data
    /// has no folder to be looked for in, so it is `Unsupported` (`spec/onemodel.md` §6.2).
    /// Nothing is read from or written to the file system.
    fn check_bytes(&self, bytes: &[u8]) -> Result<(), CheckError>;
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

impl std::fmt::Display for CheckError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CheckError::Rejected(e) => e.fmt(f),
            CheckError::Io(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for CheckError {}

impl From<io::Error> for CheckError {
    fn from(e: io::Error) -> Self {
        CheckError::Io(e)
    }
}

/// Every registered format: the container formats, then the formats they are built on.
/// Detection by content takes the first whose [`Format::sniff`] accepts the head, so MPK
/// (gzip holding a tar) is tried before gzip.
pub static FORMATS: &[&dyn Format] = &[
    &mlbundle::Mlbundle,
    &onemodel::OneModel,
    &mpk::Mpk,
    &mvb::Mvb,
    &json::Json,
    &onemodel::Onnx,
    &gzip::Gzip,
    &deflate::Deflate,
];

/// The most bytes [`detect`] reads from a file whose name tells no format: enough for a gzip
/// header with a file name and the deflate data of a first tar block.
pub(crate) const HEAD_LEN: usize = 64 * 1024;

/// The format named `name` (`--format`).
pub fn by_name(name: &str) -> Option<&'static dyn Format> {
    FORMATS.iter().copied().find(|f| f.name() == name)
}

/// The names of every registered format, for messages.
pub fn names() -> Vec<&'static str> {
    FORMATS.iter().map(|f| f.name()).collect()
}

/// The format of `path`: the longest matching file-name suffix, then the first bytes (at
/// most 64 KiB, `HEAD_LEN`). Only a regular file is sniffed: anything else is an I/O error of kind
/// `InvalidInput`, without being opened (a FIFO would block the open).
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
    let mut head = vec![0u8; HEAD_LEN];
    let n = read_head(path, &mut head)?;
    Ok(detect_content(head.get(..n).unwrap_or_default()))
}

/// The format whose [`Format::sniff`] first accepts a file's first bytes (at most 64 KiB,
/// `HEAD_LEN`, are looked at): [`detect`] for a file whose name tells nothing, and the
/// detection of bytes that have no name.
pub fn detect_content(head: &[u8]) -> Option<&'static dyn Format> {
    let head = head.get(..HEAD_LEN).unwrap_or(head);
    FORMATS.iter().copied().find(|f| f.sniff(head))
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

/// True when `block` starts like a tar header: the ustar or GNU magic at offset 257
/// (`spec/mpk.md` §1.1.2). Whether the header is valid is the format's check.
pub(crate) fn is_tar(block: &[u8]) -> bool {
    let at = modelgate_core::tar::MAGIC_OFFSET;
    block.get(at..at + 5) == Some(b"ustar".as_slice())
}

/// True when `head` is gzip whose decoded stream starts like a tar header ([`is_tar`]).
/// At most one tar block is decoded, from `head` alone.
pub(crate) fn gzip_holds_tar(head: &[u8]) -> bool {
    use modelgate_core::gzip::{GzStep, GzipDecoder};
    use modelgate_core::tar::BLOCK;
    if !head.starts_with(&[0x1f, 0x8b]) {
        return false;
    }
    let mut decoder = GzipDecoder::new(u64::MAX);
    let mut block = Vec::with_capacity(BLOCK);
    let mut rest = head;
    while block.len() < BLOCK {
        match decoder.step(rest) {
            Ok((used, GzStep::Output(out))) => {
                let want = BLOCK - block.len();
                block.extend_from_slice(out.get(..want).unwrap_or(out));
                rest = rest.get(used..).unwrap_or_default();
            }
            Ok((_, GzStep::NeedInput)) | Err(_) => break,
        }
    }
    is_tar(&block)
}

/// True when `kind` is an error kind of any registered format.
pub(crate) fn is_known_kind(kind: &str) -> bool {
    FORMATS.iter().any(|f| f.kinds().contains(&kind))
}

/// Maps a bounded-read failure to the format's limit kind or an I/O error.
pub(crate) fn read_limited(path: &Path, limit: u64, limit_kind: &'static str) -> Result<Vec<u8>, CheckError> {
    match crate::read::read_bounded(path, limit) {
        Ok(bytes) => Ok(bytes),
        Err(crate::read::ReadError::Io(e)) => Err(CheckError::Io(e)),
        Err(crate::read::ReadError::TooLarge { limit }) => Err(CheckError::Rejected(larger_than(limit, limit_kind))),
    }
}

/// [`read_limited`]'s rule for bytes already in memory: more than `limit` of them is the
/// format's limit kind, at the first byte past the limit.
pub(crate) fn within(bytes: &[u8], limit: u64, limit_kind: &'static str) -> Result<(), CheckError> {
    match u64::try_from(bytes.len()) {
        Ok(n) if n <= limit => Ok(()),
        _ => Err(CheckError::Rejected(larger_than(limit, limit_kind))),
    }
}

fn larger_than(limit: u64, limit_kind: &'static str) -> Rejection {
    Rejection {
        kind: limit_kind,
        message: format!("file is larger than the {limit}-byte limit"),
        location: modelgate_core::Location::at(limit),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use modelgate_core::gzip::write_gzip;

    /// A tar stream whose first header has `magic` at offset 257, then pseudorandom bytes
    /// that do not compress.
    fn tar_like(magic: &[u8]) -> Vec<u8> {
        let mut t = vec![0u8; 512];
        t[257..257 + magic.len()].copy_from_slice(magic);
        t.extend(modelgate_corpus_gen::rng::pseudorandom(200_000, 0x2545_f491));
        t
    }

    /// Bytes over a limit are refused as a file over it is: same kind, message and place.
    #[test]
    fn bytes_over_a_limit_are_refused_as_a_file_over_it() {
        let tmp = crate::temp::TempDir::create(&std::env::temp_dir(), "mg-within", "t").unwrap();
        let path = tmp.path().join("three");
        std::fs::write(&path, b"abc").unwrap();
        let shown = |r: CheckError| match r {
            CheckError::Rejected(r) => (r.kind, r.message, r.location.offset),
            CheckError::Io(e) => panic!("{e}"),
        };
        let file = shown(read_limited(&path, 2, "LimitExceeded").unwrap_err());
        assert_eq!(shown(within(b"abc", 2, "LimitExceeded").unwrap_err()), file);
        assert_eq!(file.2, Some(2));
        assert!(within(b"abc", 3, "LimitExceeded").is_ok());
        assert_eq!(read_limited(&path, 3, "LimitExceeded").unwrap(), b"abc");
    }

    #[test]
    fn a_tar_header_is_told_by_its_magic() {
        assert!(is_tar(&tar_like(b"ustar\x0000")));
        assert!(is_tar(&tar_like(b"ustar  \x00")));
        assert!(!is_tar(&tar_like(b"ustad")));
        assert!(!is_tar(&[0u8; 261]), "too short for the magic");
    }

    #[test]
    fn gzip_holding_tar_is_told_from_the_first_block_alone() {
        let gz = write_gzip(&tar_like(b"ustar\x0000"), usize::MAX).unwrap();
        assert!(gz.len() > HEAD_LEN, "the whole stream is longer than the head");
        assert!(gzip_holds_tar(&gz[..HEAD_LEN]));
        assert!(gzip_holds_tar(&gz[..600]), "the first block's deflate data is enough");
        assert!(!gzip_holds_tar(&write_gzip(&tar_like(b"ustad"), usize::MAX).unwrap()));
        assert!(!gzip_holds_tar(&gz[1..]), "not gzip");
        assert_eq!(
            FORMATS.iter().find(|f| f.sniff(&gz[..HEAD_LEN])).map(|f| f.name()),
            Some("mpk"),
            "MPK is tried before gzip"
        );
        let plain = write_gzip(b"hello", usize::MAX).unwrap();
        assert_eq!(FORMATS.iter().find(|f| f.sniff(&plain)).map(|f| f.name()), Some("gzip"));
    }
}
