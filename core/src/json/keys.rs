//! Duplicate member names, compared after unescaping, in time linear in the object size
//! (`spec/json.md` §5).
//!
//! Objects with few members (the usual case in manifests) compare each new name with the
//! earlier ones directly; at [`SMALL`] members an object switches to an open-addressing
//! table keyed with SipHash-1-3 under a caller-supplied secret, so crafted collisions
//! cannot make the check quadratic. Names are kept as ranges of the input (or of an arena
//! holding the unescaped form of names that had escapes), never copied otherwise.

use super::siphash::siphash13;
use alloc::vec::Vec;

/// Members an object may have before it switches from direct comparison to hashing.
pub const SMALL: usize = 16;

#[derive(Clone, Copy)]
struct Name {
    in_arena: bool,
    start: usize,
    end: usize,
    /// The first eight bytes, zero-padded: most unequal names differ here or in length,
    /// so the bytes themselves are compared only when both agree.
    head: u64,
    hash: u64,
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
    match input
        .get(start..start.saturating_add(8))
        .and_then(|w| <[u8; 8]>::try_from(w).ok())
    {
        Some(word) if len < 8 => u64::from_le_bytes(word) & ((1u64 << (8 * len)) - 1),
        Some(word) => u64::from_le_bytes(word),
        None => head_of(input.get(start..end).unwrap_or_default()),
    }
}

struct Frame {
    first: usize,
    /// While the object compares names directly: one bit per name, chosen by its length
    /// and head. A name whose bit is clear is certainly new, so the scan is skipped.
    seen: u64,
    arena_start: usize,
    /// Index into `tables` once the object has switched to hashing.
    table: Option<usize>,
}

/// The names of every open object, innermost last.
pub struct NameSets {
    names: Vec<Name>,
    frames: Vec<Frame>,
    arena: Vec<u8>,
    tables: Vec<Vec<u32>>,
    spare: Vec<Vec<u32>>,
    key: [u64; 2],
}

impl NameSets {
    /// An empty set of sets, hashing under `key`.
    pub fn new(key: [u64; 2]) -> Self {
        NameSets {
            names: Vec::new(),
            frames: Vec::new(),
            arena: Vec::new(),
            tables: Vec::new(),
            spare: Vec::new(),
            key,
        }
    }

    /// Starts the name set of a newly opened object.
    pub fn open(&mut self) {
        self.frames.push(Frame {
            first: self.names.len(),
            seen: 0,
            arena_start: self.arena.len(),
            table: None,
        });
    }

    /// Forgets the names of the innermost object when it closes.
    pub fn close(&mut self) {
        if let Some(frame) = self.frames.pop() {
            self.names.truncate(frame.first);
            self.arena.truncate(frame.arena_start);
            if frame.table.is_some()
                && let Some(mut t) = self.tables.pop()
            {
                t.clear();
                self.spare.push(t);
            }
        }
    }

    /// Adds a name to the innermost object. `raw` is the name's range in `input` when
    /// it has no escapes; otherwise `unescaped` holds its unescaped bytes.
    /// Returns false when an equal name is already there.
    #[inline(always)]
    pub fn insert(&mut self, input: &[u8], raw: (usize, usize), unescaped: Option<&[u8]>) -> bool {
        let name = match unescaped {
            None => Name {
                in_arena: false,
                start: raw.0,
                end: raw.1,
                head: head_at(input, raw.0, raw.1),
                hash: 0,
            },
            Some(bytes) => {
                let start = self.arena.len();
                self.arena.extend_from_slice(bytes);
                Name {
                    in_arena: true,
                    start,
                    end: self.arena.len(),
                    head: head_of(bytes),
                    hash: 0,
                }
            }
        };
        let Some(frame) = self.frames.last() else {
            return true;
        };
        let first = frame.first;
        let count = self.names.len().saturating_sub(first);
        let fresh = if frame.table.is_some() {
            self.insert_hashed(input, name)
        } else if count < SMALL {
            self.insert_scanned(input, name, first)
        } else {
            self.switch_to_table(input, first);
            self.insert_hashed(input, name)
        };
        if !fresh && name.in_arena {
            self.arena.truncate(name.start);
        }
        fresh
    }

