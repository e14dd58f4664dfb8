//! `hostile-corpus/mlbundle/`: one file per rule of `spec/mlbundle.md`, each named for the
//! rule and carrying the exact outcome (`valid`, or kind, member and byte offset) that the
//! tests below assert through `modelgate_core::mlbundle::load_container` (§2–§8 and the
//! `model.onnx` step of §12.2, as `modelgate check` runs them). Files that Python's
//! zipfile wrote (`tools/mlbundle_python_fixtures.py`) are included byte for byte from
//! `fixtures/mlbundle/`.

#[path = "mlbundle/zip.rs"]
pub mod zip;
#[path = "mlbundle/zipdiff.rs"]
pub mod zipdiff;

use crate::{CorpusFile, Expected};
use modelgate_core::digest::sha256;
use modelgate_core::mlbundle::{ArchiveLimits, IntegrityRecord, Manifest, MemberName, Recipe, load_container};
use zip::{Desc, Layout, Member, Zip, crc32, patch};

/// What a case must give.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expect {
    /// Accepted.
    Valid,
    /// Rejected with this kind, in this member (if any), at this byte offset (if any).
    Reject(&'static str, Option<&'static str>, Option<u64>),
}

use Expect::{Reject, Valid};

impl Expected for Expect {
    fn expected(&self) -> &'static str {
        match *self {
            Valid => "valid",
            Reject(k, _, _) => k,
        }
    }
}

/// The outcome the library gives for `bytes` under the default limits.
pub fn outcome(bytes: &[u8]) -> Expect {
    match load_container(bytes, &ArchiveLimits::DEFAULT) {
        Ok(_) => Valid,
        Err(e) => {
            let member = e.member.map(MemberName::as_str);
            Reject(e.kind.name(), member, e.location.offset)
        }
    }
}

/// The corpus files of this module.
pub fn files() -> Vec<CorpusFile> {
    let mut out: Vec<CorpusFile> = cases().iter().map(|c| c.file("mlbundle")).collect();
    out.extend(zipdiff::cases().iter().map(|c| c.file("mlbundle")));
    out.extend(
        python_fixtures()
            .into_iter()
            .map(|(name, bytes)| CorpusFile::case("mlbundle", "valid", name, "mlbundle", bytes)),
    );
    out
}

/// Bundles written by Python's zipfile (`tools/mlbundle_python_fixtures.py`).
pub fn python_fixtures() -> Vec<(&'static str, &'static [u8])> {
    vec![
        (
            "python-zipfile-stored",
            include_bytes!("../fixtures/mlbundle/python-zipfile-stored.mlbundle"),
        ),
        (
            "python-zipfile-descriptors",
            include_bytes!("../fixtures/mlbundle/python-zipfile-descriptors.mlbundle"),
        ),
        (
            "python-zipfile-force-zip64",
            include_bytes!("../fixtures/mlbundle/python-zipfile-force-zip64.mlbundle"),
        ),
        (
            "python-zipfile-descriptors-zip64",
            include_bytes!("../fixtures/mlbundle/python-zipfile-descriptors-zip64.mlbundle"),
        ),
        (
            "python-zipfile-central-order",
            include_bytes!("../fixtures/mlbundle/python-zipfile-central-order.mlbundle"),
        ),
        (
            "python-zipfile-stored-descriptors",
            include_bytes!("../fixtures/mlbundle/python-zipfile-stored-descriptors.mlbundle"),
        ),
        (
            "python-zipfile-stored-descriptors-zip64",
            include_bytes!("../fixtures/mlbundle/python-zipfile-stored-descriptors-zip64.mlbundle"),
        ),
    ]
}

// ------------------------------------------------------------------ bundle contents

/// The model member's bytes: a self-contained ONNX model (§12.2) whose one uint8
/// initializer `w`, the graph's output, holds runs and noise, so deflate has work of both
/// kinds.
pub fn model_bytes() -> Vec<u8> {
    onnx_with_weights(&[crate::rng::pseudorandom(600, 0x6d6c62), vec![0u8; 300]].concat())
}

/// ModelProto { ir_version 7, producer "onnx", graph { initializer w (uint8, `raw`),
/// output w } }.
fn onnx_with_weights(raw: &[u8]) -> Vec<u8> {
    use crate::onemodel::pb::{int, len};
    let tensor = [int(1, raw.len() as u64), int(2, 2), len(8, b"w"), len(9, raw)].concat();
    let graph = [len(5, &tensor), len(12, &len(1, b"w"))].concat();
    [int(1, 7), len(2, b"onnx"), len(7, &graph)].concat()
}

/// A weight-less stub whose one tensor names external data (§12.2: unsupported), and the
/// offset of that tensor in it.
fn onnx_external_stub() -> (Vec<u8>, u64) {
    use crate::onemodel::pb::{int, len};
    let entry = [len(1, b"location"), len(2, b"model.onnx.data")].concat();
    let tensor = [int(1, 1 << 20), int(2, 1), len(8, b"w"), len(13, &entry), int(14, 1)].concat();
    let graph = [len(5, &tensor), len(12, &len(1, b"w"))].concat();
    let head = [int(1, 7), len(2, b"onnx")].concat();
    // The tensor's offset: the head, the graph's key and length, the initializer's key and
    // length (one byte each: both are under 128).
    let at = head.len() as u64 + 2 + 2;
    ([head, len(7, &graph)].concat(), at)
}

/// A valid schema.json with two inputs.
pub const SCHEMA: &[u8] = br#"{"inputs":[{"name":"x","dtype":"float32"},{"name":"y","dtype":"category"}]}"#;
/// A valid samples.json for [`SCHEMA`].
pub const SAMPLES: &[u8] = br#"{"rows":[[1.5,"a"],[null,"b"]]}"#;
/// A valid structure.json.
pub const STRUCTURE: &[u8] = br#"{"trees":[{"nodes":[0,1,2]}]}"#;

/// `samples.json` for [`SCHEMA`] with `n` rows, the last one cell short; its deflate
/// stream (a few kilobytes, [`crate::deflate::periodic`]) and the last row's offset.
fn many_rows(n: usize) -> (Vec<u8>, Vec<u8>, u64) {
    let (head, unit, tail) = (b"{\"rows\":[", b"[0,1],", b"[0]]}");
    let s = crate::deflate::periodic(head, unit, n - 1, tail);
    let last = (head.len() + unit.len() * (n - 1)) as u64;
    (s.out.clone(), s.finish(), last)
}

/// `schema.json` with `n` distinct inputs and then one named like the first, and the
/// offset of that last name's value.
fn many_fields(n: usize) -> (Vec<u8>, u64) {
    let mut s = b"{\"inputs\":[".to_vec();
    for i in 0..n {
        s.extend_from_slice(format!("{{\"name\":\"f{i}\",\"dtype\":\"float32\"}},").as_bytes());
    }
    s.extend_from_slice(b"{\"name\":");
    let last = s.len() as u64;
    s.extend_from_slice(b"\"f0\",\"dtype\":\"bool\"}]}");
    (s, last)
}

/// The canonical manifest for `recipe` with integrity records of `members` (non-manifest).
pub fn manifest_for(recipe: Recipe, members: &[(&str, &[u8])]) -> String {
    let has = |n: &str| members.iter().any(|(m, _)| *m == n);
    let mut m = Manifest::new(recipe, has("structure.json"), has("samples.json"));
    for (name, bytes) in members {
        if let Some(n) = MemberName::parse(name) {
            m.integrity.insert(
                n,
                IntegrityRecord {
                    sha256: sha256(bytes),
                    size: bytes.len() as u64,
                },
            );
        }
    }
    m.to_json()
}

/// Members of the standard bundle: model.onnx and schema.json.
fn std_members() -> Vec<(&'static str, Vec<u8>)> {
    vec![("model.onnx", model_bytes()), ("schema.json", SCHEMA.to_vec())]
}

