//! CRC-32 of a chunk that repeats a short period, without reading it (`spec/inflate.md`
//! §2.7.1).
//!
//! CRC-32 is linear over GF(2): the CRC of `a ‖ b` is the CRC of `a` multiplied by
//! `x^(8·len(b))` modulo the CRC polynomial, plus the CRC of `b` (the identity zlib's
//! `crc32_combine` uses). So once the CRC of one chunk is known, every further chunk
//! equal to it costs one multiplication modulo the polynomial, however long it is. A
//! chunk that repeats a period of `p` bytes is fixed by its length and its first `p`
//! bytes, so equality is decided from those alone. Polynomials are in the reflected bit
//! order of the CRC itself: bit 31 is the coefficient of `x^0`.

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

/// The longest period whose chunks [`Repeated`] appends (§2.7.1): deflate's longest match,
/// so that every match of a run covers at least one period.
pub(crate) const MAX_PERIOD: usize = 258;

/// The last chunk that repeated a period of at most [`MAX_PERIOD`] bytes (§2.7.1): its
/// length, period and first period. Once a second chunk of that length comes, the record
/// also holds the CRC-32 of such a chunk and the shift of its length, so that appending
/// each further equal one is one multiplication. Neither is computed for a chunk whose
/// length differs from the one before it: that chunk is hashed as it is, which costs less
/// than a shift (measured: README "Benchmarks").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Repeated {
    len: u64,
    period: usize,
    head: [u8; MAX_PERIOD],
    known: Option<Known>,
}

/// The shift of a [`Repeated`] chunk's length and the CRC-32 of the chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Known {
    shift: u32,
    crc: u32,
}

impl Repeated {
    /// No record: its length is no chunk's, so nothing is appended through it.
    pub(crate) const NONE: Repeated = Repeated {
        len: u64::MAX,
        period: 0,
        head: [0; MAX_PERIOD],
        known: None,
    };

    /// Records `chunk`, which repeats a period of `period` bytes and was hashed as it is;
    /// None when the period is 0 or longer than [`MAX_PERIOD`].
    pub(crate) fn seen(chunk: &[u8], period: usize) -> Option<Self> {
        if period == 0 {
            return None;
        }
        let mut head = [0; MAX_PERIOD];
        let n = period.min(chunk.len());
        head.get_mut(..n)?.copy_from_slice(chunk.get(..n)?);
        Some(Repeated {
            len: u64::try_from(chunk.len()).ok()?,
            period,
            head,
            known: None,
        })
    }

    /// The length of the chunks this record appends.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// True when `chunk`, of this record's length and repeating a period of `period`
    /// bytes, equals the recorded chunk: a periodic chunk is fixed by its first period.
    fn equals(&self, chunk: &[u8], period: usize) -> bool {
        let n = period.min(chunk.len());
        self.period == period && chunk.get(..n) == self.head.get(..n)
    }

    /// The CRC-32 of the bytes whose CRC-32 is `crc`, followed by `chunk`, of
    /// [`Repeated::len`] bytes repeating a period of `period` bytes. Returns it with the
    /// record of `chunk` (None when `period` is 0 or over [`MAX_PERIOD`]). `chunk` is read
    /// whole only when it differs from the last chunk or no chunk of this length was
    /// appended yet.
    pub(crate) fn append(self, crc: u32, chunk: &[u8], period: usize) -> (u32, Option<Repeated>) {
        let known = match self.known {
            Some(k) if self.equals(chunk, period) => k,
            Some(k) => Known {
                crc: crc32fast::hash(chunk),
                ..k
            },
            None => Known {
                shift: byte_shift(self.len),
                crc: crc32fast::hash(chunk),
            },
        };
        let record = Repeated::seen(chunk, period).map(|r| Repeated {
            known: Some(known),
            ..r
        });
        (multiply(known.shift, crc) ^ known.crc, record)
    }
}

#[cfg(test)]
mod tests {
    use super::{Repeated, byte_shift, combine, multiply};
    use crate::test_docs::Rng;
    use alloc::vec;
    use alloc::vec::Vec;

