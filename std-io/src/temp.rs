//! Temporary files and folders beside a destination, created exclusively under names no
//! other writer can predict: the one mechanism behind atomic publication (`publish`),
//! MPK extraction roots (`extract`) and mvb import staging (`mvb`).

use crate::path_limit::room_below;
use std::fs::{self, DirBuilder};
use std::hash::{BuildHasher, RandomState};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The folder `dest` lives in (`.` for a bare name) and its file name.
pub fn beside(dest: &Path) -> io::Result<(PathBuf, String)> {
    let dir = match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = dest
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "destination has no file name"))?
        .to_string_lossy()
        .into_owned();
    Ok((dir, name))
}

/// The most bytes [`create_unique`] adds to `stem` and `tag` in a name: the dots, the
/// process id (a `u32`, at most 10 digits), the counter (a `u64`, at most 20) and the 16
/// hex digits of the random part. The name of a folder that is still to be made is not
/// known when its room is reckoned ([`TempDir::room`]), its longest form is.
pub(crate) const NAME_EXTRA_MAX: usize = 5 + 10 + 20 + 16;

/// The most bytes of the stem a temporary name keeps: with [`NAME_EXTRA_MAX`] and a tag of
/// up to 76 bytes the name stays within the 255 bytes a name may have (`NAME_MAX` on
/// Linux file systems), so a destination whose own name is valid always gets one
/// (`spec/mpk.md` §6.3).
pub(crate) const STEM_MAX: usize = 128;

/// `stem` cut to at most [`STEM_MAX`] bytes, at a character boundary: the stem part of
/// [`create_unique`]'s names.
pub(crate) fn name_stem(stem: &str) -> &str {
    let mut end = stem.len().min(STEM_MAX);
    while !stem.is_char_boundary(end) {
        end -= 1;
    }
    stem.get(..end).unwrap_or_default()
}

/// Calls `create` on fresh names `.<stem>.<pid>.<n>.<random>.<tag>` in `dir` (the stem cut
/// by [`name_stem`]) until one does not already exist (at most 16 tries); `create` must
/// fail with `AlreadyExists` rather than reuse an existing entry (`create_new`,
/// `DirBuilder::create`).
pub(crate) fn create_unique<T>(
    dir: &Path,
    stem: &str,
    tag: &str,
    mut create: impl FnMut(&Path) -> io::Result<T>,
) -> io::Result<(PathBuf, T)> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let stem = name_stem(stem);
    let random = RandomState::new().hash_one(std::process::id());
    for _ in 0..16 {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!(".{stem}.{}.{n}.{random:016x}.{tag}", std::process::id()));
        match create(&path) {
            Ok(made) => return Ok((path, made)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::new(io::ErrorKind::AlreadyExists, "no free temporary name"))
}

/// A builder for folders only their owner can enter (mode 0700 on Unix).
pub(crate) fn private_dir() -> DirBuilder {
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        let mut b = DirBuilder::new();
        b.mode(0o700);
        b
    }
    #[cfg(not(unix))]
    DirBuilder::new()
}

/// A private folder removed with everything in it when dropped, unless [`TempDir::keep`]
/// was called (after it was renamed into place).
#[derive(Debug)]
pub struct TempDir {
    path: PathBuf,
    room: usize,
    kept: bool,
}

impl TempDir {
    /// Creates a fresh private folder in `dir` named after `stem` and `tag`. Its path is
    /// absolute, below `dir`'s real path (links resolved), so that the paths written below
    /// it are the ones its room was reckoned for (`spec/mpk.md` §6.5). For a folder that is
    /// renamed within `dir` later, `TempDir::for_dest`.
    pub fn create(dir: &Path, stem: &str, tag: &str) -> io::Result<TempDir> {
        Self::made(dir, stem, tag, 0)
    }

