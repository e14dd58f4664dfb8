//! mvb bundles on disk (`spec/mvb.md` §5 to §8): deterministic export of a bundle folder to
//! `<OUT_DIR>/<bundle_id>.mvb.tar`, fail-closed import into a vault through a private
//! staging folder, and verification of a bundle folder or an `.mvb.tar`.
//!
//! Every byte is read once, in 64 KiB chunks, and hashed over the same chunk that is written
//! (export) or unpacked (import): memory does not grow with the bundle's size.

use crate::Progress;
use crate::beneath::{Beneath, Kind};
use crate::dirsink::{DirSink, create_file};
use crate::failure::FileError;
use crate::publish::publish;
use crate::read::{ReadError, read_stream_bounded};
use crate::temp::{TempDir, sync_parent};
use modelgate_core::Location;
use modelgate_core::archive_path::{PathLimits, normalize};
use modelgate_core::digest::{ChunkDigest, hex};
use modelgate_core::json::{self, Limits, Member, Node, Value, Writer};
use modelgate_core::mvb::format_rfc3339_utc;
use modelgate_core::mvb::{
    FORMAT_VERSION, ImportValidator, Imported, MANIFEST, MARKER, Manifest, Marker, MvbError, MvbKind, MvbLimits,
    check_entry_path, entry_header, is_excluded,
};
use modelgate_core::tar::{Discard, EntrySink, Failure};
use modelgate_core::tar::{END_OF_ARCHIVE, padding};
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

/// The canonical stdlib verifier, embedded in every export (`spec/mvb.md` §2.2, §7.2).
pub const VERIFIER: &[u8] = include_bytes!("../darsay-verify.py");

/// The verifier's bundle path.
pub(crate) const VERIFIER_NAME: &str = "darsay-verify.py";

/// Bytes read per step.
pub const CHUNK: usize = 64 * 1024;

/// The export log's bundle path (§5.5).
pub(crate) const EXPORTS: &str = "exports.json";

/// File-name suffix of an export (§2.1).
pub(crate) const SUFFIX: &str = ".mvb.tar";

/// Why an mvb operation failed: the bundle or archive broke a rule of `spec/mvb.md`, the
/// destination exists (§5.4, §6.3), or the operating system refused.
pub type MvbIoError = FileError<MvbError>;

impl From<MvbError> for MvbIoError {
    fn from(e: MvbError) -> Self {
        MvbIoError::Rejected(e)
    }
}

fn rejected(kind: MvbKind, message: &'static str, member: &str) -> MvbIoError {
    MvbIoError::Rejected(MvbError::new(kind, message, Location::NONE.in_member(member)))
}

/// Reads the bundle file `member` whole, opened beneath the bundle folder: one longer than
/// `limit` bytes is refused from its size before any byte is read, and at most one byte
/// past the limit is ever read ([`read_stream_bounded`]).
fn read_limited(bundle: &Beneath, member: &str, limit: u64) -> Result<Vec<u8>, MvbIoError> {
    let file = bundle.open_file(member)?;
    let read = if file.metadata()?.len() > limit {
        Err(ReadError::TooLarge { limit })
    } else {
        read_stream_bounded(file, limit)
    };
    read.map_err(|e| match e {
        ReadError::Io(e) => e.into(),
        ReadError::TooLarge { limit } => MvbIoError::Rejected(MvbError::new(
            MvbKind::LimitExceeded,
            "file exceeds its size limit",
            Location::at(limit).in_member(member),
        )),
    })
}

fn now_rfc3339() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    format_rfc3339_utc(secs)
}

// ---------------------------------------------------------------- walking a bundle folder

/// One file of a bundle folder: its bundle path and size at walk time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct BundleFile {
    /// Bundle path.
    pub path: String,
    /// Size from the file's metadata.
    pub size: u64,
}

