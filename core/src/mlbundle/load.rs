//! The validating load (`spec/mlbundle.md` §12.2): the container validation of
//! [`read_container`], then, for a `model.onnx` member, a full parse by the ONNX reader
//! (`spec/onemodel.md` §6), which `modelgate check` and `mlbundle pack` run too
//! ([`check_model_onnx`]). Native formats (`model.skops`, `model.ubj`, `model.cbm`) are
//! not parsed here: their model-derived claims are not attested.

use super::error::{Error, ErrorKind};
use super::limits::ArchiveLimits;
use super::names::MemberName;
use super::read::{Container, read_container};
use crate::Location;
use crate::onemodel::ErrorKind as OnnxKind;
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
/// reader ([`check_model_onnx`]).
pub fn load_container<'a>(data: &'a [u8], limits: &ArchiveLimits) -> Result<Loaded<'a>, Error> {
    let container = read_container(data, limits)?;
    check_models(&container)?;
    let models_attested = container
        .members
        .keys()
        .all(|n| !n.is_model() || *n == MemberName::ModelOnnx);
    Ok(Loaded {
        container,
        models_attested,
    })
}

/// The model step of the validating load (§12.2) over a container that passed §2–§8: its
/// `model.onnx` member, if any, through [`check_model_onnx`].
pub fn check_models(container: &Container<'_>) -> Result<(), Error> {
    match container.members.get(&MemberName::ModelOnnx) {
        Some(bytes) => check_model_onnx(bytes),
        None => Ok(()),
    }
}

/// Parses `model.onnx` bytes with the ONNX reader under the default limits, names resolved
/// (§12.2): the model must be self-contained, external tensor data being unsupported. A
/// model the reader rejects for one of its limits (nesting, element count, tensor size that
/// the platform cannot address) is `LimitExceeded`, any other rejection
/// (protobuf, mapping, names, external data) `InvalidContainer`; both are located in
/// `model.onnx`, with the reader's path and offset.
pub fn check_model_onnx(bytes: &[u8]) -> Result<(), Error> {
    crate::onnx::to_model(bytes, crate::onemodel::Limits::DEFAULT)
        .map(drop)
        .map_err(|e| {
            let mut at = Location::NONE.in_member(MemberName::ModelOnnx.as_str());
            at.offset = e.offset;
            at.path = e.path.clone();
            let kind = match e.kind {
                OnnxKind::LimitExceeded => ErrorKind::LimitExceeded,
                _ => ErrorKind::InvalidContainer,
            };
            let msg = format!("model.onnx is not a self-contained ONNX model: {}", e.message);
            Error::new(kind, msg, at)
        })
}
