//! `hostile-corpus/mvb/`: one `.mvb.tar` per rule of `spec/mvb.md`, each carrying its exact
//! expected outcome (kind, message and location). Bundles are built here with the core
//! writer (`mvb::write_bundle`: GNU headers, mode 0644, uid/gid 0, mtime = date_archived)
//! plus hand-made header blocks for hostile entries, so they are reproducible bit for bit.

use crate::pax_record;
use crate::{CorpusFile, Expected};
use modelgate_core::digest::{hex, sha256};
use modelgate_core::mvb::append_entry;
use modelgate_core::mvb::{MANIFEST, Manifest, Marker, MvbError, MvbKind, MvbLimits, bundle_hash, check_mvb, covers};
use modelgate_core::tar::{END_OF_ARCHIVE, padding};
use modelgate_core::tar::{FileMeta, Flavor, file_header};

/// What a case must give.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// Accepted.
    Valid,
    /// Rejected with this kind; the error's display (message and location) equals the text
    /// after the kind.
    Reject(MvbKind, &'static str),
}

use Expect::{Reject, Valid};
use MvbKind::{
    IntegrityMismatch as IM, InvalidArchive as IA, InvalidManifest as MF, LimitExceeded as LE, PathTraversal as PT,
    UnsupportedVersion as UV,
};

impl Expected for Expect {
    fn expected(&self) -> &'static str {
        match *self {
            Valid => "valid",
            Reject(k, _) => k.name(),
        }
    }
}

/// The duplicate-table key the generator's checks use (any key gives the same outcome).
const KEY: [u64; 2] = [0x6b30, 0x6b31];

/// The outcome of `modelgate check` for these bytes (`spec/mvb.md` §4, default limits).
pub fn outcome(bytes: &[u8]) -> Result<(), MvbError> {
    check_mvb(bytes, MvbLimits::DEFAULT, KEY).map(|_| ())
}

