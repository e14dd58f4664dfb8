//! Files and folders beneath a folder, reached without following a symbolic link at any
//! step (`spec/mvb.md` §5.1, §7.1; README "Adversarial review", races).
//!
//! A [`Beneath`] holds its folder open. Every file or folder below it is reached from that
//! handle one name at a time, each name opened with `O_NOFOLLOW` relative to the folder
//! opened before it (`openat`). A name that is, or has been swapped for, a symbolic link
//! fails to open (`ELOOP`, `ENOTDIR`) instead of leading outside the folder, and a folder
//! renamed or replaced above the root after it was opened changes nothing. Files are opened
//! with `O_NONBLOCK`, so a FIFO swapped in is refused by its type rather than waited on,
//! and their type is read from the handle opened (`fstat`), not from the name.
//!
//! On Unix the calls are rustix's safe wrappers (no `unsafe` here). Elsewhere the same API
//! reads by path: the walk still refuses links it sees, but does not close the race.

use std::ffi::OsString;
use std::io;

/// What a name below the folder is, read without following it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A regular file.
    File,
    /// A folder.
    Folder,
    /// A symbolic link.
    Link,
    /// A device, FIFO or socket.
    Special,
}

/// One name in a listed folder, with its kind and (for a file) size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The name, as the file system holds it.
    pub name: OsString,
    /// Its kind, not following a link.
    pub kind: Kind,
    /// Its size in bytes (meaningful for a regular file).
    pub size: u64,
}

/// The error of a name below the folder that is a link or no folder where a folder was
/// wanted (kind `InvalidInput`, as [`crate::read`]'s refusal of what is not a regular file).
fn not_a_folder() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, "not a folder")
}

/// Checks that `rel` is a relative path of `/`-separated names, none empty, `.` or `..`.
fn plain(rel: &str) -> io::Result<()> {
    let bad = |n: &str| n.is_empty() || n == "." || n == "..";
    if rel.split('/').any(bad) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a relative path of plain names",
        ));
    }
    Ok(())
}

#[cfg(unix)]
mod imp {
    use super::{Entry, Kind, not_a_folder, plain};
    use crate::read::not_regular;
    use rustix::fs::{AtFlags, Dir, FileType, Mode, OFlags, fstat, openat, statat};
    use std::ffi::OsStr;
    use std::fs::File;
    use std::io;
    use std::os::fd::OwnedFd;
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;

    /// A folder held open.
    #[derive(Debug)]
    pub struct Beneath {
        root: OwnedFd,
    }

    const FOLDER: OFlags = OFlags::RDONLY
        .union(OFlags::DIRECTORY)
        .union(OFlags::NOFOLLOW)
        .union(OFlags::CLOEXEC);
    const FILE: OFlags = OFlags::RDONLY
        .union(OFlags::NOFOLLOW)
        .union(OFlags::NONBLOCK)
        .union(OFlags::CLOEXEC);

    fn kind(file_type: FileType) -> Kind {
        match file_type {
            FileType::RegularFile => Kind::File,
            FileType::Directory => Kind::Folder,
            FileType::Symlink => Kind::Link,
            _ => Kind::Special,
        }
    }

    /// `rustix` errors are `std` errors with the same `errno`.
    fn io_error(e: rustix::io::Errno) -> io::Error {
        io::Error::from(e)
    }

    impl Beneath {
        /// Opens the folder `dir` (which the caller named, so a link there is followed).
        pub fn open(dir: &Path) -> io::Result<Beneath> {
            let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
            let root = openat(rustix::fs::CWD, dir, flags, Mode::empty()).map_err(io_error)?;
            Ok(Beneath { root })
        }

