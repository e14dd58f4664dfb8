//! Typed failures of the tar reader (`spec/mpk.md` §1).

use alloc::string::String;
use core::fmt;

/// A header field, named in errors (`spec/mpk.md` §1.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// `name` (offset 0, 100 bytes).
    Name,
    /// `mode` (offset 100, 8 bytes).
    Mode,
    /// `uid` (offset 108, 8 bytes).
    Uid,
    /// `gid` (offset 116, 8 bytes).
    Gid,
    /// `size` (offset 124, 12 bytes).
    Size,
    /// `mtime` (offset 136, 12 bytes).
    Mtime,
    /// `chksum` (offset 148, 8 bytes).
    Checksum,
    /// `linkname` (offset 157, 100 bytes).
    Linkname,
    /// `uname` (offset 265, 32 bytes).
    Uname,
    /// `gname` (offset 297, 32 bytes).
    Gname,
    /// `devmajor` (offset 329, 8 bytes).
    Devmajor,
    /// `devminor` (offset 337, 8 bytes).
    Devminor,
    /// `prefix` (offset 345, 155 bytes; ustar only).
    Prefix,
}

impl Field {
    /// The field's name as POSIX spells it.
    pub fn name(self) -> &'static str {
        match self {
            Field::Name => "name",
            Field::Mode => "mode",
            Field::Uid => "uid",
            Field::Gid => "gid",
            Field::Size => "size",
            Field::Mtime => "mtime",
            Field::Checksum => "chksum",
            Field::Linkname => "linkname",
            Field::Uname => "uname",
            Field::Gname => "gname",
            Field::Devmajor => "devmajor",
            Field::Devminor => "devminor",
            Field::Prefix => "prefix",
        }
    }

    /// Offset of the field in the header block and its length.
    pub fn range(self) -> (usize, usize) {
        match self {
            Field::Name => (0, 100),
            Field::Mode => (100, 8),
            Field::Uid => (108, 8),
            Field::Gid => (116, 8),
            Field::Size => (124, 12),
            Field::Mtime => (136, 12),
            Field::Checksum => (148, 8),
            Field::Linkname => (157, 100),
            Field::Uname => (265, 32),
            Field::Gname => (297, 32),
            Field::Devmajor => (329, 8),
            Field::Devminor => (337, 8),
            Field::Prefix => (345, 155),
        }
    }
}

/// A PAX key whose value the reader checks (`spec/mpk.md` §1.2.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PaxKey {
    /// `path`.
    Path,
    /// `linkpath`.
    Linkpath,
    /// `uname`.
    Uname,
    /// `gname`.
    Gname,
    /// `size`.
    Size,
    /// `uid`.
    Uid,
    /// `gid`.
    Gid,
    /// `mtime`.
    Mtime,
    /// `atime`.
    Atime,
    /// `ctime`.
    Ctime,
}

impl PaxKey {
    /// The key as written.
    pub fn name(self) -> &'static str {
        match self {
            PaxKey::Path => "path",
            PaxKey::Linkpath => "linkpath",
            PaxKey::Uname => "uname",
            PaxKey::Gname => "gname",
            PaxKey::Size => "size",
            PaxKey::Uid => "uid",
            PaxKey::Gid => "gid",
            PaxKey::Mtime => "mtime",
            PaxKey::Atime => "atime",
            PaxKey::Ctime => "ctime",
        }
    }

    /// The key of `raw`, when the reader checks its value.
    pub fn of(raw: &[u8]) -> Option<PaxKey> {
        Some(match raw {
            b"path" => PaxKey::Path,
            b"linkpath" => PaxKey::Linkpath,
            b"uname" => PaxKey::Uname,
            b"gname" => PaxKey::Gname,
            b"size" => PaxKey::Size,
            b"uid" => PaxKey::Uid,
            b"gid" => PaxKey::Gid,
            b"mtime" => PaxKey::Mtime,
            b"atime" => PaxKey::Atime,
            b"ctime" => PaxKey::Ctime,
            _ => return None,
        })
    }
}

