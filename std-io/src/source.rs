//! Where a container's bytes come from, bounded before they are buffered
//! (`spec/mlbundle.md` §11.1: readers bound the source before buffering it).
//!
//! - a path is stat'ed first: it must be a regular file no longer than the limit, and the
//!   read itself stops one byte past the limit (a file that grows after the stat is caught);
//! - bytes are checked by length;
//! - a stream is read from its current position in chunks of at most 64 KiB, at most one
//!   byte beyond the limit, and is never closed (the caller keeps ownership).

use crate::threads::Threads;
use modelgate_core::mlbundle::{self, ArchiveLimits, Container, Limit, MetadataView, ReadOptions};
use modelgate_core::{Location, Rejection};
use std::borrow::Cow;
use std::io::{self, Read};
use std::path::Path;

/// Largest piece a stream is read in.
pub const CHUNK: usize = 64 * 1024;

/// A container source: a filesystem path, bytes in memory, or a readable stream.
pub enum Source<'a> {
    /// A path to a regular file.
    Path(&'a Path),
    /// Bytes already in memory.
    Bytes(&'a [u8]),
    /// A stream, read from its current position and not closed.
    Stream(&'a mut dyn Read),
}

/// Why a source could not be loaded.
#[derive(Debug)]
pub enum SourceError {
    /// The source is longer than the limit. `limit` is the offset of the first excess byte.
    TooLarge {
        /// The limit that was exceeded.
        limit: u64,
    },
    /// The operating system refused, or the path is not a regular file.
    Io(io::Error),
}

impl std::fmt::Display for SourceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SourceError::TooLarge { limit } => write!(f, "file longer than {limit} bytes"),
            SourceError::Io(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for SourceError {}

impl From<io::Error> for SourceError {
    fn from(e: io::Error) -> Self {
        SourceError::Io(e)
    }
}

/// The source's bytes if there are at most `limit` of them (§11.1). Bytes are borrowed, not
/// copied.
pub fn load<'a>(source: Source<'a>, limit: u64) -> Result<Cow<'a, [u8]>, SourceError> {
    match source {
        Source::Bytes(b) => {
            if b.len() as u64 > limit {
                return Err(SourceError::TooLarge { limit });
            }
            Ok(Cow::Borrowed(b))
        }
        Source::Path(p) => load_path(p, limit).map(Cow::Owned),
        Source::Stream(r) => read_chunked(r, limit, 0).map(Cow::Owned),
    }
}

/// Stat first, then a bounded read (§11.1).
fn load_path(path: &Path, limit: u64) -> Result<Vec<u8>, SourceError> {
    // Stat'ed before it is opened: a FIFO is never opened (the open would block).
    let (mut file, meta) = crate::read::open_regular_file(path)?;
    if meta.len() > limit {
        return Err(SourceError::TooLarge { limit });
    }
    read_chunked(&mut file, limit, meta.len())
}

/// Reads `r` to its end in chunks of at most [`CHUNK`] bytes, never more than `limit + 1`
/// bytes in total; `hint` (a stat'ed length, at most `limit`) sizes the buffer up front.
fn read_chunked(r: &mut dyn Read, limit: u64, hint: u64) -> Result<Vec<u8>, SourceError> {
    let cap = usize::try_from(hint.min(limit)).unwrap_or(0);
    let mut out = Vec::new();
    out.try_reserve_exact(cap)
        .map_err(|_| SourceError::Io(io::Error::from(io::ErrorKind::OutOfMemory)))?;
    let mut chunk = vec![0u8; CHUNK];
    let budget = limit.saturating_add(1);
    loop {
        let room = budget.saturating_sub(out.len() as u64);
        if room == 0 {
            return Err(SourceError::TooLarge { limit });
        }
        let want = usize::try_from(room).unwrap_or(CHUNK).min(CHUNK);
        let n = match r.read(&mut chunk[..want]) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(SourceError::Io(e)),
        };
        out.try_reserve(n)
            .map_err(|_| SourceError::Io(io::Error::from(io::ErrorKind::OutOfMemory)))?;
        out.extend_from_slice(&chunk[..n]);
    }
    if out.len() as u64 > limit {
        return Err(SourceError::TooLarge { limit });
    }
    Ok(out)
}

/// Why an mlbundle could not be read from a source.
#[derive(Debug)]
pub enum ReadError {
    /// The bundle was read and rejected (an oversized source is `LimitExceeded`).
    Rejected(mlbundle::Error),
    /// The source could not be read.
    Io(io::Error),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Rejected(e) => e.fmt(f),
            ReadError::Io(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ReadError {}

impl ReadError {
    /// The rejection, for `modelgate check`; `None` for I/O errors.
    pub fn rejection(&self) -> Option<Rejection> {
        match self {
            ReadError::Rejected(e) => Some(e.rejection()),
            ReadError::Io(_) => None,
        }
    }
}

fn load_bundle<'a>(source: Source<'a>, limits: &ArchiveLimits) -> Result<Cow<'a, [u8]>, ReadError> {
    load(source, limits.get(Limit::Archive)).map_err(|e| match e {
        SourceError::Io(e) => ReadError::Io(e),
        SourceError::TooLarge { limit } => ReadError::Rejected(mlbundle::Error::new(
            mlbundle::ErrorKind::LimitExceeded,
            format!("archive is larger than the {limit}-byte limit"),
            Location::at(limit),
        )),
    })
}

