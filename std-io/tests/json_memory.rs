//! JSON that no rule reads whole is not built into a value (a value costs some 60 bytes of
//! heap per element at its peak, and `[0,0,…]` has one element per two bytes):
//! - a parsed mvb `manifest.json` holds only the members `spec/mvb.md` §1.2 reads, so its
//!   memory is bounded by them and by the limits (§4, memory), and the import rewrite
//!   (§6.3) streams from the text;
//! - an MPK package's JSON files other than the contract and the pipeline are checked
//!   without a value (`spec/mpk.md` §3.3.1);
//! - validating one object of 1 M members holds the duplicate table of its first 1,024 names
//!   and an 8-byte entry for each later name, under 13 bytes per member (`spec/json.md`
//!   §5.1);
//! - an mlbundle's `schema.json` and `samples.json` are validated and their contracts
//!   checked over their tokens (`spec/mlbundle.md` §8.1).

use modelgate_core::gzip::write_gzip;
use modelgate_core::json::{self, Node, Value};
use modelgate_core::mlbundle::{self, ArchiveLimits, MemberName, Recipe, read_container, write_container};
use modelgate_core::mpk::read_pipelines;
use modelgate_core::mpk::{MpkLimits, Registry, check_tar_gz};
use modelgate_core::mvb::{Manifest, MvbLimits, covers};
use modelgate_core::tar::{FileMeta, Flavor, TarWriter};
use std::collections::BTreeMap;

use modelgate_corpus_gen::counting;

#[global_allocator]
static GLOBAL: counting::Counting = counting::Counting;

const KEY: [u64; 2] = [1, 2];
const HASH: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// A valid manifest (the bundle hash is not checked by the parse) with `junk` as an extra
/// root member and `files` as the inventory list.
fn manifest(junk: &str, files: &str) -> String {
    format!(
        r#"{{"schema_version":"1.6.0","kind":"darsay.bundle","artifact_type":"model","bundle_id":"b","junk":{junk},"inventory":{{"layout":{{"payload_root":"model/"}},"files":{files},"bundle_hash":{{"algorithm":"sha256-of-sorted-sha256-lines","value":"{HASH}","covers":"{}"}}}},"archive":{{"date_archived":"2025-06-01T12:00:00Z","n":[{junk}]}}}}"#,
        covers("model")
    )
}

/// `[0,0,…]` of `n` elements: two bytes each.
fn zeros(n: usize) -> String {
    let mut s = "0,".repeat(n);
    s.pop();
    format!("[{s}]")
}

/// A valid MPK package whose stage config `pre_config.json` is `config`.
fn package(config: &str) -> Vec<u8> {
    package_with(config, "0", "")
}

/// An MPK package whose stage config `pre_config.json` is `config`, whose pipeline file has
/// `junk` as an extra root member, and whose contract ends with `contract_tail`.
fn package_with(config: &str, junk: &str, contract_tail: &str) -> Vec<u8> {
    let stage = |id: u8, name: &str, processor: &str, kernel: &str, dep: &str| {
        format!(
            r#"{{"sequence_id":{id},"name":"{name}","pluginId":"p","configPath":"{name}_config.json","processor":"{processor}","kernel":"{kernel}","input":"{dep}"}}"#
        )
    };
    let pipeline = format!(
        r#"{{"pipelines":[{{"sequence":[{},{}]}}],"junk":{junk}}}"#,
        stage(1, "pre", "CVU", "preproc", "decoder"),
        stage(2, "mla_0", "MLA", "infer", "pre")
    );
    let contract = format!(
        r#"{{"name":"m","plugins":[{{"name":"mla_0","sequence":1,"processor":"MLA","config_params":{{"desired_batch_size":1,"actual_batch_size":1}},"input_nodes":[],"output_nodes":[],"resources":{{"executable":"m.elf"}}}}]{contract_tail}}}"#
    );
    let mut w = TarWriter::new(Flavor::Gnu);
    for (path, data) in [
        ("mpk.json", contract.as_bytes()),
        ("pipeline_sequence.json", pipeline.as_bytes()),
        ("pre_config.json", config.as_bytes()),
        ("mla_0_config.json", b"{}".as_slice()),
        ("m.elf", b"\x7fELF".as_slice()),
    ] {
        w.append_file(path.as_bytes(), data, &FileMeta::FIXED).unwrap();
    }
    write_gzip(&w.finish(), usize::MAX).unwrap()
}

