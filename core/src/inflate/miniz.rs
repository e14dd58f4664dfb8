//! The engine of the default build (`spec/inflate.md` §2): miniz_oxide's core
//! decompressor over a 64 KiB ring. Each call decodes at most up to the ring's end and
//! never past the output bound; at the bound it gets room for the one lookahead byte
//! (§2.5). Until the ring has filled once the decompressor runs in non-wrapping mode, so
//! that it rejects a distance reaching before the stream's first byte itself (§2.2, §8.5).
//! With the `fast-inflate` feature this engine is built for tests and fuzzing only, as
//! the oracle modelgate's own decoder is held to (§10).

use crate::inflate::error::InflateError;
use crate::inflate::raw::{OutputBound, to_u64};
use crate::inflate::stream::{Engine, Event, Status, Stream};
use crate::invariant;
use alloc::boxed::Box;
use alloc::vec;
use miniz_oxide::inflate::TINFLStatus;
use miniz_oxide::inflate::core::{DecompressorOxide, decompress_with_limit, inflate_flags};

/// The ring: a power of two (miniz_oxide's wrapping mode masks positions with it), and
/// twice deflate's 32 KiB of history, so that a chunk of up to half of it is handed out
/// while the other half keeps the history.
const RING: usize = 1 << 16;

/// miniz_oxide's decompressor over a [`RING`]-byte ring, around one [`Stream`] (§2.7).
pub(crate) struct Miniz {
    decomp: Box<DecompressorOxide>,
    ring: Box<[u8]>,
    ring_pos: usize,
    first_lap: bool,
    chunk_start: usize,
    chunk_len: usize,
    stream: Stream,
}

impl Engine for Miniz {
    const WINDOW: usize = RING;

    fn new(bound: OutputBound, sha256: bool) -> Self {
        Miniz {
            decomp: Box::default(),
            ring: vec![0u8; RING].into_boxed_slice(),
            ring_pos: 0,
            first_lap: true,
            chunk_start: 0,
            chunk_len: 0,
            stream: Stream::new(bound, sha256),
        }
    }

    fn reset(&mut self, bound: OutputBound, sha256: bool) {
        // miniz_oxide's own reset: the state goes back to the start; every other field is
        // set before it is read.
        self.decomp.init();
        self.ring_pos = 0;
        // spec/inflate.md §2.2: non-wrapping again, so the previous stream's bytes in the
        // ring can never be read as history.
        self.first_lap = true;
        self.chunk_start = 0;
        self.chunk_len = 0;
        self.stream = Stream::new(bound, sha256);
    }

    fn advance(&mut self, input: &[u8], more_input: bool) -> Result<(usize, Event), InflateError> {
        if let Some(settled) = self.stream.settled() {
            return settled;
        }
        self.chunk_len = 0;
        let remaining = self.stream.remaining();
        let (status, used, written) = if remaining > 0 {
            // spec/inflate.md §2.5: below the bound, never write past it.
            let room = usize::try_from(remaining).unwrap_or(usize::MAX);
            let out_max = room.min(RING.saturating_sub(self.ring_pos));
            self.decompress(input, more_input, out_max)
        } else {
            self.decompress_at_bound(input, more_input)
        };
        self.stream.consumed = self.stream.consumed.saturating_add(to_u64(used));
        let status = match status {
            TINFLStatus::Done => Status::Done,
            // miniz_oxide always makes progress when it has room and input; a call that
            // made none would loop, so it is taken for invalid data.
            TINFLStatus::NeedsMoreInput | TINFLStatus::HasMoreOutput
                if written == 0 && (used < input.len() || status == TINFLStatus::HasMoreOutput) =>
            {
                debug_assert!(false, "miniz_oxide made no progress: {status:?}");
                Status::Corrupt
            }
            TINFLStatus::NeedsMoreInput => Status::NeedsInput,
            TINFLStatus::HasMoreOutput => Status::OutputFull,
            // spec/inflate.md §2.4: the input ended inside the stream.
            TINFLStatus::FailedCannotMakeProgress => Status::Truncated,
            // spec/inflate.md §2.2: anything else is invalid data.
            _ => Status::Corrupt,
        };
        // spec/inflate.md §2.8: miniz_oxide gives back the whole bytes it read ahead, and
        // at the bound it is fed one byte at a time, so every offset is the input consumed.
        let event = self.stream.settle(status, written, self.stream.consumed)?;
        if event == Event::Output {
            self.emit(written);
        }
        Ok((used, event))
    }

    fn last_output(&self) -> &[u8] {
        let end = self.chunk_start.saturating_add(self.chunk_len);
        invariant::sub(&self.ring, self.chunk_start..end)
    }

    fn stream(&self) -> &Stream {
        &self.stream
    }

    fn stream_mut(&mut self) -> &mut Stream {
        &mut self.stream
    }
}

impl Miniz {
    /// Records the chunk just written at `ring_pos`, digests it and moves the ring on.
    fn emit(&mut self, written: usize) {
        self.chunk_start = self.ring_pos;
        self.chunk_len = written;
        let end = self.ring_pos.saturating_add(written);
        if let Some(chunk) = self.ring.get(self.ring_pos..end) {
            // spec/inflate.md §2.6: every chunk is digested before it is handed out.
            self.stream.digest.update(chunk);
        }
        self.ring_pos = end;
        if self.ring_pos >= RING {
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
            let rest = invariant::sub(input, used..);
            let byte = invariant::sub(rest, ..1);
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
