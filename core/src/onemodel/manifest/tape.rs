//! The manifest as a flat tape (`spec/onemodel.md` §1.2, §3.3): one pass of the strict
//! pull parser ([`json::Parser`]) records every token in one vector, with each container
//! linked to the end of its contents. Names, strings and number lexemes are borrowed from
//! the manifest bytes (only strings with escapes are unescaped, into a side list), so
//! reading a manifest costs one growing vector instead of one allocation per value.
//! The manifest reader walks the tape through [`super::cursor::Cursor`] exactly as it would
//! walk an owned [`json::Value`]: same members, same order, same paths and offsets.

use crate::invariant;
use crate::json::{self, JsonType, Parser, Str, Token};
use alloc::string::String;
use alloc::vec::Vec;

/// One token of the manifest, 16 bytes. Offsets are byte offsets in the manifest; a
/// string's or name's text starts just after its opening quote at `offset` and ends
/// before `end`; a number's lexeme is `offset..end`.
#[derive(Clone, Copy, Debug)]
enum Item {
    /// `{`: the index just past its last member, and the [`name_bit`]s of its member names.
    Object { offset: u32, end: u32, names: u32 },
    /// `[`: the index just past its last element, and its element count.
    Array { offset: u32, end: u32, len: u32 },
    /// A member name without escapes; the member's value follows.
    Name { offset: u32, end: u32 },
    /// A member name with escapes: its unescaped text is `escaped[index]`.
    EscapedName { index: u32 },
    /// A string value without escapes.
    String { offset: u32, end: u32 },
    /// A string value with escapes: its unescaped text is `escaped[index]`.
    EscapedString { offset: u32, index: u32 },
    /// A number.
    Number { offset: u32, end: u32 },
    /// `true`, `false` or `null` (`None`).
    Literal { offset: u32, value: Option<bool> },
}

/// The whole manifest, checked by the strict parser, as a tape.
#[derive(Debug)]
pub(crate) struct Tape<'a> {
    text: &'a str,
    items: Items,
    escaped: Vec<String>,
}

/// log2 of the items in a chunk of [`Items`]: 4096 items of 16 bytes, 64 KiB.
const CHUNK_SHIFT: u32 = 12;
const CHUNK: usize = 1 << CHUNK_SHIFT;

/// The tape's items in chunks of [`CHUNK`], every chunk but the one being filled full, so
/// that item `i` is item `i % CHUNK` of chunk `i / CHUNK` (§3.3). Only the first chunk
/// grows, doubling from a power of two up to a whole chunk, so a small manifest's tape stays
/// small; a full chunk is never copied. The items take 16 bytes each plus at most one
/// chunk, where one doubling vector may hold twice its items' bytes and, while it grows,
/// three times.
#[derive(Debug)]
struct Items {
    /// The full chunks, [`CHUNK`] items each.
    full: Vec<Vec<Item>>,
    /// The chunk being filled: the first starts at a power of two and doubles up to
    /// [`CHUNK`]; later ones are reserved whole.
    current: Vec<Item>,
}

impl Items {
    /// The items of a manifest of `len` bytes. The first chunk is reserved for about one
    /// token per two bytes (a member such as `"a":1,` is two tokens in six bytes), rounded
    /// up to a power of two and at most a whole chunk; a larger manifest adds chunks as it
    /// is read rather than reserving for its length.
    fn for_manifest(len: usize) -> Items {
        Items {
            full: Vec::new(),
            current: Vec::with_capacity((len / 2).clamp(1, CHUNK).next_power_of_two()),
        }
    }

    fn len(&self) -> usize {
        (self.full.len() << CHUNK_SHIFT).saturating_add(self.current.len())
    }

    #[inline(always)]
    fn push(&mut self, item: Item) {
        if self.current.len() == CHUNK {
            let next = Vec::with_capacity(CHUNK);
            self.full.push(core::mem::replace(&mut self.current, next));
        }
        self.current.push(item);
    }

