//! Push-style decoding of a gzip file: one or more RFC 1952 members, optionally
//! followed by zero padding (`spec/inflate.md` §5).

use crate::gzip::error::{GzipError, GzipReason};
use crate::gzip::header::{HeaderParser, ID1};
use crate::gzip::trailer::TrailerParser;
use crate::inflate::raw::{Event, Inflater, OutputBound, to_u64};
use crate::inflate::{InflateError, InflateReason};
use crate::invariant;

/// What one [`GzipDecoder::step`] produced (`spec/inflate.md` §5.11, §5.12).
#[derive(Debug, PartialEq, Eq)]
pub enum GzStep<'a> {
    /// A chunk of output (1 byte to 64 KiB), valid until the next call (§5.11).
    Output(&'a [u8]),
    /// Every given byte was consumed; pass more input or call [`GzipDecoder::finish`].
    NeedInput,
}

/// What a complete, valid gzip input held (`spec/inflate.md` §5.7, §5.8).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GzipSummary {
    /// Number of members (at least 1).
    pub members: u64,
    /// Total output of all members.
    pub output_len: u64,
    /// Bytes of input, zero padding included.
    pub input_len: u64,
    /// Zero bytes after the last member (§5.8).
    pub padding: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Nothing seen yet.
    Start,
    Header,
    Body,
    Trailer,
    /// A member just ended: the input may end, pad with zeros, or start a member.
    AfterMember,
    /// Zero padding after the last member (§5.8).
    Padding,
    Failed(GzipError),
}

/// Push-style gzip decoder (`spec/inflate.md` §5): validates every member's header
/// (§5.1 to §5.4), deflate stream (§5.5) and trailer (§5.6), allows concatenated
/// members (§5.7) and trailing zero padding (§5.8), and bounds the total output by
/// the caller's limit (§5.11). Memory is the inflate engine's window plus fixed state.
#[derive(Debug)]
pub struct GzipDecoder {
    inflater: Inflater,
    header: HeaderParser,
    trailer: TrailerParser,
    phase: Phase,
    offset: u64,
    deflate_start: u64,
    trailer_start: u64,
    limit: u64,
    output_before: u64,
    members: u64,
    padding: u64,
}

impl GzipDecoder {
    /// A decoder whose total output over all members may not exceed `max_output`
    /// bytes (`spec/inflate.md` §5.11).
    pub fn new(max_output: u64) -> Self {
        GzipDecoder {
            inflater: Inflater::new(OutputBound::AtMost(max_output), false),
            header: HeaderParser::new(),
            trailer: TrailerParser::new(),
            phase: Phase::Start,
            offset: 0,
            deflate_start: 0,
            trailer_start: 0,
            limit: max_output,
            output_before: 0,
            members: 0,
            padding: 0,
        }
    }

    /// Consumes `input` (the bytes following everything fed before) until an output
    /// chunk is ready or the input is used up (`spec/inflate.md` §5). Returns how many
    /// bytes were consumed; pass the rest again. After an error every call returns it.
    pub fn step(&mut self, input: &[u8]) -> Result<(usize, GzStep<'_>), GzipError> {
        let (used, output) = self.advance(input)?;
        let step = if output {
            GzStep::Output(self.inflater.last_output())
        } else {
            GzStep::NeedInput
        };
        Ok((used, step))
    }

    /// Consumes all of `input`, handing each output chunk to `sink` as it is produced
    /// (`spec/inflate.md` §5).
    pub fn feed<F: FnMut(&[u8])>(&mut self, input: &[u8], mut sink: F) -> Result<(), GzipError> {
        let mut pos = 0usize;
        loop {
            let rest = invariant::sub(input, pos..);
            let (used, output) = self.advance(rest)?;
            pos = pos.saturating_add(used);
            if !output {
                return Ok(());
            }
            sink(self.inflater.last_output());
        }
    }

    /// Declares the end of the input and checks that it came at an allowed place:
    /// after a member or its zero padding (§5.8). No member at all is `NoMember` at
    /// offset 0 (§5.9); ending inside a member is `Truncated` at the end (§5.10),
    /// unless the engine already found a failure not yet returned by `step` (§2.8).
    pub fn finish(&mut self) -> Result<GzipSummary, GzipError> {
        let reason = match self.phase {
            Phase::Failed(e) => return Err(e),
            Phase::AfterMember | Phase::Padding => return Ok(self.summary()),
            // spec/inflate.md §5.9: at least one member.
            Phase::Start => {
                return Err(self.fail(GzipError::new(GzipReason::NoMember, 0)));
            }
            // spec/inflate.md §2.8, §5.12: a failure the engine found in the call that
            // handed out the last output is reported when it is pending, as `gunzip`
            // reports it, even if the caller did not call `step` again before `finish`.
            Phase::Body => match self.inflater.finish(None) {
                Err(e) if e.reason != InflateReason::Truncated => return Err(self.fail(self.deflate_error(e))),
                // spec/inflate.md §5.10: input ended inside the deflate stream or before
                // its trailer.
                _ => GzipReason::Truncated,
            },
            // spec/inflate.md §5.10: input ended inside a member.
            Phase::Header | Phase::Trailer => GzipReason::Truncated,
        };
        Err(self.fail(GzipError::new(reason, self.offset)))
    }

    /// Input bytes consumed so far: the absolute offset of the next byte (§5.12).
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Output bytes handed out so far, over all members (§5.11).
    pub fn output_len(&self) -> u64 {
        self.output_before.saturating_add(self.body_output())
    }

