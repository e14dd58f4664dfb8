//! The raw-deflate block decoder (`spec/inflate.md` §2.1, §2.2; RFC 1951 §3.2).
//!
//! [`Decoder::decompress`] decodes from a piece of input into an output window whose
//! first `out_pos` bytes are the history (at least the last 32 KiB, or everything
//! since the stream began). It stops when the output reaches `out_end`, the input
//! runs out or the stream ends. Input may be split anywhere: whatever cannot be used
//! yet (at most one dynamic block header) is kept in a small stash, so a call that
//! needs more input has consumed all of it.
//!
//! Speed comes from a fast loop that runs while at least 16 input bytes and 272
//! output bytes of room remain: a 64-bit bit buffer refilled by one 8-byte load, one
//! table lookup per code (two for the rare codes over 12 bits) made as soon as the
//! previous code is consumed, up to three literal entries (each one or two literals)
//! per refill, and matches copied 8 bytes at a time (the room covers the overrun);
//! a long match at a distance of 2 to 15 is written from a word holding its period
//! ([`copy_pattern`]), and one at 16 to 63 from ever farther back ([`copy_lagged`]), so
//! that no load waits on bytes just stored (§8.8).
//!
//! A match of the longest length and a distance of at most [`MAX_PERIOD`] followed by the
//! same match (as far as the bits held show) is a run of one period (§2.7.1): it is handed
//! over as a pending copy, [`Decoder::run_matches`] takes the matches after it whose bits are the same
//! by comparing bits, and [`Run::fill`] (`inflate/fast/run.rs`) writes them all as one copy.
//! Both live outside the fast loop, out of line: anything the loop keeps live costs it
//! registers, and any code inlined into the function that holds it changes how they are
//! allocated (each cost 3–5 % on the benchmark's streams, and checking the distance in
//! the loop 4 % on the MPK stream; the benchmark log,
//! `git log -p -- cli/benches/HISTORY.md`).

use crate::invariant;
use alloc::boxed::Box;
use alloc::vec;

use super::WINDOW;
use super::run::{MAX_PERIOD, Run};
use crate::inflate::stream::Status;

use super::huffman::{
    self, Alphabet, BASE, CODELEN_ENOUGH, CODELEN_ROOT, DIST_ENOUGH, DIST_ROOT, END, EXTRA_SHIFT, INVALID, KIND_MASK,
    LEN_MASK, LITERAL, LITLEN_ENOUGH, LITLEN_ROOT, PAIR, SUBTABLE,
};

/// The farthest a distance may reach back (RFC 1951 §3.2.5): the history a caller
/// must keep before `out_pos`.
pub(crate) const MAX_DISTANCE: usize = 32 * 1024;
/// Where the distance table starts in the decoder's one table allocation.
const DIST_AT: usize = LITLEN_ENOUGH;
/// Entries of both tables.
const TABLES: usize = LITLEN_ENOUGH + DIST_ENOUGH;
/// Longest match.
const MAX_MATCH: usize = 258;
/// Input the fast loop needs before one iteration (a refill reads 8 bytes).
const FAST_INPUT: usize = 16;
/// Room the fast loop needs before one iteration: two literal entries of two bytes
/// each, each written as two bytes, then a match whose 8-byte copy may run 7 bytes
/// past its end.
const FAST_OUTPUT: usize = 6 + MAX_MATCH + 8;
/// Stash size. The longest step is a dynamic block header: 3 + 14 bits, 19 three-bit
/// lengths, then at most 316 code-length codes of 7 bits with 7 extra bits, 4,498
/// bits or 563 bytes. A starved step is kept from its first byte, so the stash holds
/// less than that, and stash plus new input (up to this size) always completes it.
const STASH: usize = 1024;

/// Outcome of one call: the status, input bytes consumed, output bytes written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Outcome {
    pub status: Status,
    pub used: usize,
    pub written: usize,
    /// Stream bytes the decoder has read, counted from the start of the stream,
    /// including the byte holding the last bit it used and excluding whole bytes it
    /// read ahead (§2.8): for [`Status::Corrupt`] the offset of the failure, for
    /// [`Status::Done`] the end of the stream, after a byte past an output bound the
    /// end of the code that produced it. Not meaningful for a call that needed input.
    pub position: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Block {
    /// Before a block header.
    Header,
    /// Inside a stored block with this many bytes left.
    Stored(u32),
    /// Inside a Huffman block.
    Huffman,
    /// After the final block.
    Done,
}

/// Why the inner loop stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stop {
    Done,
    OutputFull,
    /// Not enough input for the next step; the state is as before that step.
    Starved,
    Corrupt,
}

/// Bit reader over one input slice, least significant bit first (RFC 1951 §3.1.1).
struct Bits<'a> {
    src: &'a [u8],
    pos: usize,
    buf: u64,
    count: u32,
}

impl Bits<'_> {
    /// Loads whole bytes until `n` bits are held; false when the input ends first.
    fn need(&mut self, n: u32) -> bool {
        while self.count < n {
            let Some(&b) = self.src.get(self.pos) else {
                return false;
            };
            self.buf |= u64::from(b) << self.count;
            self.pos += 1;
            self.count += 8;
        }
        true
    }

    /// Loads bytes while they fit and remain, for a table lookup near the end.
    fn fill(&mut self) {
        while self.count <= 56 {
            let Some(&b) = self.src.get(self.pos) else {
                return;
            };
            self.buf |= u64::from(b) << self.count;
            self.pos += 1;
            self.count += 8;
        }
    }

    /// The next `n` bits (`n` < 64), for a code and its extra bits together.
    #[inline(always)]
    fn peek_wide(&self, n: u32) -> u64 {
        self.buf & ((1u64 << n) - 1)
    }

    #[inline(always)]
    fn peek(&self, n: u32) -> u32 {
        u32::try_from(self.buf & ((1u64 << n) - 1)).unwrap_or(0)
    }

    #[inline(always)]
    fn consume(&mut self, n: u32) {
        self.buf >>= n;
        self.count -= n;
    }

    /// Clears the bits above `count` that a fast refill may have left.
    fn clean(&mut self) {
        if self.count < 64 {
            self.buf &= (1u64 << self.count) - 1;
        }
    }

    /// Gives whole unread bytes back to the input (§2.8: they are not consumed).
    fn unread_bytes(&mut self) {
        let whole = (self.count >> 3) as usize;
        self.pos -= whole.min(self.pos);
        self.count &= 7;
        self.clean();
    }
}

/// The bits that code a match of the longest length and distance `dist` in the current
/// block's tables (§2.7.1): `width` bits, extra bits included, read as `code`. `dist` is
/// 0 when none is known.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct RunCode {
    dist: usize,
    width: u32,
    code: u64,
}

