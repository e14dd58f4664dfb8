//! `cargo bench -p modelgate-cli --bench compare`: modelgate against the tools its users
//! would otherwise run, on the same deterministic data in the same run.
//!
//! Options (arguments after `--`, or environment variables):
//! - `--scale F` / `MODELGATE_BENCH_SCALE`: payload size factor, `1` (the full sizes,
//!   default) or a fraction such as `1/16` for a quick run.
//! - `--cases A,B` / `MODELGATE_BENCH_CASES`: run only cases whose key contains one of
//!   these (`mlbundle-deflated`, `mlbundle-stored`, `json-validate`, `json-value`,
//!   `onemodel`, `onnx`, `onnx-external`, `mpk`, `mvb-export`, `mvb-import`, `hostile`,
//!   `bombs`).
//! - `--reps N` / `MODELGATE_BENCH_REPS`: runs per implementation, alternating (default 5).
//!
//! Payloads are written to `target/bench-data/` (or `MODELGATE_BENCH_DATA`) and reused
//! while their recorded SHA-256 matches. The table goes to stdout, progress to stderr, and every median to
//! `target/bench-data/results.json` (read by `compare.py`).

mod bundle;
mod cases;
mod data;
mod manifest_shape;
mod measure;
mod models;
mod mpk;
mod mvb;
mod payload;
mod sys;
mod table;

use cases::{Case, Row, Verdict};
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

#[global_allocator]
static ALLOC: modelgate_corpus_gen::counting::Counting = modelgate_corpus_gen::counting::Counting;

const MIB: u64 = 1 << 20;

struct Options {
    scale: f64,
    cases: Vec<String>,
    reps: usize,
}

fn parse_scale(s: &str) -> Option<f64> {
    let v = match s.split_once('/') {
        Some((a, b)) => a.trim().parse::<f64>().ok()? / b.trim().parse::<f64>().ok()?,
        None => s.trim().parse().ok()?,
    };
    (v > 0.0 && v.is_finite()).then_some(v)
}

fn options() -> Options {
    let mut scale = std::env::var("MODELGATE_BENCH_SCALE").unwrap_or_else(|_| "1".into());
    let mut cases = std::env::var("MODELGATE_BENCH_CASES").unwrap_or_default();
    let mut reps = std::env::var("MODELGATE_BENCH_REPS").unwrap_or_else(|_| "5".into());
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--scale" => scale = args.next().unwrap_or_default(),
            "--cases" => cases = args.next().unwrap_or_default(),
            "--reps" => reps = args.next().unwrap_or_default(),
            _ => {} // cargo passes `--bench`; anything else is ignored too
        }
    }
    Options {
        scale: parse_scale(&scale).unwrap_or_else(|| measure::fail("bad --scale")),
        cases: cases
            .split(',')
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .map(String::from)
            .collect(),
        reps: reps
            .parse()
            .ok()
            .filter(|&r| r > 0)
            .unwrap_or_else(|| measure::fail("bad --reps")),
    }
}

fn machine() -> Value {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| t.lines().find(|l| l.starts_with("model name")).map(String::from))
        .and_then(|l| l.split_once(':').map(|(_, m)| m.trim().to_string()))
        .unwrap_or_default();
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0);
    json!({ "cpu": cpu, "cores": cores, "loadavg_start": loadavg() })
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

struct Bench {
    opts: Options,
    dir: PathBuf,
    work: PathBuf,
    rows: Vec<Row>,
    verdicts: Vec<Verdict>,
    files: Map<String, Value>,
}

impl Bench {
    fn wanted(&self, key: &str) -> bool {
        self.opts.cases.is_empty() || self.opts.cases.iter().any(|c| key.contains(c.as_str()))
    }

    /// `full` bytes times the scale, a multiple of 4 KiB and at least 64 KiB.
    fn sized(&self, full: u64) -> u64 {
        let n = (full as f64 * self.opts.scale) as u64;
        (n / 4096 * 4096).max(64 * 1024)
    }

    fn file(&mut self, key: &str, path: &Path) {
        self.files.insert(key.into(), json!(path.to_string_lossy()));
    }

    fn run(&mut self, case: Case) {
        let (rows, verdicts) = cases::run(case, self.opts.reps);
        self.add(rows, verdicts);
    }

    fn add(&mut self, rows: Vec<Row>, verdicts: Vec<Verdict>) {
        self.rows.extend(rows);
        self.verdicts.extend(verdicts);
    }
}

fn in_process_cases(b: &mut Bench) {
    let keys = ["mlbundle-deflated", "mlbundle-stored", "json-validate", "json-value"];
    if keys.iter().any(|k| b.wanted(k)) {
        let m = bundle::prepare(&b.dir, usize::try_from(b.sized(64 * MIB)).unwrap_or(0));
        b.file("mlbundle_deflated", &m.deflated);
        b.file("forest_json", &m.json);
        if b.wanted(keys[0]) {
            b.run(cases::inproc::mlbundle_deflated(&m.deflated, m.member_bytes));
        }
        if b.wanted(keys[1]) {
            b.run(cases::inproc::mlbundle_stored(&m.stored, m.member_bytes));
        }
        if b.wanted(keys[2]) {
            b.run(cases::inproc::json_validate(&m.json));
        }
        if b.wanted(keys[3]) {
            b.run(cases::inproc::json_value(&m.json));
        }
    }
    if b.wanted("onemodel") {
        let total = b.sized(1024 * MIB);
        let big = models::onemodel_file(&b.dir, "weights", total, models::D);
        let st = models::safetensors_file(&b.dir, "weights", total, models::D);
        let small = models::onemodel_file(&b.dir, "weights-small", total / 16, models::D / 4);
        b.run(cases::inproc::onemodel_open(&big, &st, &small));
        let tensors = models::onemodel_tensors_file(&b.dir, "weights-tensors", total, models::D);
        b.run(cases::inproc::onemodel_tensors_open(&tensors, &st));
    }
}

