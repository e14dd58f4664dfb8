//! modelgate-io: what modelgate needs from the operating system, on top of
//! `modelgate-core`.
//!
//! A file checked as `modelgate check` checks it: the format from its name (or first
//! bytes), then the full validating read.
//!
//! ```
//! use modelgate_io::check::{self, CheckError};
//!
//! let dir = std::env::temp_dir().join(format!("modelgate-io-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let path = dir.join("schema.json");
//! std::fs::write(&path, br#"{"a":1,"a":2}"#)?;
//! let format = check::detect(&path)?.expect("a .json file is JSON");
//! match format.check(&path, &mut |_, _| {}) {
//!     Err(CheckError::Rejected(r)) => {
//!         assert_eq!(r.to_string(), "InvalidJSON: duplicate object member name (byte 7)")
//!     }
//!     other => panic!("{other:?}"),
//! }
//! std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! - [`read`]: bounded reading of files (stat first, then at most the limit plus one byte).
//! - [`beneath`]: files and folders below a folder held open, reached one name at a time
//!   without following links (`openat`), so that a folder swapped for a link is refused.
//! - [`check`]: the validating read of one file in any registered format, as
//!   `modelgate check` runs it, and the format registry.
//! - [`dirsink`]: the one sink that writes an archive's accepted files under a private root
//!   (MPK extraction, mvb import and check).
//! - [`extract`]: safe MPK extraction into a private temporary root, renamed into place;
//!   inflate runs on a second thread and hands the tar stream over through `handoff`, and
//!   files are fsync'ed on a third (`syncer`).
//! - [`corpus`]: `corpus-check`: every `<Expected>-<case>.<ext>` file under a folder checked
//!   against the outcome its name states.
//! - [`mvb`]: mvb bundles: deterministic export, fail-closed import into a vault, verify.
//! - [`mmap`]: memory-mapped loading of files of 1 MiB or more once the program allows it
//!   (`unsafe`: the map and `allow_mapping`, the crate's only `unsafe`).
//! - [`source`]: container sources (path, bytes, stream) bounded before buffering.
//! - [`publish`]: atomic publication of output files.
//! - [`threads`]: [`threads::Threads`], the core's `Join` on two threads (the mlbundle
//!   reader's member work).
//! - [`path_limit`]: the operating system's path length limit, and the room it leaves below
//!   a folder for the files an archive writes there.
//! - [`temp`]: exclusively created temporary files and folders beside a destination.
//! - [`onemodel`]: OneModel/ONNX loading, the check of a OneModel file from its header and
//!   manifest alone, external data, conversions.
//! - [`failure`]: [`failure::FileError`], why an operation that reads an archive and writes
//!   files failed (MPK extraction, mvb export, import and verify).
//! - `hash_key`: a per-process random key for the JSON duplicate-name table.
//! - [`Progress`]: the byte-progress callback of long operations.
#![deny(unsafe_code)]

pub mod beneath;
pub mod check;
pub mod corpus;
pub mod dirsink;
pub mod extract;
pub mod failure;
mod handoff;
#[allow(unsafe_code)]
pub mod mmap;
pub mod mvb;
pub mod onemodel;
pub mod path_limit;
pub mod publish;
pub mod read;
pub mod source;
mod syncer;
pub mod temp;
pub mod threads;

use std::hash::{BuildHasher, RandomState};
use std::sync::OnceLock;

/// Progress callback of long operations (`spec/errors.md` §3.6: long operations show progress
/// on stderr when it is a terminal): bytes done, bytes in total. Calls are monotone in the
/// bytes done and the last one, after a complete pass, reports the total. The command line
/// draws it; the library only counts.
pub type Progress<'a> = &'a mut dyn FnMut(u64, u64);

/// A random SipHash key for this process (`spec/json.md` §5), drawn once from the
/// operating system's entropy through `std`'s `RandomState`.
pub(crate) fn hash_key() -> [u64; 2] {
    static KEY: OnceLock<[u64; 2]> = OnceLock::new();
    *KEY.get_or_init(|| {
        let state = RandomState::new();
        [state.hash_one(0x6b30u64), state.hash_one(0x6b31u64)]
    })
}
