//! ONNX protobuf, by hand and bounded (`spec/onemodel.md` §6): [`read_model`] decodes a
//! serialised `ModelProto` into the same [`crate::onemodel::Model`] a OneModel file gives,
//! [`write_model`] serialises one back. `wire` holds the protobuf primitives.

pub(crate) mod nested;
pub(crate) mod read;
pub mod wire;
pub(crate) mod write;

pub use read::{ExternalError, ExternalRef, ReadOptions, Resolver, read_model};
pub use write::{Data, Written, write_model, write_parts};

use crate::onemodel::{Error, Model, names};

/// Reads an ONNX file under the options ([`read_model`]) and resolves its names exactly as
/// for a OneModel file (§3.1), so a model that converts is one the OneModel reader accepts.
/// The one acceptance rule for ONNX: `modelgate check`, mlbundle's `model.onnx`, the C ABI
/// and conversion all run it.
pub fn to_model<'a, 'r>(bytes: &'a [u8], options: impl Into<ReadOptions<'r>>) -> Result<Model<'a>, Error> {
    let mut m = read_model(bytes, options)?;
    names::resolve(&mut m)?;
    Ok(m)
}
