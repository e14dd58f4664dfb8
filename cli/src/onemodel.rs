//! `modelgate onemodel convert` and `to-onnx` (`spec/onemodel.md` §4, §6): the conversions
//! of `modelgate_io::onemodel`, outputs published atomically.

use crate::output as out;
use crate::paths;
use crate::progress::Progress;
use clap::Subcommand;
use modelgate_io::onemodel::{self, Failure, Phase};
use std::path::PathBuf;
use std::process::ExitCode;

/// `modelgate onemodel ...` subcommands.
#[derive(Subcommand)]
pub enum OnemodelCommand {
    /// Convert an ONNX model to a OneModel file
    ///
    /// External data is copied in from the model's folder; the output is written
    /// deterministically and published atomically.
    Convert {
        /// Replace an existing output file (atomically).
        #[arg(long)]
        overwrite: bool,
        /// Input `.onnx` file.
        #[arg(value_name = "IN.onnx")]
        input: PathBuf,
        /// Output `.onemodel` file.
        #[arg(value_name = "OUT.onemodel")]
        output: PathBuf,
    },
    /// Convert a OneModel file back to ONNX protobuf
    ToOnnx {
        /// Replace an existing output file (atomically).
        #[arg(long)]
        overwrite: bool,
        /// Input `.onemodel` file.
        #[arg(value_name = "IN.onemodel")]
        input: PathBuf,
        /// Output `.onnx` file.
        #[arg(value_name = "OUT.onnx")]
        output: PathBuf,
    },
}

/// Runs one `onemodel` subcommand: exit 0 on success (`OUT: written (FORMAT, N bytes)` on
/// stdout unless `quiet`), 1 when the input is rejected (`IN: rejected (FORMAT) KIND:
/// message` on stderr), 2 for usage and I/O errors (an existing output without
/// `--overwrite` included). While it works, the bytes of external data copied and of output
/// written are shown on stderr when it is a terminal.
pub fn run(command: OnemodelCommand, quiet: bool) -> ExitCode {
    let (input, output, overwrite, to_onemodel) = match command {
        OnemodelCommand::Convert {
            input,
            output,
            overwrite,
        } => (input, output, overwrite, true),
        OnemodelCommand::ToOnnx {
            input,
            output,
            overwrite,
        } => (input, output, overwrite, false),
    };
    let (format, written) = if to_onemodel {
        ("onnx", "onemodel")
    } else {
        ("onemodel", "onnx")
    };
    if let Err(e) = paths::input_file(&input).and_then(|()| paths::output_file(&output, overwrite)) {
        return out::path_error(&e);
    }
    let mut copying = Progress::bytes("copying external data").quiet(quiet);
    let mut writing = Progress::bytes("writing").quiet(quiet);
    let mut show = |phase: Phase, done: u64, total: u64| match phase {
        // External data is copied tensor by tensor; its total is not known in advance.
        Phase::External => copying.count(done),
        Phase::Write => {
            copying.clear();
            writing.update(done, total);
        }
    };
    let result = if to_onemodel {
        onemodel::convert_with(&input, &output, overwrite, &mut show)
    } else {
        onemodel::to_onnx_with(&input, &output, overwrite, &mut show)
    };
    copying.clear();
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
