//! `mg_check_<format>`: the full validating read of one format over caller-owned bytes,
//! each the core function `modelgate check` runs for that format, under the caller's
//! [`mg_limits`]. Nothing is written anywhere but the caller's `mg_result`; the bytes are
//! only read, and not kept after the call returns.
//!
//! Every function here has the same contract:
//!
//! # Safety
//!
//! - `data` is NULL with `len` 0, or points to `len` readable bytes that no one changes
//!   during the call;
//! - `limits` is NULL (the defaults) or points to a readable `mg_limits`;
//! - `result` is NULL (status only) or points to a writable `mg_result` whose `message`
//!   is NULL or points to `message_capacity` writable bytes.

use crate::kinds::mg_format;
use crate::limits::{self, mg_limits};
use crate::outcome::{self, Outcome, mg_result, mg_status};
use core::ffi::{CStr, c_char};
use modelgate_core::mpk::{MpkError, Registry};
use modelgate_core::{gzip, inflate, json, mlbundle, mpk, mvb, onemodel, onnx};

/// Runs `check` over the caller's bytes and limits, catching panics, and writes the outcome.
///
/// # Safety
///
/// The module's contract.
unsafe fn run(
    data: *const u8,
    len: usize,
    limits: *const mg_limits,
    result: *mut mg_result,
    check: impl FnOnce(&[u8], &mg_limits) -> Outcome,
) -> mg_status {
    let body = || {
        // SAFETY: the module's contract: `len` readable bytes at `data`, unchanged during
        // the call, which is as long as the slice lives.
        let bytes = match unsafe { outcome::input(data, len) } {
            Ok(b) => b,
            Err(e) => return e,
        };
        // SAFETY: the module's contract: NULL or a readable `mg_limits`.
        match unsafe { limits::read(limits) } {
            Ok(l) => check(bytes, &l),
            Err(e) => e,
        }
    };
    // SAFETY: the module's contract for `result`.
    unsafe { outcome::finish(result, body) }
}

/// Checks strict JSON (`spec/json.md` §1–§6) under `limits->json`: `json::validate`, what
/// `modelgate check` runs for a `.json` file. Returns `MG_OK`, `MG_REJECTED` (kinds
/// `mg_json_kind`) or a negative status.
///
/// # Safety
///
/// `data` points to `len` readable bytes that do not change during the call (or is NULL with
/// `len` 0); `limits` is NULL or points to a readable `mg_limits`; `result` is NULL or
/// points to a writable `mg_result` whose `message` is NULL or holds `message_capacity`
/// writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mg_check_json(
    data: *const u8,
    len: usize,
    limits: *const mg_limits,
    result: *mut mg_result,
) -> mg_status {
    let f = mg_format::MG_FORMAT_JSON;
    // SAFETY: this function's contract is `run`'s.
    unsafe {
        run(data, len, limits, result, |b, l| {
            Outcome::verdict(f, json::validate(b, l.json()), json::Error::rejection)
        })
    }
}

/// Checks an mlbundle container (`spec/mlbundle.md` §2–§8) and parses its `model.onnx`
/// member, if any, with the ONNX reader (§12.2) under `limits->mlbundle`:
/// `mlbundle::load_container`, the validating load `modelgate check` runs. Kinds
/// `mg_mlbundle_kind`; `MG_ERR_LIMITS` when a limit is above its version 1 ceiling.
///
/// # Safety
///
/// `data` points to `len` readable bytes that do not change during the call (or is NULL with
/// `len` 0); `limits` is NULL or points to a readable `mg_limits`; `result` is NULL or
/// points to a writable `mg_result` whose `message` is NULL or holds `message_capacity`
/// writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mg_check_mlbundle(
    data: *const u8,
    len: usize,
    limits: *const mg_limits,
    result: *mut mg_result,
) -> mg_status {
    let f = mg_format::MG_FORMAT_MLBUNDLE;
    // SAFETY: this function's contract is `run`'s.
    unsafe {
        run(data, len, limits, result, |b, l| match l.mlbundle() {
            Ok(limits) => Outcome::verdict(f, mlbundle::load_container(b, &limits), mlbundle::Error::rejection),
            Err(e) => e,
        })
    }
}

