//! The push-style import validator (`spec/mvb.md` §4): tar stream in, accepted files out to
//! an [`EntrySink`] as their bytes arrive (at `<bundle_id>/<bundle path>`, after the marker
//! passed, §4.2), every rule checked in one pass.

use super::error::{MvbError, MvbKind};
use super::hash::bundle_hash;
use super::limits::MvbLimits;
use super::manifest::{MANIFEST, Manifest, value_offset};
use super::marker::{MARKER, Marker};
use crate::Location;
use crate::archive_path::{PathLimits, PathSet, SetError, normalize};
use crate::digest::{ChunkDigest, hex};
use crate::invariant;
use crate::json::Value;
use crate::tar::reader::{Entry, lossy_name};
use crate::tar::{Discard, EntryKind, EntrySink, Event, TarLimits, TarReader, check_room};
use alloc::string::String;
use alloc::vec::Vec;
use core::cmp::Ordering;

/// Why feeding stopped: the bundle broke a rule, or the sink failed.
pub type Failure<E> = crate::tar::Failure<MvbError, E>;

/// One file of the archive as it was read: its bundle path, size and computed SHA-256.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileRecord {
    /// Bundle path (without the `<bundle_id>/` prefix).
    pub path: String,
    /// Bytes delivered.
    pub size: u64,
    /// SHA-256 of the bytes delivered.
    pub sha256: [u8; 32],
    /// Offset of the entry's first data byte in the tar.
    pub data_offset: u64,
}

/// A bundle that passed every rule of §4.
#[derive(Clone, Debug)]
pub struct Imported {
    /// The marker.
    pub marker: Marker,
    /// The embedded manifest.
    pub manifest: Manifest,
    /// Every file after the marker, in archive (= sorted) order.
    pub files: Vec<FileRecord>,
    /// SHA-256 of the whole `.mvb.tar` (§6.2).
    pub tar_sha256: [u8; 32],
    /// Length of the `.mvb.tar`.
    pub tar_len: u64,
    /// The bundle hash recomputed from the payload bytes (§4.6).
    pub bundle_hash: String,
}

/// What the current entry is.
enum Current {
    /// The marker, buffered.
    Marker { buf: Vec<u8> },
    /// A bundle file, hashed; `manifest` buffers `manifest.json`.
    File {
        path: String,
        digest: ChunkDigest,
        data_offset: u64,
        manifest: Option<Vec<u8>>,
    },
}

/// The push-style validator of §4. Feed the `.mvb.tar` bytes in pieces of any size with
/// [`ImportValidator::feed`], then call [`ImportValidator::finish`].
pub struct ImportValidator {
    tar: TarReader,
    limits: MvbLimits,
    key: [u64; 2],
    file_digest: ChunkDigest,
    marker: Option<Marker>,
    /// The marker's parsed JSON, for the offsets of §4.4 disagreements.
    marker_doc: Option<Value>,
    manifest: Option<Manifest>,
    current: Option<Current>,
    seen_first: bool,
    marker_folder: Option<String>,
    paths: PathSet,
    last: Option<String>,
    files: Vec<FileRecord>,
    entries: u64,
    total: u64,
    path_bytes: u64,
    failed: Option<MvbError>,
}

fn at_entry(e: &Entry) -> Location {
    Location::at(e.header_offset).in_member(&lossy_name(&e.path))
}

/// A location naming a member, a JSON path and, when known, the value's offset in it.
fn json_loc(member: &str, path: String, offset: Option<u64>) -> Location {
    Location {
        member: Some(String::from(member)),
        path: Some(path),
        offset,
    }
}

fn reject(kind: MvbKind, message: &'static str, location: Location) -> MvbError {
    MvbError::new(kind, message, location)
}

/// Bundle-root names that never belong in an export (§2.4).
const VOLATILE: [&str; 4] = ["exports.json", "hydration.json", "transfer.json", "transfer.lock"];

/// Bundle-root files import writes (§6.3), which therefore cannot be folders (§4.3).
const WRITTEN: [&str; 3] = ["manifest.json", "verification.json", "VERIFICATION.md"];

/// The longest name of [`WRITTEN`] (`verification.json`): the bundle-root file whose path
/// import's room check of the marker stands for (§4.2).
const LONGEST_WRITTEN: usize = "verification.json".len();

// The marker's path and the written files share `<bundle_id>/`, so the room check of the
// marker with the longest written name covers every file import adds (§6.3).
const _: () = assert!(LONGEST_WRITTEN >= "manifest.json".len() && LONGEST_WRITTEN >= "VERIFICATION.md".len());

