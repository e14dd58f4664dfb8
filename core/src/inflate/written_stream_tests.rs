//! The engine on streams written token by token (`token_writer.rs`), held to the output the
//! tokens spell (`token_writer::check`) and, with the `fast-inflate` feature, to the
//! miniz_oxide engine (`spec/inflate.md` §10): codes of up to 15 bits, the length 258 written
//! as symbol 284 with the extra bits 31, output bounds and one-byte input pieces where the
//! engine's buffer wraps or slides, and (ignored by default) a run past 4 GiB of output.

use crate::inflate::reference::run_engine;
use crate::inflate::token_writer::{
    Block, Codes, StreamWriter, Token, Written, bound, check, cuts, dynamic_codes, expand, write,
};
use crate::inflate::{InflateReason, Inflater, OutputBound};
use crate::test_docs::{Choose, Rng};
use alloc::format;
use alloc::vec::Vec;

/// Writes `blocks` ([`verified`]).
fn written(blocks: &[Block]) -> Written {
    verified(write(blocks))
}

/// `w`, once miniz_oxide has decoded its stream to its output: a fault of the writer is not
/// taken for one of the engine.
fn verified(w: Written) -> Written {
    let theirs = miniz_oxide::inflate::decompress_to_vec(&w.stream).ok();
    assert!(
        theirs.as_ref() == Some(&w.output),
        "the writer's stream is not its output"
    );
    w
}

/// A period to repeat: one byte, the distances the decoder copies in words of a period (2 to
/// 15) or from farther back (16 to 63), around the longest period a run records (258,
/// §2.7.1), or any distance.
fn period<C: Choose>(c: &mut C) -> usize {
    match c.below(6) {
        0 => 1,
        1 => 2 + c.below(14),
        2 => 16 + c.below(48),
        3 => 250 + c.below(12),
        4 => 1 + c.below(300),
        _ => 1 + c.below(32_768),
    }
}

/// Tokens and the length of their output so far.
#[derive(Default)]
struct Tokens {
    list: Vec<Token>,
    out: usize,
    alphabet: usize,
}

impl Tokens {
    fn push(&mut self, t: Token) {
        self.out += t.output_len();
        self.list.push(t);
    }

    fn literals<C: Choose>(&mut self, c: &mut C, n: usize) {
        for _ in 0..n {
            self.push(Token::Literal(c.below(self.alphabet) as u8));
        }
    }

    /// `n` matches of 258 bytes from `dist` back, one in twelve written as 284 + 31.
    fn run<C: Choose>(&mut self, c: &mut C, dist: u16, n: usize) {
        for _ in 0..n {
            self.push(if c.one_in(12) {
                Token::Match284 { dist }
            } else {
                Token::Match { len: 258, dist }
            });
        }
    }
}

/// Tokens for about `target` bytes of output, mostly runs (§2.7.1): after a first pattern of
/// literals, runs of 258-byte matches of one distance ([`period`]), some of them ending near
/// a multiple of 32 KiB, some with a shorter last match; long matches from far back (the
/// widest a match can be: 284 and distance symbols 28 and 29 take the most extra bits);
/// matches of any length and distance; new patterns; literals.
fn tokens<C: Choose>(c: &mut C, target: usize) -> Vec<Token> {
    let mut t = Tokens {
        alphabet: 1 + c.below(256),
        ..Tokens::default()
    };
    let first = 1 + c.below(300);
    t.literals(c, first);
    while t.out < target {
        // Mostly from the far half of the history: distances of up to 13 extra bits.
        let far = t.out.min(32_768) - c.below(t.out.min(32_768) / 2 + 1);
        let dist = period(c).min(t.out) as u16;
        match c.below(10) {
            0 => {
                let n = c.below(6);
                t.literals(c, n);
            }
            1 => t.literals(c, usize::from(dist).min(300)),
            2 => {
                let len = 227 + c.below(32) as u16;
                let dist = far as u16;
                t.push(if c.one_in(4) {
                    Token::Match284 { dist }
                } else {
                    Token::Match { len, dist }
                });
            }
            3 => t.push(Token::Match {
                len: 3 + c.below(256) as u16,
                dist: far as u16,
            }),
            _ => {
                let n = match c.below(4) {
                    0 => c.below(4),
                    1 => c.below(40),
                    2 => {
                        let multiple = 32_768 * (1 + c.below(6));
                        (multiple - t.out % multiple) / 258
                    }
                    _ => c.below(300),
                };
                t.run(c, dist, n);
                if c.one_in(3) {
                    t.push(Token::Match {
                        len: 3 + c.below(256) as u16,
                        dist,
                    });
                }
            }
        }
    }
    t.list
}