/// Saved reader position, to undo a step that ran out of input.
#[derive(Clone, Copy)]
struct Mark {
    pos: usize,
    buf: u64,
    count: u32,
}

/// Resumable raw-deflate decoder; see the module documentation.
pub(crate) struct Decoder {
    /// The literal/length table, then the distance table at [`DIST_AT`].
    tables: Box<[u32]>,
    block: Block,
    last: bool,
    fixed_loaded: bool,
    buf: u64,
    count: u32,
    copy_len: usize,
    copy_dist: usize,
    stash: [u8; STASH],
    stash_len: usize,
    /// Stream bytes consumed before the current call's input.
    base: u64,
    /// The run of one repeated period that ends the output (§2.7.1), kept by the
    /// copies of a distance up to [`MAX_PERIOD`] outside the fast loop and followed by
    /// the engine's slides.
    pub(crate) run: Run,
    /// The bits of the last run's match, for [`Decoder::run_matches`]; valid while the
    /// tables are.
    run_code: RunCode,
}

impl Decoder {
    /// A decoder at the start of a stream.
    pub(crate) fn new() -> Self {
        Decoder {
            tables: vec![0; TABLES].into_boxed_slice(),
            block: Block::Header,
            last: false,
            fixed_loaded: false,
            buf: 0,
            count: 0,
            copy_len: 0,
            copy_dist: 0,
            stash: [0; STASH],
            stash_len: 0,
            base: 0,
            run: Run::default(),
            run_code: RunCode::default(),
        }
    }

    /// Back to the start of a stream.
    pub(crate) fn reset(&mut self) {
        self.block = Block::Header;
        self.last = false;
        self.buf = 0;
        self.count = 0;
        self.copy_len = 0;
        self.copy_dist = 0;
        self.stash_len = 0;
        self.base = 0;
        self.run = Run::default();
        self.run_code = RunCode::default();
    }

    /// Decodes `input` into `out[out_pos..out_end]`. `out[..out_pos]` is the history;
    /// nothing at or past `out_end` is handed out (`out_end` is capped at `out.len()`).
    /// The fast loop runs only when `out` is the engine's window of
    /// [`WINDOW`] bytes. See [`Status`].
    pub(crate) fn decompress(
        &mut self,
        input: &[u8],
        more_input: bool,
        out: &mut [u8],
        out_pos: usize,
        out_end: usize,
    ) -> Outcome {
        let out_end = out_end.min(out.len());
        if self.stash_len == 0 {
            return self.direct(input, more_input, out, out_pos, out_end);
        }
        self.via_stash(input, more_input, out, out_pos, out_end)
    }

    /// Decodes straight from the caller's input.
    fn direct(&mut self, input: &[u8], more: bool, out: &mut [u8], out_pos: usize, out_end: usize) -> Outcome {
        let mut bits = Bits {
            src: input,
            pos: 0,
            buf: self.buf,
            count: self.count,
        };
        let mut op = out_pos;
        let stop = self.run(&mut bits, out, &mut op, out_end);
        let written = op - out_pos;
        if stop == Stop::Starved {
            // The unused tail is shorter than one step: keep it, consume everything.
            let rest = invariant::sub(input, bits.pos..);
            self.keep(rest, &bits);
            return starved(input.len(), written, more, self.base);
        }
        self.finish_call(&mut bits, stop, written)
    }

    /// Decodes from the stash topped up with the start of the caller's input.
    fn via_stash(&mut self, input: &[u8], more: bool, out: &mut [u8], out_pos: usize, out_end: usize) -> Outcome {
        let old = self.stash_len;
        let take = input.len().min(STASH - old);
        let mut joined = [0u8; STASH];
        if let (Some(dst), Some(src)) = (joined.get_mut(..old), self.stash.get(..old)) {
            dst.copy_from_slice(src);
        }
        if let (Some(dst), Some(src)) = (joined.get_mut(old..old + take), input.get(..take)) {
            dst.copy_from_slice(src);
        }
        let joined = invariant::sub(&joined, ..old + take);
        let mut bits = Bits {
            src: joined,
            pos: 0,
            buf: self.buf,
            count: self.count,
        };
        let mut op = out_pos;
        let stop = self.run(&mut bits, out, &mut op, out_end);
        let written = op - out_pos;
        self.stash_len = 0;
        if stop == Stop::Starved {
            if take == input.len() {
                let rest = invariant::sub(joined, bits.pos..);
                self.keep(rest, &bits);
                return starved(input.len(), written, more, self.base);
            }
            // The step kept in the stash is at most 563 bytes and `joined` holds
            // STASH, so that step completed and a later one starved, past the old
            // stash bytes: go on from the caller's input.
            let from = bits.pos.saturating_sub(old);
            self.buf = bits.buf;
            self.count = bits.count;
            self.base += bits.pos as u64;
            let rest = invariant::sub(input, from..);
            let mut next = self.direct(rest, more, out, op, out_end);
            next.used += from;
            next.written += written;
            return next;
        }
        let mut outcome = self.finish_call(&mut bits, stop, written);
        let consumed = outcome.used;
        if consumed >= old {
            outcome.used = consumed - old;
        } else {
            let left = old - consumed;
            let mut kept = [0u8; STASH];
            if let (Some(dst), Some(src)) = (kept.get_mut(..left), joined.get(consumed..old)) {
                dst.copy_from_slice(src);
            }
            self.stash = kept;
            self.stash_len = left;
            outcome.used = 0;
        }
        outcome
    }

    /// Keeps the unused tail of a starved call (less than one step) for the next
    /// call, with the bit buffer as it was before the step.
    fn keep(&mut self, rest: &[u8], bits: &Bits<'_>) {
        self.buf = bits.buf;
        self.count = bits.count;
        self.base += bits.pos as u64;
        let n = rest.len().min(STASH);
        if let (Some(dst), Some(src)) = (self.stash.get_mut(..n), rest.get(..n)) {
            dst.copy_from_slice(src);
        }
        self.stash_len = n;
    }

    /// Ends a call that did not starve: gives back whole unread bytes.
    fn finish_call(&mut self, bits: &mut Bits<'_>, stop: Stop, written: usize) -> Outcome {
        bits.unread_bytes();
        let position = self.base + bits.pos as u64;
        if stop == Stop::Done {
            bits.buf = 0;
            bits.count = 0;
        }
        self.buf = bits.buf;
        self.count = bits.count;
        self.base += bits.pos as u64;
        let status = match stop {
            Stop::Done => Status::Done,
            Stop::OutputFull => Status::OutputFull,
            Stop::Corrupt => Status::Corrupt,
            Stop::Starved => Status::NeedsInput,
        };
        Outcome {
            status,
            used: bits.pos,
            written,
            position,
        }
    }

