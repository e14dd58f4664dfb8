//! Progress on stderr, shown only when stderr is a terminal (CONVENTIONS.md: long
//! operations show progress on stderr when it is a terminal).

use std::io::{IsTerminal, Write};

/// A one-line `[i/n] item` counter that redraws itself in place.
pub struct Progress {
    total: usize,
    shown: bool,
}

impl Progress {
    /// A counter over `total` items; silent unless stderr is a terminal and there is more
    /// than one item.
    pub fn new(total: usize) -> Self {
        Progress {
            total,
            shown: total > 1 && std::io::stderr().is_terminal(),
        }
    }

    /// Shows that item `index` (zero-based) named `what` is being worked on.
    pub fn step(&self, index: usize, what: &str) {
        if self.shown {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[K[{}/{}] {what}", index + 1, self.total);
            let _ = err.flush();
        }
    }

    /// Erases the counter before ordinary output is printed.
    pub fn clear(&self) {
        if self.shown {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[K");
            let _ = err.flush();
        }
    }
}
