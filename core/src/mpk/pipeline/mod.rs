//! `pipeline_sequence.json` (`spec/mpk.md` §3.4, §3.5): the MPK Contract document's "JSON and
//! Sequence Validation" rules, stable ordering by `sequence_id` and dependency rules.
//!
//! The document is checked over its tokens, with no value built ([`read_pipelines`],
//! §3.3.1): the walk (`reader.rs`) goes over it as the strict parser validates it, checks
//! each pipeline when it closes and forgets it, and `dependencies.rs` reads that pipeline's
//! text a second time for §3.5, once its order is known. Memory is one pipeline's stages,
//! whatever the document holds; the pipelines are built only for a document that passes
//! every rule.
//! The rules on one stage are written once, over a [`Cursor`], and run on a small value of
//! that stage's members; `reference.rs` (tests and fuzzing) runs them on the whole value.

pub(crate) mod dependencies;
pub(crate) mod reader;
#[cfg(any(test, fuzzing))]
pub mod reference;

use super::classify::{Class, classify};
use super::error::{MpkError, MpkKind, member_path, shown};
use super::registry::Registry;
use crate::json::{self, Cursor, FieldError, JsonType, Limits, Problem};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// File name of the pipeline description (§3.3).
pub(crate) const PIPELINE_FILE: &str = "pipeline_sequence.json";

/// The name a dependency may always use: the input decoder (§3.5).
pub(crate) const DECODER: &str = "decoder";

/// The root's name in JSON paths (§3.4).
const ROOT: &str = "pipeline_sequence";

/// What a stage's input names (§3.5.2): the input decoder, or the stage at this position of
/// its pipeline's order, always an earlier one. Eight bytes, so a long `input` list costs
/// at most twice its text.
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
    /// `configPath`, a file name (§3.4.4); `etc/<configPath>` is a JSON file of the package.
    pub config_path: String,
    /// `processor`.
    pub processor: String,
    /// `kernel`.
    pub kernel: String,
    /// `input`, a string or an array of strings, in document order (empty when absent).
    pub input: Vec<Dependency>,
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
    /// The name an input stands for: `decoder` or its stage's name.
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
    registry: &Registry,
    max_stages: usize,
) -> Result<Result<Vec<Pipeline>, MpkError>, json::Error> {
    let rules = Rules { registry, max_stages };
    match reader::read(bytes, limits, &rules, false)? {
        Ok(_) => reader::read(bytes, limits, &rules, true),
        Err(e) => Ok(Err(e)),
    }
}

/// What the rules are checked against: the registry (§3.6) and the stage limit (§3.4.2).
struct Rules<'r> {
    registry: &'r Registry,
    max_stages: usize,
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

/// The members of a stage that §3.4 and §3.5 read; a stage's other members (`executable`,
/// `params`) are allowed and not read.
pub(crate) const STAGE: [&str; 7] = [
    "sequence_id",
    "name",
    "pluginId",
    "configPath",
    "processor",
    "kernel",
    "input",
];

/// The member that names a stage's inputs: a string, or an array of strings (§3.4.3).
pub(crate) const INPUT: &str = "input";