    /// Decodes until the stream ends, the output is full, a step lacks input, or
    /// the data is invalid.
    fn run(&mut self, bits: &mut Bits<'_>, out: &mut [u8], op: &mut usize, out_end: usize) -> Stop {
        loop {
            if self.copy_len > 0 {
                let dist = self.copy_dist;
                if dist <= MAX_PERIOD && self.copy_len == MAX_MATCH && out_end.saturating_sub(*op) >= MAX_MATCH {
                    // A whole match of the longest length: a run of one period (§2.7.1).
                    self.copy_len = 0;
                    self.run_matches(bits, out, op, out_end, dist);
                } else if !self.pending_copy(out, op, out_end) {
                    return Stop::OutputFull;
                }
            }
            let stop = match self.block {
                Block::Done => return Stop::Done,
                // spec/inflate.md §2.8: stop as soon as the output is full, so that after
                // a byte past a bound no further input (a block header) is read.
                _ if *op >= out_end => return Stop::OutputFull,
                Block::Header => self.header(bits),
                Block::Stored(left) => self.stored(bits, left, out, op, out_end),
                Block::Huffman => self.huffman(bits, out, op, out_end),
            };
            if let Some(stop) = stop {
                return stop;
            }
        }
    }

    /// Finishes a match cut short by the output end; false while it is still cut.
    fn pending_copy(&mut self, out: &mut [u8], op: &mut usize, out_end: usize) -> bool {
        let n = self.copy_len.min(out_end.saturating_sub(*op));
        copy_exact(out, *op, self.copy_dist, n, &mut self.run);
        *op += n;
        self.copy_len -= n;
        self.copy_len == 0
    }

    /// Writes a match of the longest length and a distance of at most [`MAX_PERIOD`] (a
    /// run of one period, §2.7.1), decoded and not yet written, for which the output has
    /// room, with the matches that follow with the same bits as it, as long as the output
    /// has room for one: the same bits decode to the same match within a block, so each
    /// is taken by comparing bits rather than by decoding (and those bits are found once
    /// per block and distance, [`RunCode`]). Stops at the first other symbol, at the end
    /// of the input or of the room; the main loop goes on from there. The matches taken
    /// are written as one copy ([`Run::fill`]).
    #[inline(never)]
    fn run_matches(&mut self, bits: &mut Bits<'_>, out: &mut [u8], op: &mut usize, out_end: usize, dist: usize) {
        let room = out_end.saturating_sub(*op).saturating_sub(MAX_MATCH);
        let len = MAX_MATCH + self.same_matches(bits, room, dist);
        // One copy for them all: a long copy reads from far enough back that no load
        // waits on a store just made, which back-to-back copies of 258 bytes do (§8.8).
        self.run.fill(out, *op, len, dist);
        *op += len;
    }

    /// Consumes the matches of the longest length and distance `dist` that come next, as
    /// long as `room` has space for one more; returns their total length.
    fn same_matches(&mut self, bits: &mut Bits<'_>, room: usize, dist: usize) -> usize {
        let RunCode { width, code, .. } = match self.run_code {
            known if known.dist == dist => known,
            _ => {
                let Some(width) = self.run_width(bits, dist) else {
                    return 0;
                };
                if !bits.need(width) {
                    return 0;
                }
                let code = bits.peek_wide(width);
                self.run_code = RunCode { dist, width, code };
                self.run_code
            }
        };
        let mut len = 0;
        while room.saturating_sub(len) >= MAX_MATCH && bits.need(width) && bits.peek_wide(width) == code {
            bits.consume(width);
            len += MAX_MATCH;
        }
        len
    }

    /// The number of bits of the next symbol when it is a match of the longest length
    /// (length symbol 285, which takes no extra bits) and of distance `dist`, extra bits
    /// included (at most 15 + 15 + 13): decoded once, tentatively, and given back.
    fn run_width(&self, bits: &mut Bits<'_>, dist: usize) -> Option<u32> {
        let start = mark(bits);
        let width = (|| {
            let e = slow_lookup(bits, &self.tables, 0, LITLEN_ROOT)?;
            if !is_plain_base(e, MAX_MATCH) {
                return None;
            }
            bits.consume(e & LEN_MASK);
            let d = slow_lookup(bits, &self.tables, DIST_AT, DIST_ROOT)?;
            if d & KIND_MASK != BASE {
                return None;
            }
            bits.consume(d & LEN_MASK);
            let dx = (d >> EXTRA_SHIFT) & 0x1F;
            if !bits.need(dx) {
                return None;
            }
            let decoded = value(d).checked_add(low_bits(bits.buf, dx))?;
            (decoded == dist).then_some((e & LEN_MASK) + (d & LEN_MASK) + dx)
        })();
        restore(bits, start);
        width
    }

    /// Reads a block header (RFC 1951 §3.2.3), for a dynamic block the whole code
    /// description (§3.2.7), as one step.
    fn header(&mut self, bits: &mut Bits<'_>) -> Option<Stop> {
        let mark = mark(bits);
        if !bits.need(3) {
            return Some(Stop::Starved);
        }
        let head = bits.peek(3);
        bits.consume(3);
        self.last = head & 1 == 1;
        let result = match head >> 1 {
            0 => self.stored_header(bits),
            1 => {
                self.load_fixed();
                Ok(Block::Huffman)
            }
            2 => self.dynamic_header(bits),
            // spec/inflate.md §2.2: block type 3 is reserved.
            _ => Err(Stop::Corrupt),
        };
        match result {
            Ok(block) => {
                self.block = block;
                None
            }
            Err(Stop::Starved) => {
                restore(bits, mark);
                Some(Stop::Starved)
            }
            Err(stop) => Some(stop),
        }
    }

    fn stored_header(&mut self, bits: &mut Bits<'_>) -> Result<Block, Stop> {
        let skip = bits.count & 7;
        bits.consume(skip);
        if !bits.need(32) {
            return Err(Stop::Starved);
        }
        let len = bits.peek(16);
        bits.consume(16);
        let nlen = bits.peek(16);
        bits.consume(16);
        // spec/inflate.md §2.2: NLEN must be the one's complement of LEN.
        if len != !nlen & 0xFFFF {
            return Err(Stop::Corrupt);
        }
        Ok(self.after_stored(len))
    }

    fn after_stored(&mut self, left: u32) -> Block {
        if left > 0 {
            Block::Stored(left)
        } else if self.last {
            Block::Done
        } else {
            Block::Header
        }
    }