/// The corpus files of this module.
pub fn files() -> Vec<CorpusFile> {
    let mut out: Vec<CorpusFile> = cases().iter().map(|c| c.file("mvb")).collect();
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

// ---------------------------------------------------------------- bundle builders

const ID: &str = "qwen--qwen3-0.6b@c1899de289a0";
const DATE: &str = "2025-06-01T12:00:00Z";
const MTIME: u64 = 1_748_779_200;
const VERIFY: &[u8] = b"#!/usr/bin/env python3\n# stand-in for darsay-verify.py\n";

/// (path, bytes) of each file.
pub type Files = Vec<(String, Vec<u8>)>;

fn payload() -> Files {
    vec![
        (
            "model/config.json".into(),
            br#"{"hidden_size":1024,"layers":28}"#.to_vec(),
        ),
        (
            "model/model.safetensors".into(),
            (0..1500u32).map(|i| (i * 7 % 251) as u8).collect(),
        ),
        ("model/tokenizer.json".into(), br#"{"vocab":{"a":0,"b":1}}"#.to_vec()),
    ]
}

/// The manifest of a bundle of these payload files under `root/` (`spec/mvb.md` §2): its
/// inventory and `bundle_hash` computed from the files, or `hash` in its place.
pub fn manifest_for(root: &str, files: &Files, hash: Option<&str>) -> String {
    let inv: Vec<String> = files
        .iter()
        .map(|(p, d)| format!(r#"{{"path":"{p}","size":{},"sha256":"{}"}}"#, d.len(), hex(&sha256(d))))
        .collect();
    let hexes: Vec<(String, String)> = files.iter().map(|(p, d)| (p.clone(), hex(&sha256(d)))).collect();
    let computed = bundle_hash(hexes.iter().map(|(p, h)| (p.as_str(), h.as_str())));
    format!(
        r#"{{"schema_version":"1.6.0","kind":"darsay.bundle","artifact_type":"model","bundle_id":"{ID}","inventory":{{"layout":{{"payload_root":"{root}/"}},"files":[{}],"bundle_hash":{{"algorithm":"sha256-of-sorted-sha256-lines","value":"{}","covers":"{}"}}}},"archive":{{"date_archived":"{DATE}"}}}}"#,
        inv.join(","),
        hash.unwrap_or(&computed),
        covers(root)
    )
}

fn manifest() -> String {
    manifest_for("model", &payload(), None)
}

fn marker_for(manifest: &str) -> Marker {
    match Manifest::parse(manifest.as_bytes(), &MvbLimits::DEFAULT, KEY) {
        Ok(m) => Marker::for_manifest(&m),
        Err(e) => panic!("fixture manifest rejected: {e}"),
    }
}

fn marker_text() -> String {
    String::from_utf8_lossy(&marker_for(&manifest()).to_bytes()).into_owned()
}

/// Header, data and padding of one regular entry `<ID>/<path>`.
fn ent(path: &str, data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    append_entry(&mut out, ID, path, data, MTIME).unwrap_or_default();
    out
}

/// The marker entry with `text`.
fn marker_entry(text: &str) -> Vec<u8> {
    ent(".mvb.json", text.as_bytes())
}

/// The sorted file entries (payload, manifest, verifier) of a bundle, without marker.
fn body_of(manifest: &str, files: &Files) -> Vec<u8> {
    let mut all: Files = files.clone();
    all.push((MANIFEST.into(), manifest.as_bytes().to_vec()));
    all.push(("darsay-verify.py".into(), VERIFY.to_vec()));
    all.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    all.iter().flat_map(|(p, d)| ent(p, d)).collect()
}

fn tar(parts: &[Vec<u8>]) -> Vec<u8> {
    let mut out = parts.concat();
    out.extend_from_slice(&END_OF_ARCHIVE);
    out
}

/// A bundle with this manifest text and these payload files, marker from the manifest.
fn bundle_with(manifest: &str, files: &Files) -> Vec<u8> {
    let marker = marker_for(manifest).to_bytes();
    tar(&[ent(".mvb.json", &marker), body_of(manifest, files)])
}

fn valid() -> Vec<u8> {
    bundle_with(&manifest(), &payload())
}

/// The valid bundle's entries with `extra` placed after the marker and before the rest.
fn valid_marker_then(extra: &[u8]) -> Vec<u8> {
    tar(&[
        marker_entry(&marker_text()),
        extra.to_vec(),
        body_of(&manifest(), &payload()),
    ])
}

/// A valid marker and manifest, then `extra` appended after the sorted files.
fn valid_then(extra: &[u8]) -> Vec<u8> {
    tar(&[
        marker_entry(&marker_text()),
        body_of(&manifest(), &payload()),
        extra.to_vec(),
    ])
}

/// The valid bundle with the marker text edited.
fn marker_edit(from: &str, to: &str) -> Vec<u8> {
    let t = marker_text();
    assert!(t.contains(from), "{from}");
    tar(&[marker_entry(&t.replacen(from, to, 1)), body_of(&manifest(), &payload())])
}

/// The valid bundle whose embedded manifest is edited (the marker stays the valid one).
fn manifest_edit(from: &str, to: &str) -> Vec<u8> {
    let m = manifest();
    assert!(m.contains(from), "{from}");
    tar(&[
        marker_entry(&marker_text()),
        body_of(&m.replacen(from, to, 1), &payload()),
    ])
}

/// The valid bundle with `payload()[i]` changed by `f` (manifest unchanged).
fn payload_edit(i: usize, f: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut files = payload();
    f(&mut files[i].1);
    tar(&[marker_entry(&marker_text()), body_of(&manifest(), &files)])
}

const META: FileMeta = FileMeta {
    mode: 0o644,
    mtime: MTIME,
    uid: 0,
    gid: 0,
};

/// Recomputes a header block's checksum.
fn fix(h: &mut [u8]) {
    h[148..156].copy_from_slice(b"        ");
    let sum: u32 = h[..512].iter().map(|&x| u32::from(x)).sum();
    h[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
}

/// A raw entry: GNU header (name cut to 100 bytes) of typeflag `flag` declaring `size`,
/// link name `link`, then `data` and its padding.
fn raw(flag: u8, name: &[u8], size: u64, link: &[u8], data: &[u8]) -> Vec<u8> {
    let mut h = file_header(b"x", size, &META, Flavor::Gnu).unwrap_or_default();
    h[..100].fill(0);
    let n = name.len().min(100);
    h[..n].copy_from_slice(&name[..n]);
    h[156] = flag;
    h[157..157 + link.len().min(100)].copy_from_slice(&link[..link.len().min(100)]);
    fix(&mut h);
    h.extend_from_slice(data);
    h.extend_from_slice(padding(data.len() as u64));
    h
}

fn named(path: &str) -> Vec<u8> {
    format!("{ID}/{path}").into_bytes()
}

fn pax(records: &[u8]) -> Vec<u8> {
    raw(b'x', b"PaxHeaders/entry", records.len() as u64, b"", records)
}

fn long_name(name: &[u8]) -> Vec<u8> {
    let mut d = name.to_vec();
    d.push(0);
    raw(b'L', b"././@LongLink", d.len() as u64, b"", &d)
}

// ---------------------------------------------------------------- case builders

fn valid_dataset() -> Vec<u8> {
    let files: Files = vec![
        ("data/train/part-00000.parquet".into(), b"PAR1 train PAR1".to_vec()),
        ("data/test/part-00000.parquet".into(), b"PAR1 test PAR1".to_vec()),
    ];
    let m = manifest_for("data", &files, None).replace(r#""artifact_type":"model""#, r#""artifact_type":"dataset""#);
    bundle_with(&m, &files)
}

fn valid_long_paths() -> Vec<u8> {
    let files: Files = vec![(
        format!("model/{}/weights.safetensors", "deeply-nested".repeat(12)),
        b"w".to_vec(),
    )];
    bundle_with(&manifest_for("model", &files, None), &files)
}

fn valid_empty_payload_file() -> Vec<u8> {
    let mut files = payload();
    files.push(("model/empty.bin".into(), Vec::new()));
    bundle_with(&manifest_for("model", &files, None), &files)
}

fn valid_metadata_files() -> Vec<u8> {
    let mut files = payload();
    files.push(("README.md".into(), b"# qwen3-0.6b\n".to_vec()));
    files.push(("verification.json".into(), br#"{"result":"pass"}"#.to_vec()));
    bundle_with(&manifest(), &files)
}

fn valid_pax_path() -> Vec<u8> {
    let files = payload();
    let mut all: Files = files.clone();
    all.push((MANIFEST.into(), manifest().into_bytes()));
    all.push(("darsay-verify.py".into(), VERIFY.to_vec()));
    all.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let mut body = Vec::new();
    for (p, d) in &all {
        if p == "model/tokenizer.json" {
            body.extend(pax(&pax_record("path", &named(p))));
            body.extend(raw(b'0', b"PaxHeaders/placeholder", d.len() as u64, b"", d));
        } else {
            body.extend(ent(p, d));
        }
    }
    tar(&[marker_entry(&marker_text()), body])
}

fn manifest_first() -> Vec<u8> {
    tar(&[ent(MANIFEST, manifest().as_bytes()), marker_entry(&marker_text())])
}

fn marker_typed(flag: u8) -> Vec<u8> {
    tar(&[raw(flag, &named(".mvb.json"), 0, b"", b"")])
}

fn typed_entry(flag: u8, path: &str, link: &[u8]) -> Vec<u8> {
    valid_marker_then(&raw(flag, &named(path), 0, link, b""))
}

fn truncated(len_from_end: usize) -> Vec<u8> {
    let v = valid();
    v[..v.len() - len_from_end].to_vec()
}

fn truncated_inside(path: &str, into_data: usize) -> Vec<u8> {
    let v = valid();
    let name = named(path);
    let at = (0..v.len() / 512)
        .map(|b| b * 512)
        .find(|&o| v[o..].starts_with(&name) && v[o + name.len()] == 0);
    v[..at.unwrap_or(0) + 512 + into_data].to_vec()
}

fn hidden_name_bytes() -> Vec<u8> {
    let mut e = ent("README.md", b"x");
    e[99] = b'Z';
    fix(&mut e);
    valid_marker_then(&e)
}

fn v7_header() -> Vec<u8> {
    let mut e = ent("README.md", b"x");
    e[257..265].fill(0);
    fix(&mut e);
    valid_marker_then(&e)
}

fn bad_checksum() -> Vec<u8> {
    let mut e = ent("README.md", b"x");
    e[0] ^= 0x20;
    valid_marker_then(&e)
}

fn build_pax_size_then_long_name() -> Vec<u8> {
    let p = [
        pax(&pax_record("size", b"1")),
        long_name(&named("README.md")),
        ent("README.md", b"x"),
    ]
    .concat();
    valid_marker_then(&p)
}

fn build_pax_path_and_long_name() -> Vec<u8> {
    let p = [
        long_name(&named("README.md")),
        pax(&pax_record("path", &named("README.md"))),
        ent("README.md", b"x"),
    ]
    .concat();
    valid_marker_then(&p)
}

fn build_pax_duplicate_key() -> Vec<u8> {
    let recs = [pax_record("size", b"1"), pax_record("size", b"1")].concat();
    valid_marker_then(&[pax(&recs), ent("README.md", b"x")].concat())
}

fn build_pax_size_leading_zero() -> Vec<u8> {
    valid_marker_then(&[pax(&pax_record("size", b"01")), ent("README.md", b"x")].concat())
}

fn build_pax_size_on_directory() -> Vec<u8> {
    valid_marker_then(
        &[
            pax(&pax_record("size", b"512")),
            raw(b'5', &named("model"), 0, b"", b""),
        ]
        .concat(),
    )
}

/// The PAX size says the entry is one block longer than the header does: a reader using
/// the header size would read the next header as data and the data as a header.
fn build_pax_size_swallows_next_header() -> Vec<u8> {
    let readme = ent("README.md", b"x");
    let p = [pax(&pax_record("size", b"513")), readme].concat();
    valid_marker_then(&p)
}

fn pax_dangling() -> Vec<u8> {
    tar(&[
        marker_entry(&marker_text()),
        body_of(&manifest(), &payload()),
        pax(&pax_record("size", b"1")),
    ])
}

fn build_pax_global_path() -> Vec<u8> {
    let g = raw(b'g', b"pax_global_header", 0, b"", b"");
    let rec = pax_record("path", b"evil");
    let mut g2 = raw(b'g', b"pax_global_header", rec.len() as u64, b"", &rec);
    g2.truncate(512 + rec.len() + padding(rec.len() as u64).len());
    drop(g);
    valid_marker_then(&g2)
}

fn build_pax_sparse() -> Vec<u8> {
    valid_marker_then(&[pax(&pax_record("GNU.sparse.map", b"0,1")), ent("README.md", b"x")].concat())
}

fn build_pax_oversize() -> Vec<u8> {
    let mut h = raw(b'x', b"PaxHeaders/entry", 70_000, b"", b"");
    h.truncate(512);
    [marker_entry(&marker_text()), h].concat()
}

fn build_long_name_oversize() -> Vec<u8> {
    let mut h = raw(b'L', b"././@LongLink", 5000, b"", b"");
    h.truncate(512);
    [marker_entry(&marker_text()), h].concat()
}

fn build_marker_oversize() -> Vec<u8> {
    let mut h = raw(b'0', &named(".mvb.json"), 64 * 1024 + 1, b"", b"");
    h.truncate(512);
    h
}

fn build_manifest_oversize() -> Vec<u8> {
    let mut h = raw(b'0', &named(MANIFEST), 64 * 1024 * 1024 + 1, b"", b"");
    h.truncate(512);
    [marker_entry(&marker_text()), h].concat()
}

fn build_entry_oversize() -> Vec<u8> {
    // 2^40 + 1 bytes in base-256: over max_entry_bytes, decided from the header.
    let mut h = raw(b'0', &named("model/huge.bin"), 0, b"", b"");
    h[124..136].fill(0);
    h[124] = 0x80;
    h[130..136].copy_from_slice(&[0x01, 0x00, 0x00, 0x00, 0x00, 0x01]);
    fix(&mut h);
    [marker_entry(&marker_text()), h].concat()
}

fn build_marker_too_deep() -> Vec<u8> {
    let deep = "[".repeat(20) + &"]".repeat(20);
    marker_edit(r#"{"tool":"darsay"}"#, &deep)
}

fn build_invalid_utf8_path() -> Vec<u8> {
    let mut name = named("model/");
    name.extend_from_slice(&[0xff, 0xfe]);
    valid_marker_then(&raw(b'0', &name, 1, b"", b"x"))
}

fn outside_folder() -> Vec<u8> {
    valid_marker_then(&raw(b'0', b"other@1/README.md", 1, b"", b"x"))
}

fn with_marker(m: &Marker) -> Vec<u8> {
    tar(&[ent(".mvb.json", &m.to_bytes()), body_of(&manifest(), &payload())])
}

fn marker_count_off() -> Vec<u8> {
    let mut m = marker_for(&manifest());
    m.payload_file_count += 1;
    with_marker(&m)
}

fn marker_size_off() -> Vec<u8> {
    let mut m = marker_for(&manifest());
    m.payload_size_bytes -= 1;
    with_marker(&m)
}

fn marker_hash_off() -> Vec<u8> {
    let mut m = marker_for(&manifest());
    m.bundle_hash.value = "0".repeat(64);
    with_marker(&m)
}

fn extra_payload() -> Vec<u8> {
    let mut files = payload();
    files.push(("model/unlisted.bin".into(), b"not in the inventory".to_vec()));
    tar(&[marker_entry(&marker_text()), body_of(&manifest(), &files)])
}

fn missing_payload() -> Vec<u8> {
    let mut files = payload();
    files.remove(1);
    tar(&[marker_entry(&marker_text()), body_of(&manifest(), &files)])
}

fn build_sha256_uppercase() -> Vec<u8> {
    let sha = hex(&sha256(&payload()[0].1));
    manifest_edit(&sha, &sha.to_uppercase())
}

fn build_bundle_hash_mismatch() -> Vec<u8> {
    let m = manifest_for("model", &payload(), Some(&"ab".repeat(32)));
    bundle_with(&m, &payload())
}

fn no_manifest() -> Vec<u8> {
    let mut files = payload();
    files.push(("darsay-verify.py".into(), VERIFY.to_vec()));
    files.sort_by(|a, b| a.0.cmp(&b.0));
    tar(&[
        marker_entry(&marker_text()),
        files.iter().flat_map(|(p, d)| ent(p, d)).collect(),
    ])
}

fn build_out_of_order() -> Vec<u8> {
    let body = [ent("model/b.bin", b"b"), ent("model/a.bin", b"a")].concat();
    tar(&[marker_entry(&marker_text()), body])
}

fn duplicate_exact() -> Vec<u8> {
    let body = [ent("README.md", b"a"), ent("README.md", b"b")].concat();
    tar(&[marker_entry(&marker_text()), body])
}

fn build_duplicate_case_folded() -> Vec<u8> {
    let body = [ent("README.md", b"a"), ent("readme.md", b"b")].concat();
    tar(&[marker_entry(&marker_text()), body])
}

fn build_file_under_file() -> Vec<u8> {
    let body = [ent("README", b"a"), ent("README/x", b"b")].concat();
    tar(&[marker_entry(&marker_text()), body])
}

/// The valid bundle under another bundle id (§1.3): manifest, marker and every entry path
/// use `id`. Paths over 100 bytes go through GNU long names, as export writes them (§2.3).
fn bundle_for_id(id: &str) -> Vec<u8> {
    let m = manifest().replacen(ID, id, 1);
    let marker = marker_text().replacen(ID, id, 1);
    let mut all = payload();
    all.push((MANIFEST.into(), m.into_bytes()));
    all.push(("darsay-verify.py".into(), VERIFY.to_vec()));
    all.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let mut out = Vec::new();
    append_entry(&mut out, id, ".mvb.json", marker.as_bytes(), MTIME).unwrap_or_default();
    for (p, d) in &all {
        append_entry(&mut out, id, p, d, MTIME).unwrap_or_default();
    }
    out.extend_from_slice(&END_OF_ARCHIVE);
    out
}

/// The valid bundle without `darsay-verify.py`: export always writes it (§2.2), but no
/// rule of §4 requires it, so import accepts a bundle that lacks it.
fn without_verifier() -> Vec<u8> {
    let mut all = payload();
    all.push((MANIFEST.into(), manifest().into_bytes()));
    all.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let body: Vec<u8> = all.iter().flat_map(|(p, d)| ent(p, d)).collect();
    tar(&[marker_entry(&marker_text()), body])
}

/// A bundle id of `n` bytes: one path segment.
fn long_id(n: usize) -> String {
    let head = "qwen--qwen3-0.6b@";
    format!("{head}{}", "c".repeat(n - head.len()))
}

/// The valid bundle with a metadata file `path` (outside the payload root) added.
fn with_metadata_file(path: &str, data: &[u8]) -> Vec<u8> {
    let mut files = payload();
    files.push((path.into(), data.to_vec()));
    bundle_with(&manifest(), &files)
}

/// A marker of container major 2 whose other members break every rule of §3.2.
fn build_marker_major_2_rest_invalid() -> Vec<u8> {
    let text = "{\"mvb_format_version\":\"2.0\",\"bundle_id\":\"\",\"artifact_type\":7}\n";
    tar(&[marker_entry(text), body_of(&manifest(), &payload())])
}

// ---------------------------------------------------------------- the table

/// Asserts the exact outcome of one case: the kind, and the display after `KIND: `.
#[cfg(test)]
fn assert_case(case: &crate::Case<Expect>) {
    match (outcome(&case.bytes), case.expect) {
        (Ok(()), Valid) => {}
        (Err(e), Reject(kind, text)) => {
            let shown = e.to_string();
            assert_eq!(e.kind, kind, "{shown}");
            let rest = shown.strip_prefix(kind.name()).and_then(|r| r.strip_prefix(": "));
            assert_eq!(rest, Some(text), "{shown}");
        }
        (got, want) => panic!("got {got:?}, want {want:?}"),
    }
}

cases! {
    expect: Expect;
    ext: "mvb.tar";
    check: assert_case;
    // Valid bundles: every accepted form.
    model_bundle: valid() => Valid;
    dataset_bundle: valid_dataset() => Valid;
    gnu_long_names: valid_long_paths() => Valid;
    empty_payload_file: valid_empty_payload_file() => Valid;
    metadata_files_not_payload: valid_metadata_files() => Valid;
    pax_path: valid_pax_path() => Valid;
    record_padding: [valid(), vec![0u8; 10240 - (valid().len() % 10240)]].concat() => Valid;
    newer_minor_with_unknown_member: marker_edit(r#""1.2""#, r#""1.9","future":{"x":1}"#) => Valid;
    bundle_id_200_bytes: bundle_for_id(&long_id(200)) => Valid;
    payload_root_without_slash: manifest_edit(r#""payload_root":"model/""#, r#""payload_root":"model""#) => Valid;
    date_with_fraction: manifest_edit(DATE, "2025-06-01T12:00:00.25Z") => Valid;
    volatile_names_below_root: with_metadata_file("docs/exports.json", b"[]") => Valid;
    verifier_absent: without_verifier() => Valid;

    // §4.2 the marker first.
    marker_missing: END_OF_ARCHIVE.to_vec() => Reject(IA, "marker .mvb.json missing (byte 0)");
    marker_not_first: manifest_first() => Reject(IA, "marker .mvb.json is not the first entry (member qwen--qwen3-0.6b@c1899de289a0/manifest.json, byte 0)");
    marker_wrong_name: tar(&[ent("mvb.json", marker_text().as_bytes())]) => Reject(IA, "marker .mvb.json is not the first entry (member qwen--qwen3-0.6b@c1899de289a0/mvb.json, byte 0)");
    marker_at_archive_root: tar(&[raw(b'0', b".mvb.json", 2, b"", b"{}")]) => Reject(IA, "marker .mvb.json is not the first entry (member .mvb.json, byte 0)");
    marker_is_directory: marker_typed(b'5') => Reject(IA, "marker .mvb.json is not the first entry (member qwen--qwen3-0.6b@c1899de289a0/.mvb.json, byte 0)");
    marker_is_symlink: marker_typed(b'2') => Reject(IA, "marker .mvb.json is not the first entry (member qwen--qwen3-0.6b@c1899de289a0/.mvb.json, byte 0)");
    marker_under_parent_folder: tar(&[raw(b'0', b"../.mvb.json", 2, b"", b"{}")]) => Reject(IA, "marker .mvb.json is not the first entry (member ../.mvb.json, byte 0)");
    marker_bundle_id_201_bytes: bundle_for_id(&long_id(201)) => Reject(IA, "marker .mvb.json is not the first entry (member qwen--qwen3-0.6b@cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc/.mvb.json, byte 0)");
    marker_oversize: build_marker_oversize() => Reject(LE, "marker exceeds max_marker_bytes (member qwen--qwen3-0.6b@c1899de289a0/.mvb.json, byte 0)");
    marker_invalid_json: marker_edit(r#""written_by""#, r#"'written_by'"#) => Reject(MF, "unexpected byte, expected an object member name (member .mvb.json, byte 389)");
    marker_duplicate_member: marker_edit(r#""artifact_type":"model""#, r#""artifact_type":"model","artifact_type":"x""#) => Reject(MF, "duplicate object member name (member .mvb.json, byte 96)");
    marker_too_deep: build_marker_too_deep() => Reject(LE, "nesting depth limit exceeded (member .mvb.json, byte 417)");
    marker_version_not_major_minor: marker_edit(r#""1.2""#, r#""1.2.0""#) => Reject(MF, "must be MAJOR.MINOR (member .mvb.json, marker.mvb_format_version, byte 22)");
    marker_version_number: marker_edit(r#""1.2""#, "1.2") => Reject(MF, "expected string, found number (member .mvb.json, marker.mvb_format_version, byte 22)");
    marker_container_major_2: marker_edit(r#""1.2""#, r#""2.0""#) => Reject(UV, "container major version 2 is not supported (expected 1) (member .mvb.json, marker.mvb_format_version, byte 22)");
    marker_container_major_0: marker_edit(r#""1.2""#, r#""0.9""#) => Reject(UV, "container major version 0 is not supported (expected 1) (member .mvb.json, marker.mvb_format_version, byte 22)");
    marker_major_2_rest_invalid: build_marker_major_2_rest_invalid() => Reject(UV, "container major version 2 is not supported (expected 1) (member .mvb.json, marker.mvb_format_version, byte 22)");
    marker_version_leading_zero: marker_edit(r#""1.2""#, r#""01.2""#) => Reject(MF, "must be MAJOR.MINOR (member .mvb.json, marker.mvb_format_version, byte 22)");
    marker_schema_major_2: marker_edit(r#""1.6.0""#, r#""2.0.0""#) => Reject(UV, "schema_version major 2 is not supported (expected 1) (member .mvb.json, marker.schema_version, byte 113)");
    marker_schema_not_semver: marker_edit(r#""1.6.0""#, r#""1.6""#) => Reject(MF, "must be MAJOR.MINOR.PATCH (member .mvb.json, marker.schema_version, byte 113)");
    marker_bundle_id_differs: marker_edit(r#""bundle_id":"qwen"#, r#""bundle_id":"xqwen"#) => Reject(MF, "bundle_id differs from the marker's folder (member .mvb.json, marker.bundle_id, byte 40)");
    marker_bundle_hash_algorithm: marker_edit("sha256-of-sorted-sha256-lines", "md5") => Reject(MF, r#"must be "sha256-of-sorted-sha256-lines", not "md5" (member .mvb.json, marker.bundle_hash.algorithm, byte 148)"#);
    marker_written_by_empty: marker_edit(r#"{"tool":"darsay"}"#, r#"{"tool":""}"#) => Reject(MF, "must be a non-empty string (member .mvb.json, marker.written_by.tool, byte 410)");
    marker_artifact_type_empty: marker_edit(r#""artifact_type":"model""#, r#""artifact_type":"""#) => Reject(MF, "must be a non-empty string (member .mvb.json, marker.artifact_type, byte 88)");
    marker_bundle_hash_value_not_hex: marker_edit(r#""value":""#, r#""value":"g"#) => Reject(MF, "must be 64 lowercase hex digits (member .mvb.json, marker.bundle_hash.value, byte 188)");
    marker_count_negative: marker_edit(r#""payload_file_count":3"#, r#""payload_file_count":-3"#) => Reject(MF, "integer out of range (member .mvb.json, marker.payload_file_count, byte 361)");
    marker_count_disagrees: marker_count_off() => Reject(IM, "marker disagrees with manifest.json (member .mvb.json, marker.payload_file_count, byte 361)");
    marker_size_disagrees: marker_size_off() => Reject(IM, "marker disagrees with manifest.json (member .mvb.json, marker.payload_size_bytes, byte 384)");
    marker_hash_disagrees: marker_hash_off() => Reject(IM, "marker disagrees with manifest.json (member .mvb.json, marker.bundle_hash.value, byte 188)");
    marker_covers_malformed: marker_edit(r#""covers":"model/"#, r#""covers":"everything/../"#) => Reject(MF, r#"must state the payload root it covers: exactly "<payload root>/ payload only; bundle-root metadata files are mutable and excluded", not "everything/../ payload only; bundle-root metadata files are muta"… (member .mvb.json, marker.bundle_hash.covers, byte 264)"#);
    marker_artifact_type_disagrees: marker_edit(r#""artifact_type":"model""#, r#""artifact_type":"dataset""#) => Reject(IM, "marker disagrees with manifest.json (member .mvb.json, marker.artifact_type, byte 88)");
    marker_schema_version_disagrees: marker_edit(r#""1.6.0""#, r#""1.7.0""#) => Reject(IM, "marker disagrees with manifest.json (member .mvb.json, marker.schema_version, byte 113)");
    marker_covers_disagrees: marker_edit(r#""covers":"model/"#, r#""covers":"data/"#) => Reject(IM, "marker disagrees with manifest.json (member .mvb.json, marker.bundle_hash.covers, byte 264)");

    // §4.1 tar structure and PAX/ustar desync.
    empty_file: Vec::new() => Reject(IA, "tar stream has no end-of-archive marker (byte 0)");
    not_a_tar: b"this is not a tar archive\n".repeat(40) => Reject(IA, "tar header field chksum is not a valid number (byte 148)");
    bad_header_checksum: bad_checksum() => Reject(IA, "tar header checksum mismatch: stored 6640, computed 6608 (byte 1172)");
    v7_header_without_magic: v7_header() => Reject(IA, "tar header has neither ustar nor GNU magic (byte 1281)");
    hidden_bytes_in_name_field: hidden_name_bytes() => Reject(IA, "tar header field name has bytes after its terminator (byte 1123)");
    truncated_in_marker_header: valid()[..300].to_vec() => Reject(IA, "tar stream is truncated (byte 300)");
    truncated_in_payload_data: truncated_inside("model/model.safetensors", 700) => Reject(IA, "tar stream is truncated (member qwen--qwen3-0.6b@c1899de289a0/model/model.safetensors, byte 5820)");
    truncated_in_padding: truncated_inside("model/config.json", 100) => Reject(IA, "tar stream is truncated (member qwen--qwen3-0.6b@c1899de289a0/model/config.json, byte 4196)");
    truncated_before_end_marker: truncated(1024) => Reject(IA, "tar stream has no end-of-archive marker (byte 7680)");
    truncated_in_end_marker: truncated(512) => Reject(IA, "tar stream has no end-of-archive marker (byte 8192)");
    trailing_garbage: [valid(), b"garbage".to_vec()].concat() => Reject(IA, "data after the end-of-archive marker (byte 8704)");
    pax_size_then_long_name: build_pax_size_then_long_name() => Reject(IA, "GNU long-name entry after a PAX header (byte 2048)");
    pax_path_and_long_name: build_pax_path_and_long_name() => Reject(IA, "path or link given by both PAX and GNU long-name records (byte 1024)");
    pax_duplicate_key: build_pax_duplicate_key() => Reject(IA, "PAX key repeated in one extended header (byte 1545)");
    pax_size_leading_zero: build_pax_size_leading_zero() => Reject(IA, "PAX record size is not a strict decimal number (byte 1536)");
    pax_size_on_directory: build_pax_size_on_directory() => Reject(IA, "non-file tar entry has a non-zero size (member qwen--qwen3-0.6b@c1899de289a0/model, byte 2172)");
    pax_size_swallows_next_header: build_pax_size_swallows_next_header() => Reject(IA, "tar header field chksum is not a valid number (byte 3732)");
    pax_dangling_at_end: pax_dangling() => Reject(IA, "extended header not followed by an entry (byte 7680)");
    pax_global_path: build_pax_global_path() => Reject(IA, "global PAX header sets a key other than comment (byte 1536)");
    pax_sparse: build_pax_sparse() => Reject(IA, "GNU sparse tar entries are not supported (byte 1536)");
    pax_oversize: build_pax_oversize() => Reject(LE, "PAX header or GNU long name exceeds the size limit (byte 1148)");
    long_name_oversize: build_long_name_oversize() => Reject(LE, "PAX header or GNU long name exceeds the size limit (byte 1148)");

    // §4.3 entries.
    symlink_entry: typed_entry(b'2', "model/link", b"../../../etc/passwd") => Reject(PT, "link entry in bundle (member qwen--qwen3-0.6b@c1899de289a0/model/link, byte 1024)");
    hardlink_entry: typed_entry(b'1', "model/link", b"qwen--qwen3-0.6b@c1899de289a0/manifest.json") => Reject(PT, "link entry in bundle (member qwen--qwen3-0.6b@c1899de289a0/model/link, byte 1024)");
    directory_entry: typed_entry(b'5', "model", b"") => Reject(IA, "entry is not a regular file (member qwen--qwen3-0.6b@c1899de289a0/model, byte 1024)");
    char_device_entry: typed_entry(b'3', "dev", b"") => Reject(IA, "entry is not a regular file (member qwen--qwen3-0.6b@c1899de289a0/dev, byte 1024)");
    fifo_entry: typed_entry(b'6', "fifo", b"") => Reject(IA, "entry is not a regular file (member qwen--qwen3-0.6b@c1899de289a0/fifo, byte 1024)");
    contiguous_file_entry: valid_marker_then(&raw(b'7', &named("README.md"), 1, b"", b"x")) => Reject(IA, "entry is not a regular file (member qwen--qwen3-0.6b@c1899de289a0/README.md, byte 1024)");
    traversal_dotdot: valid_marker_then(&ent("../../etc/cron.d/x", b"x")) => Reject(PT, "path has a .. segment at path byte 30 (member qwen--qwen3-0.6b@c1899de289a0/../../etc/cron.d/x, byte 1024)");
    absolute_path: valid_marker_then(&raw(b'0', b"/etc/passwd", 1, b"", b"x")) => Reject(PT, "path is absolute at path byte 0 (member /etc/passwd, byte 1024)");
    backslash_path: valid_marker_then(&ent("model\\..\\..\\x", b"x")) => Reject(PT, "path holds a backslash at path byte 35 (member qwen--qwen3-0.6b@c1899de289a0/model\\..\\..\\x, byte 1024)");
    drive_prefix: valid_marker_then(&raw(b'0', b"C:/x", 1, b"", b"x")) => Reject(PT, "path has a drive prefix at path byte 1 (member C:/x, byte 1024)");
    path_more_than_255_segments: valid_marker_then(&ent(&("d/".repeat(254) + "x"), b"x")) => Reject(IA, "path has more segments than the limit at path byte 538 (member qwen--qwen3-0.6b@c1899de289a0/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/d/, byte 1024)");
    dot_confusable_segment: valid_marker_then(&ent("\u{2025}/x", b"x")) => Reject(PT, "path segment is a dot look-alike traversal at path byte 30 (member qwen--qwen3-0.6b@c1899de289a0/\u{2025}/x, byte 1024)");
    dot_lookalike_inside_name: valid_marker_then(&ent("v1\u{FF0E}0.bin", b"x")) => Reject(PT, "path holds a Unicode dot look-alike (U+FF0E, U+2024 or U+FE52) at path byte 32 (member qwen--qwen3-0.6b@c1899de289a0/v1\u{FF0E}0.bin, byte 1024)");
    invalid_utf8_path: build_invalid_utf8_path() => Reject(PT, "path is not valid UTF-8 at path byte 36 (member qwen--qwen3-0.6b@c1899de289a0/model/��, byte 1024)");
    non_canonical_dot_slash: valid_marker_then(&raw(b'0', format!("./{ID}/README.md").as_bytes(), 1, b"", b"x")) => Reject(IA, "non-canonical entry path (member ./qwen--qwen3-0.6b@c1899de289a0/README.md, byte 1024)");
    non_canonical_double_slash: valid_marker_then(&ent("model//README.md", b"x")) => Reject(IA, "non-canonical entry path (member qwen--qwen3-0.6b@c1899de289a0/model//README.md, byte 1024)");
    non_canonical_trailing_slash: valid_marker_then(&raw(b'0', format!("{ID}/README.md/").as_bytes(), 1, b"", b"x")) => Reject(IA, "regular tar entry named like a folder (member qwen--qwen3-0.6b@c1899de289a0/README.md/, byte 1024)");
    entry_outside_bundle_folder: outside_folder() => Reject(IA, "entry outside the bundle folder (member other@1/README.md, byte 1024)");
    duplicate_entry: duplicate_exact() => Reject(IA, "duplicate entry (member qwen--qwen3-0.6b@c1899de289a0/README.md, byte 2048)");
    duplicate_case_folded: build_duplicate_case_folded() => Reject(IA, "duplicate or conflicting entry path (member qwen--qwen3-0.6b@c1899de289a0/readme.md, byte 2048)");
    file_under_file: build_file_under_file() => Reject(IA, "duplicate or conflicting entry path (member qwen--qwen3-0.6b@c1899de289a0/README/x, byte 2048)");
    second_marker: valid_marker_then(&ent(".mvb.json", marker_text().as_bytes())) => Reject(IA, "duplicate or conflicting entry path (member qwen--qwen3-0.6b@c1899de289a0/.mvb.json, byte 1024)");
    out_of_order: build_out_of_order() => Reject(IA, "entry out of sorted order (member qwen--qwen3-0.6b@c1899de289a0/model/a.bin, byte 2048)");
    volatile_exports_json: valid_marker_then(&ent("exports.json", b"[]")) => Reject(IA, "volatile machine-local file in archive (member qwen--qwen3-0.6b@c1899de289a0/exports.json, byte 1024)");
    volatile_transfer_lock: valid_marker_then(&ent("transfer.lock", b"")) => Reject(IA, "volatile machine-local file in archive (member qwen--qwen3-0.6b@c1899de289a0/transfer.lock, byte 1024)");
    volatile_ds_store: valid_then(&ent("model/zz/.DS_Store", b"x")) => Reject(IA, "volatile machine-local file in archive (member qwen--qwen3-0.6b@c1899de289a0/model/zz/.DS_Store, byte 7680)");
    volatile_hydration_json: valid_marker_then(&ent("hydration.json", b"{}")) => Reject(IA, "volatile machine-local file in archive (member qwen--qwen3-0.6b@c1899de289a0/hydration.json, byte 1024)");
    volatile_transfer_json: valid_then(&ent("transfer.json", b"{}")) => Reject(IA, "volatile machine-local file in archive (member qwen--qwen3-0.6b@c1899de289a0/transfer.json, byte 7680)");
    folder_named_verification_json: valid_then(&ent("verification.json/x", b"x")) => Reject(IA, "folder at a bundle-root name import writes (member qwen--qwen3-0.6b@c1899de289a0/verification.json/x, byte 7680)");
    folder_named_manifest_json_upper_case: valid_marker_then(&ent("MANIFEST.JSON/x", b"x")) => Reject(IA, "folder at a bundle-root name import writes (member qwen--qwen3-0.6b@c1899de289a0/MANIFEST.JSON/x, byte 1024)");
    entry_oversize: build_entry_oversize() => Reject(LE, "entry exceeds max_entry_bytes (member qwen--qwen3-0.6b@c1899de289a0/model/huge.bin, byte 1024)");

    // §4.4 the manifest.
    manifest_missing: no_manifest() => Reject(MF, "bundle has no manifest.json (byte 7168)");
    manifest_oversize: build_manifest_oversize() => Reject(LE, "manifest.json exceeds max_manifest_bytes (member qwen--qwen3-0.6b@c1899de289a0/manifest.json, byte 1024)");
    manifest_invalid_json: manifest_edit(r#""kind":"#, r#""kind"="#) => Reject(MF, "unexpected byte, expected ':' after the member name (member manifest.json, byte 32)");
    manifest_duplicate_member: manifest_edit(r#""kind":"darsay.bundle""#, r#""kind":"darsay.bundle","kind":"x""#) => Reject(MF, "duplicate object member name (member manifest.json, byte 49)");
    manifest_schema_major_2: manifest_edit(r#""1.6.0""#, r#""2.0.0""#) => Reject(UV, "schema_version major 2 is not supported (expected 1) (member manifest.json, manifest.schema_version, byte 18)");
    manifest_kind_wrong: manifest_edit("darsay.bundle", "darsay.other") => Reject(MF, r#"must be "darsay.bundle", not "darsay.other" (member manifest.json, manifest.kind, byte 33)"#);
    manifest_schema_leading_zero: manifest_edit(r#""1.6.0""#, r#""1.06.0""#) => Reject(MF, "must be MAJOR.MINOR.PATCH (member manifest.json, manifest.schema_version, byte 18)");
    manifest_artifact_type_empty: manifest_edit(r#""artifact_type":"model""#, r#""artifact_type":"""#) => Reject(MF, "must be a non-empty string (member manifest.json, manifest.artifact_type, byte 65)");
    manifest_bundle_id_201_bytes: manifest_edit(ID, &long_id(201)) => Reject(MF, "must be one plain path segment of at most 200 bytes (member manifest.json, manifest.bundle_id, byte 85)");
    manifest_payload_root_traversal: manifest_edit(r#""payload_root":"model/""#, r#""payload_root":"../""#) => Reject(MF, "must be one plain path segment, optionally ending in / (member manifest.json, manifest.inventory.layout.payload_root, byte 155)");
    manifest_payload_root_metadata_name: manifest_edit(r#""payload_root":"model/""#, r#""payload_root":"exports.json/""#) => Reject(MF, "must be one plain path segment, optionally ending in / (member manifest.json, manifest.inventory.layout.payload_root, byte 155)");
    manifest_inventory_path_outside_root: manifest_edit(r#""path":"model/config.json""#, r#""path":"config.json""#) => Reject(MF, "must be a normalised bundle path under the payload root (member manifest.json, manifest.inventory.files[0].path, byte 182)");
    manifest_inventory_duplicate_path: manifest_edit(r#""path":"model/config.json""#, r#""path":"model/Tokenizer.json""#) => Reject(MF, "duplicate or conflicting inventory path (member manifest.json, manifest.inventory.files[2].path, byte 423)");
    manifest_sha256_uppercase: build_sha256_uppercase() => Reject(MF, "must be 64 lowercase hex digits (member manifest.json, manifest.inventory.files[0].sha256, byte 221)");
    manifest_size_negative: manifest_edit(r#""size":32"#, r#""size":-32"#) => Reject(MF, "integer out of range (member manifest.json, manifest.inventory.files[0].size, byte 209)");
    manifest_bundle_hash_algorithm: manifest_edit("sha256-of-sorted-sha256-lines", "sha256") => Reject(MF, r#"must be "sha256-of-sorted-sha256-lines", not "sha256" (member manifest.json, manifest.inventory.bundle_hash.algorithm, byte 558)"#);
    manifest_bundle_hash_value_not_hex: manifest_edit(r#""value":""#, r#""value":"g"#) => Reject(MF, "must be 64 lowercase hex digits (member manifest.json, manifest.inventory.bundle_hash.value, byte 598)");
    manifest_covers_other_root: manifest_edit(r#""covers":"model/"#, r#""covers":"data/"#) => Reject(MF, r#"must state the payload root it covers: exactly "model/ payload only; bundle-root metadata files are mutable and excluded", not "data/ payload only; bundle-root metadata files are mutable and e"… (member manifest.json, manifest.inventory.bundle_hash.covers, byte 674)"#);
    manifest_date_not_utc: manifest_edit(DATE, "2025-06-01T14:00:00+02:00") => Reject(MF, "must be RFC 3339 UTC (member manifest.json, manifest.archive.date_archived, byte 778)");
    manifest_date_february_29_2025: manifest_edit(DATE, "2025-02-29T12:00:00Z") => Reject(MF, "must be RFC 3339 UTC (member manifest.json, manifest.archive.date_archived, byte 778)");
    manifest_date_leap_second: manifest_edit(DATE, "2016-12-31T23:59:60Z") => Reject(MF, "must be RFC 3339 UTC (member manifest.json, manifest.archive.date_archived, byte 778)");
    manifest_date_before_1970: manifest_edit(DATE, "1969-12-31T23:59:59Z") => Reject(MF, "must be RFC 3339 UTC (member manifest.json, manifest.archive.date_archived, byte 778)");
    manifest_bundle_id_differs: manifest_edit(r#""bundle_id":"qwen"#, r#""bundle_id":"xqwen"#) => Reject(IM, "marker disagrees with manifest.json (member .mvb.json, marker.bundle_id, byte 40)");

    // §4.5, §4.6 integrity.
    payload_flipped_first_byte: payload_edit(1, |d| d[0] ^= 1) => Reject(IM, "payload SHA-256 differs from the inventory (member model/model.safetensors, byte 5120)");
    payload_flipped_middle_byte: payload_edit(1, |d| d[750] ^= 0x80) => Reject(IM, "payload SHA-256 differs from the inventory (member model/model.safetensors, byte 5120)");
    payload_flipped_last_byte: payload_edit(0, |d| { let n = d.len() - 1; d[n] ^= 1 }) => Reject(IM, "payload SHA-256 differs from the inventory (member model/config.json, byte 4096)");
    payload_size_mismatch: payload_edit(2, |d| d.push(b' ')) => Reject(IM, "payload size differs from the inventory (member model/tokenizer.json, byte 7168)");
    extra_payload_file: extra_payload() => Reject(IM, "extra payload file not in the inventory (member model/unlisted.bin, byte 8192)");
    missing_payload_file: missing_payload() => Reject(IM, "missing payload file listed in the inventory (member manifest.json, manifest.inventory.files[1], byte 289)");
    bundle_hash_mismatch: build_bundle_hash_mismatch() => Reject(IM, "bundle hash does not match the payload (member manifest.json, manifest.inventory.bundle_hash.value, byte 598)");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_least_fifty_files_with_distinct_names() {
        crate::assert_enough_distinct(cases().iter().map(|c| c.name), 50);
    }

    #[test]
    fn every_kind_has_a_case() {
        let all = cases();
        for kind in MvbKind::ALL {
            assert!(
                all.iter().any(|c| matches!(c.expect, Reject(k, _) if k == kind)),
                "{kind:?}"
            );
        }
    }

    #[test]
    #[ignore]
    fn print_outcomes() {
        for c in cases() {
            match outcome(&c.bytes) {
                Ok(()) => println!("{}: ok", c.name),
                Err(e) => println!("{}: {:?} => {}", c.name, e.kind, e),
            }
        }
    }
}
