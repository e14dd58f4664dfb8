//! §8.2, the `schema.json` contract: `{"inputs": [field, …], "outputs": [field, …]?}`,
//! `inputs` not empty, each field exactly `{"name", "dtype"}`, its name a non-empty string
//! unique within its list and its dtype one of [`DTYPES`]. Checked as the tokens go by (see
//! the parent module): the sink keeps stand-ins for the root, the list and the field it is
//! in, and one 16-byte entry per field name for the uniqueness rule.

use super::{Contract, Unknown, container, root_object, scalar_type, shape, wrong_type};
use crate::invariant;
use crate::json::{Cursor, FieldError, JsonType, Problem, Sink, Str, Token, Value, string_value};
use crate::mlbundle::declaration::{DTYPES, unknown_dtype};
use crate::unique::{Key, first_repeat};
use alloc::borrow::Cow;
use alloc::vec::Vec;

/// The root's name in paths.
const ROOT: &str = "schema";

/// Levels of nesting, counted as open containers: inside the root, inside a list, inside a
/// field.
const IN_ROOT: usize = 1;
const IN_LIST: usize = 2;
const IN_FIELD: usize = 3;

/// Where a failure comes among the rules a field is checked by: the rules on its members
/// and its name, the uniqueness of its name in the list, then the rules on its dtype.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Stage {
    BeforeUnique,
    Unique,
    AfterUnique,
}

/// The two lists of the root.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Which {
    Inputs,
    Outputs,
}

impl Which {
    fn name(self) -> &'static str {
        match self {
            Which::Inputs => "inputs",
            Which::Outputs => "outputs",
        }
    }
}

/// A field name that passed its own rules, 16 bytes: its sort head and where its raw text
/// lies in the member (after its opening quote, before its closing one). A list keeps one
/// per field up to the first that fails a rule of its own, so entry `i` is field `i`.
struct Name {
    head: u64,
    start: u32,
    end: u32,
}

impl Name {
    /// The name's value (escapes resolved), from the member's bytes.
    fn value<'t>(&self, bytes: &'t [u8]) -> Cow<'t, str> {
        let range = usize::try_from(self.start).unwrap_or(0)..usize::try_from(self.end).unwrap_or(0);
        // The range is the name's text in these bytes, which the tokenizer checked.
        string_value(invariant::some(core::str::from_utf8(invariant::sub(bytes, range)).ok()))
    }

    /// The offset of the name's value (its opening quote).
    fn offset(&self) -> usize {
        usize::try_from(self.start).unwrap_or(0).saturating_sub(1)
    }
}

/// A list being read: its stand-in, length so far, the names of its fields and the first
/// field that fails a rule of its own (index, stage, error). Fields after that one are
/// read past: no rule of theirs can come first.
struct OpenList {
    which: Which,
    value: Value,
    len: usize,
    names: Vec<Name>,
    own: Option<(usize, Stage, FieldError)>,
}

/// A list that has been read: its stand-in, its length and the error its rules give first.
struct List {
    value: Value,
    len: usize,
    error: Option<FieldError>,
}

/// Which member of a field is being read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Member {
    Name,
    Dtype,
    Other,
}

/// A field being read: its index and stand-in, its first unknown member, and its `name`
/// and `dtype` (a stand-in each, and the text of a string).
struct OpenField<'a> {
    index: usize,
    value: Value,
    unknown: Unknown,
    member: Member,
    name: Option<(Value, Option<Str<'a>>)>,
    dtype: Option<(Value, Option<Str<'a>>)>,
}

/// The §8.2 sink over the member `bytes`.
pub(crate) struct Schema<'a> {
    bytes: &'a [u8],
    depth: usize,
    root: Option<Value>,
    unknown: Unknown,
    /// The list the member named last in the root is.
    named: Option<Which>,
    list: Option<OpenList>,
    field: Option<OpenField<'a>>,
    inputs: Option<List>,
    outputs: Option<List>,
}

