//! Tests of mvb import validation (`spec/mvb.md` §1 to §4). Each rule has a test named for
//! it asserting the exact kind and location (member, JSON path, tar offset).

use modelgate_core::Location;
use modelgate_core::digest::{hex, sha256};
use modelgate_core::mvb::{
    Failure, ImportValidator, MANIFEST, Manifest, Marker, MvbError, MvbKind, MvbLimits, append_entry, bundle_hash,
    check_mvb, covers, write_bundle,
};
use modelgate_core::tar::END_OF_ARCHIVE;
use modelgate_core::tar::{BLOCK, Discard, EntrySink};

const ID: &str = "qwen--qwen3-0.6b@c1899de289a0";
const DATE: &str = "2025-06-01T12:00:00Z";
const MTIME: u64 = 1_748_779_200;
const KEY: [u64; 2] = [1, 2];

use modelgate_corpus_gen::mvb::{Files, manifest_for};

fn payload() -> Files {
    vec![
        ("model/config.json".into(), br#"{"layers":28}"#.to_vec()),
        (
            "model/model.safetensors".into(),
            (0..3000u32).map(|i| (i * 7 % 251) as u8).collect(),
        ),
        ("model/tokenizer/vocab.txt".into(), b"a\nb\nc\n".to_vec()),
    ]
}

fn manifest_text() -> String {
    manifest_for("model", &payload(), None)
}

fn marker_for(manifest: &str) -> Marker {
    Marker::for_manifest(&Manifest::parse(manifest.as_bytes(), &MvbLimits::DEFAULT, KEY).unwrap())
}

/// A bundle tar from a manifest text and extra (bundle path, bytes) files.
fn bundle_with(manifest: &str, files: &Files) -> Vec<u8> {
    let marker = marker_for(manifest);
    let mut all: Vec<(&str, &[u8])> = files.iter().map(|(p, d)| (p.as_str(), d.as_slice())).collect();
    all.push((MANIFEST, manifest.as_bytes()));
    all.push(("darsay-verify.py", b"#!/usr/bin/env python3\n"));
    write_bundle(&marker, &all, MTIME).unwrap()
}

fn valid() -> Vec<u8> {
    bundle_with(&manifest_text(), &payload())
}

/// Raw entries in the given order, after a valid marker for the valid manifest.
fn raw(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let marker = marker_for(&manifest_text());
    let mut out = Vec::new();
    append_entry(&mut out, ID, ".mvb.json", &marker.to_bytes(), MTIME).unwrap();
    for (p, d) in entries {
        append_entry(&mut out, ID, p, d, MTIME).unwrap();
    }
    out.extend_from_slice(&END_OF_ARCHIVE);
    out
}

fn check(bytes: &[u8]) -> Result<modelgate_core::mvb::Imported, MvbError> {
    check_mvb(bytes, MvbLimits::DEFAULT, KEY)
}

fn err(bytes: &[u8]) -> MvbError {
    check(bytes).expect_err("must be rejected")
}

fn member_at(member: &str, offset: u64) -> Location {
    Location::at(offset).in_member(member)
}

fn json_at(member: &str, path: &str) -> Location {
    Location {
        member: Some(member.into()),
        path: Some(path.into()),
        offset: None,
    }
}

/// Offset of the header of the entry named `name` (the first block holding it).
fn header_of(tar: &[u8], name: &str) -> u64 {
    let mut off = 0usize;
    while off + BLOCK <= tar.len() {
        let block = &tar[off..off + BLOCK];
        if block.starts_with(name.as_bytes()) && block[name.len()] == 0 {
            return off as u64;
        }
        off += BLOCK;
    }
    panic!("no header {name}");
}

fn sum(block: &mut [u8]) {
    block[148..156].copy_from_slice(b"        ");
    let s: u32 = block.iter().map(|&b| u32::from(b)).sum();
    block[148..156].copy_from_slice(format!("{s:06o}\0 ").as_bytes());
}

// ---------------------------------------------------------------- valid bundles

#[test]
fn valid_bundle_accepted() {
    let tar = valid();
    let ok = check(&tar).unwrap();
    assert_eq!(ok.marker.bundle_id, ID);
    assert_eq!(ok.manifest.payload_root, "model");
    assert_eq!(ok.files.len(), 5);
    assert_eq!(ok.tar_sha256, sha256(&tar));
    assert_eq!(ok.tar_len, tar.len() as u64);
    assert_eq!(ok.bundle_hash, ok.manifest.bundle_hash.value);
}

#[test]
fn data_payload_root_before_manifest_accepted() {
    let files: Files = vec![("data/train/part-0.parquet".into(), b"PAR1".to_vec())];
    let m = manifest_for("data", &files, None);
    let ok = check(&bundle_with(&m, &files)).unwrap();
    assert_eq!(ok.files[0].path, "darsay-verify.py");
    assert_eq!(ok.files[1].path, "data/train/part-0.parquet");
}

#[test]
fn long_paths_through_gnu_long_names_accepted() {
    let long = format!("model/{}/weights.bin", "d".repeat(150));
    let files: Files = vec![(long.clone(), b"w".to_vec())];
    let m = manifest_for("model", &files, None);
    let ok = check(&bundle_with(&m, &files)).unwrap();
    assert!(ok.files.iter().any(|f| f.path == long));
}

#[test]
fn feeding_in_pieces_gives_the_same_outcome() {
    let tar = valid();
    for piece in [1usize, 7, 511, 512, 513, 4096] {
        let mut v = ImportValidator::new(MvbLimits::DEFAULT, KEY);
        for chunk in tar.chunks(piece) {
            v.feed(chunk, &mut Discard).unwrap();
        }
        assert_eq!(v.finish().unwrap().tar_sha256, sha256(&tar));
    }
    let mut bad = valid();
    let at = header_of(&bad, &format!("{ID}/model/model.safetensors")) as usize + BLOCK + 100;
    bad[at] ^= 1;
    let whole = err(&bad);
    let mut v = ImportValidator::new(MvbLimits::DEFAULT, KEY);
    for chunk in bad.chunks(333) {
        v.feed(chunk, &mut Discard).unwrap();
    }
    assert_eq!(v.finish().unwrap_err(), whole);
}

#[test]
fn random_mutations_agree_in_pieces_and_never_panic() {
    let tar = valid();
    let noise = modelgate_corpus_gen::rng::pseudorandom(3 * 600, 0x6d76_6221);
    for (i, r) in noise.chunks(3).enumerate() {
        let mut bad = tar.clone();
        let at = (usize::from(r[0]) << 8 | usize::from(r[1])) * 7 % bad.len();
        bad[at] ^= r[2] | 1;
        if i % 5 == 0 {
            bad.truncate(at + 1);
        }
        let whole = check(&bad);
        let mut v = ImportValidator::new(MvbLimits::DEFAULT, KEY);
        let piece = 1 + usize::from(r[2]) * 3;
        let mut fed = Ok(());
        for chunk in bad.chunks(piece) {
            fed = v.feed(chunk, &mut Discard);
            if fed.is_err() {
                break;
            }
        }
        let pieced = match fed {
            Ok(()) => v.finish(),
            Err(Failure::Rejected(e)) => Err(e),
            Err(Failure::Sink(never)) => match never {},
        };
        match (&whole, &pieced) {
            (Ok(a), Ok(b)) => assert_eq!(a.tar_sha256, b.tar_sha256),
            (Err(a), Err(b)) => {
                assert_eq!(a, b, "mutation {i} at {at}");
                assert!(!a.location.is_none(), "{a}");
            }
            _ => panic!("mutation {i} at {at}: pieces change acceptance"),
        }
    }
}

#[derive(Default)]
struct Collect {
    files: Vec<(String, String, Vec<u8>)>,
}

impl EntrySink for Collect {
    type Error = ();
    fn begin(&mut self, path: &str, _: u64) -> Result<(), ()> {
        let (id, path) = path.split_once('/').unwrap();
        self.files.push((id.into(), path.into(), Vec::new()));
        Ok(())
    }
    fn data(&mut self, chunk: &[u8]) -> Result<(), ()> {
        self.files.last_mut().unwrap().2.extend_from_slice(chunk);
        Ok(())
    }
    fn end(&mut self) -> Result<(), ()> {
        Ok(())
    }
}

#[test]
fn sink_receives_every_file_but_the_marker() {
    let mut sink = Collect::default();
    let mut v = ImportValidator::new(MvbLimits::DEFAULT, KEY);
    v.feed(&valid(), &mut sink).unwrap();
    v.finish().unwrap();
    let names: Vec<&str> = sink.files.iter().map(|f| f.1.as_str()).collect();
    assert_eq!(
        names,
        [
            "darsay-verify.py",
            "manifest.json",
            "model/config.json",
            "model/model.safetensors",
            "model/tokenizer/vocab.txt"
        ]
    );
    assert!(sink.files.iter().all(|f| f.0 == ID));
    assert_eq!(sink.files[2].2, payload()[0].1);
}

#[test]
fn sink_failure_stops_feeding() {
    struct Fail;
    impl EntrySink for Fail {
        type Error = &'static str;
        fn begin(&mut self, _: &str, _: u64) -> Result<(), &'static str> {
            Err("disk full")
        }
        fn data(&mut self, _: &[u8]) -> Result<(), &'static str> {
            Ok(())
        }
        fn end(&mut self) -> Result<(), &'static str> {
            Ok(())
        }
    }
    let mut v = ImportValidator::new(MvbLimits::DEFAULT, KEY);
    assert_eq!(v.feed(&valid(), &mut Fail), Err(Failure::Sink("disk full")));
}

