//! Typed failures of gzip decoding (`spec/inflate.md` §5.12).

use crate::Location;
use crate::inflate::InflateReason;
use crate::report::Rejection;
use alloc::string::ToString;
use core::fmt;

/// Why a gzip input was rejected (`spec/inflate.md` §5.12).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum GzipReason {
    /// ID1 is not 0x1f or ID2 is not 0x8b (§5.1).
    BadMagic,
    /// CM (the value) is not 8, deflate (§5.1).
    BadMethod(u8),
    /// One of the reserved FLG bits 5 to 7 is set (§5.1).
    ReservedFlags,
    /// XFL (the value) is not 0, 2 or 4 (§5.1).
    BadXfl(u8),
    /// OS (the value) is neither 0 to 13 nor 255 (§5.1).
    BadOs(u8),
    /// The FEXTRA subfields do not tile XLEN exactly (§5.2).
    BadExtraField,
    /// FHCRC differs from the low 16 bits of the header's CRC-32 (§5.4).
    HeaderCrcMismatch {
        /// Value stored in the header.
        expected: u16,
        /// Value computed over the header bytes before it.
        actual: u16,
    },
    /// The member's deflate stream is invalid (§5.5).
    Deflate(InflateReason),
    /// The trailer's CRC-32 differs from the member's output (§5.6).
    CrcMismatch {
        /// CRC-32 stored in the trailer.
        expected: u32,
        /// CRC-32 of the member's output.
        actual: u32,
    },
    /// The trailer's ISIZE differs from the member's output length mod 2^32 (§5.6).
    SizeMismatch {
        /// ISIZE stored in the trailer.
        expected: u32,
        /// Output length mod 2^32.
        actual: u32,
    },
    /// A byte after the last member that is neither zero padding nor the start of
    /// a member directly after the previous one (§5.8).
    TrailingGarbage,
    /// The input ended inside a header, deflate stream or trailer (§5.10).
    Truncated,
    /// The input holds no member: it is empty or all zero bytes (§5.9).
    NoMember,
    /// The total output exceeds the caller's limit (§5.11).
    LimitExceeded,
}

impl GzipReason {
    /// Stable name of the reason, for logs and tests (`spec/inflate.md` §5.12).
    pub fn name(&self) -> &'static str {
        match self {
            GzipReason::BadMagic => "BadMagic",
            GzipReason::BadMethod(_) => "BadMethod",
            GzipReason::ReservedFlags => "ReservedFlags",
            GzipReason::BadXfl(_) => "BadXfl",
            GzipReason::BadOs(_) => "BadOs",
            GzipReason::BadExtraField => "BadExtraField",
            GzipReason::HeaderCrcMismatch { .. } => "HeaderCrcMismatch",
            GzipReason::Deflate(_) => "Deflate",
            GzipReason::CrcMismatch { .. } => "CrcMismatch",
            GzipReason::SizeMismatch { .. } => "SizeMismatch",
            GzipReason::TrailingGarbage => "TrailingGarbage",
            GzipReason::Truncated => "Truncated",
            GzipReason::NoMember => "NoMember",
            GzipReason::LimitExceeded => "LimitExceeded",
        }
    }
}

impl fmt::Display for GzipReason {
    /// A short message; never contains input bytes, but names a header field's value that is
    /// not in its set (`spec/inflate.md` §5.12).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GzipReason::BadMagic => f.write_str("not a gzip member (bad magic)"),
            GzipReason::BadMethod(cm) => write!(f, "compression method {cm} is not deflate (expected CM 8)"),
            GzipReason::ReservedFlags => f.write_str("reserved header flag bits are set"),
            GzipReason::BadXfl(xfl) => write!(f, "invalid XFL value {xfl} (expected 0, 2 or 4)"),
            GzipReason::BadOs(os) => write!(f, "invalid OS value {os} (expected 0 to 13 or 255)"),
            GzipReason::BadExtraField => f.write_str("extra field subfields do not fill XLEN"),
            GzipReason::HeaderCrcMismatch { expected, actual } => {
                write!(f, "header CRC mismatch: declared {expected:04x}, computed {actual:04x}")
            }
            GzipReason::Deflate(reason) => write!(f, "{reason}"),
            GzipReason::CrcMismatch { expected, actual } => write!(
                f,
                "member CRC-32 mismatch: declared {expected:08x}, computed {actual:08x}"
            ),
            GzipReason::SizeMismatch { expected, actual } => {
                write!(f, "member size mismatch: ISIZE {expected}, actual {actual} (mod 2^32)")
            }
            GzipReason::TrailingGarbage => f.write_str("trailing data after the last member"),
            GzipReason::Truncated => f.write_str("gzip input is truncated"),
            GzipReason::NoMember => f.write_str("no gzip member"),
            GzipReason::LimitExceeded => f.write_str("output exceeds the size limit"),
        }
    }
}

/// A rejected gzip input: the reason and the absolute byte offset in the gzip input,
/// counted across members (`spec/inflate.md` §5.12).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GzipError {
    /// What was wrong.
    pub reason: GzipReason,
    /// Offset from the first byte of the gzip input.
    pub offset: u64,
}

impl GzipError {
    /// An error of `reason` at absolute offset `offset` (§5.12).
    pub fn new(reason: GzipReason, offset: u64) -> Self {
        GzipError { reason, offset }
    }

    /// Corpus kind (`spec/inflate.md` §7): `LimitExceeded` for the output limit,
    /// else `InvalidGzip`.
    pub fn kind(&self) -> &'static str {
        match self.reason {
            GzipReason::LimitExceeded => "LimitExceeded",
            GzipReason::Deflate(r) if r.is_limit() => "LimitExceeded",
            _ => "InvalidGzip",
        }
    }

    /// The rejection `modelgate check` prints: kind, message and byte offset (§7).
    pub fn rejection(&self) -> Rejection {
        Rejection::from(self)
    }
}

impl From<&GzipError> for Rejection {
    /// Kind per `spec/inflate.md` §7, the reason's message, `Location::at(offset)`.
    fn from(e: &GzipError) -> Self {
        Rejection {
            kind: e.kind(),
            message: e.reason.to_string(),
            location: Location::at(e.offset),
        }
    }
}

impl fmt::Display for GzipError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.reason, self.offset)
    }
}

impl core::error::Error for GzipError {}
