//! Graphs in the manifest read without recursion (`spec/onemodel.md` §3.3): a graph's nodes
//! hold attributes that hold graphs, 64 levels deep at most (§3.2). The open graphs (and the
//! function being read) live on a heap stack of [`Body`] frames, each with the node and the
//! attribute it is in the middle of; an attribute of type GRAPH or GRAPHS opens a frame per
//! graph, which hands its graph back when it is complete. Members are read in the order of
//! §2's tables, depth first, exactly as a recursive descent would, so the first failure in
//! reading order (§3.2) is the one reported, with the same path and offset.

use super::tape::Val;
use super::{
    Children, Cursor, FUNCTION, GRAPH, Reader, Seg, fe, metadata, opsets, opt_items, opt_list, opt_string, reserve,
    string_of,
};
use crate::invariant;
use crate::onemodel::error::{Error, ErrorKind};
use crate::onemodel::model::*;
use alloc::boxed::Box;
use alloc::vec::Vec;

type R<T> = Result<T, Error>;

/// A graph or function body being read: its value and path, its nesting level, what is
/// read so far, and where it is in its attribute defaults and nodes.
struct Body<'v, 'a> {
    value: Val<'v>,
    segs: Vec<Seg>,
    depth: usize,
    out: Out<'a>,
    /// A function's `attribute_defaults` while they are read.
    defaults: Option<Attrs<'v, 'a>>,
    /// The members read after the attribute defaults or the nodes.
    later: Later<'v>,
    /// The nodes not yet started, and the index of the next one.
    nodes: Children<'v>,
    next_node: usize,
    /// The node being read: the node, its value and index, its attributes and the value
    /// of its `metadata`.
    node: Option<(Node<'a>, Val<'v>, usize, Attrs<'v, 'a>, Option<Val<'v>>)>,
}

/// The values of a body's members that are read once its nodes are: a function's `nodes`
/// (after its attribute defaults), `opsets` and `value_info`, and `metadata`.
#[derive(Clone, Copy, Default)]
struct Later<'v> {
    nodes: Option<Val<'v>>,
    opsets: Option<Val<'v>>,
    value_info: Option<Val<'v>>,
    metadata: Option<Val<'v>>,
}

