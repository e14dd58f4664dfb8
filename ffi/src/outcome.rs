//! What every call returns ([`mg_status`]) and writes ([`mg_result`]), and the guard each
//! entry runs in: the verdict is built first, with panics caught when `std` is on, and only
//! then written to the caller's result, so that a result is never half written.

use crate::kinds::{self, MG_KIND_NONE, mg_format};
use alloc::string::{String, ToString};
use core::ffi::c_char;
use modelgate_core::Rejection;

/// What a call returns. `MG_OK` (0) and `MG_REJECTED` (1) are verdicts on the input; every
/// negative status says that no verdict was reached, and why.
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum mg_status {
    /// The input was accepted (or the operation done).
    MG_OK = 0,
    /// The input was rejected: `kind`, `offset` and the message say how.
    MG_REJECTED = 1,
    /// A pointer that must not be NULL was NULL (data with a non-zero length, a handle, an
    /// output, a path).
    MG_ERR_NULL = -1,
    /// A length larger than `PTRDIFF_MAX`, which no C object can have.
    MG_ERR_LENGTH = -2,
    /// The `mg_limits` given are not usable: `struct_size` is not this library's
    /// `sizeof(mg_limits)`, or an mlbundle limit lies outside its version 1 range
    /// (`spec/mlbundle.md` §3.2: limits may be lowered, never raised). The message says which.
    MG_ERR_LIMITS = -3,
    /// An argument is not usable: a path that is not valid for this system (not UTF-8
    /// where the system wants Unicode), or a tensor index past the last.
    MG_ERR_ARGUMENT = -4,
    /// The operating system refused (open, read, write, rename); the message says what.
    MG_ERR_IO = -5,
    /// The destination exists (any kind of file, a symbolic link included): it is never
    /// replaced.
    MG_ERR_EXISTS = -6,
    /// No format could be told from the file's name or first bytes (`mg_check_file`).
    MG_ERR_UNKNOWN_FORMAT = -7,
    /// A panic inside the library was caught at the boundary (a defect of modelgate, never
    /// an answer about the input). Only host builds (feature `std`) catch panics.
    MG_ERR_PANIC = -100,
}

/// Where a call writes its outcome. The caller owns it and sets `message` and
/// `message_capacity` (or zeroes the whole struct); the library writes every other field,
/// and up to `message_capacity` bytes at `message`.
///
/// The text is the line `modelgate check` prints after the file name: for a rejection
/// `KIND: message (location)`, the location being `member NAME, JSON.path, byte N` with the
/// parts that are unknown left out; for a negative status, what went wrong. It is UTF-8,
/// never echoes input bytes, and always ends with a NUL when `message_capacity` is at least 1:
/// a text that does not fit is cut at the last whole UTF-8 character that leaves room for
/// the NUL, and `truncated` is set. With a NULL `message` or a capacity of 0 nothing is
/// written there.
#[repr(C)]
#[derive(Debug)]
pub struct mg_result {
    /// In: the caller's buffer for the text (may be NULL).
    pub message: *mut c_char,
    /// In: how many bytes `message` holds, the NUL included.
    pub message_capacity: usize,
    /// Out: the bytes written before the NUL.
    pub message_len: usize,
    /// Out: where the failure was found, counted from the start of the input, or of the
    /// archive member the message names (valid when `has_offset`).
    pub offset: u64,
    /// Out: the format whose kind enum `kind` belongs to (`MG_FORMAT_NONE` when none).
    pub format: mg_format,
    /// Out: the error kind, a value of the format's kind enum (`mg_json_kind`, …), or
    /// `MG_KIND_NONE` (0) unless the status is `MG_REJECTED`. `mg_kind_name` names it.
    pub kind: u32,
    /// Out: `offset` holds an offset.
    pub has_offset: bool,
    /// Out: the text did not fit in `message_capacity` bytes and was cut.
    pub truncated: bool,
}

/// A call's outcome before it is written out.
#[derive(Debug)]
pub(crate) struct Outcome {
    pub(crate) status: mg_status,
    pub(crate) format: mg_format,
    pub(crate) kind: u32,
    pub(crate) offset: Option<u64>,
    pub(crate) text: String,
}

impl Outcome {
    /// Accepted, or done, with `text` as the message.
    pub(crate) fn ok(format: mg_format, text: impl Into<String>) -> Self {
        Outcome {
            status: mg_status::MG_OK,
            format,
            kind: MG_KIND_NONE,
            offset: None,
            text: text.into(),
        }
    }

