//! `modelgate mpk extract PACKAGE.tar.gz DEST`: safe extraction of an MPK package
//! (`spec/mpk.md` §6). DEST must not exist; it appears, complete, only on success.

use crate::output::{self, USAGE_OR_IO};
use crate::paths;
use crate::progress::Progress;
use clap::{Args, Subcommand};
use modelgate_core::mpk::{MpkLimits, Package};
use modelgate_io::extract::{ExtractError, extract};
use std::path::PathBuf;
use std::process::ExitCode;

/// `modelgate mpk ...` subcommands.
#[derive(Subcommand)]
pub enum MpkCommand {
    /// Validate an MPK package and extract it to a new folder
    ///
    /// Each file goes under its name alone: JSON and YAML files in DEST/etc, .so in DEST/lib,
    /// .elf in DEST/share. DEST must not exist; on any failure nothing is left behind.
    Extract(ExtractArgs),
}

/// Arguments of `modelgate mpk extract`.
#[derive(Args)]
pub struct ExtractArgs {
    /// The package; its name must end in exactly `.tar.gz`.
    #[arg(value_name = "PACKAGE.tar.gz")]
    package: PathBuf,
    /// The folder to create; must not exist (a symbolic link there is refused too).
    #[arg(value_name = "DEST")]
    dest: PathBuf,
}

/// Runs one `mpk` subcommand. Exit 0 on success (`PACKAGE: extracted N files, N plugins to
/// DEST` on stdout unless `quiet`), 1 when the package is rejected (`PACKAGE: rejected (mpk)
/// KIND: message` on stderr), 2 for usage or I/O errors. The compressed bytes read are shown
/// on stderr when it is a terminal.
pub fn run(command: MpkCommand, quiet: bool) -> ExitCode {
    match command {
        MpkCommand::Extract(args) => {
            if let Err(e) = paths::input_file(&args.package).and_then(|()| paths::new_folder(&args.dest)) {
                return output::path_error(&e);
            }
            let mut line = Progress::bytes("extracting").quiet(quiet);
            let r = extract(&args.package, &args.dest, MpkLimits::DEFAULT, &mut |d, t| {
                line.update(d, t)
            });
            line.clear();
            report(&args, r, quiet)
        }
    }
}

fn report(args: &ExtractArgs, r: Result<Package, ExtractError>, quiet: bool) -> ExitCode {
    match r {
        Ok(p) => output::done(
            &format!(
                "{}: extracted {} files, {} plugins to {}",
                args.package.display(),
                p.files.len(),
                p.contract.plugins.len(),
                args.dest.display()
            ),
            quiet,
        ),
        Err(ExtractError::Rejected(e)) => output::rejected(&args.package, "mpk", e),
        Err(ExtractError::Exists(p)) => {
            output::error(&p, "already exists; a folder is never replaced");
            ExitCode::from(USAGE_OR_IO)
        }
        Err(ExtractError::Io(e)) => output::io_between(&args.package, &args.dest, e),
    }
}
