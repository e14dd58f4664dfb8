//! The strict ZIP reader (`spec/mlbundle.md` §2, §4): never panics; an accepted archive's
//! records tile it (every member's data lies inside the archive, ranges do not overlap and
//! end before the directory); reading a member gives exactly its declared size.
//!
//! Allocation (the counting allocator, `modelgate_corpus_gen::counting`): parsing allocates a
//! bounded amount whatever the sizes the records declare (at most 6 entries are admitted,
//! nothing is reserved from a declared size); reading a member requests at most its declared
//! size or the inflate engine's state, and holds at most both at once.
#![no_main]

use libfuzzer_sys::fuzz_target;
use modelgate_core::mlbundle::NAMES;
use modelgate_core::zip::{Archive, read_member};
use modelgate_corpus_gen::counting::{Counting, measure};

#[global_allocator]
static ALLOC: Counting = Counting;

/// Largest declared member size this target reads (the caller's limit).
const MAX_MEMBER: u64 = 16 << 20;

/// Entries the parser admits (the mlbundle member count ceiling).
const MAX_ENTRIES: u64 = 6;

/// Heap one `Archive::parse` may use: the entry table of at most [`MAX_ENTRIES`] records,
/// the name table and the tiling order, independent of the input's length and of every
/// size it declares (the seeds and a 60 s run peaked at 1,120 bytes).
const PARSE_HEAP: usize = 8 << 10;

/// Heap of the inflate engine besides the output: its 64 KiB window ring and tables
/// (76,040 bytes measured).
const INFLATE_HEAP: usize = 128 << 10;

fuzz_target!(|data: &[u8]| {
    let (parsed, parse) = measure(|| Archive::parse(data, &NAMES, MAX_ENTRIES));
    assert!(
        parse.largest <= PARSE_HEAP && parse.peak <= PARSE_HEAP,
        "parse heap {parse:?}"
    );
    let Ok(archive) = parsed else { return };
    let mut ranges: Vec<(u64, u64)> = archive
        .entries
        .iter()
        .map(|e| (e.central.local_offset, e.local.data_end))
        .collect();
    ranges.sort();
    assert_eq!(ranges.first().map_or(archive.directory.offset, |r| r.0), 0);
    for pair in ranges.windows(2) {
        assert!(pair[0].1 <= pair[1].0, "records overlap");
    }
    for e in &archive.entries {
        assert!(e.local.data_end <= archive.directory.offset);
        // read_member allocates the declared size; callers check it against their limits
        // first (the mlbundle reader does), and so does this target.
        let declared = e.central.uncompressed;
        if declared > MAX_MEMBER {
            continue;
        }
        let (read, heap) = measure(|| read_member(data, e));
        let size = usize::try_from(declared).unwrap_or(usize::MAX);
        assert!(
            heap.largest <= size.max(INFLATE_HEAP) && heap.peak <= size + INFLATE_HEAP,
            "member of declared size {declared}: heap {heap:?}"
        );
        if let Ok((bytes, _)) = read {
            assert_eq!(bytes.len() as u64, e.central.uncompressed);
        }
    }
});
