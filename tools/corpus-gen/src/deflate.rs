//! `hostile-corpus/deflate/`: the `.deflate` test frame of `spec/inflate.md` §6, one file
//! per rule of §2 (the engine) and §6 (the frame), each named for the rule and carrying
//! the exact outcome (`valid`, or the reason and absolute byte offset) that the tests
//! below assert through `modelgate_core::inflate::check_frame`.
//!
//! Also home of the hand-assembled deflate streams (stored, fixed and dynamic blocks,
//! valid or not, RFC 1951) that `gzip.rs` reuses.

use crate::{CorpusFile, Expect, Kind};
use Expect::{Reject, Valid};
pub use modelgate_core::digest::crc32;
use modelgate_core::inflate::{FrameError, InflateReason, InflateReason as R, check_frame, deflate, write_frame};

/// Largest declared size `modelgate check` accepts for a frame (256 MiB).
pub const LIMIT: u64 = 256 * 1024 * 1024;

/// Length of the frame header (`spec/inflate.md` §6.1); engine offsets move by it (§6.3).
const H: u64 = 12;

/// The outcome the library gives for `bytes` as `modelgate check` checks a `.deflate` file.
pub fn outcome(bytes: &[u8]) -> Expect<InflateReason> {
    match check_frame(bytes, LIMIT) {
        Ok(_) => Valid,
        Err(e) => Reject(e.reason, e.offset),
    }
}

// ------------------------------------------------------------ shared stream builders

/// The writer's stream for `data` (`spec/inflate.md` §4).
pub fn written(data: &[u8]) -> Vec<u8> {
    deflate(data, usize::MAX).expect("the writer has no bound here")
}

/// Bit writer, least significant bit first (RFC 1951 §3.1.1).
#[derive(Default)]
pub struct Bits {
    out: Vec<u8>,
    acc: u64,
    n: u32,
}

impl Bits {
    /// The low `count` bits of `value` (header fields and extra bits).
    pub fn put(&mut self, value: u32, count: u32) {
        assert!(count <= 32);
        self.acc |= (u64::from(value) & ((1u64 << count) - 1)) << self.n;
        self.n += count;
        while self.n >= 8 {
            self.out.push(self.acc.to_le_bytes()[0]);
            self.acc >>= 8;
            self.n -= 8;
        }
    }

    /// A Huffman code of `len` bits, most significant bit first (RFC 1951 §3.1.1).
    pub fn code(&mut self, (code, len): (u32, u32)) {
        if len > 0 {
            self.put(code.reverse_bits() >> (32 - len), len);
        }
    }

    /// Zero bits up to the next byte boundary.
    pub fn align(&mut self) {
        if self.n > 0 {
            self.put(0, 8 - self.n);
        }
    }

    /// Bits written so far.
    pub fn len(&self) -> u64 {
        self.out.len() as u64 * 8 + u64::from(self.n)
    }

    /// True when nothing was written.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes needed to hold the bits written so far: the shortest prefix that holds them.
    pub fn bytes_so_far(&self) -> u64 {
        self.len().div_ceil(8)
    }

    /// The bytes, padded with zero bits to a byte boundary.
    pub fn finish(mut self) -> Vec<u8> {
        self.align();
        self.out
    }
}

/// A canonical Huffman code: (code, length) per symbol, length 0 for unused symbols.
#[derive(Clone, Default)]
pub struct Code(Vec<(u32, u32)>);

impl Code {
    /// The canonical code for these code lengths (RFC 1951 §3.2.2), whether or not the
    /// lengths form a valid code.
    pub fn canonical(lengths: &[u8]) -> Code {
        let mut count = [0u32; 16];
        for &l in lengths {
            count[usize::from(l)] += 1;
        }
        count[0] = 0;
        let mut next = [0u32; 16];
        let mut code = 0u32;
        for bits in 1..16 {
            code = (code + count[bits - 1]) << 1;
            next[bits] = code;
        }
        Code(
            lengths
                .iter()
                .map(|&l| {
                    if l == 0 {
                        return (0, 0);
                    }
                    let c = next[usize::from(l)];
                    next[usize::from(l)] += 1;
                    (c, u32::from(l))
                })
                .collect(),
        )
    }

    /// The fixed literal/length code, symbols 0 to 287 (RFC 1951 §3.2.6).
    pub fn fixed_litlen() -> Code {
        let lengths: Vec<u8> = (0..288)
            .map(|s| match s {
                0..=143 => 8,
                144..=255 => 9,
                256..=279 => 7,
                _ => 8,
            })
            .collect();
        Code::canonical(&lengths)
    }