/// A bundle of a stored-recipe model with `schema` and, when given, `samples`.
fn bundle(schema: &str, samples: Option<&str>) -> Vec<u8> {
    let mut members = BTreeMap::new();
    members.insert(MemberName::ModelCbm, b"cbm".to_vec());
    members.insert(MemberName::Schema, schema.as_bytes().to_vec());
    if let Some(s) = samples {
        members.insert(MemberName::Samples, s.as_bytes().to_vec());
    }
    let manifest = mlbundle::Manifest::new(Recipe::Standalone(MemberName::ModelCbm), false, samples.is_some());
    write_container(&manifest, &members, &ArchiveLimits::DEFAULT).unwrap()
}

/// One test, so that one measurement runs at a time in this binary.
#[test]
fn json_that_no_rule_reads_whole_is_not_built() {
    // spec/mpk.md §3.3.1: a 4 MiB stage config of 2 M elements is checked, not built.
    let config = zeros(2 << 20);
    let pkg = package(&config);
    let (checked, peak) = counting::peak_of(|| check_tar_gz(&pkg, MpkLimits::DEFAULT, Registry::DEFAULT, KEY));
    checked.unwrap();
    assert!(
        peak < 2 * config.len() + (4 << 20),
        "MPK peak {peak} for a {}-byte config",
        config.len()
    );

    // §3.3.1: the pipeline and the contract keep only what their rules read. An unread
    // member of 2 M elements costs its buffered text, in the pipeline and in the contract.
    let junk = zeros(2 << 20);
    let pkg = package_with("{}", &junk, "");
    let (checked, peak) = counting::peak_of(|| check_tar_gz(&pkg, MpkLimits::DEFAULT, Registry::DEFAULT, KEY));
    checked.unwrap();
    assert!(
        peak < 2 * junk.len() + (4 << 20),
        "MPK peak {peak} for a {}-byte member",
        junk.len()
    );
    let pkg = package_with("{}", "0", &format!(r#","junk":{junk}"#));
    let (checked, peak) = counting::peak_of(|| check_tar_gz(&pkg, MpkLimits::DEFAULT, Registry::DEFAULT, KEY));
    checked.unwrap();
    assert!(
        peak < 2 * junk.len() + (4 << 20),
        "MPK peak {peak} for a {}-byte member",
        junk.len()
    );

    // §1.2: 4 M elements outside the members read cost their text once (kept for §6.3).
    let files = format!(r#"[{{"path":"model/a","size":1,"sha256":"{HASH}"}}]"#);
    let text = manifest(&zeros(2 << 20), &files);
    let (m, peak) = counting::peak_of(|| Manifest::parse(text.as_bytes(), &MvbLimits::DEFAULT, KEY));
    let m = m.unwrap();
    assert_eq!(m.files.len(), 1);
    assert!(
        peak < text.len() + (1 << 20),
        "parse peak {peak} for {} text bytes",
        text.len()
    );

    // A reader that buffered the text hands it over: it is not held twice.
    let owned = text.clone().into_bytes();
    let (m2, peak) = counting::peak_of(move || Manifest::parse_owned(owned, &MvbLimits::DEFAULT, KEY));
    assert_eq!(m2.unwrap().text, text.as_bytes());
    assert!(
        peak < (1 << 20),
        "parse_owned peak {peak} for {} text bytes",
        text.len()
    );

    // §6.3: the stamped text is streamed: the output and its growth, no tree.
    let stamp = Value::new(Node::String("here".into()));
    let (stamped, peak) = counting::peak_of(|| m.stamped(&[("location", &stamp)], KEY));
    let stamped = stamped.unwrap();
    assert!(stamped.contains(r#""n":[[0,0,"#) && stamped.ends_with(r#""location":"here"}}"#));
    assert!(peak < 3 * text.len(), "stamp peak {peak} for {} text bytes", text.len());

    // §4.7: an inventory list of 4 M tiny elements keeps max_entries + 1 of them, enough
    // for its count rule, and is rejected by that rule.
    let text = manifest("0", &zeros(4 << 20));
    let limits = MvbLimits {
        max_entries: 1000,
        ..MvbLimits::DEFAULT
    };
    let (e, peak) = counting::peak_of(|| Manifest::parse(text.as_bytes(), &limits, KEY));
    let e = e.unwrap_err();
    assert_eq!(e.location.path.as_deref(), Some("manifest.inventory.files"), "{e:?}");
    assert!(peak < (1 << 20), "peak {peak} for {} text bytes", text.len());

    // spec/json.md §5.1: one object of 1 M members, validated; the duplicate table stops
    // growing at 1,024 names and each later name is an 8-byte entry of a list.
    let members: Vec<String> = (0..1_000_000).map(|i| format!("\"{i:x}\":0")).collect();
    let text = format!("{{{}}}", members.join(","));
    let (checked, peak) = counting::peak_of(|| json::validate(text.as_bytes(), json::Limits::DEFAULT));
    checked.unwrap();
    // 12.6 MB: the list's 8 MiB and, while it last grew, its 4 MiB predecessor. (25 MB
    // while the table held every name, at most four 8-byte slots each; 50 MB while the
    // names were also kept as 24-byte ranges; 84 MB with 16-byte slots and a copy of them.)
    assert!(
        peak < 13 * members.len(),
        "validate peak {peak} for {} members",
        members.len()
    );

    // spec/mlbundle.md §8.1: a 15.6 MB samples.json of 2.6 M two-cell rows (some 450 MB as
    // a value) costs its inflated member and little more. With its last row one cell short
    // (a bundle the writer refuses), the contract alone holds next to nothing.
    let schema = r#"{"inputs":[{"name":"x","dtype":"float32"},{"name":"y","dtype":"bool"}]}"#;
    let rows = 2_600_000;
    let samples = format!("{{\"rows\":[{}[0,1]]}}", "[0,1],".repeat(rows - 1));
    let good = bundle(schema, Some(&samples));
    let (read, peak) = counting::peak_of(|| read_container(&good, &ArchiveLimits::DEFAULT).map(|c| c.inputs));
    assert_eq!(read.unwrap(), 2);
    assert!(
        peak < samples.len() + (1 << 20),
        "read peak {peak} for {} bytes of samples",
        samples.len()
    );
    let bad = samples.replace("[0,1]]}", "[0]]}");
    let limits = ArchiveLimits::DEFAULT;
    let (e, peak) = counting::peak_of(|| mlbundle::check_samples(bad.as_bytes(), 2, &limits));
    let e = e.unwrap_err();
    assert_eq!(e.location.path.as_deref(), Some("samples.rows[2599999]"), "{e:?}");
    assert!(
        peak < (1 << 20),
        "contract peak {peak} for {} bytes of samples",
        bad.len()
    );

    // spec/mlbundle.md §5.1: a 7 MiB manifest whose unknown member holds 3.5 M elements is
    // refused, naming that member, without building it.
    let text = format!(
        r#"{{"format":"mlbundle","format_version":"1","x":{},"writer_version":"0.1.0"}}"#,
        zeros(3_500_000)
    );
    let (e, peak) = counting::peak_of(|| mlbundle::Manifest::parse(text.as_bytes(), &limits));
    let e = e.unwrap_err();
    assert_eq!(e.location.path.as_deref(), Some("manifest.x"), "{e:?}");
    assert!(peak < (64 << 10), "manifest peak {peak} for {} bytes", text.len());

    // §8.2: a 13 MB schema of 400,000 fields holds one 16-byte entry per name, and 16 more
    // while they are sorted for the uniqueness rule.
    let fields = 400_000;
    let list: Vec<String> = (0..fields)
        .map(|i| format!(r#"{{"name":"f{i}","dtype":"float32"}}"#))
        .collect();
    let schema = format!(r#"{{"inputs":[{}]}}"#, list.join(","));
    let wide = bundle(&schema, None);
    let (read, peak) = counting::peak_of(|| read_container(&wide, &ArchiveLimits::DEFAULT).map(|c| c.inputs));
    assert_eq!(read.unwrap(), fields);
    assert!(
        peak < schema.len() + 48 * fields,
        "read peak {peak} for a {}-byte schema of {fields} fields",
        schema.len()
    );

    // spec/mpk.md §3.3.1: the pipeline's rules run over its tokens, one pipeline at a time.
    // Rejected, 60,000 pipelines (7.4 MB of text) or one stage of 2 M inputs (8 MB; built as
    // a value, some 95 bytes per input) hold one pipeline's stages and nothing per input;
    // accepted, each input costs its 8-byte `Dependency` (and the list's growth).
    let stage = |name: &str, processor: &str, kernel: &str, deps: &str| {
        format!(
            r#"{{"sequence_id":1,"name":"{name}","pluginId":"p","configPath":"c.json","processor":"{processor}","kernel":"{kernel}","input":[{deps}]}}"#
        )
    };
    let one = format!(r#"{{"sequence":[{}]}}"#, stage("a", "MLA", "infer", r#""decoder""#));
    let bad = format!(r#"{{"sequence":[{}]}}"#, stage("a", "MLA", "cast", r#""decoder""#));
    let text = format!(r#"{{"pipelines":[{}{bad}]}}"#, format!("{one},").repeat(60_000));
    let read = |text: &str| {
        let limits = json::Limits {
            max_bytes: 64 << 20,
            max_depth: 64,
            hash_key: KEY,
        };
        read_pipelines(text.as_bytes(), limits, &Registry::DEFAULT, 1024)
    };
    let (verdict, peak) = counting::peak_of(|| read(&text));
    let e = verdict.unwrap().unwrap_err();
    assert_eq!(
        e.location.path.as_deref(),
        Some("pipeline_sequence.pipelines[60000].sequence[0].kernel"),
        "{e:?}"
    );
    assert!(peak < (64 << 10), "pipeline peak {peak} for {} bytes", text.len());
    let deps = r#""a","#.repeat(2_000_000);
    let two = |last: &str| {
        format!(
            r#"{{"pipelines":[{{"sequence":[{},{}]}}]}}"#,
            stage("a", "MLA", "infer", r#""decoder""#),
            stage("b", "EV74", "pass_through", &format!("{deps}{last}"))
        )
    };
    let text = two(r#""b""#);
    let (verdict, peak) = counting::peak_of(|| read(&text));
    let e = verdict.unwrap().unwrap_err();
    assert_eq!(
        e.location.path.as_deref(),
        Some("pipeline_sequence.pipelines[0].sequence[1].input[2000000]"),
        "{e:?}"
    );
    assert!(peak < (64 << 10), "pipeline peak {peak} for {} bytes", text.len());
    let text = two(r#""decoder""#);
    let (verdict, peak) = counting::peak_of(|| read(&text));
    let pipelines = verdict.unwrap().unwrap();
    assert_eq!(pipelines[0].stages[1].input.len(), 2_000_001);
    assert!(
        peak < 3 * 8 * 2_000_001 + (64 << 10),
        "pipeline peak {peak} for 2 M inputs"
    );
}
