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
//! Formats, each behind a Cargo feature of its name (all on by default), so that a loader
//! compiles only what it embeds: [`mlbundle`] (with `onnx`), [`onemodel`], [`onnx`] (with
//! `onemodel`), [`mpk`], [`mvb`]. The building blocks below are compiled when a format that
//! needs them is: `zip` and `join` for mlbundle, `gzip` for MPK, `inflate` for both, `tar` and
//! `archive_path` for MPK and mvb.
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
#![warn(unreachable_pub)]
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

#[cfg(any(feature = "mpk", feature = "mvb"))]
pub mod archive_path;
pub mod digest;
#[cfg(feature = "mpk")]
pub mod gzip;
#[cfg(any(feature = "mlbundle", feature = "mpk"))]
pub mod inflate;
mod invariant;
#[cfg(feature = "mlbundle")]
pub mod join;
pub mod json;
pub mod location;
#[cfg(feature = "mlbundle")]
pub mod mlbundle;
#[cfg(feature = "mpk")]
pub mod mpk;
#[cfg(feature = "mvb")]
pub mod mvb;
#[cfg(feature = "onemodel")]
pub mod onemodel;
#[cfg(feature = "onnx")]
pub mod onnx;
pub mod report;
#[cfg(any(feature = "mpk", feature = "mvb"))]
pub mod tar;
#[cfg(any(test, fuzzing))]
#[doc(hidden)]
pub mod test_docs;
#[cfg(any(feature = "onemodel", feature = "mlbundle", feature = "mpk"))]
pub(crate) mod unique;
#[cfg(feature = "mlbundle")]
pub mod zip;

pub use location::Location;
pub use report::Rejection;

/// README.md's Rust examples, run by `cargo test --doc` so that they stay true.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;
