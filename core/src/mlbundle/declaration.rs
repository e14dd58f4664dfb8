//! JSON members and the schema/samples declaration contract (`spec/mlbundle.md` §8).

use super::error::{Error, ErrorKind};
use super::limits::ArchiveLimits;
use super::names::MemberName;
use crate::Location;
use crate::json::{self, Cursor, FieldError, JsonType, Problem, Value};
use alloc::collections::BTreeSet;
use alloc::format;

/// The dtypes a schema field may declare (§8.2).
pub const DTYPES: [&str; 7] = ["float32", "float64", "int32", "int64", "bool", "string", "category"];

/// Parses JSON member `name` strictly within its cap and the configured depth (§8.1):
/// syntax is `InvalidJSON`, size and depth `LimitExceeded`, located in the member.
pub fn parse_member(name: MemberName, bytes: &[u8], limits: &ArchiveLimits) -> Result<Value, Error> {
    json::parse_keyed(bytes, limits.json(name), limits.hash_key()).map_err(|e| member_error(name, &e))
}

/// Checks JSON member `name` exactly as [`parse_member`] does without building its value,
/// for members whose content no rule reads (`structure.json`, §8.1).
pub fn validate_member(name: MemberName, bytes: &[u8], limits: &ArchiveLimits) -> Result<(), Error> {
    json::validate_keyed(bytes, limits.json(name), limits.hash_key()).map_err(|e| member_error(name, &e))
}

/// The §8.1 check of JSON member `name`: `structure.json` is validated ([`validate_member`],
/// `Ok(None)`), `schema.json` and `samples.json` are decoded ([`parse_member`], `Ok(Some)`).
pub fn check_member(name: MemberName, bytes: &[u8], limits: &ArchiveLimits) -> Result<Option<Value>, Error> {
    match name {
        MemberName::Structure => validate_member(name, bytes, limits).map(|()| None),
        _ => parse_member(name, bytes, limits).map(Some),
    }
}

fn member_error(name: MemberName, e: &json::Error) -> Error {
    let kind = match e.kind() {
        json::ErrorKind::LimitExceeded => ErrorKind::LimitExceeded,
        json::ErrorKind::InvalidJson => ErrorKind::InvalidJson,
    };
    let offset = u64::try_from(e.offset).unwrap_or(u64::MAX);
    let msg = format!("{name} is not valid JSON: {}", json::Message(e.reason));
    Error::new(kind, msg, Location::at(offset).in_member(name.as_str()))
}

fn contract_error(name: MemberName, e: &FieldError) -> Error {
    let offset = u64::try_from(e.offset).unwrap_or(u64::MAX);
    let mut at = Location::at(offset).in_member(name.as_str());
    at.path = Some(e.path.clone());
    Error::new(ErrorKind::InvalidJson, format!("{}: {}", e.path, e.problem), at)
}

/// §8.2: `{"inputs": [field, …], "outputs": [field, …]?}`, each field exactly
/// `{"name", "dtype"}`, names non-empty and unique per array. Returns the input count.
pub fn check_schema(value: &Value) -> Result<usize, Error> {
    let root = Cursor::root(value, "schema");
    schema(&root).map_err(|e| contract_error(MemberName::Schema, &e))
}

fn schema(root: &Cursor<'_, '_>) -> Result<usize, FieldError> {
    root.only_members(&["inputs", "outputs"])?;
    let inputs = root.field("inputs")?;
    let n = fields(&inputs)?;
    if n == 0 {
        return Err(inputs.error(Problem::Rule("inputs must not be empty")));
    }
    if let Some(outputs) = root.opt_field("outputs")? {
        fields(&outputs)?;
    }
    Ok(n)
}

fn fields(list: &Cursor<'_, '_>) -> Result<usize, FieldError> {
    let mut seen = BTreeSet::new();
    let mut count = 0usize;
    for field in list.items()? {
        field.only_members(&["name", "dtype"])?;
        let name = field.field("name")?;
        let text = name.str()?;
        if text.is_empty() {
            return Err(name.error(Problem::Rule("name must not be empty")));
        }
        if !seen.insert(text) {
            return Err(name.error(Problem::Rule("duplicate field name")));
        }
        let dtype = field.field("dtype")?;
        if !DTYPES.contains(&dtype.str()?) {
            return Err(dtype.error(Problem::Rule("unknown dtype")));
        }
        count = count.saturating_add(1);
    }
    Ok(count)
}

/// §8.3: `{"rows": [[cell, …], …]}`, each row as long as the schema's inputs, cells
/// numbers, strings, booleans or null.
pub fn check_samples(value: &Value, inputs: usize) -> Result<(), Error> {
    let root = Cursor::root(value, "samples");
    samples(&root, inputs).map_err(|e| contract_error(MemberName::Samples, &e))
}

fn samples(root: &Cursor<'_, '_>, inputs: usize) -> Result<(), FieldError> {
    root.only_members(&["rows"])?;
    for row in root.field("rows")?.items()? {
        if row.array()?.len() != inputs {
            return Err(row.error(Problem::Rule("row length differs from the schema's inputs")));
        }
        for cell in row.items()? {
            if matches!(cell.value().json_type(), JsonType::Array | JsonType::Object) {
                return Err(cell.error(Problem::Rule("cell must be a number, string, boolean or null")));
            }
        }
    }
    Ok(())
}