    /// The fixed distance code, symbols 0 to 31 (RFC 1951 §3.2.6).
    pub fn fixed_dist() -> Code {
        Code::canonical(&[5; 32])
    }

    fn get(&self, symbol: usize) -> (u32, u32) {
        let c = self.0[symbol];
        assert!(c.1 > 0, "symbol {symbol} has no code");
        c
    }
}

/// Length symbol, extra-bit count and extra value for a match length 3..=258 (RFC 1951 §3.2.5).
fn length_symbol(len: u16) -> (usize, u32, u32) {
    assert!((3..=258).contains(&len));
    if len == 258 {
        return (285, 0, 0);
    }
    let mut base = 3u16;
    for i in 0..28usize {
        let extra = if i < 8 { 0 } else { (i as u32 - 4) / 4 };
        let next = base + (1 << extra);
        if len < next {
            return (257 + i, extra, u32::from(len - base));
        }
        base = next;
    }
    unreachable!("lengths 3..=257 are covered by symbols 257..=284")
}

/// Distance symbol, extra-bit count and extra value for a distance 1..=32768 (RFC 1951 §3.2.5).
pub fn distance_symbol(dist: u16) -> (usize, u32, u32) {
    assert!((1..=32768).contains(&dist));
    let mut base = 1u32;
    for i in 0..30usize {
        let extra = if i < 4 { 0 } else { i as u32 / 2 - 1 };
        let next = base + (1 << extra);
        if u32::from(dist) < next {
            return (i, extra, u32::from(dist) - base);
        }
        base = next;
    }
    unreachable!("distances 1..=32768 are covered by symbols 0..=29")
}

/// Order in which the code-length code lengths are written (RFC 1951 §3.2.7).
const CL_ORDER: [usize; 19] = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

/// A hand-assembled raw deflate stream with the output it should decode to.
#[derive(Default)]
pub struct Stream {
    /// The bits written so far.
    pub bits: Bits,
    /// The output a correct decoder produces (not tracked when `untracked`).
    pub out: Vec<u8>,
    /// Output length, tracked even when the bytes are not.
    pub out_len: u64,
    untracked: bool,
    lit: Code,
    dist: Code,
}

impl Stream {
    /// A stream whose expected output is recorded.
    pub fn new() -> Self {
        Stream::default()
    }

    /// A stream that records only the output length (for outputs too large to hold).
    pub fn untracked() -> Self {
        Stream {
            untracked: true,
            ..Stream::default()
        }
    }

    /// BFINAL and BTYPE.
    pub fn block_header(&mut self, last: bool, btype: u32) {
        self.bits.put(u32::from(last), 1);
        self.bits.put(btype, 2);
    }

    /// A stored block of `data`, at most 65535 bytes (RFC 1951 §3.2.4).
    pub fn stored(&mut self, last: bool, data: &[u8]) {
        let len = u16::try_from(data.len()).expect("stored block of at most 65535 bytes");
        self.stored_raw(last, len, !len, data);
    }

    /// A stored block with the given LEN and NLEN, valid or not, then `data`.
    pub fn stored_raw(&mut self, last: bool, len: u16, nlen: u16, data: &[u8]) {
        self.block_header(last, 0);
        self.bits.align();
        self.bits.put(u32::from(len), 16);
        self.bits.put(u32::from(nlen), 16);
        for &b in data {
            self.bits.put(u32::from(b), 8);
        }
        self.record(data);
    }

    /// Starts a fixed-Huffman block (RFC 1951 §3.2.6).
    pub fn fixed(&mut self, last: bool) {
        self.block_header(last, 1);
        self.lit = Code::fixed_litlen();
        self.dist = Code::fixed_dist();
    }

    /// Starts a dynamic-Huffman block with these code lengths, written with a valid
    /// code-length code (symbols 0 to 15, 4 bits each) and no repeat codes.
    pub fn dynamic(&mut self, last: bool, lit_lengths: &[u8], dist_lengths: &[u8]) {
        let mut cl = [0u8; 19];
        cl[..16].fill(4);
        let items: Vec<(usize, u32)> = lit_lengths
            .iter()
            .chain(dist_lengths)
            .map(|&l| (usize::from(l), 0))
            .collect();
        self.dynamic_raw(last, lit_lengths.len(), dist_lengths.len(), &cl, 19, &items);
        self.lit = Code::canonical(lit_lengths);
        self.dist = Code::canonical(dist_lengths);
    }

