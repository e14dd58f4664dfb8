//! Running two independent pieces of work, possibly at the same time.
//!
//! The core has no threads. A reader whose work splits into two independent halves (the
//! mlbundle reader's members, `spec/mlbundle.md` §12.0) takes a [`Join`] and hands it both
//! halves; [`Serial`] runs them one after the other on the calling thread, and
//! `modelgate_io::threads::Threads` runs the second on a scoped thread. Readers combine the
//! two results in a fixed order, so what they report never depends on the join.

/// Runs two closures and returns both results.
pub trait Join {
    /// Work (in the caller's units: for the mlbundle reader, member bytes) below which the
    /// halves are not worth a join: callers run them inline, one after the other. `0` for
    /// [`Serial`] and [`Reversed`].
    fn min_work(&self) -> u64 {
        0
    }

    /// Runs `a` and `b` (in any order, or at the same time) and returns `(a(), b())`. Both
    /// are run exactly once, whatever happens.
    fn join<A: Send, B: Send>(&self, a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B + Send) -> (A, B);
}

/// A join passed by reference joins as the join itself.
impl<J: Join> Join for &J {
    fn min_work(&self) -> u64 {
        (**self).min_work()
    }

    fn join<A: Send, B: Send>(&self, a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B + Send) -> (A, B) {
        (**self).join(a, b)
    }
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
/// does not depend on which half runs first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reversed;

impl Join for Reversed {
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
        assert_eq!(order_of(&Reversed), [1, 0]);
        assert_eq!((Serial.min_work(), Reversed.min_work()), (0, 0));
    }
}