        /// The folder `rel` below the root, freshly opened (`""` is the root itself),
        /// every name opened as a folder without following a link.
        fn folder(&self, rel: &str) -> io::Result<OwnedFd> {
            let open = |at: &OwnedFd, name: &str| {
                openat(at, name, FOLDER, Mode::empty()).map_err(|e| match e {
                    // A link refused by `O_NOFOLLOW` (`ELOOP`; `EMLINK` on FreeBSD), or no folder.
                    rustix::io::Errno::LOOP | rustix::io::Errno::MLINK | rustix::io::Errno::NOTDIR => not_a_folder(),
                    e => io_error(e),
                })
            };
            if rel.is_empty() {
                return open(&self.root, ".");
            }
            plain(rel)?;
            let mut names = rel.split('/');
            let first = names.next().unwrap_or(".");
            let mut fd = open(&self.root, first)?;
            for name in names {
                fd = open(&fd, name)?;
            }
            Ok(fd)
        }

        /// The names in the folder `rel` (`""` is the root), `.` and `..` left out, each
        /// with its kind and size read from the folder's handle without following it.
        pub fn list(&self, rel: &str) -> io::Result<Vec<Entry>> {
            let fd = self.folder(rel)?;
            let mut out = Vec::new();
            for entry in Dir::read_from(&fd).map_err(io_error)? {
                let entry = entry.map_err(io_error)?;
                let name = entry.file_name();
                if matches!(name.to_bytes(), b"." | b"..") {
                    continue;
                }
                let stat = statat(&fd, name, AtFlags::SYMLINK_NOFOLLOW).map_err(io_error)?;
                out.push(Entry {
                    name: OsStr::from_bytes(name.to_bytes()).to_os_string(),
                    kind: kind(FileType::from_raw_mode(stat.st_mode)),
                    size: u64::try_from(stat.st_size).unwrap_or(0),
                });
            }
            Ok(out)
        }

        /// Opens the regular file `rel` for reading: its folders and itself without
        /// following a link, refused unless the handle opened is a regular file.
        pub fn open_file(&self, rel: &str) -> io::Result<File> {
            plain(rel)?;
            let (parent, name) = rel.rsplit_once('/').unwrap_or(("", rel));
            let folder = self.folder(parent)?;
            let fd = openat(&folder, name, FILE, Mode::empty()).map_err(|e| match e {
                rustix::io::Errno::LOOP | rustix::io::Errno::MLINK => not_regular(),
                e => io_error(e),
            })?;
            let stat = fstat(&fd).map_err(io_error)?;
            if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile {
                return Err(not_regular());
            }
            Ok(File::from(fd))
        }
    }
}

#[cfg(not(unix))]
mod imp {
    use super::{Entry, Kind, not_a_folder, plain};
    use crate::read::not_regular;
    use std::fs::{self, File};
    use std::io;
    use std::path::{Path, PathBuf};

    /// A folder, by path (no `openat` here: the race stays open).
    #[derive(Debug)]
    pub struct Beneath {
        root: PathBuf,
    }

    impl Beneath {
        /// Remembers the folder `dir`, which must be a folder.
        pub fn open(dir: &Path) -> io::Result<Beneath> {
            if !fs::metadata(dir)?.is_dir() {
                return Err(not_a_folder());
            }
            Ok(Beneath {
                root: dir.to_path_buf(),
            })
        }

        fn path(&self, rel: &str) -> io::Result<PathBuf> {
            let mut path = self.root.clone();
            if !rel.is_empty() {
                plain(rel)?;
                for name in rel.split('/') {
                    path.push(name);
                }
            }
            Ok(path)
        }

        /// The names in the folder `rel`, with their kinds, not following links.
        pub fn list(&self, rel: &str) -> io::Result<Vec<Entry>> {
            let mut out = Vec::new();
            for entry in fs::read_dir(self.path(rel)?)? {
                let entry = entry?;
                let meta = fs::symlink_metadata(entry.path())?;
                let ft = meta.file_type();
                let kind = if ft.is_symlink() {
                    Kind::Link
                } else if ft.is_dir() {
                    Kind::Folder
                } else if ft.is_file() {
                    Kind::File
                } else {
                    Kind::Special
                };
                out.push(Entry {
                    name: entry.file_name(),
                    kind,
                    size: meta.len(),
                });
            }
            Ok(out)
        }

        /// Opens the regular file `rel`: refused if its name is a link or not a file.
        pub fn open_file(&self, rel: &str) -> io::Result<File> {
            let path = self.path(rel)?;
            if !fs::symlink_metadata(&path)?.is_file() {
                return Err(not_regular());
            }
            let file = File::open(&path)?;
            if !file.metadata()?.is_file() {
                return Err(not_regular());
            }
            Ok(file)
        }
    }
}

