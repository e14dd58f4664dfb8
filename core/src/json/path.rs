//! Typed access to an owned value that names the JSON path of whatever is wrong
//! (`spec/json.md` §7.2), such as `manifest.graph.nodes[3].inputs[1]`.

use super::number::{IntError, Number};
use super::value::{JsonType, Member, Node, Value};
use super::writer::write_string;
use crate::invariant;
use alloc::string::String;
use core::fmt::{self, Write};

/// What a typed read found wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// A required member is absent.
    Missing,
    /// The value has another type.
    WrongType {
        /// The type the reader asked for.
        expected: JsonType,
        /// The type found.
        found: JsonType,
    },
    /// An integer was required; the number has a fraction or exponent (§4.2).
    NotAnInteger,
    /// The integer does not fit the requested type (§4.2).
    OutOfRange,
    /// A member the reader does not know, where unknown members are not allowed.
    UnknownMember,
    /// A format rule, stated by the reader.
    Rule(&'static str),
    /// A format rule, stated by the reader together with the value found and what was
    /// expected (`unknown dtype "float" (expected one of float32, ...)`); a string from the
    /// input is shown quoted and cut, never in full.
    Stated(String),
}

/// A typed read failed at `path` (value starting at byte `offset`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldError {
    /// JSON path of the offending value (for a missing member, the path it would have).
    pub path: String,
    /// Offset of the offending value (for a missing member, of the object).
    pub offset: usize,
    /// What is wrong.
    pub problem: Problem,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Missing => f.write_str("required member is missing"),
            Problem::WrongType { expected, found } => {
                write!(f, "expected {}, found {}", expected.name(), found.name())
            }
            Problem::NotAnInteger => IntError::NotAnInteger.fmt(f),
            Problem::OutOfRange => IntError::OutOfRange.fmt(f),
            Problem::UnknownMember => f.write_str("unknown member"),
            Problem::Rule(rule) => f.write_str(rule),
            Problem::Stated(text) => f.write_str(text),
        }
    }
}

impl fmt::Display for FieldError {
    /// `manifest.version: expected string, found number`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.problem)
    }
}

impl core::error::Error for FieldError {}

