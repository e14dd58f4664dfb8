//! The direct read of a manifest (`spec/onemodel.md` §3.4): one pass over the manifest
//! text, no tape, for a manifest whose objects list their members in the order of §2's
//! tables, the order §4's writer writes them in. Each object's members are matched against
//! the rest of its table as they come, so a name can neither repeat (`spec/json.md` §5)
//! nor be unknown; strings and numbers are scanned by the strict tokenizer's own functions.
//!
//! The direct read only ever answers "here is the model" or "not read here" (`None`): it
//! reports nothing. Anything it does not read as the exact reader would (a member out of
//! table order or unknown, a name with an escape, a GRAPH or GRAPHS attribute, a
//! `sequence`, `map` or `optional` type, a member a type of its kind does not have, an
//! integer outside i64, and every failure) sends the manifest to the exact reader
//! ([`super::Reader`] over the tape), which gives the verdict and, for a failure, its
//! kind, path and offset. So the direct read can only make a valid manifest cheaper, never
//! change what any manifest reads as: where it gives a model, the exact reader gives an
//! equal one (the `onemodel` fuzz target and the tests below compare the two).

use super::tape::same;
use super::{ATTRIBUTE, DATA, DIM, ENTRY, FUNCTION, GRAPH, MODEL, NODE, OPSET, SPARSE, TENSOR, TYPE, TYPED_NAME};
use crate::json::{self, Parser, Str};
use crate::onemodel::model::*;
use crate::onemodel::region::Region;
use crate::onemodel::{base64, tensor, unique};
use alloc::borrow::Cow;
use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

/// `None`: not read here; the exact reader decides.
type D<T> = Option<T>;

/// Reads `manifest` against the data region `data` if it is written in table order
/// (§3.4); `None` otherwise, and for every manifest the exact reader rejects. `json` are
/// the manifest's JSON limits, `max_nesting` the graph and type nesting limit (§3.2): the
/// direct read reaches level 1 (the main graph, function bodies) and level 2 (their
/// types) and no deeper.
pub(crate) fn read<'a>(manifest: &'a [u8], data: Region<'a>, json: json::Limits, max_nesting: usize) -> D<Model<'a>> {
    if max_nesting < 1 {
        return None;
    }
    // Size, UTF-8 of the whole text and the byte-order mark (`spec/json.md` §1, §6).
    let parser = Parser::new(manifest, json).ok()?;
    let mut r = Direct {
        bytes: manifest,
        text: parser.text(),
        parser,
        pos: 0,
        depth: 0,
        max_depth: json.max_depth,
        data,
        types: max_nesting >= 2,
    };
    let model = r.model()?;
    // Only whitespace after the top-level value (`spec/json.md` §2).
    json::skip_space(manifest, r.pos).1.is_none().then_some(model)
}

/// The reader's place in the manifest.
struct Direct<'a> {
    bytes: &'a [u8],
    text: &'a str,
    /// The strict tokenizer, for its string scan (escapes, control characters,
    /// noncharacters; the text's UTF-8 was checked when it was made).
    parser: Parser<'a>,
    pos: usize,
    /// JSON containers open, against `max_depth` (`spec/json.md` §6).
    depth: usize,
    max_depth: usize,
    data: Region<'a>,
    /// Whether types (nesting level 2) are within the nesting limit.
    types: bool,
}