#[test]
fn marker_is_canonical_and_names_only_the_tool_family() {
    let m = marker_for(&manifest_text());
    let text = String::from_utf8(m.to_bytes()).unwrap();
    let expected = format!(
        "{{\"mvb_format_version\":\"1.2\",\"bundle_id\":\"{ID}\",\"artifact_type\":\"model\",\"schema_version\":\"1.6.0\",\
         \"bundle_hash\":{{\"algorithm\":\"sha256-of-sorted-sha256-lines\",\"value\":\"{}\",\"covers\":\"{}\"}},\
         \"payload_file_count\":3,\"payload_size_bytes\":3019,\"written_by\":{{\"tool\":\"darsay\"}}}}\n",
        m.bundle_hash.value,
        covers("model")
    );
    assert_eq!(text, expected);
    assert_eq!(Marker::parse(text.as_bytes(), 64 * 1024, KEY).unwrap(), m);
}

#[test]
fn export_headers_are_normalized() {
    let tar = valid();
    let h = &tar[..BLOCK];
    assert_eq!(&h[100..108], b"0000644\0");
    assert_eq!(&h[108..116], b"0000000\0");
    assert_eq!(&h[116..124], b"0000000\0");
    assert_eq!(&h[136..148], format!("{MTIME:011o}\0").as_bytes());
    assert_eq!(&h[257..265], b"ustar  \0");
    assert!(h[265..329].iter().all(|&b| b == 0), "empty uname/gname");
}

