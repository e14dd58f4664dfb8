//! A strict ZIP reader and the deterministic ZIP record writer (`spec/mlbundle.md` §2, §4,
//! §10). One module per structure:
//!
//! - `end`: the ordinary end record, the ZIP64 end record and its locator (§2.1, §2.2).
//! - `central`: central directory headers (§2.3, §2.9).
//! - `extra`: the single exact ZIP64 extra field (§2.4).
//! - `header`: method, version-needed and flag rules shared by local and central headers.
//! - `local`: local headers and their agreement with the directory (§2.10).
//! - `descriptor`: data descriptors (§2.11).
//! - `tiling`: records cover the archive with no gap or overlap (§2.12).
//! - `archive`: the whole-archive validation, [`Archive::parse`].
//! - `member`: reading one member's bytes with exact size, CRC-32 and SHA-256 (§4).
//! - `write`: the fixed-metadata record writer (§10.2).
//! - `error`: [`ZipError`] and [`ZipReason`].

pub(crate) mod bytes;

pub(crate) mod archive;
pub(crate) mod central;
pub(crate) mod descriptor;
pub(crate) mod end;
pub(crate) mod error;
pub(crate) mod extra;
pub(crate) mod header;
pub(crate) mod local;
pub(crate) mod member;
pub(crate) mod tiling;
pub(crate) mod write;

pub use archive::{Archive, Entry};
pub use error::{ZipError, ZipReason};
pub use member::read_member;
pub(crate) use member::stored_data;
