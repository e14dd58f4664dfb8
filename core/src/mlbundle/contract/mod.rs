//! The declaration contract of `schema.json` and `samples.json` (`spec/mlbundle.md` §8.2,
//! §8.3), checked over the tokens of a member that has passed §8.1, with no value built.
//!
//! A decoded value costs some 60 to 80 bytes of heap per element (`spec/json.md` §8), so a
//! 16 MiB member of one-digit cells would take several hundred MB. Each contract is a token
//! sink ([`Sink`]) that the parser feeds as it reads, at the speed of validation; it keeps a
//! stand-in (type and offset, see [`shape`]) only for the values a rule looks at, plus, for
//! §8.2, one entry per field name: memory is bounded by the field count, not by the element
//! count.
//!
//! The errors are exactly those of the same rules checked on the decoded value through
//! [`Cursor`] (each rule in the order the value check runs it, the first failure in that
//! order reported, with the same path, offset and message): where a later token decides an
//! earlier rule (an unknown member after `rows`), the sink records each rule's first
//! failure and reports them in rule order at the end.

pub(crate) mod samples;
pub(crate) mod schema;

use crate::json::{self, Cursor, FieldError, JsonType, Limits, Parser, Problem, Sink, Value};
pub(crate) use crate::json::{container, scalar_type, shape};
use alloc::string::String;

/// Why a contract check failed: the member's JSON (only if §8.1 was not checked first),
/// or a contract rule.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The tokenizer's error.
    Json(json::Error),
    /// A contract rule, at its path.
    Contract(FieldError),
}

/// A contract over a member's tokens: a [`Sink`] that gives its verdict once the parser has
/// read the whole member.
pub(crate) trait Contract<'a>: Sink<'a> {
    /// What the contract gives for a member it accepts.
    type Output;
    /// The verdict, in the rules' order.
    fn finish(self) -> Result<Self::Output, FieldError>;
}

/// Parses `bytes` as §8.1 parses the member, handing every token to `contract`, and returns
/// its verdict.
pub(crate) fn check<'a, C: Contract<'a>>(
    bytes: &'a [u8],
    limits: Limits,
    mut contract: C,
) -> Result<C::Output, Failure> {
    let mut parser = Parser::new(bytes, limits).map_err(Failure::Json)?;
    parser.read_into(&mut contract).map_err(Failure::Json)?;
    contract.finish().map_err(Failure::Contract)
}

/// The error [`Cursor`]'s typed reads give when the value under `at` is not `expected`.
pub(crate) fn wrong_type(at: &Cursor<'_, '_>, expected: JsonType) -> FieldError {
    at.error(Problem::WrongType {
        expected,
        found: at.value().json_type(),
    })
}

/// The rules both contracts start with: the root (`None` for a member with no token) is an
/// object, and has no unknown member. Returns the root's stand-in.
pub(crate) fn root_object(root: Option<Value>, name: &str, unknown: &Unknown) -> Result<Value, FieldError> {
    let value = root.unwrap_or_else(|| shape(0, JsonType::Null));
    let cursor = Cursor::root(&value, name);
    if value.json_type() != JsonType::Object {
        return Err(wrong_type(&cursor, JsonType::Object));
    }
    match unknown.error(&cursor) {
        Some(e) => Err(e),
        None => Ok(value),
    }
}

/// The first member of an object whose name is not known, as a stand-in with its name, for
/// [`Cursor::only_members`]' error: the name is noted by [`Unknown::name`], its value's
/// start by [`Unknown::value`].
#[derive(Default)]
pub(crate) struct Unknown {
    /// The first unknown name, while its value is awaited.
    pending: Option<String>,
    found: Option<(String, Value)>,
}

impl Unknown {
    /// A member named `name` starts; `known` says whether the object allows it.
    pub(crate) fn name(&mut self, name: &str, known: bool) {
        if !known && self.found.is_none() && self.pending.is_none() {
            self.pending = Some(String::from(name));
        }
    }

    /// The value of the member named last starts at `at`, of type `json_type`.
    pub(crate) fn value(&mut self, at: usize, json_type: JsonType) {
        if let Some(name) = self.pending.take() {
            self.found = Some((name, shape(at, json_type)));
        }
    }

    /// [`Cursor::only_members`]' error about the recorded member of `object`, if any.
    pub(crate) fn error(&self, object: &Cursor<'_, '_>) -> Option<FieldError> {
        self.found
            .as_ref()
            .map(|(name, value)| object.member(value, name).error(Problem::UnknownMember))
    }
}
