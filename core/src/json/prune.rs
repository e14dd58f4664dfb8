//! A value built with only the parts a reader's rules look at (`spec/json.md` §8.1).
//!
//! A manifest reader that checks a few members of a large document, and keeps the rest only
//! as its bytes, need not hold the whole tree: [`super::parse`] with a [`Keep`] schema runs the same parser (every
//! rule of §1–§6 over every byte, so the same errors at the same offsets) and builds only
//! what a [`Keep`] schema names. Memory is then bounded by the kept parts, not by the
//! number of elements in the document (a value costs some 40 bytes; `[0,0,…]` has one per
//! two input bytes).

use super::Limits;
use super::error::Error;
use super::text::Text;
use super::tokenizer::{Parser, Sink, Str, Token};
use super::value::{Node, Pending, Texts, Value, scalar_node};
use crate::invariant;
use alloc::vec::Vec;

/// What [`super::parse`] keeps of one value (`spec/json.md` §8.1). Whatever the schema, a
/// kept value has its own type and offset, so typed reads of it fail as they would on the
/// whole document.
#[derive(Clone, Copy, Debug)]
pub enum Keep<'s> {
    /// Scalars whole; a container empty (its type and offset only).
    Shape,
    /// An object keeps the members named here, each as its entry says, and drops the
    /// others; any other value is kept as by [`Keep::Shape`].
    Members(&'s [(&'s str, Keep<'s>)]),
    /// An array keeps its first `.0` elements, each as `.1` says, and drops the rest; any
    /// other value is kept as by [`Keep::Shape`].
    Items(usize, &'s Keep<'s>),
    /// An object keeps the members named here as [`Keep::Members`] does, and of the others
    /// only the first, as by [`Keep::Shape`]: what a rule that refuses unknown members
    /// reports ([`super::Cursor::only_members`] names the first). Any other value is kept
    /// as by [`Keep::Shape`].
    Closed(&'s [(&'s str, Keep<'s>)]),
}

/// What the children of one open, kept container get.
#[derive(Clone, Copy)]
enum Rule<'s> {
    /// The members named in the list, as their entry says; with `first_other`, also the
    /// first member not in it (false once that one is kept), for [`Keep::Closed`].
    Members {
        list: &'s [(&'s str, Keep<'s>)],
        first_other: bool,
    },
    /// The next `left` elements, as `item` says.
    Items { left: usize, item: &'s Keep<'s> },
    /// Nothing (a container kept for its type only).
    Nothing,
}

/// The token sink of [`parse_kept`]: [`super::value`]'s pending lists for the kept
/// containers, one rule per kept open container, and the depth inside a dropped one.
struct Pruner<'s> {
    pending: Pending,
    rules: Vec<Rule<'s>>,
    root: Option<Keep<'s>>,
    /// How the member whose name was read last is kept (`None`: dropped).
    member: Option<Keep<'s>>,
    name: Option<(Text, usize)>,
    texts: Texts,
    /// Containers open inside a dropped value (0: not inside one).
    skip: usize,
    top: Option<Value>,
}

impl<'s> Pruner<'s> {
    /// How the value that starts now is kept, by its name or its position.
    fn next_keep(&mut self) -> Option<Keep<'s>> {
        match self.rules.last_mut() {
            None => self.root.take(),
            Some(Rule::Members { .. }) => self.member.take(),
            Some(Rule::Items { left, item }) => {
                let keep = (*left > 0).then_some(**item);
                *left = left.saturating_sub(1);
                keep
            }
            Some(Rule::Nothing) => None,
        }
    }

    fn attach(&mut self, value: Value, name: Option<(Text, usize)>) {
        if let Some(whole) = self.pending.attach(value, name) {
            self.top = Some(whole);
        }
    }
}

impl<'a, 's> Sink<'a> for Pruner<'s> {
    fn open(&mut self, at: usize, object: bool) {
        if self.skip > 0 {
            self.skip += 1;
            return;
        }
        let Some(keep) = self.next_keep() else {
            self.skip = 1;
            return;
        };
        let rule = match (keep, object) {
            (Keep::Members(list), true) => Rule::Members {
                list,
                first_other: false,
            },
            (Keep::Closed(list), true) => Rule::Members {
                list,
                first_other: true,
            },
            (Keep::Items(max, item), false) => Rule::Items { left: max, item },
            _ => Rule::Nothing,
        };
        self.rules.push(rule);
        self.pending.start(at, self.name.take(), object);
    }

    fn close(&mut self, _: usize) {
        if self.skip > 0 {
            self.skip -= 1;
            return;
        }
        self.rules.pop();
        if let Some((container, its_name)) = self.pending.finish() {
            self.attach(container, its_name);
        }
    }

    fn name(&mut self, at: usize, name: Str<'a>) {
        self.member = None;
        if self.skip > 0 {
            return;
        }
        if let Some(Rule::Members { list, first_other }) = self.rules.last_mut() {
            // Borrowed unless the name has escapes; a Text only for a kept member.
            let text = name.value();
            let keep = match list.iter().find(|(n, _)| *n == text) {
                Some((_, keep)) => Some(*keep),
                None if *first_other => {
                    *first_other = false;
                    Some(Keep::Shape)
                }
                None => None,
            };
            if let Some(keep) = keep {
                self.member = Some(keep);
                self.name = Some((Text::new(&text), at));
            }
        }
    }

