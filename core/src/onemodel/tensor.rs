//! Tensor element types and byte ranges (`spec/onemodel.md` §2.5): the dtype table, the
//! element count bound (2^60), the size bound (`Limits::max_tensor_bytes`, 2^31 − 1 by
//! default, and what the platform can address), and the range and alignment checks of a
//! tensor's `data` against the data region. Views, never copies.

use super::error::ErrorKind;
use super::header::ALIGN;
use alloc::string::String;
use core::fmt::{self, Write};

/// ONNX `TensorProto.DataType` code of the string type (stored as `strings`, §2.5).
pub(crate) const STRING: u8 = 8;
/// Element counts must stay below this (§2.5, §3.2).
pub(crate) const MAX_ELEMENTS: u64 = 1 << 60;
/// The default of `Limits::max_tensor_bytes` (§2.5): the largest tensor the OneModel
/// format's C# library reads, so that files written under the default stay readable there.
pub const DEFAULT_MAX_TENSOR_BYTES: u64 = (1 << 31) - 1;
/// Largest `max_tensor_bytes` that means anything: a tensor's `length` is at most 2^63 − 1
/// (§2.5 rule 1); a larger bound acts as this one.
pub(crate) const MAX_TENSOR_BYTES_BOUND: u64 = i64::MAX as u64;

/// Bits per element of dtype `code` (§2.5 table); `None` for 0, 8 (string) and unknown codes.
pub(crate) fn bits(code: u8) -> Option<u64> {
    match code {
        1 | 6 | 12 => Some(32),
        2 | 3 | 9 | 17..=20 | 24 => Some(8),
        4 | 5 | 10 | 16 => Some(16),
        7 | 11 | 13 | 14 => Some(64),
        15 => Some(128),
        21..=23 => Some(4),
        25 | 26 => Some(2),
        27 | 28 => Some(6),
        _ => None,
    }
}

/// The ONNX name of dtype `code` in lower case (`TensorProto.DataType`: 1 `float`, 7
/// `int64`, 8 `string`, …); `None` for 0 and unknown codes.
pub fn dtype_name(code: u8) -> Option<&'static str> {
    const NAMES: [&str; 28] = [
        "float",
        "uint8",
        "int8",
        "uint16",
        "int16",
        "int32",
        "int64",
        "string",
        "bool",
        "float16",
        "double",
        "uint32",
        "uint64",
        "complex64",
        "complex128",
        "bfloat16",
        "float8e4m3fn",
        "float8e4m3fnuz",
        "float8e5m2",
        "float8e5m2fnuz",
        "uint4",
        "int4",
        "float4e2m1",
        "float8e8m0",
        "uint2",
        "int2",
        "float6e2m3",
        "float6e3m2",
    ];
    NAMES.get(usize::from(code).checked_sub(1)?).copied()
}

/// True for a dtype a tensor may have: a fixed-size code or 8 (string).
pub(crate) fn is_tensor_dtype(code: u8) -> bool {
    code == STRING || bits(code).is_some()
}

/// True for an `elem_type` or `key_type` (§2.7): 0 (not stated) or a tensor dtype.
pub(crate) fn is_elem_type(code: u8) -> bool {
    code == 0 || is_tensor_dtype(code)
}

/// True for the type of an attribute (§2.4): 1 to 14; 0 is UNDEFINED, which no attribute has.
pub(crate) fn is_attribute_type(code: u8) -> bool {
    (1..=14).contains(&code)
}

