//! Name resolution (`spec/onemodel.md` §3.1): one definition per name per graph,
//! initializers attaching to same-named inputs, subgraphs reading enclosing values,
//! undefined names, unknown opset domains, declared types from `value_info`, and the stable
//! dependency order of nodes with cycles rejected.
//!
//! O(n log n) in the number of names and nodes: each graph's definitions sorted once
//! (`names/defs.rs`) and found by binary search, a scope chain no
//! deeper than the nesting limit, and Kahn's algorithm with a min-heap keyed by file
//! position (so nodes already in order keep their positions). Two phases: the first only
//! reads the model and records each graph's order; the second applies the orders in the
//! same visiting order.

use super::error::{Error, ErrorKind, manifest_offset};
use super::manifest::{Seg, Val, locate, normal_domain, render, same};
use super::model::{AttrValue, Attribute, Function, Graph, Model, Node, TypedName};
use crate::invariant;
use crate::unique;
use alloc::collections::BinaryHeap;
use alloc::vec::Vec;
use core::cmp::Reverse;

use defs::{At, Collect, Defs, Key, NameSet};

mod defs;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Def {
    Input,
    Value,
    Node(usize),
}

/// No node is being resolved in this frame (graph outputs, value_info).
const NO_NODE: usize = usize::MAX;

struct Frame<'m> {
    defs: Defs<'m>,
    /// (producer, consumer) node pairs within this frame's graph.
    edges: Vec<(usize, usize)>,
    /// The node of this graph whose inputs or subgraphs are being resolved.
    current: usize,
}

/// Work left to do, on a heap stack instead of the call stack (§3.3): subgraphs are
/// visited depth first, in document order, without one call per nesting level.
enum Task<'m, 'a> {
    /// Define a graph's names and open its scope, then resolve its nodes and close it.
    Graph(&'m Graph<'a>),
    /// Resolve the nodes of the innermost graph from index `.1` on.
    Nodes(&'m [Node<'a>], usize),
    /// Visit the subgraphs of the attributes from attribute `.1`, graph `.2` on.
    Attrs(&'m [Attribute<'a>], usize, usize),
    /// A graph's outputs and `value_info`, then its node order.
    Close(&'m Graph<'a>),
    /// Leave this many path segments.
    Pop(usize),
}

struct Resolver<'m, 'v> {
    frames: Vec<Frame<'m>>,
    path: Vec<Seg>,
    root: Option<Val<'v>>,
    orders: Vec<Vec<usize>>,
    model_domains: NameSet<'m>,
    fn_domains: Option<NameSet<'m>>,
    /// The domain of the last node resolved, known to have an operator set in the
    /// current scope (the model's, or a function's with the model's).
    known_domain: Option<&'m str>,
}

type R<T> = Result<T, Error>;

/// Resolves every name of `model` and puts each graph's and function's nodes in dependency
/// order (§3.1). Errors carry the manifest path of the offending value, without a file
/// offset (the model need not come from a file).
pub fn resolve(model: &mut Model<'_>) -> Result<(), Error> {
    resolve_in(model, None)
}

/// [`resolve`] for a model read from a manifest: errors then also carry the file offset of
/// the offending value, found from its path on the manifest's tape.
pub(crate) fn resolve_in(model: &mut Model<'_>, manifest: Option<Val<'_>>) -> Result<(), Error> {
    let mut orders = orders(model, manifest)?.into_iter();
    reorder(&mut model.graph.nodes, &mut Vec::new(), &mut orders);
    for f in &mut model.functions {
        reorder(&mut f.nodes, &mut f.attribute_defaults, &mut orders);
    }
    Ok(())
}

/// Checks every rule of [`resolve`] (§3.1) without reordering anything: the writer refuses a
/// model that would fail resolution when read back (§4). Errors are [`resolve`]'s.
pub(crate) fn check(model: &Model<'_>) -> Result<(), Error> {
    orders(model, None).map(drop)
}

