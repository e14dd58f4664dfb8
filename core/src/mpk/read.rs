//! The streaming pipeline gzip → tar → package check → sink (`spec/mpk.md` §6.2), in
//! core so that every caller (check, extraction, fuzzing) runs the same code. Accepted
//! files go to an [`EntrySink`] at their destination path (`etc/`, `lib/` or `share/` and
//! the file name, §3.2).
//!
//! The pipeline has two halves that share no state: [`MpkInflate`] (the compressed size
//! limit and gzip) turns the file's bytes into the tar stream, and [`MpkEntries`] (tar, the
//! entry rules, the sink) consumes it. [`MpkReader`] joins them on one thread; a caller
//! with threads may run the halves apart, handing the decoded chunks over in order.

use super::error::{MpkError, MpkKind};
use super::limits::MpkLimits;
use super::package::{Decision, Package, PackageCheck};
use super::registry::Registry;
use crate::Location;
use crate::gzip::{GzStep, GzipDecoder};
use crate::invariant;
use crate::tar::{Discard, EntrySink, Event, TarLimits, TarReader, check_room};

/// Why feeding stopped: the package was rejected, or the sink failed.
pub type Failure<E> = crate::tar::Failure<MpkError, E>;

/// The compressed half (§4.1, §6.2): counts the bytes of the `.tar.gz` against
/// `max_archive_bytes` as they arrive and decodes them with the bounded gzip decoder
/// (`max_expanded_bytes`, `spec/inflate.md` §5). Memory is the inflate window.
#[derive(Debug)]
pub struct MpkInflate {
    gz: GzipDecoder,
    max_archive_bytes: u64,
    fed: u64,
}

impl MpkInflate {
    /// A decoder under `limits`.
    pub fn new(limits: &MpkLimits) -> Self {
        MpkInflate {
            gz: GzipDecoder::new(limits.max_expanded_bytes),
            max_archive_bytes: limits.max_archive_bytes,
            fed: 0,
        }
    }

    /// Consumes the next piece of the compressed file, handing every decoded chunk (at
    /// most 64 KiB, in order) to `out`. Bytes past `max_archive_bytes` are
    /// `size_limit_exceeded` at the limit, once the bytes before them are decoded (§4). Output decoded before a gzip error reaches `out`
    /// before the error is returned (`spec/inflate.md` §2.8), so the tar half sees the
    /// same bytes however the file was split. An error from `out` stops decoding and is
    /// returned as it is.
    pub fn feed<E, F>(&mut self, input: &[u8], mut out: F) -> Result<(), Failure<E>>
    where
        F: FnMut(&[u8]) -> Result<(), Failure<E>>,
    {
        // §4: the compressed size limit, checked as bytes arrive. The bytes within the
        // limit are decoded first, so a failure among them wins over the limit, and the
        // outcome is the same whether the file comes whole or in pieces (§6.2).
        let allowed = self.max_archive_bytes.saturating_sub(self.fed);
        let take = usize::try_from(allowed).map_or(input.len(), |a| a.min(input.len()));
        let (within, beyond) = invariant::some_or(input.split_at_checked(take), (input, &[]));
        self.fed = self.fed.saturating_add(u64::try_from(within.len()).unwrap_or(u64::MAX));
        let mut pos = 0usize;
        loop {
            let rest = invariant::sub(within, pos..);
            let (used, step) = self.gz.step(rest).map_err(|e| MpkError::from_gzip(&e))?;
            pos += used;
            match step {
                GzStep::NeedInput => break,
                GzStep::Output(chunk) => out(chunk)?,
            }
        }
        if !beyond.is_empty() {
            let at = Location::at(self.max_archive_bytes);
            return Err(MpkError::new(MpkKind::SizeLimitExceeded, "archive larger than max_archive_bytes", at).into());
        }
        Ok(())
    }

    /// Declares the end of the file: it must end after a whole gzip member or its zero
    /// padding (`spec/inflate.md` §5.8 to §5.10).
    pub fn finish(&mut self) -> Result<(), MpkError> {
        self.gz.finish().map(|_| ()).map_err(|e| MpkError::from_gzip(&e))
    }

    /// Compressed bytes consumed so far.
    pub fn offset(&self) -> u64 {
        self.gz.offset()
    }
}

/// The decoded half (§3, §6.2): the tar stream, given in pieces of any size and in order,
/// through the tar reader (§1) and the entry rules (§3.1) into an [`EntrySink`]. Memory is
/// one tar header, one meta header and at most one JSON file.
pub struct MpkEntries {
    tar: TarReader,
    check: PackageCheck,
    extracting: bool,
}

impl MpkEntries {
    /// The tar half under `limits` and `registry`; `hash_key` keys the duplicate tables.
    pub fn new(limits: MpkLimits, registry: Registry, hash_key: [u64; 2]) -> Self {
        MpkEntries {
            tar: TarReader::new(TarLimits::DEFAULT),
            check: PackageCheck::new(limits, registry, hash_key),
            extracting: false,
        }
    }

