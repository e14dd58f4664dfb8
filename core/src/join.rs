//! Running two independent pieces of work, possibly at the same time.
//!
//! The core has no threads. A reader whose work splits into two independent halves (the
//! mlbundle reader's members, `spec/mlbundle.md` §12.0) takes a [`Join`] and hands it both
//! halves; [`Serial`] runs them one after the other on the calling thread, and
//! `modelgate_io::threads::Threads` runs the second on a scoped thread. Readers combine the
//! two results in a fixed order, so what they report never depends on the join.

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
