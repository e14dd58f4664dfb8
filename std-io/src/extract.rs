//! Safe extraction of MPK packages (`spec/mpk.md` §6): the extension rule first, then one
//! streaming pass gzip → tar → validation → content written into a private temporary
//! root made next to the destination; on success the root is renamed into place, on any
//! failure it is removed and nothing is left behind.

use crate::Progress;
use crate::failure::FileError;
use crate::temp::{self, TempDir, private_dir};
use modelgate_core::Location;
use modelgate_core::mpk::{MpkError, MpkKind, MpkLimits, MpkReader, Package, Registry, check_extension};
use modelgate_core::tar::{Discard, EntrySink, Failure};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Component, Path, PathBuf};

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
pub fn extract(package: &Path, dest: &Path, limits: MpkLimits) -> Result<Package, ExtractError> {
    let file = open_package(package, &limits)?;
    refuse_existing(dest)?;
    let root = temp_root(dest)?;
    let mut sink = DirSink {
        root: root.path().to_path_buf(),
        file: None,
    };
    let package = run(file, limits, &mut sink, &mut |_, _| {})?;
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

/// Writes accepted files under the temporary root (§6.3).
struct DirSink {
    root: PathBuf,
    file: Option<File>,
}

impl DirSink {
    /// The path of `rel` under the root; `rel` is a normalised archive path with a
    /// class folder, so every component is a plain name (checked again here).
    fn target(&self, rel: &str) -> io::Result<PathBuf> {
        let rel_path = Path::new(rel);
        if rel.is_empty() || !rel_path.components().all(|c| matches!(c, Component::Normal(_))) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "destination path is not plain",
            ));
        }
        Ok(self.root.join(rel_path))
    }

    /// Creates the parent folders of `target` inside the root, one at a time, never
    /// following a symbolic link.
    fn make_parents(&self, rel: &str) -> io::Result<()> {
        let mut dir = self.root.clone();
        let mut parts: Vec<&str> = rel.split('/').collect();
        parts.pop();
        for part in parts {
            dir.push(part);
            match private_dir().create(&dir) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    if !fs::symlink_metadata(&dir)?.file_type().is_dir() {
                        return Err(io::Error::new(io::ErrorKind::AlreadyExists, "not a directory"));
                    }
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

impl EntrySink for DirSink {
    type Error = io::Error;

    fn begin(&mut self, dest: &str, _: u64) -> io::Result<()> {
        let target = self.target(dest)?;
        self.make_parents(dest)?;
        // §6.3: exclusive creation; an existing name (a link included) is an error.
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o644);
        }
        self.file = Some(options.open(target)?);
        Ok(())
    }

    fn data(&mut self, chunk: &[u8]) -> io::Result<()> {
        match self.file.as_mut() {
            Some(f) => f.write_all(chunk),
            None => Ok(()),
        }
    }

    fn end(&mut self) -> io::Result<()> {
        if let Some(mut f) = self.file.take() {
            f.flush()?;
            f.sync_all()?;
        }
        Ok(())
    }
}
