//! Deflate streams written token by token (RFC 1951), for tests and fuzzing only (built
//! under `cfg(test)` and cargo-fuzz's `--cfg fuzzing`, never in a normal build): a bit
//! writer, canonical codes, random complete codes of up to 15 bits, and stored, fixed and
//! dynamic blocks of literals and matches. Any match can be written, including the length
//! 258 as symbol 284 with the extra bits 31 (`spec/inflate.md` §2.2). [`check`] holds the
//! engine to the output the tokens spell (§2.5) and, with the `fast-inflate` feature, to
//! the miniz_oxide engine (§10); the unit tests of `written_stream_tests.rs` and the fuzz
//! target `inflate_tokens` use it.
//!
//! The length and distance symbols are worked out here from the rule of RFC 1951 §3.2.5,
//! not taken from a decoder's tables (`inflate/fast/huffman.rs`), so that a wrong entry there
//! cannot pass for right. The streams are checked against miniz_oxide's one-shot
//! decompressor by the tests that use them.

use crate::inflate::reference::run_engine;
use crate::inflate::{InflateError, InflateReason, OutputBound};
use crate::test_docs::Choose;
use alloc::vec;
use alloc::vec::Vec;

/// Largest bit length of a literal/length or distance code (RFC 1951 §3.2.7).
pub const MAX_BITS: u8 = 15;

/// Literal/length symbols a dynamic block can give codes (RFC 1951 §3.2.5).
pub const LITLEN_SYMBOLS: usize = 286;

/// Distance symbols a dynamic block can give codes.
pub const DIST_SYMBOLS: usize = 30;

/// End-of-block symbol.
const END: usize = 256;

/// Order of the code-length code's lengths in a dynamic block header (RFC 1951 §3.2.7).
const CODE_LENGTH_ORDER: [usize; 19] = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

/// One symbol's code: its bits in the order they are written (a Huffman code goes most
/// significant bit first, RFC 1951 §3.1.1, so they are reversed here) and their number.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Code {
    bits: u16,
    len: u8,
}

/// The canonical code (RFC 1951 §3.2.2) of these code lengths (0: no code): symbols in
/// order of length, then of value, take consecutive codes, one bit longer (a left shift)
/// where the length grows.
pub fn canonical(lengths: &[u8]) -> Vec<Code> {
    let mut order: Vec<usize> = (0..lengths.len()).filter(|&s| lengths[s] > 0).collect();
    order.sort_by_key(|&s| (lengths[s], s));
    let mut codes = vec![Code::default(); lengths.len()];
    let (mut next, mut len) = (0u32, 0u8);
    for s in order {
        next <<= lengths[s] - len;
        len = lengths[s];
        let bits = (next.reverse_bits() >> (32 - u32::from(len))) as u16;
        codes[s] = Code { bits, len };
        next += 1;
    }
    codes
}

/// Length symbol, extra-bit count and extra bits of a match length from 3 to 258 (RFC 1951
/// §3.2.5): 3 to 10 are symbols 257 to 264; after them each run of four symbols takes one
/// extra bit more than the run before; 258 is symbol 285.
pub fn length_symbol(len: u16) -> (usize, u32, u32) {
    assert!((3..=258).contains(&len), "match length {len}");
    if len == 258 {
        return (285, 0, 0);
    }
    let l = u32::from(len) - 3;
    if l < 8 {
        return (257 + l as usize, 0, 0);
    }
    let extra = l.ilog2() - 2;
    (257 + (4 * extra + (l >> extra)) as usize, extra, l & ((1 << extra) - 1))
}

/// Distance symbol, extra-bit count and extra bits of a distance from 1 to 32768 (RFC 1951
/// §3.2.5): 1 to 4 are symbols 0 to 3; after them each pair of symbols takes one extra bit
/// more than the pair before.
pub fn distance_symbol(dist: u16) -> (usize, u32, u32) {
    assert!(dist >= 1, "distance 0");
    let d = u32::from(dist) - 1;
    if d < 4 {
        return (d as usize, 0, 0);
    }
    let extra = d.ilog2() - 1;
    ((2 * extra + (d >> extra)) as usize, extra, d & ((1 << extra) - 1))
}

/// One item of a block's data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Token {
    /// One byte.
    Literal(u8),
    /// `len` bytes (3 to 258) copied from `dist` bytes back (1 to 32768), the length
    /// written with its usual symbol.
    Match { len: u16, dist: u16 },
    /// 258 bytes copied from `dist` bytes back, the length written as symbol 284 with the
    /// extra bits 31 (227 + 31).
    Match284 { dist: u16 },
}

