//! The one [`EntrySink`] that writes an archive's accepted files to disk, under a private
//! root: MPK extraction (`spec/mpk.md` §6.3) and mvb import and check (`spec/mvb.md` §6.2).

use crate::syncer::{FLUSH_STEP, Syncer};
use crate::temp::TempDir;
use modelgate_core::tar::EntrySink;
use std::cell::Cell;
use std::collections::BTreeSet;
use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io::{self, Write};
use std::ops::Bound;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

thread_local! {
    /// Folder operations (`mkdir`, and `lstat` of a name that already existed) made by
    /// sinks on this thread: the measure [`folder_operations`] reports.
    static FOLDER_OPS: Cell<u64> = const { Cell::new(0) };
}

/// How many folder operations (`mkdir`, and the `lstat` that checks a name `mkdir` found
/// existing) every [`DirSink`] on the calling thread has made so far. A test hook: the
/// cost of a path's parents is one `mkdir` per folder the sink has not made yet, so the
/// count grows with the number of folders, not with files times depth (`spec/mpk.md` §6.3).
#[doc(hidden)]
pub fn folder_operations() -> u64 {
    FOLDER_OPS.with(Cell::get)
}

fn count_folder_operation() {
    FOLDER_OPS.with(|n| n.set(n.get().saturating_add(1)));
}

/// Creates `path` exclusively (an existing name, a symbolic link included, is an error),
/// mode 0644 on Unix.
pub(crate) fn create_file(path: &Path) -> io::Result<File> {
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
/// components and fit in the root's room (`spec/mpk.md` §6.5; both checked again here,
/// whatever the validator did), parent folders are made
/// one at a time without following a symbolic link, and files are created exclusively and
/// synced when complete (unless the sink is `DirSink::unsynced`; on a thread of their own
/// with `DirSink::synced_in_background`).
pub struct DirSink {
    root: PathBuf,
    /// The longest relative path the root has room for (`spec/mpk.md` §6.5).
    room: usize,
    folder_mode: u32,
    /// Folders this sink made under the root: a file's parents among them are skipped,
    /// only the others are made (and checked).
    made: Made,
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
    /// A sink writing under the private temporary folder `root`, within its room
    /// ([`TempDir::room`], `spec/mpk.md` §6.5); the folders it makes get `folder_mode` on
    /// Unix (MPK: 0700 until published; mvb: 0755, the bundle's own).
    pub fn new(root: &TempDir, folder_mode: u32) -> Self {
        DirSink {
            root: root.path().to_path_buf(),
            room: root.room(),
            folder_mode,
            made: Made::default(),
            sync: SyncMode::OnEnd,
            file: None,
            unflushed: 0,
        }
    }

    /// The same sink without syncing each file: for a folder that is checked and then
    /// removed, never published, where durability buys nothing.
    pub(crate) fn unsynced(mut self) -> Self {
        self.sync = SyncMode::Never;
        self
    }

    /// The same sink with the syncing done by a thread of its own (`spec/mpk.md` §6.3): a
    /// large file's data is flushed as it is written, each complete file is fsync'ed and
    /// closed there, and [`DirSink::finish`] waits for all of it. Until `finish` returned
    /// `Ok`, nothing written is known to be durable.
    pub(crate) fn synced_in_background(mut self) -> io::Result<Self> {
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
        #[cfg(unix)]
        {
            use std::os::unix::fs::DirBuilderExt;
            let mut b = DirBuilder::new();
            b.mode(self.folder_mode);
            b
        }
        #[cfg(not(unix))]
        {
            // Folder modes are Unix permission bits.
            let _ = self.folder_mode;
            DirBuilder::new()
        }
    }

    /// The path of `rel` under the root, its parent folders made (`spec/mpk.md` §6.3).
    ///
    /// Parents this sink made for an earlier file are not touched again: the root is a
    /// private folder its owner created empty, so they are still the folders the sink made.
    /// Each other parent is made with `mkdir`, which does not follow a final link, below
    /// folders made or checked here; a name that already exists must be a real folder by
    /// `lstat`. So a package's folders cost one `mkdir` each, not a `mkdir` and an `lstat`
    /// per file and depth.
    fn target(&mut self, rel: &str) -> io::Result<PathBuf> {
        let rel_path = Path::new(rel);
        if rel.is_empty() || rel.contains('\0') || !rel_path.components().all(|c| matches!(c, Component::Normal(_))) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "destination path is not plain",
            ));
        }
        // The readers refuse such a path at its entry (§6.5); a caller that did not ask
        // `max_path_bytes` gets an error here, before anything is made for it.
        if rel.len() > self.room {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "destination path too long for the destination folder",
            ));
        }
        // The parent folder, `a/b` of `a/b/c.bin`; none for a file at the root.
        let Some((parent, _)) = rel.rsplit_once('/') else {
            return Ok(self.root.join(rel_path));
        };
        let known = self.made.known(parent);
        let mut dir = self.root.join(parent.get(..known).unwrap_or_default());
        // The end of the folders made here, in `parent`: they continue the known ones until
        // a folder that already existed (not made by this sink) is met.
        let mut made = known;
        let mut ours = true;
        let mut at = known;
        let rest = parent.get(known..).unwrap_or_default();
        let rest = rest.strip_prefix('/').unwrap_or(rest);
        for part in rest.split_terminator('/') {
            at = if at == 0 { part.len() } else { at + 1 + part.len() };
            dir.push(part);
            count_folder_operation();
            match self.folder().create(&dir) {
                Ok(()) if ours => made = at,
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    count_folder_operation();
                    if !fs::symlink_metadata(&dir)?.file_type().is_dir() {
                        return Err(io::Error::new(io::ErrorKind::AlreadyExists, "not a directory"));
                    }
                    // Another process of the same user put it there: it and what is below it
                    // are checked again for every later file.
                    ours = false;
                }
                Err(e) => return Err(e),
            }
        }
        if made > known {
            self.made.insert(parent.get(..made).unwrap_or_default());
        }
        Ok(self.root.join(rel_path))
    }
}

