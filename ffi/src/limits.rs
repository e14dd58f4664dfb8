//! [`mg_limits`]: every format's reader limits in one struct the caller fills, starting from
//! `mg_limits_default`, each field the core limit of the same name. A NULL `mg_limits*`
//! means the defaults.

use crate::outcome::{Outcome, mg_status};
use alloc::format;
use modelgate_core::json::{self, DEFAULT_HASH_KEY};
use modelgate_core::mlbundle::{ArchiveLimits, Limit};
use modelgate_core::mpk::MpkLimits;
use modelgate_core::mvb::MvbLimits;
use modelgate_core::onemodel;

/// The output bound of `mg_check_gzip` and of `mg_check_deflate`'s declared size in
/// `mg_limits_default`: 256 MiB, the bound `modelgate check` uses for `.gz` and `.deflate`
/// files (`spec/inflate.md` §5.11, §6.2).
const INFLATE_DEFAULT: u64 = 256 * 1024 * 1024;

/// JSON limits (`spec/json.md` §6), for `mg_check_json`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct mg_json_limits {
    /// Longest accepted input in bytes (default 256 MiB; capped at the JSON reader's 2^32 − 1).
    pub max_bytes: u64,
    /// Most arrays and objects open at once, the outermost counting 1 (default 1024).
    pub max_depth: u64,
}

/// mlbundle limits (`spec/mlbundle.md` §3.1). The defaults are the version 1 ceilings:
/// each may be lowered, never raised (§3.2), and a value outside its range makes every
/// `mg_check_mlbundle` call return `MG_ERR_LIMITS`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct mg_mlbundle_limits {
    /// Member count, the manifest included (2..=6).
    pub members: u64,
    /// Whole archive in bytes, headers included (1..=512 MiB).
    pub archive: u64,
    /// Sum of compressed member sizes (0..=512 MiB).
    pub compressed_total: u64,
    /// Any uncompressed member (0..=512 MiB).
    pub member: u64,
    /// Sum of uncompressed member sizes, the manifest included (0..=1 GiB).
    pub uncompressed_total: u64,
    /// Uncompressed/compressed ratio of each member (1..=200).
    pub ratio: u64,
    /// `manifest.json` (0..=8 MiB).
    pub manifest: u64,
    /// `structure.json` (0..=256 MiB).
    pub structure: u64,
    /// `schema.json` (0..=16 MiB).
    pub schema: u64,
    /// `samples.json` (0..=16 MiB).
    pub samples: u64,
    /// JSON nesting depth of every JSON member (1..=32).
    pub json_depth: u64,
}

/// OneModel and ONNX reader limits (`spec/onemodel.md` §1.2, §2.5, §3.2).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct mg_onemodel_limits {
    /// Largest manifest in bytes (default 512 MiB).
    pub max_manifest: u64,
    /// Most JSON arrays and objects open at once in the manifest (default 1024).
    pub max_json_depth: u64,
    /// Most graphs and types open at once (default 64).
    pub max_nesting: u64,
    /// Largest tensor in bytes (default 2^31 − 1; a larger tensor is `Unsupported`).
    pub max_tensor_bytes: u64,
}

/// MPK limits (`spec/mpk.md` §4).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct mg_mpk_limits {
    /// Largest `.tar.gz` in compressed bytes (default 8 GiB).
    pub max_archive_bytes: u64,
    /// Most tar entries (default 2048).
    pub max_entries: u64,
    /// Largest entry payload (default 8 GiB).
    pub max_entry_bytes: u64,
    /// Deepest JSON nesting (default 64).
    pub max_json_depth: u64,
    /// Most JSON bytes summed over the package's `.json` files (default 32 MiB).
    pub max_total_json_bytes: u64,
    /// Largest decompressed tar stream (default 8 GiB).
    pub max_expanded_bytes: u64,
    /// Most plugins in the contract and stages in one pipeline (default 1024).
    pub max_stages: u64,
}

/// mvb import limits (`spec/mvb.md` §4.7).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct mg_mvb_limits {
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
    /// Largest sum of the entries' path lengths (default 64 MiB).
    pub max_path_total_bytes: u64,
}

