//! `modelgate mvb export|import|verify` (`spec/mvb.md` §5 to §7). Exit 0 on success, 1 when
//! the bundle or archive is rejected (`PATH: rejected (mvb) KIND: message (location)`: on
//! stderr for `export` and `import`, on stdout for `verify`), 2 for usage and I/O errors (an
//! existing destination included). Progress in bytes on stderr when it is a terminal.

use crate::output::{self, USAGE_OR_IO};
use crate::paths;
use crate::progress::Progress;
use clap::{Args, Subcommand};
use modelgate_core::digest::hex;
use modelgate_io::mvb::{MvbIoError, export, import, verify_archive, verify_folder};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `modelgate mvb ...` subcommands.
#[derive(Subcommand)]
pub enum MvbCommand {
    /// Pack a bundle folder into OUT_DIR/<bundle_id>.mvb.tar
    ///
    /// Deterministic GNU tar, marker first, the payload re-hashed against the manifest while
    /// it is written; then the export is logged in the bundle's exports.json.
    Export(ExportArgs),
    /// Validate an .mvb.tar and move its bundle into VAULT_DIR/<bundle_id>
    ///
    /// One streaming pass into a private staging folder; only when everything passed is the
    /// bundle moved into the vault. On any failure the vault is unchanged.
    Import(ImportArgs),
    /// Re-hash a bundle folder or an .mvb.tar (not unpacked) against its manifest
    ///
    /// Reports missing, extra and mismatched files and the bundle hash.
    Verify(VerifyArgs),
}

/// Arguments of `modelgate mvb export`.
#[derive(Args)]
pub struct ExportArgs {
    /// Replace an existing OUT_DIR/<bundle_id>.mvb.tar (atomically).
    #[arg(long)]
    overwrite: bool,
    /// The bundle folder (holding manifest.json).
    #[arg(value_name = "BUNDLE_DIR")]
    bundle: PathBuf,
    /// The folder to write <bundle_id>.mvb.tar into.
    #[arg(value_name = "OUT_DIR")]
    out: PathBuf,
}

/// Arguments of `modelgate mvb import`.
#[derive(Args)]
pub struct ImportArgs {
    /// The export file; its name must end in `.mvb.tar`.
    #[arg(value_name = "FILE.mvb.tar")]
    file: PathBuf,
    /// The vault folder; the bundle appears as VAULT_DIR/<bundle_id>, which must not exist.
    #[arg(value_name = "VAULT_DIR")]
    vault: PathBuf,
}

/// Arguments of `modelgate mvb verify`.
#[derive(Args)]
pub struct VerifyArgs {
    /// A bundle folder or an .mvb.tar file.
    #[arg(value_name = "BUNDLE_DIR|FILE.mvb.tar")]
    target: PathBuf,
}

/// A failed export or import of `input` into `output`: a rejection on stderr (exit 1), an
/// existing destination or an I/O error (exit 2).
fn failure(input: &Path, output: &Path, e: MvbIoError, what: &str) -> ExitCode {
    match e {
        MvbIoError::Rejected(e) => output::rejected(input, "mvb", e),
        MvbIoError::Exists(p) => {
            output::error(&p, what);
            ExitCode::from(USAGE_OR_IO)
        }
        MvbIoError::Io(e) => output::io_between(input, output, e),
    }
}

/// Runs one `mvb` subcommand: `export` and `import` print what they wrote on stdout (unless
/// `quiet`) and a failure on stderr; `verify` prints its verdict on stdout, like `check`.
pub fn run(command: MvbCommand, quiet: bool) -> ExitCode {
    match command {
        MvbCommand::Export(a) => {
            if let Err(e) = paths::folder(&a.bundle).and_then(|()| paths::folder(&a.out)) {
                return output::path_error(&e);
            }
            let mut p = Progress::bytes("exporting").quiet(quiet);
            let r = export(&a.bundle, &a.out, a.overwrite, &mut |d, t| p.update(d, t));
            p.clear();
            match r {
                Ok(x) => output::done(
                    &format!(
                        "{}: exported {} files, {} bytes, sha256 {}",
                        x.path.display(),
                        x.files,
                        x.size,
                        hex(&x.sha256)
                    ),
                    quiet,
                ),
                Err(e) => failure(&a.bundle, &a.out, e, "already exists; use --overwrite to replace it"),
            }
        }
        MvbCommand::Import(a) => {
            if let Err(e) = paths::input_file(&a.file).and_then(|()| paths::folder(&a.vault)) {
                return output::path_error(&e);
            }
            let mut p = Progress::bytes("importing").quiet(quiet);
            let r = import(&a.file, &a.vault, &mut |d, t| p.update(d, t));
            p.clear();
            match r {
                Ok(x) => output::done(
                    &format!(
                        "{}: imported {} to {} (bundle hash {})",
                        a.file.display(),
                        x.imported.marker.bundle_id,
                        x.dest.display(),
                        x.imported.bundle_hash
                    ),
                    quiet,
                ),
                Err(e) => failure(&a.file, &a.vault, e, "already exists; a folder is never replaced"),
            }
        }
        MvbCommand::Verify(a) => verify(&a.target, quiet),
    }
}

/// `mvb verify`: like `check`, the verdict on stdout (`ok` lines left out when `quiet`),
/// I/O errors on stderr.
fn verify(target: &Path, quiet: bool) -> ExitCode {
    let mut p = Progress::bytes("verifying").quiet(quiet);
    let printed = if target.is_dir() {
        let r = verify_folder(target, &mut |d, t| p.update(d, t));
        p.clear();
        match r {
            Ok(report) if report.problems.is_empty() => ok(target, report.files, &report.bundle_hash, quiet),
            Ok(report) => {
                for e in &report.problems {
                    if let Err(e) = output::emit(&format!("{}: rejected (mvb) {e}", target.display())) {
                        return output::output_failed("modelgate", &e);
                    }
                }
                return ExitCode::from(output::REJECTED);
            }
            Err(e) => return verify_failure(target, e),
        }
    } else {
        let r = verify_archive(target, &mut |d, t| p.update(d, t));
        p.clear();
        match r {
            Ok(i) => ok(target, i.manifest.files.len(), &i.bundle_hash, quiet),
            Err(e) => return verify_failure(target, e),
        }
    };
    match printed {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => output::output_failed("modelgate", &e),
    }
}

fn ok(target: &Path, files: usize, bundle_hash: &str, quiet: bool) -> std::io::Result<()> {
    if quiet {
        return Ok(());
    }
    output::emit(&format!(
        "{}: ok (mvb) {files} payload files, bundle hash {bundle_hash}",
        target.display()
    ))
}

/// A verification that did not finish: the rejection on stdout (exit 1), anything else on
/// stderr (exit 2).
fn verify_failure(target: &Path, e: MvbIoError) -> ExitCode {
    match e {
        MvbIoError::Rejected(e) => match output::emit(&format!("{}: rejected (mvb) {e}", target.display())) {
            Ok(()) => ExitCode::from(output::REJECTED),
            Err(e) => output::output_failed("modelgate", &e),
        },
        other => {
            output::error(target, other);
            ExitCode::from(USAGE_OR_IO)
        }
    }
}