impl Token {
    /// Bytes of output.
    pub fn output_len(self) -> usize {
        match self {
            Token::Literal(_) => 1,
            Token::Match { len, .. } => usize::from(len),
            Token::Match284 { .. } => 258,
        }
    }

    /// The literal/length symbol and, for a match, the distance symbol.
    pub fn symbols(self) -> (usize, Option<usize>) {
        match self {
            Token::Literal(b) => (usize::from(b), None),
            Token::Match { len, dist } => (length_symbol(len).0, Some(distance_symbol(dist).0)),
            Token::Match284 { dist } => (284, Some(distance_symbol(dist).0)),
        }
    }
}

/// The output of `tokens` after the output `out` already holds.
pub fn expand(out: &mut Vec<u8>, tokens: &[Token]) {
    for &t in tokens {
        match t {
            Token::Literal(b) => out.push(b),
            Token::Match { dist, .. } | Token::Match284 { dist } => {
                let from = out.len() - usize::from(dist);
                let end = out.len() + t.output_len();
                while out.len() < end {
                    // From `from` on, the output repeats the period a whole number of times:
                    // all of it can be copied at once, so the copies double.
                    let n = (end - out.len()).min(out.len() - from);
                    out.extend_from_within(from..from + n);
                }
            }
        }
    }
}

/// How a block codes its data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Codes {
    /// A stored block (several, when the data is over 65535 bytes).
    Stored,
    /// The fixed codes (RFC 1951 §3.2.6).
    Fixed,
    /// A dynamic block with these code lengths (`litlen.len()` is HLIT, 257 to 286;
    /// `dist.len()` is HDIST, 1 to 30).
    Dynamic { litlen: Vec<u8>, dist: Vec<u8> },
}

/// One block: its codes and its data.
#[derive(Clone, Debug)]
pub struct Block {
    /// How the block codes its data.
    pub codes: Codes,
    /// Its data (for a stored block, what they spell is stored).
    pub tokens: Vec<Token>,
}

/// A stream written from blocks.
pub struct Written {
    /// The deflate stream.
    pub stream: Vec<u8>,
    /// What it decodes to.
    pub output: Vec<u8>,
    /// The most bits one of its matches takes ([`StreamWriter::widest_match`]).
    pub widest_match: u32,
}

/// The stream of `blocks`, the last one final.
pub fn write(blocks: &[Block]) -> Written {
    let mut w = StreamWriter::default();
    let mut output = Vec::new();
    for (i, block) in blocks.iter().enumerate() {
        let last = i + 1 == blocks.len();
        let start = output.len();
        expand(&mut output, &block.tokens);
        if block.codes == Codes::Stored {
            w.stored(last, &output[start..]);
            continue;
        }
        w.begin(last, &block.codes);
        for &t in &block.tokens {
            w.token(t);
        }
        w.end_block();
    }
    let widest_match = w.widest_match;
    Written {
        stream: w.finish(),
        output,
        widest_match,
    }
}

/// Writes a stream a block header and a token at a time (for streams too long to hold
/// their tokens or output).
#[derive(Default)]
pub struct StreamWriter {
    bytes: Vec<u8>,
    /// Bits written but not yet in `bytes` (fewer than 8), from bit 0.
    acc: u64,
    held: u32,
    litlen: Vec<Code>,
    dist: Vec<Code>,
    /// The most bits one match has taken so far: its length code and extra bits, its
    /// distance code and extra bits (at most 15 + 5 + 15 + 13).
    pub widest_match: u32,
}

impl StreamWriter {
    /// The low `n` bits of `value` (`n` at most 32).
    fn bits(&mut self, value: u32, n: u32) {
        self.acc |= (u64::from(value) & ((1u64 << n) - 1)) << self.held;
        self.held += n;
        let whole = self.held / 8;
        self.bytes.extend_from_slice(&self.acc.to_le_bytes()[..whole as usize]);
        self.acc >>= 8 * whole;
        self.held %= 8;
    }

    fn code(&mut self, code: Code) {
        assert!(code.len > 0, "a symbol without a code");
        self.bits(u32::from(code.bits), u32::from(code.len));
    }

    /// Bits written so far: a stream that ends after them takes `bit_len().div_ceil(8)`
    /// bytes.
    pub fn bit_len(&self) -> u64 {
        self.bytes.len() as u64 * 8 + u64::from(self.held)
    }

