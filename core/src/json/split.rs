//! Validation on two workers (`spec/json.md` §10).
//!
//! The first worker reads the document from its start ([`Prefix`]) and pauses at a comma;
//! the second reads from that comma to the end ([`Suffix`]) without knowing what encloses
//! it, so it records what only the first can check: the kinds of the containers it closes
//! without having opened them, the names it adds to those objects, and how deep it goes
//! below each. [`Prefix::finish`] checks that record against its own state and accepts it,
//! or reads on by itself, so the verdict is always [`super::validate_keyed`]'s, error and
//! offset included. [`Meeting`] lets the workers agree on the comma while the first is
//! already reading. Nothing here starts a thread: a caller runs [`Meeting::read_prefix`]
//! and [`Meeting::read_suffix`] on two (or one after the other), then joins them.

use super::Limits;
use super::error::{Error, Reason};
use super::keys::{LARGE, Slot, name_hash, sort_slots, stored_value};
use super::tokenizer::{DEFAULT_HASH_KEY, Parser, Sink, Str, Token, no_byte_order_mark, skip_space};
use super::utf8;
use crate::join::Join;
use alloc::borrow::Cow;
use alloc::boxed::Box;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicUsize, Ordering};

/// A floor container (§10.3): one the second worker closed without having opened it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Level {
    /// The kind the second worker read it as.
    object: bool,
    /// Its names are `names[previous level's names_end..names_end]`.
    names_end: usize,
    /// The most containers open inside it at once.
    deepest: usize,
    /// True when its names are sorted by hash ([`sort_slots`]) rather than in document
    /// order: an object of at least [`LARGE`] names, when there is a key.
    sorted: bool,
}

/// What the second worker read from its start to the end of the input (§10.3), accepted
/// only by a first worker paused at the same comma in the state it implies (§10.4).
#[derive(Debug, PartialEq, Eq)]
pub struct Suffix {
    /// Where the input it read lies and its length: a suffix joins only a first worker
    /// reading the same bytes.
    input: (usize, usize),
    start: usize,
    levels: Vec<Level>,
    /// The names of the floor objects, each a [`Slot`] (8 bytes): where its text starts
    /// (32 bits: inputs are shorter than 4 GiB, §6) and its [`name_hash`] under `key`.
    names: Vec<Slot>,
    /// The key the names' hashes were taken under; `None` for [`DEFAULT_HASH_KEY`], which
    /// the first worker replaces with a key derived from the input (§5), and then the
    /// hashes are 0 and the join takes them itself.
    key: Option<[u64; 2]>,
}

/// Counts the containers opened inside a floor container and keeps the names read in it,
/// with their hashes under `key` when there is one.
struct FloorSink<'n> {
    input: &'n [u8],
    key: Option<[u64; 2]>,
    depth: usize,
    deepest: usize,
    names: &'n mut Vec<Slot>,
    /// Set if an offset did not fit 32 bits (it cannot, §6): the record is then given up.
    overflow: bool,
}

impl<'a> Sink<'a> for FloorSink<'_> {
    #[inline(always)]
    fn open(&mut self, _: usize, _: bool) {
        self.depth = self.depth.saturating_add(1);
        self.deepest = self.deepest.max(self.depth);
    }

    #[inline(always)]
    fn close(&mut self, _: usize) {
        // The floor container's own close comes at depth 0.
        self.depth = self.depth.saturating_sub(1);
    }

    #[inline(always)]
    fn name(&mut self, at: usize, name: Str<'a>) {
        if self.depth == 0 {
            // The text starts after the opening quote at `at`.
            let Ok(start) = u32::try_from(at.saturating_add(1)) else {
                self.overflow = true;
                return;
            };
            let hash = self.key.map_or(0, |key| {
                if name.has_escapes() {
                    name_hash(key, &stored_value(self.input, start))
                } else {
                    name_hash(key, self.input.get(at + 1..name.end()).unwrap_or_default())
                }
            });
            self.names.push(Slot { hash, start });
        }
    }

    #[inline(always)]
    fn scalar(&mut self, _: usize, _: Token<'a>) {}
}

impl Suffix {
    /// Reads `input` from the comma at `start` to its end as the second worker (§10.3):
    /// every rule of `spec/json.md` but those that depend on what came before `start`, and
    /// the names of the floor objects, which it records, hashed under `key` unless that is
    /// [`DEFAULT_HASH_KEY`], for the join to check. `None` when it finds any problem, or
    /// when `start` is not a comma: the first worker then reads on by itself and finds it.
    pub fn read(input: &[u8], start: usize, limits: Limits, key: [u64; 2]) -> Option<Suffix> {
        let mut parser = Parser::floor_reader(input, limits, key).ok()?;
        let key = (key != DEFAULT_HASH_KEY).then_some(key);
        let mut levels = Vec::new();
        let mut names = Vec::new();
        let mut pos = start;
        if input.get(start) != Some(&b',') {
            return None;
        }
        while let (at, Some(next)) = skip_space(input, pos) {
            // §10.4: a record of more floor containers than the depth limit can never be
            // joined, so it is not kept: its memory stays bounded by the limit, not the input.
            if levels.len() >= limits.max_depth {
                return None;
            }
            // §10.3: after a value in a floor container, a comma tells its kind by what
            // follows it; a bracket closes the next floor container straight away.
            let object = match next {
                b']' | b'}' => {
                    levels.push(Level {
                        object: next == b'}',
                        names_end: names.len(),
                        deepest: 0,
                        sorted: false,
                    });
                    pos = at.saturating_add(1);
                    continue;
                }
                b',' => parser.member_follows(at).ok()?,
                _ => return None,
            };
            parser.enter_floor(at, object).ok()?;
            let mut sink = FloorSink {
                input,
                key,
                depth: 0,
                deepest: 0,
                names: &mut names,
                overflow: false,
            };
            parser.read_into(&mut sink).ok()?;
            if sink.overflow {
                return None;
            }
            let deepest = sink.deepest;
            let from = levels.last().map_or(0, |l| l.names_end);
            // §10.4: the join walks a large object's names in hash order with the first
            // worker's later names (§5.1); sorting them is this worker's share of the work.
            let own = names.get_mut(from..).unwrap_or_default();
            let sorted = key.is_some() && own.len() >= LARGE;
            if sorted {
                sort_slots(own);
            }
            levels.push(Level {
                object,
                names_end: names.len(),
                deepest,
                sorted,
            });
            pos = parser.position();
        }
        Some(Suffix {
            input: (input.as_ptr().addr(), input.len()),
            start,
            levels,
            names,
            key,
        })
    }

