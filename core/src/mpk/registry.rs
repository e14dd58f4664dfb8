//! The closed kernel registry keyed by (processor, kernel) (`spec/mpk.md` §3.6).

/// A closed set of (processor, kernel) pairs. A stage whose pair is not in the registry
/// is `schema_error` (seed: "Unsupported kernel values are rejected").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Registry {
    /// The supported pairs.
    pub entries: &'static [(&'static str, &'static str)],
}

/// The EV74 vocabulary of the issue (`spec/mpk.md` §3.6, table 1).
pub const EV74_KERNELS: &[&str] = &[
    "cast_transform",
    "cast",
    "quantization_transform",
    "tessellation_transform",
    "pack_transform",
    "unpack_transform",
    "slice_transform",
    "detessellation_transform",
    "dequantization_transform",
    "pass_through",
];

impl Registry {
    /// The registry of `spec/mpk.md` §3.6.
    pub const DEFAULT: Registry = Registry {
        entries: &[
            ("EV74", "cast_transform"),
            ("EV74", "cast"),
            ("EV74", "quantization_transform"),
            ("EV74", "tessellation_transform"),
            ("EV74", "pack_transform"),
            ("EV74", "unpack_transform"),
            ("EV74", "slice_transform"),
            ("EV74", "detessellation_transform"),
            ("EV74", "dequantization_transform"),
            ("EV74", "pass_through"),
            ("MLA", "mla_inference"),
            ("A65", "a65_preprocess"),
            ("A65", "a65_postprocess"),
            ("A65", "pass_through"),
        ],
    };

    /// True when some pair names `processor`.
    pub fn knows_processor(&self, processor: &str) -> bool {
        self.entries.iter().any(|(p, _)| *p == processor)
    }

    /// True when (`processor`, `kernel`) is registered.
    pub fn supports(&self, processor: &str, kernel: &str) -> bool {
        self.entries.iter().any(|(p, k)| *p == processor && *k == kernel)
    }
}

impl Default for Registry {
    fn default() -> Self {
        Registry::DEFAULT
    }
}
