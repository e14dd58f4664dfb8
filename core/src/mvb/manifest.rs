//! The manifest fields export and import rely on (`spec/mvb.md` §1.2).

use super::error::{MvbError, MvbKind};
use super::fields::{is_bundle_id, is_sha256_hex, rfc3339_utc, schema_major};
use super::hash::{ALGORITHM, COVERS_AFTER_ROOT, covers};
use super::limits::MvbLimits;
use crate::Location;
use crate::archive_path::{PathLimits, PathSet, normalize};
use crate::json::{self, Cursor, FieldError, Keep, Limits, Problem, Value};
use alloc::string::String;
use alloc::vec::Vec;

/// The manifest's member name in a bundle.
pub const MANIFEST: &str = "manifest.json";

/// JSON nesting allowed in `manifest.json`.
pub(crate) const MANIFEST_DEPTH: usize = 64;

/// One `inventory.files[]` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InventoryFile {
    /// Bundle path (under the payload root).
    pub path: String,
    /// Size in bytes.
    pub size: u64,
    /// Lowercase hex SHA-256.
    pub sha256: String,
}

/// `inventory.bundle_hash` (§1.2, §1.4).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BundleHash {
    /// Always `ALGORITHM`.
    pub algorithm: String,
    /// Lowercase hex SHA-256.
    pub value: String,
    /// The coverage statement.
    pub covers: String,
}

/// The fields of `manifest.json` that mvb relies on (§1.2), the members they come from as
/// kept by [`json::parse`] with a [`json::Keep`] schema, and the document's bytes for the import rewrite (§6.3).
#[derive(Clone, Debug)]
pub struct Manifest {
    /// `schema_version` (major 1).
    pub schema_version: String,
    /// `artifact_type`.
    pub artifact_type: String,
    /// `bundle_id`.
    pub bundle_id: String,
    /// `inventory.layout.payload_root` without its trailing slash.
    pub payload_root: String,
    /// `inventory.files`, in document order.
    pub files: Vec<InventoryFile>,
    /// `inventory.bundle_hash`.
    pub bundle_hash: BundleHash,
    /// `archive.date_archived` as written.
    pub date_archived: String,
    /// `archive.date_archived` in whole seconds since the epoch (the tar mtime, §2.3).
    pub mtime: u64,
    /// The members of §1.2 as [`json::parse`] keeps them (with their offsets, for
    /// locations); every other member is checked and dropped (§1.2, memory).
    pub fields: Value,
    /// The document's bytes, which the import rewrite streams from (§6.3).
    pub text: Vec<u8>,
}

fn rule(c: &Cursor<'_, '_>, what: &'static str) -> FieldError {
    c.error(Problem::Rule(what))
}

/// Characters of a string value that a message shows.
const SHOWN_CHARS: usize = 64;

/// The error of the string `found` under `c` where exactly `expected` is required.
fn not_exactly(c: &Cursor<'_, '_>, expected: &str, found: &str) -> FieldError {
    let text = alloc::format!(
        "must be {}, not {}",
        json::quoted(expected, usize::MAX),
        json::quoted(found, SHOWN_CHARS)
    );
    c.error(Problem::Stated(text))
}

fn nonempty<'v>(c: &Cursor<'v, '_>) -> Result<&'v str, FieldError> {
    let s = c.str()?;
    if s.is_empty() {
        return Err(rule(c, "must be a non-empty string"));
    }
    Ok(s)
}

/// An integer 0..2^63 (§1.2).
pub(crate) fn size_field(c: &Cursor<'_, '_>) -> Result<u64, FieldError> {
    let n = c.u64()?;
    if n > i64::MAX as u64 {
        return Err(c.error(Problem::OutOfRange));
    }
    Ok(n)
}