/// The first phase of resolution: every rule checked, each graph's node order recorded.
fn orders(model: &Model<'_>, manifest: Option<Val<'_>>) -> R<Vec<Vec<usize>>> {
    let mut r = Resolver {
        frames: Vec::new(),
        path: Vec::new(),
        root: manifest,
        orders: Vec::new(),
        model_domains: model.opsets.iter().map(|o| normal_domain(&o.domain)).collect(),
        fn_domains: None,
        known_domain: None,
    };
    r.path.push(Seg::Name("graph"));
    r.run(alloc::vec![Task::Graph(&model.graph)])?;
    r.path.pop();
    for (i, f) in model.functions.iter().enumerate() {
        r.path.extend([Seg::Name("functions"), Seg::Index(i)]);
        r.function(f)?;
        r.path.truncate(r.path.len().saturating_sub(2));
    }
    Ok(r.orders)
}

impl<'m> Resolver<'m, '_> {
    fn error(&self, extra: &[Seg], message: &'static str) -> Error {
        let mut segs = self.path.clone();
        segs.extend_from_slice(extra);
        let offset = self.root.map(|root| manifest_offset(locate(root, &segs)));
        Error::at_path(ErrorKind::Malformed, render(&segs), offset, message)
    }

    /// Sorts a graph's definitions (§3.1 rule 1); a second definition of a name is
    /// Malformed at the first such definition.
    fn defined(&self, collect: Collect<'m>) -> R<Defs<'m>> {
        collect
            .finish()
            .map_err(|at| self.error(&at.segs(), "name defined twice in one graph"))
    }

    /// Finds `name` from the innermost graph outwards; a node output adds a dependency of
    /// the node being resolved in that graph (§3.1 rules 2 and 3).
    fn lookup(&mut self, name: &str) -> bool {
        let key = Key::new(name);
        for frame in self.frames.iter_mut().rev() {
            if let Some(def) = frame.defs.get(&key) {
                if let (Def::Node(k), true) = (def, frame.current != NO_NODE) {
                    frame.edges.push((k, frame.current));
                }
                return true;
            }
        }
        false
    }

    fn node_outputs(defs: &mut Collect<'m>, nodes: &'m [Node<'_>]) {
        for (i, n) in nodes.iter().enumerate() {
            for (j, o) in n.outputs.iter().enumerate() {
                if !o.is_empty() {
                    defs.define(o, Def::Node(i), At::Output(i, j));
                }
            }
        }
    }

    /// Runs tasks until none is left.
    fn run<'a>(&mut self, mut tasks: Vec<Task<'m, 'a>>) -> R<()> {
        while let Some(task) = tasks.pop() {
            match task {
                Task::Graph(g) => {
                    self.open(g)?;
                    tasks.push(Task::Close(g));
                    tasks.push(Task::Nodes(&g.nodes, 0));
                }
                Task::Nodes(nodes, i) => self.node(nodes, i, &mut tasks)?,
                Task::Attrs(attrs, k, l) => self.subgraph(attrs, k, l, &mut tasks),
                Task::Close(g) => self.close(g)?,
                Task::Pop(n) => self.path.truncate(self.path.len().saturating_sub(n)),
            }
        }
        Ok(())
    }

    /// Defines a graph's inputs, initializers and node outputs and opens its scope (§3.1
    /// rule 1).
    fn open(&mut self, g: &'m Graph<'_>) -> R<()> {
        let outputs: usize = g.nodes.iter().map(|n| n.outputs.len()).sum();
        let n = g.inputs.len() + g.initializers.len() + g.sparse_initializers.len() + outputs;
        let mut defs = Collect::with_capacity(n);
        for (i, t) in g.inputs.iter().enumerate() {
            defs.define(&t.name, Def::Input, At::Input(i));
        }
        for (i, t) in g.initializers.iter().enumerate() {
            defs.define(&t.name, Def::Value, At::Initializer(i));
        }
        for (i, s) in g.sparse_initializers.iter().enumerate() {
            defs.define(&s.values.name, Def::Value, At::Sparse(i));
        }
        Self::node_outputs(&mut defs, &g.nodes);
        let defs = self.defined(defs)?;
        // Most inputs name another node's output: about one edge each.
        let inputs = g.nodes.iter().map(|n| n.inputs.len()).sum();
        self.frames.push(Frame {
            defs,
            edges: Vec::with_capacity(inputs),
            current: NO_NODE,
        });
        Ok(())
    }

    /// A graph's outputs name visible values (rule 2), its `value_info` (rule 5), then
    /// its node order (rule 3).
    fn close(&mut self, g: &'m Graph<'_>) -> R<()> {
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

    /// Resolves function `f` in a scope of its own: `orders` resolves functions after the
    /// model's graph, whose frames are all closed by then, so none is visible here and the
    /// frame stack keeps its allocation from one function to the next.
    fn function(&mut self, f: &'m Function<'_>) -> R<()> {
        // A function's nodes may use the model's domains and its own (rule 4). Its own are
        // collected alone: copying the model's set per function would cost opsets ×
        // functions, quadratic in the manifest (§3.1 promises O(n log n)).
        self.fn_domains = Some(f.opsets.iter().map(|o| normal_domain(&o.domain)).collect());
        self.known_domain = None;
        let outputs: usize = f.nodes.iter().map(|n| n.outputs.len()).sum();
        let mut defs = Collect::with_capacity(f.inputs.len() + outputs);
        for (i, name) in f.inputs.iter().enumerate() {
            defs.define(name, Def::Input, At::FunctionInput(i));
        }
        Self::node_outputs(&mut defs, &f.nodes);
        let defs = self.defined(defs)?;
        self.frames.push(Frame {
            defs,
            edges: Vec::new(),
            current: NO_NODE,
        });
        // Runs only what has work: an empty list would change nothing (nor allocate).
        if !f.nodes.is_empty() {
            self.run(alloc::vec![Task::Nodes(&f.nodes, 0)])?;
        }
        for (i, o) in f.outputs.iter().enumerate() {
            if !self.lookup(o) {
                return Err(self.error(&[Seg::Name("outputs"), Seg::Index(i)], "undefined name"));
            }
        }
        self.value_info(&f.value_info)?;
        if !f.attribute_defaults.is_empty() {
            self.path.push(Seg::Name("attribute_defaults"));
            self.run(alloc::vec![Task::Attrs(&f.attribute_defaults, 0, 0)])?;
            self.path.pop();
        }
        self.finish(f.nodes.len())?;
        self.fn_domains = None;
        self.known_domain = None;
        Ok(())
    }

    /// The nodes of the innermost graph from `first` on: each one's domain (rule 4) and
    /// inputs (rule 2), then its subgraphs, then the next node; past the last node, the
    /// graph has no current node.
    fn node<'a>(&mut self, nodes: &'m [Node<'a>], first: usize, tasks: &mut Vec<Task<'m, 'a>>) -> R<()> {
        // Nodes without subgraphs are resolved in this loop; a node with one hands its
        // subgraphs, then the nodes after it, to the task stack.
        for (i, n) in nodes.iter().enumerate().skip(first) {
            if let Some(top) = self.frames.last_mut() {
                top.current = i;
            }
            self.check_node(n, i)?;
            if n.attributes.iter().any(holds_graphs) {
                tasks.push(Task::Nodes(nodes, i + 1));
                tasks.push(Task::Pop(3));
                tasks.push(Task::Attrs(&n.attributes, 0, 0));
                self.path
                    .extend([Seg::Name("nodes"), Seg::Index(i), Seg::Name("attributes")]);
                return Ok(());
            }
        }
        if let Some(top) = self.frames.last_mut() {
            top.current = NO_NODE;
        }
        Ok(())
    }

    /// Node `i`'s domain (rule 4) and inputs (rule 2).
    fn check_node(&mut self, n: &'m Node<'_>, i: usize) -> R<()> {
        let domain = normal_domain(&n.domain);
        // Nodes in a row mostly share their domain: the last one found is not looked up.
        let known = self.known_domain.is_some_and(|d| same(d.as_bytes(), domain.as_bytes()))
            || self.model_domains.contains(domain)
            || self.fn_domains.as_ref().is_some_and(|d| d.contains(domain));
        if !known {
            return Err(self.error(
                &[Seg::Name("nodes"), Seg::Index(i), Seg::Name("domain")],
                "node domain has no operator set",
            ));
        }
        self.known_domain = Some(domain);
        for (j, input) in n.inputs.iter().enumerate() {
            if !input.is_empty() && !self.lookup(input) {
                let at = [Seg::Name("nodes"), Seg::Index(i), Seg::Name("inputs"), Seg::Index(j)];
                return Err(self.error(&at, "undefined name"));
            }
        }
        Ok(())
    }

    /// Schedules the next subgraph at or after attribute `k`, graph `l` (GRAPH values count
    /// as one graph), with its path.
    fn subgraph<'a>(&mut self, attrs: &'m [Attribute<'a>], k: usize, l: usize, tasks: &mut Vec<Task<'m, 'a>>) {
        let mut l = l;
        for (k, a) in attrs.iter().enumerate().skip(k) {
            let next = match &a.value {
                Some(AttrValue::Graph(g)) if l == 0 => Some((&**g, false)),
                Some(AttrValue::Graphs(gs)) => gs.get(l).map(|g| (g, true)),
                _ => None,
            };
            if let Some((g, in_list)) = next {
                tasks.push(Task::Attrs(attrs, k, l + 1));
                tasks.push(Task::Pop(if in_list { 3 } else { 2 }));
                tasks.push(Task::Graph(g));
                self.path.extend([Seg::Index(k), Seg::Name("value")]);
                if in_list {
                    self.path.push(Seg::Index(l));
                }
                return;
            }
            l = 0;
        }
    }

    /// §3.1 rule 5: each entry names a visible value, at most once per graph; the first
    /// entry (in order) that breaks either is reported, as checking them one by one
    /// would.
    fn value_info(&mut self, info: &'m [TypedName]) -> R<()> {
        let again = unique::first_repeat(info, |t| defs::hash(t.name.as_bytes()), |t| t.name.as_str());
        for (i, t) in info.iter().enumerate() {
            let at = [Seg::Name("value_info"), Seg::Index(i), Seg::Name("name")];
            if !self.lookup(&t.name) {
                return Err(self.error(&at, "value_info names an undefined value"));
            }
            if again == Some(i) {
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
    if edges.iter().all(|&(from, to)| from < to) {
        // Every node waits only for nodes before it (or for none): when the earliest node
        // not yet placed is due, all before it are placed, so it is ready and goes next.
        // The order is the file order, as the heap below would make it.
        return Ok((0..n).collect());
    }
    kahn(n, edges)
}

/// [`stable_order`] by Kahn's algorithm with the min-heap.
fn kahn(n: usize, edges: &[(usize, usize)]) -> Result<Vec<usize>, usize> {
    let mut indegree = alloc::vec![0usize; n];
    let mut start = alloc::vec![0usize; n + 1];
    for &(from, to) in edges {
        if let (Some(d), Some(s)) = (indegree.get_mut(to), start.get_mut(from + 1)) {
            *d += 1;
            *s += 1;
        }
    }
    for i in 0..n {
        let prev = invariant::item(&start, i);
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
        let (lo, hi) = (invariant::item(&start, i), invariant::item(&start, i + 1));
        for &to in invariant::sub(&succ, lo..hi) {
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
        // Fewer than `n` placed: a cycle's nodes keep an in-degree.
        Err(invariant::some(indegree.iter().position(|&d| d > 0)))
    }
}

/// True for a GRAPH or GRAPHS attribute with a value.
fn holds_graphs(a: &Attribute<'_>) -> bool {
    matches!(a.value, Some(AttrValue::Graph(_) | AttrValue::Graphs(_)))
}

/// A node list whose subgraphs are being reordered: the nodes (taken out of their graph),
/// a function's attribute defaults (visited after the nodes), and the position (node,
/// attribute, graph) of the subgraph being visited or to visit next.
struct Reorder<'a> {
    nodes: Vec<Node<'a>>,
    defaults: Vec<Attribute<'a>>,
    at: (usize, usize, usize),
}

/// Applies the recorded orders (phase 2) to `nodes` and every graph below them (and below
/// `defaults`), consuming them in the order phase 1 recorded them: subgraphs first, in
/// document order, then the list itself. Each graph's nodes are taken out while its
/// subgraphs are visited and put back permuted, so the walk runs from a heap stack (§3.3).
fn reorder<'a>(
    nodes: &mut Vec<Node<'a>>,
    defaults: &mut Vec<Attribute<'a>>,
    orders: &mut impl Iterator<Item = Vec<usize>>,
) {
    let mut stack = alloc::vec![Reorder {
        nodes: core::mem::take(nodes),
        defaults: core::mem::take(defaults),
        at: (0, 0, 0),
    }];
    while let Some(top) = stack.last_mut() {
        if let Some(at) = next_subgraph(&top.nodes, &top.defaults, top.at) {
            top.at = at;
            let inner = subgraph(&mut top.nodes, &mut top.defaults, at).map(|g| core::mem::take(&mut g.nodes));
            stack.push(Reorder {
                // `next_subgraph` found the subgraph at `at`.
                nodes: invariant::some(inner),
                defaults: Vec::new(),
                at: (0, 0, 0),
            });
            continue;
        }
        let Some(mut done) = stack.pop() else { break };
        permute(&mut done.nodes, orders.next());
        match stack.last_mut() {
            Some(parent) => {
                if let Some(g) = subgraph(&mut parent.nodes, &mut parent.defaults, parent.at) {
                    g.nodes = done.nodes;
                }
                parent.at.2 += 1;
            }
            None => {
                *nodes = done.nodes;
                *defaults = done.defaults;
            }
        }
    }
}

/// The attributes at node `i`, or the defaults just after the last node.
fn attrs_at<'s, 'a>(nodes: &'s [Node<'a>], defaults: &'s [Attribute<'a>], i: usize) -> Option<&'s [Attribute<'a>]> {
    match nodes.get(i) {
        Some(n) => Some(&n.attributes),
        None if i == nodes.len() => Some(defaults),
        None => None,
    }
}

