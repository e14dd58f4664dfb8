//! `pipeline_sequence.json` (`spec/mpk.md` §3.4, §3.5): the seed's "JSON and Sequence
//! Validation" rules, stable ordering by `sequence_id` and dependency rules.

use super::classify::{Class, classify};
use super::error::{MpkError, MpkKind};
use super::registry::Registry;
use crate::Location;
use crate::archive_path::{PathLimits, normalize};
use crate::json::{self, Cursor, FieldError, Keep, Limits, Problem, Value};
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

/// File name of the pipeline description (§3.3).
pub const PIPELINE_FILE: &str = "pipeline_sequence.json";

/// The name a dependency may always use: the input decoder (§3.5).
pub const DECODER: &str = "decoder";

/// One stage (`spec/mpk.md` §3.4).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stage {
    /// `sequence_id`.
    pub sequence_id: i64,
    /// `name`, unique in its pipeline.
    pub name: String,
    /// `pluginId`.
    pub plugin_id: String,
    /// `configPath`, normalised (§2); names a JSON file of the package.
    pub config_path: String,
    /// `processor`.
    pub processor: String,
    /// `kernel`.
    pub kernel: String,
    /// `dependencies` (empty when absent).
    pub dependencies: Vec<String>,
    /// Index of the stage in the document's `sequence` array.
    pub index: usize,
}

/// One pipeline, stages in execution order: by `sequence_id`, ties in document order
/// (§3.5).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pipeline {
    /// The stages in order.
    pub stages: Vec<Stage>,
}

/// Shorthand for a schema error from a typed read of the pipeline document.
fn field(e: FieldError) -> MpkError {
    MpkError::from_field(&e, PIPELINE_FILE)
}

fn rule(c: &Cursor<'_, '_>, text: &'static str) -> MpkError {
    field(c.error(Problem::Rule(text)))
}

/// A required non-empty string member (§3.4).
fn non_empty<'v>(c: &Cursor<'v, '_>, name: &str) -> Result<&'v str, MpkError> {
    let f = c.field(name).map_err(field)?;
    let s = f.str().map_err(field)?;
    if s.is_empty() {
        return Err(rule(&f, "must be a non-empty string"));
    }
    Ok(s)
}