/// The limits of every check, one struct for all formats. Start from
/// `mg_limits_default` and lower what the device needs; a count or size that does not
/// fit this platform's `size_t` acts as `SIZE_MAX`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct mg_limits {
    /// `sizeof(mg_limits)` as the library was built: set by `mg_limits_default`, checked by
    /// every call (`MG_ERR_LIMITS` when it differs), so a caller built against another
    /// version of this header is refused instead of misread.
    pub struct_size: usize,
    /// The SipHash key of the JSON readers' duplicate-name tables (`spec/json.md` §5): not a
    /// limit. The default is a public key with which the reader keys itself from the input;
    /// a caller with an entropy source sets a random one and spares that pass.
    pub hash_key: [u64; 2],
    /// `mg_check_json`.
    pub json: mg_json_limits,
    /// `mg_check_mlbundle`.
    pub mlbundle: mg_mlbundle_limits,
    /// `mg_check_onemodel`, `mg_check_onnx`, `mg_onemodel_open`, `mg_onemodel_open_file`.
    pub onemodel: mg_onemodel_limits,
    /// `mg_check_mpk`, `mg_mpk_extract`.
    pub mpk: mg_mpk_limits,
    /// `mg_check_mvb`.
    pub mvb: mg_mvb_limits,
    /// `mg_check_gzip`: the most bytes all members may decode to (default 256 MiB).
    pub gzip_max_output: u64,
    /// `mg_check_deflate`: the largest declared size accepted (default 256 MiB).
    pub deflate_max_output: u64,
}

