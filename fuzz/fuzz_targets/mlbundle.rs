//! `read_container` (`spec/mlbundle.md` §2–§8): never panics; an accepted bundle's members
//! match their integrity records; inspection agrees with reading; lowering a limit never
//! turns a rejection into acceptance.
#![no_main]

use libfuzzer_sys::fuzz_target;
use modelgate_core::digest::sha256;
use modelgate_core::mlbundle::{ArchiveLimits, Limit, MemberName, inspect, read_container};

fuzz_target!(|data: &[u8]| {
    let limits = ArchiveLimits::DEFAULT;
    let read = read_container(data, &limits);
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