/// Why a tar stream was rejected (`spec/mpk.md` §1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TarReason {
    /// Neither ustar nor GNU magic (§1.1.2).
    BadMagic,
    /// The header checksum does not match (§1.1.3).
    BadChecksum {
        /// Value stored in the header.
        stored: u64,
        /// Unsigned sum computed over the header.
        computed: u64,
    },
    /// A numeric field is not a well-formed octal or base-256 number (§1.1.4).
    BadNumber(Field),
    /// A base-256 numeric field is negative (§1.1.4).
    NegativeNumber(Field),
    /// A numeric field exceeds 2^64 − 1 (§1.1.4).
    NumberOverflow(Field),
    /// A name field has non-NUL bytes after its terminator (§1.1.5).
    BadNameField(Field),
    /// A directory, link, device or FIFO with non-zero size (§1.1.7).
    SizeOnNonFile,
    /// A GNU header whose `prefix` area (where GNU keeps times) does not start with NUL:
    /// other readers join it to the name (§1.1.5).
    GnuPrefix,
    /// A regular file whose name ends in `/`, which other readers take for a directory
    /// (§1.1.6).
    FileNamedAsFolder,
    /// A GNU sparse entry or PAX sparse record (§1.1.6, §1.2.3).
    Sparse,
    /// A malformed PAX record (§1.2.1, §1.2.3).
    BadPax,
    /// A PAX `path`, `linkpath`, `uname` or `gname` holding a NUL byte, where a C reader
    /// would end the value (§1.2.3).
    PaxNul(PaxKey),
    /// A PAX time, id or size that is not a strict decimal (§1.2.3).
    BadPaxNumber(PaxKey),
    /// A Solaris extended header (typeflag `X`), which some readers apply as a PAX header
    /// and others as a file (§1.1.6).
    SolarisExtended,
    /// A PAX key given twice in one header (§1.2.2).
    DuplicatePaxKey,
    /// A global PAX header with a key other than `comment` (§1.2.4).
    UnsupportedGlobalKey,
    /// A GNU long name that is empty (§1.3.1).
    BadLongName,
    /// A GNU long name with bytes after its NUL terminator (§1.3.1).
    LongNameHiddenBytes,
    /// A PAX header or long name larger than the reader's limit (§1.2.1, §1.3.1).
    MetaTooLarge,
    /// Two meta entries of one type before one entry (§1.4.1).
    DuplicateMeta,
    /// A path or link given by both PAX and a GNU long-name entry (§1.4.1).
    ConflictingMeta,
    /// A GNU long-name entry after a PAX header of the same entry (§1.4.1).
    MetaAfterPax,
    /// A meta entry not followed by an entry (§1.4.1).
    DanglingMeta,
    /// One zero block followed by a non-zero block (§1.4.2).
    LoneZeroBlock,
    /// Non-zero bytes after the end-of-archive marker (§1.4.2).
    TrailingData,
    /// The input ended inside a header, data or padding (§1.4.3).
    Truncated,
    /// The input ended without the end-of-archive marker (§1.4.3).
    MissingEnd,
}

impl TarReason {
    /// True for a reader limit rather than malformed input (`spec/mpk.md` §5).
    pub(crate) fn is_limit(self) -> bool {
        matches!(self, TarReason::MetaTooLarge)
    }
}

impl fmt::Display for TarReason {
    /// A short message that never contains input bytes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TarReason::BadMagic => f.write_str("tar header has neither ustar nor GNU magic"),
            TarReason::BadChecksum { stored, computed } => {
                write!(f, "tar header checksum mismatch: stored {stored}, computed {computed}")
            }
            TarReason::BadNumber(field) => write!(f, "tar header field {} is not a valid number", field.name()),
            TarReason::NegativeNumber(field) => write!(f, "tar header field {} is negative", field.name()),
            TarReason::NumberOverflow(field) => write!(f, "tar header field {} overflows 64 bits", field.name()),
            TarReason::BadNameField(field) => {
                write!(f, "tar header field {} has bytes after its terminator", field.name())
            }
            TarReason::SizeOnNonFile => f.write_str("non-file tar entry has a non-zero size"),
            TarReason::GnuPrefix => f.write_str("GNU tar header has a non-empty prefix area"),
            TarReason::FileNamedAsFolder => f.write_str("regular tar entry named like a folder"),
            TarReason::Sparse => f.write_str("GNU sparse tar entries are not supported"),
            TarReason::BadPax => f.write_str("malformed PAX extended header record"),
            TarReason::PaxNul(key) => write!(f, "PAX record {} holds a NUL byte", key.name()),
            TarReason::BadPaxNumber(key) => write!(f, "PAX record {} is not a strict decimal number", key.name()),
            TarReason::SolarisExtended => {
                f.write_str("Solaris extended header (typeflag X), which some readers apply as PAX")
            }
            TarReason::DuplicatePaxKey => f.write_str("PAX key repeated in one extended header"),
            TarReason::UnsupportedGlobalKey => f.write_str("global PAX header sets a key other than comment"),
            TarReason::BadLongName => f.write_str("empty GNU long name"),
            TarReason::LongNameHiddenBytes => f.write_str("GNU long name has bytes after its NUL terminator"),
            TarReason::MetaTooLarge => f.write_str("PAX header or GNU long name exceeds the size limit"),
            TarReason::DuplicateMeta => f.write_str("two extended headers of one type for one entry"),
            TarReason::ConflictingMeta => f.write_str("path or link given by both PAX and GNU long-name records"),
            TarReason::MetaAfterPax => f.write_str("GNU long-name entry after a PAX header"),
            TarReason::DanglingMeta => f.write_str("extended header not followed by an entry"),
            TarReason::LoneZeroBlock => f.write_str("single zero block inside the archive"),
            TarReason::TrailingData => f.write_str("data after the end-of-archive marker"),
            TarReason::Truncated => f.write_str("tar stream is truncated"),
            TarReason::MissingEnd => f.write_str("tar stream has no end-of-archive marker"),
        }
    }
}

/// A rejected tar stream: the reason, the absolute offset in the tar stream and, when
/// known, the path of the entry it belongs to (lossy UTF-8, at most 256 bytes)
/// (`spec/mpk.md` §1.5).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TarError {
    /// What was wrong.
    pub reason: TarReason,
    /// Offset from the first byte of the tar stream.
    pub offset: u64,
    /// The entry's path, when known.
    pub entry: Option<String>,
}

impl TarError {
    /// An error of `reason` at `offset`, no entry known.
    pub fn new(reason: TarReason, offset: u64) -> Self {
        TarError {
            reason,
            offset,
            entry: None,
        }
    }
}

impl fmt::Display for TarError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.reason, self.offset)?;
        if let Some(e) = &self.entry {
            write!(f, " (entry {e})")?;
        }
        Ok(())
    }
}

impl core::error::Error for TarError {}
