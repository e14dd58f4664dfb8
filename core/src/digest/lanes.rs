//! The SHA-256 (and, when asked, the CRC-32) of two byte strings side by side
//! (`spec/mlbundle.md` §12.0).
//!
//! One SHA-256 is a chain: each block's rounds wait for the block before. Two independent
//! strings are two chains, and a processor whose SHA instructions are not busy every cycle
//! on one chain can step a second chain through the same rounds in the gaps; its
//! carry-less multiplier, idle meanwhile, can fold each block into the string's CRC-32 in
//! the same loop. The core has no such instructions of its own (it holds no `unsafe`): a
//! caller that has them passes a [`CompressPair`], and [`sha256_pair`] does the rest (block
//! boundaries, padding, the last partial block's CRC-32, the chunk walk), so the digests
//! are FIPS 180-4's and ISO-HDLC's whatever the compressor.

use super::crc32_continue;
use sha2::block_api::compress256;

/// One SHA-256 message block (FIPS 180-4 §5.2.1).
pub type Block = [u8; 64];

/// One string's running digests in a [`CompressPair`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lane {
    /// The SHA-256 hash value after the blocks so far (FIPS 180-4 §6.2.2).
    pub state: [u32; 8],
    /// The CRC-32 (ISO-HDLC, as ZIP uses it: APPNOTE 4.4.7) of the bytes so far, in its
    /// final (inverted) form, as `crc32fast::Hasher::new_with_initial` takes it; `None`
    /// when the caller does not want it, and then no compressor computes it.
    pub crc32: Option<u32>,
}

/// Compresses every block of `blocks[0]` into `lanes[0]` and every block of `blocks[1]`
/// into `lanes[1]`: the same result as `compress256` of each lane's blocks into its
/// state, and, for a lane whose `crc32` is `Some`, the CRC-32 continued over the same
/// bytes, whatever the two lengths (an implementation steps both while both have blocks,
/// then the rest of the longer alone).
pub type CompressPair = fn(lanes: &mut [Lane; 2], blocks: [&[Block]; 2]);

/// The [`CompressPair`] of a processor without two lanes: one string after the other. It
/// lets tests and fuzz targets run the paired paths of a reader on any machine.
pub fn in_turn(lanes: &mut [Lane; 2], blocks: [&[Block]; 2]) {
    for (lane, blocks) in lanes.iter_mut().zip(blocks) {
        compress256(&mut lane.state, blocks);
        lane.crc32 = lane.crc32.map(|crc| crc32_continue(crc, blocks.as_flattened()));
    }
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

/// Bytes walked per step: each chunk of either string is compressed in one call
/// (`spec/inflate.md`'s chunk size, a whole number of blocks).
const CHUNK: usize = crate::inflate::MAX_CHUNK;
// `sha256_pair` keeps only a string's last partial block: every chunk before the last must
// be a whole number of blocks.
const _: () = assert!(
    CHUNK > 0 && CHUNK.is_multiple_of(64),
    "the chunk is not a whole number of blocks"
);

/// What [`sha256_pair`] gives for each string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairDigest {
    /// The string's SHA-256 (FIPS 180-4).
    pub sha256: [u8; 32],
    /// The string's CRC-32 when it was asked for, else `None`.
    pub crc32: Option<u32>,
}

/// The SHA-256 of `a` and of `b`, and their CRC-32s when `crc32` is set, their blocks
/// compressed by `pair`. Walks both strings in steps of 64 KiB (`inflate::MAX_CHUNK`), one
/// call of `pair` per step (one string's chunk may be empty once it has ended), so each
/// chunk is read once, for both digests, while it is in cache.
pub fn sha256_pair(a: &[u8], b: &[u8], pair: CompressPair, crc32: bool) -> [PairDigest; 2] {
    let crc = crc32.then_some(0);
    let mut lanes = [Lane { state: H0, crc32: crc }; 2];
    let mut chunks = [a.chunks(CHUNK), b.chunks(CHUNK)];
    let mut tails: [&[u8]; 2] = [&[], &[]];
    loop {
        let [x, y] = [chunks[0].next(), chunks[1].next()];
        if x.is_none() && y.is_none() {
            break;
        }
        let (xb, xt) = x.unwrap_or_default().as_chunks::<64>();
        let (yb, yt) = y.unwrap_or_default().as_chunks::<64>();
        pair(&mut lanes, [xb, yb]);
        // Only a string's last chunk can end inside a block.
        for (tail, rest) in tails.iter_mut().zip([xt, yt]) {
            if !rest.is_empty() {
                *tail = rest;
            }
        }
    }
    let [la, lb] = lanes;
    [finish(la, tails[0], a.len()), finish(lb, tails[1], b.len())]
}

