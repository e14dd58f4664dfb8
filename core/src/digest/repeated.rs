//! CRC-32 of a chunk that repeats one byte, without reading it (`spec/inflate.md`
//! §2.7.1).
//!
//! CRC-32 is linear over GF(2): the CRC of `a ‖ b` is the CRC of `a` multiplied by
//! `x^(8·len(b))` modulo the CRC polynomial, plus the CRC of `b` (the identity zlib's
//! `crc32_combine` uses). So once the CRC of one chunk of `n` copies of a byte is known,
//! every further such chunk costs one multiplication modulo the polynomial, however
//! long it is. Polynomials are in the reflected bit order of the CRC itself: bit 31 is
//! the coefficient of `x^0`.

/// The CRC-32 (ISO-HDLC) polynomial, reflected.
const POLY: u32 = 0xEDB8_8320;

/// `x^0` in the reflected order.
const ONE: u32 = 1 << 31;

/// `x^8` in the reflected order: one byte's shift.
const X8: u32 = ONE >> 8;

/// `a · b` modulo the CRC-32 polynomial.
fn multiply(a: u32, mut b: u32) -> u32 {
    let mut product = 0;
    let mut bit = ONE;
    while bit != 0 {
        if a & bit != 0 {
            product ^= b;
        }
        // b · x: a shift in the reflected order, reduced by the polynomial.
        b = (b >> 1) ^ (POLY & (b & 1).wrapping_neg());
        bit >>= 1;
    }
    product
}

/// `x^(8·n)` modulo the CRC-32 polynomial: what appending `n` bytes does to a CRC.
fn byte_shift(mut n: u64) -> u32 {
    let mut power = ONE;
    let mut square = X8;
    while n != 0 {
        if n & 1 != 0 {
            power = multiply(square, power);
        }
        square = multiply(square, square);
        n >>= 1;
    }
    power
}

/// The CRC-32 of `a ‖ b` from the CRC-32 of `a` and the CRC-32 and length of `b`.
#[cfg(test)]
fn combine(crc_a: u32, crc_b: u32, len_b: u64) -> u32 {
    multiply(byte_shift(len_b), crc_a) ^ crc_b
}

/// The last chunk of `len` copies of `byte` (§2.7.1). Once a second chunk of that length
/// comes, the record also holds the CRC-32 of such a chunk and the shift of its length,
/// so that appending each further one is one multiplication. Neither is computed for a
/// chunk whose length differs from the one before it: that chunk is hashed as it is, which
/// costs less than a shift (README, issue 8).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Repeated {
    byte: u8,
    len: u64,
    known: Option<Known>,
}

/// The shift of a [`Repeated`] chunk's length and the CRC-32 of a chunk of its byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Known {
    shift: u32,
    crc: u32,
}

impl Repeated {
    /// Records a chunk of `len` copies of `byte` that was hashed as it is.
    pub(crate) fn seen(len: u64, byte: u8) -> Self {
        Repeated { byte, len, known: None }
    }

    /// The length of the chunks this record appends.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// The CRC-32 of the bytes whose CRC-32 is `crc`, followed by `chunk`: [`Repeated::len`]
    /// copies of `byte`. Returns it with the record of `chunk`. `chunk` is read only when
    /// its byte differs from the last chunk's or no chunk of this length was appended yet.
    pub(crate) fn append(self, crc: u32, chunk: &[u8], byte: u8) -> (u32, Repeated) {
        let known = match self.known {
            Some(k) if self.byte == byte => k,
            Some(k) => Known {
                crc: crc32fast::hash(chunk),
                ..k
            },
            None => Known {
                shift: byte_shift(self.len),
                crc: crc32fast::hash(chunk),
            },
        };
        let record = Repeated {
            byte,
            len: self.len,
            known: Some(known),
        };
        (multiply(known.shift, crc) ^ known.crc, record)
    }
}

#[cfg(test)]
mod tests {
    use super::{Repeated, byte_shift, combine, multiply};
    use crate::test_docs::{Choose, Rng};
    use alloc::vec;
    use alloc::vec::Vec;

    /// The combination identity on random splits of random data, empty parts included.
    #[test]
    fn combine_gives_the_crc_of_the_concatenation() {
        let mut rng = Rng(0xC0C0);
        for _ in 0..200 {
            let n = rng.below(3000);
            let data: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
            let cut = rng.below(n + 1);
            let (a, b) = data.split_at(cut);
            let joined = combine(crc32fast::hash(a), crc32fast::hash(b), b.len() as u64);
            assert_eq!(joined, crc32fast::hash(&data), "n {n} cut {cut}");
        }
    }

    /// Multiplying by `x^0` changes nothing; shifting by 0 bytes is `x^0`; shifts add.
    #[test]
    fn shifts_are_powers_of_x() {
        assert_eq!(byte_shift(0), super::ONE);
        assert_eq!(multiply(super::ONE, 0x1234_5678), 0x1234_5678);
        assert_eq!(multiply(byte_shift(3), byte_shift(5)), byte_shift(8));
        assert_eq!(byte_shift(1), super::X8);
    }

    /// Appending chunks of one byte through [`Repeated`] equals hashing them, when
    /// the byte, the length or both change from one chunk to the next.
    #[test]
    fn appending_a_repeated_chunk_equals_hashing_it() {
        let mut plain = crc32fast::Hasher::new();
        plain.update(b"prefix");
        let mut crc = crc32fast::hash(b"prefix");
        let mut last = Repeated::seen(65536, 0);
        for (byte, len) in [(0u8, 65536usize), (0, 65536), (0xFF, 65536), (0xFF, 65536), (7, 65536)] {
            let chunk = vec![byte; len];
            (crc, last) = last.append(crc, &chunk, byte);
            plain.update(&chunk);
            assert_eq!(crc, plain.clone().finalize(), "byte {byte} len {len}");
        }
    }

    /// §2.7.1 through [`ChunkDigest::update_repeated`]: the digests of plain updates
    /// whatever the lengths and bytes, and only a chunk of the length before it is
    /// appended arithmetically (one of a new length is hashed; its record holds no shift).
    #[test]
    fn repeated_chunks_digest_as_plain_ones() {
        use crate::digest::ChunkDigest;
        let mut plain = ChunkDigest::crc_only();
        let mut ours = ChunkDigest::crc_only();
        plain.update(b"prefix");
        ours.update(b"prefix");
        for (byte, len) in [
            (0u8, 65536usize),
            (0, 65536),
            (0xFF, 65536),
            (0xFF, 1),
            (7, 32768),
            (7, 32768),
            (7, 5),
            (0, 258),
        ] {
            let chunk = vec![byte; len];
            let before = ours.repeated;
            ours.update_repeated(&chunk, byte);
            plain.update(&chunk);
            assert_eq!(ours.crc32(), plain.crc32(), "byte {byte} len {len}");
            assert_eq!(ours.len(), plain.len());
            let appended = before.is_some_and(|r| r.len() == len as u64);
            assert_eq!(
                ours.repeated.and_then(|r| r.known).is_some(),
                appended,
                "byte {byte} len {len}"
            );
        }
    }
}
