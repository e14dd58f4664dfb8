//! Formats and error kinds (`spec/errors.md`): one C enum per format, each kind's value
//! fixed here for good, the hundreds telling the format (1xx JSON, 2xx mlbundle, 3xx
//! OneModel and ONNX, 4xx MPK, 5xx mvb, 6xx gzip, 7xx deflate). A new kind in the core gets
//! a new value; no value is ever reused. The names are the core's exact kind names (tests
//! hold every table to the core's `name()` and `key()`).

use core::ffi::{CStr, c_char};

/// `mg_result.kind` when there is no error kind (the status is not `MG_REJECTED`).
pub const MG_KIND_NONE: u32 = 0;

/// `mg_result.kind` for a rejection whose kind this library does not know (never expected:
/// the message still names it).
pub const MG_KIND_UNKNOWN: u32 = 0xFFFF_FFFF;

/// A format: which kind enum `mg_result.kind` belongs to.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum mg_format {
    /// No format (no verdict, or `mg_check_file` could not tell one).
    MG_FORMAT_NONE = 0,
    /// Strict JSON (`spec/json.md`); kinds `mg_json_kind`.
    MG_FORMAT_JSON = 1,
    /// mlbundle ZIP containers (`spec/mlbundle.md`); kinds `mg_mlbundle_kind`.
    MG_FORMAT_MLBUNDLE = 2,
    /// OneModel files (`spec/onemodel.md`); kinds `mg_onemodel_kind`.
    MG_FORMAT_ONEMODEL = 3,
    /// ONNX protobuf models (`spec/onemodel.md` §6); kinds `mg_onemodel_kind`, as the core
    /// reports them.
    MG_FORMAT_ONNX = 4,
    /// MPK packages, `.tar.gz` (`spec/mpk.md`); kinds `mg_mpk_kind`.
    MG_FORMAT_MPK = 5,
    /// mvb bundle exports, `.mvb.tar` (`spec/mvb.md`); kinds `mg_mvb_kind`.
    MG_FORMAT_MVB = 6,
    /// A standalone gzip file (`spec/inflate.md` §5); kinds `mg_gzip_kind`.
    MG_FORMAT_GZIP = 7,
    /// The `.deflate` test frame (`spec/inflate.md` §6); kinds `mg_deflate_kind`.
    MG_FORMAT_DEFLATE = 8,
}

/// JSON error kinds (`spec/json.md` §7).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum mg_json_kind {
    /// `InvalidJSON`: not strict JSON (§1–§5).
    MG_JSON_INVALID_JSON = 100,
    /// `LimitExceeded`: a size or depth limit (§6).
    MG_JSON_LIMIT_EXCEEDED = 101,
}

/// mlbundle error kinds (`spec/mlbundle.md` §9.1).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum mg_mlbundle_kind {
    /// `InvalidContainer`: ZIP structure, layout, names, admission, CRC-32, deflate data,
    /// and a `model.onnx` the ONNX reader rejects (§12.2).
    MG_MLBUNDLE_INVALID_CONTAINER = 200,
    /// `LimitExceeded`: a resource limit of `mg_mlbundle_limits` (§3).
    MG_MLBUNDLE_LIMIT_EXCEEDED = 201,
    /// `InvalidManifest`: manifest JSON, typed fields or recipe agreement (§5, §6.2).
    MG_MLBUNDLE_INVALID_MANIFEST = 202,
    /// `UnsupportedFormatVersion`: a `format_version` other than `"1"` (§5.4).
    MG_MLBUNDLE_UNSUPPORTED_FORMAT_VERSION = 203,
    /// `InvalidJSON`: a JSON member's syntax or declaration contract (§8).
    MG_MLBUNDLE_INVALID_JSON = 204,
    /// `IntegrityMismatch`: a member's hash or size disagrees with its record (§7).
    MG_MLBUNDLE_INTEGRITY_MISMATCH = 205,
}

