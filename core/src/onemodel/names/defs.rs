//! The names one graph or function body defines (`spec/onemodel.md` §3.1 rule 1): collected
//! in definition order (inputs, initializers, sparse initializers, node outputs), then
//! sorted once, so each later lookup is a binary search. A second definition of a name is
//! found per name from the sorted order and reported at the earliest one in definition
//! order, exactly where defining them one by one into an ordered map would fail. O(n log n).

use super::Def;
use crate::onemodel::manifest::Seg;
use alloc::vec::Vec;

/// Where a definition is, below its graph's or function's path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum At {
    /// `inputs[i].name` of a graph.
    Input(usize),
    /// `inputs[i]` of a function.
    FunctionInput(usize),
    /// `initializers[i].name`.
    Initializer(usize),
    /// `sparse_initializers[i].values.name`.
    Sparse(usize),
    /// `nodes[i].outputs[j]`.
    Output(usize, usize),
}

impl At {
    /// The path steps of the definition.
    pub fn segs(self) -> Vec<Seg> {
        match self {
            At::Input(i) => alloc::vec![Seg::Name("inputs"), Seg::Index(i), Seg::Name("name")],
            At::FunctionInput(i) => alloc::vec![Seg::Name("inputs"), Seg::Index(i)],
            At::Initializer(i) => alloc::vec![Seg::Name("initializers"), Seg::Index(i), Seg::Name("name")],
            At::Sparse(i) => alloc::vec![
                Seg::Name("sparse_initializers"),
                Seg::Index(i),
                Seg::Name("values"),
                Seg::Name("name"),
            ],
            At::Output(i, j) => alloc::vec![Seg::Name("nodes"), Seg::Index(i), Seg::Name("outputs"), Seg::Index(j)],
        }
    }

    /// An initializer or sparse initializer, which attaches to a same-named graph input.
    fn attaches(self) -> bool {
        matches!(self, At::Initializer(_) | At::Sparse(_))
    }
}

/// Definitions in the order they are made.
#[derive(Default)]
pub(super) struct Collect<'m> {
    list: Vec<(&'m str, Def, At, usize)>,
}

/// A graph's definitions, sorted by name, one per name.
#[derive(Debug, Default)]
pub(super) struct Defs<'m> {
    sorted: Vec<(&'m str, Def)>,
}

impl<'m> Collect<'m> {
    /// Records that `name` is defined as `def` at `at`.
    pub fn define(&mut self, name: &'m str, def: Def, at: At) {
        let seq = self.list.len();
        self.list.push((name, def, at, seq));
    }

    /// Sorts the definitions; `Err` names the first (in definition order) that defines a
    /// name again. The first definition of a name is kept. An initializer or sparse
    /// initializer right after a same-named input attaches to it instead of defining the
    /// name again (once: a second one is a redefinition).
    pub fn finish(mut self) -> Result<Defs<'m>, At> {
        self.list.sort_unstable_by(|a, b| a.0.cmp(b.0).then(a.3.cmp(&b.3)));
        let mut sorted = Vec::with_capacity(self.list.len());
        let mut first_error: Option<(usize, At)> = None;
        for group in self.list.chunk_by(|a, b| a.0 == b.0) {
            let again = match group {
                [(name, def, ..), rest @ ..] => {
                    sorted.push((*name, *def));
                    match rest {
                        [(_, _, at, _), later @ ..] if *def == Def::Input && at.attaches() => later.first(),
                        _ => rest.first(),
                    }
                }
                [] => None,
            };
            if let Some(&(_, _, at, seq)) = again
                && first_error.is_none_or(|(s, _)| seq < s)
            {
                first_error = Some((seq, at));
            }
        }
        match first_error {
            Some((_, at)) => Err(at),
            None => Ok(Defs { sorted }),
        }
    }
}

impl Defs<'_> {
    /// What `name` is defined as in this graph, if anything.
    pub fn get(&self, name: &str) -> Option<Def> {
        let i = self.sorted.binary_search_by(|(n, _)| (*n).cmp(name)).ok()?;
        self.sorted.get(i).map(|(_, d)| *d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defs(list: &[(&'static str, Def, At)]) -> Result<Defs<'static>, At> {
        let mut c = Collect::default();
        for &(name, def, at) in list {
            c.define(name, def, at);
        }
        c.finish()
    }

    #[test]
    fn first_redefinition_in_definition_order_is_reported() {
        let list = [
            ("x", Def::Input, At::Input(0)),
            ("b", Def::Value, At::Initializer(0)),
            ("a", Def::Node(0), At::Output(0, 0)),
            ("b", Def::Node(1), At::Output(1, 0)),
            ("a", Def::Node(2), At::Output(2, 0)),
        ];
        assert_eq!(defs(&list).unwrap_err(), At::Output(1, 0));
        assert_eq!(defs(&list[..4]).unwrap_err(), At::Output(1, 0));
        assert_eq!(defs(&[list[0], list[2], list[4]]).unwrap_err(), At::Output(2, 0));
    }

    #[test]
    fn an_initializer_attaches_to_its_input_once() {
        let input = ("w", Def::Input, At::Input(0));
        let init = ("w", Def::Value, At::Initializer(0));
        let d = defs(&[input, init]).unwrap();
        assert_eq!(d.get("w"), Some(Def::Input));
        assert_eq!(
            defs(&[input, init, ("w", Def::Value, At::Sparse(0))]).unwrap_err(),
            At::Sparse(0)
        );
        assert_eq!(
            defs(&[input, init, ("w", Def::Node(0), At::Output(0, 0))]).unwrap_err(),
            At::Output(0, 0)
        );
        assert_eq!(
            defs(&[input, ("w", Def::Input, At::Input(1))]).unwrap_err(),
            At::Input(1)
        );
        assert_eq!(
            defs(&[init, ("w", Def::Value, At::Sparse(0))]).unwrap_err(),
            At::Sparse(0)
        );
        assert_eq!(defs(&[init, init]).unwrap_err(), At::Initializer(0));
    }

    #[test]
    fn lookups_find_every_name_and_only_those() {
        let d = defs(&[
            ("b", Def::Node(3), At::Output(3, 0)),
            ("a", Def::Input, At::Input(0)),
            ("c", Def::Value, At::Initializer(0)),
        ])
        .unwrap();
        assert_eq!(d.get("a"), Some(Def::Input));
        assert_eq!(d.get("b"), Some(Def::Node(3)));
        assert_eq!(d.get("c"), Some(Def::Value));
        assert_eq!(d.get(""), None);
        assert_eq!(d.get("d"), None);
    }
}
