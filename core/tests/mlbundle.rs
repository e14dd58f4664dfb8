//! mlbundle v1 through the public API (`spec/mlbundle.md`): writer determinism and
//! round trip, limits configuration, manifest rules, admission, agreement, integrity and
//! the declaration contract. ZIP structure rules are in `zip.rs` and the corpus generator.

use modelgate_core::mlbundle::{
    ArchiveLimits, ErrorKind, Limit, Manifest, MemberName as N, Recipe, read_container, write_container,
};
use modelgate_core::mlbundle::{READER_VERSION, inspect};
use std::collections::BTreeMap;

const SCHEMA: &[u8] = br#"{"inputs":[{"name":"x","dtype":"float32"},{"name":"y","dtype":"int64"}]}"#;

fn members(model: &[u8]) -> BTreeMap<N, Vec<u8>> {
    let mut m = BTreeMap::new();
    m.insert(N::ModelOnnx, model.to_vec());
    m.insert(N::Schema, SCHEMA.to_vec());
    m
}

fn standalone() -> Manifest {
    Manifest::new(Recipe::Standalone(N::ModelOnnx), false, false)
}

fn bundle() -> Vec<u8> {
    write_container(&standalone(), &members(b"onnx bytes"), &ArchiveLimits::DEFAULT).unwrap()
}

#[test]
fn writer_round_trip_returns_original_bytes() {
    let bytes = bundle();
    let c = read_container(&bytes, &ArchiveLimits::DEFAULT).unwrap();
    assert_eq!(&c.members[&N::ModelOnnx][..], b"onnx bytes");
    assert_eq!(&c.members[&N::Schema][..], SCHEMA);
    assert_eq!(c.manifest.recipe, Recipe::Standalone(N::ModelOnnx));
    assert_eq!(c.manifest.writer_version, READER_VERSION);
    let names: Vec<_> = c.listing.iter().map(|l| l.name).collect();
    assert_eq!(names, [N::Manifest, N::ModelOnnx, N::Schema]);
}

#[test]
fn writer_is_deterministic_and_pinned() {
    let a = bundle();
    assert_eq!(a, bundle());
    // Fixed metadata (§10.2): version 20, no flags, deflate, time 0, date 1980-01-01.
    assert_eq!(&a[..4], b"PK\x03\x04");
    assert_eq!(&a[4..14], &[20, 0, 0, 0, 8, 0, 0, 0, 0x21, 0]);
    assert_eq!(&a[a.len() - 22..a.len() - 18], b"PK\x05\x06");
}

