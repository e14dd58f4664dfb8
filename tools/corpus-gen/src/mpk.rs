//! `hostile-corpus/mpk/`: one `.tar.gz` package per rule of `spec/mpk.md`, each carrying
//! its exact expected outcome, and `fixtures_manifest.json` with the SHA-256 of every
//! file. Archives are built here with fixed metadata (mtime 1700000000, uid/gid 0, empty
//! owner names) and the deterministic gzip writer, so they are reproducible bit for bit.

use crate::pax_record;
use crate::{CorpusFile, Expected};
use modelgate_core::digest::{hex, sha256};
use modelgate_core::gzip::write_gzip;
use modelgate_core::json::Writer;
use modelgate_core::mpk::{MpkKind, MpkLimits, Registry, check_extension, check_tar_gz, registry::EV74_KERNELS};
use modelgate_core::tar::writer::{END_OF_ARCHIVE, padding};
use modelgate_core::tar::{FileMeta, Flavor, TarWriter, file_header};

/// What a case must give.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// Accepted.
    Valid,
    /// Rejected with this key; the error's display (message and location) contains the
    /// text.
    Reject(MpkKind, &'static str),
}

use Expect::{Reject, Valid};
use MpkKind::{
    InvalidArchive as IA, PathTraversal as PT, SchemaError as SE, SizeLimitExceeded as SL, UnsupportedVersion as UV,
};

impl Expected for Expect {
    fn expected(&self) -> &'static str {
        match *self {
            Valid => "valid",
            Reject(k, _) => k.key(),
        }
    }
}

/// The outcome of `modelgate check` for a file with this extension and these bytes:
/// the extension rule, then the package check with the default limits.
pub fn outcome(ext: &str, bytes: &[u8]) -> Result<(), modelgate_core::mpk::MpkError> {
    check_extension(&format!("package.{ext}"))?;
    check_tar_gz(bytes, MpkLimits::DEFAULT, Registry::DEFAULT, [0x6b30, 0x6b31]).map(|_| ())
}

/// The corpus files of this module, then the fixture manifest.
pub fn files() -> Vec<CorpusFile> {
    let mut out: Vec<CorpusFile> = cases().iter().map(|c| c.file("mpk")).collect();
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out.push(manifest(&out));
    out
}

/// `mpk/fixtures_manifest.json`: canonical JSON `{"files":{"<name>":"<sha256>",...},"format":"mpk"}`
/// sorted by name (seed "Determinism Requirements").
pub fn manifest(files: &[CorpusFile]) -> CorpusFile {
    let mut w = Writer::new();
    w.begin_object().name("files").begin_object();
    for f in files {
        let name = f.path.rsplit('/').next().unwrap_or(&f.path);
        w.name(name).string(&hex(&sha256(&f.bytes)));
    }
    w.end_object().name("format").string("mpk").end_object();
    let mut text = w.finish();
    text.push('\n');
    CorpusFile {
        path: String::from("mpk/fixtures_manifest.json"),
        bytes: text.into_bytes(),
    }
}

// ---------------------------------------------------------------- package builders

const META: FileMeta = FileMeta {
    mode: 0o644,
    mtime: 1_700_000_000,
    uid: 0,
    gid: 0,
};

/// The valid package's contract, `mpk.json` (`spec/mpk.md` §3.1).
pub const CONTRACT: &str = r#"{"mpk_version":"1.0","model":"resnet50","stages":[{"name":"mla_0","processor":"MLA","executable":"resnet50_mla.elf"},{"name":"post","processor":"A65","executable":"libpost.so"}]}"#;

type Files = Vec<(String, Vec<u8>)>;

/// One stage of `pipeline_sequence.json` (`spec/mpk.md` §3.2): sequence id, name (which
/// also names its plugin and config file), processor, kernel and dependencies.
pub fn stage(id: i64, name: &str, processor: &str, kernel: &str, deps: &[&str]) -> String {
    let deps: Vec<String> = deps.iter().map(|d| format!("\"{d}\"")).collect();
    format!(
        r#"{{"sequence_id":{id},"name":"{name}","pluginId":"p_{name}","configPath":"{name}_config.json","processor":"{processor}","kernel":"{kernel}","dependencies":[{}]}}"#,
        deps.join(",")
    )
}

