//! OneModel reading for a loader (`spec/onemodel.md`): [`mg_onemodel_open`] checks a file
//! held in memory with the core reader (`onemodel::read`) and keeps what a loader needs of
//! its main graph's initializers: name, dtype, dims, and where the bytes are. Tensor bytes
//! are never copied: each tensor's data pointer points into the caller's buffer (or, for
//! [`mg_onemodel_open_file`](crate::mg_onemodel_open_file), into the file's bytes the handle
//! holds).
//!
//! The handle keeps no reference to the core's model: it records each tensor's byte range
//! as an offset into the buffer, so the buffer is the only thing it borrows.

use crate::kinds::mg_format;
use crate::limits::{self, mg_limits};
use crate::outcome::{self, Outcome, mg_result, mg_status};
use alloc::boxed::Box;
use alloc::vec::Vec;
use core::ffi::{CStr, c_char};
use modelgate_core::onemodel::{self, Model, TensorData};

/// ONNX `TensorProto.DataType` codes (`spec/onemodel.md` §2.5 table), the dtypes a tensor
/// may have.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum mg_dtype {
    /// No dtype (never a tensor's).
    MG_DTYPE_UNDEFINED = 0,
    /// `float`: IEEE 754 binary32.
    MG_DTYPE_FLOAT = 1,
    /// `uint8`.
    MG_DTYPE_UINT8 = 2,
    /// `int8`.
    MG_DTYPE_INT8 = 3,
    /// `uint16`.
    MG_DTYPE_UINT16 = 4,
    /// `int16`.
    MG_DTYPE_INT16 = 5,
    /// `int32`.
    MG_DTYPE_INT32 = 6,
    /// `int64`.
    MG_DTYPE_INT64 = 7,
    /// `string`: no data bytes; one byte string per element (`mg_onemodel_tensor_string`).
    MG_DTYPE_STRING = 8,
    /// `bool`: one byte per element.
    MG_DTYPE_BOOL = 9,
    /// `float16`.
    MG_DTYPE_FLOAT16 = 10,
    /// `double`.
    MG_DTYPE_DOUBLE = 11,
    /// `uint32`.
    MG_DTYPE_UINT32 = 12,
    /// `uint64`.
    MG_DTYPE_UINT64 = 13,
    /// `complex64`.
    MG_DTYPE_COMPLEX64 = 14,
    /// `complex128`.
    MG_DTYPE_COMPLEX128 = 15,
    /// `bfloat16`.
    MG_DTYPE_BFLOAT16 = 16,
    /// `float8e4m3fn`.
    MG_DTYPE_FLOAT8E4M3FN = 17,
    /// `float8e4m3fnuz`.
    MG_DTYPE_FLOAT8E4M3FNUZ = 18,
    /// `float8e5m2`.
    MG_DTYPE_FLOAT8E5M2 = 19,
    /// `float8e5m2fnuz`.
    MG_DTYPE_FLOAT8E5M2FNUZ = 20,
    /// `uint4`: two elements per byte.
    MG_DTYPE_UINT4 = 21,
    /// `int4`: two elements per byte.
    MG_DTYPE_INT4 = 22,
    /// `float4e2m1`: two elements per byte.
    MG_DTYPE_FLOAT4E2M1 = 23,
    /// `float8e8m0`.
    MG_DTYPE_FLOAT8E8M0 = 24,
    /// `uint2`: four elements per byte.
    MG_DTYPE_UINT2 = 25,
    /// `int2`: four elements per byte.
    MG_DTYPE_INT2 = 26,
    /// `float6e2m3`.
    MG_DTYPE_FLOAT6E2M3 = 27,
    /// `float6e3m2`.
    MG_DTYPE_FLOAT6E3M2 = 28,
}