    /// Consumes the next piece of the decoded tar stream; accepted files' bytes go to
    /// `sink` (§6.2).
    pub fn feed<S: EntrySink>(&mut self, chunk: &[u8], sink: &mut S) -> Result<(), Failure<S::Error>> {
        let mut pos = 0usize;
        loop {
            let rest = invariant::sub(chunk, pos..);
            let (used, event) = self.tar.step(rest).map_err(|e| MpkError::from_tar(&e))?;
            pos += used;
            match event {
                Event::NeedInput => return Ok(()),
                Event::Entry(e) => {
                    if let Decision::Extract { path, dest } = self.check.entry(&e)? {
                        fits_below(sink, &path, &dest, e.header_offset)?;
                        sink.begin(&dest, e.size).map_err(Failure::Sink)?;
                        self.extracting = true;
                    }
                }
                Event::Data(d) => {
                    self.check.data(d)?;
                    if self.extracting {
                        sink.data(d).map_err(Failure::Sink)?;
                    }
                }
                Event::EntryEnd => {
                    self.check.entry_end()?;
                    if self.extracting {
                        self.extracting = false;
                        sink.end().map_err(Failure::Sink)?;
                    }
                }
                Event::End => self.check.end()?,
            }
        }
    }

    /// Declares the end of the tar stream (after [`MpkInflate::finish`] passed) and runs
    /// the whole-package rules (§3.3 to §3.7).
    pub fn finish(mut self) -> Result<Package, MpkError> {
        self.tar.finish().map_err(|e| MpkError::from_tar(&e))?;
        self.check.finish()
    }
}

/// §3.1 step 8 (§6.5): the destination path `dest` of the entry at `path` must fit in what
/// the sink's folder leaves of the operating system's path limit; a longer one is
/// `size_limit_exceeded` at the entry, before anything is written for it.
fn fits_below<S: EntrySink>(sink: &S, path: &str, dest: &str, header_offset: u64) -> Result<(), MpkError> {
    check_room(sink, dest.len()).map_err(|detail| {
        MpkError::new(
            MpkKind::SizeLimitExceeded,
            detail,
            Location::at(header_offset).in_member(path),
        )
    })
}

/// Push-style MPK reader: feed the `.tar.gz` bytes in pieces of any size; accepted
/// files stream to the sink; memory is the inflate window, one tar header, one meta
/// header and at most one JSON file (§6.2). [`MpkInflate`] and [`MpkEntries`] on one
/// thread.
pub struct MpkReader {
    inflate: MpkInflate,
    entries: MpkEntries,
    failed: Option<MpkError>,
}

impl MpkReader {
    /// A reader under `limits` and `registry`; `hash_key` keys the duplicate tables.
    pub fn new(limits: MpkLimits, registry: Registry, hash_key: [u64; 2]) -> Self {
        MpkReader {
            inflate: MpkInflate::new(&limits),
            entries: MpkEntries::new(limits, registry, hash_key),
            failed: None,
        }
    }

    /// Consumes the next piece of the compressed file.
    pub fn feed<S: EntrySink>(&mut self, input: &[u8], sink: &mut S) -> Result<(), Failure<S::Error>> {
        if let Some(e) = &self.failed {
            return Err(Failure::Rejected(e.clone()));
        }
        let MpkReader { inflate, entries, .. } = self;
        let r = inflate.feed(input, |chunk| entries.feed(chunk, sink));
        match &r {
            Err(Failure::Rejected(e)) => self.failed = Some(e.clone()),
            // The stream position is lost once the sink failed: later calls refuse.
            Err(Failure::Sink(_)) => {
                self.failed = Some(MpkError::new(
                    MpkKind::InvalidArchive,
                    "reading stopped after the output failed",
                    Location::at(self.inflate.offset()),
                ));
            }
            Ok(()) => {}
        }
        r
    }

    /// Declares the end of the file and runs the whole-package rules (§3.3 to §3.7).
    pub fn finish(mut self) -> Result<Package, MpkError> {
        if let Some(e) = self.failed {
            return Err(e);
        }
        self.inflate.finish()?;
        self.entries.finish()
    }
}

/// Checks a whole `.tar.gz` held in memory (§3): no files are written.
pub fn check_tar_gz(
    bytes: &[u8],
    limits: MpkLimits,
    registry: Registry,
    hash_key: [u64; 2],
) -> Result<Package, MpkError> {
    let mut r = MpkReader::new(limits, registry, hash_key);
    match r.feed(bytes, &mut Discard) {
        Ok(()) => {}
        Err(Failure::Rejected(e)) => return Err(e),
        Err(Failure::Sink(never)) => match never {},
    }
    r.finish()
}