/// A table's member names (§2), each with the word that starts a member of that name: the
/// first eight bytes after the opening quote, as a little-endian integer, and the mask of
/// the bytes the name and its closing quote cover in them.
struct Names<const N: usize> {
    names: [&'static str; N],
    words: [(u64, u64); N],
}

impl<const N: usize> Names<N> {
    // Evaluated at compile time only (every use is a `const`): an index out of range would
    // fail the build, not panic.
    #[allow(clippy::indexing_slicing)]
    const fn new(names: [&'static str; N]) -> Self {
        let mut words = [(0, 0); N];
        let mut i = 0;
        while i < N {
            let name = names[i].as_bytes();
            let mut word = 0u64;
            let mut mask = 0u64;
            let mut b = 0;
            // The name's bytes, then its closing quote, as far as eight bytes reach.
            while b < 8 && b <= name.len() {
                let byte = if b < name.len() { name[b] } else { b'"' };
                word |= (byte as u64) << (8 * b);
                mask |= 0xff << (8 * b);
                b += 1;
            }
            words[i] = (word, mask);
            i += 1;
        }
        Names { names, words }
    }

    /// The index of the name, from `from` on, that `rest` (the text after an opening
    /// quote) starts with, followed by its closing quote. The names hold no `"` nor `\`,
    /// so a string that matches one up to its closing quote is exactly that name.
    #[inline(always)]
    fn find(&self, rest: &[u8], from: usize) -> D<usize> {
        let word = rest.first_chunk::<8>().map(|w| u64::from_le_bytes(*w));
        (from..N).find(|&i| {
            let (Some(name), Some(&(pattern, mask))) = (self.names.get(i), self.words.get(i)) else {
                return false;
            };
            let len = name.len();
            match word {
                // Up to seven bytes: the name and its quote lie in the word.
                Some(w) if len < 8 => w & mask == pattern,
                Some(w) if w != pattern => false,
                _ => rest.get(len) == Some(&b'"') && rest.get(..len).is_some_and(|n| same(n, name.as_bytes())),
            }
        })
    }
}

/// The tables' names with their words.
const MODEL_N: Names<10> = Names::new(MODEL);
const OPSET_N: Names<2> = Names::new(OPSET);
const ENTRY_N: Names<2> = Names::new(ENTRY);
const GRAPH_N: Names<9> = Names::new(GRAPH);
const TYPED_NAME_N: Names<4> = Names::new(TYPED_NAME);
const NODE_N: Names<9> = Names::new(NODE);
const ATTRIBUTE_N: Names<5> = Names::new(ATTRIBUTE);
const TENSOR_N: Names<7> = Names::new(TENSOR);
const DATA_N: Names<2> = Names::new(DATA);
const SPARSE_N: Names<3> = Names::new(SPARSE);
const TYPE_N: Names<7> = Names::new(TYPE);
const DIM_N: Names<3> = Names::new(DIM);
const FUNCTION_N: Names<12> = Names::new(FUNCTION);

/// A node before its members are read: absent names are `""` borrowed, as the exact reader
/// gives them.
fn new_node<'a>() -> Node<'a> {
    Node {
        name: Cow::Borrowed(""),
        op: Cow::Borrowed(""),
        domain: Cow::Borrowed(""),
        overload: Cow::Borrowed(""),
        ..Node::default()
    }
}

/// A tensor before its members are read (its name as [`new_node`]'s).
fn new_tensor<'a>() -> Tensor<'a> {
    Tensor {
        name: Cow::Borrowed(""),
        ..Tensor::default()
    }
}

/// Room to reserve in a list of tables after its first, which took `first` bytes, with
/// `left` bytes of the manifest after it: as many again as would fill the rest at that
/// size, and never more than 64 KiB of tables (as the exact reader's reservations, §3.3),
/// so that a long list grows at most a few times however its first table misleads. The
/// list gives back what it did not use when it ends, so only the few lists open at once
/// (a fixed number: graph, node, attribute) hold such room.
fn estimate<T>(first: usize, left: usize) -> usize {
    let size = core::mem::size_of::<T>().max(1);
    (left / first.max(1)).min(super::RESERVE_BYTES / size)
}

/// Most bytes of room a list read by [`Direct::list`] keeps beyond its elements: a list
/// grows by doubling, from four elements, so a node's one attribute (216 bytes) would
/// otherwise hold room for three more for as long as the model lives, where the exact
/// reader reserves each list at its length. Short lists of small elements (a node's
/// inputs, a tensor's dims) stay as they grew, without a second allocation.
const SLACK_BYTES: usize = 256;

/// True when every bit of `required` is in `seen`.
fn has(seen: u32, required: u32) -> D<()> {
    (seen & required == required).then_some(())
}

impl<'a> Direct<'a> {
    /// The next byte after whitespace, with the position on it.
    #[inline(always)]
    fn peek(&mut self) -> D<u8> {
        let (at, next) = json::skip_space(self.bytes, self.pos);
        self.pos = at;
        next
    }

    /// Opens the container `[` or `{` (`open`), within the depth limit.
    #[inline(always)]
    fn open(&mut self, open: u8) -> D<()> {
        if self.peek()? != open || self.depth >= self.max_depth {
            return None;
        }
        self.pos += 1;
        self.depth += 1;
        Some(())
    }

    /// After an element or member: true past a comma, false past `close` (which closes
    /// the container).
    #[inline(always)]
    fn more(&mut self, close: u8) -> D<bool> {
        let next = self.peek()?;
        self.pos += 1;
        if next == b',' {
            return Some(true);
        }
        if next != close {
            return None;
        }
        self.depth -= 1;
        Some(false)
    }

    /// True, past `close`, when the container just opened is empty.
    #[inline(always)]
    fn empty(&mut self, close: u8) -> D<bool> {
        if self.peek()? != close {
            return Some(false);
        }
        self.pos += 1;
        self.depth -= 1;
        Some(true)
    }

