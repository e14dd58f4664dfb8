//! `modelgate`: check, inspect, convert and write model-container files.

use clap::builder::{PossibleValue, PossibleValuesParser};
use clap::error::ErrorKind;
use clap::{CommandFactory, Parser, Subcommand};
use modelgate_cli::commands::{self, Request};
use modelgate_cli::output::{self, JsonLine, JsonOutcome, USAGE_ERROR, USAGE_OR_IO};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// The conventions every subcommand follows (`spec/errors.md` §3), at the end of
/// `modelgate --help`.
const COMMON_RULES: &str = "\
Results: check, inspect, mvb verify and corpus-check print their verdicts on stdout, \
`FILE: ok (FORMAT)` or `FILE: rejected (FORMAT) KIND: message`.

Writing: mlbundle pack, onemodel convert and to-onnx, mpk extract, mvb export and import take \
their inputs first and the output last (OUT). They print what they wrote on stdout and any \
failure, a rejection included, on stderr. A file is replaced only with --overwrite, \
atomically; a folder is never replaced.

Errors begin with the path they are about. Exit status: 0 success, 1 rejected, 2 usage or \
I/O error.";

/// How `check` tells a format, at the end of `modelgate check --help`.
const DETECTION: &str = "\
Without --format the format comes from the longest file-name suffix a format claims, then \
from the first bytes (at most 64 KiB): see FORMAT's values.

With --json every file gives one line, an object with the keys file, format, ok, kind, \
message and location; a file that cannot be read has kind \"IoError\", one whose format \
cannot be told \"UnknownFormat\", and a command line that cannot be run gives one object \
with kind \"UsageError\". Nothing else is printed on stdout.";

/// Strict reader, checker and writer for model-container files.
#[derive(Parser)]
#[command(
    name = "modelgate",
    version,
    propagate_version = true,
    max_term_width = 100,
    after_help = COMMON_RULES
)]
struct Cli {
    /// Print nothing for what succeeded and show no progress (rejections and errors still
    /// print).
    #[arg(short, long, global = true)]
    quiet: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the full validating read of each file, writing nothing
    ///
    /// Prints `FILE: ok (FORMAT)` or `FILE: rejected (FORMAT) KIND: message` for each file.
    /// Exit 0 when all are ok, 1 when any is rejected, 2 for usage or I/O errors.
    #[command(after_long_help = DETECTION)]
    Check {
        /// Read every file as FORMAT instead of telling the format from its name or content.
        #[arg(long, value_name = "FORMAT", value_parser = formats())]
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
    /// Validate files and describe what each holds (members, manifest, stages)
    ///
    /// Each accepted file's `FILE: ok (FORMAT)` line is followed by its description; a
    /// rejected file gives its `FILE: rejected` line. Exit status as for `check`.
    Inspect {
        /// Read every file as FORMAT instead of telling the format from its name or content.
        #[arg(long, value_name = "FORMAT", value_parser = formats())]
        format: Option<String>,
        /// Print one JSON document per file, in the order given (a rejection or error as
        /// `check --json` prints it).
        #[arg(long)]
        json: bool,
        /// OneModel and ONNX: largest tensor in bytes (default 2^31 - 1, at most 2^63 - 1).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(0..=i64::MAX as u64))]
        max_tensor_bytes: Option<u64>,
        /// Files to inspect.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
    },
    /// Write mlbundle files (`modelgate mlbundle pack ... OUT`)
    Mlbundle {
        #[command(subcommand)]
        command: modelgate_cli::mlbundle::MlbundleCommand,
    },
    /// Extract MPK packages safely (`modelgate mpk extract PACKAGE.tar.gz DEST`)
    Mpk {
        #[command(subcommand)]
        command: modelgate_cli::mpk::MpkCommand,
    },
    /// Export, import and verify mvb bundles (`modelgate mvb export|import|verify`)
    Mvb {
        #[command(subcommand)]
        command: modelgate_cli::mvb::MvbCommand,
    },
    /// Convert between ONNX and OneModel (`modelgate onemodel convert|to-onnx IN OUT`)
    Onemodel {
        #[command(subcommand)]
        command: modelgate_cli::onemodel::OnemodelCommand,
    },
    /// Check every `<Expected>-<case>.<ext>` file under folders against its name
    ///
    /// `<Expected>` is `valid` or an error kind. Prints each mismatch, each path skipped and
    /// how many, then `N passed, N failed`. Exit 1 when any failed, when a path does not
    /// exist or when nothing was checked.
    CorpusCheck {
        /// Folders (or files) to walk recursively.
        #[arg(required = true, value_name = "DIR")]
        dirs: Vec<PathBuf>,
    },
    /// Print a completion script for SHELL on stdout
    ///
    /// For example `modelgate completions bash > /etc/bash_completion.d/modelgate`.
    Completions {
        /// The shell to complete for.
        #[arg(value_name = "SHELL")]
        shell: clap_complete::Shell,
    },
    /// Print a man page on stdout (roff): modelgate(1), or a subcommand's
    ///
    /// For example `modelgate man > modelgate.1` and `modelgate man mvb export >
    /// modelgate-mvb-export.1`.
    Man {
        /// The subcommand whose page to print, for example `check` or `mvb export`.
        #[arg(value_name = "COMMAND")]
        command: Vec<String>,
    },
}

/// `--format`'s values: every registered format, with the names and content it is told by.
fn formats() -> PossibleValuesParser {
    PossibleValuesParser::new(modelgate_io::check::FORMATS.iter().map(|f| {
        let names: Vec<String> = f.suffixes().iter().map(|s| format!("*{s}")).collect();
        let mut help = names.join(", ");
        if let Some(content) = f.content() {
            help.push_str(", or ");
            help.push_str(content);
        }
        PossibleValue::new(f.name()).help(help)
    }))
}

fn main() -> ExitCode {
    // SAFETY: `modelgate` is run on files that no process modifies or truncates while it
    // runs (README, "Checking files"): the guarantee `allow_mapping` asks for every file this
    // process loads through `modelgate_io::mmap`.
    unsafe { modelgate_io::mmap::allow_mapping() };
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(&e),
    };
    let quiet = cli.quiet;
    if let Command::Check {
        max_tensor_bytes: Some(n),
        ..
    }
    | Command::Inspect {
        max_tensor_bytes: Some(n),
        ..
    } = &cli.command
    {
        modelgate_io::onemodel::set_max_tensor_bytes(*n);
    }
    match cli.command {
        Command::Check {
            format, json, files, ..
        } => commands::check(
            &files,
            Request {
                format: format.as_deref(),
                json,
                quiet,
            },
        ),
        Command::Inspect {
            format, json, files, ..
        } => commands::inspect(
            &files,
            Request {
                format: format.as_deref(),
                json,
                quiet,
            },
        ),
        Command::CorpusCheck { dirs } => commands::corpus_check(&dirs),
        Command::Mlbundle { command } => modelgate_cli::mlbundle::run(command, quiet),
        Command::Mpk { command } => modelgate_cli::mpk::run(command, quiet),
        Command::Mvb { command } => modelgate_cli::mvb::run(command, quiet),
        Command::Onemodel { command } => modelgate_cli::onemodel::run(command, quiet),
        Command::Completions { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "modelgate", &mut script);
            print_bytes(&script)
        }
        Command::Man { command } => man(&command),
    }
}