/// Checks a OneModel file held whole in memory (`spec/onemodel.md` §1–§3): header,
/// manifest, tensor ranges and names, under `limits->onemodel` (`onemodel::read`). Kinds
/// `mg_onemodel_kind`. To read its tensors as well, use `mg_onemodel_open`.
///
/// # Safety
///
/// `data` points to `len` readable bytes that do not change during the call (or is NULL with
/// `len` 0); `limits` is NULL or points to a readable `mg_limits`; `result` is NULL or
/// points to a writable `mg_result` whose `message` is NULL or holds `message_capacity`
/// writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mg_check_onemodel(
    data: *const u8,
    len: usize,
    limits: *const mg_limits,
    result: *mut mg_result,
) -> mg_status {
    let f = mg_format::MG_FORMAT_ONEMODEL;
    // SAFETY: this function's contract is `run`'s.
    unsafe {
        run(data, len, limits, result, |b, l| {
            Outcome::verdict(f, onemodel::read(b, l.onemodel()), onemodel::Error::rejection)
        })
    }
}

/// Checks a serialised ONNX `ModelProto` (`spec/onemodel.md` §6) and resolves its names as
/// for a OneModel file (§3.1), under `limits->onemodel`: `onnx::to_model`. A buffer has
/// no folder, so a tensor kept in an external file (§6.2) is `Unsupported` (`mg_check_file`
/// checks a `.onnx` file's external data in its folder). Kinds `mg_onemodel_kind`.
///
/// # Safety
///
/// `data` points to `len` readable bytes that do not change during the call (or is NULL with
/// `len` 0); `limits` is NULL or points to a readable `mg_limits`; `result` is NULL or
/// points to a writable `mg_result` whose `message` is NULL or holds `message_capacity`
/// writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mg_check_onnx(
    data: *const u8,
    len: usize,
    limits: *const mg_limits,
    result: *mut mg_result,
) -> mg_status {
    let f = mg_format::MG_FORMAT_ONNX;
    // SAFETY: this function's contract is `run`'s.
    unsafe {
        run(data, len, limits, result, |b, l| {
            let read = onnx::to_model(b, l.onemodel());
            Outcome::verdict(f, read, onemodel::Error::rejection)
        })
    }
}

/// Checks an MPK package, the bytes of its `.tar.gz` (`spec/mpk.md` §3): gzip, tar, every
/// entry and the whole-package rules, under `limits->mpk` (`mpk::check_tar_gz` with the
/// default registry). The file name rule (§3.0) needs the name: see
/// `mg_check_mpk_file_name`. Kinds `mg_mpk_kind`.
///
/// # Safety
///
/// `data` points to `len` readable bytes that do not change during the call (or is NULL with
/// `len` 0); `limits` is NULL or points to a readable `mg_limits`; `result` is NULL or
/// points to a writable `mg_result` whose `message` is NULL or holds `message_capacity`
/// writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mg_check_mpk(
    data: *const u8,
    len: usize,
    limits: *const mg_limits,
    result: *mut mg_result,
) -> mg_status {
    let f = mg_format::MG_FORMAT_MPK;
    // SAFETY: this function's contract is `run`'s.
    unsafe {
        run(data, len, limits, result, |b, l| {
            let checked = mpk::check_tar_gz(b, l.mpk(), Registry::DEFAULT, l.hash_key);
            Outcome::verdict(f, checked, MpkError::rejection)
        })
    }
}