impl<'a> Schema<'a> {
    /// The sink for the member `bytes`.
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Schema {
            bytes,
            depth: 0,
            root: None,
            unknown: Unknown::default(),
            named: None,
            list: None,
            field: None,
            inputs: None,
            outputs: None,
        }
    }

    /// A value of type `json_type` starts at `at` (for a container, before it opens; for a
    /// string, with its text).
    fn value(&mut self, at: usize, json_type: JsonType, text: Option<Str<'a>>) {
        match self.depth {
            0 => self.root = Some(shape(at, json_type)),
            IN_ROOT => {
                self.unknown.value(at, json_type);
                if let Some(which) = self.named {
                    self.start_list(which, shape(at, json_type));
                }
            }
            IN_LIST => self.element(at, json_type),
            IN_FIELD => {
                if let Some(field) = &mut self.field {
                    field.unknown.value(at, json_type);
                    let value = Some((shape(at, json_type), text));
                    match field.member {
                        Member::Name => field.name = value,
                        Member::Dtype => field.dtype = value,
                        Member::Other => {}
                    }
                }
            }
            _ => {}
        }
    }

    /// The value of `inputs` or `outputs` starts: a list to read if it is an array, else
    /// read already.
    fn start_list(&mut self, which: Which, value: Value) {
        if value.json_type() == JsonType::Array {
            self.list = Some(OpenList {
                which,
                value,
                len: 0,
                names: Vec::new(),
                own: None,
            });
            return;
        }
        // Lists are members of the root, which opened first.
        let root = invariant::some_or(self.root.clone(), shape(0, JsonType::Object));
        let error = wrong_type(&Cursor::root(&root, ROOT).member(&value, which.name()), JsonType::Array);
        self.end(
            which,
            List {
                value,
                len: 0,
                error: Some(error),
            },
        );
    }

    /// An element of the open list starts at `at`.
    fn element(&mut self, at: usize, json_type: JsonType) {
        let Some(list) = &mut self.list else {
            return;
        };
        let index = list.len;
        list.len = index.saturating_add(1);
        if list.own.is_some() {
            return;
        }
        let value = shape(at, json_type);
        if json_type != JsonType::Object {
            let error = self.at(&value, index).error(
                None,
                Problem::WrongType {
                    expected: JsonType::Object,
                    found: json_type,
                },
            );
            if let Some(list) = &mut self.list {
                list.own = Some((index, Stage::BeforeUnique, error));
            }
            return;
        }
        self.field = Some(OpenField {
            index,
            value,
            unknown: Unknown::default(),
            member: Member::Other,
            name: None,
            dtype: None,
        });
    }

    /// Where the field `value` at `index` of the open list lies, for its errors.
    fn at<'v>(&'v self, value: &'v Value, index: usize) -> FieldAt<'v> {
        FieldAt {
            root: self.root.as_ref(),
            list: self.list.as_ref(),
            index,
            field: value,
        }
    }

    /// The field being read ends: its rules in their order, up to the uniqueness of its
    /// name, which [`Schema::end_list`] decides.
    fn end_field(&mut self) {
        let Some(field) = self.field.take() else {
            return;
        };
        let at = self.at(&field.value, field.index);
        let verdict = field_verdict(&field, &at);
        let Some(list) = &mut self.list else {
            return;
        };
        match verdict {
            Ok((name, after)) => {
                list.names.push(name);
                if let Some(e) = after {
                    list.own = Some((field.index, Stage::AfterUnique, e));
                }
            }
            Err(e) => list.own = Some((field.index, Stage::BeforeUnique, e)),
        }
    }

    /// The open list ends: its first failure, the first repeated name included.
    fn end_list(&mut self) {
        let Some(list) = self.list.take() else {
            return;
        };
        let bytes = self.bytes;
        let repeat = first_repeat(&list.names, |n| n.head, |n| n.value(bytes));
        let own = list.own.as_ref().map(|(i, stage, _)| (*i, *stage));
        let error = match repeat.and_then(|i| Some((i, list.names.get(i)?))) {
            // The first repeated name, unless a field's own failure comes before it.
            Some((index, name)) if own.is_none_or(|first| (index, Stage::Unique) < first) => {
                let value = shape(name.offset(), JsonType::String);
                let field = shape(0, JsonType::Object);
                let at = FieldAt {
                    root: self.root.as_ref(),
                    list: Some(&list),
                    index,
                    field: &field,
                };
                Some(at.error(Some(("name", &value)), Problem::Rule("duplicate field name")))
            }
            _ => list.own.map(|(_, _, e)| e),
        };
        self.end(
            list.which,
            List {
                value: list.value,
                len: list.len,
                error,
            },
        );
    }

    fn end(&mut self, which: Which, list: List) {
        match which {
            Which::Inputs => self.inputs = Some(list),
            Which::Outputs => self.outputs = Some(list),
        }
    }
}

/// Where a field lies: the root, its list, its index and stand-in.
struct FieldAt<'v> {
    root: Option<&'v Value>,
    list: Option<&'v OpenList>,
    index: usize,
    field: &'v Value,
}