    /// A dynamic block header field by field, valid or not (RFC 1951 §3.2.7): `hlit`
    /// literal/length and `hdist` distance code lengths declared, the code-length code
    /// lengths `cl` (by symbol) of which the first `hclen` in `CL_ORDER` are written,
    /// then `items`, each a code-length symbol and its extra bits (16: 2, 17: 3, 18: 7).
    pub fn dynamic_raw(
        &mut self,
        last: bool,
        hlit: usize,
        hdist: usize,
        cl: &[u8; 19],
        hclen: usize,
        items: &[(usize, u32)],
    ) {
        self.block_header(last, 2);
        self.bits.put(u32::try_from(hlit - 257).expect("small"), 5);
        self.bits.put(u32::try_from(hdist - 1).expect("small"), 5);
        self.bits.put(u32::try_from(hclen - 4).expect("small"), 4);
        for &s in &CL_ORDER[..hclen] {
            self.bits.put(u32::from(cl[s]), 3);
        }
        let code = Code::canonical(cl);
        for &(symbol, extra) in items {
            self.bits.code(code.get(symbol));
            match symbol {
                16 => self.bits.put(extra, 2),
                17 => self.bits.put(extra, 3),
                18 => self.bits.put(extra, 7),
                _ => {}
            }
        }
    }

    /// A literal/length symbol of the current block's code, without its meaning.
    pub fn symbol(&mut self, symbol: usize) {
        let c = self.lit.get(symbol);
        self.bits.code(c);
    }

    /// A literal byte.
    pub fn literal(&mut self, b: u8) {
        self.symbol(usize::from(b));
        self.record(&[b]);
    }

    /// A match: `len` bytes copied from `dist` bytes back.
    pub fn copy(&mut self, len: u16, dist: u16) {
        let (ls, lx, lv) = length_symbol(len);
        self.symbol(ls);
        self.bits.put(lv, lx);
        let (ds, dx, dv) = distance_symbol(dist);
        let c = self.dist.get(ds);
        self.bits.code(c);
        self.bits.put(dv, dx);
        if self.untracked {
            self.out_len += u64::from(len);
        } else {
            for _ in 0..len {
                let from = self.out.len().checked_sub(usize::from(dist));
                let b = from.map_or(0, |i| self.out[i]);
                self.out.push(b);
            }
            self.out_len = self.out.len() as u64;
        }
    }

    /// End of block, symbol 256.
    pub fn end_block(&mut self) {
        self.symbol(256);
    }

    /// The stream bytes (padded to a byte boundary).
    pub fn finish(self) -> Vec<u8> {
        self.bits.finish()
    }

    fn record(&mut self, data: &[u8]) {
        if !self.untracked {
            self.out.extend_from_slice(data);
        }
        self.out_len += data.len() as u64;
    }
}

/// One fixed block of `head`, `unit` `count` times, then `tail`: the first unit as
/// literals, the rest as copies from one unit back, so a large periodic member (a hostile
/// corpus file of millions of JSON elements) stays a few kilobytes per megabyte. The
/// writer's run-length strategy only finds runs of one byte.
pub fn periodic(head: &[u8], unit: &[u8], count: usize, tail: &[u8]) -> Stream {
    assert!((3..=32_768).contains(&unit.len()), "a unit a copy can repeat");
    let mut s = Stream::new();
    s.fixed(true);
    let first = if count > 0 { unit } else { &[] };
    head.iter().chain(first).for_each(|&b| s.literal(b));
    let dist = unit.len() as u16;
    let mut left = unit.len() * count.saturating_sub(1);
    while left > 0 {
        // Copies are 3 to 258 bytes long, and `left` is at least 3: never leave 1 or 2.
        let n = match left {
            0..=258 => left,
            259..=260 => 255,
            _ => 258,
        };
        s.copy(n as u16, dist);
        left -= n;
    }
    tail.iter().for_each(|&b| s.literal(b));
    s.end_block();
    s
}

/// A frame (`spec/inflate.md` §6.1) with this declared size and CRC-32 around `stream`.
pub fn frame(declared: u64, crc: u32, stream: &[u8]) -> Vec<u8> {
    let mut out = declared.to_le_bytes().to_vec();
    out.extend_from_slice(&crc.to_le_bytes());
    out.extend_from_slice(stream);
    out
}

