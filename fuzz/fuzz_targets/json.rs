//! Strict JSON (`spec/json.md`): never panics; accepted input re-serialises canonically and
//! parses to the same value; the pull parser, `validate` (under a key and without one: its
//! later names checked by one sort, §5.1) and `parse` agree; limits hold;
//! `parse` with a `Keep` schema fails as the whole parse does and keeps what the schema names
//! (§8.1); the streamed
//! rewrite gives the bytes of setting the members on the tree (§9.4); no accepted object
//! has two equal names, whichever way they were escaped (§5).
#![no_main]

use libfuzzer_sys::fuzz_target;
use modelgate_core::json::{self, Keep, Limits, Member, Node, Parser, Value};

fuzz_target!(|data: &[u8]| {
    // The first byte picks a small depth limit so that limit errors are reached too.
    let (depth, input) = match data.split_first() {
        Some((d, rest)) => (usize::from(*d % 40), rest),
        None => (0, data),
    };
    let limits = Limits { max_bytes: 1 << 20, max_depth: depth, ..Limits::DEFAULT };
    let parsed = json::parse(input, limits);
    // `validate` checks the names of an object past its 1,024th by one sort when it closes
    // (§5.1), `parse` looks each up as it comes: the same first failure, under a key of the
    // caller's and under the input's own.
    let validated = json::validate(input, Limits { hash_key: [0x1234, 0x5678], ..limits });
    assert_eq!(parsed.as_ref().err(), validated.as_ref().err(), "parse and validate disagree");
    let unkeyed = json::validate(input, limits);
    assert_eq!(parsed.as_ref().err(), unkeyed.as_ref().err(), "parse and unkeyed validate disagree");

    let mut pull_depth = 0usize;
    if let Ok(mut p) = Parser::new(input, limits) {
        while let Ok(Some(_)) = p.next_event() {
            pull_depth = pull_depth.max(p.depth());
        }
    }
    assert!(pull_depth <= depth, "depth limit exceeded");

    check_kept(input, limits, parsed.as_ref());
    check_rewrite(input, limits, parsed.as_ref());

    if let Ok(value) = parsed {
        assert!(names_unique(&value), "an accepted object repeats a name");
        let canonical = json::to_canonical(&value);
        let again = json::parse(canonical.as_bytes(), limits).expect("canonical text must parse");
        assert_eq!(again, value, "canonical text parses to a different value");
        assert_eq!(json::to_canonical(&again), canonical, "canonical form is not a fixed point");
        assert!(canonical.len() <= input.len(), "canonical text is never longer than the input");
    }
});

const ITEM: [(&str, Keep<'static>); 2] = [("a", Keep::Shape), ("b", Keep::Items(1, &Keep::Shape))];
const NESTED: [(&str, Keep<'static>); 2] = [("a", Keep::Items(2, &Keep::Members(&ITEM))), ("c", Keep::Members(&ITEM))];
const CLOSED: [(&str, Keep<'static>); 2] = [("a", Keep::Items(2, &Keep::Closed(&ITEM))), ("c", Keep::Members(&ITEM))];
const SCHEMA: Keep<'static> = Keep::Members(&NESTED);
const SCHEMA_CLOSED: Keep<'static> = Keep::Closed(&CLOSED);

/// §5 against a plain set: every object's names, unescaped, are distinct.
fn names_unique(v: &Value) -> bool {
    match &v.node {
        Node::Object(members) => {
            let mut seen = std::collections::BTreeSet::new();
            members.iter().all(|m| seen.insert(m.name.as_str()) && names_unique(&m.value))
        }
        Node::Array(items) => items.iter().all(names_unique),
        _ => true,
    }
}

/// The reference pruning: what a kept parse must keep of the whole value.
fn prune(v: &Value, keep: Keep<'_>) -> Value {
    let node = match (&v.node, keep) {
        (Node::Object(members), Keep::Members(list)) => Node::Object(
            members
                .iter()
                .filter_map(|m| {
                    let (_, k) = list.iter().find(|(n, _)| *n == m.name.as_str())?;
                    Some(Member { name: m.name.clone(), name_offset: m.name_offset, value: prune(&m.value, *k) })
                })
                .collect(),
        ),
        (Node::Object(members), Keep::Closed(list)) => {
            let mut other = true;
            Node::Object(
                members
                    .iter()
                    .filter_map(|m| {
                        let k = match list.iter().find(|(n, _)| *n == m.name.as_str()) {
                            Some((_, k)) => *k,
                            None if other => {
                                other = false;
                                Keep::Shape
                            }
                            None => return None,
                        };
                        Some(Member { name: m.name.clone(), name_offset: m.name_offset, value: prune(&m.value, k) })
                    })
                    .collect(),
            )
        }
        (Node::Array(items), Keep::Items(max, item)) => Node::Array(items.iter().take(max).map(|i| prune(i, *item)).collect()),
        (Node::Object(_), _) => Node::Object(Vec::new()),
        (Node::Array(_), _) => Node::Array(Vec::new()),
        (scalar, _) => scalar.clone(),
    };
    Value { offset: v.offset, node }
}

/// Offsets too, which `Value` equality leaves out.
fn same(a: &Value, b: &Value) -> bool {
    a.offset == b.offset
        && match (&a.node, &b.node) {
            (Node::Object(x), Node::Object(y)) => {
                x.len() == y.len()
                    && x.iter().zip(y).all(|(m, n)| m.name == n.name && m.name_offset == n.name_offset && same(&m.value, &n.value))
            }
            (Node::Array(x), Node::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(m, n)| same(m, n)),
            (x, y) => x == y,
        }
}

fn check_kept(input: &[u8], limits: Limits, parsed: Result<&Value, &json::Error>) {
    for schema in [SCHEMA, SCHEMA_CLOSED] {
        let kept = json::parse(
            input,
            json::ParseOptions {
                limits: Limits {
                    hash_key: [9, 9],
                    ..limits
                },
                keep: Some(schema),
            },
        );
        match (parsed, kept) {
            (Ok(whole), Ok(kept)) => assert!(same(&prune(whole, schema), &kept), "a kept parse keeps other parts"),
            (Err(a), Err(b)) => assert_eq!(*a, b, "a kept parse fails differently"),
            _ => panic!("a kept parse and the whole parse disagree on acceptance"),
        }
    }
}

fn check_rewrite(input: &[u8], limits: Limits, parsed: Result<&Value, &json::Error>) {
    let x = Value::new(Node::String("x\n\u{1}".into()));
    let y = Value::new(Node::Array(vec![Value::new(Node::Null)]));
    let set: [(&str, &Value); 2] = [("a", &x), ("b", &y)];
    let got = json::canonical_with_members(
        input,
        Limits {
            hash_key: [7, 7],
            ..limits
        },
        &["c"],
        &set,
    );
    let (whole, got) = match (parsed, got) {
        (Err(a), Err(b)) => return assert_eq!(*a, b, "the rewrite fails differently"),
        (Ok(whole), Ok(got)) => (whole, got),
        _ => panic!("the rewrite and parse disagree on acceptance"),
    };
    let mut v = whole.clone();
    if let Node::Object(members) = &mut v.node
        && let Some(c) = members.iter_mut().find(|m| m.name == "c")
        && let Node::Object(inner) = &mut c.value.node
    {
        for (name, value) in set {
            match inner.iter_mut().find(|m| m.name == name) {
                Some(m) => m.value = value.clone(),
                None => inner.push(Member { name: name.into(), name_offset: 0, value: value.clone() }),
            }
        }
    }
    assert_eq!(got, json::to_canonical(&v), "the rewrite differs from setting the members on the tree");
}