/// A zip of `manifest` then `members` in that order.
fn zip_of(manifest: &str, members: &[(&str, Vec<u8>)]) -> Zip {
    let mut all = vec![Member::new("manifest.json", manifest.as_bytes())];
    all.extend(members.iter().map(|(n, b)| Member::new(n, b)));
    Zip::new(all)
}

/// A zip of the given members with a matching manifest for `recipe`.
fn bundle(recipe: Recipe, members: &[(&str, Vec<u8>)]) -> Zip {
    let refs: Vec<(&str, &[u8])> = members.iter().map(|(n, b)| (*n, b.as_slice())).collect();
    zip_of(&manifest_for(recipe, &refs), members)
}

/// A plain archive whose last central header (manifest.json, local order model.cbm,
/// schema.json, manifest.json) carries the ZIP64 locator signature `50 4b 06 07` at
/// `len - 42`: external attributes `0x064b5000` (no type bits, §2.9) and a local offset
/// whose low byte is 7, found by growing the stored model.cbm (§2.2).
fn central_header_holding_locator_signature() -> Vec<u8> {
    for extra in 0..256 {
        let mut z = bundle(
            Recipe::Standalone(MemberName::ModelCbm),
            &[("model.cbm", vec![b'C'; 4 + extra]), ("schema.json", SCHEMA.to_vec())],
        );
        z.members.rotate_left(1);
        // Stored, so that each byte of model.cbm moves the manifest's local offset by one.
        let model = z.members.remove(0).stored();
        z.members.insert(0, model);
        if let Some(m) = z.members.last_mut() {
            m.external = 0x064b_5000;
        }
        let bytes = z.build().0;
        if bytes.len() >= 42 && bytes.get(bytes.len() - 42..bytes.len() - 38) == Some(b"PK\x06\x07".as_slice()) {
            return bytes;
        }
    }
    Vec::new()
}

/// The standard valid bundle: manifest.json (0), model.onnx (1), schema.json (2).
fn std_zip() -> Zip {
    bundle(Recipe::Standalone(MemberName::ModelOnnx), &std_members())
}

/// The standard bundle with member `i` changed by `f`.
fn with(i: usize, f: impl FnOnce(&mut Member)) -> Zip {
    let mut z = std_zip();
    f(&mut z.members[i]);
    z
}

/// The standard bundle's manifest text with `from` replaced by `to`.
fn std_manifest_edit(from: &str, to: &str) -> Vec<u8> {
    let refs: Vec<(&str, Vec<u8>)> = std_members();
    let r: Vec<(&str, &[u8])> = refs.iter().map(|(n, b)| (*n, b.as_slice())).collect();
    let text = manifest_for(Recipe::Standalone(MemberName::ModelOnnx), &r);
    assert!(text.contains(from), "{from} not in {text}");
    zip_of(&text.replacen(from, to, 1), &refs).build().0
}

/// The standard manifest's text.
fn std_manifest() -> String {
    let refs = std_members();
    let r: Vec<(&str, &[u8])> = refs.iter().map(|(n, b)| (*n, b.as_slice())).collect();
    manifest_for(Recipe::Standalone(MemberName::ModelOnnx), &r)
}

/// The standard bundle with member `i`'s bytes replaced (manifest integrity follows).
fn std_with_member(name: &'static str, bytes: &[u8]) -> Zip {
    let mut m = std_members();
    for (n, b) in &mut m {
        if *n == name {
            *b = bytes.to_vec();
        }
    }
    bundle(Recipe::Standalone(MemberName::ModelOnnx), &m)
}

fn built(z: Zip) -> (Vec<u8>, Layout) {
    z.build()
}

fn ic(member: Option<&'static str>, at: u64) -> Expect {
    Reject("InvalidContainer", member, Some(at))
}
fn limit(member: Option<&'static str>, at: u64) -> Expect {
    Reject("LimitExceeded", member, Some(at))
}
fn im(at: u64) -> Expect {
    Reject("InvalidManifest", Some("manifest.json"), Some(at))
}
fn im_path() -> Expect {
    Reject("InvalidManifest", Some("manifest.json"), None)
}
fn ij(member: &'static str, at: u64) -> Expect {
    Reject("InvalidJSON", Some(member), Some(at))
}
fn integrity(member: &'static str) -> Expect {
    Reject("IntegrityMismatch", Some(member), None)
}
fn unsupported(at: u64) -> Expect {
    Reject("UnsupportedFormatVersion", Some("manifest.json"), Some(at))
}

const MODEL: Option<&str> = Some("model.onnx");
const SCHEMA_M: Option<&str> = Some("schema.json");
const MANIFEST_M: Option<&str> = Some("manifest.json");

/// The standard bundle with member `i` renamed to `name` (local and central): the name is
/// unknown at the central header's name field.
fn renamed(name: &[u8]) -> (Vec<u8>, Expect) {
    let (b, l) = built(with(2, |m| m.name = name.to_vec()));
    (b, ic(None, l.central[2] + 46))
}

/// The standard bundle with `bytes` patched at `field` of member `i`'s central header.
fn central_patch(i: usize, field: u64, bytes: &[u8]) -> (Vec<u8>, Layout) {
    let (mut b, l) = built(std_zip());
    patch(&mut b, l.central[i] + field, bytes);
    (b, l)
}

/// Patches `field` of member `i`'s local and central headers alike (local offsets are the
/// central ones minus 4 from version-needed on, except the offset fields).
fn both_patch(z: Zip, i: usize, local_field: u64, bytes: &[u8]) -> (Vec<u8>, Layout) {
    let (mut b, l) = built(z);
    patch(&mut b, l.local[i] + local_field, bytes);
    patch(&mut b, l.central[i] + local_field + 2, bytes);
    (b, l)
}

fn attr(external: u32) -> (Vec<u8>, Expect) {
    let (b, l) = built(with(1, |m| m.external = external));
    (b, ic(MODEL, l.central[1] + 38))
}

fn desc(signed: bool, wide: bool) -> Zip {
    with(1, |m| {
        m.descriptor = Some(Desc {
            signed,
            wide,
            zero_local: true,
        });
        m.local_zip64 = wide;
    })
}

/// A stored `model.cbm` with a data descriptor whose data holds, after 12 bytes, a signed
/// descriptor for those 12 bytes and a local header of another `model.cbm`: what
/// `bsdtar -xf -` reads as the member (spec/mlbundle.md §2.11.1). A native model, which the
/// load does not parse, so that the planted bytes are the file's only fault.
fn planted_descriptor(wide: bool) -> (Vec<u8>, Expect) {
    let head = b"\x08\x07\x12\x04onnx\0\0\0\0".to_vec();
    let k = head.len() as u64;
    let mut fake = b"PK\x07\x08".to_vec();
    fake.extend_from_slice(&crc32(&head).to_le_bytes());
    if wide {
        fake.extend_from_slice(&k.to_le_bytes());
        fake.extend_from_slice(&k.to_le_bytes());
    } else {
        fake.extend_from_slice(&(k as u32).to_le_bytes());
        fake.extend_from_slice(&(k as u32).to_le_bytes());
    }
    let evil = b"\x08\x07\x12\x04EVIL";
    let mut local = b"PK\x03\x04\x0a\x00\x00\x00\x00\x00\x00\x00\x21\x00".to_vec();
    local.extend_from_slice(&crc32(evil).to_le_bytes());
    local.extend_from_slice(&(evil.len() as u32).to_le_bytes());
    local.extend_from_slice(&(evil.len() as u32).to_le_bytes());
    local.extend_from_slice(&9u16.to_le_bytes());
    local.extend_from_slice(&0u16.to_le_bytes());
    local.extend_from_slice(b"model.cbm");
    local.extend_from_slice(evil);
    let data = [head, fake, local, b"rest of the real model".to_vec()].concat();
    let mut z = bundle(
        Recipe::Standalone(MemberName::ModelCbm),
        &[("model.cbm", data), ("schema.json", SCHEMA.to_vec())],
    );
    z.members[1] = z.members[1].clone().stored();
    z.members[1].descriptor = Some(Desc {
        signed: true,
        wide,
        zero_local: true,
    });
    z.members[1].local_zip64 = wide;
    let (b, l) = built(z);
    (b, ic(Some("model.cbm"), l.data[1] + k))
}