    /// The private root that is renamed to `dest` once complete (MPK extraction,
    /// `spec/mpk.md` §6.3, §6.4): made beside `dest`, named after `dest`'s name and `tag`.
    /// Its room also keeps every path below it within the limit once published as
    /// `<dest>/<path>`: `dest`'s own name may be longer than the root's, whose copy of it
    /// is cut to [`STEM_MAX`] bytes (§6.5).
    pub(crate) fn for_dest(dest: &Path, tag: &str) -> io::Result<TempDir> {
        let (dir, stem) = beside(dest)?;
        let published = dest.file_name().map_or(0, |name| name.len());
        Self::made(&dir, &stem, tag, published)
    }

    /// Makes the folder; its room is what the limit leaves below the longer of its own
    /// longest name and a name of `published` bytes in the same folder.
    fn made(dir: &Path, stem: &str, tag: &str, published: usize) -> io::Result<TempDir> {
        let real = fs::canonicalize(dir)?;
        let own = name_stem(stem)
            .len()
            .saturating_add(tag.len())
            .saturating_add(NAME_EXTRA_MAX);
        let longest = real
            .as_os_str()
            .len()
            .saturating_add(1)
            .saturating_add(own.max(published));
        let (path, ()) = create_unique(&real, stem, tag, |p| private_dir().create(p))?;
        Ok(TempDir {
            path,
            room: room_below(longest),
            kept: false,
        })
    }

    /// The folder's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The longest relative path, in bytes, that fits below this folder (`spec/mpk.md`
    /// §6.5): what [`crate::path_limit::PATH_MAX`] leaves below the longest name the folder
    /// could have been given (or, for `TempDir::for_dest`, the destination's name when
    /// that is longer), so that the room depends on `dir`, `stem`, `tag` (and the
    /// destination) only, never on the process id or the random part.
    pub fn room(&self) -> usize {
        self.room
    }

    /// Leaves the folder (or what it was renamed to) in place when dropped.
    pub fn keep(mut self) {
        self.kept = true;
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if !self.kept {
            let _ = fs::remove_dir_all(&self.path);
        }
    }
}

/// Renames `from` to `to` only if nothing exists at `to` in any form (a file, a folder,
/// empty or not, or a symbolic link, even dangling); otherwise `io::ErrorKind::AlreadyExists`
/// and both are left as they were. On Linux and Apple systems the check and the rename are
/// one call (`renameat2` with `RENAME_NOREPLACE`, `renameatx_np` with `RENAME_EXCL`), so a
/// folder another process creates at `to` at the last moment is never replaced, as a plain
/// `rename(2)` replaces an empty one (README "Adversarial review", races). Where the kernel
/// or the file system lacks that call, see [`rename_claimed`].
pub(crate) fn rename_new(from: &Path, to: &Path) -> io::Result<()> {
    #[cfg(any(target_os = "linux", target_os = "android", target_vendor = "apple"))]
    {
        use rustix::fs::{CWD, RenameFlags, renameat_with};
        use rustix::io::Errno;
        match renameat_with(CWD, from, CWD, to, RenameFlags::NOREPLACE) {
            Ok(()) => return Ok(()),
            Err(e) if [Errno::INVAL, Errno::NOSYS, Errno::NOTSUP, Errno::OPNOTSUPP].contains(&e) => {}
            Err(e) => return Err(e.into()),
        }
    }
    rename_claimed(from, to)
}

/// [`rename_new`] without a no-replace rename. On Unix a folder `from` first claims `to`
/// with a private empty folder of its own (`mkdir`, which fails if anything is there), then
/// is renamed over that placeholder, which `rename(2)` replaces: a folder or link created
/// at `to` meanwhile makes the `mkdir` fail instead of being replaced, and only a process
/// that removed the placeholder and put an empty folder of its own in its place in the
/// moment before the rename could lose it. Anything else (a file, or any `from` on other
/// systems, whose rename never replaces a folder) is checked, then renamed.
pub(crate) fn rename_claimed(from: &Path, to: &Path) -> io::Result<()> {
    #[cfg(unix)]
    if fs::symlink_metadata(from)?.is_dir() {
        private_dir().create(to)?;
        return fs::rename(from, to).inspect_err(|_| {
            let _ = fs::remove_dir(to);
        });
    }
    refuse_taken(to)?;
    fs::rename(from, to)
}

