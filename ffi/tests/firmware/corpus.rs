//! The hostile corpus through the C ABI's buffer checks, run as firmware: the no_std build
//! for thumbv7em-none-eabihf (features `alloc-hook` and `panic-handler`) executed on an
//! emulated Cortex-M4F (QEMU's `mps2-an386` board), with this program as the firmware that
//! supplies `mg_alloc`, `mg_free` and `mg_panic`. `ffi/tests/firmware/run` builds and runs it.
//!
//! It reads `target/ffi-tests/firmware/files.txt` (one corpus path per line) and each file
//! through Arm semihosting, calls the check of the file's format folder as
//! `ffi/tests/check_corpus.c` does, and prints `PATH KIND` lines for `ffi/tests/compare.py`.
//! Each OneModel file it accepts it also opens with `mg_onemodel_open` and lists as
//! `ffi/examples/read_tensors.cpp --buffer` does, on lines that start with `> `, for the run
//! script to compare with the host's listing; every numeric tensor's data must lie in the
//! file's bytes. After every file it requires that every allocation was freed. A panic, a
//! fault or an allocation left live ends the run with a failure.
#![no_std]
#![no_main]

use core::alloc::Layout;
use core::arch::{asm, global_asm};
use core::cell::{Cell, RefCell, UnsafeCell};
use core::ffi::{CStr, c_char, c_void};
use core::fmt::Write;
use core::mem::MaybeUninit;
use core::ptr::{NonNull, null_mut};
use linked_list_allocator::Heap;
use modelgate_ffi::{
    mg_check_deflate, mg_check_gzip, mg_check_json, mg_check_mlbundle, mg_check_mpk, mg_check_mpk_file_name,
    mg_check_mvb, mg_check_onemodel, mg_check_onnx, mg_dtype, mg_dtype_name, mg_format, mg_kind_name, mg_limits,
    mg_onemodel_free, mg_onemodel_open, mg_onemodel_tensor, mg_onemodel_tensor_count, mg_onemodel_tensor_string,
    mg_result, mg_status, mg_tensor,
};

// The vector table: the initial stack pointer, the reset handler, then every exception.
global_asm!(
    ".section .vectors, \"a\"",
    ".word stack_top",
    ".word reset",
    ".rept 14",
    ".word fault",
    ".endr",
);

unsafe extern "C" {
    // Linker symbols of memory.x.
    static mut heap_start: u8;
    static mut heap_end: u8;
}

/// The list of corpus paths, relative to the directory QEMU runs in.
const FILES: &CStr = c"target/ffi-tests/firmware/files.txt";

/// The largest corpus file is 6.3 MB.
const INPUT_BYTES: usize = 7 << 20;

/// A buffer only `main` touches (one core, no interrupts).
struct Buffer<const N: usize>(UnsafeCell<[u8; N]>);

// SAFETY: the firmware has one thread and no interrupt handlers that touch the buffers.
unsafe impl<const N: usize> Sync for Buffer<N> {}

static LIST: Buffer<{ 256 << 10 }> = Buffer(UnsafeCell::new([0; 256 << 10]));
#[unsafe(link_section = ".psram")]
static INPUT: Buffer<INPUT_BYTES> = Buffer(UnsafeCell::new([0; INPUT_BYTES]));

/// The heap behind `mg_alloc`, with the count of live allocations and the most bytes in
/// use at once.
struct Firmware {
    heap: RefCell<Heap>,
    live: Cell<usize>,
    peak: Cell<usize>,
}

// SAFETY: one thread, no interrupt handler allocates.
unsafe impl Sync for Firmware {}

static FIRMWARE: Firmware = Firmware {
    heap: RefCell::new(Heap::empty()),
    live: Cell::new(0),
    peak: Cell::new(0),
};