/// A frame declaring exactly the output of the hand-assembled stream `s`.
fn framed(s: Stream) -> Vec<u8> {
    let (len, crc) = (s.out.len() as u64, crc32(&s.out));
    frame(len, crc, &s.finish())
}

/// The writer's frame for `data` with `edit` applied to the whole file.
fn edited(data: &[u8], edit: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut f = write_frame(data).expect("writer");
    edit(&mut f);
    f
}

/// Text that the writer compresses with fixed Huffman codes (asserted in the tests).
pub const SHORT: &[u8] = b"hello, modelgate";

/// Text that the writer compresses with dynamic Huffman codes (asserted in the tests).
pub fn long_text() -> Vec<u8> {
    let mut s = Vec::new();
    for i in 0..40u32 {
        s.extend_from_slice(format!("tensor {i:03}: weights aaaa bbbbbbbb {}\n", i * 7919 % 1000).as_bytes());
    }
    s
}

/// A stream of stored, fixed and dynamic blocks (RFC 1951 §3.2.3: blocks follow each
/// other with no alignment except a stored block's).
pub fn multi_block() -> Stream {
    let mut s = Stream::new();
    s.stored(false, b"stored block; ");
    s.fixed(false);
    for &b in b"fixed " {
        s.literal(b);
    }
    s.copy(12, 20);
    s.end_block();
    s.stored(false, b"");
    let mut lit = [0u8; 257];
    for b in *b"dynamic " {
        lit[usize::from(b)] = 4;
    }
    // A complete literal/length code: 8 literals of 4 bits, the end of block and
    // length 5 (symbol 259) of 3 bits, length 6 (symbol 260) of 2 bits. One distance
    // symbol of one bit: an incomplete code RFC 1951 §3.2.7 allows.
    let mut lit = lit.to_vec();
    lit.resize(261, 0);
    lit[256] = 3;
    lit[259] = 3;
    lit[260] = 2;
    s.dynamic(true, &lit, &[1]);
    for &b in b"dynamic " {
        s.literal(b);
    }
    s.copy(5, 1);
    s.copy(6, 1);
    s.end_block();
    s
}

/// Output over 128 KiB, so the 64 KiB ring wraps twice, with matches of every reach up
/// to the maximum distance 32768, several crossing the ring's wrap point.
pub fn ring_wrap() -> Stream {
    let mut s = Stream::new();
    s.fixed(true);
    for b in crate::rng::pseudorandom(1500, 0x5eed) {
        s.literal(b);
    }
    let dists = [1u16, 1500, 32768, 3001, 12345, 258, 32767, 65];
    let lens = [258u16, 3, 100, 258, 17, 258, 4, 200, 258];
    let mut i = 0usize;
    while s.out.len() < 140_000 {
        let dist = dists[i % dists.len()].min(u16::try_from(s.out.len()).unwrap_or(u16::MAX));
        s.copy(lens[i % lens.len()], dist);
        if i.is_multiple_of(11) {
            s.literal(u8::try_from(i % 251).unwrap_or(0));
        }
        i += 1;
    }
    s.end_block();
    s
}

/// A fixed block: `prefix` literals, then a match of (`len`, `dist`), then the end.
fn fixed_copy(prefix: &[u8], len: u16, dist: u16) -> Stream {
    let mut s = Stream::new();
    s.fixed(true);
    for &b in prefix {
        s.literal(b);
    }
    s.copy(len, dist);
    s.end_block();
    s
}

/// A frame declaring an empty output around a dynamic block header with `cl` as the
/// code-length code and `items` as the code lengths, then four zero bytes so that a
/// failure in the header is not a truncation; for headers that must fail.
fn bad_dynamic(hlit: usize, hdist: usize, cl: &[u8; 19], hclen: usize, items: &[(usize, u32)]) -> Vec<u8> {
    let mut s = Stream::new();
    s.dynamic_raw(true, hlit, hdist, cl, hclen, items);
    let mut stream = s.finish();
    stream.extend_from_slice(&[0; 4]);
    frame(0, 0, &stream)
}

/// The code-length code of `Stream::dynamic` (symbols 0 to 15, 4 bits each).
fn cl4() -> [u8; 19] {
    let mut cl = [0u8; 19];
    cl[..16].fill(4);
    cl
}