    /// Copies stored bytes: first whole bytes held in the bit buffer, then input.
    fn stored(
        &mut self,
        bits: &mut Bits<'_>,
        mut left: u32,
        out: &mut [u8],
        op: &mut usize,
        out_end: usize,
    ) -> Option<Stop> {
        while left > 0 && bits.count >= 8 && *op < out_end {
            if let Some(o) = out.get_mut(*op) {
                let [byte, ..] = bits.peek(8).to_le_bytes();
                *o = byte;
            }
            bits.consume(8);
            *op += 1;
            left -= 1;
        }
        if left > 0 && bits.count == 0 {
            let room = out_end.saturating_sub(*op);
            let avail = bits.src.len().saturating_sub(bits.pos);
            let n = (left as usize).min(room).min(avail);
            if let (Some(dst), Some(src)) = (out.get_mut(*op..*op + n), bits.src.get(bits.pos..bits.pos + n)) {
                dst.copy_from_slice(src);
                *op += n;
                bits.pos += n;
                left -= u32::try_from(n).unwrap_or(left);
            }
        }
        self.block = if left == 0 {
            self.after_stored(0)
        } else {
            Block::Stored(left)
        };
        if left == 0 {
            return None;
        }
        if *op >= out_end {
            Some(Stop::OutputFull)
        } else {
            Some(Stop::Starved)
        }
    }

    fn load_fixed(&mut self) {
        if self.fixed_loaded {
            return;
        }
        let lens = huffman::fixed_litlen();
        let (litlen, dist) = self.tables.split_at_mut(DIST_AT.min(TABLES));
        let ok = huffman::build(litlen, LITLEN_ROOT, &lens, Alphabet::LitLen)
            && huffman::build(dist, DIST_ROOT, &[5u8; 32], Alphabet::Dist);
        self.fixed_loaded = ok;
        self.run_code = RunCode::default();
    }

    /// The code description of a dynamic block (RFC 1951 §3.2.7).
    fn dynamic_header(&mut self, bits: &mut Bits<'_>) -> Result<Block, Stop> {
        if !bits.need(14) {
            return Err(Stop::Starved);
        }
        let hlit = bits.peek(5) as usize + 257;
        bits.consume(5);
        let hdist = bits.peek(5) as usize + 1;
        bits.consume(5);
        let hclen = bits.peek(4) as usize + 4;
        bits.consume(4);
        // spec/inflate.md §2.2: at most 286 literal/length and 30 distance codes.
        if hlit > 286 || hdist > 30 {
            return Err(Stop::Corrupt);
        }
        const ORDER: [usize; 19] = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];
        let mut cl_lens = [0u8; 19];
        for &i in ORDER.iter().take(hclen) {
            if !bits.need(3) {
                return Err(Stop::Starved);
            }
            if let Some(l) = cl_lens.get_mut(i) {
                let [len, ..] = bits.peek(3).to_le_bytes();
                *l = len;
            }
            bits.consume(3);
        }
        let mut cl_table = [0u32; CODELEN_ENOUGH];
        // spec/inflate.md §2.2: the code-length code must be complete.
        if !huffman::build(&mut cl_table, CODELEN_ROOT, &cl_lens, Alphabet::CodeLen) {
            return Err(Stop::Corrupt);
        }
        let mut lens = [0u8; 286 + 30];
        read_lengths(bits, &cl_table, invariant::sub_mut(&mut lens, ..hlit + hdist))?;
        let (lit_lens, dist_lens) = lens.split_at(hlit);
        let dist_lens = invariant::sub(dist_lens, ..hdist);
        self.fixed_loaded = false;
        self.run_code = RunCode::default();
        // spec/inflate.md §2.2: over-subscribed or (beyond one code) incomplete codes.
        let (litlen, dist) = self.tables.split_at_mut(DIST_AT.min(TABLES));
        if !huffman::build(litlen, LITLEN_ROOT, lit_lens, Alphabet::LitLen)
            || !huffman::build(dist, DIST_ROOT, dist_lens, Alphabet::Dist)
        {
            return Err(Stop::Corrupt);
        }
        Ok(Block::Huffman)
    }

    /// Decodes symbols of a Huffman block.
    fn huffman(&mut self, bits: &mut Bits<'_>, out: &mut [u8], op: &mut usize, out_end: usize) -> Option<Stop> {
        if let Some(stop) = self.fast(bits, out, op, out_end) {
            return Some(stop);
        }
        if self.block != Block::Huffman || self.copy_len > 0 {
            return None;
        }
        self.slow_symbol(bits, out, op, out_end)
    }

    /// The fast loop; returns when its margins no longer hold (None) or with a stop.
    /// The bit buffer lives in locals; each entry is looked up once, right after the
    /// previous code is consumed, and carried across a refill (which only adds bits
    /// above those already held).
    #[inline(always)]
    fn fast(&mut self, bits: &mut Bits<'_>, out: &mut [u8], op: &mut usize, out_end: usize) -> Option<Stop> {
        let src = bits.src;
        let mut ip = bits.pos;
        let mut bb = bits.buf;
        let mut bc = bits.count;
        // Fixed-size views, so the masked root lookups need no bounds checks.
        let (Ok(tables), Ok(out)) = (
            <&[u32; TABLES]>::try_from(self.tables.as_ref()),
            <&mut [u8; WINDOW]>::try_from(out),
        ) else {
            return None;
        };
        let limit = out_end.saturating_sub(FAST_OUTPUT);
        let mut pos = *op;
        let mut ended = false;
        let mut to_run = 0;
        let result = loop {
            if pos > limit || src.len().saturating_sub(ip) < FAST_INPUT || out_end < FAST_OUTPUT {
                break None;
            }
            refill(src, &mut ip, &mut bb, &mut bc);
            let mut e = lookup(tables, 0, bb, LITLEN_ROOT);
            if e & KIND_MASK == LITERAL {
                // Up to three literal entries per refill: 3 x 15 bits <= 56.
                bb = bb.wrapping_shr(e);
                bc -= e & LEN_MASK;
                let next = lookup(tables, 0, bb, LITLEN_ROOT);
                pos += put(out, pos, e);
                e = next;
                if e & KIND_MASK == LITERAL {
                    bb = bb.wrapping_shr(e);
                    bc -= e & LEN_MASK;
                    let next = lookup(tables, 0, bb, LITLEN_ROOT);
                    pos += put(out, pos, e);
                    e = next;
                    if e & KIND_MASK == LITERAL {
                        bb = bb.wrapping_shr(e);
                        bc -= e & LEN_MASK;
                        pos += put(out, pos, e);
                        continue;
                    }
                }
                // A length needs up to 48 bits: refill under `e` (its bits stay put).
                refill(src, &mut ip, &mut bb, &mut bc);
            }
            // The match's bits, kept for `same_bits` below.
            let (match_bits, match_count) = (bb, bc);
            let kind = e & KIND_MASK;
            bb = bb.wrapping_shr(e);
            bc -= e & LEN_MASK;
            if kind != BASE {
                if kind == END {
                    ended = true;
                    break None;
                }
                break Some(Stop::Corrupt);
            }
            let x = (e >> EXTRA_SHIFT) & 0x1F;
            let len = value(e) + low_bits(bb, x);
            bb >>= x;
            bc -= x;
            let d = lookup(tables, DIST_AT, bb, DIST_ROOT);
            bb = bb.wrapping_shr(d);
            bc -= d & LEN_MASK;
            if d & KIND_MASK != BASE {
                break Some(Stop::Corrupt);
            }
            let dx = (d >> EXTRA_SHIFT) & 0x1F;
            let dist = value(d) + low_bits(bb, dx);
            bb >>= dx;
            bc -= dx;
            // spec/inflate.md §2.2: no distance before the first output byte.
            if dist > pos {
                break Some(Stop::Corrupt);
            }
            // spec/inflate.md §2.7.1: a run of one period goes to `run_matches`, when the
            // next symbol is the same match: the same bits again, as far as the buffer holds
            // them (a guess: either way the output is the same, only the speed differs).
            // Checked only after a length of 258 coded as 285, so that the loop's other paths
            // do not pay for it.
            if is_longest(e) && dist <= MAX_PERIOD {
                let width = match_count - bc;
                // Enough bits for the whole next match (at most 15 + 15 + 13) when the
                // input has them.
                refill(src, &mut ip, &mut bb, &mut bc);
                if same_bits(match_bits, bb, width) {
                    to_run = dist;
                    break None;
                }
            }
            copy_fast(out, pos, dist, len);
            pos += len;
        };
        *op = pos;
        bits.pos = ip;
        bits.buf = bb;
        bits.count = bc;
        if ended {
            self.end_block();
        }
        if to_run != 0 {
            // Decoded, not yet written: `run` writes it as a pending copy.
            self.copy_len = MAX_MATCH;
            self.copy_dist = to_run;
        }
        if result.is_none() {
            bits.clean();
        }
        result
    }

    fn end_block(&mut self) {
        self.block = if self.last { Block::Done } else { Block::Header };
    }

    /// One symbol (and for a length, its distance) with exact input checks.
    fn slow_symbol(&mut self, bits: &mut Bits<'_>, out: &mut [u8], op: &mut usize, out_end: usize) -> Option<Stop> {
        if *op >= out_end {
            return Some(Stop::OutputFull);
        }
        let mark = mark(bits);
        let Some(e) = slow_lookup(bits, &self.tables, 0, LITLEN_ROOT) else {
            restore(bits, mark);
            return Some(Stop::Starved);
        };
        bits.consume(e & LEN_MASK);
        match e & KIND_MASK {
            LITERAL => {
                if let Some(o) = out.get_mut(*op) {
                    let [_, _, byte, _] = e.to_le_bytes();
                    *o = byte;
                }
                *op += 1;
                return None;
            }
            END => {
                self.end_block();
                return None;
            }
            BASE => {}
            _ => return Some(Stop::Corrupt),
        }
        let x = (e >> EXTRA_SHIFT) & 0x1F;
        if !bits.need(x) {
            restore(bits, mark);
            return Some(Stop::Starved);
        }
        let len = (e >> 16) as usize + extra(bits, e) as usize;
        let Some(d) = slow_lookup(bits, &self.tables, DIST_AT, DIST_ROOT) else {
            restore(bits, mark);
            return Some(Stop::Starved);
        };
        let dx = (d >> EXTRA_SHIFT) & 0x1F;
        if d & KIND_MASK == BASE && !bits.need((d & LEN_MASK) + dx) {
            restore(bits, mark);
            return Some(Stop::Starved);
        }
        bits.consume(d & LEN_MASK);
        if d & KIND_MASK != BASE {
            return Some(Stop::Corrupt);
        }
        let dist = (d >> 16) as usize + extra(bits, d) as usize;
        // spec/inflate.md §2.2: no distance before the first output byte.
        if dist > *op {
            return Some(Stop::Corrupt);
        }
        self.copy_len = len;
        self.copy_dist = dist;
        if self.pending_copy(out, op, out_end) {
            None
        } else {
            Some(Stop::OutputFull)
        }
    }
}