impl FieldAt<'_> {
    /// `f` of the field's cursor (path `schema.inputs[3]`).
    fn with<R>(&self, f: impl FnOnce(&Cursor<'_, '_>) -> R) -> R {
        let (root, list) = (shape(0, JsonType::Object), shape(0, JsonType::Array));
        let root = Cursor::root(invariant::some_or(self.root, &root), ROOT);
        let name = self.list.map_or("inputs", |l| l.which.name());
        let list = root.member(self.list.map_or(&list, |l| &l.value), name);
        f(&list.element(self.field, self.index))
    }

    /// The error `problem` about the field, or about its member `(name, value)`.
    fn error(&self, member: Option<(&str, &Value)>, problem: Problem) -> FieldError {
        self.with(|field| match member {
            None => field.error(problem),
            Some((name, value)) => field.member(value, name).error(problem),
        })
    }
}

/// A field's rules before and after the uniqueness of its name: its name's entry and its
/// first failure after uniqueness, or its first failure before.
fn field_verdict(field: &OpenField<'_>, at: &FieldAt<'_>) -> Result<(Name, Option<FieldError>), FieldError> {
    if let Some(e) = at.with(|cursor| field.unknown.error(cursor)) {
        return Err(e);
    }
    let Some((name_value, name_text)) = &field.name else {
        return Err(at.error(Some(("name", at.field)), Problem::Missing));
    };
    let Some(text) = name_text else {
        return Err(at.error(Some(("name", name_value)), wrong(JsonType::String, name_value)));
    };
    let key = text.value();
    if key.is_empty() {
        return Err(at.error(Some(("name", name_value)), Problem::Rule("name must not be empty")));
    }
    // Members are at most `json::MAX_INPUT` (u32::MAX) bytes long.
    let end = u32::try_from(text.end()).unwrap_or(u32::MAX);
    let start = end.saturating_sub(u32::try_from(text.raw().len()).unwrap_or(u32::MAX));
    let name = Name {
        head: Key::new(&key).head(),
        start,
        end,
    };
    let after = match &field.dtype {
        None => Some(at.error(Some(("dtype", at.field)), Problem::Missing)),
        Some((value, None)) => Some(at.error(Some(("dtype", value)), wrong(JsonType::String, value))),
        Some((value, Some(d))) if !DTYPES.contains(&&*d.value()) => {
            Some(at.error(Some(("dtype", value)), unknown_dtype(&d.value())))
        }
        Some(_) => None,
    };
    Ok((name, after))
}

/// The wrong-type problem of `value` where `expected` was asked for.
fn wrong(expected: JsonType, value: &Value) -> Problem {
    Problem::WrongType {
        expected,
        found: value.json_type(),
    }
}

impl<'a> Sink<'a> for Schema<'a> {
    #[inline(always)]
    fn open(&mut self, at: usize, object: bool) {
        self.value(at, container(object), None);
        self.depth = self.depth.saturating_add(1);
    }

    #[inline(always)]
    fn close(&mut self, _: usize) {
        self.depth = self.depth.saturating_sub(1);
        match self.depth {
            IN_LIST => self.end_field(),
            IN_ROOT => self.end_list(),
            _ => {}
        }
    }

    #[inline(always)]
    fn name(&mut self, _: usize, name: Str<'a>) {
        match self.depth {
            IN_ROOT => {
                let name = name.value();
                self.named = match &*name {
                    "inputs" => Some(Which::Inputs),
                    "outputs" => Some(Which::Outputs),
                    _ => None,
                };
                self.unknown.name(&name, self.named.is_some());
            }
            IN_FIELD => {
                if let Some(field) = &mut self.field {
                    let name = name.value();
                    field.member = match &*name {
                        "name" => Member::Name,
                        "dtype" => Member::Dtype,
                        _ => Member::Other,
                    };
                    field.unknown.name(&name, field.member != Member::Other);
                }
            }
            _ => {}
        }
    }

    #[inline(always)]
    fn scalar(&mut self, at: usize, token: Token<'a>) {
        let text = match token {
            Token::String(s) => Some(s),
            _ => None,
        };
        self.value(at, scalar_type(&token), text);
    }
}

impl<'a> Contract<'a> for Schema<'a> {
    type Output = usize;

    /// The rules in their order: the root an object without unknown members, `inputs`
    /// present, well-formed and not empty, then `outputs` if present.
    fn finish(self) -> Result<usize, FieldError> {
        let root_value = root_object(self.root, ROOT, &self.unknown)?;
        let root = Cursor::root(&root_value, ROOT);
        let Some(inputs) = self.inputs else {
            return Err(root.member(&root_value, "inputs").error(Problem::Missing));
        };
        if let Some(e) = inputs.error {
            return Err(e);
        }
        if inputs.len == 0 {
            let at = root.member(&inputs.value, "inputs");
            return Err(at.error(Problem::Rule("inputs must not be empty")));
        }
        match self.outputs.and_then(|o| o.error) {
            Some(e) => Err(e),
            None => Ok(inputs.len),
        }
    }
}
