//! SipHash-1-3 (Aumasson and Bernstein), keyed, for the duplicate-name table
//! (`spec/json.md` §5). With a secret key an attacker cannot choose names that collide,
//! so duplicate detection stays linear in the object size.

/// SipHash-1-3 of `data` under the 128-bit key `k`.
pub fn siphash13(k: [u64; 2], data: &[u8]) -> u64 {
    let mut v = [
        k[0] ^ 0x736f_6d65_7073_6575,
        k[1] ^ 0x646f_7261_6e64_6f6d,
        k[0] ^ 0x6c79_6765_6e65_7261,
        k[1] ^ 0x7465_6462_7974_6573,
    ];
    let mut chunks = data.chunks_exact(8);
    for chunk in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(chunk);
        compress(&mut v, u64::from_le_bytes(w), 1);
    }
    let mut last = [0u8; 8];
    let tail = chunks.remainder();
    for (dst, src) in last.iter_mut().zip(tail) {
        *dst = *src;
    }
    // The final block carries the length modulo 256 in its top byte.
    last[7] = u8::try_from(data.len() % 256).unwrap_or(0);
    compress(&mut v, u64::from_le_bytes(last), 1);
    v[2] ^= 0xff;
    for _ in 0..3 {
        round(&mut v);
    }
    v[0] ^ v[1] ^ v[2] ^ v[3]
}

fn compress(v: &mut [u64; 4], m: u64, rounds: usize) {
    v[3] ^= m;
    for _ in 0..rounds {
        round(v);
    }
    v[0] ^= m;
}

fn round(v: &mut [u64; 4]) {
    v[0] = v[0].wrapping_add(v[1]);
    v[1] = v[1].rotate_left(13);
    v[1] ^= v[0];
    v[0] = v[0].rotate_left(32);
    v[2] = v[2].wrapping_add(v[3]);
    v[3] = v[3].rotate_left(16);
    v[3] ^= v[2];
    v[0] = v[0].wrapping_add(v[3]);
    v[3] = v[3].rotate_left(21);
    v[3] ^= v[0];
    v[2] = v[2].wrapping_add(v[1]);
    v[1] = v[1].rotate_left(17);
    v[1] ^= v[2];
    v[2] = v[2].rotate_left(32);
}

#[cfg(test)]
mod tests {
    use super::*;

    // Reference values: Rust nightly std `SipHasher13::new_with_keys` over the same bytes (the std hasher
    // adds no length prefix when `write` is called directly on a slice).
    #[test]
    fn matches_reference_vectors() {
        let k = [0x0706050403020100, 0x0f0e0d0c0b0a0908];
        let input: [u8; 15] = core::array::from_fn(|i| i as u8);
        assert_eq!(siphash13(k, &input[..0]), 0xabac0158050fc4dc);
        assert_eq!(siphash13(k, &input[..8]), 0x369095118d299a8e);
        assert_eq!(siphash13(k, &input), 0xd320d86d2a519956);
    }
}
