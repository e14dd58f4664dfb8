//! The MPK contract, `mpk.json` or `<stem>_mpk.json` (`spec/mpk.md` §3.7).

use super::classify::{Class, classify};
use super::error::{MpkError, MpkKind};
use super::pipeline::Pipeline;
use crate::Location;
use crate::archive_path::{PathLimits, normalize};
use crate::json::{Cursor, FieldError, Problem, Value};
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
            let loc = Location::path(e.path, u64::try_from(e.offset).unwrap_or(u64::MAX)).in_member(member);
            return Err(MpkError::new(
                MpkKind::UnsupportedVersion,
                "mpk_version major is not 1",
                loc,
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
    s.only_members(&["name", "processor", "executable"]).map_err(f)?;
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
    let executable = normalize(raw.as_bytes(), &PathLimits::DEFAULT).map_err(|e| {
        let kind = if e.reason.is_traversal() {
            MpkKind::PathTraversal
        } else {
            MpkKind::SchemaError
        };
        let fe = exe_c.error(Problem::Rule("invalid path"));
        let loc = Location::path(fe.path, u64::try_from(fe.offset).unwrap_or(u64::MAX)).in_member(member);
        MpkError::new(kind, alloc::format!("executable: {}", e.reason), loc)
    })?;
    if classify(&executable) != Some(wanted) {
        return Err(f(exe_c.error(Problem::Rule("MLA runs a .elf, A65 a .so"))));
    }
    Ok(ContractStage {
        name: String::from(name),
        processor: String::from(processor),
        executable,
    })
}
