//! Two SHA-256 lanes on the x86-64 SHA extensions (`spec/mlbundle.md` §12.0): the
//! [`CompressPair`] that [`crate::threads::Threads`] offers the core's readers.
//!
//! On one chain, each `sha256rnds2` waits for the one before it, and the processor's SHA
//! unit idles in between; a second, independent chain stepped through the same rounds
//! fills those gaps (about 1.3 times the throughput of two chains in turn on the machine
//! of `cli/benches/HISTORY.md`, "Two SHA-256 lanes"). The rounds are FIPS 180-4 §6.2.2 in
//! the SHA extensions' layout (state words A, B, E, F and C, D, G, H; four message words
//! per vector). When the caller asks for the CRC-32s too, each block's four 16-byte
//! vectors, loaded once, are also folded into its lane's CRC-32 with the carry-less
//! multiplier (`pclmulqdq`), which the SHA rounds leave idle: the CRC-32 then costs almost
//! nothing beside them (`cli/benches/HISTORY.md`, "CRC-32 folded into the lanes").
//!
//! This module holds the project's second `unsafe` block, besides the memory map: one
//! call into the code compiled for the SHA extensions, made only after the processor has
//! said that it has them. The intrinsics themselves are safe to call inside that code
//! (a function compiled for their target features), and every load is a safe read of a
//! slice.

use modelgate_core::digest::lanes::{Block, CompressPair, Lane, in_turn};

