//! JSON validation on two real threads (`spec/json.md` §10.5): whatever the two threads'
//! timing, where they meet and whether the second's record is joined, the verdict is the
//! one read's, error and offset included (§10.1). The core's tests run the same workers in
//! a fixed order; here the scheduler picks it, many times over.

use modelgate_core::json::split::{CHUNK, Meeting, validate_with};
use modelgate_core::json::{Limits, validate_keyed};
use modelgate_io::threads::Threads;
use std::thread;

const KEY: [u64; 2] = [7, 11];

const LIMITS: Limits = Limits {
    max_bytes: 64 << 20,
    max_depth: 16,
};

/// A forest of `trees` small trees: about 110 bytes each.
fn forest(trees: usize) -> String {
    let tree = |i: usize| {
        format!(r#"{{"id":{i},"gain":0.5,"left":{{"leaf":-1.5,"n":[{i},2]}},"right":{{"leaf":"x","n":[]}}}}"#)
    };
    let all: Vec<String> = (0..trees).map(tree).collect();
    format!(r#"{{"version":1,"trees":[{}],"tail":{{"a":1}}}}"#, all.join(","))
}

/// The forest, valid and broken at a quarter, half and three quarters of the way and at
/// the end, in the ways the join must catch (a repeated name in an object the second
/// worker closes, depth beyond the limit, a wrong closing bracket, trailing content).
fn documents() -> Vec<(String, String)> {
    let good = forest(40_000);
    assert!(good.len() > 2 * CHUNK);
    let at = |fraction: usize| good.len() * fraction / 4;
    let break_after = |from: usize, what: &str, with: &str| {
        let (head, tail) = good.split_at(from);
        format!("{head}{}", tail.replacen(what, with, 1))
    };
    vec![
        ("valid".into(), good.clone()),
        (
            "number at 1/4".into(),
            break_after(at(1), r#""gain":0.5"#, r#""gain":0.5."#),
        ),
        (
            "number at 1/2".into(),
            break_after(at(2), r#""gain":0.5"#, r#""gain":-"#),
        ),
        ("string at 3/4".into(), break_after(at(3), r#""x""#, "\"\u{1}\"")),
        (
            "repeated root name".into(),
            good.replacen(r#""tail""#, r#""version""#, 1),
        ),
        (
            "repeated name at 3/4".into(),
            break_after(at(3), r#""right""#, r#""left""#),
        ),
        (
            "too deep at 3/4".into(),
            break_after(
                at(3),
                r#""n":[]"#,
                &format!("\"n\":{}{}", "[".repeat(14), "]".repeat(14)),
            ),
        ),
        ("wrong bracket".into(), format!("{}]}}", &good[..good.len() - 2])),
        ("trailing".into(), format!("{good} 1")),
        (
            "noncharacter at 1/2".into(),
            break_after(at(2), r#""x""#, "\"\u{FFFE}\""),
        ),
    ]
}

#[test]
fn two_threads_give_the_one_reads_verdict_every_time() {
    let join = Threads { min_work: 0 };
    for (what, doc) in documents() {
        let whole = validate_keyed(doc.as_bytes(), LIMITS, KEY);
        assert_eq!(whole.is_ok(), what == "valid", "{what}: {whole:?}");
        for round in 0..6 {
            let split = validate_with(&join, doc.as_bytes(), LIMITS, KEY);
            assert_eq!(split, whole, "{what}, round {round}");
        }
    }
}

/// The meeting on two threads with small chunks, so that the first worker offers and the
/// second claims many times while both run, and the second sometimes starts late.
#[test]
fn the_meeting_on_two_threads_gives_the_one_reads_verdict() {
    let docs = documents();
    for (what, doc) in docs.iter().take(4) {
        let whole = validate_keyed(doc.as_bytes(), LIMITS, KEY);
        for (chunk, delay_us) in [(4096, 0), (65_536, 0), (CHUNK, 0), (4096, 300), (65_536, 3000)] {
            let meeting = Meeting::new(chunk);
            let (first, second) = thread::scope(|s| {
                let second = s.spawn(|| {
                    thread::sleep(std::time::Duration::from_micros(delay_us));
                    meeting.read_suffix(doc.as_bytes(), LIMITS, KEY)
                });
                let first = meeting.read_prefix(doc.as_bytes(), LIMITS, KEY);
                (first, second.join().expect("second worker"))
            });
            assert_eq!(
                first.finish(second.as_ref()),
                whole,
                "{what}, chunk {chunk}, delay {delay_us} µs"
            );
        }
    }
}