/// `schema_version` (§1.2): the form is `InvalidManifest`, a major other than 1
/// `UnsupportedVersion`.
pub(crate) fn schema_version(c: &Cursor<'_, '_>, member: &str) -> Result<String, MvbError> {
    let s = c
        .str()
        .map_err(|e| MvbError::from_field(MvbKind::InvalidManifest, &e, member))?;
    match schema_major(s) {
        None => Err(MvbError::from_field(
            MvbKind::InvalidManifest,
            &rule(c, "must be MAJOR.MINOR.PATCH"),
            member,
        )),
        Some(1) => Ok(String::from(s)),
        Some(major) => Err(MvbError::from_field(
            MvbKind::UnsupportedVersion,
            &c.error(Problem::Stated(alloc::format!(
                "schema_version major {major} is not supported (expected 1)"
            ))),
            member,
        )),
    }
}

/// `bundle_hash` (§1.2) with the coverage statement for `payload_root` when known.
pub(crate) fn bundle_hash(c: &Cursor<'_, '_>, payload_root: Option<&str>) -> Result<BundleHash, FieldError> {
    let algorithm = c.field("algorithm")?;
    let found = algorithm.str()?;
    if found != ALGORITHM {
        return Err(not_exactly(&algorithm, ALGORITHM, found));
    }
    let value = c.field("value")?;
    if !is_sha256_hex(value.str()?) {
        return Err(rule(&value, "must be 64 lowercase hex digits"));
    }
    let cov = c.field("covers")?;
    let text = cov.str()?;
    // §1.2: exactly `covers(root)`. The marker (§3.2) does not know the root, so there the
    // text must be `covers(r)` for some `r` a payload root may be; which one is §4.4's
    // agreement with the manifest.
    let stated = match payload_root {
        Some(root) => text == covers(root),
        None => text.strip_suffix(COVERS_AFTER_ROOT).is_some_and(is_payload_root),
    };
    if !stated {
        let expected = match payload_root {
            Some(root) => json::quoted(&covers(root), usize::MAX),
            None => alloc::format!("\"<payload root>{COVERS_AFTER_ROOT}\""),
        };
        let text = alloc::format!(
            "must state the payload root it covers: exactly {expected}, not {}",
            json::quoted(text, SHOWN_CHARS)
        );
        return Err(cov.error(Problem::Stated(text)));
    }
    Ok(BundleHash {
        algorithm: String::from(ALGORITHM),
        value: String::from(value.str()?),
        covers: String::from(text),
    })
}

/// `bundle_id` (§1.3).
pub(crate) fn bundle_id(c: &Cursor<'_, '_>) -> Result<String, FieldError> {
    let s = c.str()?;
    if !is_bundle_id(s) {
        return Err(rule(c, "must be one plain path segment of at most 200 bytes"));
    }
    Ok(String::from(s))
}

/// The manifest's `kind` (§1.2).
const KIND: &str = "darsay.bundle";

/// The metadata names a payload root may not take (§1.2, §2.4).
const RESERVED_ROOTS: [&str; 8] = [
    MANIFEST,
    ".mvb.json",
    "darsay-verify.py",
    "exports.json",
    "hydration.json",
    "transfer.json",
    "transfer.lock",
    ".DS_Store",
];

/// A payload root without its trailing slash (§1.2): one bundle path segment, not a
/// metadata name of §2.4.
fn is_payload_root(bare: &str) -> bool {
    is_bundle_id(bare) && !RESERVED_ROOTS.contains(&bare)
}

fn payload_root(c: &Cursor<'_, '_>) -> Result<String, FieldError> {
    let s = c.str()?;
    let bare = s.strip_suffix('/').unwrap_or(s);
    if !is_payload_root(bare) {
        return Err(rule(c, "must be one plain path segment, optionally ending in /"));
    }
    Ok(String::from(bare))
}

/// The one §1.2 rule that is a reader limit (`max_entries`, §4.7): `LimitExceeded`, not
/// `InvalidManifest`.
const TOO_MANY_FILES: &str = "more inventory files than max_entries";

