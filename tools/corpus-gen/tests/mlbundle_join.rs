//! `read_container` through any join reports exactly what the serial read reports
//! (`spec/mlbundle.md` §12.0), whatever runs the two halves of the member work (the reads,
//! and the JSON checks): a join on one thread in either order (running the checking half
//! first records its failures before the reading half starts, deterministically), and
//! std-io's `Threads` with no minimum work (a real second thread even for the corpus's small
//! files). Inputs: every mlbundle corpus file; bundles with several faults at once in
//! different members and stages, stored and deflated; and random bundles of two to five
//! members beside the manifest, of sizes empty, equal, one block apart and across a 64 KiB
//! chunk, stored, deflated or mixed, with faults (a CRC-32, a manifest digest or size, a
//! truncated stream) in one or two members.

use modelgate_core::join::{Join, Reversed, Serial};
use modelgate_core::mlbundle::{ArchiveLimits, Container, Error, MemberName, ReadOptions, Recipe, read_container};
use modelgate_corpus_gen::mlbundle::zip::{Member, Zip, written};
use modelgate_corpus_gen::mlbundle::{self, SAMPLES, SCHEMA, manifest_for};
use modelgate_corpus_gen::rng::{Rng, pseudorandom};
use modelgate_io::threads::Threads;

/// What a read reports, comparable: the error, or the accepted members and listing.
fn outcome(r: Result<Container, Error>) -> Result<String, Error> {
    r.map(|c| format!("{:?} {:?} {:?}", c.members, c.listing, c.inputs))
}

/// Asserts that every join gives the serial outcome for `bytes`: in order, reversed, and
/// `Threads` with no minimum work; returns it.
fn same_everywhere(bytes: &[u8], what: &str) -> Result<String, Error> {
    let limits = ArchiveLimits::DEFAULT;
    let serial = outcome(read_container(bytes, &limits));
    assert_eq!(
        outcome(read_container(
            bytes,
            ReadOptions {
                limits: &limits,
                join: Serial
            }
        )),
        serial,
        "{what}: Serial"
    );
    assert_eq!(
        outcome(read_container(
            bytes,
            ReadOptions {
                limits: &limits,
                join: Reversed
            }
        )),
        serial,
        "{what}: Reversed"
    );
    let threads = Threads { min_work: 0 };
    assert_eq!(
        outcome(read_container(
            bytes,
            ReadOptions {
                limits: &limits,
                join: threads
            }
        )),
        serial,
        "{what}: Threads"
    );
    serial
}

#[test]
fn every_corpus_file_reads_the_same_through_every_join() {
    let files = mlbundle::files();
    assert!(files.len() > 200, "{}", files.len());
    for f in &files {
        let _ = same_everywhere(&f.bytes, &f.path);
    }
}

/// Faults that may be combined, each in a different member or stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fault {
    /// `model.cbm`'s data does not match its CRC-32 (a read failure, §4.2).
    ModelCrc,
    /// `structure.json`'s data does not match its CRC-32.
    StructureCrc,
    /// `model.cbm`'s integrity record has another digest (§7).
    ModelRecord,
    /// `schema.json` is not JSON (§8.1).
    SchemaJson,
    /// `structure.json` is not JSON.
    StructureJson,
    /// `samples.json` is not JSON.
    SamplesJson,
}

const FAULTS: [Fault; 6] = [
    Fault::ModelCrc,
    Fault::StructureCrc,
    Fault::ModelRecord,
    Fault::SchemaJson,
    Fault::StructureJson,
    Fault::SamplesJson,
];

/// The mask bit of `f`.
fn bit(f: Fault) -> u32 {
    FAULTS.iter().position(|g| *g == f).map_or(0, |i| 1 << i)
}

/// Gives `m` a stream of the right length whose CRC-32 is not the member's (its last byte
/// changed), stored or deflated as `m` is.
fn wrong_crc(m: &mut Member) {
    let mut other = m.data.clone();
    if let Some(b) = other.last_mut() {
        *b ^= 1;
    }
    m.stream = Some(if m.method == 0 { other } else { written(&other) });
}

