//! Tests of MPK package validation (`core/src/mpk`): the gzip and tar layers, the entry
//! rules, classification and flattening, the limits, the JSON documents, the contract
//! (`mpk.json` / `*_mpk.json`) and `pipeline_sequence.json`. Each rule has a test named
//! for it asserting the exact taxonomy key, message and location (archive path, JSON path,
//! byte offset).
//!
//! The valid package is laid out as the MPK tools lay packages out: the contract, the
//! pipeline and the stage configurations under `etc/`, the MLA model under `share/`, a
//! shared object under `lib/`.

use modelgate_core::Location;
use modelgate_core::gzip::write_gzip;
use modelgate_core::mpk::{A65_KERNELS, CVU_KERNELS, EV74_KERNELS};
use modelgate_core::mpk::{
    Class, Decision, Dependency, Failure, MpkError, MpkKind, MpkLimits, MpkReader, Package, PackageCheck, PackageFile,
    Plugin, Registry, Stage, check_extension, check_tar_gz,
};
use modelgate_core::tar::{Discard, EntrySink, FileMeta, Flavor, TarLimits, entries, file_header};
use modelgate_core::tar::{END_OF_ARCHIVE, padding};

// ---------------------------------------------------------------- fixtures

const CONTRACT_PATH: &str = "etc/model_mpk.json";
const PIPELINE_PATH: &str = "etc/pipeline_sequence.json";

/// The EV74 preprocessing plugin: a kernel, no executable.
const PREPROC_PLUGIN: &str = r#"{"name":"preproc_0","sequence":1,"processor":"EV74","type":"sgpProcess","config_params":{"kernel":"preproc","params":{}},"input_nodes":[{"name":"input","size":9216}],"output_nodes":[{"name":"preproc_0","type":"buffer","size":9216}]}"#;

/// The MLA plugin: batch sizes, no kernel, the model executable.
const MLA_PLUGIN: &str = r#"{"name":"MLA_0","sequence":2,"processor":"MLA","type":"sgpProcess","config_params":{"desired_batch_size":1,"actual_batch_size":1,"number_of_quads_to_user":4},"input_nodes":[{"name":"preproc_0","size":9216}],"output_nodes":[{"name":"MLA_0","type":"buffer","size":1000}],"resources":{"executable":"model.elf"}}"#;

/// An A65 plugin whose executable is `libpost.so`.
const A65_PLUGIN: &str = r#"{"name":"post_0","sequence":3,"processor":"A65","type":"sgpProcess","config_params":{"kernel":"boxdecode"},"input_nodes":[{"name":"MLA_0","size":1000}],"output_nodes":[{"name":"boxes","type":"buffer","size":400}],"resources":{"executable":"libpost.so"}}"#;

fn contract(plugins: &[&str]) -> String {
    format!(
        r#"{{"name":"model","model_path":"model.elf","model_sdk_version":"1.6.0","sequence":1,"input_nodes":[{{"name":"input","size":9216}}],"plugins":[{}]}}"#,
        plugins.join(",")
    )
}

fn base_contract() -> String {
    contract(&[PREPROC_PLUGIN, MLA_PLUGIN])
}