/// The digests of a string of `len` bytes whose lane has compressed all but its last
/// `tail` bytes (fewer than 64): the CRC-32 continued over them, and the SHA-256 of the
/// padded tail (FIPS 180-4 §5.1.1, §6.2.2 step 4).
fn finish(lane: Lane, tail: &[u8], len: usize) -> PairDigest {
    PairDigest {
        sha256: pad_and_compress(lane.state, tail, len),
        crc32: lane.crc32.map(|crc| crc32_continue(crc, tail)),
    }
}

/// Pads the last `tail` bytes (fewer than 64) of a string of `len` bytes into one or two
/// blocks (FIPS 180-4 §5.1.1), compresses them and returns the digest (§6.2.2 step 4).
fn pad_and_compress(mut state: [u32; 8], tail: &[u8], len: usize) -> [u8; 32] {
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
    use crate::digest::{crc32, sha256};
    use alloc::vec::Vec;
    use core::sync::atomic::{AtomicUsize, Ordering};

    fn bytes(n: usize, seed: u8) -> Vec<u8> {
        (0..n).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed)).collect()
    }

    /// Every length around a block's end, the padding's 56-byte turn and a chunk's end,
    /// paired with every other: the digests are `sha256`'s and the CRC-32s `crc32`'s,
    /// and without the CRC-32s asked for there are none.
    #[test]
    fn sha256_pair_is_fips_180_4_sha256_and_iso_hdlc_crc32_of_each_for_every_length_pairing() {
        let near = |m: usize| m.saturating_sub(2)..m + 2;
        let lens: Vec<usize> = [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128]
            .into_iter()
            .chain(near(CHUNK))
            .chain(near(2 * CHUNK + 64))
            .collect();
        for &la in &lens {
            for &lb in &lens {
                let (a, b) = (bytes(la, 1), bytes(lb, 2));
                let want = |s: &[u8], crc: bool| PairDigest {
                    sha256: sha256(s),
                    crc32: crc.then(|| crc32(s)),
                };
                for crc in [true, false] {
                    let got = sha256_pair(&a, &b, in_turn, crc);
                    assert_eq!(got, [want(&a, crc), want(&b, crc)], "{la} {lb} {crc}");
                }
            }
        }
    }

    #[test]
    fn sha256_pair_of_empty_strings_is_the_empty_digest() {
        let empty = PairDigest {
            sha256: sha256(b""),
            crc32: Some(0),
        };
        assert_eq!(sha256_pair(b"", b"", in_turn, true), [empty, empty]);
        assert_eq!(crate::digest::hex(&empty.sha256)[..8], *"e3b0c442");
    }

    /// Calls and blocks seen by [`counting`].
    static STEPS: AtomicUsize = AtomicUsize::new(0);
    static BLOCKS: AtomicUsize = AtomicUsize::new(0);

    /// [`in_turn`], counting its calls and asserting that no call has more than a chunk's
    /// blocks in either lane.
    fn counting(lanes: &mut [Lane; 2], blocks: [&[Block]; 2]) {
        assert!(blocks.iter().all(|b| b.len() <= CHUNK / 64));
        STEPS.fetch_add(1, Ordering::Relaxed);
        BLOCKS.fetch_add(blocks[0].len() + blocks[1].len(), Ordering::Relaxed);
        in_turn(lanes, blocks);
    }

    /// The pair is called once per 64 KiB step of the longer string, with both strings'
    /// whole blocks and nothing more (the tails are the core's).
    #[test]
    fn sha256_pair_compresses_one_chunk_of_each_string_per_call() {
        let (a, b) = (bytes(3 * CHUNK + 5, 3), bytes(CHUNK - 1, 4));
        let got = sha256_pair(&a, &b, counting, true);
        assert_eq!(got.map(|d| d.sha256), [sha256(&a), sha256(&b)]);
        assert_eq!(STEPS.load(Ordering::Relaxed), 4);
        assert_eq!(BLOCKS.load(Ordering::Relaxed), (3 * CHUNK) / 64 + (CHUNK - 1) / 64);
    }
}
