//! The eight member names of a bundle and their fixed order (`spec/mlbundle.md` §1.1, §10.1).

use crate::invariant;
use core::fmt;

/// A member name allowed at the root of a bundle (§1.1). The declaration order is the
/// writer's fixed member order (§10.1), so sorted collections list members in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MemberName {
    /// `manifest.json`
    Manifest,
    /// `model.onnx`
    ModelOnnx,
    /// `model.skops`
    ModelSkops,
    /// `model.ubj`
    ModelUbj,
    /// `model.cbm`
    ModelCbm,
    /// `schema.json`
    Schema,
    /// `structure.json`
    Structure,
    /// `samples.json`
    Samples,
}

/// Every allowed name, indexed by `MemberName as usize` (the ZIP reader's name table).
pub const NAMES: [&str; 8] = [
    "manifest.json",
    "model.onnx",
    "model.skops",
    "model.ubj",
    "model.cbm",
    "schema.json",
    "structure.json",
    "samples.json",
];

/// Every member name in fixed order.
pub(crate) const ALL: [MemberName; 8] = [
    MemberName::Manifest,
    MemberName::ModelOnnx,
    MemberName::ModelSkops,
    MemberName::ModelUbj,
    MemberName::ModelCbm,
    MemberName::Schema,
    MemberName::Structure,
    MemberName::Samples,
];

impl MemberName {
    /// The exact file name.
    pub fn as_str(self) -> &'static str {
        invariant::item(&NAMES, self as usize)
    }

    /// The name with index `i` in [`NAMES`].
    pub fn from_index(i: usize) -> Option<MemberName> {
        ALL.get(i).copied()
    }

    /// The name spelled exactly `s`.
    pub fn parse(s: &str) -> Option<MemberName> {
        NAMES.iter().position(|n| *n == s).and_then(MemberName::from_index)
    }

    /// True for the four model members.
    pub(crate) fn is_model(self) -> bool {
        matches!(
            self,
            MemberName::ModelOnnx | MemberName::ModelSkops | MemberName::ModelUbj | MemberName::ModelCbm
        )
    }

    /// True for the JSON members other than the manifest (§8).
    pub(crate) fn is_json_member(self) -> bool {
        matches!(self, MemberName::Schema | MemberName::Structure | MemberName::Samples)
    }
}

impl fmt::Display for MemberName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