/// Code-length items for plain lengths.
fn plain(lengths: &[u8]) -> Vec<(usize, u32)> {
    lengths.iter().map(|&l| (usize::from(l), 0)).collect()
}

/// Bytes through the last code length of a dynamic header written with `cl4()` and
/// 258 lengths: 17 bits of sizes, 19 × 3 bits of code-length code, 258 × 4 bits.
const LENGTHS_258_END: u64 = (17 + 19 * 3 + 258 * 4_u64).div_ceil(8);

/// A complete code-length code with the repeat symbols: 0 to 12 and 16 to 18, 4 bits each.
fn cl_repeat() -> [u8; 19] {
    let mut cl = [0u8; 19];
    cl[..13].fill(4);
    cl[16..].fill(4);
    cl
}

/// A fixed block: the literal `a`, then a length-3 match whose distance symbol is `symbol`.
fn fixed_dist_symbol(symbol: u32) -> Vec<u8> {
    let mut s = Stream::new();
    s.fixed(true);
    s.literal(b'a');
    s.symbol(257);
    s.bits.put(symbol.reverse_bits() >> 27, 5);
    s.bits.put(0, 16);
    s.finish()
}

/// The writer's frame for `SHORT` ends here (a fixed block, asserted in the tests).
fn short_end() -> u64 {
    write_frame(SHORT).expect("writer").len() as u64
}

/// One stored block of `data`.
fn stored_block(last: bool, data: &[u8]) -> Vec<u8> {
    let mut s = Stream::new();
    s.stored(last, data);
    s.finish()
}

/// A fixed block holding the one literal/length symbol `symbol`, then zero bits.
fn fixed_symbol(symbol: usize) -> Vec<u8> {
    let mut s = Stream::new();
    s.fixed(true);
    s.symbol(symbol);
    s.bits.put(0, 16);
    s.finish()
}

