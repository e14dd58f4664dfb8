//! Tests of MPK package validation (`spec/mpk.md` §3 to §5). Each rule has a test named
//! for it asserting the exact taxonomy key and location (entry, JSON path, offset).

use modelgate_core::Location;
use modelgate_core::gzip::write_gzip;
use modelgate_core::mpk::{
    Failure, MpkError, MpkKind, MpkLimits, MpkReader, Package, Registry, check_extension, check_tar_gz,
};
use modelgate_core::tar::writer::END_OF_ARCHIVE;
use modelgate_core::tar::{Discard, EntrySink, FileMeta, Flavor, TarWriter};

// ---------------------------------------------------------------- fixtures

use modelgate_corpus_gen::mpk::{CONTRACT, pipeline, stage, stages as default_stages};

/// The files of the valid package, in archive order.
fn files() -> Vec<(String, Vec<u8>)> {
    vec![
        ("mpk.json".into(), CONTRACT.into()),
        ("pipeline_sequence.json".into(), pipeline(&default_stages()).into()),
        ("pre_config.json".into(), b"{}".to_vec()),
        ("mla_0_config.json".into(), b"{\"batch\":1}".to_vec()),
        ("post_config.json".into(), b"{}".to_vec()),
        ("resnet50_mla.elf".into(), b"\x7fELF\x01\x01\x01".to_vec()),
        ("libpost.so".into(), b"\x7fELF\x02\x01\x01".to_vec()),
    ]
}

fn tar(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut w = TarWriter::new(Flavor::Gnu);
    for (p, d) in files {
        w.append_file(p.as_bytes(), d, &FileMeta::FIXED).unwrap();
    }
    w.finish()
}

fn gz(tar: &[u8]) -> Vec<u8> {
    write_gzip(tar, usize::MAX).unwrap()
}

fn with(edit: impl FnOnce(&mut Vec<(String, Vec<u8>)>)) -> Vec<u8> {
    let mut f = files();
    edit(&mut f);
    gz(&tar(&f))
}

fn set(name: &str, data: &str) -> impl FnOnce(&mut Vec<(String, Vec<u8>)>) {
    let (name, data) = (name.to_string(), data.as_bytes().to_vec());
    move |f| match f.iter_mut().find(|(p, _)| *p == name) {
        Some(e) => e.1 = data,
        None => f.push((name, data)),
    }
}

fn check(bytes: &[u8]) -> Result<Package, MpkError> {
    let whole = check_tar_gz(bytes, MpkLimits::DEFAULT, Registry::DEFAULT, [3, 4]);
    // Feeding in 1000-byte pieces gives the same result.
    let mut r = MpkReader::new(MpkLimits::DEFAULT, Registry::DEFAULT, [5, 6]);
    let mut pieces = Ok(());
    for c in bytes.chunks(1000) {
        pieces = r.feed(c, &mut Discard);
        if pieces.is_err() {
            break;
        }
    }
    let split = match pieces {
        Ok(()) => r.finish(),
        Err(Failure::Rejected(e)) => Err(e),
        Err(Failure::Sink(n)) => match n {},
    };
    assert_eq!(whole, split, "piecewise feeding differs");
    whole
}

fn reject(bytes: &[u8]) -> MpkError {
    let e = check(bytes).expect_err("must be rejected");
    assert!(
        e.to_string().starts_with(e.kind.key()),
        "message starts with its key: {e}"
    );
    e
}

fn member(e: &MpkError) -> Option<&str> {
    e.location.member.as_deref()
}

fn json_path(e: &MpkError) -> Option<&str> {
    e.location.path.as_deref()
}

// ---------------------------------------------------------------- valid

#[test]
fn valid_package_accepted() {
    let p = check(&gz(&tar(&files()))).unwrap();
    assert_eq!(p.contract_path, "mpk.json");
    assert_eq!(p.contract.stages.len(), 2);
    let names: Vec<&str> = p.pipelines[0].stages.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["pre", "mla_0", "post"]);
    let dests: Vec<&str> = p.files.iter().map(|f| f.dest.as_str()).collect();
    assert!(
        dests.contains(&"etc/mpk.json")
            && dests.contains(&"share/resnet50_mla.elf")
            && dests.contains(&"lib/libpost.so")
    );
}