/// `tokens` in one to four blocks, each stored (one in eight), fixed (one in four) or dynamic
/// ([`dynamic_codes`], as deep as they can be half the time).
fn blocks<C: Choose>(c: &mut C, mut tokens: Vec<Token>) -> Vec<Block> {
    let mut ends: Vec<usize> = (1..1 + c.below(4)).map(|_| c.below(tokens.len() + 1)).collect();
    ends.sort_unstable();
    let mut blocks = Vec::new();
    for end in ends.into_iter().rev() {
        blocks.push(tokens.split_off(end));
    }
    blocks.push(tokens);
    blocks.reverse();
    blocks
        .into_iter()
        .map(|tokens| {
            let codes = match c.below(8) {
                0 => Codes::Stored,
                1 | 2 => Codes::Fixed,
                _ => {
                    let deepest = c.one_in(2);
                    dynamic_codes(c, &tokens, deepest)
                }
            };
            Block { codes, tokens }
        })
        .collect()
}

/// Flips a bit, cuts the stream short or overwrites a byte.
fn damage<C: Choose>(c: &mut C, stream: &mut Vec<u8>) {
    let at = c.below(stream.len());
    match c.below(3) {
        0 => stream[at] ^= 1 << c.below(8),
        1 => stream.truncate(at),
        _ => stream[at] = c.below(256) as u8,
    }
}

/// spec/inflate.md §2.2 and §8.8: codes of every length up to 15 bits, so codes past the
/// root tables' 12 and 8 bits and matches of up to 48 bits (a 15-bit code for a length with
/// 5 extra bits, a 15-bit code for a distance with 13), which the fast loop must hold after
/// a refill; §2.7.1: runs whose matches take up to 15 + 15 + 7 bits, compared bit for bit.
/// Generated streams of up to 400 KB of output, mostly runs, in one to four stored, fixed and
/// dynamic blocks, decoded under bounds of each kind, whole, before every byte or in random
/// pieces, give the output their tokens spell with its CRC-32; damaged copies of them are
/// decoded too (with `fast-inflate`, every run is the miniz_oxide engine's, §2.8).
#[test]
fn fifteen_bit_codes_decode_as_written() {
    let mut rng = Rng::new(0x0F15);
    let mut widest = 0;
    for i in 0..600 {
        let target = match rng.below(3) {
            0 => rng.below(5_000),
            1 => rng.below(100_000),
            _ => rng.below(400_000),
        };
        let tokens = tokens(&mut rng, target);
        let blocks = blocks(&mut rng, tokens);
        let w = written(&blocks);
        widest = widest.max(w.widest_match);
        for _ in 0..2 {
            let bound = bound(&mut rng, w.output.len());
            let cuts = cuts(&mut rng, w.stream.len());
            check(&format!("case {i}"), &w.stream, Some(&w.output), bound, &cuts);
        }
        let mut damaged = w.stream.clone();
        damage(&mut rng, &mut damaged);
        let bound = bound(&mut rng, w.output.len());
        let cuts = cuts(&mut rng, damaged.len());
        check(&format!("case {i}, damaged"), &damaged, None, bound, &cuts);
    }
    assert_eq!(widest, 15 + 5 + 15 + 13, "no stream had a match of the most bits");
}

/// Matches from `dist` back that make `len` bytes of output (0, or 3 or more): 258 bytes
/// each, the last one or two shorter.
fn run(dist: u16, len: u64) -> impl Iterator<Item = Token> {
    let rest = len % 258;
    let (full, last) = match rest {
        0 => (len / 258, [0, 0]),
        1 | 2 => (len / 258 - 1, [130, 128 + rest as u16]),
        _ => (len / 258, [rest as u16, 0]),
    };
    let last = last.into_iter().filter(|&len| len > 0);
    (0..full)
        .map(|_| 258)
        .chain(last)
        .map(move |len| Token::Match { len, dist })
}

/// The tokens of `head`, then a [`run`] from `dist` back up to `end` bytes of output.
fn run_to(head: &[Token], dist: u16, end: u64) -> Vec<Token> {
    head.iter().copied().chain(run(dist, end - head.len() as u64)).collect()
}

/// How many kinds of tail [`add_tail`] knows.
const TAILS: usize = 6;

