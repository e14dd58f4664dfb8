//! The push-style raw-deflate engine (`spec/inflate.md` §2).
//!
//! One [`Inflater`] drives modelgate's block decoder (`inflate/decoder.rs`) over a
//! fixed output window: deflate's 32 KiB of history followed by room for one 64 KiB
//! chunk. Callers hand in compressed bytes in pieces of any size and receive output
//! chunks borrowed from the window, each already fed to a
//! [`ChunkDigest`](crate::digest::ChunkDigest) and each at most [`MAX_CHUNK`] bytes. When
//! the window is full its last 32 KiB move to its start. Memory is the window plus the
//! decoder state, whatever the input or output size (§2.7).

use crate::digest::Digests;
use crate::inflate::decoder::{Decoder, MAX_DISTANCE, Outcome, Status};
use crate::inflate::error::{InflateError, InflateReason};
use crate::inflate::stream::{self, Advance, Phase, Stream};
use alloc::boxed::Box;
use alloc::vec;

/// Largest output chunk the engine hands out (`spec/inflate.md` §2.7).
pub const MAX_CHUNK: usize = 1 << 16;

/// Size of the output window: deflate's 32 KiB of history plus one chunk
/// (`spec/inflate.md` §2.7).
pub const WINDOW_SIZE: usize = MAX_DISTANCE + MAX_CHUNK;

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
    pub(crate) fn excess_reason(&self) -> InflateReason {
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

/// Bounded, push-style raw deflate (RFC 1951) decoder over a 96 KiB output window
/// (`spec/inflate.md` §2): checks block structure, distances, the output bound with
/// one byte of lookahead, truncation and, at [`Inflater::finish`], the CRC-32.
pub struct Inflater {
    decoder: Box<Decoder>,
    window: Box<[u8]>,
    pos: usize,
    chunk_start: usize,
    chunk_len: usize,
    stream: Stream,
}

impl Inflater {
    /// A decoder for one stream under `bound`, computing CRC-32 and, when `sha256`
    /// is set, SHA-256 over the output (`spec/inflate.md` §2.5, §2.6). Allocates the
    /// window and the decoder state once; their size does not depend on input.
    pub fn new(bound: OutputBound, sha256: bool) -> Self {
        Inflater {
            decoder: Box::new(Decoder::new()),
            window: vec![0u8; WINDOW_SIZE].into_boxed_slice(),
            pos: 0,
            chunk_start: 0,
            chunk_len: 0,
            stream: Stream::new(bound, sha256),
        }
    }

    /// Prepares the engine for a new stream, keeping its allocations (§2.7).
    pub fn reset(&mut self, bound: OutputBound, sha256: bool) {
        self.decoder.reset();
        self.pos = 0;
        self.chunk_start = 0;
        self.chunk_len = 0;
        self.stream = Stream::new(bound, sha256);
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
    pub fn feed<F: FnMut(&[u8])>(&mut self, input: &[u8], more_input: bool, sink: F) -> Result<Progress, InflateError> {
        stream::feed(self, input, more_input, sink)
    }

    /// Completes the stream: requires that the final block was decoded (else
    /// [`InflateReason::Truncated`], §2.4) and, when `expected_crc` is given, that the
    /// output's CRC-32 equals it (§2.6). Returns the digests of the whole output.
    pub fn finish(&mut self, expected_crc: Option<u32>) -> Result<Digests, InflateError> {
        self.stream.finish(expected_crc)
    }

    /// The chunk handed out by the last step that produced output (§2.7).
    pub fn last_output(&self) -> &[u8] {
        let end = self.chunk_start.saturating_add(self.chunk_len);
        self.window.get(self.chunk_start..end).unwrap_or_default()
    }

    /// Compressed bytes consumed so far (the offset errors are reported at, §2.8).
    pub fn consumed(&self) -> u64 {
        self.stream.consumed
    }

    /// Output bytes handed out so far; never more than the bound (§2.5).
    pub fn produced(&self) -> u64 {
        self.stream.produced
    }

    /// The bound this stream is decoded under (§2.5).
    pub fn bound(&self) -> OutputBound {
        self.stream.bound
    }

    /// True when decoding failed on the end-of-block rule of §2.2, which the miniz_oxide
    /// oracle does not apply (tests and fuzzing only).
    #[cfg(any(test, fuzzing))]
    pub(crate) fn failed_on_missing_end_code(&self) -> bool {
        self.decoder.no_end_code
    }

    /// True once the final block was decoded and the size rules held (§2.3, §2.5).
    pub fn is_done(&self) -> bool {
        self.stream.is_done()
    }

    /// [`Inflater::step`] without the borrow of the chunk.
    pub(crate) fn advance(&mut self, input: &[u8], more_input: bool) -> Result<(usize, Event), InflateError> {
        if let Some(settled) = self.stream.settled() {
            return settled;
        }
        self.chunk_len = 0;
        self.slide();
        let remaining = self.stream.remaining();
        // spec/inflate.md §2.5: below the bound, never write past it; at the bound,
        // room for the one lookahead byte.
        let room = usize::try_from(remaining).unwrap_or(usize::MAX).max(1);
        let out_end = self
            .pos
            .saturating_add(room.min(MAX_CHUNK).min(WINDOW_SIZE.saturating_sub(self.pos)));
        let outcome = self
            .decoder
            .decompress(input, more_input, &mut self.window, self.pos, out_end);
        self.stream.consumed = self.stream.consumed.saturating_add(to_u64(outcome.used));
        match self.settle(&outcome, input.len()) {
            Ok(event) => Ok((outcome.used, event)),
            Err((reason, offset)) => Err(self.stream.fail_with(InflateError::new(reason, offset))),
        }
    }

    /// Once the window is full, keeps its last 32 KiB as history at its start (§2.7).
    /// Called before decoding, when the last chunk has been handed out. A window that
    /// repeats one period throughout keeps up to a period more, from a multiple of the
    /// period, and so already has that history (§2.7.1).
    fn slide(&mut self) {
        if self.pos < WINDOW_SIZE {
            return;
        }
        let from = self.decoder.run.slide_start(self.pos);
        if self.decoder.run.slide(from, self.pos) {
            self.window.copy_within(from..self.pos, 0);
        }
        self.pos -= from;
    }

    /// Applies the rules of §2 to the outcome of one decoder call; an error comes with
    /// its offset (§2.8).
    fn settle(&mut self, outcome: &Outcome, given: usize) -> Result<Event, (InflateReason, u64)> {
        let written = outcome.written;
        let produced = self.stream.produced.saturating_add(to_u64(written));
        // spec/inflate.md §2.5: the lookahead byte is caught before it is handed out;
        // the offset is the end of the code that produced it (§2.8).
        if produced > self.stream.bound.limit() {
            return Err((self.stream.bound.excess_reason(), outcome.position));
        }
        let ended = match outcome.status {
            Status::Done => true,
            Status::NeedsInput | Status::OutputFull => false,
            // spec/inflate.md §2.4: the input ended inside the stream.
            Status::Truncated => {
                return self.fail_after(InflateReason::Truncated, self.stream.consumed, written, produced);
            }
            // spec/inflate.md §2.2: invalid data.
            Status::Corrupt => return self.fail_after(InflateReason::Corrupt, outcome.position, written, produced),
        };
        if ended {
            // spec/inflate.md §2.5: an exact size must be reached when the stream ends.
            if self.stream.short_of_exact(produced) {
                return self.fail_after(InflateReason::TooShort, outcome.position, written, produced);
            }
            self.stream.phase = Phase::Ended;
        } else if written == 0 && outcome.used < given {
            // Defensive: the decoder always makes progress when it has room; never spin.
            return Err((InflateReason::Corrupt, outcome.position));
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
    /// before an error does not depend on how the input was split. This holds for
    /// invalid data (§2.2) and for a stream that ends short of its exact size (§2.5)
    /// alike.
    fn fail_after(
        &mut self,
        reason: InflateReason,
        offset: u64,
        written: usize,
        produced: u64,
    ) -> Result<Event, (InflateReason, u64)> {
        if written == 0 {
            return Err((reason, offset));
        }
        self.emit(written, produced);
        self.stream.phase = Phase::FailNext(InflateError::new(reason, offset));
        Ok(Event::Output)
    }

    /// Records the chunk just written at `pos`, digests it and moves on.
    fn emit(&mut self, written: usize, produced: u64) {
        self.chunk_start = self.pos;
        self.chunk_len = written;
        let end = self.pos.saturating_add(written);
        if let Some(chunk) = self.window.get(self.pos..end) {
            // spec/inflate.md §2.6: every chunk is digested before it is handed out;
            // §2.7.1: a chunk that repeats one period through the shortcut for it.
            match self.decoder.run.covers(self.pos, end) {
                Some(period) => self.stream.digest.update_periodic(chunk, period),
                None => self.stream.digest.update(chunk),
            }
        }
        self.stream.produced = produced;
        self.pos = end;
    }
}

impl Advance for Inflater {
    fn advance(&mut self, input: &[u8], more_input: bool) -> Result<(usize, Event), InflateError> {
        Inflater::advance(self, input, more_input)
    }

    fn last_output(&self) -> &[u8] {
        Inflater::last_output(self)
    }
}

impl core::fmt::Debug for Inflater {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Inflater")
            .field("bound", &self.stream.bound)
            .field("produced", &self.stream.produced)
            .field("consumed", &self.stream.consumed)
            .field("phase", &self.stream.phase)
            .finish_non_exhaustive()
    }
}

/// Widens a byte count; saturates on the (impossible) overflow.
pub(crate) fn to_u64(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}
