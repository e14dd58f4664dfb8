//! Whole-slice decoding of one raw deflate stream with a declared exact size, as a
//! ZIP member carries it (`spec/inflate.md` §3). All three functions drive the one
//! [`Inflater`]; none has a decode loop of its own.

use crate::digest::Digests;
use crate::inflate::error::{InflateError, InflateReason};
use crate::inflate::raw::{Inflater, OutputBound, to_u64};
use alloc::vec::Vec;

/// Decodes `input`, which must be exactly one complete raw deflate stream producing
/// exactly `expected_size` bytes, handing each chunk (at most 64 KiB) to `sink` as it
/// is produced (`spec/inflate.md` §3.1). Checks, in stream order: the data (§2.2), the
/// exact size with one byte of lookahead (§2.5), truncation (§2.4), no trailing packed
/// data (§2.3), then the CRC-32 when `expected_crc` is given (§2.6). SHA-256 is
/// computed when `sha256` is set. Error offsets count from `input[0]`.
pub fn inflate_exact<F: FnMut(&[u8])>(
    input: &[u8],
    expected_size: u64,
    expected_crc: Option<u32>,
    sha256: bool,
    sink: F,
) -> Result<Digests, InflateError> {
    let mut inflater = Inflater::new(OutputBound::Exact(expected_size), sha256);
    let progress = inflater.feed(input, false, sink)?;
    if progress.consumed < input.len() {
        // spec/inflate.md §2.3: no trailing packed data after the final block.
        return Err(InflateError::new(
            InflateReason::TrailingData,
            to_u64(progress.consumed),
        ));
    }
    inflater.finish(expected_crc)
}

/// Like [`inflate_exact`] with the declared size `out.len()`, writing the output into
/// the caller's buffer (`spec/inflate.md` §3.2). Memory: `out` plus the engine's window.
/// On error the contents of `out` are unspecified.
pub fn inflate_into(
    input: &[u8],
    out: &mut [u8],
    expected_crc: Option<u32>,
    sha256: bool,
) -> Result<Digests, InflateError> {
    let expected_size = to_u64(out.len());
    let mut filled = 0usize;
    inflate_exact(input, expected_size, expected_crc, sha256, |chunk| {
        let end = filled.saturating_add(chunk.len());
        // The Exact bound (§2.5) guarantees `end <= out.len()`.
        if let Some(dst) = out.get_mut(filled..end) {
            dst.copy_from_slice(chunk);
        }
        filled = end;
    })
}

/// Like [`inflate_exact`], returning the output in a new vector of exactly
/// `expected_size` bytes (`spec/inflate.md` §3.3). The vector is reserved up front
/// with `try_reserve_exact`; a size that does not fit in memory is
/// [`InflateReason::LimitExceeded`] at offset 0. Callers check declared sizes against
/// their limits before calling.
pub fn inflate_to_vec(
    input: &[u8],
    expected_size: u64,
    expected_crc: Option<u32>,
    sha256: bool,
) -> Result<(Vec<u8>, Digests), InflateError> {
    let mut out = reserve_exact(expected_size)?;
    let digests = inflate_exact(input, expected_size, expected_crc, sha256, |chunk| {
        // Within the reserved capacity: the Exact bound (§2.5) caps the total.
        out.extend_from_slice(chunk);
    })?;
    Ok((out, digests))
}

/// An empty vector with room for exactly `size` bytes (§3.3).
fn reserve_exact(size: u64) -> Result<Vec<u8>, InflateError> {
    let limit = InflateError::new(InflateReason::LimitExceeded, 0);
    let size = usize::try_from(size).map_err(|_| limit)?;
    let mut out = Vec::new();
    out.try_reserve_exact(size).map_err(|_| limit)?;
    Ok(out)
}