#[derive(Clone, Copy)]
enum Segment<'p> {
    Root(&'p str),
    Name(&'p str),
    Index(usize),
}

/// A value together with the path that leads to it. Children borrow their parent, so
/// walking costs nothing; the path is only rendered when an error is made.
#[derive(Clone, Copy)]
pub struct Cursor<'v, 'p> {
    value: &'v Value,
    segment: Segment<'p>,
    parent: Option<&'p Cursor<'v, 'p>>,
}

/// Longest member name rendered in a path; longer names are cut with `…` (messages
/// never echo long input).
const NAME_CHARS: usize = 64;

/// `s` as a message shows a string from the input: a JSON string, canonically escaped, cut
/// after `max_chars` characters with `…` (messages never echo long input; names in paths
/// are cut after 64).
#[cfg(any(feature = "mlbundle", feature = "mvb", feature = "onemodel"))]
pub(crate) fn quoted(s: &str, max_chars: usize) -> String {
    let mut out = String::new();
    push_quoted(&mut out, s, max_chars);
    out
}

fn push_quoted(out: &mut String, s: &str, max_chars: usize) {
    match s.char_indices().nth(max_chars) {
        Some((cut, _)) => {
            write_string(out, invariant::sub_str(s, ..cut));
            out.push('…');
        }
        None => write_string(out, s),
    }
}

impl<'v, 'p> Cursor<'v, 'p> {
    /// The cursor at the document's root, whose path is `root` (for example `manifest`).
    pub fn root(value: &'v Value, root: &'p str) -> Self {
        Cursor {
            value,
            segment: Segment::Root(root),
            parent: None,
        }
    }

    /// The value under the cursor.
    pub fn value(&self) -> &'v Value {
        self.value
    }

    /// The rendered path (§7.2).
    pub fn path(&self) -> String {
        let mut s = String::new();
        self.render(&mut s);
        s
    }

    fn render(&self, out: &mut String) {
        if let Some(parent) = self.parent {
            parent.render(out);
        }
        match self.segment {
            Segment::Root(r) => out.push_str(r),
            Segment::Index(i) => {
                let _ = write!(out, "[{i}]");
            }
            Segment::Name(n) if is_identifier(n) => {
                out.push('.');
                out.push_str(n);
            }
            Segment::Name(n) => {
                out.push('[');
                push_quoted(out, n, NAME_CHARS);
                out.push(']');
            }
        }
    }

    /// An error about this value.
    pub fn error(&self, problem: Problem) -> FieldError {
        FieldError {
            path: self.path(),
            offset: self.value.offset,
            problem,
        }
    }

    fn wrong_type(&self, expected: JsonType) -> FieldError {
        self.error(Problem::WrongType {
            expected,
            found: self.value.json_type(),
        })
    }

    fn child<'s>(&'s self, value: &'v Value, segment: Segment<'s>) -> Cursor<'v, 's> {
        Cursor {
            value,
            segment,
            parent: Some(self),
        }
    }

    /// The cursor of member `name` of this object, whose value a reader holds apart from
    /// it (a reader that walks a document's tokens and keeps only a stand-in per value).
    pub fn member<'s>(&'s self, value: &'v Value, name: &'s str) -> Cursor<'v, 's> {
        self.child(value, Segment::Name(name))
    }

    /// The cursor of element `index` of this array, whose value a reader holds apart from
    /// it, as for [`Cursor::member`].
    pub fn element<'s>(&'s self, value: &'v Value, index: usize) -> Cursor<'v, 's> {
        self.child(value, Segment::Index(index))
    }

    /// The members of this object.
    pub fn object(&self) -> Result<&'v [Member], FieldError> {
        match &self.value.node {
            Node::Object(m) => Ok(m),
            _ => Err(self.wrong_type(JsonType::Object)),
        }
    }

    /// The elements of this array.
    pub fn array(&self) -> Result<&'v [Value], FieldError> {
        match &self.value.node {
            Node::Array(a) => Ok(a),
            _ => Err(self.wrong_type(JsonType::Array)),
        }
    }

    /// The required member `name` of this object.
    pub fn field<'s>(&'s self, name: &'s str) -> Result<Cursor<'v, 's>, FieldError> {
        match self.opt_field(name)? {
            Some(c) => Ok(c),
            None => Err(FieldError {
                path: self.child(self.value, Segment::Name(name)).path(),
                offset: self.value.offset,
                problem: Problem::Missing,
            }),
        }
    }

    /// The optional member `name` of this object.
    pub fn opt_field<'s>(&'s self, name: &'s str) -> Result<Option<Cursor<'v, 's>>, FieldError> {
        let members = self.object()?;
        Ok(members
            .iter()
            .find(|m| m.name == name)
            .map(|m| self.child(&m.value, Segment::Name(name))))
    }

    /// Rejects any member whose name is not in `known` (for formats that forbid unknown
    /// members); the error names the first such member.
    pub fn only_members(&self, known: &[&str]) -> Result<(), FieldError> {
        let members = self.object()?;
        match members.iter().find(|m| !known.contains(&m.name.as_str())) {
            None => Ok(()),
            Some(m) => Err(self
                .child(&m.value, Segment::Name(&m.name))
                .error(Problem::UnknownMember)),
        }
    }

    /// The elements of this array, each with its index in the path.
    pub fn items<'s>(&'s self) -> Result<impl Iterator<Item = Cursor<'v, 's>> + 's, FieldError> {
        let items = self.array()?;
        Ok(items
            .iter()
            .enumerate()
            .map(move |(i, v)| self.child(v, Segment::Index(i))))
    }

    /// The members of this object as (name, cursor) pairs in document order.
    pub fn members<'s>(&'s self) -> Result<impl Iterator<Item = (&'v str, Cursor<'v, 's>)> + 's, FieldError> {
        let members = self.object()?;
        Ok(members
            .iter()
            .map(move |m| (m.name.as_str(), self.child(&m.value, Segment::Name(&m.name)))))
    }

    /// The string value.
    pub fn str(&self) -> Result<&'v str, FieldError> {
        match &self.value.node {
            Node::String(s) => Ok(s),
            _ => Err(self.wrong_type(JsonType::String)),
        }
    }

    /// The boolean value.
    pub fn bool(&self) -> Result<bool, FieldError> {
        match self.value.node {
            Node::Bool(b) => Ok(b),
            _ => Err(self.wrong_type(JsonType::Bool)),
        }
    }

    /// The number, as its lexeme.
    pub fn number(&self) -> Result<&'v Number, FieldError> {
        match &self.value.node {
            Node::Number(n) => Ok(n),
            _ => Err(self.wrong_type(JsonType::Number)),
        }
    }

    /// The exact unsigned integer (§4.2).
    pub fn u64(&self) -> Result<u64, FieldError> {
        self.number()?.to_u64().map_err(|e| self.int_error(e))
    }

    /// The exact signed integer (§4.2).
    pub fn i64(&self) -> Result<i64, FieldError> {
        self.number()?.to_i64().map_err(|e| self.int_error(e))
    }

    fn int_error(&self, e: IntError) -> FieldError {
        self.error(match e {
            IntError::NotAnInteger => Problem::NotAnInteger,
            IntError::OutOfRange => Problem::OutOfRange,
        })
    }
}

impl fmt::Debug for Cursor<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Cursor({})", self.path())
    }
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some('a'..='z' | 'A'..='Z' | '_')) && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}
