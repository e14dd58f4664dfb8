//! The MPK contract, `mpk.json` or `<stem>_mpk.json` (`spec/mpk.md` §3.7).

use super::classify::{Class, classify};
use super::error::{MpkError, MpkKind, member_path};
use super::pipeline::Pipeline;
use crate::json::{self, Cursor, FieldError, Keep, Limits, Problem, Value};
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

/// The contract major version this reader supports (§3.7.1).
pub const SUPPORTED_MAJOR: u64 = 1;

/// One executable stage of the contract (§3.7.3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContractStage {
    /// `name`: a stage of the first pipeline with the same processor.
    pub name: String,
    /// `processor`: `MLA` or `A65`.
    pub processor: String,
    /// `executable`, normalised: `.elf` for MLA, `.so` for A65.
    pub executable: String,
}

/// The semantic contract (§3.7).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Contract {
    /// `mpk_version` as written, `MAJOR.MINOR`.
    pub version: String,
    /// `model`.
    pub model: String,
    /// `stages`.
    pub stages: Vec<ContractStage>,
}

/// Folder search order of an executable by processor (seed "MPK Manifest Loading";
/// §3.7.4): MLA from `share/`, `lib/`, the root; A65 from `lib/`, the root, `share/`.
pub fn search_order(processor: &str) -> &'static [&'static str] {
    match processor {
        "MLA" => &["share/", "lib/", ""],
        "A65" => &["lib/", "", "share/"],
        _ => &[],
    }
}

/// Validates a parsed contract against the first pipeline (§3.7). `member` is the
/// contract's path in the package.
pub fn parse_contract(doc: &Value, member: &str, first: &Pipeline) -> Result<Contract, MpkError> {
    let f = |e: FieldError| MpkError::from_field(&e, member);
    let root = Cursor::root(doc, "mpk");
    root.object().map_err(f)?;
    // §3.7.1: the version first, so a future major is reported as unsupported_version
    // whatever else it changed.
    let version_cursor = root.field("mpk_version").map_err(f)?;
    let version = version_cursor.str().map_err(f)?;
    match parse_version(version) {
        None => return Err(f(version_cursor.error(Problem::Rule("must be MAJOR.MINOR")))),
        Some(major) if major != SUPPORTED_MAJOR => {
            let e = version_cursor.error(Problem::Rule("unsupported major version"));
            return Err(MpkError::at_value(
                MpkKind::UnsupportedVersion,
                "mpk_version major is not 1",
                &e,
                member,
            ));
        }
        Some(_) => {}
    }
    // §3.7.2: the schema is closed.
    root.only_members(&["mpk_version", "model", "stages"]).map_err(f)?;
    let model_cursor = root.field("model").map_err(f)?;
    let model = model_cursor.str().map_err(f)?;
    if model.is_empty() {
        return Err(f(model_cursor.error(Problem::Rule("must be a non-empty string"))));
    }
    let list = root.field("stages").map_err(f)?;
    if list.array().map_err(f)?.is_empty() {
        return Err(f(list.error(Problem::Rule("stages must be a non-empty array"))));
    }
    let by_name: BTreeMap<&str, &str> = first
        .stages
        .iter()
        .map(|s| (s.name.as_str(), s.processor.as_str()))
        .collect();
    let mut seen: BTreeMap<&str, ()> = BTreeMap::new();
    let mut stages = Vec::new();
    for s in list.items().map_err(f)? {
        let st = contract_stage(&s, member, &by_name)?;
        let name_cursor = s.field("name").map_err(f)?;
        let name = name_cursor.str().map_err(f)?;
        if seen.insert(name, ()).is_some() {
            return Err(f(name_cursor.error(Problem::Rule("duplicate contract stage"))));
        }
        stages.push(st);
    }
    Ok(Contract {
        version: String::from(version),
        model: String::from(model),
        stages,
    })
}

