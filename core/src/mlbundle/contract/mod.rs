//! The declaration contract of `schema.json` and `samples.json` (`spec/mlbundle.md` §8.2,
//! §8.3), checked over the tokens of a member that has passed §8.1, with no value built.
//!
//! A decoded value costs some 60 to 80 bytes of heap per element (`spec/json.md` §8), so a
//! 16 MiB member of one-digit cells would take several hundred MB. These checks walk the
//! member's tokens once and keep a stand-in (type and offset, see [`shape`]) only for the
//! values a rule looks at, plus, for §8.2, one entry per field name: memory is bounded by
//! the nesting the contract allows and the field count, not by the element count.
//!
//! The errors are exactly those of the same rules checked on the decoded value through
//! [`Cursor`] (each rule in the order the value check runs it, the first failure in that
//! order reported, with the same path, offset and message): where a later token decides an
//! earlier rule (an unknown member after `rows`), the walk records each rule's first
//! failure and reports them in rule order at the end.

pub mod samples;
pub mod schema;

use crate::json::{
    self, Cursor, Event, FieldError, JsonType, Limits, Node, Number, Parser, Problem, Text, Token, Value,
};
use alloc::vec::Vec;

/// Why a contract check failed: the member's JSON (§8.1, only if it was not checked
/// first), or a contract rule.
#[derive(Debug)]
pub enum Failure {
    /// The tokenizer's error.
    Json(json::Error),
    /// A contract rule, at its path.
    Contract(FieldError),
}

impl From<json::Error> for Failure {
    fn from(e: json::Error) -> Self {
        Failure::Json(e)
    }
}

impl From<FieldError> for Failure {
    fn from(e: FieldError) -> Self {
        Failure::Contract(e)
    }
}

/// The tokens of one member, read one at a time.
pub struct Tokens<'a> {
    parser: Parser<'a>,
    len: usize,
}

impl<'a> Tokens<'a> {
    /// The tokens of `bytes`, parsed as §8.1 parses the member.
    pub fn new(bytes: &'a [u8], limits: Limits, key: [u64; 2]) -> Result<Self, json::Error> {
        Ok(Tokens {
            parser: Parser::new(bytes, limits)?.with_hash_key(key),
            len: bytes.len(),
        })
    }

    /// The whole member as text (checked as UTF-8 when the tokens were made).
    pub fn text(&self) -> &'a str {
        self.parser.text()
    }

    /// The next token. The top-level value's end is never asked past, so running out is
    /// the tokenizer's own "unexpected end" at the end of the input.
    pub fn next(&mut self) -> Result<Event<'a>, json::Error> {
        self.parser.next_event()?.ok_or(json::Error {
            reason: json::Reason::UnexpectedEnd(json::Expected::Value),
            offset: self.len,
        })
    }

    /// Reads past the value whose first token is `first`: nothing more for a scalar, up to
    /// the matching close for a container.
    pub fn skip(&mut self, first: &Event<'a>) -> Result<(), json::Error> {
        let mut open = usize::from(is_open(first));
        while open > 0 {
            match self.next()?.token {
                Token::StartObject | Token::StartArray => open = open.saturating_add(1),
                Token::EndObject | Token::EndArray => open = open.saturating_sub(1),
                _ => {}
            }
        }
        Ok(())
    }

    /// Reads the members of the object whose `{` was just read, handing `member` each
    /// name and the first token of its value; `member` must read past the value.
    pub fn members(
        &mut self,
        mut member: impl FnMut(&mut Self, json::Str<'a>, Event<'a>) -> Result<(), Failure>,
    ) -> Result<(), Failure> {
        loop {
            let event = self.next()?;
            let Token::Name(name) = event.token else {
                // `}`: the tokenizer yields nothing else here.
                return Ok(());
            };
            let value = self.next()?;
            member(self, name, value)?;
        }
    }

    /// Reads the elements of the array whose `[` was just read, handing `element` each
    /// index and first token; `element` must read past the value.
    pub fn elements(
        &mut self,
        mut element: impl FnMut(&mut Self, usize, Event<'a>) -> Result<(), Failure>,
    ) -> Result<(), Failure> {
        let mut index = 0usize;
        loop {
            let event = self.next()?;
            if event.token == Token::EndArray {
                return Ok(());
            }
            element(self, index, event)?;
            index = index.saturating_add(1);
        }
    }
}

/// True when `event` opens a container.
fn is_open(event: &Event<'_>) -> bool {
    matches!(event.token, Token::StartObject | Token::StartArray)
}

/// A stand-in for the value whose first token is `event`: its offset and type, with no
/// content (an empty container, an empty string, zero). A [`Cursor`] on it makes the
/// errors that the rules make about type and position, which is all they ask of a value
/// they reject.
pub fn shape(event: &Event<'_>) -> Value {
    let node = match event.token {
        Token::StartObject => Node::Object(Vec::new()),
        Token::StartArray => Node::Array(Vec::new()),
        Token::String(_) => Node::String(Text::new("")),
        Token::Number(_) => Node::Number(Number::from_u64(0)),
        Token::Bool(b) => Node::Bool(b),
        Token::Null | Token::EndObject | Token::EndArray | Token::Name(_) => Node::Null,
    };
    Value {
        offset: event.offset,
        node,
    }
}

/// The error [`Cursor`]'s typed reads give when the value under `at` is not `expected`.
pub fn wrong_type(at: &Cursor<'_, '_>, expected: JsonType) -> FieldError {
    at.error(Problem::WrongType {
        expected,
        found: at.value().json_type(),
    })
}

/// The first member of an object whose name is not in `known`, as a stand-in with its name,
/// for [`Cursor::only_members`]' error; record with [`Unknown::see`].
#[derive(Default)]
pub struct Unknown(Option<(alloc::string::String, Value)>);

impl Unknown {
    /// Notes the member `name` whose value starts with `value` if it is the object's first
    /// unknown one.
    pub fn see(&mut self, known: &[&str], name: &str, value: &Event<'_>) {
        if self.0.is_none() && !known.contains(&name) {
            self.0 = Some((alloc::string::String::from(name), shape(value)));
        }
    }

    /// [`Cursor::only_members`]' error about the recorded member of `object`, if any.
    pub fn error(&self, object: &Cursor<'_, '_>) -> Option<FieldError> {
        self.0
            .as_ref()
            .map(|(name, value)| object.member(value, name).error(Problem::UnknownMember))
    }
}
