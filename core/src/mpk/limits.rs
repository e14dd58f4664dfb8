//! Loader limits (`spec/mpk.md` §4), checked before allocation and again on the bytes.

/// The configurable limits of the loader (`spec/mpk.md` §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MpkLimits {
    /// Largest `.tar.gz` file (compressed bytes). Default 4 GiB.
    pub max_archive_bytes: u64,
    /// Most tar entries (meta entries excluded, directories included). Default 4096.
    pub max_entries: u64,
    /// Largest entry payload. Default 2 GiB.
    pub max_entry_bytes: u64,
    /// Deepest JSON nesting. Default 64.
    pub max_json_depth: usize,
    /// Largest JSON file (buffered for validation). Default 16 MiB.
    pub max_json_bytes: u64,
    /// Largest decompressed tar stream. Default 8 GiB.
    pub max_expanded_bytes: u64,
    /// Most stages in one pipeline. Default 1024.
    pub max_stages: usize,
}

impl MpkLimits {
    /// The defaults of `spec/mpk.md` §4.
    pub const DEFAULT: MpkLimits = MpkLimits {
        max_archive_bytes: 4 << 30,
        max_entries: 4096,
        max_entry_bytes: 2 << 30,
        max_json_depth: 64,
        max_json_bytes: 16 << 20,
        max_expanded_bytes: 8 << 30,
        max_stages: 1024,
    };
}

impl Default for MpkLimits {
    fn default() -> Self {
        MpkLimits::DEFAULT
    }
}
