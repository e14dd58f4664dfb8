//! Loader limits (`spec/mpk.md` §4), checked before allocation and again on the bytes.

/// The configurable limits of the loader (`spec/mpk.md` §4). The defaults are the MPK
/// loader's own, so every package it accepts fits them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MpkLimits {
    /// Largest `.tar.gz` file (compressed bytes). Default 8 GiB.
    pub max_archive_bytes: u64,
    /// Most tar entries (meta entries excluded, directories included). Default 2048.
    pub max_entries: u64,
    /// Largest entry payload. Default 8 GiB.
    pub max_entry_bytes: u64,
    /// Deepest JSON nesting. Default 64.
    pub max_json_depth: usize,
    /// Most JSON bytes, summed over every `.json` file of the package; each file is buffered
    /// whole for validation. Default 32 MiB.
    pub max_total_json_bytes: u64,
    /// Largest decompressed tar stream. Default 8 GiB.
    pub max_expanded_bytes: u64,
    /// Most plugins in the contract, and most stages in one pipeline. Default 1024.
    pub max_stages: usize,
}

impl MpkLimits {
    /// The defaults of `spec/mpk.md` §4.
    pub const DEFAULT: MpkLimits = MpkLimits {
        max_archive_bytes: 8 << 30,
        max_entries: 2048,
        max_entry_bytes: 8 << 30,
        max_json_depth: 64,
        max_total_json_bytes: 32 << 20,
        max_expanded_bytes: 8 << 30,
        max_stages: 1024,
    };
}

impl Default for MpkLimits {
    fn default() -> Self {
        MpkLimits::DEFAULT
    }
}