/// JSON whitespace (`spec/json.md` §2) between every token of the contract and the pipeline
/// changes nothing: the same stages, in the same order.
#[test]
fn whitespace_between_tokens_accepted() {
    let spaced = |text: &str| {
        let mut out = String::new();
        for c in text.chars() {
            out.push(c);
            if matches!(c, '{' | '[' | ',' | ':') {
                out.push_str("\n\t ");
            }
        }
        out
    };
    let contract = spaced(CONTRACT);
    let pipeline_text = spaced(&pipeline(&default_stages()));
    let p = check(&with(|f| {
        f[0].1 = contract.into_bytes();
        f[1].1 = pipeline_text.into_bytes();
    }))
    .unwrap();
    assert_eq!(p.contract.stages.len(), 2);
    let names: Vec<&str> = p.pipelines[0].stages.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["pre", "mla_0", "post"]);
}

#[test]
fn stable_ordering_by_sequence_id() {
    let stages = vec![
        stage(3, "post", "A65", "a65_postprocess", &["mla_0"]),
        stage(2, "mla_0", "MLA", "mla_inference", &["pre", "pre_b"]),
        stage(1, "pre", "EV74", "quantization_transform", &["decoder"]),
        stage(1, "pre_b", "EV74", "cast", &["pre"]),
    ];
    let mut f = files();
    f.push(("pre_b_config.json".into(), b"{}".to_vec()));
    f[1].1 = pipeline(&stages).into_bytes();
    let p = check(&gz(&tar(&f))).unwrap();
    let names: Vec<&str> = p.pipelines[0].stages.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["pre", "pre_b", "mla_0", "post"]);
}

#[test]
fn named_contract_accepted() {
    let bytes = with(|f| f[0].0 = "resnet50_mpk.json".into());
    assert_eq!(check(&bytes).unwrap().contract_path, "resnet50_mpk.json");
}

#[test]
fn directories_ignored() {
    let mut t = TarWriter::new(Flavor::Gnu);
    for (p, d) in files() {
        t.append_file(p.as_bytes(), &d, &FileMeta::FIXED).unwrap();
    }
    let mut raw = t.finish();
    raw.truncate(raw.len() - 1024);
    let dir = modelgate_core::tar::file_header(b"models/", 0, &FileMeta::FIXED, Flavor::Gnu).unwrap();
    let mut dir = dir;
    dir[156] = b'5';
    fix_checksum(&mut dir);
    raw.extend_from_slice(&dir);
    raw.extend_from_slice(&END_OF_ARCHIVE);
    assert!(check(&gz(&raw)).is_ok());
}

