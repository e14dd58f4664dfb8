//! `read_container` (`spec/mlbundle.md` §2–§8): never panics; an accepted bundle's members
//! match their integrity records; inspection agrees with reading; lowering a limit never
//! turns a rejection into acceptance; a read through a join that runs the second
//! half of the member work (the JSON checks) first reports exactly the same (§12.0).
//!
//! Allocation (the counting allocator, `modelgate_corpus_gen::counting`): the declared-size
//! checks of §3.3–§3.4 come before any member buffer is reserved, so what `read_container`
//! asks of the heap is bounded by what the limits admit of this input: a member's buffer is
//! at most min(declared size, its cap, ratio × compressed size), the manifest's value tree
//! at most [`JSON_HEAP_PER_BYTE`] times its size, the checks of the other JSON members, which
//! build no value (§8.1), at most [`CHECK_HEAP_PER_BYTE`] times theirs, plus a fixed
//! [`FIXED_HEAP`].
#![no_main]

use libfuzzer_sys::fuzz_target;
use modelgate_core::digest::sha256;
use modelgate_core::join::Reversed;
use modelgate_core::mlbundle::NAMES;
use modelgate_core::mlbundle::{
    ArchiveLimits, Container, Error, Limit, MemberName, ReadOptions, inspect, read_container,
};
use modelgate_core::zip::Archive;
use modelgate_corpus_gen::counting::{Counting, measure};

#[global_allocator]
static ALLOC: Counting = Counting;

/// Heap used whatever the members: the ZIP parse (at most 6 entries, about 1 KiB), the
/// inflate engine (64 KiB window ring and tables, 76,040 bytes measured), digests, the
/// listing and error messages (the seeds and a 60 s run peaked at 79,351 bytes in all).
const FIXED_HEAP: u64 = 128 << 10;

/// Heap per byte of a JSON member for its value tree: a value is a 40-byte `Value` (a
/// member a 72-byte `Member` plus a 40-byte duplicate-table name) for at least two input
/// bytes, in vectors that at most double (a one-element array reserves four), about 60
/// bytes per input byte at worst (`[[0],[0],...`), rounded up.
const JSON_HEAP_PER_BYTE: u64 = 128;

/// Heap per byte of `schema.json`, `structure.json` or `samples.json`, which are checked
/// without a value: the duplicate-name table of an object (a 24-byte name and at most four
/// 8-byte slots for a member of at least six bytes, `"a":0,`), or the §8.2 entry of a field
/// name (16 bytes and a 16-byte sort entry for a field of at least 25 bytes,
/// `{"name":"a","dtype":"bool"}`), rounded up.
const CHECK_HEAP_PER_BYTE: u64 = 16;

/// Heap per byte of member `name` beyond its buffer.
fn json_heap_per_byte(name: MemberName) -> u64 {
    match name {
        MemberName::Manifest => JSON_HEAP_PER_BYTE,
        MemberName::Schema | MemberName::Structure | MemberName::Samples => CHECK_HEAP_PER_BYTE,
        _ => 0,
    }
}

/// (largest single allocation, peak live bytes) that reading `data` under `limits` may
/// need: nothing beyond [`FIXED_HEAP`] unless the directory parses, then per named entry
/// the buffer its limits admit and, for JSON members, the value tree.
fn heap_bound(data: &[u8], limits: &ArchiveLimits) -> (u64, u64) {
    let Ok(archive) = Archive::parse(data, &NAMES, limits.get(Limit::Members)) else {
        return (FIXED_HEAP, FIXED_HEAP);
    };
    let (mut largest, mut total) = (FIXED_HEAP, FIXED_HEAP);
    for e in &archive.entries {
        let Some(name) = MemberName::from_index(e.central.name) else {
            continue;
        };
        let c = &e.central;
        let admitted = c
            .uncompressed
            .min(limits.member_cap(name))
            .min(limits.get(Limit::Ratio).saturating_mul(c.compressed));
        let tree = admitted.saturating_mul(json_heap_per_byte(name));
        largest = largest.max(admitted).max(tree);
        total = total.saturating_add(admitted).saturating_add(tree);
    }
    (largest, total)
}

/// Asserts that two reads of the same input gave the same outcome.
fn assert_same(a: &Result<Container, Error>, b: &Result<Container, Error>) {
    match (a, b) {
        (Err(x), Err(y)) => assert_eq!(x, y),
        (Ok(x), Ok(y)) => {
            assert_eq!((&x.members, &x.listing, x.inputs), (&y.members, &y.listing, y.inputs));
        }
        _ => panic!(
            "one read accepted, the other rejected: {:?} / {:?}",
            a.as_ref().err(),
            b.as_ref().err()
        ),
    }
}

fuzz_target!(|data: &[u8]| {
    let limits = ArchiveLimits::DEFAULT;
    let (read, heap) = measure(|| read_container(data, &limits));
    let (largest, peak) = heap_bound(data, &limits);
    assert!(
        heap.largest as u64 <= largest && heap.peak as u64 <= peak,
        "heap {heap:?} over the bound (largest {largest}, peak {peak})"
    );
    assert_same(
        &read,
        &read_container(
            data,
            ReadOptions {
                limits: &limits,
                join: Reversed,
            },
        ),
    );
    let view = inspect(data, &limits);
    assert_eq!(read.is_ok(), view.is_ok());
    let lowered = limits.with(Limit::Ratio, 50).unwrap();
    let Ok(c) = read else {
        assert!(read_container(data, &lowered).is_err());
        return;
    };
    for (name, bytes) in &c.members {
        if *name == MemberName::Manifest {
            continue;
        }
        let rec = c.manifest.integrity[name];
        assert_eq!(rec.size, bytes.len() as u64);
        assert_eq!(rec.sha256, sha256(bytes));
    }
    assert_eq!(view.unwrap().members, c.listing);
});
