//! `modelgate`: check, inspect and convert model-container files.

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "modelgate",
    version,
    about = "Strict reader, checker and writer for model-container files"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the full validating read of each file and print `FILE: ok (FORMAT)` or
    /// `FILE: rejected (FORMAT) KIND: message`. Exit 0 when all are ok, 1 when any is
    /// rejected, 2 for usage or I/O errors.
    Check {
        /// Format to check as (default: from the file name, then from the first bytes).
        #[arg(long, value_name = "FORMAT")]
        format: Option<String>,
        /// Print one JSON object per file with keys file, format, ok, kind, message, location.
        #[arg(long)]
        json: bool,
        /// OneModel and ONNX: largest tensor in bytes (default 2^31 - 1, at most 2^63 - 1).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(0..=i64::MAX as u64))]
        max_tensor_bytes: Option<u64>,
        /// Files to check.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
    },
    /// Validate a file and describe what it holds (members, manifest, stages).
    Inspect {
        /// Format to inspect as (default: from the file name, then from the first bytes).
        #[arg(long, value_name = "FORMAT")]
        format: Option<String>,
        /// Print one JSON document instead of text.
        #[arg(long)]
        json: bool,
        /// OneModel and ONNX: largest tensor in bytes (default 2^31 - 1, at most 2^63 - 1).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(0..=i64::MAX as u64))]
        max_tensor_bytes: Option<u64>,
        /// File to inspect.
        #[arg(value_name = "FILE")]
        file: PathBuf,
    },
    /// Write mlbundle files (`modelgate mlbundle pack ...`).
    Mlbundle {
        #[command(subcommand)]
        command: modelgate_cli::mlbundle::MlbundleCommand,
    },
    /// Extract MPK packages safely (`modelgate mpk extract PACKAGE.tar.gz DEST`).
    Mpk {
        #[command(subcommand)]
        command: modelgate_cli::mpk::MpkCommand,
    },
    /// Export, import and verify mvb bundles (`modelgate mvb export|import|verify`).
    Mvb {
        #[command(subcommand)]
        command: modelgate_cli::mvb::MvbCommand,
    },
    /// Convert between ONNX and OneModel (`modelgate onemodel convert|to-onnx IN OUT`).
    Onemodel {
        #[command(subcommand)]
        command: modelgate_cli::onemodel::OnemodelCommand,
    },
    /// Check every `<Expected>-<case>.<ext>` file under the folders against the outcome its
    /// name states (`valid` or an error kind); print mismatches and `N passed, N failed`.
    CorpusCheck {
        /// Folders to walk recursively.
        #[arg(required = true, value_name = "DIR")]
        dirs: Vec<PathBuf>,
    },
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Check {
            format,
            json,
            max_tensor_bytes,
            files,
        } => {
            if let Some(n) = max_tensor_bytes {
                modelgate_io::onemodel::set_max_tensor_bytes(n);
            }
            modelgate_cli::commands::check(&files, format.as_deref(), json)
        }
        Command::Inspect {
            format,
            json,
            max_tensor_bytes,
            file,
        } => {
            if let Some(n) = max_tensor_bytes {
                modelgate_io::onemodel::set_max_tensor_bytes(n);
            }
            modelgate_cli::commands::inspect(&file, format.as_deref(), json)
        }
        Command::CorpusCheck { dirs } => modelgate_cli::commands::corpus_check(&dirs),
        Command::Mlbundle { command } => modelgate_cli::mlbundle::run(command),
        Command::Mpk { command } => modelgate_cli::mpk::run(command),
        Command::Mvb { command } => modelgate_cli::mvb::run(command),
        Command::Onemodel { command } => modelgate_cli::onemodel::run(command),
    }
}
