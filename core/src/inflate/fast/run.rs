//! The run of one repeated period that ends the output (`spec/inflate.md` §2.7.1).
//!
//! Data that repeats one byte (a zero-filled tensor, a gzip bomb) decodes as a chain of
//! distance-1 matches, and data that repeats a period of `p` bytes (a bomb of period `p`)
//! as a chain of distance-`p` matches. [`Run`] records where such a run lies in the
//! engine's window, so that three things need not touch its bytes again:
//! - a match of the run's distance over window bytes that already hold what it would
//!   write (the previous pass through the window wrote them) is not written again;
//! - sliding a window that is one run throughout moves nothing: the slide starts at a
//!   multiple of the period, so the window's start already holds what it would move;
//! - a chunk that lies inside the run gets its CRC-32 from the last such chunk's
//!   ([`ChunkDigest::update_periodic`](crate::digest::ChunkDigest::update_periodic)).
//!
//! The history before the output's end, the bytes handed out, the digests, errors and
//! offsets are those of writing every byte; only work that would rewrite equal bytes is
//! skipped (and where the history sits in the window, and so the chunks' lengths, move by
//! less than a period).
//! The record is kept by [`Run::fill`], which writes the matches of a distance up to
//! [`MAX_PERIOD`] and the longest length that the fast loop hands over (those followed
//! by another longest length) and those a chunk's end cuts or the exact-input path
//! decodes, and it is only trusted while nothing else has written since: any other
//! write (the fast loop's own matches included) moves the output position past
//! [`Run`]'s end, and the next [`Run::fill`] then starts a new run.
//! (The decoder adds savings of its own: after such a match it takes the matches whose
//! bits repeat that one's without decoding them and writes them all as one copy,
//! `Decoder::run_matches` in `inflate/fast/decoder.rs`.)

use super::WINDOW;
use super::decoder::{MAX_DISTANCE, copy_match};
pub(crate) use crate::digest::MAX_PERIOD;

/// Where the window repeats one period (`spec/inflate.md` §2.7.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Run {
    /// The period: every byte of the run from `start + period` on equals the byte
    /// `period` before it. 0 when there is no run.
    period: usize,
    /// The run is `window[start..end]`; none when `start == end`.
    start: usize,
    end: usize,
    /// `window[end..WINDOW]` hold the run's continuation too: the previous pass
    /// through the window left them there and nothing has written since.
    ahead: bool,
}

impl Run {
    /// Writes the match of `len` bytes at `pos` from `dist` back (`dist` at most
    /// [`MAX_PERIOD`]) and records the run it extends or starts. Bytes that the window
    /// already holds ([`Run::ahead`]) are not written again. Does nothing when the
    /// match does not fit in `out` or reaches before it (the decoder checks room and
    /// distance first).
    #[inline]
    pub(crate) fn fill(&mut self, out: &mut [u8], pos: usize, len: usize, dist: usize) {
        let (Some(src), end) = (pos.checked_sub(dist), pos.saturating_add(len)) else {
            return;
        };
        if end > out.len() || dist == 0 {
            return;
        }
        if pos == self.end && self.start < self.end && dist == self.period {
            // Nothing was written since the run's end, so the run goes on: the match
            // repeats the run's period.
            if !self.ahead {
                copy_match(out, pos, dist, len);
            }
            self.end = end;
            return;
        }
        copy_match(out, pos, dist, len);
        *self = Run {
            period: dist,
            start: src,
            end,
            ahead: false,
        };
    }

    /// The run's period when `window[from..to]` lies inside the run (§2.7.1).
    pub(crate) fn covers(&self, from: usize, to: usize) -> Option<usize> {
        (self.start <= from && to <= self.end && from < to).then_some(self.period)
    }

    /// True when the window, full at `pos`, is the run throughout.
    fn spans(&self, pos: usize) -> bool {
        self.start == 0 && self.end == WINDOW && pos == WINDOW && self.period > 0
    }

    /// Where the engine's slide of a full window (`pos` is its end) starts: 32 KiB
    /// before `pos`, or, when the window is the run throughout, the last multiple of the
    /// run's period before that, so that the window's start already holds what the
    /// slide would move there (§2.7.1). The history kept is at least 32 KiB either way.
    pub(crate) fn slide_start(&self, pos: usize) -> usize {
        let from = pos.saturating_sub(MAX_DISTANCE);
        if self.spans(pos) {
            from - from % self.period
        } else {
            from
        }
    }

