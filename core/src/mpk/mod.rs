//! MPK model packages (`.tar.gz`): classification, required content, the pipeline and
//! the MPK contract, over the shared tar reader and path rules (`spec/mpk.md`).
//!
//! - `error`: the five taxonomy keys and [`MpkError`] (§5).
//! - `limits`: [`MpkLimits`] (§4).
//! - `classify`: `*.json`, `*.yaml`, `*.yml` → `etc/`, `*.so` → `lib/`, `*.elf` →
//!   `share/`, each file under its name alone (§3.2).
//! - `registry`: the processors, kernels and plugin types a package may name (§3.6).
//! - `pipeline`: `pipeline_sequence.json` (§3.4, §3.5).
//! - `contract`: `mpk.json` / `*_mpk.json`, its plugins and their executables (§3.7).
//! - `package`: the entry-by-entry check and the whole-package rules (§3.1, §3.3).
//! - `read`: [`MpkReader`], gzip → tar → check → [`crate::tar::EntrySink`] (§6.2), made
//!   of [`MpkInflate`] (the compressed half) and [`MpkEntries`] (the tar half).

pub(crate) mod classify;
pub(crate) mod contract;
pub(crate) mod error;
pub(crate) mod limits;
pub(crate) mod package;
pub(crate) mod pipeline;
pub(crate) mod read;
pub(crate) mod registry;

pub use classify::{Class, destination};
pub use contract::{Contract, Plugin};
pub use error::{MpkError, MpkKind};
pub use limits::MpkLimits;
pub use package::{Decision, Package, PackageCheck, PackageFile};
pub use pipeline::{Dependency, Pipeline, Stage};
pub use read::{Failure, MpkEntries, MpkInflate, MpkReader, check_tar_gz};
// The token walk over `pipeline_sequence.json` alone, and the reference it is held to: for
// the `mpk` fuzz target and the JSON memory tests. Not API.
#[doc(hidden)]
pub use pipeline::read_pipelines;
#[cfg(any(test, fuzzing))]
#[doc(hidden)]
pub use pipeline::reference as pipeline_reference;
pub use registry::{A65_KERNELS, CVU_KERNELS, EV74_KERNELS, KernelUse, PluginProcessor, Registry, StageProcessor};

/// The extension rule (`spec/mpk.md` §3.0): the file name ends in exactly lowercase
/// `.tar.gz` after a non-empty stem. `.mpk`, `.tgz`, `.tar`, bare `.gz` and any case
/// variant are `invalid_archive`, decided before any byte is read.
pub fn check_extension(file_name: &str) -> Result<(), MpkError> {
    match file_name.strip_suffix(".tar.gz") {
        Some(stem) if !stem.is_empty() => Ok(()),
        _ => Err(MpkError::new(
            MpkKind::InvalidArchive,
            "package file name must end in .tar.gz",
            crate::Location::NONE,
        )),
    }
}
