//! The data order (`spec/onemodel.md` §1.3): graph initializers, sparse initializers (values,
//! then indices), then the tensors in node attributes in order, descending into subgraphs
//! where the attribute appears; then each function's nodes and attribute defaults. Walked
//! from a heap stack of tasks, so the machine stack needed does not grow with nesting (§3.3).

use crate::onemodel::model::*;
use alloc::vec::Vec;

enum Task<'m, 'a> {
    Graph(&'m Graph<'a>),
    /// The nodes from index `.1` on.
    Nodes(&'m [Node<'a>], usize),
    /// The attributes from index `.1` on.
    Attrs(&'m [Attribute<'a>], usize),
}

/// Calls `f` on every tensor of the model in data order (§1.3 steps 1–4).
pub(super) fn model_tensors<'m, 'a>(m: &'m Model<'a>, f: &mut impl FnMut(&'m Tensor<'a>)) {
    walk(alloc::vec![Task::Graph(&m.graph)], f);
    for func in &m.functions {
        walk(alloc::vec![Task::Nodes(&func.nodes, 0)], f);
        walk(alloc::vec![Task::Attrs(&func.attribute_defaults, 0)], f);
    }
}

/// Calls `f` on every tensor in `nodes` and their subgraphs, in data order.
pub(super) fn node_tensors<'m, 'a>(nodes: &'m [Node<'a>], f: &mut impl FnMut(&'m Tensor<'a>)) {
    walk(alloc::vec![Task::Nodes(nodes, 0)], f);
}

fn walk<'m, 'a>(mut tasks: Vec<Task<'m, 'a>>, f: &mut impl FnMut(&'m Tensor<'a>)) {
    while let Some(task) = tasks.pop() {
        match task {
            Task::Graph(g) => {
                g.initializers.iter().for_each(&mut *f);
                for s in &g.sparse_initializers {
                    f(&s.values);
                    f(&s.indices);
                }
                tasks.push(Task::Nodes(&g.nodes, 0));
            }
            Task::Nodes(nodes, i) => {
                if let Some(n) = nodes.get(i) {
                    tasks.push(Task::Nodes(nodes, i + 1));
                    tasks.push(Task::Attrs(&n.attributes, 0));
                }
            }
            Task::Attrs(attrs, k) => {
                let Some(a) = attrs.get(k) else { continue };
                tasks.push(Task::Attrs(attrs, k + 1));
                match &a.value {
                    Some(AttrValue::Tensor(t)) => f(t),
                    Some(AttrValue::Tensors(ts)) => ts.iter().for_each(&mut *f),
                    Some(AttrValue::SparseTensor(s)) => {
                        f(&s.values);
                        f(&s.indices);
                    }
                    Some(AttrValue::SparseTensors(ss)) => {
                        for s in ss {
                            f(&s.values);
                            f(&s.indices);
                        }
                    }
                    // Subgraphs come where the attribute is, before the next attribute.
                    Some(AttrValue::Graph(g)) => tasks.push(Task::Graph(g)),
                    Some(AttrValue::Graphs(gs)) => tasks.extend(gs.iter().rev().map(Task::Graph)),
                    _ => {}
                }
            }
        }
    }
}
