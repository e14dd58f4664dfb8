//! ONNX protobuf, by hand and bounded (`spec/onemodel.md` §6): [`read_model`] decodes a
//! serialised `ModelProto` into the same [`crate::onemodel::Model`] a OneModel file gives,
//! [`write_model`] serialises one back. `wire` holds the protobuf primitives.

pub(crate) mod nested;
pub(crate) mod read;
pub mod wire;
pub(crate) mod write;

pub use read::{ExternalError, ExternalRef, ReadOptions, Resolver, read_model};
pub use write::{Data, Written, write_model, write_parts};

use crate::onemodel::{Error, Limits, Model, names};

/// Reads an ONNX file and resolves its names exactly as for a OneModel file (§3.1), so a
/// model that converts is one the OneModel reader accepts.
pub fn to_model(bytes: &[u8]) -> Result<Model<'_>, Error> {
    let mut m = read_model(bytes, Limits::DEFAULT)?;
    names::resolve(&mut m)?;
    Ok(m)
}
