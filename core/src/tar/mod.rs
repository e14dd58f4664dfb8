//! The one tar reader and writer of modelgate, shared by MPK (`.tar.gz`) and mvb
//! (`.mvb.tar`) (`spec/mpk.md` §1).
//!
//! - `header`: one 512-byte header block: checksum, magic, octal and base-256
//!   numbers, name fields, entry types (§1.1).
//! - `pax`: PAX extended and global header records (§1.2).
//! - `reader`: [`TarReader`], the push-style reader with one meaning per entry
//!   (§1.1.7, §1.3, §1.4), and [`entries`] over an in-memory stream.
//! - `writer`: the deterministic writer (§1.6).
//! - `sink`: [`EntrySink`], where the MPK reader and the mvb import validator hand
//!   accepted files, and [`Failure`] (rejected, or the sink failed).
//! - `error`: [`TarError`] and [`TarReason`].

pub(crate) mod error;
pub(crate) mod header;
pub(crate) mod pax;
pub(crate) mod reader;
pub(crate) mod sink;
pub(crate) mod writer;

pub use error::{Field, PaxKey, TarError, TarReason};
pub use header::{BLOCK, Dialect, EntryKind, MAGIC_OFFSET};
pub use reader::{Entries, Entry, Event, PathSource, TarLimits, TarReader, TarSummary, entries};
pub(crate) use sink::check_room;
pub use sink::{Discard, EntrySink, Failure};
pub use writer::{END_OF_ARCHIVE, FileMeta, Flavor, TarWriter, WriteError, file_header, padding};
