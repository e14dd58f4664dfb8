//! The bundle hash (`spec/mvb.md` §1.4): SHA-256 of the lines `<sha256>  <path>\n` of the
//! payload files, sorted by path.

use crate::digest::{ChunkDigest, hex};
use crate::invariant;
use alloc::string::String;
use alloc::vec::Vec;

/// The algorithm name of §1.4, as the manifest and marker state it.
pub(crate) const ALGORITHM: &str = "sha256-of-sorted-sha256-lines";

/// What the `covers` text states after the payload root (`spec/mvb.md` §1.2).
pub(crate) const COVERS_AFTER_ROOT: &str = "/ payload only; bundle-root metadata files are mutable and excluded";

/// The `covers` text for a payload root without trailing slash (`spec/mvb.md` §1.2).
pub fn covers(payload_root: &str) -> String {
    alloc::format!("{payload_root}{COVERS_AFTER_ROOT}")
}

/// The bundle hash of `(bundle path, lowercase hex SHA-256)` pairs in any order (§1.4),
/// as lowercase hex. Sorting is `O(n log n)`; hashing is linear in the lines.
pub fn bundle_hash<'a, I>(files: I) -> String
where
    I: IntoIterator<Item = (&'a str, &'a str)>,
{
    let mut lines: Vec<(&str, &str)> = files.into_iter().collect();
    lines.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let mut d = ChunkDigest::with_sha256();
    for (path, sha) in lines {
        d.update(sha.as_bytes());
        d.update(b"  ");
        d.update(path.as_bytes());
        d.update(b"\n");
    }
    // SHA-256 was asked for.
    invariant::some(d.finish().sha256.map(|s| hex(&s)))
}
