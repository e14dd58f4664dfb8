//! Duplicate member names, compared after unescaping, in time linear in the object size
//! (`spec/json.md` §5).
//!
//! Objects with few members (the usual case in manifests) compare each new name with the
//! earlier ones directly; at [`SMALL`] members an object switches to an open-addressing
//! table keyed with SipHash-1-3 under a caller-supplied secret, so crafted collisions
//! cannot make the check quadratic. A parser left with the public default key does not hash
//! under it: the first table of the document is keyed with the SHA-256 of the whole input
//! instead ([`document_key`]). Names are kept as ranges of the input (or of an arena
//! holding the unescaped form of names that had escapes), never copied otherwise.

use super::siphash::siphash13;
use super::tokenizer::DEFAULT_HASH_KEY;
use alloc::vec::Vec;
use sha2::{Digest, Sha256};

/// Members an object may have before it switches from direct comparison to hashing.
pub const SMALL: usize = 16;

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

/// A hash-table slot, 8 bytes: the low 32 bits of the name's SipHash, which place it and
/// are compared before its bytes, and its index in `names` plus one (0: empty).
#[derive(Clone, Copy, Default)]
struct Slot {
    hash: u32,
    index: u32,
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
        None => head_of(input.get(start..end).unwrap_or_default()),
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
pub struct NameSets {
    names: Vec<Name>,
    top: Frame,
    outer: Vec<Frame>,
    arena: Vec<u8>,
    tables: Vec<Vec<Slot>>,
    spare: Vec<Vec<Slot>>,
    key: [u64; 2],
    /// True while `key` is [`DEFAULT_HASH_KEY`], which anyone can read: the first switch
    /// to hashing replaces it with [`document_key`] (`spec/json.md` §5).
    derive_key: bool,
}

impl NameSets {
    /// An empty set of sets, hashing under `key`; under a key derived from the input when
    /// `key` is [`DEFAULT_HASH_KEY`] (`spec/json.md` §5).
    pub fn new(key: [u64; 2]) -> Self {
        NameSets {
            names: Vec::new(),
            top: EMPTY,
            outer: Vec::new(),
            arena: Vec::new(),
            tables: Vec::new(),
            spare: Vec::new(),
            key,
            derive_key: key == DEFAULT_HASH_KEY,
        }
    }

    /// Starts the name set of a newly opened object.
    #[inline]
    pub fn open(&mut self) {
        self.outer.push(self.top);
        self.top = Frame {
            first: self.names.len(),
            seen: 0,
            arena_start: self.arena.len(),
            hashed: false,
            scan_end: self.names.len().saturating_add(SMALL),
        };
    }

    /// Forgets the names of the innermost object when it closes.
    #[inline]
    pub fn close(&mut self) {
        self.names.truncate(self.top.first);
        self.arena.truncate(self.top.arena_start);
        if self.top.hashed
            && let Some(mut t) = self.tables.pop()
        {
            t.clear();
            self.spare.push(t);
        }
        self.top = self.outer.pop().unwrap_or(EMPTY);
    }

    /// Adds a name to the innermost object. `raw` is the name's range in `input` when
    /// it has no escapes; otherwise `unescaped` holds its unescaped bytes.
    /// Returns false when an equal name is already there.
    #[inline(always)]
    pub fn insert(&mut self, input: &[u8], raw: (usize, usize), unescaped: Option<&[u8]>) -> bool {
        let arena_start = self.arena.len();
        // The name travels as three scalars until it is pushed: built as a `Name` here, it
        // would live on the stack and be copied into `names` with a 16-byte load over two
        // 8-byte stores, which cannot be forwarded and stalls every name.
        let (start, end, head) = match unescaped {
            None => (raw.0, raw.1, head_at(input, raw.0, raw.1)),
            Some(bytes) => {
                self.arena.extend_from_slice(bytes);
                // Input and arena are both in memory, so their lengths cannot overflow.
                (
                    input.len().saturating_add(arena_start),
                    input.len().saturating_add(self.arena.len()),
                    head_of(bytes),
                )
            }
        };
        let fresh = if self.names.len() < self.top.scan_end {
            self.insert_scanned(input, start, end, head)
        } else {
            if !self.top.hashed {
                self.switch_to_table(input);
            }
            self.insert_hashed(input, Name { start, end, head })
        };
        if !fresh {
            self.arena.truncate(arena_start);
        }
        fresh
    }

    fn bytes<'s>(&'s self, input: &'s [u8], n: &Name) -> &'s [u8] {
        // A name in the input ends before its closing quote, so it starts below the length.
        match n.start.checked_sub(input.len()) {
            None => input.get(n.start..n.end),
            Some(start) => self.arena.get(start..n.end.saturating_sub(input.len())),
        }
        .unwrap_or_default()
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
        let earlier = self.names.get(self.top.first..).unwrap_or_default();
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
        let mut table = self.spare.pop().unwrap_or_default();
        table.clear();
        table.resize(SMALL * 4, Slot::default());
        for (i, n) in self.names.iter().enumerate().skip(first) {
            place(&mut table, low32(siphash13(self.key, self.bytes(input, n))), i);
        }
        self.tables.push(table);
        self.top.hashed = true;
        self.top.scan_end = 0;
    }

    fn insert_hashed(&mut self, input: &[u8], name: Name) -> bool {
        let new = self.bytes(input, &name);
        let hash = low32(siphash13(self.key, new));
        let Some(table) = self.tables.last() else {
            return true;
        };
        let mask = table.len().saturating_sub(1);
        let mut slot = hash_slot(hash, mask);
        // Linear probing over a table at most half full: the probe ends at an empty slot.
        while let Some(&entry) = table.get(slot) {
            let Some(index) = usize::try_from(entry.index).ok().and_then(|e| e.checked_sub(1)) else {
                break;
            };
            if entry.hash == hash && self.names.get(index).is_some_and(|old| self.bytes(input, old) == new) {
                return false;
            }
            slot = (slot + 1) & mask;
        }
        let index = self.names.len();
        self.names.push(name);
        self.grow_if_needed(hash, index);
        true
    }