/// Separates folder names in [`Made`]'s keys: NUL, which no name holds, sorts below every
/// byte of a name, so the keys sort as their sequences of names do.
const SEP: u8 = 0;

/// The folders a [`DirSink`] made: relative folder paths, each standing for itself and
/// every folder above it. One key per file whose parents were new (never one per folder),
/// so memory stays within the size of the accepted paths.
#[derive(Debug, Default)]
struct Made {
    /// Folder paths with `/` replaced by [`SEP`].
    keys: BTreeSet<Vec<u8>>,
}

impl Made {
    /// The key of a folder path.
    fn key(folder: &str) -> Vec<u8> {
        folder.bytes().map(|b| if b == b'/' { SEP } else { b }).collect()
    }

    /// The byte length of the longest prefix of `folder` (plain names joined by `/`) that is
    /// a folder this sink made: 0 when none is.
    ///
    /// Keys sort as sequences of names, so the key sharing the most leading names with
    /// `folder` is one of its two neighbours: only those are compared.
    fn known(&self, folder: &str) -> usize {
        let key = Made::key(folder);
        let below = self
            .keys
            .range::<[u8], _>((Bound::Unbounded, Bound::Included(&key[..])))
            .next_back();
        let above = self
            .keys
            .range::<[u8], _>((Bound::Excluded(&key[..]), Bound::Unbounded))
            .next();
        [below, above]
            .into_iter()
            .flatten()
            .map(|made| shared_folders(&key, made))
            .max()
            .unwrap_or(0)
    }

    /// Records that `folder` and every folder above it were made.
    fn insert(&mut self, folder: &str) {
        if self.known(folder) < folder.len() {
            self.keys.insert(Made::key(folder));
        }
    }
}

