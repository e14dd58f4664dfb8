//! The `.mvb.json` marker, always the first entry (`spec/mvb.md` §3).

use super::error::{MvbError, MvbKind};
use super::fields::major_minor;
use super::manifest::{BundleHash, Manifest, bundle_hash, bundle_id, schema_version, size_field};
use crate::json::{self, Cursor, FieldError, Limits, Problem, Value, Writer};
use alloc::string::String;
use alloc::vec::Vec;

/// The marker's member name inside the bundle folder.
pub const MARKER: &str = ".mvb.json";

/// The container format version this implementation writes (§3.1).
pub const FORMAT_VERSION: &str = "1.2";

/// The container major version import requires (§3.2).
pub(crate) const FORMAT_MAJOR: u64 = 1;

/// The tool family named in `written_by` (§3.1).
pub(crate) const WRITTEN_BY: &str = "darsay";

/// JSON nesting allowed in the marker (§3.2).
pub(crate) const MARKER_DEPTH: usize = 16;

/// The marker's fields (§3.1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Marker {
    /// `mvb_format_version`.
    pub format_version: String,
    /// `bundle_id`.
    pub bundle_id: String,
    /// `artifact_type`.
    pub artifact_type: String,
    /// `schema_version`.
    pub schema_version: String,
    /// `bundle_hash`.
    pub bundle_hash: BundleHash,
    /// `payload_file_count`.
    pub payload_file_count: u64,
    /// `payload_size_bytes`.
    pub payload_size_bytes: u64,
    /// `written_by.tool`.
    pub written_by: String,
}

fn bad(e: FieldError) -> MvbError {
    MvbError::from_field(MvbKind::InvalidManifest, &e, MARKER)
}

impl Marker {
    /// The marker export writes for `manifest` (§3.1).
    pub fn for_manifest(manifest: &Manifest) -> Marker {
        Marker {
            format_version: String::from(FORMAT_VERSION),
            bundle_id: manifest.bundle_id.clone(),
            artifact_type: manifest.artifact_type.clone(),
            schema_version: manifest.schema_version.clone(),
            bundle_hash: manifest.bundle_hash.clone(),
            payload_file_count: u64::try_from(manifest.files.len()).unwrap_or(u64::MAX),
            payload_size_bytes: manifest.payload_size(),
            written_by: String::from(WRITTEN_BY),
        }
    }

    /// Canonical JSON and one LF, members in the order of §3.1.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.begin_object();
        w.name("mvb_format_version").string(&self.format_version);
        w.name("bundle_id").string(&self.bundle_id);
        w.name("artifact_type").string(&self.artifact_type);
        w.name("schema_version").string(&self.schema_version);
        w.name("bundle_hash").begin_object();
        w.name("algorithm").string(&self.bundle_hash.algorithm);
        w.name("value").string(&self.bundle_hash.value);
        w.name("covers").string(&self.bundle_hash.covers);
        w.end_object();
        w.name("payload_file_count").u64(self.payload_file_count);
        w.name("payload_size_bytes").u64(self.payload_size_bytes);
        w.name("written_by")
            .begin_object()
            .name("tool")
            .string(&self.written_by)
            .end_object();
        w.end_object();
        let mut text = w.finish();
        text.push('\n');
        text.into_bytes()
    }

    /// Reads a marker (§3.2): the container version first, then the record version, then
    /// the rest. `key` keys the duplicate-name table.
    pub fn parse(bytes: &[u8], max_bytes: u64, key: [u64; 2]) -> Result<Marker, MvbError> {
        Marker::parse_document(bytes, max_bytes, key).map(|(marker, _)| marker)
    }

    /// [`Marker::parse`], also returning the parsed JSON document, whose value offsets
    /// locate a disagreement with the manifest (§4.2, §4.4).
    pub(crate) fn parse_document(bytes: &[u8], max_bytes: u64, key: [u64; 2]) -> Result<(Marker, Value), MvbError> {
        let limits = Limits {
            max_bytes: usize::try_from(max_bytes).unwrap_or(usize::MAX),
            max_depth: MARKER_DEPTH,
            hash_key: key,
        };
        let doc = json::parse(bytes, limits).map_err(|e| MvbError::from_json(&e, MARKER))?;
        let root = Cursor::root(&doc, "marker");
        let version = root.field("mvb_format_version").map_err(bad)?;
        let format_version = String::from(version.str().map_err(bad)?);
        match major_minor(&format_version) {
            None => return Err(bad(version.error(Problem::Rule("must be MAJOR.MINOR")))),
            Some((FORMAT_MAJOR, _)) => {}
            Some((major, _)) => {
                let e = version.error(Problem::Stated(alloc::format!(
                    "container major version {major} is not supported (expected {FORMAT_MAJOR})"
                )));
                return Err(MvbError::from_field(MvbKind::UnsupportedVersion, &e, MARKER));
            }
        }
        let schema_version = schema_version(&root.field("schema_version").map_err(bad)?, MARKER)?;
        let rest = (|| {
            let bundle_id = bundle_id(&root.field("bundle_id")?)?;
            let at = root.field("artifact_type")?;
            let artifact_type = String::from(at.str()?);
            if artifact_type.is_empty() {
                return Err(at.error(Problem::Rule("must be a non-empty string")));
            }
            let hash = bundle_hash(&root.field("bundle_hash")?, None)?;
            let count = size_field(&root.field("payload_file_count")?)?;
            let size = size_field(&root.field("payload_size_bytes")?)?;
            let tool = root.field("written_by")?;
            let tool = tool.field("tool")?;
            let written_by = String::from(tool.str()?);
            if written_by.is_empty() {
                return Err(tool.error(Problem::Rule("must be a non-empty string")));
            }
            Ok((bundle_id, artifact_type, hash, count, size, written_by))
        })()
        .map_err(bad)?;
        let (bundle_id, artifact_type, bundle_hash, payload_file_count, payload_size_bytes, written_by) = rest;
        let marker = Marker {
            format_version,
            bundle_id,
            artifact_type,
            schema_version,
            bundle_hash,
            payload_file_count,
            payload_size_bytes,
            written_by,
        };
        Ok((marker, doc))
    }
}