    /// Follows the engine's slide of `window[from..pos]` to the window's start.
    /// Returns false when the copy can be skipped: the window is the run throughout and
    /// `from` is a multiple of its period, so its start already holds what the copy
    /// would put there, and the rest of the window holds the run's continuation ahead of
    /// the new end (§2.7.1).
    pub(crate) fn slide(&mut self, from: usize, pos: usize) -> bool {
        if self.spans(pos) && from.is_multiple_of(self.period) {
            self.end = WINDOW - from;
            self.ahead = true;
            return false;
        }
        let start = self.start.max(from);
        *self = if start < self.end {
            Run {
                period: self.period,
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
    use crate::inflate::fast::WINDOW;
    use crate::inflate::fast::decoder::MAX_DISTANCE;
    use alloc::vec;

    /// §2.7.1: a match extends the run only when it starts at the run's end with the
    /// run's distance; after any other write the next one starts a new run.
    #[test]
    fn a_run_is_extended_only_right_at_its_end() {
        let mut out = vec![7u8; 300];
        out[0] = 1;
        let mut run = Run::default();
        run.fill(&mut out, 1, 10, 1);
        assert_eq!(run.covers(0, 11), Some(1));
        run.fill(&mut out, 11, 5, 1);
        assert_eq!(run.covers(0, 16), Some(1));
        assert_eq!(run.covers(0, 17), None);
        // A literal at 16, then a match at 17: a new run from 16.
        out[16] = 2;
        run.fill(&mut out, 17, 3, 1);
        assert_eq!(run.covers(0, 20), None);
        assert_eq!(run.covers(16, 20), Some(1));
        assert_eq!(out.get(..20).unwrap().iter().filter(|&&b| b == 1).count(), 16);
        // A match of another distance at the run's end starts a new run of that period.
        run.fill(&mut out, 20, 6, 3);
        assert_eq!(run.covers(16, 26), None);
        assert_eq!(run.covers(17, 26), Some(3));
        assert_eq!(out[17..26], [2, 2, 2, 2, 2, 2, 2, 2, 2]);
        // Nothing is covered by an empty range or by no run.
        assert_eq!(run.covers(17, 17), None);
        assert_eq!(Run::default().covers(0, 1), None);
    }

    /// Fills `window` from `from` with `dist`-byte matches of 258 up to its end.
    fn fill_to_end(run: &mut Run, window: &mut [u8], from: usize, dist: usize) {
        let mut pos = from;
        while pos < WINDOW {
            let len = 258.min(WINDOW - pos);
            run.fill(window, pos, len, dist);
            pos += len;
        }
    }

    /// §2.7.1: a window that is one run slides without a copy, from a multiple of the
    /// period, and the run's next matches are not written where the window already
    /// holds them; a window that is not all one run is copied from 32 KiB before its end
    /// and keeps the part of the run that moved.
    #[test]
    fn a_window_of_one_run_slides_and_refills_without_writing() {
        for period in [1usize, 2, 9, 33, 258] {
            let mut window = vec![0u8; WINDOW];
            for (i, b) in window.iter_mut().take(period).enumerate() {
                *b = (i as u8).wrapping_add(5);
            }
            let mut run = Run::default();
            fill_to_end(&mut run, &mut window, period, period);
            assert!((period..WINDOW).all(|i| window[i] == window[i - period]));
            let from = run.slide_start(WINDOW);
            assert_eq!(from % period, 0, "period {period}");
            assert!(WINDOW - from >= MAX_DISTANCE && WINDOW - from < MAX_DISTANCE + period);
            assert!(!run.slide(from, WINDOW), "copy not skipped, period {period}");
            let pos = WINDOW - from;
            assert_eq!(run.covers(0, pos), Some(period));
            // A marker ahead of the run survives the next match: it was not written.
            window[pos + 100] = 0xEE;
            run.fill(&mut window, pos, 258, period);
            assert_eq!(window[pos + 100], 0xEE);
            assert_eq!(run.covers(0, pos + 258), Some(period));
            // The same distance not at the run's end, or another distance at it, writes.
            window[pos + 300] = 0xEE;
            run.fill(&mut window, pos + 258, 258, period + 1);
            assert_ne!(window[pos + 300], 0xEE, "period {period}");
        }

        // A run that does not span the window: the slide copies and shifts it.
        let mut run = Run::default();
        let mut window = vec![0u8; WINDOW];
        window[WINDOW - 1001] = 3;
        run.fill(&mut window, WINDOW - 1000, 1000, 1);
        let from = run.slide_start(WINDOW);
        assert_eq!(from, WINDOW - MAX_DISTANCE);
        assert!(run.slide(from, WINDOW));
        window.copy_within(from.., 0);
        assert_eq!(run.covers(MAX_DISTANCE - 1001, MAX_DISTANCE), Some(1));
        // A match ahead of it is written: nothing is known to be there.
        window[MAX_DISTANCE] = 0;
        run.fill(&mut window, MAX_DISTANCE, 10, 1);
        assert!(window[MAX_DISTANCE..MAX_DISTANCE + 10].iter().all(|&b| b == 3));
        // A run wholly before the slide's start is forgotten.
        let mut run = Run::default();
        window[10] = 4;
        run.fill(&mut window, 11, 20, 1);
        assert!(run.slide(from, WINDOW));
        assert_eq!(run, Run::default());
        // A window that is one run but slides from a position that is not a multiple of
        // its period is copied.
        let mut run = Run::default();
        fill_to_end(&mut run, &mut window, 9, 9);
        assert!(run.slide(WINDOW - MAX_DISTANCE, WINDOW));
    }
}