/// Every dtype with its NUL-terminated name (the core's `dtype_name`, tested).
const DTYPES: [(mg_dtype, &CStr); 28] = [
    (mg_dtype::MG_DTYPE_FLOAT, c"float"),
    (mg_dtype::MG_DTYPE_UINT8, c"uint8"),
    (mg_dtype::MG_DTYPE_INT8, c"int8"),
    (mg_dtype::MG_DTYPE_UINT16, c"uint16"),
    (mg_dtype::MG_DTYPE_INT16, c"int16"),
    (mg_dtype::MG_DTYPE_INT32, c"int32"),
    (mg_dtype::MG_DTYPE_INT64, c"int64"),
    (mg_dtype::MG_DTYPE_STRING, c"string"),
    (mg_dtype::MG_DTYPE_BOOL, c"bool"),
    (mg_dtype::MG_DTYPE_FLOAT16, c"float16"),
    (mg_dtype::MG_DTYPE_DOUBLE, c"double"),
    (mg_dtype::MG_DTYPE_UINT32, c"uint32"),
    (mg_dtype::MG_DTYPE_UINT64, c"uint64"),
    (mg_dtype::MG_DTYPE_COMPLEX64, c"complex64"),
    (mg_dtype::MG_DTYPE_COMPLEX128, c"complex128"),
    (mg_dtype::MG_DTYPE_BFLOAT16, c"bfloat16"),
    (mg_dtype::MG_DTYPE_FLOAT8E4M3FN, c"float8e4m3fn"),
    (mg_dtype::MG_DTYPE_FLOAT8E4M3FNUZ, c"float8e4m3fnuz"),
    (mg_dtype::MG_DTYPE_FLOAT8E5M2, c"float8e5m2"),
    (mg_dtype::MG_DTYPE_FLOAT8E5M2FNUZ, c"float8e5m2fnuz"),
    (mg_dtype::MG_DTYPE_UINT4, c"uint4"),
    (mg_dtype::MG_DTYPE_INT4, c"int4"),
    (mg_dtype::MG_DTYPE_FLOAT4E2M1, c"float4e2m1"),
    (mg_dtype::MG_DTYPE_FLOAT8E8M0, c"float8e8m0"),
    (mg_dtype::MG_DTYPE_UINT2, c"uint2"),
    (mg_dtype::MG_DTYPE_INT2, c"int2"),
    (mg_dtype::MG_DTYPE_FLOAT6E2M3, c"float6e2m3"),
    (mg_dtype::MG_DTYPE_FLOAT6E3M2, c"float6e3m2"),
];

fn dtype(code: u8) -> mg_dtype {
    DTYPES
        .iter()
        .find(|(d, _)| *d as u32 == u32::from(code))
        .map_or(mg_dtype::MG_DTYPE_UNDEFINED, |(d, _)| *d)
}

/// The ONNX name of a dtype in lower case (`"float"`, `"int64"`, …), NUL-terminated and
/// static; NULL for `MG_DTYPE_UNDEFINED` and any value that is not a dtype.
#[unsafe(no_mangle)]
pub extern "C" fn mg_dtype_name(dtype: u32) -> *const c_char {
    let find = || DTYPES.iter().find(|(d, _)| *d as u32 == dtype).map(|(_, n)| *n);
    outcome::guard(find, |_| None).map_or(core::ptr::null(), CStr::as_ptr)
}

/// One tensor as `mg_onemodel_tensor` describes it. Every pointer stays valid until
/// `mg_onemodel_free`, and, for `data`, as long as the caller's buffer (for a handle of
/// `mg_onemodel_open`).
#[repr(C)]
#[derive(Debug)]
pub struct mg_tensor {
    /// The tensor's name, `name_len` bytes of UTF-8, followed by a NUL (a name may itself
    /// hold a NUL: `name_len` is its length).
    pub name: *const c_char,
    /// The name's length in bytes, without the NUL.
    pub name_len: usize,
    /// The element type.
    pub dtype: mg_dtype,
    /// The dimensions, `rank` of them (NULL when `rank` is 0, a scalar).
    pub dims: *const u64,
    /// How many dimensions.
    pub rank: usize,
    /// The tensor's bytes in ONNX `raw_data` layout (little-endian, packed): a view of the
    /// file's data region, 64-byte aligned relative to the start of the file
    /// (`spec/onemodel.md` §2.5). NULL for `MG_DTYPE_STRING` and for an empty tensor.
    pub data: *const u8,
    /// How many bytes at `data`.
    pub data_len: usize,
    /// For `MG_DTYPE_STRING`: how many strings (`mg_onemodel_tensor_string`); else 0.
    pub string_count: usize,
}

