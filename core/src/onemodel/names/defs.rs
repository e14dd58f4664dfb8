//! The names one graph or function body defines (`spec/onemodel.md` §3.1 rule 1): collected
//! in definition order (inputs, initializers, sparse initializers, node outputs), then
//! sorted once, so each later lookup searches a few entries. A second definition of a name is
//! found per name from the sorted order and reported at the earliest one in definition
//! order, exactly where defining them one by one into an ordered map would fail. O(n log n).
//!
//! Names are ordered by a [`Key`]: a 64-bit hash of the whole name, then the name itself
//! (`sorted`: placed by the hash's top bits, then each bucket sorted). Nearly every
//! comparison is then one integer comparison, also for the names of real models, which
//! share long prefixes (`model.layers.12.self_attn.q_proj.weight`); and a lookup goes to
//! its bucket and searches it branch-free over a column of hashes alone, with the names
//! compared only where hashes are equal. Names chosen to share one hash cost what a string
//! comparison costs, never more: the order is still total, so the bound holds.

use super::Def;
use crate::invariant;
use crate::onemodel::manifest::{self, Seg};
use alloc::vec::Vec;

/// A name with its hash: ordered by the hash, then by the name.
#[derive(Clone, Copy, Debug)]
pub(super) struct Key<'m> {
    hash: u64,
    name: &'m str,
}

impl<'m> Key<'m> {
    /// The key of `name`.
    pub(super) fn new(name: &'m str) -> Self {
        Key {
            hash: hash(name.as_bytes()),
            name,
        }
    }
}

impl PartialEq for Key<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.hash == other.hash && manifest::same(self.name.as_bytes(), other.name.as_bytes())
    }
}

impl Eq for Key<'_> {}

/// A 64-bit hash of a name: its length, then each eight bytes, multiplied in, and the
/// result mixed. A name whose length is not a multiple of eight ends with its last eight
/// bytes (overlapping the word before), or, shorter than eight, its bytes gathered in a
/// register: never bytes stored one by one and read back as a word, which waits for the
/// stores. Not keyed, and needs not be: equal hashes only make the comparisons of [`Key`]
/// compare names.
pub(super) fn hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let step = |h: u64, word: u64| (h ^ word).wrapping_mul(K).rotate_left(31);
    let mut h = step(0, u64::try_from(bytes.len()).unwrap_or(u64::MAX));
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        h = step(h, w.first_chunk::<8>().map_or(0, |w| u64::from_le_bytes(*w)));
    }
    let rest = words.remainder();
    if !rest.is_empty() {
        let last = match bytes.last_chunk::<8>() {
            Some(w) => u64::from_le_bytes(*w),
            None => rest.iter().rev().fold(0, |t, &b| t << 8 | u64::from(b)),
        };
        h = step(h, last);
    }
    h ^= h >> 32;
    h = h.wrapping_mul(K);
    h ^ (h >> 29)
}

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
    pub(super) fn segs(self) -> Vec<Seg> {
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

/// A graph's definitions, sorted by [`Key`], one per name, and what each defines.
#[derive(Debug, Default)]
pub(super) struct Defs<'m> {
    names: NameSet<'m>,
    defs: Vec<Def>,
}

/// Names sorted by [`Key`], one each: their hashes in a column of their own beside the
/// names, and an index by the hashes' top bits, so that a lookup goes straight to the few
/// entries whose hashes start as its own does. A graph's definitions ([`Defs`]) and the
/// operator set domains nodes may use (§3.1 rule 4).
#[derive(Debug, Default)]
pub(super) struct NameSet<'m> {
    hashes: Vec<u64>,
    names: Vec<&'m str>,
    /// `buckets[b]..buckets[b + 1]`: the entries whose hashes' top bits (`hash >> shift`)
    /// are `b`; as many buckets as the power of two at or above the number of names.
    buckets: Vec<usize>,
    shift: u32,
}

impl<'m> FromIterator<&'m str> for NameSet<'m> {
    fn from_iter<I: IntoIterator<Item = &'m str>>(names: I) -> Self {
        let keys: Vec<Key<'m>> = names.into_iter().map(Key::new).collect();
        let order = sorted(&keys, |k| k);
        let mut set = NameSet::with_capacity(keys.len());
        let mut last: Option<&Key<'m>> = None;
        for key in order.iter().filter_map(|k| keys.get(index(k))) {
            if last != Some(key) {
                set.push(*key);
            }
            last = Some(key);
        }
        set.index();
        set
    }
}

