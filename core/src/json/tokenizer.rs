//! The pull tokenizer every JSON reader in modelgate uses (`spec/json.md` §1–§6).
//!
//! [`Parser::next_event`] yields one [`Event`] at a time with the byte offset of its first
//! byte. All rules are enforced as the parser goes: UTF-8 (checked once for the whole
//! input up front), grammar, string escapes, noncharacters, duplicate names, depth. The
//! size limit and the byte-order mark are checked by [`Parser::new`].

use super::Limits;
use super::error::{Error, Expected, Reason};
use super::keys::NameSets;
use super::number;
use super::utf8::{self, is_noncharacter, seq_is_noncharacter};
use crate::invariant;
use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;

/// A string or member name as it appears between its quotes, or a number's lexeme,
/// already validated. The text is handed out as `&str` only when asked for, so a caller
/// that only validates never pays for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Str<'a> {
    /// The whole input; the token is `start..end` of it.
    text: &'a str,
    start: usize,
    end: usize,
    escaped: bool,
}

impl<'a> Str<'a> {
    /// The text exactly as written (escapes not resolved).
    #[inline]
    pub fn raw(&self) -> &'a str {
        // Token boundaries are ASCII bytes, so they are always character boundaries.
        invariant::sub_str(self.text, self.start..self.end)
    }

    /// The input offset just past the raw text (a string's closing quote, the byte after
    /// a number), without slicing the text.
    #[inline]
    pub fn end(&self) -> usize {
        self.end
    }

    /// True when the raw text contains at least one escape.
    pub fn has_escapes(&self) -> bool {
        self.escaped
    }

    /// The string's value: borrowed when it has no escapes.
    #[inline(always)]
    pub fn value(&self) -> Cow<'a, str> {
        if self.escaped {
            Cow::Owned(self.unescaped())
        } else {
            Cow::Borrowed(self.raw())
        }
    }

    /// The value of a string with escapes, kept out of line so that [`Str::value`] of the
    /// usual string inlines to a slice.
    #[inline(never)]
    fn unescaped(&self) -> String {
        let mut s = String::with_capacity(self.end.saturating_sub(self.start));
        self.unescape_into(&mut s);
        s
    }

    /// Appends the string's value to `out` (`spec/json.md` §3.3).
    pub fn unescape_into(&self, out: &mut String) {
        unescape(self.raw(), out);
    }
}

