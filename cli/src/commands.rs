//! `check`, `inspect` and `corpus-check`: the commands that read files and report on each
//! (README "Checking files"). Verdicts go to stdout, one per file; errors that are not a
//! verdict go to stderr beginning with the file's path, or, with `--json`, to stdout as an
//! object of their own.

use crate::output::{self, IO_ERROR, JsonLine, JsonOutcome, Status, UNKNOWN_FORMAT, USAGE_ERROR, USAGE_OR_IO};
use crate::progress::Progress;
use modelgate_core::Rejection;
use modelgate_io::check::{self, CheckError, Format};
use modelgate_io::corpus::{self, Expected, Got};
use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// What `check` and `inspect` were asked for.
#[derive(Clone, Copy)]
pub struct Request<'a> {
    /// `--format`: the format every file is read as, instead of detection.
    pub format: Option<&'a str>,
    /// `--json`: one JSON object or document per file.
    pub json: bool,
    /// `--quiet`: no line for a file that was accepted (`check`), no `ok` line before a
    /// description (`inspect`), no progress.
    pub quiet: bool,
}

/// What happened to one file.
enum Outcome {
    /// Accepted; `inspect`'s description when there is one.
    Accepted(&'static dyn Format, Option<String>),
    Rejected(&'static dyn Format, Rejection),
    Io(Option<&'static dyn Format>, io::Error),
    UnknownFormat,
    NoInspection(&'static dyn Format),
}

/// `modelgate check [--format F] [--json] FILE...`: the full validating read of each file,
/// one line each; exit 0 when all are accepted, 1 when any is rejected, 2 for usage or I/O
/// errors.
pub fn check(files: &[PathBuf], request: Request<'_>) -> ExitCode {
    run(files, request, false)
}

/// `modelgate inspect [--format F] [--json] FILE...`: validates each file like `check` and
/// describes what it holds, after its `FILE: ok (FORMAT)` line (text) or as one JSON
/// document per line (`--json`), in the order given; exit status as for `check`.
pub fn inspect(files: &[PathBuf], request: Request<'_>) -> ExitCode {
    run(files, request, true)
}

fn run(files: &[PathBuf], request: Request<'_>, describe: bool) -> ExitCode {
    // clap accepts only registered names (`main.rs`); the lookup cannot fail.
    let forced = request.format.and_then(check::by_name);
    debug_assert_eq!(forced.is_some(), request.format.is_some());
    let mut progress = Progress::new(files.len()).quiet(request.quiet);
    let mut status = Status::default();
    for (i, file) in files.iter().enumerate() {
        progress.step(i, &file.display().to_string());
        let outcome = match forced.map_or_else(|| check::detect(file), |f| Ok(Some(f))) {
            Err(e) => Outcome::Io(None, e),
            Ok(None) => Outcome::UnknownFormat,
            Ok(Some(format)) if describe => match format.inspect(file, request.json) {
                None => Outcome::NoInspection(format),
                Some(r) => verdict(format, r.map(Some)),
            },
            Ok(Some(format)) => verdict(
                format,
                format
                    .check(file, &mut |done, total| progress.update(done, total))
                    .map(|()| None),
            ),
        };
        progress.clear();
        match &outcome {
            Outcome::Accepted(..) => {}
            Outcome::Rejected(..) => status.rejected = true,
            _ => status.failed = true,
        }
        if let Err(e) = print(file, &outcome, request) {
            return output::output_failed("modelgate", &e);
        }
    }
    status.exit()
}

fn verdict(format: &'static dyn Format, r: Result<Option<String>, CheckError>) -> Outcome {
    match r {
        Ok(text) => Outcome::Accepted(format, text),
        Err(CheckError::Rejected(r)) => Outcome::Rejected(format, r),
        Err(CheckError::Io(e)) => Outcome::Io(Some(format), e),
    }
}

/// Prints one file's outcome: verdicts and descriptions on stdout; other errors on stderr,
/// or on stdout as a JSON object with `--json`.
fn print(file: &Path, outcome: &Outcome, request: Request<'_>) -> io::Result<()> {
    let json = |format: &dyn Format, outcome| {
        JsonLine {
            file: Some(file),
            format: Some(format.name()),
            outcome,
        }
        .render()
    };
    match outcome {
        Outcome::Accepted(format, Some(text)) => {
            if !request.json && !request.quiet {
                output::emit(&output::result_line(file, format.name(), None))?;
            }
            output::emit(text.trim_end_matches('\n'))
        }
        Outcome::Accepted(..) if request.quiet => Ok(()),
        Outcome::Accepted(format, None) if request.json => output::emit(&json(*format, JsonOutcome::Ok)),
        Outcome::Accepted(format, None) => output::emit(&output::result_line(file, format.name(), None)),
        Outcome::Rejected(format, r) if request.json => output::emit(&json(*format, JsonOutcome::Rejected(r))),
        Outcome::Rejected(format, r) => output::emit(&output::result_line(file, format.name(), Some(r))),
        Outcome::Io(format, e) => error(file, request, format.map(|f| f.name()), IO_ERROR, e.to_string()),
        Outcome::UnknownFormat => error(
            file,
            request,
            None,
            UNKNOWN_FORMAT,
            format!(
                "cannot tell the format from the name or the first bytes; use --format ({})",
                check::names().join(", ")
            ),
        ),
        Outcome::NoInspection(format) => error(
            file,
            request,
            Some(format.name()),
            USAGE_ERROR,
            format!("{} files have no inspection; use `modelgate check`", format.name()),
        ),
    }
}

/// An error that is not a verdict: `FILE: message` on stderr, or with `--json` an object of
/// `kind` on stdout.
fn error(
    file: &Path,
    request: Request<'_>,
    format: Option<&str>,
    kind: &'static str,
    message: String,
) -> io::Result<()> {
    if !request.json {
        output::error(file, message);
        return Ok(());
    }
    let line = JsonLine {
        file: Some(file),
        format,
        outcome: JsonOutcome::Error { kind, message },
    };
    output::emit(&line.render())
}

/// `corpus-check DIR...`: prints each mismatch, each path skipped and how many, then
/// `N passed, N failed`. Exit 1 when any file failed, when a path named does not exist or
/// when nothing was checked (each said on stderr); 2 when a folder cannot be read.
pub fn corpus_check(dirs: &[PathBuf]) -> ExitCode {
    let walk = match corpus::collect(dirs) {
        Ok(w) => w,
        Err((path, e)) => {
            eprintln!("corpus-check: {}: {e}", path.display());
            return ExitCode::from(USAGE_OR_IO);
        }
    };
    for path in &walk.missing {
        eprintln!("corpus-check: {}: does not exist", path.display());
    }
    let mut progress = Progress::new(walk.files.len());
    let (mut passed, mut failed) = (0usize, 0usize);
    for (i, (path, expected)) in walk.files.iter().enumerate() {
        progress.step(i, &path.display().to_string());
        match corpus::check_one(path, expected) {
            None => passed += 1,
            Some(m) => {
                failed += 1;
                progress.clear();
                let want = match &m.expected {
                    Expected::Valid => "valid".to_string(),
                    Expected::Kind(k) => k.clone(),
                };
                let got = match &m.got {
                    Ok(format) => format!("ok ({format})"),
                    Err(Got::Rejected(format, r)) => format!("rejected ({format}) {r}"),
                    Err(Got::NoFormat) => "no format matches this file".to_string(),
                    Err(Got::Io(e)) => format!("I/O error: {e}"),
                };
                if let Err(e) = output::emit(&format!("{}: expected {want}, got {got}", m.path.display())) {
                    return output::output_failed("corpus-check", &e);
                }
            }
        }
    }
    progress.clear();
    let mut lines: Vec<String> = walk
        .skipped
        .iter()
        .map(|(path, why)| format!("{}: skipped ({why})", path.display()))
        .collect();
    if !walk.skipped.is_empty() {
        lines.push(format!("{} skipped", walk.skipped.len()));
    }
    lines.push(format!("{passed} passed, {failed} failed"));
    for line in lines {
        if let Err(e) = output::emit(&line) {
            return output::output_failed("corpus-check", &e);
        }
    }
    if passed + failed == 0 {
        eprintln!("corpus-check: no <Expected>-<case>.<ext> file was found; nothing was checked");
    }
    if failed > 0 || !walk.missing.is_empty() || passed + failed == 0 {
        ExitCode::from(output::REJECTED)
    } else {
        ExitCode::SUCCESS
    }
}
