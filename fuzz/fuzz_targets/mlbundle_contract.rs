//! The §8.2 and §8.3 contracts (`spec/mlbundle.md` §8.1–§8.3): for any input that passes the
//! §8.1 member check, the token sinks the reader runs (`check_schema`, `check_samples`) give
//! exactly what the same rules checked on the decoded value give
//! (`declaration::reference`): the same acceptance, input count, error kind, message, path
//! and offset, for a schema and for samples against 0 to 3 inputs.
//!
//! Input: a first byte of 0 takes the rest as the member; any other first byte builds a
//! member from the rest, in the contracts' own vocabulary (lists of fields and rows, names
//! and dtypes right and wrong, escaped names, unknown members, values of every type), so
//! that most inputs reach the rules rather than the tokenizer.
#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use modelgate_core::mlbundle::declaration::{check_member, check_samples, check_schema, reference};
use modelgate_core::mlbundle::{ArchiveLimits, MemberName};

/// Values that break a rule by their type or content.
const ODD: [&str; 8] = ["null", "true", "0", "-1.5e3", "\"\"", "\"x\"", "[]", "{}"];
const ROOT_KEYS: [&str; 7] = [
    "inputs",
    "outputs",
    "rows",
    "extra",
    "in\\u0070uts",
    "r\\u006fws",
    "outputs",
];
const FIELD_KEYS: [&str; 6] = ["name", "dtype", "other", "n\\u0061me", "dtyp", "name"];
const NAMES: [&str; 8] = [
    "\"a\"",
    "\"b\"",
    "\"\\u0061\"",
    "\"\"",
    "\"long name beyond eight\"",
    "\"long name beyond eighT\"",
    "1",
    "[]",
];
const DTYPES: [&str; 7] = [
    "\"float32\"",
    "\"bool\"",
    "\"category\"",
    "\"float16\"",
    "\"\"",
    "null",
    "{}",
];
const CELLS: [&str; 9] = ["0", "\"s\"", "true", "null", "-2.5", "[]", "{}", "[1]", "{\"a\":1}"];

fn pick<'a>(u: &mut Unstructured<'_>, from: &[&'a str]) -> &'a str {
    u.choose(from).copied().unwrap_or("null")
}

fn space(u: &mut Unstructured<'_>) -> &'static str {
    if u.ratio(1, 8).unwrap_or(false) { " \n" } else { "" }
}

/// A comma-separated list of up to `max` items.
fn list(u: &mut Unstructured<'_>, max: u32, mut item: impl FnMut(&mut Unstructured<'_>) -> String) -> String {
    let n = u.int_in_range(0..=max).unwrap_or(0);
    let items: Vec<String> = (0..n).map(|_| item(u)).collect();
    items.join(&format!(",{}", space(u)))
}

fn field(u: &mut Unstructured<'_>) -> String {
    if u.ratio(1, 10).unwrap_or(false) {
        return pick(u, &ODD).to_string();
    }
    let body = list(u, 3, |u| {
        let key = pick(u, &FIELD_KEYS);
        let value = match key {
            "name" | "n\\u0061me" => pick(u, &NAMES),
            "dtype" => pick(u, &DTYPES),
            _ => pick(u, &ODD),
        };
        format!("\"{key}\":{value}")
    });
    format!("{{{body}}}")
}

fn row(u: &mut Unstructured<'_>) -> String {
    if u.ratio(1, 10).unwrap_or(false) {
        return pick(u, &ODD).to_string();
    }
    let cells = list(u, 4, |u| {
        if u.ratio(1, 3).unwrap_or(false) {
            pick(u, &CELLS).to_string()
        } else {
            "1".to_string()
        }
    });
    format!("[{cells}]")
}

fn member(u: &mut Unstructured<'_>) -> String {
    if u.ratio(1, 30).unwrap_or(false) {
        return pick(u, &ODD).to_string();
    }
    let body = list(u, 4, |u| {
        let key = pick(u, &ROOT_KEYS);
        let value = match u.int_in_range(0..=7u8).unwrap_or(0) {
            0 => pick(u, &ODD).to_string(),
            1..=3 => format!("[{}]", list(u, 5, field)),
            _ => format!("[{}]", list(u, 5, row)),
        };
        format!("\"{key}\":{}{value}", space(u))
    });
    format!("{}{{{body}}}", space(u))
}

fuzz_target!(|data: &[u8]| {
    let built;
    let bytes = match data.split_first() {
        Some((0, rest)) => rest,
        Some((_, rest)) => {
            built = member(&mut Unstructured::new(rest));
            built.as_bytes()
        }
        None => return,
    };
    let limits = ArchiveLimits::DEFAULT;
    // The reader runs the contracts only over members that passed §8.1.
    if check_member(MemberName::Schema, bytes, &limits).is_err() {
        return;
    }
    assert_eq!(check_schema(bytes, &limits), reference::check_schema(bytes, &limits));
    for inputs in 0..4 {
        assert_eq!(
            check_samples(bytes, inputs, &limits),
            reference::check_samples(bytes, inputs, &limits)
        );
    }
});
