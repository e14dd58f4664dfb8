//! Incremental parser for one gzip member header (RFC 1952 §2.3; `spec/inflate.md`
//! §5.1 to §5.4).
//!
//! The parser takes bytes in pieces of any size and keeps only fixed-size state:
//! FNAME, FCOMMENT and FEXTRA data are scanned, never stored, so their length costs
//! no memory.

use crate::digest::ChunkDigest;
use crate::gzip::error::{GzipError, GzipReason};
use crate::inflate::raw::to_u64;
use crate::invariant;

/// First magic byte, ID1 (§5.1).
pub(crate) const ID1: u8 = 0x1f;
/// Second magic byte, ID2 (§5.1).
pub(crate) const ID2: u8 = 0x8b;
/// The only compression method, deflate (§5.1).
pub(crate) const CM_DEFLATE: u8 = 8;

/// FLG bit: a CRC-16 of the header follows the optional fields (§5.4).
pub(crate) const FHCRC: u8 = 1 << 1;
/// FLG bit: an extra field is present (§5.2).
pub(crate) const FEXTRA: u8 = 1 << 2;
/// FLG bit: a zero-terminated file name is present (§5.3).
pub(crate) const FNAME: u8 = 1 << 3;
/// FLG bit: a zero-terminated comment is present (§5.3).
pub(crate) const FCOMMENT: u8 = 1 << 4;
/// FLG bits 5 to 7, reserved and required to be zero (§5.1).
pub(crate) const FLG_RESERVED: u8 = 0b1110_0000;

/// Where the parser is inside the header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    Id1,
    Id2,
    Cm,
    Flg,
    Mtime(u8),
    Xfl,
    Os,
    XlenLo,
    XlenHi,
    SubfieldStart,
    SubfieldId2,
    SubfieldLenLo,
    SubfieldLenHi,
    SubfieldData(u16),
    Name,
    Comment,
    HcrcLo,
    HcrcHi,
    Done,
}

/// Result of [`HeaderParser::feed`] (`spec/inflate.md` §5.5: the deflate stream starts
/// right after the header).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct HeaderProgress {
    /// Bytes of the given slice that belong to the header.
    pub consumed: usize,
    /// True when the header is complete (the deflate stream starts after `consumed`).
    pub done: bool,
}

/// Validates one gzip member header fed in pieces (`spec/inflate.md` §5.1 to §5.4).
#[derive(Clone)]
pub(crate) struct HeaderParser {
    field: Field,
    flags: u8,
    xlen_left: u16,
    /// Offset of the subfield or FHCRC field an error points at.
    field_start: u64,
    low_byte: u8,
    crc: ChunkDigest,
}

impl HeaderParser {
    /// A parser positioned before ID1 (`spec/inflate.md` §5.1).
    pub(crate) fn new() -> Self {
        HeaderParser {
            field: Field::Id1,
            flags: 0,
            xlen_left: 0,
            field_start: 0,
            low_byte: 0,
            crc: ChunkDigest::crc_only(),
        }
    }

    /// Consumes header bytes from `input`, whose first byte is at absolute offset
    /// `base`, stopping at the end of the header (`spec/inflate.md` §5.1 to §5.4).
    /// Errors carry the absolute offset of the offending field.
    pub(crate) fn feed(&mut self, input: &[u8], base: u64) -> Result<HeaderProgress, GzipError> {
        let mut pos = 0usize;
        while self.field != Field::Done {
            let Some(rest) = input.get(pos..).filter(|r| !r.is_empty()) else {
                break;
            };
            let at = base.saturating_add(to_u64(pos));
            pos = pos.saturating_add(self.take(rest, at)?);
        }
        Ok(HeaderProgress {
            consumed: pos,
            done: self.field == Field::Done,
        })
    }

    /// Consumes at least one byte of the non-empty `rest` (at offset `at`); returns how many.
    fn take(&mut self, rest: &[u8], at: u64) -> Result<usize, GzipError> {
        match self.field {
            Field::SubfieldData(left) => Ok(self.skip_data(rest, left)),
            Field::Name | Field::Comment => Ok(self.skip_string(rest)),
            _ => {
                let byte = invariant::item(rest, 0);
                self.byte(byte, at)?;
                Ok(1)
            }
        }
    }

    /// Takes one byte of a fixed-size field.
    fn byte(&mut self, b: u8, at: u64) -> Result<(), GzipError> {
        if !matches!(self.field, Field::HcrcLo | Field::HcrcHi) {
            // spec/inflate.md §5.4: FHCRC covers every header byte before it.
            self.crc.update(&[b]);
        }
        let fail = |reason| Err(GzipError::new(reason, at));
        self.field = match self.field {
            // spec/inflate.md §5.1: ID1 0x1f, ID2 0x8b.
            Field::Id1 | Field::Id2 if b != self.expected_magic() => return fail(GzipReason::BadMagic),
            Field::Id1 => Field::Id2,
            Field::Id2 => Field::Cm,
            // spec/inflate.md §5.1: CM must be 8 (deflate).
            Field::Cm if b != CM_DEFLATE => return fail(GzipReason::BadMethod(b)),
            Field::Cm => Field::Flg,
            // spec/inflate.md §5.1: FLG bits 5 to 7 are reserved and must be zero.
            Field::Flg if b & FLG_RESERVED != 0 => return fail(GzipReason::ReservedFlags),
            Field::Flg => {
                self.flags = b;
                Field::Mtime(4)
            }
            // spec/inflate.md §5.1: MTIME may hold any value.
            Field::Mtime(n) if n > 1 => Field::Mtime(n.saturating_sub(1)),
            Field::Mtime(_) => Field::Xfl,
            // spec/inflate.md §5.1: XFL is 0, 2 or 4.
            Field::Xfl if !matches!(b, 0 | 2 | 4) => return fail(GzipReason::BadXfl(b)),
            Field::Xfl => Field::Os,
            // spec/inflate.md §5.1: OS is 0 to 13 or 255.
            Field::Os if !matches!(b, 0..=13 | 255) => return fail(GzipReason::BadOs(b)),
            Field::Os => self.after_os(),
            _ => return self.byte_of_optional_field(b, at),
        };
        Ok(())
    }

