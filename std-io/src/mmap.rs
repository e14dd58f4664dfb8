//! Loading a model file as bytes (`spec/onemodel.md` §5): files of 1 MiB or more are mapped
//! read-only, so every tensor the core reader returns is a view of the map and nothing is
//! copied; smaller files are read into memory. This module holds the project's only `unsafe`
//! block. `modelgate check` of a OneModel file maps it only when its header and manifest
//! reach 1 MiB; it reads no tensor byte ([`crate::onemodel::check_file`]).
//!
//! # If the file changes under the map
//!
//! A map shows the file as it is *now*, not as it was when it was checked. If another
//! process writes to a mapped file, bytes seen through [`FileBytes`] may change after the
//! reader validated them: a header, manifest or tensor that passed the checks can later read
//! differently, and in Rust terms a `&[u8]` whose contents change is undefined behaviour. If
//! the file is truncated, touching a page past the new end raises SIGBUS and the process dies.
//! Nothing in user space can prevent either (advisory locks do not bind other writers).
//! Therefore: map only files that no other process writes while they are loaded (files
//! this process owns, or read-only published artefacts); [`load_with`] lets a caller that
//! cannot promise this choose [`Mode::Read`], which copies the file into memory once.

use memmap2::Mmap;
use std::fs::File;
use std::io::{self, Read};
use std::ops::Deref;
use std::path::Path;

/// Files of at least this many bytes are mapped by [`load`] (1 MiB, §5).
pub const MAP_THRESHOLD: u64 = 1 << 20;

/// A loaded file: a read-only map or an owned buffer. Derefs to the file's bytes.
#[derive(Debug)]
pub enum FileBytes {
    /// A read-only map of the whole file.
    Mapped(Mmap),
    /// The file read into memory.
    Owned(Vec<u8>),
}

impl Deref for FileBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            FileBytes::Mapped(m) => m,
            FileBytes::Owned(v) => v,
        }
    }
}

impl FileBytes {
    /// True when the bytes are a memory map.
    pub fn is_mapped(&self) -> bool {
        matches!(self, FileBytes::Mapped(_))
    }
}

/// How [`load_with`] loads a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Map files of [`MAP_THRESHOLD`] bytes or more, read smaller ones (the default).
    Auto,
    /// Always read into memory (for files another process may change).
    Read,
}

/// Loads `path`: mapped when it is at least 1 MiB, read otherwise (§5). Files larger than
/// `limit` bytes are an error of kind `InvalidData` before anything is mapped or allocated.
/// Only a regular file is loaded: anything else (a FIFO, a device such as `/dev/zero`, whose
/// length reads 0 but which never ends) is an error of kind `InvalidInput`, refused from the
/// path's metadata before it is opened ([`crate::read::open_regular_file`]).
pub fn load(path: &Path, limit: u64) -> io::Result<FileBytes> {
    load_with(path, limit, Mode::Auto)
}

/// [`load`] with an explicit [`Mode`].
pub fn load_with(path: &Path, limit: u64, mode: Mode) -> io::Result<FileBytes> {
    let (file, meta) = crate::read::open_regular_file(path)?;
    let len = meta.len();
    if len > limit {
        return Err(io::Error::new(io::ErrorKind::InvalidData, "file larger than the limit"));
    }
    if mode == Mode::Auto && len >= MAP_THRESHOLD {
        return map(&file);
    }
    let mut out = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    // Read at most limit + 1 bytes, so a file that grew after the stat is still bounded.
    file.take(limit.saturating_add(1)).read_to_end(&mut out)?;
    if u64::try_from(out.len()).unwrap_or(u64::MAX) > limit {
        return Err(io::Error::new(io::ErrorKind::InvalidData, "file larger than the limit"));
    }
    Ok(FileBytes::Owned(out))
}

/// A read-only map of the whole of `file`, which the caller has opened as a regular file
/// ([`crate::read::open_regular_file`]), under the contract of this module's documentation:
/// the file is not modified while it is mapped.
pub fn map(file: &File) -> io::Result<FileBytes> {
    // SAFETY: `Mmap::map` is unsafe because the mapped file may be changed or truncated by
    // another process while the map lives, which would change bytes behind a `&[u8]` (or
    // raise SIGBUS). The map is read-only and private to this value; the module
    // documentation states the contract callers accept by mapping (through `Mode::Auto` or
    // by calling this): the file is not modified while it is loaded. No length from before
    // the map is trusted: every bound comes from the map's own length.
    let map = unsafe { Mmap::map(file)? };
    Ok(FileBytes::Mapped(map))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str, len: usize) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("modelgate-mmap-{}-{name}", std::process::id()));
        let bytes: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
        std::fs::write(&dir, &bytes).unwrap();
        dir
    }

    #[test]
    fn large_file_is_mapped_small_is_read() {
        let big = temp("big", (1 << 20) + 5);
        let b = load(&big, u64::MAX).unwrap();
        assert!(b.is_mapped());
        assert_eq!(b.len(), (1 << 20) + 5);
        assert_eq!(b[1000], (1000 % 251) as u8);
        let small = temp("small", 100);
        let s = load(&small, u64::MAX).unwrap();
        assert!(!s.is_mapped());
        assert_eq!(s.len(), 100);
        assert!(!load_with(&big, u64::MAX, Mode::Read).unwrap().is_mapped());
        assert_eq!(load(&big, 10).unwrap_err().kind(), io::ErrorKind::InvalidData);
        std::fs::remove_file(big).unwrap();
        std::fs::remove_file(small).unwrap();
    }
}