/// The firmware's allocator hook: first fit in the heap, NULL when full.
#[unsafe(no_mangle)]
pub extern "C" fn mg_alloc(size: usize, align: usize) -> *mut c_void {
    let Ok(layout) = Layout::from_size_align(size, align) else {
        return null_mut();
    };
    let mut heap = FIRMWARE.heap.borrow_mut();
    match heap.allocate_first_fit(layout) {
        Ok(p) => {
            FIRMWARE.live.set(FIRMWARE.live.get() + 1);
            FIRMWARE.peak.set(FIRMWARE.peak.get().max(heap.used()));
            p.as_ptr().cast()
        }
        Err(()) => null_mut(),
    }
}

/// The firmware's free hook.
#[unsafe(no_mangle)]
pub extern "C" fn mg_free(ptr: *mut c_void, size: usize, align: usize) {
    let (Some(p), Ok(layout)) = (NonNull::new(ptr.cast::<u8>()), Layout::from_size_align(size, align)) else {
        fail(format_args!("mg_free of NULL or a bad layout"));
    };
    // SAFETY: the library frees what `mg_alloc` returned, with its size and alignment
    // (the hook contract of `ffi/src/hooks.rs`).
    unsafe { FIRMWARE.heap.borrow_mut().deallocate(p, layout) };
    let Some(live) = FIRMWARE.live.get().checked_sub(1) else {
        fail(format_args!("mg_free without an allocation live"));
    };
    FIRMWARE.live.set(live);
}

/// The firmware's panic hook: a panic is a defect, so the run fails.
#[unsafe(no_mangle)]
pub extern "C" fn mg_panic(file: *const c_char, file_len: usize, line: u32) {
    // SAFETY: the library passes its panic location's file name and length.
    let file = unsafe { core::slice::from_raw_parts(file.cast::<u8>(), file_len) };
    fail(format_args!(
        "panic at {}:{line}",
        core::str::from_utf8(file).unwrap_or("?")
    ));
}

/// Every exception but reset.
#[unsafe(no_mangle)]
pub extern "C" fn fault() -> ! {
    fail(format_args!("fault"))
}

/// Turns the FPU on (the hard-float ABI passes floats in its registers), sets up the heap
/// and runs the corpus.
#[unsafe(no_mangle)]
pub extern "C" fn reset() -> ! {
    const CPACR: *mut u32 = 0xE000_ED88 as *mut u32;
    // SAFETY: CPACR is the Cortex-M4's coprocessor access register; full access to CP10
    // and CP11 enables the FPU. The barriers make it take effect before any FP instruction.
    unsafe {
        CPACR.write_volatile(CPACR.read_volatile() | (0xF << 20));
        asm!("dsb", "isb");
    }
    let start = &raw mut heap_start;
    let size = (&raw mut heap_end as usize) - (start as usize);
    // SAFETY: memory.x gives the heap the PSRAM after the input buffer, used by nothing else.
    unsafe { FIRMWARE.heap.borrow_mut().init(start, size) };
    run();
    exit(true)
}

/// Checks every listed file and prints its line.
fn run() {
    // SAFETY: `run` is called once and is the only user of the two buffers.
    let (list, input) = unsafe { (&mut *LIST.0.get(), &mut *INPUT.0.get()) };
    let list = read(FILES, list);
    let list = core::str::from_utf8(list).unwrap_or_else(|_| fail(format_args!("the list is not UTF-8")));
    let (mut files, mut worst) = (0usize, (0usize, ""));
    for path in list.lines().filter(|l| !l.is_empty()) {
        let mut name = [0u8; 512];
        let c_path = c_string(path, &mut name);
        let bytes = read(c_path, input);
        FIRMWARE.peak.set(0);
        let kind = check(path, bytes);
        if matches!(kind, Kind::Valid) && path.ends_with(".onemodel") {
            list_tensors(path, bytes);
        }
        if FIRMWARE.live.get() != 0 {
            fail(format_args!("{} allocations live after {path}", FIRMWARE.live.get()));
        }
        if FIRMWARE.peak.get() > worst.0 {
            worst = (FIRMWARE.peak.get(), path);
        }
        print(format_args!("{path} {kind}"));
        files += 1;
    }
    print(format_args!(
        "# {files} files checked on a Cortex-M4F; most heap in use at once: {} bytes ({})",
        worst.0, worst.1
    ));
}

