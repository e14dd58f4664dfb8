//! Disk-to-disk cases, every side a child process measured the same way (wall time with
//! process start, peak RSS from `wait4`): ONNX → OneModel, with and without external data,
//! MPK extraction against GNU tar, mvb export and import against `sha256sum` + GNU tar.

use super::{Case, Goal, Imp, Mem};
use crate::data::{remove, size_of};
use crate::measure::{children, fail};
use std::path::{Path, PathBuf};

const MIB: u64 = 1 << 20;

/// The `modelgate` binary cargo built for this benchmark.
pub fn modelgate() -> String {
    env!("CARGO_BIN_EXE_modelgate").to_string()
}

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

fn argv(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|p| (*p).to_string()).collect()
}

/// `python3 cli/benches/compare.py --run-peer NAME SRC DST`, when python3 can import
/// `module`: the Python peer runs in the same alternation as modelgate (compare.py times it
/// too, but at another moment of a shared machine).
fn python_peer(name: &str, module: &str, src: &Path, dst: &Path) -> Option<Vec<String>> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches").join("compare.py");
    let ok = std::process::Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    ok.then(|| argv(&["python3", &s(&script), "--run-peer", name, &s(src), &s(dst)]))
}

fn fresh_dir(p: &Path) {
    remove(p);
    std::fs::create_dir_all(p).unwrap_or_else(|e| fail(&format!("{}: {e}", p.display())));
}

/// `modelgate onemodel convert` of the ONNX fixture against Python `onnx.load` +
/// `onnx.save` of the same file (when the onnx package is installed).
pub fn onnx_convert(onnx: &Path, work: &Path) -> Case {
    let out = work.join("converted.onemodel");
    let cmd = vec![argv(&[&modelgate(), "onemodel", "convert", &s(onnx), &s(&out)])];
    let dir = work.to_path_buf();
    let mut imps = vec![Imp::new("modelgate onemodel convert", move || {
        remove(&out);
        children(&cmd, &dir)
    })];
    let resaved = work.join("resaved.onnx");
    if let Some(py) = python_peer("onnx", "onnx", onnx, &resaved) {
        let dir = work.to_path_buf();
        imps.push(Imp::new(PY_ONNX, move || {
            remove(&resaved);
            children(std::slice::from_ref(&py), &dir)
        }));
    }
    Case {
        name: "ONNX → OneModel",
        bytes: size_of(onnx),
        mem: Mem::Rss,
        imps,
        goals: vec![Goal::Speed {
            peer: PY_ONNX,
            at_least: 1.5,
            text: "≥ 1.5× Python onnx.load + onnx.save",
        }],
    }
}

const PY_ONNX: &str = "Python onnx.load + onnx.save";
const PY_ONNX_EXTERNAL: &str = "Python onnx.load + onnx.save (external data)";
const PY_ONNX_CHECK: &str = "Python onnx.checker.check_model (path)";

