//! `pipeline_sequence.json` (`spec/mpk.md` §3.4, §3.5): the seed's "JSON and Sequence
//! Validation" rules, stable ordering by `sequence_id` and dependency rules.
//!
//! The document is checked over its tokens, with no value built ([`read_pipelines`],
//! §3.3.1): the walk (`reader.rs`) goes over it as the strict parser validates it, checks
//! each pipeline when it closes and forgets it, and `dependencies.rs` reads that pipeline's
//! text a second time for §3.5, once its order is known. Memory is one pipeline's stages,
//! whatever the document holds; the pipelines are built only for a document that passes
//! every rule.
//! The rules on one stage are written once, over a [`Cursor`], and run on a small value of
//! that stage's members; `reference.rs` (tests and fuzzing) runs them on the whole value.

mod dependencies;
mod reader;
#[cfg(any(test, fuzzing))]
#[doc(hidden)]
pub mod reference;

use super::classify::{Class, classify};
use super::error::{MpkError, MpkKind, member_path};
use super::registry::Registry;
use crate::json::{self, Cursor, FieldError, Limits, Problem};
use alloc::string::String;
use alloc::vec::Vec;

/// File name of the pipeline description (§3.3).
pub const PIPELINE_FILE: &str = "pipeline_sequence.json";

/// The name a dependency may always use: the input decoder (§3.5).
pub const DECODER: &str = "decoder";

/// The root's name in JSON paths (§3.4).
const ROOT: &str = "pipeline_sequence";

/// What a dependency names (§3.5.2): the input decoder, or the stage at this position of
/// its pipeline's order, always an earlier one. Eight bytes, so a long `dependencies`
/// list costs at most twice its text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dependency {
    /// `decoder`.
    Decoder,
    /// The stage at this index of [`Pipeline::stages`].
    Stage(u32),
}

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
    /// `dependencies`, in document order (empty when absent).
    pub dependencies: Vec<Dependency>,
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

impl Pipeline {
    /// The name `dependency` stands for: `decoder` or its stage's name.
    pub fn dependency_name(&self, dependency: Dependency) -> &str {
        match dependency {
            Dependency::Decoder => DECODER,
            Dependency::Stage(i) => usize::try_from(i)
                .ok()
                .and_then(|i| self.stages.get(i))
                .map_or("", |s| s.name.as_str()),
        }
    }
}

/// Checks `pipeline_sequence.json` (§3.3.1, §3.4, §3.5): its JSON with every check of
/// `json::parse`, then its rules. The outer error is the JSON's (reported when the file
/// ends); the inner result is the rules' verdict, the first failure in rule order
/// (reported when the package ends, §3.3): pipelines in document order, in each the
/// `sequence` rules, its stages' own rules in document order with the uniqueness of their
/// names, then the dependencies in execution order. The pipelines are built only once the
/// verdict is known to be positive, so a rejected document costs one pipeline's stages.
pub fn read_pipelines(
    bytes: &[u8],
    limits: Limits,
    key: [u64; 2],
    registry: &Registry,
    max_stages: usize,
) -> Result<Result<Vec<Pipeline>, MpkError>, json::Error> {
    let rules = Rules {
        registry,
        max_stages,
        key,
    };
    match reader::read(bytes, limits, &rules, false)? {
        Ok(_) => reader::read(bytes, limits, &rules, true),
        Err(e) => Ok(Err(e)),
    }
}

/// What the rules are checked against: the kernel registry (§3.6), the stage limit (§3.4.2)
/// and the key of the parser's duplicate tables.
struct Rules<'r> {
    registry: &'r Registry,
    max_stages: usize,
    key: [u64; 2],
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
pub(crate) const STAGE: [&str; 7] = [
    "sequence_id",
    "name",
    "pluginId",
    "configPath",
    "processor",
    "kernel",
    "dependencies",
];

/// §3.4.1 and §3.4.2, the rules on a pipeline before its stages: an object whose
/// `sequence` is a non-empty array (`len` elements) of at most `max_stages` stages.
fn sequence<'v, 'p>(p: &'p Cursor<'v, 'p>, len: usize, max_stages: usize) -> Result<Cursor<'v, 'p>, MpkError> {
    p.object().map_err(field)?;
    let seq = p.field("sequence").map_err(field)?;
    seq.array().map_err(field)?;
    if len == 0 {
        // seed: "First pipeline object must contain non-empty sequence array".
        return Err(rule(&seq, "sequence must be a non-empty array"));
    }
    if len > max_stages {
        let e = seq.error(Problem::Rule("more stages than the limit"));
        return Err(MpkError::at_value(
            MpkKind::SizeLimitExceeded,
            "more stages than max_stages",
            &e,
            PIPELINE_FILE,
        ));
    }
    Ok(seq)
}

