//! Safe extraction of MPK packages (`spec/mpk.md` §6): the extension rule first, then one
//! streaming pass gzip → tar → validation → content written into a private temporary
//! root made next to the destination; on success the root is renamed into place, on any
//! failure it is removed and nothing is left behind.

use crate::Progress;
use crate::dirsink::DirSink;
use crate::failure::FileError;
use crate::temp::{self, TempDir};
use modelgate_core::Location;
use modelgate_core::mpk::{MpkError, MpkKind, MpkLimits, MpkReader, Package, Registry, check_extension};
use modelgate_core::tar::{Discard, EntrySink, Failure};
use std::fs::{self, File};
use std::io::{self, Read};
use std::path::Path;

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

/// Streams the package (`len` bytes) through the reader into `sink`, chunk by chunk
/// (§6.2), reporting the compressed bytes read to `progress`.
fn run<S: EntrySink>(
    (mut file, len): (File, u64),
    limits: MpkLimits,
    sink: &mut S,
    progress: Progress<'_>,
) -> Result<Package, ExtractError>
where
    ExtractError: From<S::Error>,
{
    let mut reader = MpkReader::new(limits, Registry::DEFAULT, crate::hash_key());
    let mut buf = vec![0u8; CHUNK];
    let mut done = 0u64;
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        match reader.feed(buf.get(..n).unwrap_or_default(), sink) {
            Ok(()) => {}
            Err(Failure::Rejected(e)) => return Err(e.into()),
            Err(Failure::Sink(e)) => return Err(e.into()),
        }
        done = done.saturating_add(n as u64);
        progress(done, len.max(done));
    }
    Ok(reader.finish()?)
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
    let mut sink = DirSink::new(root.path(), 0o700);
    let package = run(file, limits, &mut sink, progress)?;
    drop(sink);
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