/// A tensor's bytes, as the handle keeps them.
#[derive(Debug)]
enum Data {
    /// `length` bytes at `offset` of the handle's bytes.
    Range { offset: usize, length: usize },
    /// Bytes the reader made (never for a OneModel file, whose tensors are views).
    Owned(Vec<u8>),
    /// dtype 8: one byte string per element.
    Strings(Vec<Vec<u8>>),
}

/// What the handle keeps of one tensor.
#[derive(Debug)]
pub(crate) struct Record {
    /// The name and a NUL.
    name: Vec<u8>,
    dtype: mg_dtype,
    dims: Vec<u64>,
    data: Data,
}

/// Where a handle's file bytes are.
#[derive(Debug)]
pub(crate) enum Bytes {
    /// The caller's buffer, borrowed until `mg_onemodel_free`.
    Borrowed { ptr: *const u8 },
    /// A file the handle holds (read or mapped by modelgate-io).
    #[cfg(feature = "std")]
    File(modelgate_io::mmap::FileBytes),
}

/// An open, fully checked OneModel file: opaque to C. Made by `mg_onemodel_open` or
/// `mg_onemodel_open_file`, released by `mg_onemodel_free`.
#[derive(Debug)]
pub struct mg_onemodel {
    bytes: Bytes,
    tensors: Vec<Record>,
}

impl mg_onemodel {
    /// Reads `file` with the core reader and records its main graph's initializers, their
    /// bytes as offsets into `file`; the rejection as an outcome.
    pub(crate) fn tensors(file: &[u8], limits: &mg_limits) -> Result<Vec<Record>, Outcome> {
        let model = onemodel::read(file, limits.onemodel())
            .map_err(|e| Outcome::rejected(mg_format::MG_FORMAT_ONEMODEL, &e.rejection()))?;
        Ok(records(&model, file))
    }

    /// A handle over `bytes`, whose file gave `tensors`. Moving a file's bytes (a map, a
    /// heap buffer) into the handle does not move the bytes themselves, so the offsets hold.
    pub(crate) fn new(bytes: Bytes, tensors: Vec<Record>) -> Box<mg_onemodel> {
        Box::new(mg_onemodel { bytes, tensors })
    }

    /// The first byte of the file.
    fn base(&self) -> *const u8 {
        match &self.bytes {
            Bytes::Borrowed { ptr } => *ptr,
            #[cfg(feature = "std")]
            Bytes::File(f) => f.as_ptr(),
        }
    }
}

/// The main graph's initializers of `model`, read from `file`, with byte ranges as offsets.
fn records(model: &Model<'_>, file: &[u8]) -> Vec<Record> {
    let base = file.as_ptr() as usize;
    model
        .graph
        .initializers
        .iter()
        .map(|t| {
            let mut name = Vec::with_capacity(t.name.len().saturating_add(1));
            name.extend_from_slice(t.name.as_bytes());
            name.push(0);
            let data = match &t.data {
                TensorData::Raw(raw) => {
                    // A view of `file` (the reader's tensors are), found by its address.
                    let offset = (raw.as_ptr() as usize).checked_sub(base);
                    let inside = offset.filter(|o| o.checked_add(raw.len()).is_some_and(|end| end <= file.len()));
                    match inside {
                        Some(offset) => Data::Range {
                            offset,
                            length: raw.len(),
                        },
                        None => Data::Owned(raw.to_vec()),
                    }
                }
                TensorData::Strings(s) => Data::Strings(s.clone()),
                // Only `read_head` leaves tensors in the file; `read` never does.
                TensorData::File(_) => Data::Owned(Vec::new()),
            };
            Record {
                name,
                dtype: dtype(t.dtype),
                dims: t.dims.clone(),
                data,
            }
        })
        .collect()
}