    /// Takes one byte of FEXTRA's or FHCRC's fixed-size parts (§5.2, §5.4).
    fn byte_of_optional_field(&mut self, b: u8, at: u64) -> Result<(), GzipError> {
        self.field = match self.field {
            Field::XlenLo => {
                self.low_byte = b;
                Field::XlenHi
            }
            Field::XlenHi => {
                self.xlen_left = u16::from_le_bytes([self.low_byte, b]);
                self.next_subfield()
            }
            Field::SubfieldStart => self.subfield_start(at)?,
            Field::SubfieldId2 => Field::SubfieldLenLo,
            Field::SubfieldLenLo => {
                self.low_byte = b;
                Field::SubfieldLenHi
            }
            Field::SubfieldLenHi => self.subfield_len(u16::from_le_bytes([self.low_byte, b]))?,
            Field::HcrcLo => {
                self.low_byte = b;
                self.field_start = at;
                Field::HcrcHi
            }
            Field::HcrcHi => self.check_hcrc(u16::from_le_bytes([self.low_byte, b]))?,
            other => other,
        };
        Ok(())
    }

    fn expected_magic(&self) -> u8 {
        if self.field == Field::Id1 { ID1 } else { ID2 }
    }

    /// SI1 of a subfield: four bytes of XLEN must remain for SI1, SI2 and LEN (§5.2).
    fn subfield_start(&mut self, at: u64) -> Result<Field, GzipError> {
        self.field_start = at;
        // spec/inflate.md §5.2: a subfield header needs 4 bytes inside XLEN.
        self.xlen_left = self
            .xlen_left
            .checked_sub(4)
            .ok_or(GzipError::new(GzipReason::BadExtraField, at))?;
        Ok(Field::SubfieldId2)
    }

    /// LEN of a subfield: its data must fit in what is left of XLEN (§5.2).
    fn subfield_len(&mut self, len: u16) -> Result<Field, GzipError> {
        // spec/inflate.md §5.2: subfields tile XLEN exactly.
        self.xlen_left = self
            .xlen_left
            .checked_sub(len)
            .ok_or(GzipError::new(GzipReason::BadExtraField, self.field_start))?;
        Ok(if len == 0 {
            self.next_subfield()
        } else {
            Field::SubfieldData(len)
        })
    }

    /// FHCRC must equal the low 16 bits of the CRC-32 of the header before it (§5.4).
    fn check_hcrc(&mut self, expected: u16) -> Result<Field, GzipError> {
        let actual = u16::try_from(self.crc.crc32() & 0xffff).unwrap_or_default();
        if expected != actual {
            // spec/inflate.md §5.4: header CRC must match; offset of the FHCRC field.
            return Err(GzipError::new(
                GzipReason::HeaderCrcMismatch { expected, actual },
                self.field_start,
            ));
        }
        Ok(Field::Done)
    }

    /// Skips subfield data (at most `left` bytes of `rest`); never stores it.
    fn skip_data(&mut self, rest: &[u8], left: u16) -> usize {
        let n = rest.len().min(usize::from(left));
        self.crc.update(invariant::sub(rest, ..n));
        let left = left.saturating_sub(u16::try_from(n).unwrap_or(u16::MAX));
        if left == 0 {
            self.field = self.next_subfield();
        } else {
            self.field = Field::SubfieldData(left);
        }
        n
    }

    /// Skips FNAME or FCOMMENT up to and including its zero byte (§5.3).
    fn skip_string(&mut self, rest: &[u8]) -> usize {
        let (n, ended) = match rest.iter().position(|&b| b == 0) {
            Some(zero) => (zero.saturating_add(1), true),
            None => (rest.len(), false),
        };
        self.crc.update(invariant::sub(rest, ..n));
        if ended {
            self.field = if self.field == Field::Name {
                self.after_name()
            } else {
                self.after_comment()
            };
        }
        n
    }

    /// After a subfield: another one, or the field after FEXTRA (§5.2).
    fn next_subfield(&self) -> Field {
        if self.xlen_left == 0 {
            self.after_extra()
        } else {
            Field::SubfieldStart
        }
    }

    fn after_os(&self) -> Field {
        if self.flags & FEXTRA != 0 {
            Field::XlenLo
        } else {
            self.after_extra()
        }
    }

    fn after_extra(&self) -> Field {
        if self.flags & FNAME != 0 {
            Field::Name
        } else {
            self.after_name()
        }
    }

    fn after_name(&self) -> Field {
        if self.flags & FCOMMENT != 0 {
            Field::Comment
        } else {
            self.after_comment()
        }
    }

    fn after_comment(&self) -> Field {
        if self.flags & FHCRC != 0 {
            Field::HcrcLo
        } else {
            Field::Done
        }
    }
}

impl Default for HeaderParser {
    fn default() -> Self {
        HeaderParser::new()
    }
}

impl core::fmt::Debug for HeaderParser {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("HeaderParser")
            .field("field", &self.field)
            .field("flags", &self.flags)
            .finish_non_exhaustive()
    }
}