/// Opens the accepted OneModel file `bytes` and prints its tensors as `read_tensors
/// --buffer` does, each line after `> `, under a `> PATH` line.
fn list_tensors(path: &str, bytes: &[u8]) {
    let mut message = [0u8; 256];
    let mut result = empty_result(&mut message);
    // SAFETY: `bytes` outlives the handle, which is freed below; NULL limits are the defaults.
    let model = unsafe { mg_onemodel_open(bytes.as_ptr(), bytes.len(), core::ptr::null(), &mut result) };
    if model.is_null() {
        let why = text(message.as_ptr(), result.message_len);
        fail(format_args!(
            "mg_onemodel_open refused {path}, which the check accepted: {why}"
        ));
    }
    print(format_args!("> {path}"));
    // SAFETY: a live handle.
    let count = unsafe { mg_onemodel_tensor_count(model) };
    for i in 0..count {
        let mut t = MaybeUninit::<mg_tensor>::uninit();
        // SAFETY: a live handle and a writable `mg_tensor`.
        if unsafe { mg_onemodel_tensor(model, i, t.as_mut_ptr()) } != mg_status::MG_OK {
            fail(format_args!("tensor {i} of {path}: not readable"));
        }
        // SAFETY: written by `mg_onemodel_tensor`, which returned `MG_OK`.
        let t = unsafe { t.assume_init() };
        let mut line = Line::new();
        let _ = write!(
            line,
            "> \"{}\" {} [",
            text(t.name.cast(), t.name_len),
            dtype_name(t.dtype)
        );
        for (d, dim) in view(t.dims, t.rank).iter().enumerate() {
            let _ = write!(line, "{}{dim}", if d > 0 { ", " } else { "" });
        }
        let _ = line.write_str("]");
        if t.dtype == mg_dtype::MG_DTYPE_STRING {
            let mut total = 0;
            for e in 0..t.string_count {
                let (mut s, mut n) = (core::ptr::null(), 0);
                // SAFETY: a live handle and two writable out-parameters.
                if unsafe { mg_onemodel_tensor_string(model, i, e, &mut s, &mut n) } != mg_status::MG_OK {
                    fail(format_args!("string {e} of tensor {i} of {path}: not readable"));
                }
                // Decoded from the manifest's JSON: the handle's copy, not the file's bytes.
                total += view(s, n).len();
            }
            let _ = write!(line, " {} strings, {total} bytes", t.string_count);
        } else {
            let data = within(bytes, view(t.data, t.data_len), path);
            let _ = write!(line, " {} bytes fnv1a {:016x}", data.len(), fnv1a(data));
        }
        line.emit();
    }
    print(format_args!("> {count} tensors"));
    // SAFETY: the handle `mg_onemodel_open` returned, freed once.
    unsafe { mg_onemodel_free(model) };
}

/// `len` items at `ptr`, which the library keeps valid while the handle lives; empty for
/// NULL (an empty tensor, a scalar's dims).
fn view<'a, T>(ptr: *const T, len: usize) -> &'a [T] {
    if ptr.is_null() {
        return &[];
    }
    // SAFETY: the ABI's promise for the pointers of `mg_tensor` and the strings of
    // `mg_onemodel_tensor_string`: `len` items, valid until `mg_onemodel_free`, which the
    // caller calls after its last use of the view.
    unsafe { core::slice::from_raw_parts(ptr, len) }
}

/// `part`, after checking that it lies in `whole` (a view of the file, never a copy).
fn within<'a>(whole: &[u8], part: &'a [u8], path: &str) -> &'a [u8] {
    let (start, end) = (whole.as_ptr() as usize, whole.as_ptr() as usize + whole.len());
    let (p, q) = (part.as_ptr() as usize, part.as_ptr() as usize + part.len());
    if !part.is_empty() && (p < start || q > end) {
        fail(format_args!("tensor bytes of {path} outside the file's buffer"));
    }
    part
}

