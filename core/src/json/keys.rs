//! Duplicate member names, compared after unescaping, in time linear in the object size
//! (`spec/json.md` §5; n log n for a validation's later names, §5.1).
//!
//! Objects with few members (the usual case in manifests) compare each new name with the
//! earlier ones directly; at [`SMALL`] members an object switches to an open-addressing
//! table keyed with SipHash-1-3 under a caller-supplied secret, so crafted collisions
//! cannot make the check quadratic. A parser left with the public default key does not hash
//! under it: the first table of the document is keyed with the SHA-256 of the whole input
//! instead ([`document_key`]). While an object compares directly, its names are kept as
//! ranges of the input (or of an arena holding the unescaped form of names that had
//! escapes, each after its place in the input); once it hashes, a name is only its slot,
//! which holds where its text starts in the input, so an object of many members costs 11
//! to 22 bytes each (8-byte slots, the table from three eighths to three quarters full),
//! plus the smaller table while it doubles.
//!
//! A set made for validation ([`NameSets::defer`]) stops growing an object's table at
//! [`LARGE`] names, small enough to stay cached: each later name is appended to a list
//! (8 bytes, no random access), which is sorted and checked once, among itself and against
//! the table, when the object closes or when the read fails first
//! ([`NameSets::pending_repeat`]; `spec/json.md` §5.1).

use super::siphash::siphash13;
use super::tokenizer::{DEFAULT_HASH_KEY, string_value};
use crate::invariant;
use alloc::borrow::Cow;
use alloc::vec::Vec;
use sha2::{Digest, Sha256};

/// Members an object may have before it switches from direct comparison to hashing.
pub(crate) const SMALL: usize = 16;

/// Members at which the table of an object of a set made with [`NameSets::defer`] stops
/// growing, and later names are checked among themselves by one sort when it closes
/// (`spec/json.md` §5.1). 2,048 slots of 8 bytes: the table stays in the processor's
/// first-level cache.
pub(crate) const LARGE: usize = 1024;

/// A name as a range: of the input, or (offset by the input's length, so one range type
/// serves both) of the arena holding unescaped names. 24 bytes, written once per name.
#[derive(Clone, Copy)]
struct Name {
    start: usize,
    end: usize,
    /// The first eight bytes, zero-padded: most unequal names differ here or in length,
    /// so the bytes themselves are compared only when both agree.
    head: u64,
}

/// A hash-table slot, 8 bytes: the low 32 bits of the name's SipHash ([`name_hash`]),
/// which place it and are compared before its bytes, and where its text starts in the
/// input, just after its opening quote (so never 0, which marks an empty slot). The name
/// is read back from there only when a new name has the same hash. The later names of an
/// object (§5.1) are slots too.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Slot {
    /// The name's hash.
    hash: u32,
    /// Where its text starts in the input.
    start: u32,
}

/// The table of an object that hashes its names, and how many it holds. A table that has
/// stopped growing (§5.1) holds its first [`LARGE`] names; the later ones are in `later`,
/// in arrival order.
struct Table {
    slots: Vec<Slot>,
    len: usize,
    later: Option<Vec<Slot>>,
}

impl Name {
    fn len(&self) -> usize {
        self.end.saturating_sub(self.start)
    }
}

/// The first eight bytes of `bytes`, zero-padded.
fn head_of(bytes: &[u8]) -> u64 {
    let mut buf = [0u8; 8];
    for (d, s) in buf.iter_mut().zip(bytes) {
        *d = *s;
    }
    u64::from_le_bytes(buf)
}

/// [`head_of`] the range `start..end` of `input`: most names are shorter than eight bytes
/// and followed by more input, so the word is loaded whole and masked to the name's length.
#[inline(always)]
fn head_at(input: &[u8], start: usize, end: usize) -> u64 {
    let len = end.saturating_sub(start);
    match input.get(start..).and_then(<[u8]>::first_chunk::<8>) {
        Some(word) if len < 8 => u64::from_le_bytes(*word) & ((1u64 << (8 * len)) - 1),
        Some(word) => u64::from_le_bytes(*word),
        None => head_of(invariant::sub(input, start..end)),
    }
}

