//! PAX extended header records (`spec/mpk.md` §1.2).

use super::error::{PaxKey, TarReason};
use crate::invariant;
use alloc::vec::Vec;

/// What a PAX extended header says about the next entry (`spec/mpk.md` §1.2.3).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct PaxOverrides {
    /// `path`, raw bytes.
    pub path: Option<Vec<u8>>,
    /// `linkpath`, raw bytes.
    pub linkpath: Option<Vec<u8>>,
    /// `size`.
    pub size: Option<u64>,
}

/// A PAX failure: the reason and the offset of the record in the header's data.
pub(crate) type PaxError = (TarReason, usize);

/// Most records one extended header may hold (`spec/mpk.md` §1.2.1).
pub(crate) const MAX_RECORDS: usize = 64;

/// One record: key, value and its offset in the data.
struct Record<'a> {
    key: &'a [u8],
    value: &'a [u8],
    offset: usize,
}

/// Parses an `x` header's data (`spec/mpk.md` §1.2.1 to §1.2.3).
pub(crate) fn parse_extended(data: &[u8]) -> Result<PaxOverrides, PaxError> {
    let mut out = PaxOverrides::default();
    let mut seen: Vec<&[u8]> = Vec::new();
    for record in Records::new(data) {
        let r = record?;
        // §1.2.1: at most MAX_RECORDS records, so the key comparison below stays
        // bounded (MAX_RECORDS² comparisons at worst, independent of the data size).
        if seen.len() >= MAX_RECORDS {
            return Err((TarReason::MetaTooLarge, r.offset));
        }
        // §1.2.2: each key once.
        if seen.contains(&r.key) {
            return Err((TarReason::DuplicatePaxKey, r.offset));
        }
        seen.push(r.key);
        apply(&mut out, &r)?;
    }
    Ok(out)
}

/// Parses a `g` header's data: only `comment` is allowed (`spec/mpk.md` §1.2.4).
pub(crate) fn parse_global(data: &[u8]) -> Result<(), PaxError> {
    for record in Records::new(data) {
        let r = record?;
        if r.key != b"comment" {
            return Err((TarReason::UnsupportedGlobalKey, r.offset));
        }
    }
    Ok(())
}

/// §1.2.3: the keys the reader checks; `path`, `linkpath` and `size` also apply to the
/// entry.
fn apply(out: &mut PaxOverrides, r: &Record<'_>) -> Result<(), PaxError> {
    if r.key.starts_with(b"GNU.sparse.") {
        return Err((TarReason::Sparse, r.offset));
    }
    let Some(key) = PaxKey::of(r.key) else {
        return Ok(());
    };
    let bad_number = (TarReason::BadPaxNumber(key), r.offset);
    match key {
        PaxKey::Path | PaxKey::Linkpath | PaxKey::Uname | PaxKey::Gname => {
            if r.value.contains(&0) {
                return Err((TarReason::PaxNul(key), r.offset));
            }
            if r.value.is_empty() && matches!(key, PaxKey::Path | PaxKey::Linkpath) {
                return Err((TarReason::BadPax, r.offset));
            }
            match key {
                PaxKey::Path => out.path = Some(Vec::from(r.value)),
                PaxKey::Linkpath => out.linkpath = Some(Vec::from(r.value)),
                _ => {}
            }
        }
        PaxKey::Size => out.size = Some(decimal(r.value).ok_or(bad_number)?),
        PaxKey::Uid | PaxKey::Gid => {
            decimal(r.value).filter(|&v| v <= I64_MAX).ok_or(bad_number)?;
        }
        PaxKey::Mtime | PaxKey::Atime | PaxKey::Ctime => {
            if !is_time(r.value) {
                return Err(bad_number);
            }
        }
    }
    Ok(())
}

/// The largest id or time in seconds every reader holds (a signed 64-bit integer).
const I64_MAX: u64 = i64::MAX as u64;

/// A PAX time: `-?DECIMAL(.DIGITS)?`, the seconds a canonical decimal of at most 2^63 − 1
/// (§1.2.3). No `+`, exponent, spaces, or empty part: a value every reader reads alike.
fn is_time(v: &[u8]) -> bool {
    let v = v.strip_prefix(b"-").unwrap_or(v);
    let (seconds, fraction) = match v.iter().position(|&b| b == b'.') {
        Some(dot) => (invariant::sub(v, ..dot), v.get(dot + 1..)),
        None => (v, None),
    };
    let fraction_ok = fraction.is_none_or(|f| !f.is_empty() && f.iter().all(u8::is_ascii_digit));
    fraction_ok && decimal(seconds).is_some_and(|s| s <= I64_MAX)
}

/// A canonical decimal: digits only, no leading zero except `0` itself, fits u64.
pub(crate) fn decimal(s: &[u8]) -> Option<u64> {
    if s.is_empty() || (s.len() > 1 && s.first() == Some(&b'0')) {
        return None;
    }
    let mut v: u64 = 0;
    for &b in s {
        if !b.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
    }
    Some(v)
}