/// §5.1: every regular file of the bundle folder held open as a bundle path, sorted
/// bytewise, without following symbolic links; excluded names (§2.4) and the root
/// `darsay-verify.py` and `.mvb.json` skipped. A link, device, FIFO or socket, or a name that
/// is not a bundle path, fails. Each folder is listed, and each name's kind read, beneath
/// the bundle ([`Beneath`]), so a folder swapped for a link during the walk is refused.
fn walk(bundle: &Beneath) -> Result<Vec<BundleFile>, MvbIoError> {
    let mut out = Vec::new();
    let mut stack = vec![String::new()];
    while let Some(prefix) = stack.pop() {
        let folder = prefix.strip_suffix('/').unwrap_or_default();
        for entry in bundle.list(folder)? {
            let name = entry.name;
            let Some(name) = name.to_str() else {
                let member = format!("{prefix}{}", name.to_string_lossy());
                return Err(rejected(
                    MvbKind::PathTraversal,
                    "file name is not valid UTF-8",
                    &member,
                ));
            };
            let rel = format!("{prefix}{name}");
            if is_excluded(&rel) || rel == VERIFIER_NAME || rel == MARKER {
                continue;
            }
            if normalize(rel.as_bytes(), &PathLimits::DEFAULT).ok().as_deref() != Some(rel.as_str()) {
                return Err(rejected(
                    MvbKind::PathTraversal,
                    "file name is not a portable bundle path",
                    &rel,
                ));
            }
            match entry.kind {
                Kind::Folder => stack.push(format!("{rel}/")),
                Kind::File => out.push(BundleFile {
                    path: rel,
                    size: entry.size,
                }),
                Kind::Link => return Err(rejected(MvbKind::PathTraversal, "symbolic link in bundle", &rel)),
                Kind::Special => return Err(rejected(MvbKind::InvalidArchive, "special file in bundle", &rel)),
            }
        }
    }
    out.sort_by(|a, b| a.path.as_bytes().cmp(b.path.as_bytes()));
    Ok(out)
}

/// Reads and parses `manifest.json` of a bundle folder held open (§1.2).
fn manifest_of(bundle: &Beneath) -> Result<Manifest, MvbIoError> {
    let limits = MvbLimits::DEFAULT;
    let bytes = read_limited(bundle, MANIFEST, limits.max_manifest_bytes)?;
    Ok(Manifest::parse_owned(bytes, &limits, crate::hash_key())?)
}

fn missing(manifest: &Manifest, i: usize) -> MvbIoError {
    MvbIoError::Rejected(MvbError::new(
        MvbKind::IntegrityMismatch,
        "missing payload file listed in the inventory",
        Location {
            member: Some(MANIFEST.into()),
            path: Some(format!("manifest.inventory.files[{i}]")),
            offset: manifest.value_offset(&["inventory", "files"], Some(i)),
        },
    ))
}

/// §5.2: the walked payload equals the inventory (paths and sizes) and the manifest's bundle
/// hash is the one of its inventory lines.
fn inventory_matches_walk(manifest: &Manifest, files: &[BundleFile]) -> Result<(), MvbIoError> {
    let payload: Vec<&BundleFile> = files.iter().filter(|f| manifest.is_payload(&f.path)).collect();
    let mut inventory: Vec<_> = manifest.files.iter().enumerate().collect();
    inventory.sort_by(|a, b| a.1.path.as_bytes().cmp(b.1.path.as_bytes()));
    let mut inv = inventory.iter().peekable();
    for f in &payload {
        if let Some((i, e)) = inv.peek()
            && e.path.as_bytes() < f.path.as_bytes()
        {
            return Err(missing(manifest, *i));
        }
        match inv.next() {
            Some((_, e)) if e.path == f.path => {
                if e.size != f.size {
                    return Err(rejected(
                        MvbKind::IntegrityMismatch,
                        "payload size differs from the inventory",
                        &f.path,
                    ));
                }
            }
            _ => {
                return Err(rejected(
                    MvbKind::IntegrityMismatch,
                    "extra payload file not in the inventory",
                    &f.path,
                ));
            }
        }
    }
    if let Some((i, _)) = inv.next() {
        return Err(missing(manifest, *i));
    }
    if manifest.inventory_hash() != manifest.bundle_hash.value {
        return Err(MvbIoError::Rejected(MvbError::new(
            MvbKind::IntegrityMismatch,
            "bundle hash does not match the inventory",
            Location {
                member: Some(MANIFEST.into()),
                path: Some("manifest.inventory.bundle_hash.value".into()),
                offset: manifest.value_offset(&["inventory", "bundle_hash", "value"], None),
            },
        )));
    }
    Ok(())
}

