//! Name resolution (`spec/onemodel.md` §3.1): one definition per name per graph,
//! initializers attaching to same-named inputs, subgraphs reading enclosing values,
//! undefined names, unknown opset domains, declared types from `value_info`, and the stable
//! dependency order of nodes with cycles rejected.
//!
//! O(n log n) in the number of names and nodes: ordered maps per graph, a scope chain no
//! deeper than the nesting limit, and Kahn's algorithm with a min-heap keyed by file
//! position (so nodes already in order keep their positions). Two phases: the first only
//! reads the model and records each graph's order; the second applies the orders in the
//! same visiting order.

use super::error::{Error, ErrorKind, manifest_offset};
use super::manifest::normal_domain;
use super::model::{AttrValue, Attribute, Function, Graph, Model, Node, TypedName};
use crate::json::{Node as JNode, Value};
use alloc::collections::{BTreeMap, BTreeSet, BinaryHeap};
use alloc::string::String;
use alloc::vec::Vec;
use core::cmp::Reverse;
use core::fmt::Write;

/// One step of a manifest path.
#[derive(Clone, Copy)]
enum Seg {
    Name(&'static str),
    Index(usize),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Def {
    Input,
    Value,
    Node(usize),
}

/// No node is being resolved in this frame (graph outputs, value_info).
const NO_NODE: usize = usize::MAX;

struct Frame<'m> {
    defs: BTreeMap<&'m str, Def>,
    /// (producer, consumer) node pairs within this frame's graph.
    edges: Vec<(usize, usize)>,
    /// The node of this graph whose inputs or subgraphs are being resolved.
    current: usize,
}

struct Resolver<'m, 'v> {
    frames: Vec<Frame<'m>>,
    path: Vec<Seg>,
    root: Option<&'v Value>,
    orders: Vec<Vec<usize>>,
    model_domains: BTreeSet<&'m str>,
    fn_domains: Option<BTreeSet<&'m str>>,
}

type R<T> = Result<T, Error>;

/// Resolves every name of `model` and puts each graph's and function's nodes in dependency
/// order (§3.1). `manifest`, when given, is the parsed manifest the model was read from:
/// errors then carry the file offset of the offending value.
pub fn resolve(model: &mut Model<'_>, manifest: Option<&Value>) -> Result<(), Error> {
    let orders = {
        let mut r = Resolver {
            frames: Vec::new(),
            path: Vec::new(),
            root: manifest,
            orders: Vec::new(),
            model_domains: model.opsets.iter().map(|o| normal_domain(&o.domain)).collect(),
            fn_domains: None,
        };
        r.path.push(Seg::Name("graph"));
        r.graph(&model.graph)?;
        r.path.pop();
        for (i, f) in model.functions.iter().enumerate() {
            r.path.extend([Seg::Name("functions"), Seg::Index(i)]);
            r.function(f)?;
            r.path.truncate(r.path.len().saturating_sub(2));
        }
        r.orders
    };
    let mut orders = orders.into_iter();
    apply_graph(&mut model.graph, &mut orders);
    for f in &mut model.functions {
        apply_nodes(&mut f.nodes, &mut orders);
        apply_attrs(&mut f.attribute_defaults, &mut orders);
        permute(&mut f.nodes, orders.next());
    }
    Ok(())
}

impl<'m> Resolver<'m, '_> {
    fn error(&self, extra: &[Seg], message: &'static str) -> Error {
        let mut path = String::from("manifest");
        let mut at = self.root;
        let mut offset = self.root.map(|v| v.offset);
        for seg in self.path.iter().chain(extra) {
            match *seg {
                Seg::Name(n) => {
                    path.push('.');
                    path.push_str(n);
                    at = at.and_then(|v| v.get(n));
                }
                Seg::Index(i) => {
                    let _ = write!(path, "[{i}]");
                    at = at.and_then(|v| match &v.node {
                        JNode::Array(items) => items.get(i),
                        _ => None,
                    });
                }
            }
            if let Some(v) = at {
                offset = Some(v.offset);
            }
        }
        Error::at_path(ErrorKind::Malformed, path, offset.map(manifest_offset), message)
    }

