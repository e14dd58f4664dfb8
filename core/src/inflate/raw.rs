//! The push-style raw-deflate engine (`spec/inflate.md` §2).
//!
//! One [`Inflater`] drives miniz_oxide's core decompressor over a fixed 64 KiB ring.
//! Callers hand in compressed bytes in pieces of any size and receive output chunks
//! borrowed from the ring, each already fed to a [`ChunkDigest`] and each at most
//! [`MAX_CHUNK`] bytes. Memory is the ring plus the decompressor state, whatever the
//! input or output size (§2.7).

use crate::digest::{ChunkDigest, Digests};
use crate::inflate::error::{InflateError, InflateReason};
use alloc::boxed::Box;
use alloc::vec;
use miniz_oxide::inflate::TINFLStatus;
use miniz_oxide::inflate::core::{DecompressorOxide, decompress_with_limit, inflate_flags};

/// Size of the output ring: a power of two, twice deflate's 32 KiB window
/// (`spec/inflate.md` §2.7).
pub const RING_SIZE: usize = 1 << 16;

/// Largest output chunk the engine hands out (`spec/inflate.md` §2.7).
pub const MAX_CHUNK: usize = RING_SIZE;

/// How much output a stream may produce (`spec/inflate.md` §2.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputBound {
    /// The stream must produce exactly this many bytes (a ZIP member's declared
    /// size): more is [`InflateReason::TooLong`], fewer is [`InflateReason::TooShort`].
    Exact(u64),
    /// The stream may produce at most this many bytes (a caller's limit): more is
    /// [`InflateReason::LimitExceeded`].
    AtMost(u64),
}

impl OutputBound {
    /// The largest output the bound admits (`spec/inflate.md` §2.5).
    pub fn limit(&self) -> u64 {
        match *self {
            OutputBound::Exact(n) | OutputBound::AtMost(n) => n,
        }
    }

    /// The reason reported when the output passes [`OutputBound::limit`] (§2.5).
    fn excess_reason(&self) -> InflateReason {
        match self {
            OutputBound::Exact(_) => InflateReason::TooLong,
            OutputBound::AtMost(_) => InflateReason::LimitExceeded,
        }
    }
}

/// What one [`Inflater::step`] produced (`spec/inflate.md` §2.7).
#[derive(Debug, PartialEq, Eq)]
pub enum Step<'a> {
    /// A chunk of output (1 to [`MAX_CHUNK`] bytes), already digested, valid until
    /// the next call that changes the engine.
    Output(&'a [u8]),
    /// Every given byte was consumed and the stream is not finished; only returned
    /// when the caller said more input follows.
    NeedInput,
    /// The final block is complete and the size rules of §2.5 hold.
    Done,
}

/// Result of [`Inflater::feed`]: how far it got (`spec/inflate.md` §2.3, §2.7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Bytes of the given slice the engine consumed.
    pub consumed: usize,
    /// True when the stream ended inside the slice (§2.3: any bytes after
    /// `consumed` are not part of the stream).
    pub done: bool,
}

/// Step result without a borrow, so that callers inside this crate can loop and
/// borrow the chunk afterwards through [`Inflater::last_output`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Event {
    Output,
    NeedInput,
    Done,
}

#[derive(Clone, Copy, Debug)]
enum Phase {
    Running,
    Ended,
    /// The decompressor failed after writing output: that output is handed out first,
    /// the failure on the next call (§2.8).
    FailNext(InflateError),
    Failed(InflateError),
    Finished(Digests),
}

/// Bounded, push-style raw deflate (RFC 1951) decoder over a 64 KiB ring
/// (`spec/inflate.md` §2): checks block structure, distances, the output bound with
/// one byte of lookahead, truncation and, at [`Inflater::finish`], the CRC-32.
pub struct Inflater {
    decomp: Box<DecompressorOxide>,
    ring: Box<[u8]>,
    ring_pos: usize,
    first_lap: bool,
    chunk_start: usize,
    chunk_len: usize,
    bound: OutputBound,
    produced: u64,
    consumed: u64,
    digest: ChunkDigest,
    phase: Phase,
}