/// The MPK file name rule (`spec/mpk.md` §3.0), decided before any byte is read: `name`
/// (NUL-terminated, the file's name without its folder) must end in exactly `.tar.gz`
/// after a non-empty stem (`mpk::check_extension`). `MG_REJECTED` with
/// `MG_MPK_INVALID_ARCHIVE` otherwise, `MG_ERR_ARGUMENT` for a name that is not UTF-8.
/// `mg_check_file` and `mg_mpk_extract` apply it themselves.
///
/// # Safety
///
/// `name` is NULL (`MG_ERR_NULL`) or a NUL-terminated string; `result` as for the checks.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mg_check_mpk_file_name(name: *const c_char, result: *mut mg_result) -> mg_status {
    let body = || {
        if name.is_null() {
            return Outcome::error(mg_status::MG_ERR_NULL, "name is NULL");
        }
        // SAFETY: a NUL-terminated string (the caller's contract), not NULL.
        let name = unsafe { CStr::from_ptr(name) };
        match name.to_str() {
            Ok(n) => Outcome::verdict(mg_format::MG_FORMAT_MPK, mpk::check_extension(n), MpkError::rejection),
            Err(_) => Outcome::error(mg_status::MG_ERR_ARGUMENT, "name is not UTF-8"),
        }
    };
    // SAFETY: the caller's contract for `result`.
    unsafe { outcome::finish(result, body) }
}

/// Checks an mvb bundle export, the bytes of its `.mvb.tar` (`spec/mvb.md` §4): the
/// import's validation with nothing written, under `limits->mvb` (`mvb::check_mvb`). Kinds
/// `mg_mvb_kind`.
///
/// # Safety
///
/// `data` points to `len` readable bytes that do not change during the call (or is NULL with
/// `len` 0); `limits` is NULL or points to a readable `mg_limits`; `result` is NULL or
/// points to a writable `mg_result` whose `message` is NULL or holds `message_capacity`
/// writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mg_check_mvb(
    data: *const u8,
    len: usize,
    limits: *const mg_limits,
    result: *mut mg_result,
) -> mg_status {
    let f = mg_format::MG_FORMAT_MVB;
    // SAFETY: this function's contract is `run`'s.
    unsafe {
        run(data, len, limits, result, |b, l| {
            Outcome::verdict(f, mvb::check_mvb(b, l.mvb(), l.hash_key), mvb::MvbError::rejection)
        })
    }
}

/// Checks a standalone gzip file (`spec/inflate.md` §5): every member, its deflate data and
/// trailer, the output bounded by `limits->gzip_max_output` and discarded (`gzip::gunzip`).
/// Kinds `mg_gzip_kind`.
///
/// # Safety
///
/// `data` points to `len` readable bytes that do not change during the call (or is NULL with
/// `len` 0); `limits` is NULL or points to a readable `mg_limits`; `result` is NULL or
/// points to a writable `mg_result` whose `message` is NULL or holds `message_capacity`
/// writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mg_check_gzip(
    data: *const u8,
    len: usize,
    limits: *const mg_limits,
    result: *mut mg_result,
) -> mg_status {
    let f = mg_format::MG_FORMAT_GZIP;
    // SAFETY: this function's contract is `run`'s.
    unsafe {
        run(data, len, limits, result, |b, l| {
            Outcome::verdict(
                f,
                gzip::gunzip(b, l.gzip_max_output, |_| {}),
                gzip::GzipError::rejection,
            )
        })
    }
}

/// Checks a `.deflate` test frame (`spec/inflate.md` §6): declared size, CRC-32 and one raw
/// deflate stream, with every exact-size rule, the declared size bounded by
/// `limits->deflate_max_output` (`inflate::check_frame`). Kinds `mg_deflate_kind`.
///
/// # Safety
///
/// `data` points to `len` readable bytes that do not change during the call (or is NULL with
/// `len` 0); `limits` is NULL or points to a readable `mg_limits`; `result` is NULL or
/// points to a writable `mg_result` whose `message` is NULL or holds `message_capacity`
/// writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mg_check_deflate(
    data: *const u8,
    len: usize,
    limits: *const mg_limits,
    result: *mut mg_result,
) -> mg_status {
    let f = mg_format::MG_FORMAT_DEFLATE;
    // SAFETY: this function's contract is `run`'s.
    unsafe {
        run(data, len, limits, result, |b, l| {
            Outcome::verdict(
                f,
                inflate::check_frame(b, l.deflate_max_output),
                inflate::FrameError::rejection,
            )
        })
    }
}
