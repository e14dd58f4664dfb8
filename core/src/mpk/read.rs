//! The streaming pipeline gzip → tar → package check → sink (`spec/mpk.md` §6.2), in
//! core so that every caller (check, extraction, fuzzing) runs the same code. Accepted
//! files go to an [`EntrySink`] at their destination path (`etc/`, `lib/` or `share/` and
//! the name, §3.2).

use super::error::{MpkError, MpkKind};
use super::limits::MpkLimits;
use super::package::{Decision, Package, PackageCheck};
use super::registry::Registry;
use crate::Location;
use crate::gzip::{GzStep, GzipDecoder};
use crate::tar::{Discard, EntrySink, Event, TarLimits, TarReader};

/// Why feeding stopped: the package was rejected, or the sink failed.
pub type Failure<E> = crate::tar::Failure<MpkError, E>;

/// Push-style MPK reader: feed the `.tar.gz` bytes in pieces of any size; accepted
/// files stream to the sink; memory is the inflate window, one tar header, one meta
/// header and at most one JSON file (§6.2).
pub struct MpkReader {
    gz: GzipDecoder,
    tar: TarReader,
    check: PackageCheck,
    limits: MpkLimits,
    fed: u64,
    extracting: bool,
    failed: Option<MpkError>,
}

impl MpkReader {
    /// A reader under `limits` and `registry`; `hash_key` keys the duplicate tables.
    pub fn new(limits: MpkLimits, registry: Registry, hash_key: [u64; 2]) -> Self {
        MpkReader {
            gz: GzipDecoder::new(limits.max_expanded_bytes),
            tar: TarReader::new(TarLimits::DEFAULT),
            check: PackageCheck::new(limits, registry, hash_key),
            limits,
            fed: 0,
            extracting: false,
            failed: None,
        }
    }

    /// Consumes the next piece of the compressed file.
    pub fn feed<S: EntrySink>(&mut self, input: &[u8], sink: &mut S) -> Result<(), Failure<S::Error>> {
        if let Some(e) = &self.failed {
            return Err(Failure::Rejected(e.clone()));
        }
        let r = self.feed_inner(input, sink);
        match &r {
            Err(Failure::Rejected(e)) => self.failed = Some(e.clone()),
            // The stream position is lost once the sink failed: later calls refuse.
            Err(Failure::Sink(_)) => {
                self.failed = Some(MpkError::new(
                    MpkKind::InvalidArchive,
                    "reading stopped after the output failed",
                    Location::at(self.gz.offset()),
                ));
            }
            Ok(()) => {}
        }
        r
    }

    fn feed_inner<S: EntrySink>(&mut self, input: &[u8], sink: &mut S) -> Result<(), Failure<S::Error>> {
        self.fed = self.fed.saturating_add(u64::try_from(input.len()).unwrap_or(u64::MAX));
        if self.fed > self.limits.max_archive_bytes {
            // §4.1: the compressed size limit, checked as bytes arrive.
            let at = Location::at(self.limits.max_archive_bytes);
            return Err(MpkError::new(MpkKind::SizeLimitExceeded, "archive larger than max_archive_bytes", at).into());
        }
        let MpkReader {
            gz,
            tar,
            check,
            extracting,
            ..
        } = self;
        let mut pos = 0usize;
        loop {
            let rest = input.get(pos..).unwrap_or_default();
            let (used, step) = gz.step(rest).map_err(|e| MpkError::from_gzip(&e))?;
            pos += used;
            match step {
                GzStep::NeedInput => return Ok(()),
                GzStep::Output(chunk) => tar_chunk(tar, check, extracting, chunk, sink)?,
            }
        }
    }

    /// Declares the end of the file and runs the whole-package rules (§3.3 to §3.7).
    pub fn finish(mut self) -> Result<Package, MpkError> {
        if let Some(e) = self.failed {
            return Err(e);
        }
        self.gz.finish().map_err(|e| MpkError::from_gzip(&e))?;
        self.tar.finish().map_err(|e| MpkError::from_tar(&e))?;
        self.check.finish()
    }
}

fn tar_chunk<S: EntrySink>(
    tar: &mut TarReader,
    check: &mut PackageCheck,
    extracting: &mut bool,
    chunk: &[u8],
    sink: &mut S,
) -> Result<(), Failure<S::Error>> {
    let mut pos = 0usize;
    loop {
        let rest = chunk.get(pos..).unwrap_or_default();
        let (used, event) = tar.step(rest).map_err(|e| MpkError::from_tar(&e))?;
        pos += used;
        match event {
            Event::NeedInput => return Ok(()),
            Event::Entry(e) => {
                if let Decision::Extract { dest, .. } = check.entry(&e)? {
                    sink.begin(&dest, e.size).map_err(Failure::Sink)?;
                    *extracting = true;
                }
            }
            Event::Data(d) => {
                check.data(d)?;
                if *extracting {
                    sink.data(d).map_err(Failure::Sink)?;
                }
            }
            Event::EntryEnd => {
                check.entry_end()?;
                if *extracting {
                    *extracting = false;
                    sink.end().map_err(Failure::Sink)?;
                }
            }
            Event::End => {}
        }
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