/// `seen` is last (`repr(C)`): it is stored for every name, and opening a nested object
/// copies the frame; in the last eight bytes it is copied on its own, while between other
/// fields it would be read by a 16-byte load over its 8-byte store, which cannot be
/// forwarded.
#[derive(Clone, Copy)]
#[repr(C)]
struct Frame {
    first: usize,
    arena_start: usize,
    /// While `names` is shorter than this, the object compares names directly: `first +
    /// SMALL` until it switches to hashing, then 0.
    scan_end: usize,
    /// True once the object has switched to hashing (its table is the last of `tables`).
    hashed: bool,
    /// While the object compares names directly: one bit per name, chosen by its length
    /// and head. A name whose bit is clear is certainly new, so the scan is skipped.
    seen: u64,
}

const EMPTY: Frame = Frame {
    first: 0,
    seen: 0,
    arena_start: 0,
    hashed: false,
    scan_end: 0,
};

/// The names of every open object. The innermost object's frame is kept apart from the
/// enclosing ones, so adding a name touches no frame stack.
pub(crate) struct NameSets {
    names: Vec<Name>,
    top: Frame,
    outer: Vec<Frame>,
    /// The unescaped form of names that had escapes, of objects that compare directly, each
    /// after the four bytes (little-endian) of where its text starts in the input.
    arena: Vec<u8>,
    tables: Vec<Table>,
    spare: Vec<Vec<Slot>>,
    key: [u64; 2],
    /// True while `key` is [`DEFAULT_HASH_KEY`], which anyone can read: the first switch
    /// to hashing replaces it with [`document_key`] (`spec/json.md` §5).
    derive_key: bool,
    /// Set by [`NameSets::defer`]: objects of [`LARGE`] names defer their check (§5.1).
    defer: bool,
    /// The opening quote of the earliest repeated name that a closed object's sort found
    /// (§5.1).
    repeat: Option<usize>,
}

impl NameSets {
    /// An empty set of sets, hashing under `key`; under a key derived from the input when
    /// `key` is [`DEFAULT_HASH_KEY`] (`spec/json.md` §5).
    pub(crate) fn new(key: [u64; 2]) -> Self {
        NameSets {
            names: Vec::new(),
            top: EMPTY,
            outer: Vec::new(),
            arena: Vec::new(),
            tables: Vec::new(),
            spare: Vec::new(),
            key,
            derive_key: key == DEFAULT_HASH_KEY,
            defer: false,
            repeat: None,
        }
    }

    /// Lets objects of [`LARGE`] names or more defer part of their duplicate check to their
    /// close (`spec/json.md` §5.1). Only for a read that hands out no names before its
    /// verdict (a validation): a repeat among an object's later names is noticed only by
    /// [`NameSets::pending_repeat`], which such a read asks when it ends or fails.
    pub(crate) fn defer(&mut self) {
        self.defer = true;
    }

    /// Starts the name set of a newly opened object.
    #[inline]
    pub(crate) fn open(&mut self) {
        self.outer.push(self.top);
        self.top = Frame {
            first: self.names.len(),
            seen: 0,
            arena_start: self.arena.len(),
            hashed: false,
            scan_end: self.names.len().saturating_add(SMALL),
        };
    }

    /// Forgets the names of the innermost object when it closes. The later names of an
    /// object whose table stopped growing are checked first (§5.1), and the first repeat
    /// among them is kept for [`NameSets::pending_repeat`].
    #[inline(always)]
    pub(crate) fn close(&mut self, input: &[u8]) {
        self.names.truncate(self.top.first);
        self.arena.truncate(self.top.arena_start);
        if self.top.hashed {
            self.close_table(input);
        }
        // Every close follows its open.
        self.top = invariant::some_or(self.outer.pop(), EMPTY);
    }

    /// [`NameSets::close`] of an object that hashes: its table and its later names' list
    /// are kept for the next object, once the later names are checked (§5.1).
    #[inline(never)]
    fn close_table(&mut self, input: &[u8]) {
        let Some(mut t) = self.tables.pop() else {
            return;
        };
        if let Some(mut later) = t.later {
            let at = object_repeat(input, &t.slots, &mut later);
            self.repeat = self.repeat.into_iter().chain(at).min();
            later.clear();
            self.spare.push(later);
        }
        t.slots.clear();
        self.spare.push(t.slots);
    }

    /// The earliest later name (§5.1), in an object closed so far or one still open, that
    /// repeats an earlier name of its object: the offset of its opening quote. A read that
    /// ends reports it; one that fails reports it instead when it comes first (§7.1).
    pub(crate) fn pending_repeat(&mut self, input: &[u8]) -> Option<usize> {
        if self.repeat.is_none() && self.tables.iter().all(|t| t.later.is_none()) {
            return None;
        }
        let open = self.tables.iter_mut().filter_map(|t| {
            let later = t.later.as_mut()?;
            object_repeat(input, &t.slots, later)
        });
        open.chain(self.repeat).min()
    }