/// OneModel error kinds (`spec/onemodel.md` §3.2), which the ONNX reader reports too (§6).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum mg_onemodel_kind {
    /// `Malformed`: magic, reserved or padding bytes, JSON, types, base64, names; for ONNX
    /// the protobuf wire format.
    MG_ONEMODEL_MALFORMED = 300,
    /// `OutOfRange`: a size, offset, length or dimension that disagrees with the file or
    /// with dtype × dims.
    MG_ONEMODEL_OUT_OF_RANGE = 301,
    /// `Unsupported`: a version, dtype, kind, attribute type or size this version does not
    /// support (for ONNX from a buffer: a tensor kept in an external file).
    MG_ONEMODEL_UNSUPPORTED = 302,
    /// `LimitExceeded`: a reader limit (manifest size, JSON depth, nesting, element count).
    MG_ONEMODEL_LIMIT_EXCEEDED = 303,
}

/// MPK error kinds, the taxonomy keys (`spec/mpk.md` §5).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum mg_mpk_kind {
    /// `invalid_archive`: extension, gzip, tar, entry types, classes, duplicates.
    MG_MPK_INVALID_ARCHIVE = 400,
    /// `path_traversal`: a path that could escape the root, a link entry.
    MG_MPK_PATH_TRAVERSAL = 401,
    /// `schema_error`: JSON syntax, duplicate keys, depth and every contract rule.
    MG_MPK_SCHEMA_ERROR = 402,
    /// `unsupported_version`: an MPK contract version this reader does not support.
    MG_MPK_UNSUPPORTED_VERSION = 403,
    /// `size_limit_exceeded`: a limit of `mg_mpk_limits` (§4).
    MG_MPK_SIZE_LIMIT_EXCEEDED = 404,
}

/// mvb error kinds (`spec/mvb.md` §9).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum mg_mvb_kind {
    /// `InvalidArchive`: tar structure, order, entry types, paths, duplicates, the marker.
    MG_MVB_INVALID_ARCHIVE = 500,
    /// `PathTraversal`: links and the traversal rules of `spec/mpk.md` §2.
    MG_MVB_PATH_TRAVERSAL = 501,
    /// `InvalidManifest`: marker or manifest schema, JSON syntax.
    MG_MVB_INVALID_MANIFEST = 502,
    /// `UnsupportedVersion`: container or record major version.
    MG_MVB_UNSUPPORTED_VERSION = 503,
    /// `IntegrityMismatch`: sizes, hashes, missing or extra payload.
    MG_MVB_INTEGRITY_MISMATCH = 504,
    /// `LimitExceeded`: a limit of `mg_mvb_limits` (§4.7).
    MG_MVB_LIMIT_EXCEEDED = 505,
}

/// gzip error kinds (`spec/inflate.md` §7).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum mg_gzip_kind {
    /// `InvalidGzip`: a member, its deflate data or its trailer breaks RFC 1952 (§5).
    MG_GZIP_INVALID_GZIP = 600,
    /// `LimitExceeded`: the output bound (`mg_limits.gzip_max_output`, §5.11).
    MG_GZIP_LIMIT_EXCEEDED = 601,
}

/// deflate test frame error kinds (`spec/inflate.md` §7).
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum mg_deflate_kind {
    /// `InvalidDeflate`: the frame or its raw deflate stream is invalid (§6).
    MG_DEFLATE_INVALID_DEFLATE = 700,
    /// `LimitExceeded`: the declared size is over `mg_limits.deflate_max_output` (§6.2).
    MG_DEFLATE_LIMIT_EXCEEDED = 701,
}