/// The first subgraph position at or after `at` (node, attribute, graph within GRAPHS).
fn next_subgraph(
    nodes: &[Node<'_>],
    defaults: &[Attribute<'_>],
    at: (usize, usize, usize),
) -> Option<(usize, usize, usize)> {
    let (mut i, mut k, mut l) = at;
    loop {
        let attrs = attrs_at(nodes, defaults, i)?;
        let Some(a) = attrs.get(k) else {
            (i, k, l) = (i + 1, 0, 0);
            continue;
        };
        let found = match &a.value {
            Some(AttrValue::Graph(_)) => l == 0,
            Some(AttrValue::Graphs(gs)) => l < gs.len(),
            _ => false,
        };
        if found {
            return Some((i, k, l));
        }
        (k, l) = (k + 1, 0);
    }
}

/// The subgraph at position `at`.
fn subgraph<'s, 'a>(
    nodes: &'s mut [Node<'a>],
    defaults: &'s mut [Attribute<'a>],
    (i, k, l): (usize, usize, usize),
) -> Option<&'s mut Graph<'a>> {
    let count = nodes.len();
    let attrs = match nodes.get_mut(i) {
        Some(n) => &mut n.attributes[..],
        None if i == count => defaults,
        None => return None,
    };
    match &mut attrs.get_mut(k)?.value {
        Some(AttrValue::Graph(g)) if l == 0 => Some(g),
        Some(AttrValue::Graphs(gs)) => gs.get_mut(l),
        _ => None,
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
    use super::{kahn, stable_order};
    use alloc::vec;

    #[test]
    fn stable_order_keeps_ordered_nodes() {
        assert_eq!(stable_order(3, &[(0, 1), (1, 2)]), Ok(vec![0, 1, 2]));
        assert_eq!(stable_order(4, &[(3, 0)]), Ok(vec![1, 2, 3, 0]));
        assert_eq!(stable_order(3, &[(2, 0), (2, 1)]), Ok(vec![2, 0, 1]));
    }

    /// Where every edge points forward in file order, the heap keeps the file order, which
    /// is what `stable_order` returns for such graphs without it.
    #[test]
    fn forward_edges_keep_file_order_in_the_heap_too() {
        let mut rng = crate::test_docs::Rng::new(0x2545_f491_4f6c_dd1d);
        let mut next = |bound: usize| rng.below(bound);
        for n in 2..40 {
            let edges: alloc::vec::Vec<(usize, usize)> = (0..next(3 * n))
                .map(|_| {
                    let to = 1 + next(n - 1);
                    (next(to), to)
                })
                .collect();
            let identity: alloc::vec::Vec<usize> = (0..n).collect();
            assert_eq!(kahn(n, &edges), Ok(identity.clone()), "{edges:?}");
            assert_eq!(stable_order(n, &edges), Ok(identity));
        }
    }

    #[test]
    fn cycle_reports_first_unplaced() {
        assert_eq!(stable_order(4, &[(2, 1), (1, 2)]), Err(1));
        assert_eq!(stable_order(1, &[(0, 0)]), Err(0));
    }
}
