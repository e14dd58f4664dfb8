//! The one pseudorandom generator of the project's tests, fuzz targets, benchmark and
//! corpus: xorshift64 (Marsaglia 2003, shifts 13, 7, 17) from a fixed seed, so every run
//! makes the same inputs. The corpus files made from it ([`pseudorandom`]) are checked bit
//! for bit, so its output never changes.

/// A xorshift64 generator. Its state is never 0, which xorshift cannot leave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed`; a seed of 0 is replaced by a fixed non-zero one.
    pub fn new(seed: u64) -> Rng {
        Rng(if seed == 0 { 0x9e37_79b9_7f4a_7c15 } else { seed })
    }

    /// The next 64 bits: the state after one step.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number in `0..n` (`n` > 0; the modulo bias is irrelevant to tests).
    pub fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next_u64() % u64::try_from(n.max(1)).unwrap_or(u64::MAX)).unwrap_or(0)
    }

    /// True one time in `n` on average.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    /// `len` bytes: each step's state, little-endian, the last one cut to length.
    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(len + 8);
        while out.len() < len {
            out.extend_from_slice(&self.next_u64().to_le_bytes());
        }
        out.truncate(len);
        out
    }
}

/// `len` pseudorandom bytes from `seed`: incompressible data for the corpus and the tests.
pub fn pseudorandom(len: usize, seed: u64) -> Vec<u8> {
    Rng::new(seed).bytes(len)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first words of xorshift64 from seed 1 (Marsaglia's shifts 13, 7, 17), and the
    /// bytes made from them: what the corpus files were made with.
    #[test]
    fn xorshift64_sequence_and_bytes() {
        let mut r = Rng::new(1);
        assert_eq!(r.next_u64(), 0x0000_0000_4082_2041);
        assert_eq!(r.next_u64(), 0x1000_4106_0c01_1441);
        assert_eq!(pseudorandom(10, 1), [0x41, 0x20, 0x82, 0x40, 0, 0, 0, 0, 0x41, 0x14]);
        assert_eq!(Rng::new(0), Rng::new(0x9e37_79b9_7f4a_7c15));
    }
}
