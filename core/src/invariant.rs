//! Bounds the code's own accounting guarantees, stated once.
//!
//! A parser computes positions as it goes: a cursor that never passes the end of its
//! input, a field at a constant offset of a fixed-size block, a count of bytes it has
//! already checked are there. Reading such a position with indexing would panic if the
//! accounting were wrong; reading it with `get(..).unwrap_or_default()` would hide the
//! mistake behind an empty slice. Each function here does what the second does in a
//! release build, so no input can make the crate panic, and asserts the bound in a debug
//! build (tests, and every fuzz build), so a broken invariant fails loudly where it is
//! exercised. `#[track_caller]` makes the failure name the call site.
//!
//! Use these only where the bound follows from the crate's own code; a bound that depends
//! on the input is checked, and its failure is a typed error, not a call here.

use core::fmt::Debug;
use core::slice::SliceIndex;

/// `s[range]`, which the caller's accounting keeps within `s`; empty if it were not.
#[inline]
#[track_caller]
pub(crate) fn sub<T, R>(s: &[T], range: R) -> &[T]
where
    R: SliceIndex<[T], Output = [T]> + Clone + Debug,
{
    match s.get(range.clone()) {
        Some(part) => part,
        None => {
            debug_assert!(false, "{range:?} is outside a slice of {} items", s.len());
            &[]
        }
    }
}

/// `&mut s[range]`, which the caller's accounting keeps within `s`; empty if it were not.
#[cfg(any(feature = "mpk", feature = "mvb", feature = "onnx", feature = "fast-inflate"))]
#[inline]
#[track_caller]
pub(crate) fn sub_mut<T, R>(s: &mut [T], range: R) -> &mut [T]
where
    R: SliceIndex<[T], Output = [T]> + Clone + Debug,
{
    let len = s.len();
    match s.get_mut(range.clone()) {
        Some(part) => part,
        None => {
            debug_assert!(false, "{range:?} is outside a slice of {len} items");
            &mut []
        }
    }
}

/// `&s[range]`, whose ends the caller's accounting keeps within `s` and on character
/// boundaries; empty if they were not.
#[inline]
#[track_caller]
pub(crate) fn sub_str<R>(s: &str, range: R) -> &str
where
    R: SliceIndex<str, Output = str> + Clone + Debug,
{
    match s.get(range.clone()) {
        Some(part) => part,
        None => {
            debug_assert!(
                false,
                "{range:?} is outside a string of {} bytes or not on a boundary",
                s.len()
            );
            ""
        }
    }
}

/// `s[i]`, which the caller's accounting keeps within `s`; `T::default()` if it were not.
/// (Every format uses it; the JSON-only build does not.)
#[cfg(any(feature = "mlbundle", feature = "onemodel", feature = "mpk", feature = "mvb"))]
#[inline]
#[track_caller]
pub(crate) fn item<T: Copy + Default>(s: &[T], i: usize) -> T {
    match s.get(i) {
        Some(&v) => v,
        None => {
            debug_assert!(false, "index {i} is outside a slice of {} items", s.len());
            T::default()
        }
    }
}

/// The value of `o`, which the caller's own logic has made `Some` (a digest that was
/// asked for, a value the parser has just completed); `T::default()` if it were not.
#[inline]
#[track_caller]
pub(crate) fn some<T: Default>(o: Option<T>) -> T {
    match o {
        Some(v) => v,
        None => {
            debug_assert!(false, "a value the code itself provides is missing");
            T::default()
        }
    }
}

/// The value of `o`, which the caller's own logic has made `Some`; `fallback` if it were
/// not (the value the code gave before the invariant was asserted).
#[inline]
#[track_caller]
pub(crate) fn some_or<T>(o: Option<T>, fallback: T) -> T {
    match o {
        Some(v) => v,
        None => {
            debug_assert!(false, "a value the code itself provides is missing");
            fallback
        }
    }
}