/// A stage as (member, JSON value) pairs, so a test can drop or change one.
type Members = Vec<(&'static str, String)>;

fn preproc_stage() -> Members {
    vec![
        ("sequence_id", "0".into()),
        ("name", r#""preproc_0""#.into()),
        ("pluginId", r#""processcvu""#.into()),
        ("configPath", r#""0_preproc.json""#.into()),
        ("processor", r#""CVU""#.into()),
        ("kernel", r#""preproc""#.into()),
        ("input", r#""decoder""#.into()),
    ]
}

fn mla_stage() -> Members {
    vec![
        ("sequence_id", "1".into()),
        ("name", r#""mla_0""#.into()),
        ("pluginId", r#""processmla""#.into()),
        ("configPath", r#""0_process_mla.json""#.into()),
        ("processor", r#""MLA""#.into()),
        ("kernel", r#""infer""#.into()),
        ("input", r#""preproc_0""#.into()),
    ]
}

/// A stage built from `base` with member `name` set to `value` (added if absent).
fn stage_with(mut base: Members, name: &'static str, value: &str) -> Members {
    match base.iter_mut().find(|(n, _)| *n == name) {
        Some(m) => m.1 = value.into(),
        None => base.push((name, value.into())),
    }
    base
}

fn stage_without(mut base: Members, name: &str) -> Members {
    base.retain(|(n, _)| *n != name);
    base
}

fn object(members: &Members) -> String {
    let inner: Vec<String> = members.iter().map(|(n, v)| format!("\"{n}\":{v}")).collect();
    format!("{{{}}}", inner.join(","))
}

/// A document of one pipeline of these stages.
fn pipeline(stages: &[Members]) -> String {
    pipelines(&[stages])
}

fn pipelines(list: &[&[Members]]) -> String {
    let list: Vec<String> = list
        .iter()
        .enumerate()
        .map(|(i, stages)| {
            let stages: Vec<String> = stages.iter().map(object).collect();
            format!(r#"{{"name":"pipeline{i}","sequence":[{}]}}"#, stages.join(","))
        })
        .collect();
    format!(r#"{{"pipelines":[{}]}}"#, list.join(","))
}

fn base_pipeline() -> String {
    pipeline(&[preproc_stage(), mla_stage()])
}

const PREPROC_CONFIG: &str = r#"{"kernel":"preproc","params":{"width":96,"height":96,"channels":1}}"#;
const MLA_CONFIG: &str = r#"{"batch":1,"quads":4}"#;
const SO: &[u8] = b"\x7fELF\x02\x01\x01 shared object";
const ELF: &[u8] = b"\x7fELF\x01\x01\x01 model";

type Files = Vec<(String, Vec<u8>)>;

/// The files of the valid package, in archive order.
fn files() -> Files {
    vec![
        (CONTRACT_PATH.into(), base_contract().into_bytes()),
        (PIPELINE_PATH.into(), base_pipeline().into_bytes()),
        ("etc/0_preproc.json".into(), PREPROC_CONFIG.into()),
        ("etc/0_process_mla.json".into(), MLA_CONFIG.into()),
        ("lib/model.so".into(), SO.to_vec()),
        ("share/model.elf".into(), ELF.to_vec()),
    ]
}

/// A tar stream built entry by entry, of any typeflag (GNU headers, fixed metadata).
struct Tar(Vec<u8>);

impl Tar {
    fn new() -> Tar {
        Tar(Vec::new())
    }

    /// Offset of the next entry's header.
    fn offset(&self) -> u64 {
        self.0.len() as u64
    }

    fn entry(mut self, flag: u8, path: &[u8], data: &[u8]) -> Tar {
        let mut h = file_header(path, data.len() as u64, &FileMeta::FIXED, Flavor::Gnu).unwrap();
        let last = h.len() - 512;
        h[last + 156] = flag;
        fix_checksum(&mut h[last..]);
        self.0.extend_from_slice(&h);
        self.0.extend_from_slice(data);
        self.0.extend_from_slice(padding(data.len() as u64));
        self
    }

    fn file(self, path: &str, data: &[u8]) -> Tar {
        self.entry(b'0', path.as_bytes(), data)
    }

    fn dir(self, path: &str) -> Tar {
        self.entry(b'5', path.as_bytes(), b"")
    }

    fn files(self, files: &[(String, Vec<u8>)]) -> Tar {
        files.iter().fold(self, |t, (p, d)| t.file(p, d))
    }

    fn finish(mut self) -> Vec<u8> {
        self.0.extend_from_slice(&END_OF_ARCHIVE);
        self.0
    }
}

fn fix_checksum(b: &mut [u8]) {
    b[148..156].copy_from_slice(b"        ");
    let sum: u32 = b[..512].iter().map(|&x| u32::from(x)).sum();
    b[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
}

fn tar(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    Tar::new().files(files).finish()
}

fn gz(tar: &[u8]) -> Vec<u8> {
    write_gzip(tar, usize::MAX).unwrap()
}

fn valid() -> Vec<u8> {
    gz(&tar(&files()))
}

/// Offset of the header of the entry at `path` in the tar of `files`.
fn header_offset(files: &[(String, Vec<u8>)], path: &str) -> u64 {
    let i = files.iter().position(|(p, _)| p == path).unwrap();
    Tar::new().files(&files[..i]).offset()
}

/// The valid files, edited.
fn edited(edit: impl FnOnce(&mut Files)) -> Files {
    let mut f = files();
    edit(&mut f);
    f
}

fn with(edit: impl FnOnce(&mut Files)) -> Vec<u8> {
    gz(&tar(&edited(edit)))
}

/// Replaces the data of the file at `name`, or appends the file.
fn set(name: &str, data: &str) -> impl FnOnce(&mut Files) {
    let (name, data) = (name.to_string(), data.as_bytes().to_vec());
    move |f| match f.iter_mut().find(|(p, _)| *p == name) {
        Some(e) => e.1 = data,
        None => f.push((name, data)),
    }
}

fn remove(name: &str) -> impl FnOnce(&mut Files) {
    let name = name.to_string();
    move |f| f.retain(|(p, _)| *p != name)
}

fn check_with(bytes: &[u8], limits: MpkLimits) -> Result<Package, MpkError> {
    let whole = check_tar_gz(bytes, limits, Registry::DEFAULT, [3, 4]);
    // Feeding in pieces gives the same result.
    for size in [1000, 7] {
        let mut r = MpkReader::new(limits, Registry::DEFAULT, [5, 6]);
        let mut pieces = Ok(());
        for c in bytes.chunks(size) {
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
        assert_eq!(whole, split, "feeding in pieces of {size} differs");
    }
    whole
}

fn check(bytes: &[u8]) -> Result<Package, MpkError> {
    check_with(bytes, MpkLimits::DEFAULT)
}

fn reject_with(bytes: &[u8], limits: MpkLimits) -> MpkError {
    let e = check_with(bytes, limits).expect_err("must be rejected");
    assert!(
        e.message().starts_with(e.kind.key()),
        "message starts with its key: {e}"
    );
    assert!(
        e.to_string().starts_with(&e.message()),
        "display starts with the message: {e}"
    );
    e
}

fn reject(bytes: &[u8]) -> MpkError {
    reject_with(bytes, MpkLimits::DEFAULT)
}

/// Asserts the kind, the whole message (key included) and the whole location.
#[track_caller]
fn assert_error(e: &MpkError, kind: MpkKind, message: &str, location: Location) {
    assert_eq!(
        (e.kind, e.message().as_str(), &e.location),
        (kind, message, &location),
        "{e}"
    );
}

/// An entry's location: its archive path and header offset.
fn entry_at(member: &str, offset: u64) -> Location {
    Location::at(offset).in_member(member)
}

/// A JSON value's location: the file, the JSON path and the value's offset.
fn json_at(member: &str, path: &str, offset: u64) -> Location {
    Location::path(path.into(), offset).in_member(member)
}

/// Offset of the one occurrence of `needle` in `text`.
#[track_caller]
fn pos(text: &str, needle: &str) -> u64 {
    assert_eq!(text.matches(needle).count(), 1, "{needle} once in {text}");
    text.find(needle).unwrap() as u64
}

/// Offset just after the one occurrence of `needle` in `text`: where the value after a
/// member name starts.
#[track_caller]
fn after(text: &str, needle: &str) -> u64 {
    pos(text, needle) + needle.len() as u64
}

/// Offset of the first occurrence of `needle` in `text`.
fn first(text: &str, needle: &str) -> u64 {
    text.find(needle).unwrap() as u64
}

/// Offset just after the first occurrence of `needle` in `text`.
fn first_after(text: &str, needle: &str) -> u64 {
    (text.find(needle).unwrap() + needle.len()) as u64
}

fn plugin_names(p: &Package) -> Vec<&str> {
    p.contract.plugins.iter().map(|p| p.name.as_str()).collect()
}

fn stage_names(p: &Package, pipeline: usize) -> Vec<&str> {
    p.pipelines.as_ref().unwrap()[pipeline]
        .stages
        .iter()
        .map(|s| s.name.as_str())
        .collect()
}

// ---------------------------------------------------------------- valid packages

#[test]
fn valid_package_accepted() {
    let p = check(&valid()).unwrap();
    assert_eq!(p.contract_path, CONTRACT_PATH);
    let files: Vec<PackageFile> = files()
        .into_iter()
        .map(|(path, data)| {
            let class = match path.rsplit_once('.').unwrap().1 {
                "json" => Class::Json,
                "so" => Class::SharedObject,
                _ => Class::Elf,
            };
            PackageFile {
                dest: path.clone(),
                path,
                class,
                size: data.len() as u64,
            }
        })
        .collect();
    assert_eq!(p.files, files);
    assert_eq!(p.contract.name.as_deref(), Some("model"));
    assert_eq!(p.contract.model_sdk_version.as_deref(), Some("1.6.0"));
    assert_eq!(
        p.contract.plugins,
        [
            Plugin {
                name: "preproc_0".into(),
                sequence: 1,
                processor: "EV74".into(),
                kernel: Some("preproc".into()),
                executable: None,
                resolved: None,
            },
            Plugin {
                name: "MLA_0".into(),
                sequence: 2,
                processor: "MLA".into(),
                kernel: None,
                executable: Some("model.elf".into()),
                resolved: Some("share/model.elf".into()),
            },
        ]
    );
    let pipelines = p.pipelines.unwrap();
    assert_eq!(pipelines.len(), 1);
    assert_eq!(
        pipelines[0].stages,
        [
            Stage {
                sequence_id: 0,
                name: "preproc_0".into(),
                plugin_id: "processcvu".into(),
                config_path: "0_preproc.json".into(),
                processor: "CVU".into(),
                kernel: "preproc".into(),
                input: vec![Dependency::Decoder],
                index: 0,
            },
            Stage {
                sequence_id: 1,
                name: "mla_0".into(),
                plugin_id: "processmla".into(),
                config_path: "0_process_mla.json".into(),
                processor: "MLA".into(),
                kernel: "infer".into(),
                input: vec![Dependency::Stage(0)],
                index: 1,
            },
        ]
    );
    assert_eq!(
        pipelines[0].dependency_name(pipelines[0].stages[1].input[0]),
        "preproc_0"
    );
    assert_eq!(pipelines[0].dependency_name(Dependency::Decoder), "decoder");
}

/// JSON whitespace between every token of the contract and the pipeline changes nothing.
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
    let plain = check(&valid()).unwrap();
    let p = check(&with(|f| {
        f[0].1 = spaced(&base_contract()).into_bytes();
        f[1].1 = spaced(&base_pipeline()).into_bytes();
    }))
    .unwrap();
    assert_eq!(p.contract, plain.contract);
    assert_eq!(p.pipelines, plain.pipelines);
}

/// `tar -C pkg -czf pkg.tar.gz .` writes a `./` directory entry and `./`-prefixed paths.
#[test]
fn dot_slash_prefixes_and_root_entry_accepted() {
    let dotted: Files = files().into_iter().map(|(p, d)| (format!("./{p}"), d)).collect();
    let t = Tar::new()
        .dir("./")
        .dir("./etc/")
        .files(&dotted[..4])
        .dir("./lib/")
        .files(&dotted[4..5])
        .dir("./share/")
        .files(&dotted[5..])
        .finish();
    let p = check(&gz(&t)).unwrap();
    let plain = check(&valid()).unwrap();
    assert_eq!(p.contract_path, CONTRACT_PATH);
    assert_eq!(p.files, plain.files);
    assert_eq!(p.contract, plain.contract);
    assert_eq!(p.pipelines, plain.pipelines);
}

#[test]
fn class_directory_entries_ignored() {
    let f = files();
    let t = Tar::new()
        .dir("etc/")
        .files(&f[..4])
        .dir("lib/")
        .files(&f[4..5])
        .dir("share")
        .files(&f[5..])
        .dir("models/")
        .finish();
    let p = check(&gz(&t)).unwrap();
    assert_eq!(p.files, check(&valid()).unwrap().files);
}

/// Directory entries give [`Decision::Ignore`]; files [`Decision::Extract`] with their
/// normalised archive path and their flattened destination.
#[test]
fn decisions_name_the_archive_path_and_the_destination() {
    let t = Tar::new()
        .dir("./")
        .dir("models/")
        .file("./configs//a/0_preproc.json", b"{}")
        .file("models/model.elf", ELF)
        .file("deep/lib/libpost.so", SO)
        .file("x.yaml", b"a: 1")
        .file("etc/x.yml", b"b: 2")
        .finish();
    let mut check = PackageCheck::new(MpkLimits::DEFAULT, Registry::DEFAULT, [1, 2]);
    let mut decisions = Vec::new();
    for entry in entries(&t, TarLimits::DEFAULT) {
        let (e, data) = entry.unwrap();
        decisions.push(check.entry(&e).unwrap());
        check.data(data).unwrap();
        check.entry_end().unwrap();
    }
    let extract = |path: &str, dest: &str| Decision::Extract {
        path: path.into(),
        dest: dest.into(),
    };
    assert_eq!(
        decisions,
        [
            Decision::Ignore,
            Decision::Ignore,
            extract("configs/a/0_preproc.json", "etc/0_preproc.json"),
            extract("models/model.elf", "share/model.elf"),
            extract("deep/lib/libpost.so", "lib/libpost.so"),
            extract("x.yaml", "etc/x.yaml"),
            extract("etc/x.yml", "etc/x.yml"),
        ]
    );
    // No contract: the package as a whole fails.
    assert_error(
        &check.finish().unwrap_err(),
        MpkKind::SchemaError,
        "schema_error: package has no mpk.json or *_mpk.json",
        Location::NONE,
    );
}

/// Files are extracted under their class folder and their name alone, whatever folders
/// the archive put them in; the contract and the pipeline are found by name in any folder.
#[test]
fn files_flattened_into_their_class_folders() {
    let moved = [
        (CONTRACT_PATH, "model/model_mpk.json"),
        (PIPELINE_PATH, "model/pipelines/pipeline_sequence.json"),
        ("etc/0_preproc.json", "a/b/0_preproc.json"),
        ("etc/0_process_mla.json", "0_process_mla.json"),
        ("lib/model.so", "share/model.so"),
        ("share/model.elf", "models/model.elf"),
    ];
    let f: Files = files()
        .into_iter()
        .map(|(p, d)| (moved.iter().find(|(from, _)| *from == p).unwrap().1.into(), d))
        .collect();
    let p = check(&gz(&tar(&f))).unwrap();
    assert_eq!(p.contract_path, "model/model_mpk.json");
    let layout: Vec<(&str, &str)> = p.files.iter().map(|f| (f.path.as_str(), f.dest.as_str())).collect();
    assert_eq!(
        layout,
        [
            ("model/model_mpk.json", "etc/model_mpk.json"),
            ("model/pipelines/pipeline_sequence.json", "etc/pipeline_sequence.json"),
            ("a/b/0_preproc.json", "etc/0_preproc.json"),
            ("0_process_mla.json", "etc/0_process_mla.json"),
            ("share/model.so", "lib/model.so"),
            ("models/model.elf", "share/model.elf"),
        ]
    );
    assert_eq!(p.contract.plugins[1].resolved.as_deref(), Some("share/model.elf"));
    assert_eq!(stage_names(&p, 0), ["preproc_0", "mla_0"]);
}

#[test]
fn plain_mpk_json_contract_accepted() {
    let p = check(&with(|f| f[0].0 = "mpk.json".into())).unwrap();
    assert_eq!(p.contract_path, "mpk.json");
    assert_eq!(p.files[0].dest, "etc/mpk.json");
}

/// `pipeline_sequence.json` is optional.
#[test]
fn package_without_pipeline_accepted() {
    let p = check(&with(remove(PIPELINE_PATH))).unwrap();
    assert_eq!(p.pipelines, None);
    assert_eq!(plugin_names(&p), ["preproc_0", "MLA_0"]);
}

/// YAML files are carried to `etc/` and not parsed.
#[test]
fn yaml_accepted_and_extracted_to_etc() {
    let p = check(&with(|f| {
        f.push(("config/model.yaml".into(), b"key: [unclosed\n\t: :".to_vec()));
        f.push(("labels.yml".into(), b"\xff\xfe not even UTF-8".to_vec()));
    }))
    .unwrap();
    let yaml: Vec<(&str, Class)> = p.files[6..].iter().map(|f| (f.dest.as_str(), f.class)).collect();
    assert_eq!(yaml, [("etc/model.yaml", Class::Yaml), ("etc/labels.yml", Class::Yaml)]);
}

/// A package needs a model binary, not both kinds: `.so` alone will do.
#[test]
fn shared_object_alone_is_a_model_binary() {
    let mla = MLA_PLUGIN.replace("model.elf", "model.so");
    let p = check(&with(|f| {
        remove("share/model.elf")(f);
        f[0].1 = contract(&[PREPROC_PLUGIN, &mla]).into_bytes();
    }))
    .unwrap();
    assert_eq!(p.contract.plugins[1].resolved.as_deref(), Some("lib/model.so"));
}

#[test]
fn several_gzip_members_accepted() {
    let t = tar(&files());
    let (a, b) = t.split_at(1536);
    let mut bytes = gz(a);
    bytes.extend_from_slice(&gz(b));
    assert_eq!(check(&bytes).unwrap(), check(&valid()).unwrap());
}

#[test]
fn gzip_zero_padding_accepted() {
    let mut bytes = valid();
    bytes.extend_from_slice(&[0u8; 100]);
    assert_eq!(check(&bytes).unwrap(), check(&valid()).unwrap());
}

// ---------------------------------------------------------------- extension

#[test]
fn extension_rule() {
    assert!(check_extension("model.tar.gz").is_ok());
    assert!(check_extension("a.b.tar.gz").is_ok());
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
        assert_error(
            &e,
            MpkKind::InvalidArchive,
            "invalid_archive: package file name must end in .tar.gz",
            Location::NONE,
        );
        assert_eq!(e.to_string(), "invalid_archive: package file name must end in .tar.gz");
    }
}

// ---------------------------------------------------------------- gzip and tar layers

#[test]
fn gzip_crc_corruption_rejected() {
    let mut bytes = valid();
    let n = bytes.len();
    let crc = u32::from_le_bytes(bytes[n - 8..n - 4].try_into().unwrap());
    bytes[n - 8] ^= 1;
    let e = reject(&bytes);
    let message = format!(
        "invalid_archive: gzip: member CRC-32 mismatch: declared {:08x}, computed {crc:08x}",
        crc ^ 1
    );
    assert_error(&e, MpkKind::InvalidArchive, &message, Location::at(n as u64 - 8));
}

#[test]
fn gzip_trailing_garbage_rejected() {
    let mut bytes = valid();
    let n = bytes.len() as u64;
    bytes.extend_from_slice(b"junk");
    let e = reject(&bytes);
    assert_error(
        &e,
        MpkKind::InvalidArchive,
        "invalid_archive: gzip: trailing data after the last member",
        Location::at(n),
    );
}

#[test]
fn truncated_gzip_rejected() {
    let bytes = valid();
    let e = reject(&bytes[..bytes.len() - 3]);
    assert_error(
        &e,
        MpkKind::InvalidArchive,
        "invalid_archive: gzip: gzip input is truncated",
        Location::at(bytes.len() as u64 - 3),
    );
}

#[test]
fn tar_checksum_corruption_rejected() {
    let f = files();
    let mut t = tar(&f);
    let second = header_offset(&f, PIPELINE_PATH) as usize;
    // The header's sum with its checksum field as spaces.
    let sum = |h: &[u8]| -> u32 {
        let spaces = 8 * u32::from(b' ');
        h[..148].iter().chain(&h[156..512]).map(|&b| u32::from(b)).sum::<u32>() + spaces
    };
    let stored = sum(&t[second..]);
    t[second + 3] ^= 0x20; // a name byte of the second entry's header: `p` becomes `P`
    let computed = sum(&t[second..]);
    assert_eq!(stored - computed, 0x20);
    let e = reject(&gz(&t));
    assert_error(
        &e,
        MpkKind::InvalidArchive,
        &format!("invalid_archive: tar: tar header checksum mismatch: stored {stored}, computed {computed}"),
        Location::at(second as u64 + 148),
    );
}

#[test]
fn tar_missing_end_rejected() {
    let t = tar(&files());
    let e = reject(&gz(&t[..t.len() - 1024]));
    assert_error(
        &e,
        MpkKind::InvalidArchive,
        "invalid_archive: tar: tar stream has no end-of-archive marker",
        Location::at(t.len() as u64 - 1024),
    );
}

/// A regular file named `./` names the root: the tar layer refuses it as a file named like
/// a folder before the path rules would find it empty.
#[test]
fn file_named_dot_slash_rejected() {
    let f = files();
    let e = reject(&with(set("./", "{}")));
    assert_error(
        &e,
        MpkKind::InvalidArchive,
        "invalid_archive: tar: regular tar entry named like a folder",
        entry_at("./", Tar::new().files(&f).offset()),
    );
}

/// The fuzz finding behind `hostile-corpus/mpk/invalid_archive-tar-error-before-deflate-error`:
/// a tar header inflated in the same call as a deflate error reaches the tar layer first, so
/// the error is the tar checksum whether the file arrives whole or byte by byte.
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

// ---------------------------------------------------------------- limits

#[test]
fn archive_size_limit() {
    let limits = MpkLimits {
        max_archive_bytes: 100,
        ..MpkLimits::DEFAULT
    };
    let e = reject_with(&valid(), limits);
    assert_error(
        &e,
        MpkKind::SizeLimitExceeded,
        "size_limit_exceeded: archive larger than max_archive_bytes",
        Location::at(100),
    );
    // Exactly at the limit passes.
    let bytes = valid();
    let limits = MpkLimits {
        max_archive_bytes: bytes.len() as u64,
        ..MpkLimits::DEFAULT
    };
    assert!(check_with(&bytes, limits).is_ok());
}

/// `max_archive_bytes` is checked as the bytes arrive, so a failure inside the first
/// `max_archive_bytes` bytes is reported whether the file is fed whole or in pieces; the
/// size limit only wins when no earlier byte failed.
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
    let mut bytes = valid();
    bytes[1] = 0x8c; // gzip BadMagic at offset 1, inside the limit
    let (whole, pieces) = both(&bytes, 10);
    assert_error(
        &whole,
        MpkKind::InvalidArchive,
        "invalid_archive: gzip: not a gzip member (bad magic)",
        Location::at(1),
    );
    assert_eq!(Some(whole), pieces);
    // No failure before the limit: the limit wins at its offset, fed whole or in pieces.
    let (whole, pieces) = both(&valid(), 7);
    assert_eq!(
        (whole.kind, whole.location.offset),
        (MpkKind::SizeLimitExceeded, Some(100))
    );
    assert_eq!(Some(whole), pieces);
}

#[test]
fn expanded_size_limit() {
    let limits = MpkLimits {
        max_expanded_bytes: 2048,
        ..MpkLimits::DEFAULT
    };
    let bytes = valid();
    let e = reject_with(&bytes, limits);
    assert_eq!(
        (
            e.kind,
            e.message().as_str(),
            e.location.member.as_deref(),
            e.location.path.as_deref()
        ),
        (
            MpkKind::SizeLimitExceeded,
            "size_limit_exceeded: gzip: output exceeds the size limit",
            None,
            None
        )
    );
    assert!(e.location.offset.is_some_and(|o| o < bytes.len() as u64), "{e}");
    // Exactly the tar's size passes.
    let limits = MpkLimits {
        max_expanded_bytes: tar(&files()).len() as u64,
        ..MpkLimits::DEFAULT
    };
    assert!(check_with(&bytes, limits).is_ok());
}

#[test]
fn entry_count_limit() {
    let limits = MpkLimits {
        max_entries: 5,
        ..MpkLimits::DEFAULT
    };
    let f = files();
    let e = reject_with(&valid(), limits);
    assert_error(
        &e,
        MpkKind::SizeLimitExceeded,
        "size_limit_exceeded: more entries than max_entries",
        entry_at("share/model.elf", header_offset(&f, "share/model.elf")),
    );
    let limits = MpkLimits {
        max_entries: 6,
        ..MpkLimits::DEFAULT
    };
    assert!(check_with(&valid(), limits).is_ok());
}

/// Directories count as entries; the member is the raw entry name.
#[test]
fn entry_count_limit_counts_directories() {
    let limits = MpkLimits {
        max_entries: 6,
        ..MpkLimits::DEFAULT
    };
    let f = files();
    let t = Tar::new().dir("./").files(&f[..5]);
    let at = t.offset();
    let t = t.file("./share/model.elf", ELF).finish();
    let e = reject_with(&gz(&t), limits);
    assert_error(
        &e,
        MpkKind::SizeLimitExceeded,
        "size_limit_exceeded: more entries than max_entries",
        entry_at("./share/model.elf", at),
    );
}

#[test]
fn entry_size_limit() {
    let f = files();
    let largest = f.iter().map(|(_, d)| d.len()).max().unwrap();
    assert_eq!(largest, f[0].1.len(), "the contract is the largest file");
    let limits = MpkLimits {
        max_entry_bytes: largest as u64 - 1,
        ..MpkLimits::DEFAULT
    };
    let e = reject_with(&valid(), limits);
    assert_error(
        &e,
        MpkKind::SizeLimitExceeded,
        "size_limit_exceeded: entry larger than max_entry_bytes",
        entry_at(CONTRACT_PATH, 0),
    );
    let limits = MpkLimits {
        max_entry_bytes: largest as u64,
        ..MpkLimits::DEFAULT
    };
    assert!(check_with(&valid(), limits).is_ok());
}

/// `max_total_json_bytes` is summed over the `.json` files, from their headers: the entry
/// that crosses it is refused before anything of it reaches the sink.
#[test]
fn total_json_size_limit() {
    let f = files();
    let json: u64 = f
        .iter()
        .filter(|(p, _)| p.ends_with(".json"))
        .map(|(_, d)| d.len() as u64)
        .sum();
    let limits = MpkLimits {
        max_total_json_bytes: (f[0].1.len() + f[1].1.len()) as u64 - 1,
        ..MpkLimits::DEFAULT
    };
    let e = reject_with(&valid(), limits);
    assert_error(
        &e,
        MpkKind::SizeLimitExceeded,
        "size_limit_exceeded: JSON files larger than max_total_json_bytes together",
        entry_at(PIPELINE_PATH, header_offset(&f, PIPELINE_PATH)),
    );
    let mut r = MpkReader::new(limits, Registry::DEFAULT, [0, 0]);
    let mut sink = Collect(Vec::new());
    assert_eq!(r.feed(&valid(), &mut sink), Err(Failure::Rejected(e)));
    assert_eq!(sink.dests(), [CONTRACT_PATH]);
    // YAML and binaries do not count, however large.
    let limits = MpkLimits {
        max_total_json_bytes: json,
        ..MpkLimits::DEFAULT
    };
    let big = with(set("etc/big.yaml", &"a: 1\n".repeat(1000)));
    assert!(check_with(&big, limits).is_ok());
}

#[test]
fn json_depth_limit() {
    let at_limit = "[".repeat(64) + &"]".repeat(64);
    assert!(check(&with(set("etc/0_preproc.json", &at_limit))).is_ok());
    let deep = "[".repeat(65) + &"]".repeat(65);
    let e = reject(&with(set("etc/0_preproc.json", &deep)));
    assert_error(
        &e,
        MpkKind::SchemaError,
        "schema_error: invalid JSON: nesting depth limit exceeded",
        entry_at("etc/0_preproc.json", 64),
    );
    let limits = MpkLimits {
        max_json_depth: 3,
        ..MpkLimits::DEFAULT
    };
    // The contract's `plugins[0].config_params` is its first value at depth 4.
    let e = reject_with(&valid(), limits);
    let text = base_contract();
    assert_error(
        &e,
        MpkKind::SchemaError,
        "schema_error: invalid JSON: nesting depth limit exceeded",
        entry_at(CONTRACT_PATH, first_after(&text, r#""config_params":"#)),
    );
}

/// Plugins in the contract, and stages in one pipeline, are limited to `max_stages`.
#[test]
fn plugin_count_limit() {
    let limits = MpkLimits {
        max_stages: 1,
        ..MpkLimits::DEFAULT
    };
    let e = reject_with(&valid(), limits);
    let text = base_contract();
    assert_error(
        &e,
        MpkKind::SizeLimitExceeded,
        "size_limit_exceeded: more plugins than max_stages",
        json_at(CONTRACT_PATH, "mpk.plugins", after(&text, r#""plugins":"#)),
    );
}

#[test]
fn stage_count_limit() {
    let limits = MpkLimits {
        max_stages: 1,
        ..MpkLimits::DEFAULT
    };
    let mla = MLA_PLUGIN.replace(r#""sequence":2"#, r#""sequence":1"#);
    let text = base_pipeline();
    let e = reject_with(&with(set(CONTRACT_PATH, &contract(&[&mla]))), limits);
    assert_error(
        &e,
        MpkKind::SizeLimitExceeded,
        "size_limit_exceeded: more stages than max_stages",
        json_at(
            PIPELINE_PATH,
            "pipeline_sequence.pipelines[0].sequence",
            after(&text, r#""sequence":"#),
        ),
    );
    // One stage per pipeline, in two pipelines, is within the limit.
    let two = pipelines(&[&[preproc_stage()], &[stage_with(mla_stage(), "input", r#""decoder""#)]]);
    let p = check_with(
        &with(|f| {
            f[0].1 = contract(&[&mla]).into_bytes();
            f[1].1 = two.into_bytes();
        }),
        limits,
    )
    .unwrap();
    assert_eq!(stage_names(&p, 1), ["mla_0"]);
}

// ---------------------------------------------------------------- entries: paths

/// The valid files, then one file at raw path `path`; the error must be at that entry.
#[track_caller]
fn reject_path(path: &[u8], kind: MpkKind, message: &str, member: &str) {
    let t = Tar::new().files(&files());
    let at = t.offset();
    let e = reject(&gz(&t.entry(b'0', path, b"{}").finish()));
    assert_error(&e, kind, message, entry_at(member, at));
}

#[test]
fn traversal_path_rejected() {
    reject_path(
        b"etc/../../evil.json",
        MpkKind::PathTraversal,
        "path_traversal: path has a .. segment (path byte 4)",
        "etc/../../evil.json",
    );
}

#[test]
fn absolute_path_rejected() {
    reject_path(
        b"/etc/evil.json",
        MpkKind::PathTraversal,
        "path_traversal: path is absolute (path byte 0)",
        "/etc/evil.json",
    );
}

#[test]
fn backslash_path_rejected() {
    reject_path(
        b"etc\\evil.json",
        MpkKind::PathTraversal,
        "path_traversal: path holds a backslash (path byte 3)",
        "etc\\evil.json",
    );
}

#[test]
fn drive_prefix_rejected() {
    reject_path(
        b"C:evil.json",
        MpkKind::PathTraversal,
        "path_traversal: path has a drive prefix (path byte 1)",
        "C:evil.json",
    );
}

#[test]
fn fullwidth_slash_rejected() {
    let path = "..\u{FF0F}evil.json";
    reject_path(
        path.as_bytes(),
        MpkKind::PathTraversal,
        "path_traversal: path holds a Unicode slash or backslash look-alike (path byte 2)",
        path,
    );
}

/// The three dot look-alikes the MPK loader rewrites to `.` are refused anywhere in a path,
/// not only in a traversal-like segment.
#[test]
fn dot_lookalikes_rejected_anywhere() {
    for dot in ['\u{FF0E}', '\u{2024}', '\u{FE52}'] {
        let path = format!("extra/v1{dot}0.json");
        reject_path(
            path.as_bytes(),
            MpkKind::PathTraversal,
            "path_traversal: path holds a Unicode dot look-alike (U+FF0E, U+2024 or U+FE52) (path byte 8)",
            &path,
        );
    }
}

/// Invalid UTF-8 is `invalid_archive`, as the MPK loader classes it; the member shows the
/// name with the bad byte replaced.
#[test]
fn invalid_utf8_path_rejected() {
    reject_path(
        b"extra/bad\xff.json",
        MpkKind::InvalidArchive,
        "invalid_archive: path is not valid UTF-8 (path byte 9)",
        "extra/bad\u{FFFD}.json",
    );
}

#[test]
fn control_character_path_rejected() {
    reject_path(
        b"extra/bad\x01.json",
        MpkKind::InvalidArchive,
        "invalid_archive: path holds a control character (path byte 9)",
        "extra/bad\\u{1}.json",
    );
}

#[test]
fn trailing_dot_segment_rejected() {
    reject_path(
        b"extra./x.json",
        MpkKind::InvalidArchive,
        "invalid_archive: path segment ends in a dot or space (path byte 5)",
        "extra./x.json",
    );
}

// ---------------------------------------------------------------- entries: types

/// The valid files, then one entry of typeflag `flag`; returns the error and the entry's
/// header offset.
fn reject_entry(flag: u8, name: &str) -> (MpkError, u64) {
    let t = Tar::new().files(&files());
    let at = t.offset();
    (reject(&gz(&t.entry(flag, name.as_bytes(), b"").finish())), at)
}

#[test]
fn symlink_rejected() {
    let (e, at) = reject_entry(b'2', "./lib/link.so");
    assert_error(
        &e,
        MpkKind::PathTraversal,
        "path_traversal: symbolic link entries are not allowed",
        entry_at("lib/link.so", at),
    );
}

#[test]
fn hardlink_rejected() {
    let (e, at) = reject_entry(b'1', "lib/hard.so");
    assert_error(
        &e,
        MpkKind::PathTraversal,
        "path_traversal: hard link entries are not allowed",
        entry_at("lib/hard.so", at),
    );
}

/// A link whose path also breaks an `invalid_archive` path rule is still reported as the
/// link it is, at its raw name.
#[test]
fn link_with_bad_path_is_path_traversal() {
    let (e, at) = reject_entry(b'2', "lib/bad\x01.so");
    assert_error(
        &e,
        MpkKind::PathTraversal,
        "path_traversal: symbolic link entries are not allowed",
        entry_at("lib/bad\\u{1}.so", at),
    );
}

#[test]
fn devices_fifos_and_other_types_rejected() {
    for (flag, what) in [
        (b'3', "character device entries are not allowed"),
        (b'4', "block device entries are not allowed"),
        (b'6', "FIFO entries are not allowed"),
        (b'7', "entries of tar typeflag '7' are not allowed"),
    ] {
        let (e, at) = reject_entry(flag, "lib/dev.so");
        assert_error(
            &e,
            MpkKind::InvalidArchive,
            &format!("invalid_archive: {what}"),
            entry_at("lib/dev.so", at),
        );
    }
}

// ---------------------------------------------------------------- entries: duplicates

#[test]
fn duplicate_archive_path_rejected() {
    let f = files();
    for dup in ["./etc/0_preproc.json", "etc//0_preproc.json", "ETC/0_Preproc.json"] {
        let t = Tar::new().files(&f);
        let at = t.offset();
        let e = reject(&gz(&t.file(dup, b"{}").finish()));
        let normalised = dup.trim_start_matches("./").replace("//", "/");
        assert_error(
            &e,
            MpkKind::InvalidArchive,
            "invalid_archive: duplicate normalized path",
            entry_at(&normalised, at),
        );
    }
}

#[test]
fn file_under_a_file_rejected() {
    let t = Tar::new().files(&files());
    let at = t.offset();
    let e = reject(&gz(&t.file("share/model.elf/x.elf", ELF).finish()));
    assert_error(
        &e,
        MpkKind::InvalidArchive,
        "invalid_archive: path conflicts with a file or directory of another entry",
        entry_at("share/model.elf/x.elf", at),
    );
    // A directory where a file is.
    let t = Tar::new().files(&files());
    let at = t.offset();
    let e = reject(&gz(&t.dir("lib/model.so/").finish()));
    assert_error(
        &e,
        MpkKind::InvalidArchive,
        "invalid_archive: path conflicts with a file or directory of another entry",
        entry_at("lib/model.so", at),
    );
}

/// Two files in different folders that flatten to one destination (ASCII case folded) are
/// refused at the later one.
#[test]
fn destination_collision_rejected() {
    for (later, dest, earlier) in [
        ("a/b/0_preproc.json", "etc/0_preproc.json", "etc/0_preproc.json"),
        ("configs/0_PREPROC.json", "etc/0_PREPROC.json", "etc/0_preproc.json"),
        ("models/model.elf", "share/model.elf", "share/model.elf"),
        ("etc/model.so", "lib/model.so", "lib/model.so"),
        (
            "other/pipeline_sequence.json",
            "etc/pipeline_sequence.json",
            PIPELINE_PATH,
        ),
        ("backup/model_mpk.json", "etc/model_mpk.json", CONTRACT_PATH),
    ] {
        let t = Tar::new().files(&files());
        let at = t.offset();
        let e = reject(&gz(&t.file(later, b"{}").finish()));
        assert_error(
            &e,
            MpkKind::InvalidArchive,
            &format!("invalid_archive: {earlier} and {later} both extract to {dest}"),
            entry_at(later, at),
        );
    }
}

/// A `.yaml` and a `.yml`, or a `.json` and a `.yaml`, of one stem are different files.
#[test]
fn different_extensions_do_not_collide() {
    let p = check(&with(|f| {
        f.push(("a/x.yaml".into(), b"a: 1".to_vec()));
        f.push(("b/x.yml".into(), b"a: 1".to_vec()));
        f.push(("c/x.json".into(), b"{}".to_vec()));
        f.push(("d/x.so".into(), SO.to_vec()));
        f.push(("e/x.elf".into(), ELF.to_vec()));
    }))
    .unwrap();
    let dests: Vec<&str> = p.files[6..].iter().map(|f| f.dest.as_str()).collect();
    assert_eq!(
        dests,
        ["etc/x.yaml", "etc/x.yml", "etc/x.json", "lib/x.so", "share/x.elf"]
    );
}

// ---------------------------------------------------------------- entries: classes

/// Only `.json`, `.yaml`, `.yml`, `.so` and `.elf` files, by the name's last extension,
/// exact case, after a non-empty stem.
#[test]
fn file_type_not_allowed_rejected() {
    for name in [
        "readme.txt",
        "etc/model.JSON",
        "lib/libpost.so.1",
        "share/other.ELF",
        "etc/.json",
        "model.tar",
        "share/model",
        "weights.bin",
        "etc/config.json.bak",
    ] {
        let t = Tar::new().files(&files());
        let at = t.offset();
        let e = reject(&gz(&t.file(name, b"x").finish()));
        assert_error(
            &e,
            MpkKind::SchemaError,
            "schema_error: file type not allowed in a package (.json, .yaml, .yml, .so, .elf)",
            entry_at(name, at),
        );
    }
}

// ---------------------------------------------------------------- JSON documents

#[test]
fn invalid_json_rejected_with_offset() {
    let e = reject(&with(set("etc/0_preproc.json", r#"{"a":1,}"#)));
    assert_error(
        &e,
        MpkKind::SchemaError,
        "schema_error: invalid JSON: unexpected byte, expected an object member name",
        entry_at("etc/0_preproc.json", 7),
    );
}

#[test]
fn duplicate_json_keys_rejected() {
    let e = reject(&with(set("etc/0_preproc.json", r#"{"a":1,"a":2}"#)));
    assert_error(
        &e,
        MpkKind::SchemaError,
        "schema_error: invalid JSON: duplicate object member name",
        entry_at("etc/0_preproc.json", 7),
    );
    assert_eq!(
        e.to_string(),
        "schema_error: invalid JSON: duplicate object member name (member etc/0_preproc.json, byte 7)"
    );
}

/// Every `.json` is strict JSON, whether anything names it or not, wherever it is.
#[test]
fn every_json_file_is_checked() {
    let e = reject(&with(set("extra/notes.json", "{\"a\":[1,2]")));
    assert_error(
        &e,
        MpkKind::SchemaError,
        "schema_error: invalid JSON: unexpected end of input, expected ',' or '}'",
        entry_at("extra/notes.json", 10),
    );
    let e = reject(&with(set("extra/dup.json", r#"[{"k":1,"k":1}]"#)));
    assert_error(
        &e,
        MpkKind::SchemaError,
        "schema_error: invalid JSON: duplicate object member name",
        entry_at("extra/dup.json", 8),
    );
}

/// The contract and the pipeline get the same JSON checks, at their archive path.
#[test]
fn contract_and_pipeline_json_checked_strictly() {
    let text = base_contract().replacen(r#""name":"model""#, r#""name":"model","name":"x""#, 1);
    let e = reject(&with(set(CONTRACT_PATH, &text)));
    assert_error(
        &e,
        MpkKind::SchemaError,
        "schema_error: invalid JSON: duplicate object member name",
        entry_at(CONTRACT_PATH, pos(&text, r#""name":"x""#)),
    );
    let text = base_pipeline().replacen(r#""name":"preproc_0""#, r#""name":"preproc_0","name":"x""#, 1);
    let e = reject(&with(set(PIPELINE_PATH, &text)));
    assert_error(
        &e,
        MpkKind::SchemaError,
        "schema_error: invalid JSON: duplicate object member name",
        entry_at(PIPELINE_PATH, pos(&text, r#""name":"x""#)),
    );
}

// ---------------------------------------------------------------- required content

#[test]
fn archive_without_entries_rejected() {
    let e = reject(&gz(&Tar::new().finish()));
    assert_error(
        &e,
        MpkKind::InvalidArchive,
        "invalid_archive: archive has no entries",
        Location::NONE,
    );
}

/// A `./` entry is an entry: an archive of it alone has no contract.
#[test]
fn archive_of_directories_only_has_no_contract() {
    let e = reject(&gz(&Tar::new().dir("./").dir("etc/").finish()));
    assert_error(
        &e,
        MpkKind::SchemaError,
        "schema_error: package has no mpk.json or *_mpk.json",
        Location::NONE,
    );
}

#[test]
fn missing_contract_rejected() {
    for name in [
        "etc/_mpk.json",
        "etc/model-mpk.json",
        "etc/MPK.json",
        "etc/model_MPK.json",
        "etc/mpk.yaml",
    ] {
        let e = reject(&with(|f| f[0].0 = name.into()));
        assert_error(
            &e,
            MpkKind::SchemaError,
            "schema_error: package has no mpk.json or *_mpk.json",
            Location::NONE,
        );
    }
}

#[test]
fn two_contracts_rejected() {
    let e = reject(&with(set("etc/other_mpk.json", &base_contract())));
    assert_error(
        &e,
        MpkKind::SchemaError,
        "schema_error: package has more than one MPK contract (etc/model_mpk.json first)",
        Location::NONE.in_member("etc/other_mpk.json"),
    );
    // Found by name in any folder, whatever the second one holds.
    let e = reject(&with(set("a/mpk.json", "{}")));
    assert_error(
        &e,
        MpkKind::SchemaError,
        "schema_error: package has more than one MPK contract (etc/model_mpk.json first)",
        Location::NONE.in_member("a/mpk.json"),
    );
}

#[test]
fn missing_binary_rejected() {
    let e = reject(&with(|f| f.truncate(4)));
    assert_error(
        &e,
        MpkKind::InvalidArchive,
        "invalid_archive: package has no .elf or .so model binary",
        Location::NONE,
    );
}

// ---------------------------------------------------------------- rule order

/// The whole-package rules run in this order: entries, contract presence, a model binary,
/// the contract's rules, the pipeline's rules, the pipeline's configuration files.
#[test]
fn missing_contract_before_missing_binary() {
    let e = reject(&with(|f| {
        f.truncate(4);
        f.remove(0);
    }));
    assert_eq!(e.message(), "schema_error: package has no mpk.json or *_mpk.json");
}

#[test]
fn second_contract_before_missing_binary() {
    let e = reject(&with(|f| {
        f.truncate(4);
        f.push(("mpk.json".into(), b"{}".to_vec()));
    }));
    assert_eq!(
        e.message(),
        "schema_error: package has more than one MPK contract (etc/model_mpk.json first)"
    );
}

#[test]
fn missing_binary_before_contract_rules() {
    let e = reject(&with(|f| {
        f.truncate(4);
        f[0].1 = b"[]".to_vec();
    }));
    assert_eq!(e.message(), "invalid_archive: package has no .elf or .so model binary");
}

#[test]
fn contract_rules_before_pipeline_rules() {
    let e = reject(&with(|f| {
        f[0].1 = b"[]".to_vec();
        f[1].1 = b"[]".to_vec();
    }));
    assert_error(
        &e,
        MpkKind::SchemaError,
        "schema_error: expected object, found array",
        json_at(CONTRACT_PATH, "mpk", 0),
    );
}

#[test]
fn pipeline_rules_before_config_files() {
    let text = pipeline(&[stage_with(preproc_stage(), "kernel", r#""infer""#), mla_stage()]);
    let e = reject(&with(|f| {
        f[1].1 = text.clone().into_bytes();
        f.truncate(2);
        f.push(("share/model.elf".into(), ELF.to_vec()));
    }));
    assert_error(
        &e,
        MpkKind::SchemaError,
        &format!(
            "schema_error: kernel \"infer\" is not registered for processor CVU (one of {})",
            CVU_KERNELS.join(", ")
        ),
        json_at(
            PIPELINE_PATH,
            "pipeline_sequence.pipelines[0].sequence[0].kernel",
            first_after(&text, r#""kernel":"#),
        ),
    );
}

/// The contract and pipeline rules are checked when the package ends: an entry error after
/// them comes first. A JSON error is reported when its file ends.
#[test]
fn entry_and_json_errors_before_package_rules() {
    let f = edited(|f| {
        f[0].1 = b"[]".to_vec();
        f[1].1 = b"{}".to_vec();
    });
    let t = Tar::new().files(&f);
    let at = t.offset();
    let e = reject(&gz(&t.file("readme.txt", b"x").finish()));
    assert_error(
        &e,
        MpkKind::SchemaError,
        "schema_error: file type not allowed in a package (.json, .yaml, .yml, .so, .elf)",
        entry_at("readme.txt", at),
    );
    let e = reject(&gz(&Tar::new().files(&f).file("late.json", b"{,}").finish()));
    assert_error(
        &e,
        MpkKind::SchemaError,
        "schema_error: invalid JSON: unexpected byte, expected an object member name",
        entry_at("late.json", 1),
    );
}

// ---------------------------------------------------------------- contract: root

/// The contract with `text`; the error must be in it.
#[track_caller]
fn reject_contract(text: &str, kind: MpkKind, message: &str, path: &str, offset: u64) {
    let e = reject(&with(set(CONTRACT_PATH, text)));
    assert_error(&e, kind, message, json_at(CONTRACT_PATH, path, offset));
}

#[test]
fn contract_root_must_be_an_object() {
    reject_contract(
        "[]",
        MpkKind::SchemaError,
        "schema_error: expected object, found array",
        "mpk",
        0,
    );
    reject_contract(
        " \"mpk\"",
        MpkKind::SchemaError,
        "schema_error: expected object, found string",
        "mpk",
        1,
    );
}

/// Contract errors name the contract's archive path, wherever it is.
#[test]
fn contract_errors_name_its_archive_path() {
    let e = reject(&with(|f| {
        f[0].0 = "model/v1/mpk.json".into();
        f[0].1 = b"[]".to_vec();
    }));
    assert_error(
        &e,
        MpkKind::SchemaError,
        "schema_error: expected object, found array",
        json_at("model/v1/mpk.json", "mpk", 0),
    );
}

#[test]
fn contract_optional_strings_must_be_strings() {
    for (member, value) in [
        ("name", "model"),
        ("model_path", "model.elf"),
        ("model_sdk_version", "1.6.0"),
    ] {
        let text = base_contract().replacen(
            &format!(r#""{member}":"{value}""#),
            &format!(r#""{member}":["{value}"]"#),
            1,
        );
        reject_contract(
            &text,
            MpkKind::SchemaError,
            "schema_error: expected string, found array",
            &format!("mpk.{member}"),
            after(&text, &format!(r#""{member}":["#)) - 1,
        );
    }
    // All three are optional.
    let text = format!(r#"{{"plugins":[{PREPROC_PLUGIN},{MLA_PLUGIN}]}}"#);
    let p = check(&with(set(CONTRACT_PATH, &text))).unwrap();
    assert_eq!((p.contract.name, p.contract.model_sdk_version), (None, None));
}

#[test]
fn contract_sequence_must_be_an_unsigned_integer() {
    for (value, message) in [
        ("-1", "schema_error: integer out of range"),
        ("1.5", "schema_error: expected an integer without fraction or exponent"),
        ("\"1\"", "schema_error: expected number, found string"),
    ] {
        let text = base_contract().replacen(
            r#""sequence":1,"input_nodes""#,
            &format!(r#""sequence":{value},"input_nodes""#),
            1,
        );
        reject_contract(
            &text,
            MpkKind::SchemaError,
            message,
            "mpk.sequence",
            after(&text, r#""1.6.0","sequence":"#),
        );
    }
}

#[test]
fn contract_input_nodes_must_be_an_array() {
    let text = base_contract().replacen(
        r#""input_nodes":[{"name":"input","size":9216}],"plugins""#,
        r#""input_nodes":{},"plugins""#,
        1,
    );
    reject_contract(
        &text,
        MpkKind::SchemaError,
        "schema_error: expected array, found object",
        "mpk.input_nodes",
        after(&text, r#""sequence":1,"input_nodes":"#),
    );
}

#[test]
fn contract_plugins_required_non_empty_array() {
    reject_contract(
        r#"{"name":"model"}"#,
        MpkKind::SchemaError,
        "schema_error: required member is missing",
        "mpk.plugins",
        0,
    );
    reject_contract(
        r#"{"plugins":{}}"#,
        MpkKind::SchemaError,
        "schema_error: expected array, found object",
        "mpk.plugins",
        11,
    );
    reject_contract(
        r#"{"plugins":[]}"#,
        MpkKind::SchemaError,
        "schema_error: plugins must be a non-empty array",
        "mpk.plugins",
        11,
    );
}

/// An MPK contract version is never compared: `unsupported_version` is not an MPK outcome.
#[test]
fn contract_versions_never_unsupported() {
    let text = base_contract().replacen(r#""1.6.0""#, r#""99.0.0""#, 1).replacen(
        '{',
        r#"{"mpk_version":"7.3","version":{"major":9},"#,
        1,
    );
    let p = check(&with(set(CONTRACT_PATH, &text))).unwrap();
    assert_eq!(p.contract.model_sdk_version.as_deref(), Some("99.0.0"));
}

/// Unknown members are allowed in the root, the plugins, `config_params` and `resources`.
#[test]
fn contract_unknown_members_allowed() {
    let mla = MLA_PLUGIN
        .replacen('{', r#"{"comment":{"a":[1,{"b":null}]},"#, 1)
        .replace(
            r#""executable":"model.elf""#,
            r#""executable":"model.elf","weights":["w.bin"]"#,
        )
        .replace(
            r#""number_of_quads_to_user":4"#,
            r#""number_of_quads_to_user":4,"kernel_args":[1]"#,
        );
    let text = contract(&[PREPROC_PLUGIN, &mla]).replacen('{', r#"{"extra":[{"x":1}],"#, 1);
    let p = check(&with(set(CONTRACT_PATH, &text))).unwrap();
    assert_eq!(p.contract, check(&valid()).unwrap().contract);
}

// ---------------------------------------------------------------- contract: plugins

/// The contract of the two valid plugins, the MLA one (`plugins[1]`) edited.
fn mla_contract(edit: impl FnOnce(&str) -> String) -> String {
    contract(&[PREPROC_PLUGIN, &edit(MLA_PLUGIN)])
}

/// The contract of the two valid plugins, the EV74 one (`plugins[0]`) edited.
fn preproc_contract(edit: impl FnOnce(&str) -> String) -> String {
    contract(&[&edit(PREPROC_PLUGIN), MLA_PLUGIN])
}

#[test]
fn plugin_must_be_an_object() {
    let text = contract(&[PREPROC_PLUGIN, "[]"]);
    reject_contract(
        &text,
        MpkKind::SchemaError,
        "schema_error: expected object, found array",
        "mpk.plugins[1]",
        pos(&text, "[]]"),
    );
}

#[test]
fn plugin_name_required_non_empty_string() {
    let text = mla_contract(|p| p.replace(r#""name":"MLA_0","#, ""));
    reject_contract(
        &text,
        MpkKind::SchemaError,
        "schema_error: required member is missing",
        "mpk.plugins[1].name",
        pos(&text, r#"{"sequence":2"#),
    );
    let text = mla_contract(|p| p.replacen(r#""name":"MLA_0""#, r#""name":"""#, 1));
    reject_contract(
        &text,
        MpkKind::SchemaError,
        "schema_error: must be a non-empty string",
        "mpk.plugins[1].name",
        pos(&text, r#""","sequence":2"#),
    );
    let text = mla_contract(|p| p.replacen(r#""name":"MLA_0""#, r#""name":7"#, 1));
    reject_contract(
        &text,
        MpkKind::SchemaError,
        "schema_error: expected string, found number",
        "mpk.plugins[1].name",
        pos(&text, r#"7,"sequence":2"#),
    );
}

#[test]
fn plugin_names_unique() {
    let text = mla_contract(|p| p.replacen(r#""name":"MLA_0""#, r#""name":"preproc_0""#, 1));
    reject_contract(
        &text,
        MpkKind::SchemaError,
        "schema_error: duplicate plugin name",
        "mpk.plugins[1].name",
        pos(&text, r#""preproc_0","sequence":2"#),
    );
}

#[test]
fn plugin_sequence_integer_of_at_least_one() {
    for (value, message) in [
        ("0", "schema_error: must be an integer of at least 1"),
        ("-2", "schema_error: must be an integer of at least 1"),
        ("2.5", "schema_error: expected an integer without fraction or exponent"),
        ("\"2\"", "schema_error: expected number, found string"),
        ("18446744073709551616", "schema_error: integer out of range"),
    ] {
        let text = mla_contract(|p| p.replace(r#""sequence":2"#, &format!(r#""sequence":{value}"#)));
        reject_contract(
            &text,
            MpkKind::SchemaError,
            message,
            "mpk.plugins[1].sequence",
            after(&text, r#""MLA_0","sequence":"#),
        );
    }
    let text = mla_contract(|p| p.replace(r#""sequence":2,"#, ""));
    reject_contract(
        &text,
        MpkKind::SchemaError,
        "schema_error: required member is missing",
        "mpk.plugins[1].sequence",
        first(&text, r#"{"name":"MLA_0""#),
    );
}

#[test]
fn plugin_sequences_unique() {
    let text = mla_contract(|p| p.replace(r#""sequence":2"#, r#""sequence":1"#));
    reject_contract(
        &text,
        MpkKind::SchemaError,
        "schema_error: duplicate plugin sequence",
        "mpk.plugins[1].sequence",
        after(&text, r#""MLA_0","sequence":"#),
    );
}

/// The sequences are 1 to n: the first plugin (in document order) above n is reported.
#[test]
fn plugin_sequences_contiguous_from_one() {
    let text = mla_contract(|p| p.replace(r#""sequence":2"#, r#""sequence":3"#));
    reject_contract(
        &text,
        MpkKind::SchemaError,
        "schema_error: plugin sequences must run from 1 to 2 without a gap",
        "mpk.plugins[1].sequence",
        after(&text, r#""MLA_0","sequence":"#),
    );
    let text = contract(&[
        &PREPROC_PLUGIN.replace(r#""sequence":1"#, r#""sequence":3"#),
        MLA_PLUGIN,
    ]);
    reject_contract(
        &text,
        MpkKind::SchemaError,
        "schema_error: plugin sequences must run from 1 to 2 without a gap",
        "mpk.plugins[0].sequence",
        after(&text, r#""preproc_0","sequence":"#),
    );
    // The largest integer JSON gives is a gap too.
    let text = contract(&[&MLA_PLUGIN.replace(r#""sequence":2"#, r#""sequence":18446744073709551615"#)]);
    reject_contract(
        &text,
        MpkKind::SchemaError,
        "schema_error: plugin sequences must run from 1 to 1 without a gap",
        "mpk.plugins[0].sequence",
        after(&text, r#""MLA_0","sequence":"#),
    );
}

/// `Contract.plugins` are in `sequence` order, whatever the document's.
#[test]
fn plugins_sorted_by_sequence() {
    let a65 = A65_PLUGIN.replace(r#""sequence":3"#, r#""sequence":1"#);
    let pre = PREPROC_PLUGIN.replace(r#""sequence":1"#, r#""sequence":3"#);
    let text = contract(&[MLA_PLUGIN, &pre, &a65]);
    let p = check(&with(|f| {
        f[0].1 = text.into_bytes();
        f.push(("lib/libpost.so".into(), SO.to_vec()));
    }))
    .unwrap();
    assert_eq!(plugin_names(&p), ["post_0", "MLA_0", "preproc_0"]);
    let sequences: Vec<u64> = p.contract.plugins.iter().map(|p| p.sequence).collect();
    assert_eq!(sequences, [1, 2, 3]);
}

#[test]
fn plugin_processor_registered() {
    for (value, shown) in [(r#""CVU""#, r#""CVU""#), (r#""mla""#, r#""mla""#), (r#""""#, r#""""#)] {
        let text = mla_contract(|p| p.replace(r#""processor":"MLA""#, &format!(r#""processor":{value}"#)));
        reject_contract(
            &text,
            MpkKind::SchemaError,
            &format!("schema_error: processor {shown} is not registered (one of EV74, MLA, A65)"),
            "mpk.plugins[1].processor",
            after(&text, r#""sequence":2,"processor":"#),
        );
    }
    let text = mla_contract(|p| p.replace(r#""processor":"MLA""#, r#""processor":null"#));
    reject_contract(
        &text,
        MpkKind::SchemaError,
        "schema_error: expected string, found null",
        "mpk.plugins[1].processor",
        after(&text, r#""sequence":2,"processor":"#),
    );
    let text = mla_contract(|p| p.replace(r#""processor":"MLA","#, ""));
    reject_contract(
        &text,
        MpkKind::SchemaError,
        "schema_error: required member is missing",
        "mpk.plugins[1].processor",
        first(&text, r#"{"name":"MLA_0""#),
    );
}

#[test]
fn plugin_type_is_sgp_process() {
    let text = mla_contract(|p| p.replace(r#""type":"sgpProcess""#, r#""type":"process""#));
    reject_contract(
        &text,
        MpkKind::SchemaError,
        "schema_error: plugin type \"process\" is not registered (one of sgpProcess)",
        "mpk.plugins[1].type",
        after(&text, r#""processor":"MLA","type":"#),
    );
    let text = mla_contract(|p| p.replace(r#""type":"sgpProcess""#, r#""type":1"#));
    reject_contract(
        &text,
        MpkKind::SchemaError,
        "schema_error: expected string, found number",
        "mpk.plugins[1].type",
        after(&text, r#""processor":"MLA","type":"#),
    );
    // Optional.
    let text = contract(&[
        &PREPROC_PLUGIN.replace(r#""type":"sgpProcess","#, ""),
        &MLA_PLUGIN.replace(r#""type":"sgpProcess","#, ""),
    ]);
    assert!(check(&with(set(CONTRACT_PATH, &text))).is_ok());
}

#[test]
fn plugin_config_params_required_object() {
    let text = mla_contract(|p| {
        p.replace(
            r#""config_params":{"desired_batch_size":1,"actual_batch_size":1,"number_of_quads_to_user":4},"#,
            "",
        )
    });
    reject_contract(
        &text,
        MpkKind::SchemaError,
        "schema_error: required member is missing",
        "mpk.plugins[1].config_params",
        first(&text, r#"{"name":"MLA_0""#),
    );
    let text = preproc_contract(|p| {
        p.replace(
            r#""config_params":{"kernel":"preproc","params":{}}"#,
            r#""config_params":"preproc""#,
        )
    });
    reject_contract(
        &text,
        MpkKind::SchemaError,
        "schema_error: expected object, found string",
        "mpk.plugins[0].config_params",
        after(&text, r#""config_params":"preproc""#) - 9,
    );
}

#[test]
fn ev74_plugin_requires_a_registered_kernel() {
    let text = preproc_contract(|p| p.replace(r#""kernel":"preproc","#, ""));
    reject_contract(
        &text,
        MpkKind::SchemaError,
        "schema_error: required member is missing",
        "mpk.plugins[0].config_params.kernel",
        pos(&text, r#"{"params":{}}"#),
    );
    let text = preproc_contract(|p| p.replace(r#""kernel":"preproc""#, r#""kernel":"infer""#));
    reject_contract(
        &text,
        MpkKind::SchemaError,
        &format!(
            "schema_error: kernel \"infer\" is not registered for processor EV74 (one of {})",
            EV74_KERNELS.join(", ")
        ),
        "mpk.plugins[0].config_params.kernel",
        after(&text, r#""kernel":"#),
    );
    let text = preproc_contract(|p| p.replace(r#""kernel":"preproc""#, r#""kernel":["preproc"]"#));
    reject_contract(
        &text,
        MpkKind::SchemaError,
        "schema_error: expected string, found array",
        "mpk.plugins[0].config_params.kernel",
        after(&text, r#""kernel":"#),
    );
}

#[test]
fn ev74_plugin_accepts_every_ev74_kernel() {
    for k in EV74_KERNELS {
        let text = preproc_contract(|p| p.replace(r#""kernel":"preproc""#, &format!(r#""kernel":"{k}""#)));
        let p = check(&with(set(CONTRACT_PATH, &text))).unwrap();
        assert_eq!(p.contract.plugins[0].kernel.as_deref(), Some(*k));
    }
}

#[test]
fn mla_plugin_names_no_kernel() {
    let text = mla_contract(|p| {
        p.replace(
            r#""desired_batch_size":1"#,
            r#""kernel":"infer","desired_batch_size":1"#,
        )
    });
    reject_contract(
        &text,
        MpkKind::SchemaError,
        "schema_error: MLA plugins name no kernel",
        "mpk.plugins[1].config_params.kernel",
        pos(&text, r#""infer","desired"#),
    );
}

#[test]
fn a65_plugin_kernel_optional_and_registered() {
    let base = |a65: &str| {
        with(|f| {
            f[0].1 = contract(&[PREPROC_PLUGIN, MLA_PLUGIN, a65]).into_bytes();
            f.push(("lib/libpost.so".into(), SO.to_vec()));
        })
    };
    for k in A65_KERNELS {
        let p = check(&base(&A65_PLUGIN.replace("boxdecode", k))).unwrap();
        assert_eq!(p.contract.plugins[2].kernel.as_deref(), Some(*k));
    }
    let p = check(&base(&A65_PLUGIN.replace(r#"{"kernel":"boxdecode"}"#, "{}"))).unwrap();
    assert_eq!(p.contract.plugins[2].kernel, None);
    let a65 = A65_PLUGIN.replace("boxdecode", "preproc");
    let text = contract(&[PREPROC_PLUGIN, MLA_PLUGIN, &a65]);
    let e = reject(&base(&a65));
    assert_error(
        &e,
        MpkKind::SchemaError,
        "schema_error: kernel \"preproc\" is not registered for processor A65 (one of processtvm, slice, boxdecode)",
        json_at(
            CONTRACT_PATH,
            "mpk.plugins[2].config_params.kernel",
            pos(&text, r#""preproc"}"#),
        ),
    );
}

#[test]
fn plugin_params_must_be_an_object() {
    let text = preproc_contract(|p| p.replace(r#""params":{}"#, r#""params":[]"#));
    reject_contract(
        &text,
        MpkKind::SchemaError,
        "schema_error: expected object, found array",
        "mpk.plugins[0].config_params.params",
        after(&text, r#""params":"#),
    );
    // Optional.
    let text = preproc_contract(|p| p.replace(r#","params":{}"#, ""));
    assert!(check(&with(set(CONTRACT_PATH, &text))).is_ok());
}

#[test]
fn mla_plugin_batch_sizes_integers_of_at_least_one() {
    for member in ["desired_batch_size", "actual_batch_size"] {
        let text = mla_contract(|p| p.replace(&format!(r#""{member}":1"#), &format!(r#""{member}":0"#)));
        reject_contract(
            &text,
            MpkKind::SchemaError,
            "schema_error: must be an integer of at least 1",
            &format!("mpk.plugins[1].config_params.{member}"),
            after(&text, &format!(r#""{member}":"#)),
        );
        let text = mla_contract(|p| p.replace(&format!(r#""{member}":1"#), &format!(r#""{member}":1.0"#)));
        reject_contract(
            &text,
            MpkKind::SchemaError,
            "schema_error: expected an integer without fraction or exponent",
            &format!("mpk.plugins[1].config_params.{member}"),
            after(&text, &format!(r#""{member}":"#)),
        );
        let text = mla_contract(|p| p.replace(&format!(r#""{member}":1,"#), ""));
        let other = if member == "desired_batch_size" {
            "actual_batch_size"
        } else {
            "desired_batch_size"
        };
        reject_contract(
            &text,
            MpkKind::SchemaError,
            "schema_error: required member is missing",
            &format!("mpk.plugins[1].config_params.{member}"),
            pos(&text, &format!(r#"{{"{other}""#)),
        );
    }
}

#[test]
fn plugin_nodes_required_arrays() {
    for (member, value) in [
        ("input_nodes", r#"[{"name":"input","size":9216}]"#),
        ("output_nodes", r#"[{"name":"preproc_0","type":"buffer","size":9216}]"#),
    ] {
        let text = preproc_contract(|p| p.replace(&format!(r#""{member}":{value}"#), &format!(r#""{member}":{{}}"#)));
        reject_contract(
            &text,
            MpkKind::SchemaError,
            "schema_error: expected array, found object",
            &format!("mpk.plugins[0].{member}"),
            after(&text, &format!(r#""{member}":{{}}"#)) - 2,
        );
    }
    let text = mla_contract(|p| p.replace(r#""output_nodes":[{"name":"MLA_0","type":"buffer","size":1000}],"#, ""));
    reject_contract(
        &text,
        MpkKind::SchemaError,
        "schema_error: required member is missing",
        "mpk.plugins[1].output_nodes",
        pos(&text, r#"{"name":"MLA_0","sequence""#),
    );
}

/// A plugin's own rules run in order (name, sequence, processor, type, config_params,
/// nodes, executable), then its name's and sequence's uniqueness; plugins in document
/// order.
#[test]
fn plugin_rules_in_order() {
    // A duplicate name and a bad processor: the processor, a rule of its own, first.
    let text = mla_contract(|p| {
        p.replacen(r#""name":"MLA_0""#, r#""name":"preproc_0""#, 1)
            .replace(r#""processor":"MLA""#, r#""processor":"GPU""#)
    });
    let e = reject(&with(set(CONTRACT_PATH, &text)));
    assert_eq!(e.location.path.as_deref(), Some("mpk.plugins[1].processor"));
    // A bad sequence and a bad type: the sequence.
    let text = mla_contract(|p| {
        p.replace(r#""sequence":2"#, r#""sequence":0"#)
            .replace(r#""type":"sgpProcess""#, r#""type":"x""#)
    });
    let e = reject(&with(set(CONTRACT_PATH, &text)));
    assert_eq!(e.location.path.as_deref(), Some("mpk.plugins[1].sequence"));
    // The first plugin's executable before the second plugin's name.
    let text = contract(&[
        &MLA_PLUGIN
            .replace(r#""sequence":2"#, r#""sequence":1"#)
            .replace("model.elf", "none.elf"),
        &PREPROC_PLUGIN
            .replace(r#""name":"preproc_0""#, r#""name":"""#)
            .replace(r#""sequence":1"#, r#""sequence":2"#),
    ]);
    let e = reject(&with(set(CONTRACT_PATH, &text)));
    assert_eq!(e.location.path.as_deref(), Some("mpk.plugins[0].resources.executable"));
    // Contiguity after every plugin's own rules.
    let text = contract(&[
        &PREPROC_PLUGIN.replace(r#""sequence":1"#, r#""sequence":5"#),
        &MLA_PLUGIN.replace(r#""type":"sgpProcess""#, r#""type":"x""#),
    ]);
    let e = reject(&with(set(CONTRACT_PATH, &text)));
    assert_eq!(e.location.path.as_deref(), Some("mpk.plugins[1].type"));
}

// ---------------------------------------------------------------- contract: executables

/// The EV74 plugin with a `resources` member of JSON text `resources`.
fn preproc_with_resources(resources: &str) -> String {
    preproc_contract(|p| {
        p.replace(
            r#","input_nodes""#,
            &format!(r#","resources":{resources},"input_nodes""#),
        )
    })
}

#[test]
fn mla_executable_required() {
    let text = mla_contract(|p| p.replace(r#","resources":{"executable":"model.elf"}"#, ""));
    reject_contract(
        &text,
        MpkKind::SchemaError,
        "schema_error: required member is missing",
        "mpk.plugins[1].resources",
        first(&text, r#"{"name":"MLA_0""#),
    );
    let text = mla_contract(|p| p.replace(r#"{"executable":"model.elf"}"#, "{}"));
    reject_contract(
        &text,
        MpkKind::SchemaError,
        "schema_error: required member is missing",
        "mpk.plugins[1].resources.executable",
        after(&text, r#""resources":"#),
    );
    let text = mla_contract(|p| p.replace(r#"{"executable":"model.elf"}"#, r#"["model.elf"]"#));
    reject_contract(
        &text,
        MpkKind::SchemaError,
        "schema_error: expected object, found array",
        "mpk.plugins[1].resources",
        after(&text, r#""resources":"#),
    );
    let text = mla_contract(|p| p.replace(r#""executable":"model.elf""#, r#""executable":1"#));
    reject_contract(
        &text,
        MpkKind::SchemaError,
        "schema_error: expected string, found number",
        "mpk.plugins[1].resources.executable",
        after(&text, r#""executable":"#),
    );
}

#[test]
fn a65_executable_required() {
    let a65 = A65_PLUGIN.replace(r#","resources":{"executable":"libpost.so"}"#, "");
    let text = contract(&[PREPROC_PLUGIN, MLA_PLUGIN, &a65]);
    reject_contract(
        &text,
        MpkKind::SchemaError,
        "schema_error: required member is missing",
        "mpk.plugins[2].resources",
        pos(&text, r#"{"name":"post_0""#),
    );
}

#[test]
fn mla_executable_must_be_an_extracted_binary() {
    for (exe, shown) in [
        ("other.elf", "other.elf"),
        ("model.ELF", "model.ELF"),
        ("0_preproc.json", "0_preproc.json"),
        ("etc/0_preproc.json", "etc/0_preproc.json"),
        ("./models//model.elf", "models/model.elf"),
    ] {
        let text = mla_contract(|p| p.replace("model.elf", exe));
        reject_contract(
            &text,
            MpkKind::SchemaError,
            &format!(
                "schema_error: executable \"{shown}\" is not an extracted .elf or .so (looked in share/, lib/, the root)"
            ),
            "mpk.plugins[1].resources.executable",
            after(&text, r#""executable":"#),
        );
    }
}

/// The executable is looked up among the extracted files: the archive folder a file came
/// from is gone after flattening.
#[test]
fn executable_archive_folder_not_kept() {
    let text = mla_contract(|p| p.replace("model.elf", "models/model.elf"));
    let e = reject(&with(|f| {
        f[0].1 = text.clone().into_bytes();
        f[5].0 = "models/model.elf".into();
    }));
    assert_error(
        &e,
        MpkKind::SchemaError,
        "schema_error: executable \"models/model.elf\" is not an extracted .elf or .so (looked in share/, lib/, the root)",
        json_at(
            CONTRACT_PATH,
            "mpk.plugins[1].resources.executable",
            after(&text, r#""executable":"#),
        ),
    );
}

#[test]
fn a65_executable_must_be_an_extracted_binary() {
    let a65 = A65_PLUGIN.replace("libpost.so", "libmissing.so");
    let text = contract(&[PREPROC_PLUGIN, MLA_PLUGIN, &a65]);
    reject_contract(
        &text,
        MpkKind::SchemaError,
        "schema_error: executable \"libmissing.so\" is not an extracted .elf or .so (looked in lib/, the root, share/)",
        "mpk.plugins[2].resources.executable",
        pos(&text, r#""libmissing.so""#),
    );
}

/// An MLA executable is looked up in `share/`, `lib/`, then the root of the extracted
/// files: a `.so` resolves to `lib/`, a path with its class folder to itself.
#[test]
fn mla_executable_resolution() {
    for (exe, resolved) in [
        ("model.elf", "share/model.elf"),
        ("model.so", "lib/model.so"),
        ("share/model.elf", "share/model.elf"),
        ("./lib/model.so", "lib/model.so"),
    ] {
        let text = mla_contract(|p| p.replace("model.elf", exe));
        let p = check(&with(set(CONTRACT_PATH, &text))).unwrap();
        let exe = exe.trim_start_matches("./");
        assert_eq!(
            (
                p.contract.plugins[1].executable.as_deref(),
                p.contract.plugins[1].resolved.as_deref()
            ),
            (Some(exe), Some(resolved))
        );
    }
}

/// An A65 executable is looked up in `lib/`, the root, then `share/`; the file may come
/// from any archive folder.
#[test]
fn a65_executable_resolution() {
    let text = contract(&[PREPROC_PLUGIN, MLA_PLUGIN, A65_PLUGIN]);
    let p = check(&with(|f| {
        f[0].1 = text.into_bytes();
        f.push(("plugins/a65/libpost.so".into(), SO.to_vec()));
    }))
    .unwrap();
    assert_eq!(
        p.contract.plugins[2],
        Plugin {
            name: "post_0".into(),
            sequence: 3,
            processor: "A65".into(),
            kernel: Some("boxdecode".into()),
            executable: Some("libpost.so".into()),
            resolved: Some("lib/libpost.so".into()),
        }
    );
    assert_eq!(p.files[6].dest, "lib/libpost.so");
    // Through `share/` too.
    let a65 = A65_PLUGIN.replace("libpost.so", "model.elf");
    let p = check(&with(set(
        CONTRACT_PATH,
        &contract(&[PREPROC_PLUGIN, MLA_PLUGIN, &a65]),
    )))
    .unwrap();
    assert_eq!(p.contract.plugins[2].resolved.as_deref(), Some("share/model.elf"));
}

/// An EV74 executable is optional, normalised and not resolved.
#[test]
fn ev74_executable_optional_and_not_resolved() {
    let text = preproc_with_resources(r#"{"executable":"./kernels/ev74_preproc.elf"}"#);
    let p = check(&with(set(CONTRACT_PATH, &text))).unwrap();
    assert_eq!(
        (
            p.contract.plugins[0].executable.as_deref(),
            p.contract.plugins[0].resolved.as_deref()
        ),
        (Some("kernels/ev74_preproc.elf"), None)
    );
    let text = preproc_with_resources("{}");
    let p = check(&with(set(CONTRACT_PATH, &text))).unwrap();
    assert_eq!(p.contract.plugins[0].executable, None);
    let text = preproc_with_resources("[]");
    reject_contract(
        &text,
        MpkKind::SchemaError,
        "schema_error: expected object, found array",
        "mpk.plugins[0].resources",
        first_after(&text, r#""resources":"#),
    );
}

#[test]
fn executable_traversal_is_path_traversal() {
    for (exe, reason) in [
        ("../model.elf", "path has a .. segment"),
        ("/share/model.elf", "path is absolute"),
        ("..\\\\model.elf", "path holds a backslash"),
        (
            "share/model\u{FF0E}elf",
            "path holds a Unicode dot look-alike (U+FF0E, U+2024 or U+FE52)",
        ),
    ] {
        let text = mla_contract(|p| p.replace("model.elf", exe));
        reject_contract(
            &text,
            MpkKind::PathTraversal,
            &format!("path_traversal: executable: {reason}"),
            "mpk.plugins[1].resources.executable",
            after(&text, r#""executable":"#),
        );
    }
    // Even where it is never resolved (EV74).
    let text = preproc_with_resources(r#"{"executable":"../../bin/x.elf"}"#);
    reject_contract(
        &text,
        MpkKind::PathTraversal,
        "path_traversal: executable: path has a .. segment",
        "mpk.plugins[0].resources.executable",
        first_after(&text, r#""executable":"#),
    );
}

/// A path rule that is not about escaping is `schema_error`.
#[test]
fn executable_malformed_path_is_schema_error() {
    for (exe, reason) in [
        ("", "path is empty after normalisation"),
        ("./", "path is empty after normalisation"),
        ("model\\u0001.elf", "path holds a control character"),
        ("model.elf.", "path segment ends in a dot or space"),
    ] {
        let text = mla_contract(|p| p.replace("model.elf", exe));
        reject_contract(
            &text,
            MpkKind::SchemaError,
            &format!("schema_error: executable: {reason}"),
            "mpk.plugins[1].resources.executable",
            after(&text, r#""executable":"#),
        );
    }
}

// ---------------------------------------------------------------- pipeline

/// The pipeline with `text`; the error must be in it.
#[track_caller]
fn reject_pipeline(text: &str, kind: MpkKind, message: &str, path: &str, offset: u64) {
    let e = reject(&with(set(PIPELINE_PATH, text)));
    assert_error(&e, kind, message, json_at(PIPELINE_PATH, path, offset));
}

/// Pipeline errors name the file's archive path, wherever it is: the rules', the JSON's and
/// the configuration files'.
#[test]
fn pipeline_errors_name_its_archive_path() {
    let moved = "model/cfg/pipeline_sequence.json";
    let e = reject(&with(|f| {
        f[1].0 = moved.into();
        f[1].1 = b"[]".to_vec();
    }));
    assert_error(
        &e,
        MpkKind::SchemaError,
        "schema_error: expected object, found array",
        json_at(moved, "pipeline_sequence", 0),
    );
    let e = reject(&with(|f| {
        f[1].0 = moved.into();
        f[1].1 = b"[,]".to_vec();
    }));
    assert_error(
        &e,
        MpkKind::SchemaError,
        "schema_error: invalid JSON: unexpected byte, expected a value",
        entry_at(moved, 1),
    );
    let e = reject(&with(|f| {
        f[1].0 = moved.into();
        remove("etc/0_preproc.json")(f);
    }));
    assert_error(
        &e,
        MpkKind::SchemaError,
        "schema_error: configPath names no JSON file extracted to etc/",
        Location {
            member: Some(moved.into()),
            path: Some("pipeline_sequence.pipelines[0].sequence[0].configPath".into()),
            offset: None,
        },
    );
}

#[test]
fn pipeline_root_must_be_an_object() {
    reject_pipeline(
        "[]",
        MpkKind::SchemaError,
        "schema_error: expected object, found array",
        "pipeline_sequence",
        0,
    );
}

#[test]
fn pipelines_required_non_empty_array() {
    reject_pipeline(
        r#"{"version":1}"#,
        MpkKind::SchemaError,
        "schema_error: required member is missing",
        "pipeline_sequence.pipelines",
        0,
    );
    reject_pipeline(
        r#"{"pipelines":{}}"#,
        MpkKind::SchemaError,
        "schema_error: expected array, found object",
        "pipeline_sequence.pipelines",
        13,
    );
    reject_pipeline(
        r#"{"pipelines":[]}"#,
        MpkKind::SchemaError,
        "schema_error: pipelines must be a non-empty array",
        "pipeline_sequence.pipelines",
        13,
    );
}

#[test]
fn pipeline_must_be_an_object() {
    let good = base_pipeline();
    let text = good.replacen(r#"{"pipelines":["#, r#"{"pipelines":[7,"#, 1);
    reject_pipeline(
        &text,
        MpkKind::SchemaError,
        "schema_error: expected object, found number",
        "pipeline_sequence.pipelines[0]",
        14,
    );
}

#[test]
fn pipeline_sequence_required_non_empty_array() {
    reject_pipeline(
        r#"{"pipelines":[{"name":"p"}]}"#,
        MpkKind::SchemaError,
        "schema_error: required member is missing",
        "pipeline_sequence.pipelines[0].sequence",
        14,
    );
    reject_pipeline(
        r#"{"pipelines":[{"sequence":{}}]}"#,
        MpkKind::SchemaError,
        "schema_error: expected array, found object",
        "pipeline_sequence.pipelines[0].sequence",
        26,
    );
    reject_pipeline(
        r#"{"pipelines":[{"sequence":[]}]}"#,
        MpkKind::SchemaError,
        "schema_error: sequence must be a non-empty array",
        "pipeline_sequence.pipelines[0].sequence",
        26,
    );
}

#[test]
fn stage_must_be_an_object() {
    let text = format!(
        r#"{{"pipelines":[{{"sequence":[{},"mla"]}}]}}"#,
        object(&preproc_stage())
    );
    reject_pipeline(
        &text,
        MpkKind::SchemaError,
        "schema_error: expected object, found string",
        "pipeline_sequence.pipelines[0].sequence[1]",
        pos(&text, r#""mla"]"#),
    );
}

#[test]
fn stage_members_required() {
    for member in ["sequence_id", "name", "pluginId", "configPath", "processor", "kernel"] {
        let stage = stage_without(mla_stage(), member);
        let text = pipeline(&[preproc_stage(), stage.clone()]);
        reject_pipeline(
            &text,
            MpkKind::SchemaError,
            "schema_error: required member is missing",
            &format!("pipeline_sequence.pipelines[0].sequence[1].{member}"),
            pos(&text, &object(&stage)),
        );
    }
}

#[test]
fn stage_strings_non_empty() {
    for member in ["name", "pluginId", "configPath", "processor", "kernel"] {
        let text = pipeline(&[preproc_stage(), stage_with(mla_stage(), member, r#""""#)]);
        reject_pipeline(
            &text,
            MpkKind::SchemaError,
            "schema_error: must be a non-empty string",
            &format!("pipeline_sequence.pipelines[0].sequence[1].{member}"),
            pos(&text, &format!(r#""{member}":"""#)) + member.len() as u64 + 3,
        );
    }
}

#[test]
fn stage_strings_must_be_strings() {
    for member in ["name", "pluginId", "configPath", "processor", "kernel"] {
        let text = pipeline(&[preproc_stage(), stage_with(mla_stage(), member, "[]")]);
        reject_pipeline(
            &text,
            MpkKind::SchemaError,
            "schema_error: expected string, found array",
            &format!("pipeline_sequence.pipelines[0].sequence[1].{member}"),
            after(&text, &format!(r#""{member}":[]"#)) - 2,
        );
    }
}

#[test]
fn stage_sequence_id_integer() {
    for (value, message) in [
        ("1.5", "schema_error: expected an integer without fraction or exponent"),
        ("\"1\"", "schema_error: expected number, found string"),
        ("9223372036854775808", "schema_error: integer out of range"),
    ] {
        let text = pipeline(&[preproc_stage(), stage_with(mla_stage(), "sequence_id", value)]);
        reject_pipeline(
            &text,
            MpkKind::SchemaError,
            message,
            "pipeline_sequence.pipelines[0].sequence[1].sequence_id",
            after(&text, &format!(r#""sequence_id":{value}"#)) - value.len() as u64,
        );
    }
}

#[test]
fn stage_name_decoder_reserved() {
    let text = pipeline(&[stage_with(preproc_stage(), "name", r#""decoder""#), mla_stage()]);
    reject_pipeline(
        &text,
        MpkKind::SchemaError,
        "schema_error: stage name decoder is reserved",
        "pipeline_sequence.pipelines[0].sequence[0].name",
        after(&text, r#""name":"decoder""#) - 9,
    );
}

#[test]
fn stage_names_unique_per_pipeline() {
    let text = pipeline(&[preproc_stage(), stage_with(mla_stage(), "name", r#""preproc_0""#)]);
    reject_pipeline(
        &text,
        MpkKind::SchemaError,
        "schema_error: duplicate stage name",
        "pipeline_sequence.pipelines[0].sequence[1].name",
        after(&text, r#""sequence_id":1,"name":"#),
    );
    // The same names in two pipelines are fine.
    let text = pipelines(&[&[preproc_stage(), mla_stage()], &[preproc_stage(), mla_stage()]]);
    let p = check(&with(set(PIPELINE_PATH, &text))).unwrap();
    assert_eq!(
        (stage_names(&p, 0), stage_names(&p, 1)),
        (vec!["preproc_0", "mla_0"], vec!["preproc_0", "mla_0"])
    );
}

#[test]
fn stage_processor_registered() {
    let text = pipeline(&[stage_with(preproc_stage(), "processor", r#""A65""#), mla_stage()]);
    reject_pipeline(
        &text,
        MpkKind::SchemaError,
        "schema_error: processor \"A65\" is not registered (one of CVU, MLA, EV74)",
        "pipeline_sequence.pipelines[0].sequence[0].processor",
        first_after(&text, r#""processor":"#),
    );
}

#[test]
fn stage_kernel_registered_for_its_processor() {
    for (processor, kernel, list) in [
        ("CVU", "infer", CVU_KERNELS.join(", ")),
        ("MLA", "preproc", "infer, mla".to_string()),
        ("EV74", "quant", EV74_KERNELS.join(", ")),
    ] {
        let stage = stage_with(
            stage_with(preproc_stage(), "processor", &format!("\"{processor}\"")),
            "kernel",
            &format!("\"{kernel}\""),
        );
        let text = pipeline(&[stage, mla_stage()]);
        reject_pipeline(
            &text,
            MpkKind::SchemaError,
            &format!("schema_error: kernel \"{kernel}\" is not registered for processor {processor} (one of {list})"),
            "pipeline_sequence.pipelines[0].sequence[0].kernel",
            first_after(&text, r#""kernel":"#),
        );
    }
}

#[test]
fn stage_kernels_of_the_registry_accepted() {
    let mut pairs: Vec<(&str, &str)> = CVU_KERNELS.iter().map(|k| ("CVU", *k)).collect();
    pairs.extend(EV74_KERNELS.iter().map(|k| ("EV74", *k)));
    pairs.extend([("MLA", "infer"), ("MLA", "mla")]);
    for (processor, kernel) in pairs {
        let stage = stage_with(
            stage_with(preproc_stage(), "processor", &format!("\"{processor}\"")),
            "kernel",
            &format!("\"{kernel}\""),
        );
        let p = check(&with(set(PIPELINE_PATH, &pipeline(&[stage, mla_stage()])))).unwrap();
        let s = &p.pipelines.unwrap()[0].stages[0];
        assert_eq!((s.processor.as_str(), s.kernel.as_str()), (processor, kernel));
    }
}

/// Stage members other than the rules' are allowed, as are members of the root and of a
/// pipeline.
#[test]
fn pipeline_unknown_members_allowed() {
    let stage = stage_with(
        stage_with(preproc_stage(), "params", r#"{"mean":[0.5],"nested":{"a":[{}]}}"#),
        "executable",
        r#""libev74.so""#,
    );
    let text = pipeline(&[stage, mla_stage()]).replacen('{', r#"{"version":"1.0","meta":{"x":[1]},"#, 1);
    let p = check(&with(set(PIPELINE_PATH, &text))).unwrap();
    assert_eq!(p.pipelines, check(&valid()).unwrap().pipelines);
}

// ---------------------------------------------------------------- pipeline: input

#[test]
fn stage_input_optional() {
    let p = check(&with(set(
        PIPELINE_PATH,
        &pipeline(&[stage_without(preproc_stage(), "input"), mla_stage()]),
    )))
    .unwrap();
    assert!(p.pipelines.unwrap()[0].stages[0].input.is_empty());
}

/// An empty `input` array names nothing, like an absent `input`.
#[test]
fn stage_input_empty_array_accepted() {
    let text = pipeline(&[preproc_stage(), stage_with(mla_stage(), "input", "[]")]);
    let p = check(&with(set(PIPELINE_PATH, &text))).unwrap();
    assert!(p.pipelines.unwrap()[0].stages[1].input.is_empty());
}

#[test]
fn stage_input_string_or_array_of_strings() {
    for (input, path, message) in [
        (
            "1",
            "input",
            "schema_error: input must be a string or an array of strings",
        ),
        (
            "{}",
            "input",
            "schema_error: input must be a string or an array of strings",
        ),
        (
            "null",
            "input",
            "schema_error: input must be a string or an array of strings",
        ),
        (r#""""#, "input", "schema_error: must be a non-empty string"),
        (
            r#"["decoder",2]"#,
            "input[1]",
            "schema_error: expected string, found number",
        ),
        (
            r#"["decoder",""]"#,
            "input[1]",
            "schema_error: must be a non-empty string",
        ),
        (
            r#"[[],"decoder"]"#,
            "input[0]",
            "schema_error: expected string, found array",
        ),
    ] {
        let text = pipeline(&[preproc_stage(), stage_with(mla_stage(), "input", input)]);
        let input_at = after(&text, r#""kernel":"infer","input":"#);
        let offset = match path {
            "input" => input_at,
            _ => {
                let inner = &input[1..];
                let k: usize = path[6..7].parse().unwrap();
                let first_len = if k == 0 { 0 } else { inner.find(',').unwrap() + 1 };
                input_at + 1 + first_len as u64
            }
        };
        reject_pipeline(
            &text,
            MpkKind::SchemaError,
            message,
            &format!("pipeline_sequence.pipelines[0].sequence[1].{path}"),
            offset,
        );
    }
}

/// An input names `decoder` or a stage strictly earlier in the order.
#[test]
fn stage_input_names_decoder_or_an_earlier_stage() {
    let cases = [
        // A later stage, as a string.
        (r#""mla_0""#, r#""preproc_0""#, "sequence[0].input", r#""mla_0"}"#),
        // Itself.
        (
            r#""decoder""#,
            r#"["decoder","mla_0"]"#,
            "sequence[1].input[1]",
            r#""mla_0"]"#,
        ),
        // No stage of that name.
        (r#""decoder""#, r#"["ghost"]"#, "sequence[1].input[0]", r#""ghost""#),
        // Names are exact.
        (r#""decoder""#, r#""Preproc_0""#, "sequence[1].input", r#""Preproc_0""#),
        (r#""Decoder""#, r#""preproc_0""#, "sequence[0].input", r#""Decoder""#),
    ];
    for (pre_input, mla_input, path, needle) in cases {
        let text = pipeline(&[
            stage_with(preproc_stage(), "input", pre_input),
            stage_with(mla_stage(), "input", mla_input),
        ]);
        reject_pipeline(
            &text,
            MpkKind::SchemaError,
            "schema_error: input must name decoder or an earlier stage",
            &format!("pipeline_sequence.pipelines[0].{path}"),
            pos(&text, needle),
        );
    }
}

/// The order is by `sequence_id`, stable: document order does not count, ties keep it.
#[test]
fn stages_ordered_by_sequence_id_stably() {
    let s = |id: &str, name: &str, input: &str| {
        stage_with(
            stage_with(
                stage_with(preproc_stage(), "sequence_id", id),
                "name",
                &format!("\"{name}\""),
            ),
            "input",
            input,
        )
    };
    let stages = [
        s("7", "post", r#"["tie_b","tie_a","decoder"]"#),
        s("-3", "first", r#""decoder""#),
        s("2", "tie_a", r#""first""#),
        s("2", "tie_b", r#"["tie_a","first"]"#),
    ];
    let p = check(&with(set(PIPELINE_PATH, &pipeline(&stages)))).unwrap();
    let pipelines = p.pipelines.unwrap();
    let p0 = &pipelines[0];
    let order: Vec<(&str, i64, usize)> = p0
        .stages
        .iter()
        .map(|s| (s.name.as_str(), s.sequence_id, s.index))
        .collect();
    assert_eq!(
        order,
        [("first", -3, 1), ("tie_a", 2, 2), ("tie_b", 2, 3), ("post", 7, 0)]
    );
    let inputs: Vec<Vec<&str>> = p0
        .stages
        .iter()
        .map(|s| s.input.iter().map(|&d| p0.dependency_name(d)).collect())
        .collect();
    assert_eq!(
        inputs,
        [
            vec!["decoder"],
            vec!["first"],
            vec!["tie_a", "first"],
            vec!["tie_b", "tie_a", "decoder"]
        ]
    );
    assert_eq!(
        p0.stages[3].input,
        [Dependency::Stage(2), Dependency::Stage(1), Dependency::Decoder]
    );
    // A tie is not "earlier": tie_a naming tie_b, after it in the document, fails.
    let stages = [
        s("1", "first", r#""decoder""#),
        s("2", "tie_a", r#""tie_b""#),
        s("2", "tie_b", r#""first""#),
    ];
    let text = pipeline(&stages);
    let e = reject(&with(set(PIPELINE_PATH, &text)));
    assert_error(
        &e,
        MpkKind::SchemaError,
        "schema_error: input must name decoder or an earlier stage",
        json_at(
            PIPELINE_PATH,
            "pipeline_sequence.pipelines[0].sequence[1].input",
            pos(&text, r#""tie_b"}"#),
        ),
    );
}

/// Stability holds for many ties in no order: each stage names the one before it of its
/// `sequence_id`, which only the document order makes earlier.
#[test]
fn stages_ordered_stably_among_many_ties() {
    let ids = [2, 0, 1];
    let stages: Vec<Members> = (0..60)
        .map(|i| {
            let id = ids[i % 3];
            let input = if i < 3 {
                r#""decoder""#.to_string()
            } else {
                format!("\"s{}\"", i - 3)
            };
            let s = stage_with(preproc_stage(), "sequence_id", &id.to_string());
            stage_with(stage_with(s, "name", &format!("\"s{i}\"")), "input", &input)
        })
        .collect();
    let p = check(&with(set(PIPELINE_PATH, &pipeline(&stages)))).unwrap();
    let order: Vec<usize> = p.pipelines.unwrap()[0].stages.iter().map(|s| s.index).collect();
    let want: Vec<usize> = [1, 2, 0].iter().flat_map(|&r| (r..60).step_by(3)).collect();
    assert_eq!(order, want);
}

/// Of two failing inputs, the one whose stage comes first in the order is reported.
#[test]
fn first_failing_input_in_execution_order() {
    let late = stage_with(stage_with(mla_stage(), "sequence_id", "5"), "input", r#""nobody""#);
    let early = stage_with(preproc_stage(), "input", r#"["decoder","mla_0"]"#);
    let text = pipeline(&[late, early]);
    let e = reject(&with(set(PIPELINE_PATH, &text)));
    assert_error(
        &e,
        MpkKind::SchemaError,
        "schema_error: input must name decoder or an earlier stage",
        json_at(
            PIPELINE_PATH,
            "pipeline_sequence.pipelines[0].sequence[1].input[1]",
            pos(&text, r#""mla_0"]"#),
        ),
    );
}

/// Pipelines are checked in document order; the first failing one is reported.
#[test]
fn first_failing_pipeline_reported() {
    let bad = [preproc_stage(), stage_with(mla_stage(), "kernel", r#""mla_inference""#)];
    let worse = [stage_with(preproc_stage(), "processor", r#""GPU""#)];
    let text = pipelines(&[&[preproc_stage(), mla_stage()], &bad, &worse]);
    let e = reject(&with(set(PIPELINE_PATH, &text)));
    assert_error(
        &e,
        MpkKind::SchemaError,
        "schema_error: kernel \"mla_inference\" is not registered for processor MLA (one of infer, mla)",
        json_at(
            PIPELINE_PATH,
            "pipeline_sequence.pipelines[1].sequence[1].kernel",
            pos(&text, r#""mla_inference""#),
        ),
    );
}

// ---------------------------------------------------------------- pipeline: configPath

#[test]
fn config_path_is_a_file_name() {
    for path in ["etc/0_preproc.json", "a/b.json", "./etc/0_preproc.json"] {
        let text = pipeline(&[
            stage_with(preproc_stage(), "configPath", &format!("\"{path}\"")),
            mla_stage(),
        ]);
        reject_pipeline(
            &text,
            MpkKind::SchemaError,
            "schema_error: configPath must be a file name: it is read from etc/",
            "pipeline_sequence.pipelines[0].sequence[0].configPath",
            first_after(&text, r#""configPath":"#),
        );
    }
    // `./x` is the file name `x`.
    let text = pipeline(&[
        stage_with(preproc_stage(), "configPath", r#""./0_preproc.json""#),
        mla_stage(),
    ]);
    let p = check(&with(set(PIPELINE_PATH, &text))).unwrap();
    assert_eq!(p.pipelines.unwrap()[0].stages[0].config_path, "0_preproc.json");
}

#[test]
fn config_path_traversal_is_path_traversal() {
    for (path, reason) in [
        ("../0_preproc.json", "path has a .. segment"),
        ("/etc/0_preproc.json", "path is absolute"),
        ("..\\\\0_preproc.json", "path holds a backslash"),
        (
            "0_preproc\u{2024}json",
            "path holds a Unicode dot look-alike (U+FF0E, U+2024 or U+FE52)",
        ),
    ] {
        let text = pipeline(&[
            stage_with(preproc_stage(), "configPath", &format!("\"{path}\"")),
            mla_stage(),
        ]);
        reject_pipeline(
            &text,
            MpkKind::PathTraversal,
            &format!("path_traversal: configPath: {reason}"),
            "pipeline_sequence.pipelines[0].sequence[0].configPath",
            first_after(&text, r#""configPath":"#),
        );
    }
}

#[test]
fn config_path_names_a_json_file() {
    for path in ["0_preproc.yaml", "model.elf", "0_preproc.JSON", "0_preproc"] {
        let text = pipeline(&[
            stage_with(preproc_stage(), "configPath", &format!("\"{path}\"")),
            mla_stage(),
        ]);
        reject_pipeline(
            &text,
            MpkKind::SchemaError,
            "schema_error: configPath must name a .json file",
            "pipeline_sequence.pipelines[0].sequence[0].configPath",
            first_after(&text, r#""configPath":"#),
        );
    }
}

/// `etc/<configPath>` must be an extracted JSON file, checked when the package ends, so
/// the file may come after the pipeline and from any archive folder.
#[test]
fn config_path_file_must_be_extracted() {
    let e = reject(&with(remove("etc/0_process_mla.json")));
    // NOTE: this error has no byte offset, though the configPath value has one.
    assert_error(
        &e,
        MpkKind::SchemaError,
        "schema_error: configPath names no JSON file extracted to etc/",
        Location {
            member: Some(PIPELINE_PATH.into()),
            path: Some("pipeline_sequence.pipelines[0].sequence[1].configPath".into()),
            offset: None,
        },
    );
    // Exact case.
    let text = pipeline(&[
        stage_with(preproc_stage(), "configPath", r#""0_Preproc.json""#),
        mla_stage(),
    ]);
    let e = reject(&with(set(PIPELINE_PATH, &text)));
    assert_eq!(
        e.location.path.as_deref(),
        Some("pipeline_sequence.pipelines[0].sequence[0].configPath")
    );
    // Several missing: the first stage in execution order is reported.
    let text = pipeline(&[
        stage_with(preproc_stage(), "sequence_id", "4"),
        stage_with(stage_with(mla_stage(), "sequence_id", "3"), "input", r#""decoder""#),
    ]);
    let e = reject(&with(|f| {
        f[1].1 = text.into_bytes();
        f.retain(|(p, _)| !p.starts_with("etc/0_"));
    }));
    assert_eq!(
        e.location.path.as_deref(),
        Some("pipeline_sequence.pipelines[0].sequence[1].configPath")
    );
    // From another folder, after the pipeline, it is found.
    let p = check(&with(|f| {
        let config = f.remove(2);
        f.push(("configs/0_preproc.json".into(), config.1));
    }))
    .unwrap();
    assert_eq!(p.files[5].dest, "etc/0_preproc.json");
}

// ---------------------------------------------------------------- sink

struct Collect(Vec<(String, Vec<u8>)>);

impl Collect {
    fn dests(&self) -> Vec<&str> {
        self.0.iter().map(|(d, _)| d.as_str()).collect()
    }
}

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

/// The sink receives every file, at its flattened destination, with its bytes, and nothing
/// for directories.
#[test]
fn sink_receives_exactly_the_flattened_destinations() {
    let f = files();
    let t = Tar::new()
        .dir("./")
        .dir("pkg/")
        .file("pkg/model_mpk.json", &f[0].1)
        .file("./pkg/cfg/pipeline_sequence.json", &f[1].1)
        .file("0_preproc.json", &f[2].1)
        .file("etc/0_process_mla.json", &f[3].1)
        .file("pkg/bin/model.so", &f[4].1)
        .dir("models/")
        .file("models/model.elf", &f[5].1)
        .file("models/labels.yaml", b"- cat")
        .finish();
    let mut r = MpkReader::new(MpkLimits::DEFAULT, Registry::DEFAULT, [0, 0]);
    let mut sink = Collect(Vec::new());
    r.feed(&gz(&t), &mut sink).unwrap();
    let p = r.finish().unwrap();
    assert_eq!(
        sink.0,
        [
            ("etc/model_mpk.json".to_string(), f[0].1.clone()),
            ("etc/pipeline_sequence.json".to_string(), f[1].1.clone()),
            ("etc/0_preproc.json".to_string(), f[2].1.clone()),
            ("etc/0_process_mla.json".to_string(), f[3].1.clone()),
            ("lib/model.so".to_string(), f[4].1.clone()),
            ("share/model.elf".to_string(), f[5].1.clone()),
            ("etc/labels.yaml".to_string(), b"- cat".to_vec()),
        ]
    );
    let dests: Vec<&str> = p.files.iter().map(|f| f.dest.as_str()).collect();
    assert_eq!(dests, sink.dests());
    assert_eq!(p.contract_path, "pkg/model_mpk.json");
}

/// A rejected entry reaches the sink not at all; the files before it do.
#[test]
fn sink_gets_nothing_of_a_rejected_entry() {
    let f = files();
    let t = Tar::new()
        .files(&f[..2])
        .file("x/0_process_mla.json", b"{}")
        .files(&f[2..])
        .finish();
    let mut r = MpkReader::new(MpkLimits::DEFAULT, Registry::DEFAULT, [0, 0]);
    let mut sink = Collect(Vec::new());
    let e = match r.feed(&gz(&t), &mut sink) {
        Err(Failure::Rejected(e)) => e,
        other => panic!("{other:?}"),
    };
    assert_error(
        &e,
        MpkKind::InvalidArchive,
        "invalid_archive: x/0_process_mla.json and etc/0_process_mla.json both extract to etc/0_process_mla.json",
        entry_at(
            "etc/0_process_mla.json",
            Tar::new()
                .files(&f[..2])
                .file("x/0_process_mla.json", b"{}")
                .files(&f[2..3])
                .offset(),
        ),
    );
    assert_eq!(
        sink.dests(),
        [
            CONTRACT_PATH,
            PIPELINE_PATH,
            "etc/0_process_mla.json",
            "etc/0_preproc.json"
        ]
    );
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
    let bytes = valid();
    let mut r = MpkReader::new(MpkLimits::DEFAULT, Registry::DEFAULT, [0, 0]);
    assert_eq!(r.feed(&bytes, &mut FailOnData), Err(Failure::Sink("disk full")));
    let again = match r.feed(&bytes, &mut Discard) {
        Err(Failure::Rejected(e)) => e,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        (again.kind, again.message().as_str()),
        (
            MpkKind::InvalidArchive,
            "invalid_archive: reading stopped after the output failed"
        )
    );
    assert_eq!(r.finish().unwrap_err(), again);
}

// ---------------------------------------------------------------- §6.5 room below the destination

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

fn feed_into(bytes: &[u8], sink: &mut Room) -> Result<Package, MpkError> {
    let mut r = MpkReader::new(MpkLimits::DEFAULT, Registry::DEFAULT, [5, 6]);
    match r.feed(bytes, sink) {
        Ok(()) => r.finish(),
        Err(Failure::Rejected(e)) => Err(e),
        Err(Failure::Sink(())) => panic!("sink failed"),
    }
}

#[test]
fn destination_path_longer_than_the_sinks_room_is_size_limit_exceeded_at_its_entry() {
    // The longest destination is `etc/pipeline_sequence.json`, 26 bytes: the second entry.
    let f = files();
    let mut sink = Room(25, Vec::new());
    let e = feed_into(&valid(), &mut sink).unwrap_err();
    assert_error(
        &e,
        MpkKind::SizeLimitExceeded,
        "size_limit_exceeded: destination path of 26 bytes is longer than the 25 bytes the path limit leaves below the destination folder",
        entry_at(PIPELINE_PATH, header_offset(&f, PIPELINE_PATH)),
    );
    // Nothing was begun for it.
    assert_eq!(sink.1, [CONTRACT_PATH]);
    // With room for it, the package passes; a sink without a limit never refuses.
    let mut sink = Room(26, Vec::new());
    feed_into(&valid(), &mut sink).unwrap();
    assert_eq!(sink.1.len(), f.len());
    assert_eq!(Discard.max_path_bytes(), usize::MAX);
}

/// The room is measured on the flattened destination, not on the archive path.
#[test]
fn room_is_measured_on_the_destination() {
    let deep = format!("{}pipeline_sequence.json", "very/deep/folder/".repeat(10));
    let bytes = with(|f| f[1].0 = deep.clone());
    let mut sink = Room(26, Vec::new());
    let p = feed_into(&bytes, &mut sink).unwrap();
    assert_eq!(p.files[1].path, deep);
    assert_eq!(sink.1[1], PIPELINE_PATH);
}

/// §3.3.5: an archive without entries is refused at its end-of-archive marker: the tar half
/// fed the marker alone already fails, so an all-zero package is not read to its end.
#[test]
fn no_entries_refused_at_the_end_marker() {
    let mut half = modelgate_core::mpk::MpkEntries::new(MpkLimits::DEFAULT, Registry::DEFAULT, [1, 2]);
    match half.feed(&END_OF_ARCHIVE, &mut Discard) {
        Err(Failure::Rejected(e)) => {
            assert_eq!(e.message(), "invalid_archive: archive has no entries");
        }
        other => panic!("{other:?}"),
    }
}
