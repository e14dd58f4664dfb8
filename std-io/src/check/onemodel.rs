//! A `.onemodel` file (`spec/onemodel.md`): the full validation from its header and
//! manifest alone, its data region only counted (§5, [`crate::onemodel::check_file`]), and
//! `inspect`'s description over a memory map (files of 1 MiB or more) or the file's bytes; and a `.onnx`
//! file: the bounded protobuf read with external data and name resolution (§6).

use super::{CheckError, Format};
use crate::Progress;
use crate::mmap;
use modelgate_core::json::Writer;
use modelgate_core::onemodel::{self, Model, TensorData, header};
use std::path::Path;

/// The `onemodel` format.
pub struct OneModel;

fn rejected(e: onemodel::Error) -> CheckError {
    CheckError::Rejected(e.rejection())
}

fn failure(f: crate::onemodel::Failure) -> CheckError {
    match f {
        crate::onemodel::Failure::Rejected(r) => CheckError::Rejected(r),
        crate::onemodel::Failure::Io(e) => CheckError::Io(e),
    }
}

fn load(path: &Path) -> Result<mmap::FileBytes, CheckError> {
    crate::onemodel::load(path).map_err(failure)
}

fn read(bytes: &[u8]) -> Result<Model<'_>, CheckError> {
    onemodel::read(bytes, crate::onemodel::limits()).map_err(rejected)
}

/// Tensor count and byte total of a model's graph initializers and sparse initializers.
fn weight_totals(m: &Model<'_>) -> (usize, u64) {
    let mut bytes = 0u64;
    let mut add = |d: &TensorData<'_>| {
        if let TensorData::Raw(b) = d {
            bytes = bytes.saturating_add(b.len() as u64);
        }
    };
    for t in &m.graph.initializers {
        add(&t.data);
    }
    for s in &m.graph.sparse_initializers {
        add(&s.values.data);
        add(&s.indices.data);
    }
    (m.graph.initializers.len() + m.graph.sparse_initializers.len(), bytes)
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

    fn check(&self, path: &Path, _: Progress<'_>) -> Result<(), CheckError> {
        crate::onemodel::check_file(path, crate::onemodel::limits()).map_err(failure)
    }

    fn inspect(&self, path: &Path, json: bool) -> Option<Result<String, CheckError>> {
        Some(inspect(path, json))
    }
}

fn inspect(path: &Path, json: bool) -> Result<String, CheckError> {
    let bytes = load(path)?;
    let m = read(&bytes)?;
    let h = header::read(&bytes, u64::MAX).map_err(rejected)?;
    let (weights, weight_bytes) = weight_totals(&m);
    if json {
        let mut w = Writer::new();
        w.begin_object();
        w.name("format_version").u64(h.format_version);
        w.name("manifest_length").u64(h.manifest_length);
        w.name("data_offset").u64(h.data_offset);
        w.name("data_length").u64(h.data_length);
        w.name("mapped").bool(bytes.is_mapped());
        w.name("ir_version").u64(m.ir_version);
        w.name("producer_name").string(&m.producer_name);
        w.name("producer_version").string(&m.producer_version);
        w.name("opsets").begin_array();
        for o in &m.opsets {
            w.begin_object()
                .name("domain")
                .string(&o.domain)
                .name("version")
                .u64(o.version)
                .end_object();
        }
        w.end_array();
        w.name("graph").string(&m.graph.name);
        w.name("nodes").u64(m.graph.nodes.len() as u64);
        w.name("inputs").u64(m.graph.inputs.len() as u64);
        w.name("outputs").u64(m.graph.outputs.len() as u64);
        w.name("initializers").u64(weights as u64);
        w.name("initializer_bytes").u64(weight_bytes);
        w.name("functions").u64(m.functions.len() as u64);
        w.end_object();
        return Ok(w.finish());
    }
    let mut out = String::new();
    use std::fmt::Write as _;
    let _ = writeln!(out, "OneModel format version {}", h.format_version);
    let _ = writeln!(
        out,
        "manifest {} bytes, data region {} bytes at offset {}{}",
        h.manifest_length,
        h.data_length,
        h.data_offset,
        if bytes.is_mapped() { " (mapped)" } else { "" }
    );
    let _ = writeln!(
        out,
        "ir_version {}, producer {:?} {:?}",
        m.ir_version, m.producer_name, m.producer_version
    );
    for o in &m.opsets {
        let domain = if o.domain.is_empty() { "ai.onnx" } else { &o.domain };
        let _ = writeln!(out, "opset {domain} {}", o.version);
    }
    let _ = writeln!(
        out,
        "graph {:?}: {} nodes, {} inputs, {} outputs, {} initializers ({} bytes), {} functions",
        m.graph.name,
        m.graph.nodes.len(),
        m.graph.inputs.len(),
        m.graph.outputs.len(),
        weights,
        weight_bytes,
        m.functions.len()
    );
    Ok(out)
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
        crate::onemodel::with_onnx(path, crate::onemodel::limits(), |_, _| ()).map_err(failure)
    }
}