// ---------------------------------------------------------------- export

/// §5.1: each file's entry path `<bundle_id>/<bundle path>` passes the path check import
/// applies to it (§4.3 step 3, `spec/mpk.md` §2.6). A bundle path within the limits can
/// still make an entry path beyond them (256 segments, or over 4096 bytes, with the bundle
/// folder), and an archive import refuses must not be written.
fn entry_paths_pass(bundle_id: &str, files: &[BundleFile]) -> Result<(), MvbIoError> {
    for f in files {
        check_entry_path(bundle_id, &f.path)?;
    }
    Ok(())
}

/// What an export published.
#[derive(Clone, Debug)]
pub struct Exported {
    /// `<OUT_DIR>/<bundle_id>.mvb.tar`.
    pub path: PathBuf,
    /// SHA-256 of the tar.
    pub sha256: [u8; 32],
    /// Size of the tar.
    pub size: u64,
    /// Files in the tar after the marker.
    pub files: usize,
}

/// A writer that hashes what it writes.
struct Hashing<'a> {
    out: &'a mut File,
    digest: ChunkDigest,
}

impl Hashing<'_> {
    fn put(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.digest.update(bytes);
        self.out.write_all(bytes)
    }
}

/// Reads the existing export log (§5.5): absent is an empty array; anything but a JSON
/// array is rejected.
fn read_exports(bundle: &Beneath) -> Result<Vec<Value>, MvbIoError> {
    let limits = MvbLimits::DEFAULT;
    let bytes = match read_limited(bundle, EXPORTS, limits.max_manifest_bytes) {
        Err(MvbIoError::Io(e)) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        // A link, folder or special file by that name (`Beneath::open_file`).
        Err(MvbIoError::Io(e)) if e.kind() == io::ErrorKind::InvalidInput => {
            return Err(rejected(
                MvbKind::InvalidManifest,
                "exports.json is not a file",
                EXPORTS,
            ));
        }
        read => read?,
    };
    let json_limits = Limits {
        max_bytes: usize::try_from(limits.max_manifest_bytes).unwrap_or(usize::MAX),
        max_depth: 64,
        hash_key: crate::hash_key(),
    };
    let mut value = json::parse(&bytes, json_limits).map_err(|e| MvbError::from_json(&e, EXPORTS))?;
    match std::mem::replace(&mut value.node, Node::Null) {
        Node::Array(items) => Ok(items),
        _ => Err(rejected(
            MvbKind::InvalidManifest,
            "exports.json is not a JSON array",
            EXPORTS,
        )),
    }
}