fn mark(bits: &Bits<'_>) -> Mark {
    Mark {
        pos: bits.pos,
        buf: bits.buf,
        count: bits.count,
    }
}

fn restore(bits: &mut Bits<'_>, mark: Mark) {
    bits.pos = mark.pos;
    bits.buf = mark.buf;
    bits.count = mark.count;
}

/// The outcome of a call that used all of its input without finishing a step.
fn starved(used: usize, written: usize, more: bool, position: u64) -> Outcome {
    let status = if more { Status::NeedsInput } else { Status::Truncated };
    Outcome {
        status,
        used,
        written,
        position,
    }
}

/// The low `n` bits of `bits` (`n` < 64) as an index or a count.
#[inline(always)]
fn low_bits(bits: u64, n: u32) -> usize {
    usize::try_from(bits & low_mask(n)).unwrap_or(0)
}

/// The mask of the low `n` bits (`n` < 64).
#[inline(always)]
fn low_mask(n: u32) -> u64 {
    (1u64 << n) - 1
}

/// The value field of a table entry (a literal, a base, a subtable start).
#[inline(always)]
fn value(e: u32) -> usize {
    usize::try_from(e >> 16).unwrap_or(0)
}

/// Tops the bit buffer up to at least 56 bits with one 8-byte load; the caller has
/// checked that 8 bytes remain at `ip` (RFC 1951 §3.1.1 bit order).
#[inline(always)]
fn refill(src: &[u8], ip: &mut usize, bb: &mut u64, bc: &mut u32) {
    if let Some(word) = src.get(*ip..).and_then(<[u8]>::first_chunk::<8>) {
        let word = u64::from_le_bytes(*word);
        *bb |= word << *bc;
        *ip += ((63 - *bc) >> 3) as usize;
        *bc |= 56;
    }
}

/// Writes the literal (or, for a [`PAIR`] entry, both literals) of entry `e` at
/// `pos`, always storing two bytes; returns how many are output.
#[inline(always)]
fn put(out: &mut [u8], pos: usize, e: u32) -> usize {
    if let Some(o) = out.get_mut(pos..pos.wrapping_add(2)) {
        let [_, _, first, second] = e.to_le_bytes();
        o.copy_from_slice(&[first, second]);
    }
    1 + ((e >> 9) & 1) as usize
}

