//! What a push-style deflate engine owes its caller, whatever decodes the bits
//! (`spec/inflate.md` §2.3–§2.8): the output bound and the counts held against it, the
//! order in which one decoder call's outcome becomes output, an error or the end, the
//! digest of every chunk handed out, the sticky failure, and `feed` and `finish` on top
//! of one decoding step. The engine of the default build (`inflate/miniz.rs`) and the
//! one of the `fast-inflate` feature (`inflate/fast/`) both keep one [`Stream`] and settle
//! each call through [`Stream::settle`], so these rules are written once.

use crate::digest::{ChunkDigest, Digests};
use crate::inflate::error::{InflateError, InflateReason};
use crate::inflate::raw::{OutputBound, Progress, to_u64};
use crate::invariant;

/// Step result without a borrow, so that callers inside this crate can loop and
/// borrow the chunk afterwards through the engine's `last_output`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Event {
    /// A chunk of output is ready.
    Output,
    /// Every given byte was consumed and the stream is not finished.
    NeedInput,
    /// The final block is complete and the size rules of §2.5 hold.
    Done,
}

/// What stopped one decoder call, as the rules of §2 see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Status {
    /// The final block ended (§2.1).
    Done,
    /// The output reached the room the call was given.
    OutputFull,
    /// All input was consumed and more is needed (only when more was announced).
    NeedsInput,
    /// The input ended inside the stream and no more was announced (§2.4).
    Truncated,
    /// Invalid data (§2.2).
    Corrupt,
}

/// Where a stream is (§2.3, §2.8).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Phase {
    /// Decoding.
    Running,
    /// The final block was decoded and the size rules held; `finish` not yet called.
    Ended,
    /// Decoding failed after writing output: that output is handed out first, the
    /// failure on the next call (§2.8).
    FailNext(InflateError),
    /// Failed: every later call returns this error (§2.8).
    Failed(InflateError),
    /// `finish` succeeded with these digests.
    Finished(Digests),
}

/// The state of one stream apart from the decoder's own: its bound, the bytes handed out
/// and consumed so far, the running digest and the [`Phase`].
pub(crate) struct Stream {
    pub(crate) bound: OutputBound,
    pub(crate) produced: u64,
    pub(crate) consumed: u64,
    pub(crate) digest: ChunkDigest,
    pub(crate) phase: Phase,
}

impl Stream {
    /// A stream not yet started under `bound`, digesting CRC-32 and, when `sha256` is
    /// set, SHA-256 (§2.5, §2.6).
    pub(crate) fn new(bound: OutputBound, sha256: bool) -> Self {
        Stream {
            bound,
            produced: 0,
            consumed: 0,
            digest: if sha256 {
                ChunkDigest::with_sha256()
            } else {
                ChunkDigest::crc_only()
            },
            phase: Phase::Running,
        }
    }

    /// What a step returns without decoding: the sticky error (a pending one becomes
    /// sticky, §2.8), or `Done` once the stream ended; `None` while it runs.
    #[inline]
    pub(crate) fn settled(&mut self) -> Option<Result<(usize, Event), InflateError>> {
        match self.phase {
            Phase::Running => None,
            Phase::Failed(e) => Some(Err(e)),
            Phase::FailNext(e) => Some(Err(self.fail_with(e))),
            Phase::Ended | Phase::Finished(_) => Some(Ok((0, Event::Done))),
        }
    }

    /// Output the bound still admits (§2.5).
    pub(crate) fn remaining(&self) -> u64 {
        self.bound.limit().saturating_sub(self.produced)
    }

