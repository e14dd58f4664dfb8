//! Helpers shared by the integration tests.

/// Deterministic pseudorandom bytes (xorshift64 with a fixed seed), as the corpus
/// generator makes them.
pub use modelgate_corpus_gen::deflate::pseudorandom;