/// The byte length of the leading names two keys share: their common prefix when both
/// keys end a name there (a [`SEP`] or the key's end), else cut back to its last [`SEP`].
fn shared_folders(a: &[u8], b: &[u8]) -> usize {
    let same = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let ends_name = |key: &[u8]| key.get(same).is_none_or(|&c| c == SEP);
    if ends_name(a) && ends_name(b) {
        return same;
    }
    a.get(..same)
        .and_then(|common| common.iter().rposition(|&c| c == SEP))
        .unwrap_or(0)
}

impl EntrySink for DirSink {
    type Error = io::Error;

    /// What the root leaves of the path limit (`spec/mpk.md` §6.5).
    fn max_path_bytes(&self) -> usize {
        self.room
    }

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

    /// A fresh folder, removed with its contents when the test ends, whether it passes or
    /// panics.
    fn scratch(tag: &str) -> TempDir {
        TempDir::create(&std::env::temp_dir(), "mg-dirsink", tag).unwrap()
    }

    fn write(sink: &mut DirSink, path: &str, data: &[u8]) -> io::Result<()> {
        sink.begin(path, data.len() as u64)?;
        sink.data(data)?;
        sink.end()
    }

    #[test]
    fn files_land_at_their_path_with_parents_made() {
        let tmp = scratch("ok");
        let root = tmp.path();
        let mut sink = DirSink::new(&tmp, 0o755);
        write(&mut sink, "id/model/a.bin", b"abc").unwrap();
        write(&mut sink, "id/model/b.bin", b"d").unwrap();
        assert_eq!(fs::read(root.join("id/model/a.bin")).unwrap(), b"abc");
        assert_eq!(fs::read(root.join("id/model/b.bin")).unwrap(), b"d");
    }

    #[test]
    fn unsynced_sink_writes_the_same_files_and_rules() {
        let tmp = scratch("unsynced");
        let root = tmp.path();
        let mut sink = DirSink::new(&tmp, 0o755).unsynced();
        write(&mut sink, "id/model/a.bin", b"abc").unwrap();
        assert_eq!(fs::read(root.join("id/model/a.bin")).unwrap(), b"abc");
        assert_eq!(sink.begin("../x", 0).unwrap_err().kind(), io::ErrorKind::InvalidInput);
    }

    #[test]
    fn non_plain_paths_are_refused() {
        let tmp = scratch("plain");
        let root = tmp.path();
        let mut sink = DirSink::new(&tmp, 0o700);
        for bad in ["", "../x", "/etc/x", "a/../../x", "./a", "a\0b/c"] {
            let e = sink.begin(bad, 0).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{bad}");
        }
        assert_eq!(fs::read_dir(root).unwrap().count(), 0);
    }

    /// `spec/mpk.md` §6.5: the sink reports its root's room, and refuses a longer path
    /// itself (for a caller that did not ask) before it makes anything for it.
    #[test]
    fn a_path_longer_than_the_roots_room_is_refused_before_anything_is_made() {
        let tmp = scratch("room");
        let mut sink = DirSink::new(&tmp, 0o700);
        let room = sink.max_path_bytes();
        assert_eq!(room, tmp.room());
        let over = format!("a/{}", "b".repeat(room - 1));
        assert_eq!(sink.begin(&over, 0).unwrap_err().kind(), io::ErrorKind::InvalidInput);
        assert_eq!(fs::read_dir(tmp.path()).unwrap().count(), 0);
        write(&mut sink, "a/b", b"x").unwrap();
    }

    #[test]
    fn existing_names_are_never_reused() {
        let tmp = scratch("exclusive");
        let root = tmp.path();
        let mut sink = DirSink::new(&tmp, 0o700);
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
    }