    fn define(&self, defs: &mut BTreeMap<&'m str, Def>, name: &'m str, def: Def, at: &[Seg]) -> R<()> {
        if defs.insert(name, def).is_some() {
            return Err(self.error(at, "name defined twice in one graph"));
        }
        Ok(())
    }

    /// Initializers and sparse initializers: attach to a same-named input once, else define.
    fn define_initializer(
        &self,
        defs: &mut BTreeMap<&'m str, Def>,
        attached: &mut BTreeSet<&'m str>,
        name: &'m str,
        at: &[Seg],
    ) -> R<()> {
        match defs.get(name) {
            Some(Def::Input) if attached.insert(name) => Ok(()),
            Some(_) => Err(self.error(at, "name defined twice in one graph")),
            None => self.define(defs, name, Def::Value, at),
        }
    }

    /// Finds `name` from the innermost graph outwards; a node output adds a dependency of
    /// the node being resolved in that graph (§3.1 rules 2 and 3).
    fn lookup(&mut self, name: &str) -> bool {
        for frame in self.frames.iter_mut().rev() {
            if let Some(def) = frame.defs.get(name) {
                if let (Def::Node(k), true) = (*def, frame.current != NO_NODE) {
                    frame.edges.push((k, frame.current));
                }
                return true;
            }
        }
        false
    }

    fn node_outputs(&self, defs: &mut BTreeMap<&'m str, Def>, nodes: &'m [Node<'_>]) -> R<()> {
        for (i, n) in nodes.iter().enumerate() {
            for (j, o) in n.outputs.iter().enumerate() {
                if !o.is_empty() {
                    let at = [Seg::Name("nodes"), Seg::Index(i), Seg::Name("outputs"), Seg::Index(j)];
                    self.define(defs, o, Def::Node(i), &at)?;
                }
            }
        }
        Ok(())
    }

    fn graph(&mut self, g: &'m Graph<'_>) -> R<()> {
        let mut defs = BTreeMap::new();
        for (i, t) in g.inputs.iter().enumerate() {
            self.define(
                &mut defs,
                &t.name,
                Def::Input,
                &[Seg::Name("inputs"), Seg::Index(i), Seg::Name("name")],
            )?;
        }
        let mut attached = BTreeSet::new();
        for (i, t) in g.initializers.iter().enumerate() {
            let at = [Seg::Name("initializers"), Seg::Index(i), Seg::Name("name")];
            self.define_initializer(&mut defs, &mut attached, &t.name, &at)?;
        }
        for (i, s) in g.sparse_initializers.iter().enumerate() {
            let at = [
                Seg::Name("sparse_initializers"),
                Seg::Index(i),
                Seg::Name("values"),
                Seg::Name("name"),
            ];
            self.define_initializer(&mut defs, &mut attached, &s.values.name, &at)?;
        }
        self.node_outputs(&mut defs, &g.nodes)?;
        self.frames.push(Frame {
            defs,
            edges: Vec::new(),
            current: NO_NODE,
        });
        self.nodes(&g.nodes)?;
        for (i, o) in g.outputs.iter().enumerate() {
            if !self.lookup(&o.name) {
                return Err(self.error(
                    &[Seg::Name("outputs"), Seg::Index(i), Seg::Name("name")],
                    "undefined name",
                ));
            }
        }
        self.value_info(&g.value_info)?;
        self.finish(g.nodes.len())
    }

    fn function(&mut self, f: &'m Function<'_>) -> R<()> {
        let outer = core::mem::take(&mut self.frames);
        let mut domains = self.model_domains.clone();
        domains.extend(f.opsets.iter().map(|o| normal_domain(&o.domain)));
        self.fn_domains = Some(domains);
        let mut defs = BTreeMap::new();
        for (i, name) in f.inputs.iter().enumerate() {
            self.define(&mut defs, name, Def::Input, &[Seg::Name("inputs"), Seg::Index(i)])?;
        }
        self.node_outputs(&mut defs, &f.nodes)?;
        self.frames.push(Frame {
            defs,
            edges: Vec::new(),
            current: NO_NODE,
        });
        self.nodes(&f.nodes)?;
        for (i, o) in f.outputs.iter().enumerate() {
            if !self.lookup(o) {
                return Err(self.error(&[Seg::Name("outputs"), Seg::Index(i)], "undefined name"));
            }
        }
        self.value_info(&f.value_info)?;
        self.path.push(Seg::Name("attribute_defaults"));
        self.attributes(&f.attribute_defaults)?;
        self.path.pop();
        self.finish(f.nodes.len())?;
        self.fn_domains = None;
        self.frames = outer;
        Ok(())
    }

    fn nodes(&mut self, nodes: &'m [Node<'_>]) -> R<()> {
        for (i, n) in nodes.iter().enumerate() {
            if let Some(top) = self.frames.last_mut() {
                top.current = i;
            }
            let domain = normal_domain(&n.domain);
            let known = match &self.fn_domains {
                Some(d) => d.contains(domain),
                None => self.model_domains.contains(domain),
            };
            if !known {
                return Err(self.error(
                    &[Seg::Name("nodes"), Seg::Index(i), Seg::Name("domain")],
                    "node domain has no operator set",
                ));
            }
            for (j, input) in n.inputs.iter().enumerate() {
                if !input.is_empty() && !self.lookup(input) {
                    let at = [Seg::Name("nodes"), Seg::Index(i), Seg::Name("inputs"), Seg::Index(j)];
                    return Err(self.error(&at, "undefined name"));
                }
            }
            self.path
                .extend([Seg::Name("nodes"), Seg::Index(i), Seg::Name("attributes")]);
            self.attributes(&n.attributes)?;
            self.path.truncate(self.path.len().saturating_sub(3));
        }
        if let Some(top) = self.frames.last_mut() {
            top.current = NO_NODE;
        }
        Ok(())
    }