fn text<'a>(ptr: *const u8, len: usize) -> &'a str {
    core::str::from_utf8(view(ptr, len)).unwrap_or("?")
}

fn dtype_name(dtype: mg_dtype) -> &'static str {
    // SAFETY: `mg_dtype_name` returns NULL or a static NUL-terminated name.
    let name = unsafe { mg_dtype_name(dtype as u32).as_ref() };
    // SAFETY: as above: not NULL, so a static C string.
    name.map_or("?", |n| unsafe { CStr::from_ptr(n) }.to_str().unwrap_or("?"))
}

/// FNV-1a over the bytes, as `read_tensors` hashes them.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

/// A result with `message` as its buffer.
fn empty_result(message: &mut [u8]) -> mg_result {
    mg_result {
        message: message.as_mut_ptr().cast(),
        message_capacity: message.len(),
        message_len: 0,
        offset: 0,
        format: mg_format::MG_FORMAT_NONE,
        kind: 0,
        has_offset: false,
        truncated: false,
    }
}

/// What a C check function looks like.
type Check = unsafe extern "C" fn(*const u8, usize, *const mg_limits, *mut mg_result) -> mg_status;

/// The outcome of `path`'s check: `valid`, the kind's name, or `error:STATUS`.
fn check(path: &str, bytes: &[u8]) -> Kind {
    let mut parts = path.rsplit('/');
    let (name, folder) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let mut message = [0u8; 256];
    let mut result = empty_result(&mut message);
    if folder == "mpk" {
        let mut c_name = [0u8; 512];
        // SAFETY: a NUL-terminated name and a result whose buffer is `message`.
        let status = unsafe { mg_check_mpk_file_name(c_string(name, &mut c_name).as_ptr(), &mut result) };
        if status != mg_status::MG_OK {
            return Kind::of(status, &result);
        }
    }
    let check: Check = match folder {
        "json" => mg_check_json,
        "mlbundle" => mg_check_mlbundle,
        "onemodel" if name.ends_with(".onnx") => mg_check_onnx,
        "onemodel" => mg_check_onemodel,
        "mpk" => mg_check_mpk,
        "mvb" => mg_check_mvb,
        "gzip" => mg_check_gzip,
        "deflate" => mg_check_deflate,
        _ => fail(format_args!("no format folder in {path}")),
    };
    // SAFETY: `bytes` is readable and unchanged during the call; NULL limits are the
    // defaults; `result` and its message buffer are writable.
    let status = unsafe { check(bytes.as_ptr(), bytes.len(), core::ptr::null(), &mut result) };
    Kind::of(status, &result)
}

/// A check's outcome as `compare.py` reads it.
enum Kind {
    Valid,
    Rejected(&'static CStr),
    Error(i32),
}

impl Kind {
    fn of(status: mg_status, result: &mg_result) -> Kind {
        match status {
            mg_status::MG_OK => Kind::Valid,
            // SAFETY: `mg_kind_name` returns NULL or a static NUL-terminated name.
            mg_status::MG_REJECTED => match unsafe { mg_kind_name(result.kind).as_ref() } {
                // SAFETY: as above: not NULL, so a static C string.
                Some(name) => Kind::Rejected(unsafe { CStr::from_ptr(name) }),
                None => Kind::Error(1),
            },
            other => Kind::Error(other as i32),
        }
    }
}

impl core::fmt::Display for Kind {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Kind::Valid => f.write_str("valid"),
            Kind::Rejected(name) => f.write_str(name.to_str().unwrap_or("?")),
            Kind::Error(status) => write!(f, "error:{status}"),
        }
    }
}

