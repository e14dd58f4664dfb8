//! `modelgate onemodel convert` and `to-onnx` (`spec/onemodel.md` §4, §6): the conversions
//! of `modelgate_io::onemodel`, outputs published atomically.

use crate::progress::Progress;
use clap::Subcommand;
use modelgate_io::onemodel::{self, Failure, Phase};
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
/// (an existing output without `--overwrite` included). While it works, the bytes of
/// external data copied and of output written are shown on stderr when it is a terminal.
pub fn run(command: OnemodelCommand) -> ExitCode {
    let mut copying = Progress::bytes("copying external data");
    let mut writing = Progress::bytes("writing");
    let mut show = |phase: Phase, done: u64, total: u64| match phase {
        // External data is copied tensor by tensor; its total is not known in advance.
        Phase::External => copying.count(done),
        Phase::Write => {
            copying.clear();
            writing.update(done, total);
        }
    };
    let (input, output, format, written, result) = match command {
        OnemodelCommand::Convert {
            input,
            output,
            overwrite,
        } => {
            let r = onemodel::convert_with(&input, &output, overwrite, &mut show);
            (input, output, "onnx", "onemodel", r)
        }
        OnemodelCommand::ToOnnx {
            input,
            output,
            overwrite,
        } => {
            let r = onemodel::to_onnx_with(&input, &output, overwrite, &mut show);
            (input, output, "onemodel", "onnx", r)
        }
    };
    copying.clear();
    writing.clear();
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
