//! The firmware's hooks for a no_std build (`--no-default-features`):
//!
//! - feature `alloc-hook`: the library's `#[global_allocator]` calls
//!   `void *mg_alloc(size_t size, size_t align)` and
//!   `void mg_free(void *ptr, size_t size, size_t align)`, which the firmware defines.
//!   `mg_alloc` returns NULL when it cannot allocate (the allocation then fails as Rust's
//!   allocation failures do: the program stops through the panic handler); it must return
//!   memory aligned to `align`, a power of two. `mg_free` gets back exactly the size and
//!   alignment given to `mg_alloc`. Growing a buffer allocates, copies and frees.
//! - feature `panic-handler` (ignored with `std`): the `#[panic_handler]` a no_std static
//!   library needs. It calls `void mg_panic(const char *file, size_t file_len, uint32_t
//!   line)`, which the firmware defines (log, reset, halt); if `mg_panic` returns, the
//!   library spins forever. A panic is a defect of modelgate, never an answer about the
//!   input, but without unwinding it cannot be turned into a status.
//!
//! A firmware that links its own Rust allocator or panic handler (an rlib user) leaves the
//! features off.

#[cfg(feature = "alloc-hook")]
mod alloc_hook {
    use core::alloc::{GlobalAlloc, Layout};

    unsafe extern "C" {
        // Declared for C in the header's trailer (`cbindgen.toml`), under `MG_NO_STD`.
        /// Firmware: `size` bytes aligned to `align`, or NULL.
        fn mg_alloc(size: usize, align: usize) -> *mut core::ffi::c_void;
        /// Firmware: frees what `mg_alloc` returned for this size and alignment.
        fn mg_free(ptr: *mut core::ffi::c_void, size: usize, align: usize);
    }

    /// The allocator that calls the firmware's hooks.
    struct Hooks;

    // SAFETY: `GlobalAlloc`'s contract is passed to the firmware's hooks, whose contract
    // (module documentation) is the same: memory of the size and alignment asked for, or
    // NULL, and `mg_free` with the layout `mg_alloc` was called with.
    unsafe impl GlobalAlloc for Hooks {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            // SAFETY: a plain call of the firmware's allocator (contract above).
            unsafe { mg_alloc(layout.size(), layout.align()) }.cast::<u8>()
        }

        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            // SAFETY: `ptr` came from `alloc` with this `layout` (`GlobalAlloc`'s contract).
            unsafe { mg_free(ptr.cast::<core::ffi::c_void>(), layout.size(), layout.align()) }
        }
    }

    #[global_allocator]
    static ALLOCATOR: Hooks = Hooks;
}

#[cfg(all(feature = "panic-handler", not(feature = "std"), not(test)))]
mod panic_handler {
    unsafe extern "C" {
        // Declared for C in the header's trailer (`cbindgen.toml`), under `MG_NO_STD`.
        /// Firmware: told where a panic happened; may not return.
        fn mg_panic(file: *const core::ffi::c_char, file_len: usize, line: u32);
    }

    #[panic_handler]
    fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
        let (file, line) = info.location().map_or(("", 0), |l| (l.file(), l.line()));
        // SAFETY: a call of the firmware's hook with a live string and its length.
        unsafe { mg_panic(file.as_ptr().cast::<core::ffi::c_char>(), file.len(), line) };
        #[allow(clippy::empty_loop)]
        loop {}
    }
}
