//! Timing one run: in process (wall time and peak heap from the counting allocator) or as
//! child processes (wall time including process start, peak RSS from `wait4`).
//!
//! A child started straight from the benchmark would report the benchmark's own peak RSS:
//! Linux carries the pre-`exec` address space's high-water mark into `ru_maxrss`, and the
//! benchmark holds hundreds of MiB of payload. So every command runs under a fresh copy of
//! this program (`--measure-child`), a few MiB large, which times the command, reaps it
//! with `wait4` and prints `seconds rss-bytes`; that copy's size is the floor of every RSS
//! figure (see [`floor`]).

use crate::sys;
use modelgate_corpus_gen::counting;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// One measured run.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sample {
    /// Wall time.
    pub time: Duration,
    /// Peak memory in bytes: live heap above the start for in-process runs, the largest
    /// child's RSS for child runs.
    pub mem: u64,
}

/// Runs `f` in process; the value it returns is dropped after the clock stops.
pub fn in_process<T>(f: impl FnOnce() -> T) -> Sample {
    let ((value, time), usage) = counting::measure(|| {
        let start = Instant::now();
        let value = f();
        (value, start.elapsed())
    });
    drop(value);
    Sample {
        time,
        mem: usage.peak as u64,
    }
}

/// Runs each command in turn as a child process (stdout discarded); the times add up and
/// the memory is the largest child's peak RSS. A failing command ends the benchmark: a
/// peer that did not do the work must not be timed.
pub fn children(commands: &[Vec<String>], dir: &Path) -> Sample {
    let mut total = Sample::default();
    for argv in commands {
        let s = child(argv, dir);
        total.time += s.time;
        total.mem = total.mem.max(s.mem);
    }
    total
}

fn child(argv: &[String], dir: &Path) -> Sample {
    let me = std::env::current_exe().unwrap_or_else(|e| fail(&format!("current_exe: {e}")));
    let out = Command::new(me)
        .arg(HELPER)
        .args(argv)
        .current_dir(dir)
        .stderr(Stdio::inherit())
        .output()
        .unwrap_or_else(|e| fail(&format!("cannot start the measuring helper: {e}")));
    if !out.status.success() {
        fail(&format!("{} failed ({})", argv.join(" "), out.status));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut words = text.split_whitespace();
    let secs: f64 = words.next().and_then(|w| w.parse().ok()).unwrap_or(0.0);
    let rss: u64 = words.next().and_then(|w| w.parse().ok()).unwrap_or(0);
    Sample {
        time: Duration::from_secs_f64(secs),
        mem: rss,
    }
}

/// The argument that makes this program the measuring helper.
pub const HELPER: &str = "--measure-child";

/// The helper (`compare --measure-child PROGRAM ARGS...`): runs the command in the current
/// folder, prints `seconds rss-bytes`, exits with status 0 only when the command did.
pub fn helper(argv: &[String]) -> ! {
    let s = direct(argv, Path::new("."));
    println!("{} {}", s.time.as_secs_f64(), s.mem);
    std::process::exit(0)
}

/// Peak RSS of `true` run through the helper: what every child RSS figure includes.
pub fn floor() -> u64 {
    child(&["true".to_string()], Path::new(".")).mem
}

#[expect(clippy::zombie_processes, reason = "the child is reaped by wait4 in sys::wait_rss")]
fn direct(argv: &[String], dir: &Path) -> Sample {
    let (program, args) = argv.split_first().unwrap_or_else(|| fail("empty command"));
    let start = Instant::now();
    let spawned = Command::new(program)
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| fail(&format!("cannot start {program}: {e}")));
    let (code, rss) = sys::wait_rss(&spawned).unwrap_or_else(|e| fail(&format!("wait4 {program}: {e}")));
    let time = start.elapsed();
    if code != 0 {
        fail(&format!("{} exited with {code}", argv.join(" ")));
    }
    Sample { time, mem: rss }
}

/// Prints `msg` and ends the benchmark with exit status 1.
pub fn fail(msg: &str) -> ! {
    eprintln!("compare: {msg}");
    std::process::exit(1)
}

/// The median of the samples' times and the largest memory seen.
pub fn summarise(samples: &[Sample]) -> Sample {
    let mut times: Vec<Duration> = samples.iter().map(|s| s.time).collect();
    times.sort();
    let n = times.len();
    let time = match n {
        0 => Duration::ZERO,
        _ if n % 2 == 1 => times[n / 2],
        _ => (times[n / 2 - 1] + times[n / 2]) / 2,
    };
    let mem = samples.iter().map(|s| s.mem).max().unwrap_or(0);
    Sample { time, mem }
}
