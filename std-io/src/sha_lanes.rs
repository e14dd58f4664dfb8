//! Two SHA-256 lanes on the x86-64 SHA extensions (`spec/mlbundle.md` §12.0): the
//! [`CompressPair`] that [`crate::threads::Threads`] offers the core's readers.
//!
//! On one chain, each `sha256rnds2` waits for the one before it, and the processor's SHA
//! unit idles in between; a second, independent chain stepped through the same rounds
//! fills those gaps (about 1.3 times the throughput of two chains in turn on the machine
//! of `cli/benches/HISTORY.md`, "Two SHA-256 lanes"). The rounds are FIPS 180-4 §6.2.2 in
//! the SHA extensions' layout (state words A, B, E, F and C, D, G, H; four message words
//! per vector).
//!
//! This module holds the project's second `unsafe` block, besides the memory map: one
//! call into the code compiled for the SHA extensions, made only after the processor has
//! said that it has them. The intrinsics themselves are safe to call inside that code
//! (a function compiled for their target features), and every load is a safe read of a
//! slice.

use modelgate_core::digest::lanes::{Block, CompressPair, in_turn};

/// The two lanes of this processor: `Some` when it has the SHA extensions (and SSSE3,
/// SSE4.1), `None` otherwise, and on any other architecture.
pub fn compress_pair() -> Option<CompressPair> {
    #[cfg(target_arch = "x86_64")]
    if x86::available() {
        return Some(x86::compress_pair);
    }
    None
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{Block, in_turn};
    use core::arch::x86_64::{
        __m128i, _mm_add_epi32, _mm_alignr_epi8, _mm_blend_epi16, _mm_extract_epi32, _mm_set_epi32, _mm_set_epi64x,
        _mm_sha256msg1_epu32, _mm_sha256msg2_epu32, _mm_sha256rnds2_epu32, _mm_shuffle_epi8, _mm_shuffle_epi32,
    };

    /// SHA-256's round constants (FIPS 180-4 §4.2.2).
    const K: [u32; 64] = [
        0x428a_2f98,
        0x7137_4491,
        0xb5c0_fbcf,
        0xe9b5_dba5,
        0x3956_c25b,
        0x59f1_11f1,
        0x923f_82a4,
        0xab1c_5ed5,
        0xd807_aa98,
        0x1283_5b01,
        0x2431_85be,
        0x550c_7dc3,
        0x72be_5d74,
        0x80de_b1fe,
        0x9bdc_06a7,
        0xc19b_f174,
        0xe49b_69c1,
        0xefbe_4786,
        0x0fc1_9dc6,
        0x240c_a1cc,
        0x2de9_2c6f,
        0x4a74_84aa,
        0x5cb0_a9dc,
        0x76f9_88da,
        0x983e_5152,
        0xa831_c66d,
        0xb003_27c8,
        0xbf59_7fc7,
        0xc6e0_0bf3,
        0xd5a7_9147,
        0x06ca_6351,
        0x1429_2967,
        0x27b7_0a85,
        0x2e1b_2138,
        0x4d2c_6dfc,
        0x5338_0d13,
        0x650a_7354,
        0x766a_0abb,
        0x81c2_c92e,
        0x9272_2c85,
        0xa2bf_e8a1,
        0xa81a_664b,
        0xc24b_8b70,
        0xc76c_51a3,
        0xd192_e819,
        0xd699_0624,
        0xf40e_3585,
        0x106a_a070,
        0x19a4_c116,
        0x1e37_6c08,
        0x2748_774c,
        0x34b0_bcb5,
        0x391c_0cb3,
        0x4ed8_aa4a,
        0x5b9c_ca4f,
        0x682e_6ff3,
        0x748f_82ee,
        0x78a5_636f,
        0x84c8_7814,
        0x8cc7_0208,
        0x90be_fffa,
        0xa450_6ceb,
        0xbef9_a3f7,
        0xc671_78f2,
    ];

    /// True when this processor has every extension [`two_chains`] is compiled for.
    pub fn available() -> bool {
        std::arch::is_x86_feature_detected!("sha")
            && std::arch::is_x86_feature_detected!("ssse3")
            && std::arch::is_x86_feature_detected!("sse4.1")
    }

    /// The [`super::CompressPair`] of the SHA extensions: both chains side by side while
    /// both have blocks, then the rest of the longer one alone.
    pub fn compress_pair(state_a: &mut [u32; 8], state_b: &mut [u32; 8], a: &[Block], b: &[Block]) {
        let both = a.len().min(b.len());
        let ((a_both, a_rest), (b_both, b_rest)) = (a.split_at(both), b.split_at(both));
        if available() {
            // SAFETY: `two_chains` is compiled for the "sha", "ssse3" and "sse4.1" target
            // features (SSE2 is x86-64's baseline), and `available` has just checked that
            // this processor has all three. It reads only its slice arguments.
            unsafe { two_chains(state_a, state_b, a_both, b_both) };
        } else {
            in_turn(state_a, state_b, a_both, b_both);
        }
        in_turn(state_a, state_b, a_rest, b_rest);
    }

    /// One chain's state in the SHA extensions' layout.
    #[derive(Clone, Copy)]
    struct Chain {
        abef: __m128i,
        cdgh: __m128i,
    }

    /// `state` (A to H) in the layout of `sha256rnds2`.
    #[target_feature(enable = "sha,ssse3,sse4.1")]
    fn load(s: &[u32; 8]) -> Chain {
        let word = |i: usize| i32::from_ne_bytes(s[i].to_ne_bytes());
        let dcba = _mm_set_epi32(word(3), word(2), word(1), word(0));
        let hgfe = _mm_set_epi32(word(7), word(6), word(5), word(4));
        let cdab = _mm_shuffle_epi32(dcba, 0xB1);
        let efgh = _mm_shuffle_epi32(hgfe, 0x1B);
        Chain {
            abef: _mm_alignr_epi8(cdab, efgh, 8),
            cdgh: _mm_blend_epi16(efgh, cdab, 0xF0),
        }
    }

    /// The chain back into `state` (A to H).
    #[target_feature(enable = "sha,ssse3,sse4.1")]
    fn store(c: Chain, s: &mut [u32; 8]) {
        let feba = _mm_shuffle_epi32(c.abef, 0x1B);
        let dchg = _mm_shuffle_epi32(c.cdgh, 0xB1);
        let dcba = _mm_blend_epi16(feba, dchg, 0xF0);
        let hgfe = _mm_alignr_epi8(dchg, feba, 8);
        let lanes = [
            _mm_extract_epi32(dcba, 0),
            _mm_extract_epi32(dcba, 1),
            _mm_extract_epi32(dcba, 2),
            _mm_extract_epi32(dcba, 3),
            _mm_extract_epi32(hgfe, 0),
            _mm_extract_epi32(hgfe, 1),
            _mm_extract_epi32(hgfe, 2),
            _mm_extract_epi32(hgfe, 3),
        ];
        for (word, lane) in s.iter_mut().zip(lanes) {
            *word = u32::from_ne_bytes(lane.to_ne_bytes());
        }
    }

    /// Message words `4i` to `4i + 3` of `block` (big-endian, FIPS 180-4 §6.2.2 step 1).
    #[target_feature(enable = "sha,ssse3,sse4.1")]
    fn words(block: &Block, i: usize) -> __m128i {
        let at = |o: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&block[16 * i + o..16 * i + o + 8]);
            i64::from_le_bytes(b)
        };
        let swap = _mm_set_epi64x(0x0c0d_0e0f_0809_0a0b, 0x0405_0607_0001_0203);
        _mm_shuffle_epi8(_mm_set_epi64x(at(8), at(0)), swap)
    }

    /// Message words `t` to `t + 3` from the sixteen before them, in four vectors oldest
    /// first (§6.2.2 step 1, `t` ≥ 16).
    #[target_feature(enable = "sha,ssse3,sse4.1")]
    fn next_words(w0: __m128i, w1: __m128i, w2: __m128i, w3: __m128i) -> __m128i {
        let partial = _mm_add_epi32(_mm_sha256msg1_epu32(w0, w1), _mm_alignr_epi8(w3, w2, 4));
        _mm_sha256msg2_epu32(partial, w3)
    }

    /// Round constants `4i` to `4i + 3`.
    #[target_feature(enable = "sha,ssse3,sse4.1")]
    fn constants(i: usize) -> __m128i {
        let k = |j: usize| i32::from_ne_bytes(K[4 * i + j].to_ne_bytes());
        _mm_set_epi32(k(3), k(2), k(1), k(0))
    }

    /// Four rounds of one chain with message words plus constants `wk` (§6.2.2 step 3).
    #[target_feature(enable = "sha,ssse3,sse4.1")]
    fn rounds(c: Chain, wk: __m128i) -> Chain {
        let cdgh = _mm_sha256rnds2_epu32(c.cdgh, c.abef, wk);
        let abef = _mm_sha256rnds2_epu32(c.abef, cdgh, _mm_shuffle_epi32(wk, 0x0E));
        Chain { abef, cdgh }
    }

    /// Compresses `a[i]` into `state_a` and `b[i]` into `state_b` for each `i`, both
    /// chains' rounds interleaved (`a` and `b` have the same length).
    #[target_feature(enable = "sha,ssse3,sse4.1")]
    fn two_chains(state_a: &mut [u32; 8], state_b: &mut [u32; 8], a: &[Block], b: &[Block]) {
        let (mut x, mut y) = (load(state_a), load(state_b));
        for (bx, by) in a.iter().zip(b) {
            let (x0, y0) = (x, y);
            let mut wx = [words(bx, 0), words(bx, 1), words(bx, 2), words(bx, 3)];
            let mut wy = [words(by, 0), words(by, 1), words(by, 2), words(by, 3)];
            // Sixteen groups of four rounds, written out so that the message vectors stay
            // in registers (constant indices).
            macro_rules! group {
                ($($i:literal)*) => {$(
                    if $i >= 4 {
                        wx[$i % 4] = next_words(wx[$i % 4], wx[($i + 1) % 4], wx[($i + 2) % 4], wx[($i + 3) % 4]);
                        wy[$i % 4] = next_words(wy[$i % 4], wy[($i + 1) % 4], wy[($i + 2) % 4], wy[($i + 3) % 4]);
                    }
                    let k = constants($i);
                    x = rounds(x, _mm_add_epi32(wx[$i % 4], k));
                    y = rounds(y, _mm_add_epi32(wy[$i % 4], k));
                )*};
            }
            group!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
            x = Chain {
                abef: _mm_add_epi32(x.abef, x0.abef),
                cdgh: _mm_add_epi32(x.cdgh, x0.cdgh),
            };
            y = Chain {
                abef: _mm_add_epi32(y.abef, y0.abef),
                cdgh: _mm_add_epi32(y.cdgh, y0.cdgh),
            };
        }
        store(x, state_a);
        store(y, state_b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::threads::Threads;
    use modelgate_core::digest::lanes::sha256_pair;
    use modelgate_core::digest::sha256;
    use modelgate_core::join::Join;

    fn blocks(n: usize, seed: u64) -> Vec<Block> {
        Rng(seed).bytes(64 * n).as_chunks::<64>().0.to_vec()
    }

    /// On a processor with the SHA extensions the lanes are offered (CI's machines have
    /// them), and they compute what the core's lanes in turn compute, for every pairing
    /// of block counts up to 9 from several starting states.
    #[test]
    fn the_sha_extension_lanes_compress_as_compress256_does() {
        #[cfg(target_arch = "x86_64")]
        assert_eq!(compress_pair().is_some(), x86::available());
        let Some(lanes) = compress_pair() else {
            return;
        };
        for na in 0..10 {
            for nb in 0..10 {
                let (a, b) = (blocks(na, 1 + na as u64), blocks(nb, 99 + nb as u64));
                let start = [[na as u32; 8], core::array::from_fn(|i| (i * nb) as u32)];
                let (mut x, mut y) = (start[0], start[1]);
                lanes(&mut x, &mut y, &a, &b);
                let (mut rx, mut ry) = (start[0], start[1]);
                in_turn(&mut rx, &mut ry, &a, &b);
                assert_eq!([x, y], [rx, ry], "{na} {nb}");
            }
        }
    }

    /// The digests through the lanes are SHA-256's, across chunk ends and uneven lengths.
    #[test]
    fn sha256_pair_on_the_lanes_is_sha256() {
        let Some(lanes) = compress_pair() else {
            return;
        };
        let data = blocks(3000, 7).concat();
        for (la, lb) in [(0, 0), (1, 64), (65_536, 65_536), (131_137, 70_000), (191_999, 192_000)] {
            let (a, b) = (&data[..la], &data[data.len() - lb..]);
            assert_eq!(sha256_pair(a, b, lanes, |_, _| {}), [sha256(a), sha256(b)], "{la} {lb}");
        }
    }

    /// A deterministic xorshift64 generator for the randomized tests.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }

        fn bytes(&mut self, n: usize) -> Vec<u8> {
            (0..n).map(|_| self.next().to_le_bytes()[3]).collect()
        }
    }

    /// The SHA-256 of `a` and `b` through the processor's lanes, as the readers take them
    /// (`Threads::sha256_pair`), with `visit` seeing every byte of each once, in order.
    fn on_the_lanes(lanes: CompressPair, a: &[u8], b: &[u8]) -> [[u8; 32]; 2] {
        let mut seen = [0usize; 2];
        let got = sha256_pair(a, b, lanes, |x, y| {
            assert_eq!(x, &a[seen[0]..seen[0] + x.len()]);
            assert_eq!(y, &b[seen[1]..seen[1] + y.len()]);
            seen[0] += x.len();
            seen[1] += y.len();
        });
        assert_eq!(seen, [a.len(), b.len()]);
        got
    }

    /// The lanes' digests are the `sha2` crate's SHA-256 for random contents and random
    /// length pairs of 0 to 300 bytes, each string a sub-slice at a random byte offset (so
    /// neither lane's blocks are aligned), both orders of each pair.
    #[test]
    fn the_lanes_hash_random_short_misaligned_pairs_as_sha2_does() {
        let Some(lanes) = Threads::DEFAULT.sha256_pair() else {
            return;
        };
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let pool = rng.bytes(4096);
        for _ in 0..3000 {
            let (la, lb) = (rng.below(301), rng.below(301));
            let (oa, ob) = (rng.below(64), rng.below(64));
            let (sa, sb) = (rng.below(pool.len() - 400), rng.below(pool.len() - 400));
            let a = &pool[sa + oa..sa + oa + la];
            let b = &pool[sb + ob..sb + ob + lb];
            assert_eq!(on_the_lanes(lanes, a, b), [sha256(a), sha256(b)], "{la} {lb}");
            assert_eq!(on_the_lanes(lanes, b, a), [sha256(b), sha256(a)], "{lb} {la}");
        }
    }

    /// Every pairing of the lengths around a block's end and the padding's 56-byte turn
    /// (55, 56, 63, 64, 119, 120, ...), of lengths one block apart, and around the 64 KiB
    /// chunk's end: the lanes' digests are `sha2`'s.
    #[test]
    fn the_lanes_hash_block_padding_and_chunk_boundaries_as_sha2_does() {
        let Some(lanes) = Threads::DEFAULT.sha256_pair() else {
            return;
        };
        let chunk = modelgate_core::inflate::MAX_CHUNK;
        let mut rng = Rng(7);
        let data = rng.bytes(2 * chunk + 300);
        let mut lens: Vec<usize> = [
            0, 1, 2, 54, 55, 56, 57, 62, 63, 64, 65, 118, 119, 120, 121, 127, 128, 129, 183, 184, 192,
        ]
        .into();
        lens.extend([
            chunk - 8,
            chunk - 1,
            chunk,
            chunk + 1,
            chunk + 56,
            2 * chunk - 1,
            2 * chunk + 1,
        ]);
        for &la in &lens {
            for &lb in &lens {
                let (a, b) = (&data[..la], &data[data.len() - lb..]);
                assert_eq!(on_the_lanes(lanes, a, b), [sha256(a), sha256(b)], "{la} {lb}");
            }
        }
        // Lengths one block (and one block and a byte) apart.
        for la in 0..200 {
            for d in [63, 64, 65] {
                let (a, b) = (&data[1..1 + la], &data[3..3 + la + d]);
                assert_eq!(on_the_lanes(lanes, a, b), [sha256(a), sha256(b)], "{la} +{d}");
            }
        }
    }

    /// Very unequal lengths: nothing against 1 MiB and a byte, one byte against 1 MiB, a
    /// few blocks against several chunks, in both lanes; and two random pairs of random
    /// lengths up to 300 KiB. The lanes' digests are `sha2`'s.
    #[test]
    fn the_lanes_hash_very_unequal_pairs_as_sha2_does() {
        let Some(lanes) = Threads::DEFAULT.sha256_pair() else {
            return;
        };
        let mut rng = Rng(0xdead_beef);
        let big = rng.bytes((1 << 20) + 200);
        for (la, lb) in [
            (0, 1 << 20),
            (0, (1 << 20) + 1),
            (1, 1 << 20),
            (64, (1 << 20) + 63),
            (200, 300_007),
        ] {
            let (a, b) = (&big[5..5 + la], &big[70 - 1..70 - 1 + lb]);
            assert_eq!(on_the_lanes(lanes, a, b), [sha256(a), sha256(b)], "{la} {lb}");
            assert_eq!(on_the_lanes(lanes, b, a), [sha256(b), sha256(a)], "{lb} {la}");
        }
        for _ in 0..2 {
            let (la, lb) = (rng.below(300 << 10), rng.below(300 << 10));
            let (a, b) = (&big[3..3 + la], &big[11..11 + lb]);
            assert_eq!(on_the_lanes(lanes, a, b), [sha256(a), sha256(b)], "{la} {lb}");
        }
    }

    /// The lanes' compression alone, from random states over random block counts up to 40
    /// (each lane's blocks from a misaligned sub-slice), is `compress256`'s in turn.
    #[test]
    fn the_lanes_compress_random_states_and_counts_as_compress256_does() {
        let Some(lanes) = compress_pair() else {
            return;
        };
        let mut rng = Rng(12345);
        let pool = rng.bytes(64 * 41 + 64);
        for _ in 0..300 {
            let (na, nb) = (rng.below(41), rng.below(41));
            let (oa, ob) = (rng.below(64), rng.below(64));
            let (a, _) = pool[oa..oa + 64 * na].as_chunks::<64>();
            let (b, _) = pool[ob..ob + 64 * nb].as_chunks::<64>();
            let start: [[u32; 8]; 2] = core::array::from_fn(|_| core::array::from_fn(|_| rng.next() as u32));
            let (mut x, mut y) = (start[0], start[1]);
            lanes(&mut x, &mut y, a, b);
            let (mut rx, mut ry) = (start[0], start[1]);
            in_turn(&mut rx, &mut ry, a, b);
            assert_eq!([x, y], [rx, ry], "{na} {nb}");
        }
    }
}