fn inventory_files(
    c: &Cursor<'_, '_>,
    root: &str,
    limits: &MvbLimits,
    key: [u64; 2],
) -> Result<Vec<InventoryFile>, FieldError> {
    let items = c.array()?;
    if u64::try_from(items.len()).unwrap_or(u64::MAX) > limits.max_entries {
        return Err(c.error(Problem::Rule(TOO_MANY_FILES)));
    }
    let mut set = PathSet::new(key);
    let mut out = Vec::with_capacity(items.len());
    for item in c.items()? {
        let p = item.field("path")?;
        let path = p.str()?;
        let canonical = normalize(path.as_bytes(), &PathLimits::DEFAULT).is_ok_and(|n| n == path);
        let under = path
            .strip_prefix(root)
            .is_some_and(|r| r.len() > 1 && r.starts_with('/'));
        if !canonical || !under {
            return Err(rule(&p, "must be a normalised bundle path under the payload root"));
        }
        if set.insert(path, false).is_err() {
            return Err(rule(&p, "duplicate or conflicting inventory path"));
        }
        let size = size_field(&item.field("size")?)?;
        let sha = item.field("sha256")?;
        if !is_sha256_hex(sha.str()?) {
            return Err(rule(&sha, "must be 64 lowercase hex digits"));
        }
        out.push(InventoryFile {
            path: String::from(path),
            size,
            sha256: String::from(sha.str()?),
        });
    }
    Ok(out)
}

/// Offset in the parsed JSON document `doc` of the value at member path `names`, then
/// array element `index` (locations of marker and manifest values, §9).
pub(crate) fn value_offset(doc: &Value, names: &[&str], index: Option<usize>) -> Option<u64> {
    let mut v = doc;
    for name in names {
        v = v.get(name)?;
    }
    if let Some(i) = index {
        match &v.node {
            json::Node::Array(items) => v = items.get(i)?,
            _ => return None,
        }
    }
    u64::try_from(v.offset).ok()
}

/// Parses `manifest.json` strictly, keeping only the members §1.2 reads (§1.2, memory):
/// `inventory.files` keeps at most `max_entries + 1` elements, enough for its count rule.
fn parse_fields(bytes: &[u8], limits: Limits, max_entries: u64) -> Result<Value, MvbError> {
    use Keep::{Items, Members, Shape};
    let entry = [("path", Shape), ("size", Shape), ("sha256", Shape)];
    let file = Members(&entry);
    let most = usize::try_from(max_entries).unwrap_or(usize::MAX).saturating_add(1);
    let layout = [("payload_root", Shape)];
    let hash = [("algorithm", Shape), ("value", Shape), ("covers", Shape)];
    let inventory = [
        ("layout", Members(&layout)),
        ("files", Items(most, &file)),
        ("bundle_hash", Members(&hash)),
    ];
    let archive = [("date_archived", Shape)];
    let root = [
        ("schema_version", Shape),
        ("kind", Shape),
        ("artifact_type", Shape),
        ("bundle_id", Shape),
        ("inventory", Members(&inventory)),
        ("archive", Members(&archive)),
    ];
    let keep = Some(Members(&root));
    json::parse(bytes, json::ParseOptions { limits, keep }).map_err(|e| MvbError::from_json(&e, MANIFEST))
}

impl Manifest {
    /// Parses `manifest.json` (§1.2). `key` keys the duplicate tables. [`Manifest::text`]
    /// is a copy of `bytes`.
    pub fn parse(bytes: &[u8], limits: &MvbLimits, key: [u64; 2]) -> Result<Manifest, MvbError> {
        let mut m = Manifest::read(bytes, limits, key)?;
        m.text = bytes.to_vec();
        Ok(m)
    }

    /// [`Manifest::parse`] keeping `bytes` themselves as [`Manifest::text`], so that a
    /// reader that buffered them does not hold them twice (§4, memory).
    pub fn parse_owned(bytes: Vec<u8>, limits: &MvbLimits, key: [u64; 2]) -> Result<Manifest, MvbError> {
        let mut m = Manifest::read(&bytes, limits, key)?;
        m.text = bytes;
        Ok(m)
    }

