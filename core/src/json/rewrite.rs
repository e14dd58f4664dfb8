//! The canonical text of a document with some members of one object set, written as the
//! document is read (`spec/json.md` §9.4): the memory it takes is the output and one entry
//! per open container, never a tree of the document.

use super::Limits;
use super::error::Error;
use super::number::Number;
use super::tokenizer::{Parser, Token};
use super::value::Value;
use super::writer::Writer;
use alloc::string::String;
use alloc::vec::Vec;

/// One open container of the input.
struct Open {
    /// Whether it lies on the path to the target object (the root always does).
    on_path: bool,
    /// Whether it is the target object.
    target: bool,
}

/// The rewrite: the writer, the open containers, and which members of `set` the target
/// object already had.
struct Rewrite<'s, 'v> {
    w: Writer,
    open: Vec<Open>,
    at: &'s [&'s str],
    set: &'s [(&'s str, &'v Value)],
    written: Vec<bool>,
    /// Whether the member name read last continues the path to the target.
    name_on_path: bool,
}

impl Rewrite<'_, '_> {
    /// A container opens: it is on the path when it is the root, or the value of a member
    /// whose name continued the path (`named_on_path`).
    fn open(&mut self, object: bool, named_on_path: bool) {
        let on_path = self.open.is_empty() || named_on_path;
        let target = on_path && object && self.open.len() == self.at.len();
        self.open.push(Open { on_path, target });
        if object {
            self.w.begin_object();
        } else {
            self.w.begin_array();
        }
    }

    /// The target object closes: the members of `set` it did not have are appended.
    fn close_target(&mut self) {
        for ((name, value), done) in self.set.iter().zip(&self.written) {
            if !done {
                self.w.name(name).value(value);
            }
        }
    }

    /// A member name: in the target object, a name of `set` gets its new value and the
    /// old one is skipped (true); otherwise the name is written (false).
    fn name(&mut self, name: &str) -> bool {
        let Some(top) = self.open.last() else { return false };
        if top.target
            && let Some(i) = self.set.iter().position(|(n, _)| *n == name)
            && let (Some((n, v)), Some(done)) = (self.set.get(i), self.written.get_mut(i))
        {
            *done = true;
            self.w.name(n).value(v);
            return true;
        }
        self.name_on_path = top.on_path && self.at.get(self.open.len().saturating_sub(1)) == Some(&name);
        self.w.name(name);
        false
    }
}