    /// Places name `index` and doubles the table when it would be more than half full,
    /// re-placing the slots from the hashes they hold into a new table, so that growing
    /// holds the old table and the new one, nothing else.
    fn grow_if_needed(&mut self, hash: u32, index: usize) {
        let members = self.names.len().saturating_sub(self.top.first);
        let Some(table) = self.tables.last_mut() else {
            return;
        };
        if members.saturating_mul(2) > table.len() {
            let mut grown = alloc::vec![Slot::default(); table.len().saturating_mul(2)];
            for s in table.iter().filter(|s| s.index != 0) {
                place_slot(&mut grown, *s);
            }
            *table = grown;
        }
        place(table, hash, index);
    }
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

/// Stores name index `index` (plus one, so zero means empty) at its first free slot.
fn place(table: &mut [Slot], hash: u32, index: usize) {
    // Indices fit: inputs are at most `MAX_INPUT` (u32::MAX) bytes.
    if let Ok(index) = u32::try_from(index.saturating_add(1)) {
        place_slot(table, Slot { hash, index });
    }
}

fn place_slot(table: &mut [Slot], new: Slot) {
    let mask = table.len().saturating_sub(1);
    let mut slot = hash_slot(new.hash, mask);
    while let Some(entry) = table.get_mut(slot) {
        if entry.index == 0 {
            *entry = new;
            return;
        }
        slot = (slot + 1) & mask;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::collections::BTreeSet;
    use alloc::format;
    use alloc::vec::Vec;

    impl NameSets {
        /// The longest run of occupied slots in the innermost object's table: what the
        /// probe for a new name may have to walk.
        fn longest_run(&self) -> usize {
            let table = self.tables.last().map(Vec::as_slice).unwrap_or_default();
            let mut longest = 0;
            let mut run = 0;
            for slot in table {
                run = if slot.index == 0 { 0 } else { run + 1 };
                longest = longest.max(run);
            }
            longest
        }
    }

    /// Names chosen so that their SipHash under the public [`DEFAULT_HASH_KEY`] starts
    /// probing in the first 64 slots of the table must not pile up into one run, which
    /// would make each insertion walk all earlier names (quadratic time): a set without a
    /// key of its own hashes under the key of the whole input (`spec/json.md` §5).
    #[test]
    fn names_chosen_for_the_default_key_do_not_cluster() {
        let n = 2000;
        let mut input = Vec::new();
        let mut ranges = Vec::new();
        let mut c = 0u64;
        while ranges.len() < n {
            let name = format!("{c:x}");
            c += 1;
            // 2000 names fill a 4096-slot table at most half: 12 bits of the hash choose the slot.
            if siphash13(DEFAULT_HASH_KEY, name.as_bytes()) & 0xFFF < 64 {
                let start = input.len();
                input.extend_from_slice(name.as_bytes());
                ranges.push((start, input.len()));
                input.push(b',');
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

    /// A tiny deterministic generator, so the test needs no dependency.
    fn next(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    /// Inserts the name at `range` of `input`, every third time (by `k`) as if it had had
    /// escapes, so that it is held in the arena; the set must not care where a name lives.
    fn insert(sets: &mut NameSets, input: &[u8], range: (usize, usize), k: usize) -> bool {
        if k.is_multiple_of(3) {
            sets.insert(input, (0, 0), Some(input.get(range.0..range.1).unwrap_or_default()))
        } else {
            sets.insert(input, range, None)
        }
    }

    /// NameSets agrees with a plain set per object for names of every length around the
    /// 8-byte head, in the direct-compare and hashed regimes, with an enclosing object (in
    /// either regime) whose names must survive the inner object's close (`spec/json.md` §5).
    #[test]
    fn duplicate_answers_match_a_plain_set() {
        let mut rng = 0x9E37_79B9_7F4A_7C15u64;
        for round in 0..400 {
            let members = usize::try_from(next(&mut rng) % 48).unwrap_or(0);
            let mut input = Vec::new();
            let mut ranges = Vec::new();
            for _ in 0..members * 2 + 2 {
                let len = usize::try_from(next(&mut rng) % 11).unwrap_or(0);
                let start = input.len();
                // Few distinct letters, so equal names (and equal heads) are common.
                input.extend((0..len).map(|_| b'a' + (next(&mut rng) % 2) as u8));
                ranges.push((start, input.len()));
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
                (SMALL + 4).min(ranges.len())
            } else {
                2
            };
            let (outer_first, inner) = ranges.split_at(outer_count);
            for (k, &(s, e)) in outer_first.iter().enumerate() {
                let fresh = insert(&mut sets, &input, (s, e), k);
                assert_eq!(fresh, outer_reference.insert(input.get(s..e).unwrap_or_default()));
            }
            sets.open();
            let mut reference = BTreeSet::new();
            for (k, &(s, e)) in inner.iter().enumerate() {
                let fresh = insert(&mut sets, &input, (s, e), k + usize::try_from(round).unwrap_or(0));
                assert_eq!(
                    fresh,
                    reference.insert(input.get(s..e).unwrap_or_default()),
                    "round {round}"
                );
            }
            sets.close();
            for (k, &(s, e)) in outer_first.iter().enumerate() {
                assert!(
                    !insert(&mut sets, &input, (s, e), k + 1),
                    "outer names survive the inner close"
                );
            }
            sets.close();
        }
    }
}
