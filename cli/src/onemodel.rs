//! `modelgate onemodel convert` and `to-onnx` (`spec/onemodel.md` §4, §6): the conversions
//! of `modelgate_io::onemodel`, outputs published atomically.

use crate::output as out;
use crate::paths;
use crate::progress::Progress;
use clap::Subcommand;
use modelgate_io::onemodel::{self, Failure, Options};
use std::path::PathBuf;
use std::process::ExitCode;

/// `modelgate onemodel ...` subcommands.
#[derive(Subcommand)]
pub enum OnemodelCommand {
    /// Convert an ONNX model to a OneModel file
    ///
    /// External data is copied in from the model's folder as the output is written; the
    /// output is written deterministically and published atomically.
    Convert {
        /// Replace an existing output file (atomically).
        #[arg(long)]
        overwrite: bool,
        /// Largest tensor in bytes (default 2^31 - 1, at most 2^63 - 1).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(0..=i64::MAX as u64))]
        max_tensor_bytes: Option<u64>,
        /// Input `.onnx` file.
        #[arg(value_name = "IN.onnx")]
        input: PathBuf,
        /// Output `.onemodel` file.
        #[arg(value_name = "OUT.onemodel")]
        output: PathBuf,
    },
    /// Convert a OneModel file back to ONNX protobuf
    ///
    /// Initializers go to OUT.data beside OUT (published first) when the model would not
    /// fit one 2 GiB ONNX file, or always with --external-data.
    ToOnnx {
        /// Replace existing output files (atomically).
        #[arg(long)]
        overwrite: bool,
        /// Largest tensor in bytes (default 2^31 - 1, at most 2^63 - 1).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(0..=i64::MAX as u64))]
        max_tensor_bytes: Option<u64>,
        /// Write initializers of 1024 bytes or more to OUT.data beside OUT, also when the
        /// model would fit one ONNX file.
        #[arg(long)]
        external_data: bool,
        /// Input `.onemodel` file.
        #[arg(value_name = "IN.onemodel")]
        input: PathBuf,
        /// Output `.onnx` file.
        #[arg(value_name = "OUT.onnx")]
        output: PathBuf,
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

/// Runs one `onemodel` subcommand: exit 0 on success (`OUT: written (FORMAT, N bytes)` on
/// stdout unless `quiet`), 1 when the input is rejected (`IN: rejected (FORMAT) KIND:
/// message` on stderr), 2 for usage and I/O errors (an existing output without
/// `--overwrite` included). While it works, the bytes written (external data copied in
/// included) are shown on stderr when it is a terminal.
pub fn run(command: OnemodelCommand, quiet: bool) -> ExitCode {
    let (input, output, options, to_onemodel) = match command {
        OnemodelCommand::Convert {
            input,
            output,
            overwrite,
            max_tensor_bytes,
        } => (input, output, options(overwrite, max_tensor_bytes, false), true),
        OnemodelCommand::ToOnnx {
            input,
            output,
            overwrite,
            max_tensor_bytes,
            external_data,
        } => (
            input,
            output,
            options(overwrite, max_tensor_bytes, external_data),
            false,
        ),
    };
    let (format, written) = if to_onemodel {
        ("onnx", "onemodel")
    } else {
        ("onemodel", "onnx")
    };
    if let Err(e) = paths::input_file(&input).and_then(|()| paths::output_file(&output, options.overwrite)) {
        return out::path_error(&e);
    }
    let mut writing = Progress::bytes("writing").quiet(quiet);
    let mut show = |done: u64, total: u64| writing.update(done, total);
    let result = if to_onemodel {
        onemodel::convert(&input, &output, &options, &mut show)
    } else {
        onemodel::to_onnx(&input, &output, &options, &mut show)
    };
    writing.clear();
    match result {
        Ok(()) => {
            let size = std::fs::metadata(&output).map(|m| m.len()).unwrap_or(0);
            out::done(
                &format!("{}: written ({written}, {size} bytes)", output.display()),
                quiet,
            )
        }
        Err(Failure::Rejected(r)) => out::rejected(&input, format, r),
        Err(Failure::Io(e)) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            out::path_error(&paths::exists(&output))
        }
        Err(Failure::Io(e)) => out::io_between(&input, &output, e),
    }
}