impl<'m> NameSet<'m> {
    fn with_capacity(n: usize) -> Self {
        NameSet {
            hashes: Vec::with_capacity(n),
            names: Vec::with_capacity(n),
            ..NameSet::default()
        }
    }

    /// Builds the bucket index over the sorted hashes: O(names).
    fn index(&mut self) {
        let n = self.hashes.len();
        let bits = n.next_power_of_two().trailing_zeros();
        self.shift = 64 - bits;
        let bucket_of = |h: &u64| usize::try_from(h.checked_shr(self.shift).unwrap_or(0)).unwrap_or(usize::MAX);
        let mut buckets = Vec::with_capacity((1 << bits) + 1);
        let mut at = 0;
        for b in 0..=(1usize << bits) {
            while self.hashes.get(at).map(bucket_of).is_some_and(|hb| hb < b) {
                at += 1;
            }
            buckets.push(at);
        }
        self.buckets = buckets;
    }

    /// True when `name` is in the set.
    pub(super) fn contains(&self, name: &str) -> bool {
        self.index_of(&Key::new(name)).is_some()
    }

    /// Where the name of `key` is, if it is in the set: its bucket, the first entry of
    /// its hash there (a branch-free search, however many hashes share the bucket), then,
    /// among the entries of that hash (almost always just one), the name.
    fn index_of(&self, key: &Key<'_>) -> Option<usize> {
        let b = usize::try_from(key.hash.checked_shr(self.shift).unwrap_or(0)).ok()?;
        let (lo, hi) = (*self.buckets.get(b)?, *self.buckets.get(b + 1)?);
        let first = lo + lower_bound(self.hashes.get(lo..hi)?, key.hash);
        let rest = self.hashes.get(first..hi)?;
        let same = match rest {
            [h] if *h == key.hash => 1,
            [h, next, ..] if *h == key.hash && *next != key.hash => 1,
            _ => rest.partition_point(|&h| h == key.hash),
        };
        match self.names.get(first..first + same)? {
            [name] => manifest::same(name.as_bytes(), key.name.as_bytes()).then_some(first),
            run => run
                .binary_search_by(|name| (*name).cmp(key.name))
                .ok()
                .map(|i| first + i),
        }
    }

    fn push(&mut self, key: Key<'m>) {
        self.hashes.push(key.hash);
        self.names.push(key.name);
    }
}

impl<'m> Collect<'m> {
    /// Room for `n` definitions.
    pub(super) fn with_capacity(n: usize) -> Self {
        Collect {
            list: Vec::with_capacity(n),
        }
    }

    /// Records that `name` is defined as `def` at `at`.
    pub(super) fn define(&mut self, name: &'m str, def: Def, at: At) {
        self.list.push((Key::new(name), def, at));
    }

    /// Sorts the definitions; `Err` names the first (in definition order) that defines a
    /// name again. The first definition of a name is kept. An initializer or sparse
    /// initializer right after a same-named input attaches to it instead of defining the
    /// name again (once: a second one is a redefinition).
    pub(super) fn finish(self) -> Result<Defs<'m>, At> {
        let list = &self.list;
        let keys = sorted(list, |(key, ..)| key);
        let entry = |k: &u128| list.get(index(k)).map(|&(key, def, at)| (key, def, at, index(k)));
        let mut defs = Defs {
            names: NameSet::with_capacity(keys.len()),
            defs: Vec::with_capacity(keys.len()),
        };
        let mut first_error: Option<(usize, At)> = None;
        let same_name = |a: &u128, b: &u128| {
            list.get(index(a))
                .zip(list.get(index(b)))
                .is_some_and(|(x, y)| x.0 == y.0)
        };
        for group in keys.chunk_by(same_name) {
            let mut entries = group.iter().filter_map(entry);
            let Some((key, def, ..)) = entries.next() else {
                continue;
            };
            defs.names.push(key);
            defs.defs.push(def);
            let again = match entries.next() {
                Some((_, _, at, _)) if def == Def::Input && at.attaches() => entries.next(),
                other => other,
            };
            if let Some((_, _, at, seq)) = again
                && first_error.is_none_or(|(s, _)| seq < s)
            {
                first_error = Some((seq, at));
            }
        }
        defs.names.index();
        match first_error {
            Some((_, at)) => Err(at),
            None => Ok(defs),
        }
    }
}

