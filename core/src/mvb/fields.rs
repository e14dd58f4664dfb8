//! Field syntaxes shared by the marker and the manifest (`spec/mvb.md` §1.2, §1.3, §3.2):
//! version strings, SHA-256 hex, RFC 3339 UTC times, bundle ids.

use crate::archive_path::{PathLimits, normalize};
use alloc::string::String;

/// One canonical decimal: digits only, no leading zero except `0` itself, fits u64.
fn decimal(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    let ok = !b.is_empty() && b.iter().all(u8::is_ascii_digit) && (b.len() == 1 || b.first() != Some(&b'0'));
    if ok { s.parse().ok() } else { None }
}

/// `MAJOR.MINOR` of canonical decimals (`spec/mvb.md` §3.2), as (major, minor).
pub(crate) fn major_minor(s: &str) -> Option<(u64, u64)> {
    let (a, b) = s.split_once('.')?;
    Some((decimal(a)?, decimal(b)?))
}

/// `MAJOR.MINOR.PATCH` of canonical decimals (`spec/mvb.md` §1.2), as its major.
pub(crate) fn schema_major(s: &str) -> Option<u64> {
    let (a, rest) = s.split_once('.')?;
    let (b, c) = rest.split_once('.')?;
    decimal(b)?;
    decimal(c)?;
    decimal(a)
}

/// 64 lowercase hexadecimal digits (`spec/mvb.md` §1.2).
pub(crate) fn is_sha256_hex(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// A bundle id (`spec/mvb.md` §1.3): at most 200 bytes, one normalised path segment,
/// not `.mvb.json`.
pub(crate) fn is_bundle_id(s: &str) -> bool {
    s.len() <= 200
        && !s.contains('/')
        && s != ".mvb.json"
        && normalize(s.as_bytes(), &PathLimits::DEFAULT).is_ok_and(|n| n == s)
}

fn two(s: &str, at: usize) -> Option<u64> {
    let d = s.get(at..at + 2)?;
    if d.bytes().all(|b| b.is_ascii_digit()) {
        d.parse().ok()
    } else {
        None
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: u64, m: u64, d: u64) -> u64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn days_in_month(y: u64, m: u64) -> u64 {
    match m {
        2 if (y.is_multiple_of(4) && !y.is_multiple_of(100)) || y.is_multiple_of(400) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// `YYYY-MM-DDTHH:MM:SS[.fraction]Z`, year 1970..9999, a real date, seconds 00..59, as
/// whole seconds since the epoch (`spec/mvb.md` §1.2; the fraction is dropped, §2.3).
pub(crate) fn rfc3339_utc(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    let fixed = [(4, b'-'), (7, b'-'), (10, b'T'), (13, b':'), (16, b':')];
    if b.len() < 20 || fixed.iter().any(|&(i, c)| b.get(i) != Some(&c)) || b.last() != Some(&b'Z') {
        return None;
    }
    let year = s
        .get(..4)
        .filter(|d| d.bytes().all(|x| x.is_ascii_digit()))?
        .parse::<u64>()
        .ok()?;
    let (month, day, hour, min, sec) = (two(s, 5)?, two(s, 8)?, two(s, 11)?, two(s, 14)?, two(s, 17)?);
    let frac = s.get(19..s.len() - 1)?;
    if !frac.is_empty() {
        let digits = frac.strip_prefix('.')?;
        if digits.is_empty() || !digits.bytes().all(|x| x.is_ascii_digit()) {
            return None;
        }
    }
    let valid = year >= 1970
        && (1..=12).contains(&month)
        && (1..=days_in_month(year, month)).contains(&day)
        && hour < 24
        && min < 60
        && sec < 60;
    if !valid {
        return None;
    }
    Some(days_from_civil(year, month, day) * 86_400 + hour * 3600 + min * 60 + sec)
}

/// `YYYY-MM-DDTHH:MM:SSZ` for seconds since the epoch (inverse of `rfc3339_utc`).
pub fn format_rfc3339_utc(secs: u64) -> String {
    let days = secs / 86_400;
    let rem = secs % 86_400;
    // civil_from_days (Howard Hinnant).
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + u64::from(m <= 2);
    alloc::format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_round_trip() {
        for s in [
            "1970-01-01T00:00:00Z",
            "2000-02-29T12:34:56Z",
            "2026-11-29T15:44:09Z",
            "9999-12-31T23:59:59Z",
        ] {
            let t = rfc3339_utc(s).unwrap();
            assert_eq!(format_rfc3339_utc(t), s);
        }
        assert_eq!(
            rfc3339_utc("2025-01-02T03:04:05.123Z"),
            rfc3339_utc("2025-01-02T03:04:05Z")
        );
        assert_eq!(rfc3339_utc("1970-01-02T00:00:00Z"), Some(86_400));
    }

    #[test]
    fn rfc3339_rejects() {
        for s in [
            "2025-02-29T00:00:00Z",
            "2025-01-02T03:04:05+00:00",
            "2025-01-02 03:04:05Z",
            "1969-12-31T23:59:59Z",
            "2025-13-01T00:00:00Z",
            "2025-01-01T24:00:00Z",
            "2025-01-01T00:00:60Z",
            "2025-01-01T00:00:00.Z",
            "2025-01-01T00:00:00z",
            "+025-01-01T00:00:00Z",
        ] {
            assert_eq!(rfc3339_utc(s), None, "{s}");
        }
    }

    #[test]
    fn versions() {
        assert_eq!(major_minor("1.2"), Some((1, 2)));
        assert_eq!(major_minor("01.2"), None);
        assert_eq!(major_minor("1.2.3"), None);
        assert_eq!(schema_major("1.6.0"), Some(1));
        assert_eq!(schema_major("2.0.0"), Some(2));
        assert_eq!(schema_major("1.6"), None);
        assert_eq!(schema_major("1.6.0-rc1"), None);
    }

    #[test]
    fn bundle_ids() {
        assert!(is_bundle_id("qwen--qwen3-0.6b@c1899de289a0"));
        for bad in ["", "a/b", "..", ".mvb.json", "a\\b", "x.", "c:x"] {
            assert!(!is_bundle_id(bad), "{bad}");
        }
    }
}