/// Adds what follows a run of distance `dist` in
/// [`bounds_and_one_byte_pieces_at_every_chunk_end_decode_as_written`], by `tail`: the
/// end of the stream; a literal, then the run again; matches of the next distance; a match
/// from 32 KiB back (all the history a slide must keep), then the run again; a new pattern
/// and its run; the run again as 284 + 31.
fn add_tail<C: Choose>(c: &mut C, tail: usize, dist: u16, tokens: &mut Vec<Token>) {
    match tail {
        0 => {}
        1 => {
            tokens.push(Token::Literal(0xA5));
            tokens.extend(run(dist, 300 * 258));
        }
        2 => tokens.extend(run(dist + 1, 300 * 258)),
        3 => {
            tokens.push(Token::Match { len: 3, dist: 32_768 });
            tokens.extend(run(dist, 100 * 258));
        }
        4 => {
            tokens.extend((0..dist).map(|_| Token::Literal(c.below(256) as u8)));
            tokens.extend(run(dist, 300 * 258));
        }
        _ => tokens.extend((0..300).map(|_| Token::Match284 { dist })),
    }
}

/// The output offsets where the engine's chunks end when it decodes `stream` whole (§2.7):
/// wherever its buffer is full and wraps (the default ring, every 64 KiB) or slides (the
/// `fast-inflate` window: at 64 KiB, then as the window fills), then the end of the stream.
fn chunk_ends(stream: &[u8]) -> Vec<u64> {
    let mut inflater = Inflater::new(OutputBound::AtMost(u64::MAX), false);
    let mut ends = Vec::new();
    let mut produced = 0;
    let progress = inflater.feed(stream, false, |chunk| {
        produced += chunk.len() as u64;
        ends.push(produced);
    });
    assert!(progress.is_ok_and(|p| p.done), "a valid stream");
    ends
}

/// `tokens` as one final block of `codes` ([`verified`]), and the stream byte where the
/// token that produces output byte `at` starts.
fn one_block(codes: &Codes, tokens: &[Token], at: u64) -> (Written, usize) {
    let mut w = StreamWriter::default();
    w.begin(true, codes);
    let (mut out, mut start) = (0, 0);
    for &t in tokens {
        if out <= at {
            start = (w.bit_len() / 8) as usize;
        }
        w.token(t);
        out += t.output_len() as u64;
    }
    w.end_block();
    let mut output = Vec::new();
    expand(&mut output, tokens);
    let widest_match = w.widest_match;
    let stream = w.finish();
    let written = verified(Written {
        stream,
        output,
        widest_match,
    });
    (written, start)
}

/// spec/inflate.md §2.5, §2.7, §2.7.1 and §2.8 where a chunk ends: runs of one period
/// (1 to 258 bytes, and 259 and 1000, past the longest a `fast-inflate` run records), after a
/// first pattern that starts the run at, or just after, the buffer's start (so the first
/// slide of the `fast-inflate` window is not, or is, from a multiple of the period), ending
/// at, one byte or one match before or after each place where the engine's buffer fills
/// and wraps or slides ([`chunk_ends`]), followed by the end of the stream,
/// a literal, another distance, a match from 32 KiB back, a new pattern, or 284 + 31
/// matches ([`add_tail`]); fixed or random dynamic codes; bounds of each kind one byte
/// before, at and after that place; the input whole, cut into one-byte pieces around the
/// code that fills the buffer, and cut before every byte. The engine gives all of the output
/// with its CRC-32 when the bound admits it, and otherwise ends as §2.5 says.
#[test]
fn bounds_and_one_byte_pieces_at_every_chunk_end_decode_as_written() {
    const END: u64 = 98_304 + 3 * 65_536 + 1_000;
    let mut rng = Rng::new(0x51DE);
    for (i, period) in [1u16, 2, 3, 9, 16, 33, 64, 255, 257, 258, 259, 1_000]
        .into_iter()
        .enumerate()
    {
        let head: Vec<Token> = (0..usize::from(period) + i % 3)
            .map(|_| Token::Literal(rng.below(256) as u8))
            .collect();
        let whole = write(&[Block {
            codes: Codes::Fixed,
            tokens: run_to(&head, period, END),
        }]);
        let slides: Vec<u64> = chunk_ends(&whole.stream).into_iter().filter(|&e| e < END).collect();
        assert!(slides.len() >= 4, "period {period}: chunks end at {slides:?}");
        for (j, &slide) in slides.iter().enumerate() {
            for (k, delta) in [-258i64, -1, 0, 1, 258].into_iter().enumerate() {
                let mut tokens = run_to(&head, period, slide.wrapping_add_signed(delta));
                add_tail(&mut rng, (i + j + k) % TAILS, period, &mut tokens);
                let codes = if (i + j + k) % 2 == 0 {
                    Codes::Fixed
                } else {
                    let deepest = rng.one_in(2);
                    dynamic_codes(&mut rng, &tokens, deepest)
                };
                let (w, at) = one_block(&codes, &tokens, slide);
                let case = format!(
                    "period {period}, run to {slide} {delta:+}, tail {}",
                    (i + j + k) % TAILS
                );
                let pieces: Vec<usize> = (at.saturating_sub(8)..(at + 24).min(w.stream.len())).collect();
                let len = w.output.len() as u64;
                for bound in [
                    OutputBound::Exact(len),
                    OutputBound::AtMost(slide - 1),
                    OutputBound::Exact(slide),
                    OutputBound::AtMost(slide + 1),
                ] {
                    for cuts in [&[][..], &pieces[..]] {
                        check(&case, &w.stream, Some(&w.output), bound, cuts);
                    }
                }
                let every: Vec<usize> = (1..w.stream.len()).collect();
                check(&case, &w.stream, Some(&w.output), OutputBound::Exact(len), &every);
            }
        }
    }
}