/// The definition index held in the low half of a key of [`sorted`].
fn index(k: &u128) -> usize {
    usize::try_from(k & u128::from(u64::MAX)).unwrap_or(usize::MAX)
}

/// The elements of `list` in the order of (key, index), each as its key's hash and its
/// index in one `u128` (see [`index`]): the elements of one name together, in list order.
/// What both a graph's definitions and a set of names are sorted by.
/// Placed by the top bits of their hashes (a counting sort: as many buckets as the power of
/// two at or above their number), then each bucket, almost never more than a few entries,
/// sorted as integers, and each run of one hash in it by name. Hashes made to share their
/// top bits only make one bucket's sort longer: O(n log n) still.
fn sorted<'m, T>(list: &[T], key: impl Fn(&T) -> &Key<'m>) -> Vec<u128> {
    let bits = list.len().next_power_of_two().trailing_zeros();
    let bucket = |k: &Key<'_>| usize::try_from(k.hash.checked_shr(64 - bits).unwrap_or(0)).unwrap_or(0);
    // starts[b + 1] counts bucket b, then (summed) starts[b] is where bucket b begins.
    let mut starts = alloc::vec![0usize; (1 << bits) + 1];
    for k in list.iter().map(&key) {
        if let Some(c) = starts.get_mut(bucket(k) + 1) {
            *c += 1;
        }
    }
    for b in 1..starts.len() {
        let before = invariant::item(&starts, b - 1);
        if let Some(c) = starts.get_mut(b) {
            *c += before;
        }
    }
    let mut keys = alloc::vec![0u128; list.len()];
    let mut next = starts.clone();
    for (i, k) in list.iter().map(&key).enumerate() {
        if let Some(at) = next.get_mut(bucket(k))
            && let Some(slot) = keys.get_mut(*at)
        {
            *slot = u128::from(k.hash) << 64 | u128::from(u64::try_from(i).unwrap_or(u64::MAX));
            *at += 1;
        }
    }
    let name = |k: &u128| list.get(index(k)).map_or("", |e| key(e).name);
    for b in starts.windows(2) {
        let [lo, hi] = [invariant::item(b, 0), invariant::item(b, 1)];
        let Some(run) = keys.get_mut(lo..hi).filter(|run| run.len() > 1) else {
            continue;
        };
        run.sort_unstable();
        for same_hash in run.chunk_by_mut(|a, b| a >> 64 == b >> 64) {
            if same_hash.len() > 1 {
                same_hash.sort_unstable_by(|a, b| name(a).cmp(name(b)).then(a.cmp(b)));
            }
        }
    }
    keys
}

impl Defs<'_> {
    /// What the name of `key` is defined as in this graph, if anything.
    pub(super) fn get(&self, key: &Key<'_>) -> Option<Def> {
        self.defs.get(self.names.index_of(key)?).copied()
    }
}

