//! MPK packages (`*.tar.gz`, `spec/mpk.md` §7): `check` streams the file through the
//! package reader and writes nothing; `inspect` lists the stages in order.

use super::{CheckError, Format};
use crate::Progress;
use crate::extract::check_package;
use modelgate_core::json::{Number, Writer};
use modelgate_core::mpk::{self, MpkError, MpkKind, MpkLimits, Package, Registry};
use std::fmt::Write as _;
use std::path::Path;

/// The `mpk` format.
pub struct Mpk;

impl Format for Mpk {
    fn name(&self) -> &'static str {
        "mpk"
    }

    fn kinds(&self) -> &'static [&'static str] {
        &MpkKind::KEYS
    }

    /// `.tar.gz` (longer than gzip's `.gz`, so it wins detection), and the names the
    /// extension rule exists to refuse (§3.0), so that they are reported as MPK.
    fn suffixes(&self) -> &'static [&'static str] {
        &[".tar.gz", ".tgz", ".mpk"]
    }

    /// gzip whose first decoded block is a tar header.
    fn sniff(&self, head: &[u8]) -> bool {
        super::gzip_holds_tar(head)
    }

    fn content(&self) -> Option<&'static str> {
        Some("gzip holding a tar archive")
    }

    /// Reports the compressed bytes read.
    fn check(&self, path: &Path, progress: Progress<'_>) -> Result<(), CheckError> {
        check_package(path, MpkLimits::DEFAULT, progress)
            .map(|_| ())
            .map_err(|e| e.into_check(MpkError::rejection))
    }

    /// The package's bytes through the same reader (§3.1–§3.7); the name rule (§3.0) needs
    /// a name, so it is not applied.
    fn check_bytes(&self, bytes: &[u8]) -> Result<(), CheckError> {
        mpk::check_tar_gz(bytes, MpkLimits::DEFAULT, Registry::DEFAULT, crate::hash_key())
            .map(|_| ())
            .map_err(|e| CheckError::Rejected(e.rejection()))
    }

    fn inspect(&self, path: &Path, json: bool) -> Option<Result<String, CheckError>> {
        let package = match check_package(path, MpkLimits::DEFAULT, &mut |_, _| {}) {
            Ok(p) => p,
            Err(e) => return Some(Err(e.into_check(MpkError::rejection))),
        };
        Some(Ok(if json {
            inspect_json(&package)
        } else {
            inspect_text(&package)
        }))
    }
}

/// Human-readable listing: the contract and its plugins in execution order, each file
/// with its destination, and each pipeline's stages in execution order (`spec/mpk.md` §7.2).
fn inspect_text(p: &Package) -> String {
    let mut s = String::new();
    let c = &p.contract;
    let _ = write!(s, "contract {}", p.contract_path);
    let about: Vec<String> = [("name", &c.name), ("model_sdk_version", &c.model_sdk_version)]
        .iter()
        .filter_map(|(k, v)| v.as_ref().map(|v| format!("{k} {v}")))
        .collect();
    if !about.is_empty() {
        let _ = write!(s, " ({})", about.join(", "));
    }
    s.push('\n');
    for pl in &c.plugins {
        let _ = write!(s, "plugin {} {} on {}", pl.sequence, pl.name, pl.processor);
        if let Some(k) = &pl.kernel {
            let _ = write!(s, " kernel {k}");
        }
        match (&pl.resolved, &pl.executable) {
            (Some(r), _) => {
                let _ = write!(s, " executable {r}");
            }
            (None, Some(e)) => {
                let _ = write!(s, " executable {e} (not a package file)");
            }
            (None, None) => {}
        }
        s.push('\n');
    }
    for f in &p.files {
        let _ = writeln!(s, "file {} -> {} ({} bytes)", f.path, f.dest, f.size);
    }
    for (i, pl) in p.pipelines.iter().flatten().enumerate() {
        let _ = writeln!(s, "pipeline {i}:");
        for (n, st) in pl.stages.iter().enumerate() {
            let input = if st.input.is_empty() {
                "-".to_string()
            } else {
                let names: Vec<&str> = st.input.iter().map(|&d| pl.dependency_name(d)).collect();
                names.join(", ")
            };
            let _ = writeln!(
                s,
                "  {}. {} (sequence_id {}) {}/{} plugin {} config etc/{} input {}",
                n + 1,
                st.name,
                st.sequence_id,
                st.processor,
                st.kernel,
                st.plugin_id,
                st.config_path,
                input
            );
        }
    }
    s
}

/// One canonical JSON document with the same content.
fn inspect_json(p: &Package) -> String {
    let mut w = Writer::new();
    let optional = |w: &mut Writer, name: &str, value: &Option<String>| {
        w.name(name);
        match value {
            Some(v) => w.string(v),
            None => w.null(),
        };
    };
    w.begin_object();
    w.name("contract").string(&p.contract_path);
    w.name("files").begin_array();
    for f in &p.files {
        w.begin_object();
        w.name("dest").string(&f.dest);
        w.name("path").string(&f.path);
        w.name("size").number(&Number::from_u64(f.size));
        w.end_object();
    }
    w.end_array();
    w.name("format").string("mpk");
    optional(&mut w, "model_sdk_version", &p.contract.model_sdk_version);
    optional(&mut w, "name", &p.contract.name);
    w.name("pipelines");
    match &p.pipelines {
        None => {
            w.null();
        }
        Some(pipelines) => {
            w.begin_array();
            for pl in pipelines {
                w.begin_object().name("stages").begin_array();
                for st in &pl.stages {
                    w.begin_object();
                    w.name("configPath").string(&st.config_path);
                    w.name("input").begin_array();
                    for &d in &st.input {
                        w.string(pl.dependency_name(d));
                    }
                    w.end_array();
                    w.name("kernel").string(&st.kernel);
                    w.name("name").string(&st.name);
                    w.name("pluginId").string(&st.plugin_id);
                    w.name("processor").string(&st.processor);
                    w.name("sequence_id").number(&Number::from_i64(st.sequence_id));
                    w.end_object();
                }
                w.end_array().end_object();
            }
            w.end_array();
        }
    }
    w.name("plugins").begin_array();
    for pl in &p.contract.plugins {
        w.begin_object();
        optional(&mut w, "executable", &pl.executable);
        optional(&mut w, "kernel", &pl.kernel);
        w.name("name").string(&pl.name);
        w.name("processor").string(&pl.processor);
        optional(&mut w, "resolved", &pl.resolved);
        w.name("sequence").number(&Number::from_u64(pl.sequence));
        w.end_object();
    }
    w.end_array();
    w.end_object();
    w.finish()
}