/// spec/inflate.md §2.2: RFC 1951's table gives the length 258 symbol 285 and symbol 284 the
/// lengths 227 to 257, but 284 with its 5 extra bits all ones adds up to 258 (227 + 31).
/// §2.2 does not count it among the invalid data, so it is a match of 258 bytes, as
/// miniz_oxide (and zlib) decode it. §2.7.1 hands over to a run only the matches of symbol 285,
/// so 284 + 31 matches are decoded one by one, alone or in runs of 285 matches of the same
/// distance (of one byte, periods up to and past the longest a run records, and a long
/// one), with fixed codes and with codes that give 284 and 285 15 bits, whole and before
/// every byte, under bounds at the output's end, one byte short of it and halfway.
#[test]
fn length_258_as_284_plus_31_is_a_match_of_258_bytes() {
    // The smallest such stream: a fixed block, the literal 'a', then 284 + 31 at distance 1.
    let mut w = StreamWriter::default();
    w.begin(true, &Codes::Fixed);
    w.token(Token::Literal(b'a'));
    w.token(Token::Match284 { dist: 1 });
    w.end_block();
    let stream = w.finish();
    let ours = run_engine(&stream, OutputBound::Exact(259), &[]);
    assert_eq!(ours.output, [b'a'; 259]);
    assert_eq!(ours.result, Ok(crc32fast::hash(&[b'a'; 259])));
    assert_eq!(ours.consumed, Some(stream.len()));

    let mut rng = Rng::new(284);
    for period in [1u16, 2, 9, 33, 258, 259, 4_000] {
        for pattern in 0..4 {
            let mut tokens: Vec<Token> = (0..period).map(|_| Token::Literal(rng.below(256) as u8)).collect();
            for m in 0..500 {
                // All 284 + 31; every other one; one in a run of 285s; the run's first ones.
                let as_284 = match pattern {
                    0 => true,
                    1 => m % 2 == 0,
                    2 => m % 50 == 25,
                    _ => m < 3,
                };
                tokens.push(if as_284 {
                    Token::Match284 { dist: period }
                } else {
                    Token::Match { len: 258, dist: period }
                });
            }
            tokens.push(Token::Literal(7));
            tokens.push(Token::Match284 { dist: 32_768 });
            for deep in [false, true] {
                let codes = if deep {
                    dynamic_codes(&mut rng, &tokens, true)
                } else {
                    Codes::Fixed
                };
                let w = written(&[Block {
                    codes,
                    tokens: tokens.clone(),
                }]);
                let case = format!("period {period}, pattern {pattern}, widest match {}", w.widest_match);
                let len = w.output.len() as u64;
                let every: Vec<usize> = (1..w.stream.len()).collect();
                for bound in [
                    OutputBound::Exact(len),
                    OutputBound::AtMost(len - 1),
                    OutputBound::Exact(len / 2),
                ] {
                    for cuts in [&[][..], &every[..]] {
                        check(&case, &w.stream, Some(&w.output), bound, cuts);
                    }
                }
            }
        }
    }
}

