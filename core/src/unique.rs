//! Sorting names once to find the first repeat: the name key and [`first_repeat`], shared
//! by the readers whose uniqueness rules compare names (OneModel, mlbundle, MPK).
//!
//! Each rule asks for the first element, in reading order, whose key an earlier element
//! has. [`first_repeat`] answers it by sorting the elements' indices once: O(n log n)
//! whatever the keys, one allocation for the whole list, and nearly every comparison one
//! integer comparison (a name's [`Key`] head).

#[cfg(any(feature = "onemodel", feature = "mlbundle"))]
use alloc::vec::Vec;
use core::cmp::Ordering;

/// A name with its sort key: its first eight bytes, zero-padded, as a big-endian integer.
/// Ordered by that integer, then by the whole name: that is byte order (a name's first
/// eight bytes, zero-padded, never compare above those of a name it sorts before), but two
/// names that differ in their first eight bytes compare without a string comparison.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Key<'m> {
    head: u64,
    name: &'m str,
}

impl<'m> Key<'m> {
    /// The key of `name`.
    pub(crate) fn new(name: &'m str) -> Self {
        let bytes = name.as_bytes();
        // Built in a register, not in a byte array read back as a word: eight one-byte
        // stores cannot be forwarded to that load, which then waits for them.
        let head = match bytes.first_chunk::<8>() {
            Some(word) => u64::from_be_bytes(*word),
            None => {
                let packed = bytes.iter().fold(0u64, |h, &b| (h << 8) | u64::from(b));
                let pad = u32::try_from(8usize.saturating_sub(bytes.len()) * 8).unwrap_or(0);
                packed.checked_shl(pad).unwrap_or(0)
            }
        };
        Key { head, name }
    }

    /// The name's first eight bytes, zero-padded, as a big-endian integer.
    #[cfg(any(feature = "onemodel", feature = "mlbundle"))]
    pub(crate) fn head(&self) -> u64 {
        self.head
    }
}

impl Ord for Key<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.head.cmp(&other.head).then_with(|| self.name.cmp(other.name))
    }
}

impl PartialOrd for Key<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Key<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.head == other.head && self.name == other.name
    }
}

impl Eq for Key<'_> {}

/// The index of the first item whose key an earlier item has; `None` when all keys are
/// distinct. Sorting (head, index) pairs, ties broken by the whole key, puts each key's
/// occurrences together in index order: the second of each group is where that key repeats
/// first, and the smallest of those is the answer. `head` must be equal for equal keys;
/// it makes nearly every comparison one integer comparison and each sorted entry 16 bytes.
#[cfg(any(feature = "onemodel", feature = "mlbundle"))]
pub(crate) fn first_repeat<'t, T, K: Ord>(
    items: &'t [T],
    head: impl Fn(&'t T) -> u64,
    key: impl Fn(&'t T) -> K,
) -> Option<usize> {
    let mut order: Vec<(u64, usize)> = items.iter().enumerate().map(|(i, t)| (head(t), i)).collect();
    let full = |i: usize| items.get(i).map(&key);
    // Most heads differ: one integer sort, then whole keys only where heads are equal.
    order.sort_unstable();
    for run in order.chunk_by_mut(|a, b| a.0 == b.0).filter(|run| run.len() > 1) {
        run.sort_unstable_by(|a, b| full(a.1).cmp(&full(b.1)).then(a.1.cmp(&b.1)));
    }
    order
        .chunk_by(|a, b| a.0 == b.0 && full(a.1) == full(b.1))
        .filter_map(|group| group.get(1))
        .map(|&(_, i)| i)
        .min()
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::collections::BTreeSet;

    /// The first index whose key was seen before, one insert at a time.
    fn reference(keys: &[&str]) -> Option<usize> {
        let mut seen = BTreeSet::new();
        keys.iter().position(|k| !seen.insert(*k))
    }

    #[test]
    fn first_repeat_is_the_first_element_an_earlier_one_equals() {
        let cases: [&[&str]; 8] = [
            &[],
            &["a"],
            &["a", "b", "c"],
            &["a", "a"],
            &["b", "a", "c", "a", "b"],
            &["x", "y", "z", "z", "y"],
            &["layer10.down", "layer10.dow", "layer10.down.w", "layer10.down"],
            &["", "\0", "", "\0"],
        ];
        for keys in cases {
            let by_head = first_repeat(keys, |k| Key::new(k).head(), |k| *k);
            // Any head that is equal for equal keys gives the same answer, even a constant.
            let one_head = first_repeat(keys, |_| 0, |k| *k);
            assert_eq!((by_head, one_head), (reference(keys), reference(keys)), "{keys:?}");
        }
    }
}
