//! `hostile-corpus/mpk/`: MPK packages, each carrying its exact expected outcome, and
//! `fixtures_manifest.json` with the SHA-256 of every file (`spec/mpk.md` §8).
//!
//! Three groups of cases:
//! - the 31 cases of the MPK loader's own fixture generator, rebuilt here the way it builds
//!   them (POSIX ustar headers as Python's `tarfile` writes in PAX format, explicit `etc`,
//!   `lib` and `share` directory entries, entries sorted by name, mtime 0, uid/gid 0, empty
//!   owner names, gzip mtime 0), each named as there, with modelgate's outcome;
//! - realistic packages of the shapes the MPK tools write;
//! - one package per rule of `spec/mpk.md`, from the gzip and tar layers to the contract.
//!
//! Everything is built with the project's tar writer and the deterministic gzip writer, so
//! the folder is reproducible bit for bit.

use crate::pax_record;
use crate::{CorpusFile, Expected};
use modelgate_core::digest::{hex, sha256};
use modelgate_core::gzip::write_gzip;
use modelgate_core::json::Writer;
use modelgate_core::mpk::EV74_KERNELS;
use modelgate_core::mpk::{MpkKind, MpkLimits, Registry, check_extension, check_tar_gz};
use modelgate_core::tar::{END_OF_ARCHIVE, padding};
use modelgate_core::tar::{FileMeta, Flavor, file_header};

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
use MpkKind::{InvalidArchive as IA, PathTraversal as PT, SchemaError as SE, SizeLimitExceeded as SL};

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
/// sorted by name (`spec/mpk.md` §8, `spec/errors.md` §6.2).
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

// ---------------------------------------------------------------- contract and pipeline text

/// An EV74 plugin of the contract.
pub fn ev74(name: &str, sequence: u32, kernel: &str) -> String {
    format!(
        r#"{{"config_params":{{"kernel":"{kernel}","params":{{"input_shapes":[[1,48,64,3]],"output_shapes":[[1,48,64,3]]}}}},"input_nodes":[{{"name":"in_{name}","size":9216}}],"name":"{name}","output_nodes":[{{"name":"{name}","size":9216,"type":"buffer"}}],"processor":"EV74","sequence":{sequence},"type":"sgpProcess"}}"#
    )
}

/// An MLA plugin of the contract, running `executable`.
pub fn mla(name: &str, sequence: u32, executable: &str) -> String {
    format!(
        r#"{{"config_params":{{"actual_batch_size":1,"desired_batch_size":1,"number_of_quads_to_user":4}},"input_nodes":[{{"name":"in_{name}","size":9216}}],"name":"{name}","output_nodes":[{{"name":"{name}","size":1000,"type":"buffer"}}],"processor":"MLA","resources":{{"executable":"{executable}"}},"sequence":{sequence},"type":"sgpProcess"}}"#
    )
}

/// An A65 plugin of the contract, running `kernel` from `executable`.
pub fn a65(name: &str, sequence: u32, kernel: &str, executable: &str) -> String {
    format!(
        r#"{{"config_params":{{"kernel":"{kernel}","params":{{"input_types":[{{"scalar":"float32","shape":[1,1000]}}],"output_types":[{{"scalar":"float32","shape":[1,1000]}}]}}}},"input_nodes":[{{"name":"in_{name}","size":4000}}],"name":"{name}","output_nodes":[{{"name":"{name}","size":4000,"type":"buffer"}}],"processor":"A65","resources":{{"executable":"{executable}"}},"sequence":{sequence},"type":"sgpProcess"}}"#
    )
}

/// A contract of these plugins.
pub fn contract(plugins: &[String]) -> String {
    format!(
        r#"{{"input_nodes":[{{"name":"input","size":9216,"type":"buffer"}}],"model_path":"model.elf","model_sdk_version":"2.0.0","name":"model","plugins":[{}],"sequence":1}}"#,
        plugins.join(",")
    )
}

/// The base package's contract: a preprocessing plugin and the MLA running `model.elf`.
pub fn base_contract() -> String {
    contract(&[ev74("preproc_0", 1, "preproc"), mla("mla_0", 2, "model.elf")])
}

/// One stage of `pipeline_sequence.json`; `input` is JSON text (a string or an array).
pub fn stage(id: i64, name: &str, plugin: &str, config: &str, processor: &str, kernel: &str, input: &str) -> String {
    format!(
        r#"{{"configPath":"{config}","input":{input},"kernel":"{kernel}","name":"{name}","pluginId":"{plugin}","processor":"{processor}","sequence_id":{id}}}"#
    )
}

