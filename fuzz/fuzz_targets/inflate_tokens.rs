//! Valid deflate streams written token by token (`inflate::token_writer`), for the decoder's
//! paths that raw bytes rarely reach: dynamic blocks whose codes take up to 15 bits, long runs
//! of 258-byte matches of one distance, which the fast loop hands over to a run
//! (`spec/inflate.md` §2.7.1), the length 258 written as 284 + 31 (§2.2), and bounds (§2.5)
//! and input pieces (§2.7, §2.8) anywhere in them.
//!
//! Input: 16 bytes of header (a seed; the bound; the cuts), then up to 16 blocks, each a kind
//! (stored, fixed, or dynamic with a seed for its random complete code and whether the code is
//! as deep as it can be, so that codes of 15 bits occur) and groups of tokens: literals from
//! the input or from the seed, single matches of any length and distance, matches from far
//! back, runs of 258-byte matches of one distance up to 300 (none, some or all written as
//! 284 + 31; a few, many, or up to near a multiple of 32 KiB of output, where the window
//! fills and slides), and new patterns with their runs; at most 1 MiB of output. The bound is
//! one of `token_writer::bound`'s (exact at, below or above the output's length, or at most);
//! the cuts are one of `token_writer::cuts`'s, or 64 one-byte pieces from a place the header
//! picks, or two pieces.
//!
//! Properties (`token_writer::check`), whole and cut: never panics; the engine hands out a
//! beginning of the bytes the tokens spell and, when the bound admits them, all of them with
//! their CRC-32, the stream ending at its last byte; otherwise it ends as §2.5 says (`TooLong`,
//! `LimitExceeded`, or `TooShort` at the stream's end after all of them), no byte past the
//! bound handed out. Built with the feature `fast-inflate` (`fuzz/README.md`), modelgate's own
//! decoder must also agree with the miniz_oxide engine of the default build
//! (`inflate::reference`): the same bytes, the same input consumed, the same result, reason
//! and offset (§2.8, §10).
#![no_main]

use arbitrary::Unstructured;
use libfuzzer_sys::fuzz_target;
use modelgate_core::inflate::token_writer::{Block, Codes, Token, bound, check, cuts, dynamic_codes, write};
use modelgate_core::test_docs::Choose;
use modelgate_corpus_gen::rng;

/// Output of one input at most.
const MAX_OUTPUT: usize = 1 << 20;

/// Blocks of one input at most.
const MAX_BLOCKS: usize = 16;

/// The header: the seed (8 bytes), the bound's choices (6), the cuts' kind and place (2).
const HEADER: usize = 16;

/// Choices read from the fuzz input (0 once it runs out; so no loop here waits for a
/// choice to change, and `dynamic_codes`, which does, draws from a seed).
struct Bytes<'a>(Unstructured<'a>);

impl Choose for Bytes<'_> {
    fn below(&mut self, n: usize) -> usize {
        self.0.choose_index(n).unwrap_or(0)
    }
}

/// Choices drawn from a seed: the shared generator as a source of choices.
struct Rng(rng::Rng);

impl Choose for Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0.below(n)
    }
}

/// The tokens of the block being built and the length of the stream's output so far.
struct Tokens {
    list: Vec<Token>,
    out: usize,
    full: bool,
}

impl Tokens {
    /// The farthest a match can reach back (0 before any output).
    fn reach(&self) -> usize {
        self.out.min(32_768)
    }

    /// Adds `t`, unless it reaches before the output or would take the output past
    /// `MAX_OUTPUT` (then the stream ends there).
    fn push(&mut self, t: Token) -> bool {
        let dist = match t {
            Token::Literal(_) => 0,
            Token::Match { dist, .. } | Token::Match284 { dist } => usize::from(dist),
        };
        if self.full || self.out + t.output_len() > MAX_OUTPUT {
            self.full = true;
            return false;
        }
        if dist > self.reach() {
            return false;
        }
        self.out += t.output_len();
        self.list.push(t);
        true
    }
}

/// A run of 258-byte matches from `dist` back (§2.7.1): a few, up to 256, up to 4096, or as
/// many as end within 258 bytes of a multiple of 32 KiB of output; none of them written as
/// 284 + 31 (half the time), all, every other one, the first, or one in eight; then, one time
/// in three, a shorter last match.
fn run(c: &mut Bytes, rng: &mut Rng, t: &mut Tokens, dist: u16) {
    let count = match c.below(4) {
        0 => c.below(8),
        1 => c.below(256),
        2 => c.below(4096),
        _ => {
            let multiple = 32_768 * (1 + c.below(8));
            let end = (t.out / multiple + 1) * multiple + c.below(517);
            end.saturating_sub(258).saturating_sub(t.out) / 258
        }
    };
    let as_284 = c.below(8);
    for i in 0..count {
        let wide = match as_284 {
            4 => true,
            5 => i % 2 == 1,
            6 => i == 0,
            7 => rng.one_in(8),
            _ => false,
        };
        let token = if wide {
            Token::Match284 { dist }
        } else {
            Token::Match { len: 258, dist }
        };
        if !t.push(token) {
            return;
        }
    }
    if c.one_in(3) {
        t.push(Token::Match {
            len: 3 + c.below(256) as u16,
            dist,
        });
    }
}

