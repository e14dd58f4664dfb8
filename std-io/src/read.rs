//! Bounded reading: a file's size is checked from its metadata before anything is
//! allocated, and the read itself stops one byte past the limit, so a file that grows
//! between the stat and the read is still caught (`spec/mlbundle.md` §11.1: readers bound the
//! source before buffering it).
//!
//! Every path from outside is opened through [`open_regular_file`]: the path is stat'ed
//! *before* it is opened, because opening a FIFO for reading blocks until a writer comes
//! (forever, if none does) and a device such as `/dev/zero` never ends.

use std::fs::{self, File, Metadata};
use std::io::{self, Read};
use std::path::Path;

/// Why a bounded read failed.
#[derive(Debug)]
pub enum ReadError {
    /// The file is longer than the limit; `limit` is the offset of the first excess byte.
    TooLarge {
        /// The limit that was exceeded.
        limit: u64,
    },
    /// The operating system refused.
    Io(io::Error),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::TooLarge { limit } => write!(f, "file longer than {limit} bytes"),
            ReadError::Io(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ReadError {}

impl From<io::Error> for ReadError {
    fn from(e: io::Error) -> Self {
        ReadError::Io(e)
    }
}

/// The error of a path that is not a regular file (kind `InvalidInput`).
pub(crate) fn not_regular() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, "not a regular file")
}

/// Opens `path` for reading if it is a regular file, following symbolic links, and returns
/// the file with the opened file's metadata. The path's metadata is checked before the
/// `open(2)`, so a FIFO, device or socket is refused without being opened (opening a FIFO
/// blocks until a writer appears); the opened file's metadata is checked again, so a
/// path replaced by something else between the two is refused too. Either refusal is
/// `io::ErrorKind::InvalidInput`. On Unix the open is non-blocking (`O_NONBLOCK`, which
/// reads of a regular file ignore), so a path swapped for a FIFO between the stat and the
/// open is refused by the second check instead of blocking the open.
pub fn open_regular_file(path: &Path) -> io::Result<(File, Metadata)> {
    if !fs::metadata(path)?.is_file() {
        return Err(not_regular());
    }
    let file = open_nonblocking(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(not_regular());
    }
    Ok((file, meta))
}

/// Opens `path` for reading without waiting for a FIFO's writer (Unix).
#[cfg(unix)]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let nonblock = rustix::fs::OFlags::NONBLOCK.bits();
    let flags = i32::try_from(nonblock).map_err(|_| io::Error::other("O_NONBLOCK out of range"))?;
    fs::OpenOptions::new().read(true).custom_flags(flags).open(path)
}

/// Opens `path` for reading.
#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    File::open(path)
}

/// Reads the regular file at `path` whole if it has at most `limit` bytes; anything else
/// ([`open_regular_file`]) is an I/O error of kind `InvalidInput`, without being opened.
pub fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let (file, meta) = open_regular_file(path)?;
    if meta.len() > limit {
        return Err(ReadError::TooLarge { limit });
    }
    read_stream_bounded(file, limit)
}

/// Reads `reader` from its current position to its end if that is at most `limit` bytes,
/// reading at most one byte beyond the limit to detect excess. The reader is not closed.
pub(crate) fn read_stream_bounded<R: Read>(reader: R, limit: u64) -> Result<Vec<u8>, ReadError> {
    let mut out = Vec::new();
    reader.take(limit.saturating_add(1)).read_to_end(&mut out)?;
    if out.len() as u64 > limit {
        return Err(ReadError::TooLarge { limit });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_over_limit_reads_one_excess_byte_only() {
        let data = [7u8; 100];
        let mut cursor = io::Cursor::new(&data[..]);
        assert!(matches!(
            read_stream_bounded(&mut cursor, 10),
            Err(ReadError::TooLarge { limit: 10 })
        ));
        assert_eq!(cursor.position(), 11);
        let mut cursor = io::Cursor::new(&data[..]);
        cursor.set_position(95);
        assert_eq!(read_stream_bounded(&mut cursor, 10).unwrap(), [7u8; 5]);
    }

    /// The open of [`open_regular_file`] returns at once on a FIFO (one swapped in after the
    /// stat), so that the check on the opened file refuses it; a blocking open would wait
    /// for a writer forever.
    #[cfg(unix)]
    #[test]
    fn the_open_does_not_wait_for_a_fifo_writer() {
        use std::os::unix::fs::FileTypeExt;
        let dir = std::env::temp_dir().join(format!("mg-read-fifo-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("p");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            let (tx, rx) = std::sync::mpsc::channel();
            let path = fifo.clone();
            std::thread::spawn(move || {
                let _ = tx.send(open_nonblocking(&path).and_then(|f| f.metadata()));
            });
            let opened = rx.recv_timeout(std::time::Duration::from_secs(10));
            if opened.is_err() {
                // Release the blocked open before failing.
                drop(fs::OpenOptions::new().write(true).open(&fifo));
            }
            assert!(opened.unwrap().unwrap().file_type().is_fifo());
        }
        fs::remove_dir_all(&dir).unwrap();
    }
}