    #[inline(always)]
    fn get(&self, i: usize) -> Option<&Item> {
        let (c, j) = (i >> CHUNK_SHIFT, i & (CHUNK - 1));
        match self.full.get(c) {
            Some(chunk) => chunk.get(j),
            None if c == self.full.len() => self.current.get(j),
            None => None,
        }
    }

    fn get_mut(&mut self, i: usize) -> Option<&mut Item> {
        let (c, j) = (i >> CHUNK_SHIFT, i & (CHUNK - 1));
        let last = self.full.len();
        match self.full.get_mut(c) {
            Some(chunk) => chunk.get_mut(j),
            None if c == last => self.current.get_mut(j),
            None => None,
        }
    }
}

/// A value on a tape: the index of its first item.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Val<'v> {
    tape: &'v Tape<'v>,
    at: u32,
}

/// The manifest is at most [`json::MAX_INPUT`] (u32::MAX) bytes, so every offset and every
/// item index (one item per token, at least one byte each) fits in 32 bits.
fn small(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn wide(n: u32) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// An open container while the tape is built: its item, whether it is an array, and for
/// an array its element count so far, for an object the [`name_bit`]s of its names so far.
struct Open {
    at: usize,
    array: bool,
    count_or_names: u32,
}

/// One of 32 bits for a member name, from its length and first and last bytes: an object
/// whose names' bits do not include a name's bit has no member of that name, so a lookup
/// of an absent optional member (the common miss) needs no scan. Names with escapes set
/// every bit.
pub(crate) fn name_bit(name: &[u8]) -> u32 {
    let (first, last) = (name.first().copied().unwrap_or(0), name.last().copied().unwrap_or(0));
    bit_of(name.len(), first, last)
}

/// [`name_bit`] from a name's length and first and last bytes. The hash wraps: a name may be
/// as long as the manifest (up to [`json::MAX_INPUT`] bytes), and no length may overflow it.
fn bit_of(len: usize, first: u8, last: u8) -> u32 {
    let h = small(len)
        .wrapping_mul(31)
        .wrapping_add(u32::from(first))
        .wrapping_add(u32::from(last) << 1);
    1 << (h & 31)
}

/// Records the parser's tokens on a tape: the [`json::Sink`] of [`Tape::parse`].
struct Builder<'a> {
    manifest: &'a [u8],
    tape: Tape<'a>,
    /// The containers open at the current token, innermost last.
    open: Vec<Open>,
}

impl Builder<'_> {
    /// Counts a value as one more element of the innermost container if that is an array.
    #[inline(always)]
    fn count_element(&mut self) {
        if let Some(o) = self.open.last_mut()
            && o.array
        {
            o.count_or_names += 1;
        }
    }
}

impl<'a> json::Sink<'a> for Builder<'a> {
    #[inline(always)]
    fn open(&mut self, at: usize, object: bool) {
        self.count_element();
        let offset = small(at);
        self.open.push(Open {
            at: self.tape.items.len(),
            array: !object,
            count_or_names: 0,
        });
        self.tape.items.push(if object {
            Item::Object {
                offset,
                end: 0,
                names: 0,
            }
        } else {
            Item::Array { offset, end: 0, len: 0 }
        });
    }

    #[inline(always)]
    fn close(&mut self, _: usize) {
        let end = small(self.tape.items.len());
        if let Some(o) = self.open.pop()
            && let Some(Item::Object { end: e, names: n, .. } | Item::Array { end: e, len: n, .. }) =
                self.tape.items.get_mut(o.at)
        {
            (*e, *n) = (end, o.count_or_names);
        }
    }

    #[inline(always)]
    fn name(&mut self, at: usize, s: Str<'a>) {
        let offset = small(at);
        let (name, bit) = match self.tape.escape(s) {
            Some(index) => (Item::EscapedName { index }, u32::MAX),
            None => {
                let end = small(s.end());
                let raw = invariant::sub(self.manifest, at.saturating_add(1)..s.end());
                (Item::Name { offset, end }, name_bit(raw))
            }
        };
        if let Some(o) = self.open.last_mut() {
            o.count_or_names |= bit;
        }
        self.tape.items.push(name);
    }

    #[inline(always)]
    fn scalar(&mut self, at: usize, token: Token<'a>) {
        let offset = small(at);
        let item = match token {
            Token::String(s) => match self.tape.escape(s) {
                Some(index) => Item::EscapedString { offset, index },
                None => Item::String {
                    offset,
                    end: small(s.end()),
                },
            },
            Token::Number(n) => Item::Number {
                offset,
                end: small(n.end()),
            },
            Token::Bool(b) => Item::Literal { offset, value: Some(b) },
            Token::Null => Item::Literal { offset, value: None },
            // Containers and names come through `open`, `close` and `name`.
            _ => return,
        };
        self.count_element();
        self.tape.items.push(item);
    }
}