/// The codes 0 to 255 that `ok` accepts, as ranges: `1 to 28`, `0, 2 to 5 or 7`.
pub(crate) fn code_set(ok: impl Fn(u8) -> bool) -> String {
    let mut runs: alloc::vec::Vec<(u8, u8)> = alloc::vec::Vec::new();
    for c in 0..=u8::MAX {
        if !ok(c) {
            continue;
        }
        match runs.last_mut() {
            Some((_, end)) if end.checked_add(1) == Some(c) => *end = c,
            _ => runs.push((c, c)),
        }
    }
    let mut out = String::new();
    let last = runs.len().saturating_sub(1);
    for (i, (start, end)) in runs.into_iter().enumerate() {
        let sep = match i {
            0 => "",
            _ if i == last => " or ",
            _ => ", ",
        };
        let _ = match end - start {
            0 => write!(out, "{sep}{start}"),
            1 => write!(out, "{sep}{start}, {end}"),
            _ => write!(out, "{sep}{start} to {end}"),
        };
    }
    out
}

/// The message for a type code that is not in the set `ok` accepts: the code found and the
/// set (`unsupported dtype 99 (expected 1 to 28)`).
pub(crate) fn unsupported_code(what: &str, found: impl fmt::Display, ok: impl Fn(u8) -> bool) -> String {
    alloc::format!("unsupported {what} {found} (expected {})", code_set(ok))
}

/// The element count of `dims` (0 when any dimension is 0), or `LimitExceeded` when the
/// product reaches 2^60 (checked as it grows, so it never overflows; §2.5).
pub(crate) fn element_count(dims: &[u64]) -> Result<u64, ErrorKind> {
    if dims.contains(&0) {
        return Ok(0);
    }
    let mut count: u64 = 1;
    for &d in dims {
        count = count.saturating_mul(d);
        if count >= MAX_ELEMENTS {
            return Err(ErrorKind::LimitExceeded);
        }
    }
    Ok(count)
}

/// Bytes that `count` elements of `bits` bits take: ceil(count × bits / 8). Cannot overflow
/// for count < 2^60 and bits ≤ 128 in 128-bit arithmetic.
pub(crate) fn byte_length(count: u64, bits: u64) -> u128 {
    (u128::from(count) * u128::from(bits)).div_ceil(8)
}

/// Why a tensor's size is refused (§2.5 rules 2 and 2a): over the reader's bound, or over
/// what this platform can address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SizeError {
    /// Rule 2: the byte length is over `max_tensor_bytes` (Unsupported).
    TooLarge,
    /// Rule 2a: the byte length does not fit a `usize` (LimitExceeded; 32-bit targets).
    Unaddressable,
}

impl SizeError {
    /// The kind §2.5 gives the failure.
    pub(crate) fn kind(self) -> ErrorKind {
        match self {
            SizeError::TooLarge => ErrorKind::Unsupported,
            SizeError::Unaddressable => ErrorKind::LimitExceeded,
        }
    }

    /// The failure's message; rule 2's names the option that raises the bound.
    pub(crate) fn message(self) -> &'static str {
        match self {
            SizeError::TooLarge => {
                "tensor larger than max_tensor_bytes (by default 2^31 - 1; set it with --max-tensor-bytes)"
            }
            SizeError::Unaddressable => "tensor larger than this platform can address",
        }
    }
}

/// The byte length of `count` elements of `bits` bits (§2.5): Unsupported over
/// `max_bytes` (rule 2; a bound above 2^63 − 1 acts as 2^63 − 1), LimitExceeded over
/// `usize::MAX` (rule 2a), so a length is never truncated where `usize` has 32 bits.
pub(crate) fn size(count: u64, bits: u64, max_bytes: u64) -> Result<u64, SizeError> {
    size_within(count, bits, max_bytes, u64::try_from(usize::MAX).unwrap_or(u64::MAX))
}

/// [`size`] on a platform that addresses `addressable` bytes at most.
fn size_within(count: u64, bits: u64, max_bytes: u64, addressable: u64) -> Result<u64, SizeError> {
    let expected = byte_length(count, bits);
    if expected > u128::from(max_bytes.min(MAX_TENSOR_BYTES_BOUND)) {
        return Err(SizeError::TooLarge);
    }
    if expected > u128::from(addressable) {
        return Err(SizeError::Unaddressable);
    }
    u64::try_from(expected).map_err(|_| SizeError::TooLarge)
}

