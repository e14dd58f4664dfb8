//! Bounded raw-deflate (RFC 1951) decoding and the deterministic deflate writer
//! (`spec/inflate.md`).
//!
//! - `raw`: the one decoding engine, [`Inflater`]: push-style, output bound with one
//!   byte of lookahead, CRC-32 (and optional SHA-256) per chunk (§2). The default build
//!   decodes with miniz_oxide's core decompressor over a 64 KiB ring (`miniz.rs`); the
//!   off-by-default Cargo feature `fast-inflate` replaces it with modelgate's own decoder
//!   (`fast/`, §8.8), which gives the same outcome for every stream.
//! - `member`: whole-slice helpers for a stream with a declared exact size, as ZIP
//!   members carry it: [`inflate_exact`], [`inflate_into`], [`inflate_to_vec`] (§3).
//! - `deflate`: the deterministic writer, [`deflate()`] and [`Deflater`] (§4).
//! - `frame`: the `.deflate` test and fuzzing frame, [`check_frame`] and
//!   [`write_frame`] (§6).
//! - `error`: [`InflateError`] and [`InflateReason`] (§2.8, §2.9).

pub(crate) mod deflate;
pub(crate) mod error;
#[cfg(feature = "fast-inflate")]
pub(crate) mod fast;
pub(crate) mod frame;
pub(crate) mod member;
#[cfg(any(not(feature = "fast-inflate"), test, fuzzing))]
pub(crate) mod miniz;
pub(crate) mod raw;
#[cfg(any(test, fuzzing))]
#[doc(hidden)]
pub mod reference;
pub(crate) mod stream;
#[cfg(any(test, fuzzing))]
#[doc(hidden)]
pub mod token_writer;
#[cfg(test)]
pub(crate) mod written_stream_tests;

pub use deflate::{DeflateError, Deflater, deflate};
pub use error::{InflateError, InflateReason};
pub use frame::{FRAME_HEADER_LEN, FrameError, check_frame, write_frame};
pub use member::{inflate_exact, inflate_into, inflate_to_vec};
pub use raw::{Inflater, MAX_CHUNK, OutputBound, Progress, Step, WINDOW_SIZE};
