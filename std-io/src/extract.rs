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
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError, sync_channel};
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

/// §6.1: the file name rule, then the package must be a regular file (checked before it is
/// opened, [`crate::read::open_regular_file`]), then the size limit from metadata, before
/// any byte is read. Returns the file and its length.
fn open_package(package: &Path, limits: &MpkLimits) -> Result<(File, u64), ExtractError> {
    let name = package
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    check_extension(&name)?;
    // Stat'ed before it is opened: a FIFO is refused, never opened (the open would block).
    let (file, meta) = crate::read::open_regular_file(package)?;
    if meta.len() > limits.max_archive_bytes {
        let at = Location::at(limits.max_archive_bytes);
        return Err(MpkError::new(MpkKind::SizeLimitExceeded, "archive larger than max_archive_bytes", at).into());
    }
    Ok((file, meta.len()))
}

/// Decoded tar bytes handed from the inflating thread to the tar thread at a time (§6.2).
pub const HANDOFF_BUFFER: usize = 512 * 1024;

/// How many [`HANDOFF_BUFFER`]s exist (§6.2): 4 MiB of decoded bytes in flight at most,
/// about 20 ms of inflate, so that the inflating thread rides out a `write(2)` that
/// stalls while the disk is busy (128 KiB buffers cost 15 % of the wall time).
pub const HANDOFF_BUFFERS: usize = 8;

/// [`CHUNK`]s read ahead of the inflating thread (§6.2): 1 MiB, for the same reason.
pub const READ_AHEAD: usize = 16;

// The inflating thread holds back fewer decoded chunks than are read ahead, so it always
// has input while it holds them (it also hands them back before it waits for input).
const _: () = assert!(handoff::HOLD < READ_AHEAD);

/// How the inflating thread ended: the whole file decoded, or why it stopped.
type Decoded = Result<(), ExtractError>;

/// What the calling thread hands the inflating thread.
enum Input {
    /// The next chunk of the file (never empty).
    Bytes(Vec<u8>),
    /// The file ended.
    End,
    /// Reading failed: the inflating thread ends the stream with this error after the bytes
    /// decoded before it, as the one-thread reader stops reading there.
    Failed(io::Error),
}

/// Streams the package (`len` bytes) through the reader into `sink`, chunk by chunk
/// (§6.2), reporting the compressed bytes decoded to `progress`. The compressed half
/// ([`MpkInflate`]) runs on a second thread, which does nothing else: this thread reads the
/// file and hands it the chunks, and it hands the decoded tar stream back in order
/// ([`handoff`]) to the tar half ([`MpkEntries`]) and the sink, here. Every byte decoded
/// before a failure of the first half is consumed before that failure is reported, so the
/// outcome is the one-thread [`modelgate_core::mpk::MpkReader`]'s.
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
    let (to_inflate, input) = sync_channel(READ_AHEAD.saturating_add(1));
    thread::scope(|scope| {
        let inflating = thread::Builder::new()
            .name("modelgate-inflate".into())
            .spawn_scoped(scope, move || inflate(&input, &limits, producer))?;
        let mut pass = Pass {
            file,
            to_inflate,
            ended: false,
        };
        let result = pass.entries(&consumer, limits, sink, progress, len);
        // Unblocks the inflating thread if this side stopped first.
        drop((pass, consumer));
        match inflating.join() {
            Ok(()) => result,
            Err(_) => Err(io::Error::other("the inflating thread stopped").into()),
        }
    })
}

