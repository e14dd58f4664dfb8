//! The small owned JSON value that manifest readers work on (`spec/json.md` §8).

use super::error::Error;
use super::number::Number;
use super::tokenizer::{Parser, Token};
use alloc::string::String;
use alloc::vec::Vec;

/// A JSON value and the byte offset of its first byte in the parsed input.
///
/// Equality compares the values only, not offsets: a value and its canonical
/// re-serialisation parse to equal values.
#[derive(Clone, Debug)]
pub struct Value {
    /// Offset of the value's first byte.
    pub offset: usize,
    /// The value itself.
    pub node: Node,
}

/// The six JSON types. Objects keep member order; names are unique (§5).
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    /// `null`
    Null,
    /// `true` or `false`
    Bool(bool),
    /// A number as its exact lexeme.
    Number(Number),
    /// A string, unescaped.
    String(String),
    /// An array.
    Array(Vec<Value>),
    /// An object, members in document order.
    Object(Vec<Member>),
}

/// One object member.
#[derive(Clone, Debug)]
pub struct Member {
    /// The member name, unescaped.
    pub name: String,
    /// Offset of the name's opening quote.
    pub name_offset: usize,
    /// The member value.
    pub value: Value,
}

impl Drop for Value {
    /// Takes nested containers apart from a heap list, so dropping a deeply nested value
    /// needs no stack per level (`spec/json.md` §6 allows depth 1024 and more).
    fn drop(&mut self) {
        let mut pending: Vec<Value> = Vec::new();
        take_children(&mut self.node, &mut pending);
        while let Some(mut v) = pending.pop() {
            take_children(&mut v.node, &mut pending);
        }
    }
}

/// Moves the children of a container into `pending`, leaving it empty.
fn take_children(node: &mut Node, pending: &mut Vec<Value>) {
    match node {
        Node::Array(items) if !items.is_empty() => pending.append(items),
        Node::Object(members) if !members.is_empty() => {
            pending.extend(members.drain(..).map(|m| m.value));
        }
        _ => {}
    }
}

impl PartialEq for Value {
    fn eq(&self, other: &Self) -> bool {
        self.node == other.node
    }
}

impl PartialEq for Member {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && self.value == other.value
    }
}

/// The type of a JSON value, for messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JsonType {
    /// `null`
    Null,
    /// `true`/`false`
    Bool,
    /// A number
    Number,
    /// A string
    String,
    /// An array
    Array,
    /// An object
    Object,
}

impl JsonType {
    /// Lowercase name for messages (`string`, `object`, …).
    pub fn name(self) -> &'static str {
        match self {
            JsonType::Null => "null",
            JsonType::Bool => "boolean",
            JsonType::Number => "number",
            JsonType::String => "string",
            JsonType::Array => "array",
            JsonType::Object => "object",
        }
    }
}

impl Value {
    /// A value with offset 0, for writers building documents.
    pub fn new(node: Node) -> Value {
        Value { offset: 0, node }
    }

    /// The value's type.
    pub fn json_type(&self) -> JsonType {
        match self.node {
            Node::Null => JsonType::Null,
            Node::Bool(_) => JsonType::Bool,
            Node::Number(_) => JsonType::Number,
            Node::String(_) => JsonType::String,
            Node::Array(_) => JsonType::Array,
            Node::Object(_) => JsonType::Object,
        }
    }

    /// The member named `name` of an object, if this is an object and has one.
    pub fn get(&self, name: &str) -> Option<&Value> {
        match &self.node {
            Node::Object(members) => members.iter().find(|m| m.name == name).map(|m| &m.value),
            _ => None,
        }
    }

    /// The string, if this is a string.
    pub fn as_str(&self) -> Option<&str> {
        match &self.node {
            Node::String(s) => Some(s),
            _ => None,
        }
    }
}

/// Builds the owned value of the whole input from the tokenizer's events, without
/// recursion (`spec/json.md` §8). The parser has already enforced every rule.
pub fn build(parser: &mut Parser<'_>) -> Result<Value, Error> {
    // Open containers, each with the member name it will be stored under in its parent.
    let mut stack: Vec<(Value, Option<(String, usize)>)> = Vec::new();
    let mut name: Option<(String, usize)> = None;
    let mut top = None;
    while let Some(event) = parser.next_event()? {
        let at = event.offset;
        let leaf = |node| Value { offset: at, node };
        let value = match event.token {
            Token::StartObject => {
                stack.push((leaf(Node::Object(Vec::new())), name.take()));
                continue;
            }
            Token::StartArray => {
                stack.push((leaf(Node::Array(Vec::new())), name.take()));
                continue;
            }
            Token::Name(s) => {
                name = Some((s.value().into_owned(), at));
                continue;
            }
            Token::EndObject | Token::EndArray => match stack.pop() {
                Some((container, its_name)) => {
                    name = its_name;
                    container
                }
                None => continue,
            },
            Token::String(s) => leaf(Node::String(s.value().into_owned())),
            Token::Number(n) => leaf(Node::Number(Number::from_lexeme(n.raw()))),
            Token::Bool(b) => leaf(Node::Bool(b)),
            Token::Null => leaf(Node::Null),
        };
        match stack.last_mut() {
            None => top = Some(value),
            Some((parent, _)) => attach(parent, value, name.take()),
        }
    }
    // The parser returns None only after the top-level value and its trailing whitespace.
    Ok(top.unwrap_or(Value::new(Node::Null)))
}

fn attach(parent: &mut Value, value: Value, name: Option<(String, usize)>) {
    match (&mut parent.node, name) {
        (Node::Array(items), _) => items.push(value),
        (Node::Object(members), Some((name, name_offset))) => members.push(Member {
            name,
            name_offset,
            value,
        }),
        // The parser never yields a member value without its name.
        _ => {}
    }
}