    /// [`GzipDecoder::step`] without the borrow: true when a chunk is ready.
    fn advance(&mut self, input: &[u8]) -> Result<(usize, bool), GzipError> {
        if let Phase::Failed(e) = self.phase {
            return Err(e);
        }
        match self.advance_inner(input) {
            Ok(r) => Ok(r),
            Err(e) => Err(self.fail(e)),
        }
    }

    fn advance_inner(&mut self, input: &[u8]) -> Result<(usize, bool), GzipError> {
        let mut pos = 0usize;
        loop {
            let rest = invariant::sub(input, pos..);
            if self.phase == Phase::Body {
                let (used, event) = self.body(rest)?;
                pos = pos.saturating_add(used);
                match event {
                    Event::Output => return Ok((pos, true)),
                    Event::NeedInput => return Ok((pos, false)),
                    Event::Done => continue,
                }
            }
            if rest.is_empty() {
                return Ok((pos, false));
            }
            let used = self.outside_body(rest)?;
            self.offset = self.offset.saturating_add(to_u64(used));
            pos = pos.saturating_add(used);
        }
    }

    /// Feeds the member's deflate stream (§5.5); on its end, moves to the trailer.
    fn body(&mut self, rest: &[u8]) -> Result<(usize, Event), GzipError> {
        let (used, event) = self.inflater.advance(rest, true).map_err(|e| self.deflate_error(e))?;
        self.offset = self.offset.saturating_add(to_u64(used));
        if event == Event::Done {
            self.trailer = TrailerParser::new();
            self.trailer_start = self.offset;
            self.phase = Phase::Trailer;
        }
        Ok((used, event))
    }

    /// Takes bytes of a header, trailer or what follows a member; returns how many.
    /// Zero only when the phase changed, so the caller's loop always progresses.
    fn outside_body(&mut self, rest: &[u8]) -> Result<usize, GzipError> {
        match self.phase {
            Phase::Start => self.start(rest),
            Phase::Header => self.header(rest),
            Phase::Trailer => self.trailer(rest),
            Phase::AfterMember => self.after_member(rest),
            Phase::Padding => self.padding(rest),
            Phase::Body | Phase::Failed(_) => Ok(0),
        }
    }

    /// Input has begun: it is a member (§5.9), whose header's first byte must be ID1.
    fn start(&mut self, _rest: &[u8]) -> Result<usize, GzipError> {
        self.begin_member();
        Ok(0)
    }

    fn header(&mut self, rest: &[u8]) -> Result<usize, GzipError> {
        let progress = self.header.feed(rest, self.offset)?;
        if progress.done {
            self.deflate_start = self.offset.saturating_add(to_u64(progress.consumed));
            let remaining = self.limit.saturating_sub(self.output_before);
            // spec/inflate.md §5.11: each member gets what is left of the total limit.
            self.inflater.reset(OutputBound::AtMost(remaining), false);
            self.phase = Phase::Body;
        }
        Ok(progress.consumed)
    }

    fn trailer(&mut self, rest: &[u8]) -> Result<usize, GzipError> {
        let (used, trailer) = self.trailer.feed(rest);
        if let Some(trailer) = trailer {
            let digests = self.inflater.finish(None).map_err(|e| self.deflate_error(e))?;
            // spec/inflate.md §5.6: CRC-32 and ISIZE must match the member's output.
            trailer.check(&digests, self.trailer_start)?;
            self.members = self.members.saturating_add(1);
            self.output_before = self.output_before.saturating_add(digests.len);
            self.phase = Phase::AfterMember;
        }
        Ok(used)
    }

    /// After a member: a new member starts right away, zero padding starts, or the
    /// byte is trailing garbage (§5.7, §5.8).
    fn after_member(&mut self, rest: &[u8]) -> Result<usize, GzipError> {
        match rest.first() {
            Some(&0) => self.phase = Phase::Padding,
            Some(&ID1) => self.begin_member(),
            // spec/inflate.md §5.8: anything else after a member is trailing garbage.
            _ => return Err(GzipError::new(GzipReason::TrailingGarbage, self.offset)),
        }
        Ok(0)
    }

    /// Zero padding runs to the end of the input; any other byte is garbage (§5.8).
    fn padding(&mut self, rest: &[u8]) -> Result<usize, GzipError> {
        if let Some(i) = rest.iter().position(|&b| b != 0) {
            // spec/inflate.md §5.8: only zero bytes may follow the padding's start.
            let at = self.offset.saturating_add(to_u64(i));
            return Err(GzipError::new(GzipReason::TrailingGarbage, at));
        }
        self.padding = self.padding.saturating_add(to_u64(rest.len()));
        Ok(rest.len())
    }

    fn begin_member(&mut self) {
        self.header = HeaderParser::new();
        self.phase = Phase::Header;
    }

    /// Places an engine error in the gzip input and maps the reasons gzip names
    /// itself (§5.5, §5.10, §5.11).
    fn deflate_error(&self, e: InflateError) -> GzipError {
        let at = self.deflate_start.saturating_add(e.offset);
        let reason = match e.reason {
            InflateReason::LimitExceeded => GzipReason::LimitExceeded,
            InflateReason::Truncated => GzipReason::Truncated,
            other => GzipReason::Deflate(other),
        };
        GzipError::new(reason, at)
    }

    /// Output of the member being decoded, if any.
    fn body_output(&self) -> u64 {
        match self.phase {
            Phase::Body | Phase::Trailer => self.inflater.produced(),
            _ => 0,
        }
    }

    fn summary(&self) -> GzipSummary {
        GzipSummary {
            members: self.members,
            output_len: self.output_before,
            input_len: self.offset,
            padding: self.padding,
        }
    }

    fn fail(&mut self, e: GzipError) -> GzipError {
        self.phase = Phase::Failed(e);
        e
    }
}