cases! {
    expect: Expect<InflateReason>;
    ext: "deflate";
    check: |case| assert_eq!(outcome(&case.bytes), case.expect);
    // §2.1 empty streams in each block type; padding bits after the final block.
    empty_fixed_block: write_frame(b"").expect("writer") => Valid;
    empty_stored_block: frame(0, 0, &stored_block(true, b"")) => Valid;
    empty_dynamic_block_one_bit_end_code: {
        let mut s = Stream::new();
        let mut lit = vec![0u8; 257];
        lit[256] = 1;
        s.dynamic(true, &lit, &[0]);
        s.end_block();
        framed(s)
    } => Valid;
    padding_bits_after_final_block_ignored: frame(0, 0, &[0x03, 0xfc]) => Valid;
    // §2.5, §3.1 exact size, each block type; several blocks; §2.7 ring wrap.
    stored_exact_size: frame(SHORT.len() as u64, crc32(SHORT), &stored_block(true, SHORT)) => Valid;
    fixed_exact_size: write_frame(SHORT).expect("writer") => Valid;
    dynamic_exact_size: write_frame(&long_text()).expect("writer") => Valid;
    blocks_stored_fixed_dynamic: framed(multi_block()) => Valid;
    ring_wrap_long_distances: framed(ring_wrap()) => Valid;
    // §2.2 the edges of what is allowed: a distance reaching the first byte; a
    // distance code of one one-bit symbol (incomplete, allowed).
    distance_reaching_first_byte: framed(fixed_copy(b"ab", 10, 2)) => Valid;
    distance_code_one_symbol_one_bit: {
        let mut s = Stream::new();
        let mut lit = vec![0u8; 258];
        lit[usize::from(b'q')] = 1;
        lit[256] = 2;
        lit[257] = 2;
        s.dynamic(true, &lit, &[1]);
        s.literal(b'q');
        s.copy(3, 1);
        s.end_block();
        framed(s)
    } => Valid;

    // §6.2 frame header.
    empty_file: b"".as_slice() => Reject(R::Truncated, 0);
    shorter_than_header: write_frame(b"").expect("writer")[..11].to_vec() => Reject(R::Truncated, 11);
    header_without_stream: frame(0, 0, b"") => Reject(R::Truncated, H);
    declared_size_over_limit: frame(LIMIT + 1, 0, &written(b"")) => Reject(R::DeclaredTooLarge, 0);
    declared_size_u64_max: frame(u64::MAX, 0, &written(b"")) => Reject(R::DeclaredTooLarge, 0);
    declared_size_at_limit_too_short: frame(LIMIT, 0, &written(b"")) => Reject(R::TooShort, H + 2);
    // §2.2 corrupt data.
    // Offsets (§2.8): through the byte holding the bit at which decoding failed.
    reserved_block_type_3: frame(0, 0, &[0x07, 0xff, 0xff, 0xff, 0xff]) => Reject(R::Corrupt, H + 1);
    // Block header byte, LEN and NLEN: fails in the fifth byte.
    stored_nlen_not_complement: {
        let mut s = Stream::new();
        s.stored_raw(true, 5, !5 ^ 0x0100, b"hello");
        frame(5, crc32(b"hello"), &s.finish())
    } => Reject(R::Corrupt, H + 5);
    // 3 header bits, a 7-bit length code and a 5-bit distance code end in the second byte.
    distance_before_start: frame(0, 0, &fixed_copy(b"", 3, 1).finish()) => Reject(R::Corrupt, H + 2);
    // Two literals, then 7 + 1 + 5 bits of match: 32 bits.
    distance_one_past_first_byte: frame(13, 0, &fixed_copy(b"ab", 11, 3).finish()) => Reject(R::Corrupt, H + 4);
    // 3 header bits and an 8-bit code end in the second byte.
    fixed_litlen_symbol_286: frame(0, 0, &fixed_symbol(286)) => Reject(R::Corrupt, H + 2);
    fixed_litlen_symbol_287: frame(0, 0, &fixed_symbol(287)) => Reject(R::Corrupt, H + 2);
    // 3 + 8 + 7 + 5 bits: the distance code ends in the third byte.
    fixed_distance_symbol_30: frame(4, 0, &fixed_dist_symbol(30)) => Reject(R::Corrupt, H + 3);
    fixed_distance_symbol_31: frame(4, 0, &fixed_dist_symbol(31)) => Reject(R::Corrupt, H + 3);
    // §2.2 dynamic headers: table sizes, code-length code, the codes, repeats.
    // HLIT, HDIST and HCLEN end at bit 17, in the third byte.
    dynamic_287_litlen_codes: bad_dynamic(287, 1, &cl4(), 19, &[]) => Reject(R::Corrupt, H + 3);
    dynamic_31_distance_codes: bad_dynamic(257, 31, &cl4(), 19, &[]) => Reject(R::Corrupt, H + 3);
    // Fail once the code-length code lengths are read: 17 + 19 × 3 = 74 bits, or 71 for 18.
    code_length_code_oversubscribed: {
        let mut cl = [0u8; 19];
        cl[..3].fill(1);
        bad_dynamic(257, 1, &cl, 19, &[])
    } => Reject(R::Corrupt, H + 10);
    code_length_code_incomplete: {
        let mut cl = cl4();
        cl[15] = 0;
        bad_dynamic(257, 1, &cl, 18, &[])
    } => Reject(R::Corrupt, H + 9);
    // 257 codes of 8 bits: one more than 8 bits can number.
    litlen_code_oversubscribed: {
        let mut lengths = vec![8u8; 257];
        lengths.push(1);
        bad_dynamic(257, 1, &cl4(), 19, &plain(&lengths))
    } => Reject(R::Corrupt, H + LENGTHS_258_END);
    litlen_code_incomplete: {
        let mut lit = vec![0u8; 257];
        lit[usize::from(b'a')] = 2;
        lit[256] = 2;
        lit.push(1);
        bad_dynamic(257, 1, &cl4(), 19, &plain(&lit))
    } => Reject(R::Corrupt, H + LENGTHS_258_END);
    // Symbol 256 has no code, so the block can never end. zlib rejects it at its header
    // ("invalid code -- missing end-of-block"); the engine decodes on, as miniz_oxide does
    // (§2.2): the first literal, a zero bit in the header's last byte, is the byte past
    // the declared size 0.
    litlen_code_without_end_of_block: {
        let mut lit = vec![0u8; 257];
        lit[usize::from(b'a')] = 1;
        lit[usize::from(b'b')] = 1;
        lit.push(1);
        bad_dynamic(257, 1, &cl4(), 19, &plain(&lit))
    } => Reject(R::TooLong, H + LENGTHS_258_END);
    distance_code_one_symbol_two_bits: {
        let mut lit = vec![0u8; 257];
        lit[usize::from(b'a')] = 1;
        lit[256] = 1;
        lit.push(2);
        bad_dynamic(257, 1, &cl4(), 19, &plain(&lit))
    } => Reject(R::Corrupt, H + LENGTHS_258_END);
    // Fails at the 4-bit code of symbol 16, bits 74 to 77.
    repeat_16_without_previous_length: bad_dynamic(257, 1, &cl_repeat(), 19, &[(16, 3)])
        => Reject(R::Corrupt, H + 10);
    // Two runs of 138 zeros for 258 lengths; fails after the second run's 7 extra bits,
    // 74 + 2 × 11 = 96 bits.
    code_lengths_past_hlit_hdist: bad_dynamic(257, 1, &cl_repeat(), 19, &[(18, 127), (18, 127)])
        => Reject(R::Corrupt, H + 12);
    // §2.4 truncation.
    truncated_last_byte: edited(&long_text(), |f| { f.pop(); })
        => Reject(R::Truncated, H + written(&long_text()).len() as u64 - 1);
    truncated_inside_dynamic_header: edited(&long_text(), |f| f.truncate(12 + 10)) => Reject(R::Truncated, H + 10);
    truncated_inside_stored_data: frame(5, crc32(b"hello"), &stored_block(true, b"hello")[..8])
        => Reject(R::Truncated, H + 8);
    non_final_block_then_end: frame(3, crc32(b"abc"), &stored_block(false, b"abc")) => Reject(R::Truncated, H + 8);
    // §2.3 nothing after the stream.
    trailing_zero_byte: edited(SHORT, |f| f.push(0)) => Reject(R::TrailingData, short_end());
    second_stream_after_end: edited(SHORT, |f| f.extend_from_slice(&written(b"")))
        => Reject(R::TrailingData, short_end());
    // §2.5 exact size with the lookahead byte.
    // The fifth data byte, after 5 bytes of block header, is the excess byte.
    too_long_by_one_stored: frame(4, crc32(b"hell"), &stored_block(true, b"hello")) => Reject(R::TooLong, H + 10);
    // 3 + 8 + 7 + 5 bits: the match producing the sixth byte ends in the third byte.
    too_long_by_one_match: frame(5, crc32(b"aaaaa"), &fixed_copy(b"a", 5, 1).finish()) => Reject(R::TooLong, H + 3);
    // The writer's first literal (8 bits after 3 header bits) ends in the second byte.
    declared_zero_with_output: edited(SHORT, |f| f[..8].fill(0)) => Reject(R::TooLong, H + 2);
    // The stored block reaches the size exactly; the next block's first literal is the
    // excess byte (3 + 8 bits into the byte after the stored block).
    too_long_in_next_block: {
        let mut s = Stream::new();
        s.stored(false, b"hello");
        s.fixed(true);
        s.literal(b'x');
        s.end_block();
        frame(5, crc32(b"hello"), &s.finish())
    } => Reject(R::TooLong, H + 10 + 2);
    // After the size is reached, the next block header is still checked.
    corrupt_block_after_exact_size: {
        let mut s = Stream::new();
        s.stored(false, b"hello");
        s.block_header(true, 3);
        frame(5, crc32(b"hello"), &s.finish())
    } => Reject(R::Corrupt, H + 11);
    exact_size_reached_inside_match: framed(fixed_copy(b"a", 257, 1)) => Valid;
    too_long_before_truncation: frame(4, 0, &stored_block(false, b"hello")) => Reject(R::TooLong, H + 10);
    too_short_by_one: edited(SHORT, |f| f[0] += 1) => Reject(R::TooShort, short_end());
    // §2.6 CRC-32, checked last.
    crc_mismatch: edited(SHORT, |f| f[8] ^= 1)
        => Reject(R::CrcMismatch { expected: crc32(SHORT) ^ 1, actual: crc32(SHORT) }, short_end());
    trailing_data_checked_before_crc: edited(SHORT, |f| { f[8] ^= 1; f.push(0); })
        => Reject(R::TrailingData, short_end());
    too_short_checked_before_crc: edited(SHORT, |f| { f[0] += 1; f[8] ^= 1; })
        => Reject(R::TooShort, short_end());
}