    /// Stored blocks of `data` (RFC 1951 §3.2.4), 65535 bytes each at most; the last one
    /// final when `last` is set. No data is one empty block.
    pub fn stored(&mut self, last: bool, data: &[u8]) {
        let pieces: Vec<&[u8]> = if data.is_empty() {
            vec![data]
        } else {
            data.chunks(0xFFFF).collect()
        };
        let count = pieces.len();
        for (i, piece) in pieces.into_iter().enumerate() {
            self.bits(u32::from(last && i + 1 == count), 1);
            self.bits(0, 2);
            self.bits(0, (8 - self.held) % 8);
            let len = piece.len() as u32;
            self.bits(len, 16);
            self.bits(!len, 16);
            self.bytes.extend_from_slice(piece);
        }
    }

    /// Starts a fixed or dynamic block (RFC 1951 §3.2.3, §3.2.6, §3.2.7).
    pub fn begin(&mut self, last: bool, codes: &Codes) {
        self.bits(u32::from(last), 1);
        match codes {
            Codes::Stored => panic!("stored blocks are written whole"),
            Codes::Fixed => {
                self.bits(1, 2);
                self.litlen = canonical(&fixed_litlen());
                self.dist = canonical(&[5; 30]);
            }
            Codes::Dynamic { litlen, dist } => {
                self.bits(2, 2);
                self.dynamic_header(litlen, dist);
                self.litlen = canonical(litlen);
                self.dist = canonical(dist);
            }
        }
    }

    /// HLIT, HDIST, HCLEN, the code-length code and the code lengths, run-length coded
    /// (symbols 16, 17 and 18, repeats crossing from the literal/length lengths to the
    /// distance lengths as RFC 1951 §3.2.7 allows) with a complete code-length code.
    fn dynamic_header(&mut self, litlen: &[u8], dist: &[u8]) {
        assert!((257..=LITLEN_SYMBOLS).contains(&litlen.len()) && (1..=DIST_SYMBOLS).contains(&dist.len()));
        let all: Vec<u8> = litlen.iter().chain(dist).copied().collect();
        let items = run_lengths(&all);
        let mut used = [false; 19];
        for &(symbol, _) in &items {
            used[usize::from(symbol)] = true;
        }
        if used.iter().filter(|&&u| u).count() == 1 {
            // A complete code needs two symbols: one that is never written.
            used[if used[0] { 1 } else { 0 }] = true;
        }
        let cl_lengths = balanced(&used);
        let hclen = 1 + CODE_LENGTH_ORDER.iter().rposition(|&s| cl_lengths[s] > 0).unwrap_or(0);
        let hclen = hclen.max(4);
        self.bits(litlen.len() as u32 - 257, 5);
        self.bits(dist.len() as u32 - 1, 5);
        self.bits(hclen as u32 - 4, 4);
        for &s in &CODE_LENGTH_ORDER[..hclen] {
            self.bits(u32::from(cl_lengths[s]), 3);
        }
        let cl = canonical(&cl_lengths);
        for (symbol, repeat) in items {
            self.code(cl[usize::from(symbol)]);
            match symbol {
                16 => self.bits(repeat - 3, 2),
                17 => self.bits(repeat - 3, 3),
                18 => self.bits(repeat - 11, 7),
                _ => {}
            }
        }
    }

    /// A literal or a match of the current block.
    pub fn token(&mut self, t: Token) {
        let ((lsym, lextra, lvalue), dist) = match t {
            Token::Literal(b) => {
                self.code(self.litlen[usize::from(b)]);
                return;
            }
            Token::Match { len, dist } => (length_symbol(len), dist),
            Token::Match284 { dist } => ((284, 5, 31), dist),
        };
        let (dsym, dextra, dvalue) = distance_symbol(dist);
        let (lcode, dcode) = (self.litlen[lsym], self.dist[dsym]);
        self.code(lcode);
        self.bits(lvalue, lextra);
        self.code(dcode);
        self.bits(dvalue, dextra);
        let width = u32::from(lcode.len) + lextra + u32::from(dcode.len) + dextra;
        self.widest_match = self.widest_match.max(width);
    }

    /// The end-of-block symbol.
    pub fn end_block(&mut self) {
        self.code(self.litlen[END]);
    }