/// `s` NUL-terminated in `buf`.
fn c_string<'a>(s: &str, buf: &'a mut [u8]) -> &'a CStr {
    let bytes = s.as_bytes();
    if bytes.len() >= buf.len() {
        fail(format_args!("name too long: {s}"));
    }
    buf[..bytes.len()].copy_from_slice(bytes);
    buf[bytes.len()] = 0;
    CStr::from_bytes_until_nul(buf).unwrap_or_else(|_| fail(format_args!("NUL in {s}")))
}

// Arm semihosting (the operations of "Semihosting for AArch32 and AArch64", version 2).
const SYS_OPEN: usize = 0x01;
const SYS_CLOSE: usize = 0x02;
const SYS_WRITE0: usize = 0x04;
const SYS_READ: usize = 0x06;
const SYS_FLEN: usize = 0x0C;
const SYS_EXIT: usize = 0x18;

/// One semihosting call: the operation in r0, its argument block's address in r1.
fn semihost(op: usize, arg: usize) -> isize {
    let r: isize;
    // SAFETY: `bkpt 0xab` traps to the emulator, which reads `arg` (a live block of the
    // operation's layout, or a plain value for SYS_EXIT) and answers in r0.
    unsafe { asm!("bkpt #0xab", inout("r0") op as isize => r, in("r1") arg, options(nostack)) };
    r
}

/// The whole host file `path`, read into `buf`.
fn read<'a>(path: &CStr, buf: &'a mut [u8]) -> &'a [u8] {
    let open = [path.as_ptr() as usize, 1 /* "rb" */, path.count_bytes()];
    let handle = semihost(SYS_OPEN, open.as_ptr() as usize);
    if handle < 0 {
        fail(format_args!("cannot open {}", path.to_str().unwrap_or("?")));
    }
    let handle = handle as usize;
    let len = semihost(SYS_FLEN, [handle].as_ptr() as usize);
    let Some(buf) = usize::try_from(len).ok().and_then(|n| buf.get_mut(..n)) else {
        fail(format_args!("{} does not fit the buffer", path.to_str().unwrap_or("?")));
    };
    let args = [handle, buf.as_mut_ptr() as usize, buf.len()];
    let unread = semihost(SYS_READ, args.as_ptr() as usize);
    semihost(SYS_CLOSE, [handle].as_ptr() as usize);
    if unread != 0 {
        fail(format_args!("short read of {}", path.to_str().unwrap_or("?")));
    }
    buf
}

/// A line of output, written to the emulator's console.
struct Line {
    buf: [u8; 1024],
    len: usize,
}

impl Write for Line {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        let end = self.len + s.len();
        // One byte stays for the NUL.
        let capacity = self.buf.len() - 1;
        let room = self.buf.get_mut(self.len..end).filter(|_| end <= capacity);
        room.ok_or(core::fmt::Error)?.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

impl Line {
    fn new() -> Line {
        Line { buf: [0; 1024], len: 0 }
    }

    /// Writes the line and its newline (cut to fit) to the console.
    fn emit(mut self) {
        let _ = self.write_str("\n");
        let end = self.len.min(self.buf.len() - 1);
        self.buf[end] = 0;
        semihost(SYS_WRITE0, self.buf.as_ptr() as usize);
    }
}

fn print(args: core::fmt::Arguments<'_>) {
    let mut line = Line::new();
    let _ = line.write_fmt(args);
    line.emit();
}

/// Ends the emulation: exit status 0 when `ok`, 1 otherwise.
fn exit(ok: bool) -> ! {
    const APPLICATION_EXIT: usize = 0x20026;
    const RUN_TIME_ERROR: usize = 0x20023;
    semihost(SYS_EXIT, if ok { APPLICATION_EXIT } else { RUN_TIME_ERROR });
    // The emulator does not come back from SYS_EXIT; wait for interrupts that never come.
    loop {
        // SAFETY: `wfi` only waits.
        unsafe { asm!("wfi") };
    }
}

fn fail(args: core::fmt::Arguments<'_>) -> ! {
    print(format_args!("# firmware: {args}"));
    exit(false)
}