impl<'a> Tape<'a> {
    /// Parses `manifest` with the strict parser (`spec/json.md`: size, depth, UTF-8,
    /// grammar, escapes, duplicate names) and records its tokens, through the same loop as
    /// [`json::validate`]. The first JSON failure is returned exactly as
    /// [`json::parse`] would return it.
    pub(crate) fn parse(manifest: &'a [u8], limits: json::Limits) -> Result<Tape<'a>, json::Error> {
        let mut parser = Parser::new(manifest, limits)?;
        let mut builder = Builder {
            manifest,
            tape: Tape {
                text: parser.text(),
                items: Items::for_manifest(manifest.len()),
                escaped: Vec::new(),
            },
            open: Vec::new(),
        };
        parser.read_into(&mut builder)?;
        Ok(builder.tape)
    }

    /// For a string or name with escapes: unescapes it into the side list and returns its
    /// index there.
    #[inline(always)]
    fn escape(&mut self, s: Str<'a>) -> Option<u32> {
        if !s.has_escapes() {
            return None;
        }
        Some(self.unescape(s))
    }

    /// The unescaping part of [`Tape::escape`], out of line: few strings have escapes.
    #[inline(never)]
    fn unescape(&mut self, s: Str<'a>) -> u32 {
        let mut text = String::new();
        s.unescape_into(&mut text);
        self.escaped.push(text);
        small(self.escaped.len() - 1)
    }

    /// The manifest text.
    pub(crate) fn text(&self) -> &'a str {
        self.text
    }

    /// The top-level value.
    pub(crate) fn root(&self) -> Val<'_> {
        Val { tape: self, at: 0 }
    }
}

/// Byte equality of two slices, eight bytes at a time, then byte by byte: member and value
/// names are a few bytes long, where a library `memcmp` call costs more than the
/// comparison (on the machines of the benchmark log, `git log -p -- cli/benches/HISTORY.md`,
/// "OneModel names without memcmp", many times more).
pub(crate) fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let word = |s: &[u8]| s.first_chunk::<8>().map(|w| u64::from_le_bytes(*w));
    let (mut a, mut b) = (a, b);
    while let (Some(x), Some(y)) = (word(a), word(b)) {
        if x != y {
            return false;
        }
        (a, b) = (invariant::sub(a, 8..), invariant::sub(b, 8..));
    }
    a.iter().zip(b).all(|(x, y)| x == y)
}

/// The elements of an array, or the members of an object, from a position on.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Children<'v> {
    tape: &'v Tape<'v>,
    /// The index of the next element (or member name).
    next: u32,
    /// The index just past the container's last item.
    end: u32,
}

impl<'v> Children<'v> {
    /// No children.
    pub(crate) fn empty(tape: &'v Tape<'v>) -> Self {
        Children { tape, next: 0, end: 0 }
    }