/// A child-process peer: its label, its command and the files it writes.
type Peer = (&'static str, Vec<String>, Vec<PathBuf>);

/// The memory goal of the external-data rows (README "Benchmarks"): the protobuf or manifest, a few
/// KiB here, plus 64 MiB, whatever the tensor bytes.
const SCALE_MEMORY: Goal = Goal::Memory {
    bytes: 64 * MIB,
    text: "peak RSS ≤ protobuf or manifest + 64 MiB",
};

/// `modelgate check`, `onemodel convert` and `onemodel to-onnx --external-data` of the
/// external-data fixture (`model.onnx` and `model.onnx.data` in `folder`): three cases whose
/// goal is modelgate's peak RSS. When the onnx package is installed, the check runs against
/// `onnx.checker.check_model` of the model's path, and both conversions against Python
/// `onnx.load` + `onnx.save` with external data of the same model, the rewrite Python
/// offers (it holds the whole model in memory).
pub fn onnx_external(folder: &Path, work: &Path) -> Vec<Case> {
    let model = folder.join("model.onnx");
    let bytes = size_of(&folder.join("model.onnx.data"));
    let one = work.join("external.onemodel");
    let back = work.join("external-back.onnx");
    let resaved = work.join("external-resaved.onnx");
    let resaved_data = work.join("external-resaved.onnx.data");
    let rewrite = python_peer("onnx-external", "onnx", &model, &resaved)
        .map(|cmd| (PY_ONNX_EXTERNAL, cmd, vec![resaved.clone(), resaved_data]));
    let checker = python_peer("onnx-check", "onnx", &model, &resaved).map(|cmd| (PY_ONNX_CHECK, cmd, Vec::new()));
    let case = |name: &'static str, label: &str, cmd: Vec<String>, outputs: Vec<PathBuf>, peer: Option<Peer>| {
        let dir = work.to_path_buf();
        let cmd = vec![cmd];
        let mut imps = vec![Imp::new(label, move || {
            outputs.iter().for_each(|o| remove(o));
            children(&cmd, &dir)
        })];
        if let Some((label, py, outputs)) = peer {
            let dir = work.to_path_buf();
            imps.push(Imp::new(label, move || {
                outputs.iter().for_each(|o| remove(o));
                children(std::slice::from_ref(&py), &dir)
            }));
        }
        Case {
            name,
            bytes,
            mem: Mem::Rss,
            imps,
            goals: vec![SCALE_MEMORY],
        }
    };
    let check = case(
        "ONNX with external data: check",
        "modelgate check",
        argv(&[&modelgate(), "check", &s(&model)]),
        Vec::new(),
        checker,
    );
    let convert = case(
        "ONNX with external data → OneModel",
        "modelgate onemodel convert",
        argv(&[&modelgate(), "onemodel", "convert", &s(&model), &s(&one)]),
        vec![one.clone()],
        rewrite.clone(),
    );
    // The conversion's output, once, as to-onnx's input.
    remove(&one);
    children(
        &[argv(&[&modelgate(), "onemodel", "convert", &s(&model), &s(&one)])],
        work,
    );
    let to_onnx = case(
        "OneModel → ONNX with external data",
        "modelgate onemodel to-onnx --external-data",
        argv(&[
            &modelgate(),
            "onemodel",
            "to-onnx",
            "--external-data",
            &s(&one),
            &s(&back),
        ]),
        vec![back.clone(), back.with_file_name("external-back.onnx.data")],
        rewrite,
    );
    vec![check, convert, to_onnx]
}
const PY_TAR: &str = "Python tarfile filter=\"data\"";

/// `modelgate mpk extract` against `tar -xzf` of the same package.
pub fn mpk_extract(package: &Path, work: &Path) -> Case {
    let (ours, theirs) = (work.join("mpk-modelgate"), work.join("mpk-tar"));
    let ours_cmd = vec![argv(&[&modelgate(), "mpk", "extract", &s(package), &s(&ours)])];
    let tar_cmd = vec![argv(&["tar", "-xzf", &s(package), "-C", &s(&theirs)])];
    let (d1, d2) = (work.to_path_buf(), work.to_path_buf());
    let mut imps = vec![
        Imp::new("modelgate mpk extract", move || {
            remove(&ours);
            children(&ours_cmd, &d1)
        }),
        Imp::new("GNU tar -xzf", move || {
            fresh_dir(&theirs);
            children(&tar_cmd, &d2)
        }),
    ];
    let py_dest = work.join("mpk-tarfile");
    if let Some(py) = python_peer("tarfile", "tarfile", package, &py_dest) {
        let dir = work.to_path_buf();
        imps.push(Imp::new(PY_TAR, move || {
            fresh_dir(&py_dest);
            children(std::slice::from_ref(&py), &dir)
        }));
    }
    Case {
        name: "MPK extract",
        bytes: size_of(package),
        mem: Mem::Rss,
        imps,
        goals: vec![
            Goal::Speed {
                peer: PY_TAR,
                at_least: 2.0,
                text: "≥ 2× Python tarfile",
            },
            Goal::Speed {
                peer: "GNU tar -xzf",
                at_least: 1.5,
                text: "≥ 1.5× GNU tar",
            },
            Goal::Memory {
                bytes: 32 * MIB,
                text: "peak RSS ≤ 32 MiB",
            },
        ],
    }
}