/// A bundle of model.cbm, schema, structure and samples with the faults in `mask`
/// (see [`bit`]), every member stored or deflated, `model_len` bytes of model and
/// `structure_pad` bytes of structure padding (so that either half may finish first).
fn faulty(mask: u32, stored: bool, model_len: usize, structure_pad: usize) -> Vec<u8> {
    faulty_with(mask, &|_| stored, model_len, structure_pad)
}

/// [`faulty`] with each member stored when `stored(member index)` says so.
fn faulty_with(mask: u32, stored: &dyn Fn(usize) -> bool, model_len: usize, structure_pad: usize) -> Vec<u8> {
    let has = |f: Fault| mask & bit(f) != 0;
    let model = pseudorandom(model_len, 0x6a6f696e);
    let broken_json = |good: &[u8]| [good, b",".as_slice()].concat();
    let pad: String = pseudorandom(structure_pad / 2, 0x706164)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let mut structure = format!(r#"{{"pad":"{pad}","trees":[]}}"#).into_bytes();
    if has(Fault::StructureJson) {
        structure = broken_json(&structure);
    }
    let schema = if has(Fault::SchemaJson) {
        broken_json(SCHEMA)
    } else {
        SCHEMA.to_vec()
    };
    let samples = if has(Fault::SamplesJson) {
        broken_json(SAMPLES)
    } else {
        SAMPLES.to_vec()
    };
    let recorded_model = if has(Fault::ModelRecord) {
        b"other".to_vec()
    } else {
        model.clone()
    };
    let manifest = manifest_for(
        Recipe::Standalone(MemberName::ModelCbm),
        &[
            ("model.cbm", &recorded_model),
            ("schema.json", &schema),
            ("structure.json", &structure),
            ("samples.json", &samples),
        ],
    );
    let mut members = vec![
        Member::new("manifest.json", manifest.as_bytes()),
        Member::new("model.cbm", &model),
        Member::new("schema.json", &schema),
        Member::new("structure.json", &structure),
        Member::new("samples.json", &samples),
    ];
    members = members
        .into_iter()
        .enumerate()
        .map(|(i, m)| if stored(i) { m.stored() } else { m })
        .collect();
    if has(Fault::ModelCrc) {
        wrong_crc(&mut members[1]);
    }
    if has(Fault::StructureCrc) {
        wrong_crc(&mut members[3]);
    }
    Zip::new(members).build().0
}

#[test]
fn several_faults_are_reported_in_the_serial_order_through_every_join() {
    for stored in [true, false] {
        for (model_len, pad) in [(60_000, 1_000), (1_000, 100_000), (40_000, 40_000)] {
            for mask in 0..(1u32 << FAULTS.len()) {
                let bytes = faulty(mask, stored, model_len, pad);
                let what = format!("mask {mask:06b}, stored {stored}, model {model_len}, pad {pad}");
                let got = same_everywhere(&bytes, &what);
                assert_eq!(got.is_ok(), mask == 0, "{what}: {got:?}");
            }
        }
    }
}

/// The first fault in the serial order wins: reads in member order, then integrity, then
/// the JSON members in member order.
#[test]
fn the_serial_order_decides_which_fault_is_reported() {
    let cases = [
        (
            bit(Fault::StructureJson) | bit(Fault::ModelCrc),
            "InvalidContainer",
            "model.cbm",
        ),
        (
            bit(Fault::StructureCrc) | bit(Fault::SchemaJson),
            "InvalidContainer",
            "structure.json",
        ),
        (
            bit(Fault::StructureJson) | bit(Fault::ModelRecord),
            "IntegrityMismatch",
            "model.cbm",
        ),
        (
            bit(Fault::StructureJson) | bit(Fault::SchemaJson),
            "InvalidJSON",
            "schema.json",
        ),
        (
            bit(Fault::StructureJson) | bit(Fault::SamplesJson),
            "InvalidJSON",
            "structure.json",
        ),
    ];
    for stored in [true, false] {
        for (mask, kind, member) in cases {
            let e = same_everywhere(&faulty(mask, stored, 40_000, 40_000), "case").unwrap_err();
            let named = e.member.map(MemberName::as_str).or(e.location.member.as_deref());
            assert_eq!((e.kind.name(), named), (kind, Some(member)), "{e:?}");
        }
    }
}

/// Counts its joins; runs both halves in order.
struct Counting {
    calls: std::sync::atomic::AtomicUsize,
    min_work: u64,
}

impl Join for Counting {
    fn min_work(&self) -> u64 {
        self.min_work
    }

    fn join<A: Send, B: Send>(&self, a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B + Send) -> (A, B) {
        self.calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Serial.join(a, b)
    }
}

/// The member work is one join, stored or deflated (`spec/mlbundle.md` §12.0), unless the
/// join asks for more work than the lighter half has: then both halves run without it, with
/// the same outcome.
#[test]
fn the_member_work_is_one_join_when_both_halves_are_worth_it() {
    for stored in [false, true] {
        let bytes = faulty(0, stored, 40_000, 40_000);
        let serial = outcome(read_container(&bytes, &ArchiveLimits::DEFAULT));
        assert!(serial.is_ok());
        // The lighter half, the JSON checks, has some 40 kB of structure.json.
        for (min_work, joins) in [(0, 1), (40_000, 1), (50_000, 0)] {
            let join = Counting {
                calls: Default::default(),
                min_work,
            };
            let got = outcome(read_container(
                &bytes,
                ReadOptions {
                    limits: &ArchiveLimits::DEFAULT,
                    join: &join,
                },
            ));
            assert_eq!(got, serial, "stored {stored}, min_work {min_work}");
            assert_eq!(join.calls.into_inner(), joins, "stored {stored}, min_work {min_work}");
        }
    }
}

/// A stored member is handed out where it lies in the archive bytes, never copied, through
/// every join; a deflated member is its own buffer (`spec/mlbundle.md` §4.2), also when one
/// bundle mixes both. `into_owned` keeps every byte and owns them all.
#[test]
fn stored_members_are_views_of_the_archive() {
    use std::borrow::Cow;
    let limits = ArchiveLimits::DEFAULT;
    let methods: [&dyn Fn(usize) -> bool; 4] = [&|_| true, &|_| false, &|i| i % 2 == 0, &|i| i % 2 == 1];
    for stored in methods {
        let bytes = faulty_with(0, stored, 60_000, 40_000);
        let range = bytes.as_ptr_range();
        let reads = [
            read_container(&bytes, &limits).unwrap(),
            read_container(
                &bytes,
                ReadOptions {
                    limits: &limits,
                    join: Reversed,
                },
            )
            .unwrap(),
            read_container(
                &bytes,
                ReadOptions {
                    limits: &limits,
                    join: Threads { min_work: 0 },
                },
            )
            .unwrap(),
        ];
        for c in reads {
            assert_eq!(c.members.len(), 5);
            for (name, member) in &c.members {
                let inside = range.contains(&member.as_ptr());
                let local = [
                    "manifest.json",
                    "model.cbm",
                    "schema.json",
                    "structure.json",
                    "samples.json",
                ]
                .iter()
                .position(|n| *n == name.as_str())
                .unwrap();
                let is_stored = stored(local);
                match member {
                    Cow::Borrowed(_) => assert!(is_stored && inside, "{name:?}"),
                    Cow::Owned(_) => assert!(!is_stored && !inside, "{name:?}"),
                }
            }
            let owned = c.clone().into_owned().unwrap();
            assert_eq!(owned.members, c.members);
            assert!(owned.members.values().all(|m| matches!(m, Cow::Owned(_))));
        }
    }
}

/// One fault in one member.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MemberFault {
    /// The data does not match its CRC-32 (§4.2).
    Crc,
    /// The manifest records another SHA-256 (§7).
    Digest,
    /// The manifest records another size (§7).
    Size,
    /// The deflated stream ends early (stored members: a CRC-32 fault instead).
    Truncated,
}