    /// The stream, its last byte padded with zero bits.
    pub fn finish(mut self) -> Vec<u8> {
        self.bits(0, (8 - self.held) % 8);
        self.bytes
    }
}

/// The fixed literal/length code's lengths (RFC 1951 §3.2.6), symbols 0 to 287.
fn fixed_litlen() -> Vec<u8> {
    (0..288)
        .map(|s| match s {
            0..=143 | 280.. => 8,
            144..=255 => 9,
            _ => 7,
        })
        .collect()
}

/// Code lengths run-length coded as code-length symbols with their repeat counts (1 for
/// a plain length): runs of zeros as 18 (11 to 138) or 17 (3 to 10), a length repeated
/// four times or more as the length, then 16 (3 to 6 more).
fn run_lengths(lengths: &[u8]) -> Vec<(u8, u32)> {
    let mut items = Vec::new();
    let mut i = 0;
    while i < lengths.len() {
        let len = lengths[i];
        let run = lengths[i..].iter().take_while(|&&l| l == len).count();
        let (symbol, n) = match (len, run) {
            (0, 11..) => (18, run.min(138)),
            (0, 3..) => (17, run),
            (_, 4..) => {
                items.push((len, 1));
                i += 1;
                (16, (run - 1).min(6))
            }
            _ => (len, 1),
        };
        items.push((symbol, n as u32));
        i += n;
    }
    items
}

/// Lengths of a complete code (Kraft sum one) for the symbols marked `used`, at most one
/// bit apart: for `k` symbols and `m` the bits `k` needs, `2^m - k` of them take `m - 1`
/// bits and the others `m`.
fn balanced(used: &[bool; 19]) -> [u8; 19] {
    let k = used.iter().filter(|&&u| u).count() as u32;
    let m = k.next_power_of_two().ilog2();
    let mut short = (1u32 << m) - k;
    let mut lengths = [0u8; 19];
    for (len, _) in lengths.iter_mut().zip(used).filter(|(_, u)| **u) {
        *len = if short > 0 { m as u8 - 1 } else { m as u8 };
        short = short.saturating_sub(1);
    }
    lengths
}

/// Code lengths over an alphabet of `size` symbols of a random complete prefix code (Kraft
/// sum one) of at most [`MAX_BITS`] bits for the symbols `used` (one symbol alone takes one
/// bit, the one incomplete code RFC 1951 allows). The tree grows by splitting a leaf: with
/// `deepest`, always the deepest that can be split (so the code takes 15 bits once there are
/// 16 symbols), otherwise any leaf, or the deepest and any in turn. The symbols of `deep` take
/// the longest codes, except one time in four.
pub fn random_code<C: Choose>(c: &mut C, size: usize, used: &[usize], deep: &[usize], deepest: bool) -> Vec<u8> {
    let mut leaves = vec![0u8];
    let mixed = c.one_in(2);
    while leaves.len() < used.len().max(2) {
        let open: Vec<usize> = (0..leaves.len()).filter(|&i| leaves[i] < MAX_BITS).collect();
        let at = if deepest || (mixed && c.one_in(2)) {
            open.iter().copied().max_by_key(|&i| leaves[i]).unwrap()
        } else {
            open[c.below(open.len())]
        };
        leaves[at] += 1;
        leaves.push(leaves[at]);
    }
    if used.len() == 1 {
        leaves.truncate(1);
    }
    leaves.sort_unstable_by(|a, b| b.cmp(a));
    // The symbols in the order they take the leaves, deepest first.
    let mut order: Vec<usize> = used.to_vec();
    for i in (1..order.len()).rev() {
        order.swap(i, c.below(i + 1));
    }
    if !c.one_in(4) {
        order.sort_by_key(|s| !deep.contains(s));
    }
    let mut lengths = vec![0u8; size];
    for (&s, &len) in order.iter().zip(&leaves) {
        lengths[s] = len;
    }
    lengths
}

/// The end `spec/inflate.md` §2.5 gives a valid stream of `len` bytes of output under
/// `bound`: none (`Ok`) when the bound admits them; `TooLong` under an exact size below
/// them, `LimitExceeded` under an at-most bound below them, `TooShort` under an exact size
/// above them.
pub fn bound_outcome(bound: OutputBound, len: u64) -> Result<(), InflateReason> {
    match bound {
        OutputBound::Exact(n) if n < len => Err(InflateReason::TooLong),
        OutputBound::Exact(n) if n > len => Err(InflateReason::TooShort),
        OutputBound::AtMost(n) if n < len => Err(InflateReason::LimitExceeded),
        OutputBound::Exact(_) | OutputBound::AtMost(_) => Ok(()),
    }
}

