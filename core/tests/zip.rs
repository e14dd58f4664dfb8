//! The strict ZIP reader (`spec/mlbundle.md` §2, §4) at the level of `zip::Archive`: exact
//! reasons and offsets on the writer's own output with one field changed, and exhaustive
//! single-byte mutation and truncation of a whole bundle. (The hostile corpus in
//! `tools/corpus-gen/src/mlbundle.rs` covers every rule with the mlbundle kinds.)

use modelgate_core::mlbundle::NAMES;
use modelgate_core::mlbundle::{ArchiveLimits, Manifest, MemberName as N, Recipe, read_container, write_container};
use modelgate_core::zip::{Archive, ZipError, ZipReason as R, read_member};
use std::collections::BTreeMap;

fn bundle() -> Vec<u8> {
    let mut m = BTreeMap::new();
    m.insert(N::ModelUbj, b"ubj model ubj model ubj model".to_vec());
    m.insert(N::Schema, br#"{"inputs":[{"name":"x","dtype":"bool"}]}"#.to_vec());
    let manifest = Manifest::new(Recipe::Standalone(N::ModelUbj), false, false);
    write_container(&manifest, &m, &ArchiveLimits::DEFAULT).unwrap()
}

fn parse(b: &[u8]) -> Result<Archive, ZipError> {
    Archive::parse(b, &NAMES, 6)
}

/// The bundle, its parsed archive, and `f` applied to a copy.
fn patched(f: impl FnOnce(&mut Vec<u8>, &Archive)) -> Result<Archive, ZipError> {
    let mut b = bundle();
    let a = parse(&b).unwrap();
    f(&mut b, &a);
    parse(&b)
}

fn put16(b: &mut [u8], at: u64, v: u16) {
    b[at as usize..at as usize + 2].copy_from_slice(&v.to_le_bytes());
}

fn err(reason: R, offset: u64, member: Option<usize>) -> Result<Archive, ZipError> {
    Err(ZipError { reason, offset, member })
}

#[test]
fn writer_output_layout() {
    let b = bundle();
    let a = parse(&b).unwrap();
    let names: Vec<_> = a.entries.iter().map(|e| NAMES[e.central.name]).collect();
    assert_eq!(names, ["manifest.json", "model.ubj", "schema.json"]);
    assert_eq!(a.entries[0].central.local_offset, 0);
    assert!(!a.directory.zip64);
    assert_eq!(a.directory.end, b.len() as u64 - 22);
    for e in &a.entries {
        assert_eq!(e.central.version_needed, 20);
        assert_eq!(e.central.flags, 0);
        assert_eq!(e.central.method, 8);
        let (bytes, _) = read_member(&b, e).unwrap();
        assert_eq!(bytes.len() as u64, e.central.uncompressed);
    }
}

#[test]
fn archive_comment_rejected() {
    let r = patched(|b, a| {
        put16(b, a.directory.end + 20, 1);
        b.push(b'!');
    });
    let n = bundle().len() as u64 + 1;
    assert_eq!(r, err(R::NoEndRecord, n - 22, None));
}

#[test]
fn member_comment_rejected() {
    let r = patched(|b, a| put16(b, a.entries[1].central.header_offset + 32, 1));
    assert_eq!(
        r,
        err(R::MemberComment, patched_offset(1, 32), Some(N::ModelUbj as usize))
    );
}

fn patched_offset(entry: usize, field: u64) -> u64 {
    parse(&bundle()).unwrap().entries[entry].central.header_offset + field
}

#[test]
fn unsupported_method_rejected() {
    let r = patched(|b, a| {
        put16(b, a.entries[1].central.header_offset + 10, 12);
        put16(b, a.entries[1].central.local_offset + 8, 12);
    });
    assert_eq!(
        r,
        err(
            R::UnsupportedMethod(12),
            patched_offset(1, 10),
            Some(N::ModelUbj as usize)
        )
    );
    assert_eq!(
        R::UnsupportedMethod(12).to_string(),
        "compression method 12 is not stored (0) or deflated (8)"
    );
}

#[test]
fn encrypted_flag_rejected() {
    let r = patched(|b, a| put16(b, a.entries[2].central.header_offset + 8, 1));
    assert_eq!(r, err(R::Encrypted, patched_offset(2, 8), Some(N::Schema as usize)));
}

#[test]
fn other_flags_rejected() {
    for bit in [4u16, 5, 6, 7, 8, 9, 10, 12, 13, 14, 15] {
        let r = patched(|b, a| put16(b, a.entries[2].central.header_offset + 8, 1 << bit));
        assert_eq!(
            r,
            err(R::BadFlags, patched_offset(2, 8), Some(N::Schema as usize)),
            "bit {bit}"
        );
    }
}

#[test]
fn version_needed_rejected() {
    for v in [0u16, 11, 21, 44, 46, 63, 0x0314] {
        let r = patched(|b, a| put16(b, a.entries[1].central.header_offset + 6, v));
        assert_eq!(
            r,
            err(R::BadVersionNeeded(v), patched_offset(1, 6), Some(N::ModelUbj as usize)),
            "{v}"
        );
    }
    assert_eq!(
        R::BadVersionNeeded(63).to_string(),
        "version needed to extract 63 is not allowed (expected 10: stored, without ZIP64; 20: without ZIP64; 45)"
    );
}

#[test]
fn local_central_disagreement_rejected() {
    let r = patched(|b, a| put16(b, a.entries[1].central.local_offset + 4, 45));
    let local = parse(&bundle()).unwrap().entries[1].central.local_offset;
    assert_eq!(r, err(R::LocalMismatch, local + 4, Some(N::ModelUbj as usize)));
}

#[test]
fn symlink_rejected() {
    let r = patched(|b, a| {
        let at = (a.entries[1].central.header_offset + 38) as usize;
        b[at..at + 4].copy_from_slice(&(0o120_777u32 << 16).to_le_bytes());
    });
    assert_eq!(
        r,
        err(R::NotRegularFile, patched_offset(1, 38), Some(N::ModelUbj as usize))
    );
}

#[test]
fn too_many_entries_checked_before_directory() {
    let b = bundle();
    let a = parse(&b).unwrap();
    assert_eq!(
        Archive::parse(&b, &NAMES, 2),
        err(R::TooManyEntries, a.directory.end, None)
    );
}

#[test]
fn unknown_name_rejected_without_member() {
    let r = patched(|b, a| {
        let at = (a.entries[2].central.header_offset + 46) as usize;
        b[at] = b'S';
    });
    assert_eq!(r, err(R::UnknownName, patched_offset(2, 46), None));
}

#[test]
fn every_truncation_rejected() {
    let b = bundle();
    for len in 0..b.len() {
        assert!(read_container(&b[..len], &ArchiveLimits::DEFAULT).is_err(), "{len}");
    }
}

#[test]
fn every_single_byte_mutation_rejected_or_harmless() {
    let b = bundle();
    let original = read_container(&b, &ArchiveLimits::DEFAULT).unwrap().members;
    let mut accepted = 0;
    for i in 0..b.len() {
        for v in [0x00, 0xff, b[i] ^ 0x01, b[i] ^ 0x80] {
            if v == b[i] {
                continue;
            }
            let mut m = b.clone();
            m[i] = v;
            if let Ok(c) = read_container(&m, &ArchiveLimits::DEFAULT) {
                // Only fields without meaning may change: DOS time and date, version made by,
                // the high bits of the attributes' permission part.
                assert_eq!(c.members, original, "byte {i} = {v:#x}");
                accepted += 1;
            }
        }
    }
    assert!(accepted > 0);
}

/// `read_member` of a stored member (`spec/mlbundle.md` §4.2) hands out the bytes where
/// they lie with their SHA-256; a damaged byte is that member's CRC mismatch at its data's
/// end, and the other member still reads. The members span several 64 KiB chunks and end
/// in different ones.
#[test]
fn stored_members_read_in_place_with_a_fault_in_either() {
    use modelgate_core::digest::sha256;
    use modelgate_corpus_gen::mlbundle::zip::{Member, Zip};
    use modelgate_corpus_gen::rng::pseudorandom;
    let (model, structure) = (pseudorandom(200_000, 1), pseudorandom(70_001, 2));
    let zip = Zip::new(vec![
        Member::new("model.cbm", &model).stored(),
        Member::new("structure.json", &structure).stored(),
    ]);
    let (clean, layout) = zip.build();
    for damaged in [None, Some(0), Some(1)] {
        let mut b = clean.clone();
        if let Some(m) = damaged {
            b[layout.data[m] as usize + 70_000] ^= 1;
        }
        let a = parse(&b).unwrap();
        for (m, original) in [&model, &structure].into_iter().enumerate() {
            match read_member(&b, &a.entries[m]) {
                Ok((bytes, sha)) => {
                    assert_ne!(damaged, Some(m));
                    assert_eq!(bytes.as_ptr(), b[layout.data[m] as usize..].as_ptr());
                    assert_eq!((&*bytes, sha), (original.as_slice(), sha256(original)));
                }
                Err(e) => {
                    assert_eq!(damaged, Some(m));
                    assert!(matches!(e.reason, R::CrcMismatch { .. }), "{e:?}");
                    assert_eq!(e.offset, layout.data_end[m]);
                }
            }
        }
    }
}
