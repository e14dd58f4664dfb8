//! The push-style raw-deflate engine (`spec/inflate.md` §2).
//!
//! Callers hand in compressed bytes in pieces of any size and receive output chunks
//! borrowed from the engine's output buffer, each already fed to a
//! [`ChunkDigest`](crate::digest::ChunkDigest) and each at most [`MAX_CHUNK`] bytes.
//! Memory is that buffer ([`WINDOW_SIZE`]) plus the decoder state, whatever the input or
//! output size (§2.7). The default build decodes with miniz_oxide's core decompressor
//! over a 64 KiB ring (`inflate/miniz.rs`); the off-by-default Cargo feature
//! `fast-inflate` puts modelgate's own block decoder in its place (`inflate/fast/`, §8.8),
//! with the same outcome for every stream.

use crate::digest::Digests;
use crate::inflate::error::{InflateError, InflateReason};
use crate::inflate::stream::{self, Engine as _};

pub(crate) use crate::inflate::stream::Event;

/// The engine of this build (§2.7).
#[cfg(not(feature = "fast-inflate"))]
type Active = crate::inflate::miniz::Miniz;
/// The engine of this build (§2.7, §8.8).
#[cfg(feature = "fast-inflate")]
type Active = crate::inflate::fast::Fast;

/// Largest output chunk the engine hands out (`spec/inflate.md` §2.7).
pub const MAX_CHUNK: usize = 1 << 16;

/// Size of the engine's output buffer (`spec/inflate.md` §2.7): the 64 KiB ring of the
/// default build, or, with the `fast-inflate` feature, a 96 KiB window (deflate's 32 KiB
/// of history plus one chunk).
pub const WINDOW_SIZE: usize = <Active as stream::Engine>::WINDOW;

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

/// Bounded, push-style raw deflate (RFC 1951) decoder (`spec/inflate.md` §2): checks
/// block structure, distances, the output bound with one byte of lookahead, truncation
/// and, at [`Inflater::finish`], the CRC-32.
pub struct Inflater {
    engine: Active,
}

impl Inflater {
    /// A decoder for one stream under `bound`, computing CRC-32 and, when `sha256`
    /// is set, SHA-256 over the output (`spec/inflate.md` §2.5, §2.6). Allocates the
    /// output buffer and the decoder state once; their size does not depend on input.
    pub fn new(bound: OutputBound, sha256: bool) -> Self {
        Inflater {
            engine: Active::new(bound, sha256),
        }
    }

    /// Prepares the engine for a new stream, keeping its allocations (§2.7).
    pub fn reset(&mut self, bound: OutputBound, sha256: bool) {
        self.engine.reset(bound, sha256);
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
        stream::feed(&mut self.engine, input, more_input, sink)
    }

    /// Completes the stream: requires that the final block was decoded (else
    /// [`InflateReason::Truncated`], §2.4) and, when `expected_crc` is given, that the
    /// output's CRC-32 equals it (§2.6). Returns the digests of the whole output.
    pub fn finish(&mut self, expected_crc: Option<u32>) -> Result<Digests, InflateError> {
        self.engine.stream_mut().finish(expected_crc)
    }

    /// The chunk handed out by the last step that produced output (§2.7).
    pub fn last_output(&self) -> &[u8] {
        self.engine.last_output()
    }

    /// Compressed bytes consumed so far (the offset errors are reported at, §2.8).
    pub fn consumed(&self) -> u64 {
        self.engine.stream().consumed
    }

    /// Output bytes handed out so far; never more than the bound (§2.5).
    pub fn produced(&self) -> u64 {
        self.engine.stream().produced
    }

    /// The bound this stream is decoded under (§2.5).
    pub fn bound(&self) -> OutputBound {
        self.engine.stream().bound
    }

    /// True once the final block was decoded and the size rules held (§2.3, §2.5).
    pub fn is_done(&self) -> bool {
        self.engine.stream().is_done()
    }

    /// [`Inflater::step`] without the borrow of the chunk.
    pub(crate) fn advance(&mut self, input: &[u8], more_input: bool) -> Result<(usize, Event), InflateError> {
        self.engine.advance(input, more_input)
    }
}

impl core::fmt::Debug for Inflater {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let stream = self.engine.stream();
        f.debug_struct("Inflater")
            .field("bound", &stream.bound)
            .field("produced", &stream.produced)
            .field("consumed", &stream.consumed)
            .field("phase", &stream.phase)
            .finish_non_exhaustive()
    }
}

/// Widens a byte count; saturates on the (impossible) overflow.
pub(crate) fn to_u64(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}