    /// Applies the rules of §2 to one decoder call that stopped with `status` after
    /// writing `written` bytes, once [`Stream::consumed`] counts the input it used.
    /// `position` is the offset of a failure found in the call (§2.8): for `Corrupt`, for
    /// a byte past the bound and for `TooShort`; `Truncated` is at the end of the input.
    /// In order: a byte past the bound is `TooLong` or `LimitExceeded` before it is
    /// handed out (§2.5); invalid data and truncation (§2.2, §2.4); at the stream's end,
    /// an exact size not reached is `TooShort` (§2.5). Output written in a call that
    /// failed is handed out first and the failure comes with the next call (§2.8).
    /// `Ok(Event::Output)` means the engine must hand out the `written` bytes, now counted
    /// in [`Stream::produced`], after digesting them.
    pub(crate) fn settle(&mut self, status: Status, written: usize, position: u64) -> Result<Event, InflateError> {
        let produced = self.produced.saturating_add(to_u64(written));
        // spec/inflate.md §2.5: the lookahead byte is caught before it is handed out;
        // the offset is the end of the code that produced it (§2.8).
        if produced > self.bound.limit() {
            return Err(self.fail_with(InflateError::new(self.bound.excess_reason(), position)));
        }
        let failure = match status {
            Status::Done if matches!(self.bound, OutputBound::Exact(n) if produced < n) => {
                // spec/inflate.md §2.5: an exact size must be reached when the stream ends.
                Some(InflateError::new(InflateReason::TooShort, position))
            }
            Status::Done => {
                self.phase = Phase::Ended;
                None
            }
            Status::NeedsInput | Status::OutputFull => None,
            // spec/inflate.md §2.4: the input ended inside the stream.
            Status::Truncated => Some(InflateError::new(InflateReason::Truncated, self.consumed)),
            // spec/inflate.md §2.2: invalid data.
            Status::Corrupt => Some(InflateError::new(InflateReason::Corrupt, position)),
        };
        match (failure, written) {
            (Some(error), 0) => Err(self.fail_with(error)),
            (Some(error), _) => {
                // spec/inflate.md §2.8: this call's output first, the failure next.
                self.phase = Phase::FailNext(error);
                self.produced = produced;
                Ok(Event::Output)
            }
            (None, 0) if status == Status::Done => Ok(Event::Done),
            (None, 0) => Ok(Event::NeedInput),
            (None, _) => {
                self.produced = produced;
                Ok(Event::Output)
            }
        }
    }

    /// True once the final block was decoded and the size rules held (§2.3, §2.5).
    pub(crate) fn is_done(&self) -> bool {
        matches!(self.phase, Phase::Ended | Phase::Finished(_))
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

    /// Completes the stream: requires that the final block was decoded (else
    /// [`InflateReason::Truncated`], §2.4) and, when `expected_crc` is given, that the
    /// output's CRC-32 equals it (§2.6). Returns the digests of the whole output.
    pub(crate) fn finish(&mut self, expected_crc: Option<u32>) -> Result<Digests, InflateError> {
        let digests = match self.phase {
            Phase::Failed(e) | Phase::FailNext(e) => return Err(self.fail_with(e)),
            // spec/inflate.md §2.4: the final block must have been decoded.
            Phase::Running => return Err(self.fail(InflateReason::Truncated)),
            Phase::Finished(d) => d,
            Phase::Ended => core::mem::replace(&mut self.digest, ChunkDigest::crc_only()).finish(),
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
}

/// A decoding engine behind [`Inflater`](super::Inflater): its decoder and output buffer
/// around one [`Stream`] (§2.7).
pub(crate) trait Engine {
    /// Bytes of its output buffer (§2.7).
    const WINDOW: usize;

    /// An engine for one stream under `bound`, allocating its buffer and decoder state
    /// once (§2.7).
    fn new(bound: OutputBound, sha256: bool) -> Self;

    /// Prepares the engine for a new stream, keeping its allocations (§2.7).
    fn reset(&mut self, bound: OutputBound, sha256: bool);

    /// Decodes from `input` until one chunk is ready, the input is used up or the stream
    /// ends; returns the bytes of `input` consumed and what happened (§2).
    fn advance(&mut self, input: &[u8], more_input: bool) -> Result<(usize, Event), InflateError>;

    /// The chunk handed out by the last step that produced output (§2.7).
    fn last_output(&self) -> &[u8];

    /// The stream's counts and phase.
    fn stream(&self) -> &Stream;

    /// The same, to finish it.
    fn stream_mut(&mut self) -> &mut Stream;
}

/// Runs `engine` over all of `input`, handing every chunk to `sink`, until the input is
/// used up or the stream ends (`spec/inflate.md` §2).
pub(crate) fn feed<E: Engine, F: FnMut(&[u8])>(
    engine: &mut E,
    input: &[u8],
    more_input: bool,
    mut sink: F,
) -> Result<Progress, InflateError> {
    let mut pos = 0usize;
    loop {
        let rest = invariant::sub(input, pos..);
        let (used, event) = engine.advance(rest, more_input)?;
        pos = pos.saturating_add(used);
        let done = match event {
            Event::Output => {
                sink(engine.last_output());
                continue;
            }
            Event::NeedInput => false,
            Event::Done => true,
        };
        return Ok(Progress { consumed: pos, done });
    }
}