    /// An object whose members are among `keys`, in that order: `member(self, i)` reads
    /// the value of `keys[i]`. Returns the bits (1 << i) of the members present.
    #[inline(always)]
    fn object<const N: usize>(&mut self, keys: &Names<N>, mut member: impl FnMut(&mut Self, usize) -> D<()>) -> D<u32> {
        self.open(b'{')?;
        let mut seen = 0;
        if self.empty(b'}')? {
            return Some(seen);
        }
        let mut next = 0;
        loop {
            let i = self.key(keys, next)?;
            seen |= 1 << i;
            next = i + 1;
            member(self, i)?;
            if !self.more(b'}')? {
                return Some(seen);
            }
        }
    }

    /// A member name that is one of `keys` from `from` on, and its colon: the index of the
    /// name.
    #[inline(always)]
    fn key<const N: usize>(&mut self, keys: &Names<N>, from: usize) -> D<usize> {
        if self.peek()? != b'"' {
            return None;
        }
        let start = self.pos + 1;
        let rest = self.bytes.get(start..)?;
        let i = keys.find(rest, from)?;
        self.pos = start + keys.names.get(i)?.len() + 1;
        if self.peek()? != b':' {
            return None;
        }
        self.pos += 1;
        Some(i)
    }

    /// The elements of an array, each read by `item`. The list keeps at most
    /// [`SLACK_BYTES`] of room beyond its elements.
    #[inline(always)]
    fn list<T>(&mut self, mut item: impl FnMut(&mut Self) -> D<T>) -> D<Vec<T>> {
        self.open(b'[')?;
        let mut out = Vec::new();
        if self.empty(b']')? {
            return Some(out);
        }
        loop {
            out.push(item(self)?);
            if !self.more(b']')? {
                if (out.capacity() - out.len()).saturating_mul(core::mem::size_of::<T>()) > SLACK_BYTES {
                    out.shrink_to_fit();
                }
                return Some(out);
            }
        }
    }

    /// An array of tables, each read by `fill` into a new last element made by `new`, in
    /// place: a node or tensor is never moved once read.
    #[inline(always)]
    fn tables<T>(&mut self, new: fn() -> T, mut fill: impl FnMut(&mut Self, &mut T) -> D<()>) -> D<Vec<T>> {
        self.open(b'[')?;
        let mut out = Vec::new();
        if self.empty(b']')? {
            return Some(out);
        }
        let start = self.pos;
        loop {
            out.push(new());
            fill(self, out.last_mut()?)?;
            if out.len() == 1 {
                let first = self.pos.saturating_sub(start);
                out.reserve(estimate::<T>(first, self.bytes.len().saturating_sub(self.pos)));
            }
            if !self.more(b']')? {
                // What the estimate reserved beyond the list is given back, so a manifest of
                // many short lists holds no more than its tables.
                out.shrink_to_fit();
                return Some(out);
            }
        }
    }

    /// A string, scanned by the strict tokenizer.
    #[inline(always)]
    fn str(&mut self) -> D<Str<'a>> {
        if self.peek()? != b'"' {
            return None;
        }
        let s = self.parser.string(self.pos).ok()?;
        self.pos = s.end() + 1;
        Some(s)
    }

    /// A string borrowed from the manifest text unless it has escapes (§3.3).
    #[inline(always)]
    fn name(&mut self) -> D<Cow<'a, str>> {
        if self.peek()? != b'"' {
            return None;
        }
        let start = self.pos + 1;
        match json::plain_string_end(self.bytes, start) {
            Some(end) => {
                self.pos = end + 1;
                self.text.get(start..end).map(Cow::Borrowed)
            }
            None => Some(self.str()?.value()),
        }
    }

    fn string(&mut self) -> D<String> {
        Some(self.name()?.into_owned())
    }

    /// Base64 bytes (§1.2).
    fn bytes(&mut self) -> D<Vec<u8>> {
        base64::decode(&self.str()?.value())
    }

    /// An integer (§1.2) in the i64 range, exact, as the exact reader converts it.
    #[inline(always)]
    fn i64(&mut self) -> D<i64> {
        self.peek()?;
        let (v, end) = json::short_integer(self.bytes, self.pos)?;
        self.pos = end;
        Some(v)
    }

    /// An integer in 0..=2^63 − 1.
    fn u63(&mut self) -> D<u64> {
        u64::try_from(self.i64()?).ok()
    }

    /// A binary32 bit pattern (§1.2).
    fn float_bits(&mut self) -> D<u32> {
        u32::try_from(self.i64()?).ok()
    }

    /// A type code accepted by `ok` (§2.4, §2.5, §2.7).
    fn code(&mut self, ok: impl Fn(u8) -> bool) -> D<u8> {
        u8::try_from(self.i64()?).ok().filter(|&c| ok(c))
    }

