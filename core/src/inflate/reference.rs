//! One stream decoded, cut at given positions, under a bound, for tests and fuzzing only
//! (built under `cfg(test)` and cargo-fuzz's `--cfg fuzzing`): [`run_engine`] with the
//! engine of this build. With the `fast-inflate` feature also [`run_reference`], the
//! miniz_oxide engine of the default build, which the feature's decoder must match on
//! every stream (the same bytes handed out, input consumed and result, `spec/inflate.md`
//! §10), and [`case`], the generated streams of the test that holds it to that.

use crate::inflate::error::InflateError;
use crate::inflate::raw::{Inflater, OutputBound, Progress};
use alloc::vec::Vec;

/// What one engine made of a stream: the output handed out, the input consumed when
/// the stream ended (if it did), and the final result (the CRC-32, or the error).
#[derive(Debug, PartialEq, Eq)]
pub struct Run {
    /// Every byte handed out, in order.
    pub output: Vec<u8>,
    /// Input consumed when the stream ended; `None` if it did not end.
    pub consumed: Option<usize>,
    /// The output's CRC-32, or the error.
    pub result: Result<u32, InflateError>,
}

/// Decodes `stream`, cut at `cuts`, under `bound` with the engine of this build.
pub fn run_engine(stream: &[u8], bound: OutputBound, cuts: &[usize]) -> Run {
    drive(&mut Inflater::new(bound, false), &pieces(stream, cuts))
}

/// The same with the miniz_oxide engine of the default build (§10).
#[cfg(feature = "fast-inflate")]
pub fn run_reference(stream: &[u8], bound: OutputBound, cuts: &[usize]) -> Run {
    use crate::inflate::stream::Engine;
    drive(
        &mut crate::inflate::miniz::Miniz::new(bound, false),
        &pieces(stream, cuts),
    )
}

/// Cuts `stream` into pieces at the sorted positions `cuts`.
fn pieces<'s>(stream: &'s [u8], cuts: &[usize]) -> Vec<&'s [u8]> {
    let mut out = Vec::new();
    let mut at = 0usize;
    for &c in cuts.iter().chain(core::iter::once(&stream.len())) {
        let c = c.clamp(at, stream.len());
        out.push(stream.get(at..c).unwrap_or_default());
        at = c;
    }
    out
}

/// `feed` and `finish` of an engine, as [`drive`] uses them.
trait Decode {
    fn feed_piece(&mut self, piece: &[u8], more: bool, output: &mut Vec<u8>) -> Result<Progress, InflateError>;
    fn crc(&mut self) -> Result<u32, InflateError>;
}

impl Decode for Inflater {
    fn feed_piece(&mut self, piece: &[u8], more: bool, output: &mut Vec<u8>) -> Result<Progress, InflateError> {
        self.feed(piece, more, |c| output.extend_from_slice(c))
    }
    fn crc(&mut self) -> Result<u32, InflateError> {
        self.finish(None).map(|d| d.crc32)
    }
}

#[cfg(feature = "fast-inflate")]
impl Decode for crate::inflate::miniz::Miniz {
    fn feed_piece(&mut self, piece: &[u8], more: bool, output: &mut Vec<u8>) -> Result<Progress, InflateError> {
        crate::inflate::stream::feed(self, piece, more, |c| output.extend_from_slice(c))
    }
    fn crc(&mut self) -> Result<u32, InflateError> {
        use crate::inflate::stream::Engine;
        self.stream_mut().finish(None).map(|d| d.crc32)
    }
}

/// Feeds `parts` in order, the last one without more input to follow, until the stream
/// ends or fails; then finishes it.
fn drive<E: Decode>(engine: &mut E, parts: &[&[u8]]) -> Run {
    let mut output = Vec::new();
    let mut consumed = 0usize;
    let count = parts.len();
    for (i, piece) in parts.iter().enumerate() {
        let more = i + 1 < count;
        match engine.feed_piece(piece, more, &mut output) {
            Err(e) => {
                return Run {
                    output,
                    consumed: None,
                    result: Err(e),
                };
            }
            Ok(p) => {
                consumed += p.consumed;
                if p.done {
                    let result = engine.crc();
                    return Run {
                        output,
                        consumed: Some(consumed),
                        result,
                    };
                }
            }
        }
    }
    let result = engine.crc();
    Run {
        output,
        consumed: None,
        result,
    }
}

/// One generated case: a stream, a bound and the cuts it is fed with.
#[cfg(feature = "fast-inflate")]
#[derive(Debug)]
pub struct Case {
    /// The deflate stream.
    pub stream: Vec<u8>,
    /// The bound it is decoded under.
    pub bound: OutputBound,
    /// Sorted positions where the input is cut into pieces.
    pub cuts: Vec<usize>,
}