pub use imp::Beneath;

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::io::Read;

    fn folder(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("modelgate-beneath-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("a/b")).unwrap();
        fs::write(dir.join("a/b/w.bin"), b"weights").unwrap();
        fs::write(dir.join("top.txt"), b"top").unwrap();
        dir
    }

    #[test]
    fn lists_and_opens_files_below_the_folder() {
        let dir = folder("plain");
        let b = Beneath::open(&dir).unwrap();
        let mut root = b.list("").unwrap();
        root.sort_by(|x, y| x.name.cmp(&y.name));
        let kinds: Vec<_> = root.iter().map(|e| (e.name.to_str().unwrap(), e.kind)).collect();
        assert_eq!(kinds, [("a", Kind::Folder), ("top.txt", Kind::File)]);
        let inner = b.list("a/b").unwrap();
        assert_eq!(inner.len(), 1);
        assert_eq!((inner[0].kind, inner[0].size), (Kind::File, 7));
        let mut s = String::new();
        b.open_file("a/b/w.bin").unwrap().read_to_string(&mut s).unwrap();
        assert_eq!(s, "weights");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn names_that_are_not_plain_are_refused() {
        let dir = folder("names");
        let b = Beneath::open(&dir).unwrap();
        for rel in [
            "../top.txt",
            "a/../top.txt",
            "./top.txt",
            "a//b/w.bin",
            "/top.txt",
            "a/b/",
        ] {
            let e = b.open_file(rel).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{rel}");
        }
        fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_link_at_any_step_is_refused_not_followed() {
        let dir = folder("links");
        let outside = folder("links-outside");
        std::os::unix::fs::symlink(outside.join("a"), dir.join("la")).unwrap();
        std::os::unix::fs::symlink(outside.join("top.txt"), dir.join("lt")).unwrap();
        let b = Beneath::open(&dir).unwrap();
        let kinds: Vec<_> = b
            .list("")
            .unwrap()
            .into_iter()
            .filter(|e| e.kind == Kind::Link)
            .collect();
        assert_eq!(kinds.len(), 2);
        for rel in ["la/b/w.bin", "lt"] {
            let e = b.open_file(rel).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{rel}: {e}");
        }
        assert!(b.list("la").is_err());
        fs::remove_dir_all(&dir).unwrap();
        fs::remove_dir_all(&outside).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_folder_swapped_for_a_link_after_opening_the_root_is_refused() {
        // README "Adversarial review", races: the bundle's folder `a` becomes a link to a folder
        // outside between the walk and the read. By path, `a/b/w.bin` would now be read
        // from outside; beneath the root, the link is not followed.
        let dir = folder("swap");
        let outside = folder("swap-outside");
        fs::write(outside.join("a/b/w.bin"), b"secret!").unwrap();
        let b = Beneath::open(&dir).unwrap();
        assert_eq!(b.list("a/b").unwrap().len(), 1);
        fs::rename(dir.join("a"), dir.join("a-moved")).unwrap();
        std::os::unix::fs::symlink(outside.join("a"), dir.join("a")).unwrap();
        assert_eq!(fs::read(dir.join("a/b/w.bin")).unwrap(), b"secret!");
        let e = b.open_file("a/b/w.bin").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{e}");
        assert!(b.list("a/b").is_err());
        fs::remove_dir_all(&dir).unwrap();
        fs::remove_dir_all(&outside).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_without_waiting_for_a_writer() {
        let dir = folder("fifo");
        let status = std::process::Command::new("mkfifo").arg(dir.join("p")).status();
        if !status.is_ok_and(|s| s.success()) {
            return;
        }
        let b = Beneath::open(&dir).unwrap();
        let listed = b.list("").unwrap();
        assert!(listed.iter().any(|e| e.name == "p" && e.kind == Kind::Special));
        let e = b.open_file("p").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{e}");
        fs::remove_dir_all(&dir).unwrap();
    }
}
