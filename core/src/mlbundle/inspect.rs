//! `inspect`: the metadata view of a validated bundle (`spec/mlbundle.md` §12).

use super::error::Error;
use super::limits::ArchiveLimits;
use super::manifest::{Manifest, Recipe};
use super::names::MemberName;
use super::read::{Container, Listing, read_container};
use crate::digest::hex;
use crate::json::{self, Value, Writer};
use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;

/// What inspection returns: the manifest, the fixed-order member listing and the checked
/// schema and samples (§12.1), kept as their bytes: [`MetadataView::to_json`] writes them
/// token by token, and [`MetadataView::schema`] and [`MetadataView::samples`] decode them
/// on request. Model-derived claims are not attested (§8.4).
#[derive(Clone, Debug)]
pub struct MetadataView {
    /// The validated manifest.
    pub manifest: Manifest,
    /// Members in fixed order.
    pub members: Vec<Listing>,
    /// The input count of the schema (§8.2).
    pub inputs: usize,
    schema: Vec<u8>,
    samples: Option<Vec<u8>>,
}

/// Validates the bundle in `data` like [`read_container`] (ZIP records, limits, manifest,
/// member hashes, JSON syntax and the declaration contract) and returns its metadata view.
/// No model is loaded.
pub fn inspect(data: &[u8], limits: &ArchiveLimits) -> Result<MetadataView, Error> {
    read_container(data, limits).map(MetadataView::from)
}

/// The view of a container [`read_container`] accepted (§12.1).
impl From<Container<'_>> for MetadataView {
    fn from(mut c: Container<'_>) -> Self {
        let mut take = |n: MemberName| c.members.remove(&n).map(Cow::into_owned);
        MetadataView {
            schema: take(MemberName::Schema).unwrap_or_default(),
            samples: take(MemberName::Samples),
            manifest: c.manifest,
            members: c.listing,
            inputs: c.inputs,
        }
    }
}

/// The statement inspection makes about model members it cannot attest (§8.4).
pub(crate) const NOT_ATTESTED: &str =
    "model-derived claims are not attested: inspection does not load the model (only a validating load can)";

impl MetadataView {
    /// `schema.json` as stored (checked against §8.2).
    pub fn schema_json(&self) -> &[u8] {
        &self.schema
    }

    /// `samples.json` as stored (checked against §8.3), when present.
    pub fn samples_json(&self) -> Option<&[u8]> {
        self.samples.as_deref()
    }

    /// The decoded schema; it costs what a value costs (`spec/json.md` §8).
    pub fn schema(&self) -> Result<Value, json::Error> {
        json::parse(&self.schema, json::Limits::DEFAULT)
    }

    /// The decoded samples, when present, as [`MetadataView::schema`].
    pub fn samples(&self) -> Option<Result<Value, json::Error>> {
        self.samples.as_deref().map(|s| json::parse(s, json::Limits::DEFAULT))
    }

    /// One canonical JSON document describing the view. The schema and samples are written
    /// token by token from their bytes, which the read this view comes from has checked.
    pub fn to_json(&self) -> String {
        let mut w = Writer::new();
        w.begin_object();
        w.name("format").string("mlbundle");
        w.name("writer_version").string(&self.manifest.writer_version);
        w.name("recipe").string(recipe_text(&self.manifest.recipe));
        w.name("members").begin_array();
        for m in &self.members {
            w.begin_object();
            w.name("name").string(m.name.as_str());
            w.name("method").string(method_name(m.method));
            w.name("compressed").u64(m.compressed);
            w.name("size").u64(m.size);
            w.name("sha256").string(&hex(&m.sha256));
            w.end_object();
        }
        w.end_array();
        // The members were checked by the read this view comes from, so they parse.
        let _ = w.name("schema").document(&self.schema, json::Limits::DEFAULT);
        if let Some(s) = &self.samples {
            let _ = w.name("samples").document(s, json::Limits::DEFAULT);
        }
        w.name("attestation").string(NOT_ATTESTED);
        w.end_object();
        w.finish()
    }

    /// Human-readable text: one line per member, then the recipe and attestation note.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        s.push_str(&alloc::format!(
            "mlbundle format 1, writer {}, recipe {}\n",
            self.manifest.writer_version,
            recipe_text(&self.manifest.recipe)
        ));
        for m in &self.members {
            s.push_str(&alloc::format!(
                "  {:<15} {:>8} {:>12} bytes ({} compressed) sha256 {}\n",
                m.name.as_str(),
                method_name(m.method),
                m.size,
                m.compressed,
                hex(&m.sha256)
            ));
        }
        s.push_str(NOT_ATTESTED);
        s.push('\n');
        s
    }
}

fn recipe_text(r: &Recipe) -> &'static str {
    match r {
        Recipe::Standalone(MemberName::ModelOnnx) => "standalone model.onnx",
        Recipe::Standalone(MemberName::ModelSkops) => "standalone model.skops",
        Recipe::Standalone(MemberName::ModelUbj) => "standalone model.ubj",
        Recipe::Standalone(_) => "standalone model.cbm",
        Recipe::Composite(MemberName::ModelUbj) => "composite model.skops + model.ubj",
        Recipe::Composite(_) => "composite model.skops + model.cbm",
    }
}

fn method_name(m: u16) -> &'static str {
    if m == 0 { "stored" } else { "deflated" }
}