    /// Just `value`, as the only element of a list (a GRAPH attribute's one graph).
    pub(crate) fn one(value: Val<'v>) -> Self {
        Children {
            tape: value.tape,
            next: value.at,
            end: value.skip(),
        }
    }

    /// The next array element.
    pub(crate) fn next_value(&mut self) -> Option<Val<'v>> {
        if self.next >= self.end {
            return None;
        }
        let v = Val {
            tape: self.tape,
            at: self.next,
        };
        self.next = v.skip();
        Some(v)
    }

    /// The next object member: its name and value.
    #[inline]
    pub(crate) fn next_member(&mut self) -> Option<(&'v str, Val<'v>)> {
        if self.next >= self.end {
            return None;
        }
        let v = Val {
            tape: self.tape,
            at: self.next + 1,
        };
        let name = self.tape.name(self.next);
        self.next = v.skip();
        Some((name, v))
    }

    /// Moves to the member at tape index `at` (one this list reached before).
    pub(crate) fn skip_to(&mut self, at: u32) {
        self.next = at.min(self.end);
    }

    /// The member `name` of the object these are the members of, looked for from this
    /// position to the end and then from `first` (the object's first member) on; with the
    /// position just past the member found. Readers that look members up in the order the
    /// writer put them find each at the first try.
    pub(crate) fn find(&self, first: u32, name: &str) -> Option<(Val<'v>, u32)> {
        let mut at = Children {
            next: self.next,
            ..*self
        };
        let mut wrapped = false;
        loop {
            if at.next >= at.end {
                if wrapped || first >= self.next {
                    return None;
                }
                (at.next, at.end, wrapped) = (first, self.next, true);
                continue;
            }
            if self.tape.name_is(at.next, name) {
                let v = Val {
                    tape: self.tape,
                    at: at.next + 1,
                };
                return Some((v, v.skip()));
            }
            at.next = Val {
                tape: self.tape,
                at: at.next + 1,
            }
            .skip();
        }
    }
}

impl<'v> Tape<'v> {
    fn item(&self, at: u32) -> Option<&Item> {
        self.items.get(wide(at))
    }

    fn escaped(&self, index: u32) -> &str {
        self.escaped.get(wide(index)).map_or("", String::as_str)
    }

    /// The text of a string or name opening at `offset` and ending before `end`.
    fn quoted(&self, offset: u32, end: u32) -> &str {
        invariant::sub_str(self.text, wide(offset).saturating_add(1)..wide(end))
    }

    fn name(&self, at: u32) -> &str {
        match self.item(at) {
            Some(&Item::Name { offset, end }) => self.quoted(offset, end),
            Some(&Item::EscapedName { index }) => self.escaped(index),
            _ => "",
        }
    }

    /// True when the name at `at` is `name`; the length is compared first.
    fn name_is(&self, at: u32, name: &str) -> bool {
        match self.item(at) {
            Some(&Item::Name { offset, end }) => {
                wide(end.saturating_sub(offset)) == name.len().saturating_add(1)
                    && self
                        .text
                        .as_bytes()
                        .get(wide(offset).saturating_add(1)..wide(end))
                        .is_some_and(|text| same(text, name.as_bytes()))
            }
            Some(&Item::EscapedName { index }) => self.escaped(index) == name,
            _ => false,
        }
    }
}

impl<'v> Val<'v> {
    /// The tape the value is on.
    pub(crate) fn tape(&self) -> &'v Tape<'v> {
        self.tape
    }