/// Builds a bundle: `members` are (name, bytes, stored, fault), the model(s) first.
fn bundle(recipe: Recipe, members: &[(&str, Vec<u8>, bool, Option<MemberFault>)]) -> Vec<u8> {
    // What the manifest records: another digest for a `Digest` fault.
    let recorded: Vec<(&str, Vec<u8>)> = members
        .iter()
        .map(|(n, b, _, f)| {
            let mut r = b.clone();
            if *f == Some(MemberFault::Digest) {
                match r.first_mut() {
                    Some(x) => *x ^= 0x20,
                    None => r = b"x".to_vec(),
                }
            }
            (*n, r)
        })
        .collect();
    let as_refs: Vec<(&str, &[u8])> = recorded.iter().map(|(n, b)| (*n, b.as_slice())).collect();
    let mut manifest = manifest_for(recipe, &as_refs);
    for (n, b, _, f) in members {
        if *f == Some(MemberFault::Size) {
            let from = format!("\"size\":{}", b.len());
            let to = format!("\"size\":{}", b.len() + 1);
            let at = manifest.find(&format!("\"{n}\"")).expect("member in manifest");
            let rel = manifest[at..].find(&from).expect("size in manifest");
            manifest.replace_range(at + rel..at + rel + from.len(), &to);
        }
    }
    let mut zip = vec![Member::new("manifest.json", manifest.as_bytes())];
    for (n, b, stored, f) in members {
        let mut m = Member::new(n, b);
        if *stored {
            m = m.stored();
        }
        let crc = *f == Some(MemberFault::Crc) || (*f == Some(MemberFault::Truncated) && *stored);
        if crc && !b.is_empty() {
            wrong_crc(&mut m);
        } else if *f == Some(MemberFault::Truncated) && !*stored {
            let s = written(b);
            m.stream = Some(s[..s.len().saturating_sub(2)].to_vec());
        }
        zip.push(m);
    }
    Zip::new(zip).build().0
}

