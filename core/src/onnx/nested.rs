//! The recursive ONNX messages decoded without recursion (`spec/onemodel.md` §3.3, §6.1):
//! graphs, nodes, attributes, value infos, types and functions hold each other, graphs and
//! types up to 64 levels deep (§3.2). Instead of one call per level, the decoder keeps the
//! open messages in a heap stack of [`Frame`]s, so the machine stack a decode needs does not
//! grow with nesting. Each open message keeps its remaining fields and what it has decoded so
//! far; a field that holds one of these messages pushes a frame, and a finished frame hands
//! its value to its parent. Fields are visited in the same order, and the same errors
//! raised at the same paths, as a recursive descent would.

use super::read::{Decoder, R, Seg};
use super::wire::{Field, Fields, Value};
use crate::invariant;
use crate::onemodel::error::ErrorKind;
use crate::onemodel::model::*;
use crate::onemodel::tensor;
use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

/// One open message: its remaining fields, its start offset, its nesting level, the
/// singular fields seen (§6.1), the path segment it was entered under, and its state.
struct Frame<'a> {
    fields: Fields<'a>,
    base: usize,
    depth: usize,
    seen: u64,
    seg: Option<Seg>,
    state: State<'a>,
}

/// What an open message has decoded so far, by message type.
enum State<'a> {
    Graph(Box<GraphState<'a>>),
    Node(Box<NodeState<'a>>),
    Attribute(Box<AttrState<'a>>),
    ValueInfo(Box<TypedName>, usize),
    Type(Box<TypeState>),
    /// `sequence_type` / `optional_type` (an element type) or `map_type`.
    Elem(Box<ElemState>),
    Function(Box<FuncState<'a>>),
}

/// A finished message, handed to its parent.
pub(super) enum Done<'a> {
    Graph(Graph<'a>),
    Node(Node<'a>),
    Attribute(Attribute<'a>),
    ValueInfo(TypedName),
    Type(Type),
    Elem(TypeKind),
    Function(Function<'a>),
}

#[derive(Default)]
struct GraphState<'a> {
    g: Graph<'a>,
    /// Occurrences so far of each field number, for indices in paths.
    n: [usize; 17],
    /// The field number whose message is being decoded in a child frame.
    pending: u32,
}

#[derive(Default)]
struct NodeState<'a> {
    node: Node<'a>,
    n_meta: usize,
}

#[derive(Default)]
struct AttrState<'a> {
    a: Attribute<'a>,
    ty: i64,
    float: Option<u32>,
    int: Option<i64>,
    string: Option<Vec<u8>>,
    tensor: Option<Tensor<'a>>,
    graph: Option<Graph<'a>>,
    sparse: Option<SparseTensor<'a>>,
    tp: Option<Type>,
    floats: Vec<u32>,
    ints: Vec<i64>,
    strings: Vec<Vec<u8>>,
    tensors: Vec<Tensor<'a>>,
    graphs: Vec<Graph<'a>>,
    sparses: Vec<SparseTensor<'a>>,
    types: Vec<Type>,
    present: [bool; 24],
    pending: u32,
}

#[derive(Default)]
struct TypeState {
    kind: Option<TypeKind>,
    denotation: String,
    /// Field number of the kind being decoded in a child frame, and its key offset.
    pending: (u32, usize),
}

/// The wrapper messages of a type: field 4 `sequence_type` and 9 `optional_type` hold an
/// element type (field 1); field 5 `map_type` a key type (1) and a value type (2).
struct ElemState {
    of: u32,
    key: u8,
    elem: Option<Type>,
}

#[derive(Default)]
struct FuncState<'a> {
    func: Function<'a>,
    n: [usize; 15],
}

impl<'a> Frame<'a> {
    fn new(buf: &'a [u8], base: usize, depth: usize, seg: Option<Seg>, state: State<'a>) -> Self {
        Frame {
            fields: Fields::new(buf, base),
            base,
            depth,
            seen: 0,
            seg,
            state,
        }
    }

    /// Fields that may appear once (§6.1), by message type.
    fn singular(&self) -> &'static [u32] {
        match &self.state {
            State::Graph(_) => &[2, 10],
            State::Node(_) => &[3, 4, 6, 7, 8],
            State::Attribute(_) => &[1, 2, 3, 4, 5, 6, 13, 14, 20, 21, 22],
            State::ValueInfo(..) => &[1, 2, 3],
            State::Type(_) => &[1, 4, 5, 6, 8, 9],
            State::Elem(e) if e.of == 5 => &[1, 2],
            State::Elem(_) => &[1],
            State::Function(_) => &[1, 8, 10, 13],
        }
    }

    /// Graphs and types count toward the nesting limit (§3.2).
    fn nests(&self) -> bool {
        matches!(self.state, State::Graph(_) | State::Type(_))
    }
}

/// A child message to open: its bytes, offset, level, path segment and state.
type Child<'a> = Option<Frame<'a>>;

impl<'a> Decoder<'_> {
    /// Decodes a `GraphProto` at nesting level `depth` (§3.2).
    pub(super) fn graph(&mut self, buf: &'a [u8], base: usize, depth: usize) -> R<Graph<'a>> {
        let root = Frame::new(buf, base, depth, None, State::Graph(Box::default()));
        match self.run(root)? {
            Done::Graph(g) => Ok(g),
            _ => Err(self.error(ErrorKind::Malformed, base, "graph expected")),
        }
    }

    /// Decodes a `FunctionProto`; its body is nesting level 1 (§3.2).
    pub(super) fn function(&mut self, buf: &'a [u8], base: usize) -> R<Function<'a>> {
        let root = Frame::new(buf, base, 1, None, State::Function(Box::default()));
        match self.run(root)? {
            Done::Function(f) => Ok(f),
            _ => Err(self.error(ErrorKind::Malformed, base, "function expected")),
        }
    }

    /// The decode loop: the top frame's next field is decoded, or opens a child frame; a
    /// frame without fields left is finished and handed to its parent. The heap stack holds
    /// at most a few frames per nesting level, bounded by the nesting limit.
    fn run(&mut self, root: Frame<'a>) -> R<Done<'a>> {
        let mut stack = alloc::vec![root];
        self.open(&stack)?;
        loop {
            let Some(top) = stack.last_mut() else {
                return Err(self.error(ErrorKind::Malformed, 0, "decoder stack empty"));
            };
            match top.fields.next() {
                Some(field) => {
                    let f = field.map_err(|e| self.wire(e))?;
                    self.once(top, &f)?;
                    if let Some(child) = self.field(top, &f)? {
                        if let Some(seg) = child.seg {
                            self.path.push(seg);
                        }
                        stack.push(child);
                        self.open(&stack)?;
                    }
                }
                None => {
                    let Some(frame) = stack.pop() else { continue };
                    let had_seg = frame.seg.is_some();
                    let done = self.finish(frame)?;
                    if had_seg {
                        self.path.pop();
                    }
                    match stack.last_mut() {
                        Some(parent) => self.accept(parent, done)?,
                        None => return Ok(done),
                    }
                }
            }
        }
    }

    /// Checks the nesting limit when a graph or type frame opens (§3.2).
    fn open(&self, stack: &[Frame<'a>]) -> R<()> {
        match stack.last() {
            Some(top) if top.nests() && top.depth > self.max_nesting => {
                Err(self.error(ErrorKind::LimitExceeded, top.base, "graphs and types nested too deeply"))
            }
            _ => Ok(()),
        }
    }

    /// Rejects a second occurrence of a singular field (§6.1).
    fn once(&self, top: &mut Frame<'a>, f: &Field<'a>) -> R<()> {
        if top.singular().contains(&f.number) && f.number < 64 {
            let bit = 1u64 << f.number;
            if top.seen & bit != 0 {
                return Err(self.error(ErrorKind::Malformed, f.offset, "singular field repeated"));
            }
            top.seen |= bit;
        }
        Ok(())
    }

    fn field(&mut self, top: &mut Frame<'a>, f: &Field<'a>) -> R<Child<'a>> {
        let depth = top.depth;
        match &mut top.state {
            State::Graph(s) => self.graph_field(s, f, depth),
            State::Node(s) => self.node_field(s, f, depth),
            State::Attribute(s) => self.attr_field(s, f, depth),
            State::ValueInfo(v, n_meta) => self.value_info_field(v, n_meta, f, depth),
            State::Type(s) => self.type_field(s, f, depth),
            State::Elem(s) => self.elem_field(s, f, depth),
            State::Function(s) => self.function_field(s, f),
        }
    }

    fn finish(&mut self, frame: Frame<'a>) -> R<Done<'a>> {
        let base = frame.base;
        Ok(match frame.state {
            State::Graph(s) => Done::Graph(s.g),
            State::Node(s) => Done::Node(s.node),
            State::Attribute(s) => Done::Attribute(self.attr_finish(*s, base)?),
            State::ValueInfo(v, _) => Done::ValueInfo(*v),
            State::Type(s) => {
                let kind = s
                    .kind
                    .ok_or_else(|| self.error(ErrorKind::Unsupported, base, "type without a kind"))?;
                Done::Type(Type {
                    denotation: s.denotation,
                    kind,
                })
            }
            State::Elem(s) => Done::Elem(self.elem_finish(*s, base)?),
            State::Function(s) => Done::Function(s.func),
        })
    }

    /// Stores a finished child where its parent's pending field says.
    fn accept(&mut self, parent: &mut Frame<'a>, done: Done<'a>) -> R<()> {
        match (&mut parent.state, done) {
            (State::Graph(s), Done::Node(n)) => s.g.nodes.push(n),
            (State::Graph(s), Done::ValueInfo(v)) => match s.pending {
                11 => s.g.inputs.push(v),
                12 => s.g.outputs.push(v),
                _ => s.g.value_info.push(v),
            },
            (State::Node(s), Done::Attribute(a)) => s.node.attributes.push(a),
            (State::Attribute(s), Done::Graph(g)) => match s.pending {
                6 => s.graph = Some(g),
                _ => s.graphs.push(g),
            },
            (State::Attribute(s), Done::Type(t)) => match s.pending {
                14 => s.tp = Some(t),
                _ => s.types.push(t),
            },
            (State::ValueInfo(v, _), Done::Type(t)) => v.ty = Some(t),
            (State::Type(s), Done::Elem(k)) => {
                if s.kind.is_some() {
                    return Err(self.error(ErrorKind::Malformed, s.pending.1, "type with more than one kind"));
                }
                s.kind = Some(k);
            }
            (State::Elem(s), Done::Type(t)) => s.elem = Some(t),
            (State::Function(s), Done::Node(n)) => s.func.nodes.push(n),
            (State::Function(s), Done::Attribute(a)) => s.func.attribute_defaults.push(a),
            (State::Function(s), Done::ValueInfo(v)) => s.func.value_info.push(v),
            _ => return Err(self.error(ErrorKind::Malformed, parent.base, "unexpected nested message")),
        }
        Ok(())
    }

    fn graph_field(&mut self, s: &mut GraphState<'a>, f: &Field<'a>, depth: usize) -> R<Child<'a>> {
        let slot = usize::try_from(f.number).unwrap_or(usize::MAX);
        let i = s.n.get(slot).copied().unwrap_or(0);
        if let Some(c) = s.n.get_mut(slot) {
            *c += 1;
        }
        let g = &mut s.g;
        match f.number {
            1 => {
                let b = self.bytes(f)?;
                let node = State::Node(Box::default());
                return Ok(Some(Frame::new(b, f.payload, depth, Some(Seg::Index("node", i)), node)));
            }
            2 => g.name = self.string(f)?,
            5 => {
                let b = self.bytes(f)?;
                let t = self.within(Seg::Index("initializer", i), |d| d.tensor(b, f.payload))?;
                g.initializers.push(t);
            }
            10 => g.doc = self.string(f)?,
            11..=13 => {
                let b = self.bytes(f)?;
                let name = match f.number {
                    11 => "input",
                    12 => "output",
                    _ => "value_info",
                };
                s.pending = f.number;
                let v = State::ValueInfo(Box::default(), 0);
                return Ok(Some(Frame::new(b, f.payload, depth, Some(Seg::Index(name, i)), v)));
            }
            14 => {
                return Err(self.error(
                    ErrorKind::Unsupported,
                    f.offset,
                    "quantization_annotation is not carried",
                ));
            }
            15 => {
                let b = self.bytes(f)?;
                let t = self.within(Seg::Index("sparse_initializer", i), |d| d.sparse(b, f.payload))?;
                g.sparse_initializers.push(t);
            }
            16 => {
                let b = self.bytes(f)?;
                let e = self.within(Seg::Index("metadata_props", i), |d| d.entry(b, f.payload))?;
                g.metadata.push(e);
            }
            _ => {}
        }
        Ok(None)
    }

    fn value_info_field(&mut self, v: &mut TypedName, n_meta: &mut usize, f: &Field<'a>, depth: usize) -> R<Child<'a>> {
        match f.number {
            1 => v.name = self.string(f)?,
            2 => {
                let b = self.bytes(f)?;
                let ty = State::Type(Box::default());
                return Ok(Some(Frame::new(b, f.payload, depth + 1, Some(Seg::Name("type")), ty)));
            }
            3 => v.doc = self.string(f)?,
            4 => {
                let b = self.bytes(f)?;
                let e = self.within(Seg::Index("metadata_props", *n_meta), |d| d.entry(b, f.payload))?;
                v.metadata.push(e);
                *n_meta += 1;
            }
            _ => {}
        }
        Ok(None)
    }

    fn node_field(&mut self, s: &mut NodeState<'a>, f: &Field<'a>, depth: usize) -> R<Child<'a>> {
        let node = &mut s.node;
        match f.number {
            1 => node.inputs.push(self.string(f)?.into()),
            2 => node.outputs.push(self.string(f)?.into()),
            3 => node.name = self.string(f)?.into(),
            4 => node.op = self.string(f)?.into(),
            5 => {
                let b = self.bytes(f)?;
                let seg = Seg::Index("attribute", node.attributes.len());
                let a = State::Attribute(Box::default());
                return Ok(Some(Frame::new(b, f.payload, depth, Some(seg), a)));
            }
            6 => node.doc = self.string(f)?,
            7 => node.domain = self.string(f)?.into(),
            8 => node.overload = self.string(f)?.into(),
            9 => {
                let b = self.bytes(f)?;
                let e = self.within(Seg::Index("metadata_props", s.n_meta), |d| d.entry(b, f.payload))?;
                node.metadata.push(e);
                s.n_meta += 1;
            }
            10 => {
                return Err(self.error(
                    ErrorKind::Unsupported,
                    f.offset,
                    "device_configurations are not carried",
                ));
            }
            _ => {}
        }
        Ok(None)
    }

    fn attr_field(&mut self, s: &mut AttrState<'a>, f: &Field<'a>, depth: usize) -> R<Child<'a>> {
        if let Some(p) = s.present.get_mut(usize::try_from(f.number).unwrap_or(usize::MAX)) {
            *p = true;
        }
        match f.number {
            1 => s.a.name = self.string(f)?,
            2 => match f.value {
                Value::Fixed32(v) => s.float = Some(v),
                _ => return Err(self.wrong_wire_type(f, "5 (float)")),
            },
            3 => s.int = Some(self.int64(f)?),
            4 => s.string = Some(self.bytes(f)?.to_vec()),
            5 => {
                let b = self.bytes(f)?;
                s.tensor = Some(self.within(Seg::Name("t"), |d| d.tensor(b, f.payload))?);
            }
            6 | 11 => {
                let b = self.bytes(f)?;
                let seg = if f.number == 6 {
                    Seg::Name("g")
                } else {
                    Seg::Index("graphs", s.graphs.len())
                };
                s.pending = f.number;
                let g = State::Graph(Box::default());
                return Ok(Some(Frame::new(b, f.payload, depth + 1, Some(seg), g)));
            }
            7 => {
                let mut v = Vec::new();
                self.push_fixed(f, 4, &mut v)?;
                s.floats.extend(v.into_iter().map(|x| u32::try_from(x).unwrap_or(0)));
            }
            8 => {
                let mut v = Vec::new();
                self.push_varints(f, &mut v)?;
                s.ints.extend(v.into_iter().map(|x| x as i64));
            }
            9 => s.strings.push(self.bytes(f)?.to_vec()),
            10 => {
                let b = self.bytes(f)?;
                let t = self.within(Seg::Index("tensors", s.tensors.len()), |d| d.tensor(b, f.payload))?;
                s.tensors.push(t);
            }
            13 => s.a.doc = self.string(f)?,
            14 | 15 => {
                let b = self.bytes(f)?;
                let seg = if f.number == 14 {
                    Seg::Name("tp")
                } else {
                    Seg::Index("type_protos", s.types.len())
                };
                s.pending = f.number;
                let ty = State::Type(Box::default());
                return Ok(Some(Frame::new(b, f.payload, depth + 1, Some(seg), ty)));
            }
            20 => s.ty = self.int64(f)?,
            21 => s.a.ref_name = self.string(f)?,
            22 => {
                let b = self.bytes(f)?;
                s.sparse = Some(self.within(Seg::Name("sparse_tensor"), |d| d.sparse(b, f.payload))?);
            }
            23 => {
                let b = self.bytes(f)?;
                let seg = Seg::Index("sparse_tensors", s.sparses.len());
                let t = self.within(seg, |d| d.sparse(b, f.payload))?;
                s.sparses.push(t);
            }
            _ => {}
        }
        Ok(None)
    }

    /// The attribute's type code and the one value field it selects (§6.2).
    fn attr_finish(&self, s: AttrState<'a>, base: usize) -> R<Attribute<'a>> {
        let mut a = s.a;
        // 0 (absent or UNDEFINED) passes here and is Malformed below (§6.2).
        let code = u8::try_from(s.ty).ok().filter(|&c| c <= 14).ok_or_else(|| {
            let message = tensor::unsupported_code("attribute type", s.ty, tensor::is_attribute_type);
            self.error(ErrorKind::Unsupported, base, message)
        })?;
        if code == 0 {
            return Err(self.error(ErrorKind::Malformed, base, "attribute type missing or 0"));
        }
        a.ty = code;
        // The field each type selects (§2.4 value table); other value fields must be absent.
        let field_of = [0usize, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 22, 23, 14, 15];
        if !a.ref_name.is_empty() {
            // A reference has no value (§2.4, which §6.2 applies to ONNX): any value field,
            // even the one its type selects, is Malformed rather than dropped.
            if field_of.iter().skip(1).any(|&n| invariant::item(&s.present, n)) {
                return Err(self.error(ErrorKind::Malformed, base, "a reference attribute has no value"));
            }
            return Ok(a);
        }
        let own = invariant::item(&field_of, usize::from(code));
        if field_of
            .iter()
            .skip(1)
            .any(|&n| n != own && invariant::item(&s.present, n))
        {
            return Err(self.error(
                ErrorKind::Malformed,
                base,
                "attribute has a value field of another type",
            ));
        }
        let missing = || self.error(ErrorKind::Malformed, base, "attribute value is missing");
        a.value = Some(match code {
            1 => AttrValue::Float(s.float.unwrap_or(0)),
            2 => AttrValue::Int(s.int.unwrap_or(0)),
            3 => AttrValue::String(s.string.unwrap_or_default()),
            4 => AttrValue::Tensor(s.tensor.ok_or_else(missing)?),
            5 => AttrValue::Graph(Box::new(s.graph.ok_or_else(missing)?)),
            6 => AttrValue::Floats(s.floats),
            7 => AttrValue::Ints(s.ints),
            8 => AttrValue::Strings(s.strings),
            9 => AttrValue::Tensors(s.tensors),
            10 => AttrValue::Graphs(s.graphs),
            11 => AttrValue::SparseTensor(Box::new(s.sparse.ok_or_else(missing)?)),
            12 => AttrValue::SparseTensors(s.sparses),
            13 => AttrValue::Type(s.tp.ok_or_else(missing)?),
            _ => AttrValue::Types(s.types),
        });
        Ok(a)
    }

    fn type_field(&mut self, s: &mut TypeState, f: &Field<'a>, depth: usize) -> R<Child<'a>> {
        let kind = match f.number {
            1 | 8 => {
                let b = self.bytes(f)?;
                let (elem_type, shape) = self.tensor_type(b, f.payload)?;
                if f.number == 1 {
                    TypeKind::Tensor { elem_type, shape }
                } else {
                    TypeKind::SparseTensor { elem_type, shape }
                }
            }
            4 | 5 | 9 => {
                let b = self.bytes(f)?;
                let name = match f.number {
                    4 => "sequence_type",
                    5 => "map_type",
                    _ => "optional_type",
                };
                s.pending = (f.number, f.offset);
                let elem = State::Elem(Box::new(ElemState {
                    of: f.number,
                    key: 0,
                    elem: None,
                }));
                return Ok(Some(Frame::new(b, f.payload, depth, Some(Seg::Name(name)), elem)));
            }
            6 => {
                s.denotation = self.string(f)?;
                return Ok(None);
            }
            7 => return Err(self.error(ErrorKind::Unsupported, f.offset, "opaque types are not supported")),
            _ => return Ok(None),
        };
        if s.kind.is_some() {
            return Err(self.error(ErrorKind::Malformed, f.offset, "type with more than one kind"));
        }
        s.kind = Some(kind);
        Ok(None)
    }

    fn elem_field(&mut self, s: &mut ElemState, f: &Field<'a>, depth: usize) -> R<Child<'a>> {
        match (s.of, f.number) {
            (5, 1) => s.key = self.elem_code(f)?,
            (5, 2) | (4 | 9, 1) => {
                let b = self.bytes(f)?;
                let ty = State::Type(Box::default());
                return Ok(Some(Frame::new(b, f.payload, depth + 1, None, ty)));
            }
            _ => {}
        }
        Ok(None)
    }

    fn elem_finish(&self, s: ElemState, base: usize) -> R<TypeKind> {
        let missing = if s.of == 5 {
            "map value type missing"
        } else {
            "element type missing"
        };
        let elem = Box::new(s.elem.ok_or_else(|| self.error(ErrorKind::Malformed, base, missing))?);
        Ok(match s.of {
            4 => TypeKind::Sequence(elem),
            5 => TypeKind::Map {
                key_type: s.key,
                value: elem,
            },
            _ => TypeKind::Optional(elem),
        })
    }

    fn function_field(&mut self, s: &mut FuncState<'a>, f: &Field<'a>) -> R<Child<'a>> {
        let slot = usize::try_from(f.number).unwrap_or(usize::MAX);
        let i = s.n.get(slot).copied().unwrap_or(0);
        if let Some(c) = s.n.get_mut(slot) {
            *c += 1;
        }
        let func = &mut s.func;
        match f.number {
            1 => func.name = self.string(f)?,
            4 => func.inputs.push(self.string(f)?),
            5 => func.outputs.push(self.string(f)?),
            6 => func.attribute_names.push(self.string(f)?),
            7 | 11 | 12 => {
                let b = self.bytes(f)?;
                let (seg, state) = match f.number {
                    7 => (Seg::Index("node", i), State::Node(Box::default())),
                    11 => (Seg::Index("attribute_proto", i), State::Attribute(Box::default())),
                    _ => (Seg::Index("value_info", i), State::ValueInfo(Box::default(), 0)),
                };
                return Ok(Some(Frame::new(b, f.payload, 1, Some(seg), state)));
            }
            8 => func.doc = self.string(f)?,
            9 => {
                let b = self.bytes(f)?;
                let o = self.within(Seg::Index("opset_import", i), |d| d.opset(b, f.payload))?;
                func.opsets.push(o);
            }
            10 => func.domain = self.string(f)?,
            13 => func.overload = self.string(f)?,
            14 => {
                let b = self.bytes(f)?;
                let e = self.within(Seg::Index("metadata_props", i), |d| d.entry(b, f.payload))?;
                func.metadata.push(e);
            }
            _ => {}
        }
        Ok(None)
    }
}
