//! OneModel v1 (`spec/onemodel.md`): a 64-byte header, a strict JSON manifest and 64-byte
//! aligned tensor bytes, read from a byte slice with every tensor a view of it.
//!
//! - `header`: the header and its checks against the real length (§1.1).
//! - `manifest` (private): the manifest tables (§2), read from the strict parser's tape.
//! - `tensor`: dtype table, element counts, ranges (§2.5).
//! - `names`: name resolution and stable dependency order (§3.1).
//! - `writer`: the deterministic writer (§4); [`layout`]: a written file as pieces, its
//!   tensors' bytes where they are (in memory or in a file), for writers of large files.
//! - `model`: the in-memory model; `error`: the four failure kinds (§3.2).

pub(crate) mod base64;
pub(crate) mod error;
pub(crate) mod header;
pub(crate) mod layout;
pub(crate) mod manifest;
pub(crate) mod model;
pub(crate) mod names;
pub(crate) mod region;
pub(crate) mod tensor;
pub(crate) mod unique;
pub(crate) mod writer;

pub use error::{Error, ErrorKind};
pub use header::{HEADER_LEN, Header, MAGIC, fields as read_header};
pub use layout::{Layout, Piece};
pub use model::*;
pub use names::resolve;
use region::Region;
pub use tensor::{DEFAULT_MAX_TENSOR_BYTES, dtype_name};
pub use writer::{assemble, layout, write};

use crate::json;

/// Reader and writer limits (`spec/onemodel.md` §1.2, §3.2, §4), and the key of the
/// manifest's duplicate-name table: what every read and write of this module and of
/// [`crate::onnx`] takes. The writer applies each reader limit to its output, so it never
/// writes a file the reader with the same limits rejects; `max_shared_data` is the writers'
/// alone, `hash_key` the manifest reader's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest manifest in bytes (default 512 MiB, capped by `spec/json.md` §6).
    pub max_manifest: u64,
    /// Most JSON arrays and objects open at once (default 1024).
    pub max_json_depth: usize,
    /// Most graphs and types open at once (default 64).
    pub max_nesting: usize,
    /// Largest tensor in bytes (§2.5 rule 2; default 2^31 − 1, the largest the OneModel
    /// format's C# library reads). A caller may raise it up to 2^63 − 1 (a larger value acts as
    /// 2^63 − 1): a tensor over it is Unsupported, in the OneModel and ONNX readers and
    /// the writers alike. A tensor this platform cannot address (over `usize::MAX`) is
    /// LimitExceeded whatever the bound.
    pub max_tensor_bytes: u64,
    /// Most bytes the writers (OneModel and ONNX) may add by writing in full each tensor
    /// that shares bytes with another (§1.3, §4, §6.3): its tensor bytes less the bytes
    /// they occupy in memory and in files, each byte counted once (default 2^31 − 1, one
    /// more copy of the largest tensor, §2.5). The readers do not use it; the OneModel
    /// writer's output shares no bytes.
    pub max_shared_data: u64,
    /// The key of the manifest's duplicate-name table (`spec/json.md` §5): not a limit,
    /// carried here because every read takes its limits. [`json::DEFAULT_HASH_KEY`] unless
    /// the caller has an entropy source. The writer does not use it.
    pub hash_key: [u64; 2],
}

impl Limits {
    /// 512 MiB manifest, JSON depth 1024, nesting 64, tensors of 2^31 − 1 bytes, 2^31 − 1
    /// bytes added by sharing, the default hash key.
    pub const DEFAULT: Limits = Limits {
        max_manifest: 512 * 1024 * 1024,
        max_json_depth: 1024,
        max_nesting: 64,
        max_tensor_bytes: tensor::DEFAULT_MAX_TENSOR_BYTES,
        max_shared_data: tensor::DEFAULT_MAX_TENSOR_BYTES,
        hash_key: json::DEFAULT_HASH_KEY,
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

/// Reads and fully checks a OneModel file under `limits`: header (§1.1), manifest (§1.2,
/// §2), tensor ranges (§2.5) and names (§3.1). Every failure is the first in reading order
/// (§3.2), with its kind, location and offset. Tensors are views into `file`.
pub fn read(file: &[u8], limits: Limits) -> Result<Model<'_>, Error> {
    Parts::of(file, limits)?.read(limits)
}

/// How many of a file's first bytes [`read_head`] needs: those before its data region
/// (§1.1 `data_offset`). `first` is the file's first 64 bytes (all of it when it is
/// shorter) and `file_length` its real length; the header's checks 1–10 run on them first,
/// so a file they reject is rejected as [`read`] rejects it, before more is read.
pub fn head_length(first: &[u8], file_length: u64, limits: Limits) -> Result<u64, Error> {
    header::fields(first, file_length, max_manifest(limits)).map(|h| h.data_offset)
}

/// Reads a file of `file_length` bytes from its first bytes alone, as `modelgate check`
/// and `to-onnx` read a file (§5): `head` holds at least the first [`head_length`] bytes
/// (the header, the manifest and its padding). The data region is not given: every tensor
/// range is checked against its length (§2.5 rules 1–5), which is all the tensor rules
/// look at, so the verdict, and any failure with its location, is [`read`]'s. Each tensor
/// with `data` is its range of the file ([`TensorData::File`], file 0, offsets from the
/// start of the file), for a caller that copies tensors without loading them.
pub fn read_head(head: &[u8], file_length: u64, limits: Limits) -> Result<Model<'_>, Error> {
    Parts::within(head, file_length, limits)?.read(limits)
}