/// The inflating thread: decodes the chunks it is given into `out`, in order, giving each
/// back when done, then ends the stream with the outcome. Returns early, silently, when the
/// other side went away.
fn inflate(input: &Receiver<Input>, limits: &MpkLimits, mut out: handoff::Producer<Decoded>) {
    let mut inflate = MpkInflate::new(limits);
    let outcome = loop {
        let item = match input.try_recv() {
            Ok(item) => item,
            // Nothing to decode: hand the held chunks back first, so that more are read.
            Err(TryRecvError::Empty) => match out.release().map(|()| input.recv()) {
                Ok(Ok(item)) => item,
                Ok(Err(_)) | Err(handoff::Closed) => return,
            },
            Err(TryRecvError::Disconnected) => return,
        };
        let chunk = match item {
            Input::Bytes(chunk) => chunk,
            Input::End => break inflate.finish().map_err(ExtractError::from),
            Input::Failed(e) => break Err(e.into()),
        };
        match inflate.feed(&chunk, |decoded| out.write(decoded).map_err(Failure::Sink)) {
            Ok(()) => {}
            Err(Failure::Rejected(e)) => break Err(e.into()),
            Err(Failure::Sink(handoff::Closed)) => return,
        }
        if out.consumed(chunk).is_err() {
            return;
        }
    };
    // The other side may be gone already; then nobody needs the outcome.
    let _ = out.end(outcome);
}

/// The calling thread's side of the pass: the file, read [`READ_AHEAD`] chunks ahead of
/// the inflating thread.
struct Pass {
    file: File,
    to_inflate: SyncSender<Input>,
    /// The file's end, or a read error, was handed over.
    ended: bool,
}

impl Pass {
    /// Reads the next chunk into `buf` and hands it over, or the end of the file, or the
    /// read error; nothing after the end or an error.
    fn refill(&mut self, mut buf: Vec<u8>) {
        if self.ended {
            return;
        }
        buf.resize(CHUNK, 0);
        let item = match self.file.read(&mut buf) {
            Ok(n) if n > 0 => {
                buf.truncate(n);
                Input::Bytes(buf)
            }
            Ok(_) => Input::End,
            Err(e) => Input::Failed(e),
        };
        self.ended = !matches!(item, Input::Bytes(_));
        if self.to_inflate.send(item).is_err() {
            // The inflating thread stopped early (a rejection): its outcome is in the queue.
            self.ended = true;
        }
    }

    /// Feeds the decoded stream to the tar half and `sink`, in order, until the inflating
    /// thread's outcome; then the whole-package rules.
    fn entries<S: EntrySink>(
        &mut self,
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
        for _ in 0..READ_AHEAD {
            // Allocated by `refill` only while the file has more bytes.
            self.refill(Vec::new());
        }
        let mut done = 0u64;
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
                Some(handoff::Item::Consumed(buf)) => {
                    done = done.saturating_add(buf.len() as u64);
                    progress(done, len.max(done));
                    self.refill(buf);
                }
                Some(handoff::Item::End(outcome)) => {
                    outcome?;
                    return Ok(entries.finish()?);
                }
                None => return Err(io::Error::other("the inflating thread stopped").into()),
            }
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
    // §6.1: `dest` must not exist in any form; a symbolic link (even dangling) counts.
    ExtractError::refuse_existing(dest)?;
    let root = temp_root(dest)?;
    // §6.3: folders stay private (0700) until the root is renamed into place.
    // §6.3: each file is fsync'ed on a thread of its own while the next bytes are written.
    let mut sink = DirSink::new(&root, 0o700).synced_in_background()?;
    let package = run(file, limits, &mut sink, progress)?;
    // §6.4: every file is durable before the root is published.
    sink.finish()?;
    publish(root, dest)?;
    Ok(package)
}

/// A private directory next to the destination, removed on drop unless published (§6.3):
/// `.<dest name>.<pid>.<n>.<random>.mpk-tmp`, mode 0700, with the room both it and `dest`
/// leave (§6.5).
fn temp_root(dest: &Path) -> io::Result<TempDir> {
    TempDir::for_dest(dest, "mpk-tmp")
}

/// §6.4: renames the root to `dest`, which must still not exist: the check and the rename
/// are one call where the system has it ([`temp::rename_new`]).
fn publish(root: TempDir, dest: &Path) -> Result<(), ExtractError> {
    temp::rename_new(root.path(), dest).map_err(|e| ExtractError::at(dest, e))?;
    root.keep();
    temp::sync_parent(dest);
    Ok(())
}
