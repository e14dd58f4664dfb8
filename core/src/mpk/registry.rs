//! The kernel registry (`spec/mpk.md` §3.6): which processors and kernels a contract plugin
//! and a pipeline stage may name. It is data: a caller may pass its own.

/// Whether a contract plugin of a processor names a kernel in `config_params.kernel`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelUse {
    /// A kernel from the list is required (EV74).
    Required,
    /// A kernel is optional; one that is given must be in the list (A65).
    Optional,
    /// No kernel may be given (MLA: the runtime knows its one).
    Forbidden,
}

/// One processor a contract plugin may run on (`spec/mpk.md` §3.6, table 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PluginProcessor {
    /// The `processor` value, exact.
    pub name: &'static str,
    /// Whether `config_params.kernel` is required, optional or forbidden.
    pub kernel: KernelUse,
    /// The kernels it may name.
    pub kernels: &'static [&'static str],
    /// Members of `config_params` that must be integers of at least 1 (MLA: the batch sizes).
    pub counts: &'static [&'static str],
    /// Where `resources.executable` is looked up among the extracted files, in order
    /// (`""` is the package root); `None` when the executable is not a package file and is
    /// not required (`spec/mpk.md` §3.7.4).
    pub executable: Option<&'static [&'static str]>,
}

/// One processor a `pipeline_sequence.json` stage may run on, with the kernels it may name
/// (`spec/mpk.md` §3.6, table 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StageProcessor {
    /// The `processor` value, exact.
    pub name: &'static str,
    /// The kernels it may name.
    pub kernels: &'static [&'static str],
}

/// The closed sets of `spec/mpk.md` §3.6. A plugin or stage whose processor, kernel or
/// type is not in them is `schema_error` (§3.4.5, §3.7: "Unsupported kernel values are rejected").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Registry {
    /// Processors and kernels of contract plugins (table 1).
    pub plugins: &'static [PluginProcessor],
    /// The values a plugin's optional `type` may have.
    pub plugin_types: &'static [&'static str],
    /// Processors and kernels of pipeline stages (table 2).
    pub stages: &'static [StageProcessor],
}

/// The EV74 kernels: what the MPK runtime's contract code and its tests name.
pub const EV74_KERNELS: &[&str] = &[
    "cast_transform",
    "cast",
    "quantization_transform",
    "tessellation_transform",
    "pack_transform",
    "unpack_transform",
    "slice_transform",
    "reshape_transform",
    "batch_flatten_transform",
    "detessellation_transform",
    "dequantization_transform",
    "pass_through",
    "preproc",
    "tessellate",
    "quanttess",
];

/// The A65 kernels.
pub const A65_KERNELS: &[&str] = &["processtvm", "slice", "boxdecode"];

/// The CVU stage kernels of `pipeline_sequence.json`.
pub const CVU_KERNELS: &[&str] = &[
    "preproc",
    "quant",
    "quantize",
    "tess",
    "tessellate",
    "quanttess",
    "casttess",
    "cast",
    "detessellate",
    "detesscast",
    "detessdequant",
    "dequantize",
    "boxdecode",
    "buffer_concat",
];

impl Registry {
    /// The registry of `spec/mpk.md` §3.6.
    pub const DEFAULT: Registry = Registry {
        plugins: &[
            PluginProcessor {
                name: "EV74",
                kernel: KernelUse::Required,
                kernels: EV74_KERNELS,
                counts: &[],
                executable: None,
            },
            PluginProcessor {
                name: "MLA",
                kernel: KernelUse::Forbidden,
                kernels: &[],
                counts: &["desired_batch_size", "actual_batch_size"],
                executable: Some(&["share/", "lib/", ""]),
            },
            PluginProcessor {
                name: "A65",
                kernel: KernelUse::Optional,
                kernels: A65_KERNELS,
                counts: &[],
                executable: Some(&["lib/", "", "share/"]),
            },
        ],
        plugin_types: &["sgpProcess"],
        stages: &[
            StageProcessor {
                name: "CVU",
                kernels: CVU_KERNELS,
            },
            StageProcessor {
                name: "MLA",
                kernels: &["infer", "mla"],
            },
            StageProcessor {
                name: "EV74",
                kernels: EV74_KERNELS,
            },
        ],
    };

    /// The plugin processor named `name`, if registered.
    pub fn plugin(&self, name: &str) -> Option<&PluginProcessor> {
        self.plugins.iter().find(|p| p.name == name)
    }

    /// The stage processor named `name`, if registered.
    pub fn stage(&self, name: &str) -> Option<&StageProcessor> {
        self.stages.iter().find(|p| p.name == name)
    }
}

impl Default for Registry {
    fn default() -> Self {
        Registry::DEFAULT
    }
}