/// spec/inflate.md §2.5, §2.6, §2.7.1 and §2.8 past 4 GiB of output, where a count of 32
/// bits would wrap: runs of 5 GiB and a bit of periods 1 and 9 (fixed codes) and 258 (15-bit
/// codes, 37 bits a match), fed whole and in pieces of 4093 and 777 bytes, hand out the
/// period at every offset in chunks of at most 64 KiB, count every byte, end where the
/// stream ends and give the CRC-32 of the chunks; under a bound just past 4 GiB the excess
/// byte is `LimitExceeded` at the byte holding the last bit of the match that produced it;
/// one byte short of the output is `TooLong` at the last match, one byte more `TooShort` at
/// the stream's end.
///
/// Takes a few seconds in release (most of it the test's own check of every byte), far
/// longer unoptimised, so it is ignored by default:
/// `cargo test -p modelgate-core --release -- --ignored run_past_4_gib`.
#[test]
#[ignore = "5 GiB runs: cargo test -p modelgate-core --release -- --ignored run_past_4_gib"]
fn run_past_4_gib_keeps_offsets_and_crc() {
    const TOTAL: u64 = (5 << 30) + 12_345;
    const PAST: u64 = (1 << 32) + 1_000;
    let mut rng = Rng::new(4);
    for (period, piece) in [(1u16, usize::MAX), (9, 4_093), (258, 777)] {
        let pattern: Vec<u8> = (0..period)
            .map(|i| (i as u8).wrapping_mul(31).wrapping_add(7))
            .collect();
        let mut tokens: Vec<Token> = pattern.iter().map(|&b| Token::Literal(b)).collect();
        let codes = if period == 258 {
            tokens.extend((3..=258).map(|len| Token::Match { len, dist: period }));
            dynamic_codes(&mut rng, &tokens, true)
        } else {
            Codes::Fixed
        };
        let mut w = StreamWriter::default();
        w.begin(true, &codes);
        for &b in &pattern {
            w.token(Token::Literal(b));
        }
        let mut out = u64::from(period);
        let (mut past_end, mut match_bits) = (0, 0);
        for t in run(period, TOTAL - out) {
            let start = w.bit_len();
            w.token(t);
            if t.output_len() == 258 {
                match_bits = w.bit_len() - start;
            }
            out += t.output_len() as u64;
            if past_end == 0 && out > PAST {
                past_end = w.bit_len();
            }
        }
        let last_end = w.bit_len();
        if period == 258 {
            assert_eq!(match_bits, 15 + 15 + 7, "the run's matches take the most bits they can");
        }
        w.end_block();
        let stream = w.finish();

        // The whole output, in pieces, against the period.
        let repeated: Vec<u8> = pattern.iter().copied().cycle().take(65_536 + pattern.len()).collect();
        let mut inflater = Inflater::new(OutputBound::Exact(TOTAL), false);
        let mut crc = crc32fast::Hasher::new();
        let mut produced = 0u64;
        let pieces: Vec<&[u8]> = stream.chunks(piece.min(stream.len())).collect();
        for (i, &input) in pieces.iter().enumerate() {
            let more = i + 1 < pieces.len();
            let progress = inflater.feed(input, more, |chunk| {
                assert!(chunk.len() <= 65_536, "a chunk of {}", chunk.len());
                let phase = (produced % u64::from(period)) as usize;
                assert!(
                    chunk == &repeated[phase..phase + chunk.len()],
                    "period {period} at {produced}"
                );
                crc.update(chunk);
                produced += chunk.len() as u64;
            });
            assert!(progress.is_ok_and(|p| p.done != more), "period {period}: piece {i}");
        }
        assert_eq!((produced, inflater.produced()), (TOTAL, TOTAL), "period {period}");
        assert_eq!(inflater.consumed(), stream.len() as u64, "period {period}");
        let digests = inflater.finish(None).expect("the stream ended");
        assert_eq!((digests.len, digests.crc32), (TOTAL, crc.finalize()), "period {period}");

        // Bounds past 4 GiB: the reason and the offset of §2.8.
        for (bound, reason, offset) in [
            (
                OutputBound::AtMost(PAST),
                InflateReason::LimitExceeded,
                past_end.div_ceil(8),
            ),
            (
                OutputBound::Exact(TOTAL - 1),
                InflateReason::TooLong,
                last_end.div_ceil(8),
            ),
            (
                OutputBound::Exact(TOTAL + 1),
                InflateReason::TooShort,
                stream.len() as u64,
            ),
        ] {
            let mut inflater = Inflater::new(bound, false);
            let e = inflater
                .feed(&stream, false, |_| {})
                .and_then(|_| inflater.finish(None))
                .expect_err("past the bound");
            assert_eq!(
                (e.reason, e.offset),
                (reason, offset),
                "period {period}, bound {bound:?}"
            );
        }
    }
}
