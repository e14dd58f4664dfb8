//! The small owned JSON value that manifest readers work on (`spec/json.md` §8).

use super::error::Error;
use super::number::Number;
use super::text::Text;
use super::tokenizer::{Parser, Sink, Str, Token};
use crate::invariant;
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
    String(Text),
    /// An array.
    Array(Vec<Value>),
    /// An object, members in document order.
    Object(Vec<Member>),
}

/// One object member.
#[derive(Clone, Debug)]
pub struct Member {
    /// The member name, unescaped.
    pub name: Text,
    /// Offset of the name's opening quote.
    pub name_offset: usize,
    /// The member value.
    pub value: Value,
}

impl Drop for Value {
    /// Takes nested containers apart from a heap list, so dropping a deeply nested value
    /// needs no stack per level (`spec/json.md` §6 allows depth 1024 and more).
    fn drop(&mut self) {
        let mut pending: Vec<Node> = Vec::new();
        take_containers(&mut self.node, &mut pending);
        while let Some(mut node) = pending.pop() {
            take_containers(&mut node, &mut pending);
        }
    }
}

/// Moves the non-empty containers among a container's children into `pending`, leaving
/// `null` in their place; the scalars stay, to be dropped with the container, so only
/// containers are moved (most children of a typical document are scalars).
fn take_containers(node: &mut Node, pending: &mut Vec<Node>) {
    let mut take = |child: &mut Value| {
        if matches!(&child.node, Node::Array(c) if !c.is_empty())
            || matches!(&child.node, Node::Object(c) if !c.is_empty())
        {
            pending.push(core::mem::replace(&mut child.node, Node::Null));
        }
    };
    match node {
        Node::Array(items) => items.iter_mut().for_each(take),
        Node::Object(members) => members.iter_mut().for_each(|m| take(&mut m.value)),
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

/// A container being built: where it starts, the name it will be stored under in its
/// parent, and where its children begin on the shared pending list of its kind.
struct Open {
    offset: usize,
    name: Option<(Text, usize)>,
    object: bool,
    first: usize,
}

/// Children of the open containers, innermost last. Each container's children move into
/// a vector of exactly their number when it closes, so a container costs one allocation.
#[derive(Default)]
pub(super) struct Pending {
    open: Vec<Open>,
    items: Vec<Value>,
    members: Vec<Member>,
}

impl Pending {
    pub(super) fn start(&mut self, offset: usize, name: Option<(Text, usize)>, object: bool) {
        let first = if object { self.members.len() } else { self.items.len() };
        self.open.push(Open {
            offset,
            name,
            object,
            first,
        });
    }

    /// Closes the innermost container: its value and the name it goes under.
    pub(super) fn finish(&mut self) -> Option<(Value, Option<(Text, usize)>)> {
        let open = self.open.pop()?;
        let node = if open.object {
            Node::Object(children(&mut self.members, open.first))
        } else {
            Node::Array(children(&mut self.items, open.first))
        };
        Some((
            Value {
                offset: open.offset,
                node,
            },
            open.name,
        ))
    }

    /// Adds a finished value to the innermost container, or hands it back when none is
    /// open (it is the whole document).
    pub(super) fn attach(&mut self, value: Value, name: Option<(Text, usize)>) -> Option<Value> {
        match (self.open.last(), name) {
            (None, _) => return Some(value),
            (Some(o), Some((name, name_offset))) if o.object => self.members.push(Member {
                name,
                name_offset,
                value,
            }),
            // The parser never yields a member value without its name.
            (Some(o), _) if o.object => {}
            (Some(_), _) => self.items.push(value),
        }
        None
    }
}

/// The children of a closing container, from `first` to the end of the pending list
/// `list`, moved into a new vector of exactly their number: one block copy, where draining
/// them into a collected vector moved them one by one (11 % of `parse`'s time on the
/// benchmark's forest). `first` is never past the end (inner containers only truncate to
/// their own start); `min` keeps that from being a panic.
fn children<T>(list: &mut Vec<T>, first: usize) -> Vec<T> {
    list.split_off(first.min(list.len()))
}

/// Builds the owned value of the whole input from the tokenizer's events, without
/// recursion (`spec/json.md` §8). The parser has already enforced every rule.
pub fn build(parser: &mut Parser<'_>) -> Result<Value, Error> {
    let mut builder = Builder::default();
    // The parser's own loop hands the tokens over (`Parser::read_into`), so the cursor
    // stays in a register rather than going through `next_event` once per token.
    parser.read_into(&mut builder)?;
    // The parser returns only after the top-level value and its trailing whitespace.
    Ok(invariant::some_or(builder.top, Value::new(Node::Null)))
}

/// The token sink [`build`] reads into: the open containers, the name of the member
/// whose value comes next, and the whole document once it is complete.
#[derive(Default)]
struct Builder {
    pending: Pending,
    name: Option<(Text, usize)>,
    top: Option<Value>,
    texts: Texts,
}

/// Makes the [`Text`] of names and strings. Those with escapes are unescaped into one
/// buffer kept for the whole document before they are copied, so an escape costs no
/// allocation of its own (`spec/json.md` §8).
#[derive(Default)]
pub(super) struct Texts {
    scratch: String,
}

impl Texts {
    /// The unescaped text of a name or string: inline when short, else one allocation.
    #[inline(always)]
    pub(super) fn text(&mut self, s: &Str<'_>) -> Text {
        if !s.has_escapes() {
            return Text::new(s.raw());
        }
        self.scratch.clear();
        s.unescape_into(&mut self.scratch);
        Text::new(&self.scratch)
    }
}

impl Builder {
    /// Adds a finished value to its container, or keeps it as the document.
    #[inline(always)]
    fn attach(&mut self, value: Value) {
        if let Some(whole) = self.pending.attach(value, self.name.take()) {
            self.top = Some(whole);
        }
    }
}

impl<'a> Sink<'a> for Builder {
    #[inline(always)]
    fn open(&mut self, at: usize, object: bool) {
        self.pending.start(at, self.name.take(), object);
    }

    #[inline(always)]
    fn close(&mut self, _: usize) {
        if let Some((container, its_name)) = self.pending.finish() {
            self.name = its_name;
            self.attach(container);
        }
    }

    #[inline(always)]
    fn name(&mut self, at: usize, name: Str<'a>) {
        self.name = Some((self.texts.text(&name), at));
    }

    #[inline(always)]
    fn scalar(&mut self, at: usize, token: Token<'a>) {
        let node = scalar_node(token, &mut self.texts);
        self.attach(Value { offset: at, node });
    }
}

/// The node of a scalar token (a string, number or literal value).
#[inline(always)]
pub(super) fn scalar_node(token: Token<'_>, texts: &mut Texts) -> Node {
    match token {
        Token::String(s) => Node::String(texts.text(&s)),
        Token::Number(n) => Node::Number(Number::from_lexeme(n.raw())),
        Token::Bool(b) => Node::Bool(b),
        Token::Null => Node::Null,
        // Sinks never get a container token or a name as a scalar; listed so that a new
        // token kind has to be placed here.
        Token::StartObject | Token::EndObject | Token::StartArray | Token::EndArray | Token::Name(_) => Node::Null,
    }
}

/// A stand-in for a value: its offset and type, with no content (an empty container, an
/// empty string, zero). A [`super::Cursor`] on it makes the errors that the rules make about type
/// and position, which is all they ask of a value they reject.
pub fn shape(at: usize, json_type: JsonType) -> Value {
    let node = match json_type {
        JsonType::Object => Node::Object(Vec::new()),
        JsonType::Array => Node::Array(Vec::new()),
        JsonType::String => Node::String(Text::new("")),
        JsonType::Number => Node::Number(Number::from_u64(0)),
        JsonType::Bool => Node::Bool(false),
        JsonType::Null => Node::Null,
    };
    Value { offset: at, node }
}

/// The type of a container that opens.
pub fn container(object: bool) -> JsonType {
    if object { JsonType::Object } else { JsonType::Array }
}

/// The type of a scalar token.
#[cfg(any(feature = "mlbundle", feature = "mpk"))]
pub(crate) fn scalar_type(token: &Token<'_>) -> JsonType {
    match token {
        Token::String(_) => JsonType::String,
        Token::Number(_) => JsonType::Number,
        Token::Bool(_) => JsonType::Bool,
        Token::StartObject => JsonType::Object,
        Token::StartArray => JsonType::Array,
        Token::Null | Token::EndObject | Token::EndArray | Token::Name(_) => JsonType::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{Limits, parse};

    /// Every container of a value, outermost first.
    fn containers(v: &Value, out: &mut Vec<(usize, usize)>) {
        match &v.node {
            Node::Array(items) => {
                out.push((items.len(), items.capacity()));
                items.iter().for_each(|i| containers(i, out));
            }
            Node::Object(members) => {
                out.push((members.len(), members.capacity()));
                members.iter().for_each(|m| containers(&m.value, out));
            }
            _ => {}
        }
    }

    /// Children move into a vector of exactly their number when the container closes
    /// (one allocation per container, none for empty ones), at every depth and in both
    /// container kinds, with order and offsets kept (`spec/json.md` §8).
    #[test]
    fn containers_are_allocated_at_their_exact_size() {
        let doc = br#"{"a":[1,[2,3,4,5,6],{}],"b":{"c":"x","d":[],"e":{"f":[[],[7]]}},"g":[{"h":1,"i":2,"j":3}]}"#;
        let v = parse(doc, Limits::DEFAULT).unwrap();
        let mut seen = Vec::new();
        containers(&v, &mut seen);
        assert_eq!(seen.len(), 12);
        for (len, cap) in seen {
            assert_eq!(len, cap);
        }
        let b = v.get("b").unwrap();
        assert_eq!(b.offset, 28);
        assert_eq!(b.get("e").unwrap().get("f").unwrap().offset, 53);
        let Node::Object(members) = &v.node else { panic!() };
        let names: Vec<_> = members.iter().map(|m| (m.name.as_str(), m.name_offset)).collect();
        assert_eq!(names, [("a", 1), ("b", 24), ("g", 64)]);
    }

    /// Names and strings of up to 22 bytes are kept inline; longer ones, and ones with
    /// escapes, keep their unescaped value.
    #[test]
    fn short_names_and_strings_need_no_allocation() {
        let doc = br#"{"twenty-two-byte-name!":"s","twenty-three-byte-name!!":"t\u00e9xt longer than 22 bytes"}"#;
        let v = parse(doc, Limits::DEFAULT).unwrap();
        let Node::Object(members) = &v.node else { panic!() };
        let [short, long] = members.as_slice() else { panic!() };
        assert!(short.name.is_inline());
        assert!(!long.name.is_inline());
        let Node::String(s) = &short.value.node else { panic!() };
        assert!(s.is_inline());
        assert_eq!(long.value.as_str(), Some("téxt longer than 22 bytes"));
    }
}
