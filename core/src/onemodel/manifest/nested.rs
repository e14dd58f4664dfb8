//! Graphs in the manifest read without recursion (`spec/onemodel.md` §3.3): a graph's nodes
//! hold attributes that hold graphs, 64 levels deep at most (§3.2). The open graphs (and the
//! function being read) live on a heap stack of [`Body`] frames, each with the node and the
//! attribute it is in the middle of; an attribute of type GRAPH or GRAPHS opens a frame per
//! graph, which hands its graph back when it is complete. Members are read in the order of
//! §2's tables, depth first, exactly as a recursive descent would, so the first failure in
//! reading order (§3.2) is the one reported, with the same path and offset.

use super::{Reader, fe, metadata, opsets, opt_list, opt_string, string_of};
use crate::json::{Cursor, Value};
use crate::onemodel::error::{Error, ErrorKind};
use crate::onemodel::model::*;
use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

type R<T> = Result<T, Error>;

/// A graph or function body being read: its value and path, its nesting level, what is
/// read so far, and where it is in its attribute defaults and nodes.
struct Body<'v, 'a> {
    value: &'v Value,
    path: String,
    depth: usize,
    out: Out<'a>,
    /// A function's `attribute_defaults` while they are read.
    defaults: Option<Attrs<'v, 'a>>,
    nodes: &'v [Value],
    next_node: usize,
    /// The node being read, its value and path, and its attributes.
    node: Option<(Node<'a>, &'v Value, String, Attrs<'v, 'a>)>,
}

