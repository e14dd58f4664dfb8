//! The engine as it was before modelgate's own decoder (`spec/inflate.md` §2.2 until
//! 30 Nov 2026): miniz_oxide's core decompressor over a 64 KiB ring. Kept, for tests
//! and fuzzing only, as the oracle the decoder is held to: the same output, reasons and
//! offsets for every stream (§2.8), except where `spec/inflate.md` §2.2 says otherwise.

use crate::digest::Digests;
use crate::inflate::error::{InflateError, InflateReason};
use crate::inflate::raw::{Event, OutputBound, Progress, to_u64};
use crate::inflate::stream::{self, Advance, Phase, Stream};
use alloc::boxed::Box;
use alloc::vec;
use miniz_oxide::inflate::TINFLStatus;
use miniz_oxide::inflate::core::{DecompressorOxide, decompress_with_limit, inflate_flags};

const MINIZ_RING: usize = 1 << 16;

/// Bounded, push-style raw deflate (RFC 1951) decoder over a 64 KiB ring
/// (`spec/inflate.md` §2): checks block structure, distances, the output bound with
/// one byte of lookahead, truncation and, at [`MinizInflater::finish`], the CRC-32.
pub struct MinizInflater {
    decomp: Box<DecompressorOxide>,
    ring: Box<[u8]>,
    ring_pos: usize,
    first_lap: bool,
    chunk_start: usize,
    chunk_len: usize,
    stream: Stream,
}

impl MinizInflater {
    /// A decoder for one stream under `bound`, computing CRC-32 and, when `sha256`
    /// is set, SHA-256 over the output (`spec/inflate.md` §2.5, §2.6). Allocates the
    /// ring and the decompressor state once; their size does not depend on input.
    pub fn new(bound: OutputBound, sha256: bool) -> Self {
        MinizInflater {
            decomp: Box::default(),
            ring: vec![0u8; MINIZ_RING].into_boxed_slice(),
            ring_pos: 0,
            first_lap: true,
            chunk_start: 0,
            chunk_len: 0,
            stream: Stream::new(bound, sha256),
        }
    }

    /// Runs the engine over all of `input`, handing every chunk to `sink`,
    /// until the input is used up or the stream ends (`spec/inflate.md` §2).
    pub fn feed<F: FnMut(&[u8])>(&mut self, input: &[u8], more_input: bool, sink: F) -> Result<Progress, InflateError> {
        stream::feed(self, input, more_input, sink)
    }

    /// Completes the stream as [`crate::inflate::Inflater::finish`] does (§2.4, §2.6).
    pub fn finish(&mut self, expected_crc: Option<u32>) -> Result<Digests, InflateError> {
        self.stream.finish(expected_crc)
    }

    /// The chunk handed out by the last step that produced output (§2.7).
    pub fn last_output(&self) -> &[u8] {
        let end = self.chunk_start.saturating_add(self.chunk_len);
        self.ring.get(self.chunk_start..end).unwrap_or_default()
    }

    /// One decompressor call and the rules of §2 applied to its outcome.
    pub(crate) fn advance(&mut self, input: &[u8], more_input: bool) -> Result<(usize, Event), InflateError> {
        if let Some(settled) = self.stream.settled() {
            return settled;
        }
        self.chunk_len = 0;
        let remaining = self.stream.remaining();
        let (status, used, written) = if remaining > 0 {
            // spec/inflate.md §2.5: below the bound, never write past it.
            let room = usize::try_from(remaining).unwrap_or(usize::MAX);
            let out_max = room.min(MINIZ_RING.saturating_sub(self.ring_pos));
            self.decompress(input, more_input, out_max)
        } else {
            self.decompress_at_bound(input, more_input)
        };
        self.stream.consumed = self.stream.consumed.saturating_add(to_u64(used));
        let no_progress = written == 0 && (used < input.len() || status == TINFLStatus::HasMoreOutput);
        match self.settle(status, written, no_progress) {
            Ok(event) => Ok((used, event)),
            Err(reason) => Err(self.stream.fail(reason)),
        }
    }

    /// Applies the rules of §2 to the outcome of one decompressor call.
    fn settle(&mut self, status: TINFLStatus, written: usize, no_progress: bool) -> Result<Event, InflateReason> {
        let produced = self.stream.produced.saturating_add(to_u64(written));
        // spec/inflate.md §2.5: the lookahead byte is caught before it is handed out.
        if produced > self.stream.bound.limit() {
            return Err(self.stream.bound.excess_reason());
        }
        let ended = match status_outcome(status) {
            Ok(ended) => ended,
            Err(reason) => return self.fail_after(reason, written, produced),
        };
        if ended {
            // spec/inflate.md §2.5: an exact size must be reached when the stream ends.
            if self.stream.short_of_exact(produced) {
                return self.fail_after(InflateReason::TooShort, written, produced);
            }
            self.stream.phase = Phase::Ended;
        } else if no_progress {
            // Defensive: miniz_oxide always makes progress here; never spin.
            return Err(InflateReason::Corrupt);
        }
        if written == 0 {
            return Ok(if ended { Event::Done } else { Event::NeedInput });
        }
        self.emit(written, produced);
        Ok(Event::Output)
    }