/// The corpus files of this module.
pub fn files() -> Vec<CorpusFile> {
    cases().iter().map(|c| c.file("deflate")).collect()
}

impl Kind for InflateReason {
    fn kind(self, offset: u64) -> &'static str {
        FrameError { reason: self, offset }.kind()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use modelgate_core::inflate::{InflateError, Inflater, OutputBound};

    #[test]
    fn at_least_twenty_cases_with_distinct_names() {
        crate::assert_enough_distinct(cases().iter().map(|c| c.name), 20);
    }

    #[test]
    fn files_are_small() {
        for f in files() {
            assert!(f.bytes.len() < 64 * 1024, "{} {}", f.path, f.bytes.len());
        }
    }

    /// BTYPE of the first block of a frame's stream.
    fn first_block_type(frame: &[u8]) -> u8 {
        (frame[12] >> 1) & 3
    }

    #[test]
    fn writer_cases_use_the_block_types_their_names_say() {
        assert_eq!(first_block_type(&write_frame(b"").expect("writer")), 1);
        assert_eq!(first_block_type(&write_frame(SHORT).expect("writer")), 1);
        assert_eq!(first_block_type(&write_frame(&long_text()).expect("writer")), 2);
    }

    #[test]
    fn ring_wrap_output_passes_two_rings_with_maximal_distances() {
        let s = ring_wrap();
        assert!(s.out.len() > 2 * 65_536);
        let (stream, out) = (s.bits.len(), s.out.clone());
        assert!(stream < 64 * 1024 * 8);
        let mut produced = Vec::new();
        modelgate_core::inflate::inflate_exact(&ring_wrap().finish(), out.len() as u64, None, false, |c| {
            produced.extend_from_slice(c)
        })
        .expect("valid");
        assert!(produced == out);
    }