    fn bytes<'s>(&'s self, input: &'s [u8], n: &Name) -> &'s [u8] {
        let src = if n.in_arena { self.arena.as_slice() } else { input };
        src.get(n.start..n.end).unwrap_or_default()
    }

    #[inline(always)]
    fn insert_scanned(&mut self, input: &[u8], name: Name, first: usize) -> bool {
        let bit = 1u64 << ((name.head ^ name.len() as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58);
        let Some(frame) = self.frames.last_mut() else {
            return true;
        };
        let maybe_seen = frame.seen & bit != 0;
        frame.seen |= bit;
        if maybe_seen {
            let new = self.bytes(input, &name);
            let earlier = self.names.get(first..).unwrap_or_default();
            let same = |n: &Name| n.head == name.head && n.len() == name.len() && self.bytes(input, n) == new;
            if earlier.iter().any(same) {
                return false;
            }
        }
        self.names.push(name);
        true
    }

    /// Moves the innermost object's names into a hash table (§5: linear time).
    fn switch_to_table(&mut self, input: &[u8], first: usize) {
        let mut table = self.spare.pop().unwrap_or_default();
        table.clear();
        table.resize(SMALL * 4, 0);
        for i in first..self.names.len() {
            if let Some(n) = self.names.get(i).copied() {
                let h = siphash13(self.key, self.bytes(input, &n));
                if let Some(slot) = self.names.get_mut(i) {
                    slot.hash = h;
                }
                place(&mut table, h, i);
            }
        }
        self.tables.push(table);
        if let Some(frame) = self.frames.last_mut() {
            frame.table = Some(self.tables.len().saturating_sub(1));
        }
    }

    fn insert_hashed(&mut self, input: &[u8], mut name: Name) -> bool {
        name.hash = siphash13(self.key, self.bytes(input, &name));
        let Some(table) = self.tables.last() else {
            return true;
        };
        let mask = table.len().saturating_sub(1);
        let mut slot = hash_slot(name.hash, mask);
        let new = self.bytes(input, &name);
        // Linear probing over a table at most half full: the probe ends at an empty slot.
        while let Some(&entry) = table.get(slot) {
            let Some(index) = usize::try_from(entry).ok().and_then(|e| e.checked_sub(1)) else {
                break;
            };
            if let Some(old) = self.names.get(index)
                && old.hash == name.hash
                && self.bytes(input, old) == new
            {
                return false;
            }
            slot = (slot + 1) & mask;
        }
        let index = self.names.len();
        self.names.push(name);
        self.grow_if_needed(index);
        true
    }

    /// Places name `index` and doubles the table when it would be more than half full.
    fn grow_if_needed(&mut self, index: usize) {
        let first = self.frames.last().map_or(0, |f| f.first);
        let members = self.names.len().saturating_sub(first);
        let Some(table) = self.tables.last_mut() else {
            return;
        };
        if members.saturating_mul(2) > table.len() {
            let len = table.len().saturating_mul(2);
            table.clear();
            table.resize(len, 0);
            for (i, n) in self.names.iter().enumerate().skip(first) {
                place(table, n.hash, i);
            }
        } else if let Some(n) = self.names.get(index) {
            place(table, n.hash, index);
        }
    }
}

#[allow(clippy::cast_possible_truncation)]
fn hash_slot(hash: u64, mask: usize) -> usize {
    // Only the low bits are used; on 32-bit targets the truncation is intended.
    (hash as usize) & mask
}

/// Stores name index `index` (plus one, so zero means empty) at its first free slot.
fn place(table: &mut [u32], hash: u64, index: usize) {
    let mask = table.len().saturating_sub(1);
    let mut slot = hash_slot(hash, mask);
    let Ok(value) = u32::try_from(index.saturating_add(1)) else {
        return;
    };
    while let Some(entry) = table.get_mut(slot) {
        if *entry == 0 {
            *entry = value;
            return;
        }
        slot = (slot + 1) & mask;
    }
}
