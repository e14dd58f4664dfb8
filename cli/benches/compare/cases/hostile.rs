//! The hostile corpus: every file whose name asks for a rejection is checked in process as
//! `corpus-check` does it, `reps` times; its median time and its peak heap above its own
//! size are taken, and the worst file of each is reported against the goal (≤ 10 ms,
//! ≤ 16 MiB above the input size).

use super::{Mem, Row, Verdict};
use crate::measure::{Sample, fail, in_process, summarise};
use modelgate_io::corpus::{Expected, check_one, collect};
use std::path::{Path, PathBuf};
use std::time::Duration;

const MIB: u64 = 1 << 20;

struct Worst {
    time: (Duration, PathBuf),
    extra: (u64, PathBuf),
    files: usize,
    /// Every file's median time, to list the slowest.
    times: Vec<(Duration, PathBuf)>,
}

const SLOW: Duration = Duration::from_millis(10);

/// Runs the corpus case over `root`.
pub fn run(root: &Path, reps: usize) -> (Vec<Row>, Vec<Verdict>) {
    eprintln!("compare: hostile corpus ({reps} runs per file)");
    let files = collect(&[root.to_path_buf()])
        .unwrap_or_else(|(path, e)| fail(&format!("{}: {e}", path.display())))
        .files;
    let mut worst = Worst {
        time: (Duration::ZERO, PathBuf::new()),
        extra: (0, PathBuf::new()),
        files: 0,
        times: Vec::new(),
    };
    for (path, expected) in files.iter().filter(|(_, e)| matches!(e, Expected::Kind(_))) {
        let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        let samples: Vec<Sample> = (0..reps)
            .map(|_| {
                in_process(|| {
                    if let Some(m) = check_one(path, expected) {
                        fail(&format!("corpus file gave the wrong outcome: {m:?}"));
                    }
                })
            })
            .collect();
        let m = summarise(&samples);
        worst.times.push((m.time, path.clone()));
        if m.time > worst.time.0 {
            worst.time = (m.time, path.clone());
        }
        if m.mem.saturating_sub(size) > worst.extra.0 || worst.files == 0 {
            worst.extra = (m.mem.saturating_sub(size), path.clone());
        }
        worst.files += 1;
    }
    report(root, &mut worst)
}

fn report(root: &Path, w: &mut Worst) -> (Vec<Row>, Vec<Verdict>) {
    let name = |p: &Path| p.strip_prefix(root).unwrap_or(p).display().to_string();
    w.times.sort_by_key(|t| std::cmp::Reverse(t.0));
    for (t, p) in w.times.iter().take(5) {
        let mark = if *t > SLOW { "over 10 ms" } else { "under" };
        eprintln!(
            "compare: slowest files: {} ({:.2} ms, {mark})",
            name(p),
            t.as_secs_f64() * 1e3
        );
    }
    let slow = w.times.iter().filter(|(t, _)| *t > SLOW).count();
    let case = format!("hostile corpus ({} files)", w.files);
    let rows = vec![
        Row {
            case: case.clone(),
            imp: "modelgate check, slowest file".into(),
            time: w.time.0,
            bytes: 0,
            mem: 0,
            mem_kind: Mem::Heap,
            note: name(&w.time.1),
        },
        Row {
            case: case.clone(),
            imp: "modelgate check, most memory above input".into(),
            time: Duration::ZERO,
            bytes: 0,
            mem: w.extra.0,
            mem_kind: Mem::Heap,
            note: name(&w.extra.1),
        },
    ];
    let verdicts = vec![
        Verdict {
            case: case.clone(),
            goal: "every rejection ≤ 10 ms".into(),
            measured: format!(
                "slowest {:.2} ms ({}); {} over 10 ms",
                w.time.0.as_secs_f64() * 1e3,
                name(&w.time.1),
                match slow {
                    1 => "1 file".to_string(),
                    n => format!("{n} files"),
                }
            ),
            met: w.time.0 <= SLOW,
        },
        Verdict {
            case,
            goal: "≤ 16 MiB above the input size".into(),
            measured: format!("{} ({})", crate::table::mib(w.extra.0), name(&w.extra.1)),
            met: w.extra.0 <= 16 * MIB,
        },
    ];
    (rows, verdicts)
}