/// §4.3 step 7 (`spec/mpk.md` §6.5): a destination path of `len` bytes must fit in what the
/// sink's folder leaves of the operating system's path limit; else `LimitExceeded` at the
/// entry, before anything is written for it.
fn fits_below<S: EntrySink>(sink: &S, len: usize, e: &Entry) -> Result<(), MvbError> {
    check_room(sink, len).map_err(|detail| MvbError::owned(MvbKind::LimitExceeded, detail, at_entry(e)))
}

/// What §4.3 step 5 reports.
const IN_WRITTEN_FOLDER: &str = "folder at a bundle-root name import writes";

/// §4.3 step 5: import writes these files at the bundle root (§6.3); a bundle path inside a
/// folder of that name (in any case, for case-insensitive file systems) would make that
/// write fail.
fn in_written_folder(path: &str) -> bool {
    path.split_once('/')
        .is_some_and(|(top, _)| WRITTEN.iter().any(|w| w.eq_ignore_ascii_case(top)))
}

/// The entry-path rules import applies to a bundle file (§4.3 steps 3 and 5), for a writer
/// that must not make an archive import refuses (§5.1): the entry path
/// `<bundle_id>/<path>` passes `spec/mpk.md` §2, its limits included, and `path` is not
/// inside a folder named like a bundle-root file import writes. The error is the one import
/// would report, located at the entry (no archive offset yet).
pub fn check_entry_path(bundle_id: &str, path: &str) -> Result<(), MvbError> {
    let entry = alloc::format!("{bundle_id}/{path}");
    let at = Location::NONE.in_member(&entry);
    normalize(entry.as_bytes(), &PathLimits::DEFAULT).map_err(|p| MvbError::from_path(&p, at.clone()))?;
    if in_written_folder(path) {
        return Err(MvbError::new(MvbKind::InvalidArchive, IN_WRITTEN_FOLDER, at));
    }
    Ok(())
}

/// True for the excluded names of §2.4 (bundle path).
pub fn is_excluded(path: &str) -> bool {
    VOLATILE.contains(&path) || path.split('/').any(|s| s == ".DS_Store")
}

impl ImportValidator {
    /// A validator under `limits`; `key` keys the duplicate tables.
    pub fn new(limits: MvbLimits, key: [u64; 2]) -> Self {
        ImportValidator {
            tar: TarReader::new(TarLimits::DEFAULT),
            limits,
            key,
            file_digest: ChunkDigest::with_sha256(),
            marker: None,
            marker_doc: None,
            manifest: None,
            current: None,
            seen_first: false,
            marker_folder: None,
            paths: PathSet::new(key),
            last: None,
            files: Vec::new(),
            entries: 0,
            total: 0,
            path_bytes: 0,
            failed: None,
        }
    }

    /// The marker, once it passed (§4.2).
    pub fn marker(&self) -> Option<&Marker> {
        self.marker.as_ref()
    }

    /// Consumes the next piece of the `.mvb.tar`.
    pub fn feed<S: EntrySink>(&mut self, input: &[u8], sink: &mut S) -> Result<(), Failure<S::Error>> {
        if let Some(e) = &self.failed {
            return Err(Failure::Rejected(e.clone()));
        }
        self.file_digest.update(input);
        let r = self.feed_inner(input, sink);
        if let Err(Failure::Rejected(e)) = &r {
            self.failed = Some(e.clone());
        }
        r
    }

    fn feed_inner<S: EntrySink>(&mut self, input: &[u8], sink: &mut S) -> Result<(), Failure<S::Error>> {
        let mut pos = 0usize;
        loop {
            let rest = invariant::sub(input, pos..);
            let (used, event) = self.tar.step(rest).map_err(|e| MvbError::from_tar(&e))?;
            pos += used;
            match event {
                Event::NeedInput => return Ok(()),
                Event::Entry(e) => self.entry(&e, sink)?,
                Event::Data(d) => self.data(d, sink)?,
                Event::EntryEnd => self.entry_end(sink)?,
                // §4.2: an archive that ends before its first entry has no marker; that is
                // known here, so what follows the end is not read.
                Event::End if !self.seen_first => return Err(marker_missing().into()),
                Event::End => {}
            }
        }
    }

