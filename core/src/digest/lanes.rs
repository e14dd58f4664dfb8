//! The SHA-256 of two byte strings side by side (`spec/mlbundle.md` §12.0).
//!
//! One SHA-256 is a chain: each block's rounds wait for the block before. Two independent
//! strings are two chains, and a processor whose SHA instructions are not busy every cycle
//! on one chain can step a second chain through the same rounds in the gaps. The core has
//! no such instructions of its own (it holds no `unsafe`): a caller that has them passes a
//! [`CompressPair`], and [`sha256_pair`] does the rest (block boundaries, padding, the
//! chunk walk), so the digests are FIPS 180-4's whatever the compressor.

use sha2::block_api::compress256;

/// One SHA-256 message block (FIPS 180-4 §5.2.1).
pub type Block = [u8; 64];

/// Compresses every block of `a` into `state_a` and every block of `b` into `state_b`:
/// the same result as `compress256(state_a, a)` then `compress256(state_b, b)`, whatever
/// the two lengths (an implementation steps both while both have blocks, then the rest of
/// the longer alone).
pub type CompressPair = fn(state_a: &mut [u32; 8], state_b: &mut [u32; 8], a: &[Block], b: &[Block]);

/// The [`CompressPair`] of a processor without two lanes: one string after the other. It
/// lets tests and fuzz targets run the paired paths of a reader on any machine.
pub fn in_turn(state_a: &mut [u32; 8], state_b: &mut [u32; 8], a: &[Block], b: &[Block]) {
    compress256(state_a, a);
    compress256(state_b, b);
}

/// SHA-256's initial hash value (FIPS 180-4 §5.3.3).
const H0: [u32; 8] = [
    0x6a09_e667,
    0xbb67_ae85,
    0x3c6e_f372,
    0xa54f_f53a,
    0x510e_527f,
    0x9b05_688c,
    0x1f83_d9ab,
    0x5be0_cd19,
];

/// Bytes walked per step: each chunk of either string is visited and compressed while it
/// is in cache (`spec/inflate.md`'s chunk size, a whole number of blocks).
const CHUNK: usize = crate::inflate::MAX_CHUNK;
// `sha256_pair` keeps only a string's last partial block: every chunk before the last must
// be a whole number of blocks.
const _: () = assert!(
    CHUNK > 0 && CHUNK.is_multiple_of(64),
    "the chunk is not a whole number of blocks"
);

/// The SHA-256 of `a` and of `b`, their blocks compressed by `pair`. Walks both strings in
/// steps of 64 KiB (`inflate::MAX_CHUNK`) and hands each step's two chunks (one may be empty once its
/// string has ended) to `visit` just before compressing them, so a caller computes its
/// CRC-32s in the same pass.
pub fn sha256_pair(a: &[u8], b: &[u8], pair: CompressPair, mut visit: impl FnMut(&[u8], &[u8])) -> [[u8; 32]; 2] {
    let mut states = [H0; 2];
    let mut chunks = [a.chunks(CHUNK), b.chunks(CHUNK)];
    let mut tails: [&[u8]; 2] = [&[], &[]];
    loop {
        let [x, y] = [chunks[0].next(), chunks[1].next()];
        if x.is_none() && y.is_none() {
            break;
        }
        let (x, y) = (x.unwrap_or_default(), y.unwrap_or_default());
        visit(x, y);
        let (xb, xt) = x.as_chunks::<64>();
        let (yb, yt) = y.as_chunks::<64>();
        let [sa, sb] = &mut states;
        pair(sa, sb, xb, yb);
        // Only a string's last chunk can end inside a block.
        for (tail, rest) in tails.iter_mut().zip([xt, yt]) {
            if !rest.is_empty() {
                *tail = rest;
            }
        }
    }
    let [sa, sb] = states;
    [finish(sa, tails[0], a.len()), finish(sb, tails[1], b.len())]
}

/// Pads the last `tail` bytes (fewer than 64) of a string of `len` bytes into one or two
/// blocks (FIPS 180-4 §5.1.1), compresses them and returns the digest (§6.2.2 step 4).
fn finish(mut state: [u32; 8], tail: &[u8], len: usize) -> [u8; 32] {
    let mut last = [[0u8; 64]; 2];
    let flat = last.as_flattened_mut();
    let n = tail.len();
    flat.get_mut(..n).unwrap_or_default().copy_from_slice(tail);
    if let Some(b) = flat.get_mut(n) {
        *b = 0x80;
    }
    let blocks = if n < 56 { 1 } else { 2 };
    let bits = u64::try_from(len).unwrap_or(u64::MAX).wrapping_mul(8);
    let end = blocks * 64;
    flat.get_mut(end - 8..end)
        .unwrap_or_default()
        .copy_from_slice(&bits.to_be_bytes());
    compress256(&mut state, last.get(..blocks).unwrap_or_default());
    let mut out = [0u8; 32];
    for (o, w) in out.chunks_exact_mut(4).zip(state) {
        o.copy_from_slice(&w.to_be_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::digest::sha256;
    use alloc::vec::Vec;

    fn bytes(n: usize, seed: u8) -> Vec<u8> {
        (0..n).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed)).collect()
    }

    /// Every length around a block's end, the padding's 56-byte turn and a chunk's end,
    /// paired with every other: the digests are `sha256`'s, and `visit` sees each byte once.
    #[test]
    fn sha256_pair_is_fips_180_4_sha256_of_each_for_every_length_pairing() {
        let near = |m: usize| m.saturating_sub(2)..m + 2;
        let lens: Vec<usize> = [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128]
            .into_iter()
            .chain(near(CHUNK))
            .chain(near(2 * CHUNK + 64))
            .collect();
        for &la in &lens {
            for &lb in &lens {
                let (a, b) = (bytes(la, 1), bytes(lb, 2));
                let mut seen: [Vec<u8>; 2] = [Vec::new(), Vec::new()];
                let got = sha256_pair(&a, &b, in_turn, |x, y| {
                    seen[0].extend_from_slice(x);
                    seen[1].extend_from_slice(y);
                });
                assert_eq!(got, [sha256(&a), sha256(&b)], "{la} {lb}");
                assert_eq!(seen, [a, b], "{la} {lb}");
            }
        }
    }

    #[test]
    fn sha256_pair_of_empty_strings_is_the_empty_digest() {
        let empty = sha256(b"");
        assert_eq!(sha256_pair(b"", b"", in_turn, |_, _| {}), [empty, empty]);
        assert_eq!(crate::digest::hex(&empty)[..8], *"e3b0c442");
    }

    /// `visit` gets chunks of at most [`CHUNK`] bytes, in order, both strings in step.
    #[test]
    fn sha256_pair_visits_chunks_in_step() {
        let (a, b) = (bytes(3 * CHUNK + 5, 3), bytes(CHUNK - 1, 4));
        let mut steps = Vec::new();
        sha256_pair(&a, &b, in_turn, |x, y| steps.push((x.len(), y.len())));
        assert_eq!(steps, [(CHUNK, CHUNK - 1), (CHUNK, 0), (CHUNK, 0), (5, 0)]);
    }
}