/// What the tokenizer found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Token<'a> {
    /// `{`
    StartObject,
    /// `}`
    EndObject,
    /// `[`
    StartArray,
    /// `]`
    EndArray,
    /// An object member name; the value follows as the next event.
    Name(Str<'a>),
    /// A string value.
    String(Str<'a>),
    /// A number, as its lexeme (`spec/json.md` §4; [`Str::raw`] gives the text).
    Number(Str<'a>),
    /// `true` or `false`.
    Bool(bool),
    /// `null`.
    Null,
}

/// One token and the offset of its first byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event<'a> {
    /// Offset of the token's first byte (the opening quote of a string).
    pub offset: usize,
    /// The token.
    pub token: Token<'a>,
}

/// Where [`Parser::read_into`] hands the tokens it reads, in document order, each with
/// the offset of its first byte (`spec/json.md` §2). The unit type `()` is the sink that
/// keeps nothing, which [`Parser::skip_to_end`] uses.
pub(crate) trait Sink<'a> {
    /// `{` (`object`) or `[` at `at`.
    fn open(&mut self, at: usize, object: bool);
    /// The `}` or `]` at `at` that closes the innermost open container.
    fn close(&mut self, at: usize);
    /// A member name whose opening quote is at `at`; its value follows.
    fn name(&mut self, at: usize, name: Str<'a>);
    /// A string, number or literal value at `at` (never a container token nor a name).
    fn scalar(&mut self, at: usize, token: Token<'a>);

    /// One event of [`Parser::next_event`], passed to the method for its token.
    #[inline(always)]
    fn event(&mut self, event: Event<'a>) {
        match event.token {
            Token::StartObject => self.open(event.offset, true),
            Token::StartArray => self.open(event.offset, false),
            Token::EndObject | Token::EndArray => self.close(event.offset),
            Token::Name(name) => self.name(event.offset, name),
            token => self.scalar(event.offset, token),
        }
    }
}

impl<'a> Sink<'a> for () {
    #[inline(always)]
    fn open(&mut self, _: usize, _: bool) {}
    #[inline(always)]
    fn close(&mut self, _: usize) {}
    #[inline(always)]
    fn name(&mut self, _: usize, _: Str<'a>) {}
    #[inline(always)]
    fn scalar(&mut self, _: usize, _: Token<'a>) {}
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Before the top-level value.
    Start,
    /// After `[`: a value or `]`.
    ArrayFirst,
    /// After `{`: a name or `}`.
    ObjectFirst,
    /// After `,` in an array or `:` in an object: a value.
    Value,
    /// After the complete top-level value.
    AfterTop,
    /// After a complete value inside an array.
    AfterInArray,
    /// After a complete member value inside an object.
    AfterInObject,
    /// The top-level value and trailing whitespace are done.
    Finished,
}

/// Streaming strict JSON parser over a byte slice (`spec/json.md`).
pub struct Parser<'a> {
    bytes: &'a [u8],
    text: &'a str,
    /// Where [`Parser::next_event`] resumes. [`Parser::read_into`] keeps its cursor in a
    /// local while it runs and stores it here only at the end.
    pos: usize,
    /// One entry per open container: true for an object.
    open: Vec<bool>,
    state: State,
    /// The state after a complete value in the innermost open container.
    after: State,
    names: NameSets,
    max_depth: usize,
    scratch: String,
    /// Non-ASCII bytes before this offset are known to be well-formed UTF-8: the whole
    /// input for [`Parser::new`]; for [`Parser::deferred_utf8`], the runs strings have
    /// checked so far.
    utf8_until: usize,
    /// The error the parser stopped at, returned again by every later call (§7.1).
    failed: Option<Error>,
}

/// Inputs longer than this are rejected whatever the configured limit, so that name
/// indices always fit the duplicate table's 32-bit slots (`spec/json.md` §6).
pub const MAX_INPUT: usize = u32::MAX as usize;

/// The default SipHash key. Anyone can read it, so a parser left with it (or given it)
/// does not hash under it: its tables are keyed with the SHA-256 of the whole input,
/// computed the first time an object reaches 17 members (`spec/json.md` §5). Callers with
/// an entropy source pass their own key in [`super::Limits::hash_key`] and skip that pass;
/// `modelgate-io` does so with a per-process random key.
pub const DEFAULT_HASH_KEY: [u64; 2] = [0x6d6f_6465_6c67_6174, 0x6a73_6f6e_6b65_7973];

impl<'a> Parser<'a> {
    /// Checks the size limit, UTF-8 well-formedness and the byte-order mark, in that order
    /// (`spec/json.md` §6, §1.1, §1.2: a UTF-8 error anywhere wins over the mark), then
    /// returns a parser positioned before the first token.
    pub fn new(input: &'a [u8], limits: Limits) -> Result<Self, Error> {
        let mut parser = Parser::deferred_utf8(input, limits)?;
        parser.text = utf8::validate(input)?;
        parser.utf8_until = input.len();
        no_byte_order_mark(input)?;
        Ok(parser)
    }

    /// A parser for [`Parser::skip_to_end`] only, which checks UTF-8 inside strings as it
    /// reads them instead of over the whole input first, so each byte is read once. Every
    /// non-ASCII byte of an accepted document is inside a string, so acceptance is the
    /// same; on rejection the caller must let an ill-formed sequence anywhere in the input
    /// take precedence, as [`Parser::new`] would have ([`super::validate`] does).
    /// It checks only the size limit: the caller checks the byte-order mark
    /// ([`no_byte_order_mark`]) before it reads, and lets a UTF-8 error win over that too.
    /// Until [`Parser::new`] sets its text, the tokens' text is empty.
    pub(super) fn deferred_utf8(input: &'a [u8], limits: Limits) -> Result<Self, Error> {
        // On 32-bit targets `MAX_INPUT` is `usize::MAX`, and the cap changes nothing.
        #[allow(clippy::unnecessary_min_or_max)]
        let max = limits.max_bytes.min(MAX_INPUT);
        if input.len() > max {
            return Err(Error::new(Reason::TooLarge, max));
        }
        Ok(Parser {
            bytes: input,
            text: "",
            pos: 0,
            open: Vec::new(),
            state: State::Start,
            after: State::AfterTop,
            names: NameSets::new(limits.hash_key),
            max_depth: limits.max_depth,
            scratch: String::new(),
            utf8_until: 0,
            failed: None,
        })
    }

    /// Lets objects of [`super::keys::LARGE`] names or more check their names by one sort
    /// when they close (`spec/json.md` §5.1). Only for a read that hands out no names before its
    /// verdict: a validation ([`super::validate`]).
    pub(super) fn defer_duplicates(mut self) -> Self {
        self.names.defer();
        self
    }

    /// The whole input as text, checked as UTF-8 by [`Parser::new`].
    pub fn text(&self) -> &'a str {
        self.text
    }

    /// Number of containers open right now.
    pub fn depth(&self) -> usize {
        self.open.len()
    }

    /// The next token, or `None` after the top-level value once only whitespace is left.
    /// After an error, every later call (and [`Parser::skip_to_end`]) returns that error
    /// again (`spec/json.md` §7.1).
    #[inline(always)]
    pub fn next_event(&mut self) -> Result<Option<Event<'a>>, Error> {
        if let Some(e) = self.failed {
            return Err(e);
        }
        let event = self.step().map_err(|e| self.first_failure(e));
        if let Err(e) = event {
            self.failed = Some(e);
        }
        event
    }

    /// The failure a read that stops at `e` reports (§7.1): `e`, unless a name read before
    /// it, in an object that deferred part of its check (`spec/json.md` §5.1), repeats an
    /// earlier name of its object; then the first such name is the first failure.
    #[cold]
    fn first_failure(&mut self, e: Error) -> Error {
        match self.names.pending_repeat(self.bytes) {
            Some(at) if at < e.offset => Error::new(Reason::DuplicateName, at),
            _ => e,
        }
    }

    /// The end of a read that found no other failure: the first repeat among names whose
    /// check was deferred (`spec/json.md` §5.1), if there is one, is the read's failure.
    fn deferred_repeat(&mut self) -> Result<(), Error> {
        match self.names.pending_repeat(self.bytes) {
            Some(at) => Err(Error::new(Reason::DuplicateName, at)),
            None => Ok(()),
        }
    }

    /// [`Parser::next_event`] of a parser that has not failed.
    #[inline(always)]
    fn step(&mut self) -> Result<Option<Event<'a>>, Error> {
        let (at, next) = skip_space(self.bytes, self.pos);
        self.pos = at;
        match self.state {
            State::Finished => Ok(None),
            State::Start | State::Value => self.value_event(at, next).map(Some),
            State::ArrayFirst if next == Some(b']') => Ok(Some(self.close_event(at, Token::EndArray))),
            State::ArrayFirst => self.value_event(at, next).map(Some),
            State::ObjectFirst if next == Some(b'}') => {
                self.names.close(self.bytes);
                Ok(Some(self.close_event(at, Token::EndObject)))
            }
            State::ObjectFirst => self.name_event(at, next),
            State::AfterTop => self.after_top(at, next),
            State::AfterInArray => self.after_in_array(at, next),
            State::AfterInObject => self.after_in_object(at, next),
        }
    }

    /// Reads the rest of the document without handing out events: the same helpers as
    /// [`Parser::next_event`], so the same checks, errors and offsets, with the position in
    /// the grammar kept in the control flow rather than looked up per token. This is what
    /// [`super::validate`] runs; the `json` fuzz target checks that it agrees with draining
    /// `next_event`.
    pub fn skip_to_end(&mut self) -> Result<(), Error> {
        self.read_into(&mut ())
    }

    /// Reads the rest of the document as [`Parser::skip_to_end`] does (one loop, the same
    /// checks, errors and offsets) and hands each token to `sink` in document order, as
    /// [`Parser::next_event`] would yield it. With the no-op sink `()` this is
    /// `skip_to_end`; the OneModel manifest tape records the tokens through its own sink.
    pub(crate) fn read_into<S: Sink<'a>>(&mut self, sink: &mut S) -> Result<(), Error> {
        if let Some(e) = self.failed {
            return Err(e);
        }
        // §5.1: a repeat whose check was deferred is the read's failure, or comes before it.
        let read = match self.read_rest(sink) {
            Ok(()) => self.deferred_repeat(),
            Err(e) => Err(self.first_failure(e)),
        };
        if let Err(e) = read {
            // The loop keeps its place in locals: after a failure only the error is left.
            self.failed = Some(e);
        }
        read
    }

    /// [`Parser::read_into`] of a parser that has not failed.
    fn read_rest<S: Sink<'a>>(&mut self, sink: &mut S) -> Result<(), Error> {
        // Before the document or after a comma or colon, a value is expected. Any other
        // state comes only from `next_event`, which the rest is read through.
        if !matches!(self.state, State::Start | State::Value) {
            while let Some(event) = self.next_event()? {
                sink.event(event);
            }
            return Ok(());
        }
        // The cursor lives in a local, not in `self.pos`: kept in a register, it does not
        // go through a store and a reload for every token, which is the loop's critical path.
        let mut pos = self.pos;
        loop {
            // A value is expected here.
            let (at, next) = skip_space(self.bytes, pos);
            match next {
                Some(b'{') => {
                    self.open(at, true)?;
                    sink.open(at, true);
                    let (at, next) = skip_space(self.bytes, at + 1);
                    if next != Some(b'}') {
                        let (name, end) = self.name(at, next)?;
                        sink.name(at, name);
                        pos = end;
                        continue;
                    }
                    self.names.close(self.bytes);
                    self.close();
                    sink.close(at);
                    pos = at + 1;
                }
                Some(b'[') => {
                    self.open(at, false)?;
                    sink.open(at, false);
                    let (at, next) = skip_space(self.bytes, at + 1);
                    if next != Some(b']') {
                        pos = at;
                        continue;
                    }
                    self.close();
                    sink.close(at);
                    pos = at + 1;
                }
                _ => {
                    // Not `{` nor `[`: a scalar (the container arms of `value` are dead here).
                    let (token, end) = self.value(at, next)?;
                    sink.scalar(at, token);
                    pos = end;
                }
            }
            // A value is complete: close containers until the next value or the end.
            loop {
                let (at, next) = skip_space(self.bytes, pos);
                match self.after {
                    State::AfterInArray => match next {
                        Some(b',') => {
                            pos = at + 1;
                            break;
                        }
                        Some(b']') => {
                            self.close();
                            sink.close(at);
                            pos = at + 1;
                        }
                        _ => return Err(self.unexpected(at, next, Expected::CommaOrArrayEnd)),
                    },
                    State::AfterInObject => match next {
                        Some(b',') => {
                            let (at, next) = skip_space(self.bytes, at + 1);
                            let (name, end) = self.name(at, next)?;
                            sink.name(at, name);
                            pos = end;
                            break;
                        }
                        Some(b'}') => {
                            self.names.close(self.bytes);
                            self.close();
                            sink.close(at);
                            pos = at + 1;
                        }
                        _ => return Err(self.unexpected(at, next, Expected::CommaOrObjectEnd)),
                    },
                    _ => {
                        // The end of the document.
                        self.pos = at;
                        self.after_top(at, next)?;
                        return Ok(());
                    }
                }
            }
        }
    }

    fn unexpected(&self, at: usize, next: Option<u8>, expected: Expected) -> Error {
        match next {
            None => Error::new(Reason::UnexpectedEnd(expected), at),
            Some(_) => Error::new(Reason::UnexpectedByte(expected), at),
        }
    }

    fn after_top(&mut self, at: usize, next: Option<u8>) -> Result<Option<Event<'a>>, Error> {
        if next.is_some() {
            // §2: nothing but whitespace after the top-level value.
            return Err(Error::new(Reason::TrailingContent, at));
        }
        self.state = State::Finished;
        Ok(None)
    }

    #[inline(always)]
    fn after_in_array(&mut self, at: usize, next: Option<u8>) -> Result<Option<Event<'a>>, Error> {
        match next {
            Some(b',') => {
                let (at, next) = skip_space(self.bytes, at + 1);
                self.value_event(at, next).map(Some)
            }
            Some(b']') => Ok(Some(self.close_event(at, Token::EndArray))),
            _ => Err(self.unexpected(at, next, Expected::CommaOrArrayEnd)),
        }
    }

    #[inline(always)]
    fn after_in_object(&mut self, at: usize, next: Option<u8>) -> Result<Option<Event<'a>>, Error> {
        match next {
            Some(b',') => {
                let (at, next) = skip_space(self.bytes, at + 1);
                self.name_event(at, next)
            }
            Some(b'}') => {
                self.names.close(self.bytes);
                Ok(Some(self.close_event(at, Token::EndObject)))
            }
            _ => Err(self.unexpected(at, next, Expected::CommaOrObjectEnd)),
        }
    }

    /// [`Parser::close`] for [`Parser::next_event`]: the token's event, the cursor after it.
    #[inline(always)]
    fn close_event(&mut self, at: usize, token: Token<'a>) -> Event<'a> {
        self.close();
        self.pos = at + 1;
        Event { offset: at, token }
    }

    /// Closes the innermost container; the cursor is the caller's to move past its bracket.
    #[inline(always)]
    fn close(&mut self) {
        self.open.pop();
        self.after = match self.open.last() {
            None => State::AfterTop,
            Some(false) => State::AfterInArray,
            Some(true) => State::AfterInObject,
        };
        self.state = self.after;
    }

    /// Opens a container at `at`; the cursor is the caller's to move past it.
    #[inline(always)]
    fn open(&mut self, at: usize, object: bool) -> Result<Token<'a>, Error> {
        // §6: depth counts the containers open at once, this one included.
        if self.open.len() >= self.max_depth {
            return Err(Error::new(Reason::TooDeep, at));
        }
        self.open.push(object);
        let token = if object {
            self.names.open();
            self.after = State::AfterInObject;
            self.state = State::ObjectFirst;
            Token::StartObject
        } else {
            self.after = State::AfterInArray;
            self.state = State::ArrayFirst;
            Token::StartArray
        };
        Ok(token)
    }

    /// [`Parser::value`] for [`Parser::next_event`]: the event, the cursor after it.
    #[inline(always)]
    fn value_event(&mut self, at: usize, next: Option<u8>) -> Result<Event<'a>, Error> {
        let (token, end) = self.value(at, next)?;
        self.pos = end;
        Ok(Event { offset: at, token })
    }

    /// Reads the value starting at `at` (first byte `next`); returns its token and the
    /// offset after it (after the bracket for a container, which stays open).
    #[inline(always)]
    fn value(&mut self, at: usize, next: Option<u8>) -> Result<(Token<'a>, usize), Error> {
        let (token, end) = match next {
            Some(b'{') => return Ok((self.open(at, true)?, at + 1)),
            Some(b'[') => return Ok((self.open(at, false)?, at + 1)),
            Some(b'"') => {
                let s = self.string(at)?;
                (Token::String(s), s.end + 1)
            }
            Some(b'-' | b'0'..=b'9') => {
                let n = self.number(at)?;
                (Token::Number(n), n.end)
            }
            Some(b't') => self.literal(at, "true", Token::Bool(true))?,
            Some(b'f') => self.literal(at, "false", Token::Bool(false))?,
            Some(b'n') => self.literal(at, "null", Token::Null)?,
            _ => return Err(self.unexpected(at, next, Expected::Value)),
        };
        self.state = self.after;
        Ok((token, end))
    }

    #[inline(always)]
    fn name_event(&mut self, at: usize, next: Option<u8>) -> Result<Option<Event<'a>>, Error> {
        let (name, end) = self.name(at, next)?;
        self.pos = end;
        Ok(Some(Event {
            offset: at,
            token: Token::Name(name),
        }))
    }

    /// Reads a member name and its colon (`spec/json.md` §5: no duplicate names); returns
    /// the name and the offset after the colon.
    #[inline(always)]
    fn name(&mut self, at: usize, next: Option<u8>) -> Result<(Str<'a>, usize), Error> {
        if next != Some(b'"') {
            return Err(self.unexpected(at, next, Expected::Name));
        }
        let s = self.string(at)?;
        if !self.insert_name(at, s.end, s.escaped) {
            return Err(Error::new(Reason::DuplicateName, at));
        }
        let (colon, next) = skip_space(self.bytes, s.end + 1);
        if next != Some(b':') {
            return Err(self.unexpected(colon, next, Expected::Colon));
        }
        self.state = State::Value;
        Ok((s, colon + 1))
    }

    /// Adds the checked name whose quotes are at `at` and `end` to the innermost object's
    /// names (§5: compared after unescaping); false when it is already there.
    #[inline(always)]
    fn insert_name(&mut self, at: usize, end: usize, escaped: bool) -> bool {
        if escaped {
            self.scratch.clear();
            // From the bytes, not the text: a deferred-UTF-8 parser has no text, and the
            // string scan has checked these bytes.
            let raw = invariant::sub(self.bytes, at + 1..end);
            unescape(invariant::some(core::str::from_utf8(raw).ok()), &mut self.scratch);
            self.names
                .insert(self.bytes, (at + 1, end), Some(self.scratch.as_bytes()))
        } else {
            self.names.insert(self.bytes, (at + 1, end), None)
        }
    }

    #[inline(always)]
    fn literal(&self, at: usize, word: &str, token: Token<'a>) -> Result<(Token<'a>, usize), Error> {
        let end = at + word.len();
        if self.bytes.get(at..end) != Some(word.as_bytes()) {
            return Err(Error::new(Reason::InvalidLiteral, at));
        }
        Ok((token, end))
    }

    #[inline(always)]
    fn number(&self, at: usize) -> Result<Str<'a>, Error> {
        let end = number::scan(self.bytes, at).map_err(|bad| Error::new(Reason::InvalidNumber, bad))?;
        Ok(Str {
            text: self.text,
            start: at,
            end,
            escaped: false,
        })
    }

    /// Scans the string whose opening quote is at `open` (`spec/json.md` §3); the
    /// closing quote is at the returned [`Str::end`].
    #[inline(always)]
    fn string(&mut self, open: usize) -> Result<Str<'a>, Error> {
        let start = open + 1;
        let mut i = start;
        let mut escaped = false;
        loop {
            i = skip_plain(self.bytes, i);
            let Some(&c) = self.bytes.get(i) else {
                return Err(Error::new(Reason::UnexpectedEnd(Expected::StringEnd), i));
            };
            // The usual stop is the closing quote: decided without the table's load.
            if c == b'"' {
                break;
            }
            match CLASS.get(usize::from(c)).copied().unwrap_or(PLAIN) {
                QUOTE => break,
                PLAIN => i += 1,
                BACKSLASH => {
                    escaped = true;
                    i = self.escape(i)?;
                }
                // §3.2: control characters must be escaped.
                CONTROL => return Err(Error::new(Reason::ControlCharacter, i)),
                // §1.1: a run of non-ASCII bytes is checked once, on its first byte.
                // §3.4: no noncharacters. The run is well-formed UTF-8, so a 0xEF lead
                // starts three bytes and 0xF0–0xF4 four.
                high => {
                    if i >= self.utf8_until {
                        self.check_utf8_run(i)?;
                    }
                    i += match high {
                        LEAD3 | LEAD4 if seq_is_noncharacter(invariant::sub(self.bytes, i..)) => {
                            return Err(Error::new(Reason::Noncharacter, i));
                        }
                        LEAD3 => 3,
                        LEAD4 => 4,
                        _ => 1,
                    };
                }
            }
        }
        Ok(Str {
            text: self.text,
            start,
            end: i,
            escaped,
        })
    }

    /// Checks the run of non-ASCII bytes starting at `i` as UTF-8 (`spec/json.md` §1.1):
    /// ASCII bytes never occur inside a multi-byte sequence, so a well-formed input splits
    /// into well-formed runs. On failure the error is the one a whole-input check gives.
    #[cold]
    fn check_utf8_run(&mut self, i: usize) -> Result<(), Error> {
        let rest = invariant::sub(self.bytes, i..);
        let len = rest.iter().position(u8::is_ascii).unwrap_or(rest.len());
        match core::str::from_utf8(invariant::sub(rest, ..len)) {
            Ok(_) => {
                self.utf8_until = i + len;
                Ok(())
            }
            Err(_) => {
                let own = Error::new(Reason::InvalidUtf8(utf8::classify(rest)), i);
                Err(utf8::validate(self.bytes).err().unwrap_or(own))
            }
        }
    }

    /// Checks the escape whose backslash is at `at`; returns the offset after it
    /// (`spec/json.md` §3.3, §3.4).
    fn escape(&self, at: usize) -> Result<usize, Error> {
        let invalid = Error::new(Reason::InvalidEscape, at);
        match self.bytes.get(at + 1) {
            Some(&c) if is_short_escape(c) => Ok(at + 2),
            Some(b'u') => {
                let first = hex4(self.bytes, at + 2).ok_or(invalid)?;
                let unpaired = Error::new(Reason::UnpairedSurrogate, at);
                let (code, end) = match first {
                    0xD800..=0xDBFF => {
                        // §3.4: an escape right after the high surrogate is checked as an
                        // escape first (§3.3), whatever its letter: a malformed one is
                        // `InvalidEscape` at its own backslash; a well-formed one that is not
                        // a low surrogate leaves the high one unpaired.
                        let second = Error::new(Reason::InvalidEscape, at + 6);
                        match (self.bytes.get(at + 6), self.bytes.get(at + 7)) {
                            (Some(b'\\'), Some(b'u')) => {}
                            (Some(b'\\'), Some(&c)) if is_short_escape(c) => return Err(unpaired),
                            (Some(b'\\'), _) => return Err(second),
                            _ => return Err(unpaired),
                        }
                        let low = hex4(self.bytes, at + 8).ok_or(second)?;
                        if !(0xDC00..=0xDFFF).contains(&low) {
                            return Err(unpaired);
                        }
                        (0x10000 + ((first - 0xD800) << 10) + (low - 0xDC00), at + 12)
                    }
                    0xDC00..=0xDFFF => return Err(unpaired),
                    _ => (first, at + 6),
                };
                if is_noncharacter(code) {
                    return Err(Error::new(Reason::Noncharacter, at));
                }
                Ok(end)
            }
            _ => Err(invalid),
        }
    }
}

