//! The 64-byte header (`spec/onemodel.md` §1.1), checked field by field against the real
//! file length before any manifest byte is read or any value is trusted.

use super::error::{Error, ErrorKind};

/// The magic: 0x8F (protobuf wire type 7, which no protobuf message can start with), then
/// ASCII `ONEMODL` (§1.1).
pub const MAGIC: [u8; 8] = [0x8F, b'O', b'N', b'E', b'M', b'O', b'D', b'L'];
/// Header size in bytes.
pub const HEADER_LEN: u64 = 64;
/// The only format version this library reads and writes.
pub(crate) const FORMAT_VERSION: u64 = 1;
/// Largest value any u64 header field may hold (2^63 − 1).
pub(crate) const MAX_FIELD: u64 = i64::MAX as u64;
/// Tensor and data alignment in bytes.
pub(crate) const ALIGN: u64 = 64;

/// The header's fields after every check of §1.1 has passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// Always `FORMAT_VERSION`.
    pub format_version: u64,
    /// Manifest length in bytes; the manifest starts at offset 64.
    pub manifest_length: u64,
    /// Start of the data region, a multiple of 64.
    pub data_offset: u64,
    /// Length of the data region.
    pub data_length: u64,
    /// Total file length (equal to the real length).
    pub file_length: u64,
}

/// `n` rounded up to a multiple of 64, `None` on overflow.
pub(crate) fn align_up(n: u64) -> Option<u64> {
    n.checked_add(ALIGN - 1).map(|v| v & !(ALIGN - 1))
}

fn u64_at(bytes: &[u8], offset: usize) -> u64 {
    let mut b = [0u8; 8];
    if let Some(src) = bytes.get(offset..offset + 8) {
        b.copy_from_slice(src);
    }
    u64::from_le_bytes(b)
}

/// Reads and checks the header of `file` in exactly the order of §1.1 (checks 1–11),
/// `max_manifest` being the reader's manifest size limit.
pub(crate) fn read(file: &[u8], max_manifest: u64) -> Result<Header, Error> {
    let h = fields(file, u64::try_from(file.len()).unwrap_or(u64::MAX), max_manifest)?;
    padding(file, &h)?;
    Ok(h)
}

/// Checks 1–10 of §1.1, in order, over `head`, the first bytes of a file of `real` bytes:
/// everything but the padding, which only the bytes up to `data_offset` hold (`padding`).
/// `head` holds at least the first 64 bytes, or the whole file when it is shorter; a shorter
/// `head` is OutOfRange at field `header` (the bytes given are not the file's).
pub fn fields(head: &[u8], real: u64, max_manifest: u64) -> Result<Header, Error> {
    use ErrorKind::*;
    let given = u64::try_from(head.len()).unwrap_or(u64::MAX);
    if given < real.min(HEADER_LEN) {
        return Err(Error::header(
            OutOfRange,
            "header",
            given,
            "fewer bytes given than the header holds",
        ));
    }
    if head.get(..8) != Some(&MAGIC[..]) {
        return Err(Error::header(Malformed, "magic", 0, "not a OneModel file (magic)"));
    }
    if real < HEADER_LEN {
        return Err(Error::header(
            OutOfRange,
            "header",
            real,
            "file shorter than the 64-byte header",
        ));
    }
    let h = Header {
        format_version: u64_at(head, 8),
        manifest_length: u64_at(head, 16),
        data_offset: u64_at(head, 24),
        data_length: u64_at(head, 32),
        file_length: u64_at(head, 40),
    };
    if h.format_version != FORMAT_VERSION {
        return Err(Error::header(
            Unsupported,
            "format_version",
            8,
            alloc::format!(
                "unsupported format version {} (expected {FORMAT_VERSION})",
                h.format_version
            ),
        ));
    }
    for (name, at, v) in [
        ("manifest_length", 16, h.manifest_length),
        ("data_offset", 24, h.data_offset),
        ("data_length", 32, h.data_length),
        ("file_length", 40, h.file_length),
    ] {
        if v > MAX_FIELD {
            return Err(Error::header(OutOfRange, name, at, "header field above 2^63 - 1"));
        }
    }
    if let Some(i) = head.get(48..64).and_then(|r| r.iter().position(|&b| b != 0)) {
        return Err(Error::header(
            Malformed,
            "reserved",
            48 + i as u64,
            "reserved header byte is not zero",
        ));
    }
    if h.file_length != real {
        return Err(Error::header(
            OutOfRange,
            "file_length",
            40,
            "file_length differs from the real length",
        ));
    }
    // Both operands are at most 2^63 - 1 (checked above), so these sums cannot overflow.
    let manifest_end = HEADER_LEN + h.manifest_length;
    if manifest_end > h.file_length {
        return Err(Error::header(
            OutOfRange,
            "manifest_length",
            16,
            "manifest extends past the end of the file",
        ));
    }
    if align_up(manifest_end) != Some(h.data_offset) {
        return Err(Error::header(
            OutOfRange,
            "data_offset",
            24,
            "data_offset is not the manifest end rounded up to 64",
        ));
    }
    if h.data_offset + h.data_length != h.file_length {
        return Err(Error::header(
            OutOfRange,
            "data_length",
            32,
            "data region does not end at the end of the file",
        ));
    }
    if h.manifest_length > max_manifest {
        return Err(Error::header(
            LimitExceeded,
            "manifest_length",
            16,
            "manifest larger than the size limit",
        ));
    }
    Ok(h)
}

/// Check 11 of §1.1 for a header that passed [`fields`]: every byte between the manifest's
/// end and `data_offset` is zero. `head` holds at least the file's first `data_offset` bytes;
/// a shorter one is OutOfRange at field `data_offset` (the bytes given end before the data
/// region).
pub(crate) fn padding(head: &[u8], h: &Header) -> Result<(), Error> {
    let manifest_end = HEADER_LEN.saturating_add(h.manifest_length);
    let pad_start = usize::try_from(manifest_end).unwrap_or(usize::MAX);
    let pad_end = usize::try_from(h.data_offset).unwrap_or(usize::MAX);
    let pad = head.get(pad_start..pad_end).ok_or_else(|| {
        Error::header(
            ErrorKind::OutOfRange,
            "data_offset",
            24,
            "fewer bytes given than precede the data region",
        )
    })?;
    match pad.iter().position(|&b| b != 0) {
        Some(i) => Err(Error::header(
            ErrorKind::Malformed,
            "padding",
            manifest_end + i as u64,
            "padding byte is not zero",
        )),
        None => Ok(()),
    }
}

/// The 64 header bytes for these field values (§1.1), reserved bytes zero.
pub(crate) fn encode(h: &Header) -> [u8; 64] {
    let mut out = [0u8; 64];
    let fields = [
        h.format_version,
        h.manifest_length,
        h.data_offset,
        h.data_length,
        h.file_length,
    ];
    for (dst, src) in out.iter_mut().zip(MAGIC.iter()) {
        *dst = *src;
    }
    for (i, v) in fields.iter().enumerate() {
        if let Some(dst) = out.get_mut(8 + 8 * i..16 + 8 * i) {
            dst.copy_from_slice(&v.to_le_bytes());
        }
    }
    out
}
