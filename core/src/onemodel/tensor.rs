//! Tensor element types and byte ranges (`spec/onemodel.md` §2.5): the dtype table, the
//! element count bound (2^60), the 2^31 − 1 byte limit, and the range and alignment checks
//! of a tensor's `data` against the data region. Views, never copies.

use super::error::ErrorKind;
use super::header::ALIGN;

/// ONNX `TensorProto.DataType` code of the string type (stored as `strings`, §2.5).
pub const STRING: u8 = 8;
/// Element counts must stay below this (§2.5, §3.2).
pub const MAX_ELEMENTS: u64 = 1 << 60;
/// Largest tensor this library supports, in bytes (§2.5).
pub const MAX_TENSOR_BYTES: u64 = (1 << 31) - 1;

/// Bits per element of dtype `code` (§2.5 table); `None` for 0, 8 (string) and unknown codes.
pub fn bits(code: u8) -> Option<u64> {
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

/// True for a dtype a tensor may have: a fixed-size code or 8 (string).
pub fn is_tensor_dtype(code: u8) -> bool {
    code == STRING || bits(code).is_some()
}

/// The element count of `dims` (0 when any dimension is 0), or `LimitExceeded` when the
/// product reaches 2^60 (checked as it grows, so it never overflows; §2.5).
pub fn element_count(dims: &[u64]) -> Result<u64, ErrorKind> {
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
pub fn byte_length(count: u64, bits: u64) -> u128 {
    (u128::from(count) * u128::from(bits)).div_ceil(8)
}

/// Which rule of §2.5's `data` list a range breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RangeError {
    /// Rule 2: the expected length is over 2^31 − 1 bytes (Unsupported).
    TooLarge,
    /// Rule 3: `length` differs from ceil(count × bits / 8) (OutOfRange).
    Length,
    /// Rule 4: a non-empty tensor's `offset` is not a multiple of 64 (OutOfRange).
    Alignment,
    /// Rule 5: `offset + length` runs past the data region (OutOfRange).
    Range,
}

/// Checks a tensor's `data` (offset and length, both ≤ 2^63 − 1) against its dtype bits,
/// element count and the data region length (§2.5 rules 2–5, in order), returning the
/// range within the data region.
pub fn check_range(
    bits: u64,
    count: u64,
    offset: u64,
    length: u64,
    data_length: u64,
) -> Result<core::ops::Range<u64>, RangeError> {
    let expected = byte_length(count, bits);
    if expected > u128::from(MAX_TENSOR_BYTES) {
        return Err(RangeError::TooLarge);
    }
    if u128::from(length) != expected {
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
        assert_eq!(check_range(32, 4, 64, 16, 80), Ok(64..80));
        assert_eq!(check_range(8, 1 << 31, 0, 0, 0), Err(RangeError::TooLarge));
        assert_eq!(check_range(32, 4, 64, 15, 80), Err(RangeError::Length));
        assert_eq!(check_range(32, 4, 65, 16, 200), Err(RangeError::Alignment));
        assert_eq!(check_range(32, 0, 3, 0, 0), Err(RangeError::Range));
        assert_eq!(check_range(32, 4, 64, 16, 79), Err(RangeError::Range));
        assert_eq!(check_range(8, 64, u64::MAX - 63, 64, u64::MAX), Err(RangeError::Range));
    }
}
