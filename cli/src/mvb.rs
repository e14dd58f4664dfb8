//! `modelgate mvb export|import|verify` (`spec/mvb.md` §5 to §7). Exit 0 on success, 1 when
//! the bundle or archive is rejected (`PATH: rejected (mvb) KIND: message (location)`), 2 for
//! usage and I/O errors (an existing destination included). Progress in bytes on stderr
//! when it is a terminal.

use crate::progress::Progress;
use clap::{Args, Subcommand};
use modelgate_core::digest::hex;
use modelgate_io::mvb::{MvbIoError, export, import, verify_archive, verify_folder};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `modelgate mvb ...` subcommands.
#[derive(Subcommand)]
pub enum MvbCommand {
    /// Pack BUNDLE_DIR into OUT_DIR/<bundle_id>.mvb.tar (deterministic GNU tar, marker first,
    /// payload re-hashed against the manifest while written), then log the export in the
    /// bundle's exports.json.
    Export(ExportArgs),
    /// Validate FILE.mvb.tar in one streaming pass into a private staging folder and, only
    /// when everything passed, move the bundle into VAULT_DIR/<bundle_id>. On any failure
    /// the vault is unchanged.
    Import(ImportArgs),
    /// Re-hash the payload of a bundle folder or an .mvb.tar (not unpacked) against its
    /// manifest; report missing, extra and mismatched files and the bundle hash.
    Verify(VerifyArgs),
}

/// Arguments of `modelgate mvb export`.
#[derive(Args)]
pub struct ExportArgs {
    /// The bundle folder (holding manifest.json).
    #[arg(value_name = "BUNDLE_DIR")]
    bundle: PathBuf,
    /// Folder to write <bundle_id>.mvb.tar into (an existing file there is refused).
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

fn failure(path: &Path, e: &MvbIoError) -> ExitCode {
    match e {
        MvbIoError::Rejected(e) => {
            println!("{}: rejected (mvb) {e}", path.display());
            ExitCode::from(1)
        }
        other => {
            eprintln!("modelgate: {}: {other}", path.display());
            ExitCode::from(2)
        }
    }
}

/// Runs one `mvb` subcommand.
pub fn run(command: MvbCommand) -> ExitCode {
    match command {
        MvbCommand::Export(a) => {
            let mut p = Progress::bytes("exporting");
            let r = export(&a.bundle, &a.out, &mut |d, t| p.update(d, t));
            p.clear();
            match r {
                Ok(x) => {
                    println!(
                        "{}: exported {} files, {} bytes, sha256 {}",
                        x.path.display(),
                        x.files,
                        x.size,
                        hex(&x.sha256)
                    );
                    ExitCode::SUCCESS
                }
                Err(e) => failure(&a.bundle, &e),
            }
        }
        MvbCommand::Import(a) => {
            let mut p = Progress::bytes("importing");
            let r = import(&a.file, &a.vault, &mut |d, t| p.update(d, t));
            p.clear();
            match r {
                Ok(x) => {
                    println!(
                        "{}: imported {} to {} (bundle hash {})",
                        a.file.display(),
                        x.imported.marker.bundle_id,
                        x.dest.display(),
                        x.imported.bundle_hash
                    );
                    ExitCode::SUCCESS
                }
                Err(e) => failure(&a.file, &e),
            }
        }
        MvbCommand::Verify(a) => verify(&a.target),
    }
}

fn verify(target: &Path) -> ExitCode {
    let mut p = Progress::bytes("verifying");
    if target.is_dir() {
        let r = verify_folder(target, &mut |d, t| p.update(d, t));
        p.clear();
        return match r {
            Ok(report) if report.problems.is_empty() => {
                println!(
                    "{}: ok (mvb) {} payload files, bundle hash {}",
                    target.display(),
                    report.files,
                    report.bundle_hash
                );
                ExitCode::SUCCESS
            }
            Ok(report) => {
                for e in &report.problems {
                    println!("{}: rejected (mvb) {e}", target.display());
                }
                ExitCode::from(1)
            }
            Err(e) => failure(target, &e),
        };
    }
    let r = verify_archive(target, &mut |d, t| p.update(d, t));
    p.clear();
    match r {
        Ok(i) => {
            println!(
                "{}: ok (mvb) {} payload files, bundle hash {}",
                target.display(),
                i.manifest.files.len(),
                i.bundle_hash
            );
            ExitCode::SUCCESS
        }
        Err(e) => failure(target, &e),
    }
}
