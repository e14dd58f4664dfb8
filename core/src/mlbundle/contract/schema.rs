//! §8.2, the `schema.json` contract: `{"inputs": [field, …], "outputs": [field, …]?}`,
//! `inputs` not empty, each field exactly `{"name", "dtype"}`, its name a non-empty string
//! unique within its list and its dtype one of [`DTYPES`]. Checked over the tokens (see the
//! parent module): the walk keeps stand-ins for the root, the lists and the field it is in,
//! and one entry per field name for the uniqueness rule.

use super::{Failure, Tokens, Unknown, shape, wrong_type};
use crate::json::{Cursor, Event, FieldError, JsonType, Node, Problem, Text, Token, Value, string_value};
use crate::mlbundle::declaration::DTYPES;
use crate::onemodel::unique::{Key, first_repeat};
use alloc::borrow::Cow;
use alloc::vec::Vec;

/// The root's name in paths.
const ROOT: &str = "schema";
/// The members of the root object.
const KNOWN: [&str; 2] = ["inputs", "outputs"];
/// The members of a field.
const FIELD: [&str; 2] = ["name", "dtype"];

/// Where a failure comes among the rules a field is checked by: the rules on its members
/// and its name, the uniqueness of its name in the list, then the rules on its dtype.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Stage {
    BeforeUnique,
    Unique,
    AfterUnique,
}

/// A field name that passed its own rules, 16 bytes: its sort head and where its raw text
/// lies in the member (after its opening quote, before its closing one). The list keeps
/// one per field up to the first that fails a rule of its own, so entry `i` is field `i`.
struct Name {
    head: u64,
    start: u32,
    end: u32,
}

impl Name {
    /// The name's value (escapes resolved), from the member's `text`.
    fn value<'t>(&self, text: &'t str) -> Cow<'t, str> {
        let range = usize::try_from(self.start).unwrap_or(0)..usize::try_from(self.end).unwrap_or(0);
        string_value(text.get(range).unwrap_or_default())
    }

    /// The offset of the name's value (its opening quote).
    fn offset(&self) -> usize {
        usize::try_from(self.start).unwrap_or(0).saturating_sub(1)
    }
}

/// What the walk of one list (`inputs` or `outputs`) found: its stand-in, its length and
/// the error its rules give first, if any.
struct List {
    value: Value,
    len: usize,
    error: Option<FieldError>,
}

/// Checks §8.2 over `tokens`; returns the number of inputs.
pub fn check(tokens: &mut Tokens<'_>) -> Result<usize, Failure> {
    let first = tokens.next()?;
    let root_value = shape(&first);
    let root = Cursor::root(&root_value, ROOT);
    if first.token != Token::StartObject {
        return Err(wrong_type(&root, JsonType::Object).into());
    }
    let mut unknown = Unknown::default();
    let (mut inputs, mut outputs) = (None, None);
    tokens.members(|t, name, value| {
        let name = name.value();
        unknown.see(&KNOWN, &name, &value);
        match &*name {
            "inputs" => inputs = Some(walk_list(t, &root, "inputs", value)?),
            "outputs" => outputs = Some(walk_list(t, &root, "outputs", value)?),
            _ => t.skip(&value)?,
        }
        Ok(())
    })?;
    // The rules in their order: no unknown member, `inputs` present and well-formed and
    // not empty, then `outputs` if present.
    if let Some(e) = unknown.error(&root) {
        return Err(e.into());
    }
    let Some(inputs) = inputs else {
        return Err(root.member(&root_value, "inputs").error(Problem::Missing).into());
    };
    if let Some(e) = inputs.error {
        return Err(e.into());
    }
    if inputs.len == 0 {
        let at = root.member(&inputs.value, "inputs");
        return Err(at.error(Problem::Rule("inputs must not be empty")).into());
    }
    match outputs.and_then(|o| o.error) {
        Some(e) => Err(e.into()),
        None => Ok(inputs.len),
    }
}

