//! `modelgate onemodel convert` and `to-onnx` (`spec/onemodel.md` §4, §6): the conversions
//! of `modelgate_io::onemodel`, outputs published atomically.

use clap::Subcommand;
use modelgate_io::onemodel::{self, Failure};
use std::path::PathBuf;
use std::process::ExitCode;

/// `modelgate onemodel ...` subcommands.
#[derive(Subcommand)]
pub enum OnemodelCommand {
    /// Convert an ONNX model (external data copied in) to a OneModel file.
    Convert {
        /// Input `.onnx` file.
        #[arg(value_name = "IN.onnx")]
        input: PathBuf,
        /// Output `.onemodel` file.
        #[arg(value_name = "OUT.onemodel")]
        output: PathBuf,
        /// Replace an existing output file (atomically).
        #[arg(long)]
        overwrite: bool,
    },
    /// Convert a OneModel file back to ONNX protobuf.
    ToOnnx {
        /// Input `.onemodel` file.
        #[arg(value_name = "IN.onemodel")]
        input: PathBuf,
        /// Output `.onnx` file.
        #[arg(value_name = "OUT.onnx")]
        output: PathBuf,
        /// Replace an existing output file (atomically).
        #[arg(long)]
        overwrite: bool,
    },
}

/// Runs one `onemodel` subcommand: exit 0 on success (`OUT: written (FORMAT, N bytes)`), 1
/// when the input is rejected (`IN: rejected (FORMAT) KIND: message`), 2 for I/O errors
/// (an existing output without `--overwrite` included).
pub fn run(command: OnemodelCommand) -> ExitCode {
    let (input, output, format, written, result) = match command {
        OnemodelCommand::Convert {
            input,
            output,
            overwrite,
        } => {
            let r = onemodel::convert(&input, &output, overwrite);
            (input, output, "onnx", "onemodel", r)
        }
        OnemodelCommand::ToOnnx {
            input,
            output,
            overwrite,
        } => {
            let r = onemodel::to_onnx(&input, &output, overwrite);
            (input, output, "onemodel", "onnx", r)
        }
    };
    match result {
        Ok(()) => {
            let size = std::fs::metadata(&output).map(|m| m.len()).unwrap_or(0);
            println!("{}: written ({written}, {size} bytes)", output.display());
            ExitCode::SUCCESS
        }
        Err(Failure::Rejected(r)) => {
            println!("{}: rejected ({format}) {r}", input.display());
            ExitCode::from(1)
        }
        Err(Failure::Io(e)) => {
            eprintln!("{}: {e}", input.display());
            ExitCode::from(2)
        }
    }
}