/// Every kind with its exact name, by format.
const KINDS: [(mg_format, u32, &CStr); 33] = [
    (
        mg_format::MG_FORMAT_JSON,
        mg_json_kind::MG_JSON_INVALID_JSON as u32,
        c"InvalidJSON",
    ),
    (
        mg_format::MG_FORMAT_JSON,
        mg_json_kind::MG_JSON_LIMIT_EXCEEDED as u32,
        c"LimitExceeded",
    ),
    (
        mg_format::MG_FORMAT_MLBUNDLE,
        mg_mlbundle_kind::MG_MLBUNDLE_INVALID_CONTAINER as u32,
        c"InvalidContainer",
    ),
    (
        mg_format::MG_FORMAT_MLBUNDLE,
        mg_mlbundle_kind::MG_MLBUNDLE_LIMIT_EXCEEDED as u32,
        c"LimitExceeded",
    ),
    (
        mg_format::MG_FORMAT_MLBUNDLE,
        mg_mlbundle_kind::MG_MLBUNDLE_INVALID_MANIFEST as u32,
        c"InvalidManifest",
    ),
    (
        mg_format::MG_FORMAT_MLBUNDLE,
        mg_mlbundle_kind::MG_MLBUNDLE_UNSUPPORTED_FORMAT_VERSION as u32,
        c"UnsupportedFormatVersion",
    ),
    (
        mg_format::MG_FORMAT_MLBUNDLE,
        mg_mlbundle_kind::MG_MLBUNDLE_INVALID_JSON as u32,
        c"InvalidJSON",
    ),
    (
        mg_format::MG_FORMAT_MLBUNDLE,
        mg_mlbundle_kind::MG_MLBUNDLE_INTEGRITY_MISMATCH as u32,
        c"IntegrityMismatch",
    ),
    (
        mg_format::MG_FORMAT_ONEMODEL,
        mg_onemodel_kind::MG_ONEMODEL_MALFORMED as u32,
        c"Malformed",
    ),
    (
        mg_format::MG_FORMAT_ONEMODEL,
        mg_onemodel_kind::MG_ONEMODEL_OUT_OF_RANGE as u32,
        c"OutOfRange",
    ),
    (
        mg_format::MG_FORMAT_ONEMODEL,
        mg_onemodel_kind::MG_ONEMODEL_UNSUPPORTED as u32,
        c"Unsupported",
    ),
    (
        mg_format::MG_FORMAT_ONEMODEL,
        mg_onemodel_kind::MG_ONEMODEL_LIMIT_EXCEEDED as u32,
        c"LimitExceeded",
    ),
    (
        mg_format::MG_FORMAT_ONNX,
        mg_onemodel_kind::MG_ONEMODEL_MALFORMED as u32,
        c"Malformed",
    ),
    (
        mg_format::MG_FORMAT_ONNX,
        mg_onemodel_kind::MG_ONEMODEL_OUT_OF_RANGE as u32,
        c"OutOfRange",
    ),
    (
        mg_format::MG_FORMAT_ONNX,
        mg_onemodel_kind::MG_ONEMODEL_UNSUPPORTED as u32,
        c"Unsupported",
    ),
    (
        mg_format::MG_FORMAT_ONNX,
        mg_onemodel_kind::MG_ONEMODEL_LIMIT_EXCEEDED as u32,
        c"LimitExceeded",
    ),
    (
        mg_format::MG_FORMAT_MPK,
        mg_mpk_kind::MG_MPK_INVALID_ARCHIVE as u32,
        c"invalid_archive",
    ),
    (
        mg_format::MG_FORMAT_MPK,
        mg_mpk_kind::MG_MPK_PATH_TRAVERSAL as u32,
        c"path_traversal",
    ),
    (
        mg_format::MG_FORMAT_MPK,
        mg_mpk_kind::MG_MPK_SCHEMA_ERROR as u32,
        c"schema_error",
    ),
    (
        mg_format::MG_FORMAT_MPK,
        mg_mpk_kind::MG_MPK_UNSUPPORTED_VERSION as u32,
        c"unsupported_version",
    ),
    (
        mg_format::MG_FORMAT_MPK,
        mg_mpk_kind::MG_MPK_SIZE_LIMIT_EXCEEDED as u32,
        c"size_limit_exceeded",
    ),
    (
        mg_format::MG_FORMAT_MVB,
        mg_mvb_kind::MG_MVB_INVALID_ARCHIVE as u32,
        c"InvalidArchive",
    ),
    (
        mg_format::MG_FORMAT_MVB,
        mg_mvb_kind::MG_MVB_PATH_TRAVERSAL as u32,
        c"PathTraversal",
    ),
    (
        mg_format::MG_FORMAT_MVB,
        mg_mvb_kind::MG_MVB_INVALID_MANIFEST as u32,
        c"InvalidManifest",
    ),
    (
        mg_format::MG_FORMAT_MVB,
        mg_mvb_kind::MG_MVB_UNSUPPORTED_VERSION as u32,
        c"UnsupportedVersion",
    ),
    (
        mg_format::MG_FORMAT_MVB,
        mg_mvb_kind::MG_MVB_INTEGRITY_MISMATCH as u32,
        c"IntegrityMismatch",
    ),
    (
        mg_format::MG_FORMAT_MVB,
        mg_mvb_kind::MG_MVB_LIMIT_EXCEEDED as u32,
        c"LimitExceeded",
    ),
    (
        mg_format::MG_FORMAT_GZIP,
        mg_gzip_kind::MG_GZIP_INVALID_GZIP as u32,
        c"InvalidGzip",
    ),
    (
        mg_format::MG_FORMAT_GZIP,
        mg_gzip_kind::MG_GZIP_LIMIT_EXCEEDED as u32,
        c"LimitExceeded",
    ),
    (
        mg_format::MG_FORMAT_DEFLATE,
        mg_deflate_kind::MG_DEFLATE_INVALID_DEFLATE as u32,
        c"InvalidDeflate",
    ),
    (
        mg_format::MG_FORMAT_DEFLATE,
        mg_deflate_kind::MG_DEFLATE_LIMIT_EXCEEDED as u32,
        c"LimitExceeded",
    ),
    // Kept last: the two that `kind_name` looks up by value alone never come first.
    (mg_format::MG_FORMAT_NONE, MG_KIND_NONE, c""),
    (mg_format::MG_FORMAT_NONE, MG_KIND_UNKNOWN, c""),
];

