//! Cases: each names its implementations (modelgate first, then its peers) and the goals
//! it is judged by (README "Benchmarks"). Implementations run alternately, `reps` times each.

pub mod bombs;
pub mod disk;
pub mod hostile;
pub mod inproc;

use crate::measure::{Sample, summarise};
use std::time::Duration;

/// One implementation of a case: a closure that prepares (untimed) and runs one timed pass.
pub struct Imp {
    /// Shown in the table.
    pub name: String,
    /// One measured run.
    pub run: Box<dyn FnMut() -> Sample>,
}

impl Imp {
    /// An implementation called `name`.
    pub fn new(name: &str, run: impl FnMut() -> Sample + 'static) -> Imp {
        Imp {
            name: name.to_string(),
            run: Box::new(run),
        }
    }
}

/// A goal for modelgate's row.
#[derive(Clone, Copy)]
pub enum Goal {
    /// Peer time / modelgate time at least `at_least`.
    Speed {
        /// The peer's implementation name.
        peer: &'static str,
        /// Smallest acceptable ratio.
        at_least: f64,
        /// The goal as the results table prints it.
        text: &'static str,
    },
    /// modelgate's peak memory at most `bytes`.
    Memory {
        /// Largest acceptable peak.
        bytes: u64,
        /// The goal as the results table prints it.
        text: &'static str,
    },
}

/// What memory a case's rows show.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mem {
    /// Peak live heap above the start (counting allocator), in-process runs.
    Heap,
    /// Peak resident set size of the child process (`wait4`).
    Rss,
}

/// A case.
pub struct Case {
    /// Case name (the filter matches it).
    pub name: &'static str,
    /// Bytes one run processes, for throughput.
    pub bytes: u64,
    /// What the memory column shows.
    pub mem: Mem,
    /// modelgate first, then peers.
    pub imps: Vec<Imp>,
    /// Goals judged on the medians.
    pub goals: Vec<Goal>,
}

/// One table row.
#[derive(Clone)]
pub struct Row {
    /// Case name.
    pub case: String,
    /// Implementation name.
    pub imp: String,
    /// Median time.
    pub time: Duration,
    /// Bytes per run.
    pub bytes: u64,
    /// Peak memory (largest over runs).
    pub mem: u64,
    /// What `mem` is.
    pub mem_kind: Mem,
    /// Extra words (which file, for the corpus case).
    pub note: String,
}

/// One judged goal.
pub struct Verdict {
    /// Case name.
    pub case: String,
    /// The goal text.
    pub goal: String,
    /// What was measured.
    pub measured: String,
    /// Whether the goal is met.
    pub met: bool,
}

/// Runs `case` `reps` times alternately and judges its goals.
pub fn run(mut case: Case, reps: usize) -> (Vec<Row>, Vec<Verdict>) {
    eprintln!("compare: {} ({} implementations × {reps})", case.name, case.imps.len());
    let mut samples: Vec<Vec<Sample>> = case.imps.iter().map(|_| Vec::new()).collect();
    for _ in 0..reps {
        for (imp, s) in case.imps.iter_mut().zip(samples.iter_mut()) {
            s.push((imp.run)());
        }
    }
    let rows: Vec<Row> = case
        .imps
        .iter()
        .zip(&samples)
        .map(|(imp, s)| {
            let m = summarise(s);
            Row {
                case: case.name.to_string(),
                imp: imp.name.clone(),
                time: m.time,
                bytes: case.bytes,
                mem: m.mem,
                mem_kind: case.mem,
                note: String::new(),
            }
        })
        .collect();
    let verdicts = case.goals.iter().filter_map(|g| judge(case.name, g, &rows)).collect();
    (rows, verdicts)
}

fn judge(case: &str, goal: &Goal, rows: &[Row]) -> Option<Verdict> {
    let mg = rows.first()?;
    let (text, measured, met) = match *goal {
        Goal::Speed { peer, at_least, text } => {
            let p = rows.iter().find(|r| r.imp == peer)?;
            let ratio = p.time.as_secs_f64() / mg.time.as_secs_f64().max(1e-12);
            (text, format!("{ratio:.2}× {peer}"), ratio >= at_least)
        }
        Goal::Memory { bytes, text } => (text, crate::table::mib(mg.mem), mg.mem <= bytes),
    };
    Some(Verdict {
        case: case.to_string(),
        goal: text.to_string(),
        measured,
        met,
    })
}
