//! The one [`EntrySink`] that writes an archive's accepted files to disk, under a private
//! root: MPK extraction (`spec/mpk.md` §6.3) and mvb import and check (`spec/mvb.md` §6.2).

use crate::syncer::{FLUSH_STEP, Syncer};
use modelgate_core::tar::EntrySink;
use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

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
/// synced when complete (unless the sink is [`DirSink::unsynced`]; on a thread of their own
/// with [`DirSink::synced_in_background`]).
pub struct DirSink {
    root: PathBuf,
    folder_mode: u32,
    sync: SyncMode,
    file: Option<Arc<File>>,
    /// Bytes written to `file` since its data was last flushed (background mode).
    unflushed: u64,
}

/// When the files' data reaches the disk.
enum SyncMode {
    /// Never: the folder is checked and removed.
    Never,
    /// Each file is fsync'ed by [`EntrySink::end`].
    OnEnd,
    /// By a [`Syncer`]; [`DirSink::finish`] waits for it.
    Background(Syncer),
}

impl DirSink {
    /// A sink writing under the existing folder `root`; the folders it makes get
    /// `folder_mode` on Unix (MPK: 0700 until published; mvb: 0755, the bundle's own).
    pub fn new(root: &Path, folder_mode: u32) -> Self {
        DirSink {
            root: root.to_path_buf(),
            folder_mode,
            sync: SyncMode::OnEnd,
            file: None,
            unflushed: 0,
        }
    }

    /// The same sink without syncing each file: for a folder that is checked and then
    /// removed, never published, where durability buys nothing.
    pub fn unsynced(mut self) -> Self {
        self.sync = SyncMode::Never;
        self
    }

    /// The same sink with the syncing done by a thread of its own (`spec/mpk.md` §6.3): a
    /// large file's data is flushed as it is written, each complete file is fsync'ed and
    /// closed there, and [`DirSink::finish`] waits for all of it. Until `finish` returned
    /// `Ok`, nothing written is known to be durable.
    pub fn synced_in_background(mut self) -> io::Result<Self> {
        self.sync = SyncMode::Background(Syncer::start()?);
        Ok(self)
    }

    /// Completes the sink: every file written is durable when this returns `Ok` (the
    /// background syncs finished; in the other modes there is nothing left to wait for).
    /// Dropping the sink instead abandons the syncs not yet done.
    pub fn finish(mut self) -> io::Result<()> {
        match std::mem::replace(&mut self.sync, SyncMode::Never) {
            SyncMode::Background(syncer) => syncer.finish(),
            SyncMode::Never | SyncMode::OnEnd => Ok(()),
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
        self.file = Some(Arc::new(create_file(&target)?));
        self.unflushed = 0;
        Ok(())
    }

    fn data(&mut self, chunk: &[u8]) -> io::Result<()> {
        let Some(f) = self.file.as_ref() else {
            return Ok(());
        };
        (&**f).write_all(chunk)?;
        if let SyncMode::Background(syncer) = &self.sync {
            self.unflushed = self.unflushed.saturating_add(chunk.len() as u64);
            if self.unflushed >= FLUSH_STEP && syncer.flush(f) {
                self.unflushed = 0;
            }
        }
        Ok(())
    }

    fn end(&mut self) -> io::Result<()> {
        let Some(f) = self.file.take() else {
            return Ok(());
        };
        match &self.sync {
            SyncMode::Never => Ok(()),
            SyncMode::OnEnd => f.sync_all(),
            SyncMode::Background(syncer) => syncer.close(f),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> PathBuf {
        let p = std::env::temp_dir().join(format!("mg-dirsink-{}-{tag}", std::process::id()));
        let _ = fs::remove_dir_all(&p);
        fs::create_dir_all(&p).unwrap();
        p
    }

    fn write(sink: &mut DirSink, path: &str, data: &[u8]) -> io::Result<()> {
        sink.begin(path, data.len() as u64)?;
        sink.data(data)?;
        sink.end()
    }

    #[test]
    fn files_land_at_their_path_with_parents_made() {
        let root = scratch("ok");
        let mut sink = DirSink::new(&root, 0o755);
        write(&mut sink, "id/model/a.bin", b"abc").unwrap();
        write(&mut sink, "id/model/b.bin", b"d").unwrap();
        assert_eq!(fs::read(root.join("id/model/a.bin")).unwrap(), b"abc");
        assert_eq!(fs::read(root.join("id/model/b.bin")).unwrap(), b"d");
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn unsynced_sink_writes_the_same_files_and_rules() {
        let root = scratch("unsynced");
        let mut sink = DirSink::new(&root, 0o755).unsynced();
        write(&mut sink, "id/model/a.bin", b"abc").unwrap();
        assert_eq!(fs::read(root.join("id/model/a.bin")).unwrap(), b"abc");
        assert_eq!(sink.begin("../x", 0).unwrap_err().kind(), io::ErrorKind::InvalidInput);
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn non_plain_paths_are_refused() {
        let root = scratch("plain");
        let mut sink = DirSink::new(&root, 0o700);
        for bad in ["", "../x", "/etc/x", "a/../../x", "./a"] {
            let e = sink.begin(bad, 0).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{bad}");
        }
        assert_eq!(fs::read_dir(&root).unwrap().count(), 0);
        fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn existing_names_are_never_reused() {
        let root = scratch("exclusive");
        let mut sink = DirSink::new(&root, 0o700);
        write(&mut sink, "etc/a.json", b"{}").unwrap();
        // The same file again, and a folder where a file is.
        assert_eq!(
            sink.begin("etc/a.json", 0).unwrap_err().kind(),
            io::ErrorKind::AlreadyExists
        );
        assert_eq!(
            sink.begin("etc/a.json/b", 0).unwrap_err().kind(),
            io::ErrorKind::AlreadyExists
        );
        assert_eq!(fs::read(root.join("etc/a.json")).unwrap(), b"{}");
        fs::remove_dir_all(&root).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_symbolic_link_is_never_followed() {
        let root = scratch("link");
        let outside = scratch("link-outside");
        std::os::unix::fs::symlink(&outside, root.join("etc")).unwrap();
        let mut sink = DirSink::new(&root, 0o700);
        assert_eq!(
            sink.begin("etc/a.json", 0).unwrap_err().kind(),
            io::ErrorKind::AlreadyExists
        );
        assert_eq!(fs::read_dir(&outside).unwrap().count(), 0);
        fs::remove_dir_all(&root).unwrap();
        fs::remove_dir_all(&outside).unwrap();
    }
}
