//! Progress on stderr, shown only when stderr is a terminal (`spec/errors.md` §3.6: long
//! operations show progress on stderr when it is a terminal): an `[i/n] item` counter for
//! commands over many files and a byte percentage for long reads, on one line that
//! redraws itself in place.

use std::io::{IsTerminal, Write};

/// One progress line: the current item and, while it is read, its bytes (as a percentage of
/// a known total, or counted when the total is not known).
pub struct Progress {
    total: usize,
    shown: bool,
    label: String,
    percent: Option<u64>,
    drawn: bool,
}

impl Progress {
    /// A counter over `total` items; silent unless stderr is a terminal. The item counter
    /// shows only when there is more than one item; byte progress always does.
    pub fn new(total: usize) -> Self {
        Progress {
            total,
            shown: std::io::stderr().is_terminal(),
            label: String::new(),
            percent: None,
            drawn: false,
        }
    }

    /// The same line, never shown when `quiet` (`--quiet`).
    pub fn quiet(mut self, quiet: bool) -> Self {
        self.shown &= !quiet;
        self
    }

    /// Byte progress of one operation named `label` (for example `importing`).
    pub fn bytes(label: &str) -> Self {
        let mut p = Progress::new(1);
        p.label = label.to_string();
        p
    }

    /// Shows that item `index` (zero-based) named `what` is being worked on.
    pub fn step(&mut self, index: usize, what: &str) {
        self.percent = None;
        if self.total > 1 {
            self.label = format!("[{}/{}] {what}", index + 1, self.total);
            let line = self.label.clone();
            self.draw(&line);
        } else {
            self.label = what.to_string();
        }
    }

    /// Shows `done` of `total` bytes of the current item; redrawn when the percentage
    /// changes.
    pub fn update(&mut self, done: u64, total: u64) {
        if total == 0 {
            return;
        }
        let percent = percent(done, total);
        if self.percent == Some(percent) {
            return;
        }
        self.percent = Some(percent);
        let line = format!("{} {percent}% ({} of {} MiB)", self.label, done >> 20, total >> 20);
        self.draw(&line);
    }

    /// Shows `done` bytes of an operation whose total is not known in advance (for example
    /// external data being copied), in whole MiB; redrawn when that number changes.
    pub fn count(&mut self, done: u64) {
        let mib = done >> 20;
        if self.percent == Some(mib) {
            return;
        }
        self.percent = Some(mib);
        let line = format!("{} {mib} MiB", self.label);
        self.draw(&line);
    }

    /// Erases the line before ordinary output is printed.
    pub fn clear(&mut self) {
        if self.drawn {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[K");
            let _ = err.flush();
            self.drawn = false;
        }
    }

    fn draw(&mut self, line: &str) {
        if self.shown {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[K{line}");
            let _ = err.flush();
            self.drawn = true;
        }
    }
}

/// Whole percent of `done` in `total` (non-zero), at most 100.
fn percent(done: u64, total: u64) -> u64 {
    let p = u128::from(done) * 100 / u128::from(total);
    u64::try_from(p.min(100)).unwrap_or(100)
}

#[cfg(test)]
mod tests {
    use super::percent;

    #[test]
    fn percent_is_whole_and_capped() {
        assert_eq!(percent(0, 3), 0);
        assert_eq!(percent(1, 3), 33);
        assert_eq!(percent(3, 3), 100);
        assert_eq!(percent(u64::MAX, u64::MAX), 100);
        assert_eq!(percent(5, 3), 100);
    }
}
