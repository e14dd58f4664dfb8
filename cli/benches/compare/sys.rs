//! The place the benchmark needs the operating system below `std`: `wait4` (peak RSS of one
//! child process). In-process runs are measured by the test crates' counting allocator
//! (`modelgate_corpus_gen::counting`). Benchmark-only code; the shipped crates keep their
//! `unsafe` to the memory map (`std-io/src/mmap.rs`) and the `modelgate` binary's permission
//! to use it.

use std::io;
use std::process::Child;

/// Waits for `child` with `wait4` and returns its exit code and peak resident set size in
/// bytes (`ru_maxrss`, KiB on Linux). The child is reaped here: do not call `Child::wait`.
pub fn wait_rss(child: &Child) -> io::Result<(i32, u64)> {
    let pid = libc::pid_t::try_from(child.id()).map_err(io::Error::other)?;
    let mut status: libc::c_int = 0;
    // SAFETY: `rusage` is a plain C struct of integers, for which all-zero bytes are valid.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our own unreaped child; both pointers are to live locals of the
    // types `wait4` writes.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    if r != pid {
        return Err(io::Error::last_os_error());
    }
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    let kib = u64::try_from(usage.ru_maxrss).unwrap_or(0);
    Ok((code, kib.saturating_mul(1024)))
}