/// Which rule of §2.5's `data` list a range breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RangeError {
    /// Rules 2 and 2a: the expected length is over `max_tensor_bytes` or unaddressable.
    Size(SizeError),
    /// Rule 3: `length` differs from ceil(count × bits / 8) (OutOfRange).
    Length,
    /// Rule 4: a non-empty tensor's `offset` is not a multiple of 64 (OutOfRange).
    Alignment,
    /// Rule 5: `offset + length` runs past the data region (OutOfRange).
    Range,
}

/// Checks a tensor's `data` (offset and length, both ≤ 2^63 − 1) against its dtype bits,
/// element count, the size bound `max_bytes` and the data region length (§2.5 rules 2–5,
/// in order), returning the range within the data region.
pub(crate) fn check_range(
    bits: u64,
    count: u64,
    offset: u64,
    length: u64,
    data_length: u64,
    max_bytes: u64,
) -> Result<core::ops::Range<u64>, RangeError> {
    let expected = size(count, bits, max_bytes).map_err(RangeError::Size)?;
    if length != expected {
        return Err(RangeError::Length);
    }
    if length > 0 && !offset.is_multiple_of(ALIGN) {
        return Err(RangeError::Alignment);
    }
    match offset.checked_add(length) {
        Some(end) if end <= data_length => Ok(offset..end),
        _ => Err(RangeError::Range),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_sets_are_ranges() {
        assert_eq!(code_set(is_tensor_dtype), "1 to 28");
        assert_eq!(code_set(is_elem_type), "0 to 28");
        assert_eq!(code_set(is_attribute_type), "1 to 14");
        assert_eq!(code_set(|c| c == 3), "3");
        assert_eq!(
            code_set(|c| matches!(c, 0 | 2..=5 | 7 | 8 | 255)),
            "0, 2 to 5, 7, 8 or 255"
        );
        assert_eq!(code_set(|c| c > 253), "254, 255");
        assert_eq!(code_set(|_| false), "");
        assert_eq!(
            unsupported_code("dtype", -1, is_tensor_dtype),
            "unsupported dtype -1 (expected 1 to 28)"
        );
    }

    #[test]
    fn dtype_table_matches_spec() {
        let fixed: [(u8, u64); 27] = [
            (1, 32),
            (2, 8),
            (3, 8),
            (4, 16),
            (5, 16),
            (6, 32),
            (7, 64),
            (9, 8),
            (10, 16),
            (11, 64),
            (12, 32),
            (13, 64),
            (14, 64),
            (15, 128),
            (16, 16),
            (17, 8),
            (18, 8),
            (19, 8),
            (20, 8),
            (21, 4),
            (22, 4),
            (23, 4),
            (24, 8),
            (25, 2),
            (26, 2),
            (27, 6),
            (28, 6),
        ];
        for (code, b) in fixed {
            assert_eq!(bits(code), Some(b), "dtype {code}");
        }
        for code in [0u8, 8, 29, 30, 255] {
            assert_eq!(bits(code), None, "dtype {code}");
        }
        assert!(is_tensor_dtype(8) && !is_tensor_dtype(0));
        let named: [(u8, &str); 5] = [
            (1, "float"),
            (8, "string"),
            (16, "bfloat16"),
            (24, "float8e8m0"),
            (28, "float6e3m2"),
        ];
        for (code, name) in named {
            assert_eq!(dtype_name(code), Some(name));
        }
        assert_eq!((dtype_name(0), dtype_name(29)), (None, None));
        assert!((1..=28).all(|c| dtype_name(c).is_some() && is_tensor_dtype(c)));
    }

    #[test]
    fn element_count_limit() {
        assert_eq!(element_count(&[]), Ok(1));
        assert_eq!(element_count(&[1 << 30, (1 << 30) - 1]), Ok((1 << 60) - (1 << 30)));
        assert_eq!(element_count(&[1 << 30, 1 << 30]), Err(ErrorKind::LimitExceeded));
        assert_eq!(element_count(&[1 << 62, 0]), Ok(0));
        assert_eq!(element_count(&[u64::MAX, u64::MAX]), Err(ErrorKind::LimitExceeded));
    }

    #[test]
    fn sub_byte_lengths_round_up() {
        assert_eq!(byte_length(3, 4), 2);
        assert_eq!(byte_length(5, 2), 2);
        assert_eq!(byte_length(3, 6), 3);
        assert_eq!(byte_length((1 << 60) - 1, 128), ((1u128 << 60) - 1) * 16);
    }

    #[test]
    fn range_rules_in_order() {
        const MAX: u64 = DEFAULT_MAX_TENSOR_BYTES;
        let too_large = Err(RangeError::Size(SizeError::TooLarge));
        assert_eq!(check_range(32, 4, 64, 16, 80, MAX), Ok(64..80));
        assert_eq!(check_range(8, 1 << 31, 0, 0, 0, MAX), too_large);
        assert_eq!(check_range(32, 4, 64, 15, 80, MAX), Err(RangeError::Length));
        assert_eq!(check_range(32, 4, 65, 16, 200, MAX), Err(RangeError::Alignment));
        assert_eq!(check_range(32, 0, 3, 0, 0, MAX), Err(RangeError::Range));
        assert_eq!(check_range(32, 4, 64, 16, 79, MAX), Err(RangeError::Range));
        assert_eq!(
            check_range(8, 64, u64::MAX - 63, 64, u64::MAX, MAX),
            Err(RangeError::Range)
        );
        // A raised bound: 2^31 bytes pass rule 2 and go on to rule 3.
        let big = 1u64 << 31;
        assert_eq!(check_range(8, big, 0, big, big, big), Ok(0..big));
        assert_eq!(check_range(8, big, 0, big, big, big - 1), too_large);
        assert_eq!(check_range(8, big, 0, 0, big, big), Err(RangeError::Length));
    }

    #[test]
    fn size_bound_default_raised_and_capped() {
        let (max, big) = (DEFAULT_MAX_TENSOR_BYTES, 1u64 << 31);
        assert_eq!(size(max, 8, max), Ok(max));
        assert_eq!(size(big, 8, max), Err(SizeError::TooLarge));
        assert_eq!(size(big, 8, big), Ok(big));
        assert_eq!(size(3, 4, 1), Err(SizeError::TooLarge));
        assert_eq!(size(3, 4, 2), Ok(2));
        // The bound is at most 2^63 - 1: 2^60 - 1 elements of 128 bits are over it.
        assert_eq!(size((1 << 60) - 1, 128, u64::MAX), Err(SizeError::TooLarge));
        assert_eq!(size(1 << 59, 128, u64::MAX), Err(SizeError::TooLarge));
        assert_eq!(size((1 << 59) - 1, 128, u64::MAX), Ok(((1 << 59) - 1) * 16));
        assert_eq!(SizeError::TooLarge.kind(), ErrorKind::Unsupported);
        assert!(SizeError::TooLarge.message().contains("--max-tensor-bytes"));
    }

    /// Where `usize` has 32 bits, a tensor the bound allows but memory cannot address is
    /// LimitExceeded, never a truncated length.
    #[test]
    fn an_unaddressable_size_is_limit_exceeded() {
        let four_gib = 1u64 << 32;
        let addressable = u64::from(u32::MAX);
        assert_eq!(size_within(four_gib - 1, 8, u64::MAX, addressable), Ok(four_gib - 1));
        assert_eq!(
            size_within(four_gib, 8, u64::MAX, addressable),
            Err(SizeError::Unaddressable)
        );
        assert_eq!(
            size_within(four_gib, 8, four_gib - 1, addressable),
            Err(SizeError::TooLarge)
        );
        assert_eq!(SizeError::Unaddressable.kind(), ErrorKind::LimitExceeded);
    }
}
