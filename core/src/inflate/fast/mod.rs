//! modelgate's own raw-deflate decoder, the engine of the off-by-default Cargo feature
//! `fast-inflate` (`spec/inflate.md` §8.8). With the feature it takes the place of the
//! miniz_oxide engine (`inflate/miniz.rs`) behind [`Inflater`](crate::inflate::Inflater),
//! with the same outcome for every stream, which the differential tests and fuzz targets
//! check against that engine (§10).
//!
//! [`Fast`] drives the block decoder ([`decoder`]) over a fixed output window: deflate's
//! 32 KiB of history followed by room for one 64 KiB chunk. When the window is full its
//! last 32 KiB move to its start; a window that repeats one period throughout is not
//! moved ([`run`], §2.7.1).

mod decoder;
mod huffman;
mod run;

use crate::inflate::error::InflateError;
use crate::inflate::raw::{MAX_CHUNK, OutputBound, to_u64};
use crate::inflate::stream::{Engine, Event, Status, Stream};
use crate::invariant;
use alloc::boxed::Box;
use alloc::vec;
use decoder::{Decoder, MAX_DISTANCE};

/// Size of the output window: deflate's 32 KiB of history plus one chunk (§2.7).
pub(crate) const WINDOW: usize = MAX_DISTANCE + MAX_CHUNK;

/// modelgate's block decoder over a [`WINDOW`]-byte window, around one [`Stream`] (§2.7).
pub(crate) struct Fast {
    decoder: Box<Decoder>,
    window: Box<[u8]>,
    pos: usize,
    chunk_start: usize,
    chunk_len: usize,
    stream: Stream,
}

impl Engine for Fast {
    const WINDOW: usize = WINDOW;

    fn new(bound: OutputBound, sha256: bool) -> Self {
        Fast {
            decoder: Box::new(Decoder::new()),
            window: vec![0u8; WINDOW].into_boxed_slice(),
            pos: 0,
            chunk_start: 0,
            chunk_len: 0,
            stream: Stream::new(bound, sha256),
        }
    }

    fn reset(&mut self, bound: OutputBound, sha256: bool) {
        self.decoder.reset();
        self.pos = 0;
        self.chunk_start = 0;
        self.chunk_len = 0;
        self.stream = Stream::new(bound, sha256);
    }

    fn advance(&mut self, input: &[u8], more_input: bool) -> Result<(usize, Event), InflateError> {
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
            .saturating_add(room.min(MAX_CHUNK).min(WINDOW.saturating_sub(self.pos)));
        let outcome = self
            .decoder
            .decompress(input, more_input, &mut self.window, self.pos, out_end);
        self.stream.consumed = self.stream.consumed.saturating_add(to_u64(outcome.used));
        let written = outcome.written;
        let status = match outcome.status {
            // The decoder always makes progress when it has room and input; a call that
            // made none would loop, so it is taken for invalid data.
            Status::NeedsInput | Status::OutputFull if written == 0 && outcome.used < input.len() => {
                debug_assert!(false, "the decoder made no progress");
                Status::Corrupt
            }
            status => status,
        };
        let event = self.stream.settle(status, written, outcome.position)?;
        if event == Event::Output {
            self.emit(written);
        }
        Ok((outcome.used, event))
    }

    fn last_output(&self) -> &[u8] {
        let end = self.chunk_start.saturating_add(self.chunk_len);
        invariant::sub(&self.window, self.chunk_start..end)
    }

    fn stream(&self) -> &Stream {
        &self.stream
    }

    fn stream_mut(&mut self) -> &mut Stream {
        &mut self.stream
    }
}

impl Fast {
    /// Once the window is full, keeps its last 32 KiB as history at its start (§2.7).
    /// Called before decoding, when the last chunk has been handed out. A window that
    /// repeats one period throughout keeps up to a period more, from a multiple of the
    /// period, and so already has that history (§2.7.1).
    fn slide(&mut self) {
        if self.pos < WINDOW {
            return;
        }
        let from = self.decoder.run.slide_start(self.pos);
        if self.decoder.run.slide(from, self.pos) {
            self.window.copy_within(from..self.pos, 0);
        }
        self.pos -= from;
    }

    /// Records the chunk just written at `pos`, digests it and moves on.
    fn emit(&mut self, written: usize) {
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
        self.pos = end;
    }
}
