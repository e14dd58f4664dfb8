//! Writing a laid-out file (`modelgate_core::onemodel::Layout`, `spec/onemodel.md` §4,
//! §6.3): the bytes the writer built and the tensors in memory as they are, the tensors in
//! a file copied from it range by range (`copy_file_range` where Linux has it, through the
//! page cache and never through this process's memory), so a conversion's memory does not
//! grow with its tensors. Progress is reported every [`super::PROGRESS_CHUNK`] bytes.

use super::PROGRESS_CHUNK;
use modelgate_core::onemodel::{FileRange, Layout, Piece};
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};

/// The files tensors are copied from, by the numbers their [`FileRange`]s carry.
pub(crate) trait Sources {
    /// File `number`, open for reading.
    fn open(&mut self, number: usize) -> io::Result<&File>;
}

/// One file, number 0: the OneModel file a model was read from by its head (§5).
pub(crate) struct OneFile<'f>(pub &'f File);

impl Sources for OneFile<'_> {
    fn open(&mut self, number: usize) -> io::Result<&File> {
        match number {
            0 => Ok(self.0),
            _ => Err(io::Error::other("no such tensor file")),
        }
    }
}

/// Writes `layout`'s pieces to `out` in order, tensors in files copied from `sources`;
/// `written` is told the bytes written so far after each step of at most
/// [`PROGRESS_CHUNK`] bytes. A source shorter than a range is an I/O error.
pub(crate) fn write_layout(
    out: &mut File,
    layout: &Layout<'_>,
    sources: &mut dyn Sources,
    written: &mut dyn FnMut(u64),
) -> io::Result<()> {
    let mut done = 0u64;
    for piece in layout.pieces() {
        match piece {
            Piece::Bytes(b) => write_chunks(out, b, &mut done, written)?,
            Piece::File(r) => copy_range(out, sources.open(r.file)?, &r, &mut done, written)?,
        }
    }
    Ok(())
}

/// Writes `bytes` in chunks, counting them into `done`.
fn write_chunks(out: &mut File, bytes: &[u8], done: &mut u64, written: &mut dyn FnMut(u64)) -> io::Result<()> {
    for chunk in bytes.chunks(PROGRESS_CHUNK) {
        out.write_all(chunk)?;
        *done += chunk.len() as u64;
        written(*done);
    }
    Ok(())
}

/// Copies `r.length` bytes at `r.offset` of `from` to `out` in chunks.
fn copy_range(
    out: &mut File,
    mut from: &File,
    r: &FileRange,
    done: &mut u64,
    written: &mut dyn FnMut(u64),
) -> io::Result<()> {
    from.seek(SeekFrom::Start(r.offset))?;
    let mut left = r.length;
    while left > 0 {
        let step = left.min(PROGRESS_CHUNK as u64);
        let copied = io::copy(&mut from.take(step), out)?;
        if copied != step {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "a tensor's file is shorter than when it was checked",
            ));
        }
        left -= step;
        *done += step;
        written(*done);
    }
    Ok(())
}