/// One group of tokens: literals from the input, or text over an alphabet of 1 to 256 bytes
/// from the seed; a match of any length and distance (258 as 284 + 31 half the time); a long
/// match from the far half of the history (distance symbols 28 and 29 take 13 extra bits); a
/// [`run`] of a distance up to 300; a new pattern of up to 300 bytes and its run; a match
/// reaching as far as it can. Before any output, a literal.
fn group(c: &mut Bytes, rng: &mut Rng, t: &mut Tokens) {
    let reach = t.reach();
    match c.below(10) {
        0 => {
            for _ in 0..1 + c.below(32) {
                t.push(Token::Literal(c.below(256) as u8));
            }
        }
        1 => {
            let alphabet = 1 + c.below(256);
            for _ in 0..c.below(4096) {
                t.push(Token::Literal(rng.below(alphabet) as u8));
            }
        }
        2 if reach > 0 => {
            let len = 3 + c.below(256) as u16;
            let dist = 1 + c.below(reach) as u16;
            t.push(if len == 258 && c.one_in(2) {
                Token::Match284 { dist }
            } else {
                Token::Match { len, dist }
            });
        }
        3 if reach > 0 => {
            let dist = (reach - c.below(reach / 2 + 1)) as u16;
            let len = 227 + c.below(32) as u16;
            t.push(if c.one_in(4) {
                Token::Match284 { dist }
            } else {
                Token::Match { len, dist }
            });
        }
        4..=7 if reach > 0 => {
            let dist = 1 + c.below(reach.min(300)) as u16;
            run(c, rng, t, dist);
        }
        8 => {
            let period = 1 + c.below(300);
            let alphabet = 1 + c.below(256);
            for _ in 0..period {
                t.push(Token::Literal(rng.below(alphabet) as u8));
            }
            run(c, rng, t, period as u16);
        }
        9 if reach > 0 => {
            t.push(Token::Match {
                len: 3 + c.below(256) as u16,
                dist: reach as u16,
            });
        }
        _ => {
            t.push(Token::Literal(c.below(256) as u8));
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let (head, body) = data.split_at(data.len().min(HEADER));
    let mut header = [0u8; HEADER];
    header[..head.len()].copy_from_slice(head);
    let seed = u64::from_le_bytes(header[..8].try_into().unwrap());
    let mut rng = Rng(rng::Rng::new(seed));
    let mut c = Bytes(Unstructured::new(body));

    let mut t = Tokens {
        list: Vec::new(),
        out: 0,
        full: false,
    };
    let mut blocks = Vec::new();
    while blocks.len() < MAX_BLOCKS && !c.0.is_empty() && !t.full {
        let kind = c.below(8);
        for _ in 0..1 + c.below(8) {
            group(&mut c, &mut rng, &mut t);
        }
        let tokens = std::mem::take(&mut t.list);
        let codes = match kind {
            0 => Codes::Stored,
            1 | 2 => Codes::Fixed,
            _ => {
                // The block's own seed for its random code; as deep as it can be for 6 and 7.
                let code_seed = u64::from(c.0.arbitrary::<u16>().unwrap_or(0));
                let mut code_rng = Rng(rng::Rng::new(seed.rotate_left(16) ^ code_seed));
                dynamic_codes(&mut code_rng, &tokens, kind >= 6)
            }
        };
        blocks.push(Block { codes, tokens });
    }
    if blocks.is_empty() {
        blocks.push(Block {
            codes: Codes::Fixed,
            tokens: Vec::new(),
        });
    }
    let w = write(&blocks);

    let bound = bound(&mut Bytes(Unstructured::new(&header[8..14])), w.output.len());
    let len = w.stream.len();
    let place = len * usize::from(header[15]) / 256;
    let cuts = match header[14] % 4 {
        0 | 1 => cuts(&mut rng, len),
        2 => (place..(place + 64).min(len)).collect(),
        _ => vec![place],
    };
    check("whole", &w.stream, Some(&w.output), bound, &[]);
    if !cuts.is_empty() {
        check("cut", &w.stream, Some(&w.output), bound, &cuts);
    }
});