/// `modelgate mvb export BUNDLE_DIR OUT_DIR` (§5): writes `<OUT_DIR>/<bundle_id>.mvb.tar`
/// atomically, then appends the export event to the bundle's `exports.json`. An existing
/// export file is [`MvbIoError::Exists`] unless `overwrite`, which replaces it atomically.
pub fn export(bundle: &Path, out_dir: &Path, overwrite: bool, progress: Progress<'_>) -> Result<Exported, MvbIoError> {
    let folder = Beneath::open(bundle)?;
    let manifest = manifest_of(&folder)?;
    let mut exports = read_exports(&folder)?;
    let files = walk(&folder)?;
    entry_paths_pass(&manifest.bundle_id, &files)?;
    inventory_matches_walk(&manifest, &files)?;
    let dest = out_dir.join(format!("{}{SUFFIX}", manifest.bundle_id));
    let total: u64 = files.iter().map(|f| f.size).sum();
    let mut failure: Option<MvbIoError> = None;
    let mut written: Option<([u8; 32], u64)> = None;
    let result = publish(&dest, overwrite, |out| {
        let mut w = Hashing {
            out,
            digest: ChunkDigest::with_sha256(),
        };
        match write_tar(&mut w, &folder, &manifest, &files, total, &mut *progress) {
            Ok(()) => {
                let d = w.digest.clone().finish();
                written = Some((d.sha256.unwrap_or_default(), d.len));
                Ok(())
            }
            Err(MvbIoError::Io(e)) => Err(e),
            Err(e) => {
                failure = Some(e);
                Err(io::Error::other("export rejected"))
            }
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    result.map_err(|e| MvbIoError::at(&dest, e))?;
    let (sha256, size) = written.unwrap_or_default();
    // §5.5: the export event goes to exports.json only after publication.
    exports.push(export_event(&dest, &sha256, size));
    let mut w = Writer::new();
    w.begin_array();
    for v in &exports {
        w.value(v);
    }
    w.end_array();
    let mut text = w.finish();
    text.push('\n');
    publish(&bundle.join(EXPORTS), true, |f| f.write_all(text.as_bytes()))?;
    Ok(Exported {
        path: dest,
        sha256,
        size,
        files: files.len() + 1,
    })
}

fn member(name: &str, value: Value) -> Member {
    Member {
        name: name.into(),
        name_offset: 0,
        value,
    }
}

fn string(s: &str) -> Value {
    Value::new(Node::String(s.into()))
}

fn export_event(dest: &Path, sha256: &[u8; 32], size: u64) -> Value {
    let file = fs::canonicalize(dest).unwrap_or_else(|_| dest.to_path_buf());
    Value::new(Node::Object(vec![
        member("at", string(&now_rfc3339())),
        member("file", string(&file.to_string_lossy())),
        member("file_sha256", string(&hex(sha256))),
        member("mvb_format_version", string(FORMAT_VERSION)),
        member("size", Value::new(Node::Number(json::Number::from_u64(size)))),
        member("tool", string("modelgate")),
        member("tool_version", string(env!("CARGO_PKG_VERSION"))),
    ]))
}

/// §5.3: marker, then each file in sorted order, hashed over the chunks written.
fn write_tar(
    w: &mut Hashing<'_>,
    bundle: &Beneath,
    manifest: &Manifest,
    files: &[BundleFile],
    total: u64,
    progress: Progress<'_>,
) -> Result<(), MvbIoError> {
    let id = &manifest.bundle_id;
    let mtime = manifest.mtime;
    let marker = Marker::for_manifest(manifest).to_bytes();
    let header_err = |_| io::Error::new(io::ErrorKind::InvalidInput, "path cannot be written to tar");
    w.put(&entry_header(id, MARKER, marker.len() as u64, mtime).map_err(header_err)?)?;
    w.put(&marker)?;
    w.put(padding(marker.len() as u64))?;
    let verifier = BundleFile {
        path: VERIFIER_NAME.into(),
        size: VERIFIER.len() as u64,
    };
    let mut all: Vec<&BundleFile> = files.iter().chain(std::iter::once(&verifier)).collect();
    all.sort_by(|a, b| a.path.as_bytes().cmp(b.path.as_bytes()));
    let expected: std::collections::HashMap<&str, &str> = manifest
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.sha256.as_str()))
        .collect();
    let mut done = 0u64;
    for f in all {
        w.put(&entry_header(id, &f.path, f.size, mtime).map_err(header_err)?)?;
        if f.path == VERIFIER_NAME {
            w.put(VERIFIER)?;
        } else {
            let sha = copy_file(w, bundle, f, &mut done, total, &mut *progress)?;
            if let Some(want) = expected.get(f.path.as_str())
                && hex(&sha) != *want
            {
                return Err(rejected(
                    MvbKind::IntegrityMismatch,
                    "payload SHA-256 differs from the inventory",
                    &f.path,
                ));
            }
        }
        w.put(padding(f.size))?;
    }
    w.put(&END_OF_ARCHIVE)?;
    Ok(())
}

/// Streams exactly `f.size` bytes of the bundle file `f` into the tar; the file must still
/// be that size, and is opened beneath the bundle folder ([`Beneath::open_file`]: a link
/// swapped in after the walk, at any step of its path, is refused, never followed).
fn copy_file(
    w: &mut Hashing<'_>,
    bundle: &Beneath,
    f: &BundleFile,
    done: &mut u64,
    total: u64,
    progress: Progress<'_>,
) -> Result<[u8; 32], MvbIoError> {
    let mut file = bundle.open_file(&f.path)?;
    let mut digest = ChunkDigest::with_sha256();
    let mut buf = vec![0u8; CHUNK];
    let mut left = f.size;
    while left > 0 {
        let want = usize::try_from(left.min(CHUNK as u64)).unwrap_or(CHUNK);
        let n = file.read(buf.get_mut(..want).unwrap_or_default())?;
        if n == 0 {
            return Err(rejected(
                MvbKind::IntegrityMismatch,
                "file shrank during export",
                &f.path,
            ));
        }
        let chunk = buf.get(..n).unwrap_or_default();
        digest.update(chunk);
        w.put(chunk)?;
        left -= n as u64;
        *done += n as u64;
        progress(*done, total);
    }
    if file.read(&mut [0u8; 1])? != 0 {
        return Err(rejected(MvbKind::IntegrityMismatch, "file grew during export", &f.path));
    }
    Ok(digest.finish().sha256.unwrap_or_default())
}

// ---------------------------------------------------------------- import

/// The staging folder of §6.2: private (mode 0700), created exclusively in `parent` as
/// `.mvb-import.<pid>.<n>.<random>.tmp`, removed with everything in it when dropped (§6.4,
/// §8.1).
fn staging(parent: &Path) -> io::Result<TempDir> {
    TempDir::create(parent, "mvb-import", "tmp")
}

/// Writes accepted files at `<staging>/<bundle_id>/<bundle path>` (§6.2); folders get the
/// ordinary mode 0755 inside the private staging root: they become the bundle's.
fn staging_sink(staging: &TempDir) -> DirSink {
    DirSink::new(staging, 0o755)
}

/// §6.1: the name rule, then the file must be a regular file.
fn open_archive(path: &Path) -> Result<(File, u64), MvbIoError> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if name.len() <= SUFFIX.len() || !name.ends_with(SUFFIX) {
        return Err(MvbIoError::Rejected(MvbError::new(
            MvbKind::InvalidArchive,
            "file name does not end in .mvb.tar",
            Location::NONE,
        )));
    }
    open_file(path)
}