// ---------------------------------------------------------------- §4.2 marker first

#[test]
fn marker_missing() {
    let e = err(&END_OF_ARCHIVE);
    assert_eq!((e.kind, e.location), (MvbKind::InvalidArchive, Location::at(0)));
}

#[test]
fn marker_not_first() {
    let m = manifest_text();
    let marker = marker_for(&m);
    let mut out = Vec::new();
    append_entry(&mut out, ID, MANIFEST, m.as_bytes(), MTIME).unwrap();
    append_entry(&mut out, ID, ".mvb.json", &marker.to_bytes(), MTIME).unwrap();
    out.extend_from_slice(&END_OF_ARCHIVE);
    let e = err(&out);
    assert_eq!(e.kind, MvbKind::InvalidArchive);
    assert_eq!(e.location, member_at(&format!("{ID}/manifest.json"), 0));
}

#[test]
fn marker_under_traversal_folder_rejected() {
    let mut out = Vec::new();
    append_entry(&mut out, "..", ".mvb.json", b"{}", MTIME).unwrap();
    out.extend_from_slice(&END_OF_ARCHIVE);
    let e = err(&out);
    assert_eq!(
        (e.kind, e.location),
        (MvbKind::InvalidArchive, member_at("../.mvb.json", 0))
    );
}

fn with_marker_text(text: &str) -> Vec<u8> {
    let mut out = Vec::new();
    append_entry(&mut out, ID, ".mvb.json", text.as_bytes(), MTIME).unwrap();
    out.extend_from_slice(&END_OF_ARCHIVE);
    out
}

fn marker_text_with(from: &str, to: &str) -> String {
    let t = String::from_utf8(marker_for(&manifest_text()).to_bytes()).unwrap();
    assert!(t.contains(from), "{from}");
    t.replacen(from, to, 1)
}

