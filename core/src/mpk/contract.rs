//! The MPK contract, `mpk.json` or `<stem>_mpk.json` (`spec/mpk.md` §3.7): the plugins the
//! runtime runs, in `sequence` order, each with its processor, kernel and executable.

use super::classify::Class;
use super::error::{MpkError, MpkKind, member_path, shown};
use super::registry::{KernelUse, PluginProcessor, Registry};
use crate::json::{self, Cursor, FieldError, Keep, Limits, Problem, Value};
use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// The root's name in JSON paths (§3.7).
const ROOT: &str = "mpk";

/// One plugin of the contract (§3.7.2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plugin {
    /// `name`, unique in the contract.
    pub name: String,
    /// `sequence`: the plugin's place in execution order, from 1.
    pub sequence: u64,
    /// `processor` (`EV74`, `MLA`, `A65`).
    pub processor: String,
    /// `config_params.kernel`, where the processor names one.
    pub kernel: Option<String>,
    /// `resources.executable` as written, normalised (§2).
    pub executable: Option<String>,
    /// For MLA and A65 plugins, the extracted file the executable resolves to (§3.7.4), such
    /// as `share/model.elf`.
    pub resolved: Option<String>,
}

/// The contract (§3.7).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Contract {
    /// `name`, the model's name, when given.
    pub name: Option<String>,
    /// `model_sdk_version`, when given: provenance, never compared (§3.7.1).
    pub model_sdk_version: Option<String>,
    /// The plugins in execution order (by `sequence`).
    pub plugins: Vec<Plugin>,
}