    /// Fails with `reason` once the `written` bytes of this call are handed out
    /// (`spec/inflate.md` §2.8): output written in the call that found the error reaches
    /// the caller first and the error comes with the next call, so what a caller sees
    /// before an error does not depend on how the input was split. This holds for a
    /// decompressor failure (§2.2, §2.4) and for a stream that ends short of its exact
    /// size (§2.5) alike.
    fn fail_after(&mut self, reason: InflateReason, written: usize, produced: u64) -> Result<Event, InflateReason> {
        if written == 0 {
            return Err(reason);
        }
        self.emit(written, produced);
        self.stream.phase = Phase::FailNext(InflateError::new(reason, self.stream.consumed));
        Ok(Event::Output)
    }

    /// Records the chunk just written at `ring_pos`, digests it and moves the ring on.
    fn emit(&mut self, written: usize, produced: u64) {
        self.chunk_start = self.ring_pos;
        self.chunk_len = written;
        let end = self.ring_pos.saturating_add(written);
        if let Some(chunk) = self.ring.get(self.ring_pos..end) {
            // spec/inflate.md §2.6: every chunk is digested before it is handed out.
            self.stream.digest.update(chunk);
        }
        self.stream.produced = produced;
        self.ring_pos = end;
        if self.ring_pos >= MINIZ_RING {
            self.ring_pos = 0;
            self.first_lap = false;
        }
    }

    /// One decompressor call writing at most `out_max` bytes at `ring_pos` (§2.7).
    fn decompress(&mut self, input: &[u8], more_input: bool, out_max: usize) -> (TINFLStatus, usize, usize) {
        let flags = self.flags(more_input);
        decompress_with_limit(&mut self.decomp, input, &mut self.ring, self.ring_pos, out_max, flags)
    }

    /// Decoding once the output has reached the bound exactly (§2.5): the stream may
    /// still end, but any further byte is an error. The decompressor gets room for
    /// one output byte (the lookahead byte); it first runs on the bits it already
    /// holds, then on one new input byte per call. miniz_oxide may read a byte before
    /// writing output it could already produce, so this order makes the offset of an
    /// excess byte the shortest prefix of the stream that produces it, however the
    /// caller split the input (§2.8).
    fn decompress_at_bound(&mut self, input: &[u8], more_input: bool) -> (TINFLStatus, usize, usize) {
        let held = self.decompress(&[], more_input || !input.is_empty(), 1);
        if held.0 != TINFLStatus::NeedsMoreInput || held.2 > 0 || input.is_empty() {
            return held;
        }
        let mut used = 0usize;
        loop {
            let rest = input.get(used..).unwrap_or_default();
            let byte = rest.get(..1).unwrap_or_default();
            let more = more_input || rest.len() > 1;
            let (status, n, written) = self.decompress(byte, more, 1);
            used = used.saturating_add(n);
            let next_byte = status == TINFLStatus::NeedsMoreInput && n > 0 && rest.len() > 1;
            if written > 0 || !next_byte {
                return (status, used, written);
            }
        }
    }

    /// Decompressor flags for the next call.
    fn flags(&self, more_input: bool) -> u32 {
        let mut flags = 0;
        if more_input {
            flags |= inflate_flags::TINFL_FLAG_HAS_MORE_INPUT;
        }
        if self.first_lap {
            // spec/inflate.md §2.2: until the ring has filled once, decode in
            // non-wrapping mode so that the decompressor itself rejects any distance
            // reaching before the first output byte (in wrapping mode it would read
            // stale ring bytes instead).
            flags |= inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
        }
        flags
    }
}

impl Advance for MinizInflater {
    fn advance(&mut self, input: &[u8], more_input: bool) -> Result<(usize, Event), InflateError> {
        MinizInflater::advance(self, input, more_input)
    }

    fn last_output(&self) -> &[u8] {
        MinizInflater::last_output(self)
    }
}

/// Maps a decompressor status to "stream ended" (true), "keep going" (false) or a
/// failure reason (§2.2, §2.4).
fn status_outcome(status: TINFLStatus) -> Result<bool, InflateReason> {
    match status {
        TINFLStatus::Done => Ok(true),
        TINFLStatus::NeedsMoreInput | TINFLStatus::HasMoreOutput => Ok(false),
        // spec/inflate.md §2.4: the input ended inside the stream.
        TINFLStatus::FailedCannotMakeProgress => Err(InflateReason::Truncated),
        // spec/inflate.md §2.2: anything else is invalid data.
        _ => Err(InflateReason::Corrupt),
    }
}

/// What one engine made of a stream: the output handed out, the input consumed when
/// the stream ended (if it did), and the final result (the CRC-32, or the error).
#[derive(Debug, PartialEq, Eq)]
pub struct Run {
    /// Every byte handed out, in order.
    pub output: alloc::vec::Vec<u8>,
    /// Input consumed when the stream ended; `None` if it did not end.
    pub consumed: Option<usize>,
    /// The output's CRC-32, or the error.
    pub result: Result<u32, InflateError>,
    /// The engine failed on the end-of-block rule of `spec/inflate.md` §2.2.
    pub no_end_code: bool,
}