/// §3.4.1 and §3.4.2, the rules on a pipeline before its stages: an object whose
/// `sequence` is a non-empty array (`len` elements) of at most `max_stages` stages.
fn sequence<'v, 'p>(p: &'p Cursor<'v, 'p>, len: usize, max_stages: usize) -> Result<Cursor<'v, 'p>, MpkError> {
    p.object().map_err(field)?;
    let seq = p.field("sequence").map_err(field)?;
    seq.array().map_err(field)?;
    if len == 0 {
        // §3.4.2: "First pipeline object must contain non-empty sequence array".
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

/// §3.4.3 to §3.4.5, a stage's own members in rule order, up to the type of its `input`; an
/// `input` string, or each element of an `input` array, is then checked by [`dependency`].
/// The stage comes back with no inputs.
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
    // §3.6: the registry's processors and their kernels.
    let Some(known) = registry.stage(processor) else {
        let names: Vec<&str> = registry.stages.iter().map(|p| p.name).collect();
        let detail = format!(
            "processor {} is not registered (one of {})",
            shown(processor),
            names.join(", ")
        );
        return Err(rule_named(&s.field("processor").map_err(field)?, detail));
    };
    if !known.kernels.contains(&kernel) {
        let detail = format!(
            "kernel {} is not registered for processor {} (one of {})",
            shown(kernel),
            known.name,
            known.kernels.join(", ")
        );
        return Err(rule_named(&s.field("kernel").map_err(field)?, detail));
    }
    if let Some(input) = s.opt_field(INPUT).map_err(field)? {
        match input.value().json_type() {
            JsonType::String => {
                dependency(&input)?;
            }
            _ => {
                input
                    .array()
                    .map_err(|_| rule(&input, "input must be a string or an array of strings"))?;
            }
        }
    }
    Ok(Stage {
        sequence_id,
        name: String::from(name),
        plugin_id: String::from(plugin_id),
        config_path,
        processor: String::from(processor),
        kernel: String::from(kernel),
        input: Vec::new(),
        index,
    })
}

/// §3.4.3: an input (the `input` string, or one element of the array) is a non-empty
/// string.
fn dependency<'v>(d: &Cursor<'v, '_>) -> Result<&'v str, MpkError> {
    let v = d.str().map_err(field)?;
    if v.is_empty() {
        return Err(rule(d, "must be a non-empty string"));
    }
    Ok(v)
}

/// §3.4.4: `configPath` is a file name (§2, one segment) of a `.json` file, which the
/// runtime reads from `etc/`.
fn config_path(s: &Cursor<'_, '_>) -> Result<String, MpkError> {
    let c = s.field("configPath").map_err(field)?;
    let raw = non_empty(s, "configPath")?;
    let normalized = member_path(raw, &c, PIPELINE_FILE, "configPath")?;
    if normalized.contains('/') {
        return Err(rule(&c, "configPath must be a file name: it is read from etc/"));
    }
    if classify(&normalized) != Some(Class::Json) {
        return Err(rule(&c, "configPath must name a .json file"));
    }
    Ok(normalized)
}

/// A `schema_error` at the value under `c` whose message names the value.
fn rule_named(c: &Cursor<'_, '_>, detail: String) -> MpkError {
    MpkError::at_value(MpkKind::SchemaError, detail, &c.error(Problem::Rule("")), PIPELINE_FILE)
}

/// §3.4.3: the error for a stage whose name an earlier stage of its pipeline has.
fn duplicate_name(s: &Cursor<'_, '_>) -> MpkError {
    // §3.4.3: "Duplicate stage names are rejected".
    match s.field("name") {
        Ok(name) => rule(&name, "duplicate stage name"),
        Err(e) => field(e),
    }
}

/// §3.5.1: stable order by `sequence_id`; ties keep document order.
fn order(stages: &mut [Stage]) {
    stages.sort_by_key(|s| s.sequence_id);
}

/// §3.5.2: the message of an input that names neither `decoder` nor an earlier stage.
const NOT_EARLIER: &str = "input must name decoder or an earlier stage";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mpk::pipeline::reference::{parse_pipeline_json, parse_pipelines};
    use crate::test_docs::{Choose, ODD, Rng, list, object};

    fn read(doc: &str) -> Result<Vec<Pipeline>, MpkError> {
        let limits = Limits {
            hash_key: [1, 2],
            ..Limits::DEFAULT
        };
        read_pipelines(doc.as_bytes(), limits, &Registry::DEFAULT, 1024).unwrap()
    }

    /// A stage whose `input` is `input` (JSON text: a string or an array).
    fn stage(id: i64, name: &str, input: &str) -> String {
        format!(
            r#"{{"sequence_id":{id},"name":"{name}","pluginId":"processcvu","configPath":"c.json","processor":"CVU","kernel":"preproc","input":{input}}}"#
        )
    }

    fn doc(stages: &[String]) -> String {
        format!(r#"{{"pipelines":[{{"sequence":[{}]}}]}}"#, stages.join(","))
    }

    /// §3.5: stages in stable `sequence_id` order; each input is `decoder` or the index of an
    /// earlier stage in that order, and names it back, from an array or from a string.
    #[test]
    fn inputs_are_earlier_stages_by_their_index_in_the_order() {
        let p = read(&doc(&[
            stage(2, "late", r#"["first","decoder","tie"]"#),
            stage(1, "first", r#""decoder""#),
            stage(1, "tie", r#""first""#),
        ]))
        .unwrap();
        let p = &p[0];
        let names: Vec<&str> = p.stages.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["first", "tie", "late"]);
        assert_eq!(p.stages[2].index, 0);
        assert_eq!(
            p.stages[2].input,
            [Dependency::Stage(0), Dependency::Decoder, Dependency::Stage(1)]
        );
        assert_eq!(p.stages[1].input, [Dependency::Stage(0)]);
        let named: Vec<&str> = p.stages[2].input.iter().map(|&d| p.dependency_name(d)).collect();
        assert_eq!(named, ["first", "decoder", "tie"]);
    }

    /// §3.5.2: of two failing inputs, the one whose stage comes first in the order is
    /// reported, though it comes later in the document; an `input` string is named without
    /// an index.
    #[test]
    fn the_first_failing_input_is_first_in_execution_order() {
        let e = read(&doc(&[
            stage(2, "b", r#""nobody""#),
            stage(1, "a", r#"["decoder","b"]"#),
        ]))
        .unwrap_err();
        assert_eq!(
            e.location.path.as_deref(),
            Some("pipeline_sequence.pipelines[0].sequence[1].input[1]")
        );
        assert_eq!(e.message(), "schema_error: input must name decoder or an earlier stage");
        let e = read(&doc(&[
            stage(1, "a", r#""decoder""#),
            stage(1, "b", r#""c""#),
            stage(2, "c", r#""a""#),
        ]))
        .unwrap_err();
        assert_eq!(
            e.location.path.as_deref(),
            Some("pipeline_sequence.pipelines[0].sequence[1].input")
        );
    }

    /// §3.4.3: `input` is a non-empty string or an array of them; §3.4.4: `configPath` is a
    /// file name.
    #[test]
    fn input_and_config_path_shapes() {
        for (input, path) in [
            ("1", "sequence[0].input"),
            (r#""""#, "sequence[0].input"),
            ("{}", "sequence[0].input"),
            (r#"["decoder",2]"#, "sequence[0].input[1]"),
            (r#"["decoder",""]"#, "sequence[0].input[1]"),
        ] {
            let e = read(&doc(&[stage(1, "a", input)])).unwrap_err();
            assert_eq!(e.kind, MpkKind::SchemaError, "{input}");
            assert_eq!(
                e.location.path.as_deref(),
                Some(&*format!("pipeline_sequence.pipelines[0].{path}")),
                "{input}"
            );
        }
        let nested = stage(1, "a", r#""decoder""#).replace("\"c.json\"", "\"etc/c.json\"");
        let e = read(&doc(&[nested])).unwrap_err();
        assert_eq!(
            e.message(),
            "schema_error: configPath must be a file name: it is read from etc/"
        );
    }

    /// §3.6: stage kernels come from the registry's stage table: CVU and MLA stages of the
    /// runtime, and EV74's plugin kernels.
    #[test]
    fn stage_kernels_by_processor() {
        let with = |processor: &str, kernel: &str| {
            stage(1, "a", r#""decoder""#)
                .replace("\"CVU\"", &format!("\"{processor}\""))
                .replace("\"preproc\"", &format!("\"{kernel}\""))
        };
        for (processor, kernel) in [
            ("CVU", "detessdequant"),
            ("MLA", "infer"),
            ("MLA", "mla"),
            ("EV74", "cast_transform"),
        ] {
            assert!(read(&doc(&[with(processor, kernel)])).is_ok(), "{processor}/{kernel}");
        }
        let e = read(&doc(&[with("MLA", "preproc")])).unwrap_err();
        assert_eq!(
            e.message(),
            "schema_error: kernel \"preproc\" is not registered for processor MLA (one of infer, mla)"
        );
        let e = read(&doc(&[with("GPU", "preproc")])).unwrap_err();
        assert_eq!(
            e.message(),
            "schema_error: processor \"GPU\" is not registered (one of CVU, MLA, EV74)"
        );
    }

    fn value(rng: &mut Rng, options: &[&str]) -> String {
        String::from(if rng.one_in(6) {
            rng.pick(&ODD)
        } else {
            rng.pick(options)
        })
    }

    fn input(rng: &mut Rng) -> String {
        if rng.one_in(2) {
            value(rng, &["\"decoder\"", "\"a\"", "\"b\"", "\"pre\""])
        } else {
            format!(
                "[{}]",
                list(rng, 3, |rng| value(rng, &["\"decoder\"", "\"a\"", "\"b\"", "\"pre\""]))
            )
        }
    }

    fn random_stage(rng: &mut Rng) -> String {
        if rng.one_in(12) {
            return String::from(rng.pick(&ODD));
        }
        let keys: Vec<&str> = STAGE.iter().copied().chain(["junk"]).collect();
        // Most stages have every member they need, so that the later rules are reached.
        if rng.one_in(3) {
            let keys = if rng.one_in(2) { &keys[..] } else { &keys[..7] };
            return object(rng, keys, member);
        }
        format!(
            r#"{{"sequence_id":{},"name":{},"pluginId":"p","configPath":"c.json","processor":"CVU","kernel":"cast","input":{},"x":[[1]]}}"#,
            rng.pick(&["0", "1", "2"]),
            rng.pick(&["\"a\"", "\"b\"", "\"c\""]),
            input(rng)
        )
    }

    fn member(rng: &mut Rng, key: &str) -> String {
        match key {
            "sequence_id" => value(rng, &["0", "1", "2", "1.5", "-1", "\"1\""]),
            "name" => value(rng, &["\"a\"", "\"b\"", "\"decoder\"", "\"pre\"", "\"mla_0\""]),
            "pluginId" => value(rng, &["\"p\""]),
            "configPath" => value(rng, &["\"c.json\"", "\"../c.json\"", "\"c.bin\"", "\"a/c.json\""]),
            "processor" => value(rng, &["\"CVU\"", "\"MLA\"", "\"EV74\"", "\"GPU\""]),
            "kernel" => value(
                rng,
                &["\"cast\"", "\"infer\"", "\"preproc\"", "\"pass_through\"", "\"x\""],
            ),
            "input" => input(rng),
            _ => String::from(rng.pick(&ODD)),
        }
    }

    fn pipeline_doc(rng: &mut Rng) -> String {
        let pipeline = |rng: &mut Rng| match rng.below(8) {
            0 => String::from(rng.pick(&ODD)),
            1 | 2 => object(rng, &["sequence", "junk"], |rng, key| {
                if key == "sequence" {
                    format!("[{}]", list(rng, 4, random_stage))
                } else {
                    String::from(rng.pick(&ODD))
                }
            }),
            _ => format!(r#"{{"junk":[1,{{}}],"sequence":[{}]}}"#, list(rng, 4, random_stage)),
        };
        match rng.below(6) {
            0 => object(rng, &["pipelines", "junk"], |rng, key| {
                let items = list(rng, 3, |rng| String::from(rng.pick(&ODD)));
                if key == "pipelines" && rng.one_in(2) {
                    format!("[{}]", list(rng, 3, pipeline))
                } else {
                    format!("[{items}]")
                }
            }),
            _ => format!(
                r#"{{"pipelines":[{}],"junk":[[0,0],{{"a":[]}}]}}"#,
                list(rng, 3, pipeline)
            ),
        }
    }

    /// Over documents generated around §3.4 and §3.5, for several stage limits: the walk
    /// (`read_pipelines`) gives the verdict of the rules on the whole value
    /// (`reference`), error for error, and on the kept value too.
    #[test]
    fn the_walk_gives_the_rules_outcome_of_whole_documents() {
        let limits = Limits {
            hash_key: [3, 4],
            ..Limits::DEFAULT
        };
        let mut rng = Rng::new(30);
        let (mut accepted, mut rejected) = (0, 0);
        for _ in 0..20_000 {
            for max_stages in [1, 2, 3, 1024] {
                let doc = pipeline_doc(&mut rng);
                let walked = read_pipelines(doc.as_bytes(), limits, &Registry::DEFAULT, max_stages);
                match json::parse(doc.as_bytes(), limits) {
                    Ok(whole) => {
                        let kept = parse_pipeline_json(doc.as_bytes(), limits, max_stages).unwrap();
                        let want = parse_pipelines(&whole, &Registry::DEFAULT, max_stages);
                        assert_eq!(parse_pipelines(&kept, &Registry::DEFAULT, max_stages), want, "{doc}");
                        assert_eq!(walked, Ok(want.clone()), "{doc} under {max_stages}");
                        if want.is_ok() { accepted += 1 } else { rejected += 1 }
                    }
                    Err(e) => assert_eq!(walked, Err(e), "{doc}"),
                }
            }
        }
        assert!(
            accepted > 400 && rejected > 10_000,
            "{accepted} accepted, {rejected} rejected"
        );
    }
}
