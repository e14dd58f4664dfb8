//! For reference, not a peer: the benchmark OneModel file's manifest read by serde_json into
//! borrowed structs of exactly its shape (derive, unknown members denied, duplicate members
//! rejected by serde). It checks JSON syntax and the member names, nothing of
//! `spec/onemodel.md`: no integer ranges, no tensor ranges, no name resolution, no I-JSON
//! string rules. What a schema-driven JSON reader costs on this manifest before any OneModel
//! rule, beside `SafeTensors::deserialize` of its 10 KiB header (README, "Goals missed").
//!
//! The structs follow `models::onemodel_file`'s writer output; a change there makes this
//! reference fail, never read less.

#![allow(dead_code, reason = "the fields are read only to be checked")]

use serde::Deserialize;
use serde::de::IgnoredAny;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Model<'a> {
    ir_version: i64,
    opsets: Vec<Opset>,
    producer_name: &'a str,
    #[serde(borrow)]
    graph: Graph<'a>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Opset {
    version: i64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Graph<'a> {
    name: &'a str,
    #[serde(borrow)]
    initializers: Vec<Tensor<'a>>,
    #[serde(borrow)]
    inputs: Vec<Typed<'a>>,
    #[serde(borrow)]
    outputs: Vec<Typed<'a>>,
    #[serde(borrow)]
    nodes: Vec<Node<'a>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Tensor<'a> {
    name: &'a str,
    dtype: u8,
    dims: Vec<u64>,
    data: Range,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Range {
    offset: u64,
    length: u64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Typed<'a> {
    name: &'a str,
    #[serde(rename = "type", borrow)]
    ty: Type<'a>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Type<'a> {
    kind: &'a str,
    elem_type: u8,
    shape: Vec<Dim>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Dim {
    value: u64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Node<'a> {
    name: &'a str,
    op: &'a str,
    domain: &'a str,
    overload: &'a str,
    #[serde(borrow)]
    inputs: Vec<&'a str>,
    #[serde(borrow)]
    outputs: Vec<&'a str>,
    attributes: Vec<IgnoredAny>,
}

impl Model<'_> {
    /// The number of nodes read.
    pub fn nodes(&self) -> usize {
        self.graph.nodes.len()
    }
}

/// The manifest of a OneModel file (`spec/onemodel.md` §1.1: its length at byte 16), read
/// into the structs above; `Err` when the file is not a OneModel file of this shape.
pub fn read(file: &[u8]) -> Result<Model<'_>, String> {
    let len = file
        .get(16..24)
        .and_then(|b| <[u8; 8]>::try_from(b).ok())
        .map(u64::from_le_bytes)
        .and_then(|n| usize::try_from(n).ok())
        .ok_or("no OneModel header")?;
    let manifest = file.get(64..64 + len).ok_or("manifest outside the file")?;
    serde_json::from_slice(manifest).map_err(|e| e.to_string())
}