/// Decodes `stream` under `bound`, cut into pieces at `cuts`, with the engine of this build.
/// With the `fast-inflate` feature, the miniz_oxide engine must give the same run (the same
/// bytes handed out, the same input consumed, the same result, reason and offset; §10).
/// For a stream written from tokens, `output` is what they spell: what the engine hands out
/// must begin it, and the engine must end as §2.5 says ([`bound_outcome`]): when the bound
/// admits the output, with all of it and its CRC-32, the stream ending at its last byte
/// (§2.3, §2.6); under an exact size above it, with all of it and `TooShort` at the stream's
/// end (§2.8); under a bound below it, with `TooLong` or `LimitExceeded`, having handed out
/// no more than the bound.
pub fn check(case: &str, stream: &[u8], output: Option<&[u8]>, bound: OutputBound, cuts: &[usize]) {
    let ours = run_engine(stream, bound, cuts);
    #[cfg(feature = "fast-inflate")]
    {
        let theirs = crate::inflate::reference::run_reference(stream, bound, cuts);
        assert!(
            ours == theirs,
            "{case}: bound {bound:?}, {} cuts, stream of {}: engine {:?} {:?} after {} bytes out, oracle {:?} {:?} after {}",
            cuts.len(),
            stream.len(),
            ours.consumed,
            ours.result,
            ours.output.len(),
            theirs.consumed,
            theirs.result,
            theirs.output.len(),
        );
    }
    let Some(output) = output else {
        return;
    };
    assert!(
        output.starts_with(&ours.output),
        "{case}: bound {bound:?}: output differs"
    );
    let (handed, len) = (ours.output.len(), output.len() as u64);
    match bound_outcome(bound, len) {
        Ok(()) => {
            assert_eq!(handed, output.len(), "{case}: bound {bound:?}");
            assert_eq!(ours.result, Ok(crc32fast::hash(output)), "{case}: bound {bound:?}");
            assert_eq!(ours.consumed, Some(stream.len()), "{case}: bound {bound:?}");
        }
        Err(InflateReason::TooShort) => {
            assert_eq!(handed, output.len(), "{case}: bound {bound:?}");
            let end = InflateError::new(InflateReason::TooShort, stream.len() as u64);
            assert_eq!(ours.result, Err(end), "{case}: bound {bound:?}");
        }
        Err(reason) => {
            assert!(
                handed as u64 <= bound.limit(),
                "{case}: bound {bound:?}: {handed} bytes out"
            );
            assert_eq!(
                ours.result.map_err(|e| e.reason),
                Err(reason),
                "{case}: bound {bound:?}: {len} bytes of output"
            );
        }
    }
}

/// One bound of each kind (§2.5): exact and at most, at, above and inside the output.
pub fn bound<C: Choose>(c: &mut C, len: usize) -> OutputBound {
    let len = len as u64;
    let inside = c.below(len as usize + 1) as u64;
    let more = 1 + c.below(2) as u64;
    match c.below(6) {
        0 | 1 => OutputBound::Exact(len),
        2 => OutputBound::AtMost(len + more - 1),
        3 => OutputBound::Exact(inside),
        4 => OutputBound::AtMost(inside),
        _ => OutputBound::Exact(len + more),
    }
}

/// Where to cut a stream of `len` bytes (§2.7, §2.8): nowhere, before every byte (short
/// streams), every few bytes, or at a few places.
pub fn cuts<C: Choose>(c: &mut C, len: usize) -> Vec<usize> {
    let mut cuts = Vec::new();
    match c.below(4) {
        0 => {}
        1 if len < 20_000 => cuts.extend(1..len),
        1 | 2 => {
            let mut at = 0;
            loop {
                at += 1 + c.below(40);
                if at >= len {
                    break;
                }
                cuts.push(at);
            }
        }
        _ => {
            cuts.extend((0..c.below(8)).map(|_| c.below(len.max(1))));
            cuts.sort_unstable();
        }
    }
    cuts
}

