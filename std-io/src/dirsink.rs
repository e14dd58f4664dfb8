//! The one [`EntrySink`] that writes an archive's accepted files to disk, under a private
//! root: MPK extraction (`spec/mpk.md` §6.3) and mvb import and check (`spec/mvb.md` §6.2).

use modelgate_core::tar::EntrySink;
use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};

/// Creates `path` exclusively (an existing name, a symbolic link included, is an error),
/// mode 0644 on Unix.
pub fn create_file(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o644);
    }
    options.open(path)
}

/// Writes each file at its path under `root`: the path must be relative with only plain
/// components (checked again here, whatever the validator did), parent folders are made
/// one at a time without following a symbolic link, and files are created exclusively and
/// synced when complete.
pub struct DirSink {
    root: PathBuf,
    folder_mode: u32,
    file: Option<File>,
}

impl DirSink {
    /// A sink writing under the existing folder `root`; the folders it makes get
    /// `folder_mode` on Unix (MPK: 0700 until published; mvb: 0755, the bundle's own).
    pub fn new(root: &Path, folder_mode: u32) -> Self {
        DirSink {
            root: root.to_path_buf(),
            folder_mode,
            file: None,
        }
    }

    fn folder(&self) -> DirBuilder {
        let mut b = DirBuilder::new();
        #[cfg(unix)]
        {
            use std::os::unix::fs::DirBuilderExt;
            b.mode(self.folder_mode);
        }
        b
    }

    /// The path of `rel` under the root, its parent folders made.
    fn target(&self, rel: &str) -> io::Result<PathBuf> {
        let rel_path = Path::new(rel);
        if rel.is_empty() || !rel_path.components().all(|c| matches!(c, Component::Normal(_))) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "destination path is not plain",
            ));
        }
        let mut dir = self.root.clone();
        let mut parts: Vec<&str> = rel.split('/').collect();
        parts.pop();
        for part in parts {
            dir.push(part);
            match self.folder().create(&dir) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    if !fs::symlink_metadata(&dir)?.file_type().is_dir() {
                        return Err(io::Error::new(io::ErrorKind::AlreadyExists, "not a directory"));
                    }
                }
                Err(e) => return Err(e),
            }
        }
        Ok(self.root.join(rel_path))
    }
}

impl EntrySink for DirSink {
    type Error = io::Error;

    fn begin(&mut self, path: &str, _: u64) -> io::Result<()> {
        let target = self.target(path)?;
        self.file = Some(create_file(&target)?);
        Ok(())
    }

    fn data(&mut self, chunk: &[u8]) -> io::Result<()> {
        match self.file.as_mut() {
            Some(f) => f.write_all(chunk),
            None => Ok(()),
        }
    }

    fn end(&mut self) -> io::Result<()> {
        if let Some(f) = self.file.take() {
            f.sync_all()?;
        }
        Ok(())
    }
}
