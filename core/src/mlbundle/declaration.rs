//! JSON members and the schema/samples declaration contract (`spec/mlbundle.md` §8).

use super::contract::{self, Failure, samples::Samples, schema::Schema};
use super::error::{Error, ErrorKind};
use super::limits::ArchiveLimits;
use super::names::MemberName;
use crate::Location;
use crate::json::{self, FieldError, Value};
use alloc::format;

/// The dtypes a schema field may declare (§8.2).
pub(crate) const DTYPES: [&str; 7] = ["float32", "float64", "int32", "int64", "bool", "string", "category"];

/// Characters of an unknown dtype that its message shows.
const DTYPE_CHARS: usize = 64;

/// The problem of a field whose `dtype` is the string `found`, not one of [`DTYPES`].
pub(crate) fn unknown_dtype(found: &str) -> json::Problem {
    json::Problem::Stated(format!(
        "unknown dtype {} (expected one of {})",
        json::quoted(found, DTYPE_CHARS),
        DTYPES.join(", ")
    ))
}

/// Parses JSON member `name` strictly within its cap and the configured depth (§8.1):
/// syntax is `InvalidJSON`, size and depth `LimitExceeded`, located in the member. The
/// value costs some 60 to 80 bytes of heap per element (`spec/json.md` §8); the readers
/// check members with [`check_member`] and the contract functions, which build none.
pub(crate) fn parse_member(name: MemberName, bytes: &[u8], limits: &ArchiveLimits) -> Result<Value, Error> {
    json::parse(bytes, limits.json(name)).map_err(|e| member_error(name, &e))
}

/// The §8.1 check of JSON member `name`: exactly what `parse_member` checks, with no
/// value built, whatever the member (the §8.2 and §8.3 contracts are checked over its
/// tokens afterwards, by [`check_schema`] and [`check_samples`]).
pub fn check_member(name: MemberName, bytes: &[u8], limits: &ArchiveLimits) -> Result<(), Error> {
    json::validate(bytes, limits.json(name)).map_err(|e| member_error(name, &e))
}

/// §8.2 over the bytes of `schema.json`, which [`check_member`] has accepted:
/// `{"inputs": [field, …], "outputs": [field, …]?}`, each field exactly `{"name", "dtype"}`,
/// names non-empty and unique per list, dtypes from `DTYPES`. Returns the input count.
/// No value is built: the memory is a stand-in per open level and one entry per field name.
pub fn check_schema(bytes: &[u8], limits: &ArchiveLimits) -> Result<usize, Error> {
    let name = MemberName::Schema;
    contract::check(bytes, limits.json(name), Schema::new(bytes)).map_err(|f| failure(name, f))
}

/// §8.3 over the bytes of `samples.json`, which [`check_member`] has accepted:
/// `{"rows": [[cell, …], …]}`, each row as long as the schema's `inputs`, cells numbers,
/// strings, booleans or null. No value is built, whatever the number of rows.
pub fn check_samples(bytes: &[u8], inputs: usize, limits: &ArchiveLimits) -> Result<(), Error> {
    let name = MemberName::Samples;
    contract::check(bytes, limits.json(name), Samples::new(inputs)).map_err(|f| failure(name, f))
}