#[test]
fn writer_member_order_is_fixed() {
    let mut m = members(b"m");
    m.remove(&N::ModelOnnx);
    m.insert(N::ModelSkops, b"skops".to_vec());
    m.insert(N::ModelCbm, b"cbm".to_vec());
    m.insert(N::Samples, br#"{"rows":[[1,2],[3,null]]}"#.to_vec());
    m.insert(N::Structure, b"{}".to_vec());
    let manifest = Manifest::new(Recipe::Composite(N::ModelCbm), true, true);
    let bytes = write_container(&manifest, &m, &ArchiveLimits::DEFAULT).unwrap();
    let view = inspect(&bytes, &ArchiveLimits::DEFAULT).unwrap();
    let names: Vec<_> = view.members.iter().map(|l| l.name).collect();
    assert_eq!(
        names,
        [
            N::Manifest,
            N::ModelSkops,
            N::ModelCbm,
            N::Schema,
            N::Structure,
            N::Samples
        ]
    );
    assert!(view.samples_json().is_some());
    assert_eq!(view.inputs, 2);
}

#[test]
fn limits_can_be_lowered_never_raised() {
    let l = ArchiveLimits::DEFAULT;
    assert_eq!(l.get(Limit::Members), 6);
    assert_eq!(l.get(Limit::Archive), 512 << 20);
    assert_eq!(l.get(Limit::UncompressedTotal), 1 << 30);
    assert_eq!(l.get(Limit::Ratio), 200);
    assert_eq!(l.get(Limit::Manifest), 8 << 20);
    assert_eq!(l.get(Limit::Structure), 256 << 20);
    assert_eq!(l.get(Limit::Schema), 16 << 20);
    assert_eq!(l.get(Limit::Samples), 16 << 20);
    assert_eq!(l.get(Limit::JsonDepth), 32);
    assert!(l.with(Limit::Members, 7).is_err());
    assert!(l.with(Limit::Members, 1).is_err());
    assert!(l.with(Limit::Archive, (512 << 20) + 1).is_err());
    assert!(l.with(Limit::Ratio, 201).is_err());
    assert!(l.with(Limit::JsonDepth, 33).is_err());
    assert_eq!(l.with(Limit::Members, 2).unwrap().get(Limit::Members), 2);
    // Effective cap: the smaller of the specific and the general member cap (§3.2).
    let low = l.with(Limit::Member, 100).unwrap();
    assert_eq!(low.member_cap(N::Schema), 100);
    assert_eq!(l.with(Limit::Schema, 10).unwrap().member_cap(N::Schema), 10);
}

#[test]
fn lowered_member_count_rejects_bundle() {
    let limits = ArchiveLimits::DEFAULT.with(Limit::Members, 2).unwrap();
    let e = read_container(&bundle(), &limits).unwrap_err();
    assert_eq!(e.kind, ErrorKind::LimitExceeded);
}

#[test]
fn lowered_archive_limit_rejects_before_parsing() {
    let bytes = bundle();
    let limits = ArchiveLimits::DEFAULT.with(Limit::Archive, 100).unwrap();
    let e = read_container(&bytes, &limits).unwrap_err();
    assert_eq!(e.kind, ErrorKind::LimitExceeded);
    assert_eq!(e.location.offset, Some(100));
}

#[test]
fn writer_rejects_input_over_the_ratio() {
    let limits = ArchiveLimits::DEFAULT.with(Limit::Ratio, 2).unwrap();
    let e = write_container(&standalone(), &members(&[0u8; 10_000]), &limits).unwrap_err();
    assert_eq!(e.kind, ErrorKind::LimitExceeded);
    assert_eq!(e.member, Some(N::ModelOnnx));
    assert_eq!(e.message, "model.onnx: uncompressed/compressed ratio exceeds 2");
}

#[test]
fn writer_rejects_recipe_disagreement() {
    let manifest = Manifest::new(Recipe::Standalone(N::ModelUbj), false, false);
    let e = write_container(&manifest, &members(b"x"), &ArchiveLimits::DEFAULT).unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidManifest);
    assert_eq!(e.location.path.as_deref(), Some("manifest.recipe"));
}

#[test]
fn writer_rejects_invalid_schema_json() {
    let mut m = members(b"x");
    m.insert(N::Schema, b"{\"inputs\":[}".to_vec());
    let e = write_container(&standalone(), &m, &ArchiveLimits::DEFAULT).unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidJson);
    assert_eq!(e.location.member.as_deref(), Some("schema.json"));
    assert_eq!(e.location.offset, Some(11));
}

#[test]
fn writer_output_bounded_by_archive_budget() {
    let limits = ArchiveLimits::DEFAULT.with(Limit::Archive, 1000).unwrap();
    // 2000 bytes of runs compress far below the budget with RLE; noise does not.
    let e = write_container(&standalone(), &members(&[7u8; 2000]), &limits);
    assert!(e.is_ok(), "{e:?}");
    let noise: Vec<u8> = (0..5000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let e = write_container(&standalone(), &members(&noise), &limits).unwrap_err();
    assert_eq!(e.kind, ErrorKind::LimitExceeded);
}

#[test]
fn writer_accepts_json_ready_parts_without_integrity() {
    let parts = br#"{"format":"mlbundle","format_version":"1","recipe":{"kind":"standalone","members":["model.onnx"]},"schema":"schema.json"}"#;
    let manifest = Manifest::from_parts(parts, &ArchiveLimits::DEFAULT).unwrap();
    assert!(manifest.integrity.is_empty());
    let bytes = write_container(&manifest, &members(b"onnx bytes"), &ArchiveLimits::DEFAULT).unwrap();
    assert_eq!(bytes, bundle());
}

#[test]
fn json_ready_parts_still_checked() {
    let parts = br#"{"format":"mlbundle","format_version":"2"}"#;
    let e = Manifest::from_parts(parts, &ArchiveLimits::DEFAULT).unwrap_err();
    assert_eq!(e.kind, ErrorKind::UnsupportedFormatVersion);
    let parts =
        br#"{"format":"mlbundle","format_version":"1","recipe":{"kind":"standalone","members":["model.onnx"]}}"#;
    let e = Manifest::from_parts(parts, &ArchiveLimits::DEFAULT).unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidManifest);
    assert_eq!(e.location.path.as_deref(), Some("manifest.schema"));
}

