//! `modelgate-corpus-gen write DIR` regenerates the hostile corpus into DIR (normally
//! `hostile-corpus/`) with its `SHA256SUMS`; `modelgate-corpus-gen check DIR` exits 1 unless
//! DIR holds exactly those bytes and that manifest.

use modelgate_corpus_gen::{CorpusFile, SUMS, all, sums};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mode, dir) = match args.as_slice() {
        [mode, dir] if mode == "write" || mode == "check" => (mode.as_str(), PathBuf::from(dir)),
        _ => {
            eprintln!("usage: modelgate-corpus-gen write|check DIR");
            return ExitCode::from(2);
        }
    };
    let files = all();
    let result = if mode == "write" {
        write(&dir, &files)
    } else {
        check(&dir, &files)
    };
    match result {
        Ok(0) => ExitCode::SUCCESS,
        Ok(n) => {
            eprintln!("{n} corpus differences; run `cargo run -p modelgate-corpus-gen -- write hostile-corpus`");
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("corpus-gen: {e}");
            ExitCode::from(2)
        }
    }
}

fn write(dir: &Path, files: &[CorpusFile]) -> std::io::Result<usize> {
    for f in files {
        let path = dir.join(&f.path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, &f.bytes)?;
    }
    std::fs::write(dir.join(SUMS), sums(files))?;
    let stale = generated_names_on_disk(dir, files)?
        .into_iter()
        .filter(|p| !files.iter().any(|f| &f.path == p))
        .collect::<Vec<_>>();
    for p in &stale {
        std::fs::remove_file(dir.join(p))?;
    }
    println!("wrote {} files and {SUMS}; removed {} stale", files.len(), stale.len());
    Ok(0)
}

fn check(dir: &Path, files: &[CorpusFile]) -> std::io::Result<usize> {
    let mut diffs = 0;
    for f in files {
        match std::fs::read(dir.join(&f.path)) {
            Ok(bytes) if bytes == f.bytes => {}
            Ok(_) => {
                println!("differs: {}", f.path);
                diffs += 1;
            }
            Err(_) => {
                println!("missing: {}", f.path);
                diffs += 1;
            }
        }
    }
    if std::fs::read_to_string(dir.join(SUMS)).ok().as_deref() != Some(sums(files).as_str()) {
        println!("differs: {SUMS}");
        diffs += 1;
    }
    for p in generated_names_on_disk(dir, files)? {
        if !files.iter().any(|f| f.path == p) {
            println!("not generated: {p}");
            diffs += 1;
        }
    }
    println!("{} generated files checked, {diffs} differences", files.len());
    Ok(diffs)
}

/// Relative paths of the files under `dir` that this generator could own: the
/// `<Expected>-<case>.<ext>` files in the folders it writes into.
fn generated_names_on_disk(dir: &Path, files: &[CorpusFile]) -> std::io::Result<Vec<String>> {
    let mut folders: Vec<&str> = files
        .iter()
        .filter_map(|f| f.path.rsplit_once('/').map(|(d, _)| d))
        .collect();
    folders.sort_unstable();
    folders.dedup();
    let mut out = Vec::new();
    for folder in folders {
        let Ok(entries) = std::fs::read_dir(dir.join(folder)) else {
            continue;
        };
        for e in entries {
            let name = e?.file_name().to_string_lossy().into_owned();
            if name.contains('-') {
                out.push(format!("{folder}/{name}"));
            }
        }
    }
    out.sort();
    Ok(out)
}