/// The members of a contract stage (§3.7.2: the schema is closed).
const STAGE: [(&str, Keep<'static>); 3] = [
    ("name", Keep::Shape),
    ("processor", Keep::Shape),
    ("executable", Keep::Shape),
];

/// Parses a contract file with the same checks and errors as `json::parse`, building only
/// what [`parse_contract`] reads (`spec/mpk.md` §3.3.1, `spec/json.md` §8.1): the closed
/// root and stage objects keep their members and their first unknown one, which §3.7.2
/// reports, and `stages` keeps its first `max_stages + 1` entries. That is exact: each
/// contract stage must name a different stage of the first pipeline (§3.7.3), which has at
/// most `max_stages` (§3.4.2), so a longer list fails within them.
pub fn parse_contract_json(
    bytes: &[u8],
    limits: Limits,
    key: [u64; 2],
    max_stages: usize,
) -> Result<Value, json::Error> {
    let stage = Keep::Closed(&STAGE);
    let root = [
        ("mpk_version", Keep::Shape),
        ("model", Keep::Shape),
        ("stages", Keep::Items(max_stages.saturating_add(1), &stage)),
    ];
    json::parse_kept(bytes, limits, key, Keep::Closed(&root))
}

/// `MAJOR.MINOR`, both canonical decimals; returns the major.
fn parse_version(v: &str) -> Option<u64> {
    let (major, minor) = v.split_once('.')?;
    crate::tar::pax::decimal(minor.as_bytes())?;
    crate::tar::pax::decimal(major.as_bytes())
}

fn contract_stage(
    s: &Cursor<'_, '_>,
    member: &str,
    pipeline: &BTreeMap<&str, &str>,
) -> Result<ContractStage, MpkError> {
    let f = |e: FieldError| MpkError::from_field(&e, member);
    s.only_members(&STAGE.map(|(name, _)| name)).map_err(f)?;
    let name_c = s.field("name").map_err(f)?;
    let name = name_c.str().map_err(f)?;
    let proc_c = s.field("processor").map_err(f)?;
    let processor = proc_c.str().map_err(f)?;
    let wanted = match processor {
        "MLA" => Class::Elf,
        "A65" => Class::SharedObject,
        _ => return Err(f(proc_c.error(Problem::Rule("contract stages run on MLA or A65")))),
    };
    // §3.7.3: the contract and the pipeline describe the same stages.
    match pipeline.get(name) {
        Some(p) if *p == processor => {}
        _ => {
            return Err(f(
                name_c.error(Problem::Rule("not a stage of the first pipeline with this processor"))
            ));
        }
    }
    let exe_c = s.field("executable").map_err(f)?;
    let raw = exe_c.str().map_err(f)?;
    let executable = member_path(raw, &exe_c, member, "executable")?;
    if classify(&executable) != Some(wanted) {
        return Err(f(exe_c.error(Problem::Rule("MLA runs a .elf, A65 a .so"))));
    }
    Ok(ContractStage {
        name: String::from(name),
        processor: String::from(processor),
        executable,
    })
}

#[cfg(test)]
mod tests {
    //! Over documents generated around §3.4, §3.5 and §3.7, for several stage limits: the
    //! kept contract (`parse_contract_json`) against the whole one, and the pipeline walk
    //! (`read_pipelines`) against the rules on the whole value (`pipeline::reference`),
    //! error for error.

    use super::*;
    use crate::mpk::pipeline::reference::{parse_pipeline_json, parse_pipelines};
    use crate::mpk::pipeline::{STAGE, Stage, read_pipelines};
    use crate::mpk::registry::Registry;
    use crate::test_docs::{Choose, ODD, Rng, list, object};
    use alloc::format;

    fn value(rng: &mut Rng, options: &[&str]) -> String {
        String::from(if rng.one_in(6) {
            rng.pick(&ODD)
        } else {
            rng.pick(options)
        })
    }

    fn stage(rng: &mut Rng) -> String {
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
            r#"{{"sequence_id":{},"name":{},"pluginId":"p","configPath":"c.json","processor":"EV74","kernel":"cast","dependencies":[{}],"x":[[1]]}}"#,
            rng.pick(&["0", "1", "2"]),
            rng.pick(&["\"a\"", "\"b\"", "\"c\""]),
            list(rng, 3, |rng| value(rng, &["\"decoder\"", "\"a\"", "\"b\""]))
        )
    }

    fn member(rng: &mut Rng, key: &str) -> String {
        match key {
            "sequence_id" => value(rng, &["0", "1", "2", "1.5", "-1", "\"1\""]),
            "name" => value(rng, &["\"a\"", "\"b\"", "\"decoder\"", "\"pre\"", "\"mla_0\""]),
            "pluginId" => value(rng, &["\"p\""]),
            "configPath" => value(rng, &["\"c.json\"", "\"../c.json\"", "\"c.bin\"", "\"a/c.json\""]),
            "processor" => value(rng, &["\"EV74\"", "\"MLA\"", "\"A65\"", "\"GPU\""]),
            "kernel" => value(
                rng,
                &[
                    "\"cast\"",
                    "\"mla_inference\"",
                    "\"a65_preprocess\"",
                    "\"pass_through\"",
                    "\"x\"",
                ],
            ),
            "dependencies" => format!(
                "[{}]",
                list(rng, 3, |rng| value(rng, &["\"decoder\"", "\"a\"", "\"b\"", "\"pre\""]))
            ),
            _ => String::from(rng.pick(&ODD)),
        }
    }

    fn pipeline_doc(rng: &mut Rng) -> String {
        let pipeline = |rng: &mut Rng| match rng.below(8) {
            0 => String::from(rng.pick(&ODD)),
            1 | 2 => object(rng, &["sequence", "junk"], |rng, key| {
                if key == "sequence" {
                    format!("[{}]", list(rng, 4, stage))
                } else {
                    String::from(rng.pick(&ODD))
                }
            }),
            _ => format!(r#"{{"junk":[1,{{}}],"sequence":[{}]}}"#, list(rng, 4, stage)),
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

    fn contract_doc(rng: &mut Rng) -> String {
        let stage = |rng: &mut Rng| match rng.below(8) {
            0 => String::from(rng.pick(&ODD)),
            1 | 2 => object(
                rng,
                &["name", "processor", "executable", "junk"],
                |rng, key| match key {
                    "name" => value(rng, &["\"pre\"", "\"mla_0\"", "\"post\"", "\"x\""]),
                    "processor" => value(rng, &["\"MLA\"", "\"A65\"", "\"EV74\""]),
                    "executable" => value(rng, &["\"m.elf\"", "\"p.so\"", "\"../m.elf\"", "\"m.bin\""]),
                    _ => String::from(rng.pick(&ODD)),
                },
            ),
            _ => String::from(rng.pick(&[
                r#"{"name":"mla_0","processor":"MLA","executable":"m.elf"}"#,
                r#"{"name":"post","processor":"A65","executable":"p.so"}"#,
                r#"{"executable":"bin/p.so","processor":"A65","name":"post"}"#,
                r#"{"name":"mla_0","processor":"MLA","executable":"m.elf","x":[[]],"y":1}"#,
            ])),
        };
        match rng.below(4) {
            0 => object(
                rng,
                &["mpk_version", "model", "stages", "junk", "extra"],
                |rng, key| match key {
                    "mpk_version" => value(rng, &["\"1.0\"", "\"1.0\"", "\"2.0\"", "\"1\""]),
                    "model" => value(rng, &["\"m\""]),
                    "stages" => format!("[{}]", list(rng, 5, stage)),
                    _ => format!("[{}]", list(rng, 2, |rng| String::from(rng.pick(&ODD)))),
                },
            ),
            _ => format!(
                r#"{{"mpk_version":"1.{}","model":"m","stages":[{}]{}}}"#,
                rng.below(3),
                list(rng, 5, stage),
                rng.pick(&["", r#","junk":[0,[1]]"#, r#","x":1,"y":[2]"#])
            ),
        }
    }

    fn stage_of(name: &str, processor: &str, index: usize) -> Stage {
        Stage {
            sequence_id: 0,
            name: String::from(name),
            plugin_id: String::from("p"),
            config_path: String::from("c.json"),
            processor: String::from(processor),
            kernel: String::from("k"),
            dependencies: Vec::new(),
            index,
        }
    }

    #[test]
    fn kept_documents_give_the_rules_outcome_of_whole_documents() {
        let limits = Limits::DEFAULT;
        let key = [3, 4];
        let first = Pipeline {
            stages: alloc::vec![
                stage_of("mla_0", "MLA", 0),
                stage_of("post", "A65", 1),
                stage_of("pre", "EV74", 2)
            ],
        };
        let mut rng = Rng(30);
        let (mut pipelines_ok, mut contracts_ok, mut rejected) = (0, 0, 0);
        for _ in 0..20_000 {
            for max_stages in [1, 2, 3, 1024] {
                let doc = pipeline_doc(&mut rng);
                let walked = read_pipelines(doc.as_bytes(), limits, key, &Registry::DEFAULT, max_stages);
                match json::parse(doc.as_bytes(), limits) {
                    Ok(whole) => {
                        let kept = parse_pipeline_json(doc.as_bytes(), limits, key, max_stages).unwrap();
                        let want = parse_pipelines(&whole, &Registry::DEFAULT, max_stages);
                        assert_eq!(parse_pipelines(&kept, &Registry::DEFAULT, max_stages), want, "{doc}");
                        assert_eq!(walked, Ok(want.clone()), "{doc} under {max_stages}");
                        if want.is_ok() { pipelines_ok += 1 } else { rejected += 1 }
                    }
                    Err(e) => assert_eq!(walked, Err(e), "{doc}"),
                }
                let doc = contract_doc(&mut rng);
                if let Ok(whole) = json::parse(doc.as_bytes(), limits) {
                    let kept = parse_contract_json(doc.as_bytes(), limits, key, max_stages).unwrap();
                    let first = Pipeline {
                        stages: first.stages.iter().take(max_stages).cloned().collect(),
                    };
                    let want = parse_contract(&whole, "mpk.json", &first);
                    assert_eq!(
                        parse_contract(&kept, "mpk.json", &first),
                        want,
                        "{doc} under {max_stages}"
                    );
                    if want.is_ok() { contracts_ok += 1 } else { rejected += 1 }
                }
            }
        }
        assert!(
            pipelines_ok > 500 && contracts_ok > 1_000 && rejected > 10_000,
            "{pipelines_ok} pipelines and {contracts_ok} contracts accepted, {rejected} rejected"
        );
    }
}
