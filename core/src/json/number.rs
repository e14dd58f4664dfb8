//! JSON numbers kept as their lexeme, with exact integer conversion (`spec/json.md` §4).

use super::text::Text;
use crate::invariant;
use core::fmt;

/// Why a number could not be read as the integer a reader asked for (`spec/json.md` §4.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntError {
    /// The lexeme has a fraction or an exponent.
    NotAnInteger,
    /// The integer does not fit the requested type.
    OutOfRange,
}

impl fmt::Display for IntError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            IntError::NotAnInteger => "expected an integer without fraction or exponent",
            IntError::OutOfRange => "integer out of range",
        })
    }
}

impl core::error::Error for IntError {}

/// Scans the RFC 8259 number starting at `bytes[start]` (`spec/json.md` §4.1).
/// Returns the end offset, or the offset of the first byte that breaks the grammar.
#[inline(always)]
pub(crate) fn scan(bytes: &[u8], start: usize) -> Result<usize, usize> {
    let at = |i: usize| bytes.get(i).copied();
    let digits = |i: usize| digit_run(bytes, i);
    let mut i = start;
    if at(i) == Some(b'-') {
        i += 1;
    }
    match at(i) {
        Some(b'0') => {
            i += 1;
            // §4.1: no leading zeros.
            if matches!(at(i), Some(b'0'..=b'9')) {
                return Err(i);
            }
        }
        Some(b'1'..=b'9') => i = digits(i + 1),
        _ => return Err(i),
    }
    if at(i) == Some(b'.') {
        let first = i + 1;
        i = digits(first);
        if i == first {
            return Err(i);
        }
    }
    if matches!(at(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(at(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let first = i;
        i = digits(first);
        if i == first {
            return Err(i);
        }
    }
    Ok(i)
}

/// The offset of the first byte at or after `i` that is not an ASCII digit: eight bytes
/// at a time while eight are left, then byte by byte.
#[inline(always)]
fn digit_run(bytes: &[u8], mut i: usize) -> usize {
    const ONES: u64 = u64::from_le_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_le_bytes([0x80; 8]);
    while let Some(word) = bytes.get(i..).and_then(<[u8]>::first_chunk::<8>) {
        let x = u64::from_le_bytes(*word);
        // Per byte, the high bit is set for a byte above '9' (b + 0x46 reaches 0x80), below
        // '0' (b - 0x30 borrows) or non-ASCII. Carries and borrows start only at such a
        // byte and move only to higher bytes, so the lowest flagged byte is exact.
        let above = x.wrapping_add(ONES * 0x46);
        let below = x.wrapping_sub(ONES * 0x30);
        let flagged = (above | below | x) & HIGH;
        if flagged != 0 {
            return i + (flagged.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(b'0'..=b'9') = bytes.get(i) {
        i += 1;
    }
    i
}

/// Reads an RFC 8259 number lexeme as an exact `i64` (`spec/json.md` §4.2).
pub(crate) fn lexeme_to_i64(lexeme: &str) -> Result<i64, IntError> {
    let (negative, digits) = split_sign(lexeme)?;
    if let Some(v) = short_value(digits) {
        let v = i64::try_from(v).map_err(|_| IntError::OutOfRange)?;
        return Ok(if negative { -v } else { v });
    }
    let mut acc: i64 = 0;
    for d in digits.iter().copied() {
        let d = i64::from(d - b'0');
        acc = acc.checked_mul(10).ok_or(IntError::OutOfRange)?;
        // Accumulate towards the sign so that i64::MIN is reachable.
        acc = if negative {
            acc.checked_sub(d)
        } else {
            acc.checked_add(d)
        }
        .ok_or(IntError::OutOfRange)?;
    }
    Ok(acc)
}

/// Reads an RFC 8259 number lexeme as an exact `u64` (`spec/json.md` §4.2). `-0` is zero.
pub fn lexeme_to_u64(lexeme: &str) -> Result<u64, IntError> {
    let (negative, digits) = split_sign(lexeme)?;
    let mut acc: u64 = 0;
    if let Some(v) = short_value(digits) {
        acc = v;
    } else {
        for d in digits.iter().copied() {
            acc = acc.checked_mul(10).ok_or(IntError::OutOfRange)?;
            acc = acc.checked_add(u64::from(d - b'0')).ok_or(IntError::OutOfRange)?;
        }
    }
    if negative && acc != 0 {
        return Err(IntError::OutOfRange);
    }
    Ok(acc)
}

/// Splits the sign off an integer lexeme; rejects anything else that is not a digit
/// (fractions and exponents), before any digit is converted, so `NotAnInteger` wins over
/// `OutOfRange`.
fn split_sign(lexeme: &str) -> Result<(bool, &[u8]), IntError> {
    let bytes = lexeme.as_bytes();
    let (negative, digits) = match bytes.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, bytes),
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return Err(IntError::NotAnInteger);
    }
    Ok((negative, digits))
}

/// The value of at most 18 digits, which fits `i64` without checks; `None` for longer
/// runs, which the checked loops read.
fn short_value(digits: &[u8]) -> Option<u64> {
    if digits.len() > 18 {
        return None;
    }
    Some(digits.iter().fold(0u64, |acc, d| acc * 10 + u64::from(d - b'0')))
}

/// A JSON number exactly as written (`spec/json.md` §4). Short lexemes (the usual case)
/// are stored inline without a heap allocation.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Number(Text);

impl Number {
    /// Wraps a lexeme the caller has already checked against the grammar (§4.1);
    /// [`Number::parse`] checks it.
    pub(crate) fn from_lexeme(lexeme: &str) -> Number {
        Number(Text::new(lexeme))
    }

    /// Checks `lexeme` against the RFC 8259 number grammar and keeps it.
    pub fn parse(lexeme: &str) -> Option<Number> {
        match scan(lexeme.as_bytes(), 0) {
            Ok(end) if end == lexeme.len() => Some(Number::from_lexeme(lexeme)),
            _ => None,
        }
    }

    /// The number for an unsigned integer, in its shortest lexeme.
    pub fn from_u64(n: u64) -> Number {
        let mut buf = itoa_buf();
        Number::from_lexeme(format_u64(n, false, &mut buf))
    }

    /// The number for a signed integer, in its shortest lexeme.
    pub fn from_i64(n: i64) -> Number {
        let mut buf = itoa_buf();
        Number::from_lexeme(format_u64(n.unsigned_abs(), n < 0, &mut buf))
    }

    /// The lexeme exactly as written.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// The exact `i64` value (§4.2).
    pub fn to_i64(&self) -> Result<i64, IntError> {
        lexeme_to_i64(self.as_str())
    }

    /// The exact `u64` value (§4.2).
    pub fn to_u64(&self) -> Result<u64, IntError> {
        lexeme_to_u64(self.as_str())
    }
}

fn itoa_buf() -> [u8; 24] {
    [0u8; 24]
}

/// Writes `n` (with a leading `-` when `negative`) right-aligned into `buf`.
fn format_u64(mut n: u64, negative: bool, buf: &mut [u8; 24]) -> &str {
    let mut i = buf.len();
    loop {
        i -= 1;
        if let Some(slot) = buf.get_mut(i) {
            *slot = b'0' + u8::try_from(n % 10).unwrap_or(0);
        }
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if negative {
        i -= 1;
        if let Some(slot) = buf.get_mut(i) {
            *slot = b'-';
        }
    }
    invariant::some_or(core::str::from_utf8(invariant::sub(buf, i..)).ok(), "0")
}

impl fmt::Debug for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Number({})", self.as_str())
    }
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod digit_tests {
    use super::*;

    /// The word-at-a-time digit run must end exactly at the first byte that is not `0`–`9`,
    /// for every byte value in every position (`spec/json.md` §4.1).
    #[test]
    fn digit_run_ends_at_first_non_digit_in_any_position() {
        for other in (0u8..=255).filter(|b| !b.is_ascii_digit()) {
            for len in 0..20 {
                for pos in 0..len {
                    let mut bytes = alloc::vec![b'7'; len];
                    if let Some(b) = bytes.get_mut(pos) {
                        *b = other;
                    }
                    for later in bytes.iter_mut().skip(pos + 1).step_by(2) {
                        *later = 0xFF;
                    }
                    assert_eq!(digit_run(&bytes, 0), pos, "byte {other:#04x} at {pos} of {len}");
                }
            }
        }
        for len in 0..20 {
            let digits: alloc::vec::Vec<u8> = (0..len).map(|i| b'0' + (i % 10) as u8).collect();
            assert_eq!(digit_run(&digits, 0), len);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;
    use alloc::string::String;
    use alloc::vec::Vec;

    /// What an exact integer read must give: `NotAnInteger` for anything but an optional
    /// `-` and digits, else the value if it fits, else `OutOfRange`.
    fn reference(lexeme: &str) -> (Result<i64, IntError>, Result<u64, IntError>) {
        let digits = lexeme.strip_prefix('-').unwrap_or(lexeme);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return (Err(IntError::NotAnInteger), Err(IntError::NotAnInteger));
        }
        let Ok(v) = lexeme.parse::<i128>() else {
            return (Err(IntError::OutOfRange), Err(IntError::OutOfRange));
        };
        (
            i64::try_from(v).map_err(|_| IntError::OutOfRange),
            u64::try_from(v).map_err(|_| IntError::OutOfRange),
        )
    }

    /// Every length up to 40 digits, around the 18-digit fast path and the i64/u64
    /// limits, signed and not, with fractions and exponents (`NotAnInteger` even when the
    /// digits would overflow).
    #[test]
    fn integer_reads_match_the_reference() {
        let mut cases: Vec<String> = [
            "0", "-0", "7", "-7", "", "-", "--5", "1.0", "1e2", "10E0", "-1.5", "007",
        ]
        .iter()
        .map(|s| String::from(*s))
        .collect();
        for n in 1..=40 {
            cases.push("9".repeat(n));
            cases.push(format!("1{}", "0".repeat(n)));
            cases.push(format!("{}.5", "9".repeat(n)));
            cases.push(format!("{}e1", "9".repeat(n)));
        }
        for v in [
            i64::MAX as i128,
            i64::MIN as i128,
            u64::MAX as i128,
            10i128.pow(18),
            10i128.pow(19),
        ] {
            for d in -2..=2 {
                cases.push(format!("{}", v + d));
            }
        }
        for c in &cases {
            let signed = [c.clone(), format!("-{c}")];
            for l in signed.iter().filter(|l| !l.starts_with("--") || l.as_str() == "--5") {
                let (i, u) = reference(l);
                assert_eq!(lexeme_to_i64(l), i, "i64 {l}");
                assert_eq!(lexeme_to_u64(l), u, "u64 {l}");
            }
        }
    }
}