/// Reads `input` strictly (the checks of [`super::parse`], the same errors) and
/// returns its canonical text (§9) with, in the object at member path `at` from the root,
/// each member of `set` given its new value: in place when the object has it, appended
/// after its members in `set`'s order when it does not (`spec/json.md` §9.4). When there
/// is no object at `at`, the text is the document's own canonical text.
pub fn canonical_with_members(
    input: &[u8],
    limits: Limits,
    at: &[&str],
    set: &[(&str, &Value)],
) -> Result<String, Error> {
    let mut parser = Parser::new(input, limits)?;
    let mut r = Rewrite {
        w: Writer::new(),
        open: Vec::new(),
        at,
        set,
        written: alloc::vec![false; set.len()],
        name_on_path: false,
    };
    // Containers open inside a replaced value, which is read and not written.
    let mut skip = 0usize;
    let mut skipping = false;
    while let Some(event) = parser.next_event()? {
        let token = event.token;
        if skipping {
            match token {
                Token::StartObject | Token::StartArray => skip += 1,
                Token::EndObject | Token::EndArray => skip = skip.saturating_sub(1),
                _ => {}
            }
            skipping = skip > 0;
            continue;
        }
        // Set by a name on the path, for the value that follows it only.
        let named_on_path = core::mem::take(&mut r.name_on_path);
        match token {
            Token::StartObject => r.open(true, named_on_path),
            Token::StartArray => r.open(false, named_on_path),
            Token::EndObject => {
                if r.open.pop().is_some_and(|o| o.target) {
                    r.close_target();
                }
                r.w.end_object();
            }
            Token::EndArray => {
                r.open.pop();
                r.w.end_array();
            }
            Token::Name(s) => skipping = r.name(&s.value()),
            Token::String(s) => {
                r.w.string(&s.value());
            }
            Token::Number(n) => {
                r.w.number(&Number::from_lexeme(n.raw()));
            }
            Token::Bool(b) => {
                r.w.bool(b);
            }
            Token::Null => {
                r.w.null();
            }
        }
    }
    Ok(r.w.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{Member, Node, parse, to_canonical};
    use alloc::vec;

    fn string(s: &str) -> Value {
        Value::new(Node::String(s.into()))
    }

    /// The reference: the whole tree, members set in place or appended, written whole.
    fn reference(doc: &str, at: &[&str], set: &[(&str, &Value)]) -> String {
        let mut v = parse(doc.as_bytes(), Limits::DEFAULT).unwrap();
        let mut target = Some(&mut v);
        for seg in at {
            target = target.and_then(|t| match &mut t.node {
                Node::Object(members) => members.iter_mut().find(|m| m.name == *seg).map(|m| &mut m.value),
                _ => None,
            });
        }
        if let Some(Value {
            node: Node::Object(members),
            ..
        }) = target
        {
            for (name, value) in set {
                match members.iter_mut().find(|m| m.name == *name) {
                    Some(m) => m.value = (*value).clone(),
                    None => members.push(Member {
                        name: (*name).into(),
                        name_offset: 0,
                        value: (*value).clone(),
                    }),
                }
            }
        }
        to_canonical(&v)
    }

    /// Members are replaced in place or appended, only in the object at the path (not in
    /// a same-named object elsewhere), old values of any shape are skipped whole, and the
    /// rest is the canonical text: the same bytes as setting them on the whole tree (§9.4).
    #[test]
    fn rewrite_sets_members_as_the_tree_would() {
        let obj = Value::new(Node::Object(vec![Member {
            name: "k".into(),
            name_offset: 0,
            value: string("v"),
        }]));
        let (a, b) = (string("A"), string("B\n\u{1}"));
        let set: [(&str, &Value); 3] = [("loc", &a), ("host", &b), ("stamp", &obj)];
        for doc in [
            r#"{"archive":{"date":"d","loc":{"x":[1,{"y":2}]},"z":[]},"n":1.50e+3}"#,
            r#" { "x" : { "archive" : { } } , "archive" : { "host" : [ [ ] ] , "q" : "\u00e9\/" } } "#,
            r#"{"archive":{"stamp":1,"host":null,"loc":"old"},"after":{"archive":{}}}"#,
            r#"{"archive":[1,2]}"#,
            r#"{"archive":{}}"#,
            r#"{"other":{}}"#,
            r#"[{"archive":{}}]"#,
            r#""archive""#,
        ] {
            let got = canonical_with_members(doc.as_bytes(), Limits::DEFAULT, &["archive"], &set).unwrap();
            assert_eq!(got, reference(doc, &["archive"], &set), "{doc}");
        }
        let deep = r#"{"a":{"b":{"c":1},"c":{}},"b":{}}"#;
        let got = canonical_with_members(deep.as_bytes(), Limits::DEFAULT, &["a", "b"], &set).unwrap();
        assert_eq!(got, reference(deep, &["a", "b"], &set));
        let root = canonical_with_members(deep.as_bytes(), Limits::DEFAULT, &[], &set).unwrap();
        assert_eq!(root, reference(deep, &[], &set));
    }

    /// The input is read strictly: what the parser rejects, the rewrite rejects with the
    /// same error.
    #[test]
    fn rewrite_rejects_what_the_parser_rejects() {
        for doc in [
            r#"{"archive":{"a":1,"a":2}}"#,
            r#"{"archive":{}} x"#,
            r#"{"archive":{"loc":[1,]}}"#,
        ] {
            let a = string("A");
            let got = canonical_with_members(doc.as_bytes(), Limits::DEFAULT, &["archive"], &[("loc", &a)]);
            assert_eq!(
                got.unwrap_err(),
                parse(doc.as_bytes(), Limits::DEFAULT).unwrap_err(),
                "{doc}"
            );
        }
    }
}
