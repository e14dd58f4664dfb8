//! mlbundle v1: a strict ZIP container of a manifest, one or two model members, a schema and
//! optional structure and samples (`spec/mlbundle.md`). One module per concept:
//!
//! - `names`: the eight member names and their fixed order (§1, §10.1).
//! - `limits`: [`ArchiveLimits`], defaults = ceilings, lowered only (§3).
//! - `budget`: limits checked from directory metadata (§3.3, §3.4).
//! - `admission`: model members admitted before the manifest is parsed (§6.1).
//! - `manifest`: the manifest schema, strict parsing, canonical writing (§5).
//! - `version`: strict version strings and the re-export hint (§5.4, §5.7).
//! - `integrity`: recipe agreement (§6.2) and integrity records (§7).
//! - `declaration`: JSON members and the schema/samples contract (§8), whose rules
//!   `contract` checks over a member's tokens, with no value built (§8.1).
//! - `members`: the member reads and JSON checks in two halves for a
//!   [`crate::join::Join`] (§4, §8.1, §12.0).
//! - `read`: [`read_container`] and its [`ReadOptions`] (§2–§8).
//! - `inspect`: [`inspect()`] and [`MetadataView`] (§12).
//! - `write`: [`write_container`] (§10).
//! - `load`: [`load_container`], the validating load that parses `model.onnx` (§12.2).
//! - `error`: [`Error`] and [`ErrorKind`] (§9).

pub(crate) mod admission;
pub(crate) mod budget;
pub(crate) mod contract;
pub(crate) mod declaration;
pub(crate) mod error;
pub(crate) mod inspect;
pub(crate) mod integrity;
pub(crate) mod limits;
pub(crate) mod load;
pub(crate) mod manifest;
pub(crate) mod members;
pub(crate) mod names;
pub(crate) mod read;
pub(crate) mod version;
pub(crate) mod write;

pub use error::{Error, ErrorKind};
pub use inspect::{MetadataView, inspect};
pub use limits::{ArchiveLimits, Limit, LimitConfigError};
pub use load::{Loaded, check_model_onnx, check_models, load_container};
pub use manifest::{IntegrityRecord, Manifest, Recipe};
pub use names::{MemberName, NAMES};
pub use read::{Container, Listing, ReadOptions, read_container};
pub use version::READER_VERSION;
pub use write::write_container;

// The member checks of a read one by one (§8.1 to §8.3), and the reference they are held
// to: for the `mlbundle_contract` fuzz target and the JSON memory tests. Not API.
#[cfg(any(test, fuzzing))]
#[doc(hidden)]
pub use declaration::reference as contract_reference;
#[doc(hidden)]
pub use declaration::{check_member, check_samples, check_schema};
