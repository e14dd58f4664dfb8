//! Helpers shared by the integration tests.

/// Deterministic pseudorandom bytes (xorshift64 with a fixed seed).
pub fn pseudorandom(len: usize, mut seed: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(len);
    while out.len() < len {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        out.extend_from_slice(&seed.to_le_bytes());
    }
    out.truncate(len);
    out
}
