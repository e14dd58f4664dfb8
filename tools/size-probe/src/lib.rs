//! A `no_std` static library exporting one C function per format feature, each running that
//! format's validating read over a caller's buffer: linked with LTO, the library holds the
//! code a firmware loader embedding that one reader compiles, which `measure.py` sizes. The
//! caller supplies the allocator (`probe_alloc`, `probe_free`), as a loader does.
#![no_std]

extern crate alloc;

use core::alloc::{GlobalAlloc, Layout};

unsafe extern "C" {
    fn probe_alloc(size: usize, align: usize) -> *mut u8;
    fn probe_free(ptr: *mut u8, size: usize, align: usize);
}

/// The caller's allocator.
struct Hook;

// SAFETY: both calls forward to the caller's allocator, whose contract is GlobalAlloc's.
unsafe impl GlobalAlloc for Hook {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as is; the caller's allocator upholds GlobalAlloc's contract.
        unsafe { probe_alloc(layout.size(), layout.align()) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { probe_free(ptr, layout.size(), layout.align()) }
    }
}

#[global_allocator]
static ALLOCATOR: Hook = Hook;

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    loop {}
}

/// The caller's buffer as a slice.
fn input<'a>(ptr: *const u8, len: usize) -> &'a [u8] {
    // SAFETY: the caller passes a readable buffer of `len` bytes that outlives the call.
    unsafe { core::slice::from_raw_parts(ptr, len) }
}

/// Strict JSON validation: the baseline every format carries.
#[cfg(feature = "json")]
#[unsafe(no_mangle)]
pub extern "C" fn probe_json(ptr: *const u8, len: usize) -> i32 {
    modelgate_core::json::validate(input(ptr, len), modelgate_core::json::Limits::DEFAULT).is_ok() as i32
}

/// `mlbundle::read_container`.
#[cfg(feature = "mlbundle")]
#[unsafe(no_mangle)]
pub extern "C" fn probe_mlbundle(ptr: *const u8, len: usize) -> i32 {
    use modelgate_core::mlbundle::{ArchiveLimits, read_container};
    read_container(input(ptr, len), &ArchiveLimits::DEFAULT).is_ok() as i32
}

/// `onemodel::read`.
#[cfg(feature = "onemodel")]
#[unsafe(no_mangle)]
pub extern "C" fn probe_onemodel(ptr: *const u8, len: usize) -> i32 {
    use modelgate_core::onemodel::{Limits, read};
    read(input(ptr, len), Limits::default()).is_ok() as i32
}

/// `onnx::to_model`.
#[cfg(feature = "onnx")]
#[unsafe(no_mangle)]
pub extern "C" fn probe_onnx(ptr: *const u8, len: usize) -> i32 {
    modelgate_core::onnx::to_model(input(ptr, len), modelgate_core::onemodel::Limits::DEFAULT).is_ok() as i32
}

/// `mpk::check_tar_gz`.
#[cfg(feature = "mpk")]
#[unsafe(no_mangle)]
pub extern "C" fn probe_mpk(ptr: *const u8, len: usize) -> i32 {
    use modelgate_core::mpk::{MpkLimits, Registry, check_tar_gz};
    check_tar_gz(input(ptr, len), MpkLimits::DEFAULT, Registry::DEFAULT, [1, 2]).is_ok() as i32
}

/// `mvb::check_mvb`.
#[cfg(feature = "mvb")]
#[unsafe(no_mangle)]
pub extern "C" fn probe_mvb(ptr: *const u8, len: usize) -> i32 {
    use modelgate_core::mvb::{MvbLimits, check_mvb};
    check_mvb(input(ptr, len), MvbLimits::DEFAULT, [1, 2]).is_ok() as i32
}
