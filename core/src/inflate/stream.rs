//! What a push-style deflate engine owes its caller, whatever decodes the bits
//! (`spec/inflate.md` §2.3–§2.8): the output bound and the counts held against it, the
//! digest of every chunk handed out, the sticky failure, and `feed` and `finish` on top
//! of one decoding step. modelgate's engine ([`super::raw::Inflater`]) and the miniz_oxide
//! oracle kept for tests and fuzzing (`reference::MinizInflater`) both keep one
//! [`Stream`], so the two cannot drift apart on these rules.

use crate::digest::{ChunkDigest, Digests};
use crate::inflate::error::{InflateError, InflateReason};
use crate::inflate::raw::{Event, OutputBound, Progress};

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

    /// True when a stream that ended after `produced` bytes fell short of an exact
    /// bound (§2.5: [`InflateReason::TooShort`]).
    pub(crate) fn short_of_exact(&self, produced: u64) -> bool {
        matches!(self.bound, OutputBound::Exact(n) if produced < n)
    }

    /// True once the final block was decoded and the size rules held (§2.3, §2.5).
    pub(crate) fn is_done(&self) -> bool {
        matches!(self.phase, Phase::Ended | Phase::Finished(_))
    }

    /// Makes `reason` sticky at the current offset and returns the error.
    pub(crate) fn fail(&mut self, reason: InflateReason) -> InflateError {
        self.fail_with(InflateError::new(reason, self.consumed))
    }

    /// Makes `error` sticky and returns it.
    pub(crate) fn fail_with(&mut self, error: InflateError) -> InflateError {
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

/// One decoding step of an engine and the chunk it handed out last: what [`feed`] drives.
pub(crate) trait Advance {
    /// Decodes from `input` until one chunk is ready, the input is used up or the stream
    /// ends; returns the bytes of `input` consumed and what happened (§2).
    fn advance(&mut self, input: &[u8], more_input: bool) -> Result<(usize, Event), InflateError>;

    /// The chunk handed out by the last step that produced output (§2.7).
    fn last_output(&self) -> &[u8];
}

/// Runs `engine` over all of `input`, handing every chunk to `sink`, until the input is
/// used up or the stream ends (`spec/inflate.md` §2).
pub(crate) fn feed<E: Advance, F: FnMut(&[u8])>(
    engine: &mut E,
    input: &[u8],
    more_input: bool,
    mut sink: F,
) -> Result<Progress, InflateError> {
    let mut pos = 0usize;
    loop {
        let rest = input.get(pos..).unwrap_or_default();
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
