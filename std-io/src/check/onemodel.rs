//! A `.onemodel` file (`spec/onemodel.md`): the full validation from its header and
//! manifest alone, its data region only counted (§5, [`crate::onemodel::check_file`]); and
//! a `.onnx` file: the bounded protobuf read with external data references checked and
//! names resolved (§6), no tensor byte read. `inspect` describes either from the model the
//! check reads ([`crate::onemodel::inspect`], §7).

use super::{CheckError, Format};
use crate::Progress;
use crate::onemodel::inspect::{Framing, describe};
use crate::onemodel::{limits, with_head, with_onnx};
use modelgate_core::{onemodel, onnx};
use std::path::Path;

/// The `onemodel` format.
pub struct OneModel;

fn failure(f: crate::onemodel::Failure) -> CheckError {
    match f {
        crate::onemodel::Failure::Rejected(r) => CheckError::Rejected(r),
        crate::onemodel::Failure::Io(e) => CheckError::Io(e),
    }
}

impl Format for OneModel {
    fn name(&self) -> &'static str {
        "onemodel"
    }

    fn kinds(&self) -> &'static [&'static str] {
        &["Malformed", "OutOfRange", "Unsupported", "LimitExceeded"]
    }

    fn suffixes(&self) -> &'static [&'static str] {
        &[".onemodel"]
    }

    fn sniff(&self, head: &[u8]) -> bool {
        onemodel::is_onemodel(head)
    }

    fn content(&self) -> Option<&'static str> {
        Some("the OneModel magic")
    }

    fn check(&self, path: &Path, _: Progress<'_>) -> Result<(), CheckError> {
        crate::onemodel::check_file(path, limits()).map_err(failure)
    }

    /// The whole model's read (§1–§3), the data region in memory.
    fn check_bytes(&self, bytes: &[u8]) -> Result<(), CheckError> {
        onemodel::read(bytes, limits())
            .map(|_| ())
            .map_err(|e| CheckError::Rejected(e.rejection()))
    }

    fn inspect(&self, path: &Path, json: bool) -> Option<Result<String, CheckError>> {
        let described = with_head(path, limits(), |model, header, _| {
            describe(model, &Framing::OneModel(header), json)
        });
        Some(described.map_err(failure))
    }
}

/// The `onnx` format: what `modelgate onemodel convert` accepts (§6), with OneModel's kinds.
pub struct Onnx;

impl Format for Onnx {
    fn name(&self) -> &'static str {
        "onnx"
    }

    fn kinds(&self) -> &'static [&'static str] {
        &["Malformed", "OutOfRange", "Unsupported", "LimitExceeded"]
    }

    fn suffixes(&self) -> &'static [&'static str] {
        &[".onnx"]
    }

    fn check(&self, path: &Path, _: Progress<'_>) -> Result<(), CheckError> {
        with_onnx(path, limits(), |_, _| ()).map_err(failure)
    }

    /// [`onnx::to_model`] without a resolver: external data is `Unsupported` (§6.2).
    fn check_bytes(&self, bytes: &[u8]) -> Result<(), CheckError> {
        onnx::to_model(bytes, limits())
            .map(|_| ())
            .map_err(|e| CheckError::Rejected(e.rejection()))
    }

    fn inspect(&self, path: &Path, json: bool) -> Option<Result<String, CheckError>> {
        let length = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        let described = with_onnx(path, limits(), |model, files| {
            describe(model, &Framing::Onnx(length, files.files()), json)
        });
        Some(described.map_err(failure))
    }
}
