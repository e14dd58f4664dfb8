//! The fixed-metadata ZIP record writer behind the mlbundle writer (`spec/mlbundle.md`
//! §10.2): version needed 20, no flags, deflated, 1980-01-01 00:00:00, Unix creator,
//! regular file 0600, no extra field, comment, descriptor or ZIP64.

use super::central::{CENTRAL_LEN, CENTRAL_SIG};
use super::end::{END_LEN, END_SIG};
use super::header::DEFLATED;
use super::local::{LOCAL_LEN, LOCAL_SIG};
use alloc::vec::Vec;

/// Version needed to extract written in every header (deflate, §10.2).
pub(crate) const VERSION_NEEDED: u16 = 20;
/// Version made by: Unix (3) in the upper byte, spec version 2.0 in the lower (§10.2).
pub(crate) const VERSION_MADE_BY: u16 = 0x0314;
/// DOS time 00:00:00.
pub(crate) const DOS_TIME: u16 = 0;
/// DOS date 1980-01-01: (1980 − 1980) << 9 | 1 << 5 | 1.
pub(crate) const DOS_DATE: u16 = 0x0021;
/// External attributes: Unix regular file, mode 0600, in the upper 16 bits.
pub(crate) const EXTERNAL_ATTRIBUTES: u32 = 0o100_600 << 16;

/// One member as the writer lays it out.
#[derive(Clone, Copy, Debug)]
pub(crate) struct WriteMember<'a> {
    /// The member name (ASCII, from the caller's allowed set).
    pub name: &'a str,
    /// CRC-32 of the uncompressed bytes.
    pub crc32: u32,
    /// Uncompressed length.
    pub uncompressed: u32,
    /// The raw deflate stream.
    pub compressed: &'a [u8],
}

/// Why the record writer failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WriteError {
    /// A size, count or offset does not fit the non-ZIP64 fields (never within the
    /// version 1 ceilings).
    TooLarge,
    /// Memory for the output could not be reserved.
    OutOfMemory,
}

/// Bytes of fixed overhead for members with these name lengths: local and central
/// headers with names, plus the end record (§10.3 reserves this before compressing).
pub(crate) fn overhead(name_lens: impl Iterator<Item = usize>) -> u64 {
    let per = name_lens.fold(0u64, |acc, n| {
        let n = u64::try_from(n).unwrap_or(u64::MAX);
        acc.saturating_add(LOCAL_LEN + CENTRAL_LEN)
            .saturating_add(n.saturating_mul(2))
    });
    per.saturating_add(END_LEN)
}

/// Writes the complete archive: local records in the given order, the central directory in
/// the same order, the end record.
pub(crate) fn write_archive(members: &[WriteMember<'_>]) -> Result<Vec<u8>, WriteError> {
    let names = members.iter().map(|m| m.name.len());
    let data: usize = members
        .iter()
        .map(|m| m.compressed.len())
        .fold(0, usize::saturating_add);
    let total = usize::try_from(overhead(names))
        .map_err(|_| WriteError::TooLarge)?
        .saturating_add(data);
    let mut out = Vec::new();
    out.try_reserve_exact(total).map_err(|_| WriteError::OutOfMemory)?;
    let mut offsets = Vec::new();
    offsets
        .try_reserve_exact(members.len())
        .map_err(|_| WriteError::OutOfMemory)?;
    for m in members {
        offsets.push(u32_of(out.len())?);
        local(&mut out, m)?;
        out.extend_from_slice(m.compressed);
    }
    let cd_offset = u32_of(out.len())?;
    for (m, &offset) in members.iter().zip(&offsets) {
        central(&mut out, m, offset)?;
    }
    let cd_size = u32_of(out.len())?.saturating_sub(cd_offset);
    let count = u16::try_from(members.len()).map_err(|_| WriteError::TooLarge)?;
    put32(&mut out, END_SIG);
    put16(&mut out, 0);
    put16(&mut out, 0);
    put16(&mut out, count);
    put16(&mut out, count);
    put32(&mut out, cd_size);
    put32(&mut out, cd_offset);
    put16(&mut out, 0);
    Ok(out)
}

/// The fields local and central headers share, from version needed to extra length.
fn common(out: &mut Vec<u8>, m: &WriteMember<'_>) -> Result<(), WriteError> {
    put16(out, VERSION_NEEDED);
    put16(out, 0);
    put16(out, DEFLATED);
    put16(out, DOS_TIME);
    put16(out, DOS_DATE);
    put32(out, m.crc32);
    put32(out, u32_of(m.compressed.len())?);
    put32(out, m.uncompressed);
    put16(out, u16::try_from(m.name.len()).map_err(|_| WriteError::TooLarge)?);
    put16(out, 0);
    Ok(())
}

fn local(out: &mut Vec<u8>, m: &WriteMember<'_>) -> Result<(), WriteError> {
    put32(out, LOCAL_SIG);
    common(out, m)?;
    out.extend_from_slice(m.name.as_bytes());
    Ok(())
}

fn central(out: &mut Vec<u8>, m: &WriteMember<'_>, offset: u32) -> Result<(), WriteError> {
    put32(out, CENTRAL_SIG);
    put16(out, VERSION_MADE_BY);
    common(out, m)?;
    put16(out, 0); // comment length
    put16(out, 0); // disk start
    put16(out, 0); // internal attributes
    put32(out, EXTERNAL_ATTRIBUTES);
    put32(out, offset);
    out.extend_from_slice(m.name.as_bytes());
    Ok(())
}

fn u32_of(n: usize) -> Result<u32, WriteError> {
    u32::try_from(n)
        .ok()
        .filter(|v| *v != u32::MAX)
        .ok_or(WriteError::TooLarge)
}

fn put16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}
