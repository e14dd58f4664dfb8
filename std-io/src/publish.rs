//! Atomic publication of a finished output file (`spec/mlbundle.md` §11.2). Format-neutral:
//! every writer in modelgate publishes its output through [`publish`].
//!
//! 1. The bytes go to a new temporary file in the destination's folder, which is flushed
//!    and fsync'ed.
//! 2. With `overwrite`, the temporary file is renamed over the destination (atomic
//!    replacement); when the destination is a regular file, the temporary file is created
//!    with its permission bits and set to exactly them before the rename (Unix), so
//!    replacing a file never makes it more readable than it was. Without it, it is
//!    hard-linked to the destination, which fails with `AlreadyExists` if the destination
//!    exists — also when another writer created it first (the no-overwrite decision holds
//!    in a race). Then the temporary file is removed.
//! 3. Where the filesystem refuses hard links, the destination is created exclusively,
//!    written, flushed and fsync'ed, and removed again on any failure. This never overwrites
//!    and leaves no partial file after a reported failure, but the file is visible while it
//!    is written: it is not atomic visibility and not crash-safe publication.
//! 4. Every other error propagates. The temporary file is removed on every path.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Publishes what `fill` writes at `dest` (§11.2), for example `|f| f.write_all(bytes)`.
/// Without `overwrite`, an existing destination is `io::ErrorKind::AlreadyExists` and is
/// left untouched. If `fill` fails, nothing is published and the error is returned; no file
/// is left behind.
pub fn publish<F>(dest: &Path, overwrite: bool, fill: F) -> io::Result<()>
where
    F: FnMut(&mut File) -> io::Result<()>,
{
    publish_linked(dest, overwrite, fill, |from, to| fs::hard_link(from, to))
}

/// [`publish`] with the hard-link step supplied, so the tests below exercise the fallback.
fn publish_linked<F, L>(dest: &Path, overwrite: bool, mut fill: F, link: L) -> io::Result<()>
where
    F: FnMut(&mut File) -> io::Result<()>,
    L: FnOnce(&Path, &Path) -> io::Result<()>,
{
    let mode = if overwrite { replaced_mode(dest) } else { None };
    let (tmp, file) = create_temp(dest, mode)?;
    let guard = TempGuard(&tmp);
    write_synced(file, &mut fill)?;
    if overwrite {
        fs::rename(&tmp, dest)?;
        std::mem::forget(guard);
        return Ok(());
    }
    match link(&tmp, dest) {
        Ok(()) => Ok(()),
        Err(e) if links_unsupported(&e) => {
            drop(guard);
            create_exclusive(dest, fill)
        }
        Err(e) => Err(e),
    }
    // `guard` removes the temporary file when it goes out of scope.
}

/// Runs `fill`, flushes and fsyncs; the file is closed when this returns, on every path.
fn write_synced<F>(mut file: File, fill: &mut F) -> io::Result<()>
where
    F: FnMut(&mut File) -> io::Result<()>,
{
    fill(&mut file)?;
    file.flush()?;
    file.sync_all()
}

/// Removes the temporary file when dropped (every path of [`publish_linked`]).
struct TempGuard<'a>(&'a Path);

impl Drop for TempGuard<'_> {
    fn drop(&mut self) {
        let _ = fs::remove_file(self.0);
    }
}

/// True when `link(2)` failed because the filesystem does not support hard links (EPERM
/// on Linux for filesystems without links, EOPNOTSUPP, ENOSYS). The temporary file was just
/// created by us in the same folder, so a permission error here is the filesystem's refusal.
fn links_unsupported(e: &io::Error) -> bool {
    matches!(e.kind(), io::ErrorKind::Unsupported | io::ErrorKind::PermissionDenied)
        || (cfg!(target_os = "linux") && e.raw_os_error() == Some(95))
}

/// The fallback of §11.2 step 3: exclusive creation, write, flush, fsync; the destination
/// is removed if anything after its creation fails.
fn create_exclusive<F>(dest: &Path, mut fill: F) -> io::Result<()>
where
    F: FnMut(&mut File) -> io::Result<()>,
{
    let file = OpenOptions::new().write(true).create_new(true).open(dest)?;
    let result = write_synced(file, &mut fill);
    if result.is_err() {
        let _ = fs::remove_file(dest);
    }
    result
}

/// The permission bits (`0o777`) of the regular file an overwrite replaces (§11.2); `None`
/// when there is none (absent, or not a regular file: a symbolic link is replaced itself)
/// or off Unix.
fn replaced_mode(dest: &Path) -> Option<u32> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::symlink_metadata(dest)
            .ok()
            .filter(fs::Metadata::is_file)
            .map(|m| m.permissions().mode() & 0o777)
    }
    #[cfg(not(unix))]
    {
        let _ = dest;
        None
    }
}

