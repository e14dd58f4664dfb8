//! The host functions (feature `std`): files by path, through `modelgate-io` exactly as the
//! `modelgate` command line calls it (`check`, `mpk extract`, `mvb import`, `mvb export`),
//! and OneModel files opened from a path (read, or mapped once [`mg_allow_mapping`] was
//! called). Paths are NUL-terminated: bytes as they are on Unix, UTF-8 elsewhere.
//!
//! Progress is not reported (the command line's progress line has no C counterpart here).

use crate::kinds::{format_from_name, mg_format};
use crate::limits::{self, mg_limits};
use crate::onemodel::{Bytes, mg_onemodel, open_with};
use crate::outcome::{self, Outcome, mg_result, mg_status};
use core::ffi::{CStr, c_char};
use modelgate_core::digest::hex;
use modelgate_core::mpk::MpkError;
use modelgate_core::mvb::MvbError;
use modelgate_io::check::{self, CheckError};
use modelgate_io::extract::{ExtractError, extract};
use modelgate_io::failure::FileError;
use modelgate_io::mvb::{export, import};
use std::io;
use std::path::Path;

/// The path `p` names, or why it cannot be taken.
///
/// # Safety
///
/// `p` is NULL or a NUL-terminated string that lives for `'a`.
unsafe fn path<'a>(p: *const c_char, what: &str) -> Result<&'a Path, Outcome> {
    if p.is_null() {
        return Err(Outcome::error(mg_status::MG_ERR_NULL, format!("{what} is NULL")));
    }
    // SAFETY: not NULL, NUL-terminated and live for `'a` (the caller's contract).
    let bytes = unsafe { CStr::from_ptr(p) }.to_bytes();
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        Ok(Path::new(std::ffi::OsStr::from_bytes(bytes)))
    }
    #[cfg(not(unix))]
    {
        std::str::from_utf8(bytes)
            .map(Path::new)
            .map_err(|_| Outcome::error(mg_status::MG_ERR_ARGUMENT, format!("{what} is not UTF-8")))
    }
}

/// An I/O failure about `path`.
fn io_error(path: &Path, e: &io::Error) -> Outcome {
    Outcome::error(mg_status::MG_ERR_IO, format!("{}: {e}", path.display()))
}

/// The outcome of an operation that reads an archive of `format` and writes files.
fn file_error<R>(
    format: mg_format,
    input: &Path,
    e: FileError<R>,
    rejection: impl FnOnce(&R) -> modelgate_core::Rejection,
) -> Outcome {
    match e {
        FileError::Rejected(r) => Outcome::rejected(format, &rejection(&r)),
        FileError::Exists(p) => Outcome::error(
            mg_status::MG_ERR_EXISTS,
            format!("{}: already exists; it is never replaced", p.display()),
        ),
        FileError::Io(e) => io_error(input, &e),
    }
}

/// Checks the file at `path` as `modelgate check` does: the format from the longest file
/// name suffix a format claims, else from the first bytes (a ZIP archive is an mlbundle, the
/// OneModel magic a OneModel file, gzip holding a tar an MPK package, a tar an mvb export,
/// other gzip gzip), then that format's full validating read with its default limits
/// (`modelgate_io::check`). `result->format` is the format found, on `MG_OK` too.
/// `MG_ERR_UNKNOWN_FORMAT` when none is found, `MG_ERR_IO` when the file cannot be read.
///
/// # Safety
///
/// `path` is NULL or a NUL-terminated string; `result` is NULL or a writable `mg_result`
/// with a valid message buffer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mg_check_file(path: *const c_char, result: *mut mg_result) -> mg_status {
    let body = || {
        // SAFETY: NULL or NUL-terminated, live during the call (the caller's contract).
        let path = match unsafe { self::path(path, "path") } {
            Ok(p) => p,
            Err(e) => return e,
        };
        let format = match check::detect(path) {
            Ok(Some(f)) => f,
            Ok(None) => {
                return Outcome::error(
                    mg_status::MG_ERR_UNKNOWN_FORMAT,
                    format!("{}: no format recognised by name or content", path.display()),
                );
            }
            Err(e) => return io_error(path, &e),
        };
        let f = format_from_name(format.name());
        match format.check(path, &mut |_, _| {}) {
            Ok(()) => Outcome::ok(f, ""),
            Err(CheckError::Rejected(r)) => Outcome::rejected(f, &r),
            Err(CheckError::Io(e)) => io_error(path, &e),
        }
    };
    // SAFETY: the caller's contract for `result`.
    unsafe { outcome::finish(result, body) }
}