/// The two lanes of this processor: `Some` when it has the SHA extensions (and SSSE3,
/// SSE4.1, PCLMULQDQ), `None` otherwise, and on any other architecture.
pub fn compress_pair() -> Option<CompressPair> {
    #[cfg(target_arch = "x86_64")]
    if x86::available() {
        return Some(x86::compress_pair);
    }
    None
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{Block, Lane, in_turn};
    use core::arch::x86_64::{
        __m128i, _mm_add_epi32, _mm_alignr_epi8, _mm_and_si128, _mm_blend_epi16, _mm_clmulepi64_si128,
        _mm_cvtsi32_si128, _mm_extract_epi32, _mm_set_epi32, _mm_set_epi64x, _mm_sha256msg1_epu32,
        _mm_sha256msg2_epu32, _mm_sha256rnds2_epu32, _mm_shuffle_epi8, _mm_shuffle_epi32, _mm_srli_si128,
        _mm_xor_si128,
    };
    use modelgate_core::digest::crc32_continue;

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

    /// True when this processor has every extension [`two_lanes`] is compiled for.
    pub fn available() -> bool {
        std::arch::is_x86_feature_detected!("sha")
            && std::arch::is_x86_feature_detected!("ssse3")
            && std::arch::is_x86_feature_detected!("sse4.1")
            && std::arch::is_x86_feature_detected!("pclmulqdq")
    }

    /// The [`super::CompressPair`] of the SHA extensions: both lanes side by side while
    /// both have blocks, then the rest of the longer one alone.
    pub fn compress_pair(lanes: &mut [Lane; 2], [a, b]: [&[Block]; 2]) {
        let both = a.len().min(b.len());
        let ((a_both, a_rest), (b_both, b_rest)) = (a.split_at(both), b.split_at(both));
        if available() {
            // SAFETY: `two_lanes` is compiled for the "sha", "ssse3", "sse4.1" and
            // "pclmulqdq" target features (SSE2 is x86-64's baseline), and `available` has
            // just checked that this processor has all four. It reads only its arguments.
            unsafe { two_lanes(lanes, [a_both, b_both]) };
        } else {
            in_turn(lanes, [a_both, b_both]);
        }
        in_turn(lanes, [a_rest, b_rest]);
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

    /// Bytes `16i` to `16i + 15` of `block` as they lie (little-endian lanes).
    #[target_feature(enable = "sha,ssse3,sse4.1")]
    fn vector(block: &Block, i: usize) -> __m128i {
        let at = |o: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&block[16 * i + o..16 * i + o + 8]);
            i64::from_le_bytes(b)
        };
        _mm_set_epi64x(at(8), at(0))
    }

    /// The block's four vectors ([`vector`]).
    #[target_feature(enable = "sha,ssse3,sse4.1")]
    fn vectors(block: &Block) -> [__m128i; 4] {
        [vector(block, 0), vector(block, 1), vector(block, 2), vector(block, 3)]
    }

    /// Message words `4i` to `4i + 3` from the block's vector `4i..4i + 4` (big-endian,
    /// FIPS 180-4 §6.2.2 step 1).
    #[target_feature(enable = "sha,ssse3,sse4.1")]
    fn words(v: __m128i) -> __m128i {
        let swap = _mm_set_epi64x(0x0c0d_0e0f_0809_0a0b, 0x0405_0607_0001_0203);
        _mm_shuffle_epi8(v, swap)
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

    /// One block of each chain, the rounds of the two interleaved, from the blocks'
    /// vectors ([`vectors`]).
    ///
    /// Not inlined into the loop over blocks: there, the compiler keeps the sixteen round
    /// constants in registers and spills the chains' message words instead, which made the
    /// loop about 4% slower than this call per block (`cli/benches/HISTORY.md`, "CRC-32
    /// folded into the lanes").
    #[target_feature(enable = "sha,ssse3,sse4.1")]
    #[inline(never)]
    fn block_pair(x: &mut Chain, y: &mut Chain, vx: &[__m128i; 4], vy: &[__m128i; 4]) {
        let (x0, y0) = (*x, *y);
        let (mut cx, mut cy) = (*x, *y);
        let mut wx = [words(vx[0]), words(vx[1]), words(vx[2]), words(vx[3])];
        let mut wy = [words(vy[0]), words(vy[1]), words(vy[2]), words(vy[3])];
        // Sixteen groups of four rounds, written out so that the message vectors stay in
        // registers (constant indices).
        macro_rules! group {
            ($($i:literal)*) => {$(
                if $i >= 4 {
                    wx[$i % 4] = next_words(wx[$i % 4], wx[($i + 1) % 4], wx[($i + 2) % 4], wx[($i + 3) % 4]);
                    wy[$i % 4] = next_words(wy[$i % 4], wy[($i + 1) % 4], wy[($i + 2) % 4], wy[($i + 3) % 4]);
                }
                let k = constants($i);
                cx = rounds(cx, _mm_add_epi32(wx[$i % 4], k));
                cy = rounds(cy, _mm_add_epi32(wy[$i % 4], k));
            )*};
        }
        group!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
        *x = Chain {
            abef: _mm_add_epi32(cx.abef, x0.abef),
            cdgh: _mm_add_epi32(cx.cdgh, x0.cdgh),
        };
        *y = Chain {
            abef: _mm_add_epi32(cy.abef, y0.abef),
            cdgh: _mm_add_epi32(cy.cdgh, y0.cdgh),
        };
    }

    /// Steps both lanes over `a[i]` and `b[i]` for each `i` (`a` and `b` have the same
    /// length), and folds each block into its lane's CRC-32 when both lanes want one (a
    /// lane alone that wants one continues its CRC-32 over its blocks afterwards).
    #[target_feature(enable = "sha,ssse3,sse4.1,pclmulqdq")]
    fn two_lanes(lanes: &mut [Lane; 2], [a, b]: [&[Block]; 2]) {
        let [la, lb] = lanes;
        let (mut x, mut y) = (load(&la.state), load(&lb.state));
        let mut blocks = a.iter().zip(b);
        if let (Some(ca), Some(cb)) = (la.crc32, lb.crc32)
            && let Some((ba, bb)) = blocks.next()
        {
            let (va, vb) = (vectors(ba), vectors(bb));
            let (mut fa, mut fb) = (Fold::start(ca, va), Fold::start(cb, vb));
            block_pair(&mut x, &mut y, &va, &vb);
            for (ba, bb) in blocks {
                let (va, vb) = (vectors(ba), vectors(bb));
                fa = fa.next(va);
                fb = fb.next(vb);
                block_pair(&mut x, &mut y, &va, &vb);
            }
            la.crc32 = Some(fa.finish());
            lb.crc32 = Some(fb.finish());
        } else {
            for (ba, bb) in blocks {
                block_pair(&mut x, &mut y, &vectors(ba), &vectors(bb));
            }
            for (lane, blocks) in [(&mut *la, a), (&mut *lb, b)] {
                lane.crc32 = lane.crc32.map(|crc| crc32_continue(crc, blocks.as_flattened()));
            }
        }
        store(x, &mut la.state);
        store(y, &mut lb.state);
    }

    /// A CRC-32 (ISO-HDLC, bit-reflected) being computed four 16-byte vectors at a time:
    /// the 512-bit remainder so far, kept unreduced in four vectors, each of which is
    /// multiplied forward by 512 bits (x⁵¹² mod P, carry-less) and added to the vector of
    /// the next block at its place ("folding", Intel's "Fast CRC Computation for Generic
    /// Polynomials Using PCLMULQDQ Instruction", 2009, bit-reflected form). [`Fold::finish`]
    /// reduces it to the 32-bit CRC.
    #[derive(Clone, Copy)]
    struct Fold([__m128i; 4]);

    /// The two multipliers of a 512-bit fold (low and high 64-bit halves of a vector).
    const FOLD_512: (i64, i64) = (0x1_5444_2bd4, 0x1_c6e4_1596);
    /// The two multipliers of a 128-bit fold.
    const FOLD_128: (i64, i64) = (0x1_7519_97d0, 0x0_ccaa_009e);
    /// The multiplier that folds 64 bits into 32.
    const FOLD_64: i64 = 0x1_63cd_6124;
    /// The polynomial P (x³² term included) and Barrett's μ = ⌊x⁶⁴ / P⌋, bit-reflected.
    const P: i64 = 0x1_db71_0641;
    const MU: i64 = 0x1_f701_1641;

    /// `a` multiplied forward by the fold whose multipliers are `k`, plus `b`.
    #[target_feature(enable = "sse4.1,pclmulqdq")]
    fn fold(a: __m128i, k: __m128i, b: __m128i) -> __m128i {
        let lo = _mm_clmulepi64_si128(a, k, 0x00);
        let hi = _mm_clmulepi64_si128(a, k, 0x11);
        _mm_xor_si128(_mm_xor_si128(lo, hi), b)
    }

    impl Fold {
        /// The first block of a string whose bytes so far have the CRC-32 `crc`: the
        /// register's initial value (the inverted CRC) is added to the block's first 32 bits.
        #[target_feature(enable = "sse4.1,pclmulqdq")]
        fn start(crc: u32, v: [__m128i; 4]) -> Fold {
            let [v0, v1, v2, v3] = v;
            let initial = _mm_cvtsi32_si128(i32::from_ne_bytes((!crc).to_ne_bytes()));
            Fold([_mm_xor_si128(v0, initial), v1, v2, v3])
        }

        /// The next block.
        #[target_feature(enable = "sse4.1,pclmulqdq")]
        fn next(self, v: [__m128i; 4]) -> Fold {
            let k = _mm_set_epi64x(FOLD_512.1, FOLD_512.0);
            let [f0, f1, f2, f3] = self.0;
            Fold([
                fold(f0, k, v[0]),
                fold(f1, k, v[1]),
                fold(f2, k, v[2]),
                fold(f3, k, v[3]),
            ])
        }

        /// The CRC-32 of the bytes folded so far, in its final form: the four vectors folded
        /// into one, that one reduced to 64 bits, then to 32, then Barrett's reduction.
        #[target_feature(enable = "sse4.1,pclmulqdq")]
        fn finish(self) -> u32 {
            let [f0, f1, f2, f3] = self.0;
            let k = _mm_set_epi64x(FOLD_128.1, FOLD_128.0);
            let x = fold(fold(fold(f0, k, f1), k, f2), k, f3);
            let low32 = _mm_set_epi32(0, 0, 0, -1);
            // 128 bits to 96: the low 64 bits times the 128-bit fold's second multiplier,
            // plus the high 64 bits.
            let x = _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x10), _mm_srli_si128(x, 8));
            // 96 bits to 64: the low 32 bits times the 64-bit fold's multiplier, plus the rest.
            let k64 = _mm_set_epi64x(0, FOLD_64);
            let x = _mm_xor_si128(
                _mm_clmulepi64_si128(_mm_and_si128(x, low32), k64, 0x00),
                _mm_srli_si128(x, 4),
            );
            // Barrett: T1 = (R mod x³²)·μ, T2 = (T1 mod x³²)·P, CRC = (R + T2) / x³².
            let pmu = _mm_set_epi64x(MU, P);
            let t1 = _mm_clmulepi64_si128(_mm_and_si128(x, low32), pmu, 0x10);
            let t2 = _mm_clmulepi64_si128(_mm_and_si128(t1, low32), pmu, 0x00);
            let c = _mm_extract_epi32(_mm_xor_si128(x, t2), 1);
            !u32::from_ne_bytes(c.to_ne_bytes())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::threads::Threads;
    use modelgate_core::digest::lanes::{PairDigest, sha256_pair};
    use modelgate_core::digest::{crc32, sha256};
    use modelgate_core::join::Join;

    fn blocks(n: usize, seed: u64) -> Vec<Block> {
        Rng(seed).bytes(64 * n).as_chunks::<64>().0.to_vec()
    }

    /// What [`sha256_pair`] must give for `s` with its CRC-32.
    fn want(s: &[u8]) -> PairDigest {
        PairDigest {
            sha256: sha256(s),
            crc32: Some(crc32(s)),
        }
    }

    /// Both lanes compressed by `pair` from `start`.
    fn compressed(pair: CompressPair, start: [Lane; 2], a: &[Block], b: &[Block]) -> [Lane; 2] {
        let mut lanes = start;
        pair(&mut lanes, [a, b]);
        lanes
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
                for crcs in [
                    [None, None],
                    [Some(0), Some(0)],
                    [Some(na as u32), None],
                    [None, Some(!0)],
                ] {
                    let start = [
                        Lane {
                            state: [na as u32; 8],
                            crc32: crcs[0],
                        },
                        Lane {
                            state: core::array::from_fn(|i| (i * nb) as u32),
                            crc32: crcs[1],
                        },
                    ];
                    let got = compressed(lanes, start, &a, &b);
                    assert_eq!(got, compressed(in_turn, start, &a, &b), "{na} {nb} {crcs:?}");
                }
            }
        }
    }

    /// The digests through the lanes are SHA-256's and CRC-32's, across chunk ends and
    /// uneven lengths; without the CRC-32s asked for, the SHA-256s alone.
    #[test]
    fn sha256_pair_on_the_lanes_is_sha256_and_crc32() {
        let Some(lanes) = compress_pair() else {
            return;
        };
        let data = blocks(3000, 7).concat();
        for (la, lb) in [(0, 0), (1, 64), (65_536, 65_536), (131_137, 70_000), (191_999, 192_000)] {
            let (a, b) = (&data[..la], &data[data.len() - lb..]);
            assert_eq!(sha256_pair(a, b, lanes, true), [want(a), want(b)], "{la} {lb}");
            let alone = sha256_pair(a, b, lanes, false);
            assert_eq!(
                alone.map(|d| (d.sha256, d.crc32)),
                [(sha256(a), None), (sha256(b), None)]
            );
        }
    }

    /// The folded CRC-32 is the ISO-HDLC CRC-32 of the standard check string repeated to
    /// whole blocks, of all-zero and all-one blocks, and of one block after every
    /// single-bit starting value.
    #[test]
    fn the_folded_crc32_is_iso_hdlc() {
        let Some(lanes) = compress_pair() else {
            return;
        };
        let check: Vec<u8> = b"123456789".iter().copied().cycle().take(64 * 5).collect();
        for data in [check, vec![0u8; 64 * 3], vec![0xff; 64 * 2]] {
            let (b, _) = data.as_chunks::<64>();
            let start = Lane {
                state: [0; 8],
                crc32: Some(0),
            };
            let [x, y] = compressed(lanes, [start; 2], b, b);
            assert_eq!([x.crc32, y.crc32], [Some(crc32(&data)); 2]);
        }
        let block = blocks(1, 5);
        for bit in 0..32 {
            let start = Lane {
                state: [0; 8],
                crc32: Some(1 << bit),
            };
            let [x, _] = compressed(lanes, [start; 2], &block, &block);
            let want = modelgate_core::digest::crc32_continue(1 << bit, block.as_flattened());
            assert_eq!(x.crc32, Some(want), "{bit}");
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

    /// The SHA-256 and CRC-32 of `a` and `b` through the processor's lanes, as the readers
    /// take them (`Threads::sha256_pair`).
    fn on_the_lanes(lanes: CompressPair, a: &[u8], b: &[u8]) -> [PairDigest; 2] {
        sha256_pair(a, b, lanes, true)
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
            assert_eq!(on_the_lanes(lanes, a, b), [want(a), want(b)], "{la} {lb}");
            assert_eq!(on_the_lanes(lanes, b, a), [want(b), want(a)], "{lb} {la}");
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
                assert_eq!(on_the_lanes(lanes, a, b), [want(a), want(b)], "{la} {lb}");
            }
        }
        // Lengths one block (and one block and a byte) apart.
        for la in 0..200 {
            for d in [63, 64, 65] {
                let (a, b) = (&data[1..1 + la], &data[3..3 + la + d]);
                assert_eq!(on_the_lanes(lanes, a, b), [want(a), want(b)], "{la} +{d}");
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
            assert_eq!(on_the_lanes(lanes, a, b), [want(a), want(b)], "{la} {lb}");
            assert_eq!(on_the_lanes(lanes, b, a), [want(b), want(a)], "{lb} {la}");
        }
        for _ in 0..2 {
            let (la, lb) = (rng.below(300 << 10), rng.below(300 << 10));
            let (a, b) = (&big[3..3 + la], &big[11..11 + lb]);
            assert_eq!(on_the_lanes(lanes, a, b), [want(a), want(b)], "{la} {lb}");
        }
    }

    /// The lanes' compression alone, from random states and CRC-32s over random block
    /// counts up to 40 (each lane's blocks from a misaligned sub-slice), is `compress256`'s
    /// and crc32fast's in turn.
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
            let start: [Lane; 2] = core::array::from_fn(|_| Lane {
                state: core::array::from_fn(|_| rng.next() as u32),
                crc32: Some(rng.next() as u32),
            });
            let got = compressed(lanes, start, a, b);
            assert_eq!(got, compressed(in_turn, start, a, b), "{na} {nb}");
        }
    }
}
