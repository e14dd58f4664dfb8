//! Running two independent pieces of work, possibly at the same time.
//!
//! The core has no threads. A reader whose work splits into two independent halves (the
//! mlbundle reader's members, `spec/mlbundle.md` §12.0) takes a [`Join`] and hands it both
//! halves; [`Serial`] runs them one after the other on the calling thread, and
//! `modelgate_io::threads::Threads` runs the second on a scoped thread. Readers combine the
//! two results in a fixed order, so what they report never depends on the join.
//!
//! Two hashes can also run at the same time on one thread, as two lanes of the processor's
//! SHA instructions: a join may offer them ([`Join::sha256_pair`]).

use crate::digest::lanes::{CompressPair, in_turn};

/// Runs two closures and returns both results.
pub trait Join {
    /// Work (in the caller's units, see [`Join::join`]) below which the halves are not
    /// worth a join: callers run them inline, one after the other. `0` for [`Serial`].
    fn min_work(&self) -> u64 {
        0
    }

    /// True when the two halves really run at the same time, so a reader may plan for two
    /// workers (`spec/mlbundle.md` §12.0); `false` for [`Serial`].
    fn parallel(&self) -> bool {
        false
    }

    /// Two SHA-256 chains stepped side by side on one thread, when the caller's processor
    /// has them (`spec/mlbundle.md` §12.0): a reader then hashes two members, and takes
    /// their CRC-32s, in one pass. `None` for [`Serial`]; std-io's `Threads` offers the
    /// x86-64 SHA extensions' (with the carry-less multiplier for the CRC-32s) when the
    /// processor has them.
    fn sha256_pair(&self) -> Option<CompressPair> {
        None
    }

    /// Runs `a` and `b` (in any order, or at the same time) and returns `(a(), b())`. Both
    /// are run exactly once, whatever happens.
    fn join<A: Send, B: Send>(&self, a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B + Send) -> (A, B);
}

/// The join of a single thread: `a`, then `b`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Serial;

impl Join for Serial {
    fn join<A: Send, B: Send>(&self, a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B + Send) -> (A, B) {
        let first = a();
        (first, b())
    }
}

/// The join of a single thread that runs `b` first, then `a`: the order a second thread may
/// take, made deterministic. Tests and fuzz targets use it to check that a reader's outcome
/// does not depend on which half runs first; with `parallel` set it also stands in for two
/// workers, so a reader plans as it would for threads (`spec/mlbundle.md` §12.0). It offers
/// two SHA-256 lanes that run in turn ([`in_turn`]), so the readers' paired paths run on any
/// machine.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reversed {
    /// What [`Join::parallel`] answers.
    pub parallel: bool,
}

impl Join for Reversed {
    fn parallel(&self) -> bool {
        self.parallel
    }

    fn sha256_pair(&self) -> Option<CompressPair> {
        Some(in_turn)
    }

    fn join<A: Send, B: Send>(&self, a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B + Send) -> (A, B) {
        let second = b();
        (a(), second)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::sync::atomic::{AtomicUsize, Ordering};

    /// Runs a join whose halves each return their place in the order they ran in: the
    /// result is `[a's place, b's place]`.
    fn order_of(join: &impl Join) -> [usize; 2] {
        let next = AtomicUsize::new(0);
        let (a, b) = join.join(
            || next.fetch_add(1, Ordering::Relaxed),
            || next.fetch_add(1, Ordering::Relaxed),
        );
        [a, b]
    }

    #[test]
    fn serial_runs_a_first_and_reversed_runs_b_first_both_returning_a_then_b() {
        assert_eq!(order_of(&Serial), [0, 1]);
        assert_eq!(order_of(&Reversed::default()), [1, 0]);
        assert!(!Serial.parallel());
        assert!(!Reversed { parallel: false }.parallel());
        assert!(Reversed { parallel: true }.parallel());
    }
}