/// Iterates the records tiling `data` (§1.2.1).
struct Records<'a> {
    data: &'a [u8],
    pos: usize,
    failed: bool,
}

impl<'a> Records<'a> {
    fn new(data: &'a [u8]) -> Self {
        Records {
            data,
            pos: 0,
            failed: false,
        }
    }

    fn record(&self) -> Result<(Record<'a>, usize), PaxError> {
        let bad = (TarReason::BadPax, self.pos);
        let rest = self.data.get(self.pos..).ok_or(bad)?;
        let space = rest.iter().take(21).position(|&b| b == b' ').ok_or(bad)?;
        let len = decimal(rest.get(..space).ok_or(bad)?).ok_or(bad)?;
        let len = usize::try_from(len).map_err(|_| bad)?;
        // "5 k=\n" is the shortest record; the record must fit and end with LF.
        if len < 5 || len > rest.len() || rest.get(len - 1) != Some(&b'\n') {
            return Err(bad);
        }
        let body = rest.get(space + 1..len - 1).ok_or(bad)?;
        let eq = body.iter().position(|&b| b == b'=').ok_or(bad)?;
        let (key, value) = body.split_at(eq);
        if key.is_empty() || key.contains(&0) {
            return Err(bad);
        }
        // `value` starts with the `=`.
        let value = invariant::sub(value, 1..);
        Ok((
            Record {
                key,
                value,
                offset: self.pos,
            },
            len,
        ))
    }
}

impl<'a> Iterator for Records<'a> {
    type Item = Result<Record<'a>, PaxError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.pos >= self.data.len() {
            return None;
        }
        match self.record() {
            Ok((r, len)) => {
                self.pos += len;
                Some(Ok(r))
            }
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_parse() {
        let o = parse_extended(b"15 path=a/b.so\n11 size=42\n").unwrap();
        assert_eq!(o.path.as_deref(), Some(&b"a/b.so"[..]));
        assert_eq!(o.size, Some(42));
    }

    #[test]
    fn record_length_must_match() {
        assert_eq!(parse_extended(b"16 path=a/b.so\n"), Err((TarReason::BadPax, 0)));
        assert_eq!(
            parse_extended(b"11 size=42\n015 path=a/b.so\n"),
            Err((TarReason::BadPax, 11))
        );
        assert_eq!(
            parse_extended(b"11 size=4x\n"),
            Err((TarReason::BadPaxNumber(PaxKey::Size), 0))
        );
        assert_eq!(
            parse_extended(b"11 size=42\n11 size=43\n"),
            Err((TarReason::DuplicatePaxKey, 11))
        );
    }

    /// §1.2.3: NUL in a name value, and the strict numbers.
    #[test]
    fn checked_values() {
        let rec = |k: &str, v: &[u8]| crate::tar::pax::tests::record(k, v);
        assert_eq!(
            parse_extended(&rec("uname", b"ro\0ot")),
            Err((TarReason::PaxNul(PaxKey::Uname), 0))
        );
        assert_eq!(
            parse_extended(&rec("linkpath", b"a\0")),
            Err((TarReason::PaxNul(PaxKey::Linkpath), 0))
        );
        for ok in [
            &b"0"[..],
            b"1700000000",
            b"1700000000.123456789",
            b"-1.5",
            b"9223372036854775807",
        ] {
            assert!(parse_extended(&rec("mtime", ok)).is_ok(), "{ok:?}");
        }
        for bad in [
            &b""[..],
            b"+1",
            b"1e3",
            b" 1",
            b"01",
            b"1.",
            b".5",
            b"1.5.6",
            b"-",
            b"nan",
            b"9223372036854775808",
        ] {
            assert_eq!(
                parse_extended(&rec("atime", bad)),
                Err((TarReason::BadPaxNumber(PaxKey::Atime), 0)),
                "{bad:?}"
            );
        }
        assert_eq!(
            parse_extended(&rec("uid", b"-1")),
            Err((TarReason::BadPaxNumber(PaxKey::Uid), 0))
        );
        assert_eq!(
            parse_extended(&rec("gid", b"0x10")),
            Err((TarReason::BadPaxNumber(PaxKey::Gid), 0))
        );
        assert!(parse_extended(&rec("uid", b"1000")).is_ok());
        assert!(parse_extended(&rec("comment", b"a\0b")).is_ok());
    }

    /// One record `"<len> <key>=<value>\n"`.
    pub(super) fn record(key: &str, value: &[u8]) -> Vec<u8> {
        let body = key.len() + value.len() + 3;
        let mut len = body + 1;
        while alloc::format!("{len}").len() + body != len {
            len += 1;
        }
        let mut v = alloc::format!("{len} {key}=").into_bytes();
        v.extend_from_slice(value);
        v.push(b'\n');
        v
    }
}
