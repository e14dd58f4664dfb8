//! `modelgate mpk extract PACKAGE.tar.gz DEST`: safe extraction of an MPK package
//! (`spec/mpk.md` §6). DEST must not exist; it appears, complete, only on success.

use crate::progress::Progress;
use clap::{Args, Subcommand};
use modelgate_core::mpk::{MpkLimits, Package};
use modelgate_io::extract::{ExtractError, extract};
use std::path::PathBuf;
use std::process::ExitCode;

/// `modelgate mpk ...` subcommands.
#[derive(Subcommand)]
pub enum MpkCommand {
    /// Validate PACKAGE.tar.gz and extract it to DEST (which must not exist): each file under
    /// its name alone, JSON and YAML files in DEST/etc, .so in DEST/lib, .elf in DEST/share.
    /// On any failure nothing is left behind.
    Extract(ExtractArgs),
}

/// Arguments of `modelgate mpk extract`.
#[derive(Args)]
pub struct ExtractArgs {
    /// The package; its name must end in exactly `.tar.gz`.
    #[arg(value_name = "PACKAGE.tar.gz")]
    package: PathBuf,
    /// Destination folder; must not exist (a symbolic link there is refused too).
    #[arg(value_name = "DEST")]
    dest: PathBuf,
}

/// Runs one `mpk` subcommand. Exit 0 on success, 1 when the package is rejected
/// (`PACKAGE: rejected (mpk) KIND: message`), 2 for usage or I/O errors. The compressed bytes
/// read are shown on stderr when it is a terminal.
pub fn run(command: MpkCommand) -> ExitCode {
    match command {
        MpkCommand::Extract(args) => {
            let mut line = Progress::bytes("extracting");
            let r = extract(&args.package, &args.dest, MpkLimits::DEFAULT, &mut |d, t| {
                line.update(d, t)
            });
            line.clear();
            report(&args, r)
        }
    }
}

fn report(args: &ExtractArgs, r: Result<Package, ExtractError>) -> ExitCode {
    match r {
        Ok(p) => {
            println!(
                "{}: extracted {} files, {} plugins to {}",
                args.package.display(),
                p.files.len(),
                p.contract.plugins.len(),
                args.dest.display()
            );
            ExitCode::SUCCESS
        }
        Err(ExtractError::Rejected(e)) => {
            println!("{}: rejected (mpk) {e}", args.package.display());
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("modelgate: {}: {e}", args.package.display());
            ExitCode::from(2)
        }
    }
}
