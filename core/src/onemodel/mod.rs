//! OneModel v1 (`spec/onemodel.md`): a 64-byte header, a strict JSON manifest and 64-byte
//! aligned tensor bytes, read from a byte slice with every tensor a view of it.
//!
//! - [`header`]: the header and its checks against the real length (§1.1).
//! - `manifest` (private): the manifest tables (§2), read from the strict parser's tape.
//! - [`tensor`]: dtype table, element counts, ranges (§2.5).
//! - [`names`]: name resolution and stable dependency order (§3.1).
//! - [`writer`]: the deterministic writer (§4).
//! - [`model`]: the in-memory model; [`error`]: the four failure kinds (§3.2).

pub mod base64;
pub mod error;
pub mod header;
mod manifest;
pub mod model;
pub mod names;
pub mod tensor;
pub(crate) mod unique;
pub mod writer;

pub use error::{Error, ErrorKind};
pub use header::{Header, MAGIC};
pub use model::*;
pub use writer::{write, write_with};

use crate::json;

/// Reader and writer limits (`spec/onemodel.md` §1.2, §3.2, §4). The writer applies each
/// reader limit to its output, so it never writes a file the reader with the same limits
/// rejects; `max_shared_data` is the writer's alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest manifest in bytes (default 512 MiB, capped by `spec/json.md` §6).
    pub max_manifest: u64,
    /// Most JSON arrays and objects open at once (default 1024).
    pub max_json_depth: usize,
    /// Most graphs and types open at once (default 64).
    pub max_nesting: usize,
    /// Most bytes the writer may add by writing in full each tensor that shares bytes with
    /// another (§1.3, §4): its tensor bytes less the memory they occupy, each byte counted
    /// once (default 2^31 − 1, one more copy of the largest tensor, §2.5). The reader does
    /// not use it; the writer's output shares no bytes.
    pub max_shared_data: u64,
}

impl Limits {
    /// 512 MiB manifest, JSON depth 1024, nesting 64, 2^31 − 1 bytes added by sharing.
    pub const DEFAULT: Limits = Limits {
        max_manifest: 512 * 1024 * 1024,
        max_json_depth: 1024,
        max_nesting: 64,
        max_shared_data: tensor::MAX_TENSOR_BYTES,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}

/// The domain an operator set or node names, with `ai.onnx` folded into `""` (§2.1).
pub fn manifest_domain(domain: &str) -> &str {
    manifest::normal_domain(domain)
}

/// True when `head` starts with the OneModel magic (§1.1): what tells this format from ONNX.
pub fn is_onemodel(head: &[u8]) -> bool {
    head.starts_with(&MAGIC)
}

/// Reads and fully checks a OneModel file with the default limits: header (§1.1), manifest
/// (§1.2, §2), tensor ranges (§2.5) and names (§3.1). Tensors are views into `file`.
pub fn read(file: &[u8]) -> Result<Model<'_>, Error> {
    read_with(file, Limits::DEFAULT, json::DEFAULT_HASH_KEY)
}

/// [`read`] with explicit limits and the JSON duplicate-table hash key (`spec/json.md` §5).
pub fn read_with(file: &[u8], limits: Limits, hash_key: [u64; 2]) -> Result<Model<'_>, Error> {
    let max_manifest = limits.max_manifest.min(json::MAX_INPUT as u64);
    let h = header::read(file, max_manifest)?;
    // The header checks guarantee these ranges lie inside `file`.
    let at = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
    let manifest = file.get(64..at(64 + h.manifest_length)).ok_or_else(|| {
        Error::header(
            ErrorKind::OutOfRange,
            "manifest_length",
            16,
            "manifest outside the file",
        )
    })?;
    let data = file
        .get(at(h.data_offset)..at(h.file_length))
        .ok_or_else(|| Error::header(ErrorKind::OutOfRange, "data_offset", 24, "data region outside the file"))?;
    let json_limits = json::Limits {
        max_bytes: at(max_manifest),
        max_depth: limits.max_json_depth,
    };
    let tape = manifest::Tape::parse(manifest, json_limits, hash_key).map_err(Error::json)?;
    let reader = manifest::Reader {
        text: tape.text(),
        data,
        max_nesting: limits.max_nesting,
    };
    let root = tape.root();
    let mut model = reader.model(&manifest::Cursor::at(root, &[]))?;
    names::resolve_in(&mut model, Some(root))?;
    Ok(model)
}