    fn entry<S: EntrySink>(&mut self, e: &Entry, sink: &mut S) -> Result<(), Failure<S::Error>> {
        if !self.seen_first {
            self.seen_first = true;
            self.first_entry(e)?;
            // §4.2, §6.3: the longest bundle-root file import adds must fit below the
            // destination too (`spec/mpk.md` §6.5): `<id>/` from the marker's path.
            let folder = e.path.len().saturating_sub(MARKER.len());
            return Ok(fits_below(sink, folder.saturating_add(LONGEST_WRITTEN), e)?);
        }
        let path = self.file_rules(e)?;
        let manifest = if path == MANIFEST {
            if e.size > self.limits.max_manifest_bytes {
                // §4.4: from the header, before the sink sees the file.
                let at = at_entry(e);
                return Err(reject(MvbKind::LimitExceeded, "manifest.json exceeds max_manifest_bytes", at).into());
            }
            Some(Vec::with_capacity(usize::try_from(e.size).unwrap_or(0)))
        } else {
            None
        };
        // The raw entry path is `<bundle_id>/<path>`, UTF-8 in normal form (§4.3.3), as
        // `file_rules` has checked.
        let dest = invariant::some(core::str::from_utf8(&e.path).ok());
        fits_below(sink, dest.len(), e)?;
        sink.begin(dest, e.size).map_err(Failure::Sink)?;
        self.current = Some(Current::File {
            path,
            digest: ChunkDigest::with_sha256(),
            data_offset: e.data_offset,
            manifest,
        });
        Ok(())
    }

    /// §4.2: the marker is the first entry.
    fn first_entry(&mut self, e: &Entry) -> Result<(), MvbError> {
        let id = e
            .path
            .strip_suffix(b"/.mvb.json")
            .and_then(|id| core::str::from_utf8(id).ok())
            .filter(|id| super::fields::is_bundle_id(id));
        if e.kind != EntryKind::Regular || id.is_none() {
            return Err(reject(
                MvbKind::InvalidArchive,
                "marker .mvb.json is not the first entry",
                at_entry(e),
            ));
        }
        if e.size > self.limits.max_marker_bytes {
            return Err(reject(
                MvbKind::LimitExceeded,
                "marker exceeds max_marker_bytes",
                at_entry(e),
            ));
        }
        let _ = self.paths.insert(MARKER, false);
        self.marker_folder = id.map(String::from);
        self.current = Some(Current::Marker {
            buf: Vec::with_capacity(usize::try_from(e.size).unwrap_or(0)),
        });
        Ok(())
    }

    /// §4.3: the rules for every entry after the marker; returns the bundle path.
    fn file_rules(&mut self, e: &Entry) -> Result<String, MvbError> {
        let at = at_entry(e);
        self.entries += 1;
        if self.entries > self.limits.max_entries {
            return Err(reject(MvbKind::LimitExceeded, "more entries than max_entries", at));
        }
        self.path_bytes = self
            .path_bytes
            .saturating_add(u64::try_from(e.path.len()).unwrap_or(u64::MAX));
        if self.path_bytes > self.limits.max_path_total_bytes {
            return Err(reject(
                MvbKind::LimitExceeded,
                "entry paths exceed max_path_total_bytes",
                at.clone(),
            ));
        }
        match e.kind {
            EntryKind::Regular => {}
            EntryKind::Symlink | EntryKind::HardLink => {
                return Err(reject(MvbKind::PathTraversal, "link entry in bundle", at));
            }
            _ => return Err(reject(MvbKind::InvalidArchive, "entry is not a regular file", at)),
        }
        let member = lossy_name(&e.path);
        let normal = normalize(&e.path, &PathLimits::DEFAULT)
            .map_err(|p| MvbError::from_path(&p, Location::at(e.header_offset).in_member(&member)))?;
        if normal.as_bytes() != e.path.as_slice() {
            return Err(reject(MvbKind::InvalidArchive, "non-canonical entry path", at));
        }
        let id = self.marker.as_ref().map(|m| m.bundle_id.as_str()).unwrap_or_default();
        let path = match normal.strip_prefix(id).and_then(|r| r.strip_prefix('/')) {
            Some(p) if !id.is_empty() => String::from(p),
            _ => return Err(reject(MvbKind::InvalidArchive, "entry outside the bundle folder", at)),
        };
        match self.last.as_deref().map(|l| path.as_bytes().cmp(l.as_bytes())) {
            Some(Ordering::Equal) => return Err(reject(MvbKind::InvalidArchive, "duplicate entry", at)),
            Some(Ordering::Less) => return Err(reject(MvbKind::InvalidArchive, "entry out of sorted order", at)),
            _ => {}
        }
        match self.paths.insert(&path, false) {
            Ok(()) => {}
            Err(SetError::Full) => return Err(reject(MvbKind::LimitExceeded, "too many distinct paths", at)),
            Err(_) => {
                return Err(reject(
                    MvbKind::InvalidArchive,
                    "duplicate or conflicting entry path",
                    at,
                ));
            }
        }
        if is_excluded(&path) {
            return Err(reject(
                MvbKind::InvalidArchive,
                "volatile machine-local file in archive",
                at,
            ));
        }
        if in_written_folder(&path) {
            return Err(reject(MvbKind::InvalidArchive, IN_WRITTEN_FOLDER, at));
        }
        if e.size > self.limits.max_entry_bytes {
            return Err(reject(MvbKind::LimitExceeded, "entry exceeds max_entry_bytes", at));
        }
        self.total = self.total.saturating_add(e.size);
        if self.total > self.limits.max_total_bytes {
            return Err(reject(MvbKind::LimitExceeded, "entries exceed max_total_bytes", at));
        }
        self.last = Some(path.clone());
        Ok(path)
    }