    /// Rejected by `format`, as the core reports it.
    pub(crate) fn rejected(format: mg_format, r: &Rejection) -> Self {
        Outcome {
            status: mg_status::MG_REJECTED,
            format,
            kind: kinds::from_name(format, r.kind),
            offset: r.location.offset,
            text: r.to_string(),
        }
    }

    /// The verdict of a core check: accepted, or rejected with the error's rejection.
    pub(crate) fn verdict<T, E>(format: mg_format, r: Result<T, E>, rejection: impl FnOnce(&E) -> Rejection) -> Self {
        match r {
            Ok(_) => Outcome::ok(format, ""),
            Err(e) => Outcome::rejected(format, &rejection(&e)),
        }
    }

    /// No verdict: `status` (negative) and why.
    pub(crate) fn error(status: mg_status, text: impl Into<String>) -> Self {
        Outcome {
            status,
            format: mg_format::MG_FORMAT_NONE,
            kind: MG_KIND_NONE,
            offset: None,
            text: text.into(),
        }
    }
}

/// Runs `body`, catching a panic when `std` is on, and writes its outcome to `result`
/// (when not NULL). Returns the status.
///
/// # Safety
///
/// `result` is NULL or points to a writable `mg_result` whose `message` is NULL or points to
/// `message_capacity` writable bytes.
pub(crate) unsafe fn finish(result: *mut mg_result, body: impl FnOnce() -> Outcome) -> mg_status {
    let outcome = guard(body, |text| Outcome::error(mg_status::MG_ERR_PANIC, text));
    // SAFETY: the caller's contract, passed on.
    unsafe { write(result, &outcome) };
    outcome.status
}

/// Runs `body`; with `std`, a panic becomes `on_panic` of a description of it. Without
/// `std` a panic never returns here: it goes to the panic handler (`hooks`).
pub(crate) fn guard<T>(body: impl FnOnce() -> T, on_panic: impl FnOnce(String) -> T) -> T {
    #[cfg(test)]
    let body = || {
        if tests::PANIC_NEXT.take() {
            panic!("injected by a test");
        }
        body()
    };
    #[cfg(feature = "std")]
    {
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)) {
            Ok(v) => v,
            Err(payload) => {
                let what = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                on_panic(alloc::format!("internal error: modelgate panicked: {what}"))
            }
        }
    }
    #[cfg(not(feature = "std"))]
    {
        let _ = on_panic;
        body()
    }
}

/// Writes `outcome` to `result`.
///
/// # Safety
///
/// As for [`finish`].
unsafe fn write(result: *mut mg_result, outcome: &Outcome) {
    if result.is_null() {
        return;
    }
    // Only `message` and `message_capacity` are read, field by field: the caller need not
    // have initialised the rest, so no reference to the whole struct is made.
    // SAFETY: `result` is a valid, writable `mg_result` (the caller's contract), not NULL.
    let (message, capacity) = unsafe { ((*result).message, (*result).message_capacity) };
    let (written, cut) = fit(&outcome.text, capacity);
    let buffer = !message.is_null() && capacity > 0;
    let text = match buffer {
        true => outcome.text.as_bytes().get(..written).unwrap_or_default(),
        false => &[],
    };
    if buffer {
        let to = message.cast::<u8>();
        // SAFETY: `message` points to `message_capacity` writable bytes (the caller's
        // contract) and `fit` keeps `written + 1 <= message_capacity`: the text and its NUL
        // fit. Raw writes, never a reference to the caller's bytes, which may be
        // uninitialised; `text` is this library's own string, so the two cannot overlap.
        unsafe {
            core::ptr::copy_nonoverlapping(text.as_ptr(), to, text.len());
            to.add(text.len()).write(0);
        }
    }
    // SAFETY: as above; plain writes of `Copy` fields through the place, whatever they held.
    unsafe {
        (*result).format = outcome.format;
        (*result).kind = outcome.kind;
        (*result).has_offset = outcome.offset.is_some();
        (*result).offset = outcome.offset.unwrap_or(0);
        (*result).message_len = text.len();
        (*result).truncated = if buffer { cut } else { !outcome.text.is_empty() };
    }
}