/// True when the low `width` bits of `next` (the bits after a match) are those of `done`
/// (the bits the match was read from, `width` of them): the next symbol is the same match
/// again, a run of one period (§2.7.1), when the buffer holds that many bits. Bits past those
/// held are zeros or stale, so the guess can be wrong either way; only the speed depends
/// on it. A match takes at most 48 bits.
#[inline(always)]
fn same_bits(done: u64, next: u64, width: u32) -> bool {
    (done ^ next) & low_mask(width) == 0
}

/// True when entry `e` is the length 258, which takes no extra bits (symbol 285).
#[inline(always)]
fn is_longest(e: u32) -> bool {
    is_plain_base(e, MAX_MATCH)
}

/// True when entry `e` is a length or distance of exactly `base`, with no extra bits.
#[inline(always)]
fn is_plain_base(e: u32, base: usize) -> bool {
    e & KIND_MASK == BASE && value(e) == base && (e >> EXTRA_SHIFT) & 0x1F == 0
}

/// A [`PAIR`] entry reduced to its first literal, for the slow path.
fn single(e: u32) -> u32 {
    if e & KIND_MASK == LITERAL && e & PAIR != 0 {
        let n1 = (e >> EXTRA_SHIFT) & LEN_MASK;
        ((e >> 16) & 0xFF) << 16 | LITERAL | n1
    } else {
        e
    }
}

/// The entry for the next code in the table at `at` of `tables`: root lookup, then
/// the second level if any (subtable starts are relative to the table).
#[inline(always)]
fn lookup(tables: &[u32], at: usize, buf: u64, root: u32) -> u32 {
    let e = invariant::some_or(tables.get(at + low_bits(buf, root)).copied(), INVALID | 1);
    if e & KIND_MASK != SUBTABLE {
        return e;
    }
    let sub = low_bits(buf >> root, (e >> EXTRA_SHIFT) & 0x1F);
    invariant::some_or(tables.get(at + value(e) + sub).copied(), INVALID | 1)
}

/// [`lookup`] that first loads what input remains; None when the code's bits are not
/// all there yet.
fn slow_lookup(bits: &mut Bits<'_>, tables: &[u32], at: usize, root: u32) -> Option<u32> {
    bits.fill();
    let e = single(lookup(tables, at, bits.buf, root));
    // Bits past `count` are zero; a code is decoded right once all its bits are held.
    (bits.count >= e & LEN_MASK).then_some(e)
}

/// Reads and consumes the extra bits of entry `e`.
#[inline(always)]
fn extra(bits: &mut Bits<'_>, e: u32) -> u32 {
    let n = (e >> EXTRA_SHIFT) & 0x1F;
    let v = bits.peek(n);
    bits.consume(n);
    v
}

/// Reads the HLIT + HDIST code lengths (RFC 1951 §3.2.7).
fn read_lengths(bits: &mut Bits<'_>, table: &[u32], lens: &mut [u8]) -> Result<(), Stop> {
    let mut i = 0usize;
    while i < lens.len() {
        let Some(e) = slow_lookup(bits, table, 0, CODELEN_ROOT) else {
            return Err(Stop::Starved);
        };
        bits.consume(e & LEN_MASK);
        let symbol = e >> 16;
        let (value, repeat_bits, base) = match symbol {
            0..=15 => {
                if let Some(l) = lens.get_mut(i) {
                    let [len, ..] = symbol.to_le_bytes();
                    *l = len;
                }
                i += 1;
                continue;
            }
            16 => {
                // spec/inflate.md §2.2: repeat code 16 needs a previous length.
                let Some(&prev) = i.checked_sub(1).and_then(|p| lens.get(p)) else {
                    return Err(Stop::Corrupt);
                };
                (prev, 2, 3)
            }
            17 => (0, 3, 3),
            _ => (0, 7, 11),
        };
        if !bits.need(repeat_bits) {
            return Err(Stop::Starved);
        }
        let n = base + bits.peek(repeat_bits) as usize;
        bits.consume(repeat_bits);
        // spec/inflate.md §2.2: lengths may not run past HLIT + HDIST.
        let Some(run) = lens.get_mut(i..i + n) else {
            return Err(Stop::Corrupt);
        };
        run.fill(value);
        i += n;
    }
    Ok(())
}

/// Copies a match of `len` bytes from `dist` back at `pos`, allowed to write up to 8
/// bytes past `pos + len` (the fast loop's margin).
#[inline(always)]
fn copy_fast(out: &mut [u8], pos: usize, dist: usize, len: usize) {
    if dist >= 64 || (dist >= 8 && len < 64) {
        copy_words(out, pos, pos + len, dist);
    } else if dist == 1 || len < 64 {
        copy_periodic(out, pos, dist, len);
    } else if dist < 16 {
        copy_pattern(out, pos, dist, len);
    } else {
        copy_lagged(out, pos, dist, len);
    }
}

/// Copies a long match of distance 16 to 63 (`spec/inflate.md` §8.8) in 8-byte words,
/// each from as far back as the match allows until that is [`MAX_LAG`] or more: bytes at
/// `pos + i` and `pos + i - k·dist` are equal while `i ≥ (k − 1)·dist`, so once the first
/// `dist` bytes are out the copy reads from `2·dist` back, after the next `dist` from
/// `3·dist`, and so on. An 8-byte load from `dist` back would read bytes of the two stores
/// before it, just made, which the processor cannot forward from its store buffer: each
/// load would wait for both to reach the cache (README "Benchmarks").
#[inline(never)]
fn copy_lagged(out: &mut [u8], pos: usize, dist: usize, len: usize) {
    let end = pos + len;
    let mut d = pos;
    let mut lag = dist;
    while lag < MAX_LAG {
        d = copy_words(out, d, (pos + lag).min(end), lag);
        lag += dist;
    }
    copy_words(out, d, end, lag);
}

/// How far back [`copy_lagged`] reads before it stops reaching farther (measured: 48 left
/// some distances slow, 160 slowed the short ones; the benchmark log,
/// `git log -p -- cli/benches/HISTORY.md`).
const MAX_LAG: usize = 80;

/// Copies 8-byte words from `lag` back to `d`, `d + 8`, … while a word starts before `to`;
/// returns where it stopped. `lag` is at least 8 and at most `d` (the callers' distance
/// checks); writes up to 7 bytes past `to`.
#[inline(always)]
fn copy_words(out: &mut [u8], mut d: usize, to: usize, lag: usize) -> usize {
    while d < to {
        let s = d - lag;
        let word: [u8; 8] = match out.get(s..s + 8).and_then(|w| w.try_into().ok()) {
            Some(w) => w,
            None => return usize::MAX,
        };
        if let Some(dst) = out.get_mut(d..d + 8) {
            dst.copy_from_slice(&word);
        }
        d += 8;
    }
    d
}