/// Reads the list `member` of the root, whose first token is `first`.
fn walk_list<'a>(t: &mut Tokens<'a>, root: &Cursor<'_, '_>, member: &str, first: Event<'a>) -> Result<List, Failure> {
    let value = shape(&first);
    let list = root.member(&value, member);
    if first.token != Token::StartArray {
        t.skip(&first)?;
        let error = Some(wrong_type(&list, JsonType::Array));
        return Ok(List { value, len: 0, error });
    }
    let mut names = Vec::new();
    // The first field that fails a rule of its own: its index, stage and error. Fields
    // after it are read past: no rule of theirs can come first.
    let mut own: Option<(usize, Stage, FieldError)> = None;
    let mut len = 0usize;
    t.elements(|t, index, field| {
        len = index.saturating_add(1);
        if own.is_some() {
            t.skip(&field)?;
        } else if let Some((stage, e)) = walk_field(t, &list, index, field, &mut names)? {
            own = Some((index, stage, e));
        }
        Ok(())
    })?;
    let text = t.text();
    let repeat = first_repeat(&names, |n| n.head, |n| n.value(text));
    let error = match (repeat.and_then(|i| Some((i, names.get(i)?))), own) {
        // The first repeated name, unless a field's own failure comes before it.
        (Some((field, r)), own)
            if own
                .as_ref()
                .is_none_or(|(i, stage, _)| (field, Stage::Unique) < (*i, *stage)) =>
        {
            let name = Value {
                offset: r.offset(),
                node: Node::String(Text::new("")),
            };
            let at = list.element(&value, field);
            Some(at.member(&name, "name").error(Problem::Rule("duplicate field name")))
        }
        (_, own) => own.map(|(_, _, e)| e),
    };
    Ok(List { value, len, error })
}

/// Reads the field at `index` of `list`, whose first token is `first`; records its name in
/// `names` once the name has passed its own rules, and returns its first failure.
fn walk_field<'a>(
    t: &mut Tokens<'a>,
    list: &Cursor<'_, '_>,
    index: usize,
    first: Event<'a>,
    names: &mut Vec<Name>,
) -> Result<Option<(Stage, FieldError)>, Failure> {
    let value = shape(&first);
    let field = list.element(&value, index);
    if first.token != Token::StartObject {
        t.skip(&first)?;
        return Ok(Some((Stage::BeforeUnique, wrong_type(&field, JsonType::Object))));
    }
    let mut unknown = Unknown::default();
    let (mut name, mut dtype) = (None, None);
    t.members(|t, member, value| {
        let member = member.value();
        unknown.see(&FIELD, &member, &value);
        match &*member {
            "name" => name = Some(value),
            "dtype" => dtype = Some(value),
            _ => {}
        }
        t.skip(&value)?;
        Ok(())
    })?;
    let before = |e: FieldError| Ok(Some((Stage::BeforeUnique, e)));
    let after = |e: FieldError| Ok(Some((Stage::AfterUnique, e)));
    if let Some(e) = unknown.error(&field) {
        return before(e);
    }
    let Some(name) = name else {
        return before(field.member(&value, "name").error(Problem::Missing));
    };
    let name_value = shape(&name);
    let name_at = field.member(&name_value, "name");
    let Token::String(text) = name.token else {
        return before(wrong_type(&name_at, JsonType::String));
    };
    let key = text.value();
    if key.is_empty() {
        return before(name_at.error(Problem::Rule("name must not be empty")));
    }
    // Members are at most `json::MAX_INPUT` (u32::MAX) bytes long.
    let end = u32::try_from(text.end()).unwrap_or(u32::MAX);
    let start = end.saturating_sub(u32::try_from(text.raw().len()).unwrap_or(u32::MAX));
    names.push(Name {
        head: Key::new(&key).head(),
        start,
        end,
    });
    let Some(dtype) = dtype else {
        return after(field.member(&value, "dtype").error(Problem::Missing));
    };
    let dtype_value = shape(&dtype);
    let dtype_at = field.member(&dtype_value, "dtype");
    let Token::String(d) = dtype.token else {
        return after(wrong_type(&dtype_at, JsonType::String));
    };
    if !DTYPES.contains(&&*d.value()) {
        return after(dtype_at.error(Problem::Rule("unknown dtype")));
    }
    Ok(None)
}
