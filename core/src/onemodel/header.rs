//! The 64-byte header (`spec/onemodel.md` §1.1), checked field by field against the real
//! file length before any manifest byte is read or any value is trusted.

use super::error::{Error, ErrorKind};

/// The magic: 0x8F (protobuf wire type 7, which no protobuf message can start with), then
/// ASCII `ONEMODL` (§1.1).
pub const MAGIC: [u8; 8] = [0x8F, b'O', b'N', b'E', b'M', b'O', b'D', b'L'];
/// Header size in bytes.
pub const HEADER_LEN: u64 = 64;
/// The only format version this library reads and writes.
pub const FORMAT_VERSION: u64 = 1;
/// Largest value any u64 header field may hold (2^63 − 1).
pub const MAX_FIELD: u64 = i64::MAX as u64;
/// Tensor and data alignment in bytes.
pub const ALIGN: u64 = 64;

/// The header's fields after every check of §1.1 has passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// Always [`FORMAT_VERSION`].
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
pub fn align_up(n: u64) -> Option<u64> {
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
pub fn read(file: &[u8], max_manifest: u64) -> Result<Header, Error> {
    use ErrorKind::*;
    let real = u64::try_from(file.len()).unwrap_or(u64::MAX);
    if file.get(..8) != Some(&MAGIC[..]) {
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
        format_version: u64_at(file, 8),
        manifest_length: u64_at(file, 16),
        data_offset: u64_at(file, 24),
        data_length: u64_at(file, 32),
        file_length: u64_at(file, 40),
    };
    if h.format_version != FORMAT_VERSION {
        return Err(Error::header(
            Unsupported,
            "format_version",
            8,
            "unsupported format version",
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
    if let Some(i) = file.get(48..64).and_then(|r| r.iter().position(|&b| b != 0)) {
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
    let pad_start = usize::try_from(manifest_end).unwrap_or(usize::MAX);
    let pad_end = usize::try_from(h.data_offset).unwrap_or(usize::MAX);
    if let Some(i) = file
        .get(pad_start..pad_end)
        .and_then(|r| r.iter().position(|&b| b != 0))
    {
        return Err(Error::header(
            Malformed,
            "padding",
            manifest_end + i as u64,
            "padding byte is not zero",
        ));
    }
    Ok(h)
}

/// The 64 header bytes for these field values (§1.1), reserved bytes zero.
pub fn encode(h: &Header) -> [u8; 64] {
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