/// §3.4.3 to §3.4.5, a stage's own members in rule order, up to the type of its
/// `dependencies`; each dependency is then checked by [`dependency`]. The stage comes
/// back with no dependencies.
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
    if let Some(deps) = s.opt_field("dependencies").map_err(field)? {
        deps.array().map_err(field)?;
    }
    Ok(Stage {
        sequence_id,
        name: String::from(name),
        plugin_id: String::from(plugin_id),
        config_path,
        processor: String::from(processor),
        kernel: String::from(kernel),
        dependencies: Vec::new(),
        index,
    })
}

/// §3.4.3: one element of `dependencies` is a non-empty string.
fn dependency<'v>(d: &Cursor<'v, '_>) -> Result<&'v str, MpkError> {
    let v = d.str().map_err(field)?;
    if v.is_empty() {
        return Err(rule(d, "must be a non-empty string"));
    }
    Ok(v)
}

/// §3.4.4: `configPath` is a package-relative path (§2) to a `.json` file.
fn config_path(s: &Cursor<'_, '_>) -> Result<String, MpkError> {
    let c = s.field("configPath").map_err(field)?;
    let raw = non_empty(s, "configPath")?;
    let normalized = member_path(raw, &c, PIPELINE_FILE, "configPath")?;
    if classify(&normalized) != Some(Class::Json) {
        return Err(rule(&c, "configPath must name a .json file"));
    }
    Ok(normalized)
}

/// §3.4.3: the error for a stage whose name an earlier stage of its pipeline has.
fn duplicate_name(s: &Cursor<'_, '_>) -> MpkError {
    // seed: "Duplicate stage names are rejected".
    match s.field("name") {
        Ok(name) => rule(&name, "duplicate stage name"),
        Err(e) => field(e),
    }
}

/// §3.5.1: stable order by `sequence_id`; ties keep document order.
fn order(stages: &mut [Stage]) {
    stages.sort_by_key(|s| s.sequence_id);
}

/// §3.5.2: the message of a dependency that names neither `decoder` nor an earlier stage.
const NOT_EARLIER: &str = "dependency must name decoder or an earlier stage";

#[cfg(test)]
mod tests {
    use super::*;

    fn read(doc: &str) -> Result<Vec<Pipeline>, MpkError> {
        read_pipelines(doc.as_bytes(), Limits::DEFAULT, [1, 2], &Registry::DEFAULT, 1024).unwrap()
    }

    fn stage(id: i64, name: &str, deps: &str) -> String {
        alloc::format!(
            r#"{{"sequence_id":{id},"name":"{name}","pluginId":"p","configPath":"c.json","processor":"EV74","kernel":"cast","dependencies":[{deps}]}}"#
        )
    }

    /// §3.5: stages in stable `sequence_id` order; each dependency is `decoder` or the index
    /// of an earlier stage in that order, and names it back.
    #[test]
    fn dependencies_are_earlier_stages_by_their_index_in_the_order() {
        let doc = alloc::format!(
            r#"{{"pipelines":[{{"sequence":[{},{},{}]}}]}}"#,
            stage(2, "late", r#""first","decoder","tie""#),
            stage(1, "first", r#""decoder""#),
            stage(1, "tie", r#""first""#)
        );
        let pipelines = read(&doc).unwrap();
        let p = &pipelines[0];
        let names: Vec<&str> = p.stages.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["first", "tie", "late"]);
        assert_eq!(p.stages[2].index, 0);
        assert_eq!(
            p.stages[2].dependencies,
            [Dependency::Stage(0), Dependency::Decoder, Dependency::Stage(1)]
        );
        let named: Vec<&str> = p.stages[2].dependencies.iter().map(|&d| p.dependency_name(d)).collect();
        assert_eq!(named, ["first", "decoder", "tie"]);
    }

    /// §3.5.2: of two failing dependencies, the one whose stage comes first in the order is
    /// reported, though it comes later in the document.
    #[test]
    fn the_first_failing_dependency_is_first_in_execution_order() {
        let doc = alloc::format!(
            r#"{{"pipelines":[{{"sequence":[{},{}]}}]}}"#,
            stage(2, "b", r#""nobody""#),
            stage(1, "a", r#""decoder","b""#)
        );
        let e = read(&doc).unwrap_err();
        assert_eq!(
            e.location.path.as_deref(),
            Some("pipeline_sequence.pipelines[0].sequence[1].dependencies[1]")
        );
        assert_eq!(
            e.message(),
            "schema_error: dependency must name decoder or an earlier stage"
        );
    }
}
