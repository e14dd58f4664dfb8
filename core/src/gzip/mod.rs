//! RFC 1952 gzip decoding over the bounded inflate engine, and a deterministic
//! single-member writer (`spec/inflate.md` §5).
//!
//! - `header`: incremental member-header parser (§5.1 to §5.4).
//! - `trailer`: the CRC-32 and ISIZE trailer (§5.6).
//! - `stream`: [`GzipDecoder`], members, padding, limits (§5.5 to §5.11).
//! - `error`: [`GzipError`] and [`GzipReason`] (§5.12).
//! - `writer`: [`write_gzip`] (§5.13).

pub(crate) mod error;
pub(crate) mod header;
pub(crate) mod stream;
pub(crate) mod trailer;
pub(crate) mod writer;

pub use error::{GzipError, GzipReason};
pub use stream::{GzStep, GzipDecoder, GzipSummary};
pub use writer::write_gzip;

/// Decodes a whole gzip input (`spec/inflate.md` §5): every member is checked, the
/// total output may not exceed `max_output` bytes (§5.11), and each output chunk (at
/// most 64 KiB) is handed to `sink` as it is produced. Error offsets are absolute in
/// `input`. Same result as feeding [`GzipDecoder`] in any pieces.
pub fn gunzip<F: FnMut(&[u8])>(input: &[u8], max_output: u64, sink: F) -> Result<GzipSummary, GzipError> {
    let mut decoder = GzipDecoder::new(max_output);
    decoder.feed(input, sink)?;
    decoder.finish()
}
