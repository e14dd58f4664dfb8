//! The validating load (`spec/mlbundle.md` §12.2): the container validation of
//! [`read_container`], then, for a `model.onnx` member, a full parse by the ONNX reader
//! (`spec/onemodel.md` §6). Native formats (`model.skops`, `model.ubj`, `model.cbm`) are
//! not parsed here: their model-derived claims are not attested.

use super::error::{Error, ErrorKind};
use super::limits::ArchiveLimits;
use super::names::MemberName;
use super::read::{Container, read_container};
use crate::Location;
use alloc::format;

/// A bundle after the validating load.
#[derive(Clone, Debug)]
pub struct Loaded<'a> {
    /// The validated container.
    pub container: Container<'a>,
    /// True when every model member was parsed (a standalone `model.onnx`); false when a
    /// native model member is present, whose claims this load cannot attest (§8.4).
    pub models_attested: bool,
}

/// Validates the bundle in `data` (§2–§8) and parses a `model.onnx` member with the ONNX
/// reader: it must be a self-contained model (external tensor data is unsupported). A model
/// the reader rejects is `InvalidContainer` located in `model.onnx` at the reader's offset.
pub fn load_container<'a>(data: &'a [u8], limits: &ArchiveLimits) -> Result<Loaded<'a>, Error> {
    let container = read_container(data, limits)?;
    if let Some(bytes) = container.members.get(&MemberName::ModelOnnx) {
        crate::onnx::to_model(bytes).map_err(|e| {
            let mut at = Location::NONE.in_member(MemberName::ModelOnnx.as_str());
            at.offset = e.offset;
            at.path = e.path.clone();
            let msg = format!("model.onnx is not a self-contained ONNX model: {}", e.message);
            Error::new(ErrorKind::InvalidContainer, msg, at)
        })?;
    }
    let models_attested = container
        .members
        .keys()
        .all(|n| !n.is_model() || *n == MemberName::ModelOnnx);
    Ok(Loaded {
        container,
        models_attested,
    })
}