enum Out<'a> {
    Graph(Graph<'a>),
    Function(Function<'a>),
}

/// Where an attribute list is, below its body's path.
#[derive(Clone, Copy)]
enum Place {
    /// `nodes[i].attributes`.
    Node(usize),
    /// `attribute_defaults` of a function.
    Defaults,
}

impl Place {
    /// The cursor of the list, below the body's cursor.
    fn push(self, segs: &mut Vec<Seg>) {
        match self {
            Place::Node(i) => segs.extend([Seg::Name("nodes"), Seg::Index(i), Seg::Name("attributes")]),
            Place::Defaults => segs.push(Seg::Name("attribute_defaults")),
        }
    }
}

/// An attribute list being read: a node's `attributes` or a function's `attribute_defaults`.
struct Attrs<'v, 'a> {
    items: Children<'v>,
    place: Place,
    next: usize,
    out: Vec<Attribute<'a>>,
    /// An attribute of type GRAPH or GRAPHS whose graphs are being read.
    open: Option<GraphValue<'v, 'a>>,
}

/// The graphs of one GRAPH (`one`) or GRAPHS attribute: the attribute's index, the graphs
/// not yet read, and the graphs read so far.
struct GraphValue<'v, 'a> {
    attr: Attribute<'a>,
    index: usize,
    graphs: Children<'v>,
    one: bool,
    read: Vec<Graph<'a>>,
}

/// What starting an attribute gave: a finished attribute, or one whose graphs come next.
pub(super) enum Started<'v, 'a> {
    Done(Attribute<'a>),
    Graphs(Attribute<'a>, Children<'v>, bool),
}

/// A graph to open: its value and its path.
type Open<'v> = Option<(Val<'v>, Vec<Seg>)>;

impl<'v, 'a> Attrs<'v, 'a> {
    /// The attribute list of `n` elements `items`, at `place`.
    fn new((items, n): (Children<'v>, usize), place: Place) -> Self {
        Attrs {
            items,
            place,
            next: 0,
            out: reserve(n),
            open: None,
        }
    }

    /// Reads attributes until one needs a graph read (returned) or the list ends (`None`).
    /// `body` is the cursor of the graph or function the list belongs to.
    fn step(&mut self, r: &Reader<'a>, depth: usize, body: &Cursor<'v, '_>) -> R<Open<'v>> {
        loop {
            if let Some(o) = &mut self.open {
                if let Some(v) = o.graphs.next_value() {
                    let mut segs = body.segs();
                    self.place.push(&mut segs);
                    segs.extend([Seg::Index(o.index), Seg::Name("value")]);
                    if !o.one {
                        segs.push(Seg::Index(o.read.len()));
                    }
                    return Ok(Some((v, segs)));
                }
                if let Some(mut o) = self.open.take() {
                    o.attr.value = Some(match o.one {
                        // The one graph value has been read.
                        true => AttrValue::Graph(Box::new(invariant::some(o.read.pop()))),
                        false => AttrValue::Graphs(o.read),
                    });
                    self.out.push(o.attr);
                }
                continue;
            }
            let Some(v) = self.items.next_value() else {
                return Ok(None);
            };
            let index = self.next;
            self.next += 1;
            let started = match self.place {
                Place::Node(i) => {
                    let nodes = body.child(v, Seg::Name("nodes"));
                    let node = nodes.child(v, Seg::Index(i));
                    let list = node.child(v, Seg::Name("attributes"));
                    r.attribute(&list.child(v, Seg::Index(index)), depth)?
                }
                Place::Defaults => {
                    let list = body.child(v, Seg::Name("attribute_defaults"));
                    r.attribute(&list.child(v, Seg::Index(index)), depth)?
                }
            };
            match started {
                Started::Done(a) => self.out.push(a),
                Started::Graphs(attr, graphs, one) => {
                    self.open = Some(GraphValue {
                        attr,
                        index,
                        graphs,
                        one,
                        read: Vec::new(),
                    })
                }
            }
        }
    }

    /// Takes a finished graph of the open attribute.
    fn accept(&mut self, g: Graph<'a>) {
        if let Some(o) = &mut self.open {
            o.read.push(g);
        }
    }
}

impl<'v, 'a> Body<'v, 'a> {
    /// Reads on until a graph must be opened (returned) or the body is complete (`None`).
    fn step(&mut self, r: &Reader<'a>) -> R<Open<'v>> {
        let body = Cursor::at(self.value, &self.segs);
        loop {
            if let Some(list) = &mut self.defaults {
                if let Some(open) = list.step(r, self.depth, &body)? {
                    return Ok(Some(open));
                }
                let done = core::mem::take(&mut list.out);
                self.defaults = None;
                if let Out::Function(f) = &mut self.out {
                    f.attribute_defaults = done;
                }
                let (nodes, n) = opt_items(&body.found("nodes", self.later.nodes), self.value.tape())?;
                self.nodes = nodes;
                if let Out::Function(f) = &mut self.out {
                    f.nodes = reserve(n);
                }
                continue;
            }
            if let Some((node, value, i, list, meta)) = &mut self.node {
                if let Some(open) = list.step(r, self.depth, &body)? {
                    return Ok(Some(open));
                }
                node.attributes = core::mem::take(&mut list.out);
                let nodes = body.child(*value, Seg::Name("nodes"));
                let c = nodes.child(*value, Seg::Index(*i));
                node.metadata = metadata(&c.found("metadata", *meta))?;
                if let Some((node, ..)) = self.node.take() {
                    match &mut self.out {
                        Out::Graph(g) => g.nodes.push(node),
                        Out::Function(f) => f.nodes.push(node),
                    }
                }
                continue;
            }
            let Some(v) = self.nodes.next_value() else {
                return Ok(None);
            };
            let i = self.next_node;
            self.next_node += 1;
            let nodes = body.child(v, Seg::Name("nodes"));
            let c = nodes.child(v, Seg::Index(i));
            let (node, attributes, meta) = r.node_head(&c)?;
            self.node = Some((node, v, i, Attrs::new(attributes, Place::Node(i)), meta));
        }
    }

    /// Takes a finished graph for the attribute being read.
    fn accept(&mut self, g: Graph<'a>) {
        match (&mut self.defaults, &mut self.node) {
            (Some(list), _) | (None, Some((.., list, _))) => list.accept(g),
            _ => {}
        }
    }

    /// The members after the nodes: a graph's `metadata`; a function's `opsets`,
    /// `value_info` and `metadata` (§2.2, §2.8).
    fn finish(self, r: &Reader<'a>) -> R<Out<'a>> {
        let c = Cursor::at(self.value, &self.segs);
        let later = self.later;
        Ok(match self.out {
            Out::Graph(mut g) => {
                g.metadata = metadata(&c.found("metadata", later.metadata))?;
                Out::Graph(g)
            }
            Out::Function(mut f) => {
                f.opsets = opsets(&c.found("opsets", later.opsets))?;
                f.value_info = opt_list(&c.found("value_info", later.value_info), |t| r.typed_name(t, 1))?;
                f.metadata = metadata(&c.found("metadata", later.metadata))?;
                Out::Function(f)
            }
        })
    }
}

impl<'a> Reader<'a> {
    /// The Graph table (§2.2) at nesting level `depth`, its subgraphs included.
    pub(crate) fn graph(&self, c: &Cursor<'_, '_>, depth: usize) -> R<Graph<'a>> {
        let root = self.open_graph(c.value(), c.segs(), depth)?;
        match self.run(root)? {
            Out::Graph(g) => Ok(g),
            Out::Function(_) => Err(self.rule_at(c, "graph expected")),
        }
    }

    /// The Function table (§2.8); its body is nesting level 1.
    pub(super) fn function(&self, c: &Cursor<'_, '_>) -> R<Function<'a>> {
        let [
            name,
            domain,
            overload,
            doc,
            inputs,
            outputs,
            attribute_names,
            attribute_defaults,
            nodes,
            opsets,
            value_info,
            metadata,
        ] = c.fields(FUNCTION).map_err(fe)?;
        let func = Function {
            name: super::req_string(&name)?,
            domain: opt_string(&domain)?,
            overload: opt_string(&overload)?,
            doc: opt_string(&doc)?,
            inputs: opt_list(&inputs, string_of)?,
            outputs: opt_list(&outputs, string_of)?,
            attribute_names: opt_list(&attribute_names, string_of)?,
            ..Function::default()
        };
        let tape = c.value().tape();
        let defaults = Attrs::new(opt_items(&attribute_defaults, tape)?, Place::Defaults);
        let root = Body {
            value: c.value(),
            segs: c.segs(),
            depth: 1,
            out: Out::Function(func),
            defaults: Some(defaults),
            later: Later {
                nodes: nodes.value(),
                opsets: opsets.value(),
                value_info: value_info.value(),
                metadata: metadata.value(),
            },
            nodes: Children::empty(c.value().tape()),
            next_node: 0,
            node: None,
        };
        match self.run(root)? {
            Out::Function(f) => Ok(f),
            Out::Graph(_) => Err(self.rule_at(c, "function expected")),
        }
    }

    fn rule_at(&self, c: &Cursor<'_, '_>, msg: &'static str) -> Error {
        super::rule(c, ErrorKind::Malformed, msg)
    }

    /// The read loop over the heap stack of open bodies; it holds at most one frame per
    /// nesting level (§3.2), however deep graphs nest. The root body stays out of the heap
    /// stack, so a body without subgraphs (most graphs and functions) needs none.
    fn run<'v>(&self, mut root: Body<'v, 'a>) -> R<Out<'a>> {
        let mut open: Vec<Body<'v, 'a>> = Vec::new();
        loop {
            let top = match open.last_mut() {
                Some(top) => top,
                None => &mut root,
            };
            match top.step(self)? {
                Some((value, segs)) => {
                    let depth = top.depth + 1;
                    let child = self.open_graph(value, segs, depth)?;
                    open.push(child);
                }
                None => {
                    let Some(body) = open.pop() else {
                        return root.finish(self);
                    };
                    if let Out::Graph(g) = body.finish(self)? {
                        open.last_mut().unwrap_or(&mut root).accept(g);
                    }
                }
            }
        }
    }

    /// Opens a graph (§2.2) at `segs`: the nesting limit, then its members up to `nodes`.
    fn open_graph<'v>(&self, value: Val<'v>, segs: Vec<Seg>, depth: usize) -> R<Body<'v, 'a>> {
        let c = Cursor::at(value, &segs);
        if depth > self.max_nesting {
            return Err(super::rule(
                &c,
                ErrorKind::LimitExceeded,
                "graphs and types nested too deeply",
            ));
        }
        let [
            name,
            doc,
            initializers,
            sparse_initializers,
            inputs,
            outputs,
            value_info,
            nodes,
            metadata,
        ] = c.fields(GRAPH).map_err(fe)?;
        let mut g = Graph {
            name: opt_string(&name)?,
            doc: opt_string(&doc)?,
            initializers: opt_list(&initializers, |t| self.tensor(t))?,
            sparse_initializers: opt_list(&sparse_initializers, |t| self.sparse(t))?,
            inputs: opt_list(&inputs, |t| self.typed_name(t, depth))?,
            outputs: opt_list(&outputs, |t| self.typed_name(t, depth))?,
            value_info: opt_list(&value_info, |t| self.typed_name(t, depth))?,
            ..Graph::default()
        };
        let (nodes, n) = opt_items(&nodes, value.tape())?;
        g.nodes = reserve(n);
        let later = Later {
            metadata: metadata.value(),
            ..Later::default()
        };
        Ok(Body {
            value,
            segs,
            depth,
            out: Out::Graph(g),
            defaults: None,
            later,
            nodes,
            next_node: 0,
            node: None,
        })
    }
}
