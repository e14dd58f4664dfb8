//! Output: the Markdown table of medians, throughput, memory and ratios, the goal verdicts,
//! and `results.json` for `compare.py`.

use crate::cases::{Mem, Row, Verdict};
use crate::data::write;
use serde_json::json;
use std::path::Path;

/// `n` bytes in MiB with one decimal.
pub fn mib(n: u64) -> String {
    format!("{:.1} MiB", n as f64 / 1048576.0)
}

fn time(d: std::time::Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 1.0 {
        format!("{s:.2} s")
    } else {
        format!("{:.2} ms", s * 1e3)
    }
}

/// Prints the table: for every peer row, modelgate's speed relative to it (peer time /
/// modelgate time; above 1 means modelgate is faster).
pub fn print(rows: &[Row], verdicts: &[Verdict]) {
    println!("| case | implementation | median | MiB/s | peak memory | modelgate speed vs this |");
    println!("|---|---|---|---|---|---|");
    let mut first: Option<&Row> = None;
    for r in rows {
        if first.is_none_or(|f| f.case != r.case) {
            first = Some(r);
        }
        let lead = first.unwrap_or(r);
        let ratio = if std::ptr::eq(lead, r) || r.time.is_zero() {
            "—".to_string()
        } else {
            format!("{:.2}×", r.time.as_secs_f64() / lead.time.as_secs_f64().max(1e-12))
        };
        let tput = if r.bytes == 0 || r.time.is_zero() {
            "—".to_string()
        } else {
            format!("{:.0}", r.bytes as f64 / 1048576.0 / r.time.as_secs_f64())
        };
        let mem = match (r.mem_kind, r.mem) {
            (_, 0) => "—".to_string(),
            (Mem::Heap, m) => format!("{} heap", mib(m)),
            (Mem::Rss, m) => format!("{} RSS", mib(m)),
        };
        let t = if r.time.is_zero() {
            "—".to_string()
        } else {
            time(r.time)
        };
        let imp = if r.note.is_empty() {
            r.imp.clone()
        } else {
            format!("{} (`{}`)", r.imp, r.note)
        };
        println!("| {} | {imp} | {t} | {tput} | {mem} | {ratio} |", r.case);
    }
    println!();
    println!("| case | goal | measured | met |");
    println!("|---|---|---|---|");
    for v in verdicts {
        let met = if v.met { "yes" } else { "**no**" };
        println!("| {} | {} | {} | {met} |", v.case, v.goal, v.measured);
    }
}

/// Writes `results.json`: options, machine, every row, and the fixture paths.
pub fn save(path: &Path, header: serde_json::Value, rows: &[Row], files: serde_json::Value) {
    let rows: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            json!({
                "case": r.case, "impl": r.imp, "median_s": r.time.as_secs_f64(), "bytes": r.bytes,
                "mem": r.mem, "mem_kind": if r.mem_kind == Mem::Rss { "rss" } else { "heap" }, "note": r.note,
            })
        })
        .collect();
    let doc = json!({ "run": header, "rows": rows, "files": files });
    let text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    write(path, text.as_bytes());
}