/// Hands a handle to C, writing the outcome: the handle, or NULL with the result set.
///
/// # Safety
///
/// `result` as for the checks.
pub(crate) unsafe fn open_with(
    result: *mut mg_result,
    open: impl FnOnce() -> Result<Box<mg_onemodel>, Outcome>,
) -> *mut mg_onemodel {
    let mut handle = None;
    let body = || match open() {
        Ok(h) => {
            handle = Some(h);
            Outcome::ok(mg_format::MG_FORMAT_ONEMODEL, "")
        }
        Err(e) => e,
    };
    // SAFETY: the caller's contract for `result`.
    unsafe { outcome::finish(result, body) };
    handle.map_or(core::ptr::null_mut(), Box::into_raw)
}

/// Opens a OneModel file held in memory: checks it whole, as `mg_check_onemodel` does,
/// under `limits->onemodel`, and returns a handle to its tensors, or NULL with `result`
/// saying why (`MG_REJECTED` with a `mg_onemodel_kind`, or a negative status).
///
/// The handle borrows the buffer: the `len` bytes at `data` must stay allocated and
/// unchanged until `mg_onemodel_free` is called on it, and every tensor's `data` points into
/// them. Nothing else is kept: `limits` and `result` may go once this returns.
///
/// # Safety
///
/// `data` is NULL with `len` 0, or points to `len` readable bytes that stay unchanged and
/// allocated until the handle is freed; `limits` is NULL or readable; `result` is NULL or a
/// writable `mg_result` with a valid message buffer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mg_onemodel_open(
    data: *const u8,
    len: usize,
    limits: *const mg_limits,
    result: *mut mg_result,
) -> *mut mg_onemodel {
    let open = || {
        // SAFETY: `len` readable bytes at `data`, unchanged while the handle lives, which
        // is longer than this call (the caller's contract).
        let file = unsafe { outcome::input(data, len) }?;
        // SAFETY: NULL or a readable `mg_limits` (the caller's contract).
        let limits = unsafe { limits::read(limits) }?;
        let tensors = mg_onemodel::tensors(file, &limits)?;
        Ok(mg_onemodel::new(Bytes::Borrowed { ptr: file.as_ptr() }, tensors))
    };
    // SAFETY: the caller's contract for `result`.
    unsafe { open_with(result, open) }
}

/// How many tensors (the main graph's initializers) the handle holds; 0 for NULL.
///
/// # Safety
///
/// `handle` is NULL or a handle not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mg_onemodel_tensor_count(handle: *const mg_onemodel) -> usize {
    // SAFETY: NULL or a live handle (the caller's contract).
    let h = unsafe { handle.as_ref() };
    outcome::guard(|| h.map_or(0, |h| h.tensors.len()), |_| 0)
}

/// Describes tensor `index` (0-based, in the file's order) into `*out`. `MG_OK`, or
/// `MG_ERR_NULL` (handle or `out`), `MG_ERR_ARGUMENT` (index past the last); `*out` is
/// written only on `MG_OK`.
///
/// # Safety
///
/// `handle` is NULL or a handle not yet freed; `out` is NULL or a writable `mg_tensor`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mg_onemodel_tensor(
    handle: *const mg_onemodel,
    index: usize,
    out: *mut mg_tensor,
) -> mg_status {
    // SAFETY: NULL or a live handle (the caller's contract).
    let Some(h) = (unsafe { handle.as_ref() }) else {
        return mg_status::MG_ERR_NULL;
    };
    if out.is_null() {
        return mg_status::MG_ERR_NULL;
    }
    match outcome::guard(|| describe(h, index), |_| Err(mg_status::MG_ERR_PANIC)) {
        Ok(t) => {
            // SAFETY: a writable `mg_tensor` (the caller's contract), not NULL; written
            // whole, without reading what it held.
            unsafe { out.write(t) };
            mg_status::MG_OK
        }
        Err(status) => status,
    }
}