impl Inflater {
    /// A decoder for one stream under `bound`, computing CRC-32 and, when `sha256`
    /// is set, SHA-256 over the output (`spec/inflate.md` §2.5, §2.6). Allocates the
    /// ring and the decompressor state once; their size does not depend on input.
    pub fn new(bound: OutputBound, sha256: bool) -> Self {
        Inflater {
            decomp: Box::default(),
            ring: vec![0u8; RING_SIZE].into_boxed_slice(),
            ring_pos: 0,
            first_lap: true,
            chunk_start: 0,
            chunk_len: 0,
            bound,
            produced: 0,
            consumed: 0,
            digest: new_digest(sha256),
            phase: Phase::Running,
        }
    }

    /// Prepares the engine for a new stream, keeping its allocations (§2.7).
    pub fn reset(&mut self, bound: OutputBound, sha256: bool) {
        self.decomp.init();
        self.ring_pos = 0;
        self.first_lap = true;
        self.chunk_start = 0;
        self.chunk_len = 0;
        self.bound = bound;
        self.produced = 0;
        self.consumed = 0;
        self.digest = new_digest(sha256);
        self.phase = Phase::Running;
    }

    /// Decodes from `input` until one output chunk is ready, the input is used up or
    /// the stream ends (`spec/inflate.md` §2). Returns how many bytes of `input` were
    /// consumed (the caller passes the rest again) and what happened. `more_input`
    /// says whether bytes beyond `input` may follow; when false, running out of input
    /// is [`InflateReason::Truncated`] (§2.4). After an error every call returns it again.
    pub fn step(&mut self, input: &[u8], more_input: bool) -> Result<(usize, Step<'_>), InflateError> {
        let (used, event) = self.advance(input, more_input)?;
        let step = match event {
            Event::Output => Step::Output(self.last_output()),
            Event::NeedInput => Step::NeedInput,
            Event::Done => Step::Done,
        };
        Ok((used, step))
    }

    /// Runs [`Inflater::step`] over all of `input`, handing every chunk to `sink`,
    /// until the input is used up or the stream ends (`spec/inflate.md` §2).
    pub fn feed<F: FnMut(&[u8])>(
        &mut self,
        input: &[u8],
        more_input: bool,
        mut sink: F,
    ) -> Result<Progress, InflateError> {
        let mut pos = 0usize;
        loop {
            let rest = input.get(pos..).unwrap_or_default();
            let (used, event) = self.advance(rest, more_input)?;
            pos = pos.saturating_add(used);
            match event {
                Event::Output => sink(self.last_output()),
                Event::NeedInput => {
                    return Ok(Progress {
                        consumed: pos,
                        done: false,
                    });
                }
                Event::Done => {
                    return Ok(Progress {
                        consumed: pos,
                        done: true,
                    });
                }
            }
        }
    }

    /// Completes the stream: requires that the final block was decoded (else
    /// [`InflateReason::Truncated`], §2.4) and, when `expected_crc` is given, that the
    /// output's CRC-32 equals it (§2.6). Returns the digests of the whole output.
    pub fn finish(&mut self, expected_crc: Option<u32>) -> Result<Digests, InflateError> {
        let digests = match self.phase {
            Phase::Failed(e) | Phase::FailNext(e) => return Err(self.fail_with(e)),
            // spec/inflate.md §2.4: the final block must have been decoded.
            Phase::Running => return Err(self.fail(InflateReason::Truncated)),
            Phase::Finished(d) => d,
            Phase::Ended => {
                let digest = core::mem::replace(&mut self.digest, ChunkDigest::crc_only());
                digest.finish()
            }
        };
        self.phase = Phase::Finished(digests);
        match expected_crc {
            // spec/inflate.md §2.6: declared CRC-32 must match the output.
            Some(expected) if expected != digests.crc32 => Err(self.fail(InflateReason::CrcMismatch {
                expected,
                actual: digests.crc32,
            })),
            _ => Ok(digests),
        }
    }

    /// The chunk handed out by the last step that produced output (§2.7).
    pub fn last_output(&self) -> &[u8] {
        let end = self.chunk_start.saturating_add(self.chunk_len);
        self.ring.get(self.chunk_start..end).unwrap_or_default()
    }

    /// Compressed bytes consumed so far (the offset errors are reported at, §2.8).
    pub fn consumed(&self) -> u64 {
        self.consumed
    }

