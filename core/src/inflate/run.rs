//! The run of one repeated byte that ends the output (`spec/inflate.md` §2.7.1).
//!
//! Data that repeats one byte (a zero-filled tensor, a gzip bomb) decodes as a chain
//! of distance-1 matches. [`Run`] records where that run lies in the engine's window,
//! so that three things need not touch its bytes again:
//! - a distance-1 match over window bytes that already hold the byte (the previous
//!   pass through the window wrote them) is not written again;
//! - sliding a window that holds nothing but the byte moves nothing;
//! - a chunk that is all the byte gets its CRC-32 from the last such chunk's
//!   ([`ChunkDigest::update_repeated`](crate::digest::ChunkDigest::update_repeated)).
//!
//! The window's contents, the chunks handed out, the digests, errors and offsets are
//! those of writing every byte; only work that would rewrite equal bytes is skipped.
//! The record is kept by [`Run::fill`], which writes the distance-1 matches of the
//! longest length that the fast loop hands over (those followed by another longest
//! length) and those a chunk's end cuts or the exact-input path decodes, and it is only
//! trusted while nothing else has written since: any other write (the fast loop's own
//! distance-1 fills included) moves the output position past [`Run`]'s
//! end, and the next [`Run::fill`] then starts a new run.
//! (The decoder adds a fourth saving of its own: after a distance-1 match of the
//! longest length it takes the matches whose bits repeat that one's without decoding
//! them, `Decoder::run_matches` in `inflate/decoder.rs`.)

use crate::inflate::raw::WINDOW_SIZE;

/// Where the window holds one repeated byte (`spec/inflate.md` §2.7.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Run {
    /// The repeated byte.
    byte: u8,
    /// `window[start..end]` all hold `byte`; empty when `start == end`.
    start: usize,
    end: usize,
    /// `window[end..WINDOW_SIZE]` hold `byte` too: the previous pass through the
    /// window left them there and nothing has written since.
    ahead: bool,
}

impl Run {
    /// Writes the distance-1 match of `len` bytes at `pos` (each a copy of the byte at
    /// `pos - 1`) and records the run it extends or starts. Bytes that the window
    /// already holds ([`Run::ahead`]) are not written again. Does nothing when the
    /// match does not fit in `out` (the decoder checks room and distance first).
    #[inline]
    pub(crate) fn fill(&mut self, out: &mut [u8], pos: usize, len: usize) {
        let Some(src) = pos.checked_sub(1) else {
            return;
        };
        let byte = out.get(src).copied().unwrap_or(0);
        let end = pos.saturating_add(len);
        let Some(dst) = out.get_mut(pos..end) else {
            return;
        };
        if pos == self.end && self.start < self.end {
            // Nothing was written since the run's end, so the run goes on; its byte is
            // `byte`, since `pos - 1` lies inside it.
            if !self.ahead {
                dst.fill(byte);
            }
            self.end = end;
            return;
        }
        dst.fill(byte);
        *self = Run {
            byte,
            start: src,
            end,
            ahead: false,
        };
    }

    /// The repeated byte when `window[from..to]` lies inside the run (§2.7.1).
    pub(crate) fn covers(&self, from: usize, to: usize) -> Option<u8> {
        (self.start <= from && to <= self.end && from < to).then_some(self.byte)
    }

    /// Follows the engine's slide of `window[from..pos]` to the window's start.
    /// Returns false when the copy can be skipped: the whole window holds the run's
    /// byte, so its start already holds what the copy would put there, and the rest
    /// of the window holds it ahead of the new end (§2.7.1).
    pub(crate) fn slide(&mut self, from: usize, pos: usize) -> bool {
        if self.start == 0 && self.end == WINDOW_SIZE && pos == WINDOW_SIZE {
            self.end = WINDOW_SIZE - from;
            self.ahead = true;
            return false;
        }
        let start = self.start.max(from);
        *self = if start < self.end {
            Run {
                byte: self.byte,
                start: start - from,
                end: self.end - from,
                ahead: false,
            }
        } else {
            Run::default()
        };
        true
    }
}

#[cfg(test)]
mod tests {
    use super::Run;
    use crate::inflate::decoder::MAX_DISTANCE;
    use crate::inflate::raw::WINDOW_SIZE;
    use alloc::vec;

    /// §2.7.1: a distance-1 match extends the run only when it starts at the run's end
    /// with its byte; after any other write the next one starts a new run.
    #[test]
    fn a_run_is_extended_only_right_at_its_end() {
        let mut out = vec![7u8; 200];
        out[0] = 1;
        let mut run = Run::default();
        run.fill(&mut out, 1, 10);
        assert_eq!(run.covers(0, 11), Some(1));
        run.fill(&mut out, 11, 5);
        assert_eq!(run.covers(0, 16), Some(1));
        assert_eq!(run.covers(0, 17), None);
        // A literal at 16, then a match at 17: a new run from 16.
        out[16] = 2;
        run.fill(&mut out, 17, 3);
        assert_eq!(run.covers(0, 20), None);
        assert_eq!(run.covers(16, 20), Some(2));
        assert_eq!(out.get(..20).unwrap().iter().filter(|&&b| b == 1).count(), 16);
        // Nothing is covered by an empty range or by no run.
        assert_eq!(run.covers(17, 17), None);
        assert_eq!(Run::default().covers(0, 1), None);
    }

    /// §2.7.1: a window that is one run slides without a copy, and the run's next
    /// matches are not written where the window already holds the byte; a window that
    /// is not all one run is copied and keeps the part of the run that moved.
    #[test]
    fn a_window_of_one_run_slides_and_refills_without_writing() {
        let mut window = vec![0u8; WINDOW_SIZE];
        window[0] = 5;
        let mut run = Run::default();
        let mut pos = 1;
        while pos < WINDOW_SIZE {
            let len = 258.min(WINDOW_SIZE - pos);
            run.fill(&mut window, pos, len);
            pos += len;
        }
        assert!(window.iter().all(|&b| b == 5));
        assert!(!run.slide(WINDOW_SIZE - MAX_DISTANCE, WINDOW_SIZE), "copy not skipped");
        assert_eq!(run.covers(0, MAX_DISTANCE), Some(5));
        // A marker ahead of the run survives the next match: it was not written.
        window[MAX_DISTANCE + 100] = 9;
        run.fill(&mut window, MAX_DISTANCE, 258);
        assert_eq!(window[MAX_DISTANCE + 100], 9);
        assert_eq!(run.covers(0, MAX_DISTANCE + 258), Some(5));

        // A run that does not span the window: the slide copies and shifts it.
        let mut run = Run::default();
        let mut window = vec![0u8; WINDOW_SIZE];
        window[WINDOW_SIZE - 1001] = 3;
        run.fill(&mut window, WINDOW_SIZE - 1000, 1000);
        let from = WINDOW_SIZE - MAX_DISTANCE;
        assert!(run.slide(from, WINDOW_SIZE));
        window.copy_within(from.., 0);
        assert_eq!(run.covers(MAX_DISTANCE - 1001, MAX_DISTANCE), Some(3));
        // A match ahead of it is written: nothing is known to be there.
        window[MAX_DISTANCE] = 0;
        run.fill(&mut window, MAX_DISTANCE, 10);
        assert!(window[MAX_DISTANCE..MAX_DISTANCE + 10].iter().all(|&b| b == 3));
        // A run wholly before the slide's start is forgotten.
        let mut run = Run::default();
        window[10] = 4;
        run.fill(&mut window, 11, 20);
        assert!(run.slide(from, WINDOW_SIZE));
        assert_eq!(run, Run::default());
    }
}