    /// Model (§2.1).
    fn model(&mut self) -> D<Model<'a>> {
        let mut m = Model::default();
        let seen = self.object(&MODEL_N, |r, i| {
            match i {
                0 => m.ir_version = r.u63()?,
                1 => m.opsets = r.opsets()?,
                2 => m.producer_name = r.string()?,
                3 => m.producer_version = r.string()?,
                4 => m.domain = r.string()?,
                5 => m.model_version = r.i64()?,
                6 => m.doc = r.string()?,
                7 => m.metadata = r.metadata()?,
                8 => m.graph = r.graph()?,
                _ => {
                    let functions = r.list(Self::function)?;
                    if unique::duplicate_function(&functions).is_some() {
                        return None;
                    }
                    m.functions = functions;
                }
            }
            Some(())
        })?;
        has(seen, 1 | 1 << 8)?;
        Some(m)
    }

    /// OperatorSet list, no domain twice (§2.1).
    fn opsets(&mut self) -> D<Vec<OperatorSet>> {
        let sets = self.list(|r| {
            let mut o = OperatorSet::default();
            let seen = r.object(&OPSET_N, |r, i| {
                match i {
                    0 => o.domain = r.string()?,
                    _ => o.version = r.u63()?,
                }
                Some(())
            })?;
            has(seen, 1 << 1)?;
            Some(o)
        })?;
        unique::duplicate_opset(&sets).is_none().then_some(sets)
    }

    /// StringEntry list (§2.1).
    fn metadata(&mut self) -> D<Vec<StringEntry>> {
        self.list(|r| {
            let mut e = StringEntry::default();
            r.object(&ENTRY_N, |r, i| {
                match i {
                    0 => e.key = r.string()?,
                    _ => e.value = r.string()?,
                }
                Some(())
            })?;
            Some(e)
        })
    }

    /// The main graph (§2.2), nesting level 1.
    fn graph(&mut self) -> D<Graph<'a>> {
        let mut g = Graph::default();
        self.object(&GRAPH_N, |r, i| {
            match i {
                0 => g.name = r.string()?,
                1 => g.doc = r.string()?,
                2 => g.initializers = r.tables(new_tensor, Self::tensor)?,
                3 => g.sparse_initializers = r.list(Self::sparse)?,
                4 => g.inputs = r.list(Self::typed_name)?,
                5 => g.outputs = r.list(Self::typed_name)?,
                6 => g.value_info = r.list(Self::typed_name)?,
                7 => g.nodes = r.tables(new_node, Self::node)?,
                _ => g.metadata = r.metadata()?,
            }
            Some(())
        })?;
        Some(g)
    }

    /// TypedName (§2.2) in a body at level 1.
    fn typed_name(&mut self) -> D<TypedName> {
        let mut t = TypedName::default();
        let seen = self.object(&TYPED_NAME_N, |r, i| {
            match i {
                0 => t.name = r.string()?,
                1 => t.ty = Some(r.ty()?),
                2 => t.doc = r.string()?,
                _ => t.metadata = r.metadata()?,
            }
            Some(())
        })?;
        has(seen, 1)?;
        Some(t)
    }

    /// Node (§2.3) in a body at level 1, into `n` (from [`new_node`]).
    fn node(&mut self, n: &mut Node<'a>) -> D<()> {
        let seen = self.object(&NODE_N, |r, i| {
            match i {
                0 => n.name = r.name()?,
                1 => n.op = r.name()?,
                2 => n.domain = r.name()?,
                3 => n.overload = r.name()?,
                4 => n.doc = r.string()?,
                5 => n.inputs = r.list(Self::name)?,
                6 => n.outputs = r.list(Self::name)?,
                7 => n.attributes = r.list(Self::attribute)?,
                _ => n.metadata = r.metadata()?,
            }
            Some(())
        })?;
        has(seen, 1 << 1)
    }

    /// Attribute (§2.4) in a body at level 1; not a GRAPH or GRAPHS one.
    fn attribute(&mut self) -> D<Attribute<'a>> {
        let mut a = Attribute::default();
        let seen = self.object(&ATTRIBUTE_N, |r, i| {
            match i {
                0 => a.name = r.string()?,
                1 => a.ty = r.code(|c| (1..=14).contains(&c))?,
                2 => a.doc = r.string()?,
                3 => a.ref_name = r.string()?,
                // `type` comes first in table order: a value is read by a type already read.
                _ if a.ty == 0 || !a.ref_name.is_empty() => return None,
                _ => a.value = Some(r.attr_value(a.ty)?),
            }
            Some(())
        })?;
        // Name and type present; a reference has no value (the arm above), any other
        // attribute has one.
        has(seen, 0b11)?;
        (a.ref_name.is_empty() == a.value.is_some()).then_some(a)
    }

    /// An attribute value of type `ty` (§2.4 value table), not GRAPH or GRAPHS.
    fn attr_value(&mut self, ty: u8) -> D<AttrValue<'a>> {
        Some(match ty {
            1 => AttrValue::Float(self.float_bits()?),
            2 => AttrValue::Int(self.i64()?),
            3 => AttrValue::String(self.bytes()?),
            4 => AttrValue::Tensor(self.one(new_tensor, Self::tensor)?),
            6 => AttrValue::Floats(self.list(Self::float_bits)?),
            7 => AttrValue::Ints(self.list(Self::i64)?),
            8 => AttrValue::Strings(self.list(Self::bytes)?),
            9 => AttrValue::Tensors(self.tables(new_tensor, Self::tensor)?),
            11 => AttrValue::SparseTensor(Box::new(self.sparse()?)),
            12 => AttrValue::SparseTensors(self.list(Self::sparse)?),
            13 => AttrValue::Type(self.ty()?),
            14 => AttrValue::Types(self.list(Self::ty)?),
            _ => return None,
        })
    }

    /// Tensor (§2.5), into `t` (from [`new_tensor`]): dtype and dims come before `data`
    /// and `strings` in table order.
    fn tensor(&mut self, t: &mut Tensor<'a>) -> D<()> {
        let mut count = None;
        let mut data = None;
        let seen = self.object(&TENSOR_N, |r, i| {
            match i {
                0 => t.name = r.name()?,
                1 => t.dtype = r.code(tensor::is_tensor_dtype)?,
                2 => {
                    let (dims, n) = r.dims()?;
                    (t.dims, count) = (dims, Some(n));
                }
                3 => t.doc = r.string()?,
                4 => {
                    data = Some(TensorData::Raw(Cow::Borrowed(
                        r.data_range(tensor::bits(t.dtype)?, count?)?,
                    )))
                }
                5 => {
                    // Only a string tensor (dtype 8) has strings, one per element.
                    let strings = r.list(Self::bytes)?;
                    if t.dtype != tensor::STRING || u64::try_from(strings.len()).ok() != count {
                        return None;
                    }
                    data = Some(TensorData::Strings(strings));
                }
                _ => t.metadata = r.metadata()?,
            }
            Some(())
        })?;
        has(seen, 0b110)?;
        t.data = data?;
        Some(())
    }

    /// One table read by `fill` into a value made by `new`.
    fn one<T>(&mut self, new: fn() -> T, fill: fn(&mut Self, &mut T) -> D<()>) -> D<T> {
        let mut value = new();
        fill(self, &mut value)?;
        Some(value)
    }

    /// Dimensions ≥ 0 and their element count below 2^60 (§2.5).
    fn dims(&mut self) -> D<(Vec<u64>, u64)> {
        let dims = self.list(Self::u63)?;
        let count = tensor::element_count(&dims).ok()?;
        Some((dims, count))
    }

    /// A tensor's `data` (§2.5 rules 1–5), as a view of the data region.
    fn data_range(&mut self, bits: u64, count: u64) -> D<&'a [u8]> {
        let (mut offset, mut length) = (None, None);
        self.object(&DATA_N, |r, i| {
            match i {
                0 => offset = Some(r.u63()?),
                _ => length = Some(r.u63()?),
            }
            Some(())
        })?;
        let range = tensor::check_range(bits, count, offset?, length?, self.data.length()).ok()?;
        self.data.view(range)
    }

    /// SparseTensor (§2.6): int64 indices.
    fn sparse(&mut self) -> D<SparseTensor<'a>> {
        let mut s = SparseTensor {
            values: new_tensor(),
            indices: new_tensor(),
            dims: Vec::new(),
        };
        let seen = self.object(&SPARSE_N, |r, i| {
            match i {
                0 => r.tensor(&mut s.values)?,
                1 => r.tensor(&mut s.indices)?,
                _ => s.dims = r.dims()?.0,
            }
            Some(())
        })?;
        has(seen, 0b111)?;
        (s.indices.dtype == 7).then_some(s)
    }

    /// Type (§2.7) at nesting level 2: a `tensor` or `sparse_tensor` type, whose members
    /// are `kind`, `denotation`, `elem_type` and `shape` (`kind` first in table order).
    fn ty(&mut self) -> D<Type> {
        if !self.types {
            return None;
        }
        let (mut sparse, mut denotation, mut elem_type, mut shape) = (None, String::new(), 0, None);
        let seen = self.object(&TYPE_N, |r, i| {
            match i {
                0 => {
                    sparse = Some(match r.str()?.raw() {
                        "tensor" => false,
                        "sparse_tensor" => true,
                        _ => return None,
                    })
                }
                1 => denotation = r.string()?,
                2 => elem_type = r.code(|c| c == 0 || tensor::is_tensor_dtype(c))?,
                4 => shape = Some(r.list(Self::dim)?),
                // `key_type`, `elem` and `value` belong to other kinds.
                _ => return None,
            }
            Some(())
        })?;
        has(seen, 1)?;
        let kind = match sparse? {
            false => TypeKind::Tensor { elem_type, shape },
            true => TypeKind::SparseTensor { elem_type, shape },
        };
        Some(Type { denotation, kind })
    }

    /// Dim (§2.7): not both `value` and `param`.
    fn dim(&mut self) -> D<Dim> {
        let mut d = Dim::default();
        let seen = self.object(&DIM_N, |r, i| {
            match i {
                0 => d.value = DimValue::Value(r.u63()?),
                1 => d.value = DimValue::Param(r.string()?),
                _ => d.denotation = r.string()?,
            }
            Some(())
        })?;
        (seen & 0b11 != 0b11).then_some(d)
    }

    /// Function (§2.8), its body at level 1.
    fn function(&mut self) -> D<Function<'a>> {
        let mut f = Function::default();
        let seen = self.object(&FUNCTION_N, |r, i| {
            match i {
                0 => f.name = r.string()?,
                1 => f.domain = r.string()?,
                2 => f.overload = r.string()?,
                3 => f.doc = r.string()?,
                4 => f.inputs = r.list(Self::string)?,
                5 => f.outputs = r.list(Self::string)?,
                6 => f.attribute_names = r.list(Self::string)?,
                7 => f.attribute_defaults = r.list(Self::attribute)?,
                8 => f.nodes = r.tables(new_node, Self::node)?,
                9 => f.opsets = r.opsets()?,
                10 => f.value_info = r.list(Self::typed_name)?,
                _ => f.metadata = r.metadata()?,
            }
            Some(())
        })?;
        has(seen, 1)?;
        Some(f)
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use crate::onemodel::writer::assemble;
    use crate::onemodel::{Error, Limits, Parts, names, read_exact, read_with, write};
    use alloc::format;
    use std::path::PathBuf;

    /// The direct read of a file's manifest with `limits`, names resolved: what
    /// [`read_with`] returns when the direct read takes the file.
    fn direct_with(file: &[u8], limits: Limits) -> Option<Result<Model<'_>, Error>> {
        let parts = Parts::of(file, limits).ok()?;
        let mut model = read(parts.manifest, parts.data, parts.json, limits.max_nesting)?;
        Some(names::resolve(&mut model).map(|()| model))
    }

    fn direct(file: &[u8]) -> Option<Result<Model<'_>, Error>> {
        direct_with(file, Limits::DEFAULT)
    }

    fn exact(file: &[u8]) -> Result<Model<'_>, Error> {
        read_exact(file, Limits::DEFAULT, json::DEFAULT_HASH_KEY)
    }

    /// Where the direct read gives a model, the exact read gives an equal one, or rejects
    /// it in name resolution (which then decides, §3.1).
    fn agrees(file: &[u8]) {
        if let Some(direct) = direct(file) {
            match (direct, exact(file)) {
                (Ok(d), Ok(e)) => assert_eq!(d, e),
                (Err(_), Err(e)) => assert_eq!(e.path.as_deref().map(|p| p.contains("manifest")), Some(true)),
                (d, e) => panic!("direct {d:?}, exact {e:?}"),
            }
        }
    }

    fn corpus() -> Vec<(String, Vec<u8>)> {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../hostile-corpus/onemodel");
        let mut files: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "onemodel"))
            .map(|p| {
                (
                    p.file_name().unwrap().to_string_lossy().into_owned(),
                    std::fs::read(p).unwrap(),
                )
            })
            .collect();
        files.sort();
        files
    }

    /// Every file of the hostile corpus reads (or fails) exactly as the exact reader says,
    /// and where the direct read takes one, it reads it as the exact reader does.
    #[test]
    fn the_corpus_reads_as_the_exact_reader_says() {
        let corpus = corpus();
        assert!(corpus.len() > 100);
        for (name, f) in &corpus {
            let key = json::DEFAULT_HASH_KEY;
            assert_eq!(read_with(f, Limits::DEFAULT, key), exact(f), "{name}");
            agrees(f);
        }
    }

    /// Graphs below node attributes and wrapped types are left to the exact read: the
    /// model without them, for the tests below.
    fn without_subgraphs(m: &mut Model<'_>) {
        fn flat(t: &mut Type) {
            if !matches!(t.kind, TypeKind::Tensor { .. } | TypeKind::SparseTensor { .. }) {
                t.kind = TypeKind::Tensor {
                    elem_type: 1,
                    shape: None,
                };
            }
        }
        fn attributes(list: &mut Vec<Attribute<'_>>) {
            list.retain(|a| {
                !matches!(a.value, Some(AttrValue::Graph(_) | AttrValue::Graphs(_))) && a.ty != 5 && a.ty != 10
            });
            for a in list {
                match &mut a.value {
                    Some(AttrValue::Type(t)) => flat(t),
                    Some(AttrValue::Types(ts)) => ts.iter_mut().for_each(flat),
                    _ => {}
                }
            }
        }
        let typed = |list: &mut Vec<TypedName>| list.iter_mut().filter_map(|t| t.ty.as_mut()).for_each(flat);
        let g = &mut m.graph;
        typed(&mut g.inputs);
        typed(&mut g.outputs);
        typed(&mut g.value_info);
        g.nodes.iter_mut().for_each(|n| attributes(&mut n.attributes));
        for f in &mut m.functions {
            typed(&mut f.value_info);
            attributes(&mut f.attribute_defaults);
            f.nodes.iter_mut().for_each(|n| attributes(&mut n.attributes));
        }
    }

    /// Every table, every attribute type but GRAPH and GRAPHS, tensor and sparse types,
    /// string tensors, metadata, functions, escaped and non-ASCII strings: what the writer
    /// writes, the direct read reads, as the exact reader does.
    #[test]
    fn reads_every_table_the_writer_writes() {
        let mut read_directly = 0;
        for (name, f) in corpus().iter().filter(|(n, _)| n.starts_with("valid-")) {
            let mut model = exact(f).unwrap();
            without_subgraphs(&mut model);
            let written = write(&model).unwrap();
            let direct = direct(&written).unwrap_or_else(|| panic!("{name}: not read directly"));
            assert_eq!(direct.unwrap(), exact(&written).unwrap(), "{name}");
            read_directly += 1;
        }
        assert!(read_directly >= 15);
        let every = corpus()
            .into_iter()
            .find(|(n, _)| n == "valid-every-table-and-attribute-type.onemodel");
        let every = every.unwrap().1;
        let mut model = exact(&every).unwrap();
        without_subgraphs(&mut model);
        let codes: Vec<u8> = model
            .graph
            .nodes
            .iter()
            .flat_map(|n| n.attributes.iter().map(|a| a.ty))
            .collect();
        for code in [1, 2, 3, 4, 6, 7, 8, 9, 11, 12, 13, 14] {
            assert!(codes.contains(&code), "attribute type {code} not covered");
        }
        assert!(!model.functions.is_empty() && !model.graph.sparse_initializers.is_empty());
    }

    /// A manifest of `graph` (an object's text) and `rest` (top-level members after it).
    fn manifest(graph: &str, rest: &str) -> Vec<u8> {
        let m = format!(r#"{{"ir_version":8,"opsets":[{{"version":17}}],"graph":{graph}{rest}}}"#);
        assemble(m.as_bytes(), &[])
    }

    const GRAPH: &str = r#"{"inputs":[{"name":"x","type":{"kind":"tensor","elem_type":1}}],"outputs":[{"name":"y"}],"nodes":[{"op":"Relu","inputs":["x"],"outputs":["y"]}]}"#;

    /// What the direct read leaves to the exact read (§3.4): each file is valid, read by
    /// `read_with`, and not by the direct read.
    #[test]
    fn declines_what_it_does_not_read() {
        let cases = [
            (
                "member out of table order",
                format!(r#"{{"graph":{GRAPH},"ir_version":8,"opsets":[{{"version":17}}]}}"#),
            ),
            (
                "unknown member",
                format!(r#"{{"ir_version":8,"later":1,"opsets":[{{"version":17}}],"graph":{GRAPH}}}"#),
            ),
            (
                "escaped member name",
                format!(r#"{{"ir\u005fversion":8,"opsets":[{{"version":17}}],"graph":{GRAPH}}}"#),
            ),
            (
                "wrapped type",
                GRAPH.replace(
                    r#"{"kind":"tensor","elem_type":1}"#,
                    r#"{"kind":"sequence","elem":{"kind":"tensor"}}"#,
                ),
            ),
            (
                "member of another kind",
                GRAPH.replace(r#""elem_type":1}"#, r#""elem_type":1,"key_type":1}"#),
            ),
            (
                "graph attribute",
                GRAPH.replace(
                    r#""outputs":["y"]}"#,
                    r#""outputs":["y"],"attributes":[{"name":"g","type":5,"value":{}}]}"#,
                ),
            ),
        ];
        for (rule, text) in cases {
            let f = if text.starts_with(r#"{"ir"#) || text.starts_with(r#"{"graph"#) {
                assemble(text.as_bytes(), &[])
            } else {
                manifest(&text, "")
            };
            assert!(direct(&f).is_none(), "{rule}");
            assert!(read_with(&f, Limits::DEFAULT, json::DEFAULT_HASH_KEY).is_ok(), "{rule}");
        }
    }

    /// Whitespace between tokens is read directly; a manifest over the JSON depth or the
    /// nesting limit, or with text after its value, is not, and the exact read rejects it.
    #[test]
    fn keeps_the_json_rules_and_the_limits() {
        let spaced = manifest(&GRAPH.replace(',', " ,\n\t").replace(':', "\r: "), " ");
        assert_eq!(direct(&spaced).unwrap().unwrap(), exact(&spaced).unwrap());
        let f = manifest(GRAPH, "");
        assert!(direct(&f).is_some());
        let shallow = Limits {
            max_json_depth: 4,
            ..Limits::DEFAULT
        };
        assert!(direct_with(&f, shallow).is_none());
        assert!(read_with(&f, shallow, json::DEFAULT_HASH_KEY).is_err());
        let flat = Limits {
            max_nesting: 1,
            ..Limits::DEFAULT
        };
        assert!(direct_with(&f, flat).is_none());
        assert!(read_with(&f, flat, json::DEFAULT_HASH_KEY).is_err());
        let m = format!(r#"{{"ir_version":8,"opsets":[{{"version":17}}],"graph":{GRAPH}}} x"#);
        assert!(direct(&assemble(m.as_bytes(), &[])).is_none());
    }

    /// Every one-byte change of a small manifest (each byte removed, or replaced by one of
    /// the bytes that matter to the grammar) reads the same directly as exactly, or is
    /// left to the exact read.
    #[test]
    fn no_one_byte_change_reads_two_ways() {
        let base = r#"{"ir_version":8,"opsets":[{"domain":"","version":17}],"producer_name":"p","graph":{"name":"g","initializers":[{"name":"w","dtype":1,"dims":[1,2],"data":{"offset":0,"length":8}}],"inputs":[{"name":"x","type":{"kind":"tensor","elem_type":1,"shape":[{"value":1},{"param":"n"}]}}],"outputs":[{"name":"y"}],"nodes":[{"name":"a","op":"Add","inputs":["x","w"],"outputs":["y"],"attributes":[{"name":"k","type":7,"value":[1,-2]}]}]}}"#;
        let data = [0u8; 64];
        let (mut taken, mut cases) = (0, 0);
        for i in 0..base.len() {
            for b in [
                None,
                Some(b'"'),
                Some(b','),
                Some(b'}'),
                Some(b']'),
                Some(b'0'),
                Some(b'9'),
                Some(b'\\'),
                Some(b' '),
                Some(b'x'),
            ] {
                let mut m = base.as_bytes().to_vec();
                match b {
                    None => {
                        m.remove(i);
                    }
                    Some(b) => m[i] = b,
                }
                let f = assemble(&m, &data);
                agrees(&f);
                cases += 1;
                taken += usize::from(direct(&f).is_some_and(|r| r.is_ok()));
            }
        }
        assert!(cases > 3000 && taken > 50, "{cases} {taken}");
    }

    /// A list of tables reserves room from its first table's size, and gives back what it
    /// did not use: a manifest of many short lists (here a TENSORS attribute of one tensor
    /// per node) holds no more than its tables.
    #[test]
    fn short_lists_keep_no_room() {
        let tensor = r#"{"dtype":1,"dims":[0],"data":{"offset":0,"length":0}}"#;
        let node = format!(r#"{{"op":"C","outputs":["c"],"attributes":[{{"name":"t","type":9,"value":[{tensor}]}}]}}"#);
        let nodes: alloc::vec::Vec<String> = (0..50)
            .map(|i| node.replace(r#"["c"]"#, &format!(r#"["c{i}"]"#)))
            .collect();
        let f = manifest(&format!(r#"{{"nodes":[{}]}}"#, nodes.join(",")), "");
        let model = direct(&f).unwrap().unwrap();
        assert_eq!(model.graph.nodes.len(), 50);
        assert_eq!(model.graph.nodes.capacity(), 50);
        for n in &model.graph.nodes {
            match &n.attributes[0].value {
                Some(AttrValue::Tensors(t)) => assert_eq!((t.len(), t.capacity()), (1, 1)),
                other => panic!("{other:?}"),
            }
        }
    }

    /// A list of large elements keeps no more than `SLACK_BYTES` of room: a node's one
    /// attribute is not followed by room for three more.
    #[test]
    fn lists_of_large_elements_keep_little_room() {
        let g = GRAPH.replace(
            r#""outputs":["y"]}"#,
            r#""outputs":["y"],"attributes":[{"name":"a","type":2,"value":1}]}"#,
        );
        let f = manifest(&g, "");
        let model = direct(&f).unwrap().unwrap();
        let attributes = &model.graph.nodes[0].attributes;
        assert_eq!((attributes.len(), attributes.capacity()), (1, 1));
        let inputs = &model.graph.nodes[0].inputs;
        assert!((inputs.capacity() - inputs.len()) * core::mem::size_of::<Cow<'_, str>>() <= SLACK_BYTES);
    }
}