    /// The join (§10.4): `None` unless `parser` is paused at this suffix's comma with
    /// exactly the containers it closes, of the kinds it read, and room for its depth; then
    /// the names it read are added to those objects, at once or in document order, and the
    /// result is the document's: `Ok`, or the first name that repeats an earlier one.
    fn join(&self, parser: &mut Parser<'_>) -> Option<Result<(), Error>> {
        let bytes = parser.input();
        let same_input = self.input == (bytes.as_ptr().addr(), bytes.len());
        if !same_input || parser.paused() != Some(self.start) || usize::BITS < u32::BITS {
            return None;
        }
        let kinds = parser.open_kinds();
        let depth = kinds.len();
        if self.levels.len() != depth {
            return None;
        }
        for (k, (level, &object)) in self.levels.iter().zip(kinds.iter().rev()).enumerate() {
            let room = depth.saturating_sub(k).saturating_add(level.deepest) <= parser.max_depth();
            if level.object != object || !room {
                return None;
            }
        }
        // Every check but the names' passed: the rest is the sequential read's, in order.
        // The recorded hashes serve when the first worker hashes under the same key.
        let hashed = self.key.is_some_and(|key| parser.hashes_under(key));
        let mut from = 0;
        for level in &self.levels {
            let names = self.names.get(from..level.names_end).unwrap_or_default();
            let at_once = hashed && level.sorted && parser.replay_sorted(names);
            if !at_once && let Err(e) = replay_in_order(parser, names, level.sorted, hashed) {
                return Some(Err(e));
            }
            from = level.names_end;
            parser.replay_close();
        }
        // §5.1: a repeat whose check was deferred to a close.
        Some(parser.deferred_repeat())
    }
}

/// Adds the recorded names of a floor object to the innermost object of `parser` one by
/// one, in document order (§10.4): sorted by hash, they are put back in that order first.
/// The first that the object already has is the failure.
fn replay_in_order(parser: &mut Parser<'_>, names: &[Slot], sorted: bool, hashed: bool) -> Result<(), Error> {
    let mut in_order = Cow::Borrowed(names);
    if sorted {
        in_order.to_mut().sort_unstable_by_key(|n| n.start);
    }
    for n in in_order.iter() {
        let start = widen(n.start);
        if !parser.replay_name(start, hashed.then_some(n.hash)) {
            let at = start.saturating_sub(1);
            return Err(parser.first_failure(Error::new(Reason::DuplicateName, at)));
        }
    }
    Ok(())
}

/// A recorded offset as a `usize`, which [`Suffix::join`] has checked holds 32 bits.
fn widen(offset: u32) -> usize {
    usize::try_from(offset).unwrap_or(usize::MAX)
}

/// How far [`Prefix::read_until`] got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    /// Paused at the comma at this offset, after a value (§10.2).
    Paused(usize),
    /// The read is over; [`Prefix::finish`] returns its result.
    Done,
}

/// The first worker's read: boxed while it runs, since it is large and there is one per
/// document.
enum Read<'a> {
    Reading(Box<Parser<'a>>),
    Done(Result<(), Error>),
}

/// The first worker (§10.2): the sequential read of [`super::validate_keyed`], which can
/// pause at a comma and then take the second worker's [`Suffix`] for the rest.
pub struct Prefix<'a> {
    input: &'a [u8],
    read: Read<'a>,
}

impl core::fmt::Debug for Prefix<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let state = self.paused().map_or(Progress::Done, Progress::Paused);
        f.debug_struct("Prefix")
            .field("len", &self.input.len())
            .field("state", &state)
            .finish()
    }
}

/// [`super::validate_keyed`]'s precedence on a rejected input (§1.1): an ill-formed UTF-8
/// sequence anywhere wins.
fn settle(input: &[u8], read: Result<(), Error>) -> Result<(), Error> {
    read.map_err(|e| utf8::validate(input).err().unwrap_or(e))
}