/// How many bytes of `text` fit in `capacity` bytes with a NUL after them, cut at a UTF-8
/// character boundary, and whether that is less than the whole text.
pub(crate) fn fit(text: &str, capacity: usize) -> (usize, bool) {
    let room = capacity.saturating_sub(1);
    if text.len() <= room {
        return (text.len(), false);
    }
    let mut n = room;
    while n > 0 && !text.is_char_boundary(n) {
        n = n.saturating_sub(1);
    }
    (n, true)
}

/// The caller's bytes: `len` bytes at `data`, or why they cannot be taken.
///
/// # Safety
///
/// When `data` is not NULL it points to `len` readable bytes that stay unchanged for `'a`.
pub(crate) unsafe fn input<'a>(data: *const u8, len: usize) -> Result<&'a [u8], Outcome> {
    if len > isize::MAX as usize {
        return Err(Outcome::error(
            mg_status::MG_ERR_LENGTH,
            "length is larger than PTRDIFF_MAX",
        ));
    }
    if data.is_null() {
        return match len {
            0 => Ok(&[]),
            _ => Err(Outcome::error(
                mg_status::MG_ERR_NULL,
                "data is NULL with a non-zero length",
            )),
        };
    }
    // SAFETY: `data` is not NULL and points to `len` readable bytes that stay unchanged for
    // `'a` (the caller's contract); `len <= isize::MAX` was checked, and bytes need no
    // alignment.
    Ok(unsafe { core::slice::from_raw_parts(data, len) })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::kinds::mg_format;
    use core::cell::Cell;

    std::thread_local! {
        /// Makes the next guarded call on this thread panic inside the guard, as a defect
        /// anywhere below an entry would.
        pub(crate) static PANIC_NEXT: Cell<bool> = const { Cell::new(false) };
    }

    /// A panic below an entry never crosses the boundary: the real `mg_check_json`, made to
    /// panic inside, returns `MG_ERR_PANIC` with the panic in the message, and the next
    /// call works as ever.
    #[test]
    fn a_panic_below_an_entry_is_a_status() {
        let mut text = [0u8; 128];
        let mut r = mg_result {
            message: text.as_mut_ptr().cast(),
            message_capacity: text.len(),
            message_len: 0,
            offset: 0,
            format: mg_format::MG_FORMAT_NONE,
            kind: 0,
            has_offset: false,
            truncated: false,
        };
        let json = b"[1]";
        PANIC_NEXT.set(true);
        // SAFETY: live input, NULL limits, a live result with its buffer.
        let status = unsafe { crate::mg_check_json(json.as_ptr(), json.len(), core::ptr::null(), &mut r) };
        assert_eq!(status, mg_status::MG_ERR_PANIC);
        let text = core::str::from_utf8(&text[..r.message_len]).unwrap();
        assert_eq!(text, "internal error: modelgate panicked: injected by a test");
        assert_eq!((r.kind, r.format), (MG_KIND_NONE, mg_format::MG_FORMAT_NONE));
        // SAFETY: as above.
        let status = unsafe { crate::mg_check_json(json.as_ptr(), json.len(), core::ptr::null(), &mut r) };
        assert_eq!(status, mg_status::MG_OK);

        // The same for a call that returns a handle, and one without a result.
        PANIC_NEXT.set(true);
        // SAFETY: as above.
        let h = unsafe { crate::mg_onemodel_open(json.as_ptr(), json.len(), core::ptr::null(), &mut r) };
        assert!(h.is_null());
        assert_eq!(
            r.message_len,
            "internal error: modelgate panicked: injected by a test".len()
        );
        PANIC_NEXT.set(true);
        // SAFETY: as above, no result.
        let status =
            unsafe { crate::mg_check_mvb(json.as_ptr(), json.len(), core::ptr::null(), core::ptr::null_mut()) };
        assert_eq!(status, mg_status::MG_ERR_PANIC);
    }

    #[test]
    fn text_is_cut_at_a_character_boundary_with_room_for_the_nul() {
        assert_eq!(fit("abc", 4), (3, false));
        assert_eq!(fit("abc", 3), (2, true));
        assert_eq!(fit("abc", 1), (0, true));
        assert_eq!(fit("abc", 0), (0, true));
        assert_eq!(fit("", 0), (0, false));
        // "é" is two bytes: never split.
        assert_eq!(fit("aé", 3), (1, true));
        assert_eq!(fit("aé", 4), (3, false));
        // "€" is three bytes.
        assert_eq!(fit("€€", 6), (3, true));
    }
}