fn le16(v: u16) -> [u8; 2] {
    v.to_le_bytes()
}
fn le32(v: u32) -> [u8; 4] {
    v.to_le_bytes()
}

fn nested(depth: usize) -> String {
    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
}

cases! {
    @pairs
    expect: Expect;
    ext: "mlbundle";
    check: |case| assert_eq!(outcome(&case.bytes), case.expect);
    // ---------------------------------------------------------------- valid (§2, §10)
    writer_standalone_onnx => (std_zip().build().0, Valid);
    standalone_skops => (bundle(Recipe::Standalone(MemberName::ModelSkops),
        &[("model.skops", b"skops".to_vec()), ("schema.json", SCHEMA.to_vec())]).build().0, Valid);
    standalone_ubj => (bundle(Recipe::Standalone(MemberName::ModelUbj),
        &[("model.ubj", b"{U".to_vec()), ("schema.json", SCHEMA.to_vec())]).build().0, Valid);
    standalone_cbm => (bundle(Recipe::Standalone(MemberName::ModelCbm),
        &[("model.cbm", b"CBM1".to_vec()), ("schema.json", SCHEMA.to_vec())]).build().0, Valid);
    composite_skops_ubj_all_members => (bundle(Recipe::Composite(MemberName::ModelUbj), &[
        ("model.skops", b"skops".to_vec()), ("model.ubj", b"ubj".to_vec()), ("schema.json", SCHEMA.to_vec()),
        ("structure.json", STRUCTURE.to_vec()), ("samples.json", SAMPLES.to_vec())]).build().0, Valid);
    composite_skops_cbm => (bundle(Recipe::Composite(MemberName::ModelCbm), &[
        ("model.skops", b"skops".to_vec()), ("model.cbm", b"cbm".to_vec()),
        ("schema.json", SCHEMA.to_vec())]).build().0, Valid);
    stored_members => {
        let mut z = std_zip();
        for m in &mut z.members { m.method = 0; }
        (z.build().0, Valid)
    };
    stored_version_10 => (with(2, |m| { m.method = 0; m.version = 10; }).build().0, Valid);
    empty_stored_model_ratio_exempt => (bundle(Recipe::Standalone(MemberName::ModelCbm),
        &[("model.cbm", Vec::new()), ("schema.json", SCHEMA.to_vec())])
        .members.into_iter().enumerate().map(|(i, m)| if i == 1 { m.stored() } else { m })
        .collect::<Vec<_>>().pipe(|ms| Zip::new(ms).build().0), Valid);
    descriptor_unsigned_32 => (desc(false, false).build().0, Valid);
    descriptor_signed_32 => (desc(true, false).build().0, Valid);
    descriptor_unsigned_64 => (desc(false, true).build().0, Valid);
    descriptor_signed_64 => (desc(true, true).build().0, Valid);
    descriptor_local_values_match => (with(1, |m| m.descriptor = Some(Desc {
        signed: true, wide: false, zero_local: false })).build().0, Valid);
    forced_zip64_local => (with(1, |m| m.local_zip64 = true).build().0, Valid);
    stored_descriptor_planted_in_payload => planted_descriptor(false);
    stored_descriptor_planted_in_payload_zip64 => planted_descriptor(true);
    stored_descriptor_signature_in_payload => {
        // The signature alone, its CRC and sizes not those of the bytes before it: no
        // streaming reader stops. In a native model, which the load does not parse.
        let cbm = [&b"cbm"[..], b"PK\x07\x08", &[9u8; 16], b"tail"].concat();
        let mut z = bundle(Recipe::Standalone(MemberName::ModelCbm), &[("model.cbm", cbm), ("schema.json", SCHEMA.to_vec())]);
        z.members[1] = z.members[1].clone().stored();
        z.members[1].descriptor = Some(Desc { signed: true, wide: false, zero_local: true });
        (z.build().0, Valid)
    };
    local_zip64_one_size => {
        // The uncompressed size in the ZIP64 field, the compressed size in the header.
        let (mut b, l) = built(with(1, |m| {
            m.local_zip64 = true;
            m.local_extra = Some([&1u16.to_le_bytes()[..], &8u16.to_le_bytes(), &(m.data.len() as u64).to_le_bytes()].concat());
        }));
        let csize: [u8; 4] = b[(l.central[1] + 20) as usize..][..4].try_into().unwrap();
        patch(&mut b, l.local[1] + 18, &csize);
        (b, ic(MODEL, l.local[1] + 18))
    };
    zip64_central_sentinels => (with(1, |m| { m.central_zip64 = true; m.version = 45; }).build().0, Valid);
    zip64_end_record_with_sentinels => {
        let mut z = std_zip();
        z.zip64_end = true;
        z.end_sentinels = true;
        (z.build().0, Valid)
    };
    zip64_end_record_agreeing_values => {
        let mut z = std_zip();
        z.zip64_end = true;
        (z.build().0, Valid)
    };
    central_order_reversed => {
        let mut z = std_zip();
        z.central_order = vec![2, 1, 0];
        (z.build().0, Valid)
    };
    utf8_name_flag => (with(2, |m| m.flags = 0x800).build().0, Valid);
    deflate_option_bits => (with(1, |m| m.flags = 0b110).build().0, Valid);
    version_45_without_zip64 => (with(1, |m| m.version = 45).build().0, Valid);
    unix_type_omitted => (with(1, |m| m.external = 0).build().0, Valid);
    dos_creator_readonly_attribute => (with(1, |m| { m.external = 0x01; m.made_by = 0x0014; }).build().0, Valid);
    other_writer_version_still_valid => (std_manifest_edit(
        &format!("\"writer_version\":\"{}\"", modelgate_core::mlbundle::READER_VERSION),
        "\"writer_version\":\"9.8.7-rc.1\""), Valid);

    // ------------------------------------------------------------- end records (§2.1, §2.2)
    empty_file => (Vec::new(), ic(None, 0));
    shorter_than_end_record => (b"PK\x05\x06\0\0\0\0".to_vec(), ic(None, 0));
    archive_comment => {
        let (mut b, l) = built(std_zip());
        patch(&mut b, l.end + 20, &le16(5));
        b.extend_from_slice(b"hello");
        let n = b.len() as u64;
        (b, ic(None, n - 22))
    };
    appended_byte => {
        let (mut b, _) = built(std_zip());
        b.push(0);
        let n = b.len() as u64;
        (b, ic(None, n - 22))
    };
    prepended_byte_polyglot => {
        let (b, l) = built(std_zip());
        let mut p = vec![b'#'];
        p.extend(b);
        (p, ic(None, l.end + 1))
    };
    prefix_with_adjusted_offsets => {
        let mut z = std_zip();
        z.prefix = b"#!/bin/sh\n".to_vec();
        (z.build().0, ic(None, 0))
    };
    end_record_signature => {
        let (mut b, l) = built(std_zip());
        patch(&mut b, l.end, b"PK\x05\x07");
        (b, ic(None, l.end))
    };
    multi_disk_number => {
        let (mut b, l) = built(std_zip());
        patch(&mut b, l.end + 4, &le16(1));
        (b, ic(None, l.end + 4))
    };
    multi_disk_entry_counts_differ => {
        let (mut b, l) = built(std_zip());
        patch(&mut b, l.end + 8, &le16(2));
        (b, ic(None, l.end + 4))
    };
    directory_size_disagrees => {
        let (mut b, l) = built(std_zip());
        let size = (l.end - l.cd) as u32;
        patch(&mut b, l.end + 12, &le32(size - 1));
        (b, ic(None, l.end))
    };
    directory_count_too_high => {
        let (mut b, l) = built(std_zip());
        patch(&mut b, l.end + 8, &[4, 0, 4, 0]);
        (b, ic(None, l.end))
    };
    directory_count_too_low => {
        let (mut b, l) = built(std_zip());
        patch(&mut b, l.end + 8, &[2, 0, 2, 0]);
        (b, ic(None, l.central[2]))
    };
    sentinel_without_zip64_end => {
        let (mut b, l) = built(std_zip());
        patch(&mut b, l.end + 16, &le32(u32::MAX));
        (b, ic(None, l.end))
    };
    locator_signature_in_central_header => {
        let b = central_header_holding_locator_signature();
        let at = b.len() as u64 - 42;
        (b, ic(None, at))
    };
    zip64_locator_disk => {
        let mut z = std_zip();
        z.zip64_end = true;
        let (mut b, l) = built(z);
        patch(&mut b, l.end - 20 + 16, &le32(2));
        (b, ic(None, l.end - 20 + 4))
    };
    zip64_locator_offset => {
        let mut z = std_zip();
        z.zip64_end = true;
        let (mut b, l) = built(z);
        patch(&mut b, l.end - 20 + 8, &(l.zip64_end.unwrap() - 1).to_le_bytes());
        (b, ic(None, l.end - 20 + 8))
    };
    zip64_end_signature => {
        let mut z = std_zip();
        z.zip64_end = true;
        let (mut b, l) = built(z);
        let at = l.zip64_end.unwrap();
        patch(&mut b, at, b"PK\x06\x05");
        (b, ic(None, at))
    };
    zip64_end_extensible_data_size => {
        let mut z = std_zip();
        z.zip64_end = true;
        let (mut b, l) = built(z);
        let at = l.zip64_end.unwrap();
        patch(&mut b, at + 4, &52u64.to_le_bytes());
        (b, ic(None, at + 4))
    };
    zip64_end_version_needed => {
        let mut z = std_zip();
        z.zip64_end = true;
        let (mut b, l) = built(z);
        let at = l.zip64_end.unwrap();
        patch(&mut b, at + 14, &le16(20));
        (b, ic(None, at + 14))
    };
    zip64_end_disagrees_on_count => {
        let mut z = std_zip();
        z.zip64_end = true;
        let (mut b, l) = built(z);
        patch(&mut b, l.end + 8, &[2, 0, 2, 0]);
        (b, ic(None, l.end))
    };
    zip64_end_disagrees_on_offset => {
        let mut z = std_zip();
        z.zip64_end = true;
        let (mut b, l) = built(z);
        patch(&mut b, l.end + 16, &le32(l.cd as u32 + 1));
        (b, ic(None, l.end))
    };
    zip64_end_directory_offset_wrong => {
        let mut z = std_zip();
        z.zip64_end = true;
        z.end_sentinels = true;
        let (mut b, l) = built(z);
        let at = l.zip64_end.unwrap();
        patch(&mut b, at + 48, &(l.cd + 1).to_le_bytes());
        (b, ic(None, at))
    };

    empty_archive_end_record_only => {
        let z = Zip::new(Vec::new());
        (z.build().0, ic(None, 0))
    };
    zip64_entry_count_huge => {
        let mut z = std_zip();
        z.zip64_end = true;
        z.end_sentinels = true;
        let (mut b, l) = built(z);
        let at = l.zip64_end.unwrap();
        patch(&mut b, at + 24, &(1u64 << 40).to_le_bytes());
        patch(&mut b, at + 32, &(1u64 << 40).to_le_bytes());
        (b, limit(None, at))
    };
    zip64_directory_offset_overflow => {
        let mut z = std_zip();
        z.zip64_end = true;
        z.end_sentinels = true;
        let (mut b, l) = built(z);
        let at = l.zip64_end.unwrap();
        patch(&mut b, at + 48, &u64::MAX.to_le_bytes());
        (b, ic(None, at))
    };

    // ---------------------------------------------------------- central directory (§2.3)
    central_signature => {
        let (mut b, l) = built(std_zip());
        patch(&mut b, l.central[1], b"PK\x01\x03");
        (b, ic(None, l.central[1]))
    };
    member_comment => {
        let (b, l) = built(with(1, |m| m.comment = b"note".to_vec()));
        (b, ic(MODEL, l.central[1] + 32))
    };
    central_disk_start => {
        let (b, l) = central_patch(1, 34, &le16(1));
        (b, ic(MODEL, l.central[1] + 34))
    };
    central_internal_attributes => {
        let (b, l) = central_patch(1, 36, &le16(2));
        (b, ic(MODEL, l.central[1] + 34))
    };

    name_length_past_directory => {
        let (b, l) = central_patch(2, 28, &le16(500));
        (b, ic(None, l.central[2]))
    };
    local_offset_into_directory => {
        let (mut b, l) = built(std_zip());
        patch(&mut b, l.central[2] + 42, &le32(l.cd as u32));
        (b, ic(None, l.local[2]))
    };

    // --------------------------------------------------------------------- names (§1)
    name_unknown => renamed(b"model.pkl");
    name_directory_entry => renamed(b"schema/");
    name_with_slash => renamed(b"x/schema.json");
    name_absolute => renamed(b"/schema.json");
    name_backslash => renamed(b"x\\schema.json");
    name_dot_dot => renamed(b"../schema.json");
    name_dot_slash => renamed(b"./schema.json");
    name_nul => renamed(b"schema.json\0");
    name_case => renamed(b"Schema.json");
    name_trailing_space => renamed(b"schema.json ");
    name_trailing_dot => renamed(b"schema.json.");
    name_non_ascii => renamed("sch\u{e9}ma.json".as_bytes());
    name_empty => renamed(b"");
    name_duplicate => {
        let mut z = std_zip();
        z.members.push(Member::new("schema.json", SCHEMA));
        let (b, l) = built(z);
        (b, ic(SCHEMA_M, l.central[3]))
    };
    manifest_missing => {
        let mut z = std_zip();
        z.members.remove(0);
        let (b, l) = built(z);
        (b, ic(None, l.end))
    };

    // -------------------------------------------------------------- extra fields (§2.4)
    extra_unknown_id => {
        let (b, l) = built(with(1, |m| m.central_extra = Some(vec![0x55, 0x54, 1, 0, 0])));
        (b, ic(MODEL, l.central[1] + 46 + 10))
    };
    extra_zip64_without_sentinel => {
        let (b, l) = built(with(1, |m| { m.version = 45; m.central_extra = Some([&[1u8, 0, 8, 0][..], &[0; 8]].concat()); }));
        (b, ic(MODEL, l.central[1] + 46 + 10))
    };
    extra_zip64_empty_without_sentinel => {
        let (b, l) = built(with(1, |m| { m.version = 45; m.central_extra = Some(vec![1, 0, 0, 0]); }));
        (b, ic(MODEL, l.central[1] + 46 + 10))
    };
    extra_zip64_missing_value => {
        let (b, l) = built(with(1, |m| { m.central_zip64 = true; m.version = 45;
            m.central_extra = Some([&[1u8, 0, 16, 0][..], &[0; 16]].concat()); }));
        (b, ic(MODEL, l.central[1] + 46 + 10))
    };
    extra_zip64_redundant_value => {
        let (b, l) = built(with(1, |m| { m.central_zip64 = true; m.version = 45;
            m.central_extra = Some([&[1u8, 0, 32, 0][..], &[0; 32]].concat()); }));
        (b, ic(MODEL, l.central[1] + 46 + 10))
    };
    extra_second_field => {
        let z = with(1, |m| { m.local_zip64 = true; });
        let mut z2 = z.clone();
        let (_, l0) = z.build();
        let _ = l0;
        let n = model_bytes().len() as u64;
        let c = zip::written(&model_bytes()).len() as u64;
        let mut extra = vec![1u8, 0, 16, 0];
        extra.extend(n.to_le_bytes());
        extra.extend(c.to_le_bytes());
        extra.extend([0x55, 0x54, 1, 0, 0]);
        z2.members[1].local_extra = Some(extra);
        let (b, l) = built(z2);
        (b, ic(MODEL, l.local[1] + 30 + 10 + 20))
    };
    extra_length_past_end => {
        let (b, l) = built(with(1, |m| { m.version = 45; m.central_extra = Some(vec![1, 0, 16, 0, 0, 0, 0, 0]); }));
        (b, ic(MODEL, l.central[1] + 46 + 10))
    };
    local_extra_unknown_id => {
        let (b, l) = built(with(1, |m| m.local_extra = Some(vec![0x0a, 0x00, 1, 0, 0])));
        (b, ic(MODEL, l.local[1] + 30 + 10))
    };
    local_extra_zip64_without_sentinel => {
        let (b, l) = built(with(1, |m| { m.version = 45; m.local_extra = Some([&[1u8, 0, 16, 0][..], &[0; 16]].concat()); }));
        (b, ic(MODEL, l.local[1] + 30 + 10))
    };
    disk_start_sentinel => {
        let (b, l) = central_patch(1, 34, &le16(0xffff));
        (b, ic(MODEL, l.central[1] + 34))
    };

    // ------------------------------------------------------- methods, versions, flags
    method_bzip2 => {
        let (b, l) = built(with(1, |m| m.method = 12));
        (b, ic(MODEL, l.central[1] + 10))
    };
    method_lzma => {
        let (b, l) = built(with(1, |m| m.method = 14));
        (b, ic(MODEL, l.central[1] + 10))
    };
    method_deflate64 => {
        let (b, l) = built(with(1, |m| m.method = 9));
        (b, ic(MODEL, l.central[1] + 10))
    };
    stored_sizes_differ => {
        let (mut b, l) = built(with(1, |m| m.method = 0));
        patch(&mut b, l.central[1] + 20, &le32(5));
        (b, ic(MODEL, l.central[1] + 20))
    };
    version_10_deflated => {
        let (b, l) = built(with(1, |m| m.version = 10));
        (b, ic(MODEL, l.central[1] + 6))
    };
    version_30 => {
        let (b, l) = built(with(1, |m| m.version = 30));
        (b, ic(MODEL, l.central[1] + 6))
    };
    version_63 => {
        let (b, l) = built(with(1, |m| m.version = 63));
        (b, ic(MODEL, l.central[1] + 6))
    };
    version_20_with_zip64 => {
        let (b, l) = built(with(1, |m| { m.central_zip64 = true; m.version = 20; }));
        (b, ic(MODEL, l.central[1] + 6))
    };
    version_10_with_upper_byte => {
        let (b, l) = built(with(2, |m| { m.method = 0; m.version = 0x030a; }));
        (b, ic(SCHEMA_M, l.central[2] + 6))
    };
    version_local_differs => {
        let (mut b, l) = built(std_zip());
        patch(&mut b, l.local[1] + 4, &le16(45));
        (b, ic(MODEL, l.local[1] + 4))
    };
    flag_encrypted => {
        let (b, l) = built(with(1, |m| m.flags = 1));
        (b, ic(MODEL, l.central[1] + 8))
    };
    flag_strong_encryption => {
        let (b, l) = built(with(1, |m| m.flags = 0x40));
        (b, ic(MODEL, l.central[1] + 8))
    };
    flag_enhanced_deflate => {
        let (b, l) = built(with(1, |m| m.flags = 0x10));
        (b, ic(MODEL, l.central[1] + 8))
    };
    flag_patched_data => {
        let (b, l) = built(with(1, |m| m.flags = 0x20));
        (b, ic(MODEL, l.central[1] + 8))
    };
    flag_masked_header => {
        let (b, l) = built(with(1, |m| m.flags = 0x2000));
        (b, ic(MODEL, l.central[1] + 8))
    };
    flag_deflate_options_on_stored => {
        let (b, l) = built(with(1, |m| { m.method = 0; m.flags = 2; }));
        (b, ic(MODEL, l.central[1] + 8))
    };
    flag_local_differs => {
        let (mut b, l) = built(std_zip());
        patch(&mut b, l.local[1] + 6, &le16(0x800));
        (b, ic(MODEL, l.local[1] + 4))
    };

    // ---------------------------------------------------------------- attributes (§2.9)
    attribute_symlink => attr(0o120_777 << 16);
    attribute_unix_directory => attr(0o040_755 << 16);
    attribute_fifo => attr(0o010_644 << 16);
    attribute_char_device => attr(0o020_644 << 16);
    attribute_block_device => attr(0o060_644 << 16);
    attribute_socket => attr(0o140_644 << 16);
    attribute_dos_directory => attr(0o100_644 << 16 | 0x10);

    // -------------------------------------------------------------- local records (§2.10)
    local_signature => {
        let (mut b, l) = built(std_zip());
        patch(&mut b, l.local[1], b"PK\x03\x05");
        (b, ic(MODEL, l.local[1]))
    };
    local_name_differs => {
        let (mut b, l) = built(std_zip());
        patch(&mut b, l.local[2] + 30, b"S");
        (b, ic(SCHEMA_M, l.local[2] + 30))
    };
    local_method_differs => {
        let (mut b, l) = built(std_zip());
        patch(&mut b, l.local[1] + 8, &le16(0));
        (b, ic(MODEL, l.local[1] + 4))
    };
    local_crc_differs => {
        let (mut b, l) = built(std_zip());
        patch(&mut b, l.local[1] + 14, &le32(0x1234_5678));
        (b, ic(MODEL, l.local[1] + 14))
    };
    local_size_differs => {
        let (mut b, l) = built(std_zip());
        patch(&mut b, l.local[1] + 22, &le32(1));
        (b, ic(MODEL, l.local[1] + 14))
    };
    local_zero_sizes_without_descriptor => {
        let (mut b, l) = built(std_zip());
        patch(&mut b, l.local[1] + 14, &[0; 12]);
        (b, ic(MODEL, l.local[1] + 14))
    };
    local_wrong_crc_with_descriptor => {
        let (mut b, l) = built(with(1, |m| m.descriptor = Some(Desc { signed: true, wide: false, zero_local: false })));
        patch(&mut b, l.local[1] + 14, &le32(1));
        (b, ic(MODEL, l.local[1] + 14))
    };

    // ------------------------------------------------------------- descriptors (§2.11)
    descriptor_crc_mismatch => {
        let (mut b, l) = built(desc(true, false));
        patch(&mut b, l.data_end[1] + 4, &le32(0));
        (b, ic(MODEL, l.data_end[1]))
    };
    descriptor_size_mismatch => {
        let (mut b, l) = built(desc(false, false));
        patch(&mut b, l.data_end[1] + 8, &le32(1));
        (b, ic(MODEL, l.data_end[1]))
    };
    descriptor_wide_size_mismatch => {
        let (mut b, l) = built(desc(true, true));
        patch(&mut b, l.data_end[1] + 16, &7u64.to_le_bytes());
        (b, ic(MODEL, l.data_end[1]))
    };
    descriptor_bad_signature => {
        let (mut b, l) = built(desc(true, false));
        patch(&mut b, l.data_end[1], b"PK\x07\x09");
        (b, ic(MODEL, l.data_end[1]))
    };
    descriptor_wide_without_zip64 => {
        let (b, l) = built(with(1, |m| m.descriptor = Some(Desc { signed: false, wide: true, zero_local: true })));
        (b, ic(MODEL, l.data_end[1]))
    };
    descriptor_narrow_with_zip64 => {
        let (b, l) = built(with(1, |m| { m.local_zip64 = true;
            m.descriptor = Some(Desc { signed: true, wide: false, zero_local: true }); }));
        (b, ic(MODEL, l.data_end[1]))
    };
    descriptor_flag_without_descriptor => {
        let (b, l) = both_patch(std_zip(), 1, 6, &le16(8));
        (b, ic(MODEL, l.data_end[1]))
    };
    descriptor_without_flag => {
        let (b, l) = both_patch(with(1, |m| m.descriptor = Some(Desc { signed: true, wide: false, zero_local: false })), 1, 6, &le16(0));
        (b, ic(None, l.data_end[1]))
    };
    descriptor_with_junk_after => {
        let (b, l) = built(with(1, |m| { m.descriptor = Some(Desc { signed: true, wide: false, zero_local: true });
            m.trailing = vec![0]; }));
        (b, ic(MODEL, l.data_end[1]))
    };

    // ------------------------------------------------------------------ tiling (§2.12)
    gap_between_records => {
        let (b, l) = built(with(1, |m| m.trailing = vec![0; 3]));
        (b, ic(None, l.data_end[1]))
    };
    gap_before_directory => {
        let (b, l) = built(with(2, |m| m.trailing = b"PK".to_vec()));
        (b, ic(None, l.data_end[2]))
    };
    unlisted_local_record => {
        let mut z = std_zip();
        z.members.insert(2, Member::new("structure.json", STRUCTURE));
        z.central_order = vec![0, 1, 3];
        let (b, l) = built(z);
        (b, ic(None, l.local[2]))
    };
    two_entries_one_local_record => {
        let (mut b, l) = built(std_zip());
        patch(&mut b, l.central[2] + 42, &le32(l.local[1] as u32));
        (b, ic(MODEL, l.local[1]))
    };
    record_runs_into_directory => {
        let (b, l) = both_patch(std_zip(), 2, 18, &le32(SCHEMA.len() as u32 + 1));
        (b, ic(SCHEMA_M, l.cd))
    };
    record_overlaps_next => {
        let c = zip::written(&model_bytes()).len() as u32;
        let (b, l) = both_patch(std_zip(), 1, 18, &le32(c + 4));
        (b, ic(MODEL, l.local[2]))
    };

    // ---------------------------------------------------------- member data (§4.2)
    deflate_corrupt => {
        let (mut b, l) = built(std_zip());
        patch(&mut b, l.data[1], &[0x07]);
        (b, ic(MODEL, l.data[1] + 1))
    };
    crc_mismatch_deflated => {
        let (b, l) = both_patch(std_zip(), 1, 14, &le32(0xdead_beef));
        (b, ic(MODEL, l.data_end[1]))
    };
    crc_mismatch_stored => {
        let (b, l) = both_patch(with(1, |m| m.method = 0), 1, 14, &le32(0xdead_beef));
        (b, ic(MODEL, l.data_end[1]))
    };
    deflate_declared_size_short => {
        let n = model_bytes().len() as u32;
        let (b, l) = both_patch(std_zip(), 1, 22, &le32(n - 1));
        (b, ic(MODEL, l.data_end[1] - 1))
    };
    deflate_declared_size_long => {
        let n = model_bytes().len() as u32;
        let (b, l) = both_patch(std_zip(), 1, 22, &le32(n + 1));
        (b, ic(MODEL, l.data_end[1]))
    };
    deflate_trailing_data => {
        let mut s = zip::written(&model_bytes());
        let end = s.len() as u64;
        s.push(0);
        let (b, l) = built(with(1, |m| m.stream = Some(s)));
        (b, ic(MODEL, l.data[1] + end))
    };
    deflate_truncated => {
        let mut s = zip::written(&model_bytes());
        s.pop();
        let (b, l) = built(with(1, |m| m.stream = Some(s)));
        (b, ic(MODEL, l.data_end[1]))
    };
    nonempty_member_compressed_size_zero => {
        let (b, l) = built(with(1, |m| m.stream = Some(Vec::new())));
        (b, ic(MODEL, l.central[1]))
    };

    // --------------------------------------------------------------- admission (§6.1)
    admission_no_model => {
        let (b, l) = built(zip_of(&std_manifest(), &[("schema.json", SCHEMA.to_vec())]));
        (b, ic(None, l.end))
    };
    admission_onnx_and_ubj => {
        let mut z = std_zip();
        z.members.push(Member::new("model.ubj", b"u"));
        let (b, l) = built(z);
        (b, ic(None, l.end))
    };
    admission_onnx_and_skops => {
        let mut z = std_zip();
        z.members.push(Member::new("model.skops", b"s"));
        let (b, l) = built(z);
        (b, ic(None, l.end))
    };
    admission_ubj_and_cbm => {
        let (b, l) = built(zip_of(&std_manifest(), &[("model.ubj", b"u".to_vec()), ("model.cbm", b"c".to_vec()),
            ("schema.json", SCHEMA.to_vec())]));
        (b, ic(None, l.end))
    };
    admission_three_models => {
        let (b, l) = built(zip_of(&std_manifest(), &[("model.skops", b"s".to_vec()), ("model.ubj", b"u".to_vec()),
            ("model.cbm", b"c".to_vec()), ("schema.json", SCHEMA.to_vec())]));
        (b, ic(None, l.end))
    };

    // ------------------------------------------------------------------- limits (§3)
    too_many_members => {
        let (b, l) = built(zip_of(&std_manifest(), &[("model.skops", b"s".to_vec()), ("model.ubj", b"u".to_vec()),
            ("model.cbm", b"c".to_vec()), ("schema.json", SCHEMA.to_vec()), ("structure.json", b"{}".to_vec()),
            ("samples.json", b"{}".to_vec())]));
        (b, limit(None, l.end))
    };
    manifest_declared_over_cap => {
        let (b, l) = both_patch(std_zip(), 0, 22, &le32(8 * 1024 * 1024 + 1));
        (b, limit(MANIFEST_M, l.central[0]))
    };
    schema_declared_over_cap => {
        let (b, l) = both_patch(std_zip(), 2, 22, &le32(16 * 1024 * 1024 + 1));
        (b, limit(SCHEMA_M, l.central[2]))
    };
    structure_declared_over_cap => {
        let mut z = bundle(Recipe::Standalone(MemberName::ModelOnnx), &[("model.onnx", model_bytes()),
            ("schema.json", SCHEMA.to_vec()), ("structure.json", STRUCTURE.to_vec())]);
        z.members[3].method = 8;
        let (b, l) = both_patch(z, 3, 22, &le32(256 * 1024 * 1024 + 1));
        (b, limit(Some("structure.json"), l.central[3]))
    };
    samples_declared_over_cap => {
        let z = bundle(Recipe::Standalone(MemberName::ModelOnnx), &[("model.onnx", model_bytes()),
            ("schema.json", SCHEMA.to_vec()), ("samples.json", SAMPLES.to_vec())]);
        let (b, l) = both_patch(z, 3, 22, &le32(16 * 1024 * 1024 + 1));
        (b, limit(Some("samples.json"), l.central[3]))
    };
    model_declared_over_member_cap => {
        let (b, l) = both_patch(std_zip(), 1, 22, &le32(512 * 1024 * 1024 + 1));
        (b, limit(MODEL, l.central[1]))
    };
    zip64_declared_size_huge => {
        let z = with(1, |m| { m.local_zip64 = true; m.central_zip64 = true; });
        let (mut b, l) = built(z);
        let huge = (1u64 << 62).to_le_bytes();
        patch(&mut b, l.local[1] + 30 + 10 + 4, &huge);
        patch(&mut b, l.central[1] + 46 + 10 + 4, &huge);
        (b, limit(MODEL, l.central[1]))
    };
    ratio_over_200 => {
        let (b, l) = built(std_with_member("model.onnx", &vec![0u8; 200_000]));
        (b, limit(MODEL, l.central[1]))
    };
    manifest_too_deep => {
        let text = std_manifest();
        let deep = text.replacen("{", &format!("{{\"deep\":{},", nested(32)), 1);
        let (b, _) = built(zip_of(&deep, &std_members()));
        (b, limit(MANIFEST_M, 8 + 31))
    };
    schema_too_deep => {
        let schema = format!("{{\"inputs\":[{{\"name\":\"x\",\"dtype\":\"float32\"}}],\"outputs\":{}}}", nested(32));
        let at = schema.find("\"outputs\":").unwrap() as u64 + 10 + 31;
        let (b, _) = built(std_with_member("schema.json", schema.as_bytes()));
        (b, limit(SCHEMA_M, at))
    };

    // ------------------------------------------------------------- manifest (§5, §6.2)
    manifest_not_json => {
        let (b, _) = built(zip_of("{\"format\":", &std_members()));
        (b, im(10))
    };
    manifest_not_object => {
        let (b, _) = built(zip_of("[]", &std_members()));
        (b, im(0))
    };
    manifest_duplicate_key => (std_manifest_edit("\"format\":\"mlbundle\"", "\"format\":\"mlbundle\",\"format\":\"mlbundle\""), im(21));
    manifest_format_missing => (std_manifest_edit("\"format\":\"mlbundle\",", ""), im(0));
    manifest_format_other => (std_manifest_edit("\"format\":\"mlbundle\"", "\"format\":\"onemodel\""), im(10));
    manifest_format_not_string => (std_manifest_edit("\"format\":\"mlbundle\"", "\"format\":1"), im(10));
    manifest_format_version_missing => (std_manifest_edit("\"format_version\":\"1\",", ""), im(0));
    manifest_format_version_number => (std_manifest_edit("\"format_version\":\"1\"", "\"format_version\":1"), im(38));
    manifest_unknown_member => (std_manifest_edit("\"schema\":", "\"extra\":1,\"schema\":"), im(131));
    manifest_writer_version_missing => (std_manifest_edit(
        &format!("\"writer_version\":\"{}\",", modelgate_core::mlbundle::READER_VERSION), ""), im(0));
    manifest_writer_version_not_strict => (std_manifest_edit(
        &format!("\"writer_version\":\"{}\"", modelgate_core::mlbundle::READER_VERSION), "\"writer_version\":\"v1\""), im(59));
    manifest_writer_version_leading_zero => (std_manifest_edit(
        &format!("\"writer_version\":\"{}\"", modelgate_core::mlbundle::READER_VERSION), "\"writer_version\":\"1.02.3\""), im(59));
    manifest_recipe_unknown_kind => (std_manifest_edit("\"standalone\"", "\"pipeline\""), im(84));
    manifest_recipe_standalone_two_members => (std_manifest_edit("[\"model.onnx\"]", "[\"model.onnx\",\"model.ubj\"]"), im(107));
    manifest_recipe_composite_one_member => (std_manifest_edit("\"standalone\"", "\"composite\""), im(106));
    manifest_recipe_not_model_name => (std_manifest_edit("[\"model.onnx\"]", "[\"schema.json\"]"), im(108));
    manifest_recipe_member_not_string => (std_manifest_edit("[\"model.onnx\"]", "[1]"), im(108));
    manifest_recipe_disagrees_with_members => (std_manifest_edit("[\"model.onnx\"]", "[\"model.cbm\"]"), im_path());
    manifest_schema_reference_missing => (std_manifest_edit("\"schema\":\"schema.json\",", ""), im(0));
    manifest_schema_reference_other_name => (std_manifest_edit("\"schema\":\"schema.json\"", "\"schema\":\"other.json\""), im(132));
    manifest_structure_referenced_absent => (std_manifest_edit("\"schema\":\"schema.json\"", "\"schema\":\"schema.json\",\"structure\":\"structure.json\""), im_path());
    manifest_samples_reference_not_string => (std_manifest_edit("\"schema\":\"schema.json\"", "\"schema\":\"schema.json\",\"samples\":true"), im(156));
    manifest_integrity_missing => {
        let text = std_manifest();
        let cut = text.find(",\"integrity\"").unwrap();
        let (b, _) = built(zip_of(&format!("{}}}", &text[..cut]), &std_members()));
        (b, im(0))
    };
    manifest_integrity_uppercase_hex => {
        let text = std_manifest();
        let at = text.find("\"sha256\":\"").unwrap() + 10;
        let mut t = text.into_bytes();
        let i = t[at..at + 64].iter().position(|c| c.is_ascii_lowercase()).unwrap() + at;
        t[i] = t[i].to_ascii_uppercase();
        let (b, _) = built(zip_of(std::str::from_utf8(&t).unwrap(), &std_members()));
        (b, im(182))
    };
    manifest_integrity_short_hex => (std_manifest_edit("\",\"size\"", "0\",\"size\""), im(182));
    manifest_integrity_size_negative => (std_manifest_edit("\"size\":", "\"size\":-"), im(256));
    manifest_integrity_size_fraction => {
        let n = model_bytes().len();
        (std_manifest_edit(&format!("\"size\":{n}"), &format!("\"size\":{n}.0")), im(256))
    };
    manifest_integrity_unknown_name => (std_manifest_edit("\"integrity\":{", "\"integrity\":{\"model.pkl\":{\"sha256\":\"00\",\"size\":0},"), im(171));
    manifest_integrity_record_for_manifest => (std_manifest_edit("\"integrity\":{", "\"integrity\":{\"manifest.json\":{\"sha256\":\"00\",\"size\":0},"), im(175));
    manifest_integrity_record_extra_key => (std_manifest_edit(",\"size\":", ",\"crc\":1,\"size\":"), im(255));
    manifest_reexport_hint_other_writer => (std_manifest_edit(
        &format!("\"writer_version\":\"{}\"", modelgate_core::mlbundle::READER_VERSION),
        "\"writer_version\":\"0.0.9\",\"x\":1"), im(71));
    manifest_reexport_hint_recipe_disagrees => {
        let text = std_manifest()
            .replacen(&format!("\"writer_version\":\"{}\"", modelgate_core::mlbundle::READER_VERSION),
                "\"writer_version\":\"0.0.9\"", 1)
            .replacen("[\"model.onnx\"]", "[\"model.cbm\"]", 1);
        (built(zip_of(&text, &std_members())).0, im_path())
    };

    // --------------------------------------------------------------- versions (§5.3)
    format_version_2 => (std_manifest_edit("\"format_version\":\"1\"", "\"format_version\":\"2\""), unsupported(38));
    format_version_1_0 => (std_manifest_edit("\"format_version\":\"1\"", "\"format_version\":\"1.0\""), unsupported(38));
    format_version_empty => (std_manifest_edit("\"format_version\":\"1\"", "\"format_version\":\"\""), unsupported(38));
    format_version_long => (std_manifest_edit("\"format_version\":\"1\"", &format!("\"format_version\":\"{}\"", "9".repeat(200))), unsupported(38));
    format_version_checked_before_fields => (std_manifest_edit("\"format_version\":\"1\"", "\"format_version\":\"2\",\"recipe2\":[]"), unsupported(38));

    // ------------------------------------------------------------ agreement (§6.2)
    structure_present_unreferenced => {
        let mut z = std_zip();
        z.members.push(Member::new("structure.json", STRUCTURE));
        (z.build().0, im_path())
    };
    samples_present_unreferenced => {
        let mut z = std_zip();
        z.members.push(Member::new("samples.json", SAMPLES));
        (z.build().0, im_path())
    };

    // -------------------------------------------------------------- integrity (§7)
    integrity_sha256_mismatch => {
        let mut z = std_zip();
        let mut model = model_bytes();
        model[0] ^= 1;
        z.members[1] = Member::new("model.onnx", &model);
        (z.build().0, integrity("model.onnx"))
    };
    integrity_size_mismatch => {
        let text = std_manifest();
        let n = model_bytes().len();
        let (b, _) = built(zip_of(&text.replacen(&format!("\"size\":{n}"), &format!("\"size\":{}", n + 1), 1), &std_members()));
        (b, integrity("model.onnx"))
    };
    integrity_record_missing => {
        let text = std_manifest();
        let start = text.find("\"model.onnx\":{").unwrap();
        let end = text[start..].find('}').unwrap() + start + 2;
        let (b, _) = built(zip_of(&format!("{}{}", &text[..start], &text[end..]), &std_members()));
        (b, integrity("model.onnx"))
    };
    integrity_record_for_absent_member => (std_manifest_edit("\"integrity\":{",
        &format!("\"integrity\":{{\"model.cbm\":{{\"sha256\":\"{}\",\"size\":0}},", "0".repeat(64))), integrity("model.cbm"));

    // ------------------------------------ the model.onnx step of the validating load (§12.2)
    // Bytes that are not ONNX: `{` is field 15 with the group wire type.
    model_onnx_not_onnx => (std_with_member("model.onnx", br#"{"weights":[]}"#).build().0, ic(MODEL, 0));
    model_onnx_external_data => {
        let (stub, at) = onnx_external_stub();
        (std_with_member("model.onnx", &stub).build().0, ic(MODEL, at))
    };
    model_onnx_nesting_65 => (std_with_member("model.onnx", &crate::onemodel::nested_onnx_types(64)).build().0,
        limit(MODEL, 332));
    model_onnx_other_models_not_parsed => (bundle(Recipe::Composite(MemberName::ModelUbj),
        &[("model.skops", br#"{"weights":[]}"#.to_vec()), ("model.ubj", b"not ubj".to_vec()),
          ("schema.json", SCHEMA.to_vec())]).build().0, Valid);

    // -------------------------------------------------------- JSON members (§8)
    schema_syntax => (std_with_member("schema.json", b"{\"inputs\":[}").build().0, ij("schema.json", 11));
    schema_bom => (std_with_member("schema.json", b"\xef\xbb\xbf{}").build().0, ij("schema.json", 0));
    schema_not_object => (std_with_member("schema.json", b"[]").build().0, ij("schema.json", 0));
    schema_inputs_missing => (std_with_member("schema.json", b"{}").build().0, ij("schema.json", 0));
    schema_inputs_empty => (std_with_member("schema.json", b"{\"inputs\":[]}").build().0, ij("schema.json", 10));
    schema_unknown_dtype => (std_with_member("schema.json", br#"{"inputs":[{"name":"x","dtype":"complex64"}]}"#).build().0, ij("schema.json", 31));
    schema_duplicate_field_name => (std_with_member("schema.json", br#"{"inputs":[{"name":"x","dtype":"bool"},{"name":"x","dtype":"bool"}]}"#).build().0, ij("schema.json", 47));
    schema_empty_field_name => (std_with_member("schema.json", br#"{"inputs":[{"name":"","dtype":"bool"}]}"#).build().0, ij("schema.json", 19));
    schema_unknown_member => (std_with_member("schema.json", br#"{"inputs":[{"name":"x","dtype":"bool"}],"x":1}"#).build().0, ij("schema.json", 44));
    structure_syntax => {
        let z = bundle(Recipe::Standalone(MemberName::ModelOnnx), &[("model.onnx", model_bytes()),
            ("schema.json", SCHEMA.to_vec()), ("structure.json", b"{\"a\":1,}".to_vec())]);
        (z.build().0, ij("structure.json", 7))
    };
    samples_syntax => {
        let z = bundle(Recipe::Standalone(MemberName::ModelOnnx), &[("model.onnx", model_bytes()),
            ("schema.json", SCHEMA.to_vec()), ("samples.json", b"{\"rows\":[[1,2]]]".to_vec())]);
        (z.build().0, ij("samples.json", 15))
    };
    samples_row_length => {
        let z = bundle(Recipe::Standalone(MemberName::ModelOnnx), &[("model.onnx", model_bytes()),
            ("schema.json", SCHEMA.to_vec()), ("samples.json", b"{\"rows\":[[1,\"a\"],[2]]}".to_vec())]);
        (z.build().0, ij("samples.json", 17))
    };
    samples_cell_object => {
        let z = bundle(Recipe::Standalone(MemberName::ModelOnnx), &[("model.onnx", model_bytes()),
            ("schema.json", SCHEMA.to_vec()), ("samples.json", b"{\"rows\":[[{},\"a\"]]}".to_vec())]);
        (z.build().0, ij("samples.json", 10))
    };
    // §8.3 over 100,000 rows: the last is one cell short. Decoded, the rows took 20 MB
    // (spec/json.md §8); the contract is checked over the member's tokens (§8.1).
    samples_row_length_after_100000_rows => {
        let (samples, stream, last) = many_rows(100_000);
        let mut z = bundle(Recipe::Standalone(MemberName::ModelOnnx), &[("model.onnx", model_bytes()),
            ("schema.json", SCHEMA.to_vec()), ("samples.json", samples)]);
        if let Some(m) = z.members.iter_mut().find(|m| m.name == b"samples.json") {
            m.stream = Some(stream);
        }
        (z.build().0, ij("samples.json", last))
    };
    // §8.2 over 1,000 fields: the last repeats the first field's name.
    schema_duplicate_field_name_after_1000_fields => {
        let (schema, last) = many_fields(1_000);
        (std_with_member("schema.json", &schema).build().0, ij("schema.json", last))
    };
    samples_rows_missing => {
        let z = bundle(Recipe::Standalone(MemberName::ModelOnnx), &[("model.onnx", model_bytes()),
            ("schema.json", SCHEMA.to_vec()), ("samples.json", b"{}".to_vec())]);
        (z.build().0, ij("samples.json", 0))
    };
}

trait Pipe: Sized {
    fn pipe<T>(self, f: impl FnOnce(Self) -> T) -> T {
        f(self)
    }
}
impl<T> Pipe for T {}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(name: &str) -> String {
        let case = cases().into_iter().find(|c| c.name == name).unwrap();
        load_container(&case.bytes, &ArchiveLimits::DEFAULT)
            .unwrap_err()
            .message
    }

    #[test]
    fn reexport_hint_names_writer_version() {
        assert_eq!(
            message("manifest_reexport_hint_other_writer"),
            format!(
                "manifest.x: unknown member; written by writer version 0.0.9 (this reader is {}): \
                 format 1 is not frozen, re-export the bundle with this version",
                modelgate_core::mlbundle::READER_VERSION
            )
        );
    }

    #[test]
    fn reexport_hint_on_recipe_disagreement() {
        // §5.7: the agreement of §6.2 is manifest validation too.
        assert_eq!(
            message("manifest_reexport_hint_recipe_disagrees"),
            format!(
                "recipe does not match the model members in the archive; written by writer version \
                 0.0.9 (this reader is {}): format 1 is not frozen, re-export the bundle with this version",
                modelgate_core::mlbundle::READER_VERSION
            )
        );
        // The reader's own version keeps the generic message.
        assert_eq!(
            message("manifest_recipe_disagrees_with_members"),
            "recipe does not match the model members in the archive"
        );
    }

    #[test]
    fn generic_message_without_strict_other_writer_version() {
        assert_eq!(message("manifest_unknown_member"), "manifest.extra: unknown member");
        assert_eq!(
            message("manifest_writer_version_not_strict"),
            "manifest.writer_version: writer_version is not a strict version string"
        );
    }

    #[test]
    fn unsupported_version_message_shows_at_most_64_characters() {
        let m = message("format_version_long");
        assert_eq!(
            m,
            format!(
                "unsupported mlbundle format version \"{}\"… (this reader supports \"1\")",
                "9".repeat(64)
            )
        );
    }

    #[test]
    fn messages_never_echo_member_bytes() {
        for c in cases() {
            if let Err(e) = load_container(&c.bytes, &ArchiveLimits::DEFAULT) {
                assert!(!e.message.contains('{'), "{}: {}", c.name, e.message);
                assert!(e.message.len() < 300, "{}: {}", c.name, e.message);
            }
        }
    }

    #[test]
    fn at_least_100_cases_and_python_fixtures_valid() {
        assert!(cases().len() >= 100, "{}", cases().len());
        for (name, bytes) in python_fixtures() {
            assert_eq!(outcome(bytes), Valid, "{name}");
        }
    }
}