/// The archive must be a regular file (§6.1), checked before it is opened: a FIFO is
/// refused, never opened ([`crate::read::open_regular_file`]).
fn open_file(path: &Path) -> Result<(File, u64), MvbIoError> {
    let (file, meta) = crate::read::open_regular_file(path)?;
    Ok((file, meta.len()))
}

/// §6.2: one streaming pass of the archive (`len` bytes) through the validator into
/// `sink`, reporting the bytes read to `progress`.
fn stream<S: EntrySink>(
    (mut file, len): (File, u64),
    sink: &mut S,
    progress: Progress<'_>,
) -> Result<Imported, MvbIoError>
where
    MvbIoError: From<S::Error>,
{
    let mut v = ImportValidator::new(MvbLimits::DEFAULT, crate::hash_key());
    let mut buf = vec![0u8; CHUNK];
    let mut done = 0u64;
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        match v.feed(buf.get(..n).unwrap_or_default(), sink) {
            Ok(()) => {}
            Err(Failure::Rejected(e)) => return Err(e.into()),
            Err(Failure::Sink(e)) => return Err(e.into()),
        }
        done = done.saturating_add(n as u64);
        progress(done, len.max(done));
    }
    Ok(v.finish()?)
}

/// What an import registered.
#[derive(Debug)]
pub struct ImportReport {
    /// `<VAULT_DIR>/<bundle_id>`.
    pub dest: PathBuf,
    /// The validated bundle.
    pub imported: Imported,
}

