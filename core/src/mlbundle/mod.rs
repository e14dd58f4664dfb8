//! mlbundle v1: a strict ZIP container of a manifest, one or two model members, a schema and
//! optional structure and samples (`spec/mlbundle.md`). One module per concept:
//!
//! - [`names`]: the eight member names and their fixed order (§1, §10.1).
//! - [`limits`]: [`ArchiveLimits`], defaults = ceilings, lowered only (§3).
//! - [`budget`]: limits checked from directory metadata (§3.3, §3.4).
//! - [`admission`]: model members admitted before the manifest is parsed (§6.1).
//! - [`manifest`]: the manifest schema, strict parsing, canonical writing (§5).
//! - [`version`]: strict version strings and the re-export hint (§5.4, §5.7).
//! - [`integrity`]: recipe agreement (§6.2) and integrity records (§7).
//! - [`declaration`]: JSON members and the schema/samples contract (§8), whose rules
//!   `contract` checks over a member's tokens, with no value built (§8.1).
//! - [`members`]: the member reads and JSON checks in two halves for a
//!   [`crate::join::Join`] (§4, §8.1, §12.0).
//! - [`read`]: [`read_container`] and [`read_container_with`] (§2–§8).
//! - [`inspect`](mod@inspect): [`inspect()`] and [`MetadataView`] (§12).
//! - [`mod@write`]: [`write_container`] (§10).
//! - [`load`]: [`load_container`], the validating load that parses `model.onnx` (§12.2).
//! - [`error`]: [`Error`] and [`ErrorKind`] (§9).

pub mod admission;
pub mod budget;
mod contract;
pub mod declaration;
pub mod error;
pub mod inspect;
pub mod integrity;
pub mod limits;
pub mod load;
pub mod manifest;
pub mod members;
pub mod names;
pub mod read;
pub mod version;
pub mod write;

pub use error::{Error, ErrorKind};
pub use inspect::{MetadataView, inspect};
pub use limits::{ArchiveLimits, Limit, LimitConfigError};
pub use load::{Loaded, check_model_onnx, check_models, load_container};
pub use manifest::{IntegrityRecord, Manifest, Recipe};
pub use names::MemberName;
pub use read::{Container, Listing, read_container, read_container_with};
pub use version::READER_VERSION;
pub use write::write_container;