/// The index of the first hash in `hashes` (sorted) not below `h`: a binary search whose
/// steps are conditional moves, not branches, since hashes are random.
fn lower_bound(hashes: &[u64], h: u64) -> usize {
    let mut base = 0;
    let mut size = hashes.len();
    while size > 1 {
        let half = size / 2;
        let mid = base + half;
        let below = hashes.get(mid).is_some_and(|&x| x < h);
        base = core::hint::select_unpredictable(below, mid, base);
        size -= half;
    }
    base + usize::from(hashes.get(base).is_some_and(|&x| x < h))
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

    /// Keys are equal exactly when their names are, also names that share their first
    /// eight bytes, differ only in length or hold zero bytes; every such name is found.
    /// (Their order is `sorted`'s, tested against a full sort below.)
    #[test]
    fn keys_are_equal_exactly_when_names_are() {
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
                let (ka, kb) = (Key::new(a), Key::new(b));
                assert_eq!(ka == kb, a == b, "{a:?} {b:?}");
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

    /// Names that share one hash (as names chosen for it could) are told apart by name:
    /// each is found, an absent one is not, and a redefinition among them is reported at
    /// its place.
    #[test]
    fn names_of_one_hash_are_told_apart() {
        let names = ["b", "a", "c", "ab", ""];
        let of = |list: &[(&'static str, At)]| Collect {
            list: list
                .iter()
                .enumerate()
                .map(|(i, &(name, at))| (Key { hash: 7, name }, Def::Node(i), at))
                .collect(),
        };
        let list: alloc::vec::Vec<_> = names.iter().enumerate().map(|(i, &n)| (n, At::Output(i, 0))).collect();
        let d = of(&list).finish().unwrap();
        for (i, name) in names.iter().enumerate() {
            assert_eq!(d.get(&Key { hash: 7, name }), Some(Def::Node(i)));
        }
        assert_eq!(d.get(&Key { hash: 7, name: "d" }), None);
        assert_eq!(d.get(&Key { hash: 8, name: "a" }), None);
        let mut again = list.clone();
        again.insert(2, ("a", At::Output(9, 0)));
        assert_eq!(of(&again).finish().unwrap_err(), At::Output(9, 0));
    }

    /// Every name of a large set is found through its bucket and no other name is, also
    /// when all hashes fall in one bucket (hashes chosen small, as names chosen to
    /// collide in their top bits would give).
    #[test]
    fn buckets_find_every_name_however_hashes_fall() {
        let names: alloc::vec::Vec<alloc::string::String> = (0..1000).map(|i| alloc::format!("n{i}")).collect();
        let d = defs(&[]).unwrap();
        assert_eq!(d.get(&Key::new("n0")), None);
        for crowded in [false, true] {
            let key = |i: usize, name: &'static str| match crowded {
                true => Key {
                    hash: i as u64 * 3,
                    name,
                },
                false => Key::new(name),
            };
            let list = names
                .iter()
                .enumerate()
                .map(|(i, n)| {
                    let n: &'static str = alloc::boxed::Box::leak(n.clone().into_boxed_str());
                    (key(i, n), Def::Node(i), At::Output(i, 0))
                })
                .collect();
            let d = Collect { list }.finish().unwrap();
            for (i, n) in names.iter().enumerate() {
                let n: &'static str = alloc::boxed::Box::leak(n.clone().into_boxed_str());
                assert_eq!(d.get(&key(i, n)), Some(Def::Node(i)), "{n}");
                assert_eq!(
                    d.get(&Key {
                        hash: key(i, n).hash + 1,
                        name: n
                    }),
                    None
                );
            }
            assert_eq!(d.get(&key(0, "absent")), None);
        }
    }

    /// The bucket placement gives the order of one full sort by (hash, name, index), for
    /// lists of every size up to a few hundred, with repeated names and with hashes that
    /// share their top bits or are equal.
    #[test]
    fn bucket_sort_is_the_full_sort() {
        let pool: alloc::vec::Vec<&'static str> = (0..60)
            .map(|i| &*alloc::boxed::Box::leak(alloc::format!("v{}", i % 45).into_boxed_str()))
            .collect();
        let mut rng = crate::test_docs::Rng::new(0x9e37_79b9);
        let mut next = || rng.next_u64();
        for n in 0..300 {
            let list: alloc::vec::Vec<(Key<'static>, Def, At)> = (0..n)
                .map(|i| {
                    let name = pool[(next() % 60) as usize];
                    let hash = match next() % 4 {
                        0 => next() % 5,
                        1 => 7,
                        _ => Key::new(name).hash,
                    };
                    (Key { hash, name }, Def::Node(i), At::Output(i, 0))
                })
                .collect();
            let mut full: alloc::vec::Vec<u128> =
                (0..n).map(|i| u128::from(list[i].0.hash) << 64 | i as u128).collect();
            full.sort_by(|a, b| {
                let (x, y) = (&list[index(a)].0, &list[index(b)].0);
                x.hash.cmp(&y.hash).then(x.name.cmp(y.name)).then(a.cmp(b))
            });
            assert_eq!(sorted(&list, |(key, ..)| key), full, "{n}");
        }
    }

    /// A set of names keeps each once, in the order `sorted` gives, and finds exactly its
    /// names (as the operator set domains of a model and of a function are looked up).
    #[test]
    fn name_sets_keep_each_name_once() {
        let set: NameSet<'_> = ["", "local", "ai.onnx.ml", "local", "", "com.example.layers"]
            .into_iter()
            .collect();
        assert_eq!(set.names.len(), 4);
        assert!(set.hashes.windows(2).all(|w| w[0] <= w[1]));
        for name in ["", "local", "ai.onnx.ml", "com.example.layers"] {
            assert!(set.contains(name), "{name:?}");
        }
        for name in ["loca", "local ", "ai.onnx", "com.example.layer"] {
            assert!(!set.contains(name), "{name:?}");
        }
        let empty: NameSet<'_> = core::iter::empty().collect();
        assert!(!empty.contains(""));
    }
}