fn fix_checksum(b: &mut [u8]) {
    b[148..156].copy_from_slice(b"        ");
    let sum: u32 = b[..512].iter().map(|&x| u32::from(x)).sum();
    b[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
}

#[test]
fn several_gzip_members_accepted() {
    let t = tar(&files());
    let (a, b) = t.split_at(1536);
    let mut bytes = gz(a);
    bytes.extend_from_slice(&gz(b));
    assert!(check(&bytes).is_ok());
}

#[test]
fn gzip_zero_padding_accepted() {
    let mut bytes = gz(&tar(&files()));
    bytes.extend_from_slice(&[0u8; 100]);
    assert!(check(&bytes).is_ok());
}

// ---------------------------------------------------------------- §3.0 extension

#[test]
fn extension_rule() {
    assert!(check_extension("model.tar.gz").is_ok());
    for bad in [
        "model.mpk",
        "model.tgz",
        "model.tar",
        "model.gz",
        "model.TAR.GZ",
        "model.tar.Gz",
        ".tar.gz",
        "model.tar.gz.bak",
    ] {
        let e = check_extension(bad).unwrap_err();
        assert_eq!(e.kind, MpkKind::InvalidArchive, "{bad}");
        assert!(e.to_string().starts_with("invalid_archive: "));
    }
}

// ---------------------------------------------------------------- gzip and tar layers

#[test]
fn gzip_crc_corruption_rejected() {
    let mut bytes = gz(&tar(&files()));
    let n = bytes.len();
    bytes[n - 8] ^= 1;
    let e = reject(&bytes);
    assert_eq!(
        (e.kind, e.location.offset),
        (MpkKind::InvalidArchive, Some(n as u64 - 8))
    );
}

#[test]
fn gzip_trailing_garbage_rejected() {
    let mut bytes = gz(&tar(&files()));
    let n = bytes.len() as u64;
    bytes.extend_from_slice(b"junk");
    let e = reject(&bytes);
    assert_eq!((e.kind, e.location.offset), (MpkKind::InvalidArchive, Some(n)));
}

#[test]
fn tar_checksum_corruption_rejected() {
    let mut t = tar(&files());
    t[512 * 2 + 3] ^= 0x20; // name byte of the second entry's header
    let e = reject(&gz(&t));
    assert_eq!((e.kind, e.location.offset), (MpkKind::InvalidArchive, Some(1024 + 148)));
    assert!(e.detail.contains("checksum"));
}

#[test]
fn tar_missing_end_rejected() {
    let t = tar(&files());
    let e = reject(&gz(&t[..t.len() - 1024]));
    assert_eq!(
        (e.kind, e.location.offset),
        (MpkKind::InvalidArchive, Some(t.len() as u64 - 1024))
    );
}

#[test]
fn truncated_gzip_rejected() {
    let bytes = gz(&tar(&files()));
    let e = reject(&bytes[..bytes.len() - 3]);
    assert_eq!(e.kind, MpkKind::InvalidArchive);
}

// ---------------------------------------------------------------- §3.1 entries

#[test]
fn traversal_path_rejected() {
    let e = reject(&with(set("../evil.json", "{}")));
    assert_eq!((e.kind, member(&e)), (MpkKind::PathTraversal, Some("../evil.json")));
}

#[test]
fn absolute_path_rejected() {
    assert_eq!(reject(&with(set("/etc/evil.json", "{}"))).kind, MpkKind::PathTraversal);
}

#[test]
fn fullwidth_slash_rejected() {
    assert_eq!(
        reject(&with(set("..\u{FF0F}evil.json", "{}"))).kind,
        MpkKind::PathTraversal
    );
}

#[test]
fn invalid_utf8_path_rejected() {
    let mut f = files();
    f.push((String::new(), Vec::new()));
    let mut w = TarWriter::new(Flavor::Gnu);
    for (p, d) in &f[..7] {
        w.append_file(p.as_bytes(), d, &FileMeta::FIXED).unwrap();
    }
    w.append_file(b"bad\xff.json", b"{}", &FileMeta::FIXED).unwrap();
    let e = reject(&gz(&w.finish()));
    assert_eq!(e.kind, MpkKind::PathTraversal);
}

#[test]
fn symlink_rejected() {
    let e = reject(&with_entry(b'2', "link.so", b""));
    assert_eq!((e.kind, member(&e)), (MpkKind::PathTraversal, Some("link.so")));
}

#[test]
fn hardlink_rejected() {
    assert_eq!(reject(&with_entry(b'1', "hard.so", b"")).kind, MpkKind::PathTraversal);
}

#[test]
fn device_and_fifo_rejected() {
    for flag in [b'3', b'4', b'6', b'7'] {
        let e = reject(&with_entry(flag, "dev.so", b""));
        assert_eq!(e.kind, MpkKind::InvalidArchive, "{}", flag as char);
    }
}

/// The valid files, then one entry of typeflag `flag`.
fn with_entry(flag: u8, name: &str, data: &[u8]) -> Vec<u8> {
    let mut t = tar(&files());
    t.truncate(t.len() - 1024);
    let mut h =
        modelgate_core::tar::file_header(name.as_bytes(), data.len() as u64, &FileMeta::FIXED, Flavor::Gnu).unwrap();
    h[156] = flag;
    fix_checksum(&mut h);
    t.extend_from_slice(&h);
    t.extend_from_slice(data);
    t.extend_from_slice(modelgate_core::tar::writer::padding(data.len() as u64));
    t.extend_from_slice(&END_OF_ARCHIVE);
    gz(&t)
}

#[test]
fn duplicate_normalized_path_rejected() {
    let e = reject(&with(|f| f.push(("./pre_config.json".into(), b"{}".to_vec()))));
    assert_eq!((e.kind, member(&e)), (MpkKind::InvalidArchive, Some("pre_config.json")));
    assert!(e.detail.contains("duplicate"));
}

#[test]
fn unsupported_class_rejected() {
    let e = reject(&with(set("readme.txt", "hi")));
    assert_eq!((e.kind, member(&e)), (MpkKind::InvalidArchive, Some("readme.txt")));
}

#[test]
fn entry_count_limit() {
    let limits = MpkLimits {
        max_entries: 6,
        ..MpkLimits::DEFAULT
    };
    let e = check_tar_gz(&gz(&tar(&files())), limits, Registry::DEFAULT, [0, 0]).unwrap_err();
    assert_eq!((e.kind, member(&e)), (MpkKind::SizeLimitExceeded, Some("libpost.so")));
}

#[test]
fn entry_size_limit() {
    let limits = MpkLimits {
        max_entry_bytes: 6,
        ..MpkLimits::DEFAULT
    };
    let e = check_tar_gz(&gz(&tar(&files())), limits, Registry::DEFAULT, [0, 0]).unwrap_err();
    assert_eq!((e.kind, member(&e)), (MpkKind::SizeLimitExceeded, Some("mpk.json")));
}

#[test]
fn archive_size_limit() {
    let bytes = gz(&tar(&files()));
    let limits = MpkLimits {
        max_archive_bytes: 100,
        ..MpkLimits::DEFAULT
    };
    let e = check_tar_gz(&bytes, limits, Registry::DEFAULT, [0, 0]).unwrap_err();
    assert_eq!((e.kind, e.location.offset), (MpkKind::SizeLimitExceeded, Some(100)));
}

#[test]
fn expanded_size_limit() {
    let limits = MpkLimits {
        max_expanded_bytes: 2048,
        ..MpkLimits::DEFAULT
    };
    let e = check_tar_gz(&gz(&tar(&files())), limits, Registry::DEFAULT, [0, 0]).unwrap_err();
    assert_eq!(e.kind, MpkKind::SizeLimitExceeded);
}

// ---------------------------------------------------------------- §3.3 required content and JSON

#[test]
fn missing_contract_rejected() {
    let e = reject(&with(|f| {
        f.remove(0);
    }));
    assert_eq!(e.kind, MpkKind::SchemaError);
    assert!(e.detail.contains("mpk.json"));
}

#[test]
fn two_contracts_rejected() {
    let e = reject(&with(set("other_mpk.json", CONTRACT)));
    assert_eq!((e.kind, member(&e)), (MpkKind::SchemaError, Some("other_mpk.json")));
}

#[test]
fn missing_pipeline_rejected() {
    let e = reject(&with(|f| {
        f.remove(1);
    }));
    assert!(e.detail.contains("pipeline_sequence.json"));
}

#[test]
fn missing_binary_rejected() {
    let e = reject(&with(|f| f.truncate(5)));
    assert_eq!(e.kind, MpkKind::SchemaError);
    assert!(e.detail.contains(".elf"));
}

#[test]
fn invalid_json_rejected_with_offset() {
    let e = reject(&with(set("pre_config.json", "{\"a\":1,}")));
    assert_eq!(
        (e.kind, member(&e), e.location.offset),
        (MpkKind::SchemaError, Some("pre_config.json"), Some(7))
    );
}

#[test]
fn duplicate_json_keys_rejected() {
    let e = reject(&with(set("pre_config.json", "{\"a\":1,\"a\":2}")));
    assert_eq!((e.kind, e.location.offset), (MpkKind::SchemaError, Some(7)));
}

#[test]
fn json_depth_limit_rejected() {
    let deep = "[".repeat(65) + &"]".repeat(65);
    let e = reject(&with(set("pre_config.json", &deep)));
    assert_eq!((e.kind, e.location.offset), (MpkKind::SchemaError, Some(64)));
}

#[test]
fn config_path_missing_file_rejected() {
    let e = reject(&with(|f| {
        f.remove(2);
    }));
    assert_eq!(
        (e.kind, json_path(&e)),
        (
            MpkKind::SchemaError,
            Some("pipeline_sequence.pipelines[0].sequence[0].configPath")
        )
    );
}

// ---------------------------------------------------------------- §3.4 pipeline rules

fn with_pipeline(text: &str) -> Vec<u8> {
    with(set("pipeline_sequence.json", text))
}

fn pipeline_error(text: &str) -> (MpkKind, String) {
    let e = reject(&with_pipeline(text));
    assert_eq!(member(&e), Some("pipeline_sequence.json"));
    (e.kind, json_path(&e).unwrap_or("").to_string())
}

#[test]
fn pipeline_not_object_rejected() {
    assert_eq!(pipeline_error("[]"), (MpkKind::SchemaError, "pipeline_sequence".into()));
}

#[test]
fn pipelines_empty_rejected() {
    assert_eq!(
        pipeline_error(r#"{"pipelines":[]}"#),
        (MpkKind::SchemaError, "pipeline_sequence.pipelines".into())
    );
}

#[test]
fn sequence_empty_rejected() {
    assert_eq!(
        pipeline_error(r#"{"pipelines":[{"sequence":[]}]}"#),
        (MpkKind::SchemaError, "pipeline_sequence.pipelines[0].sequence".into())
    );
}

#[test]
fn stage_missing_field_rejected() {
    for field in ["sequence_id", "name", "pluginId", "configPath", "processor", "kernel"] {
        let mut s = default_stages();
        let v: serde_like::Obj = serde_like::Obj::parse(&s[0]);
        s[0] = v.without(field);
        let (kind, path) = pipeline_error(&pipeline(&s));
        assert_eq!(
            (kind, path),
            (
                MpkKind::SchemaError,
                format!("pipeline_sequence.pipelines[0].sequence[0].{field}")
            )
        );
    }
}

#[test]
fn stage_empty_string_rejected() {
    let mut s = default_stages();
    s[1] = s[1].replace("\"pluginId\":\"p_mla_0\"", "\"pluginId\":\"\"");
    assert_eq!(
        pipeline_error(&pipeline(&s)),
        (
            MpkKind::SchemaError,
            "pipeline_sequence.pipelines[0].sequence[1].pluginId".into()
        )
    );
}

#[test]
fn sequence_id_not_integer_rejected() {
    let mut s = default_stages();
    s[0] = s[0].replace("\"sequence_id\":1", "\"sequence_id\":1.5");
    assert_eq!(
        pipeline_error(&pipeline(&s)).1,
        "pipeline_sequence.pipelines[0].sequence[0].sequence_id"
    );
    s[0] = s[0].replace("\"sequence_id\":1.5", "\"sequence_id\":\"1\"");
    assert_eq!(
        pipeline_error(&pipeline(&s)).1,
        "pipeline_sequence.pipelines[0].sequence[0].sequence_id"
    );
}

#[test]
fn duplicate_stage_name_rejected() {
    let mut s = default_stages();
    s.push(stage(4, "pre", "EV74", "cast", &["decoder"]));
    assert_eq!(
        pipeline_error(&pipeline(&s)),
        (
            MpkKind::SchemaError,
            "pipeline_sequence.pipelines[0].sequence[3].name".into()
        )
    );
}

#[test]
fn unsupported_kernel_rejected() {
    let mut s = default_stages();
    s[0] = stage(1, "pre", "EV74", "mla_inference", &["decoder"]);
    assert_eq!(
        pipeline_error(&pipeline(&s)),
        (
            MpkKind::SchemaError,
            "pipeline_sequence.pipelines[0].sequence[0].kernel".into()
        )
    );
}

#[test]
fn unsupported_processor_rejected() {
    let mut s = default_stages();
    s[0] = stage(1, "pre", "GPU", "cast", &["decoder"]);
    assert_eq!(
        pipeline_error(&pipeline(&s)).1,
        "pipeline_sequence.pipelines[0].sequence[0].processor"
    );
}

#[test]
fn all_ev74_kernels_accepted() {
    for k in modelgate_core::mpk::registry::EV74_KERNELS {
        let mut s = default_stages();
        s[0] = stage(1, "pre", "EV74", k, &["decoder"]);
        assert!(check(&with_pipeline(&pipeline(&s))).is_ok(), "{k}");
    }
}

#[test]
fn dependency_on_later_stage_rejected() {
    let mut s = default_stages();
    s[0] = stage(1, "pre", "EV74", "cast", &["decoder", "post"]);
    assert_eq!(
        pipeline_error(&pipeline(&s)),
        (
            MpkKind::SchemaError,
            "pipeline_sequence.pipelines[0].sequence[0].dependencies[1]".into()
        )
    );
}

#[test]
fn dependency_on_self_rejected() {
    let mut s = default_stages();
    s[1] = stage(2, "mla_0", "MLA", "mla_inference", &["mla_0"]);
    assert_eq!(
        pipeline_error(&pipeline(&s)).1,
        "pipeline_sequence.pipelines[0].sequence[1].dependencies[0]"
    );
}

#[test]
fn dependency_unknown_rejected() {
    let mut s = default_stages();
    s[2] = stage(3, "post", "A65", "a65_postprocess", &["ghost"]);
    assert_eq!(
        pipeline_error(&pipeline(&s)).1,
        "pipeline_sequence.pipelines[0].sequence[2].dependencies[0]"
    );
}

#[test]
fn dependency_order_uses_sequence_id_not_document_order() {
    // "post" is first in the document but last by sequence_id: its dependency on
    // mla_0 is fine; mla_0 depending on post (document-earlier) is not.
    let s = vec![
        stage(3, "post", "A65", "a65_postprocess", &["mla_0"]),
        stage(1, "pre", "EV74", "cast", &["decoder"]),
        stage(2, "mla_0", "MLA", "mla_inference", &["post"]),
    ];
    assert_eq!(
        pipeline_error(&pipeline(&s)).1,
        "pipeline_sequence.pipelines[0].sequence[2].dependencies[0]"
    );
}

#[test]
fn decoder_stage_name_reserved() {
    let mut s = default_stages();
    s[0] = stage(1, "decoder", "EV74", "cast", &[]);
    assert_eq!(
        pipeline_error(&pipeline(&s)).1,
        "pipeline_sequence.pipelines[0].sequence[0].name"
    );
}

#[test]
fn config_path_traversal_rejected() {
    let mut s = default_stages();
    s[0] = s[0].replace("pre_config.json", "../../etc/passwd.json");
    assert_eq!(
        pipeline_error(&pipeline(&s)),
        (
            MpkKind::PathTraversal,
            "pipeline_sequence.pipelines[0].sequence[0].configPath".into()
        )
    );
}

#[test]
fn stage_limit() {
    let limits = MpkLimits {
        max_stages: 2,
        ..MpkLimits::DEFAULT
    };
    let e = check_tar_gz(&gz(&tar(&files())), limits, Registry::DEFAULT, [0, 0]).unwrap_err();
    assert_eq!(e.kind, MpkKind::SizeLimitExceeded);
}

// ---------------------------------------------------------------- §3.7 contract

fn contract_error(text: &str) -> (MpkKind, String) {
    let e = reject(&with(set("mpk.json", text)));
    assert_eq!(member(&e), Some("mpk.json"));
    (e.kind, json_path(&e).unwrap_or("").to_string())
}

#[test]
fn contract_future_major_unsupported() {
    let text = CONTRACT.replace("\"1.0\"", "\"2.0\"");
    assert_eq!(
        contract_error(&text),
        (MpkKind::UnsupportedVersion, "mpk.mpk_version".into())
    );
    // Even with an otherwise unknown schema.
    assert_eq!(
        contract_error(r#"{"mpk_version":"7.3","graph":{}}"#).0,
        MpkKind::UnsupportedVersion
    );
}

#[test]
fn contract_minor_version_accepted() {
    assert!(check(&with(set("mpk.json", &CONTRACT.replace("\"1.0\"", "\"1.9\"")))).is_ok());
}

#[test]
fn contract_malformed_version_rejected() {
    for v in ["\"1\"", "\"v1.0\"", "\"01.0\"", "1.0", "\"1.0.0\""] {
        let text = CONTRACT.replace("\"1.0\"", v);
        assert_eq!(
            contract_error(&text),
            (MpkKind::SchemaError, "mpk.mpk_version".into()),
            "{v}"
        );
    }
}

#[test]
fn contract_unknown_member_rejected() {
    let text = CONTRACT.replacen('{', "{\"extra\":1,", 1);
    assert_eq!(contract_error(&text), (MpkKind::SchemaError, "mpk.extra".into()));
}

#[test]
fn contract_stage_not_in_pipeline_rejected() {
    let text = CONTRACT.replace("\"name\":\"post\"", "\"name\":\"ghost\"");
    assert_eq!(
        contract_error(&text),
        (MpkKind::SchemaError, "mpk.stages[1].name".into())
    );
}

#[test]
fn contract_processor_mismatch_rejected() {
    // mla_0 is an MLA stage of the pipeline; the contract claims it runs on A65.
    let text = CONTRACT.replace("\"name\":\"post\"", "\"name\":\"mla_0\"");
    assert_eq!(
        contract_error(&text),
        (MpkKind::SchemaError, "mpk.stages[1].name".into())
    );
}

#[test]
fn contract_executable_class_rejected() {
    let text = CONTRACT.replace("resnet50_mla.elf", "libpost.so");
    assert_eq!(
        contract_error(&text),
        (MpkKind::SchemaError, "mpk.stages[0].executable".into())
    );
}

#[test]
fn contract_executable_missing_rejected() {
    let text = CONTRACT.replace("resnet50_mla.elf", "other.elf");
    assert_eq!(
        contract_error(&text),
        (MpkKind::SchemaError, "mpk.stages[0].executable".into())
    );
}

#[test]
fn contract_executable_traversal_rejected() {
    let text = CONTRACT.replace("resnet50_mla.elf", "../resnet50_mla.elf");
    assert_eq!(
        contract_error(&text),
        (MpkKind::PathTraversal, "mpk.stages[0].executable".into())
    );
}

// ---------------------------------------------------------------- sink

struct Collect(Vec<(String, Vec<u8>)>);

impl EntrySink for Collect {
    type Error = ();
    fn begin(&mut self, dest: &str, _: u64) -> Result<(), ()> {
        self.0.push((dest.to_string(), Vec::new()));
        Ok(())
    }
    fn data(&mut self, chunk: &[u8]) -> Result<(), ()> {
        self.0.last_mut().unwrap().1.extend_from_slice(chunk);
        Ok(())
    }
    fn end(&mut self) -> Result<(), ()> {
        Ok(())
    }
}

#[test]
fn sink_receives_every_file() {
    let mut r = MpkReader::new(MpkLimits::DEFAULT, Registry::DEFAULT, [0, 0]);
    let mut sink = Collect(Vec::new());
    r.feed(&gz(&tar(&files())), &mut sink).unwrap();
    r.finish().unwrap();
    assert_eq!(sink.0.len(), 7);
    assert_eq!(
        sink.0[5],
        ("share/resnet50_mla.elf".into(), b"\x7fELF\x01\x01\x01".to_vec())
    );
}

#[test]
fn error_location_display() {
    let e = reject(&with(set("pre_config.json", "{\"a\":1,\"a\":2}")));
    assert_eq!(e.location, Location::at(7).in_member("pre_config.json"));
    assert_eq!(e.message(), "schema_error: invalid JSON: duplicate object member name");
}

/// A tiny helper to drop one member from a flat JSON object written by `stage`.
mod serde_like {
    pub struct Obj(Vec<(String, String)>);
    impl Obj {
        pub fn parse(s: &str) -> Obj {
            let inner = &s[1..s.len() - 1];
            let mut out = Vec::new();
            let mut depth = 0;
            let mut start = 0;
            for (i, c) in inner.char_indices() {
                match c {
                    '[' => depth += 1,
                    ']' => depth -= 1,
                    ',' if depth == 0 => {
                        out.push(split(&inner[start..i]));
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            out.push(split(&inner[start..]));
            Obj(out)
        }
        pub fn without(&self, key: &str) -> String {
            let kept: Vec<String> = self
                .0
                .iter()
                .filter(|(k, _)| k != key)
                .map(|(k, v)| format!("\"{k}\":{v}"))
                .collect();
            format!("{{{}}}", kept.join(","))
        }
    }
    fn split(kv: &str) -> (String, String) {
        let (k, v) = kv.split_once(':').unwrap();
        (k.trim_matches('"').to_string(), v.to_string())
    }
}

#[test]
fn root_directory_entry_ignored() {
    // `tar -C pkg -czf pkg.tar.gz .` starts with a `./` directory entry.
    let mut raw = modelgate_core::tar::file_header(b"./", 0, &FileMeta::FIXED, Flavor::Gnu).unwrap();
    raw[156] = b'5';
    fix_checksum(&mut raw);
    raw.extend_from_slice(&tar(&files()));
    assert!(check(&gz(&raw)).is_ok());
}

/// A regular file named `./` names the root: the tar layer refuses it as a file named like
/// a folder (`spec/mpk.md` §1.1.6) before the path rules would find it empty (§3.1).
#[test]
fn file_named_dot_slash_rejected() {
    let e = reject(&with(set("./", "{}")));
    assert_eq!(e.kind, MpkKind::InvalidArchive);
    assert!(e.detail.contains("named like a folder"), "{e}");
}

struct FailOnData;

impl EntrySink for FailOnData {
    type Error = &'static str;
    fn begin(&mut self, _: &str, _: u64) -> Result<(), Self::Error> {
        Ok(())
    }
    fn data(&mut self, _: &[u8]) -> Result<(), Self::Error> {
        Err("disk full")
    }
    fn end(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

#[test]
fn sink_failure_stops_the_reader() {
    let bytes = gz(&tar(&files()));
    let mut r = MpkReader::new(MpkLimits::DEFAULT, Registry::DEFAULT, [0, 0]);
    assert_eq!(r.feed(&bytes, &mut FailOnData), Err(Failure::Sink("disk full")));
    assert!(matches!(r.feed(&bytes, &mut Discard), Err(Failure::Rejected(_))));
    assert_eq!(r.finish().unwrap_err().kind, MpkKind::InvalidArchive);
}

/// The fuzz finding behind `hostile-corpus/mpk/invalid_archive-tar-error-before-deflate-error`:
/// a tar header inflated in the same call as a deflate error reaches the tar layer first, so
/// the error is the tar checksum whether the file arrives whole or byte by byte
/// (`spec/inflate.md` §2.8).
#[test]
fn output_before_a_deflate_error_is_checked_first_in_any_pieces() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../hostile-corpus/mpk/invalid_archive-tar-error-before-deflate-error.tar.gz"
    );
    let bytes = std::fs::read(path).unwrap();
    let whole = check_tar_gz(&bytes, MpkLimits::DEFAULT, Registry::DEFAULT, [3, 4]).unwrap_err();
    assert!(whole.to_string().contains("checksum mismatch"), "{whole}");
    for size in [1, 7, 512, 517] {
        let mut r = MpkReader::new(MpkLimits::DEFAULT, Registry::DEFAULT, [5, 6]);
        let mut outcome = Ok(());
        for c in bytes.chunks(size) {
            outcome = r.feed(c, &mut Discard);
            if outcome.is_err() {
                break;
            }
        }
        let split = match outcome {
            Ok(()) => r.finish().map(|_| ()),
            Err(Failure::Rejected(e)) => Err(e),
            Err(Failure::Sink(n)) => match n {},
        };
        assert_eq!(split, Err(whole.clone()), "pieces of {size}");
    }
}

/// §4, §6.2: `max_archive_bytes` is checked as the bytes arrive, so a failure inside the
/// first `max_archive_bytes` bytes is reported whether the file is fed whole or in pieces;
/// the size limit only wins when no earlier byte failed.
#[test]
fn archive_size_limit_same_result_whatever_the_split() {
    let limits = MpkLimits {
        max_archive_bytes: 100,
        ..MpkLimits::DEFAULT
    };
    // The error checking `bytes` whole, and the first one feeding it in pieces of `piece`.
    let both = |bytes: &[u8], piece: usize| {
        let whole = check_tar_gz(bytes, limits, Registry::DEFAULT, [0, 0]).unwrap_err();
        let mut r = MpkReader::new(limits, Registry::DEFAULT, [0, 0]);
        let pieces = bytes.chunks(piece).find_map(|c| match r.feed(c, &mut Discard) {
            Err(Failure::Rejected(e)) => Some(e),
            _ => None,
        });
        (whole, pieces)
    };
    let mut bytes = gz(&tar(&files()));
    bytes[1] = 0x8c; // gzip BadMagic at offset 1, inside the limit
    let (whole, pieces) = both(&bytes, 10);
    assert_eq!((whole.kind, whole.location.offset), (MpkKind::InvalidArchive, Some(1)));
    assert_eq!(Some(whole), pieces);
    // No failure before the limit: the limit wins at its offset, fed whole or in pieces.
    let (whole, pieces) = both(&gz(&tar(&files())), 7);
    assert_eq!(
        (whole.kind, whole.location.offset),
        (MpkKind::SizeLimitExceeded, Some(100))
    );
    assert_eq!(Some(whole), pieces);
}

// ---------------------------------------------------------------- §3.1 step 7, §6.5

/// A sink with room for `.0` bytes of destination path; records the paths it begins.
struct Room(usize, Vec<String>);

impl EntrySink for Room {
    type Error = ();
    fn begin(&mut self, path: &str, _: u64) -> Result<(), ()> {
        self.1.push(path.into());
        Ok(())
    }
    fn data(&mut self, _: &[u8]) -> Result<(), ()> {
        Ok(())
    }
    fn end(&mut self) -> Result<(), ()> {
        Ok(())
    }
    fn max_path_bytes(&self) -> usize {
        self.0
    }
}

fn feed_into(sink: &mut Room) -> Result<Package, MpkError> {
    let mut r = MpkReader::new(MpkLimits::DEFAULT, Registry::DEFAULT, [5, 6]);
    match r.feed(&gz(&tar(&files())), sink) {
        Ok(()) => r.finish(),
        Err(Failure::Rejected(e)) => Err(e),
        Err(Failure::Sink(())) => panic!("sink failed"),
    }
}

#[test]
fn destination_path_longer_than_the_sinks_room_is_size_limit_exceeded_at_its_entry() {
    // The longest destination is `etc/pipeline_sequence.json`, 26 bytes: the second entry.
    let mut sink = Room(25, Vec::new());
    let e = feed_into(&mut sink).unwrap_err();
    assert_eq!(e.kind, MpkKind::SizeLimitExceeded, "{e}");
    let at = tar(&files()[..1]).len() - END_OF_ARCHIVE.len();
    assert_eq!(e.location, Location::at(at as u64).in_member("pipeline_sequence.json"));
    assert!(e.to_string().contains("26 bytes"), "{e}");
    // Nothing was begun for it.
    assert_eq!(sink.1, ["etc/mpk.json"]);
    // With room for it, the package passes; a sink without a limit never refuses.
    let mut sink = Room(26, Vec::new());
    feed_into(&mut sink).unwrap();
    assert_eq!(sink.1.len(), files().len());
    assert_eq!(Discard.max_path_bytes(), usize::MAX);
}
