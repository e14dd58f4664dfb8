//! `read_container_with` reports exactly what the serial `read_container` reports
//! (`spec/mlbundle.md` §12.0), whatever runs the two groups of member work: the core's
//! `Serial`, a join that runs the second group first (so its failures are recorded before
//! the first group starts, deterministically; once as one worker, which gets the fused
//! plan, and once as two, which may get the split plan) and std-io's `Threads` with no minimum work
//! (a real second thread even for the corpus's small files). Inputs: every mlbundle corpus
//! file, and bundles with several faults at once in different members and stages, stored
//! and deflated.

use modelgate_core::join::{Join, Reversed, Serial};
use modelgate_core::mlbundle::{
    ArchiveLimits, Container, Error, MemberName, Recipe, read_container, read_container_with,
};
use modelgate_corpus_gen::deflate::pseudorandom;
use modelgate_corpus_gen::mlbundle::zip::{Member, Zip};
use modelgate_corpus_gen::mlbundle::{self, SAMPLES, SCHEMA, manifest_for};
use modelgate_io::threads::Threads;

/// What a read reports, comparable: the error, or the accepted members and listing.
fn outcome(r: Result<Container, Error>) -> Result<String, Error> {
    r.map(|c| format!("{:?} {:?} {:?}", c.members, c.listing, c.inputs))
}

/// Asserts that every join gives the serial outcome for `bytes`; returns it.
fn same_everywhere(bytes: &[u8], what: &str) -> Result<String, Error> {
    let limits = ArchiveLimits::DEFAULT;
    let serial = outcome(read_container(bytes, &limits));
    assert_eq!(
        outcome(read_container_with(bytes, &limits, &Serial)),
        serial,
        "{what}: Serial"
    );
    for parallel in [false, true] {
        assert_eq!(
            outcome(read_container_with(bytes, &limits, &Reversed { parallel })),
            serial,
            "{what}: Reversed, parallel {parallel}"
        );
    }
    let threads = Threads { min_work: 0 };
    assert_eq!(
        outcome(read_container_with(bytes, &limits, &threads)),
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

/// A bundle of model.cbm, schema, structure and samples with the faults in `mask`
/// (see [`bit`]), every member stored or deflated, `model_len` bytes of model and
/// `structure_pad` bytes of structure padding (so that the groups are planned differently).
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
    // A stream of the right length whose CRC-32 is not the member's.
    let corrupt = |m: &mut Member| {
        let mut other = m.data.clone();
        if let Some(b) = other.last_mut() {
            *b ^= 1;
        }
        m.stream = Some(if m.method == 0 {
            other
        } else {
            mlbundle::zip::written(&other)
        });
    };
    if has(Fault::ModelCrc) {
        corrupt(&mut members[1]);
    }
    if has(Fault::StructureCrc) {
        corrupt(&mut members[3]);
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
}

impl Join for Counting {
    fn parallel(&self) -> bool {
        true
    }

    fn join<A: Send, B: Send>(&self, a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B + Send) -> (A, B) {
        self.calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Serial.join(a, b)
    }
}

/// Two workers get the split plan (two joins) for deflated model and structure members of
/// similar size, and the fused plan (one join) for stored ones (`spec/mlbundle.md` §12.0);
/// so the tests above run both plans.
#[test]
fn two_workers_split_a_deflated_bundle_and_fuse_a_stored_one() {
    for (stored, joins) in [(false, 2), (true, 1)] {
        let join = Counting {
            calls: Default::default(),
        };
        let bytes = faulty(0, stored, 40_000, 40_000);
        assert!(read_container_with(&bytes, &ArchiveLimits::DEFAULT, &join).is_ok());
        assert_eq!(join.calls.into_inner(), joins, "stored {stored}");
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
            read_container_with(&bytes, &limits, &Reversed { parallel: true }).unwrap(),
            read_container_with(&bytes, &limits, &Threads { min_work: 0 }).unwrap(),
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