/// The central header offset of `name` in `bytes`.
fn central_offset(bytes: &[u8], name: N) -> u64 {
    let a = modelgate_core::zip::Archive::parse(bytes, &modelgate_core::mlbundle::NAMES, 6).unwrap();
    a.entry(name as usize).unwrap().central.header_offset
}

#[test]
fn lowered_member_cap_checked_from_metadata() {
    let bytes = bundle();
    let limits = ArchiveLimits::DEFAULT.with(Limit::Member, 9).unwrap();
    let e = read_container(&bytes, &limits).unwrap_err();
    assert_eq!(e.kind, ErrorKind::LimitExceeded);
    // The manifest (first in directory order) is already over 9 bytes.
    assert_eq!(e.member, Some(N::Manifest));
    assert_eq!(e.location.offset, Some(central_offset(&bytes, N::Manifest)));
    assert_eq!(e.location.member, None);
}

#[test]
fn lowered_uncompressed_total_names_the_member_that_crosses_it() {
    let bytes = bundle();
    let c = read_container(&bytes, &ArchiveLimits::DEFAULT).unwrap();
    let manifest_len = c.members[&N::Manifest].len() as u64;
    let limits = ArchiveLimits::DEFAULT
        .with(Limit::UncompressedTotal, manifest_len + 3)
        .unwrap();
    let e = read_container(&bytes, &limits).unwrap_err();
    assert_eq!(e.kind, ErrorKind::LimitExceeded);
    assert_eq!(e.member, Some(N::ModelOnnx));
    assert_eq!(e.location.offset, Some(central_offset(&bytes, N::ModelOnnx)));
}

#[test]
fn lowered_compressed_total_rejected() {
    let bytes = bundle();
    let limits = ArchiveLimits::DEFAULT.with(Limit::CompressedTotal, 10).unwrap();
    let e = read_container(&bytes, &limits).unwrap_err();
    assert_eq!(e.kind, ErrorKind::LimitExceeded);
    assert_eq!(e.member, Some(N::Manifest));
    assert!(
        e.message.starts_with("manifest.json: compressed sizes exceed"),
        "{}",
        e.message
    );
}

#[test]
fn lowered_json_depth_applies_to_members() {
    let bytes = bundle();
    // schema.json nests 3 deep: {"inputs":[{...}]}.
    let limits = ArchiveLimits::DEFAULT.with(Limit::JsonDepth, 2).unwrap();
    let e = read_container(&bytes, &limits).unwrap_err();
    assert_eq!(e.kind, ErrorKind::LimitExceeded);
    assert_eq!(e.location.member.as_deref(), Some("manifest.json"));
    let limits = ArchiveLimits::DEFAULT.with(Limit::JsonDepth, 3).unwrap();
    assert!(read_container(&bytes, &limits).is_ok());
}

#[test]
fn lowered_schema_cap_rejects_schema_only() {
    let bytes = bundle();
    let limits = ArchiveLimits::DEFAULT
        .with(Limit::Schema, SCHEMA.len() as u64 - 1)
        .unwrap();
    let e = read_container(&bytes, &limits).unwrap_err();
    assert_eq!(e.kind, ErrorKind::LimitExceeded);
    assert_eq!(e.member, Some(N::Schema));
    let limits = ArchiveLimits::DEFAULT.with(Limit::Schema, SCHEMA.len() as u64).unwrap();
    assert!(read_container(&bytes, &limits).is_ok());
}

