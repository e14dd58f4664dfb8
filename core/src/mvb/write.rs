//! Entry headers and the in-memory bundle writer (`spec/mvb.md` §2.2, §2.3): GNU headers
//! with normalized metadata through the shared tar writer (`spec/mpk.md` §1.6).

use super::marker::{MARKER, Marker};
use crate::tar::writer::{END_OF_ARCHIVE, padding};
use crate::tar::{FileMeta, Flavor, WriteError, file_header};
use alloc::vec::Vec;

/// The metadata of every entry (§2.3): mode 0644, uid/gid 0, mtime `date_archived`.
pub(crate) fn meta(mtime: u64) -> FileMeta {
    FileMeta {
        mode: 0o644,
        mtime,
        uid: 0,
        gid: 0,
    }
}

/// The header block(s) of bundle file `path` of `size` bytes (§2.3): entry name
/// `<bundle_id>/<path>`, a GNU long-name entry first when it exceeds 100 bytes. Streaming
/// writers emit these, the data, then [`padding`]`(size)`.
pub fn entry_header(bundle_id: &str, path: &str, size: u64, mtime: u64) -> Result<Vec<u8>, WriteError> {
    let mut name = Vec::with_capacity(bundle_id.len() + 1 + path.len());
    name.extend_from_slice(bundle_id.as_bytes());
    name.push(b'/');
    name.extend_from_slice(path.as_bytes());
    file_header(&name, size, &meta(mtime), Flavor::Gnu)
}

/// Appends one whole entry (header, data, padding).
pub fn append_entry(out: &mut Vec<u8>, bundle_id: &str, path: &str, data: &[u8], mtime: u64) -> Result<(), WriteError> {
    let size = u64::try_from(data.len()).unwrap_or(u64::MAX);
    out.extend_from_slice(&entry_header(bundle_id, path, size, mtime)?);
    out.extend_from_slice(data);
    out.extend_from_slice(padding(size));
    Ok(())
}

/// An in-memory `.mvb.tar` (§2): `marker` first, then `files` (bundle path, bytes) sorted
/// by path, then the end marker. It checks nothing about the files (tests, corpus and
/// fuzzing build hostile variants with it); export is `modelgate_io::mvb::export`.
pub fn write_bundle(marker: &Marker, files: &[(&str, &[u8])], mtime: u64) -> Result<Vec<u8>, WriteError> {
    let mut sorted: Vec<&(&str, &[u8])> = files.iter().collect();
    sorted.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let mut out = Vec::new();
    append_entry(&mut out, &marker.bundle_id, MARKER, &marker.to_bytes(), mtime)?;
    for (path, data) in sorted {
        append_entry(&mut out, &marker.bundle_id, path, data, mtime)?;
    }
    out.extend_from_slice(&END_OF_ARCHIVE);
    Ok(out)
}
