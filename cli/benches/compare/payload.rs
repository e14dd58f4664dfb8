//! Deterministic payloads from the test crates' fixed-seed generator
//! (`modelgate_corpus_gen::rng`): float32 weights that compress like real ones, a
//! decision-forest JSON dump, sparse tensor values and indices.

use modelgate_corpus_gen::rng::Rng;
use std::fmt::Write;

/// A uniform number in [0, 1).
fn unit(rng: &mut Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// An approximately normal number with mean 0 and deviation 1 (Irwin–Hall of four 16-bit
/// uniforms, from one draw).
fn normal(rng: &mut Rng) -> f32 {
    let r = rng.next_u64();
    let sum: u64 = (0..4).map(|i| (r >> (16 * i)) & 0xffff).sum();
    let u = sum as f32 / 65536.0 - 2.0;
    u * 1.732_050_8
}

/// Low mantissa bits cleared in generated weights: with them, deflate saves about 15 % (zlib level
/// 6 saves 7 % with none, 21 % with 7), as on real checkpoints (exponents cluster, low bits are noise).
const CLEARED_BITS: u32 = 5;

/// `len` bytes (a multiple of 4 is used; the rest is zero) of little-endian float32
/// weights, normal with deviation 0.02 like an initialised layer.
pub fn weights(len: usize, seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(len);
    let mask = !((1u32 << CLEARED_BITS) - 1);
    while out.len() + 4 <= len {
        let w = normal(&mut rng) * 0.02;
        out.extend_from_slice(&(w.to_bits() & mask).to_le_bytes());
    }
    out.resize(len, 0);
    out
}

/// Sparse tensor parts: `nnz` float32 values and their strictly increasing int64 flat
/// indices into `dense` elements.
pub fn sparse(dense: u64, nnz: u64, seed: u64) -> (Vec<u8>, Vec<u8>) {
    let mut rng = Rng::new(seed);
    let values = weights(usize::try_from(nnz * 4).unwrap_or(0), seed ^ 0x5a5a);
    let step = (dense / nnz.max(1)).max(1);
    let mut indices = Vec::with_capacity(usize::try_from(nnz * 8).unwrap_or(0));
    for i in 0..nnz {
        let at = i * step + rng.next_u64() % step;
        indices.extend_from_slice(&(at as i64).to_le_bytes());
    }
    (values, indices)
}

/// A decision-forest dump of about `target` bytes: nested node objects with many keys,
/// numbers and short strings, tree depth at most 8 (JSON depth under 32, the mlbundle cap).
pub fn forest_json(target: usize, seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut s = String::with_capacity(target + 4096);
    s.push_str(r#"{"format":"forest-dump","version":"1.4.2","objective":"binary:logistic","n_features":256,"#);
    s.push_str(r#""feature_names":["#);
    for f in 0..256 {
        let sep = if f == 0 { "" } else { "," };
        let _ = write!(s, r#"{sep}"f_{f:03}""#);
    }
    s.push_str(r#"],"trees":["#);
    let mut id = 0u64;
    while s.len() < target {
        if id > 0 {
            s.push(',');
        }
        let _ = write!(s, r#"{{"tree_id":{id},"weight":1.0,"root":"#);
        let mut node = 0u64;
        tree_node(&mut s, &mut rng, &mut node, 0);
        s.push('}');
        id += 1;
    }
    let _ = write!(s, r#"],"n_trees":{id}}}"#);
    s.into_bytes()
}

fn tree_node(s: &mut String, rng: &mut Rng, node: &mut u64, depth: u32) {
    let id = *node;
    *node += 1;
    let cover = unit(rng) * 1000.0;
    let leaf = depth >= 8 || (depth >= 3 && rng.below(4) == 0);
    if leaf {
        let value = (unit(rng) - 0.5) * 0.4;
        let _ = write!(
            s,
            r#"{{"nodeid":{id},"depth":{depth},"leaf":{value:.7},"cover":{cover:.3}}}"#
        );
        return;
    }
    let feature = rng.below(256);
    let threshold = (unit(rng) - 0.3) * 100.0;
    let gain = unit(rng) * 5000.0;
    let missing = if rng.below(2) == 0 { "left" } else { "right" };
    let _ = write!(
        s,
        r#"{{"nodeid":{id},"depth":{depth},"split":"f_{feature:03}","split_condition":{threshold:.6},"missing":"{missing}","gain":{gain:.4},"cover":{cover:.3},"children":["#
    );
    tree_node(s, rng, node, depth + 1);
    s.push(',');
    tree_node(s, rng, node, depth + 1);
    s.push_str("]}");
}