/// Whether modelgate's run `ours` agrees with the oracle's run `theirs` of the same
/// stream: identical, except where `ours` applied the end-of-block rule (§2.2) that
/// miniz_oxide lacks. There `ours` must be `Corrupt`, the oracle must reject the stream
/// too (later; it never accepts one), and what `ours` handed out must begin what the
/// oracle handed out.
pub fn agrees(ours: &Run, theirs: &Run) -> bool {
    if !ours.no_end_code {
        return ours == theirs;
    }
    let corrupt = matches!(ours.result, Err(e) if e.reason == InflateReason::Corrupt);
    corrupt && theirs.result.is_err() && theirs.output.starts_with(&ours.output)
}

/// Cuts `stream` into pieces at the sorted positions `cuts`.
fn pieces<'s>(stream: &'s [u8], cuts: &[usize]) -> alloc::vec::Vec<&'s [u8]> {
    let mut out = alloc::vec::Vec::new();
    let mut at = 0usize;
    for &c in cuts.iter().chain(core::iter::once(&stream.len())) {
        let c = c.clamp(at, stream.len());
        out.push(stream.get(at..c).unwrap_or_default());
        at = c;
    }
    out
}

/// The two engines, as [`drive`] uses them.
trait Engine {
    fn no_end_code(&self) -> bool {
        false
    }
    fn feed_piece(
        &mut self,
        piece: &[u8],
        more: bool,
        output: &mut alloc::vec::Vec<u8>,
    ) -> Result<Progress, InflateError>;
    fn crc(&mut self) -> Result<u32, InflateError>;
}

/// The same `feed` and `finish` on either engine.
macro_rules! engine {
    ($engine:ty $(, $no_end_code:expr)?) => {
        impl Engine for $engine {
            $(fn no_end_code(&self) -> bool {
                $no_end_code(self)
            })?
            fn feed_piece(
                &mut self,
                piece: &[u8],
                more: bool,
                output: &mut alloc::vec::Vec<u8>,
            ) -> Result<Progress, InflateError> {
                self.feed(piece, more, |c| output.extend_from_slice(c))
            }
            fn crc(&mut self) -> Result<u32, InflateError> {
                self.finish(None).map(|d| d.crc32)
            }
        }
    };
}

engine!(
    crate::inflate::Inflater,
    crate::inflate::Inflater::failed_on_missing_end_code
);
engine!(MinizInflater);

/// Decodes `stream`, cut at `cuts`, under `bound` with modelgate's engine.
pub fn run_engine(stream: &[u8], bound: OutputBound, cuts: &[usize]) -> Run {
    drive(&mut crate::inflate::Inflater::new(bound, false), &pieces(stream, cuts))
}

/// The same with the miniz_oxide engine this module keeps.
pub fn run_reference(stream: &[u8], bound: OutputBound, cuts: &[usize]) -> Run {
    drive(&mut MinizInflater::new(bound, false), &pieces(stream, cuts))
}

fn drive<E: Engine>(engine: &mut E, parts: &[&[u8]]) -> Run {
    let mut output = alloc::vec::Vec::new();
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
                    no_end_code: engine.no_end_code(),
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
                        no_end_code: engine.no_end_code(),
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
        no_end_code: engine.no_end_code(),
    }
}

/// One generated case: a stream, a bound and the cuts it is fed with.
#[derive(Debug)]
pub struct Case {
    /// The deflate stream.
    pub stream: alloc::vec::Vec<u8>,
    /// The bound it is decoded under.
    pub bound: OutputBound,
    /// Sorted positions where the input is cut into pieces.
    pub cuts: alloc::vec::Vec<usize>,
}

/// Data of one of several shapes: random, text, runs, skewed bytes (for codes longer
/// than the root table), mixed, one byte, short periods repeated at length, long runs of
/// a few bytes or of a period of up to 300 bytes broken by text (runs that fill and
/// slide the window, §2.7.1).
pub fn data<C: crate::test_docs::Choose>(c: &mut C) -> alloc::vec::Vec<u8> {
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
    let mut out = alloc::vec::Vec::new();
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
                let period: alloc::vec::Vec<u8> = (0..2 + c.below(39)).map(|_| c.below(256) as u8).collect();
                let n = c.below(3_000);
                out.extend(period.iter().cycle().take(n));
            }
            _ => {
                // A period of one to 300 bytes (one byte half the time), past the longest
                // period a run records (§2.7.1).
                let n = if c.one_in(2) { 1 } else { 1 + c.below(300) };
                let period: alloc::vec::Vec<u8> = (0..n).map(|_| c.below(3) as u8).collect();
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
    let mut cuts = alloc::vec::Vec::new();
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
fn damage<C: crate::test_docs::Choose>(c: &mut C, s: &mut alloc::vec::Vec<u8>) {
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
