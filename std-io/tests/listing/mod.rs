//! The names in a folder, for tests that check what an operation left on disk (a published
//! file and no temporary, an empty destination after a refusal, a vault's bundles).

use std::fs;
use std::path::Path;

/// Every name in `dir` (lossy UTF-8), sorted.
pub fn sorted_names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}