    fn scalar(&mut self, at: usize, token: Token<'a>) {
        if self.skip == 0 && self.next_keep().is_some() {
            let name = self.name.take();
            let node = scalar_node(token, &mut self.texts);
            self.attach(Value { offset: at, node }, name);
        }
    }
}

/// Parses `input` as [`super::parse`] does for the whole value (the same checks, errors and
/// offsets) but builds only what `keep` names (`spec/json.md` §8.1): a dropped member or
/// element is checked and not stored.
pub(super) fn parse_kept(input: &[u8], limits: Limits, keep: Keep<'_>) -> Result<Value, Error> {
    let mut parser = Parser::new(input, limits)?;
    let mut sink = Pruner {
        pending: Pending::default(),
        rules: Vec::new(),
        root: Some(keep),
        member: None,
        name: None,
        texts: Texts::default(),
        skip: 0,
        top: None,
    };
    parser.read_into(&mut sink)?;
    // The root is always kept, and the parser returns only after it is complete.
    Ok(invariant::some_or(sink.top, Value::new(Node::Null)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::{parse, to_canonical};
    use alloc::string::String;

    const ENTRY: [(&str, Keep<'static>); 2] = [("path", Keep::Shape), ("size", Keep::Shape)];
    const FILE: Keep<'static> = Keep::Members(&ENTRY);

    fn kept(doc: &str, keep: Keep<'_>) -> String {
        to_canonical(&parse_kept(doc.as_bytes(), Limits::DEFAULT, keep).unwrap())
    }

    /// Named members are kept as their entry says and others dropped, at every level; an
    /// array keeps its first elements only; a container where the schema wants another
    /// type, or wants its type only, is kept empty; scalars are kept whole (§8.1).
    #[test]
    fn kept_value_holds_exactly_what_the_schema_names() {
        let inner = [("files", Keep::Items(2, &FILE)), ("id", Keep::Shape)];
        let root = [
            ("inv", Keep::Members(&inner)),
            ("kind", Keep::Shape),
            ("shape", Keep::Shape),
        ];
        let doc = r#"{"x":[1,{"inv":2}],"inv":{"files":[{"path":"a","size":1,"junk":[1]},7,[3],{"path":{"p":1}}],"id":"i","y":{}},"kind":[1,2],"shape":{"a":[1]},"z":null}"#;
        assert_eq!(
            kept(doc, Keep::Members(&root)),
            r#"{"inv":{"files":[{"path":"a","size":1},7],"id":"i"},"kind":[],"shape":{}}"#
        );
        let only = [("kind", Keep::Shape)];
        assert_eq!(kept(r#"[{"kind":1}]"#, Keep::Members(&only)), "[]");
        // A closed object also keeps its first unknown member, as a shape, for the error
        // that names it; later unknown members are dropped.
        let closed = r#"{"x":[1,2],"kind":{"a":1},"y":3,"z":{}}"#;
        assert_eq!(kept(closed, Keep::Closed(&only)), r#"{"x":[],"kind":{}}"#);
        assert_eq!(
            kept(r#"{"kind":1,"y":"s","z":2}"#, Keep::Closed(&only)),
            r#"{"kind":1,"y":"s"}"#
        );
        assert_eq!(kept(r#"[{"y":1}]"#, Keep::Closed(&only)), "[]");
        assert_eq!(kept(r#""s""#, Keep::Members(&only)), r#""s""#);
        assert_eq!(kept(r#"{"a":1}"#, Keep::Items(3, &FILE)), "{}");
    }

    /// Kept values carry the offsets the whole parse gives them, names included.
    #[test]
    fn kept_value_keeps_offsets() {
        let doc = br#"{"a":[{"x":[1]},{"path":"p"}],"b":{"c":true}}"#;
        let b = [("c", Keep::Shape)];
        let root = [("a", Keep::Items(5, &FILE)), ("b", Keep::Members(&b))];
        let pruned = parse_kept(doc, Limits::DEFAULT, Keep::Members(&root)).unwrap();
        let whole = parse(doc, Limits::DEFAULT).unwrap();
        let Node::Object(p) = &pruned.node else { panic!() };
        let Node::Object(w) = &whole.node else { panic!() };
        assert_eq!(p.len(), w.len());
        for (p, w) in p.iter().zip(w) {
            assert_eq!((p.name_offset, p.value.offset), (w.name_offset, w.value.offset));
        }
        let path = |v: &Value| {
            v.get("a").and_then(|a| match &a.node {
                Node::Array(items) => items.get(1).and_then(|i| i.get("path")).map(|p| p.offset),
                _ => None,
            })
        };
        assert_eq!(path(&pruned), path(&whole));
    }

    /// Every error of the whole parse is the error of the pruned one, dropped parts
    /// included: the same parser checks every byte (§8.1).
    #[test]
    fn kept_parse_fails_exactly_as_the_whole_parse() {
        let root = [("kind", Keep::Shape)];
        for doc in [
            r#"{"kind":1,"x":[1,2,}"#,
            r#"{"kind":1,"x":{"a":1,"a":2}}"#,
            r#"{"x":[[[[1]]]],"kind":01}"#,
            "{\"x\":\"\u{fdd0}\"}",
            r#"{"x":1} 2"#,
            "",
        ] {
            let shallow = Limits {
                max_depth: 3,
                ..Limits::DEFAULT
            };
            let want = parse(doc.as_bytes(), shallow).unwrap_err();
            let got = parse_kept(doc.as_bytes(), shallow, Keep::Members(&root)).unwrap_err();
            assert_eq!(got, want, "{doc}");
        }
    }
}
