//! Typed failures of raw-deflate decoding (`spec/inflate.md` §2.9).

use core::fmt;

/// Why a raw deflate stream was rejected (`spec/inflate.md` §2.9).
///
/// Every reason is paired with a compressed-input offset in [`InflateError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum InflateReason {
    /// The stream is not valid RFC 1951 data: reserved block type 3, a stored
    /// block whose LEN and NLEN disagree, an invalid or incomplete Huffman code,
    /// an invalid symbol, or a distance reaching before the start of the output
    /// (`spec/inflate.md` §2.2).
    Corrupt,
    /// The input ended before the final block was complete (§2.4).
    Truncated,
    /// The stream ended before the end of the compressed bytes it was given (§2.3).
    TrailingData,
    /// The stream produces more bytes than its declared exact size (§2.5).
    TooLong,
    /// The stream ended with fewer bytes than its declared exact size (§2.5).
    TooShort,
    /// The CRC-32 of the output differs from the declared one (§2.6).
    CrcMismatch {
        /// CRC-32 the container declared.
        expected: u32,
        /// CRC-32 of the bytes actually produced.
        actual: u32,
    },
    /// The output exceeds the caller's limit, or a buffer of the declared size
    /// could not be allocated (§2.5, §3).
    LimitExceeded,
    /// A declared uncompressed size is over the caller's limit; raised before any
    /// decoding (§6).
    DeclaredTooLarge,
}

impl InflateReason {
    /// Stable name of the reason, for logs and tests (`spec/inflate.md` §2.9).
    pub fn name(&self) -> &'static str {
        match self {
            InflateReason::Corrupt => "Corrupt",
            InflateReason::Truncated => "Truncated",
            InflateReason::TrailingData => "TrailingData",
            InflateReason::TooLong => "TooLong",
            InflateReason::TooShort => "TooShort",
            InflateReason::CrcMismatch { .. } => "CrcMismatch",
            InflateReason::LimitExceeded => "LimitExceeded",
            InflateReason::DeclaredTooLarge => "DeclaredTooLarge",
        }
    }

    /// True for the reasons that are a reader limit rather than bad data
    /// (`spec/inflate.md` §7): [`InflateReason::LimitExceeded`] and
    /// [`InflateReason::DeclaredTooLarge`].
    pub(crate) fn is_limit(&self) -> bool {
        matches!(self, InflateReason::LimitExceeded | InflateReason::DeclaredTooLarge)
    }
}

impl fmt::Display for InflateReason {
    /// A short message; never contains input bytes (`spec/inflate.md` §2.9).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InflateReason::Corrupt => f.write_str("corrupt deflate data"),
            InflateReason::Truncated => f.write_str("deflate stream is truncated"),
            InflateReason::TrailingData => f.write_str("data after the end of the deflate stream"),
            InflateReason::TooLong => f.write_str("output is longer than the declared size"),
            InflateReason::TooShort => f.write_str("output is shorter than the declared size"),
            InflateReason::CrcMismatch { expected, actual } => {
                write!(f, "CRC-32 mismatch: declared {expected:08x}, computed {actual:08x}")
            }
            InflateReason::LimitExceeded => f.write_str("output exceeds the size limit"),
            InflateReason::DeclaredTooLarge => f.write_str("declared size exceeds the size limit"),
        }
    }
}

/// A rejected raw deflate stream: the reason and the offset, counted in bytes of
/// compressed input from the start of the deflate stream, at which it was detected
/// (`spec/inflate.md` §2.8).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InflateError {
    /// What was wrong.
    pub reason: InflateReason,
    /// Compressed bytes consumed when the problem was detected (§2.8).
    pub offset: u64,
}

impl InflateError {
    /// An error of `reason` detected at compressed offset `offset` (§2.8).
    pub fn new(reason: InflateReason, offset: u64) -> Self {
        InflateError { reason, offset }
    }

    /// The same error with its offset moved by `base` bytes (saturating), for
    /// callers that embed the deflate stream in a larger file (`spec/inflate.md` §2.8).
    pub(crate) fn shifted(self, base: u64) -> Self {
        InflateError {
            reason: self.reason,
            offset: self.offset.saturating_add(base),
        }
    }
}

impl fmt::Display for InflateError {
    /// `MESSAGE at compressed byte N`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at compressed byte {}", self.reason, self.offset)
    }
}

impl core::error::Error for InflateError {}