impl<'a> Prefix<'a> {
    /// A first worker before its first byte: the size limit (§6) and the byte-order mark
    /// (§1.2) are checked here, as [`super::validate_keyed`] checks them.
    pub fn new(input: &'a [u8], limits: Limits, key: [u64; 2]) -> Prefix<'a> {
        let read = match Parser::deferred_utf8(input, limits) {
            Err(e) => Read::Done(Err(e)),
            Ok(parser) => match no_byte_order_mark(input) {
                Err(e) => Read::Done(settle(input, Err(e))),
                Ok(()) => Read::Reading(Box::new(parser.with_hash_key(key).defer_duplicates())),
            },
        };
        Prefix { input, read }
    }

    /// Reads on until the first comma after a value at or after `target` (§10.2), or to
    /// the end of the document or its first problem.
    pub fn read_until(&mut self, target: usize) -> Progress {
        let Read::Reading(parser) = &mut self.read else {
            return Progress::Done;
        };
        parser.pause_at(target);
        let read = parser.read_into(&mut ());
        if let (Ok(()), Some(at)) = (read, parser.paused()) {
            return Progress::Paused(at);
        }
        self.read = Read::Done(settle(self.input, read));
        Progress::Done
    }

    /// Sorts the later names (`spec/json.md` §5.1) of the objects open where this read is
    /// paused, as the join will ([`Suffix::join`]): the first worker's share of the work
    /// while the second sorts its own. Only worth it when a join follows.
    fn sort_for_join(&mut self) {
        if let Read::Reading(parser) = &mut self.read {
            parser.sort_later();
        }
    }

    /// The comma this read is paused at, if it is (§10.2).
    pub fn paused(&self) -> Option<usize> {
        match &self.read {
            Read::Reading(parser) => parser.paused(),
            Read::Done(_) => None,
        }
    }

    /// The document's verdict (§10.4): the suffix's, when it starts where this read is
    /// paused and agrees with its state; otherwise this read's own, reading on to the end.
    pub fn finish(self, suffix: Option<&Suffix>) -> Result<(), Error> {
        let mut parser = match self.read {
            Read::Done(result) => return result,
            Read::Reading(parser) => parser,
        };
        if let Some(joined) = suffix.and_then(|s| s.join(&mut parser)) {
            return settle(self.input, joined);
        }
        parser.pause_at(usize::MAX);
        let read = parser.read_into(&mut ());
        settle(self.input, read)
    }
}

/// How far past `near` [`guess`] looks for a comma.
const SEARCH: usize = 64 * 1024;

/// Where a second worker may start near `near` (§10.3): the first comma at or after it
/// (within 64 KiB) that looks like it follows a value and precedes a name or value. It is
/// only a guess (inside a string it would be wrong); the join finds out (§10.4).
pub fn guess(input: &[u8], near: usize) -> Option<usize> {
    let window = input.get(near..)?;
    let window = window.get(..SEARCH.min(window.len()))?;
    window
        .iter()
        .enumerate()
        .filter(|&(_, &b)| b == b',')
        .map(|(i, _)| near.saturating_add(i))
        .find(|&comma| ends_value(last_before(input, comma)) && starts_value(first_after(input, comma)))
}

fn is_space(b: &u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// The last byte before `at` that is not whitespace, looking back at most [`SEARCH`] bytes
/// (so that a retried guess never rescans a long run).
fn last_before(input: &[u8], at: usize) -> Option<u8> {
    let before = input.get(..at)?;
    let near = before.get(before.len().saturating_sub(SEARCH)..)?;
    near.iter().rev().copied().find(|b| !is_space(b))
}

/// The first byte after `at` that is not whitespace, looking at most [`SEARCH`] bytes on.
fn first_after(input: &[u8], at: usize) -> Option<u8> {
    let after = input.get(at.saturating_add(1)..)?;
    after
        .get(..SEARCH.min(after.len()))?
        .iter()
        .copied()
        .find(|b| !is_space(b))
}

fn ends_value(b: Option<u8>) -> bool {
    matches!(b, Some(b'"' | b'}' | b']' | b'0'..=b'9' | b'e' | b'l'))
}

fn starts_value(b: Option<u8>) -> bool {
    matches!(b, Some(b'"' | b'{' | b'[' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n'))
}

/// [`super::validate_keyed`] read as two workers in turn, the second starting at the comma
/// at `start` (§10): the same verdict for every `start`. Tests and fuzz targets use it.
pub fn validate_split(input: &[u8], limits: Limits, key: [u64; 2], start: usize) -> Result<(), Error> {
    let suffix = Suffix::read(input, start, limits, key);
    let mut prefix = Prefix::new(input, limits, key);
    prefix.read_until(start);
    prefix.sort_for_join();
    prefix.finish(suffix.as_ref())
}

/// How often a first worker of [`validate_with`] looks whether the second has claimed the
/// rest, and the least a second worker leaves it: 1 MiB.
pub const CHUNK: usize = 1 << 20;

/// [`super::validate_keyed`] through `join` (§10.5): on two workers when the join's
/// halves run at the same time and the input is at least twice [`CHUNK`], else in one read.
/// The verdict is the same either way (§10.1).
pub fn validate_with(join: &impl Join, input: &[u8], limits: Limits, key: [u64; 2]) -> Result<(), Error> {
    if !join.parallel() || input.len() < 2 * CHUNK {
        return super::validate_keyed(input, limits, key);
    }
    let meeting = Meeting::new(CHUNK);
    let (first, second) = join.join(
        || meeting.read_prefix(input, limits, key),
        || meeting.read_suffix(input, limits, key),
    );
    first.finish(second.as_ref())
}

/// The meeting's state (§10.5), in one word: a tag in the low two bits, an offset above.
const IDLE: usize = 0;
const DONE: usize = 1;
const OFFERED: usize = 2;
const CLAIMED: usize = 3;

fn encode(tag: usize, at: usize) -> Option<usize> {
    at.checked_mul(4)?.checked_add(tag)
}

/// Where two workers agree on the second one's start while the first reads (§10.5). The
/// first offers how far it will read before it looks again; the second, once free, claims
/// a comma beyond that, halfway to the end, and reads from there.
#[derive(Debug)]
pub struct Meeting {
    state: AtomicUsize,
    chunk: usize,
}

/// What the first worker knows of the meeting.
#[derive(Clone, Copy)]
enum Side {
    /// It offered the value stored in the meeting.
    Offered(usize),
    /// The second worker claimed the comma at this offset.
    Claimed(usize),
    /// It reads alone to the end.
    Alone,
}

impl Meeting {
    /// A meeting whose first worker looks again every `chunk` bytes, and whose second
    /// worker claims nothing when less than `chunk` bytes are left beyond the first's
    /// offer. 1 MiB is what `modelgate-io` uses.
    pub const fn new(chunk: usize) -> Meeting {
        Meeting {
            state: AtomicUsize::new(IDLE),
            chunk: if chunk == 0 { 1 } else { chunk },
        }
    }

    /// The first worker: reads `input` from its start until it has ended, or until it is
    /// paused at the comma the second worker claimed. Pass what it returns to
    /// [`Prefix::finish`] with the second worker's [`Meeting::read_suffix`].
    pub fn read_prefix<'a>(&self, input: &'a [u8], limits: Limits, key: [u64; 2]) -> Prefix<'a> {
        let mut prefix = Prefix::new(input, limits, key);
        let mut target = self.chunk;
        let mut side = self.offer(IDLE, target, 0);
        loop {
            let until = match side {
                Side::Offered(_) => target,
                Side::Claimed(start) => start,
                Side::Alone => usize::MAX,
            };
            match (prefix.read_until(until), side) {
                (Progress::Done, Side::Offered(now)) => {
                    // Too late for a claim now (a failed exchange means one came: unused).
                    let _ = self
                        .state
                        .compare_exchange(now, DONE, Ordering::AcqRel, Ordering::Acquire);
                    return prefix;
                }
                (Progress::Done, _) => return prefix,
                (Progress::Paused(at), Side::Claimed(start)) if at == start => {
                    prefix.sort_for_join();
                    return prefix;
                }
                // Past the claimed comma without pausing there: not a comma after a value.
                (Progress::Paused(_), Side::Claimed(_) | Side::Alone) => side = Side::Alone,
                (Progress::Paused(at), Side::Offered(now)) => {
                    target = at.saturating_add(self.chunk);
                    side = self.offer(now, target, at);
                    if let Side::Claimed(start) = side
                        && start == at
                    {
                        prefix.sort_for_join();
                        return prefix;
                    }
                }
            }
        }
    }

    /// Replaces the first worker's offer `now` with one up to `target`, unless the second
    /// worker has claimed a comma, which the first (paused at `at`) reads up to if it is
    /// still ahead.
    fn offer(&self, now: usize, target: usize, at: usize) -> Side {
        let Some(next) = encode(OFFERED, target) else {
            let _ = self
                .state
                .compare_exchange(now, DONE, Ordering::AcqRel, Ordering::Acquire);
            return Side::Alone;
        };
        match self
            .state
            .compare_exchange(now, next, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => Side::Offered(next),
            Err(seen) if seen & 3 == CLAIMED && seen >> 2 >= at => Side::Claimed(seen >> 2),
            Err(_) => Side::Alone,
        }
    }

    /// The second worker: claims a comma halfway between the first worker's offer and the
    /// end, and reads from it ([`Suffix::read`]). `None` when the first has finished, too
    /// little is left, or no comma was found.
    pub fn read_suffix(&self, input: &[u8], limits: Limits, key: [u64; 2]) -> Option<Suffix> {
        let mut now = self.state.load(Ordering::Acquire);
        loop {
            let offered = match now & 3 {
                IDLE => 0,
                OFFERED => now >> 2,
                _ => return None,
            };
            let rest = input.len().checked_sub(offered)?;
            if rest < self.chunk.saturating_mul(2) {
                return None;
            }
            let start = guess(input, offered.saturating_add(rest / 2))?;
            let claim = encode(CLAIMED, start)?;
            match self
                .state
                .compare_exchange(now, claim, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => return Suffix::read(input, start, limits, key),
                Err(seen) => now = seen,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::keys::LARGE;
    use crate::json::validate_keyed;
    use crate::test_docs::{Choose, Rng};
    use alloc::format;
    use alloc::string::String;

    const KEY: [u64; 2] = [0x1234, 0x5678];

    fn limits(max_depth: usize) -> Limits {
        Limits {
            max_bytes: 1 << 20,
            max_depth,
        }
    }

    /// Whether the second worker's read from `start` is joined (`Some`) rather than left
    /// for the first worker to redo, and what the join gives. The first worker's later
    /// names (§5.1) are not sorted for the join here: the join sorts them itself.
    fn joined(input: &[u8], limits: Limits, key: [u64; 2], start: usize) -> Option<Result<(), Error>> {
        let suffix = Suffix::read(input, start, limits, key)?;
        let Read::Reading(mut parser) = Prefix::new(input, limits, key).read else {
            return None;
        };
        parser.pause_at(start);
        parser.read_into(&mut ()).ok()?;
        suffix.join(&mut parser)
    }

    /// The one read of a parser that checks every name as it comes (no object defers its
    /// check, `spec/json.md` §5.1) and UTF-8 first, as [`Parser::new`] does.
    fn immediate(doc: &[u8], limits: Limits) -> Result<(), Error> {
        Parser::new(doc, limits).and_then(|p| p.with_hash_key(KEY).skip_to_end())
    }

    /// §10.1 at every offset: the verdict of the split read is the sequential one, error
    /// and offset included, wherever the second worker starts; and that is the verdict of
    /// a read that defers no check (§5.1). Under a caller's key the second worker hashes
    /// the names it records; under [`DEFAULT_HASH_KEY`] the join does.
    fn same_at_every_offset(doc: &[u8], limits: Limits) -> usize {
        let whole = validate_keyed(doc, limits, KEY);
        assert_eq!(whole, immediate(doc, limits), "{:?}", String::from_utf8_lossy(doc));
        let mut joins = 0;
        for start in 0..=doc.len() {
            for key in [KEY, DEFAULT_HASH_KEY] {
                let split = validate_split(doc, limits, key, start);
                let text = || String::from_utf8_lossy(doc);
                assert_eq!(split, whole, "{:?} split at {start}, key {key:x?}", text());
                if let Some(j) = joined(doc, limits, key, start) {
                    assert_eq!(j, whole, "join of {:?} at {start}, key {key:x?}", text());
                    joins += usize::from(key == KEY);
                }
            }
        }
        joins
    }

    /// The documents of the rules a split crosses: a name repeated on either side, the
    /// depth limit reached after it, kinds closed in the wrong order, the end of the
    /// document, strings holding what looks like a comma after a value, escapes, UTF-8.
    const DOCS: [&str; 30] = [
        r#"{"a":1,"b":[1,2,{"c":3,"d":[]}],"e":{"f":{"g":[[],[[]]]},"h":"x"},"i":null}"#,
        r#"[1,2,3,[4,5,[6,7]],{"a":[8,9]},10]"#,
        r#"{"a":1,"b":2,"a":3}"#,
        r#"{"a":{"x":1,"y":2},"b":{"x":1,"x":2}}"#,
        r#"{"a\u0062":1,"c":2,"ab":3}"#,
        r#"{"ab":1,"c":2,"a\u0062":3}"#,
        r#"[[[[1]],[[2]]],[[[3,[4]]]]]"#,
        r#"{"a":[1,2],"b":[3}"#,
        r#"[{"a":1},{"b":2]}"#,
        r#"[1,2,3] [4]"#,
        r#"[1,2,3],4"#,
        r#"[1,2,3"#,
        r#"{"a":1,"b":2"#,
        r#"["x,\"y",{"s":"},{\"t\":1"},"},{",2]"#,
        r#"{"k":"a, \"b\":1","l":[",{"]}"#,
        " [ 1 , { \"a\" : [ 2 , 3 ] , \"b\" : 4 } , 5 ] ",
        "{\"a\":1,\"b\":\"\u{e9}\u{1F600}\",\"c\":[\"\u{2603}\"]}",
        "[1,\"\u{FDD0}\",2]",
        r#"[1,"\uD800",2]"#,
        r#"[1,"\u00e9\uD83D\uDE00",{"\u0000":1,"\u0000":2}]"#,
        r#"[1,tru,2]"#,
        r#"[1,01,2]"#,
        r#"{"a":1,,"b":2}"#,
        r#"[1,2,]"#,
        r#"{"a":1,2]"#,
        r#"[1,"a":2}"#,
        r#"[[1,2]"#,
        r#"{"a":{"b":1,"c":2}"#,
        r#"[{"a":1,"b":2}]]"#,
        r#"[{"a":1,"b":2}],"c":3}"#,
    ];

    #[test]
    fn every_split_of_every_document_gives_the_sequential_verdict() {
        let mut joins = 0;
        for doc in DOCS {
            for depth in [1, 2, 3, 4, 1024] {
                joins += same_at_every_offset(doc.as_bytes(), limits(depth));
            }
        }
        assert!(joins > 100, "the split reads were joined {joins} times");
    }

    /// An object past the 16 names it compares directly (§5: it then hashes them), with
    /// names on both sides of every split, repeated in plain and escaped form, or not.
    #[test]
    fn names_of_a_hashed_object_on_both_sides_of_the_split() {
        let members: Vec<String> = (0..24).map(|i| format!("\"m{i}\":[{i}]")).collect();
        let body = members.join(",");
        let mut joins = 0;
        for tail in [
            "",
            r#","m3":1"#,
            r#","m\u0033":1"#,
            r#","m23":{"m23":1}"#,
            r#","\u006d7":2"#,
        ] {
            let doc = format!("{{{body}{tail}}}");
            joins += same_at_every_offset(doc.as_bytes(), limits(4));
        }
        // Joined at every comma, those before both of two equal names too: the second worker
        // does not check a floor object's names, the join does (§10.3, §10.4).
        assert_eq!(joins, 23 + 4 * 24);
    }

    /// §5.1 across the split: objects past [`LARGE`] names (24 in test builds) check their
    /// later names by one sort, in the first worker, the second, or both, nested in each
    /// other; a name repeated from the table or from the later names, in plain or escaped
    /// form, in the outer object before or after the inner one's, in two objects one after
    /// the other, and failures of other kinds after a repeat or before it. Objects of 60
    /// members pass the limit on both sides of the middle commas, where the second worker's
    /// names are sorted and walked with the first's (§10.4). Every split gives the verdict
    /// of the read that defers nothing.
    #[test]
    fn large_objects_defer_their_check_on_either_side_of_the_split() {
        let object = |prefix: &str, n: usize, extra: &str| {
            let members: Vec<String> = (0..n).map(|i| format!("\"{prefix}{i}\":{i}")).collect();
            format!("{{{}{extra}}}", members.join(","))
        };
        let inner = |extra: &str| object("i", 30, extra);
        let docs = [
            object("m", 60, ""),
            object("m", 60, r#","m3":1"#),
            object("m", 60, r#","m\u0033":1"#),
            object("m", 60, r#","m35":1,"m2":2"#),
            object("m", 60, r#","m35":1,"x":tru"#),
            object("m", 60, r#","m35":1,"x""#),
            object("m", 60, r#","x":tru,"m35":1"#),
            object("m", 60, r#","m35":[[[[1]]]]"#),
            object("m", 60, &format!(r#","in":{}"#, inner(""))),
            object("m", 60, &format!(r#","in":{},"m1":1"#, inner(r#","i29":0"#))),
            object("m", 60, &format!(r#","m1":1,"in":{}"#, inner(r#","i29":0"#))),
            object("m", 60, &format!(r#","in":{},"m1":1"#, inner(r#","i\u0032":0"#))),
            object("m", 60, &format!(r#","m1":1,"in":{}"#, inner(r#","x":01"#))),
            format!("[1,{},2]", object("m", 60, r#","m39":1"#)),
            format!("[{},{}]", object("a", 30, ""), object("a", 30, r#","a0":0"#)),
            format!(
                "[{},{}]",
                object("a", 30, r#","a25":0"#),
                object("b", 30, r#","b26":0"#)
            ),
            format!(
                "[{},{}]",
                object("a", 30, r#","a27":0"#),
                object("b", 30, r#","b24":0"#)
            ),
            format!("{} x", object("m", 60, r#","m0":0"#)),
            // More later names than a table's look-ups (§5.1): the table's names are looked
            // for among them.
            object("m", 130, r#","m5":1,"m100":1"#),
            object("m", 130, r#","m100":1,"m5":1"#),
        ];
        let mut bytes: Vec<Vec<u8>> = docs.iter().map(|d| d.clone().into_bytes()).collect();
        // An ill-formed UTF-8 sequence after a repeat still wins (§1.1).
        let mut bad = object("m", 60, r#","m0":0,"x":""#).into_bytes();
        bad.extend_from_slice(b"\xff\"}");
        bytes.push(bad);
        let mut joins = 0;
        for doc in &bytes {
            for depth in [2, 3, 1024] {
                joins += same_at_every_offset(doc, limits(depth));
            }
        }
        assert!(joins > 500, "the split reads were joined {joins} times");
    }

    /// Bytes no string scan reaches: ill-formed UTF-8 between tokens, after the split or
    /// before it, wins over every other problem (§1.1), and so do the mark and the size.
    #[test]
    fn encoding_errors_and_limits_win_on_either_side_of_the_split() {
        let docs: [&[u8]; 5] = [
            b"[1,2,\xff,3]",
            b"[1,\"a\xc3\",2,3]",
            b"[1,2,3,4]\xc3",
            b"\xEF\xBB\xBF[1,2,3]",
            b"[1,{\"a\":1,\"a\":2},\"\xed\xa0\x80\"]",
        ];
        for doc in docs {
            same_at_every_offset(doc, limits(8));
        }
        let small = Limits {
            max_bytes: 4,
            max_depth: 8,
        };
        same_at_every_offset(b"[1,2,3]", small);
    }

    /// A valid document's split read is joined at every comma after a value, and at no
    /// other offset (§10.4).
    #[test]
    fn a_valid_document_is_joined_exactly_at_its_commas_after_values() {
        let doc = br#"{"a":[1,"x,y",{"b":2}],"c":{"d":[3,4]},"e":5}"#;
        let commas: Vec<usize> = (0..doc.len())
            .filter(|&i| joined(doc, limits(16), KEY, i).is_some())
            .collect();
        // Not the comma inside "x,y".
        assert_eq!(commas, [7, 13, 22, 34, 38]);
    }

    /// A random document of nested objects and arrays, sometimes with a repeated name, an
    /// escaped name or a misplaced byte.
    fn random_doc(rng: &mut Rng, depth: usize) -> String {
        let names = ["a", "a\\u0062", "ab", "\\u0061"];
        match rng.below(if depth == 0 { 3 } else { 8 }) {
            0 => format!("{}", rng.below(1000)),
            1 => String::from(rng.pick(&["\"s\"", "\"x,\\\"y\"", "true", "null", "\"},{\""])),
            2 if rng.one_in(150) => String::from(rng.pick(&["]", "}", ",", "tru", "\"\\uDC00\""])),
            2 => String::from("[]"),
            3 | 4 => {
                let items: Vec<String> = (0..rng.below(6)).map(|_| random_doc(rng, depth - 1)).collect();
                format!("[{}]", items.join(","))
            }
            _ => {
                let members: Vec<String> = (0..rng.below(6))
                    .map(|_| {
                        let name = match rng.one_in(8) {
                            true => String::from(rng.pick(&names)),
                            false => format!("n{}", rng.below(40)),
                        };
                        format!("\"{name}\":{}", random_doc(rng, depth - 1))
                    })
                    .collect();
                format!("{{{}}}", members.join(","))
            }
        }
    }

    #[test]
    fn random_documents_split_anywhere_give_the_sequential_verdict() {
        let mut rng = Rng(0x5b11_7000);
        let (mut valid, mut joins) = (0, 0);
        for _ in 0..400 {
            let doc = random_doc(&mut rng, 5);
            let depth = if rng.one_in(2) { 1024 } else { 2 + rng.below(5) };
            valid += usize::from(validate_keyed(doc.as_bytes(), limits(depth), KEY).is_ok());
            joins += same_at_every_offset(doc.as_bytes(), limits(depth));
        }
        assert!(valid > 40 && joins > 1000, "{valid} valid documents, {joins} joins");
    }

    /// An object of 16 to 64 members: distinct names until a point around [`LARGE`], then
    /// names drawn from a pool of 60 that holds the first ones, some written with an escape,
    /// so that names repeat from the table and from the later names; its values from
    /// [`random_doc`] and now and then another such object.
    fn random_large_object(rng: &mut Rng, depth: usize) -> String {
        let distinct = LARGE - 4 + rng.below(8);
        let members: Vec<String> = (0..16 + rng.below(49))
            .map(|i| {
                let n = if i < distinct { i } else { rng.below(60) };
                let name = if rng.one_in(8) {
                    format!("\\u0075{n}")
                } else {
                    format!("u{n}")
                };
                let value = if depth > 0 && rng.one_in(8) {
                    random_large_object(rng, depth - 1)
                } else {
                    random_doc(rng, 1)
                };
                format!("\"{name}\":{value}")
            })
            .collect();
        format!("{{{}}}", members.join(","))
    }

    /// §5.1: documents whose objects pass [`LARGE`] names (24 in test builds) give the
    /// verdict of the read that defers nothing, read as one, split at every offset, read by
    /// a first worker that pauses every few bytes, and met by a second worker from the
    /// middle (§10.4: both halves of a large object sorted and walked together).
    #[test]
    fn random_large_objects_give_the_immediate_verdict() {
        let mut rng = Rng(0x1a7e_0b1e);
        let (mut repeats, mut joins) = (0, 0);
        for round in 0..300 {
            let doc = random_large_object(&mut rng, 2);
            let depth = if rng.one_in(2) { 1024 } else { 3 + rng.below(4) };
            let whole = validate_keyed(doc.as_bytes(), limits(depth), KEY);
            assert_eq!(whole, immediate(doc.as_bytes(), limits(depth)), "{doc}");
            repeats += usize::from(whole.is_err_and(|e| e.reason == Reason::DuplicateName));
            if round % 30 == 0 {
                same_at_every_offset(doc.as_bytes(), limits(depth));
            }
            // §10.5: the first worker pausing every few bytes, its later names checked
            // only when its read ends.
            for chunk in [1, 16, 256] {
                let meeting = Meeting::new(chunk);
                let prefix = meeting.read_prefix(doc.as_bytes(), limits(depth), KEY);
                assert_eq!(prefix.finish(None), whole, "{doc} chunk {chunk}");
            }
            // §10.4: the second worker first, from the middle: both halves of a large object
            // sorted and walked together.
            let meeting = Meeting::new(1);
            let suffix = meeting.read_suffix(doc.as_bytes(), limits(depth), KEY);
            let prefix = meeting.read_prefix(doc.as_bytes(), limits(depth), KEY);
            joins += usize::from(suffix.is_some());
            assert_eq!(prefix.finish(suffix.as_ref()), whole, "{doc} from the middle");
        }
        assert!(
            repeats > 100 && joins > 5,
            "{repeats} documents with a repeated name, {joins} records"
        );
    }

    /// §10.5 with the workers in either order: the second claiming first (so the first
    /// pauses where it claimed), or the first having finished (so nothing is claimed).
    #[test]
    fn the_meeting_gives_the_sequential_verdict_in_either_order() {
        let mut rng = Rng(0x3ee7);
        let items: Vec<String> = (0..3000)
            .map(|_| random_doc(&mut rng, 3))
            .filter(|item| validate_keyed(item.as_bytes(), limits(7), KEY).is_ok())
            .collect();
        let doc = format!("[{}]", items.join(","));
        let whole = validate_keyed(doc.as_bytes(), limits(8), KEY);
        for chunk in [1, 64, 1000, 1 << 20] {
            let meeting = Meeting::new(chunk);
            let suffix = meeting.read_suffix(doc.as_bytes(), limits(8), KEY);
            assert_eq!(suffix.is_some(), chunk < doc.len() / 2, "chunk {chunk}");
            let prefix = meeting.read_prefix(doc.as_bytes(), limits(8), KEY);
            assert_eq!(prefix.finish(suffix.as_ref()), whole);

            let meeting = Meeting::new(chunk);
            let prefix = meeting.read_prefix(doc.as_bytes(), limits(8), KEY);
            assert_eq!(meeting.read_suffix(doc.as_bytes(), limits(8), KEY), None);
            assert_eq!(prefix.finish(None), whole);
        }
    }

    /// §10.5 through a join: two workers (here in turn, the second first) give the one
    /// read's verdict on a document of several MiB, valid, or with a problem before the
    /// split, after it, or a name repeated across it.
    #[test]
    fn validate_with_a_join_gives_the_sequential_verdict() {
        use crate::join::{Reversed, Serial};
        let items: Vec<String> = (0..120_000)
            .map(|i| format!("{{\"id\":{i},\"v\":[{i},\"x\"]}}"))
            .collect();
        let body = items.join(",");
        assert!(body.len() > 2 * CHUNK);
        let docs = [
            format!("{{\"a\":[{body}],\"b\":1}}"),
            format!("{{\"a\":[{body}],\"a\":1}}"),
            format!("{{\"a\":[{body},tru],\"b\":1}}"),
            format!("{{\"a\":[1,,{body}],\"b\":1}}"),
            format!("{{\"a\":[{body}]]"),
            format!("[{body}]").replacen("\"x\"", "\"\u{FFFF}\"", 90_000),
        ];
        let big = Limits {
            max_bytes: 16 << 20,
            max_depth: 8,
        };
        for doc in &docs {
            let whole = validate_keyed(doc.as_bytes(), big, KEY);
            for parallel in [false, true] {
                let join = Reversed { parallel };
                assert_eq!(validate_with(&join, doc.as_bytes(), big, KEY), whole);
            }
            assert_eq!(validate_with(&Serial, doc.as_bytes(), big, KEY), whole);
        }
        // The valid one is read by two workers meeting halfway (nothing else is checked).
        let valid = docs[0].as_bytes();
        assert!(validate_keyed(valid, big, KEY).is_ok());
        let meeting = Meeting::new(CHUNK);
        let second = meeting.read_suffix(valid, big, KEY).map(|s| s.start);
        let first = meeting.read_prefix(valid, big, KEY).paused();
        assert!(
            second.is_some_and(|at| at >= valid.len() / 2 && at < valid.len() / 2 + 64),
            "{second:?} of {}",
            valid.len()
        );
        assert_eq!(first, second);
    }

    /// §10.4: a record can only be joined with as many floor containers as the depth limit
    /// allows, so the second worker gives up at one more, however many closes follow: its
    /// memory is bounded by the limit, not by the input.
    #[test]
    fn a_record_never_holds_more_floor_containers_than_the_depth_limit() {
        let deep = "[[[[0,0]]]]";
        let record = Suffix::read(deep.as_bytes(), 5, limits(4), KEY).map(|s| s.levels.len());
        assert_eq!(record, Some(4));
        let closes = format!("{deep}{}", "]".repeat(10_000));
        assert_eq!(Suffix::read(closes.as_bytes(), 5, limits(4), KEY), None);
        assert_eq!(Suffix::read(deep.as_bytes(), 5, limits(3), KEY), None);
        same_at_every_offset(closes.as_bytes(), limits(4));
    }

    /// A suffix joins only the first worker that reads the very bytes it read: one read from
    /// other bytes with the same comma and containers is not taken for it.
    #[test]
    fn a_suffix_of_other_bytes_is_not_joined() {
        let (valid, broken) = (b"[1,2,3]".as_slice(), b"[1,2,x]".as_slice());
        let copy = valid.to_vec();
        for (first, second) in [(broken, valid), (valid, copy.as_slice())] {
            let suffix = Suffix::read(second, 2, limits(4), KEY);
            assert!(suffix.is_some());
            let mut prefix = Prefix::new(first, limits(4), KEY);
            assert_eq!(prefix.read_until(2), Progress::Paused(2));
            let Read::Reading(parser) = &mut prefix.read else {
                panic!("paused");
            };
            assert_eq!(suffix.as_ref().and_then(|s| s.join(parser)), None);
            assert_eq!(prefix.finish(suffix.as_ref()), validate_keyed(first, limits(4), KEY));
        }
    }

    /// A comma is taken for a start only if a value ends within 64 KiB before it and one
    /// starts within 64 KiB after it, so a retried guess never rescans a long run.
    #[test]
    fn guesses_look_at_most_64_kib_around_a_comma() {
        let far = format!("[1{},{}2]", " ".repeat(SEARCH), " ".repeat(SEARCH));
        assert_eq!(guess(far.as_bytes(), SEARCH), None);
        let near = format!("[1{},{}2]", " ".repeat(SEARCH - 1), " ".repeat(SEARCH - 1));
        assert_eq!(guess(near.as_bytes(), SEARCH), Some(SEARCH + 1));
    }

    #[test]
    fn guesses_are_commas_between_a_value_and_the_next() {
        let doc = br#"{"a":"p,q", "b" : [1 , {"c":2}],"d":3}"#;
        // Not the comma after `p` (no value ends in `p`).
        assert_eq!(guess(doc, 0), Some(10));
        assert_eq!(guess(doc, 11), Some(21));
        assert_eq!(guess(doc, 22), Some(31));
        assert_eq!(guess(doc, 32), None);
        assert_eq!(guess(doc, 1000), None);
    }
}