    fn data<S: EntrySink>(&mut self, d: &[u8], sink: &mut S) -> Result<(), Failure<S::Error>> {
        match &mut self.current {
            Some(Current::Marker { buf }) => buf.extend_from_slice(d),
            Some(Current::File { digest, manifest, .. }) => {
                digest.update(d);
                if let Some(m) = manifest {
                    m.extend_from_slice(d);
                }
                sink.data(d).map_err(Failure::Sink)?;
            }
            None => {}
        }
        Ok(())
    }

    fn entry_end<S: EntrySink>(&mut self, sink: &mut S) -> Result<(), Failure<S::Error>> {
        match self.current.take() {
            Some(Current::Marker { buf }) => self.marker_done(&buf)?,
            Some(Current::File {
                path,
                digest,
                data_offset,
                manifest,
            }) => {
                sink.end().map_err(Failure::Sink)?;
                let d = digest.finish();
                if let Some(bytes) = manifest {
                    self.manifest_done(bytes)?;
                }
                self.files.push(FileRecord {
                    path,
                    size: d.len,
                    sha256: invariant::some(d.sha256),
                    data_offset,
                });
            }
            None => {}
        }
        Ok(())
    }

    /// §4.2: parse the marker; its bundle id must be the folder's (located at the marker's
    /// `bundle_id` value).
    fn marker_done(&mut self, bytes: &[u8]) -> Result<(), MvbError> {
        let (marker, doc) = Marker::parse_document(bytes, self.limits.max_marker_bytes, self.key)?;
        if self.marker_folder.as_deref() != Some(marker.bundle_id.as_str()) {
            return Err(reject(
                MvbKind::InvalidManifest,
                "bundle_id differs from the marker's folder",
                marker_loc(&doc, &["bundle_id"]),
            ));
        }
        self.marker = Some(marker);
        self.marker_doc = Some(doc);
        Ok(())
    }

    /// §4.4: parse the manifest and compare it with the marker.
    fn manifest_done(&mut self, bytes: Vec<u8>) -> Result<(), MvbError> {
        let manifest = Manifest::parse_owned(bytes, &self.limits, self.key)?;
        if let (Some(marker), Some(doc)) = (&self.marker, &self.marker_doc) {
            agree(marker, doc, &manifest)?;
        }
        self.manifest = Some(manifest);
        Ok(())
    }

    /// Declares the end of the file and runs §4.4 to §4.6.
    pub fn finish(mut self) -> Result<Imported, MvbError> {
        if let Some(e) = self.failed {
            return Err(e);
        }
        let summary = self.tar.finish().map_err(|e| MvbError::from_tar(&e))?;
        let Some(marker) = self.marker else {
            return Err(marker_missing());
        };
        let Some(manifest) = self.manifest else {
            let at = Location::at(summary.input_len);
            return Err(reject(MvbKind::InvalidManifest, "bundle has no manifest.json", at));
        };
        let hash = inventory_agreement(&manifest, &self.files)?;
        if hash != manifest.bundle_hash.value {
            let offset = manifest.value_offset(&["inventory", "bundle_hash", "value"], None);
            let loc = json_loc(MANIFEST, String::from("manifest.inventory.bundle_hash.value"), offset);
            return Err(reject(
                MvbKind::IntegrityMismatch,
                "bundle hash does not match the payload",
                loc,
            ));
        }
        Ok(Imported {
            marker,
            manifest,
            files: self.files,
            tar_sha256: invariant::some(self.file_digest.finish().sha256),
            tar_len: summary.input_len,
            bundle_hash: hash,
        })
    }
}

/// §4.2: the archive holds no marker.
fn marker_missing() -> MvbError {
    reject(MvbKind::InvalidArchive, "marker .mvb.json missing", Location::at(0))
}