/// The value of the kind `name` of `format` (a core kind name), or `MG_KIND_UNKNOWN`.
pub(crate) fn from_name(format: mg_format, name: &str) -> u32 {
    KINDS
        .iter()
        .find(|(f, _, n)| *f == format && n.to_bytes() == name.as_bytes())
        .map_or(MG_KIND_UNKNOWN, |(_, v, _)| *v)
}

/// The exact name of a kind value, as the core and `modelgate check` print it.
pub(crate) fn kind_name(kind: u32) -> Option<&'static CStr> {
    KINDS
        .iter()
        .find(|(f, v, _)| *v == kind && *f != mg_format::MG_FORMAT_NONE)
        .map(|(_, _, n)| *n)
}

/// The exact kind name of `kind` (a value of any `mg_*_kind` enum), NUL-terminated and
/// static (for example `"InvalidJSON"`, `"invalid_archive"`), as `modelgate check` prints
/// it and hostile-corpus file names start with it (`spec/errors.md`); NULL for
/// `MG_KIND_NONE` and any value that is not a kind.
#[unsafe(no_mangle)]
pub extern "C" fn mg_kind_name(kind: u32) -> *const c_char {
    crate::outcome::guard(|| kind_name(kind), |_| None).map_or(core::ptr::null(), CStr::as_ptr)
}

/// The name of a format as `modelgate check --format` spells it (`"json"`, `"mlbundle"`,
/// `"onemodel"`, `"onnx"`, `"mpk"`, `"mvb"`, `"gzip"`, `"deflate"`), NUL-terminated and
/// static; NULL for `MG_FORMAT_NONE` and any other value.
#[unsafe(no_mangle)]
pub extern "C" fn mg_format_name(format: u32) -> *const c_char {
    let find = || FORMAT_NAMES.iter().find(|(f, _)| *f as u32 == format).map(|(_, n)| *n);
    crate::outcome::guard(find, |_| None).map_or(core::ptr::null(), CStr::as_ptr)
}

/// Every format with its name (the format registry's, `modelgate_io::check::FORMATS`).
pub(crate) const FORMAT_NAMES: [(mg_format, &CStr); 8] = [
    (mg_format::MG_FORMAT_JSON, c"json"),
    (mg_format::MG_FORMAT_MLBUNDLE, c"mlbundle"),
    (mg_format::MG_FORMAT_ONEMODEL, c"onemodel"),
    (mg_format::MG_FORMAT_ONNX, c"onnx"),
    (mg_format::MG_FORMAT_MPK, c"mpk"),
    (mg_format::MG_FORMAT_MVB, c"mvb"),
    (mg_format::MG_FORMAT_GZIP, c"gzip"),
    (mg_format::MG_FORMAT_DEFLATE, c"deflate"),
];