    /// Adds a name to the innermost object. `raw` is the name's range in `input`, between
    /// its quotes; when it has escapes, `unescaped` holds its unescaped bytes.
    /// Returns false when an equal name is already there.
    #[inline(always)]
    pub(crate) fn insert(&mut self, input: &[u8], raw: (usize, usize), unescaped: Option<&[u8]>) -> bool {
        let arena_start = self.arena.len();
        // The name travels as three scalars until it is pushed: built as a `Name` here, it
        // would live on the stack and be copied into `names` with a 16-byte load over two
        // 8-byte stores, which cannot be forwarded and stalls every name.
        let (start, end, head) = match unescaped {
            None => (raw.0, raw.1, head_at(input, raw.0, raw.1)),
            Some(bytes) => {
                self.arena.extend_from_slice(&small(raw.0).to_le_bytes());
                let from = self.arena.len();
                self.arena.extend_from_slice(bytes);
                // Input and arena are both in memory, so their lengths cannot overflow.
                (
                    input.len().saturating_add(from),
                    input.len().saturating_add(self.arena.len()),
                    head_of(bytes),
                )
            }
        };
        let fresh = if self.names.len() < self.top.scan_end {
            self.insert_scanned(input, start, end, head)
        } else {
            self.insert_into_table(input, raw, unescaped, arena_start)
        };
        if !fresh {
            self.arena.truncate(arena_start);
        }
        fresh
    }

    /// [`NameSets::insert`] once the innermost object has [`SMALL`] names: it switches to
    /// hashing if it has not yet, and the name goes to its table. A hashing object keeps no
    /// arena copy (its slot points at the text in the input), so the one made for this name
    /// is dropped.
    #[cold]
    #[inline(never)]
    fn insert_into_table(
        &mut self,
        input: &[u8],
        raw: (usize, usize),
        unescaped: Option<&[u8]>,
        arena_start: usize,
    ) -> bool {
        self.arena.truncate(arena_start);
        if !self.top.hashed {
            self.switch_to_table(input);
        }
        let new = unescaped.unwrap_or_else(|| invariant::sub(input, raw.0..raw.1));
        self.insert_hashed(input, raw.0, new)
    }

    /// Where the text of name `n` (of an object that compares directly) starts in the
    /// input: its range for a name without escapes, the four bytes before its unescaped
    /// form in the arena for the others.
    fn raw_start(&self, input: &[u8], n: &Name) -> usize {
        match n.start.checked_sub(input.len()) {
            None => n.start,
            Some(at) => at
                .checked_sub(4)
                .and_then(|p| self.arena.get(p..at))
                .and_then(|b| <[u8; 4]>::try_from(b).ok())
                .map_or(0, |b| wide(u32::from_le_bytes(b))),
        }
    }

    fn bytes<'s>(&'s self, input: &'s [u8], n: &Name) -> &'s [u8] {
        // A name in the input ends before its closing quote, so it starts below the length.
        match n.start.checked_sub(input.len()) {
            None => invariant::sub(input, n.start..n.end),
            Some(start) => invariant::sub(&self.arena, start..n.end.saturating_sub(input.len())),
        }
    }

