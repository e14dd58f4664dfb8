//! The deterministic raw-deflate writer (`spec/inflate.md` §4).
//!
//! Fixed parameters: miniz_oxide's core compressor, raw deflate (no zlib header),
//! level 6, run-length strategy, input fed in 64 KiB pieces. Output is bounded by the
//! caller's `max_output`, checked as each piece of output is produced.

use crate::invariant;
use alloc::boxed::Box;
use alloc::vec;
use alloc::vec::Vec;
use core::fmt;
use miniz_oxide::deflate::core::{
    CompressionStrategy, CompressorOxide, TDEFLFlush, TDEFLStatus, compress, create_comp_flags_from_zip_params,
};

use crate::inflate::raw::to_u64;

/// Compression level of the writer (`spec/inflate.md` §4.1).
pub(crate) const LEVEL: i32 = 6;

/// Size of the pieces input is fed to the compressor in (`spec/inflate.md` §4.1).
pub(crate) const INPUT_CHUNK: usize = 1 << 16;

/// Size of the scratch buffer compressed output passes through.
const OUTPUT_CHUNK: usize = 1 << 15;

/// Why the writer failed (`spec/inflate.md` §4.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DeflateError {
    /// The compressed output would exceed `max_output` bytes.
    OutputTooLarge {
        /// The caller's bound.
        max_output: u64,
    },
    /// Memory for the output could not be reserved.
    OutOfMemory,
    /// The compressor reported a failure or stopped making progress (not expected
    /// with the fixed parameters; reported rather than looping).
    Compressor,
}

impl fmt::Display for DeflateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeflateError::OutputTooLarge { max_output } => {
                write!(f, "compressed output exceeds {max_output} bytes")
            }
            DeflateError::OutOfMemory => f.write_str("out of memory for compressed output"),
            DeflateError::Compressor => f.write_str("deflate compressor failed"),
        }
    }
}

impl core::error::Error for DeflateError {}

/// Streaming deterministic raw-deflate writer (`spec/inflate.md` §4): identical
/// input bytes give identical output bytes, whatever pieces they arrive in (§4.1),
/// and output never exceeds the bound given to [`Deflater::new`] (§4.2).
pub struct Deflater {
    comp: Box<CompressorOxide>,
    scratch: Box<[u8]>,
    max_output: u64,
    written: u64,
    state: Result<bool, DeflateError>,
}

impl Deflater {
    /// A writer whose total output may not exceed `max_output` bytes (§4.2).
    pub fn new(max_output: u64) -> Self {
        let flags = create_comp_flags_from_zip_params(LEVEL, -15, CompressionStrategy::RLE as i32);
        Deflater {
            comp: Box::new(CompressorOxide::new(flags)),
            scratch: vec![0u8; OUTPUT_CHUNK].into_boxed_slice(),
            max_output,
            written: 0,
            state: Ok(false),
        }
    }

    /// Compresses `input`, in pieces of at most `INPUT_CHUNK` bytes, passing
    /// compressed output to `sink` as it is produced (§4.1). A sink error stops the
    /// writer and is returned. After any error the writer returns it again.
    pub fn write<F>(&mut self, input: &[u8], mut sink: F) -> Result<(), DeflateError>
    where
        F: FnMut(&[u8]) -> Result<(), DeflateError>,
    {
        for piece in input.chunks(INPUT_CHUNK) {
            self.run(piece, TDEFLFlush::None, &mut sink)?;
        }
        Ok(())
    }

    /// Ends the stream with a final block and returns the total compressed size (§4.1).
    pub fn finish<F>(&mut self, mut sink: F) -> Result<u64, DeflateError>
    where
        F: FnMut(&[u8]) -> Result<(), DeflateError>,
    {
        self.run(&[], TDEFLFlush::Finish, &mut sink)?;
        Ok(self.written)
    }

    /// Compressed bytes produced so far; never more than the bound (§4.2).
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Feeds one piece; with `Finish`, runs until the compressor reports `Done`.
    fn run<F>(&mut self, input: &[u8], flush: TDEFLFlush, sink: &mut F) -> Result<(), DeflateError>
    where
        F: FnMut(&[u8]) -> Result<(), DeflateError>,
    {
        match self.state {
            Err(e) => return Err(e),
            Ok(true) => return Err(self.fail(DeflateError::Compressor)),
            Ok(false) => {}
        }
        let mut pos = 0usize;
        loop {
            let rest = invariant::sub(input, pos..);
            let (status, used, out) = compress(&mut self.comp, rest, &mut self.scratch, flush);
            pos = pos.saturating_add(used);
            self.emit(out, sink)?;
            let input_done = pos >= input.len();
            match status {
                TDEFLStatus::Done => {
                    self.state = Ok(true);
                    return Ok(());
                }
                TDEFLStatus::Okay if flush == TDEFLFlush::None && input_done && out < OUTPUT_CHUNK => {
                    return Ok(());
                }
                TDEFLStatus::Okay if used > 0 || out > 0 => {}
                _ => return Err(self.fail(DeflateError::Compressor)),
            }
        }
    }

    /// Checks the bound (§4.2), then hands the first `len` scratch bytes to `sink`.
    fn emit<F>(&mut self, len: usize, sink: &mut F) -> Result<(), DeflateError>
    where
        F: FnMut(&[u8]) -> Result<(), DeflateError>,
    {
        if len == 0 {
            return Ok(());
        }
        let total = self.written.saturating_add(to_u64(len));
        if total > self.max_output {
            // spec/inflate.md §4.2: the bound is checked as output is produced.
            return Err(self.fail(DeflateError::OutputTooLarge {
                max_output: self.max_output,
            }));
        }
        let chunk = invariant::sub(&self.scratch, ..len);
        if let Err(e) = sink(chunk) {
            return Err(self.fail(e));
        }
        self.written = total;
        Ok(())
    }

    fn fail(&mut self, error: DeflateError) -> DeflateError {
        self.state = Err(error);
        error
    }
}

impl fmt::Debug for Deflater {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Deflater")
            .field("max_output", &self.max_output)
            .field("written", &self.written)
            .finish_non_exhaustive()
    }
}

/// Compresses `input` into one complete raw deflate stream of at most `max_output`
/// bytes (`spec/inflate.md` §4). Deterministic: the same input always gives the same
/// bytes. Exceeding `max_output` is [`DeflateError::OutputTooLarge`], detected as the
/// output grows.
pub fn deflate(input: &[u8], max_output: usize) -> Result<Vec<u8>, DeflateError> {
    let mut out = Vec::new();
    let mut deflater = Deflater::new(to_u64(max_output));
    let mut sink = |chunk: &[u8]| append(&mut out, chunk);
    deflater.write(input, &mut sink)?;
    deflater.finish(&mut sink)?;
    Ok(out)
}

/// Appends with a fallible reservation (§4.2).
pub(crate) fn append(out: &mut Vec<u8>, chunk: &[u8]) -> Result<(), DeflateError> {
    out.try_reserve(chunk.len()).map_err(|_| DeflateError::OutOfMemory)?;
    out.extend_from_slice(chunk);
    Ok(())
}