fn failure(name: MemberName, f: Failure) -> Error {
    match f {
        Failure::Json(e) => member_error(name, &e),
        Failure::Contract(e) => contract_error(name, &e),
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

/// The §8.2 and §8.3 rules checked on the decoded members through [`json::Cursor`], in the
/// order they are stated: the reference the contract sinks are tested against, with the
/// generators of members around them (the unit test below, and the `mlbundle_contract` fuzz
/// target, which builds with `--cfg fuzzing`).
#[cfg(any(test, fuzzing))]
#[doc(hidden)]
pub mod reference {
    use super::*;
    use crate::json::{Cursor, JsonType, Problem};
    use crate::test_docs::{Choose, ODD, list, named_object};
    use alloc::collections::BTreeSet;
    use alloc::string::String;

    /// §8.2 checked on the decoded member, as the reader did before its contract sink.
    pub fn check_schema(bytes: &[u8], limits: &ArchiveLimits) -> Result<usize, Error> {
        let value = parse_member(MemberName::Schema, bytes, limits)?;
        schema(&Cursor::root(&value, "schema")).map_err(|e| contract_error(MemberName::Schema, &e))
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
            let found = dtype.str()?;
            if !DTYPES.contains(&found) {
                return Err(dtype.error(unknown_dtype(found)));
            }
            count = count.saturating_add(1);
        }
        Ok(count)
    }

    /// §8.3 checked on the decoded member, as the reader did before its contract sink.
    pub fn check_samples(bytes: &[u8], inputs: usize, limits: &ArchiveLimits) -> Result<(), Error> {
        let value = parse_member(MemberName::Samples, bytes, limits)?;
        samples(&Cursor::root(&value, "samples"), inputs).map_err(|e| contract_error(MemberName::Samples, &e))
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

    fn field<C: Choose>(rng: &mut C) -> String {
        if rng.one_in(12) {
            return String::from(rng.pick(&ODD));
        }
        let names = [
            "\"a\"",
            "\"b\"",
            "\"\\u0061\"",
            "\"\"",
            "\"long name beyond eight\"",
            "\"long name beyond eighT\"",
            "1",
            "[]",
        ];
        let dtypes = [
            "\"float32\"",
            "\"bool\"",
            "\"category\"",
            "\"float16\"",
            "\"\"",
            "null",
            "{}",
        ];
        let keys = ["name", "dtype", "dtype", "name", "other", "n\\u0061me", "dtyp"];
        let mut used = BTreeSet::new();
        let body = list(rng, 3, |rng| {
            let key = rng.pick(&keys);
            // Member names stay unique after unescaping (§5), as in an accepted member.
            let plain = key.replace("\\u0061", "a");
            if !used.insert(plain.clone()) {
                return String::from("\"z\":0");
            }
            let value = match plain.as_str() {
                "name" => rng.pick(&names),
                "dtype" => rng.pick(&dtypes),
                _ => rng.pick(&ODD),
            };
            alloc::format!("\"{key}\":{value}")
        });
        let body = body
            .replace("\"z\":0,", "")
            .replace(",\"z\":0", "")
            .replace("\"z\":0", "");
        alloc::format!("{{{body}}}")
    }

    /// A `schema.json` made around §8.2: lists of fields, names and dtypes right and
    /// wrong, escaped names, unknown members and values of every type.
    pub fn schema_doc<C: Choose>(rng: &mut C) -> String {
        if rng.one_in(20) {
            return String::from(rng.pick(&ODD));
        }
        let keys = ["inputs", "outputs", "inputs", "outputs", "extra", "in\\u0070uts"];
        named_object(
            rng,
            4,
            &keys,
            |k| k.replace("\\u0070", "p"),
            |rng| {
                if rng.one_in(8) {
                    String::from(rng.pick(&ODD))
                } else {
                    alloc::format!("[{}]", list(rng, 4, field))
                }
            },
        )
    }

    /// A `samples.json` made around §8.3: rows of cells right and wrong, unknown members
    /// and values of every type.
    pub fn samples_doc<C: Choose>(rng: &mut C) -> String {
        if rng.one_in(20) {
            return String::from(rng.pick(&ODD));
        }
        let cells = ["0", "\"s\"", "true", "null", "-2.5", "[]", "{}", "[1]", "{\"a\":1}"];
        let row = |rng: &mut C| {
            if rng.one_in(10) {
                String::from(rng.pick(&ODD))
            } else {
                let cells = list(rng, 3, |rng| {
                    let c = if rng.one_in(4) { rng.pick(&cells) } else { "1" };
                    String::from(c)
                });
                alloc::format!("[{cells}]")
            }
        };
        let keys = ["rows", "rows", "rows", "other", "r\\u006fws"];
        named_object(
            rng,
            3,
            &keys,
            |k| k.replace("\\u006f", "o"),
            |rng| {
                if rng.one_in(8) {
                    String::from(rng.pick(&ODD))
                } else {
                    alloc::format!("[{}]", list(rng, 4, row))
                }
            },
        )
    }
}

#[cfg(test)]
mod tests {
    //! The contract sinks against [`super::reference`]: over documents generated around the
    //! contract, both give the same outcome, error for error.

    use super::reference::{samples_doc, schema_doc};
    use super::*;
    use crate::test_docs::Rng;

    #[test]
    fn schema_and_samples_walks_agree_with_the_rules_on_the_decoded_value() {
        let limits = ArchiveLimits::DEFAULT;
        let mut rng = Rng::new(8);
        let (mut accepted, mut rejected) = (0, 0);
        for _ in 0..40_000 {
            let doc = schema_doc(&mut rng);
            let walked = check_schema(doc.as_bytes(), &limits);
            assert_eq!(walked, reference::check_schema(doc.as_bytes(), &limits), "{doc}");
            if walked.is_ok() {
                accepted += 1
            } else {
                rejected += 1
            }
            let doc = samples_doc(&mut rng);
            for inputs in 0..3 {
                let walked = check_samples(doc.as_bytes(), inputs, &limits);
                let reference = reference::check_samples(doc.as_bytes(), inputs, &limits);
                assert_eq!(walked, reference, "{doc} with {inputs} inputs");
                if walked.is_ok() { accepted += 1 } else { rejected += 1 }
            }
        }
        // Both outcomes are well represented.
        assert!(
            accepted > 10_000 && rejected > 10_000,
            "{accepted} accepted, {rejected} rejected"
        );
    }
}