    #[cfg(unix)]
    #[test]
    fn a_symbolic_link_is_never_followed() {
        let tmp = scratch("link");
        let root = tmp.path();
        let tmp_outside = scratch("link-outside");
        let outside = tmp_outside.path();
        std::os::unix::fs::symlink(outside, root.join("etc")).unwrap();
        let mut sink = DirSink::new(&tmp, 0o700);
        assert_eq!(
            sink.begin("etc/a.json", 0).unwrap_err().kind(),
            io::ErrorKind::AlreadyExists
        );
        assert_eq!(fs::read_dir(outside).unwrap().count(), 0);
    }

    #[test]
    fn shared_folders_stop_at_whole_names() {
        let k = Made::key;
        assert_eq!(shared_folders(&k("a/b/c"), &k("a/b")), 3);
        assert_eq!(shared_folders(&k("a/b"), &k("a/b/c")), 3);
        assert_eq!(shared_folders(&k("a/b"), &k("a/b")), 3);
        assert_eq!(shared_folders(&k("a/bc"), &k("a/b")), 1);
        assert_eq!(shared_folders(&k("a/b"), &k("a/bc")), 1);
        assert_eq!(shared_folders(&k("ab"), &k("a")), 0);
        assert_eq!(shared_folders(&k("x/y"), &k("a/b")), 0);
    }

    #[test]
    fn made_folders_are_found_past_siblings_that_sort_between() {
        let mut made = Made::default();
        // `+` sorts below `/`: as plain strings "a/b+" would sit between "a/b" and "a/b/c".
        made.insert("a/b");
        made.insert("a/b+");
        made.insert("a/bz/q");
        assert_eq!(made.known("a/b/c"), 3);
        assert_eq!(made.known("a/b+/c"), 4);
        assert_eq!(made.known("a/bz/q/r"), 6);
        assert_eq!(made.known("a/bz/x"), 4);
        assert_eq!(made.known("a/c"), 1);
        assert_eq!(made.known("b"), 0);
        // A folder already covered adds no key.
        made.insert("a/bz");
        assert_eq!(made.keys.len(), 3);
    }

    /// Folder operations the sink makes while `f` runs, on this thread.
    fn operations(f: impl FnOnce()) -> u64 {
        let before = folder_operations();
        f();
        folder_operations() - before
    }

    #[test]
    fn each_folder_is_made_once_however_many_files_are_below_it() {
        let tmp = scratch("once");
        let root = tmp.path();
        let mut sink = DirSink::new(&tmp, 0o700);
        let deep = "d/".repeat(200);
        // 200 folders for the first file, none for the next 39 in the same folder.
        let ops = operations(|| {
            for i in 0..40 {
                write(&mut sink, &format!("{deep}f{i}"), b"x").unwrap();
            }
        });
        assert_eq!(ops, 200);
        // Beside it: 1 new folder; deeper: 2 new folders; a new top folder: 1.
        assert_eq!(operations(|| write(&mut sink, &format!("{deep}e/g"), b"y").unwrap()), 1);
        assert_eq!(
            operations(|| write(&mut sink, &format!("{deep}e/h/i/j"), b"y").unwrap()),
            2
        );
        assert_eq!(operations(|| write(&mut sink, "top/k", b"z").unwrap()), 1);
        assert_eq!(operations(|| write(&mut sink, "l", b"z").unwrap()), 0);
        assert_eq!(fs::read(root.join(format!("{deep}e/h/i/j"))).unwrap(), b"y");
    }

    #[test]
    fn a_folder_the_sink_did_not_make_is_checked_for_every_file() {
        let tmp = scratch("foreign");
        let root = tmp.path();
        fs::create_dir(root.join("etc")).unwrap();
        let mut sink = DirSink::new(&tmp, 0o700);
        // `mkdir` finds it, `lstat` checks it, then `sub` is made: 3.
        assert_eq!(operations(|| write(&mut sink, "etc/sub/0", b"").unwrap()), 3);
        // Below a folder it did not make, the sink remembers nothing: both are checked again.
        for i in 1..4 {
            assert_eq!(
                operations(|| write(&mut sink, &format!("etc/sub/{i}"), b"").unwrap()),
                4
            );
        }
    }
}