/// Validates the MPK package at `package` and extracts it to the folder `dest`, which must
/// not exist (`spec/mpk.md` §6; `modelgate mpk extract`): the file name rule first, then one
/// streaming pass into a private folder beside `dest`, renamed to `dest` only when the
/// whole package passed; on any failure nothing is left behind. Under `limits->mpk` (NULL:
/// the defaults). `MG_OK` with the message `extracted N files, N plugins`; `MG_REJECTED`
/// (kinds `mg_mpk_kind`); `MG_ERR_EXISTS` when `dest` exists; `MG_ERR_IO`.
///
/// # Safety
///
/// `package` and `dest` are NULL or NUL-terminated strings; `limits` is NULL or readable;
/// `result` is NULL or a writable `mg_result` with a valid message buffer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mg_mpk_extract(
    package: *const c_char,
    dest: *const c_char,
    limits: *const mg_limits,
    result: *mut mg_result,
) -> mg_status {
    let body = || {
        // SAFETY: NULL or NUL-terminated strings, live during the call; NULL or a readable
        // `mg_limits` (the caller's contract).
        let args = unsafe { (path(package, "package"), path(dest, "dest"), limits::read(limits)) };
        let (package, dest, limits) = match args {
            (Ok(p), Ok(d), Ok(l)) => (p, d, l),
            (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => return e,
        };
        let f = mg_format::MG_FORMAT_MPK;
        let extracted: Result<_, ExtractError> = extract(package, dest, limits.mpk(), &mut |_, _| {});
        match extracted {
            Ok(p) => Outcome::ok(
                f,
                format!(
                    "extracted {} files, {} plugins",
                    p.files.len(),
                    p.contract.plugins.len()
                ),
            ),
            Err(e) => file_error(f, package, e, MpkError::rejection),
        }
    };
    // SAFETY: the caller's contract for `result`.
    unsafe { outcome::finish(result, body) }
}

/// Imports the mvb export `archive` (`<bundle_id>.mvb.tar`) into the vault folder `vault`
/// (`spec/mvb.md` §6; `modelgate mvb import`): validated and unpacked in one pass into a
/// private staging folder in the vault, stamped, and renamed to `<vault>/<bundle_id>` only
/// on a clean pass; on any failure the vault is unchanged. `MG_OK` with the message
/// holding the new folder's path; `MG_REJECTED` (kinds `mg_mvb_kind`); `MG_ERR_EXISTS`
/// when the bundle is in the vault already; `MG_ERR_IO`.
///
/// # Safety
///
/// `archive` and `vault` are NULL or NUL-terminated strings; `result` is NULL or a
/// writable `mg_result` with a valid message buffer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mg_mvb_import(
    archive: *const c_char,
    vault: *const c_char,
    result: *mut mg_result,
) -> mg_status {
    let body = || {
        // SAFETY: NULL or NUL-terminated strings, live during the call (the caller's contract).
        let (archive, vault) = match unsafe { (path(archive, "archive"), path(vault, "vault")) } {
            (Ok(a), Ok(v)) => (a, v),
            (Err(e), _) | (_, Err(e)) => return e,
        };
        let f = mg_format::MG_FORMAT_MVB;
        match import(archive, vault, &mut |_, _| {}) {
            Ok(r) => Outcome::ok(f, r.dest.to_string_lossy()),
            Err(e) => file_error(f, archive, e, MvbError::rejection),
        }
    };
    // SAFETY: the caller's contract for `result`.
    unsafe { outcome::finish(result, body) }
}