/// Copies a long match of distance 2 to 15, allowed to write up to 7 bytes past `pos +
/// len` (the fast loop's margin). Its period (the `dist` bytes before `pos`, all written
/// before this match) is repeated into a 16-byte word, stored with a stride of the
/// largest multiple of `dist` up to 16: no load reads what this copy stored. An 8-byte
/// copy from `dist` back would load, for each 8 bytes, what the store before it (distances
/// up to 8) or the two before it (9 to 15, which the processor cannot forward from its
/// store buffer) had just written (README "Benchmarks").
#[inline(never)]
fn copy_pattern(out: &mut [u8], pos: usize, dist: usize, len: usize) {
    const W: usize = 16;
    // The period is the first `dist` bytes of the 16 from `dist` back (those at and after
    // `pos`, inside the fast loop's room, are masked off), doubled in a 128-bit word until
    // it is full: one load and no library call (copying `dist` bytes into the word took
    // two calls per match).
    let Some(head) = pos
        .checked_sub(dist)
        .and_then(|src| out.get(src..src + 16))
        .and_then(|w| <[u8; 16]>::try_from(w).ok())
    else {
        return;
    };
    let bits = u32::try_from(8 * dist).unwrap_or(64).clamp(8, 120);
    let mut pattern = u128::from_le_bytes(head) & (u128::MAX >> (128 - bits));
    let mut have = bits;
    while have < 128 {
        pattern |= pattern << have;
        have *= 2;
    }
    let word = pattern.to_le_bytes();
    let stride = W - W % dist.max(1);
    let end = pos + len;
    let mut d = pos;
    // `W` bytes per step while that stays within 7 bytes past the end; then fewer than
    // `W` − 7 are left, which 8-byte pieces of the word's start cover, in phase.
    while d + W <= end + 7 {
        let Some(dst) = out.get_mut(d..d + W) else {
            return;
        };
        dst.copy_from_slice(&word);
        d += stride;
    }
    let mut k = 0;
    while d + k < end {
        let (Some(dst), Some(piece)) = (out.get_mut(d + k..d + k + 8), word.get(k..k + 8)) else {
            return;
        };
        dst.copy_from_slice(piece);
        k += 8;
    }
}

/// Copies a match of exactly `len` bytes from `dist` back at `pos`, for a match cut by
/// the output's end or decoded by the slow path. A distance of at most [`MAX_PERIOD`]
/// is a run of one period, written by [`Run::fill`], which records it (§2.7.1).
fn copy_exact(out: &mut [u8], pos: usize, dist: usize, len: usize, run: &mut Run) {
    if dist <= MAX_PERIOD {
        run.fill(out, pos, len, dist);
    } else {
        copy_periodic(out, pos, dist, len);
    }
}

/// How far back [`copy_match`] first reads once a long copy is under way: stores that far
/// back have left the store buffer, so no load waits on them (§8.8).
const FAR: usize = 512;

/// How far back [`copy_match`] reads at most, in as many bytes per library copy: far from
/// a multiple of 4 KiB, where a load would seem to depend on a store 4 KiB ahead of it
/// (distances up to 8 KiB made a period of 9 bytes 2.4 times slower; README "Benchmarks").
const FARTHEST: usize = 2048;

/// Copies a match of `len` bytes from `dist` back at `pos` for [`Run::fill`], allowed
/// to write up to 8 bytes past its end when the window has room for them (which only
/// writes bytes no one has been handed, §2.7.1), exactly otherwise. Up to a match's length
/// as the fast loop does; a longer one (the matches of a run, written at once) from
/// [`FAR`] or more back after its first bytes, in library copies: a long copy from a short
/// distance in 8-byte words has each load wait on the stores just before it (measured:
/// 16–18 ms per 128 MiB of a period broken every 16 KiB, 7 ms this way; README "Benchmarks").
pub(crate) fn copy_match(out: &mut [u8], pos: usize, dist: usize, len: usize) {
    // A distance of 1 is one fill, and a copy without room for the overrun exact.
    if dist <= 1 || dist > pos || pos.saturating_add(len).saturating_add(8) > out.len() {
        copy_periodic(out, pos, dist, len);
        return;
    }
    // The first multiple of the period at least FAR long: the period from there on too.
    let mut lag = FAR.div_ceil(dist) * dist;
    if len <= lag.max(MAX_MATCH) {
        copy_fast(out, pos, dist, len);
        return;
    }
    copy_fast(out, pos, dist, lag);
    // Copies of `lag` bytes from `lag` back (so no copy overlaps itself), the lag doubled
    // while under FARTHEST: what is written since `pos` is a whole number of periods.
    let mut done = lag;
    while done < len {
        let n = lag.min(len - done);
        let (from, to) = (pos + done - lag, pos + done);
        if to + n > out.len() {
            return;
        }
        out.copy_within(from..from + n, to);
        done += n;
        if lag < FARTHEST {
            lag = done;
        }
    }
}

/// Copies a match of exactly `len` bytes from `dist` back at `pos`. The bytes from
/// the source to `pos` repeat with period `dist`, so each step copies, from the
/// source, as many bytes as have been written since it (a whole number of periods):
/// `dist`, then twice that, and so on; each step's ranges do not overlap. A distance
/// of 1 is one fill.
fn copy_periodic(out: &mut [u8], pos: usize, dist: usize, len: usize) {
    let Some(src) = pos.checked_sub(dist).filter(|_| dist > 0) else {
        return;
    };
    if dist == 1 {
        let b = invariant::item(out, src);
        if let Some(run) = out.get_mut(pos..pos + len) {
            run.fill(b);
        }
        return;
    }
    let mut done = 0usize;
    while done < len {
        let n = (dist + done).min(len - done);
        if src + n > out.len() || pos + done + n > out.len() {
            return;
        }
        out.copy_within(src..src + n, pos + done);
        done += n;
    }
}

#[cfg(test)]
mod tests {
    use crate::inflate::reference::{case, run_engine, run_reference};
    use crate::inflate::{InflateReason, OutputBound};
    use crate::test_docs::Rng;

    /// spec/inflate.md §2.8: a byte past the bound that ends a stored block is reported
    /// at that byte, not after the next block header (found by the `inflate` fuzz target).
    #[test]
    fn too_long_offset_is_the_stored_byte_that_passed_the_bound() {
        // A non-final stored block of five bytes, then bytes that read as a bad header.
        let stream = [
            0x00, 0x05, 0x00, 0xfa, 0xff, 1, 0, 2, 5, 0, 0x68, 0x65, 0x6c, 0x6c, 0x6f,
        ];
        for cuts in [&[][..], &[3][..], &[9][..], &[10][..]] {
            let ours = run_engine(&stream, OutputBound::Exact(4), cuts);
            let e = ours.result.unwrap_err();
            assert_eq!((e.reason, e.offset), (InflateReason::TooLong, 10));
            assert_eq!(ours, run_reference(&stream, OutputBound::Exact(4), cuts));
        }
    }