/// [`read`]'s verdict on a file from its first bytes alone: [`read_head`] without the model.
pub fn check_head(head: &[u8], file_length: u64, limits: Limits) -> Result<(), Error> {
    read_head(head, file_length, limits).map(drop)
}

/// A header value as an index: one the header checks placed inside the bytes, or past any.
fn at(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// The manifest size limit `limits` gives, capped by the JSON input limit (`spec/json.md` §6).
fn max_manifest(limits: Limits) -> u64 {
    limits.max_manifest.min(json::MAX_INPUT as u64)
}

/// A file's manifest and data region, its header checked (§1.1), and the manifest's JSON
/// limits.
struct Parts<'a> {
    /// The manifest bytes.
    manifest: &'a [u8],
    /// The data region.
    data: Region<'a>,
    /// The manifest's JSON limits.
    json: json::Limits,
}

impl<'a> Parts<'a> {
    /// The parts of a whole file, every tensor a view of its data region.
    fn of(file: &'a [u8], limits: Limits) -> Result<Self, Error> {
        let h = header::read(file, max_manifest(limits))?;
        // The header checks guarantee this range lies inside `file`.
        let data = file
            .get(at(h.data_offset)..at(h.file_length))
            .ok_or_else(|| Error::header(ErrorKind::OutOfRange, "data_offset", 24, "data region outside the file"))?;
        Self::with(file, &h, Region::Bytes(data), limits)
    }

    /// The parts of a file of `file_length` bytes from its `head` ([`read_head`]): the
    /// same header checks in the same order (§1.1), the data region by its place in the file.
    fn within(head: &'a [u8], file_length: u64, limits: Limits) -> Result<Self, Error> {
        let h = header::fields(head, file_length, max_manifest(limits))?;
        header::padding(head, &h)?;
        let data = Region::File {
            offset: h.data_offset,
            length: h.data_length,
        };
        Self::with(head, &h, data, limits)
    }

    /// The parts from a header that passed its checks: the manifest out of `head`, beside
    /// `data`, and the manifest's JSON limits.
    fn with(head: &'a [u8], h: &Header, data: Region<'a>, limits: Limits) -> Result<Self, Error> {
        // The header checks guarantee this range lies inside `head`.
        let manifest = head.get(64..at(64 + h.manifest_length)).ok_or_else(|| {
            Error::header(
                ErrorKind::OutOfRange,
                "manifest_length",
                16,
                "manifest outside the file",
            )
        })?;
        let json = json::Limits {
            max_bytes: at(max_manifest(limits)),
            max_depth: limits.max_json_depth,
            hash_key: limits.hash_key,
        };
        Ok(Parts { manifest, data, json })
    }

    /// The manifest through the strict parser's tape (§3.4), the tables and name
    /// resolution, with the first failure in reading order (§3.2).
    fn read(&self, limits: Limits) -> Result<Model<'a>, Error> {
        let tape = manifest::Tape::parse(self.manifest, self.json).map_err(Error::json)?;
        let reader = manifest::Reader {
            text: tape.text(),
            data: self.data,
            max_nesting: limits.max_nesting,
            max_tensor_bytes: limits.max_tensor_bytes,
        };
        let root = tape.root();
        let mut model = reader.model(&manifest::Cursor::at(root, &[]))?;
        names::resolve_in(&mut model, Some(root))?;
        Ok(model)
    }
}
