//! Safe extraction of MPK packages (`spec/mpk.md` §6): the extension rule first, then one
//! streaming pass gzip → tar → validation → content written into a private temporary
//! root made next to the destination; on success the root is renamed into place, on any
//! failure it is removed and nothing is left behind.

use crate::Progress;
use crate::dirsink::DirSink;
use crate::failure::FileError;
use crate::handoff;
use crate::temp::{self, TempDir};
use modelgate_core::Location;
use modelgate_core::mpk::{MpkEntries, MpkError, MpkInflate, MpkKind, MpkLimits, Package, Registry, check_extension};
use modelgate_core::tar::{Discard, EntrySink, Failure};
use std::fs::{self, File};
use std::io::{self, Read};
use std::path::Path;
use std::thread;

/// Bytes read from the package per step (§6.2): memory stays a few chunks.
pub const CHUNK: usize = 64 * 1024;

/// Why extraction or checking failed: the package broke a rule of `spec/mpk.md`, the
/// destination exists (any kind of file, a symbolic link included, §6.1), or the operating
/// system refused.
pub type ExtractError = FileError<MpkError>;

impl From<MpkError> for ExtractError {
    fn from(e: MpkError) -> Self {
        ExtractError::Rejected(e)
    }
}

/// §6.1: the file name rule, then the size limit from metadata, before any byte is read.
/// Returns the file and its length.
fn open_package(package: &Path, limits: &MpkLimits) -> Result<(File, u64), ExtractError> {
    let name = package
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    check_extension(&name)?;
    let file = File::open(package)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "package is not a regular file").into());
    }
    if meta.len() > limits.max_archive_bytes {
        let at = Location::at(limits.max_archive_bytes);
        return Err(MpkError::new(MpkKind::SizeLimitExceeded, "archive larger than max_archive_bytes", at).into());
    }
    Ok((file, meta.len()))
}

/// Decoded tar bytes handed from the inflating thread to the tar thread at a time (§6.2).
pub const HANDOFF_BUFFER: usize = 128 * 1024;

/// How many [`HANDOFF_BUFFER`]s exist (§6.2): 512 KiB of decoded bytes in flight at most.
pub const HANDOFF_BUFFERS: usize = 4;

/// How the inflating thread ended: the whole file decoded, or why it stopped.
type Decoded = Result<(), ExtractError>;

/// Streams the package (`len` bytes) through the reader into `sink`, chunk by chunk
/// (§6.2), reporting the compressed bytes read to `progress`. The compressed half
/// ([`MpkInflate`]) runs on a second thread and hands the decoded tar stream over in order
/// ([`handoff`]); the tar half ([`MpkEntries`]) and the sink run on this one. Every byte
/// decoded before a failure of the first half is consumed before that failure is
/// reported, so the outcome is the one-thread [`modelgate_core::mpk::MpkReader`]'s.
fn run<S: EntrySink>(
    (file, len): (File, u64),
    limits: MpkLimits,
    sink: &mut S,
    progress: Progress<'_>,
) -> Result<Package, ExtractError>
where
    ExtractError: From<S::Error>,
{
    let (producer, consumer) = handoff::channel(HANDOFF_BUFFERS, HANDOFF_BUFFER);
    thread::scope(|scope| {
        let inflating = thread::Builder::new()
            .name("modelgate-inflate".into())
            .spawn_scoped(scope, move || inflate(file, &limits, producer))?;
        let result = entries(&consumer, limits, sink, progress, len);
        // Unblocks the inflating thread if this side stopped first.
        drop(consumer);
        match inflating.join() {
            Ok(()) => result,
            Err(_) => Err(io::Error::other("the inflating thread stopped").into()),
        }
    })
}

