//! The benchmark's files under `target/bench-data/`: each is built once by a deterministic
//! generator and reused while its recipe (generator version and sizes) and its recorded
//! SHA-256 still match; otherwise it is rebuilt.

use crate::measure::fail;
use sha2::{Digest, Sha256};
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Bumped whenever a generator changes its output.
const GENERATOR: &str = "compare-data-v3";

/// `path`, built by `make` unless a previous build with the same `recipe` is present and
/// still hashes to what was recorded. `path` may be a file or a folder.
pub fn cached(path: &Path, recipe: &str, make: impl FnOnce(&Path)) -> PathBuf {
    let record = sidecar(path);
    let want = format!("{GENERATOR} {recipe}");
    if let Ok(text) = fs::read_to_string(&record)
        && let Some((r, sum)) = text.trim_end().rsplit_once('\n')
        && r == want
        && tree_sha256(path).as_deref() == Some(sum)
    {
        return path.to_path_buf();
    }
    eprintln!("compare: generating {}", path.display());
    remove(path);
    let _ = fs::remove_file(&record);
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).unwrap_or_else(|e| fail(&format!("{}: {e}", parent.display())));
    }
    make(path);
    let sum = tree_sha256(path).unwrap_or_else(|| fail(&format!("{} was not generated", path.display())));
    write(&record, format!("{want}\n{sum}\n").as_bytes());
    path.to_path_buf()
}

fn sidecar(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".recipe");
    path.with_file_name(name)
}

/// Removes a file or folder if present.
pub fn remove(path: &Path) {
    match fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => fs::remove_dir_all(path).unwrap_or_else(|e| fail(&format!("{}: {e}", path.display()))),
        Ok(_) => fs::remove_file(path).unwrap_or_else(|e| fail(&format!("{}: {e}", path.display()))),
        Err(_) => {}
    }
}

/// Writes `bytes` to `path`, ending the benchmark on failure.
pub fn write(path: &Path, bytes: &[u8]) {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).unwrap_or_else(|e| fail(&format!("{}: {e}", parent.display())));
    }
    fs::write(path, bytes).unwrap_or_else(|e| fail(&format!("{}: {e}", path.display())));
}

/// Reads `path` whole, ending the benchmark on failure.
pub fn read(path: &Path) -> Vec<u8> {
    fs::read(path).unwrap_or_else(|e| fail(&format!("{}: {e}", path.display())))
}

/// SHA-256 over a file, or over every file of a folder in sorted order (relative path,
/// then contents); `None` when nothing is there.
pub fn tree_sha256(path: &Path) -> Option<String> {
    let mut files = Vec::new();
    list(path, path, &mut files).ok()?;
    files.sort();
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    for (rel, full) in files {
        h.update(rel.as_bytes());
        h.update([0]);
        let mut f = fs::File::open(full).ok()?;
        loop {
            let n = f.read(&mut buf).ok()?;
            if n == 0 {
                break;
            }
            h.update(&buf[..n]);
        }
    }
    Some(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

fn list(root: &Path, at: &Path, out: &mut Vec<(String, PathBuf)>) -> std::io::Result<()> {
    let meta = fs::symlink_metadata(at)?;
    if meta.is_dir() {
        for e in fs::read_dir(at)? {
            list(root, &e?.path(), out)?;
        }
    } else {
        let rel = at.strip_prefix(root).unwrap_or(at).to_string_lossy().into_owned();
        out.push((rel, at.to_path_buf()));
    }
    Ok(())
}

/// Total bytes of the regular files under `path` (or of the file itself).
pub fn size_of(path: &Path) -> u64 {
    let mut files = Vec::new();
    let _ = list(path, path, &mut files);
    files
        .iter()
        .filter_map(|(_, p)| fs::metadata(p).ok())
        .map(|m| m.len())
        .sum()
}
