//! The one entry sink of the tar-based readers (`spec/mpk.md` §6.2, `spec/mvb.md` §4): the
//! MPK reader and the mvb import validator hand each accepted file to an [`EntrySink`] as
//! its bytes arrive, and stop with a [`Failure`] that tells a rejection from the sink's own
//! error.

use alloc::format;
use alloc::string::String;

/// Receives the accepted files of an archive, one at a time: `begin`, any number of
/// `data`, `end`. Files arrive only after every rule that can be decided from the header
/// passed.
pub trait EntrySink {
    /// The sink's own failure (an I/O error, for extraction and staging).
    type Error;
    /// A file of `size` bytes starts at `path`, a normalised relative path under the
    /// destination root: the class folder and name for MPK (`etc/a.json`,
    /// `spec/mpk.md` §3.2), `<bundle_id>/<bundle path>` for mvb (`spec/mvb.md` §6.2).
    fn begin(&mut self, path: &str, size: u64) -> Result<(), Self::Error>;
    /// A piece of the file's data.
    fn data(&mut self, chunk: &[u8]) -> Result<(), Self::Error>;
    /// The file is complete.
    fn end(&mut self) -> Result<(), Self::Error>;
    /// The longest `path` in bytes that [`EntrySink::begin`] can write: a sink writing
    /// under a folder has only what the operating system's path limit leaves below it
    /// (`spec/mpk.md` §6.5). The readers reject a longer destination path as a limit of
    /// their format, at its entry, before `begin` (`spec/mpk.md` §3.1 step 8,
    /// `spec/mvb.md` §4.3 step 7). Unlimited unless the sink says otherwise.
    fn max_path_bytes(&self) -> usize {
        usize::MAX
    }
}

/// The rule of `spec/mpk.md` §6.5 for every format: a destination path of `len` bytes
/// must fit in [`EntrySink::max_path_bytes`]; otherwise the detail of the rejection, which
/// the format reports with its limit kind at the entry.
pub(crate) fn check_room<S: EntrySink + ?Sized>(sink: &S, len: usize) -> Result<(), String> {
    let room = sink.max_path_bytes();
    if len <= room {
        return Ok(());
    }
    Err(format!(
        "destination path of {len} bytes is longer than the {room} bytes the path limit leaves below the destination folder"
    ))
}

/// A sink that keeps nothing (`modelgate check`, `modelgate mvb verify FILE.mvb.tar`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Discard;

impl EntrySink for Discard {
    type Error = core::convert::Infallible;
    fn begin(&mut self, _: &str, _: u64) -> Result<(), Self::Error> {
        Ok(())
    }
    fn data(&mut self, _: &[u8]) -> Result<(), Self::Error> {
        Ok(())
    }
    fn end(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// Why feeding stopped: the archive broke a rule (`R`, the format's error), or the sink
/// failed (`E`).
#[derive(Debug, PartialEq, Eq)]
pub enum Failure<R, E> {
    /// The archive broke a rule.
    Rejected(R),
    /// The sink failed.
    Sink(E),
}

/// The rejection's or the sink's own message.
impl<R: core::fmt::Display, E: core::fmt::Display> core::fmt::Display for Failure<R, E> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Failure::Rejected(r) => r.fmt(f),
            Failure::Sink(e) => e.fmt(f),
        }
    }
}

impl<R: core::error::Error, E: core::error::Error> core::error::Error for Failure<R, E> {}

impl<R, E> From<R> for Failure<R, E> {
    fn from(e: R) -> Self {
        Failure::Rejected(e)
    }
}