/// Exports the bundle folder `bundle` (holding `manifest.json`) to
/// `<out_dir>/<bundle_id>.mvb.tar` (`spec/mvb.md` §5; `modelgate mvb export`), written
/// atomically, then logs the export in the bundle's `exports.json`. An existing export file
/// is `MG_ERR_EXISTS` unless `overwrite`, which replaces it atomically. `MG_OK` with the
/// message `PATH sha256 HEX`; `MG_REJECTED` (kinds `mg_mvb_kind`) for a bundle that breaks
/// the rules; `MG_ERR_IO`.
///
/// # Safety
///
/// `bundle` and `out_dir` are NULL or NUL-terminated strings; `result` is NULL or a
/// writable `mg_result` with a valid message buffer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mg_mvb_export(
    bundle: *const c_char,
    out_dir: *const c_char,
    overwrite: bool,
    result: *mut mg_result,
) -> mg_status {
    let body = || {
        // SAFETY: NULL or NUL-terminated strings, live during the call (the caller's contract).
        let (bundle, out_dir) = match unsafe { (path(bundle, "bundle"), path(out_dir, "out_dir")) } {
            (Ok(b), Ok(o)) => (b, o),
            (Err(e), _) | (_, Err(e)) => return e,
        };
        let f = mg_format::MG_FORMAT_MVB;
        match export(bundle, out_dir, overwrite, &mut |_, _| {}) {
            Ok(x) => Outcome::ok(f, format!("{} sha256 {}", x.path.display(), hex(&x.sha256))),
            Err(e) => file_error(f, bundle, e, MvbError::rejection),
        }
    };
    // SAFETY: the caller's contract for `result`.
    unsafe { outcome::finish(result, body) }
}

/// Opens the OneModel file at `path` as `mg_onemodel_open` opens a buffer: loaded through
/// `modelgate_io::onemodel::load` (read into memory, or, once `mg_allow_mapping` was called,
/// mapped read-only when it is 1 MiB or more; `spec/onemodel.md` §5), checked whole, and
/// held by the handle until `mg_onemodel_free`: tensor `data` points into those bytes.
/// NULL with `result` set on failure (`MG_REJECTED` with a `mg_onemodel_kind`,
/// `MG_ERR_IO`, …).
///
/// # Safety
///
/// `path` is NULL or a NUL-terminated string; `limits` is NULL or readable; `result` is
/// NULL or a writable `mg_result` with a valid message buffer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mg_onemodel_open_file(
    path: *const c_char,
    limits: *const mg_limits,
    result: *mut mg_result,
) -> *mut mg_onemodel {
    let open = || {
        // SAFETY: NULL or NUL-terminated, live during the call (the caller's contract).
        let path = unsafe { self::path(path, "path") }?;
        // SAFETY: NULL or a readable `mg_limits` (the caller's contract).
        let limits = unsafe { limits::read(limits) }?;
        let bytes = modelgate_io::onemodel::load(path).map_err(|e| match e {
            modelgate_io::onemodel::Failure::Rejected(r) => Outcome::rejected(mg_format::MG_FORMAT_ONEMODEL, &r),
            modelgate_io::onemodel::Failure::Io(e) => io_error(path, &e),
        })?;
        let tensors = mg_onemodel::tensors(&bytes, &limits)?;
        Ok(mg_onemodel::new(Bytes::File(bytes), tensors))
    };
    // SAFETY: the caller's contract for `result`.
    unsafe { open_with(result, open) }
}

/// Lets `mg_onemodel_open_file` map files of 1 MiB or more instead of reading them into
/// memory, for the rest of the process (`modelgate_io::mmap::allow_mapping`).
///
/// # Safety
///
/// From this call on, every file opened with `mg_onemodel_open_file` must stay unmodified
/// and untruncated, by this process and every other, until its handle is freed: a map shows
/// later writes (bytes that were checked could change under the loader) and a truncated
/// file kills the process with SIGBUS when a page past its new end is read.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mg_allow_mapping() {
    // SAFETY: the caller makes `allow_mapping`'s promise (this function's # Safety).
    unsafe { modelgate_io::mmap::allow_mapping() }
}