/// The inflating thread: reads the file in [`CHUNK`]s and decodes it into `out`, then ends
/// the stream with the outcome. Returns early, silently, when the other side went away.
fn inflate(mut file: File, limits: &MpkLimits, mut out: handoff::Producer<Decoded>) {
    let mut inflate = MpkInflate::new(limits);
    let mut buf = vec![0u8; CHUNK];
    let mut done = 0u64;
    let outcome = loop {
        let n = match file.read(&mut buf) {
            Ok(0) => break inflate.finish().map_err(ExtractError::from),
            Ok(n) => n,
            Err(e) => break Err(e.into()),
        };
        done = done.saturating_add(n as u64);
        let input = buf.get(..n).unwrap_or_default();
        match inflate.feed(input, |chunk| out.write(chunk).map_err(Failure::Sink)) {
            Ok(()) => {}
            Err(Failure::Rejected(e)) => break Err(e.into()),
            Err(Failure::Sink(handoff::Closed)) => return,
        }
        if out.progress(done).is_err() {
            return;
        }
    };
    // The other side may be gone already; then nobody needs the outcome.
    let _ = out.end(outcome);
}

/// The tar thread: feeds the decoded stream to the tar half and `sink`, in order, until the
/// inflating thread's outcome; then the whole-package rules.
fn entries<S: EntrySink>(
    from: &handoff::Consumer<Decoded>,
    limits: MpkLimits,
    sink: &mut S,
    progress: Progress<'_>,
    len: u64,
) -> Result<Package, ExtractError>
where
    ExtractError: From<S::Error>,
{
    let mut entries = MpkEntries::new(limits, Registry::DEFAULT, crate::hash_key());
    loop {
        match from.next() {
            Some(handoff::Item::Data(chunk)) => {
                match entries.feed(&chunk, sink) {
                    Ok(()) => {}
                    Err(Failure::Rejected(e)) => return Err(e.into()),
                    Err(Failure::Sink(e)) => return Err(e.into()),
                }
                from.recycle(chunk);
            }
            Some(handoff::Item::Progress(done)) => progress(done, len.max(done)),
            Some(handoff::Item::End(outcome)) => {
                outcome?;
                return Ok(entries.finish()?);
            }
            None => return Err(io::Error::other("the inflating thread stopped").into()),
        }
    }
}

/// Validates the package without writing anything (`modelgate check`, §7), reporting the
/// bytes read to `progress`.
pub fn check_package(package: &Path, limits: MpkLimits, progress: Progress<'_>) -> Result<Package, ExtractError> {
    run(open_package(package, &limits)?, limits, &mut Discard, progress)
}

/// Extracts `package` to `dest`, which must not exist (§6): the content goes into a
/// private temporary root next to `dest`, which is renamed to `dest` only after the whole
/// package passed; on any failure the root is removed. Returns what the package holds.
/// The compressed bytes read are reported to `progress`.
pub fn extract(
    package: &Path,
    dest: &Path,
    limits: MpkLimits,
    progress: Progress<'_>,
) -> Result<Package, ExtractError> {
    let file = open_package(package, &limits)?;
    refuse_existing(dest)?;
    let root = temp_root(dest)?;
    // §6.3: folders stay private (0700) until the root is renamed into place.
    // §6.3: each file is fsync'ed on a thread of its own while the next bytes are written.
    let mut sink = DirSink::new(root.path(), 0o700).synced_in_background()?;
    let package = run(file, limits, &mut sink, progress)?;
    // §6.4: every file is durable before the root is published.
    sink.finish()?;
    publish(root, dest)?;
    Ok(package)
}

/// §6.1: `dest` must not exist in any form; a symbolic link (even dangling) counts.
fn refuse_existing(dest: &Path) -> Result<(), ExtractError> {
    match fs::symlink_metadata(dest) {
        Ok(_) => Err(ExtractError::Exists(dest.to_path_buf())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// A private directory next to the destination, removed on drop unless published (§6.3):
/// `.<dest name>.<pid>.<n>.<random>.mpk-tmp`, mode 0700.
fn temp_root(dest: &Path) -> io::Result<TempDir> {
    let (dir, base) = temp::beside(dest)?;
    TempDir::create(&dir, &base, "mpk-tmp")
}

/// §6.4: renames the root to `dest` (which was checked not to exist).
fn publish(root: TempDir, dest: &Path) -> Result<(), ExtractError> {
    refuse_existing(dest)?;
    fs::rename(root.path(), dest)?;
    root.keep();
    temp::sync_parent(dest);
    Ok(())
}
