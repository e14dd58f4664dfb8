//! The hooks a firmware defines for the no_std static library (`ffi/README.md`), as a
//! stand-in for its C: compiled to an object for thumbv7em-none-eabihf and linked with
//! `libmodelgate_ffi.a` by `ffi/tests/firmware/link`, which shows that the library needs
//! nothing else from the firmware. Nothing runs it.
#![no_std]

use core::ffi::{c_char, c_void};

/// Out of memory, always: enough for a link.
#[unsafe(no_mangle)]
pub extern "C" fn mg_alloc(_size: usize, _align: usize) -> *mut c_void {
    core::ptr::null_mut()
}

/// Nothing to free.
#[unsafe(no_mangle)]
pub extern "C" fn mg_free(_ptr: *mut c_void, _size: usize, _align: usize) {}

/// A firmware would log and reset here.
#[unsafe(no_mangle)]
pub extern "C" fn mg_panic(_file: *const c_char, _file_len: usize, _line: u32) {}