    #[inline(always)]
    fn insert_scanned(&mut self, input: &[u8], start: usize, end: usize, head: u64) -> bool {
        let len = end.saturating_sub(start);
        let bit = 1u64 << ((head ^ len as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58);
        let maybe_seen = self.top.seen & bit != 0;
        self.top.seen |= bit;
        if maybe_seen && self.seen_before(input, start, end, head) {
            return false;
        }
        self.names.push(Name { start, end, head });
        true
    }

    /// Compares the name `start..end` with head `head` with each earlier name of the
    /// innermost object.
    #[inline(never)]
    fn seen_before(&self, input: &[u8], start: usize, end: usize, head: u64) -> bool {
        let name = Name { start, end, head };
        let new = self.bytes(input, &name);
        let earlier = invariant::sub(&self.names, self.top.first..);
        earlier
            .iter()
            .any(|n| n.head == name.head && n.len() == name.len() && self.bytes(input, n) == new)
    }

    /// Moves the innermost object's names into a hash table (§5: linear time).
    fn switch_to_table(&mut self, input: &[u8]) {
        // No table exists before the document's first switch, so every table of the
        // document is keyed alike.
        if self.derive_key {
            self.key = document_key(input);
            self.derive_key = false;
        }
        let first = self.top.first;
        let mut slots = self.spare.pop().unwrap_or_default();
        slots.clear();
        slots.resize(SMALL * 4, Slot::default());
        let mut len = 0;
        for n in invariant::sub(&self.names, first..) {
            let hash = name_hash(self.key, self.bytes(input, n));
            place(&mut slots, hash, self.raw_start(input, n));
            len += 1;
        }
        // The names now live in the table only.
        self.names.truncate(first);
        self.arena.truncate(self.top.arena_start);
        self.tables.push(Table {
            slots,
            len,
            later: None,
        });
        self.top.hashed = true;
        self.top.scan_end = 0;
    }

    /// Adds the name whose text starts at `start` in the input and whose value is `new`
    /// to the innermost object's table, unless an equal name is there.
    fn insert_hashed(&mut self, input: &[u8], start: usize, new: &[u8]) -> bool {
        let slot = Slot {
            hash: name_hash(self.key, new),
            start: small(start),
        };
        self.insert_slot(slot, |earlier| stored_equals(input, earlier, new))
    }

    /// Adds `new` to the innermost object's table unless `equal` holds for the start of a
    /// name of the table with the same hash; once the table has stopped growing, to its later
    /// names without a look, since they are checked when the object closes (§5.1).
    fn insert_slot(&mut self, new: Slot, equal: impl Fn(u32) -> bool) -> bool {
        let Some(table) = self.tables.last_mut() else {
            return true;
        };
        if let Some(later) = &mut table.later {
            // §5.1: checked against the table's names and the other later ones when the
            // object closes.
            later.push(new);
            table.len = table.len.saturating_add(1);
            return true;
        }
        if holds(&table.slots, new.hash, equal) {
            return false;
        }
        table.len = table.len.saturating_add(1);
        grow_if_needed(table);
        place_slot(&mut table.slots, new);
        if self.defer && table.len >= LARGE {
            table.later = Some(self.spare.pop().unwrap_or_default());
        }
        true
    }
}

/// True when `table` holds a name of hash `hash` whose start `equal` accepts. Linear
/// probing over a table at most three quarters full (§5): the probe ends at an empty slot.
fn holds(table: &[Slot], hash: u32, equal: impl Fn(u32) -> bool) -> bool {
    let mask = table.len().saturating_sub(1);
    let mut slot = hash_slot(hash, mask);
    while let Some(&entry) = table.get(slot) {
        if entry.start == 0 {
            return false;
        }
        if entry.hash == hash && equal(entry.start) {
            return true;
        }
        slot = (slot + 1) & mask;
    }
    false
}

/// The hash a table keeps of a name whose value is `value` (§5): the low 32 bits of its
/// SipHash-1-3 under `key`.
fn name_hash(key: [u64; 2], value: &[u8]) -> u32 {
    low32(siphash13(key, value))
}

/// The first later name of an object (§5.1) that repeats an earlier name of the object:
/// the offset of its opening quote. Its names are those of `table`, then its later names
/// `later`, in document order; `later` is sorted here. A repeat is either a later name
/// equal to a table name ([`table_repeat`]) or one equal to an earlier later name
/// ([`first_repeat_sorted`]): the table's names never repeat each other.
fn object_repeat(input: &[u8], table: &[Slot], later: &mut [Slot]) -> Option<usize> {
    sort_slots(later);
    let among_later = first_repeat_sorted(input, later);
    let of_table = table_repeat(input, table, later);
    let first = among_later.into_iter().chain(of_table).min();
    first.map(|start| wide(start).saturating_sub(1))
}

/// Later names an object may have for [`table_repeat`] to look each up in the table;
/// with more, each table name is looked for among them instead (a binary search of
/// about 10 steps or more for each of [`LARGE`] names against a probe for each later name).
const LOOKUPS: usize = LARGE;

/// The start of the first name of `later` (sorted by [`sort_slots`]) equal to a name of
/// `table`. Few names are each looked up in the table; among many, each of the table's
/// [`LARGE`] names is looked for by its hash, so that a large object costs no look-up for
/// each name (§5.1).
fn table_repeat(input: &[u8], table: &[Slot], later: &[Slot]) -> Option<u32> {
    if later.len() <= LOOKUPS {
        let in_table = |new: &&Slot| {
            holds(table, new.hash, |earlier| {
                stored_value(input, earlier) == stored_value(input, new.start)
            })
        };
        return later.iter().filter(in_table).map(|new| new.start).min();
    }
    table
        .iter()
        .filter(|t| t.start != 0)
        .filter_map(|t| first_equal(input, later, *t))
        .min()
}

/// The start of the first name of `sorted` (by [`sort_slots`]) equal to `name`.
fn first_equal(input: &[u8], sorted: &[Slot], name: Slot) -> Option<u32> {
    let from = sorted.partition_point(|s| s.hash < name.hash);
    let run = sorted.get(from..)?;
    if run.first()?.hash != name.hash {
        return None;
    }
    let value = stored_value(input, name.start);
    let mut run = run.iter().take_while(|s| s.hash == name.hash);
    run.find(|s| stored_value(input, s.start) == value).map(|s| s.start)
}

/// Sorts names by hash, then by where they start: the order [`object_repeat`] checks them
/// in (§5.1).
fn sort_slots(slots: &mut [Slot]) {
    slots.sort_unstable_by_key(|s| (u64::from(s.hash) << 32) | u64::from(s.start));
}

/// The start of the first name of `sorted` (by [`sort_slots`]) that repeats an earlier
/// one. Equal names are in the same run of equal hashes, earliest first; in each run the
/// first name equal to one before it is that run's first repeat, and the earliest of those
/// is the first. The hashes are keyed (§5), so runs stay short.
fn first_repeat_sorted(input: &[u8], mut sorted: &[Slot]) -> Option<u32> {
    let mut first = None;
    while let Some(head) = sorted.first() {
        let (run, rest) = sorted.split_at(run_len(sorted, head.hash));
        sorted = rest;
        // Most runs are one name: nothing to compare.
        if run.len() > 1 {
            first = first.into_iter().chain(run_repeat(input, run)).min();
        }
    }
    first
}

/// How many names at the head of `slots` have the hash `hash`.
fn run_len(slots: &[Slot], hash: u32) -> usize {
    slots.iter().take_while(|s| s.hash == hash).count()
}

/// The start of the first name of `run` (sorted by start) equal to an earlier one.
fn run_repeat(input: &[u8], run: &[Slot]) -> Option<u32> {
    run.iter().enumerate().skip(1).find_map(|(j, later)| {
        let value = stored_value(input, later.start);
        let earlier = invariant::sub(run, ..j);
        earlier
            .iter()
            .any(|e| stored_equals(input, e.start, &value))
            .then_some(later.start)
    })
}

/// Doubles `table` when its names would fill more than three quarters of it (§5: at half,
/// its slots and the doubling's old table took up to 48 bytes a name; at three quarters,
/// 32, for probes that are a few slots longer in one cache line), re-placing the slots
/// from the hashes they hold into a new table, so that growing holds the old table and the
/// new one, nothing else.
fn grow_if_needed(table: &mut Table) {
    if table.len.saturating_mul(4) > table.slots.len().saturating_mul(3) {
        let mut grown = alloc::vec![Slot::default(); table.slots.len().saturating_mul(2)];
        for s in table.slots.iter().filter(|s| s.start != 0) {
            place_slot(&mut grown, *s);
        }
        table.slots = grown;
    }
}

/// True when the name whose text starts at `start` in the input equals `new` after
/// unescaping.
fn stored_equals(input: &[u8], start: u32, new: &[u8]) -> bool {
    *stored_value(input, start) == *new
}

/// The value of the name whose text starts at `start` in the input: its text up to the
/// closing quote ([`name_end`]), unescaped if it has escapes.
pub(crate) fn stored_value(input: &[u8], start: u32) -> Cow<'_, [u8]> {
    let start = wide(start);
    let raw = invariant::sub(input, start..name_end(input, start));
    if !raw.contains(&b'\\') {
        return Cow::Borrowed(raw);
    }
    // The string scan has checked the name's bytes as UTF-8.
    let text = invariant::some(core::str::from_utf8(raw).ok());
    match string_value(text) {
        Cow::Borrowed(s) => Cow::Borrowed(s.as_bytes()),
        Cow::Owned(s) => Cow::Owned(s.into_bytes()),
    }
}