/// §1.2: the input must not start with a UTF-8 byte-order mark.
pub(super) fn no_byte_order_mark(input: &[u8]) -> Result<(), Error> {
    if input.starts_with(&[0xEF, 0xBB, 0xBF]) {
        return Err(Error::new(Reason::ByteOrderMark, 0));
    }
    Ok(())
}

/// The offset of the first byte at or after `pos` that is not whitespace (`spec/json.md`
/// §2), and that byte.
#[inline(always)]
pub(super) fn skip_space(bytes: &[u8], pos: usize) -> (usize, Option<u8>) {
    // Compact documents have no whitespace between tokens: one comparison decides, and
    // the loop stays out of line.
    match bytes.get(pos) {
        Some(&b) if b > b' ' => (pos, Some(b)),
        _ => skip_space_run(bytes, pos),
    }
}

#[inline(never)]
fn skip_space_run(bytes: &[u8], mut pos: usize) -> (usize, Option<u8>) {
    // §2: only space, tab, line feed and carriage return.
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(pos) {
        pos += 1;
    }
    (pos, bytes.get(pos).copied())
}

const PLAIN: u8 = 0;
const QUOTE: u8 = 1;
const BACKSLASH: u8 = 2;
const CONTROL: u8 = 3;
const LEAD3: u8 = 4;
const LEAD4: u8 = 5;
const NON_ASCII: u8 = 6;