/// `io::ErrorKind::AlreadyExists` when anything exists at `path`, a symbolic link (even
/// dangling) included; `Ok` when nothing does.
pub(crate) fn refuse_taken(path: &Path) -> io::Result<()> {
    match fs::symlink_metadata(path) {
        Ok(_) => Err(io::Error::new(io::ErrorKind::AlreadyExists, "destination exists")),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Makes a rename or creation in `dest`'s folder durable where the platform allows it
/// (best effort: callers have already succeeded, so a failure here is not reported).
pub(crate) fn sync_parent(dest: &Path) {
    #[cfg(unix)]
    if let Ok((dir, _)) = beside(dest)
        && let Ok(handle) = fs::File::open(dir)
    {
        let _ = handle.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dest;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// README "Adversarial review", races: a folder created at the destination after the
    /// last check is never replaced. `rename(2)` would replace an empty folder, and a link;
    /// `rename_new` leaves each in place, and its source too.
    #[test]
    fn rename_new_never_replaces_what_is_at_the_destination() {
        let base = std::env::temp_dir().join(format!("mg-rename-new-{}", std::process::id()));
        let _ = fs::remove_dir_all(&base);
        fs::create_dir_all(base.join("from")).unwrap();
        fs::write(base.join("from/f"), b"x").unwrap();
        fs::create_dir(base.join("empty")).unwrap();
        fs::write(base.join("file"), b"y").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(base.join("nowhere"), base.join("dangling")).unwrap();
        for taken in ["empty", "file", "dangling"] {
            let to = base.join(taken);
            if fs::symlink_metadata(&to).is_err() {
                continue;
            }
            let e = rename_new(&base.join("from"), &to).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::AlreadyExists, "{taken}: {e}");
            assert_eq!(fs::read(base.join("from/f")).unwrap(), b"x");
        }
        assert_eq!(fs::read_dir(base.join("empty")).unwrap().count(), 0);
        rename_new(&base.join("from"), &base.join("to")).unwrap();
        assert_eq!(fs::read(base.join("to/f")).unwrap(), b"x");
        assert!(fs::symlink_metadata(base.join("from")).is_err());
        fs::remove_dir_all(&base).unwrap();
    }

    /// The fallback without a no-replace rename keeps the same promise for folders and
    /// files: nothing at the destination is replaced, and a refused rename leaves no
    /// placeholder behind.
    #[test]
    fn rename_claimed_never_replaces_what_is_at_the_destination() {
        let base = std::env::temp_dir().join(format!("mg-rename-claimed-{}", std::process::id()));
        let _ = fs::remove_dir_all(&base);
        fs::create_dir_all(base.join("from")).unwrap();
        fs::write(base.join("from/f"), b"x").unwrap();
        fs::write(base.join("plain"), b"p").unwrap();
        fs::create_dir(base.join("empty")).unwrap();
        fs::write(base.join("file"), b"y").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(base.join("nowhere"), base.join("dangling")).unwrap();
        for from in ["from", "plain"] {
            for taken in ["empty", "file", "dangling"] {
                let to = base.join(taken);
                let Ok(before) = fs::symlink_metadata(&to) else {
                    continue;
                };
                let e = rename_claimed(&base.join(from), &to).unwrap_err();
                assert_eq!(e.kind(), io::ErrorKind::AlreadyExists, "{from} to {taken}: {e}");
                let after = fs::symlink_metadata(&to).unwrap();
                assert_eq!(before.file_type(), after.file_type(), "{taken}");
            }
        }
        assert_eq!(fs::read_dir(base.join("empty")).unwrap().count(), 0);
        assert_eq!(fs::read(base.join("file")).unwrap(), b"y");
        rename_claimed(&base.join("from"), &base.join("to")).unwrap();
        assert_eq!(fs::read(base.join("to/f")).unwrap(), b"x");
        rename_claimed(&base.join("plain"), &base.join("plain-to")).unwrap();
        assert_eq!(fs::read(base.join("plain-to")).unwrap(), b"p");
        // A rename that fails after the claim (a folder into itself) removes the placeholder.
        #[cfg(unix)]
        {
            let e = rename_claimed(&base.join("to"), &base.join("to/inside")).unwrap_err();
            assert_ne!(e.kind(), io::ErrorKind::AlreadyExists, "{e}");
            assert!(fs::symlink_metadata(base.join("to/inside")).is_err());
            assert_eq!(fs::read(base.join("to/f")).unwrap(), b"x");
        }
        fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn temp_dir_is_private_unique_and_removed_unless_kept() {
        let base = std::env::temp_dir().join(format!("mg-temp-test-{}", std::process::id()));
        fs::create_dir_all(&base).unwrap();
        let a = TempDir::create(&base, "x", "tmp").unwrap();
        let b = TempDir::create(&base, "x", "tmp").unwrap();
        assert_ne!(a.path(), b.path());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(fs::metadata(a.path()).unwrap().permissions().mode() & 0o777, 0o700);
        }
        let (a_path, b_path) = (a.path().to_path_buf(), b.path().to_path_buf());
        drop(a);
        b.keep();
        assert!(!a_path.exists());
        assert!(b_path.exists());
        fs::remove_dir_all(&base).unwrap();
    }

    /// `spec/mpk.md` §6.5: the folder is made below the real path of `dir`, and its room
    /// is what PATH_MAX leaves below the longest name it could have had.
    #[test]
    fn temp_dir_is_below_the_real_path_and_knows_its_room() {
        let base = std::env::temp_dir().join(format!("mg-temp-room-{}", std::process::id()));
        fs::create_dir_all(base.join("sub")).unwrap();
        let real = fs::canonicalize(&base).unwrap();
        let t = TempDir::create(&base.join("sub/.."), "stem", "tag").unwrap();
        assert_eq!(t.path().parent().unwrap(), real);
        let longest = real.as_os_str().len() + 1 + ".stem.".len() + 10 + 1 + 20 + 1 + 16 + ".tag".len();
        assert_eq!(t.room(), crate::path_limit::PATH_MAX - 1 - longest - 1);
        let name = t.path().file_name().unwrap().len();
        let longest_name = longest - real.as_os_str().len() - "/".len();
        assert!(name <= longest_name, "{name} > {longest_name}");
        drop(t);
        fs::remove_dir_all(&base).unwrap();
    }

    /// A destination whose own name is valid but longer than 255 − 58 bytes still gets a
    /// temporary name within NAME_MAX (it used to be `ENAMETOOLONG`), cut at a character.
    #[test]
    fn long_stems_are_cut_to_fit_a_name() {
        let long = "é".repeat(120);
        assert_eq!(name_stem(&long).len(), 128);
        assert_eq!(name_stem(&format!("a{long}")).len(), 127);
        assert_eq!(name_stem("short"), "short");
        let base = std::env::temp_dir().join(format!("mg-temp-stem-{}", std::process::id()));
        fs::create_dir_all(&base).unwrap();
        let t = TempDir::create(&base, &"n".repeat(250), "mpk-tmp").unwrap();
        let name = t.path().file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with(&format!(".{}.", "n".repeat(128))), "{name}");
        assert!(name.len() <= 255);
        drop(t);
        fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn beside_handles_bare_names() {
        assert_eq!(
            beside(Path::new("out.tar")).unwrap(),
            (PathBuf::from("."), "out.tar".to_string())
        );
        assert_eq!(
            beside(Path::new("/a/b")).unwrap(),
            (PathBuf::from("/a"), "b".to_string())
        );
        assert!(beside(Path::new("/")).is_err());
    }
}