/// Parses a contract file with every check of `json::parse`, building only what
/// [`parse_contract`] reads (`spec/mpk.md` §3.3.1, `spec/json.md` §8.1): the root's typed
/// members and the first `max_stages + 1` plugins, each with the members its rules read
/// (the `config_params` counts are the registry's). That is exact, not a cut: a contract of
/// more than `max_stages` plugins fails on the one after them, so memory is bounded by the
/// limit, not by the file.
pub(crate) fn parse_contract_json(
    bytes: &[u8],
    limits: Limits,
    registry: &Registry,
    max_stages: usize,
) -> Result<Value, json::Error> {
    let mut config: Vec<(&str, Keep<'_>)> = alloc::vec![("kernel", Keep::Shape), ("params", Keep::Shape)];
    for count in registry.plugins.iter().flat_map(|p| p.counts) {
        if !config.iter().any(|(n, _)| n == count) {
            config.push((count, Keep::Shape));
        }
    }
    let resources = [("executable", Keep::Shape)];
    let plugin = [
        ("name", Keep::Shape),
        ("sequence", Keep::Shape),
        ("processor", Keep::Shape),
        ("type", Keep::Shape),
        ("config_params", Keep::Members(&config)),
        ("input_nodes", Keep::Shape),
        ("output_nodes", Keep::Shape),
        ("resources", Keep::Members(&resources)),
    ];
    let plugin = Keep::Members(&plugin);
    let root = [
        ("name", Keep::Shape),
        ("model_path", Keep::Shape),
        ("model_sdk_version", Keep::Shape),
        ("sequence", Keep::Shape),
        ("input_nodes", Keep::Shape),
        ("plugins", Keep::Items(max_stages.saturating_add(1), &plugin)),
    ];
    json::parse(
        bytes,
        json::ParseOptions {
            limits,
            keep: Some(Keep::Members(&root)),
        },
    )
}

/// What the contract rules need of the package: the class of the extracted file at a
/// destination (`share/model.elf`), if there is one (§3.7.4).
pub(crate) type Files<'f> = &'f dyn Fn(&str) -> Option<Class>;

/// Checks the contract `doc` of file `member` (§3.7) against `registry`, resolving the MLA
/// and A65 executables among the extracted `files`. Plugins are checked in document order;
/// each one's own rules, then the uniqueness of its name and sequence; then the sequences'
/// contiguity.
pub(crate) fn parse_contract(
    doc: &Value,
    member: &str,
    registry: &Registry,
    max_stages: usize,
    files: Files<'_>,
) -> Result<Contract, MpkError> {
    let f = |e: FieldError| MpkError::from_field(&e, member);
    let root = Cursor::root(doc, ROOT);
    root.object().map_err(f)?;
    let name = optional_string(&root, "name", member)?;
    optional_string(&root, "model_path", member)?;
    let model_sdk_version = optional_string(&root, "model_sdk_version", member)?;
    if let Some(c) = root.opt_field("sequence").map_err(f)? {
        c.u64().map_err(f)?;
    }
    if let Some(c) = root.opt_field("input_nodes").map_err(f)? {
        c.array().map_err(f)?;
    }
    let list = root.field("plugins").map_err(f)?;
    let len = list.array().map_err(f)?.len();
    if len == 0 {
        return Err(f(list.error(Problem::Rule("plugins must be a non-empty array"))));
    }
    if len > max_stages {
        let e = list.error(Problem::Rule("more plugins than the limit"));
        return Err(MpkError::at_value(
            MpkKind::SizeLimitExceeded,
            "more plugins than max_stages",
            &e,
            member,
        ));
    }
    let items: Vec<Cursor<'_, '_>> = list.items().map_err(f)?.collect();
    let mut names = BTreeSet::new();
    let mut sequences = BTreeSet::new();
    let mut plugins = Vec::with_capacity(len);
    for p in &items {
        let plugin = plugin(p, member, registry, files)?;
        if !names.insert(plugin.name.clone()) {
            return Err(at_member(p, "name", "duplicate plugin name", member));
        }
        if !sequences.insert(plugin.sequence) {
            return Err(at_member(p, "sequence", "duplicate plugin sequence", member));
        }
        plugins.push(plugin);
    }
    // §3.7.2: the sequences are 1 to n. They are unique and positive, so one above n
    // leaves a gap.
    let n = u64::try_from(len).unwrap_or(u64::MAX);
    if let Some((p, _)) = items.iter().zip(&plugins).find(|(_, plugin)| plugin.sequence > n) {
        let detail = format!("plugin sequences must run from 1 to {n} without a gap");
        return Err(rule_at(&p.field("sequence").map_err(f)?, member, detail));
    }
    plugins.sort_by_key(|p| p.sequence);
    Ok(Contract {
        name,
        model_sdk_version,
        plugins,
    })
}

/// §3.7.1: an optional member that must be a string when present.
fn optional_string(c: &Cursor<'_, '_>, name: &str, member: &str) -> Result<Option<String>, MpkError> {
    let f = |e: FieldError| MpkError::from_field(&e, member);
    match c.opt_field(name).map_err(f)? {
        Some(v) => Ok(Some(String::from(v.str().map_err(f)?))),
        None => Ok(None),
    }
}

/// A `schema_error` with `rule` at member `name` of the plugin under `p` (which its own
/// rules found present).
fn at_member(p: &Cursor<'_, '_>, name: &str, rule: &'static str, member: &str) -> MpkError {
    let e = match p.field(name) {
        Ok(c) => c.error(Problem::Rule(rule)),
        Err(e) => e,
    };
    MpkError::from_field(&e, member)
}

/// A `schema_error` at the value under `c` whose message names what is wrong.
fn rule_at(c: &Cursor<'_, '_>, member: &str, detail: String) -> MpkError {
    MpkError::at_value(MpkKind::SchemaError, detail, &c.error(Problem::Rule("")), member)
}

/// A required member that is a non-empty string.
fn non_empty<'v>(c: &Cursor<'v, '_>, name: &str, member: &str) -> Result<&'v str, MpkError> {
    let f = |e: FieldError| MpkError::from_field(&e, member);
    let v = c.field(name).map_err(f)?;
    let s = v.str().map_err(f)?;
    if s.is_empty() {
        return Err(f(v.error(Problem::Rule("must be a non-empty string"))));
    }
    Ok(s)
}

/// A required member that is an integer of at least 1.
fn positive(c: &Cursor<'_, '_>, name: &str, member: &str) -> Result<u64, MpkError> {
    let f = |e: FieldError| MpkError::from_field(&e, member);
    let v = c.field(name).map_err(f)?;
    match v.number().map_err(f)?.to_i64() {
        Ok(n) if n >= 1 => Ok(u64::try_from(n).unwrap_or(u64::MAX)),
        Ok(_) => Err(f(v.error(Problem::Rule("must be an integer of at least 1")))),
        // A number beyond i64 that is an integer is still positive.
        Err(_) => v.u64().map_err(f),
    }
}

/// §3.7.2 to §3.7.4: one plugin's own rules, in this order: name, sequence, processor, type,
/// `config_params` (kernel, then the processor's required integers), nodes, executable.
fn plugin(p: &Cursor<'_, '_>, member: &str, registry: &Registry, files: Files<'_>) -> Result<Plugin, MpkError> {
    let f = |e: FieldError| MpkError::from_field(&e, member);
    p.object().map_err(f)?;
    let name = non_empty(p, "name", member)?;
    let sequence = positive(p, "sequence", member)?;
    let processor_c = p.field("processor").map_err(f)?;
    let processor_name = processor_c.str().map_err(f)?;
    let Some(processor) = registry.plugin(processor_name) else {
        let known: Vec<&str> = registry.plugins.iter().map(|q| q.name).collect();
        let detail = format!(
            "processor {} is not registered (one of {})",
            shown(processor_name),
            known.join(", ")
        );
        return Err(rule_at(&processor_c, member, detail));
    };
    if let Some(t) = p.opt_field("type").map_err(f)? {
        let value = t.str().map_err(f)?;
        if !registry.plugin_types.contains(&value) {
            let detail = format!(
                "plugin type {} is not registered (one of {})",
                shown(value),
                registry.plugin_types.join(", ")
            );
            return Err(rule_at(&t, member, detail));
        }
    }
    let config = p.field("config_params").map_err(f)?;
    config.object().map_err(f)?;
    let kernel = kernel(&config, processor, member)?;
    if let Some(params) = config.opt_field("params").map_err(f)? {
        params.object().map_err(f)?;
    }
    for count in processor.counts {
        positive(&config, count, member)?;
    }
    p.field("input_nodes").and_then(|c| c.array().map(|_| ())).map_err(f)?;
    p.field("output_nodes").and_then(|c| c.array().map(|_| ())).map_err(f)?;
    let (executable, resolved) = executable(p, processor, member, files)?;
    Ok(Plugin {
        name: String::from(name),
        sequence,
        processor: String::from(processor.name),
        kernel,
        executable,
        resolved,
    })
}

/// §3.6: `config_params.kernel` as the processor's [`KernelUse`] says.
fn kernel(config: &Cursor<'_, '_>, processor: &PluginProcessor, member: &str) -> Result<Option<String>, MpkError> {
    let f = |e: FieldError| MpkError::from_field(&e, member);
    let Some(k) = config.opt_field("kernel").map_err(f)? else {
        // A required kernel that is absent: `field` reports it missing.
        return match processor.kernel {
            KernelUse::Required => config.field("kernel").map(|_| None).map_err(f),
            _ => Ok(None),
        };
    };
    let value = k.str().map_err(f)?;
    if processor.kernel == KernelUse::Forbidden {
        let detail = format!("{} plugins name no kernel", processor.name);
        return Err(rule_at(&k, member, detail));
    }
    if !processor.kernels.contains(&value) {
        let detail = format!(
            "kernel {} is not registered for processor {} (one of {})",
            shown(value),
            processor.name,
            processor.kernels.join(", ")
        );
        return Err(rule_at(&k, member, detail));
    }
    Ok(Some(String::from(value)))
}

/// §3.7.3 and §3.7.4: `resources.executable`, normalised by the archive path rules (§2);
/// required and resolved for the processors with a search order (MLA, A65), to the first
/// extracted `.elf` or `.so` the order finds.
fn executable(
    p: &Cursor<'_, '_>,
    processor: &PluginProcessor,
    member: &str,
    files: Files<'_>,
) -> Result<(Option<String>, Option<String>), MpkError> {
    let f = |e: FieldError| MpkError::from_field(&e, member);
    let order = processor.executable;
    // Absent and not required: nothing to check. Absent and required: `field` reports it.
    let resources = match (p.opt_field("resources").map_err(f)?, order) {
        (Some(r), _) => r,
        (None, None) => return Ok((None, None)),
        (None, Some(_)) => p.field("resources").map_err(f)?,
    };
    resources.object().map_err(f)?;
    let exe_c = match (resources.opt_field("executable").map_err(f)?, order) {
        (Some(c), _) => c,
        (None, None) => return Ok((None, None)),
        (None, Some(_)) => resources.field("executable").map_err(f)?,
    };
    let raw = exe_c.str().map_err(f)?;
    let normalized = member_path(raw, &exe_c, member, "executable")?;
    let Some(order) = order else {
        return Ok((Some(normalized), None));
    };
    let found = order.iter().find_map(|folder| {
        let candidate = format!("{folder}{normalized}");
        files(&candidate).filter(|c| c.is_binary()).map(|_| candidate)
    });
    match found {
        Some(dest) => Ok((Some(normalized), Some(dest))),
        None => {
            let looked: Vec<&str> = order
                .iter()
                .map(|d| if d.is_empty() { "the root" } else { d })
                .collect();
            let detail = format!(
                "executable {} is not an extracted .elf or .so (looked in {})",
                shown(&normalized),
                looked.join(", ")
            );
            Err(rule_at(&exe_c, member, detail))
        }
    }
}

#[cfg(test)]
mod tests {
    //! The kept contract (`parse_contract_json`) against the whole one: the same verdict,
    //! error for error, over documents generated around §3.7 and several plugin limits.

    use super::*;
    use crate::test_docs::{Choose, ODD, Rng, list, object};

    fn value(rng: &mut Rng, options: &[&str]) -> String {
        String::from(if rng.one_in(6) {
            rng.pick(&ODD)
        } else {
            rng.pick(options)
        })
    }

    fn config(rng: &mut Rng) -> String {
        object(
            rng,
            &["kernel", "params", "desired_batch_size", "actual_batch_size", "junk"],
            |rng, key| match key {
                "kernel" => value(rng, &["\"cast\"", "\"preproc\"", "\"slice\"", "\"x\""]),
                "params" => value(rng, &["{}", "{\"a\":[1]}"]),
                "desired_batch_size" | "actual_batch_size" => value(rng, &["1", "4", "0"]),
                _ => String::from(rng.pick(&ODD)),
            },
        )
    }

    fn plugin(rng: &mut Rng) -> String {
        if rng.one_in(10) {
            return String::from(rng.pick(&ODD));
        }
        if rng.one_in(3) {
            let keys = [
                "name",
                "sequence",
                "processor",
                "type",
                "config_params",
                "input_nodes",
                "output_nodes",
                "resources",
                "junk",
            ];
            return object(rng, &keys, |rng, key| match key {
                "name" => value(rng, &["\"a\"", "\"b\"", "\"\""]),
                "sequence" => value(rng, &["1", "2", "3", "0", "1.5"]),
                "processor" => value(rng, &["\"EV74\"", "\"MLA\"", "\"A65\"", "\"CVU\""]),
                "type" => value(rng, &["\"sgpProcess\"", "\"other\""]),
                "config_params" => config(rng),
                "input_nodes" | "output_nodes" => value(rng, &["[]", "[{\"name\":\"t\",\"size\":4}]"]),
                "resources" => value(
                    rng,
                    &["{\"executable\":\"m.elf\"}", "{\"executable\":\"../m.elf\"}", "{}"],
                ),
                _ => String::from(rng.pick(&ODD)),
            });
        }
        String::from(rng.pick(&[
            r#"{"name":"pre","sequence":1,"processor":"EV74","type":"sgpProcess","config_params":{"kernel":"preproc","params":{}},"input_nodes":[],"output_nodes":[]}"#,
            r#"{"name":"mla","sequence":2,"processor":"MLA","config_params":{"desired_batch_size":1,"actual_batch_size":1,"x":[[1]]},"input_nodes":[],"output_nodes":[],"resources":{"executable":"m.elf"}}"#,
            r#"{"junk":{"a":[]},"name":"post","sequence":3,"processor":"A65","config_params":{"kernel":"slice"},"input_nodes":[],"output_nodes":[],"resources":{"executable":"p.so"}}"#,
            r#"{"name":"tvm","sequence":2,"processor":"A65","config_params":{},"input_nodes":[1],"output_nodes":[],"resources":{"executable":"lib/p.so"}}"#,
        ]))
    }

    fn contract_doc(rng: &mut Rng) -> String {
        match rng.below(4) {
            0 => object(
                rng,
                &[
                    "name",
                    "model_sdk_version",
                    "sequence",
                    "input_nodes",
                    "plugins",
                    "junk",
                ],
                |rng, key| match key {
                    "name" | "model_sdk_version" => value(rng, &["\"m\"", "\"2.0.0\""]),
                    "sequence" => value(rng, &["1"]),
                    "input_nodes" => value(rng, &["[]"]),
                    "plugins" => format!("[{}]", list(rng, 4, plugin)),
                    _ => format!("[{}]", list(rng, 2, |rng| String::from(rng.pick(&ODD)))),
                },
            ),
            _ => format!(
                r#"{{"name":"m","plugins":[{}]{}}}"#,
                list(rng, 4, plugin),
                rng.pick(&["", r#","junk":[0,[1]]"#, r#","model_sdk_version":"2.1.0""#])
            ),
        }
    }

    #[test]
    fn kept_contracts_give_the_rules_outcome_of_whole_ones() {
        let (limits, registry) = (
            Limits {
                hash_key: [3, 4],
                ..Limits::DEFAULT
            },
            Registry::DEFAULT,
        );
        let files = |dest: &str| match dest {
            "share/m.elf" => Some(Class::Elf),
            "lib/p.so" => Some(Class::SharedObject),
            _ => None,
        };
        let mut rng = Rng::new(31);
        let (mut accepted, mut rejected) = (0, 0);
        for _ in 0..20_000 {
            for max_stages in [1, 2, 3, 1024] {
                let doc = contract_doc(&mut rng);
                let Ok(whole) = json::parse(doc.as_bytes(), limits) else {
                    continue;
                };
                let kept = parse_contract_json(doc.as_bytes(), limits, &registry, max_stages).unwrap();
                let want = parse_contract(&whole, "mpk.json", &registry, max_stages, &files);
                assert_eq!(
                    parse_contract(&kept, "mpk.json", &registry, max_stages, &files),
                    want,
                    "{doc} under {max_stages}"
                );
                if want.is_ok() { accepted += 1 } else { rejected += 1 }
            }
        }
        assert!(
            accepted > 1_000 && rejected > 10_000,
            "{accepted} accepted, {rejected} rejected"
        );
    }
}