/// Byte classes inside a string: everything except these is copied through unchanged.
// Evaluated at compile time: an out-of-range index would fail the build, not panic.
#[allow(clippy::indexing_slicing)]
static CLASS: [u8; 256] = {
    let mut t = [PLAIN; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = CONTROL;
        i += 1;
    }
    t[b'"' as usize] = QUOTE;
    t[b'\\' as usize] = BACKSLASH;
    let mut h = 0x80;
    while h < 0x100 {
        t[h] = NON_ASCII;
        h += 1;
    }
    t[0xEF] = LEAD3;
    let mut l = 0xF0;
    while l <= 0xF4 {
        t[l] = LEAD4;
        l += 1;
    }
    t
};

/// Returns the offset of the first byte at or after `i` that a string scan must look at:
/// `"`, `\\`, a control character or any non-ASCII byte (each a class of its own in
/// [`CLASS`]). Eight bytes at a time while eight are left, then byte by byte.
#[inline]
fn skip_plain(bytes: &[u8], mut i: usize) -> usize {
    const ONES: u64 = u64::from_le_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_le_bytes([0x80; 8]);
    while let Some(word) = bytes.get(i..).and_then(<[u8]>::first_chunk::<8>) {
        let x = u64::from_le_bytes(*word);
        // Per byte, the high bit of each term is set exactly for the first byte that is
        // below 0x20, equal to '"' or '\\', or non-ASCII (borrows only reach higher bytes).
        let quote = x ^ (ONES * u64::from(b'"'));
        let backslash = x ^ (ONES * u64::from(b'\\'));
        let below_space = x.wrapping_sub(ONES * 0x20);
        let zero_quote = quote.wrapping_sub(ONES) & !quote;
        let zero_backslash = backslash.wrapping_sub(ONES) & !backslash;
        let hits = (below_space & !x | zero_quote | zero_backslash | x) & HIGH;
        if hits != 0 {
            return i + (hits.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(&c) = bytes.get(i) {
        if CLASS.get(usize::from(c)).copied().unwrap_or(PLAIN) != PLAIN {
            return i;
        }
        i += 1;
    }
    i
}

/// True for the letters of the two-character escapes `\"` `\\` `\/` `\b` `\f` `\n` `\r` `\t`
/// (`spec/json.md` §3.3).
fn is_short_escape(c: u8) -> bool {
    matches!(c, b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't')
}

fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
    let digits = bytes.get(at..at.checked_add(4)?)?;
    let mut v = 0u32;
    for &d in digits {
        v = (v << 4) | char::from(d).to_digit(16)?;
    }
    Some(v)
}

/// The value of a string whose raw text (between its quotes, as a parser has checked it) is
/// `raw`: borrowed when it has no escape (`spec/json.md` §3.3).
pub(crate) fn string_value(raw: &str) -> Cow<'_, str> {
    if raw.contains('\\') {
        let mut s = String::with_capacity(raw.len());
        unescape(raw, &mut s);
        Cow::Owned(s)
    } else {
        Cow::Borrowed(raw)
    }
}

/// Resolves the escapes of already-validated string text into `out` (`spec/json.md` §3.3).
fn unescape(raw: &str, out: &mut String) {
    let bytes = raw.as_bytes();
    let mut rest = raw;
    let mut i = 0;
    while let Some(off) = rest.find('\\') {
        out.push_str(invariant::sub_str(rest, ..off));
        let at = i + off;
        let (c, len) = match bytes.get(at + 1) {
            Some(b'b') => ('\u{8}', 2),
            Some(b'f') => ('\u{c}', 2),
            Some(b'n') => ('\n', 2),
            Some(b'r') => ('\r', 2),
            Some(b't') => ('\t', 2),
            Some(b'u') => decode_u(bytes, at),
            Some(&other) => (char::from(other), 2),
            None => ('\u{FFFD}', 1),
        };
        out.push(c);
        i = at + len;
        rest = invariant::sub_str(raw, i..);
    }
    out.push_str(rest);
}

/// Decodes `\uXXXX` or a `\uXXXX\uXXXX` surrogate pair at `at`; the tokenizer has
/// already rejected anything else.
fn decode_u(bytes: &[u8], at: usize) -> (char, usize) {
    let first = invariant::some_or(hex4(bytes, at + 2), 0xFFFD);
    if (0xD800..=0xDBFF).contains(&first) {
        let low = invariant::some_or(hex4(bytes, at + 8), 0xDC00);
        let code = 0x10000 + ((first - 0xD800) << 10) + (low.wrapping_sub(0xDC00) & 0x3FF);
        (invariant::some_or(char::from_u32(code), '\u{FFFD}'), 12)
    } else {
        (invariant::some_or(char::from_u32(first), '\u{FFFD}'), 6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word-at-a-time scan must stop exactly where the byte-by-byte rule would: at the
    /// first `"`, `\`, control character or non-ASCII byte, whatever its position in the
    /// word and whatever follows it (`spec/json.md` §3).
    #[test]
    fn string_scan_stops_at_first_special_byte_in_any_position() {
        for special in (0u8..0x20).chain([b'"', b'\\', 0x80, 0xC3, 0xEF, 0xF4, 0xFF]) {
            for len in 0..20 {
                for pos in 0..len {
                    let mut bytes = alloc::vec![b'a'; len];
                    if let Some(b) = bytes.get_mut(pos) {
                        *b = special;
                    }
                    // Bytes after the special one must not move the answer.
                    for later in bytes.iter_mut().skip(pos + 1).step_by(3) {
                        *later = 0x01;
                    }
                    for start in 0..=pos {
                        assert_eq!(skip_plain(&bytes, start), pos, "byte {special:#04x} at {pos} of {len}");
                    }
                }
                assert_eq!(skip_plain(&alloc::vec![b'a'; len], 0), len);
            }
        }
    }

    /// `Str::end` is where the raw text ends, and `Parser::text` is the input.
    #[test]
    fn token_ends_and_text() {
        let doc = r#"{"ab":["c\n",-1.5e3]}"#;
        let mut p = Parser::new(doc.as_bytes(), Limits::DEFAULT).unwrap();
        assert_eq!(p.text(), doc);
        let mut ends = Vec::new();
        while let Some(e) = p.next_event().unwrap() {
            if let Token::Name(s) | Token::String(s) | Token::Number(s) = e.token {
                let start = s.end() - s.raw().len();
                assert_eq!(doc.get(start..s.end()), Some(s.raw()));
                ends.push(s.end());
            }
        }
        assert_eq!(ends, [4, 11, 19]);
    }

    /// Writes down what a sink is handed, one line per token.
    #[derive(Default)]
    struct Record(Vec<String>);

    impl<'a> Sink<'a> for Record {
        fn open(&mut self, at: usize, object: bool) {
            self.0.push(alloc::format!("open {at} {object}"));
        }
        fn close(&mut self, at: usize) {
            self.0.push(alloc::format!("close {at}"));
        }
        fn name(&mut self, at: usize, name: Str<'a>) {
            self.0.push(alloc::format!("name {at} {}", name.value()));
        }
        fn scalar(&mut self, at: usize, token: Token<'a>) {
            self.0.push(alloc::format!("scalar {at} {token:?}"));
        }
    }

    /// `read_into` hands a sink exactly the tokens `next_event` yields, in order, and stops
    /// with the same error after the same tokens, for accepted and rejected documents, from
    /// the start and from the middle of a document.
    #[test]
    fn sink_sees_what_next_event_yields() {
        let docs = [
            r#" { "a" : [ 1 , -2.5e3 , "x\n" , true , false , null , { } , [ ] ] , "b\u0063" : { "d" : [ [ ] ] } } "#,
            r#"[{"a":{"b":[]}},[[]],{}]"#,
            "7",
            r#""s""#,
            r#"{"a":1,"a":2}"#,
            r#"{"a":[1,}"#,
            "[1] x",
            "[[[1]]]",
            r#"{"a" 1}"#,
            "[1,2",
            "",
        ];
        let shallow = Limits {
            max_depth: 2,
            ..Limits::DEFAULT
        };
        for (doc, limits, skip) in docs
            .iter()
            .flat_map(|doc| [Limits::DEFAULT, shallow].map(|limits| (doc, limits)))
            .flat_map(|(doc, limits)| [0, 1, 3].map(|skip| (doc, limits, skip)))
        {
            let mut by_events = Record::default();
            let mut p = Parser::new(doc.as_bytes(), limits).unwrap();
            let events = (|| {
                while let Some(e) = p.next_event()? {
                    by_events.event(e);
                }
                Ok::<(), Error>(())
            })();
            let mut by_sink = Record::default();
            let mut p = Parser::new(doc.as_bytes(), limits).unwrap();
            let mut skipped = Ok(());
            for _ in 0..skip {
                match p.next_event() {
                    Ok(Some(e)) => by_sink.event(e),
                    Ok(None) => break,
                    Err(e) => {
                        skipped = Err(e);
                        break;
                    }
                }
            }
            let sink = skipped.and_then(|()| p.read_into(&mut by_sink));
            assert_eq!(sink, events, "{doc} after {skip}");
            assert_eq!(by_sink.0, by_events.0, "{doc} after {skip}");
        }
        // The whole of the first document reached the sink.
        let mut all = Record::default();
        Parser::new(docs[0].as_bytes(), Limits::DEFAULT)
            .unwrap()
            .read_into(&mut all)
            .unwrap();
        assert_eq!(all.0.len(), 23);
    }

    #[test]
    fn string_scan_passes_every_plain_ascii_byte() {
        let plain: Vec<u8> = (0x20u8..0x80).filter(|b| *b != b'"' && *b != b'\\').collect();
        assert_eq!(skip_plain(&plain, 0), plain.len());
    }
}
