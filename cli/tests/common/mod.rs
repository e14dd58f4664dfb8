//! Helpers shared by the command-line tests: run the binaries, make scratch folders.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs `modelgate` with `args`.
pub fn modelgate(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_modelgate"))
        .args(args)
        .output()
        .unwrap()
}

/// Runs `corpus-check` with `args`.
pub fn corpus_check(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_corpus-check"))
        .args(args)
        .output()
        .unwrap()
}

/// Standard output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// Standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// Exit code, stdout and stderr together, for one exact comparison.
pub fn all(o: &Output) -> (Option<i32>, String, String) {
    (o.status.code(), stdout(o), stderr(o))
}

/// A fresh, empty folder for one test, unique to this test binary and `name`.
pub fn scratch(name: &str) -> PathBuf {
    let binary = module_path!().split("::").next().unwrap_or("cli");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{binary}-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes `bytes` to `dir/name` and returns the path as text.
pub fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.to_str().unwrap().to_string()
}

/// The path of `hostile-corpus/<folder>/<name>` as text.
pub fn corpus(folder: &str, name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../hostile-corpus")
        .join(folder)
        .join(name)
        .to_str()
        .unwrap()
        .to_string()
}
