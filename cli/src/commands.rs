//! `check` and `corpus-check`, printing exactly the lines CONVENTIONS.md specifies.

use crate::progress::Progress;
use modelgate_core::json::Writer;
use modelgate_core::{Location, Rejection};
use modelgate_io::check::{self, CheckError, Format};
use modelgate_io::corpus::{self, Expected, Got};
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// Exit status for usage and I/O errors.
const USAGE_OR_IO: u8 = 2;

/// Writes one line of results to standard output. A failed write (a closed pipe, a full
/// disk) is an I/O error: the caller stops with exit 2 instead of panicking (exit 101) as
/// `println!` does, so a result that never arrived cannot pass for one that did.
fn emit(line: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    writeln!(out, "{line}")?;
    out.flush()
}

/// The exit of a command whose results could not be written.
fn output_failed(program: &str, e: &io::Error) -> ExitCode {
    eprintln!("{program}: cannot write the results: {e}");
    ExitCode::from(USAGE_OR_IO)
}

/// `modelgate check [--format F] [--json] FILE...`: one line per file, exit 0 when all
/// are accepted, 1 when any is rejected, 2 for usage or I/O errors.
pub fn check(files: &[PathBuf], format: Option<&str>, json: bool) -> ExitCode {
    let forced = match format.map(|name| check::by_name(name).ok_or(name)) {
        None => None,
        Some(Ok(f)) => Some(f),
        Some(Err(name)) => {
            eprintln!(
                "modelgate: unknown format {name:?} (known: {})",
                check::names().join(", ")
            );
            return ExitCode::from(USAGE_OR_IO);
        }
    };
    let mut progress = Progress::new(files.len());
    let (mut rejected, mut failed) = (false, false);
    for (i, file) in files.iter().enumerate() {
        progress.step(i, &file.display().to_string());
        let format = match forced.map_or_else(|| check::detect(file), |f| Ok(Some(f))) {
            Ok(Some(f)) => f,
            Ok(None) => {
                progress.clear();
                eprintln!("{}: cannot tell the format; use --format", file.display());
                failed = true;
                continue;
            }
            Err(e) => {
                progress.clear();
                eprintln!("{}: {e}", file.display());
                failed = true;
                continue;
            }
        };
        let outcome = format.check(file, &mut |done, total| progress.update(done, total));
        progress.clear();
        let printed = match outcome {
            Ok(()) => print_result(file, format, None, json),
            Err(CheckError::Rejected(r)) => {
                rejected = true;
                print_result(file, format, Some(&r), json)
            }
            Err(CheckError::Io(e)) => {
                eprintln!("{}: {e}", file.display());
                failed = true;
                Ok(())
            }
        };
        if let Err(e) = printed {
            return output_failed("modelgate", &e);
        }
    }
    if failed {
        ExitCode::from(USAGE_OR_IO)
    } else if rejected {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// `modelgate inspect [--format F] [--json] FILE`: validates the file and prints what it
/// holds; exit 0 when accepted, 1 when rejected, 2 for usage or I/O errors.
pub fn inspect(file: &std::path::Path, format: Option<&str>, json: bool) -> ExitCode {
    let format = match format {
        Some(name) => match check::by_name(name) {
            Some(f) => f,
            None => {
                eprintln!(
                    "modelgate: unknown format {name:?} (known: {})",
                    check::names().join(", ")
                );
                return ExitCode::from(USAGE_OR_IO);
            }
        },
        None => match check::detect(file) {
            Ok(Some(f)) => f,
            Ok(None) => {
                eprintln!("{}: cannot tell the format; use --format", file.display());
                return ExitCode::from(USAGE_OR_IO);
            }
            Err(e) => {
                eprintln!("{}: {e}", file.display());
                return ExitCode::from(USAGE_OR_IO);
            }
        },
    };
    match format.inspect(file, json) {
        None => {
            eprintln!(
                "modelgate: {} files have no inspection; use `modelgate check`",
                format.name()
            );
            ExitCode::from(USAGE_OR_IO)
        }
        Some(Ok(text)) => match emit(&text) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => output_failed("modelgate", &e),
        },
        Some(Err(CheckError::Rejected(r))) => match print_result(file, format, Some(&r), json) {
            Ok(()) => ExitCode::from(1),
            Err(e) => output_failed("modelgate", &e),
        },
        Some(Err(CheckError::Io(e))) => {
            eprintln!("{}: {e}", file.display());
            ExitCode::from(USAGE_OR_IO)
        }
    }
}

fn print_result(
    file: &std::path::Path,
    format: &dyn Format,
    rejection: Option<&Rejection>,
    json: bool,
) -> io::Result<()> {
    let name = file.display().to_string();
    if !json {
        return match rejection {
            None => emit(&format!("{name}: ok ({})", format.name())),
            Some(r) => emit(&format!("{name}: rejected ({}) {r}", format.name())),
        };
    }
    let mut w = Writer::new();
    w.begin_object()
        .name("file")
        .string(&name)
        .name("format")
        .string(format.name());
    w.name("ok").bool(rejection.is_none());
    match rejection {
        None => {
            w.name("kind").null().name("message").null().name("location").null();
        }
        Some(r) => {
            w.name("kind")
                .string(r.kind)
                .name("message")
                .string(&r.message)
                .name("location");
            location_json(&mut w, &r.location);
        }
    }
    w.end_object();
    emit(&w.finish())
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

/// `corpus-check DIR...`: prints each mismatch, then `N passed, N failed`; exit 1 when any
/// failed, 2 when a folder cannot be read.
pub fn corpus_check(dirs: &[PathBuf]) -> ExitCode {
    let files = match corpus::collect(dirs) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("corpus-check: {e}");
            return ExitCode::from(USAGE_OR_IO);
        }
    };
    let mut progress = Progress::new(files.len());
    let (mut passed, mut failed) = (0usize, 0usize);
    for (i, (path, expected)) in files.iter().enumerate() {
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
                if let Err(e) = emit(&format!("{}: expected {want}, got {got}", m.path.display())) {
                    return output_failed("corpus-check", &e);
                }
            }
        }
    }
    progress.clear();
    if let Err(e) = emit(&format!("{passed} passed, {failed} failed")) {
        return output_failed("corpus-check", &e);
    }
    if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
