//! modelgate-core: strict, bounded readers and writers for model-container formats.
//!
//! Everything here works on byte slices, needs no operating system (`#![no_std]` with
//! `alloc`) and forbids unsafe code. Hostile input gets a typed error with a
//! [`Location`], never a panic; sizes are checked before anything is allocated from them.
//!
//! ```
//! use modelgate_core::json::{self, Limits};
//!
//! assert!(json::validate(br#"{"inputs":[1,2]}"#, Limits::DEFAULT).is_ok());
//! let e = json::validate(br#"{"a":1,"a":2}"#, Limits::DEFAULT).unwrap_err();
//! assert_eq!(e.rejection().to_string(), "InvalidJSON: duplicate object member name (byte 7)");
//! ```
//!
//! Shared building blocks (each format module calls these instead of its own copy):
//! - [`json`]: strict RFC 8259 / I-JSON tokenizer, owned value, typed access with paths,
//!   canonical writer (`spec/json.md`).
//! - [`inflate`]: bounded raw-deflate decoding with CRC-32 and optional SHA-256 over the
//!   same chunk, and the deterministic deflate writer (`spec/inflate.md`).
//! - [`gzip`]: RFC 1952 member parsing over the inflater (`spec/inflate.md` §gzip).
//! - [`digest`]: CRC-32 and SHA-256 updated together over one chunk.
//! - [`join`]: [`join::Join`], two independent halves of work run by the caller's choice
//!   of thread (the core's own [`join::Serial`] runs them one after the other).
//! - [`tar`]: the one tar reader (ustar, GNU, PAX; one size, path and link per entry) and
//!   the deterministic tar writer (`spec/mpk.md` §1).
//! - [`archive_path`]: archive entry path validation, normalisation and duplicate
//!   detection (`spec/mpk.md` §2).
#![no_std]
#![forbid(unsafe_code)]
#![cfg_attr(
    not(test),
    deny(
        clippy::indexing_slicing,
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::unreachable,
        clippy::cast_possible_truncation
    )
)]

extern crate alloc;

pub mod archive_path;
pub mod digest;
pub mod gzip;
pub mod inflate;
pub mod join;
pub mod json;
pub mod location;
pub mod mlbundle;
pub mod mpk;
pub mod mvb;
pub mod onemodel;
pub mod onnx;
pub mod report;
pub mod tar;
#[cfg(any(test, fuzzing))]
#[doc(hidden)]
pub mod test_docs;
pub mod zip;

pub use location::Location;
pub use report::Rejection;