/// Tensor `index` of `h` as C sees it, or `MG_ERR_ARGUMENT` past the last.
fn describe(h: &mg_onemodel, index: usize) -> Result<mg_tensor, mg_status> {
    let Some(t) = h.tensors.get(index) else {
        return Err(mg_status::MG_ERR_ARGUMENT);
    };
    let (data, data_len, string_count) = match &t.data {
        // `wrapping_add` is plain arithmetic: the range lies inside the file's bytes (checked
        // when it was recorded), so the pointer is in bounds.
        Data::Range { offset, length } if *length > 0 => (h.base().wrapping_add(*offset), *length, 0),
        Data::Range { .. } => (core::ptr::null(), 0, 0),
        Data::Owned(v) if !v.is_empty() => (v.as_ptr(), v.len(), 0),
        Data::Owned(_) => (core::ptr::null(), 0, 0),
        Data::Strings(s) => (core::ptr::null(), 0, s.len()),
    };
    Ok(mg_tensor {
        name: t.name.as_ptr().cast::<c_char>(),
        name_len: t.name.len().saturating_sub(1),
        dtype: t.dtype,
        dims: if t.dims.is_empty() {
            core::ptr::null()
        } else {
            t.dims.as_ptr()
        },
        rank: t.dims.len(),
        data,
        data_len,
        string_count,
    })
}

/// Element `element` of a string tensor (`MG_DTYPE_STRING`): `*bytes` and `*len` are set to
/// its bytes (any bytes, not NUL-terminated), valid until `mg_onemodel_free`. `MG_OK`, or
/// `MG_ERR_NULL`, or `MG_ERR_ARGUMENT` (no such tensor or element, or not a string tensor).
///
/// # Safety
///
/// `handle` is NULL or a handle not yet freed; `bytes` and `len` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mg_onemodel_tensor_string(
    handle: *const mg_onemodel,
    index: usize,
    element: usize,
    bytes: *mut *const u8,
    len: *mut usize,
) -> mg_status {
    // SAFETY: NULL or a live handle (the caller's contract).
    let Some(h) = (unsafe { handle.as_ref() }) else {
        return mg_status::MG_ERR_NULL;
    };
    if bytes.is_null() || len.is_null() {
        return mg_status::MG_ERR_NULL;
    }
    let found = || match h.tensors.get(index).map(|t| &t.data) {
        Some(Data::Strings(s)) => s.get(element),
        _ => None,
    };
    let s = outcome::guard(found, |_| None);
    let Some(s) = s else {
        return mg_status::MG_ERR_ARGUMENT;
    };
    // SAFETY: both are writable and not NULL (the caller's contract, checked above).
    unsafe {
        bytes.write(s.as_ptr());
        len.write(s.len());
    }
    mg_status::MG_OK
}

/// Releases a handle and everything it holds (for `mg_onemodel_open_file`, the file's bytes
/// or map). The caller's buffer of `mg_onemodel_open` may be freed after this. NULL is
/// ignored; freeing a handle twice is undefined.
///
/// # Safety
///
/// `handle` is NULL or a handle from `mg_onemodel_open` or `mg_onemodel_open_file` not yet
/// freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mg_onemodel_free(handle: *mut mg_onemodel) {
    if handle.is_null() {
        return;
    }
    // SAFETY: made by `Box::into_raw` in `open_with` and not freed before (the caller's
    // contract): ownership comes back here once.
    let handle = unsafe { Box::from_raw(handle) };
    outcome::guard(|| drop(handle), |_| ());
}

#[cfg(test)]
mod tests {
    use super::*;
    use modelgate_core::onemodel::dtype_name;

    #[test]
    fn dtype_names_are_the_cores() {
        for code in 0..=255u8 {
            let ours = mg_dtype_name(u32::from(code));
            match dtype_name(code) {
                // SAFETY: a static NUL-terminated name.
                Some(n) => assert_eq!(unsafe { CStr::from_ptr(ours) }.to_str().unwrap(), n),
                None => assert!(ours.is_null(), "{code}"),
            }
            let known = dtype(code) != mg_dtype::MG_DTYPE_UNDEFINED;
            assert_eq!(known, dtype_name(code).is_some(), "{code}");
            assert!(!known || dtype(code) as u32 == u32::from(code));
        }
    }
}
