//! Reproducible JSON documents for differential tests and fuzz targets (compiled for tests
//! and under cargo-fuzz's `--cfg fuzzing` only): a source of choices, and the pieces the
//! generators build documents from.

use alloc::string::String;
use alloc::vec::Vec;

/// The tests' pseudorandom generator: the one the test crates share
/// (`modelgate_corpus_gen::rng`, a dev-dependency, which the unit tests link too).
#[cfg(test)]
pub use modelgate_corpus_gen::rng::Rng;

/// A source of choices: the tests' [`Rng`](modelgate_corpus_gen::rng::Rng), or a fuzz
/// target's input bytes.
pub trait Choose {
    /// A number below `n` (`n` > 0).
    fn below(&mut self, n: usize) -> usize;

    /// True one time in `n`.
    fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    /// One of `from`.
    fn pick<'t>(&mut self, from: &[&'t str]) -> &'t str {
        let i = self.below(from.len().max(1));
        from.get(i).copied().unwrap_or_default()
    }
}

#[cfg(test)]
impl Choose for Rng {
    fn below(&mut self, n: usize) -> usize {
        Rng::below(self, n)
    }
}

/// Values that break a rule by their type or content: each scalar type, both containers.
pub const ODD: [&str; 8] = ["null", "true", "0", "-1.5e3", "\"\"", "\"x\"", "[]", "{}"];

/// Up to `max` items made by `item`, comma-separated.
pub fn list<C: Choose>(c: &mut C, max: usize, mut item: impl FnMut(&mut C) -> String) -> String {
    let n = c.below(max + 1);
    (0..n).map(|_| item(c)).collect::<Vec<_>>().join(",")
}

/// An object of some of `keys` (none twice), in a random order, each with a value `value`
/// makes for it.
pub fn object<C: Choose>(c: &mut C, keys: &[&str], mut value: impl FnMut(&mut C, &str) -> String) -> String {
    let mut left: Vec<&str> = keys.to_vec();
    let mut members = Vec::new();
    for _ in 0..c.below(keys.len() + 1) {
        let key = left.swap_remove(c.below(left.len()));
        members.push(alloc::format!("\"{key}\":{}", value(c, key)));
    }
    alloc::format!("{{{}}}", members.join(","))
}

/// An object of up to `max - 1` members named from `keys`, which may hold escaped forms of
/// one name (`plain` resolves them): a name already used, once resolved, is skipped, so the
/// object stays one the parser accepts (`spec/json.md` §5). Each value is made by `value`.
pub fn named_object<C: Choose>(
    c: &mut C,
    max: usize,
    keys: &[&str],
    plain: impl Fn(&str) -> String,
    mut value: impl FnMut(&mut C) -> String,
) -> String {
    let mut used = alloc::collections::BTreeSet::new();
    let mut members = Vec::new();
    for _ in 0..c.below(max) {
        let key = c.pick(keys);
        if !used.insert(plain(key)) {
            continue;
        }
        members.push(alloc::format!("\"{key}\":{}", value(c)));
    }
    alloc::format!("{{{}}}", members.join(","))
}