#[test]
fn inspect_json_is_canonical_and_lists_fixed_order() {
    let view = inspect(&bundle(), &ArchiveLimits::DEFAULT).unwrap();
    let text = view.to_json();
    let parsed = modelgate_core::json::parse(text.as_bytes(), modelgate_core::json::Limits::DEFAULT).unwrap();
    assert_eq!(modelgate_core::json::to_canonical(&parsed), text);
    let names: Vec<&str> = parsed.get("members").map_or(Vec::new(), |m| match &m.node {
        modelgate_core::json::Node::Array(items) => items
            .iter()
            .filter_map(|i| i.get("name").and_then(|n| n.as_str()))
            .collect(),
        _ => Vec::new(),
    });
    assert_eq!(names, ["manifest.json", "model.onnx", "schema.json"]);
    assert!(text.contains("not attested"));
}

/// The smallest model the ONNX reader accepts: IR version 9, an empty graph, opset 17.
const MINIMAL_ONNX: &[u8] = &[0x08, 0x09, 0x3a, 0x00, 0x42, 0x02, 0x10, 0x11];

#[test]
fn validating_load_parses_onnx() {
    use modelgate_core::mlbundle::load_container;
    let bytes = write_container(&standalone(), &members(MINIMAL_ONNX), &ArchiveLimits::DEFAULT).unwrap();
    let loaded = load_container(&bytes, &ArchiveLimits::DEFAULT).unwrap();
    assert!(loaded.models_attested);
    // The container is valid, the model is not: only the load rejects it.
    let bytes = bundle();
    assert!(read_container(&bytes, &ArchiveLimits::DEFAULT).is_ok());
    let e = load_container(&bytes, &ArchiveLimits::DEFAULT).unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidContainer);
    assert_eq!(e.member, Some(N::ModelOnnx));
    assert!(
        e.message.starts_with("model.onnx is not a self-contained ONNX model: "),
        "{}",
        e.message
    );
}

#[test]
fn validating_load_does_not_attest_native_models() {
    use modelgate_core::mlbundle::load_container;
    let mut m = members(b"x");
    m.remove(&N::ModelOnnx);
    m.insert(N::ModelUbj, b"{U".to_vec());
    let manifest = Manifest::new(Recipe::Standalone(N::ModelUbj), false, false);
    let bytes = write_container(&manifest, &m, &ArchiveLimits::DEFAULT).unwrap();
    assert!(!load_container(&bytes, &ArchiveLimits::DEFAULT).unwrap().models_attested);
}

/// §8.2, §9.3: an unknown dtype is named, quoted, with the dtypes allowed; the streaming
/// contract and the one over the decoded value say the same.
#[test]
fn unknown_dtype_names_the_value_and_the_dtypes() {
    use modelgate_core::mlbundle::{check_member, check_schema};
    let schema = br#"{"inputs":[{"name":"x","dtype":"float"}]}"#;
    check_member(N::Schema, schema, &ArchiveLimits::DEFAULT).unwrap();
    let e = check_schema(schema, &ArchiveLimits::DEFAULT).unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidJson);
    assert_eq!(
        e.message,
        "schema.inputs[0].dtype: unknown dtype \"float\" (expected one of float32, float64, int32, int64, bool, \
         string, category)"
    );
    // A long value is cut after 64 characters.
    let long = format!(r#"{{"inputs":[{{"name":"x","dtype":"{}"}}]}}"#, "f".repeat(100));
    let e = check_schema(long.as_bytes(), &ArchiveLimits::DEFAULT).unwrap_err();
    assert!(
        e.message
            .contains(&format!("unknown dtype \"{}\"… (expected", "f".repeat(64))),
        "{}",
        e.message
    );
}
