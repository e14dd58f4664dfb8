//! Import limits (`spec/mvb.md` §4.7).

/// The limits of `spec/mvb.md` §4.7; each is `LimitExceeded`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MvbLimits {
    /// Largest `.mvb.json` marker (default 64 KiB).
    pub max_marker_bytes: u64,
    /// Largest `manifest.json` (default 64 MiB).
    pub max_manifest_bytes: u64,
    /// Most entries after the marker, and most inventory entries (default 1 000 000).
    pub max_entries: u64,
    /// Largest entry (default 1 TiB).
    pub max_entry_bytes: u64,
    /// Largest sum of entry sizes (default 4 TiB).
    pub max_total_bytes: u64,
    /// Largest sum of the entries' path lengths (default 64 MiB): the per-file records and
    /// the duplicate table are the only state that grows with the archive, and this bounds
    /// them together with `max_entries`.
    pub max_path_total_bytes: u64,
}

impl MvbLimits {
    /// The defaults of §4.7.
    pub const DEFAULT: MvbLimits = MvbLimits {
        max_marker_bytes: 64 * 1024,
        max_manifest_bytes: 64 * 1024 * 1024,
        max_entries: 1_000_000,
        max_entry_bytes: 1 << 40,
        max_total_bytes: 1 << 42,
        max_path_total_bytes: 64 * 1024 * 1024,
    };
}

impl Default for MvbLimits {
    fn default() -> Self {
        MvbLimits::DEFAULT
    }
}