/// The marker value at member path `names`: member `.mvb.json`, JSON path `marker.<names>`,
/// the value's offset in the marker (§4.2, §4.4).
fn marker_loc(doc: &Value, names: &[&str]) -> Location {
    let path = alloc::format!("marker.{}", names.join("."));
    json_loc(MARKER, path, value_offset(doc, names, None))
}

/// §4.4: marker and manifest state the same facts; a disagreement is located at the
/// marker's value.
fn agree(marker: &Marker, doc: &Value, manifest: &Manifest) -> Result<(), MvbError> {
    let count = u64::try_from(manifest.files.len()).unwrap_or(u64::MAX);
    let (mh, fh) = (&marker.bundle_hash, &manifest.bundle_hash);
    let checks: [(bool, &[&str]); 8] = [
        (marker.bundle_id == manifest.bundle_id, &["bundle_id"]),
        (marker.artifact_type == manifest.artifact_type, &["artifact_type"]),
        (marker.schema_version == manifest.schema_version, &["schema_version"]),
        (mh.algorithm == fh.algorithm, &["bundle_hash", "algorithm"]),
        (mh.value == fh.value, &["bundle_hash", "value"]),
        (mh.covers == fh.covers, &["bundle_hash", "covers"]),
        (marker.payload_file_count == count, &["payload_file_count"]),
        (
            marker.payload_size_bytes == manifest.payload_size(),
            &["payload_size_bytes"],
        ),
    ];
    match checks.iter().find(|(ok, _)| !ok) {
        None => Ok(()),
        Some((_, names)) => Err(reject(
            MvbKind::IntegrityMismatch,
            "marker disagrees with manifest.json",
            marker_loc(doc, names),
        )),
    }
}

/// §4.5: the payload files of the archive (sorted) against the inventory, merged in path
/// order; returns the bundle hash of the computed digests (§4.6).
fn inventory_agreement(manifest: &Manifest, files: &[FileRecord]) -> Result<String, MvbError> {
    let mut inventory: Vec<(usize, &super::manifest::InventoryFile)> = manifest.files.iter().enumerate().collect();
    inventory.sort_unstable_by(|a, b| a.1.path.as_bytes().cmp(b.1.path.as_bytes()));
    let payload: Vec<&FileRecord> = files.iter().filter(|f| manifest.is_payload(&f.path)).collect();
    let hexes: Vec<String> = payload.iter().map(|f| hex(&f.sha256)).collect();
    let (mut i, mut j) = (0usize, 0usize);
    loop {
        let (file, inv) = (payload.get(i), inventory.get(j));
        let order = match (file, inv) {
            (None, None) => break,
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (Some(f), Some((_, e))) => f.path.as_bytes().cmp(e.path.as_bytes()),
        };
        match (order, file, inv) {
            (Ordering::Less, Some(f), _) => {
                let loc = Location::at(f.data_offset).in_member(&f.path);
                return Err(reject(
                    MvbKind::IntegrityMismatch,
                    "extra payload file not in the inventory",
                    loc,
                ));
            }
            (Ordering::Greater, _, Some((idx, _))) => {
                let path = alloc::format!("manifest.inventory.files[{idx}]");
                let offset = manifest.value_offset(&["inventory", "files"], Some(*idx));
                let loc = json_loc(MANIFEST, path, offset);
                return Err(reject(
                    MvbKind::IntegrityMismatch,
                    "missing payload file listed in the inventory",
                    loc,
                ));
            }
            (_, Some(f), Some((_, e))) => {
                let loc = Location::at(f.data_offset).in_member(&f.path);
                if f.size != e.size {
                    return Err(reject(
                        MvbKind::IntegrityMismatch,
                        "payload size differs from the inventory",
                        loc,
                    ));
                }
                if hexes.get(i).map(String::as_str) != Some(e.sha256.as_str()) {
                    return Err(reject(
                        MvbKind::IntegrityMismatch,
                        "payload SHA-256 differs from the inventory",
                        loc,
                    ));
                }
                i += 1;
                j += 1;
            }
            _ => break,
        }
    }
    Ok(bundle_hash(
        payload.iter().zip(&hexes).map(|(f, h)| (f.path.as_str(), h.as_str())),
    ))
}

/// Validates a whole `.mvb.tar` held in memory (§4); nothing is written.
pub fn check_mvb(bytes: &[u8], limits: MvbLimits, key: [u64; 2]) -> Result<Imported, MvbError> {
    let mut v = ImportValidator::new(limits, key);
    match v.feed(bytes, &mut Discard) {
        Ok(()) => {}
        Err(Failure::Rejected(e)) => return Err(e),
        Err(Failure::Sink(never)) => match never {},
    }
    v.finish()
}
