//! The canonical JSON writer (`spec/json.md` §9): no insignificant whitespace, members
//! in the order given, numbers as their lexeme, strings with the minimal escapes. The
//! same value always gives the same bytes, and parsing them gives an equal value.

use super::Limits;
use super::error::Error;
use super::number::Number;
use super::tokenizer::{Parser, Token};
use super::value::{Node, Value};
use crate::invariant;
use alloc::string::String;
use alloc::vec::Vec;

/// Appends `s` as a canonical JSON string, quotes included (§9.2): `"` and `\` are
/// escaped, U+0008, U+0009, U+000A, U+000C, U+000D use their short escapes, other
/// characters below U+0020 use `\u00xx` with lowercase hex, everything else is literal.
pub(crate) fn write_string(out: &mut String, s: &str) {
    out.push('"');
    let mut rest = s;
    while let Some(i) = rest.find(|c: char| c < ' ' || c == '"' || c == '\\') {
        out.push_str(invariant::sub_str(rest, ..i));
        let c = invariant::some_or(invariant::sub_str(rest, i..).chars().next(), ' ');
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                let b = u32::from(c);
                out.push_str("\\u00");
                for nibble in [b >> 4, b & 15] {
                    out.push(char::from(HEX.get(nibble as usize).copied().unwrap_or(b'0')));
                }
            }
        }
        // The character at `i` is ASCII.
        rest = invariant::sub_str(rest, i + 1..);
    }
    out.push_str(rest);
    out.push('"');
}

/// Streaming canonical writer for documents built field by field (§9). Callers emit
/// names and values in the order they want them written; the writer adds the commas
/// and colons. Callers must not repeat a name within one object.
#[derive(Default)]
pub struct Writer {
    out: String,
    /// Per open container: whether it already has an element.
    open: Vec<bool>,
    after_name: bool,
}

impl Writer {
    /// An empty document.
    pub fn new() -> Self {
        Writer::default()
    }

    fn separate(&mut self) {
        if self.after_name {
            self.after_name = false;
        } else if let Some(has) = self.open.last_mut() {
            if *has {
                self.out.push(',');
            }
            *has = true;
        }
    }

    /// `{`
    pub fn begin_object(&mut self) -> &mut Self {
        self.separate();
        self.out.push('{');
        self.open.push(false);
        self
    }

    /// `}`
    pub fn end_object(&mut self) -> &mut Self {
        self.open.pop();
        self.out.push('}');
        self
    }

    /// `[`
    pub fn begin_array(&mut self) -> &mut Self {
        self.separate();
        self.out.push('[');
        self.open.push(false);
        self
    }

    /// `]`
    pub fn end_array(&mut self) -> &mut Self {
        self.open.pop();
        self.out.push(']');
        self
    }

    /// A member name; the next value written is its value.
    pub fn name(&mut self, name: &str) -> &mut Self {
        self.separate();
        write_string(&mut self.out, name);
        self.out.push(':');
        self.after_name = true;
        self
    }

    /// A string value.
    pub fn string(&mut self, s: &str) -> &mut Self {
        self.separate();
        write_string(&mut self.out, s);
        self
    }

    /// A number value, written as its lexeme.
    pub fn number(&mut self, n: &Number) -> &mut Self {
        self.separate();
        self.out.push_str(n.as_str());
        self
    }

    /// An unsigned integer value.
    pub fn u64(&mut self, n: u64) -> &mut Self {
        self.number(&Number::from_u64(n))
    }

    /// A signed integer value.
    pub fn i64(&mut self, n: i64) -> &mut Self {
        self.number(&Number::from_i64(n))
    }

    /// `true` or `false`.
    pub fn bool(&mut self, b: bool) -> &mut Self {
        self.separate();
        self.out.push_str(if b { "true" } else { "false" });
        self
    }

    /// `null`.
    pub fn null(&mut self) -> &mut Self {
        self.separate();
        self.out.push_str("null");
        self
    }

    /// A whole value, written canonically without recursion.
    pub fn value(&mut self, value: &Value) -> &mut Self {
        // Work list of pending steps; containers push their closing step first.
        enum Step<'v> {
            Value(&'v Value),
            Name(&'v str),
            EndObject,
            EndArray,
        }
        let mut work = alloc::vec![Step::Value(value)];
        while let Some(step) = work.pop() {
            match step {
                Step::Name(n) => {
                    self.name(n);
                }
                Step::EndObject => {
                    self.end_object();
                }
                Step::EndArray => {
                    self.end_array();
                }
                Step::Value(v) => match &v.node {
                    Node::Null => {
                        self.null();
                    }
                    Node::Bool(b) => {
                        self.bool(*b);
                    }
                    Node::Number(n) => {
                        self.number(n);
                    }
                    Node::String(s) => {
                        self.string(s);
                    }
                    Node::Array(items) => {
                        self.begin_array();
                        work.push(Step::EndArray);
                        work.extend(items.iter().rev().map(Step::Value));
                    }
                    Node::Object(members) => {
                        self.begin_object();
                        work.push(Step::EndObject);
                        for m in members.iter().rev() {
                            work.push(Step::Value(&m.value));
                            work.push(Step::Name(&m.name));
                        }
                    }
                },
            }
        }
        self
    }

    /// The document `input` as one value, written canonically token by token as it is
    /// parsed within `limits` (§9): the same text as [`Writer::value`] of its parsed value,
    /// with no value built. On a parse error the writer holds the tokens before it.
    pub fn document(&mut self, input: &[u8], limits: Limits) -> Result<&mut Self, Error> {
        let mut parser = Parser::new(input, limits)?;
        while let Some(event) = parser.next_event()? {
            match event.token {
                Token::StartObject => self.begin_object(),
                Token::EndObject => self.end_object(),
                Token::StartArray => self.begin_array(),
                Token::EndArray => self.end_array(),
                Token::Name(n) => self.name(&n.value()),
                Token::String(s) => self.string(&s.value()),
                Token::Number(n) => self.number(&Number::from_lexeme(n.raw())),
                Token::Bool(b) => self.bool(b),
                Token::Null => self.null(),
            };
        }
        Ok(self)
    }

    /// The text written so far.
    pub fn as_str(&self) -> &str {
        &self.out
    }

    /// The finished document.
    pub fn finish(self) -> String {
        self.out
    }
}

/// The canonical text of `value` (§9).
pub fn to_canonical(value: &Value) -> String {
    let mut w = Writer::new();
    w.value(value);
    w.finish()
}
