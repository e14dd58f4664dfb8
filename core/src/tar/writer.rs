//! The deterministic tar writer (`spec/mpk.md` §1.6): GNU or ustar headers for regular
//! files, GNU long names, fixed metadata. The same input gives the same bytes.

use super::error::Field;
use super::header::{BLOCK, MAGIC_OFFSET, TYPEFLAG_OFFSET};
use crate::invariant;
use alloc::vec::Vec;
use core::fmt;

/// Header dialect the writer emits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// GNU (`ustar  \0`); paths over 100 bytes get a GNU `L` entry (§1.6.1).
    Gnu,
    /// POSIX ustar; paths over 100 bytes are split into `prefix` and `name` where
    /// possible, else refused.
    Ustar,
}

/// The metadata of one regular file (mvb: mode 0644, `date_archived`, uid/gid 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileMeta {
    /// Permission bits.
    pub mode: u32,
    /// Modification time, seconds since the epoch.
    pub mtime: u64,
    /// Owner id.
    pub uid: u64,
    /// Group id.
    pub gid: u64,
}

impl FileMeta {
    /// Mode 0644, mtime 0, uid/gid 0.
    pub const FIXED: FileMeta = FileMeta {
        mode: 0o644,
        mtime: 0,
        uid: 0,
        gid: 0,
    };
}

/// Why a header could not be written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WriteError {
    /// The path is empty or holds a NUL byte.
    BadPath,
    /// A ustar path that cannot be split into prefix (155) and name (100).
    PathTooLong,
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriteError::BadPath => f.write_str("tar path is empty or holds a NUL byte"),
            WriteError::PathTooLong => f.write_str("path does not fit a ustar header"),
        }
    }
}

impl core::error::Error for WriteError {}

/// The GNU long-name entry's own name.
const LONG_LINK_NAME: &[u8] = b"././@LongLink";

/// The end-of-archive marker: two zero blocks (§1.4.2).
pub const END_OF_ARCHIVE: [u8; 2 * BLOCK] = [0; 2 * BLOCK];

const ZEROS: [u8; BLOCK] = [0; BLOCK];

/// The zero bytes that pad `size` bytes of data to a block boundary.
pub fn padding(size: u64) -> &'static [u8] {
    let pad = (BLOCK as u64 - size % BLOCK as u64) % BLOCK as u64;
    invariant::sub(&ZEROS, ..usize::try_from(pad).unwrap_or(0))
}

/// The header block(s) of a regular file of `size` bytes at `path` (§1.6.1): with
/// [`Flavor::Gnu`] a long-name entry first when the path exceeds 100 bytes. Streaming
/// writers emit these, then the data, then [`padding`]`(size)`.
pub fn file_header(path: &[u8], size: u64, meta: &FileMeta, flavor: Flavor) -> Result<Vec<u8>, WriteError> {
    if path.is_empty() || path.contains(&0) {
        return Err(WriteError::BadPath);
    }
    let mut out = Vec::new();
    match flavor {
        Flavor::Gnu => {
            if path.len() > 100 {
                let size = u64::try_from(path.len() + 1).unwrap_or(u64::MAX);
                let block = block(LONG_LINK_NAME, &[], b'L', size, &FileMeta::FIXED, flavor);
                out.extend_from_slice(&block);
                out.extend_from_slice(path);
                out.push(0);
                out.extend_from_slice(padding(size));
            }
            let name = path.get(..100).unwrap_or(path);
            out.extend_from_slice(&block(name, &[], b'0', size, meta, flavor));
        }
        Flavor::Ustar => {
            let (prefix, name) = split_ustar(path).ok_or(WriteError::PathTooLong)?;
            out.extend_from_slice(&block(name, prefix, b'0', size, meta, flavor));
        }
    }
    Ok(out)
}

/// Splits at a `/` so that the prefix has at most 155 bytes and the name at most 100.
fn split_ustar(path: &[u8]) -> Option<(&[u8], &[u8])> {
    if path.len() <= 100 {
        return Some((&[], path));
    }
    let lo = path.len().saturating_sub(101);
    (lo..path.len().min(156))
        .filter(|&i| path.get(i) == Some(&b'/'))
        .map(|i| (invariant::sub(path, ..i), invariant::sub(path, i + 1..)))
        .find(|(p, n)| !p.is_empty() && !n.is_empty() && n.len() <= 100)
}

