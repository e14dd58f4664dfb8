//! Member admission before the manifest is parsed (`spec/mlbundle.md` §6.1).

use super::error::{Error, ErrorKind};
use super::names::MemberName;
use crate::Location;

/// The model members admitted: one model, or model.skops with model.ubj or model.cbm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Models {
    /// One model member.
    One(MemberName),
    /// `model.skops` with this native member (`model.ubj` or `model.cbm`).
    SkopsWith(MemberName),
}

/// Admits the model members present (§6.1): exactly one of the four models, or
/// `model.skops` + `model.ubj`, or `model.skops` + `model.cbm`. `present` lists the
/// members in the archive; `at` is the end record's offset.
pub(crate) fn admit(present: impl Iterator<Item = MemberName>, at: u64) -> Result<Models, Error> {
    let mut models = [None; 2];
    let mut count = 0usize;
    for name in present.filter(|n| n.is_model()) {
        if let Some(slot) = models.get_mut(count) {
            *slot = Some(name);
        }
        count = count.saturating_add(1);
    }
    let mut pair = models;
    pair.sort();
    let admitted = match (count, pair) {
        (1, [Some(m), None] | [None, Some(m)]) => Some(Models::One(m)),
        (
            2,
            [
                Some(MemberName::ModelSkops),
                Some(n @ (MemberName::ModelUbj | MemberName::ModelCbm)),
            ],
        ) => Some(Models::SkopsWith(n)),
        _ => None,
    };
    admitted.ok_or_else(|| {
        let msg = "model members must be one model, or model.skops with model.ubj or model.cbm";
        Error::new(ErrorKind::InvalidContainer, msg, Location::at(at))
    })
}