/// A `structure.json` of about `len` bytes.
fn structure(len: usize, seed: u64) -> Vec<u8> {
    let pad: String = pseudorandom(len / 2, seed).iter().map(|b| format!("{b:02x}")).collect();
    format!(r#"{{"pad":"{pad}","trees":[]}}"#).into_bytes()
}

/// Random bundles of two to five members, random sizes (among them empty, equal, one block
/// apart and across a chunk), random methods and up to two random faults: every join
/// reports what the serial read reports.
#[test]
fn random_bundles_read_the_same_through_every_join() {
    const SIZES: [usize; 10] = [0, 1, 55, 64, 128, 4096, 65_535, 65_536, 65_600, 70_000];
    let mut rng = Rng::new(0x1a2b_3c4d_5e6f);
    let mut accepted = 0;
    for case in 0..60 {
        let composite = rng.below(2) == 1;
        let mut members: Vec<(&str, Vec<u8>, bool, Option<MemberFault>)> = Vec::new();
        let size = |rng: &mut Rng| SIZES[rng.below(SIZES.len())];
        let s1 = size(&mut rng);
        // Half the time the second model has the first's size, or one block more.
        let s2 = match rng.below(4) {
            0 => s1,
            1 => s1 + 64,
            _ => size(&mut rng),
        };
        let recipe = if composite {
            members.push(("model.skops", pseudorandom(s1, 1 + case), false, None));
            members.push(("model.cbm", pseudorandom(s2, 2 + case), false, None));
            Recipe::Composite(MemberName::ModelCbm)
        } else {
            members.push(("model.onnx", pseudorandom(s1, 3 + case), false, None));
            Recipe::Standalone(MemberName::ModelOnnx)
        };
        members.push(("schema.json", SCHEMA.to_vec(), false, None));
        if rng.below(3) != 0 {
            let len = match rng.below(3) {
                0 => s1,
                _ => size(&mut rng),
            };
            members.push(("structure.json", structure(len, 5 + case), false, None));
        }
        if rng.below(2) == 0 {
            members.push(("samples.json", SAMPLES.to_vec(), false, None));
        }
        let all_stored = rng.below(3);
        for m in &mut members {
            m.2 = match all_stored {
                0 => true,
                1 => false,
                _ => rng.below(2) == 0,
            };
        }
        let faults = [
            MemberFault::Crc,
            MemberFault::Digest,
            MemberFault::Size,
            MemberFault::Truncated,
        ];
        for _ in 0..rng.below(3) {
            let i = rng.below(members.len());
            members[i].3 = Some(faults[rng.below(faults.len())]);
        }
        let what = format!(
            "case {case}: {:?}",
            members
                .iter()
                .map(|(n, b, s, f)| (*n, b.len(), *s, *f))
                .collect::<Vec<_>>()
        );
        let bytes = bundle(recipe, &members);
        let got = same_everywhere(&bytes, &what);
        if got.is_ok() {
            accepted += 1;
        }
        let faulty = members.iter().any(|m| m.3.is_some());
        if !faulty {
            assert!(got.is_ok(), "{what}: {got:?}");
        }
    }
    assert!(accepted > 10, "{accepted}");
}

/// A `structure.json` of `trees` trees of nested nodes, 2.5 MiB for 22,000 trees: large
/// enough that `Threads::DEFAULT` starts a thread for the checking half.
fn forest(trees: usize) -> String {
    let tree = |i: usize| {
        format!(
            r#"{{"split":{i},"gain":0.5,"left":{{"leaf":-1.25,"count":{i}}},"right":{{"split":7,"left":{{"leaf":0.5}},"right":{{"leaf":2}}}}}}"#
        )
    };
    let all: Vec<String> = (0..trees).map(tree).collect();
    format!(r#"{{"version":1,"trees":[{}],"features":["a","b"]}}"#, all.join(","))
}

/// A stored `structure.json` of 2.5 MiB, checked beside the 1 MiB model's read: valid, or
/// broken early or late, or with a root name repeated, alone and with a fault in the model.
/// Every join, `Threads::DEFAULT` among them, reports the serial verdict.
#[test]
fn a_large_stored_structure_reads_the_same_through_every_join() {
    let good = forest(22_000);
    assert!(good.len() > 2 << 20, "{}", good.len());
    let late = good.len() * 3 / 4;
    let variants = [
        ("valid", good.clone()),
        ("early syntax error", good.replacen(r#""gain":0.5"#, r#""gain":.5"#, 1)),
        (
            "late syntax error",
            format!(
                "{}{}",
                &good[..late],
                &good[late..].replacen(r#""leaf":2"#, r#""leaf":02"#, 1)
            ),
        ),
        ("root name repeated", good.replacen(r#""features""#, r#""version""#, 1)),
        (
            "late deep nesting",
            good.replacen(r#"["a","b"]"#, &format!("{}{}", "[".repeat(300), "]".repeat(300)), 1),
        ),
        ("unclosed", good[..good.len() - 1].to_string()),
    ];
    let mut accepted = 0;
    for (what, structure) in &variants {
        for fault in [None, Some(MemberFault::Crc)] {
            let members = [
                ("model.cbm", pseudorandom(1 << 20, 0x77), true, fault),
                ("schema.json", SCHEMA.to_vec(), true, None),
                ("structure.json", structure.clone().into_bytes(), true, None),
            ];
            let bytes = bundle(Recipe::Standalone(MemberName::ModelCbm), &members);
            let serial = same_everywhere(&bytes, what);
            let threads = outcome(read_container(
                &bytes,
                ReadOptions {
                    limits: &ArchiveLimits::DEFAULT,
                    join: Threads::DEFAULT,
                },
            ));
            assert_eq!(threads, serial, "{what} {fault:?}: Threads::DEFAULT");
            accepted += usize::from(serial.is_ok());
            let expect_ok = *what == "valid" && fault.is_none();
            assert_eq!(serial.is_ok(), expect_ok, "{what} {fault:?}: {serial:?}");
        }
    }
    assert_eq!(accepted, 1);
}