/// The offset of the closing quote of the name whose text starts at `start` in the input:
/// the first quote that no backslash escapes (the input up to there has passed the string
/// rules, so that quote is there).
pub(crate) fn name_end(input: &[u8], start: usize) -> usize {
    let mut end = start;
    while let Some(&b) = input.get(end) {
        match b {
            b'"' => break,
            b'\\' => end = end.saturating_add(2),
            _ => end += 1,
        }
    }
    end
}

/// A name's start as a slot holds it. Inputs are at most `MAX_INPUT` (u32::MAX) bytes.
fn small(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn wide(n: u32) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// The table key of a parser without a key of its own (`spec/json.md` §5): the first 16
/// bytes of the SHA-256 of the whole input. Anyone can read [`DEFAULT_HASH_KEY`], and
/// names that collide under it are cheap to find, which would make the table quadratic;
/// this key depends on every name of the document, so names cannot be chosen for it.
fn document_key(input: &[u8]) -> [u64; 2] {
    let digest = Sha256::digest(input);
    let word = |at: usize| {
        digest
            .get(at..)
            .and_then(<[u8]>::first_chunk::<8>)
            .map_or(0, |w| u64::from_le_bytes(*w))
    };
    [word(0), word(8)]
}

/// The low 32 bits of a SipHash: what a slot keeps (§5). Tables have fewer than 2^32 slots
/// (names are at least 3 input bytes and inputs at most `MAX_INPUT`), so they place a name
/// as the whole hash would.
#[allow(clippy::cast_possible_truncation)]
fn low32(hash: u64) -> u32 {
    hash as u32
}

#[allow(clippy::cast_possible_truncation)]
fn hash_slot(hash: u32, mask: usize) -> usize {
    // u32 fits usize on every target core builds for.
    (hash as usize) & mask
}

/// Stores the name whose text starts at `start` (never 0: it follows a quote) at its first
/// free slot.
fn place(table: &mut [Slot], hash: u32, start: usize) {
    place_slot(
        table,
        Slot {
            hash,
            start: small(start),
        },
    );
}

fn place_slot(table: &mut [Slot], new: Slot) {
    let mask = table.len().saturating_sub(1);
    let mut slot = hash_slot(new.hash, mask);
    while let Some(entry) = table.get_mut(slot) {
        if entry.start == 0 {
            *entry = new;
            return;
        }
        slot = (slot + 1) & mask;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_docs::Rng;
    use alloc::collections::BTreeSet;
    use alloc::format;
    use alloc::vec::Vec;

    impl NameSets {
        /// The longest run of occupied slots in the innermost object's table: what the
        /// probe for a new name may have to walk.
        fn longest_run(&self) -> usize {
            let table = self.tables.last().map(|t| t.slots.as_slice()).unwrap_or_default();
            let mut longest = 0;
            let mut run = 0;
            for slot in table {
                run = if slot.start == 0 { 0 } else { run + 1 };
                longest = longest.max(run);
            }
            longest
        }
    }

    /// §5: a hashed object's table doubles only when its names would fill more than three
    /// quarters of it, so it has at most 8/3 slots a name (4 while it doubled at half).
    #[test]
    fn a_table_doubles_only_past_three_quarters_full() {
        let mut input = alloc::vec![b'"'];
        let mut ranges = Vec::new();
        for i in 0..5000u32 {
            let start = input.len();
            input.extend_from_slice(format!("n{i}").as_bytes());
            ranges.push((start, input.len()));
            input.extend_from_slice(b"\",\"");
        }
        let mut sets = NameSets::new([7, 8]);
        sets.open();
        for (i, &r) in ranges.iter().enumerate() {
            assert!(sets.insert(&input, r, None));
            let names = i + 1;
            let slots = sets.tables.last().map_or(0, |t| t.slots.len());
            if names <= SMALL {
                assert_eq!(slots, 0, "{names} names compare directly");
                continue;
            }
            let mut want = SMALL * 4;
            while 4 * names > 3 * want {
                want *= 2;
            }
            assert_eq!(slots, want, "{names} names");
        }
    }

    /// Names chosen so that their SipHash under the public [`DEFAULT_HASH_KEY`] starts
    /// probing in the first 64 slots of the table must not pile up into one run, which
    /// would make each insertion walk all earlier names (quadratic time): a set without a
    /// key of its own hashes under the key of the whole input (`spec/json.md` §5).
    #[test]
    fn names_chosen_for_the_default_key_do_not_cluster() {
        let n = 2000;
        // Each name between quotes, as in a document.
        let mut input = alloc::vec![b'"'];
        let mut ranges = Vec::new();
        let mut c = 0u64;
        while ranges.len() < n {
            let name = format!("{c:x}");
            c += 1;
            // 2000 names fill a 4096-slot table (at most three quarters full): 12 bits of
            // the hash choose the slot.
            if siphash13(DEFAULT_HASH_KEY, name.as_bytes()) & 0xFFF < 64 {
                let start = input.len();
                input.extend_from_slice(name.as_bytes());
                ranges.push((start, input.len()));
                input.extend_from_slice(b"\",\"");
            }
        }
        let longest_run = |mut sets: NameSets| {
            sets.open();
            for &r in &ranges {
                assert!(sets.insert(&input, r, None));
            }
            sets.longest_run()
        };
        // Hashed under the default key itself, the names form one run: they are the attack.
        let fixed = NameSets {
            derive_key: false,
            ..NameSets::new(DEFAULT_HASH_KEY)
        };
        assert!(longest_run(fixed) >= n);
        // A set given the default key keys its table from the input instead.
        assert!(longest_run(NameSets::new(DEFAULT_HASH_KEY)) < 64);
    }

    /// One name of a test document: its value, its text's range in the input (between its
    /// quotes) and whether that text has escapes.
    struct Named {
        value: Vec<u8>,
        raw: (usize, usize),
        escaped: bool,
    }

    fn insert(sets: &mut NameSets, input: &[u8], n: &Named) -> bool {
        sets.insert(input, n.raw, n.escaped.then_some(n.value.as_slice()))
    }

    /// Writes `value` between quotes at the end of `input`, about every third time with
    /// some of its bytes escaped (`\u00XX`, or `\"` for a quote, which must be escaped).
    fn write_name(rng: &mut Rng, input: &mut Vec<u8>, value: Vec<u8>) -> Named {
        let escape_some = rng.next_u64().is_multiple_of(3);
        input.push(b'"');
        let start = input.len();
        let mut escaped = false;
        for &c in &value {
            if c == b'"' {
                input.extend_from_slice(b"\\\"");
                escaped = true;
            } else if escape_some && rng.next_u64().is_multiple_of(2) {
                input.extend_from_slice(format!("\\u{c:04x}").as_bytes());
                escaped = true;
            } else {
                input.push(c);
            }
        }
        let raw = (start, input.len());
        input.push(b'"');
        Named { value, raw, escaped }
    }

    /// NameSets agrees with a plain set per object for names of every length around the
    /// 8-byte head, with and without escapes (a quote among them), in the direct-compare
    /// and hashed regimes, with an enclosing object (in either regime) whose names must
    /// survive the inner object's close (`spec/json.md` §5).
    #[test]
    fn duplicate_answers_match_a_plain_set() {
        let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
        for round in 0..400 {
            let members = usize::try_from(rng.next_u64() % 48).unwrap_or(0);
            let mut input = Vec::new();
            let mut names = Vec::new();
            for _ in 0..members * 2 + 2 {
                let len = usize::try_from(rng.next_u64() % 11).unwrap_or(0);
                // Few distinct bytes, so equal names (and equal heads) are common.
                let value = (0..len)
                    .map(|_| match rng.next_u64() % 9 {
                        0 => b'"',
                        r => b'a' + (r % 2) as u8,
                    })
                    .collect();
                names.push(write_name(&mut rng, &mut input, value));
            }
            if round % 2 == 0 {
                // Names near the end are read byte by byte, the others as one word.
                input.extend_from_slice(b"........");
            }
            let mut sets = NameSets::new([round, 7]);
            let mut outer_reference = BTreeSet::new();
            sets.open();
            // Every third round the outer object has switched to hashing before the inner
            // one opens, and must still be hashing after it closes.
            let outer_count = if round % 3 == 0 {
                (SMALL + 4).min(names.len())
            } else {
                2
            };
            let (outer_first, inner) = names.split_at(outer_count);
            for n in outer_first {
                let fresh = insert(&mut sets, &input, n);
                assert_eq!(fresh, outer_reference.insert(n.value.clone()), "round {round}");
            }
            sets.open();
            let mut reference = BTreeSet::new();
            for n in inner {
                let fresh = insert(&mut sets, &input, n);
                assert_eq!(fresh, reference.insert(n.value.clone()), "round {round}");
            }
            sets.close(&input);
            for n in outer_first {
                assert!(!insert(&mut sets, &input, n), "outer names survive the inner close");
            }
            sets.close(&input);
        }
    }

    /// Adds an object's names as a parser would: each is accepted, since its first
    /// [`LARGE`] are distinct and the later ones are checked only when it closes (§5.1).
    fn feed(sets: &mut NameSets, input: &[u8], object: &[Named]) {
        for n in object {
            assert!(insert(sets, input, n));
        }
    }

    /// Names of equal hashes are told apart by their values (§5), whichever way the check
    /// of later names goes (§5.1): among themselves, and against the table's names looked
    /// up one by one or looked for among many.
    #[test]
    fn later_names_of_equal_hashes_are_compared_by_value() {
        // `"ab"`, `"cd"`, `"ab"` and `"a\u0062"`: their text starts at 1, 6, 11 and 16.
        let input = br#""ab" "cd" "ab" "a\u0062""#;
        let slot = |start| Slot { hash: 7, start };
        let (ab, cd, ab_again, ab_escaped) = (slot(1), slot(6), slot(11), slot(16));
        let mut table = alloc::vec![Slot::default(); 64];
        place_slot(&mut table, ab);
        // Names of other hashes, enough for the table's names to be looked for among them.
        let filler: Vec<Slot> = (0..=LOOKUPS)
            .map(|i| Slot {
                hash: 100 + small(i),
                start: 6,
            })
            .collect();
        for extra in [&[][..], &filler] {
            // The later names, with or without the others.
            let later = |names: &[Slot]| {
                let mut all = [names, extra].concat();
                sort_slots(&mut all);
                all
            };
            assert_eq!(table_repeat(input, &table, &later(&[cd])), None);
            assert_eq!(table_repeat(input, &table, &later(&[cd, ab_again])), Some(11));
            assert_eq!(table_repeat(input, &table, &later(&[cd, ab_escaped])), Some(16));
        }
        assert_eq!(first_repeat_sorted(input, &[ab, cd]), None);
        assert_eq!(first_repeat_sorted(input, &[ab, cd, ab_escaped]), Some(16));
        assert_eq!(first_repeat_sorted(input, &[cd, ab_again, ab_escaped]), Some(16));
    }

    /// §5.1: an object of a deferring set stops growing its table at [`LARGE`] names; a
    /// later name equal to a table name or to an earlier later name is found by
    /// [`NameSets::pending_repeat`], before the object closes and after, as a plain set read
    /// in turn finds it, with and without escapes, in an inner object and an enclosing one,
    /// with later names few enough to be looked up in the table and more ([`LOOKUPS`]).
    #[test]
    fn a_deferred_object_finds_its_first_repeat_when_it_closes() {
        let mut rng = Rng::new(0x2545_F491_4F6C_DD1D);
        let (mut of_table, mut among_later, mut many) = (0, 0, 0);
        for round in 0..200 {
            let mut input = Vec::new();
            let mut names = Vec::new();
            // Half the objects have more later names than the table's look-ups.
            let count = LARGE + usize::try_from(rng.next_u64() % (2 * LOOKUPS as u64)).unwrap_or(0);
            // In each object, distinct names until `LARGE`, then now and then a name drawn
            // from a pool of the table's last 40 names and the first 40 later ones, some
            // escaped.
            for i in 0..count * 2 {
                let n = if i % count < LARGE || !rng.next_u64().is_multiple_of(64) {
                    i
                } else {
                    (i / count) * count + LARGE - 40 + usize::try_from(rng.next_u64() % 80).unwrap_or(0)
                };
                names.push(write_name(&mut rng, &mut input, format!("n{round}-{n}").into_bytes()));
            }
            // The first name equal to an earlier one, and whether that is a table name.
            let first_repeat = |names: &[Named]| {
                let mut seen = BTreeSet::new();
                let repeat = names.iter().find(|n| !seen.insert(n.value.clone()))?;
                let table = names.iter().take(LARGE).any(|n| n.value == repeat.value);
                Some((repeat.raw.0 - 1, table))
            };
            let (outer, inner) = names.split_at(count);
            let mut sets = NameSets::new([round, 9]);
            sets.defer();
            sets.open();
            feed(&mut sets, &input, outer);
            sets.open();
            feed(&mut sets, &input, inner);
            let firsts = [first_repeat(outer), first_repeat(inner)];
            let want = firsts.iter().flatten().map(|f| f.0).min();
            for (at, table) in firsts.iter().flatten() {
                of_table += usize::from(*table);
                among_later += usize::from(!table && Some(*at) == want);
            }
            many += usize::from(count - LARGE > LOOKUPS && want.is_some());
            assert_eq!(sets.pending_repeat(&input), want, "round {round}, inner open");
            sets.close(&input);
            assert_eq!(sets.pending_repeat(&input), want, "round {round}, inner closed");
            sets.close(&input);
            assert_eq!(sets.pending_repeat(&input), want, "round {round}, both closed");
        }
        assert!(
            of_table > 50 && among_later > 50 && many > 50,
            "{of_table} repeats of a table name, {among_later} of a later name, {many} in large objects"
        );
    }
}