/// A command line clap refused: its message and exit status 2, or, when `--json` was given,
/// one JSON object of kind `UsageError` on stdout. Help requests print as usual, version
/// requests `modelgate <version>` whatever the subcommand.
fn usage_error(e: &clap::Error) -> ExitCode {
    if e.kind() == ErrorKind::DisplayVersion {
        // clap names a subcommand's version `modelgate-check 0.1.0` (the name its man page
        // has); the program is `modelgate` whichever subcommand is asked.
        return print_bytes(format!("modelgate {}\n", env!("CARGO_PKG_VERSION")).as_bytes());
    }
    let shown = matches!(
        e.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    );
    let json = std::env::args_os()
        .skip(1)
        .take_while(|a| a != "--")
        .any(|a| a == "--json");
    if shown || !json {
        e.exit();
    }
    let text = e.render().to_string();
    let mut lines = text.lines().map(str::trim);
    let mut message = lines
        .next()
        .unwrap_or_default()
        .trim_start_matches("error: ")
        .to_string();
    for tip in lines.filter(|l| l.starts_with("tip: ")) {
        message.push_str("; ");
        message.push_str(tip);
    }
    let line = JsonLine {
        file: None,
        format: None,
        outcome: JsonOutcome::Error {
            kind: USAGE_ERROR,
            message,
        },
    };
    match output::emit(&line.render()) {
        Ok(()) => ExitCode::from(USAGE_OR_IO),
        Err(e) => output::output_failed("modelgate", &e),
    }
}

/// `modelgate man [COMMAND...]`: the page of modelgate or of one of its subcommands, named
/// `modelgate-<command>` as the pages list them.
fn man(words: &[String]) -> ExitCode {
    let mut cli = Cli::command();
    cli.build();
    let mut command = &cli;
    for word in words {
        match command.find_subcommand(word) {
            Some(sub) => command = sub,
            None => {
                eprintln!(
                    "modelgate man: no command {:?} in `modelgate {}`",
                    word,
                    words.join(" ")
                );
                return ExitCode::from(USAGE_OR_IO);
            }
        }
    }
    let mut page = Vec::new();
    match clap_mangen::Man::new(command.clone()).render(&mut page) {
        Ok(()) => print_bytes(&page),
        Err(e) => output::output_failed("modelgate", &e),
    }
}

/// Writes generated text to stdout.
fn print_bytes(bytes: &[u8]) -> ExitCode {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => output::output_failed("modelgate", &e),
    }
}
