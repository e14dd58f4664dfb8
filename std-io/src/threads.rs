//! [`Threads`]: the core's [`Join`] on two threads (`spec/mlbundle.md` §12.0). The second
//! half runs on a scoped thread while the calling thread runs the first; if the thread
//! cannot be started, the calling thread runs both.

use modelgate_core::join::Join;
use std::sync::Mutex;
use std::thread;

/// Runs the two halves of a join on the calling thread and one scoped thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Threads {
    /// Work below which callers run both halves inline ([`Join::min_work`]).
    pub min_work: u64,
}

impl Threads {
    /// A thread only for at least 1 MiB of work in the lighter half (for the mlbundle
    /// reader, member bytes: some 0.5 ms of hashing or validating): less does not pay for
    /// starting a thread.
    pub const DEFAULT: Threads = Threads { min_work: 1 << 20 };
}

impl Default for Threads {
    fn default() -> Self {
        Threads::DEFAULT
    }
}

impl Join for Threads {
    fn min_work(&self) -> u64 {
        self.min_work
    }

    fn join<A: Send, B: Send>(&self, a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B + Send) -> (A, B) {
        // `b` waits in the cell, so that it is still here when the thread cannot be started.
        let cell = Mutex::new(Some(b));
        let take = || cell.lock().unwrap_or_else(|e| e.into_inner()).take();
        thread::scope(|s| {
            let spawned = thread::Builder::new()
                .name("modelgate-join".into())
                .spawn_scoped(s, || take().map(|b| b()));
            let first = a();
            let second = match spawned {
                Ok(handle) => handle.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
                Err(_) => None,
            };
            match second.or_else(|| take().map(|b| b())) {
                Some(second) => (first, second),
                None => unreachable!("the second half runs on the thread or here"),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_the_second_half_on_another_thread() {
        let here = thread::current().id();
        let (a, b) = Threads { min_work: 0 }.join(|| thread::current().id(), || thread::current().id());
        assert_eq!(a, here);
        assert_ne!(b, here);
    }

    #[test]
    fn a_panic_in_the_second_half_reaches_the_caller() {
        let r = std::panic::catch_unwind(|| Threads::DEFAULT.join(|| 1, || -> u8 { panic!("second") }));
        assert!(r.is_err());
    }
}