/// The format named `name` in the format registry, or `MG_FORMAT_NONE`.
#[cfg(feature = "std")]
pub(crate) fn format_from_name(name: &str) -> mg_format {
    FORMAT_NAMES
        .iter()
        .find(|(_, n)| n.to_bytes() == name.as_bytes())
        .map_or(mg_format::MG_FORMAT_NONE, |(f, _)| *f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use modelgate_core::{json, mlbundle, mpk, mvb, onemodel};

    fn name(kind: u32) -> &'static str {
        kind_name(kind).unwrap().to_str().unwrap()
    }

    /// Every kind of every core enum has a value here, under its exact name; the matches
    /// stop compiling when the core gains a kind.
    #[test]
    fn every_core_kind_has_a_value_with_its_name() {
        for k in [json::ErrorKind::InvalidJson, json::ErrorKind::LimitExceeded] {
            match k {
                json::ErrorKind::InvalidJson | json::ErrorKind::LimitExceeded => {}
            }
            assert_eq!(name(from_name(mg_format::MG_FORMAT_JSON, k.name())), k.name());
        }
        use mlbundle::ErrorKind as M;
        for k in [
            M::InvalidContainer,
            M::LimitExceeded,
            M::InvalidManifest,
            M::UnsupportedFormatVersion,
            M::InvalidJson,
            M::IntegrityMismatch,
        ] {
            match k {
                M::InvalidContainer
                | M::LimitExceeded
                | M::InvalidManifest
                | M::UnsupportedFormatVersion
                | M::InvalidJson
                | M::IntegrityMismatch => {}
            }
            assert_eq!(name(from_name(mg_format::MG_FORMAT_MLBUNDLE, k.name())), k.name());
        }
        use onemodel::ErrorKind as O;
        for k in [O::Malformed, O::OutOfRange, O::Unsupported, O::LimitExceeded] {
            match k {
                O::Malformed | O::OutOfRange | O::Unsupported | O::LimitExceeded => {}
            }
            for f in [mg_format::MG_FORMAT_ONEMODEL, mg_format::MG_FORMAT_ONNX] {
                assert_eq!(name(from_name(f, k.name())), k.name());
            }
        }
        for key in mpk::MpkKind::KEYS {
            assert_eq!(name(from_name(mg_format::MG_FORMAT_MPK, key)), key);
        }
        for k in mvb::MvbKind::ALL {
            assert_eq!(name(from_name(mg_format::MG_FORMAT_MVB, k.name())), k.name());
        }
        assert_eq!(mvb::MvbKind::ALL.len(), 6);
        for (f, names) in [
            (mg_format::MG_FORMAT_GZIP, ["InvalidGzip", "LimitExceeded"]),
            (mg_format::MG_FORMAT_DEFLATE, ["InvalidDeflate", "LimitExceeded"]),
        ] {
            for n in names {
                assert_eq!(name(from_name(f, n)), n);
            }
        }
    }

    /// The table and the kinds the format registry lists agree one to one.
    #[cfg(feature = "std")]
    #[test]
    fn the_registry_lists_the_same_kinds() {
        for format in modelgate_io::check::FORMATS {
            let f = format_from_name(format.name());
            assert_ne!(f, mg_format::MG_FORMAT_NONE, "{}", format.name());
            let ours: Vec<&str> = KINDS
                .iter()
                .filter(|(g, _, _)| *g == f)
                .map(|(_, _, n)| n.to_str().unwrap())
                .collect();
            let mut theirs = format.kinds().to_vec();
            let mut ours_sorted = ours.clone();
            theirs.sort_unstable();
            ours_sorted.sort_unstable();
            assert_eq!(ours_sorted, theirs, "{}", format.name());
        }
        assert_eq!(FORMAT_NAMES.len(), modelgate_io::check::FORMATS.len());
    }

    #[test]
    fn values_are_unique_and_tell_their_format() {
        for (i, (f, v, _)) in KINDS.iter().enumerate() {
            if *f == mg_format::MG_FORMAT_NONE || *f == mg_format::MG_FORMAT_ONNX {
                continue;
            }
            for (g, w, _) in KINDS.iter().skip(i + 1) {
                if *g != mg_format::MG_FORMAT_ONNX {
                    assert_ne!(v, w);
                }
            }
        }
        assert!(kind_name(MG_KIND_NONE).is_none());
        assert!(kind_name(MG_KIND_UNKNOWN).is_none());
        assert!(kind_name(99).is_none());
        assert!(mg_kind_name(0).is_null());
        assert!(mg_format_name(0).is_null());
        assert!(mg_format_name(9).is_null());
    }
}
