//! `inspect`: the metadata view of a validated bundle (`spec/mlbundle.md` §12).

use super::error::Error;
use super::limits::ArchiveLimits;
use super::manifest::{Manifest, Recipe};
use super::names::MemberName;
use super::read::{Container, Listing, read_container};
use crate::digest::hex;
use crate::json::{Value, Writer};
use alloc::string::String;
use alloc::vec::Vec;

/// What inspection returns: the manifest, the fixed-order member listing and the validated
/// schema and samples (§12.1). Model-derived claims are not attested (§8.4).
#[derive(Clone, Debug)]
pub struct MetadataView {
    /// The validated manifest.
    pub manifest: Manifest,
    /// Members in fixed order.
    pub members: Vec<Listing>,
    /// The validated schema value.
    pub schema: Value,
    /// The validated samples value, when present.
    pub samples: Option<Value>,
}

/// Validates the bundle in `data` like [`read_container`] (ZIP records, limits, manifest,
/// member hashes, JSON syntax and the declaration contract) and returns its metadata view.
/// No model is loaded.
pub fn inspect(data: &[u8], limits: &ArchiveLimits) -> Result<MetadataView, Error> {
    read_container(data, limits).map(MetadataView::from)
}

/// The view of a container [`read_container`] (or `read_container_with`) accepted (§12.1).
impl From<Container<'_>> for MetadataView {
    fn from(c: Container<'_>) -> Self {
        MetadataView {
            manifest: c.manifest,
            members: c.listing,
            schema: c.schema,
            samples: c.samples,
        }
    }
}

/// The statement inspection makes about model members it cannot attest (§8.4).
pub const NOT_ATTESTED: &str =
    "model-derived claims are not attested: inspection does not load the model (only a validating load can)";

impl MetadataView {
    /// One canonical JSON document describing the view.
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
        w.name("schema").value(&self.schema);
        if let Some(s) = &self.samples {
            w.name("samples").value(s);
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