    #[test]
    fn length_and_distance_symbols_follow_rfc1951_table() {
        assert_eq!(length_symbol(3), (257, 0, 0));
        assert_eq!(length_symbol(10), (264, 0, 0));
        assert_eq!(length_symbol(11), (265, 1, 0));
        assert_eq!(length_symbol(18), (268, 1, 1));
        assert_eq!(length_symbol(19), (269, 2, 0));
        assert_eq!(length_symbol(227), (284, 5, 0));
        assert_eq!(length_symbol(257), (284, 5, 30));
        assert_eq!(length_symbol(258), (285, 0, 0));
        assert_eq!(distance_symbol(1), (0, 0, 0));
        assert_eq!(distance_symbol(4), (3, 0, 0));
        assert_eq!(distance_symbol(5), (4, 1, 0));
        assert_eq!(distance_symbol(24577), (29, 13, 0));
        assert_eq!(distance_symbol(32768), (29, 13, 8191));
    }

    /// The outcome when the frame's stream is fed to the engine one byte at a time
    /// under the same rules as `check_frame` (`spec/inflate.md` §2.8: offsets do not
    /// depend on how the stream is split). Frames rejected before decoding are left to
    /// `outcome`.
    fn outcome_bytewise(bytes: &[u8]) -> Expect<InflateReason> {
        let Some((header, stream)) = bytes.split_at_checked(12) else {
            return outcome(bytes);
        };
        let declared = u64::from_le_bytes(header[..8].try_into().expect("8 bytes"));
        let crc = u32::from_le_bytes(header[8..].try_into().expect("4 bytes"));
        if declared > LIMIT {
            return outcome(bytes);
        }
        let mut engine = Inflater::new(OutputBound::Exact(declared), false);
        let mut run = || {
            let mut pos = 0usize;
            loop {
                let end = (pos + 1).min(stream.len());
                let progress = engine.feed(&stream[pos..end], end < stream.len(), |_| {})?;
                pos += progress.consumed;
                if progress.done {
                    break;
                }
                assert!(progress.consumed > 0, "no progress at {pos}");
            }
            if pos < stream.len() {
                return Err(InflateError::new(R::TrailingData, pos as u64));
            }
            engine.finish(Some(crc))
        };
        match run() {
            Ok(_) => Valid,
            Err(e) => Reject(e.reason, e.offset + H),
        }
    }

    #[test]
    fn every_case_gives_the_same_outcome_fed_byte_by_byte() {
        crate::assert_every_case(&cases(), outcome_bytewise);
    }

    #[test]
    fn every_reason_has_a_case() {
        let all = cases();
        let has = |f: &dyn Fn(InflateReason) -> bool| crate::has_reason(&all, f);
        assert!(has(&|r| r == R::Corrupt));
        assert!(has(&|r| r == R::Truncated));
        assert!(has(&|r| r == R::TrailingData));
        assert!(has(&|r| r == R::TooLong));
        assert!(has(&|r| r == R::TooShort));
        assert!(has(&|r| matches!(r, R::CrcMismatch { .. })));
        assert!(has(&|r| r == R::DeclaredTooLarge));
    }
}