    /// The §1.2 reading of `bytes`, without [`Manifest::text`].
    fn read(bytes: &[u8], limits: &MvbLimits, key: [u64; 2]) -> Result<Manifest, MvbError> {
        let size = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
        if size > limits.max_manifest_bytes {
            let at = Location::at(limits.max_manifest_bytes).in_member(MANIFEST);
            return Err(MvbError::new(
                MvbKind::LimitExceeded,
                "manifest.json exceeds max_manifest_bytes",
                at,
            ));
        }
        let json_limits = Limits {
            max_bytes: usize::try_from(limits.max_manifest_bytes).unwrap_or(usize::MAX),
            max_depth: MANIFEST_DEPTH,
            hash_key: key,
        };
        let kept = parse_fields(bytes, json_limits, limits.max_entries)?;
        let root = Cursor::root(&kept, "manifest");
        // §1.2: a rule failure is `InvalidManifest`; the inventory count is a limit (§4.7).
        let bad = |e: FieldError| {
            let kind = if e.problem == Problem::Rule(TOO_MANY_FILES) {
                MvbKind::LimitExceeded
            } else {
                MvbKind::InvalidManifest
            };
            MvbError::from_field(kind, &e, MANIFEST)
        };
        // §1.2: the record version first, so a newer major is reported as such.
        let schema_version = schema_version(&root.field("schema_version").map_err(bad)?, MANIFEST)?;
        let fields = (|| {
            let kind = root.field("kind")?;
            let found = kind.str()?;
            if found != KIND {
                return Err(not_exactly(&kind, KIND, found));
            }
            let artifact_type = String::from(nonempty(&root.field("artifact_type")?)?);
            let bundle_id = bundle_id(&root.field("bundle_id")?)?;
            let inventory = root.field("inventory")?;
            let layout = inventory.field("layout")?;
            let payload_root = payload_root(&layout.field("payload_root")?)?;
            let files = inventory_files(&inventory.field("files")?, &payload_root, limits, key)?;
            let bundle_hash = bundle_hash(&inventory.field("bundle_hash")?, Some(&payload_root))?;
            let archive = root.field("archive")?;
            let date = archive.field("date_archived")?;
            let date_archived = date.str()?;
            let mtime = rfc3339_utc(date_archived).ok_or_else(|| rule(&date, "must be RFC 3339 UTC"))?;
            Ok((
                artifact_type,
                bundle_id,
                payload_root,
                files,
                bundle_hash,
                String::from(date_archived),
                mtime,
            ))
        })()
        .map_err(bad)?;
        let (artifact_type, bundle_id, payload_root, files, bundle_hash, date_archived, mtime) = fields;
        Ok(Manifest {
            schema_version,
            artifact_type,
            bundle_id,
            payload_root,
            files,
            bundle_hash,
            date_archived,
            mtime,
            fields: kept,
            text: Vec::new(),
        })
    }

    /// The canonical text of the whole document with the members `set` of `archive`
    /// given their values, in place or appended (§6.3), streamed from [`Manifest::text`]
    /// so that no tree of the document is built.
    pub fn stamped(&self, set: &[(&str, &Value)], key: [u64; 2]) -> Result<String, MvbError> {
        let limits = Limits {
            max_bytes: self.text.len(),
            max_depth: MANIFEST_DEPTH,
            hash_key: key,
        };
        json::canonical_with_members(&self.text, limits, &["archive"], set)
            .map_err(|e| MvbError::from_json(&e, MANIFEST))
    }

    /// Sum of the inventory's sizes (saturating).
    pub fn payload_size(&self) -> u64 {
        self.files.iter().fold(0u64, |a, f| a.saturating_add(f.size))
    }

    /// True when `path` (a bundle path) is under the payload root.
    pub fn is_payload(&self, path: &str) -> bool {
        path.strip_prefix(self.payload_root.as_str())
            .is_some_and(|r| r.starts_with('/'))
    }

    /// Offset in `manifest.json` of the value at member path `names`, then array element
    /// `index` (for locations, §9).
    pub fn value_offset(&self, names: &[&str], index: Option<usize>) -> Option<u64> {
        value_offset(&self.fields, names, index)
    }

    /// The bundle hash recomputed from the inventory's own lines (§1.4).
    pub fn inventory_hash(&self) -> String {
        super::hash::bundle_hash(self.files.iter().map(|f| (f.path.as_str(), f.sha256.as_str())))
    }
}