/// Data of one of several shapes: random, text, runs, skewed bytes (for codes longer
/// than the root table), mixed, one byte, short periods repeated at length, long runs of
/// a few bytes or of a period of up to 300 bytes broken by text (runs that fill and
/// slide the window, §2.7.1).
#[cfg(feature = "fast-inflate")]
pub fn data<C: crate::test_docs::Choose>(c: &mut C) -> Vec<u8> {
    const WORDS: [&str; 8] = [
        "tree",
        "node",
        "\"left\":",
        "0.125",
        ", ",
        "{\"id\":",
        "]}",
        "threshold",
    ];
    let mut out = Vec::new();
    let len = match c.below(4) {
        0 => c.below(64),
        1 => c.below(4_000),
        2 => c.below(40_000),
        _ => c.below(200_000),
    };
    let shape = c.below(8);
    while out.len() < len {
        match shape {
            0 => out.push(c.below(256) as u8),
            1 => out.extend_from_slice(c.pick(&WORDS).as_bytes()),
            2 => {
                let b = c.below(4) as u8;
                out.extend(core::iter::repeat_n(b, c.below(600)));
            }
            3 => {
                let mut n = 0u8;
                while n < 40 && !c.one_in(2) {
                    n += 1;
                }
                out.push(n);
            }
            4 => {
                if c.one_in(3) {
                    out.push(c.below(256) as u8);
                } else {
                    out.extend_from_slice(c.pick(&WORDS).as_bytes());
                }
            }
            5 => out.push(b'a'),
            6 => {
                // A short period repeated at length (matches of distance 2 to 40).
                let period: Vec<u8> = (0..2 + c.below(39)).map(|_| c.below(256) as u8).collect();
                let n = c.below(3_000);
                out.extend(period.iter().cycle().take(n));
            }
            _ => {
                // A period of one to 300 bytes (one byte half the time), past the longest
                // period a run records (§2.7.1).
                let n = if c.one_in(2) { 1 } else { 1 + c.below(300) };
                let period: Vec<u8> = (0..n).map(|_| c.below(3) as u8).collect();
                out.extend(period.iter().cycle().take(c.below(150_000)));
                if c.one_in(2) {
                    out.extend_from_slice(c.pick(&WORDS).as_bytes());
                }
            }
        }
    }
    out.truncate(len);
    out
}

/// A stream for `data`: miniz_oxide at a level from 0 (stored) to 10, or modelgate's
/// writer; then, half the time, damaged.
#[cfg(feature = "fast-inflate")]
pub fn case<C: crate::test_docs::Choose>(c: &mut C) -> Case {
    let data = data(c);
    let mut stream = if c.one_in(5) {
        crate::inflate::deflate(&data, usize::MAX).unwrap_or_default()
    } else {
        miniz_oxide::deflate::compress_to_vec(&data, c.below(11) as u8)
    };
    let mut len = data.len() as u64;
    if !c.one_in(2) {
        damage(c, &mut stream);
    }
    if c.one_in(8) {
        len = c.below(300_000) as u64;
    }
    let k = c.below(3) as u64;
    let bound = match c.below(6) {
        0 => OutputBound::Exact(len),
        1 => OutputBound::Exact(len.saturating_sub(k + 1)),
        2 => OutputBound::Exact(len + k + 1),
        3 => OutputBound::AtMost(len),
        4 => OutputBound::AtMost(len.saturating_sub(k + 1)),
        _ => OutputBound::AtMost(len + k),
    };
    let mut cuts = Vec::new();
    match c.below(4) {
        0 => {}
        1 if stream.len() < 3_000 => cuts.extend(1..stream.len()),
        _ => {
            for _ in 0..c.below(6) {
                cuts.push(c.below(stream.len().max(1)));
            }
            cuts.sort_unstable();
        }
    }
    Case { stream, bound, cuts }
}

/// Flips bits, cuts, overwrites, inserts or appends bytes, or replaces the start with
/// a random dynamic block header.
#[cfg(feature = "fast-inflate")]
fn damage<C: crate::test_docs::Choose>(c: &mut C, s: &mut Vec<u8>) {
    let at = c.below(s.len().max(1));
    match c.below(6) {
        0 => {
            for _ in 0..=c.below(3) {
                let i = c.below(s.len().max(1));
                if let Some(b) = s.get_mut(i) {
                    *b ^= 1 << c.below(8);
                }
            }
        }
        1 => s.truncate(at),
        2 => {
            if let Some(b) = s.get_mut(at) {
                *b = c.below(256) as u8;
            }
        }
        3 => {
            for _ in 0..=c.below(4) {
                s.insert(at.min(s.len()), c.below(256) as u8);
            }
        }
        4 => s.extend((0..=c.below(8)).map(|_| c.below(256) as u8)),
        _ => {
            // BFINAL at random, BTYPE 2, then random bits.
            let n = 1 + c.below(40);
            for (i, b) in s.iter_mut().take(n).enumerate() {
                *b = c.below(256) as u8;
                if i == 0 {
                    *b = (*b & !0b110) | 0b100;
                }
            }
        }
    }
}