fn u64_of(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

fn usize_of(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

impl mg_limits {
    /// The defaults: each the core's `DEFAULT`.
    pub(crate) fn default_limits() -> mg_limits {
        let j = json::Limits::DEFAULT;
        let a = ArchiveLimits::DEFAULT;
        let o = onemodel::Limits::DEFAULT;
        let p = MpkLimits::DEFAULT;
        let v = MvbLimits::DEFAULT;
        mg_limits {
            struct_size: core::mem::size_of::<mg_limits>(),
            hash_key: DEFAULT_HASH_KEY,
            json: mg_json_limits {
                max_bytes: u64_of(j.max_bytes),
                max_depth: u64_of(j.max_depth),
            },
            mlbundle: mg_mlbundle_limits {
                members: a.get(Limit::Members),
                archive: a.get(Limit::Archive),
                compressed_total: a.get(Limit::CompressedTotal),
                member: a.get(Limit::Member),
                uncompressed_total: a.get(Limit::UncompressedTotal),
                ratio: a.get(Limit::Ratio),
                manifest: a.get(Limit::Manifest),
                structure: a.get(Limit::Structure),
                schema: a.get(Limit::Schema),
                samples: a.get(Limit::Samples),
                json_depth: a.get(Limit::JsonDepth),
            },
            onemodel: mg_onemodel_limits {
                max_manifest: o.max_manifest,
                max_json_depth: u64_of(o.max_json_depth),
                max_nesting: u64_of(o.max_nesting),
                max_tensor_bytes: o.max_tensor_bytes,
            },
            mpk: mg_mpk_limits {
                max_archive_bytes: p.max_archive_bytes,
                max_entries: p.max_entries,
                max_entry_bytes: p.max_entry_bytes,
                max_json_depth: u64_of(p.max_json_depth),
                max_total_json_bytes: p.max_total_json_bytes,
                max_expanded_bytes: p.max_expanded_bytes,
                max_stages: u64_of(p.max_stages),
            },
            mvb: mg_mvb_limits {
                max_marker_bytes: v.max_marker_bytes,
                max_manifest_bytes: v.max_manifest_bytes,
                max_entries: v.max_entries,
                max_entry_bytes: v.max_entry_bytes,
                max_total_bytes: v.max_total_bytes,
                max_path_total_bytes: v.max_path_total_bytes,
            },
            gzip_max_output: INFLATE_DEFAULT,
            deflate_max_output: INFLATE_DEFAULT,
        }
    }

    /// The JSON reader's limits.
    pub(crate) fn json(&self) -> json::Limits {
        json::Limits {
            max_bytes: usize_of(self.json.max_bytes),
            max_depth: usize_of(self.json.max_depth),
            hash_key: self.hash_key,
        }
    }

    /// The mlbundle reader's limits, or `MG_ERR_LIMITS` for a value outside its range.
    pub(crate) fn mlbundle(&self) -> Result<ArchiveLimits, Outcome> {
        let m = &self.mlbundle;
        let set = [
            (Limit::Members, m.members),
            (Limit::Archive, m.archive),
            (Limit::CompressedTotal, m.compressed_total),
            (Limit::Member, m.member),
            (Limit::UncompressedTotal, m.uncompressed_total),
            (Limit::Ratio, m.ratio),
            (Limit::Manifest, m.manifest),
            (Limit::Structure, m.structure),
            (Limit::Schema, m.schema),
            (Limit::Samples, m.samples),
            (Limit::JsonDepth, m.json_depth),
        ];
        let mut limits = ArchiveLimits::DEFAULT.with_hash_key(self.hash_key);
        for (limit, value) in set {
            limits = limits
                .with(limit, value)
                .map_err(|e| Outcome::error(mg_status::MG_ERR_LIMITS, format!("mlbundle limits: {e}")))?;
        }
        Ok(limits)
    }

    /// The OneModel and ONNX readers' limits (the writers' `max_shared_data` at its default).
    pub(crate) fn onemodel(&self) -> onemodel::Limits {
        let o = &self.onemodel;
        onemodel::Limits {
            max_manifest: o.max_manifest,
            max_json_depth: usize_of(o.max_json_depth),
            max_nesting: usize_of(o.max_nesting),
            max_tensor_bytes: o.max_tensor_bytes,
            hash_key: self.hash_key,
            ..onemodel::Limits::DEFAULT
        }
    }

    /// The MPK reader's limits.
    pub(crate) fn mpk(&self) -> MpkLimits {
        let p = &self.mpk;
        MpkLimits {
            max_archive_bytes: p.max_archive_bytes,
            max_entries: p.max_entries,
            max_entry_bytes: p.max_entry_bytes,
            max_json_depth: usize_of(p.max_json_depth),
            max_total_json_bytes: p.max_total_json_bytes,
            max_expanded_bytes: p.max_expanded_bytes,
            max_stages: usize_of(p.max_stages),
        }
    }

    /// The mvb reader's limits.
    pub(crate) fn mvb(&self) -> MvbLimits {
        let v = &self.mvb;
        MvbLimits {
            max_marker_bytes: v.max_marker_bytes,
            max_manifest_bytes: v.max_manifest_bytes,
            max_entries: v.max_entries,
            max_entry_bytes: v.max_entry_bytes,
            max_total_bytes: v.max_total_bytes,
            max_path_total_bytes: v.max_path_total_bytes,
        }
    }
}

/// The default limits of every format (each the core's `DEFAULT`: the limits
/// `modelgate check` runs under), with `struct_size` set. Fill a `mg_limits` with this, then
/// lower what you need.
#[unsafe(no_mangle)]
pub extern "C" fn mg_limits_default() -> mg_limits {
    mg_limits::default_limits()
}

/// The caller's limits, or the defaults for NULL.
///
/// # Safety
///
/// `limits` is NULL or points to a readable `mg_limits`.
pub(crate) unsafe fn read(limits: *const mg_limits) -> Result<mg_limits, Outcome> {
    // SAFETY: NULL or a valid `mg_limits` (the caller's contract).
    let Some(l) = (unsafe { limits.as_ref() }) else {
        return Ok(mg_limits::default_limits());
    };
    if l.struct_size != core::mem::size_of::<mg_limits>() {
        return Err(Outcome::error(
            mg_status::MG_ERR_LIMITS,
            format!(
                "mg_limits.struct_size is {}, this library's mg_limits has {} bytes: start from mg_limits_default()",
                l.struct_size,
                core::mem::size_of::<mg_limits>()
            ),
        ));
    }
    Ok(*l)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_convert_back_to_the_core_defaults() {
        let d = mg_limits_default();
        assert_eq!(d.json(), json::Limits::DEFAULT);
        assert_eq!(d.mlbundle().unwrap(), ArchiveLimits::DEFAULT);
        assert_eq!(d.onemodel(), onemodel::Limits::DEFAULT);
        assert_eq!(d.mpk(), MpkLimits::DEFAULT);
        assert_eq!(d.mvb(), MvbLimits::DEFAULT);
    }

    #[test]
    fn an_mlbundle_limit_above_its_ceiling_is_refused() {
        let mut d = mg_limits_default();
        d.mlbundle.members = 7;
        let e = d.mlbundle().unwrap_err();
        assert_eq!(e.status, mg_status::MG_ERR_LIMITS);
        assert!(e.text.contains("Members"), "{}", e.text);
        d.mlbundle.members = 3;
        assert_eq!(d.mlbundle().unwrap().get(Limit::Members), 3);
    }

    #[test]
    fn a_struct_of_another_size_is_refused() {
        let mut d = mg_limits_default();
        // SAFETY: `d` is a live `mg_limits`.
        assert!(unsafe { read(&d) }.is_ok());
        d.struct_size = 8;
        // SAFETY: as above.
        assert_eq!(unsafe { read(&d) }.unwrap_err().status, mg_status::MG_ERR_LIMITS);
        // SAFETY: NULL is allowed.
        assert_eq!(unsafe { read(core::ptr::null()) }.unwrap(), mg_limits_default());
    }
}
