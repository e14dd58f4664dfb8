//! modelgate-ffi: the C ABI of modelgate. `include/modelgate.h` is generated from this crate
//! by cbindgen (`cbindgen.toml`); `README.md` beside it documents the ABI: statuses, enums,
//! ownership and lifetimes, message truncation, the no-panic guarantee and the no_std hooks.
//!
//! Nothing here decides whether an input is valid: every check calls the public API of
//! `modelgate-core` (buffers) or `modelgate-io` (paths), and this crate only carries
//! arguments in and the verdict out.
//!
//! - `outcome`: [`mg_status`], [`mg_result`], the message written into the caller's buffer,
//!   and the guard every entry runs in (panics caught with `std`).
//! - `kinds`: [`mg_format`] and one kind enum per format, mirroring the core's kinds.
//! - `limits`: [`mg_limits`], filled by [`mg_limits_default`].
//! - `check`: `mg_check_<format>` over caller-owned bytes.
//! - `onemodel`: the OneModel tensor reader ([`mg_onemodel_open`]).
//! - `host` (feature `std`): the functions over paths.
//! - `hooks`: the no_std allocator and panic hooks (features `alloc-hook`, `panic-handler`).
#![cfg_attr(not(feature = "std"), no_std)]
// The types and constants carry their C names, so that the header and this crate read alike.
#![allow(non_camel_case_types)]
#![warn(unreachable_pub)]
#![cfg_attr(
    not(test),
    deny(
        clippy::indexing_slicing,
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::unreachable,
        clippy::arithmetic_side_effects,
        clippy::cast_possible_truncation
    )
)]

extern crate alloc;

mod check;
mod hooks;
#[cfg(feature = "std")]
mod host;
mod kinds;
mod limits;
mod onemodel;
mod outcome;

pub use check::*;
#[cfg(feature = "std")]
pub use host::*;
pub use kinds::*;
pub use limits::*;
pub use onemodel::*;
pub use outcome::{mg_result, mg_status};

/// The library's version, NUL-terminated (`"0.1.0"`): the `version` of this crate, which
/// is modelgate's.
#[unsafe(no_mangle)]
pub extern "C" fn mg_version() -> *const core::ffi::c_char {
    const VERSION: &core::ffi::CStr =
        match core::ffi::CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
            Ok(v) => v,
            Err(_) => c"",
        };
    VERSION.as_ptr()
}
