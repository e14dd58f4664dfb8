//! `corpus-check DIR...`: the same as `modelgate corpus-check`.

use clap::Parser;
use std::path::PathBuf;
use std::process::ExitCode;

/// Check every `<Expected>-<case>.<ext>` file under folders against its name
///
/// `<Expected>` is `valid` or an error kind. Prints each mismatch, each path skipped and how
/// many, then `N passed, N failed`. Exit 1 when any failed, when a path does not exist or when
/// nothing was checked; 2 when a folder cannot be read.
#[derive(Parser)]
#[command(name = "corpus-check", version, max_term_width = 100)]
struct Args {
    /// Folders (or files) to walk recursively.
    #[arg(required = true, value_name = "DIR")]
    dirs: Vec<PathBuf>,
}

fn main() -> ExitCode {
    modelgate_cli::commands::corpus_check(&Args::parse().dirs)
}