enum Out<'a> {
    Graph(Graph<'a>),
    Function(Function<'a>),
}

/// An attribute list being read: a node's `attributes` or a function's `attribute_defaults`.
struct Attrs<'v, 'a> {
    items: &'v [Value],
    path: String,
    next: usize,
    out: Vec<Attribute<'a>>,
    /// An attribute of type GRAPH or GRAPHS whose graphs are being read.
    open: Option<GraphValue<'v, 'a>>,
}

/// The graphs of one GRAPH (`one`) or GRAPHS attribute: their values, the path of `value`,
/// and the graphs read so far.
struct GraphValue<'v, 'a> {
    attr: Attribute<'a>,
    graphs: &'v [Value],
    one: bool,
    path: String,
    read: Vec<Graph<'a>>,
}

/// What starting an attribute gave: a finished attribute, or one whose graphs come next.
pub(super) enum Started<'v, 'a> {
    Done(Attribute<'a>),
    Graphs(Attribute<'a>, &'v [Value], bool),
}

/// A graph to open: its value and its path.
type Open<'v> = Option<(&'v Value, String)>;

/// The elements of the optional array `name` of `c` (`[]` when absent).
fn opt_items<'v>(c: &Cursor<'v, '_>, name: &str) -> R<&'v [Value]> {
    match c.opt_field(name).map_err(fe)? {
        Some(f) => f.array().map_err(fe),
        None => Ok(&[]),
    }
}

impl<'v, 'a> Attrs<'v, 'a> {
    fn new(items: &'v [Value], path: String) -> Self {
        Attrs {
            items,
            path,
            next: 0,
            out: Vec::new(),
            open: None,
        }
    }

    /// Reads attributes until one needs a graph read (returned) or the list ends (`None`).
    fn step(&mut self, r: &Reader<'a>, depth: usize) -> R<Open<'v>> {
        loop {
            if let Some(o) = &mut self.open {
                if let Some(v) = o.graphs.get(o.read.len()) {
                    let path = if o.one {
                        o.path.clone()
                    } else {
                        format!("{}[{}]", o.path, o.read.len())
                    };
                    return Ok(Some((v, path)));
                }
                if let Some(mut o) = self.open.take() {
                    o.attr.value = Some(match o.one {
                        true => AttrValue::Graph(Box::new(o.read.pop().unwrap_or_default())),
                        false => AttrValue::Graphs(o.read),
                    });
                    self.out.push(o.attr);
                }
                continue;
            }
            let Some(v) = self.items.get(self.next) else {
                return Ok(None);
            };
            let path = format!("{}[{}]", self.path, self.next);
            self.next += 1;
            match r.attribute(&Cursor::root(v, &path), depth)? {
                Started::Done(a) => self.out.push(a),
                Started::Graphs(attr, graphs, one) => {
                    self.open = Some(GraphValue {
                        attr,
                        graphs,
                        one,
                        path: format!("{path}.value"),
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
        loop {
            if let Some(list) = &mut self.defaults {
                if let Some(open) = list.step(r, self.depth)? {
                    return Ok(Some(open));
                }
                let done = core::mem::take(&mut list.out);
                self.defaults = None;
                if let Out::Function(f) = &mut self.out {
                    f.attribute_defaults = done;
                }
                self.nodes = opt_items(&Cursor::root(self.value, &self.path), "nodes")?;
                continue;
            }
            if let Some((node, value, path, list)) = &mut self.node {
                if let Some(open) = list.step(r, self.depth)? {
                    return Ok(Some(open));
                }
                node.attributes = core::mem::take(&mut list.out);
                node.metadata = metadata(&Cursor::root(value, path))?;
                if let Some((node, ..)) = self.node.take() {
                    match &mut self.out {
                        Out::Graph(g) => g.nodes.push(node),
                        Out::Function(f) => f.nodes.push(node),
                    }
                }
                continue;
            }
            let Some(v) = self.nodes.get(self.next_node) else {
                return Ok(None);
            };
            let path = format!("{}.nodes[{}]", self.path, self.next_node);
            self.next_node += 1;
            let c = Cursor::root(v, &path);
            let node = r.node_head(&c)?;
            let attrs = Attrs::new(opt_items(&c, "attributes")?, format!("{path}.attributes"));
            self.node = Some((node, v, path, attrs));
        }
    }

    /// Takes a finished graph for the attribute being read.
    fn accept(&mut self, g: Graph<'a>) {
        match (&mut self.defaults, &mut self.node) {
            (Some(list), _) | (None, Some((.., list))) => list.accept(g),
            _ => {}
        }
    }

    /// The members after the nodes: a graph's `metadata`; a function's `opsets`,
    /// `value_info` and `metadata` (§2.2, §2.8).
    fn finish(self, r: &Reader<'a>) -> R<Out<'a>> {
        let c = Cursor::root(self.value, &self.path);
        Ok(match self.out {
            Out::Graph(mut g) => {
                g.metadata = metadata(&c)?;
                Out::Graph(g)
            }
            Out::Function(mut f) => {
                f.opsets = opsets(&c)?;
                f.value_info = opt_list(&c, "value_info", |t| r.typed_name(t, 1))?;
                f.metadata = metadata(&c)?;
                Out::Function(f)
            }
        })
    }
}

impl<'a> Reader<'a> {
    /// The Graph table (§2.2) at nesting level `depth`, its subgraphs included.
    pub fn graph(&self, c: &Cursor<'_, '_>, depth: usize) -> R<Graph<'a>> {
        let root = self.open_graph(c.value(), c.path(), depth)?;
        match self.run(root)? {
            Out::Graph(g) => Ok(g),
            Out::Function(_) => Err(self.rule_at(c, "graph expected")),
        }
    }

    /// The Function table (§2.8); its body is nesting level 1.
    pub(super) fn function(&self, c: &Cursor<'_, '_>) -> R<Function<'a>> {
        let func = Function {
            name: super::req_string(c, "name")?,
            domain: opt_string(c, "domain")?,
            overload: opt_string(c, "overload")?,
            doc: opt_string(c, "doc")?,
            inputs: opt_list(c, "inputs", string_of)?,
            outputs: opt_list(c, "outputs", string_of)?,
            attribute_names: opt_list(c, "attribute_names", string_of)?,
            ..Function::default()
        };
        let path = c.path();
        let defaults = Attrs::new(
            opt_items(c, "attribute_defaults")?,
            format!("{path}.attribute_defaults"),
        );
        let root = Body {
            value: c.value(),
            path,
            depth: 1,
            out: Out::Function(func),
            defaults: Some(defaults),
            nodes: &[],
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
    /// nesting level (§3.2), however deep graphs nest.
    fn run<'v>(&self, root: Body<'v, 'a>) -> R<Out<'a>> {
        let mut stack = alloc::vec![root];
        loop {
            let Some(top) = stack.last_mut() else {
                return Err(Error::at_path(
                    ErrorKind::Malformed,
                    String::from("manifest"),
                    None,
                    "empty",
                ));
            };
            match top.step(self)? {
                Some((value, path)) => {
                    let depth = top.depth + 1;
                    let child = self.open_graph(value, path, depth)?;
                    stack.push(child);
                }
                None => {
                    let Some(body) = stack.pop() else { continue };
                    let out = body.finish(self)?;
                    match (stack.last_mut(), out) {
                        (Some(parent), Out::Graph(g)) => parent.accept(g),
                        (None, out) => return Ok(out),
                        (Some(_), Out::Function(_)) => {}
                    }
                }
            }
        }
    }

    /// Opens a graph (§2.2): the nesting limit, then its members up to `nodes`.
    fn open_graph<'v>(&self, value: &'v Value, path: String, depth: usize) -> R<Body<'v, 'a>> {
        let c = Cursor::root(value, &path);
        if depth > self.max_nesting {
            return Err(super::rule(
                &c,
                ErrorKind::LimitExceeded,
                "graphs and types nested too deeply",
            ));
        }
        c.object().map_err(fe)?;
        let g = Graph {
            name: opt_string(&c, "name")?,
            doc: opt_string(&c, "doc")?,
            initializers: opt_list(&c, "initializers", |t| self.tensor(t))?,
            sparse_initializers: opt_list(&c, "sparse_initializers", |t| self.sparse(t))?,
            inputs: opt_list(&c, "inputs", |t| self.typed_name(t, depth))?,
            outputs: opt_list(&c, "outputs", |t| self.typed_name(t, depth))?,
            value_info: opt_list(&c, "value_info", |t| self.typed_name(t, depth))?,
            ..Graph::default()
        };
        let nodes = opt_items(&c, "nodes")?;
        Ok(Body {
            value,
            path,
            depth,
            out: Out::Graph(g),
            defaults: None,
            nodes,
            next_node: 0,
            node: None,
        })
    }
}