/// `modelgate mvb import FILE.mvb.tar VAULT_DIR` (§6): validates and unpacks in one pass
/// into a private staging folder inside the vault; only on a clean pass stamps the
/// manifest, writes the verification record and renames the bundle into the vault. On any
/// failure the staging folder is removed and the vault is unchanged.
pub fn import(archive: &Path, vault: &Path, progress: Progress<'_>) -> Result<ImportReport, MvbIoError> {
    let file = open_archive(archive)?;
    if !fs::metadata(vault)?.is_dir() {
        return Err(io::Error::new(io::ErrorKind::NotADirectory, "vault is not a folder").into());
    }
    let staging = staging(vault)?;
    let mut sink = staging_sink(&staging);
    let imported = stream(file, &mut sink, progress)?;
    drop(sink);
    let id = imported.marker.bundle_id.clone();
    let dest = vault.join(&id);
    MvbIoError::refuse_existing(&dest)?;
    let staged = staging.path().join(&id);
    let location = fs::canonicalize(vault)
        .unwrap_or_else(|_| vault.to_path_buf())
        .join(&id);
    let from = fs::canonicalize(archive).unwrap_or_else(|_| archive.to_path_buf());
    let at = now_rfc3339();
    rewrite(
        &staged.join(MANIFEST),
        stamped_manifest(&imported, &location, &from, &at)?.as_bytes(),
    )?;
    let (json, md) = verification_record(&imported, &location, &at);
    rewrite(&staged.join("verification.json"), json.as_bytes())?;
    rewrite(&staged.join("VERIFICATION.md"), md.as_bytes())?;
    // §6.3: the destination must still not exist; checked and renamed in one call where
    // the system has it.
    crate::temp::rename_new(&staged, &dest).map_err(|e| MvbIoError::at(&dest, e))?;
    // The rename is durable once the vault folder's entry is on disk.
    sync_parent(&dest);
    drop(staging);
    Ok(ImportReport { dest, imported })
}

/// Replaces a file in staging (removed first, then created exclusively, fsync'ed).
fn rewrite(path: &Path, bytes: &[u8]) -> io::Result<()> {
    match fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let mut f = create_file(path)?;
    f.write_all(bytes)?;
    f.sync_all()
}

fn host_name() -> String {
    fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "unknown".into())
}

/// §6.3: `archive.location`, `archive.host` and `archive.imported` set; every other member
/// kept. Canonical JSON plus LF, streamed from the manifest's bytes (no tree of it).
fn stamped_manifest(imported: &Imported, location: &Path, from: &Path, at: &str) -> Result<String, MvbIoError> {
    let location = string(&location.to_string_lossy());
    let host = string(&host_name());
    let stamp = Value::new(Node::Object(vec![
        member("at", string(at)),
        member("file_sha256", string(&hex(&imported.tar_sha256))),
        member("from_file", string(&from.to_string_lossy())),
        member("mvb_format_version", string(&imported.marker.format_version)),
    ]));
    let set = [("location", &location), ("host", &host), ("imported", &stamp)];
    let mut text = imported.manifest.stamped(&set, crate::hash_key())?;
    text.push('\n');
    Ok(text)
}

/// §6.3: the verification record of the pass just done.
fn verification_record(imported: &Imported, location: &Path, at: &str) -> (String, String) {
    let m = &imported.manifest;
    let mut w = Writer::new();
    w.begin_object();
    w.name("bundle_hash").string(&imported.bundle_hash);
    w.name("bundle_id").string(&m.bundle_id);
    w.name("location").string(&location.to_string_lossy());
    w.name("payload_file_count").u64(m.files.len() as u64);
    w.name("payload_size_bytes").u64(m.payload_size());
    w.name("result").string("pass");
    w.name("verified_at").string(at);
    w.name("verified_by")
        .string(concat!("modelgate ", env!("CARGO_PKG_VERSION")));
    w.end_object();
    let mut json = w.finish();
    json.push('\n');
    let md = format!(
        "# Verification\n\n- bundle: {}\n- result: PASS\n- verified at: {at}\n- payload files: {} ({} bytes), every \
         SHA-256 re-computed\n- bundle hash ({}): {}\n",
        m.bundle_id,
        m.files.len(),
        m.payload_size(),
        m.bundle_hash.algorithm,
        imported.bundle_hash
    );
    (json, md)
}

// ---------------------------------------------------------------- check and verify