    /// spec/inflate.md §2.7.1: runs long enough to fill the window, so that writes,
    /// slides and CRC-32s are skipped, broken by a literal, by matches that reach back
    /// into the run and by runs of other bytes, decode to exactly the data, with its
    /// CRC-32, at every compression level, whole and cut, and under a bound inside a run.
    #[test]
    fn runs_that_fill_and_slide_the_window_decode_as_written() {
        use alloc::vec::Vec;
        use core::iter::repeat_n;
        let mut data: Vec<u8> = Vec::new();
        data.extend(repeat_n(0u8, 300_000));
        data.push(b'X');
        data.extend(repeat_n(0u8, 100_000));
        let text: Vec<u8> = (0..5_000u32).map(|i| (i % 251) as u8).collect();
        data.extend_from_slice(&text);
        data.extend(repeat_n(0u8, 40_000));
        data.extend_from_slice(&text);
        data.extend(repeat_n(0xFFu8, 230_000));
        data.extend(repeat_n(0u8, 200_000));
        decodes_as_written(&data, 250_000);
    }

    /// spec/inflate.md §2.7.1 for runs of a period: periods of 2 to 258 bytes long enough to
    /// fill and slide the window (so that writes, slides and CRC-32s are skipped), one of
    /// 259 (over the longest period a run records), broken by a literal, by a change of
    /// phase and by matches reaching back into the run, decode to exactly the data, with
    /// its CRC-32, at every compression level, whole and cut, and under a bound inside a
    /// run.
    #[test]
    fn periodic_runs_that_fill_and_slide_the_window_decode_as_written() {
        use alloc::vec::Vec;
        let mut data: Vec<u8> = Vec::new();
        for (i, period) in [2usize, 9, 33, 258, 259, 3].into_iter().enumerate() {
            let pattern: Vec<u8> = (0..period).map(|b| (b * 37 + i) as u8).collect();
            data.extend(pattern.iter().cycle().take(230_000));
            data.push(b'X');
            // The same period in another phase, then text that reaches back into it.
            data.extend(pattern.iter().cycle().skip(1).take(170_000));
            data.extend_from_slice(b"some text ");
            let back = data.len() - 50_000;
            data.extend_from_within(back..back + 1_000);
        }
        decodes_as_written(&data, 1_500_000);
    }

    /// Every stream of `data` ([`streams_of`]) decodes to exactly `data`, with its CRC-32,
    /// whole and cut, as the miniz_oxide engine does, and under a bound of `limit` bytes
    /// (inside the data) fails with `LimitExceeded` where that engine does.
    fn decodes_as_written(data: &[u8], limit: u64) {
        let crc = crc32fast::hash(data);
        let len = data.len() as u64;
        for stream in &streams_of(data) {
            for cuts in [&[][..], &[1, 2, 3][..], &[stream.len() / 3, stream.len() / 2][..]] {
                let ours = run_engine(stream, OutputBound::Exact(len), cuts);
                assert!(ours.output == data, "output differs, {} cuts", cuts.len());
                assert_eq!(ours.result, Ok(crc));
                assert_eq!(ours, run_reference(stream, OutputBound::Exact(len), cuts));
            }
            let bound = OutputBound::AtMost(limit);
            let ours = run_engine(stream, bound, &[]);
            assert_eq!(ours.result.unwrap_err().reason, InflateReason::LimitExceeded);
            assert_eq!(ours, run_reference(stream, bound, &[]));
        }
    }

    /// `data` compressed by miniz_oxide at levels 1, 6 and 9 and by modelgate's writer.
    fn streams_of(data: &[u8]) -> alloc::vec::Vec<alloc::vec::Vec<u8>> {
        let mut streams: alloc::vec::Vec<_> = [1u8, 6, 9]
            .iter()
            .map(|&level| miniz_oxide::deflate::compress_to_vec(data, level))
            .collect();
        streams.push(crate::inflate::deflate(data, usize::MAX).unwrap());
        streams
    }

    /// §8.8: a long match of distance 2 to 15 written from a word that repeats its period
    /// (`copy_pattern`), and one of 16 to 63 copied from ever farther back
    /// (`copy_lagged`): periods of 2 to 80 bytes at length, each after text so the
    /// period starts anywhere, decode to exactly the data at every level, whole and cut.
    #[test]
    fn short_periods_decode_as_written() {
        use alloc::vec::Vec;
        let mut data: Vec<u8> = Vec::new();
        for period in 2..=80u8 {
            data.extend_from_slice(b"some text ");
            data.extend(
                (0..period)
                    .cycle()
                    .map(|b| b.wrapping_mul(37))
                    .take(5_000 + usize::from(period)),
            );
        }
        let crc = crc32fast::hash(&data);
        let len = data.len() as u64;
        let streams = streams_of(&data);
        for stream in &streams {
            for cuts in [&[][..], &[stream.len() / 2][..]] {
                let ours = run_engine(stream, OutputBound::Exact(len), cuts);
                assert!(ours.output == data, "output differs, {} cuts", cuts.len());
                assert_eq!(ours.result, Ok(crc));
            }
        }
    }

    /// spec/inflate.md §2.2–§2.8: on generated streams, valid and damaged, under every
    /// kind of bound and cut into pieces at random, the engine hands out the same bytes
    /// and ends with the same result (reason and offset) as the miniz_oxide engine of the
    /// default build (§10).
    #[test]
    fn engine_matches_the_miniz_engine_on_generated_streams() {
        let mut rng = Rng::new(0x1951);
        for i in 0..3_000 {
            let c = case(&mut rng);
            let ours = run_engine(&c.stream, c.bound, &c.cuts);
            let theirs = run_reference(&c.stream, c.bound, &c.cuts);
            if ours != theirs {
                let same = ours
                    .output
                    .iter()
                    .zip(&theirs.output)
                    .take_while(|(a, b)| a == b)
                    .count();
                panic!(
                    "case {i}: bound {:?}, {} cuts, stream of {}: ours {:?} {:?} ({} out), miniz {:?} {:?} ({} out), same for {same}",
                    c.bound,
                    c.cuts.len(),
                    c.stream.len(),
                    ours.consumed,
                    ours.result,
                    ours.output.len(),
                    theirs.consumed,
                    theirs.result,
                    theirs.output.len()
                );
            }
        }
    }
}
