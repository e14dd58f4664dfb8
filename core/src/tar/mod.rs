//! The one tar reader and writer of modelgate, shared by MPK (`.tar.gz`) and mvb
//! (`.mvb.tar`) (`spec/mpk.md` §1).
//!
//! - [`header`]: one 512-byte header block: checksum, magic, octal and base-256
//!   numbers, name fields, entry types (§1.1).
//! - [`pax`]: PAX extended and global header records (§1.2).
//! - [`reader`]: [`TarReader`], the push-style reader with one meaning per entry
//!   (§1.1.7, §1.3, §1.4), and [`entries`] over an in-memory stream.
//! - [`writer`]: the deterministic writer (§1.6).
//! - [`sink`]: [`EntrySink`], where the MPK reader and the mvb import validator hand
//!   accepted files, and [`Failure`] (rejected, or the sink failed).
//! - [`error`]: [`TarError`] and [`TarReason`].

pub mod error;
pub mod header;
pub mod pax;
pub mod reader;
pub mod sink;
pub mod writer;

pub use error::{Field, PaxKey, TarError, TarReason};
pub use header::{BLOCK, Dialect, EntryKind};
pub use reader::{Entries, Entry, Event, PathSource, TarLimits, TarReader, TarSummary, entries};
pub use sink::{Discard, EntrySink, Failure, check_room};
pub use writer::{FileMeta, Flavor, TarWriter, WriteError, file_header};