/// `modelgate check FILE.mvb.tar` (§8.1): the import's validating unpack into a private
/// staging folder under the system temporary folder, always removed, reporting the bytes
/// read to `progress`. The file name is not checked (`--format mvb` may name any file).
/// Files are not synced: the folder is never published.
pub fn check_archive(archive: &Path, progress: Progress<'_>) -> Result<Imported, MvbIoError> {
    let file = open_file(archive)?;
    let staging = staging(&std::env::temp_dir())?;
    let mut sink = staging_sink(&staging).unsynced();
    let r = stream(file, &mut sink, progress);
    drop(sink);
    drop(staging);
    r
}

/// `modelgate mvb verify FILE.mvb.tar` (§7.1): §4 with a sink that keeps nothing.
pub fn verify_archive(archive: &Path, progress: Progress<'_>) -> Result<Imported, MvbIoError> {
    stream(open_archive(archive)?, &mut Discard, progress)
}

/// The result of verifying a bundle folder (§7.1).
#[derive(Debug)]
pub struct FolderReport {
    /// Every problem found (missing, extra, mismatched files; the bundle hash), in path
    /// order.
    pub problems: Vec<MvbError>,
    /// The bundle hash recomputed from the files present.
    pub bundle_hash: String,
    /// Payload files hashed.
    pub files: usize,
}

/// `modelgate mvb verify BUNDLE_DIR` (§7.1): re-hashes every payload file against the
/// manifest, reports all missing, extra and mismatched files, recomputes the bundle hash.
pub fn verify_folder(dir: &Path, progress: Progress<'_>) -> Result<FolderReport, MvbIoError> {
    let folder = Beneath::open(dir)?;
    let manifest = manifest_of(&folder)?;
    let files: Vec<BundleFile> = walk(&folder)?
        .into_iter()
        .filter(|f| manifest.is_payload(&f.path))
        .collect();
    let total: u64 = files.iter().map(|f| f.size).sum();
    let mut done = 0u64;
    let mut found: std::collections::BTreeMap<&str, String> = std::collections::BTreeMap::new();
    for f in &files {
        let mut file = folder.open_file(&f.path)?;
        let mut digest = ChunkDigest::with_sha256();
        let mut buf = vec![0u8; CHUNK];
        loop {
            let n = file.read(&mut buf)?;
            if n == 0 {
                break;
            }
            digest.update(buf.get(..n).unwrap_or_default());
            done += n as u64;
            progress(done, total);
        }
        found.insert(&f.path, hex(&digest.finish().sha256.unwrap_or_default()));
    }
    let mut problems = Vec::new();
    let listed: std::collections::BTreeMap<&str, (usize, &str)> = manifest
        .files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.path.as_str(), (i, f.sha256.as_str())))
        .collect();
    for (path, sha) in &found {
        match listed.get(path) {
            None => problems.push(MvbError::new(
                MvbKind::IntegrityMismatch,
                "extra payload file not in the inventory",
                Location::NONE.in_member(path),
            )),
            Some((_, want)) if want != sha => problems.push(MvbError::new(
                MvbKind::IntegrityMismatch,
                "payload SHA-256 differs from the inventory",
                Location::NONE.in_member(path),
            )),
            Some(_) => {}
        }
    }
    for (path, (i, _)) in &listed {
        if !found.contains_key(path) {
            let MvbIoError::Rejected(e) = missing(&manifest, *i) else {
                continue;
            };
            problems.push(e);
        }
    }
    let bundle_hash = modelgate_core::mvb::bundle_hash(found.iter().map(|(p, h)| (*p, h.as_str())));
    if bundle_hash != manifest.bundle_hash.value {
        problems.push(MvbError::new(
            MvbKind::IntegrityMismatch,
            "bundle hash does not match the payload",
            Location {
                member: Some(MANIFEST.into()),
                path: Some("manifest.inventory.bundle_hash.value".into()),
                offset: manifest.value_offset(&["inventory", "bundle_hash", "value"], None),
            },
        ));
    }
    Ok(FolderReport {
        problems,
        bundle_hash,
        files: files.len(),
    })
}