fn block(name: &[u8], prefix: &[u8], flag: u8, size: u64, meta: &FileMeta, flavor: Flavor) -> [u8; BLOCK] {
    let mut b = [0u8; BLOCK];
    put(&mut b, Field::Name, name);
    put_number(&mut b, Field::Mode, u64::from(meta.mode));
    put_number(&mut b, Field::Uid, meta.uid);
    put_number(&mut b, Field::Gid, meta.gid);
    put_number(&mut b, Field::Size, size);
    put_number(&mut b, Field::Mtime, meta.mtime);
    if let Some(t) = b.get_mut(TYPEFLAG_OFFSET) {
        *t = flag;
    }
    let magic: &[u8; 8] = match flavor {
        Flavor::Gnu => b"ustar  \x00",
        Flavor::Ustar => b"ustar\x0000",
    };
    if let Some(m) = b.get_mut(MAGIC_OFFSET..MAGIC_OFFSET + 8) {
        m.copy_from_slice(magic);
    }
    put_number(&mut b, Field::Devmajor, 0);
    put_number(&mut b, Field::Devminor, 0);
    put(&mut b, Field::Prefix, prefix);
    // Checksum: the field counts as spaces, then six octal digits, NUL, space.
    put(&mut b, Field::Checksum, b"        ");
    let sum: u64 = b.iter().map(|&x| u64::from(x)).sum();
    let mut digits = [0u8; 8];
    octal_digits(sum, invariant::sub_mut(&mut digits, ..6));
    if let Some(d) = digits.get_mut(6..8) {
        d.copy_from_slice(b"\0 ");
    }
    put(&mut b, Field::Checksum, &digits);
    b
}

fn put(b: &mut [u8; BLOCK], field: Field, value: &[u8]) {
    let (start, len) = field.range();
    let n = value.len().min(len);
    if let (Some(dst), Some(src)) = (b.get_mut(start..start + n), value.get(..n)) {
        dst.copy_from_slice(src);
    }
}

/// Zero-padded octal with a NUL terminator, or base-256 when it does not fit (§1.1.4).
fn put_number(b: &mut [u8; BLOCK], field: Field, value: u64) {
    let (start, len) = field.range();
    let Some(dst) = b.get_mut(start..start + len) else {
        return;
    };
    let digits = len - 1;
    let fits = u32::try_from(3 * digits)
        .ok()
        .and_then(|bits| 1u64.checked_shl(bits))
        .is_none_or(|max| value < max);
    if fits {
        octal_digits(value, invariant::sub_mut(dst, ..digits));
        if let Some(t) = dst.get_mut(digits) {
            *t = 0;
        }
    } else {
        dst.fill(0);
        if let Some(first) = dst.first_mut() {
            *first = 0x80;
        }
        let bytes = value.to_be_bytes();
        let tail = dst.len().saturating_sub(bytes.len());
        if let Some(d) = dst.get_mut(tail..) {
            d.copy_from_slice(&bytes);
        }
    }
}

fn octal_digits(mut value: u64, dst: &mut [u8]) {
    for d in dst.iter_mut().rev() {
        *d = b'0' + u8::try_from(value & 7).unwrap_or(0);
        value >>= 3;
    }
}

/// An in-memory archive builder over [`file_header`] (§1.6).
#[derive(Clone, Debug)]
pub struct TarWriter {
    out: Vec<u8>,
    flavor: Flavor,
}

impl TarWriter {
    /// An empty archive of the given flavor.
    pub fn new(flavor: Flavor) -> Self {
        TarWriter {
            out: Vec::new(),
            flavor,
        }
    }

    /// Appends a regular file.
    pub fn append_file(&mut self, path: &[u8], data: &[u8], meta: &FileMeta) -> Result<(), WriteError> {
        let size = u64::try_from(data.len()).unwrap_or(u64::MAX);
        let header = file_header(path, size, meta, self.flavor)?;
        self.out.extend_from_slice(&header);
        self.out.extend_from_slice(data);
        self.out.extend_from_slice(padding(size));
        Ok(())
    }

    /// Appends the end-of-archive marker and returns the bytes.
    pub fn finish(mut self) -> Vec<u8> {
        self.out.extend_from_slice(&END_OF_ARCHIVE);
        self.out
    }
}
