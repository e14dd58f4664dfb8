//! `corpus-check DIR...`: the same as `modelgate corpus-check`.

use clap::Parser;
use std::path::PathBuf;
use std::process::ExitCode;

/// Check every `<Expected>-<case>.<ext>` file under the folders against the outcome its
/// name states (`valid` or an error kind); print mismatches and `N passed, N failed`.
#[derive(Parser)]
#[command(name = "corpus-check", version)]
struct Args {
    /// Folders to walk recursively.
    #[arg(required = true, value_name = "DIR")]
    dirs: Vec<PathBuf>,
}

fn main() -> ExitCode {
    modelgate_cli::commands::corpus_check(&Args::parse().dirs)
}