    /// The combination identity on random splits of random data, empty parts included.
    #[test]
    fn combine_gives_the_crc_of_the_concatenation() {
        let mut rng = Rng::new(0xC0C0);
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

    /// A chunk of `len` bytes repeating `period` from `phase` on.
    fn periodic(period: &[u8], phase: usize, len: usize) -> Vec<u8> {
        period.iter().cycle().skip(phase).take(len).copied().collect()
    }

    /// Appending periodic chunks through [`Repeated`] equals hashing them, when the
    /// period's bytes, its phase, its length or the chunk's length change from one chunk
    /// to the next; a chunk equal in its first period is equal throughout.
    #[test]
    fn appending_a_periodic_chunk_equals_hashing_it() {
        let mut plain = crc32fast::Hasher::new();
        plain.update(b"prefix");
        let mut crc = crc32fast::hash(b"prefix");
        let first = periodic(&[0], 0, 65536);
        let mut last = Repeated::seen(&first, 1).unwrap();
        plain.update(&first);
        crc = combine(crc, crc32fast::hash(&first), 65536);
        let nine: Vec<u8> = (0..9).collect();
        let mut other_nine = nine.clone();
        other_nine[8] = 100;
        let long: Vec<u8> = (0..258u32).map(|i| (i * 7) as u8).collect();
        for (period, phase) in [
            (&[0u8][..], 0usize),
            (&[0], 0),
            (&[0xFF], 0),
            (&[0xFF], 0),
            (&nine, 0),
            (&nine, 0),
            (&nine, 4),
            (&other_nine, 4),
            (&other_nine, 4),
            (&long, 0),
            (&long, 0),
            (&long, 1),
        ] {
            let chunk = periodic(period, phase, 65536);
            let record;
            (crc, record) = last.append(crc, &chunk, period.len());
            last = record.unwrap();
            plain.update(&chunk);
            assert_eq!(crc, plain.clone().finalize(), "period {} phase {phase}", period.len());
        }
    }

    /// Periods of 0 and over [`super::MAX_PERIOD`] bytes are not recorded, and a chunk of
    /// another period is not taken for the recorded one.
    #[test]
    fn only_periods_up_to_the_longest_match_are_recorded() {
        let chunk = vec![3u8; 1000];
        assert!(Repeated::seen(&chunk, 0).is_none());
        assert!(Repeated::seen(&chunk, super::MAX_PERIOD + 1).is_none());
        let two = periodic(&[3, 3], 0, 1000);
        assert!(!Repeated::seen(&chunk, 1).unwrap().equals(&two, 2));
    }

    /// §2.7.1 through [`ChunkDigest::update_periodic`]: the digests of plain updates
    /// whatever the lengths, periods and bytes, and only a chunk of the length before it
    /// is appended arithmetically (one of a new length is hashed; its record holds no
    /// shift).
    #[test]
    fn repeated_chunks_digest_as_plain_ones() {
        use crate::digest::ChunkDigest;
        let mut plain = ChunkDigest::crc_only();
        let mut ours = ChunkDigest::crc_only();
        plain.update(b"prefix");
        ours.update(b"prefix");
        let three = [1u8, 2, 3];
        for (period, phase, len) in [
            (&[0u8][..], 0, 65536usize),
            (&[0], 0, 65536),
            (&[0xFF], 0, 65536),
            (&[0xFF], 0, 1),
            (&[7], 0, 32768),
            (&[7], 0, 32768),
            (&three, 0, 32768),
            (&three, 1, 32768),
            (&three, 1, 32768),
            (&three, 1, 2),
            (&[7], 0, 5),
            (&[0], 0, 258),
        ] {
            let chunk = periodic(period, phase, len);
            let before = ours.repeated.as_deref().copied();
            ours.update_periodic(&chunk, period.len());
            plain.update(&chunk);
            let at = alloc::format!("period {} phase {phase} len {len}", period.len());
            assert_eq!(ours.crc32(), plain.crc32(), "{at}");
            assert_eq!(ours.len(), plain.len());
            let appended = before.is_some_and(|r| r.len() == len as u64);
            assert_eq!(
                ours.repeated.as_deref().and_then(|r| r.known).is_some(),
                appended,
                "{at}"
            );
        }
    }
}
