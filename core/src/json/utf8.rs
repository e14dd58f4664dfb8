//! UTF-8 well-formedness and the I-JSON text rules (`spec/json.md` §1 and §3.4).
//!
//! The whole input is validated once with `core::str::from_utf8` (word-at-a-time on
//! ASCII); only on failure does [`classify`] look at the offending sequence to name the
//! problem precisely.

use super::error::{Error, Reason, Utf8Problem};
use crate::invariant;

/// Validates `bytes` as UTF-8 (`spec/json.md` §1.1). On failure the offset is the first
/// byte of the ill-formed sequence.
pub(crate) fn validate(bytes: &[u8]) -> Result<&str, Error> {
    core::str::from_utf8(bytes).map_err(|e| {
        let at = e.valid_up_to();
        let rest = invariant::sub(bytes, at..);
        Error::new(Reason::InvalidUtf8(classify(rest)), at)
    })
}

/// Names what is wrong with the ill-formed sequence at the start of `rest`
/// (Unicode 15, table 3-7 "Well-Formed UTF-8 Byte Sequences").
pub(crate) fn classify(rest: &[u8]) -> Utf8Problem {
    let lead = rest.first().copied().unwrap_or(0);
    let (lo, hi) = match lead {
        0xC2..=0xDF | 0xE1..=0xEC | 0xEE..=0xEF | 0xF1..=0xF3 => (0x80, 0xBF),
        0xE0 => (0xA0, 0xBF),
        0xED => (0x80, 0x9F),
        0xF0 => (0x90, 0xBF),
        0xF4 => (0x80, 0x8F),
        _ => return Utf8Problem::InvalidLeadByte,
    };
    match rest.get(1) {
        // The second byte is fine, so a later byte is missing or not a continuation.
        Some(b) if (lo..=hi).contains(b) => Utf8Problem::Truncated,
        // A continuation byte outside the lead's narrowed range (only E0, ED, F0, F4 narrow).
        Some(0x80..=0xBF) => match lead {
            0xE0 | 0xF0 => Utf8Problem::Overlong,
            0xED => Utf8Problem::SurrogateEncoding,
            _ => Utf8Problem::AboveMaximum,
        },
        _ => Utf8Problem::Truncated,
    }
}

/// True for the 66 Unicode noncharacters: U+FDD0–U+FDEF and the last two code points of
/// every plane (`spec/json.md` §3.4, RFC 7493 §2.1).
pub(crate) fn is_noncharacter(c: u32) -> bool {
    (0xFDD0..=0xFDEF).contains(&c) || (c & 0xFFFE) == 0xFFFE
}

/// True when the well-formed UTF-8 sequence starting at `seq` (lead byte 0xEF or
/// 0xF0–0xF4, at least as long as its lead says) encodes a noncharacter.
pub(crate) fn seq_is_noncharacter(seq: &[u8]) -> bool {
    match seq {
        // U+FDD0..U+FDEF = EF B7 90..AF; U+FFFE/U+FFFF = EF BF BE/BF.
        [0xEF, 0xB7, c, ..] => (0x90..=0xAF).contains(c),
        [0xEF, 0xBF, c, ..] => *c >= 0xBE,
        // U+nFFFE/U+nFFFF: the low 4 bits of the second byte are all set, then BF, BE/BF.
        [0xF0..=0xF4, b, 0xBF, d, ..] => (b & 0x0F) == 0x0F && *d >= 0xBE,
        _ => false,
    }
}

/// True when `s` can be written as a JSON string this parser accepts: no noncharacters
/// (surrogates cannot occur in a Rust `str`). Writers check caller text with it.
pub fn is_ijson_text(s: &str) -> bool {
    !s.chars().any(|c| is_noncharacter(u32::from(c)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn noncharacter_sequences_match_code_points() {
        for c in [
            '\u{FDD0}',
            '\u{FDEF}',
            '\u{FFFE}',
            '\u{FFFF}',
            '\u{1FFFE}',
            '\u{10FFFF}',
        ] {
            let mut buf = [0u8; 4];
            let s = c.encode_utf8(&mut buf);
            assert!(seq_is_noncharacter(s.as_bytes()), "{c:?}");
            assert!(is_noncharacter(u32::from(c)));
        }
        for c in [
            '\u{FDCF}',
            '\u{FDF0}',
            '\u{FFFD}',
            '\u{1FFFD}',
            '\u{10FFFD}',
            '\u{EFFF}',
        ] {
            let mut buf = [0u8; 4];
            let s = c.encode_utf8(&mut buf);
            assert!(!seq_is_noncharacter(s.as_bytes()), "{c:?}");
            assert!(!is_noncharacter(u32::from(c)));
        }
    }

    #[test]
    fn classify_names_each_problem() {
        assert_eq!(classify(&[0x80]), Utf8Problem::InvalidLeadByte);
        assert_eq!(classify(&[0xC0, 0x80]), Utf8Problem::InvalidLeadByte);
        assert_eq!(classify(&[0xE0, 0x80, 0x80]), Utf8Problem::Overlong);
        assert_eq!(classify(&[0xF0, 0x80, 0x80, 0x80]), Utf8Problem::Overlong);
        assert_eq!(classify(&[0xED, 0xA0, 0x80]), Utf8Problem::SurrogateEncoding);
        assert_eq!(classify(&[0xF4, 0x90, 0x80, 0x80]), Utf8Problem::AboveMaximum);
        assert_eq!(classify(&[0xE2, 0x82]), Utf8Problem::Truncated);
        assert_eq!(classify(&[0xC3, 0x41]), Utf8Problem::Truncated);
    }
}