/// `pipeline_sequence.json` with one pipeline of these stages.
pub fn pipeline(stages: &[String]) -> String {
    format!(r#"{{"pipelines":[{{"sequence":[{}]}}]}}"#, stages.join(","))
}

/// The valid package's three stages: `pre` (EV74), `mla_0` (MLA), `post` (A65).
pub fn stages() -> Vec<String> {
    vec![
        stage(1, "pre", "EV74", "quantization_transform", &["decoder"]),
        stage(2, "mla_0", "MLA", "mla_inference", &["pre"]),
        stage(3, "post", "A65", "a65_postprocess", &["mla_0"]),
    ]
}

fn base() -> Files {
    vec![
        ("mpk.json".into(), CONTRACT.into()),
        ("pipeline_sequence.json".into(), pipeline(&stages()).into()),
        ("pre_config.json".into(), b"{\"scale\":0.5}".to_vec()),
        ("mla_0_config.json".into(), b"{\"batch\":1}".to_vec()),
        ("post_config.json".into(), b"{}".to_vec()),
        ("resnet50_mla.elf".into(), b"\x7fELF\x01\x01\x01\0MLA stage".to_vec()),
        ("libpost.so".into(), b"\x7fELF\x02\x01\x01\0A65 module".to_vec()),
    ]
}

fn put(files: &mut Files, name: &str, data: &[u8]) {
    match files.iter_mut().find(|(p, _)| p == name) {
        Some(e) => e.1 = data.to_vec(),
        None => files.push((name.to_string(), data.to_vec())),
    }
}

fn remove(files: &mut Files, name: &str) {
    files.retain(|(p, _)| p != name);
}

/// The tar of `files` without its end marker.
fn tar_body(files: &Files) -> Vec<u8> {
    let mut w = TarWriter::new(Flavor::Gnu);
    for (p, d) in files {
        w.append_file(p.as_bytes(), d, &META).unwrap_or_default();
    }
    let mut t = w.finish();
    t.truncate(t.len() - END_OF_ARCHIVE.len());
    t
}

fn finish(mut body: Vec<u8>) -> Vec<u8> {
    body.extend_from_slice(&END_OF_ARCHIVE);
    body
}

fn gz(tar: &[u8]) -> Vec<u8> {
    write_gzip(tar, usize::MAX).unwrap_or_default()
}

fn pkg(files: &Files) -> Vec<u8> {
    gz(&finish(tar_body(files)))
}

fn edited(edit: impl FnOnce(&mut Files)) -> Vec<u8> {
    let mut f = base();
    edit(&mut f);
    pkg(&f)
}

fn with(name: &str, data: &str) -> Vec<u8> {
    edited(|f| put(f, name, data.as_bytes()))
}

fn with_pipeline(stages: &[String]) -> Vec<u8> {
    with("pipeline_sequence.json", &pipeline(stages))
}

fn with_stage(i: usize, s: String) -> Vec<u8> {
    let mut st = stages();
    st[i] = s;
    with_pipeline(&st)
}

fn with_contract(text: &str) -> Vec<u8> {
    with("mpk.json", text)
}

/// Recomputes a header block's checksum.
fn fix(h: &mut [u8]) {
    h[148..156].copy_from_slice(b"        ");
    let sum: u32 = h[..512].iter().map(|&x| u32::from(x)).sum();
    h[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
}

/// A raw entry: GNU header (name cut to 100 bytes) of typeflag `flag` declaring `size`,
/// then `data` and its padding.
fn raw_entry(flag: u8, name: &[u8], size: u64, data: &[u8]) -> Vec<u8> {
    let mut h = file_header(b"x", size, &META, Flavor::Gnu).unwrap_or_default();
    h[..100].fill(0);
    let n = name.len().min(100);
    h[..n].copy_from_slice(&name[..n]);
    h[156] = flag;
    fix(&mut h);
    h.extend_from_slice(data);
    h.extend_from_slice(padding(data.len() as u64));
    h
}

fn entry(flag: u8, name: &str, data: &[u8]) -> Vec<u8> {
    raw_entry(flag, name.as_bytes(), data.len() as u64, data)
}

fn pax(records: &[u8]) -> Vec<u8> {
    entry(b'x', "PaxHeaders/entry", records)
}

fn long_name(name: &[u8]) -> Vec<u8> {
    let mut d = name.to_vec();
    d.push(0);
    raw_entry(b'L', b"././@LongLink", d.len() as u64, &d)
}

/// The base package with `extra` tar bytes appended before the end marker.
fn base_then(extra: &[u8]) -> Vec<u8> {
    let mut t = tar_body(&base());
    t.extend_from_slice(extra);
    gz(&finish(t))
}

/// The base package's tar with `edit` applied to its bytes (not re-gzipped).
fn tar_edit(edit: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut t = finish(tar_body(&base()));
    edit(&mut t);
    gz(&t)
}

/// A gzip member whose deflate stream is one stored block holding a tar header with a wrong
/// checksum, then a block of the reserved type 3: the tar error comes first in the output.
fn tar_header_then_bad_block() -> Vec<u8> {
    let mut header = entry(b'0', "etc/x.json", b"{}")[..512].to_vec();
    header[3] ^= 0x20;
    let mut g = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    // Stored block, not final: LEN = 512 and its complement, then the bytes.
    g.extend_from_slice(&[0x00, 0x00, 0x02, 0xff, 0xfd]);
    g.extend_from_slice(&header);
    // BFINAL = 1, BTYPE = 3 (reserved).
    g.extend_from_slice(&[0x07, 0x00, 0x00, 0x00]);
    g
}

fn gz_edit(edit: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut g = pkg(&base());
    edit(&mut g);
    g
}

fn file_named(name: &str) -> Vec<u8> {
    base_then(&entry(b'0', name, b"{}"))
}

/// Offset of the base tar's end (where appended entries start): 7 files, each a
/// header and one data block.
const BASE_END: usize = 7 * 1024;

// ---------------------------------------------------------------- valid variants

fn valid_long_names() -> Vec<u8> {
    let dir = "configs/".repeat(14);
    let mut st = stages();
    st[0] = st[0].replace("\"pre_config.json\"", &format!("\"{dir}pre_config.json\""));
    edited(|f| {
        remove(f, "pre_config.json");
        put(f, &format!("{dir}pre_config.json"), b"{}");
        put(f, "pipeline_sequence.json", pipeline(&st).as_bytes());
    })
}

fn valid_pax_path() -> Vec<u8> {
    let long = "deep/".repeat(25) + "extra.json";
    base_then(
        &[
            pax(&pax_record("path", long.as_bytes())),
            entry(b'0', "extra.json", b"{}"),
        ]
        .concat(),
    )
}

/// Header says 0 bytes, PAX says 1024: the data holds a fake header naming a traversal
/// path that only a reader using the header size would see.
fn valid_pax_size_disagrees() -> Vec<u8> {
    let hidden = [entry(b'0', "../../evil.json", b""), vec![0u8; 512]].concat();
    let mut e = raw_entry(b'0', b"blob.so", 0, b"");
    e.extend_from_slice(&hidden);
    base_then(&[pax(&pax_record("size", b"1024")), e].concat())
}

fn valid_directories() -> Vec<u8> {
    base_then(
        &[
            entry(b'5', "models/", b""),
            entry(b'5', "configs/", b""),
            entry(b'0', "models/extra.elf", b"E"),
        ]
        .concat(),
    )
}

fn valid_several_members() -> Vec<u8> {
    let t = finish(tar_body(&base()));
    let (a, b) = t.split_at(3 * 1024);
    [gz(a), gz(b)].concat()
}

fn valid_all_ev74_kernels() -> Vec<u8> {
    let mut st = stages();
    let mut f = base();
    for (i, k) in EV74_KERNELS.iter().enumerate() {
        let name = format!("ev{i}");
        st.push(stage(10 + i as i64, &name, "EV74", k, &["decoder"]));
        put(&mut f, &format!("{name}_config.json"), b"{}");
    }
    put(&mut f, "pipeline_sequence.json", pipeline(&st).as_bytes());
    pkg(&f)
}

fn valid_stable_order() -> Vec<u8> {
    let st = vec![
        stage(3, "post", "A65", "a65_postprocess", &["mla_0"]),
        stage(2, "mla_0", "MLA", "mla_inference", &["pre", "pre_b"]),
        stage(1, "pre", "EV74", "quantization_transform", &["decoder"]),
        stage(1, "pre_b", "EV74", "cast", &["pre"]),
    ];
    edited(|f| {
        put(f, "pipeline_sequence.json", pipeline(&st).as_bytes());
        put(f, "pre_b_config.json", b"{}");
    })
}

fn valid_base256_size() -> Vec<u8> {
    let mut e = raw_entry(b'0', b"b256.so", 0, b"abc");
    e[124..136].copy_from_slice(&[0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3]);
    fix(&mut e);
    base_then(&e)
}

fn valid_dot_slash() -> Vec<u8> {
    let f: Files = base().into_iter().map(|(p, d)| (format!("./{p}"), d)).collect();
    pkg(&f)
}

fn global_pax(records: &[u8]) -> Vec<u8> {
    entry(b'g', "pax_global_header", records)
}

fn many_entries() -> Vec<u8> {
    let dirs: Vec<u8> = (0..4100).flat_map(|i| entry(b'5', &format!("d{i}/"), b"")).collect();
    base_then(&dirs)
}

fn many_stages() -> Vec<u8> {
    let mut st = stages();
    for i in 0..1030 {
        st.push(stage(100 + i, &format!("s{i}"), "EV74", "cast", &["decoder"]));
    }
    with_pipeline(&st)
}

/// §3.5.2 fails at the last of 50,001 dependencies: every stage is checked, then the order,
/// over the pipeline's tokens (§3.3.1), which hold nothing per dependency (built as a value,
/// as before the walk, some 95 bytes each). Kept small for the fuzzers that start from the
/// corpus; `std-io/tests/json_memory.rs` measures 2 M.
fn many_dependencies() -> Vec<u8> {
    let mut deps = vec!["pre"; 50_000];
    deps.push("post");
    with_stage(1, stage(2, "mla_0", "MLA", "mla_inference", &deps))
}

fn deep_json(depth: usize) -> String {
    "[".repeat(depth) + &"]".repeat(depth)
}

/// Asserts the exact outcome of one case: its kind, and a text its display contains.
#[cfg(test)]
fn assert_case(case: &crate::Case<Expect>) {
    match (outcome(case.ext, &case.bytes), case.expect) {
        (Ok(()), Valid) => {}
        (Err(e), Reject(kind, text)) => {
            let shown = e.to_string();
            assert_eq!(e.kind, kind, "{shown}");
            assert!(shown.starts_with(kind.key()), "{shown}");
            assert!(shown.contains(text), "{shown:?} lacks {text:?}");
        }
        (got, want) => panic!("got {got:?}, want {want:?}"),
    }
}

cases! {
    expect: Expect;
    ext: "tar.gz";
    check: assert_case;
    // Valid packages: every accepted form.
    minimal: pkg(&base()) => Valid;
    named_contract: edited(|f| f[0].0 = "resnet50_mpk.json".into()) => Valid;
    gnu_long_names: valid_long_names() => Valid;
    pax_long_path: valid_pax_path() => Valid;
    path_255_segments: base_then(&[long_name(("d/".repeat(254) + "x.json").as_bytes()), entry(b'0', "harmless.json", b"{}")].concat()) => Valid;
    pax_size_disagrees_with_header: valid_pax_size_disagrees() => Valid;
    directories_ignored: valid_directories() => Valid;
    several_gzip_members: valid_several_members() => Valid;
    gzip_zero_padding: [pkg(&base()), vec![0u8; 64]].concat() => Valid;
    tar_record_padding: gz(&[finish(tar_body(&base())), vec![0u8; 10240 - 1024]].concat()) => Valid;
    stable_ordering: valid_stable_order() => Valid;
    all_ev74_kernels: valid_all_ev74_kernels() => Valid;
    global_pax_comment: gz(&finish([global_pax(&pax_record("comment", b"4b825dc642cb6eb9a060e54bf8d69288fbee4904")), tar_body(&base())].concat())) => Valid;
    base256_size: valid_base256_size() => Valid;
    dot_slash_paths: valid_dot_slash() => Valid;
    minor_version: with_contract(&CONTRACT.replace("\"1.0\"", "\"1.7\"")) => Valid;
    root_directory_entry: gz(&[entry(b'5', "./", b""), finish(tar_body(&base()))].concat()) => Valid;
    // Made by other tools (tools/mpk-fixtures.sh): GNU tar's gnu format with `./` and a
    // long name, its posix format with PAX headers, Python's tarfile PAX format.
    gnu_tar_gnu_format: include_bytes!("../fixtures/mpk/gnu-tar-dot.tar.gz").to_vec() => Valid;
    gnu_tar_posix_format: include_bytes!("../fixtures/mpk/gnu-tar-posix.tar.gz").to_vec() => Valid;
    python_tarfile_pax: include_bytes!("../fixtures/mpk/python-tarfile-pax.tar.gz").to_vec() => Valid;

    // §3.0 the extension rule, before any byte is read.
    extension_tgz."tgz": pkg(&base()) => Reject(IA, "must end in .tar.gz");
    extension_mpk."mpk": pkg(&base()) => Reject(IA, "must end in .tar.gz");

    // gzip layer (spec/inflate.md §5).
    gzip_bad_magic: gz_edit(|g| g[0] = 0x1e) => Reject(IA, "gzip: not a gzip member");
    gzip_crc_mismatch: gz_edit(|g| { let n = g.len(); g[n - 8] ^= 1; }) => Reject(IA, "gzip: member CRC-32 mismatch");
    gzip_isize_mismatch: gz_edit(|g| { let n = g.len(); g[n - 1] ^= 1; }) => Reject(IA, "gzip: member size mismatch");
    gzip_trailing_garbage: gz_edit(|g| g.extend_from_slice(b"garbage")) => Reject(IA, "gzip: trailing data");
    gzip_truncated: gz_edit(|g| { let n = g.len(); g.truncate(n - 5); }) => Reject(IA, "gzip: gzip input is truncated");
    gzip_empty: Vec::new() => Reject(IA, "gzip: no gzip member");
    // Found by the mpk fuzz target (fuzz/README.md): output inflated before a deflate error
    // in the same call reaches the tar layer first, so the first error is the same whole
    // or in pieces (spec/inflate.md §2.8).
    tar_error_before_deflate_error: tar_header_then_bad_block() => Reject(IA, "checksum mismatch");

    // §1 tar layer.
    tar_bad_checksum: tar_edit(|t| t[1024 + 3] ^= 0x20) => Reject(IA, "checksum mismatch");
    tar_bad_magic: tar_edit(|t| { t[1024 + 257] = b'X'; fix(&mut t[1024..1536]); }) => Reject(IA, "neither ustar nor GNU magic");
    tar_bad_octal_size: tar_edit(|t| { t[1024 + 130] = b'9'; fix(&mut t[1024..1536]); }) => Reject(IA, "field size is not a valid number (byte 1148)");
    tar_negative_base256_size: tar_edit(|t| { t[1024 + 124..1024 + 136].fill(0xff); fix(&mut t[1024..1536]); }) => Reject(IA, "field size is negative");
    tar_file_named_as_folder: base_then(&raw_entry(0, b"hidden.so/", 1024, &[entry(b'0', "evil.json", b"{}"), vec![0u8; 1024]].concat()[..1024])) => Reject(IA, "regular tar entry named like a folder");
    tar_gnu_prefix_area: base_then(&{ let mut e = entry(b'0', "extra.so", b"x"); e[345..351].copy_from_slice(b"sneaky"); fix(&mut e[..512]); e }) => Reject(IA, "GNU tar header has a non-empty prefix area");
    tar_base256_checksum: tar_edit(|t| { let h = &mut t[1024..1536]; let sum: u64 = h.iter().enumerate().map(|(i, &b)| if (148..156).contains(&i) { 32 } else { u64::from(b) }).sum(); h[148] = 0x80; h[149..156].copy_from_slice(&sum.to_be_bytes()[1..]); }) => Reject(IA, "field chksum is not a valid number");
    tar_name_hidden_bytes: tar_edit(|t| { t[1024 + 60] = b'x'; fix(&mut t[1024..1536]); }) => Reject(IA, "field name has bytes after its terminator");
    tar_missing_end: gz(&tar_body(&base())) => Reject(IA, "no end-of-archive marker");
    tar_single_zero_block: gz(&[tar_body(&base()), vec![0u8; 512]].concat()) => Reject(IA, "no end-of-archive marker");
    tar_lone_zero_block: base_then(&[vec![0u8; 512], entry(b'0', "late.json", b"{}")].concat()) => Reject(IA, "single zero block");
    tar_trailing_data: gz(&[finish(tar_body(&base())), entry(b'0', "hidden.json", b"{}")].concat()) => Reject(IA, "data after the end-of-archive marker");
    tar_truncated_header: gz(&tar_body(&base())[..BASE_END - 1024 + 100]) => Reject(IA, "tar stream is truncated");
    tar_truncated_data: gz(&tar_body(&base())[..BASE_END - 512 + 5]) => Reject(IA, "tar stream is truncated");
    tar_truncated_padding: gz(&tar_body(&base())[..BASE_END - 100]) => Reject(IA, "tar stream is truncated (member libpost.so, byte 7068)");
    tar_truncated_long_name: gz(&[tar_body(&base()), long_name(&[b'n'; 300])[..700].to_vec()].concat()) => Reject(IA, "tar stream is truncated (byte 7868)");
    tar_truncated_end_marker: gz(&[tar_body(&base()), vec![0u8; 700]].concat()) => Reject(IA, "tar stream is truncated (byte 7868)");
    tar_truncated_pax: gz(&[tar_body(&base()), pax(&pax_record("path", b"x.json"))[..600].to_vec()].concat()) => Reject(IA, "tar stream is truncated");
    tar_gnu_sparse: base_then(&entry(b'S', "sparse.so", b"")) => Reject(IA, "sparse");
    tar_pax_sparse: base_then(&[pax(&pax_record("GNU.sparse.map", b"0,10")), entry(b'0', "s.so", b"")].concat()) => Reject(IA, "sparse");
    tar_pax_bad_length: base_then(&[pax(b"99 path=x.json\n"), entry(b'0', "x.json", b"{}")].concat()) => Reject(IA, "malformed PAX");
    tar_pax_bad_size_value: base_then(&[pax(&pax_record("size", b"-1")), entry(b'0', "x.so", b"")].concat()) => Reject(IA, "malformed PAX");
    tar_pax_duplicate_key: base_then(&[pax(&[pax_record("path", b"a.json"), pax_record("path", b"b.json")].concat()), entry(b'0', "x.json", b"{}")].concat()) => Reject(IA, "PAX key repeated");
    tar_duplicate_pax_headers: base_then(&[pax(&pax_record("path", b"a.json")), pax(&pax_record("path", b"b.json")), entry(b'0', "x.json", b"{}")].concat()) => Reject(IA, "two extended headers");
    tar_duplicate_long_names: base_then(&[long_name(b"a.json"), long_name(b"b.json"), entry(b'0', "x.json", b"{}")].concat()) => Reject(IA, "two extended headers");
    tar_long_name_after_pax: base_then(&[pax(&pax_record("mtime", b"1")), long_name(b"a.json"), entry(b'0', "x.json", b"{}")].concat()) => Reject(IA, "GNU long-name entry after a PAX header");
    tar_pax_and_long_name_conflict: base_then(&[long_name(b"a.json"), pax(&pax_record("path", b"b.json")), entry(b'0', "x.json", b"{}")].concat()) => Reject(IA, "both PAX and GNU");
    tar_dangling_pax: base_then(&pax(&pax_record("path", b"x.json"))) => Reject(IA, "extended header not followed by an entry");
    tar_size_on_directory: base_then(&entry(b'5', "dir/", &[0u8; 512])) => Reject(IA, "non-file tar entry has a non-zero size");
    tar_global_pax_at_end: base_then(&global_pax(&pax_record("comment", b"x"))) => Reject(IA, "extended header not followed by an entry (byte 7168)");
    tar_global_pax_path: base_then(&global_pax(&pax_record("path", b"evil.json"))) => Reject(IA, "global PAX header");

    // §3.1 entry types.
    symlink: base_then(&entry(b'2', "lib.so", b"")) => Reject(PT, "symbolic link entries are not allowed");
    hardlink: base_then(&entry(b'1', "hard.so", b"")) => Reject(PT, "hard link entries are not allowed");
    symlink_control_character_name: base_then(&entry(b'2', "lib\x01.so", b"")) => Reject(PT, "symbolic link entries are not allowed (member lib\\u{1}.so, byte 7168)");
    hardlink_named_dot_slash: base_then(&entry(b'1', "./", b"")) => Reject(PT, "hard link entries are not allowed (member ./, byte 7168)");
    symlink_trailing_dot_name: base_then(&entry(b'2', "evil. ", b"")) => Reject(PT, "symbolic link entries are not allowed");
    char_device: base_then(&entry(b'3', "dev.so", b"")) => Reject(IA, "character device entries");
    block_device: base_then(&entry(b'4', "disk.so", b"")) => Reject(IA, "block device entries");
    fifo: base_then(&entry(b'6', "pipe.so", b"")) => Reject(IA, "FIFO entries");
    contiguous_file: base_then(&entry(b'7', "c.so", b"x")) => Reject(IA, "entries of tar typeflag '7' are not allowed");

    // §2 paths.
    absolute_path: file_named("/etc/evil.json") => Reject(PT, "path is absolute");
    dotdot_path: file_named("../evil.json") => Reject(PT, "path has a .. segment");
    dotdot_nested: file_named("a/b/../../../evil.json") => Reject(PT, "path has a .. segment");
    drive_prefix: file_named("C:/evil.json") => Reject(PT, "drive prefix");
    backslash_traversal: file_named("..\\evil.json") => Reject(PT, "backslash");
    mixed_separators: file_named("a/..\\/..//evil.json") => Reject(PT, "backslash");
    ntfs_stream: file_named("model.json:stream") => Reject(PT, "colon");
    invalid_utf8_path: base_then(&raw_entry(b'0', b"bad\xff.json", 2, b"{}")) => Reject(PT, "not valid UTF-8");
    fullwidth_slash: file_named("..\u{FF0F}evil.json") => Reject(PT, "look-alike");
    division_slash: file_named("..\u{2215}evil.json") => Reject(PT, "look-alike");
    fraction_slash: file_named("..\u{2044}evil.json") => Reject(PT, "look-alike");
    fullwidth_backslash: file_named("..\u{FF3C}evil.json") => Reject(PT, "look-alike");
    big_solidus: file_named("..\u{29F8}evil.json") => Reject(PT, "look-alike");
    fullwidth_dots: file_named("\u{FF0E}\u{FF0E}/evil.json") => Reject(PT, "dot look-alike");
    one_dot_leader: file_named("\u{2024}\u{2024}/evil.json") => Reject(PT, "dot look-alike");
    small_full_stop: file_named("\u{FE52}\u{FE52}/evil.json") => Reject(PT, "dot look-alike");
    zero_width_dotdot: file_named("..\u{200B}/evil.json") => Reject(PT, "dot look-alike");
    three_dots: file_named(".../evil.json") => Reject(PT, "made of dots and spaces");
    nul_in_pax_path: base_then(&[pax(&pax_record("path", b"a\0b.json")), entry(b'0', "x.json", b"{}")].concat()) => Reject(PT, "NUL");
    pax_path_hides_traversal: base_then(&[pax(&pax_record("path", b"../../etc/cron.d/x.json")), entry(b'0', "harmless.json", b"{}")].concat()) => Reject(PT, "member ../../etc/cron.d/x.json");
    gnu_long_name_traversal: base_then(&[long_name(("../".repeat(40) + "evil.json").as_bytes()), entry(b'0', "harmless.json", b"{}")].concat()) => Reject(PT, "path has a .. segment");
    control_character_path: file_named("new\nline.json") => Reject(IA, "control character (path byte 3) (member new\\nline.json, byte 7168)");
    trailing_dot_segment: file_named("dir./x.json") => Reject(IA, "ends in a dot or space");
    path_longer_than_4096_bytes: base_then(&[pax(&pax_record("path", ("a/".repeat(2048) + "x.json").as_bytes())), entry(b'0', "harmless.json", b"{}")].concat()) => Reject(IA, "path exceeds the length limit");
    path_segment_longer_than_255_bytes: base_then(&[long_name(("s".repeat(256) + ".json").as_bytes()), entry(b'0', "harmless.json", b"{}")].concat()) => Reject(IA, "path exceeds the length limit");
    path_more_than_255_segments: base_then(&[long_name(("d/".repeat(255) + "x.json").as_bytes()), entry(b'0', "harmless.json", b"{}")].concat()) => Reject(IA, "path has more segments than the limit");

    // §2.7 duplicates.
    duplicate_path: file_named("pre_config.json") => Reject(IA, "duplicate normalized path");
    duplicate_dot_slash: file_named("./pre_config.json") => Reject(IA, "duplicate normalized path");
    duplicate_double_slash: base_then(&[entry(b'0', "c/x.json", b"{}"), entry(b'0', "c//x.json", b"{}")].concat()) => Reject(IA, "duplicate normalized path");
    duplicate_case_folded: file_named("PRE_config.json") => Reject(IA, "duplicate normalized path");
    file_directory_conflict: file_named("libpost.so/x.json") => Reject(IA, "conflicts");

    // §3.2 classes.
    unsupported_class_txt: file_named("readme.txt") => Reject(IA, "not .json, .so or .elf");
    unsupported_class_uppercase: file_named("extra.JSON") => Reject(IA, "not .json, .so or .elf");
    unsupported_class_versioned_so: file_named("libx.so.1") => Reject(IA, "not .json, .so or .elf");

    // §3.3 required content and JSON.
    missing_contract: edited(|f| remove(f, "mpk.json")) => Reject(SE, "no mpk.json");
    contract_not_at_root: edited(|f| f[0].0 = "sub/mpk.json".into()) => Reject(SE, "no mpk.json");
    two_contracts: edited(|f| put(f, "b_mpk.json", CONTRACT.as_bytes())) => Reject(SE, "more than one MPK contract");
    missing_pipeline: edited(|f| remove(f, "pipeline_sequence.json")) => Reject(SE, "no pipeline_sequence.json");
    missing_binary: edited(|f| f.truncate(5)) => Reject(SE, "no .elf or .so");
    invalid_json: with("pre_config.json", "{\"a\":1,}") => Reject(SE, "invalid JSON: unexpected byte");
    duplicate_json_keys: with("pre_config.json", "{\"a\":1,\"a\":2}") => Reject(SE, "duplicate object member name (member pre_config.json, byte 7)");
    json_too_deep: with("pre_config.json", &deep_json(65)) => Reject(SE, "nesting depth");
    config_path_missing: edited(|f| remove(f, "post_config.json")) => Reject(SE, "configPath names no JSON file");

    // §3.4, §3.5 pipeline_sequence.json.
    pipeline_not_object: with("pipeline_sequence.json", "[]") => Reject(SE, "expected object");
    pipelines_empty: with("pipeline_sequence.json", "{\"pipelines\":[]}") => Reject(SE, "pipelines must be a non-empty array");
    sequence_empty: with("pipeline_sequence.json", "{\"pipelines\":[{\"sequence\":[]}]}") => Reject(SE, "sequence must be a non-empty array");
    stage_missing_kernel: with_stage(0, stage(1, "pre", "EV74", "cast", &["decoder"]).replace(",\"kernel\":\"cast\"", "")) => Reject(SE, "sequence[0].kernel");
    stage_empty_plugin_id: with_stage(1, stage(2, "mla_0", "MLA", "mla_inference", &["pre"]).replace("p_mla_0", "")) => Reject(SE, "sequence[1].pluginId");
    sequence_id_fraction: with_stage(0, stage(1, "pre", "EV74", "cast", &["decoder"]).replace("\"sequence_id\":1", "\"sequence_id\":1.0")) => Reject(SE, "sequence[0].sequence_id");
    sequence_id_string: with_stage(0, stage(1, "pre", "EV74", "cast", &["decoder"]).replace("\"sequence_id\":1", "\"sequence_id\":\"1\"")) => Reject(SE, "expected number");
    duplicate_stage_name: with_pipeline(&[stages(), vec![stage(4, "pre", "EV74", "cast", &["decoder"])]].concat()) => Reject(SE, "duplicate stage name");
    unsupported_kernel: with_stage(0, stage(1, "pre", "EV74", "resize_transform", &["decoder"])) => Reject(SE, "unsupported kernel");
    kernel_of_other_processor: with_stage(0, stage(1, "pre", "EV74", "mla_inference", &["decoder"])) => Reject(SE, "unsupported kernel");
    unsupported_processor: with_stage(0, stage(1, "pre", "GPU", "cast", &["decoder"])) => Reject(SE, "unsupported processor");
    dependency_on_later_stage: with_stage(0, stage(1, "pre", "EV74", "cast", &["post"])) => Reject(SE, "sequence[0].dependencies[0]");
    dependency_on_self: with_stage(1, stage(2, "mla_0", "MLA", "mla_inference", &["mla_0"])) => Reject(SE, "earlier stage");
    dependency_unknown: with_stage(2, stage(3, "post", "A65", "a65_postprocess", &["ghost"])) => Reject(SE, "earlier stage");
    decoder_name_reserved: with_stage(0, stage(1, "decoder", "EV74", "cast", &[])) => Reject(SE, "reserved");
    config_path_traversal: with_stage(0, stage(1, "pre", "EV74", "cast", &["decoder"]).replace("pre_config.json", "../pre_config.json")) => Reject(PT, "configPath: path has a .. segment");
    config_path_not_json: with_stage(0, stage(1, "pre", "EV74", "cast", &["decoder"]).replace("pre_config.json", "libpost.so")) => Reject(SE, "configPath must name a .json file");

    // §3.7 contract.
    contract_major_2: with_contract(&CONTRACT.replace("\"1.0\"", "\"2.0\"")) => Reject(UV, "mpk_version major is not 1");
    contract_major_0: with_contract(&CONTRACT.replace("\"1.0\"", "\"0.9\"")) => Reject(UV, "mpk_version major is not 1");
    contract_future_schema: with_contract("{\"mpk_version\":\"3.0\",\"graph\":{}}") => Reject(UV, "mpk.mpk_version");
    contract_bad_version: with_contract(&CONTRACT.replace("\"1.0\"", "\"v1\"")) => Reject(SE, "must be MAJOR.MINOR");
    contract_version_number: with_contract(&CONTRACT.replace("\"1.0\"", "1.0")) => Reject(SE, "expected string");
    contract_unknown_member: with_contract(&CONTRACT.replacen('{', "{\"debug\":true,", 1)) => Reject(SE, "mpk.debug");
    contract_stage_not_in_pipeline: with_contract(&CONTRACT.replace("\"name\":\"post\"", "\"name\":\"ghost\"")) => Reject(SE, "mpk.stages[1].name");
    contract_executable_missing: with_contract(&CONTRACT.replace("resnet50_mla.elf", "other.elf")) => Reject(SE, "executable is not in the package");
    contract_executable_class: with_contract(&CONTRACT.replace("resnet50_mla.elf", "libpost.so")) => Reject(SE, "MLA runs a .elf");
    contract_executable_traversal: with_contract(&CONTRACT.replace("resnet50_mla.elf", "../../bin/sh.elf")) => Reject(PT, "executable: path has a .. segment");

    // §4 limits.
    entry_too_large: base_then(&raw_entry(b'0', b"huge.so", 3 << 30, b"")) => Reject(SL, "larger than max_entry_bytes");
    json_too_large: base_then(&raw_entry(b'0', b"huge.json", 17 << 20, b"")) => Reject(SL, "larger than max_json_bytes");
    too_many_entries: many_entries() => Reject(SL, "more entries than max_entries");
    too_many_stages: many_stages() => Reject(SL, "more stages than max_stages");
    dependency_after_50000_dependencies: many_dependencies() => Reject(SE, "sequence[1].dependencies[50000]");
    pax_header_too_large: base_then(&raw_entry(b'x', b"PaxHeaders/big", 1 << 20, b"")) => Reject(SL, "exceeds the size limit");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_least_sixty_files_with_distinct_names() {
        crate::assert_enough_distinct(cases().iter().map(|c| c.name), 60);
    }

    #[test]
    fn every_kind_has_a_case() {
        let all = cases();
        for kind in [IA, PT, SE, UV, SL] {
            assert!(
                all.iter().any(|c| matches!(c.expect, Reject(k, _) if k == kind)),
                "{kind:?}"
            );
        }
    }

    #[test]
    fn manifest_lists_every_case() {
        let files = files();
        let manifest = files.last().unwrap();
        assert_eq!(manifest.path, "mpk/fixtures_manifest.json");
        let doc = modelgate_core::json::parse(&manifest.bytes, modelgate_core::json::Limits::DEFAULT).unwrap();
        let listed = doc.get("files").unwrap();
        for f in &files[..files.len() - 1] {
            let name = f.path.rsplit('/').next().unwrap();
            assert_eq!(
                listed.get(name).and_then(|v| v.as_str()),
                Some(hex(&sha256(&f.bytes)).as_str())
            );
        }
    }

    #[test]
    fn archives_have_fixed_metadata() {
        let t = finish(tar_body(&base()));
        let entries: Vec<_> = modelgate_core::tar::entries(&t, Default::default())
            .map(|r| r.unwrap().0)
            .collect();
        assert!(
            entries
                .iter()
                .all(|e| e.mtime == 1_700_000_000 && e.uid == 0 && e.gid == 0 && e.mode == 0o644)
        );
    }
}
