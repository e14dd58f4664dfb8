//! Flushing written files to disk on a thread of their own (`spec/mpk.md` §6.3), so that
//! the writer never waits for the disk: while a large file is written its data is flushed
//! every [`FLUSH_STEP`] bytes (the disk works while the archive is still being decoded),
//! and each completed file is fsync'ed and closed there. [`Syncer::finish`] waits for all
//! of it and reports the first failure; only then may the caller publish.

use std::fs::File;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{self, JoinHandle};

/// Bytes written to one file between two flushes of its data while it is written.
pub const FLUSH_STEP: u64 = 16 << 20;

/// Completed files waiting for their fsync at most; the writer waits when more are.
const QUEUE: usize = 16;

enum Job {
    /// Flush the data written so far (the file is still being written).
    Flush(Arc<File>),
    /// The file is complete: fsync it (data and metadata) and close it.
    Close(Arc<File>),
}

/// State the writer and the flushing thread share.
#[derive(Default)]
struct Shared {
    /// The first failure, until the writer takes it.
    error: Mutex<Option<io::Error>>,
    /// Set when the result is no longer wanted: remaining jobs are dropped undone.
    cancelled: AtomicBool,
}

impl Shared {
    fn take_error(&self) -> Option<io::Error> {
        self.error.lock().unwrap_or_else(PoisonError::into_inner).take()
    }
}

/// The writer's handle on the flushing thread. Dropped without [`Syncer::finish`], it
/// drops the jobs not yet done (the files are about to be removed) and waits for the
/// thread.
pub struct Syncer {
    jobs: Option<SyncSender<Job>>,
    thread: Option<JoinHandle<()>>,
    shared: Arc<Shared>,
}

impl Syncer {
    /// Starts the flushing thread.
    pub fn start() -> io::Result<Syncer> {
        let (tx, rx) = sync_channel(QUEUE);
        let shared = Arc::new(Shared::default());
        let theirs = Arc::clone(&shared);
        let thread = thread::Builder::new()
            .name("modelgate-fsync".into())
            .spawn(move || work(&rx, &theirs))?;
        Ok(Syncer {
            jobs: Some(tx),
            thread: Some(thread),
            shared,
        })
    }

    /// Asks for the data of `file`, still being written, to be flushed, unless the thread
    /// is busy: then the request is dropped (the next one covers the same bytes). Returns
    /// whether it was queued.
    pub fn flush(&self, file: &Arc<File>) -> bool {
        match &self.jobs {
            Some(tx) => match tx.try_send(Job::Flush(Arc::clone(file))) {
                Ok(()) => true,
                Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => false,
            },
            None => false,
        }
    }

    /// Hands over the complete `file` to be fsync'ed and closed, waiting while the queue
    /// is full. Reports a failure of an earlier job, if one happened since the last call.
    pub fn close(&self, file: Arc<File>) -> io::Result<()> {
        if let Some(e) = self.shared.take_error() {
            return Err(e);
        }
        match &self.jobs {
            Some(tx) => tx.send(Job::Close(file)).map_err(|_| stopped()),
            None => Err(stopped()),
        }
    }

    /// Waits until every file handed over is fsync'ed and closed; the first failure, if any.
    pub fn finish(mut self) -> io::Result<()> {
        self.join()?;
        match self.shared.take_error() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn join(&mut self) -> io::Result<()> {
        drop(self.jobs.take());
        match self.thread.take().map(JoinHandle::join) {
            Some(Err(_)) => Err(stopped()),
            _ => Ok(()),
        }
    }
}

impl Drop for Syncer {
    fn drop(&mut self) {
        if self.thread.is_some() {
            self.shared.cancelled.store(true, Ordering::Relaxed);
            let _ = self.join();
        }
    }
}

fn stopped() -> io::Error {
    io::Error::other("the fsync thread stopped")
}

/// The flushing thread: runs the jobs in order; after the first failure (kept for the
/// writer) or a cancellation it only drops the files.
fn work(jobs: &Receiver<Job>, shared: &Shared) {
    let mut failed = false;
    for job in jobs {
        if failed || shared.cancelled.load(Ordering::Relaxed) {
            continue;
        }
        let result = match &job {
            Job::Flush(file) => file.sync_data(),
            Job::Close(file) => file.sync_all(),
        };
        if let Err(e) = result {
            failed = true;
            *shared.error.lock().unwrap_or_else(PoisonError::into_inner) = Some(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn files_handed_over_are_synced_and_closed_by_finish() {
        let dir = std::env::temp_dir().join(format!("mg-syncer-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a");
        let file = Arc::new(File::create(&path).unwrap());
        let syncer = Syncer::start().unwrap();
        (&*file).write_all(b"abc").unwrap();
        syncer.flush(&file);
        (&*file).write_all(b"def").unwrap();
        syncer.close(file).unwrap();
        syncer.finish().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"abcdef");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_failed_sync_is_reported_by_finish() {
        // Linux refuses fsync on a character device (EINVAL): a real failure.
        let null = || Arc::new(File::open("/dev/null").unwrap());
        let syncer = Syncer::start().unwrap();
        syncer.close(null()).unwrap();
        let e = syncer.finish().unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_failure_reaches_the_next_close() {
        let syncer = Syncer::start().unwrap();
        syncer.close(Arc::new(File::open("/dev/null").unwrap())).unwrap();
        let file = Arc::new(File::open("/dev/null").unwrap());
        // The first failure is reported once, by whichever call comes after it.
        let mut reported = false;
        for _ in 0..1000 {
            if syncer.close(Arc::clone(&file)).is_err() {
                reported = true;
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert!(reported);
        syncer.finish().unwrap();
    }
}