    fn attributes(&mut self, attrs: &'m [Attribute<'_>]) -> R<()> {
        for (k, a) in attrs.iter().enumerate() {
            match &a.value {
                Some(AttrValue::Graph(g)) => {
                    self.path.extend([Seg::Index(k), Seg::Name("value")]);
                    self.graph(g)?;
                    self.path.truncate(self.path.len().saturating_sub(2));
                }
                Some(AttrValue::Graphs(gs)) => {
                    for (l, g) in gs.iter().enumerate() {
                        self.path.extend([Seg::Index(k), Seg::Name("value"), Seg::Index(l)]);
                        self.graph(g)?;
                        self.path.truncate(self.path.len().saturating_sub(3));
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// §3.1 rule 5: each entry names a visible value, at most once per graph.
    fn value_info(&mut self, info: &'m [TypedName]) -> R<()> {
        let mut seen = BTreeSet::new();
        for (i, t) in info.iter().enumerate() {
            let at = [Seg::Name("value_info"), Seg::Index(i), Seg::Name("name")];
            if !self.lookup(&t.name) {
                return Err(self.error(&at, "value_info names an undefined value"));
            }
            if !seen.insert(t.name.as_str()) {
                return Err(self.error(&at, "second value_info entry for one name"));
            }
        }
        Ok(())
    }

    /// Pops the graph's frame and records its stable dependency order (§3.1 rule 3).
    fn finish(&mut self, n: usize) -> R<()> {
        let Some(frame) = self.frames.pop() else {
            return Ok(());
        };
        match stable_order(n, &frame.edges) {
            Ok(order) => {
                self.orders.push(order);
                Ok(())
            }
            Err(i) => Err(self.error(&[Seg::Name("nodes"), Seg::Index(i)], "nodes form a cycle")),
        }
    }
}

/// Kahn's algorithm with a min-heap of file positions: among ready nodes the earliest goes
/// first, so an order that already respects `edges` is kept as is. `Err(i)`: node `i` is
/// the first (in file order) that a cycle keeps from being placed.
fn stable_order(n: usize, edges: &[(usize, usize)]) -> Result<Vec<usize>, usize> {
    let mut indegree = alloc::vec![0usize; n];
    let mut start = alloc::vec![0usize; n + 1];
    for &(from, to) in edges {
        if let (Some(d), Some(s)) = (indegree.get_mut(to), start.get_mut(from + 1)) {
            *d += 1;
            *s += 1;
        }
    }
    for i in 0..n {
        let prev = start.get(i).copied().unwrap_or(0);
        if let Some(s) = start.get_mut(i + 1) {
            *s += prev;
        }
    }
    let mut fill = start.clone();
    let mut succ = alloc::vec![0usize; edges.len()];
    for &(from, to) in edges {
        if let Some(f) = fill.get_mut(from) {
            if let Some(slot) = succ.get_mut(*f) {
                *slot = to;
            }
            *f += 1;
        }
    }
    let mut ready: BinaryHeap<Reverse<usize>> = indegree
        .iter()
        .enumerate()
        .filter(|(_, d)| **d == 0)
        .map(|(i, _)| Reverse(i))
        .collect();
    let mut order = Vec::with_capacity(n);
    while let Some(Reverse(i)) = ready.pop() {
        order.push(i);
        let (lo, hi) = (
            start.get(i).copied().unwrap_or(0),
            start.get(i + 1).copied().unwrap_or(0),
        );
        for &to in succ.get(lo..hi).unwrap_or_default() {
            if let Some(d) = indegree.get_mut(to) {
                *d -= 1;
                if *d == 0 {
                    ready.push(Reverse(to));
                }
            }
        }
    }
    if order.len() == n {
        Ok(order)
    } else {
        Err(indegree.iter().position(|&d| d > 0).unwrap_or(0))
    }
}

fn apply_graph(g: &mut Graph<'_>, orders: &mut impl Iterator<Item = Vec<usize>>) {
    apply_nodes(&mut g.nodes, orders);
    permute(&mut g.nodes, orders.next());
}

fn apply_nodes(nodes: &mut [Node<'_>], orders: &mut impl Iterator<Item = Vec<usize>>) {
    for n in nodes {
        apply_attrs(&mut n.attributes, orders);
    }
}

fn apply_attrs(attrs: &mut [Attribute<'_>], orders: &mut impl Iterator<Item = Vec<usize>>) {
    for a in attrs {
        match &mut a.value {
            Some(AttrValue::Graph(g)) => apply_graph(g, orders),
            Some(AttrValue::Graphs(gs)) => gs.iter_mut().for_each(|g| apply_graph(g, orders)),
            _ => {}
        }
    }
}

fn permute<T>(items: &mut Vec<T>, order: Option<Vec<usize>>) {
    let Some(order) = order else { return };
    if order.len() != items.len() || order.iter().enumerate().all(|(i, &j)| i == j) {
        return;
    }
    let mut slots: Vec<Option<T>> = core::mem::take(items).into_iter().map(Some).collect();
    items.extend(order.iter().filter_map(|&i| slots.get_mut(i).and_then(Option::take)));
}

#[cfg(test)]
mod tests {
    use super::stable_order;
    use alloc::vec;

    #[test]
    fn stable_order_keeps_ordered_nodes() {
        assert_eq!(stable_order(3, &[(0, 1), (1, 2)]), Ok(vec![0, 1, 2]));
        assert_eq!(stable_order(4, &[(3, 0)]), Ok(vec![1, 2, 3, 0]));
        assert_eq!(stable_order(3, &[(2, 0), (2, 1)]), Ok(vec![2, 0, 1]));
    }

    #[test]
    fn cycle_reports_first_unplaced() {
        assert_eq!(stable_order(4, &[(2, 1), (1, 2)]), Err(1));
        assert_eq!(stable_order(1, &[(0, 0)]), Err(0));
    }
}