/// Random complete codes of up to 15 bits for the symbols of `tokens` and the end of block
/// (§2.2), `deepest` ones or, half the time, with unused symbols too, so that even a block
/// of few symbols has codes of 15 bits. The lengths 258 (symbols 285 and 284), and the
/// distances of 258-byte matches or the farthest ones, take the longest codes more often
/// than not; HLIT and HDIST are the least that hold the codes or the most there can be.
pub fn dynamic_codes<C: Choose>(c: &mut C, tokens: &[Token], deepest: bool) -> Codes {
    let mut litlen = [false; LITLEN_SYMBOLS];
    let mut dist = [false; DIST_SYMBOLS];
    litlen[256] = true;
    // The longest codes go to the farthest distances (which take 13 extra bits) or to the
    // distances of 258-byte matches.
    let far = c.one_in(3);
    let mut deep_dist = if far { vec![28, 29] } else { Vec::new() };
    for &t in tokens {
        let (l, d) = t.symbols();
        litlen[l] = true;
        if let Some(d) = d {
            dist[d] = true;
            if !far && t.output_len() == 258 {
                deep_dist.push(d);
            }
        }
    }
    if deepest || c.one_in(2) {
        for _ in 0..c.below(40) {
            litlen[c.below(LITLEN_SYMBOLS)] = true;
        }
        while dist.iter().filter(|&&d| d).count() < 16 {
            dist[c.below(DIST_SYMBOLS)] = true;
        }
    }
    let used = |marks: &[bool]| -> Vec<usize> { (0..marks.len()).filter(|&s| marks[s]).collect() };
    let mut litlen = random_code(c, LITLEN_SYMBOLS, &used(&litlen), &[284, 285], deepest);
    let mut dist = random_code(c, DIST_SYMBOLS, &used(&dist), &deep_dist, deepest);
    if c.one_in(2) {
        let hlit = litlen.iter().rposition(|&l| l > 0).unwrap_or(0).max(256) + 1;
        let hdist = dist.iter().rposition(|&l| l > 0).unwrap_or(0) + 1;
        litlen.truncate(hlit);
        dist.truncate(hdist);
    }
    Codes::Dynamic { litlen, dist }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The symbols worked out from RFC 1951 §3.2.5's rule are the RFC's table: the first
    /// and last length and distance of each symbol.
    #[test]
    fn length_and_distance_symbols_are_rfc_1951s() {
        let length_base: [u16; 29] = [
            3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195,
            227, 258,
        ];
        for (i, pair) in length_base.windows(2).enumerate() {
            // Symbol 284 covers 227 to 257 (with 5 extra bits, 227 + 31 would be 258).
            let (extra, last) = if i == 27 {
                (5, 257)
            } else {
                ((pair[1] - pair[0]).ilog2(), pair[1] - 1)
            };
            assert_eq!(length_symbol(pair[0]), (257 + i, extra, 0));
            assert_eq!(length_symbol(last), (257 + i, extra, u32::from(last - pair[0])));
        }
        assert_eq!(length_symbol(258), (285, 0, 0));
        let mut base = 1u32;
        for symbol in 0..30 {
            let extra = if symbol < 4 { 0 } else { symbol as u32 / 2 - 1 };
            let last = base + (1 << extra) - 1;
            assert_eq!(distance_symbol(base as u16), (symbol, extra, 0));
            assert_eq!(distance_symbol(last as u16), (symbol, extra, last - base));
            base = last + 1;
        }
        assert_eq!(base, 32769);
    }

    /// The fixed literal/length code is RFC 1951 §3.2.6's (its first code of each length and
    /// its last), and random codes are complete.
    #[test]
    fn codes_are_canonical_and_complete() {
        let codes = canonical(&fixed_litlen());
        let msb = |c: Code| c.bits.reverse_bits() >> (16 - c.len);
        assert_eq!((msb(codes[0]), codes[0].len), (0b0011_0000, 8));
        assert_eq!((msb(codes[144]), codes[144].len), (0b1_1001_0000, 9));
        assert_eq!((msb(codes[256]), codes[256].len), (0, 7));
        assert_eq!((msb(codes[287]), codes[287].len), (0b1100_0111, 8));
        let mut rng = crate::test_docs::Rng::new(15);
        for n in [1usize, 2, 3, 16, 30, 286] {
            let used: Vec<usize> = (0..n).collect();
            let code = random_code(&mut rng, n, &used, &[n - 1], n % 2 == 0);
            let kraft: u64 = code.iter().map(|&l| (1u64 << 15) >> l).sum();
            assert!(code.iter().all(|&l| (1..=15).contains(&l)));
            assert_eq!(kraft, if n == 1 { 1 << 14 } else { 1 << 15 }, "{n} symbols");
        }
    }
}
