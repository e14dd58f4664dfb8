//! `*.mvb.tar`: the import's validating unpack (`spec/mvb.md` §4, §6.2) into a private
//! staging folder that is always removed (§8.1), and inspection of the marker and files.

use super::{CheckError, Format};
use crate::Progress;
use crate::mvb::check_archive;
use modelgate_core::digest::hex;
use modelgate_core::json::Writer;
use modelgate_core::mvb::{self, Imported, MvbError, MvbKind, MvbLimits};
use std::fmt::Write as _;
use std::path::Path;

/// The `mvb` format.
pub struct Mvb;

impl Format for Mvb {
    fn name(&self) -> &'static str {
        "mvb"
    }

    fn kinds(&self) -> &'static [&'static str] {
        &MvbKind::NAMES
    }

    /// `.mvb.tar`: longer than any `.tar` suffix, so detection picks it (§8.1).
    fn suffixes(&self) -> &'static [&'static str] {
        &[".mvb.tar"]
    }

    /// A tar archive: mvb exports are the only uncompressed tar format registered.
    fn sniff(&self, head: &[u8]) -> bool {
        super::is_tar(head)
    }

    fn content(&self) -> Option<&'static str> {
        Some("a tar archive")
    }

    /// Reports the bytes of the `.mvb.tar` read.
    fn check(&self, path: &Path, progress: Progress<'_>) -> Result<(), CheckError> {
        check_archive(path, progress)
            .map(|_| ())
            .map_err(|e| e.into_check(MvbError::rejection))
    }

    /// The import's validation over the bytes (§4), nothing unpacked.
    fn check_bytes(&self, bytes: &[u8]) -> Result<(), CheckError> {
        mvb::check_mvb(bytes, MvbLimits::DEFAULT, crate::hash_key())
            .map(|_| ())
            .map_err(|e| CheckError::Rejected(e.rejection()))
    }

    fn inspect(&self, path: &Path, json: bool) -> Option<Result<String, CheckError>> {
        Some(
            check_archive(path, &mut |_, _| {})
                .map(|i| if json { inspect_json(&i) } else { inspect_text(&i) })
                .map_err(|e| e.into_check(MvbError::rejection)),
        )
    }
}

fn inspect_text(i: &Imported) -> String {
    let m = &i.marker;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "bundle {} ({}, mvb {}, schema {})",
        m.bundle_id, m.artifact_type, m.format_version, m.schema_version
    );
    let _ = writeln!(s, "bundle hash {} ({})", i.bundle_hash, m.bundle_hash.algorithm);
    let _ = writeln!(
        s,
        "payload {} files, {} bytes",
        m.payload_file_count, m.payload_size_bytes
    );
    let _ = writeln!(s, "tar sha256 {} ({} bytes)", hex(&i.tar_sha256), i.tar_len);
    for f in &i.files {
        let _ = writeln!(s, "file {} {} {}", f.path, f.size, hex(&f.sha256));
    }
    s
}

fn inspect_json(i: &Imported) -> String {
    let m = &i.marker;
    let mut w = Writer::new();
    w.begin_object();
    w.name("artifact_type").string(&m.artifact_type);
    w.name("bundle_hash").string(&i.bundle_hash);
    w.name("bundle_id").string(&m.bundle_id);
    w.name("files").begin_array();
    for f in &i.files {
        w.begin_object();
        w.name("path").string(&f.path);
        w.name("sha256").string(&hex(&f.sha256));
        w.name("size").u64(f.size);
        w.end_object();
    }
    w.end_array();
    w.name("format").string("mvb");
    w.name("mvb_format_version").string(&m.format_version);
    w.name("schema_version").string(&m.schema_version);
    w.name("tar_sha256").string(&hex(&i.tar_sha256));
    w.name("tar_size").u64(i.tar_len);
    w.end_object();
    w.finish()
}
