//! Archive entry paths: validation, normalisation and duplicate detection, shared by
//! MPK and mvb (`spec/mpk.md` §2).
//!
//! - [`normalize`]: one raw entry path to its normalised form, or the rule it breaks
//!   (§2.1 to §2.6).
//! - `confusables`: the Unicode slash, dot and default-ignorable tables (§2.4, §2.5).
//! - [`PathSet`]: duplicate and file/directory conflicts in linear time (§2.7).
//!
//! A normalised path is non-empty, relative, `/`-separated, and none of its segments is
//! empty, `.`, `..` or traversal-like, so joining it to a root directory stays inside it.

pub(crate) mod confusables;
pub(crate) mod error;
pub(crate) mod normalize;
pub(crate) mod set;

pub use error::{PathError, PathReason};
pub use normalize::{PathLimits, normalize};
pub use set::{PathSet, SetError};