/// `read_container(source, limits)` (`spec/mlbundle.md` §11.1, §12.0): the bounded source,
/// then the full validation of `modelgate_core::mlbundle::read_container` on two threads
/// when both halves of the member work are worth one ([`Threads::DEFAULT`]: the member
/// reads on one, the JSON checks on the other, `spec/mlbundle.md` §12.0). The outcome is the
/// serial reader's for every input. Stored
/// members borrow `Source::Bytes`; from a path or a stream, which are loaded here, they are
/// copied out of the loaded bytes once the container is accepted
/// ([`Container::into_owned`]: a copy that cannot be reserved is the `LimitExceeded` a
/// deflated member's buffer gives, `spec/mlbundle.md` §4.1).
pub fn read_container<'a>(source: Source<'a>, limits: &ArchiveLimits) -> Result<Container<'a>, ReadError> {
    match load_bundle(source, limits)? {
        Cow::Borrowed(bytes) => read_loaded(bytes, limits),
        Cow::Owned(bytes) => read_loaded(&bytes, limits)?.into_owned().map_err(ReadError::Rejected),
    }
}

/// The validation of [`read_container`] and the model step of the validating load
/// (`mlbundle::check_models`, `spec/mlbundle.md` §12.2) without keeping the container, as
/// `modelgate check` runs them: no stored member is ever copied (§4.2).
pub(crate) fn check_container(source: Source<'_>, limits: &ArchiveLimits) -> Result<(), ReadError> {
    let bytes = load_bundle(source, limits)?;
    let container = read_loaded(&bytes, limits)?;
    mlbundle::check_models(&container).map_err(ReadError::Rejected)
}

/// The validation of [`read_container`] over loaded bytes, the JSON members' duplicate
/// tables keyed with this process's random key (`spec/json.md` §5).
fn read_loaded<'a>(bytes: &'a [u8], limits: &ArchiveLimits) -> Result<Container<'a>, ReadError> {
    let limits = limits.with_hash_key(crate::hash_key());
    mlbundle::read_container(
        bytes,
        ReadOptions {
            limits: &limits,
            join: Threads::DEFAULT,
        },
    )
    .map_err(ReadError::Rejected)
}

/// `inspect(source, limits)`: the bounded source, then the validation of
/// `check_container` and the metadata view of `modelgate_core::mlbundle::inspect`.
pub fn inspect(source: Source<'_>, limits: &ArchiveLimits) -> Result<MetadataView, ReadError> {
    let bytes = load_bundle(source, limits)?;
    let container = read_loaded(&bytes, limits)?;
    mlbundle::check_models(&container).map_err(ReadError::Rejected)?;
    Ok(MetadataView::from(container))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that counts what was taken from it.
    struct Counting<'a> {
        data: &'a [u8],
        taken: usize,
    }

    impl Read for Counting<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = buf.len().min(self.data.len() - self.taken);
            buf[..n].copy_from_slice(&self.data[self.taken..self.taken + n]);
            self.taken += n;
            Ok(n)
        }
    }

    #[test]
    fn stream_reads_at_most_one_excess_byte() {
        let data = vec![1u8; 200_000];
        let mut r = Counting { data: &data, taken: 0 };
        let e = load(Source::Stream(&mut r), 100_000).unwrap_err();
        assert!(matches!(e, SourceError::TooLarge { limit: 100_000 }));
        assert_eq!(r.taken, 100_001);
    }

    #[test]
    fn stream_is_read_from_its_current_position_and_left_open() {
        let data: Vec<u8> = (0..=255).collect();
        let mut cursor = io::Cursor::new(&data[..]);
        cursor.set_position(250);
        let got = load(Source::Stream(&mut cursor), 10).unwrap();
        assert_eq!(&got[..], &data[250..]);
        // Still usable: not closed, position at the end.
        cursor.set_position(0);
        assert_eq!(load(Source::Stream(&mut cursor), 256).unwrap().len(), 256);
    }

    #[test]
    fn stream_exactly_at_limit_is_accepted() {
        let data = [9u8; 70_000];
        let mut r = Counting { data: &data, taken: 0 };
        assert_eq!(load(Source::Stream(&mut r), 70_000).unwrap().len(), 70_000);
    }

    #[test]
    fn bytes_over_limit_rejected_without_copy() {
        assert!(matches!(
            load(Source::Bytes(&[0; 11]), 10),
            Err(SourceError::TooLarge { limit: 10 })
        ));
        assert!(matches!(load(Source::Bytes(&[0; 10]), 10), Ok(Cow::Borrowed(_))));
    }

    #[test]
    fn path_is_stated_before_reading() {
        let dir = std::env::temp_dir().join(format!("mg-source-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("big.mlbundle");
        std::fs::write(&p, [0u8; 1000]).unwrap();
        assert!(matches!(
            load(Source::Path(&p), 999),
            Err(SourceError::TooLarge { limit: 999 })
        ));
        assert_eq!(load(Source::Path(&p), 1000).unwrap().len(), 1000);
        assert!(matches!(load(Source::Path(&dir), 1000), Err(SourceError::Io(_))));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn oversized_bundle_is_limit_exceeded() {
        let limits = ArchiveLimits::DEFAULT.with(Limit::Archive, 10).unwrap();
        let e = read_container(Source::Bytes(&[0; 11]), &limits).unwrap_err();
        let r = e.rejection().unwrap();
        assert_eq!(r.kind, "LimitExceeded");
        assert_eq!(r.location.offset, Some(10));
    }
}
