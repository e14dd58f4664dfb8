//! The names one graph or function body defines (`spec/onemodel.md` §3.1 rule 1): collected
//! in definition order (inputs, initializers, sparse initializers, node outputs), then
//! sorted once, so each later lookup is a binary search. A second definition of a name is
//! found per name from the sorted order and reported at the earliest one in definition
//! order, exactly where defining them one by one into an ordered map would fail. O(n log n).
//!
//! Names are ordered by a [`Key`] (`onemodel/unique.rs`): the name's first eight bytes as a
//! big-endian integer, then the whole name, so nearly every comparison is one integer
//! comparison instead of a string comparison.

use super::Def;
use crate::onemodel::manifest::Seg;
pub(super) use crate::onemodel::unique::Key;
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
    list: Vec<(Key<'m>, Def, At)>,
}

/// A graph's definitions, sorted by name, one per name.
#[derive(Debug, Default)]
pub(super) struct Defs<'m> {
    sorted: Vec<(Key<'m>, Def)>,
}

impl<'m> Collect<'m> {
    /// Records that `name` is defined as `def` at `at`.
    pub fn define(&mut self, name: &'m str, def: Def, at: At) {
        self.list.push((Key::new(name), def, at));
    }

    /// Sorts the definitions; `Err` names the first (in definition order) that defines a
    /// name again. The first definition of a name is kept. An initializer or sparse
    /// initializer right after a same-named input attaches to it instead of defining the
    /// name again (once: a second one is a redefinition).
    pub fn finish(self) -> Result<Defs<'m>, At> {
        // Sorted as (head, index in definition order): 16 bytes an entry; only entries
        // with equal heads compare their names.
        let list = &self.list;
        let mut order: Vec<(u64, usize)> = list.iter().enumerate().map(|(i, (k, ..))| (k.head(), i)).collect();
        let name = |i: usize| list.get(i).map_or("", |(k, ..)| k.name());
        order.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| name(a.1).cmp(name(b.1))).then(a.1.cmp(&b.1)));
        let entry = |&(_, i): &(u64, usize)| list.get(i).map(|&(key, def, at)| (key, def, at, i));
        let entries: Vec<(Key<'m>, Def, At, usize)> = order.iter().filter_map(entry).collect();
        let mut sorted = Vec::with_capacity(entries.len());
        let mut first_error: Option<(usize, At)> = None;
        for group in entries.chunk_by(|a, b| a.0 == b.0) {
            let again = match group {
                [(key, def, ..), rest @ ..] => {
                    sorted.push((*key, *def));
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
    /// What the name of `key` is defined as in this graph, if anything.
    pub fn get(&self, key: &Key<'_>) -> Option<Def> {
        let i = self.sorted.binary_search_by(|(k, _)| k.cmp(key)).ok()?;
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
        assert_eq!(d.get(&Key::new("w")), Some(Def::Input));
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
        assert_eq!(d.get(&Key::new("a")), Some(Def::Input));
        assert_eq!(d.get(&Key::new("b")), Some(Def::Node(3)));
        assert_eq!(d.get(&Key::new("c")), Some(Def::Value));
        assert_eq!(d.get(&Key::new("")), None);
        assert_eq!(d.get(&Key::new("d")), None);
    }

    /// Key order is byte order, also for names that share their first eight bytes, differ
    /// only in length, or hold zero bytes (which pad like absent bytes), and every such
    /// name is found.
    #[test]
    fn key_order_is_byte_order() {
        let names = [
            "",
            "\0",
            "a",
            "a\0",
            "a\0\0",
            "ab",
            "layer10.down",
            "layer10.dow",
            "layer10.down.w",
            "layer10.",
            "layer10",
            "layer10\0",
            "layer10.up",
            "\u{ff}",
            "z",
        ];
        for a in names {
            for b in names {
                assert_eq!(Key::new(a).cmp(&Key::new(b)), a.cmp(b), "{a:?} {b:?}");
            }
        }
        let list: alloc::vec::Vec<_> = names
            .iter()
            .enumerate()
            .map(|(i, n)| (*n, Def::Node(i), At::Output(i, 0)))
            .collect();
        let mut c = Collect::default();
        for &(name, def, at) in &list {
            c.define(name, def, at);
        }
        let d = c.finish().unwrap();
        for (i, n) in names.iter().enumerate() {
            assert_eq!(d.get(&Key::new(n)), Some(Def::Node(i)));
        }
        assert_eq!(d.get(&Key::new("layer10.do")), None);
        let dup = [
            list[6],
            list[12],
            ("layer10.down", Def::Value, At::Initializer(3)),
            list[7],
        ];
        assert_eq!(defs(&dup).unwrap_err(), At::Initializer(3));
    }
}
