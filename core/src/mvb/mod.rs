//! mvb bundle exports, `<bundle_id>.mvb.tar` (`spec/mvb.md`): one bundle in one
//! uncompressed GNU tar, marker first, payload verifiable with stock tools.
//!
//! - `fields`: version strings, SHA-256 hex, RFC 3339 UTC times, bundle ids (§1.2, §1.3).
//! - `hash`: the bundle hash over sorted `<sha256>  <path>` lines (§1.4).
//! - `manifest`: the manifest fields export and import rely on (§1.2).
//! - `marker`: the `.mvb.json` marker, written and read (§3).
//! - `import`: [`ImportValidator`], the push-style validator of §4, and [`check_mvb`].
//! - `write`: entry headers with normalized metadata and an in-memory writer (§2).
//! - `limits`: [`MvbLimits`] (§4.7).
//! - `error`: [`MvbError`] and the six kinds (§9).
//!
//! The tar layer is [`crate::tar`] and entry paths are [`crate::archive_path`]
//! (`spec/mpk.md` §1, §2), shared with MPK.

pub(crate) mod error;
pub(crate) mod fields;
pub(crate) mod hash;
pub(crate) mod import;
pub(crate) mod limits;
pub(crate) mod manifest;
pub(crate) mod marker;
pub(crate) mod write;

pub use error::{MvbError, MvbKind};
pub use fields::format_rfc3339_utc;
pub use hash::{bundle_hash, covers};
pub use import::{Failure, FileRecord, ImportValidator, Imported, check_entry_path, check_mvb, is_excluded};
pub use limits::MvbLimits;
pub use manifest::{BundleHash, InventoryFile, MANIFEST, Manifest};
pub use marker::{FORMAT_VERSION, MARKER, Marker};
pub use write::{append_entry, entry_header, write_bundle};