    fn item(&self) -> Option<&'v Item> {
        self.tape.item(self.at)
    }

    /// The index just past this value (its next sibling, if any).
    fn skip(&self) -> u32 {
        match self.item() {
            Some(Item::Object { end, .. } | Item::Array { end, .. }) => *end,
            _ => self.at + 1,
        }
    }

    /// Offset of the value's first byte in the manifest.
    pub(crate) fn offset(&self) -> usize {
        let offset = match self.item() {
            Some(
                Item::Object { offset, .. }
                | Item::Array { offset, .. }
                | Item::String { offset, .. }
                | Item::EscapedString { offset, .. }
                | Item::Number { offset, .. }
                | Item::Literal { offset, .. },
            ) => *offset,
            _ => 0,
        };
        wide(offset)
    }

    /// The JSON type of the value.
    pub(crate) fn json_type(&self) -> JsonType {
        match self.item() {
            Some(Item::Object { .. }) => JsonType::Object,
            Some(Item::Array { .. }) => JsonType::Array,
            Some(Item::String { .. } | Item::EscapedString { .. }) => JsonType::String,
            Some(Item::Number { .. }) => JsonType::Number,
            Some(Item::Literal { value: Some(_), .. }) => JsonType::Bool,
            _ => JsonType::Null,
        }
    }

    /// The [`name_bit`]s of an object's member names.
    pub(crate) fn names(&self) -> u32 {
        match self.item() {
            Some(Item::Object { names, .. }) => *names,
            _ => 0,
        }
    }

    /// The members of an object, in document order.
    pub(crate) fn members(&self) -> Option<Children<'v>> {
        match self.item() {
            Some(Item::Object { end, .. }) => Some(self.children(*end)),
            _ => None,
        }
    }

    /// The index of the first member (or element) of a container.
    pub(crate) fn first(&self) -> u32 {
        self.at + 1
    }

    /// The elements of an array and their number.
    pub(crate) fn elements(&self) -> Option<(Children<'v>, usize)> {
        match self.item() {
            Some(Item::Array { end, len, .. }) => Some((self.children(*end), wide(*len))),
            _ => None,
        }
    }

    fn children(&self, end: u32) -> Children<'v> {
        Children {
            tape: self.tape,
            next: self.at + 1,
            end,
        }
    }

    /// The member `name` of an object (names are unique, `spec/json.md` §5).
    pub(crate) fn get(&self, name: &str) -> Option<Val<'v>> {
        if self.names() & name_bit(name.as_bytes()) == 0 {
            return None;
        }
        self.members()?.find(self.first(), name).map(|(v, _)| v)
    }

    /// Element `index` of an array (linear: only for locating a failure).
    pub(crate) fn index(&self, index: usize) -> Option<Val<'v>> {
        let (mut items, _) = self.elements()?;
        for _ in 0..index {
            items.next_value()?;
        }
        items.next_value()
    }

    /// The string, if this is a string.
    pub(crate) fn as_str(&self) -> Option<&'v str> {
        match self.item() {
            Some(&Item::String { offset, end }) => Some(self.tape.quoted(offset, end)),
            Some(&Item::EscapedString { index, .. }) => Some(self.tape.escaped(index)),
            _ => None,
        }
    }

    /// Where a string without escapes has its text in the manifest (between its quotes);
    /// `None` for anything else.
    pub(crate) fn span(&self) -> Option<core::ops::Range<usize>> {
        match self.item() {
            Some(&Item::String { offset, end }) => Some(wide(offset).saturating_add(1)..wide(end)),
            _ => None,
        }
    }

    /// The number's lexeme, if this is a number.
    pub(crate) fn lexeme(&self) -> Option<&'v str> {
        match self.item() {
            Some(&Item::Number { offset, end }) => self.tape.text.get(wide(offset)..wide(end)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;
    use alloc::string::ToString;
    use alloc::vec;

    fn tape(doc: &str) -> Tape<'_> {
        Tape::parse(doc.as_bytes(), json::Limits::DEFAULT).unwrap()
    }

    /// Containers skip exactly their contents, at every depth; offsets, counts, escaped
    /// names and strings come out as the owned value has them.
    #[test]
    fn tape_agrees_with_the_owned_value() {
        let doc = r#"{"a":[1,[2,3],{}],"b\u0041":{"c":"x\n","d":[],"e":{"f":[[],[7]]}},"g":[{"h":null,"i":true}]}"#;
        let t = tape(doc);
        let v = json::parse(doc.as_bytes(), json::Limits::DEFAULT).unwrap();
        let root = t.root();
        let a = root.get("a").unwrap();
        assert_eq!(a.elements().unwrap().1, 3);
        assert_eq!(a.index(1).unwrap().elements().unwrap().1, 2);
        assert_eq!(a.index(2).unwrap().json_type(), JsonType::Object);
        assert!(a.index(3).is_none());
        let b = root.get("bA").unwrap();
        assert_eq!(b.offset(), v.get("bA").unwrap().offset);
        assert_eq!(b.get("c").unwrap().as_str(), Some("x\n"));
        let f = b.get("e").unwrap().get("f").unwrap();
        assert_eq!(
            f.offset(),
            v.get("bA").unwrap().get("e").unwrap().get("f").unwrap().offset
        );
        assert_eq!(f.index(1).unwrap().index(0).unwrap().lexeme(), Some("7"));
        let g = root.get("g").unwrap().index(0).unwrap();
        assert_eq!(g.get("h").unwrap().json_type(), JsonType::Null);
        assert_eq!(g.get("i").unwrap().json_type(), JsonType::Bool);
        assert!(root.get("b").is_none() && root.get("h").is_none());
    }

    /// A tape of many chunks reads as the owned value does across every chunk boundary:
    /// containers that open in one chunk and close chunks later, their element counts, and
    /// the values on either side of each boundary; every chunk but the last is full, and
    /// the first grew to a whole chunk. A small manifest's tape is one chunk of the power of
    /// two its length reserves.
    #[test]
    fn a_tape_of_many_chunks_agrees_with_the_owned_value() {
        let numbers: Vec<String> = (0..3 * CHUNK + 5).map(|i| i.to_string()).collect();
        let nested: Vec<String> = (0..CHUNK).map(|i| format!("{{\"k\":[{i}]}}")).collect();
        let doc = format!(
            r#"{{"a":[{}],"b":[{}],"c":"end"}}"#,
            numbers.join(","),
            nested.join(",")
        );
        let t = tape(&doc);
        let full = &t.items.full;
        assert!(full.len() > 3 && full.iter().all(|c| c.len() == CHUNK && c.capacity() == CHUNK));
        assert_eq!(full.len() * CHUNK + t.items.current.len(), t.items.len());
        let v = json::parse(doc.as_bytes(), json::Limits::DEFAULT).unwrap();
        let root = t.root();
        let a = root.get("a").unwrap();
        assert_eq!(a.elements().unwrap().1, 3 * CHUNK + 5);
        for i in [0, CHUNK - 3, CHUNK - 2, CHUNK - 1, CHUNK, 2 * CHUNK - 2, 3 * CHUNK + 4] {
            let n = i.to_string();
            assert_eq!(a.index(i).unwrap().lexeme(), Some(n.as_str()));
        }
        let b = root.get("b").unwrap();
        assert_eq!(b.offset(), v.get("b").unwrap().offset);
        assert_eq!(b.elements().unwrap().1, CHUNK);
        let last = b.index(CHUNK - 1).unwrap().get("k").unwrap();
        assert_eq!(last.index(0).unwrap().lexeme(), Some((CHUNK - 1).to_string().as_str()));
        assert_eq!(root.get("c").unwrap().as_str(), Some("end"));
        assert_eq!(root.get("c").unwrap().offset(), v.get("c").unwrap().offset);
        // A container that opens just as the second chunk is full: item 2 * CHUNK.
        let zeros = vec!["0"; 2 * CHUNK - 1].join(",");
        let edge = format!("[{zeros},[7,8]]");
        let t = tape(&edge);
        let inner = t.root().index(2 * CHUNK - 1).unwrap();
        assert_eq!(inner.elements().unwrap().1, 2);
        assert_eq!(inner.index(1).unwrap().lexeme(), Some("8"));
        let small = tape(r#"{"a":[1,2,3]}"#);
        assert_eq!((small.items.full.len(), small.items.current.capacity()), (0, 8));
    }

    /// The name filter never hides a member: escaped names set every bit, and a name whose
    /// bit is absent is absent.
    #[test]
    fn name_filter_keeps_escaped_names() {
        let t = tape(r#"{"\u0064oc":1,"name":2}"#);
        let root = t.root();
        assert_eq!(root.get("doc").unwrap().lexeme(), Some("1"));
        assert_eq!(root.get("name").unwrap().lexeme(), Some("2"));
        let plain = tape(r#"{"name":2}"#);
        assert_eq!(plain.root().names(), name_bit(b"name"));
        assert!(plain.root().get("doc").is_none());
    }

    /// A name long enough that its length times 31 wraps to just under 2^32 (138,547,321
    /// bytes of `z`: 4,294,966,951 + 122 + 244 = 2^32 + 21) hashes without an overflow, as
    /// does every length up to the largest.
    #[test]
    fn name_bit_wraps_for_long_names() {
        assert_eq!(bit_of(138_547_321, b'z', b'z'), 1 << 21);
        for len in [usize::MAX, 0xffff_ffff] {
            assert_eq!(bit_of(len, 0xff, 0xff).count_ones(), 1);
        }
        assert_eq!(name_bit(b"zz"), bit_of(2, b'z', b'z'));
        assert_eq!(name_bit(b""), 1);
    }

    /// A lookup that starts after a member finds it by wrapping around to the first member,
    /// and reports where the next lookup should start.
    #[test]
    fn lookups_wrap_around() {
        let t = tape(r#"{"a":1,"b":{"x":[1,2]},"c":3}"#);
        let root = t.root();
        let first = root.first();
        let members = root.members().unwrap();
        let (b, after_b) = members.find(first, "b").unwrap();
        assert_eq!(b.get("x").unwrap().elements().unwrap().1, 2);
        let mut rest = members;
        rest.skip_to(after_b);
        let (c, after_c) = rest.find(first, "c").unwrap();
        assert_eq!(c.lexeme(), Some("3"));
        rest.skip_to(after_c);
        assert_eq!(rest.find(first, "a").unwrap().0.lexeme(), Some("1"));
        assert_eq!(rest.find(first, "b").unwrap().1, after_b);
        assert!(rest.find(first, "d").is_none());
    }

    /// JSON failures are the parser's, with its offsets.
    #[test]
    fn json_failures_are_the_parsers() {
        let docs = [
            r#"{"a":1,"a":2}"#,
            r#"{"a":[1,}"#,
            "[1] x",
            r#"{"a":"\ud800"}"#,
            r#"{"a" 1}"#,
            "[1,2",
            "",
            "\u{feff}{}",
            " { } \n x",
            "[\"\u{fffe}\"]",
            "{\"a\":\"\x01\"}",
        ];
        for doc in docs {
            let tape_err = Tape::parse(doc.as_bytes(), json::Limits::DEFAULT).unwrap_err();
            let value_err = json::parse(doc.as_bytes(), json::Limits::DEFAULT).unwrap_err();
            assert_eq!(tape_err, value_err, "{doc}");
        }
        let deep = json::Limits {
            max_depth: 3,
            ..json::Limits::DEFAULT
        };
        let doc = b"[[[[]]]]";
        let tape_err = Tape::parse(doc, deep).unwrap_err();
        assert_eq!(tape_err, json::parse(doc, deep).unwrap_err());
        let bad_utf8 = b"[\"a\", 1, \"\xff\"]";
        let tape_err = Tape::parse(bad_utf8, json::Limits::DEFAULT).unwrap_err();
        assert_eq!(tape_err, json::parse(bad_utf8, json::Limits::DEFAULT).unwrap_err());
    }
}
