//! API-level tests of `modelgate_core::json` (`spec/json.md`). The per-rule accept/reject
//! cases with exact offsets live in `tools/corpus-gen/src/json.rs`, one test per corpus file.

use modelgate_core::json::{
    self, Cursor, Event, Expected, IntError, JsonType, Limits, Node, Number, Parser, Problem, Reason, Token,
    Utf8Problem, Value, Writer,
};
use modelgate_corpus_gen::rng::Rng;

fn events(input: &str) -> Vec<(usize, String)> {
    let mut p = Parser::new(input.as_bytes(), Limits::DEFAULT).unwrap();
    let mut out = Vec::new();
    while let Some(Event { offset, token }) = p.next_event().unwrap() {
        let t = match token {
            Token::StartObject => "{".into(),
            Token::EndObject => "}".into(),
            Token::StartArray => "[".into(),
            Token::EndArray => "]".into(),
            Token::Name(s) => format!("name:{}", s.value()),
            Token::String(s) => format!("str:{}", s.value()),
            Token::Number(n) => format!("num:{}", n.raw()),
            Token::Bool(b) => format!("bool:{b}"),
            Token::Null => "null".into(),
        };
        out.push((offset, t));
    }
    out
}

#[test]
fn pull_events_carry_offsets_of_first_bytes() {
    let got = events(r#" {"a": [1, "x\n", true, null], "b":{}} "#);
    let want: Vec<(usize, String)> = vec![
        (1, "{".into()),
        (2, "name:a".into()),
        (7, "[".into()),
        (8, "num:1".into()),
        (11, "str:x\n".into()),
        (18, "bool:true".into()),
        (24, "null".into()),
        (28, "]".into()),
        (31, "name:b".into()),
        (35, "{".into()),
        (36, "}".into()),
        (37, "}".into()),
    ];
    assert_eq!(got, want);
}

#[test]
fn pull_parser_reports_trailing_content_only_when_drained() {
    let mut p = Parser::new(b"[] x", Limits::DEFAULT).unwrap();
    assert!(p.next_event().unwrap().is_some());
    assert!(p.next_event().unwrap().is_some());
    let e = p.next_event().unwrap_err();
    assert_eq!((e.reason, e.offset), (Reason::TrailingContent, 3));
}

#[test]
fn strings_borrow_without_escapes_and_unescape_exactly() {
    let mut p = Parser::new(
        br#"["plain","a\"\\\/\b\f\n\r\tz\u00e9\uD83D\uDE00\u0000"]"#,
        Limits::DEFAULT,
    )
    .unwrap();
    p.next_event().unwrap();
    let Some(Event {
        token: Token::String(plain),
        ..
    }) = p.next_event().unwrap()
    else {
        panic!()
    };
    assert!(!plain.has_escapes());
    assert!(matches!(plain.value(), std::borrow::Cow::Borrowed("plain")));
    let Some(Event {
        token: Token::String(esc),
        ..
    }) = p.next_event().unwrap()
    else {
        panic!()
    };
    assert!(esc.has_escapes());
    assert_eq!(esc.value(), "a\"\\/\u{8}\u{c}\n\r\tz\u{e9}\u{1F600}\u{0}");
    assert_eq!(esc.raw(), r#"a\"\\\/\b\f\n\r\tz\u00e9\uD83D\uDE00\u0000"#);
}

#[test]
fn size_limit_is_a_limit_error_at_the_first_byte_beyond() {
    let limits = Limits {
        max_bytes: 4,
        max_depth: 8,
        ..Limits::DEFAULT
    };
    assert!(json::validate(b"[11]", limits).is_ok());
    let e = json::validate(b"[111]", limits).unwrap_err();
    assert_eq!((e.reason, e.offset), (Reason::TooLarge, 4));
    assert_eq!(e.kind().name(), "LimitExceeded");
}

#[test]
fn size_limit_is_checked_before_syntax() {
    let e = json::validate(
        b"\xff\xff\xff\xff\xff",
        Limits {
            max_bytes: 4,
            max_depth: 8,
            ..Limits::DEFAULT
        },
    )
    .unwrap_err();
    assert_eq!(e.reason, Reason::TooLarge);
}

#[test]
fn depth_limit_counts_open_containers() {
    let two = Limits {
        max_bytes: 100,
        max_depth: 2,
        ..Limits::DEFAULT
    };
    assert!(json::validate(b"[[1],{\"a\":2}]", two).is_ok());
    let e = json::validate(b"[{\"a\":[[]]}]", two).unwrap_err();
    assert_eq!((e.reason, e.offset), (Reason::TooDeep, 6));
    assert_eq!(e.kind().name(), "LimitExceeded");
    let zero = Limits {
        max_bytes: 100,
        max_depth: 0,
        ..Limits::DEFAULT
    };
    assert!(json::validate(b"17", zero).is_ok());
    assert_eq!(json::validate(b"[]", zero).unwrap_err().reason, Reason::TooDeep);
}

#[test]
fn duplicate_detection_is_independent_of_hash_key() {
    let mut doc = String::from("{");
    for i in 0..20_000 {
        doc.push_str(&format!("\"m{i}\":{i},"));
    }
    let dup_at = doc.len();
    doc.push_str("\"m19999\":0}");
    for key in [[0, 0], [1, 2], json::DEFAULT_HASH_KEY, [u64::MAX, 7]] {
        let keyed = Limits {
            hash_key: key,
            ..Limits::DEFAULT
        };
        let e = json::validate(doc.as_bytes(), keyed).unwrap_err();
        assert_eq!((e.reason, e.offset), (Reason::DuplicateName, dup_at));
    }
    let ok = doc.replace("\"m19999\":0}", "\"m20000\":0}");
    let keyed = Limits {
        hash_key: [3, 4],
        ..Limits::DEFAULT
    };
    assert!(json::validate(ok.as_bytes(), keyed).is_ok());
}

/// §5 in a hashed object: a name is compared after unescaping, whether the earlier one or
/// the new one had escapes (a hashed object reads the earlier one back from the input).
#[test]
fn escaped_names_are_duplicates_in_large_objects() {
    let members: String = (0..30).map(|i| format!("\"m{i}\":{i},")).collect();
    for (first, again) in [
        (r#""a\u0062c""#, r#""abc""#),
        (r#""abc""#, r#""\u0061bc""#),
        (r#""q\"\\""#, r#""\u0071\"\\""#),
    ] {
        // The first early (kept by the direct comparison, then moved into the table), or
        // after the switch to hashing (kept as its slot only).
        for doc in [format!("{{{first}:0,{members}"), format!("{{{members}{first}:0,")] {
            let dup_at = doc.len();
            let doc = format!("{doc}{again}:1}}");
            let e = json::validate(doc.as_bytes(), Limits::DEFAULT).unwrap_err();
            assert_eq!((e.reason, e.offset), (Reason::DuplicateName, dup_at), "{doc}");
        }
    }
}

/// An object of 1,000 to 2,200 members: distinct names up to about the 1,024th, where a
/// validation's table stops growing (`spec/json.md` §5.1), then now and then a name drawn
/// from around that point (a table name or an earlier later one), some escaped; values are
/// numbers, now and then (if `broken`) a literal cut short, a failure of another kind, or,
/// while `depth` allows, another such object.
fn large_object(rng: &mut Rng, depth: usize, repeat_one_in: usize, broken: bool) -> String {
    let distinct = 1020 + rng.below(8);
    let members: Vec<String> = (0..1000 + rng.below(1200))
        .map(|i| {
            let n = if i >= distinct && rng.below(repeat_one_in) == 0 {
                990 + rng.below(80)
            } else {
                i
            };
            let name = if rng.below(8) == 0 {
                format!("\\u0075{n}")
            } else {
                format!("u{n}")
            };
            let value = match rng.below(3000) {
                0 if broken => "tru".to_string(),
                1..=4 if depth > 0 => large_object(rng, depth - 1, repeat_one_in, broken),
                v => v.to_string(),
            };
            format!("\"{name}\":{value}")
        })
        .collect();
    format!("{{{}}}", members.join(","))
}

/// §5.1: a validation checks the names of an object past its table's 1,024 by one sort
/// when it closes, and reports exactly what a read that looks every name up reports
/// (`parse`): acceptance, or the same first failure, whether a name repeats a table name
/// or a later one, plain or escaped, in an object or one nested in it, before or after a
/// failure of another kind, under a key of the caller's or the input's own (§5).
#[test]
fn later_names_checked_by_one_sort_give_the_verdict_of_looking_each_up() {
    let mut rng = Rng::new(0x1a7e_0b1e);
    let (mut valid, mut repeats, mut other) = (0, 0, 0);
    for round in 0..40 {
        let doc = large_object(&mut rng, 2, [1_000_000, 30, 300][round % 3], round % 4 == 3);
        for depth in [2, 1024] {
            let limits = Limits {
                max_bytes: Limits::DEFAULT.max_bytes,
                max_depth: depth,
                ..Limits::DEFAULT
            };
            let keyed = Limits {
                hash_key: [5, 6],
                ..limits
            };
            let looked_up = json::parse(doc.as_bytes(), keyed).map(drop);
            assert_eq!(json::validate(doc.as_bytes(), keyed), looked_up, "{doc}");
            assert_eq!(json::validate(doc.as_bytes(), limits), looked_up, "{doc}");
            match looked_up {
                Ok(()) => valid += 1,
                Err(e) if e.reason == Reason::DuplicateName => repeats += 1,
                Err(_) => other += 1,
            }
        }
    }
    assert!(
        valid > 5 && repeats > 20 && other > 5,
        "{valid} valid, {repeats} repeats, {other} others"
    );
}

#[test]
fn names_of_closed_objects_are_forgotten() {
    // Inner objects large enough to use the hash table, closed before the outer repeats none.
    let inner: String = (0..40).map(|i| format!("\"n{i}\":{i}")).collect::<Vec<_>>().join(",");
    let doc = format!("{{\"a\":{{{inner}}},\"b\":{{{inner}}},\"n0\":1,\"c\":[{{{inner}}}]}}");
    assert!(json::validate(doc.as_bytes(), Limits::DEFAULT).is_ok());
    let dup = format!("{{\"a\":{{{inner}}},\"a\":1}}");
    assert_eq!(
        json::validate(dup.as_bytes(), Limits::DEFAULT).unwrap_err().reason,
        Reason::DuplicateName
    );
}

#[test]
fn value_keeps_order_offsets_and_lexemes() {
    let v = json::parse(br#"{"z":1.50,"a":[true,null,"s"],"n":-0}"#, Limits::DEFAULT).unwrap();
    let Node::Object(members) = &v.node else { panic!() };
    let names: Vec<_> = members.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["z", "a", "n"]);
    assert_eq!(members[0].name_offset, 1);
    assert_eq!(members[0].value.offset, 5);
    assert_eq!(members[1].value.offset, 14);
    let Node::Number(n) = &members[0].value.node else {
        panic!()
    };
    assert_eq!(n.as_str(), "1.50");
    assert_eq!(v.get("a").map(Value::json_type), Some(JsonType::Array));
}

#[test]
fn value_equality_ignores_offsets_but_not_order() {
    let a = json::parse(br#"{"a":1,"b":[2]}"#, Limits::DEFAULT).unwrap();
    let b = json::parse(b" { \"a\" : 1 , \"b\" : [ 2 ] } ", Limits::DEFAULT).unwrap();
    let c = json::parse(br#"{"b":[2],"a":1}"#, Limits::DEFAULT).unwrap();
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn canonical_writer_has_no_insignificant_whitespace_and_minimal_escapes() {
    let v = json::parse(
        " { \"k\\u0065y\" : [ 1 , -0.0 , 1E+2 , \"\\u0001\\u001F\\b\\t\\n\\f\\r\\\"\\\\\\/\u{7f}\u{e9}\" ] , \"e\" : { } } ".as_bytes(),
        Limits::DEFAULT,
    )
    .unwrap();
    let text = json::to_canonical(&v);
    assert_eq!(
        text,
        "{\"key\":[1,-0.0,1E+2,\"\\u0001\\u001f\\b\\t\\n\\f\\r\\\"\\\\/\u{7f}\u{e9}\"],\"e\":{}}"
    );
    let again = json::parse(text.as_bytes(), Limits::DEFAULT).unwrap();
    assert_eq!(again, v);
    assert_eq!(json::to_canonical(&again), text);
}

#[test]
fn canonical_writer_handles_depth_without_recursion() {
    let deep = "[".repeat(1024) + &"]".repeat(1024);
    let v = json::parse(deep.as_bytes(), Limits::DEFAULT).unwrap();
    assert_eq!(json::to_canonical(&v), deep);
}

#[test]
fn streaming_writer_places_commas_and_colons() {
    let mut w = Writer::new();
    w.begin_object()
        .name("a")
        .u64(u64::MAX)
        .name("b")
        .begin_array()
        .i64(i64::MIN)
        .string("x\"")
        .null()
        .bool(false);
    w.end_array().name("c").begin_object().end_object().end_object();
    assert_eq!(
        w.finish(),
        r#"{"a":18446744073709551615,"b":[-9223372036854775808,"x\"",null,false],"c":{}}"#
    );
}

#[test]
fn integers_convert_exactly_or_fail_cleanly() {
    let n = |s: &str| Number::parse(s).unwrap();
    assert_eq!(n("9223372036854775807").to_i64(), Ok(i64::MAX));
    assert_eq!(n("-9223372036854775808").to_i64(), Ok(i64::MIN));
    assert_eq!(n("9223372036854775808").to_i64(), Err(IntError::OutOfRange));
    assert_eq!(n("-9223372036854775809").to_i64(), Err(IntError::OutOfRange));
    assert_eq!(n("18446744073709551615").to_u64(), Ok(u64::MAX));
    assert_eq!(n("18446744073709551616").to_u64(), Err(IntError::OutOfRange));
    assert_eq!(n("99999999999999999999999999").to_i64(), Err(IntError::OutOfRange));
    assert_eq!(n("-1").to_u64(), Err(IntError::OutOfRange));
    assert_eq!(n("-0").to_u64(), Ok(0));
    assert_eq!(n("-0").to_i64(), Ok(0));
    assert_eq!(n("1.0").to_i64(), Err(IntError::NotAnInteger));
    assert_eq!(n("1e2").to_u64(), Err(IntError::NotAnInteger));
    assert_eq!(n("10E0").to_i64(), Err(IntError::NotAnInteger));
    assert!(Number::parse("01").is_none());
    assert!(Number::parse("1 ").is_none());
    assert!(Number::parse("").is_none());
    assert_eq!(Number::from_i64(-42).as_str(), "-42");
    assert_eq!(Number::from_i64(i64::MIN).as_str(), "-9223372036854775808");
    assert_eq!(Number::from_u64(0).as_str(), "0");
    let long = "1".repeat(40);
    assert_eq!(Number::parse(&long).unwrap().as_str(), long);
    assert_eq!(json::lexeme_to_u64("4096"), Ok(4096));
}

#[test]
fn cursor_names_the_path_of_a_wrong_type() {
    let v = json::parse(br#"{"graph":{"nodes":[{},{},{},{"inputs":["a",7]}]}}"#, Limits::DEFAULT).unwrap();
    let root = Cursor::root(&v, "manifest");
    let graph = root.field("graph").unwrap();
    let nodes = graph.field("nodes").unwrap();
    let node = nodes.items().unwrap().nth(3).unwrap();
    let inputs = node.field("inputs").unwrap();
    let second = inputs.items().unwrap().nth(1).unwrap();
    let e = second.str().unwrap_err();
    assert_eq!(e.path, "manifest.graph.nodes[3].inputs[1]");
    assert_eq!(e.offset, 43);
    assert_eq!(
        e.problem,
        Problem::WrongType {
            expected: JsonType::String,
            found: JsonType::Number
        }
    );
    assert_eq!(
        e.to_string(),
        "manifest.graph.nodes[3].inputs[1]: expected string, found number"
    );
}

#[test]
fn cursor_reports_missing_and_unknown_members_and_integers() {
    let v = json::parse(br#"{"a b":{"n":1.5,"big":-1,"x":1}}"#, Limits::DEFAULT).unwrap();
    let root = Cursor::root(&v, "m");
    let ab = root.field("a b").unwrap();
    let missing = ab.field("version").unwrap_err();
    assert_eq!(
        (missing.path.as_str(), missing.offset, missing.problem),
        ("m[\"a b\"].version", 7, Problem::Missing)
    );
    assert_eq!(ab.field("n").unwrap().u64().unwrap_err().problem, Problem::NotAnInteger);
    assert_eq!(ab.field("big").unwrap().u64().unwrap_err().problem, Problem::OutOfRange);
    assert_eq!(ab.field("big").unwrap().i64(), Ok(-1));
    let unknown = ab.only_members(&["n", "big"]).unwrap_err();
    assert_eq!(
        (unknown.path.as_str(), unknown.problem),
        ("m[\"a b\"].x", Problem::UnknownMember)
    );
    assert!(ab.opt_field("absent").unwrap().is_none());
    assert_eq!(
        root.field("a b").unwrap().array().unwrap_err().problem,
        Problem::WrongType {
            expected: JsonType::Array,
            found: JsonType::Object
        }
    );
}

#[test]
fn cursor_cuts_long_names_in_paths() {
    let name = "é".repeat(100);
    let doc = format!("{{\"{name}\":1}}");
    let v = json::parse(doc.as_bytes(), Limits::DEFAULT).unwrap();
    let root = Cursor::root(&v, "m");
    let e = root.field(&name).unwrap().str().unwrap_err();
    assert_eq!(e.path, format!("m[\"{}\"…]", "é".repeat(64)));
}

#[test]
fn errors_display_kind_reason_and_offset() {
    let e = json::validate(br#"{"a":1,"a":2}"#, Limits::DEFAULT).unwrap_err();
    assert_eq!(e.to_string(), "InvalidJSON: duplicate object member name at byte 7");
    let r = e.rejection();
    assert_eq!((r.kind, r.location.offset), ("InvalidJSON", Some(7)));
    let e = json::validate(b"[", Limits::DEFAULT).unwrap_err();
    assert_eq!((e.reason, e.offset), (Reason::UnexpectedEnd(Expected::Value), 1));
}

#[test]
fn ijson_text_check_matches_parser() {
    assert!(json::is_ijson_text("plain é 😀"));
    assert!(!json::is_ijson_text("bad \u{FFFE}"));
}

/// Draining `next_event` to the end, the way any event consumer reads.
fn drain(input: &[u8], limits: Limits) -> Result<(), json::Error> {
    let mut p = Parser::new(input, limits)?;
    while p.next_event()?.is_some() {}
    Ok(())
}

/// `validate` reads with `Parser::skip_to_end`, which keeps its place in the grammar in the
/// control flow instead of the event state machine. It must give exactly the outcome and
/// offset of draining the events, and of `parse`, on every corpus file and on documents
/// that end inside each kind of container, at several depth limits.
#[test]
fn skip_to_end_agrees_with_draining_events() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../hostile-corpus/json");
    let mut inputs: Vec<Vec<u8>> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| std::fs::read(e.unwrap().path()).unwrap())
        .collect();
    assert!(inputs.len() >= 100, "corpus at {}", dir.display());
    for extra in [
        "[",
        "{",
        "[1",
        "{\"a\"",
        "{\"a\":",
        "{\"a\":1",
        "{\"a\":1,",
        "[1,",
        "[[]",
        "[{}",
        "{\"a\":[]",
        "{\"a\":{}",
        "[1 2]",
        "{\"a\" 1}",
        "{1:2}",
        "[,1]",
        "{,}",
        "[1,]",
        "{\"a\":1,}",
        "[]]",
        "{}}",
        "[] x",
        "{\"a\":[1,{\"b\":[]}]} ",
        " [ { \"a\" : [ 1 , 2 ] , \"b\" : { } } ] ",
        "{\"a\":1,\"a\":2}",
        "[{\"a\":1},{\"a\":2}]",
        "\"x\"",
        "tru",
        "nul",
    ] {
        inputs.push(extra.as_bytes().to_vec());
    }
    // `validate` checks UTF-8 inside strings as it reads them; an ill-formed sequence
    // anywhere must still win over every other problem, as in the whole-input check
    // the event parser makes first (§1.1).
    for extra in [
        &b"[1,}\xff"[..],
        b"[\"\xff\"]",
        b"[\"\xc3\xa9\", \xff]",
        b"[\"\xe2\x82\"]",
        b"[\"a\xe2\x82",
        b"[\"\xc3\xa9a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"]",
        b"[\"\xef\xbf\xbf\"]",
        b"[\"\xef\xbf\xbf\xff\"]",
        b"{\"\xc3\xa9\\u0041\":1,\"\xc3\xa9A\":2}",
        b"{\"\xc3\xa9\\u0041\":1,\"\xc3\xa9B\":2}",
        b"[1] \xff",
        b"\xff",
        b"[[[\xff",
        b"[[[\"\xed\xa0\x80\"]]]",
        b"{\"a\":1,\"a\":2,\"\xc0\xaf\":3}",
    ] {
        inputs.push(extra.to_vec());
    }
    for input in &inputs {
        for depth in [0, 1, 2, 3, 1024] {
            let limits = Limits {
                max_bytes: Limits::DEFAULT.max_bytes,
                max_depth: depth,
                ..Limits::DEFAULT
            };
            let fast = json::validate(input, limits);
            assert_eq!(
                fast,
                drain(input, limits),
                "{:?} depth {depth}",
                String::from_utf8_lossy(input)
            );
            assert_eq!(fast, json::parse(input, limits).map(|_| ()));
        }
    }
}

/// Building and dropping a value nested far deeper than any format allows needs no stack
/// per level (`spec/json.md` §8): both run on a 64 KiB thread.
#[test]
fn deep_values_build_and_drop_on_a_small_stack() {
    let depth = 200_000;
    let doc = format!("{}{}{}", "[{\"a\":".repeat(depth), "1", "}]".repeat(depth));
    let limits = Limits {
        max_bytes: Limits::DEFAULT.max_bytes,
        max_depth: 2 * depth,
        ..Limits::DEFAULT
    };
    std::thread::Builder::new()
        .stack_size(64 << 10)
        .spawn(move || {
            let value = json::parse(doc.as_bytes(), limits).unwrap();
            assert!(matches!(value.node, Node::Array(_)));
            drop(value);
        })
        .unwrap()
        .join()
        .unwrap();
}

/// Between any two tokens, exactly space, tab, line feed and carriage return are skipped
/// (`spec/json.md` §2); every other byte up to `!` is rejected at its own offset, by both
/// the event parser and `validate`, and whitespace runs of any length are stepped over.
#[test]
fn only_the_four_whitespace_bytes_separate_tokens() {
    let doc = br#"[1,{"a":2,"b":[true,"x"]},null]"#;
    let gaps: Vec<usize> = (0..=doc.len()).collect();
    for b in 0u8..=b'!' {
        let is_space = matches!(b, b' ' | b'\t' | b'\n' | b'\r');
        for &gap in &gaps {
            for run in [1usize, 9] {
                let mut input = doc.to_vec();
                input.splice(gap..gap, core::iter::repeat_n(b, run));
                // Inside a name or the string "x", a byte is content, not a separator;
                // inside `true` or `null` it breaks the literal, reported at its start.
                let in_string = matches!(gap, 5 | 6 | 11 | 12 | 21 | 22);
                let expected = match gap {
                    16..=18 => 15,
                    27..=29 => 26,
                    _ => gap,
                };
                let validated = json::validate(&input, Limits::DEFAULT);
                let parsed = json::parse(&input, Limits::DEFAULT);
                assert_eq!(validated.is_ok(), parsed.is_ok(), "byte {b:#04x} at {gap}");
                if is_space && !in_string && expected == gap {
                    assert!(validated.is_ok(), "byte {b:#04x} run {run} at {gap}");
                } else if !in_string {
                    assert_eq!(validated.unwrap_err().offset, expected, "byte {b:#04x} at {gap}");
                }
            }
        }
    }
}

/// After a high-surrogate escape, a following backslash starts an escape that is checked
/// as an escape first, whatever its letter (`spec/json.md` §3.4): a malformed one is
/// `InvalidEscape` at its own backslash, a well-formed one that is not a low surrogate
/// leaves the high one unpaired. Every reader gives the same answer.
#[test]
fn escape_after_high_surrogate_is_checked_as_an_escape_first() {
    let cases: [(&str, Reason, usize); 9] = [
        (r#""\uD800\x41""#, Reason::InvalidEscape, 7),
        (r#""\uD800\'""#, Reason::InvalidEscape, 7),
        (r#""\uD800\U0041""#, Reason::InvalidEscape, 7),
        ("\"\\uD800\\", Reason::InvalidEscape, 7),
        (r#""\uD800\uZZZZ""#, Reason::InvalidEscape, 7),
        (r#""\uD800\u00""#, Reason::InvalidEscape, 7),
        (r#""\uD800\n""#, Reason::UnpairedSurrogate, 1),
        (r#""\uD800\u0041""#, Reason::UnpairedSurrogate, 1),
        (r#""\uD800x\uDC00""#, Reason::UnpairedSurrogate, 1),
    ];
    for (doc, reason, offset) in cases {
        for got in [
            json::validate(doc.as_bytes(), Limits::DEFAULT),
            json::parse(doc.as_bytes(), Limits::DEFAULT).map(|_| ()),
            drain(doc.as_bytes(), Limits::DEFAULT),
        ] {
            let e = got.unwrap_err();
            assert_eq!((e.reason, e.offset), (reason, offset), "{doc}");
        }
    }
}

/// A UTF-8 error anywhere wins over the byte-order mark at the start, as over every other
/// problem but the size limit (`spec/json.md` §1.1, §1.2), in every reader.
#[test]
fn utf8_error_wins_over_byte_order_mark() {
    let cases: [(&[u8], Reason, usize); 3] = [
        (
            b"\xEF\xBB\xBF\xFF",
            Reason::InvalidUtf8(Utf8Problem::InvalidLeadByte),
            3,
        ),
        (
            b"\xEF\xBB\xBF[\"\xC3\"]",
            Reason::InvalidUtf8(Utf8Problem::Truncated),
            5,
        ),
        (b"\xEF\xBB\xBF[\"\xC3\xA9\"]", Reason::ByteOrderMark, 0),
    ];
    for (doc, reason, offset) in cases {
        for got in [
            json::validate(doc, Limits::DEFAULT),
            json::parse(doc, Limits::DEFAULT).map(|_| ()),
            drain(doc, Limits::DEFAULT),
        ] {
            let e = got.unwrap_err();
            assert_eq!((e.reason, e.offset), (reason, offset), "{doc:?}");
        }
    }
    // The size limit still comes first.
    let small = Limits {
        max_bytes: 2,
        ..Limits::DEFAULT
    };
    let e = json::validate(b"\xEF\xBB\xBF\xFF", small).unwrap_err();
    assert_eq!((e.reason, e.offset), (Reason::TooLarge, 2));
}

/// A parser that has failed keeps failing with the same error (`spec/json.md` §7.1), at
/// every later call and through `skip_to_end`; it does not read on from where it stopped
/// (here the name `a`, already recorded, would come back as its own duplicate).
#[test]
fn a_failed_parser_repeats_its_error() {
    for doc in [&br#"{"a" 1}"#[..], br#"{"a":1,"a"}"#, b"[1,}", b"[[[1]]]"] {
        let limits = Limits {
            max_depth: 2,
            ..Limits::DEFAULT
        };
        let mut p = Parser::new(doc, limits).unwrap();
        let first = loop {
            match p.next_event() {
                Ok(Some(_)) => {}
                Ok(None) => panic!("{doc:?} accepted"),
                Err(e) => break e,
            }
        };
        for _ in 0..3 {
            assert_eq!(p.next_event(), Err(first), "{doc:?}");
        }
        assert_eq!(p.skip_to_end(), Err(first), "{doc:?}");
        // The same through `skip_to_end` from the start.
        let mut p = Parser::new(doc, limits).unwrap();
        assert_eq!(p.skip_to_end(), Err(first), "{doc:?}");
        assert_eq!(p.next_event(), Err(first), "{doc:?}");
        assert_eq!(p.skip_to_end(), Err(first), "{doc:?}");
    }
}
