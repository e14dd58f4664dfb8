//! Loading a model file as bytes (`spec/onemodel.md` §5): in a process that has allowed
//! memory maps ([`allow_mapping`]), files of 1 MiB or more are mapped read-only, so every
//! tensor the core reader returns is a view of the map and nothing is copied; otherwise, and
//! for smaller files, they are read into memory. This module holds the project's only
//! `unsafe` code: the map, and [`allow_mapping`], the `unsafe fn` by which a program states
//! the guarantee the map needs. `modelgate check` of a OneModel file maps it only when its
//! header and manifest reach 1 MiB; it reads no tensor byte ([`crate::onemodel::check_file`]).
//!
//! # If the file changes under the map
//!
//! A map shows the file as it is *now*, not as it was when it was checked. If another
//! process writes to a mapped file, bytes seen through [`FileBytes`] may change after the
//! reader validated them: a header, manifest or tensor that passed the checks can later read
//! differently, and in Rust terms a `&[u8]` whose contents change is undefined behaviour. If
//! the file is truncated, touching a page past the new end raises SIGBUS and the process dies.
//! Nothing in user space can prevent either (advisory locks do not bind other writers), so
//! the guarantee is the program's: until it calls [`allow_mapping`], which is `unsafe` for
//! that reason, every function here reads files into memory, and a library that embeds this
//! crate never maps a file it was not told it may. The `modelgate` binary allows maps: its
//! users run it on files no process modifies while it runs (README, "Checking files").

use memmap2::Mmap;
use std::fs::File;
use std::io::{self, Read};
use std::ops::Deref;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

/// Files of at least this many bytes are mapped by [`load`] once maps are allowed (1 MiB,
/// §5).
pub(crate) const MAP_THRESHOLD: u64 = 1 << 20;

/// Set, never cleared, by [`allow_mapping`].
static ALLOWED: AtomicBool = AtomicBool::new(false);

/// Lets this process map files: from now on [`load`] under [`Mode::Auto`] and [`map`] map
/// them instead of reading them into memory.
///
/// # Safety
///
/// From the call on, every file this process loads through this module must stay
/// unmodified and untruncated, by this process and by every other, for as long as the
/// [`FileBytes`] it was loaded into lives (see the module documentation for what happens
/// otherwise). A caller that cannot promise this for some file loads it with
/// [`Mode::Read`].
pub unsafe fn allow_mapping() {
    ALLOWED.store(true, Ordering::Release);
}

/// True once [`allow_mapping`] has been called in this process.
pub(crate) fn mapping_allowed() -> bool {
    ALLOWED.load(Ordering::Acquire)
}

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
    #[cfg(test)]
    fn is_mapped(&self) -> bool {
        matches!(self, FileBytes::Mapped(_))
    }
}

/// How [`load`] loads a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Map files of 1 MiB (`MAP_THRESHOLD`) or more once maps are allowed, read the others
    /// (the default).
    Auto,
    /// Always read into memory (for files another process may change).
    Read,
}

/// Loads `path`: under [`Mode::Auto`], mapped when it is at least 1 MiB and maps are
/// allowed, read otherwise (§5).
/// Files larger than `limit` bytes are an error of kind `InvalidData` before anything is
/// mapped or allocated. Only a regular file is loaded: anything else (a FIFO, a device such
/// as `/dev/zero`, whose length reads 0 but which never ends) is an error of kind
/// `InvalidInput`, refused from the path's metadata before it is opened
/// ([`crate::read::open_regular_file`]). [`Mode::Read`] never maps.
pub fn load(path: &Path, limit: u64, mode: Mode) -> io::Result<FileBytes> {
    let (file, meta) = crate::read::open_regular_file(path)?;
    let len = meta.len();
    if len > limit {
        return Err(io::Error::new(io::ErrorKind::InvalidData, "file larger than the limit"));
    }
    if mode == Mode::Auto && len >= MAP_THRESHOLD && mapping_allowed() {
        return map(&file);
    }
    read_up_to(file, len, limit)
}

/// The whole of `file`, which the caller has opened as a regular file
/// ([`crate::read::open_regular_file`]): a read-only map once maps are allowed
/// ([`allow_mapping`]), else its bytes read into memory, as many as its length said when
/// this was called.
pub fn map(file: &File) -> io::Result<FileBytes> {
    if !mapping_allowed() {
        let len = file.metadata()?.len();
        return read_up_to(file, len, len);
    }
    // SAFETY: `Mmap::map` is unsafe because the mapped file may be changed or truncated while
    // the map lives, which would change bytes behind a `&[u8]` (or raise SIGBUS). Maps are
    // allowed, so this process's `allow_mapping` caller has guaranteed that no process
    // modifies or truncates a file loaded here while its `FileBytes` lives. The map is
    // read-only and private to the value returned; no length from before the map is
    // trusted: every bound comes from the map's own length.
    let map = unsafe { Mmap::map(file)? };
    Ok(FileBytes::Mapped(map))
}

/// `file`, whose length was `len`, read into memory: at most `limit` bytes, one more is an
/// error of kind `InvalidData` (a file that grew after its length was read stays bounded).
/// The buffer is reserved for `len` bytes with `try_reserve_exact`: a length memory cannot
/// hold is an error of kind `OutOfMemory`, never an abort.
fn read_up_to(file: impl Read, len: u64, limit: u64) -> io::Result<FileBytes> {
    let mut out = Vec::new();
    usize::try_from(len)
        .ok()
        .and_then(|len| out.try_reserve_exact(len).ok())
        .ok_or_else(|| io::Error::new(io::ErrorKind::OutOfMemory, "file larger than memory"))?;
    file.take(limit.saturating_add(1)).read_to_end(&mut out)?;
    if u64::try_from(out.len()).unwrap_or(u64::MAX) > limit {
        return Err(io::Error::new(io::ErrorKind::InvalidData, "file larger than the limit"));
    }
    Ok(FileBytes::Owned(out))
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

    /// Until maps are allowed every file is read; then files of 1 MiB or more are mapped
    /// (unless read is asked for), smaller ones read, both with the file's bytes. The only
    /// test of this binary that allows maps, so the first half runs before any does.
    #[test]
    fn large_files_are_mapped_once_maps_are_allowed_small_ones_read() {
        let big = temp("big", (1 << 20) + 5);
        let small = temp("small", 100);
        let bytes = |path: &Path| std::fs::read(path).unwrap();
        let opened = |path: &Path| crate::read::open_regular_file(path).unwrap().0;
        assert!(!mapping_allowed());
        for b in [load(&big, u64::MAX, Mode::Auto).unwrap(), map(&opened(&big)).unwrap()] {
            assert!(!b.is_mapped());
            assert_eq!(*b, *bytes(&big));
        }
        // SAFETY: the files are this test's own, and nothing writes them until it removes
        // them, after every load's bytes are dropped.
        unsafe { allow_mapping() };
        for b in [load(&big, u64::MAX, Mode::Auto).unwrap(), map(&opened(&big)).unwrap()] {
            assert!(b.is_mapped());
            assert_eq!(*b, *bytes(&big));
        }
        let s = load(&small, u64::MAX, Mode::Auto).unwrap();
        assert!(!s.is_mapped());
        assert_eq!(*s, *bytes(&small));
        assert!(!load(&big, u64::MAX, Mode::Read).unwrap().is_mapped());
        assert_eq!(
            load(&big, 10, Mode::Auto).unwrap_err().kind(),
            io::ErrorKind::InvalidData
        );
        std::fs::remove_file(big).unwrap();
        std::fs::remove_file(small).unwrap();
    }
}