/// The members of a stage that §3.4 and §3.5 read; a stage's other members are allowed and
/// not read.
const STAGE: [(&str, Keep<'static>); 7] = [
    ("sequence_id", Keep::Shape),
    ("name", Keep::Shape),
    ("pluginId", Keep::Shape),
    ("configPath", Keep::Shape),
    ("processor", Keep::Shape),
    ("kernel", Keep::Shape),
    ("dependencies", Keep::Items(usize::MAX, &Keep::Shape)),
];

/// Parses `pipeline_sequence.json` with the same checks and errors as `json::parse`,
/// building only what [`parse_pipelines`] reads (`spec/mpk.md` §3.3.1, `spec/json.md`
/// §8.1): `pipelines`, each pipeline's `sequence` and the stage members above, every other
/// member dropped, and of each `sequence` its first `max_stages + 1` entries, enough for
/// the stage-count rule (§3.4.2), which refuses a longer one before reading any stage.
pub fn parse_pipeline_json(
    bytes: &[u8],
    limits: Limits,
    key: [u64; 2],
    max_stages: usize,
) -> Result<Value, json::Error> {
    let stage = Keep::Members(&STAGE);
    let pipeline = [("sequence", Keep::Items(max_stages.saturating_add(1), &stage))];
    let pipeline = Keep::Members(&pipeline);
    let root = [("pipelines", Keep::Items(usize::MAX, &pipeline))];
    json::parse_kept(bytes, limits, key, Keep::Members(&root))
}

/// Validates the parsed `pipeline_sequence.json` (§3.4, §3.5): every pipeline and stage,
/// the kernel registry, unique stage names, ordering and dependencies.
pub fn parse_pipelines(doc: &Value, registry: &Registry, max_stages: usize) -> Result<Vec<Pipeline>, MpkError> {
    let root = Cursor::root(doc, "pipeline_sequence");
    root.object().map_err(field)?;
    let list = root.field("pipelines").map_err(field)?;
    if list.array().map_err(field)?.is_empty() {
        // seed: "JSON object with non-empty pipelines array".
        return Err(rule(&list, "pipelines must be a non-empty array"));
    }
    let mut out = Vec::new();
    for p in list.items().map_err(field)? {
        out.push(pipeline(&p, registry, max_stages)?);
    }
    Ok(out)
}

fn pipeline(p: &Cursor<'_, '_>, registry: &Registry, max_stages: usize) -> Result<Pipeline, MpkError> {
    p.object().map_err(field)?;
    let seq = p.field("sequence").map_err(field)?;
    let items = seq.array().map_err(field)?;
    if items.is_empty() {
        // seed: "First pipeline object must contain non-empty sequence array".
        return Err(rule(&seq, "sequence must be a non-empty array"));
    }
    if items.len() > max_stages {
        let e = seq.error(Problem::Rule("more stages than the limit"));
        let loc = Location::path(e.path, u64::try_from(e.offset).unwrap_or(u64::MAX)).in_member(PIPELINE_FILE);
        return Err(MpkError::new(
            MpkKind::SizeLimitExceeded,
            "more stages than max_stages",
            loc,
        ));
    }
    let mut stages = Vec::with_capacity(items.len());
    // seed: "Duplicate stage names are rejected" (§3.4.3); BTreeMap keeps it n log n.
    let mut names: BTreeMap<&str, ()> = BTreeMap::new();
    for (index, s) in seq.items().map_err(field)?.enumerate() {
        let st = stage(&s, index, registry)?;
        let name = s.field("name").map_err(field)?;
        let key = name.str().map_err(field)?;
        if names.insert(key, ()).is_some() {
            return Err(rule(&name, "duplicate stage name"));
        }
        stages.push(st);
    }
    // §3.5: stable ordering by sequence_id; ties keep document order.
    stages.sort_by_key(|s| s.sequence_id);
    check_dependencies(&seq, &stages)?;
    Ok(Pipeline { stages })
}

/// §3.4: one stage entry.
fn stage(s: &Cursor<'_, '_>, index: usize, registry: &Registry) -> Result<Stage, MpkError> {
    s.object().map_err(field)?;
    let sequence_id = s.field("sequence_id").map_err(field)?.i64().map_err(field)?;
    let name = non_empty(s, "name")?;
    if name == DECODER {
        return Err(rule(&s.field("name").map_err(field)?, "stage name decoder is reserved"));
    }
    let plugin_id = non_empty(s, "pluginId")?;
    let config_path = config_path(s)?;
    let processor = non_empty(s, "processor")?;
    let kernel = non_empty(s, "kernel")?;
    // §3.6: the closed registry keyed by (processor, kernel).
    if !registry.knows_processor(processor) {
        return Err(rule(&s.field("processor").map_err(field)?, "unsupported processor"));
    }
    if !registry.supports(processor, kernel) {
        return Err(rule(
            &s.field("kernel").map_err(field)?,
            "unsupported kernel for this processor",
        ));
    }
    let mut dependencies = Vec::new();
    if let Some(deps) = s.opt_field("dependencies").map_err(field)? {
        for d in deps.items().map_err(field)? {
            let v = d.str().map_err(field)?;
            if v.is_empty() {
                return Err(rule(&d, "must be a non-empty string"));
            }
            dependencies.push(String::from(v));
        }
    }
    Ok(Stage {
        sequence_id,
        name: String::from(name),
        plugin_id: String::from(plugin_id),
        config_path,
        processor: String::from(processor),
        kernel: String::from(kernel),
        dependencies,
        index,
    })
}

/// §3.4: `configPath` is a package-relative path (§2) to a `.json` file.
fn config_path(s: &Cursor<'_, '_>) -> Result<String, MpkError> {
    let c = s.field("configPath").map_err(field)?;
    let raw = non_empty(s, "configPath")?;
    let normalized = normalize(raw.as_bytes(), &PathLimits::DEFAULT).map_err(|e| {
        let kind = if e.reason.is_traversal() {
            MpkKind::PathTraversal
        } else {
            MpkKind::SchemaError
        };
        let fe = c.error(Problem::Rule("invalid path"));
        let loc = Location::path(fe.path, u64::try_from(fe.offset).unwrap_or(u64::MAX)).in_member(PIPELINE_FILE);
        MpkError::new(kind, alloc::format!("configPath: {}", e.reason), loc)
    })?;
    if classify(&normalized) != Some(Class::Json) {
        return Err(rule(&c, "configPath must name a .json file"));
    }
    Ok(normalized)
}

/// §3.5: each dependency names `decoder` or a stage earlier in the stable order.
fn check_dependencies(seq: &Cursor<'_, '_>, stages: &[Stage]) -> Result<(), MpkError> {
    let position: BTreeMap<&str, usize> = stages.iter().enumerate().map(|(i, s)| (s.name.as_str(), i)).collect();
    for (pos, st) in stages.iter().enumerate() {
        for (k, dep) in st.dependencies.iter().enumerate() {
            if dep == DECODER {
                continue;
            }
            let earlier = position.get(dep.as_str()).is_some_and(|&p| p < pos);
            if !earlier {
                return Err(dependency_error(seq, st.index, k));
            }
        }
    }
    Ok(())
}

/// The error for dependency `k` of the stage at document index `index` (§3.5).
fn dependency_error(seq: &Cursor<'_, '_>, index: usize, k: usize) -> MpkError {
    const MSG: &str = "dependency must name decoder or an earlier stage";
    let Ok(mut items) = seq.items() else {
        return rule(seq, MSG);
    };
    let Some(stage) = items.nth(index) else {
        return rule(seq, MSG);
    };
    let Ok(deps) = stage.field("dependencies") else {
        return rule(&stage, MSG);
    };
    match deps.items().ok().and_then(|mut it| it.nth(k)) {
        Some(d) => rule(&d, MSG),
        None => rule(&deps, MSG),
    }
}
