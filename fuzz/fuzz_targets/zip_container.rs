//! The strict ZIP reader (`spec/mlbundle.md` §2, §4): never panics; an accepted archive's
//! records tile it (every member's data lies inside the archive, ranges do not overlap and
//! end before the directory); reading a member gives exactly its declared size.
#![no_main]

use libfuzzer_sys::fuzz_target;
use modelgate_core::mlbundle::names::NAMES;
use modelgate_core::zip::{Archive, read_member};

/// Largest declared member size this target reads (the caller's limit).
const MAX_MEMBER: u64 = 16 << 20;

fuzz_target!(|data: &[u8]| {
    let Ok(archive) = Archive::parse(data, &NAMES, 6) else { return };
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
        if e.central.uncompressed > MAX_MEMBER {
            continue;
        }
        if let Ok((bytes, _)) = read_member(data, e) {
            assert_eq!(bytes.len() as u64, e.central.uncompressed);
        }
    }
});
