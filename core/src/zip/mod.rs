//! A strict ZIP reader and the deterministic ZIP record writer (`spec/mlbundle.md` §2, §4,
//! §10). One module per structure:
//!
//! - [`end`]: the ordinary end record, the ZIP64 end record and its locator (§2.1, §2.2).
//! - [`central`]: central directory headers (§2.3, §2.9).
//! - [`extra`]: the single exact ZIP64 extra field (§2.4).
//! - [`header`]: method, version-needed and flag rules shared by local and central headers.
//! - [`local`]: local headers and their agreement with the directory (§2.10).
//! - [`descriptor`]: data descriptors (§2.11).
//! - [`tiling`]: records cover the archive with no gap or overlap (§2.12).
//! - [`archive`]: the whole-archive validation, [`Archive::parse`].
//! - [`member`]: reading one member's bytes with exact size, CRC-32 and SHA-256 (§4).
//! - [`mod@write`]: the fixed-metadata record writer (§10.2).
//! - [`error`]: [`ZipError`] and [`ZipReason`].

mod bytes;

pub mod archive;
pub mod central;
pub mod descriptor;
pub mod end;
pub mod error;
pub mod extra;
pub mod header;
pub mod local;
pub mod member;
pub mod tiling;
pub mod write;

pub use archive::{Archive, Entry};
pub use error::{ZipError, ZipReason};
pub use member::{read_member, stored_data};
