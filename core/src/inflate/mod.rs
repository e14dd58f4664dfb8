//! Bounded raw-deflate (RFC 1951) decoding and the deterministic deflate writer
//! (`spec/inflate.md`).
//!
//! - [`raw`]: the one decoding engine, [`Inflater`]: push-style, 96 KiB window, output
//!   bound with one byte of lookahead, CRC-32 (and optional SHA-256) per chunk (§2).
//! - [`member`]: whole-slice helpers for a stream with a declared exact size, as ZIP
//!   members carry it: [`inflate_exact`], [`inflate_into`], [`inflate_to_vec`] (§3).
//! - [`deflate`](mod@deflate): the deterministic writer, [`deflate()`] and [`Deflater`] (§4).
//! - [`frame`]: the `.deflate` test and fuzzing frame, [`check_frame`] and
//!   [`write_frame`] (§6).
//! - [`error`]: [`InflateError`] and [`InflateReason`] (§2.8, §2.9).

mod decoder;
pub mod deflate;
pub mod error;
pub mod frame;
mod huffman;
pub mod member;
pub mod raw;
#[cfg(any(test, fuzzing))]
#[doc(hidden)]
pub mod reference;
mod run;
mod stream;
#[cfg(any(test, fuzzing))]
#[doc(hidden)]
pub mod token_writer;
#[cfg(test)]
mod written_stream_tests;

pub use deflate::{DeflateError, Deflater, deflate};
pub use error::{InflateError, InflateReason};
pub use frame::{FrameError, check_frame, write_frame};
pub use member::{inflate_exact, inflate_into, inflate_to_vec};
pub use raw::{Inflater, MAX_CHUNK, OutputBound, Progress, Step, WINDOW_SIZE};
