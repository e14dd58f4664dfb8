//! CRC-32 and SHA-256 over the same chunk while it is in cache.
//!
//! Every reader that checks a member or payload (inflated ZIP members, stored ZIP
//! members, tar payloads, gzip members) feeds each chunk once through [`ChunkDigest`]
//! instead of hashing the bytes in separate passes.

#[cfg(feature = "fast-inflate")]
mod repeated;

#[cfg(feature = "fast-inflate")]
use alloc::boxed::Box;
#[cfg(feature = "fast-inflate")]
pub(crate) use repeated::MAX_PERIOD;
#[cfg(feature = "fast-inflate")]
use repeated::Repeated;
use sha2::{Digest, Sha256};

/// Running CRC-32 (ISO-HDLC, as ZIP and gzip use it) plus an optional SHA-256.
#[derive(Clone)]
pub struct ChunkDigest {
    crc: crc32fast::Hasher,
    sha: Option<Sha256>,
    len: u64,
    /// The last chunk that repeated a short period, for [`ChunkDigest::update_periodic`]
    /// (boxed: it holds the period's bytes, and only inflated runs need it).
    #[cfg(feature = "fast-inflate")]
    repeated: Option<Box<Repeated>>,
}

impl ChunkDigest {
    /// CRC-32 only.
    pub fn crc_only() -> Self {
        ChunkDigest {
            crc: crc32fast::Hasher::new(),
            sha: None,
            len: 0,
            #[cfg(feature = "fast-inflate")]
            repeated: None,
        }
    }

    /// CRC-32 and SHA-256.
    pub fn with_sha256() -> Self {
        ChunkDigest {
            sha: Some(Sha256::new()),
            ..ChunkDigest::crc_only()
        }
    }

    /// Adds one chunk to every running digest.
    pub fn update(&mut self, chunk: &[u8]) {
        self.crc.update(chunk);
        if let Some(sha) = &mut self.sha {
            sha.update(chunk);
        }
        self.len = self.len.saturating_add(chunk.len() as u64);
    }

    /// Adds `chunk`, which the caller knows to repeat a period of `period` bytes: each
    /// byte equals the one `period` before it (`spec/inflate.md` §2.7.1). Without
    /// SHA-256 and for a period of at most [`MAX_PERIOD`] bytes, a chunk of the same
    /// length as the periodic chunk before it is appended by one multiplication modulo
    /// the CRC polynomial, and not read past its first period when that period equals the
    /// last chunk's too (`digest/repeated.rs`); any other chunk is hashed as
    /// [`ChunkDigest::update`] would. The digests are those [`ChunkDigest::update`] gives.
    /// Only the `fast-inflate` engine's runs use it.
    #[cfg(feature = "fast-inflate")]
    pub(crate) fn update_periodic(&mut self, chunk: &[u8], period: usize) {
        debug_assert!(
            chunk.iter().zip(chunk.iter().skip(period)).all(|(a, b)| a == b),
            "not periodic"
        );
        let len = u64::try_from(chunk.len()).unwrap_or(u64::MAX);
        match self.repeated.as_deref_mut() {
            Some(last) if last.len() == len && self.sha.is_none() => {
                let (crc, record) = last.append(self.crc.clone().finalize(), chunk, period);
                let total = self.crc.total_len().saturating_add(len);
                self.crc = crc32fast::Hasher::new_with_initial_len(crc, total);
                self.len = self.len.saturating_add(len);
                *last = record.unwrap_or(Repeated::NONE);
            }
            _ => {
                self.update(chunk);
                let record = if self.sha.is_none() {
                    Repeated::seen(chunk, period)
                } else {
                    None
                };
                // The record's box is allocated once, by the first periodic chunk, and
                // reused (spec/inflate.md §2.7: nothing grows while decoding).
                match (self.repeated.as_deref_mut(), record) {
                    (Some(last), record) => *last = record.unwrap_or(Repeated::NONE),
                    (None, Some(record)) => self.repeated = Some(Box::new(record)),
                    (None, None) => {}
                }
            }
        }
    }

    /// Bytes seen so far.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True when no byte has been seen.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// CRC-32 of the bytes so far.
    pub fn crc32(&self) -> u32 {
        self.crc.clone().finalize()
    }

    /// Final values: CRC-32 and, when requested, SHA-256.
    pub fn finish(self) -> Digests {
        Digests {
            crc32: self.crc.finalize(),
            sha256: self.sha.map(|s| s.finalize().into()),
            len: self.len,
        }
    }
}

/// Finished digests of one byte stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Digests {
    /// CRC-32 (ISO-HDLC).
    pub crc32: u32,
    /// SHA-256, when it was requested.
    pub sha256: Option<[u8; 32]>,
    /// Number of bytes digested.
    pub len: u64,
}

/// CRC-32 of one byte slice, for callers that have the whole input.
pub fn crc32(bytes: &[u8]) -> u32 {
    crc32fast::hash(bytes)
}

/// The CRC-32 of the bytes whose CRC-32 is `crc` followed by `bytes` (`crc` in its final
/// form, `0` for no bytes).
pub fn crc32_continue(crc: u32, bytes: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new_with_initial(crc);
    h.update(bytes);
    h.finalize()
}

/// SHA-256 of one byte slice, for callers that have the whole input.
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// Lowercase hexadecimal form of a digest.
pub fn hex(bytes: &[u8]) -> alloc::string::String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut s = alloc::string::String::with_capacity(bytes.len().saturating_mul(2));
    for &b in bytes {
        for nibble in [b >> 4, b & 15] {
            if let Some(&c) = HEX.get(usize::from(nibble)) {
                s.push(char::from(c));
            }
        }
    }
    s
}