/// A new, exclusively created temporary file next to `dest`. With `mode` (Unix), it is
/// created with those permission bits (which the umask can only narrow, so the bytes are
/// never more readable than the file they replace) and then set to exactly them.
fn create_temp(dest: &Path, mode: Option<u32>) -> io::Result<(PathBuf, File)> {
    let (dir, base) = crate::temp::beside(dest)?;
    let (tmp, file) = crate::temp::create_unique(&dir, &base, "tmp", |p| {
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        if let Some(mode) = mode {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(mode);
        }
        options.open(p)
    })?;
    #[cfg(unix)]
    if let Some(mode) = mode {
        use std::os::unix::fs::PermissionsExt;
        if let Err(e) = file.set_permissions(fs::Permissions::from_mode(mode)) {
            let _ = fs::remove_file(&tmp);
            return Err(e);
        }
    }
    #[cfg(not(unix))]
    let _ = mode;
    Ok((tmp, file))
}

/// Why [`write_mlbundle`] failed.
#[derive(Debug)]
pub enum WriteError {
    /// The writer rejected the inputs (`spec/mlbundle.md` §10).
    Rejected(modelgate_core::mlbundle::Error),
    /// Publication failed (an existing destination without `overwrite` is `AlreadyExists`).
    Io(io::Error),
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteError::Rejected(e) => e.fmt(f),
            WriteError::Io(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for WriteError {}

/// `write_container(manifest, members, destination, overwrite, limits)` (`spec/mlbundle.md`
/// §10, §11.2): a `model.onnx` member parsed as the validating load parses it
/// (`spec/mlbundle.md` §12.2: self-contained, refused before anything is written), the core
/// writer, whose output is re-validated through the reader, then publication at
/// `destination` when one is given (§11.2). Returns the bytes.
pub fn write_mlbundle(
    manifest: &modelgate_core::mlbundle::Manifest,
    members: &std::collections::BTreeMap<modelgate_core::mlbundle::MemberName, Vec<u8>>,
    destination: Option<&Path>,
    overwrite: bool,
    limits: &modelgate_core::mlbundle::ArchiveLimits,
) -> Result<Vec<u8>, WriteError> {
    if let Some(model) = members.get(&modelgate_core::mlbundle::MemberName::ModelOnnx) {
        modelgate_core::mlbundle::check_model_onnx(model).map_err(WriteError::Rejected)?;
    }
    let bytes = modelgate_core::mlbundle::write_container(manifest, members, limits).map_err(WriteError::Rejected)?;
    if let Some(dest) = destination {
        publish(dest, overwrite, |f| f.write_all(&bytes)).map_err(WriteError::Io)?;
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    //! The exclusive-create fallback (step 3), reached through a link step that fails as a
    //! filesystem without hard links does; the rest is in `tests/publish.rs`.
    use super::*;
    use crate::temp::TempDir;

    fn scratch(name: &str) -> TempDir {
        TempDir::create(&std::env::temp_dir(), "mg-publish-unit", name).unwrap()
    }

    /// Every name in `dir`, sorted.
    fn sorted_names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    fn unsupported(_: &Path, _: &Path) -> io::Result<()> {
        Err(io::Error::from(io::ErrorKind::Unsupported))
    }

    #[test]
    fn fallback_without_hard_links_creates_exclusively() {
        let tmp = scratch("fallback");
        let dir = tmp.path();
        let dest = dir.join("out.mlbundle");
        publish_linked(&dest, false, |f| f.write_all(b"data"), unsupported).unwrap();
        assert_eq!(fs::read(&dest).unwrap(), b"data");
        assert_eq!(sorted_names(dir), ["out.mlbundle"]);
        // Never overwrites.
        let e = publish_linked(&dest, false, |f| f.write_all(b"other"), unsupported).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(fs::read(&dest).unwrap(), b"data");
        assert_eq!(sorted_names(dir), ["out.mlbundle"]);
    }

    #[test]
    fn fallback_failure_removes_its_own_destination() {
        let tmp = scratch("fallback-fail");
        let dir = tmp.path();
        let dest = dir.join("out.mlbundle");
        let mut calls = 0;
        let e = publish_linked(
            &dest,
            false,
            |f| {
                calls += 1;
                f.write_all(b"half")?;
                // The temporary copy succeeds; the fallback's copy fails midway.
                if calls == 2 {
                    Err(io::Error::other("fail in fallback"))
                } else {
                    Ok(())
                }
            },
            unsupported,
        )
        .unwrap_err();
        assert_eq!(e.to_string(), "fail in fallback");
        assert!(!dest.exists());
        assert!(sorted_names(dir).is_empty());
    }

    #[test]
    fn other_link_errors_propagate() {
        let tmp = scratch("link-error");
        let dir = tmp.path();
        let dest = dir.join("out.mlbundle");
        let e = publish_linked(&dest, false, |f| f.write_all(b"x"), |_, _| Err(io::Error::other("io"))).unwrap_err();
        assert_eq!(e.to_string(), "io");
        assert!(sorted_names(dir).is_empty());
    }
}
