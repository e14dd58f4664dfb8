//! The member planner's pairs (`spec/mlbundle.md` §12.0): a bundle read through a join that
//! offers two SHA-256 lanes (the processor's SHA extensions through `modelgate_io`'s
//! `Threads`, or lanes in turn) reports exactly what the serial `read_container` reports,
//! whatever the members' sizes (empty, equal, one block apart, across a 64 KiB chunk),
//! methods (stored, deflated, mixed), count (two to five members beside the manifest) and
//! faults (a CRC-32, a manifest digest or size, a truncated stream, invalid JSON), in the
//! first, the second or both members of a pair, with either plan and either order.

use modelgate_core::digest::lanes::{Block, CompressPair, in_turn};
use modelgate_core::join::{Join, Reversed, Serial};
use modelgate_core::mlbundle::{
    ArchiveLimits, Container, Error, MemberName, Recipe, read_container, read_container_with,
};
use modelgate_corpus_gen::deflate::pseudorandom;
use modelgate_corpus_gen::mlbundle::zip::{Member, Zip, written};
use modelgate_corpus_gen::mlbundle::{SAMPLES, SCHEMA, manifest_for};
use modelgate_io::threads::Threads;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What a read reports, comparable: the error, or the accepted members and listing.
fn outcome(r: Result<Container, Error>) -> Result<String, Error> {
    r.map(|c| format!("{:?} {:?} {:?}", c.members, c.listing, c.inputs))
}

/// A join on one thread with a chosen order, `parallel` answer and lanes.
struct Custom {
    parallel: bool,
    reversed: bool,
    lanes: Option<CompressPair>,
}

impl Join for Custom {
    fn parallel(&self) -> bool {
        self.parallel
    }

    fn sha256_pair(&self) -> Option<CompressPair> {
        self.lanes
    }

    fn join<A: Send, B: Send>(&self, a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B + Send) -> (A, B) {
        if self.reversed {
            Reversed::default().join(a, b)
        } else {
            Serial.join(a, b)
        }
    }
}

/// Pair compressions through [`counted`].
static PAIRS: AtomicUsize = AtomicUsize::new(0);

/// The processor's lanes (or lanes in turn), counting its calls in [`PAIRS`].
fn counted(state_a: &mut [u32; 8], state_b: &mut [u32; 8], a: &[Block], b: &[Block]) {
    PAIRS.fetch_add(1, Ordering::Relaxed);
    modelgate_io::sha_lanes::compress_pair().unwrap_or(in_turn)(state_a, state_b, a, b);
}

/// Asserts that every join gives the serial outcome for `bytes`; returns it.
fn same_everywhere(bytes: &[u8], what: &str) -> Result<String, Error> {
    let limits = ArchiveLimits::DEFAULT;
    let serial = outcome(read_container(bytes, &limits));
    let threads = Threads { min_work: 0 };
    for lane in [None, Some(in_turn as CompressPair), Some(counted as CompressPair)] {
        for parallel in [false, true] {
            for reversed in [false, true] {
                let join = Custom {
                    parallel,
                    reversed,
                    lanes: lane,
                };
                assert_eq!(
                    outcome(read_container_with(bytes, &limits, &join)),
                    serial,
                    "{what}: lanes {}, parallel {parallel}, reversed {reversed}",
                    lane.is_some()
                );
            }
        }
    }
    assert_eq!(
        outcome(read_container_with(bytes, &limits, &threads)),
        serial,
        "{what}: Threads"
    );
    serial
}

/// One fault in one member.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fault {
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
fn bundle(recipe: Recipe, members: &[(&str, Vec<u8>, bool, Option<Fault>)]) -> Vec<u8> {
    // What the manifest records: another digest for a `Digest` fault.
    let recorded: Vec<(&str, Vec<u8>)> = members
        .iter()
        .map(|(n, b, _, f)| {
            let mut r = b.clone();
            if *f == Some(Fault::Digest) {
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
        if *f == Some(Fault::Size) {
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
        let crc = *f == Some(Fault::Crc) || (*f == Some(Fault::Truncated) && *stored);
        if crc && !b.is_empty() {
            // A stream of the right length whose CRC-32 is not the member's.
            let mut other = b.clone();
            if let Some(x) = other.last_mut() {
                *x ^= 1;
            }
            m.stream = Some(if *stored { other } else { written(&other) });
        } else if *f == Some(Fault::Truncated) && !*stored {
            let s = written(b);
            m.stream = Some(s[..s.len().saturating_sub(2)].to_vec());
        }
        zip.push(m);
    }
    Zip::new(zip).build().0
}

/// A deterministic xorshift64 generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A `structure.json` of about `len` bytes.
fn structure(len: usize, seed: u64) -> Vec<u8> {
    let pad: String = pseudorandom(len / 2, seed).iter().map(|b| format!("{b:02x}")).collect();
    format!(r#"{{"pad":"{pad}","trees":[]}}"#).into_bytes()
}

/// Random bundles of two to five members, random sizes (among them empty, equal, one block
/// apart and across a chunk), random methods and up to two random faults: every join,
/// with and without lanes (the SHA extensions', when the processor has them), one worker
/// or two, either order, reports what the serial read reports.
#[test]
fn random_bundles_read_the_same_with_and_without_lanes() {
    const SIZES: [usize; 10] = [0, 1, 55, 64, 128, 4096, 65_535, 65_536, 65_600, 70_000];
    let mut rng = Rng(0x1a2b_3c4d_5e6f);
    let mut accepted = 0;
    for case in 0..60 {
        let composite = rng.below(2) == 1;
        let mut members: Vec<(&str, Vec<u8>, bool, Option<Fault>)> = Vec::new();
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
        let faults = [Fault::Crc, Fault::Digest, Fault::Size, Fault::Truncated];
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
    // The pair tasks ran (and with them the lanes), not only single reads.
    assert!(PAIRS.load(Ordering::Relaxed) > 50, "{PAIRS:?}");
}