fn disk_cases(b: &mut Bench) {
    if b.wanted("onnx") {
        let onnx = models::onnx_file(&b.dir, b.sized(256 * MIB));
        b.file("onnx", &onnx);
        b.run(cases::disk::onnx_convert(&onnx, &b.work));
    }
    if b.wanted("onnx-external") {
        let folder = models::onnx_external_folder(&b.dir, b.sized(4096 * MIB));
        b.file("onnx_external", &folder.join("model.onnx"));
        for case in cases::disk::onnx_external(&folder, &b.work) {
            b.run(case);
        }
    }
    if b.wanted("mpk") {
        let package = mpk::package(&b.dir, usize::try_from(b.sized(300 * MIB)).unwrap_or(0));
        b.file("mpk_package", &package);
        b.run(cases::disk::mpk_extract(&package, &b.work));
    }
    if b.wanted("mvb-export") || b.wanted("mvb-import") {
        let bundle = mvb::bundle(&b.dir, usize::try_from(b.sized(1024 * MIB)).unwrap_or(0));
        if b.wanted("mvb-export") {
            b.run(cases::disk::mvb_export(&bundle, &b.work));
        }
        if b.wanted("mvb-import") {
            let export = mvb::export(&b.dir, &bundle);
            b.run(cases::disk::mvb_import(&export, mvb::ID, &b.work));
        }
    }
    if b.wanted("bombs") {
        bomb_cases(b);
    }
    if b.wanted("hostile") {
        let (rows, verdicts) = cases::hostile::run(&workspace().join("hostile-corpus"), b.opts.reps);
        b.add(rows, verdicts);
    }
}

/// The corpus's gzip bombs and 128 MiB of a p-byte period, whole and broken, against
/// miniz_oxide (no goal: README "Goals missed", hostile corpus).
fn bomb_cases(b: &mut Bench) {
    let gzip = workspace().join("hostile-corpus").join("gzip");
    let mut bombs: Vec<PathBuf> = std::fs::read_dir(&gzip)
        .unwrap_or_else(|e| measure::fail(&format!("{}: {e}", gzip.display())))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("LimitExceeded-output-over-256-mib"))
        })
        .collect();
    bombs.sort();
    for path in bombs {
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("?");
        let name = format!("gzip bomb {stem} (256 MiB out)").leak();
        b.run(cases::bombs::gzip_bomb(&path, name));
    }
    for period in [1, 2, 9, 16, 17, 31, 33, 41, 48, 64] {
        let name = format!("128 MiB of a {period}-byte period, inflate").leak();
        b.run(cases::bombs::period(period, false, name));
    }
    for period in [1, 2, 9, 16, 17, 33, 64] {
        let name = format!("128 MiB of a {period}-byte period broken every 16 KiB, inflate").leak();
        b.run(cases::bombs::period(period, true, name));
    }
}

fn workspace() -> PathBuf {
    let cli = Path::new(env!("CARGO_MANIFEST_DIR"));
    cli.parent().unwrap_or(cli).to_path_buf()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some((first, rest)) = args.split_first()
        && first == measure::HELPER
    {
        measure::helper(rest);
    }
    // SAFETY: the benchmark maps only the data files it wrote itself, which nothing
    // modifies while it runs (`allow_mapping`'s guarantee).
    unsafe { modelgate_io::mmap::allow_mapping() };
    let opts = options();
    let dir = std::env::var_os("MODELGATE_BENCH_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("target").join("bench-data"));
    let mut b = Bench {
        work: dir.join("work"),
        dir,
        opts,
        rows: Vec::new(),
        verdicts: Vec::new(),
        files: Map::new(),
    };
    let mut run = machine();
    run["scale"] = json!(b.opts.scale);
    run["reps"] = json!(b.opts.reps);
    run["modelgate"] = json!(cases::disk::modelgate());
    run["child_rss_floor"] = json!(measure::floor());
    std::fs::create_dir_all(&b.work).unwrap_or_else(|e| measure::fail(&format!("{}: {e}", b.work.display())));
    in_process_cases(&mut b);
    disk_cases(&mut b);
    run["loadavg_end"] = json!(loadavg());
    data::remove(&b.work);
    println!(
        "\nmodelgate compare: scale {}, {} runs each, {} ({} cores), load average {} → {}; \
         child RSS includes the measuring helper's floor of {}\n",
        b.opts.scale,
        b.opts.reps,
        run["cpu"],
        run["cores"],
        run["loadavg_start"],
        run["loadavg_end"],
        table::mib(run["child_rss_floor"].as_u64().unwrap_or(0))
    );
    table::print(&b.rows, &b.verdicts);
    table::save(&b.dir.join("results.json"), run, &b.rows, Value::Object(b.files));
}
