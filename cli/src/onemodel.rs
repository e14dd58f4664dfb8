//! `modelgate onemodel convert` and `to-onnx` (`spec/onemodel.md` §4, §6): the conversions
//! of `modelgate_io::onemodel`, outputs published atomically.

use crate::progress::Progress;
use clap::Subcommand;
use modelgate_io::onemodel::{self, Failure, Options};
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
        /// Largest tensor in bytes (default 2^31 - 1, at most 2^63 - 1).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(0..=i64::MAX as u64))]
        max_tensor_bytes: Option<u64>,
    },
    /// Convert a OneModel file back to ONNX protobuf; initializers go to OUT.data beside it
    /// when the model would not fit one 2 GiB ONNX file.
    ToOnnx {
        /// Input `.onemodel` file.
        #[arg(value_name = "IN.onemodel")]
        input: PathBuf,
        /// Output `.onnx` file.
        #[arg(value_name = "OUT.onnx")]
        output: PathBuf,
        /// Replace existing output files (atomically).
        #[arg(long)]
        overwrite: bool,
        /// Largest tensor in bytes (default 2^31 - 1, at most 2^63 - 1).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(0..=i64::MAX as u64))]
        max_tensor_bytes: Option<u64>,
        /// Write initializers of 1024 bytes or more to OUT.data beside OUT (published
        /// first), also when the model would fit one ONNX file.
        #[arg(long)]
        external_data: bool,
    },
}

fn options(overwrite: bool, max_tensor_bytes: Option<u64>, external_data: bool) -> Options {
    let mut options = Options {
        overwrite,
        external_data,
        ..Options::default()
    };
    if let Some(n) = max_tensor_bytes {
        options.limits.max_tensor_bytes = n;
    }
    options
}

/// Runs one `onemodel` subcommand: exit 0 on success (`OUT: written (FORMAT, N bytes)`), 1
/// when the input is rejected (`IN: rejected (FORMAT) KIND: message`), 2 for I/O errors
/// (an existing output without `--overwrite` included). While it works, the bytes written
/// (external data copied in included) are shown on stderr when it is a terminal.
pub fn run(command: OnemodelCommand) -> ExitCode {
    let mut writing = Progress::bytes("writing");
    let mut show = |done: u64, total: u64| writing.update(done, total);
    let (input, output, format, written, result) = match command {
        OnemodelCommand::Convert {
            input,
            output,
            overwrite,
            max_tensor_bytes,
        } => {
            let r = onemodel::convert_with(&input, &output, &options(overwrite, max_tensor_bytes, false), &mut show);
            (input, output, "onnx", "onemodel", r)
        }
        OnemodelCommand::ToOnnx {
            input,
            output,
            overwrite,
            max_tensor_bytes,
            external_data,
        } => {
            let options = options(overwrite, max_tensor_bytes, external_data);
            let r = onemodel::to_onnx_with(&input, &output, &options, &mut show);
            (input, output, "onemodel", "onnx", r)
        }
    };
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