    /// Output bytes handed out so far; never more than the bound (§2.5).
    pub fn produced(&self) -> u64 {
        self.produced
    }

    /// The bound this stream is decoded under (§2.5).
    pub fn bound(&self) -> OutputBound {
        self.bound
    }

    /// True once the final block was decoded and the size rules held (§2.3, §2.5).
    pub fn is_done(&self) -> bool {
        matches!(self.phase, Phase::Ended | Phase::Finished(_))
    }

    /// [`Inflater::step`] without the borrow of the chunk.
    pub(crate) fn advance(&mut self, input: &[u8], more_input: bool) -> Result<(usize, Event), InflateError> {
        match self.phase {
            Phase::Running => {}
            Phase::Failed(e) => return Err(e),
            Phase::FailNext(e) => return Err(self.fail_with(e)),
            Phase::Ended | Phase::Finished(_) => return Ok((0, Event::Done)),
        }
        self.chunk_len = 0;
        let remaining = self.bound.limit().saturating_sub(self.produced);
        let (status, used, written) = if remaining > 0 {
            // spec/inflate.md §2.5: below the bound, never write past it.
            let room = usize::try_from(remaining).unwrap_or(usize::MAX);
            let out_max = room.min(RING_SIZE.saturating_sub(self.ring_pos));
            self.decompress(input, more_input, out_max)
        } else {
            self.decompress_at_bound(input, more_input)
        };
        self.consumed = self.consumed.saturating_add(to_u64(used));
        let no_progress = written == 0 && (used < input.len() || status == TINFLStatus::HasMoreOutput);
        match self.settle(status, written, no_progress) {
            Ok(event) => Ok((used, event)),
            Err(reason) => Err(self.fail(reason)),
        }
    }

    /// Applies the rules of §2 to the outcome of one decompressor call.
    fn settle(&mut self, status: TINFLStatus, written: usize, no_progress: bool) -> Result<Event, InflateReason> {
        let produced = self.produced.saturating_add(to_u64(written));
        // spec/inflate.md §2.5: the lookahead byte is caught before it is handed out.
        if produced > self.bound.limit() {
            return Err(self.bound.excess_reason());
        }
        let ended = match status_outcome(status) {
            Ok(ended) => ended,
            Err(reason) => return self.fail_after(reason, written, produced),
        };
        if ended {
            // spec/inflate.md §2.5: an exact size must be reached when the stream ends.
            if let OutputBound::Exact(n) = self.bound
                && produced < n
            {
                return self.fail_after(InflateReason::TooShort, written, produced);
            }
            self.phase = Phase::Ended;
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
        self.phase = Phase::FailNext(InflateError::new(reason, self.consumed));
        Ok(Event::Output)
    }

    /// Records the chunk just written at `ring_pos`, digests it and moves the ring on.
    fn emit(&mut self, written: usize, produced: u64) {
        self.chunk_start = self.ring_pos;
        self.chunk_len = written;
        let end = self.ring_pos.saturating_add(written);
        if let Some(chunk) = self.ring.get(self.ring_pos..end) {
            // spec/inflate.md §2.6: every chunk is digested before it is handed out.
            self.digest.update(chunk);
        }
        self.produced = produced;
        self.ring_pos = end;
        if self.ring_pos >= RING_SIZE {
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

    /// Makes `reason` sticky at the current offset and returns the error.
    fn fail(&mut self, reason: InflateReason) -> InflateError {
        self.fail_with(InflateError::new(reason, self.consumed))
    }

    /// Makes `error` sticky and returns it.
    fn fail_with(&mut self, error: InflateError) -> InflateError {
        self.phase = Phase::Failed(error);
        error
    }
}

impl core::fmt::Debug for Inflater {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Inflater")
            .field("bound", &self.bound)
            .field("produced", &self.produced)
            .field("consumed", &self.consumed)
            .field("phase", &self.phase)
            .finish_non_exhaustive()
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

fn new_digest(sha256: bool) -> ChunkDigest {
    if sha256 {
        ChunkDigest::with_sha256()
    } else {
        ChunkDigest::crc_only()
    }
}

/// Widens a byte count; saturates on the (impossible) overflow.
pub(crate) fn to_u64(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}
