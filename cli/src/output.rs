//! Where the commands print and how they end (README "Command line"): results on stdout,
//! errors on stderr beginning with the path they are about, `--json` objects, `--quiet`,
//! and the exit status (0 success, 1 rejected, 2 usage or I/O error).

use modelgate_core::json::Writer;
use modelgate_core::{Location, Rejection};
use std::fmt::Display;
use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;

/// Exit status when an input was rejected.
pub const REJECTED: u8 = 1;
/// Exit status for usage and I/O errors.
pub const USAGE_OR_IO: u8 = 2;

/// `kind` of a `--json` object for a file that could not be read.
pub const IO_ERROR: &str = "IoError";
/// `kind` of a `--json` object for a file whose format neither its name nor its first bytes
/// tell.
pub const UNKNOWN_FORMAT: &str = "UnknownFormat";
/// `kind` of a `--json` object for a command line that cannot be run (`file` is null unless
/// the problem is one file's).
pub const USAGE_ERROR: &str = "UsageError";

/// Writes one line to standard output. A failed write (a closed pipe, a full disk) is an
/// I/O error: the caller stops with exit 2 ([`output_failed`]) instead of panicking (exit
/// 101) as `println!` does, so a result that never arrived cannot pass for one that did.
pub fn emit(line: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    writeln!(out, "{line}")?;
    out.flush()
}

/// The exit of a command whose results could not be written.
pub fn output_failed(program: &str, e: &io::Error) -> ExitCode {
    eprintln!("{program}: cannot write the results: {e}");
    ExitCode::from(USAGE_OR_IO)
}

/// Prints `PATH: message` on standard error.
pub fn error(path: &Path, message: impl Display) {
    eprintln!("{}: {message}", path.display());
}

/// The exit status of a command that handled several files: 2 when any could not be
/// handled, else 1 when any was rejected, else 0.
#[derive(Clone, Copy, Debug, Default)]
pub struct Status {
    /// An input was rejected.
    pub rejected: bool,
    /// A usage or I/O error happened.
    pub failed: bool,
}

impl Status {
    /// The exit code for what happened.
    pub fn exit(self) -> ExitCode {
        if self.failed {
            ExitCode::from(USAGE_OR_IO)
        } else if self.rejected {
            ExitCode::from(REJECTED)
        } else {
            ExitCode::SUCCESS
        }
    }
}

/// `FILE: ok (FORMAT)` or `FILE: rejected (FORMAT) KIND: message (location)`.
pub fn result_line(file: &Path, format: &str, rejection: Option<&Rejection>) -> String {
    match rejection {
        None => format!("{}: ok ({format})", file.display()),
        Some(r) => format!("{}: rejected ({format}) {r}", file.display()),
    }
}

/// One `--json` line: an object with exactly the keys `file`, `format`, `ok`, `kind`,
/// `message`, `location`. A rejection gives its kind, message and location; an error that
/// is not a rejection gives one of [`IO_ERROR`], [`UNKNOWN_FORMAT`], [`USAGE_ERROR`] and its
/// message, with `location` null.
pub struct JsonLine<'a> {
    /// The file, or `None` (null) for a usage error of the whole command line.
    pub file: Option<&'a Path>,
    /// The format the file was read as, when one was chosen.
    pub format: Option<&'a str>,
    /// What happened.
    pub outcome: JsonOutcome<'a>,
}

/// What a [`JsonLine`] reports.
pub enum JsonOutcome<'a> {
    /// Accepted.
    Ok,
    /// Rejected by the format's rules.
    Rejected(&'a Rejection),
    /// Not a verdict: `kind` is [`IO_ERROR`], [`UNKNOWN_FORMAT`] or [`USAGE_ERROR`].
    Error {
        /// The error kind.
        kind: &'static str,
        /// What went wrong.
        message: String,
    },
}

impl JsonLine<'_> {
    /// The line's canonical JSON text.
    pub fn render(&self) -> String {
        let mut w = Writer::new();
        w.begin_object().name("file");
        match self.file {
            Some(f) => w.string(&f.display().to_string()),
            None => w.null(),
        };
        w.name("format");
        match self.format {
            Some(f) => w.string(f),
            None => w.null(),
        };
        w.name("ok").bool(matches!(self.outcome, JsonOutcome::Ok));
        match &self.outcome {
            JsonOutcome::Ok => {
                w.name("kind").null().name("message").null().name("location").null();
            }
            JsonOutcome::Rejected(r) => {
                w.name("kind").string(r.kind).name("message").string(&r.message);
                w.name("location");
                location_json(&mut w, &r.location);
            }
            JsonOutcome::Error { kind, message } => {
                w.name("kind").string(kind).name("message").string(message);
                w.name("location").null();
            }
        }
        w.end_object();
        w.finish()
    }
}

fn location_json(w: &mut Writer, loc: &Location) {
    if loc.is_none() {
        w.null();
        return;
    }
    w.begin_object();
    if let Some(m) = &loc.member {
        w.name("member").string(m);
    }
    if let Some(p) = &loc.path {
        w.name("path").string(p);
    }
    if let Some(o) = loc.offset {
        w.name("offset").u64(o);
    }
    w.end_object();
}

/// A writing command's success line on stdout, unless `quiet`.
pub fn done(line: &str, quiet: bool) -> ExitCode {
    if quiet {
        return ExitCode::SUCCESS;
    }
    match emit(line) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => output_failed("modelgate", &e),
    }
}

/// A writing command's rejection of `path`: `PATH: rejected (FORMAT) KIND: message` on
/// stderr (writing commands print only what they wrote on stdout), exit 1.
pub fn rejected(path: &Path, format: &str, rejection: impl Display) -> ExitCode {
    error(path, format_args!("rejected ({format}) {rejection}"));
    ExitCode::from(REJECTED)
}

/// A writing command's path that cannot serve (exit 2).
pub fn path_error(e: &crate::paths::PathError) -> ExitCode {
    eprintln!("{e}");
    ExitCode::from(USAGE_OR_IO)
}

/// An I/O error that the library reports without saying which of the command's paths it is
/// about (reading the input or writing the output, after both passed [`crate::paths`]):
/// `INPUT -> OUTPUT: message`, exit 2.
pub fn io_between(input: &Path, output: &Path, e: impl Display) -> ExitCode {
    eprintln!("{} -> {}: {e}", input.display(), output.display());
    ExitCode::from(USAGE_OR_IO)
}