/// Bundle paths of the payload files under `root` (relative, sorted).
fn payload(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    let model = root.join("model");
    for e in std::fs::read_dir(&model).unwrap_or_else(|e| fail(&format!("{}: {e}", model.display()))) {
        let name = e
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .unwrap_or_default();
        files.push(s(&model.join(name)));
    }
    files.sort();
    files
}

/// `modelgate mvb export` against `sha256sum` of the payload plus `tar -cf` of the folder.
pub fn mvb_export(bundle: &Path, work: &Path) -> Case {
    let out = work.join("mvb-export");
    let tar_out = work.join("mvb-export-tar.tar");
    let ours = vec![argv(&[&modelgate(), "mvb", "export", &s(bundle), &s(&out)])];
    let mut sum = vec!["sha256sum".to_string()];
    sum.extend(payload(bundle));
    let theirs = vec![sum, argv(&["tar", "-cf", &s(&tar_out), "-C", &s(bundle), "."])];
    let (b, d1, d2) = (bundle.to_path_buf(), work.to_path_buf(), work.to_path_buf());
    Case {
        name: "mvb export",
        bytes: size_of(&bundle.join("model")),
        mem: Mem::Rss,
        imps: vec![
            Imp::new("modelgate mvb export", move || {
                fresh_dir(&out);
                remove(&b.join("exports.json"));
                let sample = children(&ours, &d1);
                remove(&b.join("exports.json"));
                sample
            }),
            Imp::new("sha256sum + GNU tar -cf", move || {
                remove(&tar_out);
                children(&theirs, &d2)
            }),
        ],
        goals: vec![
            Goal::Speed {
                peer: "sha256sum + GNU tar -cf",
                at_least: 1.0,
                text: "≤ 1.0× the sum of their times",
            },
            Goal::Memory {
                bytes: 32 * MIB,
                text: "peak RSS ≤ 32 MiB",
            },
        ],
    }
}

/// `modelgate mvb import` against `sha256sum` of the tar, `tar -xf`, `sha256sum` of the
/// extracted payload.
pub fn mvb_import(export: &Path, id: &str, work: &Path) -> Case {
    let vault = work.join("mvb-vault");
    let extracted = work.join("mvb-tar-x");
    let ours = vec![argv(&[&modelgate(), "mvb", "import", &s(export), &s(&vault)])];
    let root: PathBuf = extracted.join(id);
    let theirs_first = vec![
        argv(&["sha256sum", &s(export)]),
        argv(&["tar", "-xf", &s(export), "-C", &s(&extracted)]),
    ];
    let (d1, d2) = (work.to_path_buf(), work.to_path_buf());
    Case {
        name: "mvb import",
        bytes: size_of(export),
        mem: Mem::Rss,
        imps: vec![
            Imp::new("modelgate mvb import", move || {
                fresh_dir(&vault);
                children(&ours, &d1)
            }),
            Imp::new("sha256sum + GNU tar -xf + sha256sum", move || {
                fresh_dir(&extracted);
                let a = children(&theirs_first, &d2);
                let mut sum = vec!["sha256sum".to_string()];
                sum.extend(payload(&root));
                let b = children(&[sum], &d2);
                crate::measure::Sample {
                    time: a.time + b.time,
                    mem: a.mem.max(b.mem),
                }
            }),
        ],
        goals: vec![
            Goal::Speed {
                peer: "sha256sum + GNU tar -xf + sha256sum",
                at_least: 1.0 / 0.6,
                text: "≤ 0.6× the sum of their times",
            },
            Goal::Memory {
                bytes: 32 * MIB,
                text: "peak RSS ≤ 32 MiB",
            },
        ],
    }
}