#[test]
fn marker_container_major_unsupported() {
    let e = err(&with_marker_text(&marker_text_with(r#""1.2""#, r#""2.0""#)));
    assert_eq!(e.kind, MvbKind::UnsupportedVersion);
    assert_eq!(
        e.location,
        Location::path("marker.mvb_format_version".into(), 22).in_member(".mvb.json")
    );
}

#[test]
fn incompatible_marker_refused_before_anything_reaches_the_sink() {
    let t = marker_text_with(r#""1.2""#, r#""2.0""#);
    let mut tar = Vec::new();
    append_entry(&mut tar, ID, ".mvb.json", t.as_bytes(), MTIME).unwrap();
    let m = manifest_text();
    append_entry(&mut tar, ID, MANIFEST, m.as_bytes(), MTIME).unwrap();
    let mut sink = Collect::default();
    let mut v = ImportValidator::new(MvbLimits::DEFAULT, KEY);
    let r = v.feed(&tar, &mut sink);
    assert!(
        matches!(r, Err(Failure::Rejected(ref e)) if e.kind == MvbKind::UnsupportedVersion),
        "{r:?}"
    );
    assert!(sink.files.is_empty(), "nothing unpacked");
}

#[test]
fn marker_container_version_malformed() {
    let e = err(&with_marker_text(&marker_text_with(r#""1.2""#, r#""1.02""#)));
    assert_eq!(e.kind, MvbKind::InvalidManifest);
    assert_eq!(e.location.path.as_deref(), Some("marker.mvb_format_version"));
}

#[test]
fn marker_schema_major_unsupported() {
    let e = err(&with_marker_text(&marker_text_with(r#""1.6.0""#, r#""2.0.0""#)));
    assert_eq!(e.kind, MvbKind::UnsupportedVersion);
    assert_eq!(e.location.path.as_deref(), Some("marker.schema_version"));
}

#[test]
fn marker_version_checked_before_anything_else() {
    // A newer container with an otherwise meaningless marker: the version decides.
    let e = err(&with_marker_text(
        r#"{"mvb_format_version":"3.0","payload_file_count":"x"}"#,
    ));
    assert_eq!(e.kind, MvbKind::UnsupportedVersion);
}

#[test]
fn marker_invalid_json() {
    let e = err(&with_marker_text(r#"{"mvb_format_version":"1.2","#));
    assert_eq!(e.kind, MvbKind::InvalidManifest);
    assert_eq!(e.location.member.as_deref(), Some(".mvb.json"));
}

#[test]
fn marker_duplicate_key_rejected() {
    let t = marker_text_with(
        r#""artifact_type":"model""#,
        r#""artifact_type":"model","artifact_type":"x""#,
    );
    let e = err(&with_marker_text(&t));
    assert_eq!(e.kind, MvbKind::InvalidManifest);
}

#[test]
fn marker_bundle_id_differs_from_folder() {
    let t = marker_text_with(&format!(r#""bundle_id":"{ID}""#), r#""bundle_id":"other@1""#);
    let e = err(&with_marker_text(&t));
    let mut want = json_at(".mvb.json", "marker.bundle_id");
    want.offset = t.find(r#""other@1""#).map(|o| o as u64);
    assert_eq!((e.kind, e.location), (MvbKind::InvalidManifest, want));
}

#[test]
fn marker_oversize_from_header() {
    let mut out = Vec::new();
    append_entry(&mut out, ID, ".mvb.json", &vec![b' '; 64 * 1024 + 1], MTIME).unwrap();
    let e = err(&out[..BLOCK]);
    assert_eq!(e.kind, MvbKind::LimitExceeded);
    assert_eq!(e.location, member_at(&format!("{ID}/.mvb.json"), 0));
}

#[test]
fn marker_disagrees_with_manifest() {
    let mut m = marker_for(&manifest_text());
    m.payload_file_count += 1;
    let mut all: Vec<(String, Vec<u8>)> = payload();
    all.push((MANIFEST.into(), manifest_text().into_bytes()));
    let refs: Vec<(&str, &[u8])> = all.iter().map(|(p, d)| (p.as_str(), d.as_slice())).collect();
    let e = err(&write_bundle(&m, &refs, MTIME).unwrap());
    assert_eq!(e.kind, MvbKind::IntegrityMismatch);
    let text = String::from_utf8(m.to_bytes()).unwrap();
    let mut want = json_at(".mvb.json", "marker.payload_file_count");
    want.offset = text.find(r#""payload_file_count":"#).map(|o| o as u64 + 21);
    assert_eq!(e.location, want);
}

/// §3.2: the marker's `bundle_hash.covers` follows §1.2: the statement for some payload
/// root (the marker does not name it; §4.4 compares it with the manifest's). Anything else
/// is the marker's own fault, `InvalidManifest` at that value, not a disagreement.
#[test]
fn marker_covers_must_state_a_payload_root() {
    for bad in [
        "",
        "model",
        "model/ payload only",
        "../ payload only; bundle-root metadata files are mutable and excluded",
        "a/b/ payload only; bundle-root metadata files are mutable and excluded",
        "exports.json/ payload only; bundle-root metadata files are mutable and excluded",
    ] {
        let t = marker_text_with(
            r#""covers":"model/ payload only; bundle-root metadata files are mutable and excluded""#,
            &format!(r#""covers":"{bad}""#),
        );
        let e = err(&with_marker_text(&t));
        let mut want = json_at(".mvb.json", "marker.bundle_hash.covers");
        want.offset = t.find(r#""covers":"#).map(|o| o as u64 + 9);
        assert_eq!((e.kind, e.location), (MvbKind::InvalidManifest, want), "{bad}");
    }
}

#[test]
fn marker_disagreement_is_located_at_each_marker_value() {
    let edits: [fn(&mut Marker); 3] = [
        |m| m.bundle_hash.covers = m.bundle_hash.covers.replacen("model/", "data/", 1),
        |m| m.artifact_type.push('x'),
        |m| m.payload_size_bytes += 1,
    ];
    let mut all: Vec<(String, Vec<u8>)> = payload();
    all.push((MANIFEST.into(), manifest_text().into_bytes()));
    let refs: Vec<(&str, &[u8])> = all.iter().map(|(p, d)| (p.as_str(), d.as_slice())).collect();
    for edit in edits {
        let mut m = marker_for(&manifest_text());
        edit(&mut m);
        let e = err(&write_bundle(&m, &refs, MTIME).unwrap());
        assert_eq!(e.kind, MvbKind::IntegrityMismatch);
        let (path, offset) = (e.location.path.unwrap(), e.location.offset.unwrap());
        // The offset is the value's first byte in the marker: a string's quote or a digit.
        let text = m.to_bytes();
        assert!(matches!(text[offset as usize], b'"' | b'0'..=b'9'), "{path}");
        let name = path.rsplit('.').next().unwrap();
        let key = format!("\"{name}\":");
        let at = String::from_utf8(text.clone()).unwrap().rfind(&key).unwrap();
        assert_eq!(offset as usize, at + key.len(), "{path}");
    }
}

// ---------------------------------------------------------------- §4.3 entries

#[test]
fn symlink_entry_is_path_traversal() {
    let mut tar = raw(&[("model/a", b"x")]);
    let at = header_of(&tar, &format!("{ID}/model/a")) as usize;
    tar[at + 156] = b'2';
    tar[at + 124..at + 136].copy_from_slice(b"00000000000\0");
    tar[at + 157..at + 163].copy_from_slice(b"../../");
    sum(&mut tar[at..at + BLOCK]);
    let e = err(&tar);
    assert_eq!(
        (e.kind, e.location),
        (MvbKind::PathTraversal, member_at(&format!("{ID}/model/a"), at as u64))
    );
}

#[test]
fn directory_entry_rejected() {
    let mut tar = raw(&[("model", b"")]);
    let at = header_of(&tar, &format!("{ID}/model")) as usize;
    tar[at + 156] = b'5';
    sum(&mut tar[at..at + BLOCK]);
    let e = err(&tar);
    assert_eq!(
        (e.kind, e.location),
        (MvbKind::InvalidArchive, member_at(&format!("{ID}/model"), at as u64))
    );
}

#[test]
fn traversal_path_rejected() {
    let tar = raw(&[("../../etc/passwd", b"x")]);
    let e = err(&tar);
    assert_eq!(e.kind, MvbKind::PathTraversal);
    assert_eq!(
        e.location.offset,
        Some(header_of(&tar, &format!("{ID}/../../etc/passwd")))
    );
}

#[test]
fn non_canonical_path_rejected() {
    let tar = raw(&[("./model/a", b"x")]);
    let e = err(&tar);
    assert_eq!(e.kind, MvbKind::InvalidArchive);
    assert_eq!(e.message, "non-canonical entry path");
}

#[test]
fn entry_outside_bundle_folder_rejected() {
    let marker = marker_for(&manifest_text());
    let mut out = Vec::new();
    append_entry(&mut out, ID, ".mvb.json", &marker.to_bytes(), MTIME).unwrap();
    append_entry(&mut out, "other", "x", b"x", MTIME).unwrap();
    out.extend_from_slice(&END_OF_ARCHIVE);
    let e = err(&out);
    assert_eq!(
        (e.kind, e.location),
        (MvbKind::InvalidArchive, member_at("other/x", 1024))
    );
}

#[test]
fn duplicate_entry_rejected() {
    let tar = raw(&[("model/a", b"x"), ("model/a", b"y")]);
    let e = err(&tar);
    assert_eq!(
        (e.kind, e.message.as_ref()),
        (MvbKind::InvalidArchive, "duplicate entry")
    );
    assert_eq!(e.location.offset, Some(2048));
}

#[test]
fn case_folded_duplicate_rejected() {
    let tar = raw(&[("model/A", b"x"), ("model/a", b"y")]);
    let e = err(&tar);
    assert_eq!(e.message, "duplicate or conflicting entry path");
}

#[test]
fn second_marker_rejected() {
    let tar = raw(&[(".mvb.json", b"{}")]);
    let e = err(&tar);
    assert_eq!(e.kind, MvbKind::InvalidArchive);
    assert_eq!(e.location.offset, Some(1024));
}

#[test]
fn entry_out_of_order_rejected() {
    let tar = raw(&[("model/b", b"x"), ("model/a", b"y")]);
    let e = err(&tar);
    assert_eq!(
        (e.kind, e.message.as_ref()),
        (MvbKind::InvalidArchive, "entry out of sorted order")
    );
}

#[test]
fn volatile_file_rejected() {
    for name in ["exports.json", "transfer.lock", "model/.DS_Store"] {
        let e = err(&raw(&[(name, b"x")]));
        assert_eq!(e.kind, MvbKind::InvalidArchive, "{name}");
        assert_eq!(e.message, "volatile machine-local file in archive");
    }
}

#[test]
fn entry_count_limit() {
    let limits = MvbLimits {
        max_entries: 1,
        ..MvbLimits::DEFAULT
    };
    let e = check_mvb(&raw(&[("a", b"x"), ("b", b"y")]), limits, KEY).unwrap_err();
    assert_eq!((e.kind, e.location.offset), (MvbKind::LimitExceeded, Some(2048)));
}

/// §1.2 and §4.7: an inventory listing more files than `max_entries` breaks a reader limit,
/// `LimitExceeded` (every `MvbLimits` limit is, §4.7, §9), at `manifest.inventory.files`.
/// (At the default limit such a manifest is larger than `max_manifest_bytes`, so the rule
/// has no corpus file.)
#[test]
fn inventory_count_limit() {
    let limits = MvbLimits {
        max_entries: 2,
        ..MvbLimits::DEFAULT
    };
    let m = manifest_text();
    assert_eq!(payload().len(), 3);
    let e = Manifest::parse(m.as_bytes(), &limits, KEY).unwrap_err();
    let mut want = json_at(MANIFEST, "manifest.inventory.files");
    want.offset = m.find(r#""files":"#).map(|o| o as u64 + 8);
    assert_eq!((e.kind, e.location), (MvbKind::LimitExceeded, want));
    assert_eq!(e.message, "more inventory files than max_entries");
    let limits = MvbLimits {
        max_entries: 3,
        ..MvbLimits::DEFAULT
    };
    assert!(Manifest::parse(m.as_bytes(), &limits, KEY).is_ok());
}

#[test]
fn entry_size_limit_from_header() {
    let limits = MvbLimits {
        max_entry_bytes: 4,
        ..MvbLimits::DEFAULT
    };
    let tar = raw(&[("a", b"12345")]);
    let e = check_mvb(&tar[..1024 + BLOCK], limits, KEY).unwrap_err();
    assert_eq!((e.kind, e.location.offset), (MvbKind::LimitExceeded, Some(1024)));
}

#[test]
fn total_size_limit() {
    let limits = MvbLimits {
        max_total_bytes: 5,
        ..MvbLimits::DEFAULT
    };
    let e = check_mvb(&raw(&[("a", b"123"), ("b", b"456")]), limits, KEY).unwrap_err();
    assert_eq!((e.kind, e.location.offset), (MvbKind::LimitExceeded, Some(2048)));
}

#[test]
fn path_total_limit() {
    let limits = MvbLimits {
        max_path_total_bytes: 2 * (ID.len() as u64 + 2) - 1,
        ..MvbLimits::DEFAULT
    };
    let e = check_mvb(&raw(&[("a", b"x"), ("b", b"y")]), limits, KEY).unwrap_err();
    assert_eq!((e.kind, e.location.offset), (MvbKind::LimitExceeded, Some(2048)));
    assert_eq!(e.message, "entry paths exceed max_path_total_bytes");
}

#[test]
fn manifest_size_limit_from_header() {
    let limits = MvbLimits {
        max_manifest_bytes: 10,
        ..MvbLimits::DEFAULT
    };
    let e = check_mvb(&valid(), limits, KEY).unwrap_err();
    assert_eq!(e.kind, MvbKind::LimitExceeded);
    assert_eq!(
        e.location.member.as_deref(),
        Some(format!("{ID}/manifest.json").as_str())
    );
}

#[test]
fn tar_errors_are_invalid_archive_with_offset() {
    let mut tar = valid();
    let h = header_of(&tar, &format!("{ID}/manifest.json")) as usize;
    tar[h + 148] ^= 1;
    let e = err(&tar);
    assert_eq!(e.kind, MvbKind::InvalidArchive);
    assert_eq!(e.location, Location::at(h as u64 + 148));
    let truncated = &valid()[..BLOCK * 3 + 7];
    let e = err(truncated);
    assert_eq!(
        (e.kind, e.location.offset),
        (MvbKind::InvalidArchive, Some((BLOCK * 3 + 7) as u64))
    );
}

#[test]
fn every_truncation_rejected() {
    let tar = valid();
    let end = tar.len() - 2 * BLOCK;
    for cut in (0..end).step_by(97) {
        assert!(check(&tar[..cut]).is_err(), "cut at {cut}");
    }
}

// ---------------------------------------------------------------- §4.4 manifest

#[test]
fn manifest_missing() {
    let tar = raw(&[("model/config.json", br#"{"layers":28}"#)]);
    let e = err(&tar);
    assert_eq!(
        (e.kind, e.location),
        (MvbKind::InvalidManifest, Location::at(tar.len() as u64))
    );
}

#[test]
fn manifest_schema_major_unsupported() {
    let m = manifest_text();
    let mut files = payload();
    files.push((
        MANIFEST.into(),
        m.replace(r#""schema_version":"1.6.0""#, r#""schema_version":"2.0.0""#)
            .into_bytes(),
    ));
    let marker = marker_for(&m);
    let refs: Vec<(&str, &[u8])> = files.iter().map(|(p, d)| (p.as_str(), d.as_slice())).collect();
    let e = err(&write_bundle(&marker, &refs, MTIME).unwrap());
    assert_eq!(e.kind, MvbKind::UnsupportedVersion);
    assert_eq!(
        e.location,
        Location::path("manifest.schema_version".into(), 18).in_member(MANIFEST)
    );
}

fn manifest_error(from: &str, to: &str) -> MvbError {
    let m = manifest_text();
    assert!(m.contains(from), "{from}");
    let bad = m.replacen(from, to, 1);
    let e = Manifest::parse(bad.as_bytes(), &MvbLimits::DEFAULT, KEY).unwrap_err();
    assert_eq!(e.location.member.as_deref(), Some(MANIFEST));
    e
}

#[test]
fn manifest_kind_must_be_darsay_bundle() {
    let e = manifest_error(r#""darsay.bundle""#, r#""other""#);
    assert_eq!(
        (e.kind, e.location.path.as_deref()),
        (MvbKind::InvalidManifest, Some("manifest.kind"))
    );
}

#[test]
fn manifest_payload_root_must_be_one_segment() {
    for root in [r#""../""#, r#""a/b/""#, r#""""#, r#""manifest.json""#] {
        let e = manifest_error(r#""model/""#, root);
        assert_eq!(
            e.location.path.as_deref(),
            Some("manifest.inventory.layout.payload_root"),
            "{root}"
        );
    }
}

#[test]
fn manifest_inventory_path_outside_root() {
    let e = manifest_error(r#""path":"model/config.json""#, r#""path":"config.json""#);
    assert_eq!(e.location.path.as_deref(), Some("manifest.inventory.files[0].path"));
    let e = manifest_error(r#""path":"model/config.json""#, r#""path":"model/../x""#);
    assert_eq!(e.location.path.as_deref(), Some("manifest.inventory.files[0].path"));
}

#[test]
fn manifest_inventory_duplicate_path() {
    let e = manifest_error(r#""path":"model/config.json""#, r#""path":"model/MODEL.safetensors""#);
    assert_eq!(e.location.path.as_deref(), Some("manifest.inventory.files[1].path"));
}

#[test]
fn manifest_inventory_sha256_must_be_lowercase_hex() {
    let sha = hex(&sha256(br#"{"layers":28}"#));
    let e = manifest_error(&sha, &sha.to_uppercase());
    assert_eq!(e.location.path.as_deref(), Some("manifest.inventory.files[0].sha256"));
}

#[test]
fn manifest_size_must_be_integer() {
    let e = manifest_error(r#""size":13"#, r#""size":13.0"#);
    assert_eq!(e.location.path.as_deref(), Some("manifest.inventory.files[0].size"));
    let e = manifest_error(r#""size":13"#, r#""size":-1"#);
    assert_eq!(e.location.path.as_deref(), Some("manifest.inventory.files[0].size"));
}

#[test]
fn manifest_bundle_hash_algorithm_and_covers() {
    let e = manifest_error("sha256-of-sorted-sha256-lines", "sha256");
    assert_eq!(
        e.location.path.as_deref(),
        Some("manifest.inventory.bundle_hash.algorithm")
    );
    let e = manifest_error("model/ payload only", "data/ payload only");
    assert_eq!(
        e.location.path.as_deref(),
        Some("manifest.inventory.bundle_hash.covers")
    );
}

#[test]
fn manifest_date_archived_rfc3339_utc() {
    let e = manifest_error(DATE, "2025-06-01T12:00:00+02:00");
    assert_eq!(e.location.path.as_deref(), Some("manifest.archive.date_archived"));
    let m = Manifest::parse(manifest_text().as_bytes(), &MvbLimits::DEFAULT, KEY).unwrap();
    assert_eq!(m.mtime, MTIME);
}

#[test]
fn manifest_unknown_members_kept() {
    let with_source = manifest_text().replacen(
        "\"inventory\":",
        "\"source\":{\"repo\":\"qwen/qwen3-0.6b\"},\"inventory\":",
        1,
    );
    let m = Manifest::parse(with_source.as_bytes(), &MvbLimits::DEFAULT, KEY).unwrap();
    assert!(
        m.fields.get("source").is_none(),
        "only the members §1.2 reads are built"
    );
    let text = m.stamped(&[], KEY).unwrap();
    assert!(text.contains("\"source\":"), "{text}");
}

// ---------------------------------------------------------------- §4.5, §4.6 integrity

fn flip_in(tar: &mut [u8], path: &str, at: usize) -> u64 {
    let h = header_of(tar, &format!("{ID}/{path}")) as usize;
    tar[h + BLOCK + at] ^= 0x01;
    (h + BLOCK) as u64
}

#[test]
fn flipped_payload_byte_is_integrity_mismatch() {
    for (path, len) in [
        ("model/config.json", 13),
        ("model/model.safetensors", 3000),
        ("model/tokenizer/vocab.txt", 6),
    ] {
        for at in [0, len / 2, len - 1] {
            let mut tar = valid();
            let data = flip_in(&mut tar, path, at);
            let e = err(&tar);
            assert_eq!(
                (e.kind, e.location),
                (MvbKind::IntegrityMismatch, member_at(path, data)),
                "{path} {at}"
            );
        }
    }
}

#[test]
fn every_flip_in_headers_payload_and_end_is_rejected() {
    use modelgate_core::tar::{TarLimits, entries};
    let tar = valid();
    let mut offsets = Vec::new();
    for item in entries(&tar, TarLimits::DEFAULT) {
        let (e, _) = item.unwrap();
        offsets.extend(e.header_offset..e.data_offset);
        let path = String::from_utf8(e.path.clone()).unwrap();
        if path.contains("/model/") {
            offsets.extend(e.data_offset..e.data_offset + e.size);
        }
    }
    offsets.extend(tar.len() as u64 - 1024..tar.len() as u64);
    assert!(offsets.len() > 6000);
    let mut bad = tar.clone();
    for at in offsets {
        bad[at as usize] ^= 0x01;
        assert!(check(&bad).is_err(), "flip at {at} accepted");
        bad[at as usize] ^= 0x01;
    }
}

#[test]
fn extra_payload_file() {
    let mut files = payload();
    files.push(("model/zz-extra.bin".into(), b"x".to_vec()));
    let tar = bundle_with(&manifest_text(), &files);
    let e = err(&tar);
    assert_eq!(e.kind, MvbKind::IntegrityMismatch);
    assert_eq!(e.message, "extra payload file not in the inventory");
    assert_eq!(e.location.member.as_deref(), Some("model/zz-extra.bin"));
}

#[test]
fn missing_payload_file() {
    let mut files = payload();
    files.remove(1);
    let m = manifest_text();
    let e = err(&bundle_with(&m, &files));
    let mut want = json_at(MANIFEST, "manifest.inventory.files[1]");
    want.offset = m.find(r#"{"path":"model/model.safetensors""#).map(|o| o as u64);
    assert_eq!((e.kind, e.location), (MvbKind::IntegrityMismatch, want));
}

#[test]
fn payload_size_mismatch() {
    let mut files = payload();
    files[2].1.push(b'd');
    let tar = bundle_with(&manifest_text(), &files);
    let e = err(&tar);
    assert_eq!(e.message, "payload size differs from the inventory");
    assert_eq!(e.location.member.as_deref(), Some("model/tokenizer/vocab.txt"));
}

#[test]
fn bundle_hash_mismatch() {
    let m = manifest_for("model", &payload(), Some(&"0".repeat(64)));
    let e = err(&bundle_with(&m, &payload()));
    let mut want = json_at(MANIFEST, "manifest.inventory.bundle_hash.value");
    want.offset = m.find(&"0".repeat(64)).map(|o| o as u64 - 1);
    assert_eq!((e.kind, e.location), (MvbKind::IntegrityMismatch, want));
}

#[test]
fn metadata_files_are_not_payload() {
    let mut files = payload();
    files.push(("README.md".into(), b"anything".to_vec()));
    files.push(("verification.json".into(), b"{}".to_vec()));
    assert!(check(&bundle_with(&manifest_text(), &files)).is_ok());
}

#[test]
fn bundle_hash_is_over_sorted_two_space_lines() {
    let h = bundle_hash([("model/b", "bb"), ("model/a", "aa")]);
    assert_eq!(h, hex(&sha256(b"aa  model/a\nbb  model/b\n")));
}

// ---------------------------------------------------------------- §4.3 step 7, §4.2

/// A [`Collect`] with room for `.1` bytes of destination path.
struct Room(Collect, usize);

impl EntrySink for Room {
    type Error = ();
    fn begin(&mut self, path: &str, size: u64) -> Result<(), ()> {
        self.0.begin(path, size)
    }
    fn data(&mut self, chunk: &[u8]) -> Result<(), ()> {
        self.0.data(chunk)
    }
    fn end(&mut self) -> Result<(), ()> {
        self.0.end()
    }
    fn max_path_bytes(&self) -> usize {
        self.1
    }
}

fn import_into(tar: &[u8], sink: &mut Room) -> Result<modelgate_core::mvb::Imported, MvbError> {
    let mut v = ImportValidator::new(MvbLimits::DEFAULT, KEY);
    match v.feed(tar, sink) {
        Ok(()) => v.finish(),
        Err(Failure::Rejected(e)) => Err(e),
        Err(Failure::Sink(())) => panic!("sink failed"),
    }
}

#[test]
fn destination_path_longer_than_the_sinks_room_is_limit_exceeded_at_its_entry() {
    let tar = valid();
    let longest = "model/tokenizer/vocab.txt";
    let dest = format!("{ID}/{longest}");
    let mut sink = Room(Collect::default(), dest.len() - 1);
    let e = import_into(&tar, &mut sink).unwrap_err();
    assert_eq!(e.kind, MvbKind::LimitExceeded, "{e}");
    assert_eq!(e.location, member_at(&dest, header_of(&tar, &dest)));
    // Every earlier file reached the sink, this one did not.
    assert!(sink.0.files.iter().all(|f| f.1 != longest));
    assert_eq!(sink.0.files.len(), 4);
    let mut sink = Room(Collect::default(), dest.len());
    import_into(&tar, &mut sink).unwrap();
    assert_eq!(sink.0.files.len(), 5);
}

/// §4.2: import adds `<id>/verification.json` (§6.3), longer than the `<id>/manifest.json`
/// the archive holds: without room for it, the marker is refused before anything is written.
#[test]
fn bundle_folder_without_room_for_the_verification_record_is_refused_at_the_marker() {
    let tar = valid();
    let record = format!("{ID}/verification.json");
    let mut sink = Room(Collect::default(), record.len() - 1);
    let e = import_into(&tar, &mut sink).unwrap_err();
    assert_eq!(e.kind, MvbKind::LimitExceeded, "{e}");
    assert_eq!(e.location, member_at(&format!("{ID}/.mvb.json"), 0));
    assert!(sink.0.files.is_empty());
    // Room for the record is enough for the marker; the first longer path fails later.
    let mut sink = Room(Collect::default(), record.len());
    let e = import_into(&tar, &mut sink).unwrap_err();
    assert_ne!(e.location.offset, Some(0), "{e}");
}

/// §4.2: an archive that ends before any entry has no marker, known at its end-of-archive
/// marker: the validator fed the marker alone already fails, so an all-zero file is not read
/// to its end.
#[test]
fn no_marker_refused_at_the_end_marker() {
    let mut v = ImportValidator::new(MvbLimits::DEFAULT, KEY);
    match v.feed(&END_OF_ARCHIVE, &mut Discard) {
        Err(Failure::Rejected(e)) => {
            assert_eq!((e.kind, e.location.clone()), (MvbKind::InvalidArchive, Location::at(0)));
            assert!(e.to_string().contains("marker .mvb.json missing"), "{e}");
        }
        other => panic!("{other:?}"),
    }
}