/// `pipeline_sequence.json` with one pipeline of these stages.
pub fn pipeline(stages: &[String]) -> String {
    format!(r#"{{"pipelines":[{{"sequence":[{}]}}]}}"#, stages.join(","))
}

/// The base package's two stages: `preproc_0` (CVU) and `mla_0`.
pub fn stages() -> Vec<String> {
    vec![
        stage(
            1,
            "preproc_0",
            "processcvu",
            "0_preproc.json",
            "CVU",
            "preproc",
            r#""decoder""#,
        ),
        stage(
            2,
            "mla_0",
            "processmla",
            "0_process_mla.json",
            "MLA",
            "infer",
            r#""preproc_0""#,
        ),
    ]
}

const PREPROC: &str = r#"{"input_height":48,"input_img_type":"RGB","input_width":64,"node_name":"preproc_0","output_height":48,"output_img_type":"RGB","output_width":64}"#;

fn mla_config(node: &str, input: &str) -> String {
    format!(
        r#"{{"data_type":["INT8"],"input_buffers":[{{"name":"{input}"}}],"node_name":"{node}","output_depth":[3],"output_height":[48],"output_width":[64]}}"#
    )
}

const ELF: &[u8] = b"\x7fELF\x02\x01\x01\x00fixture_elf_payload";
const SO: &[u8] = b"\x7fELF\x02\x01\x01\x00fixture_so_payload";

// ---------------------------------------------------------------- packages

/// One tar entry of a package.
#[derive(Clone, Debug)]
enum Item {
    Dir(String),
    File(String, Vec<u8>),
    /// A link of typeflag `.0` named `.1` to `.2`.
    Link(u8, String, String),
}

impl Item {
    fn name(&self) -> &str {
        match self {
            Item::Dir(n) | Item::File(n, _) | Item::Link(_, n, _) => n,
        }
    }

    /// The real generator's sort key: the name without a folder's slash, then the type.
    fn key(&self) -> (String, &'static str) {
        let kind = match self {
            Item::Dir(_) => "dir",
            Item::File(..) => "file",
            Item::Link(b'1', ..) => "hardlink",
            Item::Link(..) => "symlink",
        };
        (self.name().trim_end_matches('/').to_string(), kind)
    }
}

/// A package's entries, written in their order.
#[derive(Clone, Debug)]
struct Pkg(Vec<Item>);

impl Pkg {
    /// The real generator's base package: `etc`, `lib`, `share` folders, the contract, the
    /// pipeline, two stage configs and the two binaries.
    fn base() -> Pkg {
        Pkg(vec![
            Item::Dir("etc/".into()),
            Item::Dir("lib/".into()),
            Item::Dir("share/".into()),
            Item::File("etc/model_mpk.json".into(), base_contract().into()),
            Item::File("etc/pipeline_sequence.json".into(), pipeline(&stages()).into()),
            Item::File("etc/0_preproc.json".into(), PREPROC.into()),
            Item::File("etc/0_process_mla.json".into(), mla_config("mla_0", "preproc_0").into()),
            Item::File("share/model.elf".into(), ELF.into()),
            Item::File("lib/model.so".into(), SO.into()),
        ])
    }

    /// Sets the data of file `name`, adding it when absent.
    fn put(mut self, name: &str, data: impl Into<Vec<u8>>) -> Pkg {
        let data = data.into();
        match self.0.iter_mut().find(|i| i.name() == name) {
            Some(Item::File(_, d)) => *d = data,
            _ => self.0.push(Item::File(name.into(), data)),
        }
        self
    }

    /// Adds file `name` even when one of that name exists (a duplicate entry).
    fn add(mut self, name: &str, data: impl Into<Vec<u8>>) -> Pkg {
        self.0.push(Item::File(name.into(), data.into()));
        self
    }

    fn item(mut self, item: Item) -> Pkg {
        self.0.push(item);
        self
    }

    fn remove(mut self, name: &str) -> Pkg {
        self.0.retain(|i| i.name() != name);
        self
    }

    /// Entries in the real generator's order: by name, then type.
    fn sorted(mut self) -> Pkg {
        self.0.sort_by_key(Item::key);
        self
    }

    /// The tar without its end marker, as Python's `tarfile` writes it in PAX format:
    /// ustar headers, and a PAX header for a name that is not ASCII or is too long.
    fn body(&self) -> Vec<u8> {
        self.0.iter().flat_map(ustar).collect()
    }

    fn tar(&self) -> Vec<u8> {
        finish(self.body())
    }

    /// The real generator's package: sorted, ustar, gzip.
    fn gz(&self) -> Vec<u8> {
        gz(&self.clone().sorted().tar())
    }
}

const META: FileMeta = FileMeta {
    mode: 0o644,
    mtime: 0,
    uid: 0,
    gid: 0,
};

/// Recomputes a header block's checksum.
fn fix(h: &mut [u8]) {
    h[148..156].copy_from_slice(b"        ");
    let sum: u32 = h[..512].iter().map(|&x| u32::from(x)).sum();
    h[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
}

/// A ustar header block for `name` (cut to 100 bytes) of typeflag `flag` declaring `size`.
fn header(flag: u8, name: &[u8], size: u64, mode: u32, flavor: Flavor) -> Vec<u8> {
    let meta = FileMeta { mode, ..META };
    let mut h = file_header(b"x", size, &meta, flavor).unwrap_or_default();
    h[..100].fill(0);
    let n = name.len().min(100);
    h[..n].copy_from_slice(&name[..n]);
    h[156] = flag;
    fix(&mut h);
    h
}

/// One item as Python's `tarfile` writes it in PAX format.
fn ustar(item: &Item) -> Vec<u8> {
    let (flag, name, data, link, mode): (u8, &str, &[u8], &str, u32) = match item {
        Item::Dir(n) => (b'5', n, &[], "", 0o755),
        Item::File(n, d) => (b'0', n, d, "", 0o644),
        Item::Link(f, n, l) => (*f, n, &[], l, 0o644),
    };
    let mut out = Vec::new();
    let plain = name.is_ascii() && name.len() <= 100;
    if !plain {
        out.extend(pax(&pax_record("path", name.as_bytes())));
    }
    let shown: String = name.chars().map(|c| if c.is_ascii() { c } else { '?' }).collect();
    let mut h = header(flag, shown.as_bytes(), data.len() as u64, mode, Flavor::Ustar);
    h[157..157 + link.len()].copy_from_slice(link.as_bytes());
    fix(&mut h);
    out.extend(h);
    out.extend_from_slice(data);
    out.extend_from_slice(padding(data.len() as u64));
    out
}

fn finish(mut body: Vec<u8>) -> Vec<u8> {
    body.extend_from_slice(&END_OF_ARCHIVE);
    body
}

fn gz(tar: &[u8]) -> Vec<u8> {
    write_gzip(tar, usize::MAX).unwrap_or_default()
}

/// A raw entry: a ustar header of typeflag `flag` declaring `size`, then `data` and its
/// padding.
fn raw_entry(flag: u8, name: &[u8], size: u64, data: &[u8]) -> Vec<u8> {
    let mut h = header(flag, name, size, 0o644, Flavor::Ustar);
    h.extend_from_slice(data);
    h.extend_from_slice(padding(data.len() as u64));
    h
}

fn entry(flag: u8, name: &str, data: &[u8]) -> Vec<u8> {
    raw_entry(flag, name.as_bytes(), data.len() as u64, data)
}

fn pax(records: &[u8]) -> Vec<u8> {
    entry(b'x', "././@PaxHeader", records)
}

fn long_name(name: &[u8]) -> Vec<u8> {
    let mut d = name.to_vec();
    d.push(0);
    let mut h = header(b'L', b"././@LongLink", d.len() as u64, 0o644, Flavor::Gnu);
    h.extend_from_slice(&d);
    h.extend_from_slice(padding(d.len() as u64));
    h
}

/// The base package's tar (in the generator's order) with `extra` tar bytes before the end
/// marker.
fn base_then(extra: &[u8]) -> Vec<u8> {
    let mut t = Pkg::base().sorted().body();
    t.extend_from_slice(extra);
    gz(&finish(t))
}

/// The base package's tar with `edit` applied to its bytes (not re-gzipped).
fn tar_edit(edit: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut t = Pkg::base().sorted().tar();
    edit(&mut t);
    gz(&t)
}

/// The base package's gzip file with `edit` applied to its bytes.
fn gz_edit(edit: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut g = Pkg::base().gz();
    edit(&mut g);
    g
}

fn with(name: &str, data: &str) -> Vec<u8> {
    Pkg::base().put(name, data).gz()
}

fn file_named(name: &str) -> Vec<u8> {
    Pkg::base().add(name, "{}").gz()
}

fn with_contract(text: &str) -> Vec<u8> {
    with("etc/model_mpk.json", text)
}

fn with_plugins(plugins: &[String]) -> Vec<u8> {
    with_contract(&contract(plugins))
}

/// The base contract with its plugin `i` edited.
fn with_plugin(i: usize, edit: impl FnOnce(String) -> String) -> Vec<u8> {
    let mut p = vec![ev74("preproc_0", 1, "preproc"), mla("mla_0", 2, "model.elf")];
    p[i] = edit(p[i].clone());
    with_plugins(&p)
}

fn with_pipeline(stages: &[String]) -> Vec<u8> {
    with("etc/pipeline_sequence.json", &pipeline(stages))
}

fn with_stage(i: usize, s: String) -> Vec<u8> {
    let mut st = stages();
    st[i] = s;
    with_pipeline(&st)
}

fn pre(input: &str) -> String {
    stage(1, "preproc_0", "processcvu", "0_preproc.json", "CVU", "preproc", input)
}

fn deep_json(depth: usize) -> String {
    "[".repeat(depth) + &"]".repeat(depth)
}

// ---------------------------------------------------------------- the loader's own cases

/// The real generator's multi-stage package: two MLA stages after the preprocessing.
fn multi_stage() -> Vec<u8> {
    let st = vec![
        stages()[0].clone(),
        stage(
            2,
            "mla_stage_a",
            "processmla",
            "0_process_mla_a.json",
            "MLA",
            "infer",
            r#""preproc_0""#,
        ),
        stage(
            3,
            "mla_stage_b",
            "processmla",
            "0_process_mla_b.json",
            "MLA",
            "infer",
            r#""mla_stage_a""#,
        ),
    ];
    let plugins = [
        ev74("preproc_0", 1, "preproc"),
        mla("mla_stage_a", 2, "model.elf"),
        mla("mla_stage_b", 3, "model.elf"),
    ];
    Pkg::base()
        .remove("etc/0_process_mla.json")
        .put("etc/pipeline_sequence.json", pipeline(&st))
        .put("etc/model_mpk.json", contract(&plugins))
        .put("etc/0_process_mla_a.json", mla_config("mla_stage_a", "preproc_0"))
        .put("etc/0_process_mla_b.json", mla_config("mla_stage_b", "mla_stage_a"))
        .gz()
}

/// The base package's tar delivered as two gzip members, split in its middle.
fn two_members() -> Vec<u8> {
    let t = Pkg::base().sorted().tar();
    let (a, b) = t.split_at(t.len() / 2);
    [gz(a), gz(b)].concat()
}

/// Zero padding after the first member, then the second member: padding ends the stream.
fn zero_then_member() -> Vec<u8> {
    let t = Pkg::base().sorted().tar();
    let (a, b) = t.split_at(t.len() / 2);
    [gz(a), vec![0u8; 512], gz(b)].concat()
}

/// The first header (the `etc` folder) renamed to invalid UTF-8.
fn non_utf8_first_header() -> Vec<u8> {
    tar_edit(|t| {
        let name = b"etc/\xffbad_name.json";
        t[..100].fill(0);
        t[..name.len()].copy_from_slice(name);
        fix(&mut t[..512]);
    })
}

fn half_of_base() -> Vec<u8> {
    let g = Pkg::base().gz();
    g[..(g.len() / 2).max(32)].to_vec()
}

/// A JSON file one byte over `max_total_json_bytes` (the loader's fixture is a 2 MiB entry
/// checked under a lowered limit; under the default limits this is its equivalent).
fn json_over_total_limit() -> Vec<u8> {
    let blob = vec![b'A'; (32 << 20) + 1];
    Pkg::base().add("etc/huge_blob.json", blob).gz()
}

/// A contract nested 256 deep.
fn deep_contract() -> String {
    let mut doc = String::from(r#"{"leaf":true}"#);
    for _ in 0..256 {
        doc = format!(r#"{{"n":{doc}}}"#);
    }
    doc
}

// ---------------------------------------------------------------- realistic packages

/// A classifier as the model zoo ships it (`resnet_50_mpk.json`): quantize and tessellate,
/// the MLA, detessellate and dequantize, then `batch_flatten_transform`; the legacy CVU
/// pipeline beside it.
fn classifier() -> Vec<u8> {
    let plugins = [
        ev74("quantize_0", 1, "quantization_transform"),
        ev74("tessellate_0", 2, "tessellation_transform"),
        mla("MLA_0", 3, "resnet_50_stage1_mla.elf"),
        ev74("detessellate_0", 4, "detessellation_transform"),
        ev74("dequantize_0", 5, "dequantization_transform"),
        ev74("batch_flatten_0", 6, "batch_flatten_transform"),
    ];
    let st = [
        stage(
            1,
            "quanttess_0",
            "processcvu",
            "0_quanttess.json",
            "CVU",
            "quanttess",
            r#""decoder""#,
        ),
        stage(
            2,
            "mla_0",
            "processmla",
            "0_process_mla.json",
            "MLA",
            "infer",
            r#""quanttess_0""#,
        ),
        stage(
            3,
            "detessdequant_0",
            "processcvu",
            "0_postproc.json",
            "CVU",
            "detessdequant",
            r#""mla_0""#,
        ),
    ];
    Pkg(vec![
        Item::Dir("etc/".into()),
        Item::Dir("share/".into()),
        Item::File(
            "etc/resnet_50_mpk.json".into(),
            contract(&plugins).replace("\"model\"", "\"resnet_50\"").into(),
        ),
        Item::File("etc/pipeline_sequence.json".into(), pipeline(&st).into()),
        Item::File(
            "etc/0_quanttess.json".into(),
            br#"{"node_name":"quanttess_0","q_scale":0.0078125,"q_zp":0}"#.to_vec(),
        ),
        Item::File(
            "etc/0_process_mla.json".into(),
            mla_config("mla_0", "quanttess_0").into(),
        ),
        Item::File(
            "etc/0_postproc.json".into(),
            br#"{"node_name":"detessdequant_0","output_dtype":"float32"}"#.to_vec(),
        ),
        Item::File("share/resnet_50_stage1_mla.elf".into(), ELF.into()),
    ])
    .gz()
}

/// A detector (`yolo_v8s_mpk.json`): the MLA's packed output unpacked by
/// `unpack_transform`, two dequantizations, box decoding on the A65 from `lib/`.
fn detector() -> Vec<u8> {
    let plugins = [
        ev74("preproc_0", 1, "preproc"),
        mla("MLA_0", 2, "yolo_v8s_stage1_mla.elf"),
        ev74("MLA_0_ofm_unpack_transform", 3, "unpack_transform"),
        ev74("dequantize_0", 4, "dequantization_transform"),
        ev74("dequantize_1", 5, "dequantization_transform"),
        a65("boxdecode_0", 6, "boxdecode", "libboxdecode.so"),
    ];
    let st = [
        stage(
            1,
            "preproc_0",
            "processcvu",
            "0_preproc.json",
            "CVU",
            "preproc",
            r#""decoder""#,
        ),
        stage(
            2,
            "mla_0",
            "processmla",
            "0_process_mla.json",
            "MLA",
            "infer",
            r#""preproc_0""#,
        ),
        stage(
            3,
            "boxdecode_0",
            "processcvu",
            "0_boxdecoder.json",
            "CVU",
            "boxdecode",
            r#"["mla_0"]"#,
        ),
    ];
    Pkg(vec![
        Item::Dir("etc/".into()),
        Item::Dir("lib/".into()),
        Item::Dir("share/".into()),
        Item::File(
            "etc/yolo_v8s_mpk.json".into(),
            contract(&plugins).replace("\"model\"", "\"yolo_v8s\"").into(),
        ),
        Item::File("etc/pipeline_sequence.json".into(), pipeline(&st).into()),
        Item::File("etc/0_preproc.json".into(), PREPROC.into()),
        Item::File("etc/0_process_mla.json".into(), mla_config("mla_0", "preproc_0").into()),
        Item::File(
            "etc/0_boxdecoder.json".into(),
            br#"{"decode_type":"yolo","node_name":"boxdecode_0","topk":100}"#.to_vec(),
        ),
        Item::File("lib/libboxdecode.so".into(), SO.into()),
        Item::File("share/yolo_v8s_stage1_mla.elf".into(), ELF.into()),
    ])
    .gz()
}

/// Two inputs, each cast and packed by `pack_transform` into the MLA; made as
/// `tar -czf X -C root .` makes it (GNU headers, a `./` folder entry and `./` prefixes),
/// with the model's YAML configuration beside the JSON.
fn two_inputs_packed() -> Vec<u8> {
    let plugins = [
        ev74("cast_0", 1, "cast_transform"),
        ev74("cast_1", 2, "cast_transform"),
        ev74("pack_0", 3, "pack_transform"),
        mla("MLA_0", 4, "stereo_mla.elf"),
    ];
    let items = [
        Item::Dir("./".into()),
        Item::Dir("./etc/".into()),
        Item::File(
            "./etc/model_config.yaml".into(),
            b"inputs:\n  - image_l\n  - image_uv\n".to_vec(),
        ),
        Item::File("./etc/stereo_mpk.json".into(), contract(&plugins).into_bytes()),
        Item::Dir("./share/".into()),
        Item::File("./share/stereo_mla.elf".into(), ELF.into()),
    ];
    let mut t = Vec::new();
    for item in &items {
        let (flag, name, data, mode): (u8, &str, &[u8], u32) = match item {
            Item::Dir(n) => (b'5', n, &[], 0o755),
            Item::File(n, d) => (b'0', n, d, 0o644),
            Item::Link(..) => continue,
        };
        t.extend(header(flag, name.as_bytes(), data.len() as u64, mode, Flavor::Gnu));
        t.extend_from_slice(data);
        t.extend_from_slice(padding(data.len() as u64));
    }
    gz(&finish(t))
}

/// MLA → A65 (TVM) → MLA, the second MLA's executable a `.so` found in `lib/`.
fn mla_a65_mla() -> Vec<u8> {
    let plugins = [
        mla("MLA_0", 1, "stage0.elf"),
        a65("APU_1", 2, "processtvm", "libtvm_stage1.so"),
        mla("MLA_2", 3, "stage2_mla.so"),
    ];
    Pkg(vec![
        Item::Dir("etc/".into()),
        Item::Dir("lib/".into()),
        Item::Dir("share/".into()),
        Item::File("etc/split_mpk.json".into(), contract(&plugins).into()),
        Item::File("lib/libtvm_stage1.so".into(), SO.into()),
        Item::File("lib/stage2_mla.so".into(), SO.into()),
        Item::File("share/stage0.elf".into(), ELF.into()),
    ])
    .gz()
}

/// A legacy package: contract plugins without `type`, executables named for device
/// kernels that are not package files, the CVU pipeline with an array of inputs, and the
/// files at the archive's root (extracted to their class folders all the same).
fn legacy_cvu() -> Vec<u8> {
    let plugins = [
        ev74("quantize_0", 1, "quantization_transform")
            .replace(r#","type":"sgpProcess""#, "")
            .replacen('{', r#"{"resources":{"executable":"kernel_name_tbd"},"#, 1),
        mla("mla_0", 2, "legacy.elf").replace(r#","type":"sgpProcess""#, ""),
        ev74("dequantize_0", 3, "dequantization_transform").replace(r#","type":"sgpProcess""#, ""),
    ];
    let st = [
        stage(
            1,
            "quant_0",
            "processcvu",
            "0_quant.json",
            "CVU",
            "quant",
            r#""decoder""#,
        ),
        stage(
            1,
            "tess_0",
            "processcvu",
            "0_tess.json",
            "CVU",
            "tess",
            r#"["quant_0"]"#,
        ),
        stage(
            2,
            "mla_0",
            "processmla",
            "0_process_mla.json",
            "MLA",
            "mla",
            r#"["tess_0"]"#,
        ),
        stage(
            3,
            "detess_0",
            "processcvu",
            "0_detess.json",
            "CVU",
            "detessellate",
            r#"["mla_0"]"#,
        ),
        stage(
            4,
            "dequant_0",
            "processcvu",
            "0_dequant.json",
            "CVU",
            "dequantize",
            r#"["detess_0","decoder"]"#,
        ),
    ];
    let mut p = Pkg(vec![
        Item::File("legacy_mpk.json".into(), contract(&plugins).into()),
        Item::File("pipeline_sequence.json".into(), pipeline(&st).into()),
        Item::File("legacy.elf".into(), ELF.into()),
    ]);
    for name in [
        "0_quant.json",
        "0_tess.json",
        "0_process_mla.json",
        "0_detess.json",
        "0_dequant.json",
    ] {
        p = p.put(name, "{}");
    }
    p.gz()
}

// ---------------------------------------------------------------- limits

fn many_entries() -> Vec<u8> {
    let dirs: Vec<u8> = (0..2045).flat_map(|i| entry(b'5', &format!("d{i}/"), b"")).collect();
    base_then(&dirs)
}

fn many_stages() -> Vec<u8> {
    let mut st = stages();
    for i in 0..1030 {
        st.push(stage(
            100 + i,
            &format!("s{i}"),
            "processcvu",
            "0_preproc.json",
            "CVU",
            "cast",
            r#""decoder""#,
        ));
    }
    with_pipeline(&st)
}

fn many_plugins() -> Vec<u8> {
    let mut p = vec![mla("mla_0", 1, "model.elf")];
    p.extend((2..=1025).map(|i| ev74(&format!("p{i}"), i, "cast")));
    with_plugins(&p)
}

/// §3.5.2 fails at the last of 50,001 inputs: every stage is checked, then the order, over
/// the pipeline's tokens (§3.3.1), which hold nothing per input. Kept small for the fuzzers
/// that start from the corpus; `std-io/tests/json_memory.rs` measures 2 M.
fn many_inputs() -> Vec<u8> {
    let mut inputs = vec!["\"preproc_0\""; 50_000];
    inputs.push("\"mla_0\"");
    let input = format!("[{}]", inputs.join(","));
    with_stage(
        1,
        stage(2, "mla_0", "processmla", "0_process_mla.json", "MLA", "infer", &input),
    )
}

/// Two JSON files of 1 MiB and 31 MiB (and a byte each): each under
/// `max_total_json_bytes`, together over it, which the second file's header shows before
/// its data is read.
fn two_json_files_over_limit() -> Vec<u8> {
    // `[0,…,0]` of `n` elements: 2n + 1 bytes.
    let zeros = |n: usize| format!("[{}]", vec!["0"; n].join(","));
    let (small, big) = (zeros(1 << 19), zeros(31 << 19));
    Pkg::base().add("etc/a.json", small).add("etc/b.json", big).gz()
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

    // The MPK loader's own 31 fixture cases (its tests/tools/make_model_archive_fixtures.py),
    // rebuilt the same way with a contract that has plugins (its placeholder `{"plugins":[]}`
    // is contract_plugins_empty below). Differences from the loader: spec/mpk.md §10.
    basic_valid: Pkg::base().gz() => Valid;
    multi_stage_valid: multi_stage() => Valid;
    missing_pipeline_sequence: Pkg::base().remove("etc/pipeline_sequence.json").gz() => Valid;
    unsupported_auxiliary_version: Pkg::base().put("etc/manifest.json", r#"{"name":"unsupported","version":999}"#).gz() => Valid;
    multi_member_valid: two_members() => Valid;
    zero_padded_valid: [Pkg::base().gz(), vec![0u8; 512]].concat() => Valid;
    destination_collision: Pkg::base().add("a/collide.json", "{}").add("b/collide.json", "{}").gz() => Reject(IA, "a/collide.json and b/collide.json both extract to etc/collide.json (member b/collide.json");
    malformed_auxiliary_json: with("etc/pipeline_sequence.json", "{ invalid_json ") => Reject(SE, "invalid JSON: unexpected byte, expected an object member name (member etc/pipeline_sequence.json, byte 2)");
    missing_mpk: Pkg::base().remove("etc/model_mpk.json").gz() => Reject(SE, "package has no mpk.json or *_mpk.json");
    path_traversal: file_named("C:owned.json") => Reject(PT, "path has a drive prefix (path byte 1) (member C:owned.json");
    absolute_path: file_named("/tmp/owned.json") => Reject(PT, "path is absolute (path byte 0) (member /tmp/owned.json");
    mixed_separator_traversal: file_named("..\\evil.json") => Reject(PT, "path holds a backslash");
    symlink_escape: Pkg::base().item(Item::Link(b'2', "etc/link_escape".into(), "../../etc/passwd".into())).gz() => Reject(PT, "symbolic link entries are not allowed (member etc/link_escape");
    hardlink_escape: Pkg::base().item(Item::Link(b'1', "etc/hard_escape".into(), "../../etc/passwd".into())).gz() => Reject(PT, "hard link entries are not allowed (member etc/hard_escape");
    oversized_entry: json_over_total_limit() => Reject(SL, "JSON files larger than max_total_json_bytes together (member etc/huge_blob.json");
    unicode_traversal_fullwidth_slash: file_named("etc/..\u{FF0F}evil.json") => Reject(PT, "path holds a Unicode slash or backslash look-alike (path byte 6)");
    unicode_traversal_division_slash: file_named("etc/..\u{2215}evil.json") => Reject(PT, "path holds a Unicode slash or backslash look-alike (path byte 6)");
    unicode_traversal_fullwidth_backslash: file_named("etc/..\u{FF3C}evil.json") => Reject(PT, "path holds a Unicode slash or backslash look-alike (path byte 6)");
    unicode_confusable_dotdot: file_named("etc/\u{FF0E}\u{FF0E}/evil.json") => Reject(PT, "path holds a Unicode dot look-alike (U+FF0E, U+2024 or U+FE52) (path byte 4)");
    duplicate_header_same_path: Pkg::base().add("etc/dup_header.json", r#"{"version":1}"#).add("etc/dup_header.json", r#"{"version":2}"#).gz() => Reject(IA, "duplicate normalized path (member etc/dup_header.json");
    duplicate_header_safe_then_traversal: Pkg::base().add("etc/dup_mask.json", r#"{"safe":true}"#).add("./etc/dup_mask.json", r#"{"safe":false}"#).gz() => Reject(IA, "duplicate normalized path (member etc/dup_mask.json");
    json_deep_nesting_256: with_contract(&deep_contract()) => Reject(SE, "nesting depth limit exceeded (member etc/model_mpk.json");
    json_duplicate_keys_top: with_contract(r#"{"plugins":[],"plugins":[]}"#) => Reject(SE, "duplicate object member name (member etc/model_mpk.json, byte 14)");
    json_duplicate_keys_nested: with_contract(r#"{"plugins":[{"name":"a","name":"b"}]}"#) => Reject(SE, "duplicate object member name (member etc/model_mpk.json, byte 24)");
    truncated_archive: half_of_base() => Reject(IA, "gzip: gzip input is truncated");
    non_utf8_path_bytes: non_utf8_first_header() => Reject(IA, "path is not valid UTF-8 (path byte 4)");
    checksum_corrupt_header: tar_edit(|t| t[148..156].copy_from_slice(b"000000\0 ")) => Reject(IA, "tar header checksum mismatch");
    checksum_corrupt_body: gz_edit(|g| { let n = g.len(); g[n - 8] ^= 0xff; }) => Reject(IA, "gzip: member CRC-32 mismatch");
    trailing_garbage: [Pkg::base().gz(), b"trailing garbage".to_vec()].concat() => Reject(IA, "gzip: trailing data after the last member");
    zero_between_members: zero_then_member() => Reject(IA, "gzip: trailing data after the last member");
    empty_archive: Vec::new() => Reject(IA, "gzip: no gzip member");

    // Realistic packages, as the MPK tools lay them out.
    resnet_classifier_batch_flatten: classifier() => Valid;
    yolo_detector_unpack_two_dequantizations: detector() => Valid;
    two_inputs_packed_gnu_tar_dot_slash_yaml: two_inputs_packed() => Valid;
    mla_a65_mla_so_executable: mla_a65_mla() => Valid;
    legacy_cvu_pipeline_at_root: legacy_cvu() => Valid;

    // Made by other tools (tools/mpk-fixtures.sh, from basic_valid's files): GNU tar's gnu
    // format with `./` and a long name, its posix format with PAX headers, Python's tarfile.
    gnu_tar_gnu_format: include_bytes!("../fixtures/mpk/gnu-tar-dot.tar.gz").to_vec() => Valid;
    gnu_tar_posix_format: include_bytes!("../fixtures/mpk/gnu-tar-posix.tar.gz").to_vec() => Valid;
    python_tarfile_pax: include_bytes!("../fixtures/mpk/python-tarfile-pax.tar.gz").to_vec() => Valid;

    // Other accepted forms.
    gnu_long_names: Pkg::base().add(&("configs/".repeat(14) + "deep.json"), "{}").gz() => Valid;
    pax_long_path: base_then(&[pax(&pax_record("path", ("deep/".repeat(25) + "extra.json").as_bytes())), entry(b'0', "extra.json", b"{}")].concat()) => Valid;
    path_255_segments: base_then(&[long_name(("d/".repeat(254) + "x.json").as_bytes()), entry(b'0', "harmless.json", b"{}")].concat()) => Valid;
    pax_size_disagrees_with_header: base_then(&[pax(&pax_record("size", b"1024")), raw_entry(b'0', b"lib/blob.so", 0, &[entry(b'0', "../../evil.json", b""), vec![0u8; 512]].concat())].concat()) => Valid;
    pax_times_fractions_and_ids: base_then(&[pax(&[pax_record("mtime", b"1700000000.123456789"), pax_record("atime", b"-1.5"), pax_record("ctime", b"0"), pax_record("uid", b"1000"), pax_record("gid", b"0"), pax_record("uname", b"builder"), pax_record("gname", b"")].concat()), entry(b'0', "x.json", b"{}")].concat()) => Valid;
    tar_record_padding: gz(&[Pkg::base().sorted().tar(), vec![0u8; 10240 - 1024]].concat()) => Valid;
    global_pax_comment: gz(&finish([entry(b'g', "pax_global_header", &pax_record("comment", b"4b825dc642cb6eb9a060e54bf8d69288fbee4904")), Pkg::base().sorted().body()].concat())) => Valid;
    base256_size: base_then(&{ let mut e = raw_entry(b'0', b"lib/b256.so", 0, b"abc"); e[124..136].copy_from_slice(&[0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3]); fix(&mut e[..512]); e }) => Valid;
    root_directory_entry: gz(&[entry(b'5', "./", b""), Pkg::base().sorted().tar()].concat()) => Valid;
    contract_named_mpk_json: Pkg::base().remove("etc/model_mpk.json").put("etc/mpk.json", base_contract()).gz() => Valid;
    contract_in_other_folder: Pkg::base().remove("etc/model_mpk.json").put("models/resnet/model_mpk.json", base_contract()).gz() => Valid;
    yaml_and_yml: Pkg::base().put("etc/model.yaml", "a: 1\n").put("configs/extra.yml", "b: [2]\n").gz() => Valid;
    no_pipeline_and_no_so: Pkg::base().remove("etc/pipeline_sequence.json").remove("lib/model.so").remove("lib/").gz() => Valid;
    input_array_and_stable_order: with_pipeline(&[stage(2, "mla_0", "processmla", "0_process_mla.json", "MLA", "infer", r#"["preproc_0","pre_b","decoder"]"#), pre(r#""decoder""#), stage(1, "pre_b", "processcvu", "0_preproc.json", "CVU", "cast", r#"["preproc_0"]"#)]) => Valid;
    all_ev74_kernels: with_plugins(&std::iter::once(mla("mla_0", 1, "model.elf")).chain(EV74_KERNELS.iter().enumerate().map(|(i, k)| ev74(&format!("e{i}"), i as u32 + 2, k))).collect::<Vec<_>>()) => Valid;
    a65_executable_in_share: Pkg::base().put("etc/model_mpk.json", contract(&[mla("mla_0", 1, "model.elf"), a65("post", 2, "slice", "post.elf")])).put("share/post.elf", ELF).gz() => Valid;
    executable_with_folder: with_plugin(1, |p| p.replace("\"model.elf\"", "\"share/model.elf\"")) => Valid;
    unknown_members_everywhere: with_plugin(1, |p| p.replacen('{', r#"{"vendor":{"x":[1]},"#, 1).replace("\"config_params\":{", "\"config_params\":{\"extra\":null,")) => Valid;

    // §3.0 the extension rule, before any byte is read.
    extension_tgz."tgz": Pkg::base().gz() => Reject(IA, "must end in .tar.gz");
    extension_mpk."mpk": Pkg::base().gz() => Reject(IA, "must end in .tar.gz");

    // gzip layer (spec/inflate.md §5).
    gzip_bad_magic: gz_edit(|g| g[0] = 0x1e) => Reject(IA, "gzip: not a gzip member");
    gzip_isize_mismatch: gz_edit(|g| { let n = g.len(); g[n - 1] ^= 1; }) => Reject(IA, "gzip: member size mismatch");
    // Found by the mpk fuzz target: output inflated before a deflate error
    // in the same call reaches the tar layer first, so the first error is the same whole
    // or in pieces (spec/inflate.md §2.8).
    tar_error_before_deflate_error: tar_header_then_bad_block() => Reject(IA, "checksum mismatch");

    // §1 tar layer.
    tar_bad_magic: tar_edit(|t| { t[257] = b'X'; fix(&mut t[..512]); }) => Reject(IA, "neither ustar nor GNU magic");
    tar_bad_octal_size: tar_edit(|t| { t[512 + 130] = b'9'; fix(&mut t[512..1024]); }) => Reject(IA, "field size is not a valid number (byte 636)");
    tar_negative_base256_size: tar_edit(|t| { t[1536 + 124..1536 + 136].fill(0xff); fix(&mut t[1536..2048]); }) => Reject(IA, "field size is negative");
    tar_file_named_as_folder: base_then(&raw_entry(0, b"hidden.so/", 1024, &[entry(b'0', "evil.json", b"{}"), vec![0u8; 1024]].concat()[..1024])) => Reject(IA, "regular tar entry named like a folder");
    tar_gnu_prefix_area: base_then(&{ let mut h = header(b'0', b"lib/extra.so", 1, 0o644, Flavor::Gnu); h[345..351].copy_from_slice(b"sneaky"); fix(&mut h); h.push(b'x'); h.extend_from_slice(padding(1)); h }) => Reject(IA, "GNU tar header has a non-empty prefix area");
    tar_base256_checksum: tar_edit(|t| { let h = &mut t[..512]; let sum: u64 = h.iter().enumerate().map(|(i, &b)| if (148..156).contains(&i) { 32 } else { u64::from(b) }).sum(); h[148] = 0x80; h[149..156].copy_from_slice(&sum.to_be_bytes()[1..]); }) => Reject(IA, "field chksum is not a valid number");
    tar_name_hidden_bytes: tar_edit(|t| { t[60] = b'x'; fix(&mut t[..512]); }) => Reject(IA, "field name has bytes after its terminator");
    tar_missing_end: gz(&Pkg::base().sorted().body()) => Reject(IA, "no end-of-archive marker");
    tar_single_zero_block: gz(&[Pkg::base().sorted().body(), vec![0u8; 512]].concat()) => Reject(IA, "no end-of-archive marker");
    tar_lone_zero_block: base_then(&[vec![0u8; 512], entry(b'0', "late.json", b"{}")].concat()) => Reject(IA, "single zero block");
    tar_trailing_data: gz(&[Pkg::base().sorted().tar(), entry(b'0', "hidden.json", b"{}")].concat()) => Reject(IA, "data after the end-of-archive marker");
    tar_truncated_header: gz(&Pkg::base().sorted().body()[..1536 + 100]) => Reject(IA, "tar stream is truncated (byte 1636)");
    tar_truncated_data: gz(&Pkg::base().sorted().body()[..2048 + 5]) => Reject(IA, "tar stream is truncated (member etc/0_process_mla.json, byte 2053)");
    tar_truncated_padding: gz(&Pkg::base().sorted().body()[..2048 + 300]) => Reject(IA, "tar stream is truncated (member etc/0_process_mla.json, byte 2348)");
    tar_truncated_long_name: gz(&[Pkg::base().sorted().body(), long_name(&[b'n'; 300])[..700].to_vec()].concat()) => Reject(IA, "tar stream is truncated");
    tar_truncated_end_marker: gz(&[Pkg::base().sorted().body(), vec![0u8; 700]].concat()) => Reject(IA, "tar stream is truncated");
    tar_truncated_pax: gz(&[Pkg::base().sorted().body(), pax(&pax_record("path", b"x.json"))[..600].to_vec()].concat()) => Reject(IA, "tar stream is truncated");
    tar_gnu_sparse: base_then(&entry(b'S', "sparse.so", b"")) => Reject(IA, "sparse");
    tar_pax_sparse: base_then(&[pax(&pax_record("GNU.sparse.map", b"0,10")), entry(b'0', "s.so", b"")].concat()) => Reject(IA, "sparse");
    tar_pax_bad_length: base_then(&[pax(b"99 path=x.json\n"), entry(b'0', "x.json", b"{}")].concat()) => Reject(IA, "malformed PAX");
    tar_pax_bad_size_value: base_then(&[pax(&pax_record("size", b"-1")), entry(b'0', "x.so", b"")].concat()) => Reject(IA, "PAX record size is not a strict decimal number");
    tar_pax_nul_in_path: base_then(&[pax(&pax_record("path", b"a\0b.json")), entry(b'0', "x.json", b"{}")].concat()) => Reject(IA, "PAX record path holds a NUL byte");
    tar_pax_nul_in_linkpath: base_then(&[pax(&pax_record("linkpath", b"x\0/etc/passwd")), entry(b'0', "x.json", b"{}")].concat()) => Reject(IA, "PAX record linkpath holds a NUL byte");
    tar_pax_nul_in_uname: base_then(&[pax(&pax_record("uname", b"root\0x")), entry(b'0', "x.json", b"{}")].concat()) => Reject(IA, "PAX record uname holds a NUL byte");
    tar_pax_nul_in_gname: base_then(&[pax(&pax_record("gname", b"\0")), entry(b'0', "x.json", b"{}")].concat()) => Reject(IA, "PAX record gname holds a NUL byte");
    tar_pax_mtime_exponent: base_then(&[pax(&pax_record("mtime", b"1.7e9")), entry(b'0', "x.json", b"{}")].concat()) => Reject(IA, "PAX record mtime is not a strict decimal number");
    tar_pax_mtime_plus_sign: base_then(&[pax(&pax_record("mtime", b"+1700000000")), entry(b'0', "x.json", b"{}")].concat()) => Reject(IA, "PAX record mtime is not a strict decimal number");
    tar_pax_atime_empty_fraction: base_then(&[pax(&pax_record("atime", b"1700000000.")), entry(b'0', "x.json", b"{}")].concat()) => Reject(IA, "PAX record atime is not a strict decimal number");
    tar_pax_ctime_nan: base_then(&[pax(&pax_record("ctime", b"nan")), entry(b'0', "x.json", b"{}")].concat()) => Reject(IA, "PAX record ctime is not a strict decimal number");
    tar_pax_uid_negative: base_then(&[pax(&pax_record("uid", b"-1")), entry(b'0', "x.json", b"{}")].concat()) => Reject(IA, "PAX record uid is not a strict decimal number");
    tar_pax_gid_over_63_bits: base_then(&[pax(&pax_record("gid", b"9223372036854775808")), entry(b'0', "x.json", b"{}")].concat()) => Reject(IA, "PAX record gid is not a strict decimal number");
    tar_solaris_extended_header: base_then(&[entry(b'X', "././@PaxHeader", &pax_record("path", b"evil.json")), entry(b'0', "x.json", b"{}")].concat()) => Reject(IA, "Solaris extended header (typeflag X)");
    tar_long_name_hidden_bytes: base_then(&[{ let mut d = b"a.json\0hidden.so".to_vec(); d.push(0); let mut h = header(b'L', b"././@LongLink", d.len() as u64, 0o644, Flavor::Gnu); h.extend_from_slice(&d); h.extend_from_slice(padding(d.len() as u64)); h }, entry(b'0', "x.json", b"{}")].concat()) => Reject(IA, "GNU long name has bytes after its NUL terminator");
    tar_pax_duplicate_key: base_then(&[pax(&[pax_record("path", b"a.json"), pax_record("path", b"b.json")].concat()), entry(b'0', "x.json", b"{}")].concat()) => Reject(IA, "PAX key repeated");
    tar_duplicate_pax_headers: base_then(&[pax(&pax_record("path", b"a.json")), pax(&pax_record("path", b"b.json")), entry(b'0', "x.json", b"{}")].concat()) => Reject(IA, "two extended headers");
    tar_duplicate_long_names: base_then(&[long_name(b"a.json"), long_name(b"b.json"), entry(b'0', "x.json", b"{}")].concat()) => Reject(IA, "two extended headers");
    tar_long_name_after_pax: base_then(&[pax(&pax_record("mtime", b"1")), long_name(b"a.json"), entry(b'0', "x.json", b"{}")].concat()) => Reject(IA, "GNU long-name entry after a PAX header");
    tar_pax_and_long_name_conflict: base_then(&[long_name(b"a.json"), pax(&pax_record("path", b"b.json")), entry(b'0', "x.json", b"{}")].concat()) => Reject(IA, "both PAX and GNU");
    tar_dangling_pax: base_then(&pax(&pax_record("path", b"x.json"))) => Reject(IA, "extended header not followed by an entry");
    tar_size_on_directory: base_then(&entry(b'5', "dir/", &[0u8; 512])) => Reject(IA, "non-file tar entry has a non-zero size");
    tar_global_pax_at_end: base_then(&entry(b'g', "pax_global_header", &pax_record("comment", b"x"))) => Reject(IA, "extended header not followed by an entry");
    tar_global_pax_path: base_then(&entry(b'g', "pax_global_header", &pax_record("path", b"evil.json"))) => Reject(IA, "global PAX header");
    tar_empty: gz(&END_OF_ARCHIVE) => Reject(IA, "archive has no entries");

    // §3.1 entry types.
    symlink_control_character_name: base_then(&entry(b'2', "lib\x01.so", b"")) => Reject(PT, "symbolic link entries are not allowed (member lib\\u{1}.so");
    hardlink_named_dot_slash: base_then(&entry(b'1', "./", b"")) => Reject(PT, "hard link entries are not allowed (member ./");
    char_device: base_then(&entry(b'3', "dev.so", b"")) => Reject(IA, "character device entries");
    block_device: base_then(&entry(b'4', "disk.so", b"")) => Reject(IA, "block device entries");
    fifo: base_then(&entry(b'6', "pipe.so", b"")) => Reject(IA, "FIFO entries");
    contiguous_file: base_then(&entry(b'7', "c.so", b"x")) => Reject(IA, "entries of tar typeflag '7' are not allowed");

    // §2 paths.
    dotdot_path: file_named("../evil.json") => Reject(PT, "path has a .. segment");
    dotdot_nested: file_named("a/b/../../../evil.json") => Reject(PT, "path has a .. segment");
    ntfs_stream: file_named("model.json:stream") => Reject(PT, "colon");
    fraction_slash: file_named("..\u{2044}evil.json") => Reject(PT, "look-alike");
    big_solidus: file_named("..\u{29F8}evil.json") => Reject(PT, "look-alike");
    one_dot_leader: file_named("\u{2024}\u{2024}/evil.json") => Reject(PT, "dot look-alike");
    small_full_stop: file_named("\u{FE52}\u{FE52}/evil.json") => Reject(PT, "dot look-alike");
    dot_lookalike_inside_name: file_named("extra/v1\u{FF0E}0.json") => Reject(PT, "path holds a Unicode dot look-alike (U+FF0E, U+2024 or U+FE52) (path byte 8)");
    zero_width_dotdot: file_named("..\u{200B}/evil.json") => Reject(PT, "dot look-alike traversal");
    three_dots: file_named(".../evil.json") => Reject(PT, "made of dots and spaces");

    pax_path_hides_traversal: base_then(&[pax(&pax_record("path", b"../../etc/cron.d/x.json")), entry(b'0', "harmless.json", b"{}")].concat()) => Reject(PT, "member ../../etc/cron.d/x.json");
    gnu_long_name_traversal: base_then(&[long_name(("../".repeat(40) + "evil.json").as_bytes()), entry(b'0', "harmless.json", b"{}")].concat()) => Reject(PT, "path has a .. segment");
    control_character_path: file_named("new\nline.json") => Reject(IA, "control character (path byte 3) (member new\\nline.json");
    trailing_dot_segment: file_named("dir./x.json") => Reject(IA, "ends in a dot or space");
    path_longer_than_4096_bytes: base_then(&[pax(&pax_record("path", ("a/".repeat(2048) + "x.json").as_bytes())), entry(b'0', "harmless.json", b"{}")].concat()) => Reject(IA, "path exceeds the length limit");
    path_segment_longer_than_255_bytes: base_then(&[long_name(("s".repeat(256) + ".json").as_bytes()), entry(b'0', "harmless.json", b"{}")].concat()) => Reject(IA, "path exceeds the length limit");
    path_more_than_255_segments: base_then(&[long_name(("d/".repeat(255) + "x.json").as_bytes()), entry(b'0', "harmless.json", b"{}")].concat()) => Reject(IA, "path has more segments than the limit");

    // §2.7 duplicates, §3.2.3 destinations.
    duplicate_double_slash: Pkg::base().add("c/x.json", "{}").add("c//x.json", "{}").gz() => Reject(IA, "duplicate normalized path");
    duplicate_case_folded: file_named("ETC/0_preproc.json") => Reject(IA, "duplicate normalized path");
    file_directory_conflict: file_named("lib/model.so/x.json") => Reject(IA, "conflicts");
    destination_collision_case_folded: file_named("configs/0_PREPROC.json") => Reject(IA, "configs/0_PREPROC.json and etc/0_preproc.json both extract to etc/0_preproc.json (member etc/0_preproc.json");
    destination_collision_binaries: Pkg::base().add("stage2/model.elf", ELF).gz() => Reject(IA, "share/model.elf and stage2/model.elf both extract to share/model.elf");
    destination_collision_json_and_yaml_folder: Pkg::base().add("etc/model.yaml", "a: 1\n").add("other/model.yaml", "a: 2\n").gz() => Reject(IA, "both extract to etc/model.yaml");

    // §3.2 classes.
    unsupported_class_txt: file_named("readme.txt") => Reject(SE, "file type not allowed in a package (.json, .yaml, .yml, .so, .elf) (member readme.txt");
    unsupported_class_uppercase: file_named("extra.JSON") => Reject(SE, "file type not allowed");
    unsupported_class_versioned_so: file_named("libx.so.1") => Reject(SE, "file type not allowed");
    unsupported_class_python: file_named("archived_compile_script.v1.py") => Reject(SE, "file type not allowed");
    unsupported_class_dotfile: file_named("etc/.json") => Reject(SE, "file type not allowed");

    // §3.3 required content and JSON.
    two_contracts: Pkg::base().put("etc/b_mpk.json", base_contract()).gz() => Reject(SE, "package has more than one MPK contract (etc/b_mpk.json first) (member etc/model_mpk.json)");
    contract_named_only_suffix: Pkg::base().remove("etc/model_mpk.json").put("etc/_mpk.json", base_contract()).gz() => Reject(SE, "package has no mpk.json or *_mpk.json");
    missing_binary: Pkg::base().remove("share/model.elf").remove("lib/model.so").gz() => Reject(IA, "package has no .elf or .so model binary");
    invalid_json: with("etc/0_preproc.json", "{\"a\":1,}") => Reject(SE, "invalid JSON: unexpected byte");
    duplicate_json_keys: with("etc/0_preproc.json", "{\"a\":1,\"a\":2}") => Reject(SE, "duplicate object member name (member etc/0_preproc.json, byte 7)");
    json_too_deep: with("etc/0_preproc.json", &deep_json(65)) => Reject(SE, "nesting depth");
    json_total_too_large: two_json_files_over_limit() => Reject(SL, "JSON files larger than max_total_json_bytes together (member etc/b.json");

    // §3.7 contract.
    contract_plugins_empty: with_contract(r#"{"plugins":[]}"#) => Reject(SE, "plugins must be a non-empty array (member etc/model_mpk.json, mpk.plugins");
    contract_plugins_missing: with_contract(r#"{"name":"m"}"#) => Reject(SE, "required member is missing (member etc/model_mpk.json, mpk.plugins");
    contract_plugins_not_array: with_contract(r#"{"plugins":{}}"#) => Reject(SE, "expected array, found object");
    contract_not_object: with_contract("[]") => Reject(SE, "expected object, found array");
    contract_name_number: with_contract(&base_contract().replace(r#""name":"model""#, r#""name":7"#)) => Reject(SE, "mpk.name");
    contract_sdk_version_number: with_contract(&base_contract().replace(r#""2.0.0""#, "2")) => Reject(SE, "mpk.model_sdk_version");
    plugin_not_object: with_plugins(&[mla("mla_0", 1, "model.elf"), String::from("\"preproc\"")]) => Reject(SE, "mpk.plugins[1]");
    plugin_name_empty: with_plugin(0, |p| p.replace(r#""name":"preproc_0""#, r#""name":"""#)) => Reject(SE, "must be a non-empty string (member etc/model_mpk.json, mpk.plugins[0].name");
    plugin_name_duplicate: with_plugins(&[ev74("p", 1, "preproc"), mla("p", 2, "model.elf")]) => Reject(SE, "duplicate plugin name (member etc/model_mpk.json, mpk.plugins[1].name");
    plugin_sequence_zero: with_plugin(0, |p| p.replace(r#""sequence":1"#, r#""sequence":0"#)) => Reject(SE, "must be an integer of at least 1 (member etc/model_mpk.json, mpk.plugins[0].sequence");
    plugin_sequence_fraction: with_plugin(0, |p| p.replace(r#""sequence":1"#, r#""sequence":1.5"#)) => Reject(SE, "mpk.plugins[0].sequence");
    plugin_sequence_missing: with_plugin(0, |p| p.replace(r#","sequence":1"#, "")) => Reject(SE, "required member is missing (member etc/model_mpk.json, mpk.plugins[0].sequence");
    plugin_sequence_duplicate: with_plugins(&[ev74("a", 1, "preproc"), mla("b", 1, "model.elf")]) => Reject(SE, "duplicate plugin sequence (member etc/model_mpk.json, mpk.plugins[1].sequence");
    plugin_sequence_gap: with_plugins(&[ev74("a", 1, "preproc"), mla("b", 3, "model.elf")]) => Reject(SE, "plugin sequences must run from 1 to 2 without a gap (member etc/model_mpk.json, mpk.plugins[1].sequence");
    plugin_processor_unregistered: with_plugin(0, |p| p.replace(r#""EV74""#, r#""CVU""#)) => Reject(SE, "processor \"CVU\" is not registered (one of EV74, MLA, A65)");
    plugin_processor_lowercase: with_plugin(1, |p| p.replace(r#""MLA""#, r#""mla""#)) => Reject(SE, "processor \"mla\" is not registered");
    plugin_type_unregistered: with_plugin(0, |p| p.replace("sgpProcess", "gstProcess")) => Reject(SE, "plugin type \"gstProcess\" is not registered (one of sgpProcess)");
    plugin_config_params_missing: with_plugin(0, |p| p.replace(r#""config_params":{"kernel":"preproc","params":{"input_shapes":[[1,48,64,3]],"output_shapes":[[1,48,64,3]]}},"#, "")) => Reject(SE, "mpk.plugins[0].config_params");
    ev74_kernel_missing: with_plugin(0, |p| p.replace(r#""kernel":"preproc","#, "")) => Reject(SE, "required member is missing (member etc/model_mpk.json, mpk.plugins[0].config_params.kernel");
    ev74_kernel_unregistered: with_plugin(0, |p| p.replace(r#""kernel":"preproc""#, r#""kernel":"resize_transform""#)) => Reject(SE, "kernel \"resize_transform\" is not registered for processor EV74");
    mla_with_kernel: with_plugin(1, |p| p.replace(r#""config_params":{"#, r#""config_params":{"kernel":"mla","#)) => Reject(SE, "MLA plugins name no kernel (member etc/model_mpk.json, mpk.plugins[1].config_params.kernel");
    a65_kernel_unregistered: with_plugins(&[mla("mla_0", 1, "model.elf"), a65("post", 2, "nms", "model.so")]) => Reject(SE, "kernel \"nms\" is not registered for processor A65 (one of processtvm, slice, boxdecode)");
    params_not_object: with_plugin(0, |p| p.replace(r#""params":{"input_shapes":[[1,48,64,3]],"output_shapes":[[1,48,64,3]]}"#, r#""params":[]"#)) => Reject(SE, "mpk.plugins[0].config_params.params");
    mla_batch_size_missing: with_plugin(1, |p| p.replace(r#""actual_batch_size":1,"#, "")) => Reject(SE, "required member is missing (member etc/model_mpk.json, mpk.plugins[1].config_params.actual_batch_size");
    mla_batch_size_zero: with_plugin(1, |p| p.replace(r#""desired_batch_size":1"#, r#""desired_batch_size":0"#)) => Reject(SE, "must be an integer of at least 1 (member etc/model_mpk.json, mpk.plugins[1].config_params.desired_batch_size");
    input_nodes_missing: with_plugin(0, |p| p.replace(r#""input_nodes":[{"name":"in_preproc_0","size":9216}],"#, "")) => Reject(SE, "mpk.plugins[0].input_nodes");
    output_nodes_not_array: with_plugin(1, |p| p.replace(r#""output_nodes":[{"name":"mla_0","size":1000,"type":"buffer"}]"#, r#""output_nodes":{}"#)) => Reject(SE, "mpk.plugins[1].output_nodes");
    mla_resources_missing: with_plugin(1, |p| p.replace(r#""resources":{"executable":"model.elf"},"#, "")) => Reject(SE, "required member is missing (member etc/model_mpk.json, mpk.plugins[1].resources");
    mla_executable_missing: with_plugin(1, |p| p.replace(r#""executable":"model.elf""#, r#""path":"model.elf""#)) => Reject(SE, "mpk.plugins[1].resources.executable");
    executable_not_in_package: with_plugin(1, |p| p.replace("model.elf", "other.elf")) => Reject(SE, "executable \"other.elf\" is not an extracted .elf or .so (looked in share/, lib/, the root)");
    executable_names_a_json_file: with_plugin(1, |p| p.replace("model.elf", "etc/0_preproc.json")) => Reject(SE, "is not an extracted .elf or .so");
    a65_executable_not_in_package: with_plugins(&[mla("mla_0", 1, "model.elf"), a65("post", 2, "slice", "libpost.so")]) => Reject(SE, "executable \"libpost.so\" is not an extracted .elf or .so (looked in lib/, the root, share/)");
    executable_traversal: with_plugin(1, |p| p.replace("model.elf", "../../bin/sh.elf")) => Reject(PT, "executable: path has a .. segment");
    executable_absolute: with_plugin(1, |p| p.replace("model.elf", "/usr/lib/model.elf")) => Reject(PT, "executable: path is absolute");
    ev74_executable_traversal: with_plugin(0, |p| p.replacen('{', r#"{"resources":{"executable":"../kernel.elf"},"#, 1)) => Reject(PT, "executable: path has a .. segment (member etc/model_mpk.json, mpk.plugins[0].resources.executable");

    // §3.4, §3.5 pipeline_sequence.json.
    pipeline_not_object: with("etc/pipeline_sequence.json", "[]") => Reject(SE, "expected object");
    pipelines_empty: with("etc/pipeline_sequence.json", "{\"pipelines\":[]}") => Reject(SE, "pipelines must be a non-empty array");
    sequence_empty: with("etc/pipeline_sequence.json", "{\"pipelines\":[{\"sequence\":[]}]}") => Reject(SE, "sequence must be a non-empty array");
    second_pipeline_checked: with("etc/pipeline_sequence.json", &format!(r#"{{"pipelines":[{{"sequence":[{}]}},{{"sequence":[]}}]}}"#, pre(r#""decoder""#))) => Reject(SE, "pipeline_sequence.pipelines[1].sequence");
    stage_missing_kernel: with_stage(0, pre(r#""decoder""#).replace(r#""kernel":"preproc","#, "")) => Reject(SE, "sequence[0].kernel");
    stage_empty_plugin_id: with_stage(1, stages()[1].replace("processmla", "")) => Reject(SE, "sequence[1].pluginId");
    sequence_id_fraction: with_stage(0, pre(r#""decoder""#).replace(r#""sequence_id":1"#, r#""sequence_id":1.0"#)) => Reject(SE, "sequence[0].sequence_id");
    sequence_id_string: with_stage(0, pre(r#""decoder""#).replace(r#""sequence_id":1"#, r#""sequence_id":"1""#)) => Reject(SE, "expected number");
    duplicate_stage_name: with_pipeline(&[stages(), vec![stage(3, "preproc_0", "processcvu", "0_preproc.json", "CVU", "cast", r#""decoder""#)]].concat()) => Reject(SE, "duplicate stage name");
    unsupported_kernel: with_stage(0, pre(r#""decoder""#).replace(r#""preproc","name""#, r#""resize","name""#)) => Reject(SE, "kernel \"resize\" is not registered for processor CVU");
    kernel_of_other_processor: with_stage(1, stages()[1].replace(r#""infer""#, r#""preproc""#)) => Reject(SE, "kernel \"preproc\" is not registered for processor MLA (one of infer, mla)");
    unsupported_processor: with_stage(0, pre(r#""decoder""#).replace(r#""CVU""#, r#""GPU""#)) => Reject(SE, "processor \"GPU\" is not registered (one of CVU, MLA, EV74)");
    input_on_later_stage: with_stage(0, pre(r#""mla_0""#)) => Reject(SE, "input must name decoder or an earlier stage (member etc/pipeline_sequence.json, pipeline_sequence.pipelines[0].sequence[0].input");
    input_on_self: with_stage(1, stages()[1].replace(r#""input":"preproc_0""#, r#""input":["mla_0"]"#)) => Reject(SE, "pipeline_sequence.pipelines[0].sequence[1].input[0]");
    input_unknown: with_stage(1, stages()[1].replace(r#""input":"preproc_0""#, r#""input":["decoder","ghost"]"#)) => Reject(SE, "pipeline_sequence.pipelines[0].sequence[1].input[1]");
    input_not_string: with_stage(0, pre("7")) => Reject(SE, "input must be a string or an array of strings");
    input_empty_string: with_stage(0, pre(r#""""#)) => Reject(SE, "must be a non-empty string (member etc/pipeline_sequence.json, pipeline_sequence.pipelines[0].sequence[0].input");
    input_item_not_string: with_stage(0, pre(r#"["decoder",null]"#)) => Reject(SE, "pipeline_sequence.pipelines[0].sequence[0].input[1]");
    decoder_name_reserved: with_stage(0, pre(r#""decoder""#).replace(r#""name":"preproc_0""#, r#""name":"decoder""#)) => Reject(SE, "reserved");
    config_path_traversal: with_stage(0, pre(r#""decoder""#).replace("0_preproc.json", "../0_preproc.json")) => Reject(PT, "configPath: path has a .. segment");
    config_path_not_json: with_stage(0, pre(r#""decoder""#).replace("0_preproc.json", "model.so")) => Reject(SE, "configPath must name a .json file");
    config_path_with_folder: with_stage(0, pre(r#""decoder""#).replace("0_preproc.json", "etc/0_preproc.json")) => Reject(SE, "configPath must be a file name: it is read from etc/");
    config_path_missing: Pkg::base().remove("etc/0_process_mla.json").gz() => Reject(SE, "configPath names no JSON file extracted to etc/ (member etc/pipeline_sequence.json, pipeline_sequence.pipelines[0].sequence[1].configPath)");

    // §4 limits.
    entry_too_large: base_then(&raw_entry(b'0', b"huge.so", (8 << 30) + 1, b"")) => Reject(SL, "entry larger than max_entry_bytes");
    too_many_entries: many_entries() => Reject(SL, "more entries than max_entries");
    too_many_stages: many_stages() => Reject(SL, "more stages than max_stages");
    too_many_plugins: many_plugins() => Reject(SL, "more plugins than max_stages");
    input_after_50000_inputs: many_inputs() => Reject(SE, "sequence[1].input[50000]");
    pax_header_too_large: base_then(&raw_entry(b'x', b"PaxHeaders/big", 1 << 20, b"")) => Reject(SL, "exceeds the size limit");
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_least_sixty_files_with_distinct_names() {
        crate::assert_enough_distinct(cases().iter().map(|c| c.name), 60);
    }

    /// Every kind MPK raises has a case; `unsupported_version` is raised by no rule
    /// (`spec/mpk.md` §5.1).
    #[test]
    fn every_raised_kind_has_a_case() {
        let all = cases();
        for kind in [IA, PT, SE, SL] {
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

    /// The base package is written as the MPK loader's fixture generator writes it: folder
    /// entries first in name order, fixed metadata, ustar headers.
    #[test]
    fn the_base_package_has_the_generators_layout() {
        let t = Pkg::base().sorted().tar();
        let entries: Vec<_> = modelgate_core::tar::entries(&t, Default::default())
            .map(|r| r.unwrap().0)
            .collect();
        let names: Vec<String> = entries
            .iter()
            .map(|e| String::from_utf8_lossy(&e.path).into_owned())
            .collect();
        assert_eq!(
            names,
            [
                "etc/",
                "etc/0_preproc.json",
                "etc/0_process_mla.json",
                "etc/model_mpk.json",
                "etc/pipeline_sequence.json",
                "lib/",
                "lib/model.so",
                "share/",
                "share/model.elf"
            ]
        );
        assert!(entries.iter().all(|e| e.mtime == 0 && e.uid == 0 && e.gid == 0));
        assert_eq!(&t[257..265], b"ustar\x0000");
    }

    /// The base package extracts to exactly the files the MPK loader extracts its basic
    /// fixture to.
    #[test]
    fn the_base_package_extracts_to_the_loaders_set() {
        let p = check_tar_gz(&Pkg::base().gz(), MpkLimits::DEFAULT, Registry::DEFAULT, [1, 2]).unwrap();
        let mut dests: Vec<&str> = p.files.iter().map(|f| f.dest.as_str()).collect();
        dests.sort_unstable();
        assert_eq!(
            dests,
            [
                "etc/0_preproc.json",
                "etc/0_process_mla.json",
                "etc/model_mpk.json",
                "etc/pipeline_sequence.json",
                "lib/model.so",
                "share/model.elf"
            ]
        );
    }
}
