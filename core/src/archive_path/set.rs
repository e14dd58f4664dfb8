//! Duplicate and conflicting paths in linear time (`spec/mpk.md` §2.7).

use crate::invariant;
use crate::json::siphash13;
use alloc::vec::Vec;
use core::fmt;

/// Why a path could not join the set (`spec/mpk.md` §2.7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetError {
    /// Equal, after ASCII case folding, to an earlier path.
    Duplicate,
    /// A file where a directory is, or a path under a file.
    Conflict,
    /// More distinct segments than the set can index (2^32 − 2).
    Full,
}

impl fmt::Display for SetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SetError::Duplicate => "duplicate normalized path",
            SetError::Conflict => "path conflicts with a file or directory of another entry",
            SetError::Full => "too many distinct paths",
        })
    }
}

impl core::error::Error for SetError {}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    File,
    Dir,
}

#[derive(Clone, Copy, Debug)]
struct Node {
    parent: u32,
    start: usize,
    len: usize,
    hash: u64,
    kind: Kind,
}

/// The normalised paths of one archive as a trie of (parent, folded segment) nodes in a
/// SipHash-keyed open-addressing table: each insert costs time linear in its path
/// (`spec/mpk.md` §2.7).
#[derive(Clone, Debug)]
pub struct PathSet {
    key: [u64; 2],
    nodes: Vec<Node>,
    table: Vec<u32>,
    arena: Vec<u8>,
}

impl PathSet {
    /// An empty set hashing under `key` (pass a per-process random key where one exists).
    pub fn new(key: [u64; 2]) -> Self {
        let root = Node {
            parent: 0,
            start: 0,
            len: 0,
            hash: 0,
            kind: Kind::Dir,
        };
        PathSet {
            key,
            nodes: alloc::vec![root],
            table: alloc::vec![0; 16],
            arena: Vec::new(),
        }
    }

    /// Adds a normalised path (from [`super::normalize`]) as a file or a directory.
    pub fn insert(&mut self, path: &str, is_dir: bool) -> Result<(), SetError> {
        let mut parent = 0u32;
        let mut segments = path.split('/').peekable();
        while let Some(segment) = segments.next() {
            let last = segments.peek().is_none();
            let (node, existed) = self.child(parent, segment)?;
            let kind = self.nodes.get(node as usize).map_or(Kind::Dir, |n| n.kind);
            match (last, existed, kind, is_dir) {
                // A path under a file.
                (false, true, Kind::File, _) => return Err(SetError::Conflict),
                (true, true, Kind::Dir, true) => {}
                (true, true, Kind::File, false) => return Err(SetError::Duplicate),
                (true, true, _, _) => return Err(SetError::Conflict),
                (true, false, _, false) => self.set_kind(node, Kind::File),
                _ => {}
            }
            parent = node;
        }
        Ok(())
    }

    fn set_kind(&mut self, node: u32, kind: Kind) {
        if let Some(n) = self.nodes.get_mut(node as usize) {
            n.kind = kind;
        }
    }

    /// The child `segment` of `parent`, created as a directory if absent; true when it
    /// existed.
    fn child(&mut self, parent: u32, segment: &str) -> Result<(u32, bool), SetError> {
        let folded_hash = self.hash(parent, segment);
        let mask = self.table.len() - 1;
        let mut slot = slot_of(folded_hash, mask);
        loop {
            let id = invariant::item(&self.table, slot);
            if id == 0 {
                break;
            }
            if self.is(id, parent, segment, folded_hash) {
                return Ok((id, true));
            }
            slot = (slot + 1) & mask;
        }
        let id = u32::try_from(self.nodes.len())
            .ok()
            .filter(|&i| i < u32::MAX)
            .ok_or(SetError::Full)?;
        let start = self.arena.len();
        self.arena.extend(segment.bytes().map(|b| b.to_ascii_lowercase()));
        self.nodes.push(Node {
            parent,
            start,
            len: segment.len(),
            hash: folded_hash,
            kind: Kind::Dir,
        });
        if let Some(s) = self.table.get_mut(slot) {
            *s = id;
        }
        if self.nodes.len() * 2 > self.table.len() {
            self.grow();
        }
        Ok((id, false))
    }

    fn is(&self, id: u32, parent: u32, segment: &str, hash: u64) -> bool {
        let Some(n) = self.nodes.get(id as usize) else {
            return false;
        };
        n.hash == hash
            && n.parent == parent
            && n.len == segment.len()
            && self
                .arena
                .get(n.start..n.start + n.len)
                .is_some_and(|s| s.eq_ignore_ascii_case(segment.as_bytes()))
    }

    fn hash(&self, parent: u32, segment: &str) -> u64 {
        let mut folded = [0u8; 64];
        let key = [self.key[0] ^ u64::from(parent), self.key[1]];
        if let Some(buf) = folded.get_mut(..segment.len()) {
            buf.copy_from_slice(segment.as_bytes());
            buf.make_ascii_lowercase();
            return siphash13(key, buf);
        }
        let owned: Vec<u8> = segment.bytes().map(|b| b.to_ascii_lowercase()).collect();
        siphash13(key, &owned)
    }

    fn grow(&mut self) {
        let size = self.table.len() * 2;
        let mut table = alloc::vec![0u32; size];
        let mask = size - 1;
        for (id, n) in self.nodes.iter().enumerate().skip(1) {
            let mut slot = slot_of(n.hash, mask);
            while table.get(slot).is_some_and(|&s| s != 0) {
                slot = (slot + 1) & mask;
            }
            if let (Some(s), Ok(id)) = (table.get_mut(slot), u32::try_from(id)) {
                *s = id;
            }
        }
        self.table = table;
    }
}

/// The home slot of `hash` in a table of `mask + 1` slots (also on 32-bit targets).
fn slot_of(hash: u64, mask: usize) -> usize {
    usize::try_from(hash & mask as u64).unwrap_or(0)
}
