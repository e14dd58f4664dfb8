//! Why a ZIP archive was rejected (`spec/mlbundle.md` §2, §4).

use crate::inflate::InflateReason;
use core::fmt;

/// One ZIP structure rule that failed. Every reason is paired with an archive offset
/// (and the member, where one is known) in [`ZipError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ZipReason {
    /// The archive is shorter than an end record (§2.1).
    TooShort,
    /// No end record in the last 22 bytes: a comment or appended bytes (§2.1, §2.8).
    NoEndRecord,
    /// A disk number is not 0 or the per-disk and total counts differ (§2.1, §2.2).
    MultiDisk,
    /// The ZIP64 locator is missing or malformed (§2.2).
    BadLocator,
    /// The ZIP64 end record is missing, not at its fixed place, or has another body size (§2.2).
    BadZip64End,
    /// The ordinary end record disagrees with the ZIP64 end record (§2.2).
    EndRecordsDisagree,
    /// The central directory does not end at the end record (§2.2, §2.12).
    DirectoryEnd,
    /// A central header has a wrong signature or runs past the directory (§2.3).
    BadCentralHeader,
    /// The directory holds more or fewer headers or bytes than declared (§2.3).
    DirectoryCount,
    /// A member comment (§2.8).
    MemberComment,
    /// Disk start or internal attributes not allowed (§2.3).
    BadCentralField,
    /// A name outside the allowed set (§1.1).
    UnknownName,
    /// A name that appears twice (§1.2).
    DuplicateName,
    /// An extra field other than one exact ZIP64 field (§2.4).
    BadExtraField,
    /// A ZIP64 field with a missing value for a sentinel (§2.4).
    MissingZip64Value,
    /// A ZIP64 value with no sentinel field needing it (§2.4).
    RedundantZip64Value,
    /// A stored member with a data descriptor whose data holds, at some offset, a signed
    /// descriptor whose sizes equal that offset or whose CRC-32 is that of the bytes before
    /// it: a streaming reader, which cannot know the size, ends the member there
    /// (`spec/mlbundle.md` §2.11.1).
    PlantedDescriptor,
    /// A stored member's data descriptor without its signature: a streaming reader, which
    /// ends stored data only at a signed descriptor, reads on into the next record
    /// (`spec/mlbundle.md` §2.11.1).
    UnsignedStoredDescriptor,
    /// A data descriptor without signature whose CRC-32 field holds the signature's value:
    /// readers that tell the form by its first four bytes read four bytes too many
    /// (`spec/mlbundle.md` §2.11).
    DescriptorCrcIsSignature,
    /// A local header with a ZIP64 sentinel in one size field and not the other: its ZIP64
    /// field must hold both sizes (APPNOTE 4.5.3; `spec/mlbundle.md` §2.4).
    LocalZip64OneSize,
    /// A method (the value) other than 0 and 8 (§2.5).
    UnsupportedMethod(u16),
    /// A stored member whose sizes differ (§2.5).
    StoredSizeMismatch,
    /// Version needed (the value) not 10, 20 or 45, or 10 for a deflated member, or not 45
    /// with ZIP64 (§2.6).
    BadVersionNeeded(u16),
    /// The encryption flag (§2.7).
    Encrypted,
    /// A general-purpose flag that is not allowed (§2.7).
    BadFlags,
    /// A Unix file type other than regular, or the DOS directory bit (§2.9).
    NotRegularFile,
    /// No local header where the directory points (§2.10).
    BadLocalHeader,
    /// Local and central headers disagree (name, method, flags, version, CRC, sizes) (§2.10).
    LocalMismatch,
    /// A data descriptor is malformed or disagrees with the directory (§2.11).
    BadDescriptor,
    /// Bytes before the first local record, between records, or an unlisted record (§2.12).
    Gap,
    /// Two records overlap or a record runs into the directory (§2.12).
    Overlap,
    /// A nonempty member with compressed size 0 (`spec/mlbundle.md` §3.3).
    EmptyCompressed,
    /// Deflate data or CRC-32 rejected while reading (§4.2).
    Inflate(InflateReason),
    /// A stored member's CRC-32 differs from the directory (§4.2).
    CrcMismatch {
        /// CRC-32 the directory declared.
        expected: u32,
        /// CRC-32 of the bytes read.
        actual: u32,
    },
    /// A member buffer of the declared size could not be reserved (§4.1).
    OutOfMemory,
    /// More central headers than the caller's limit (`spec/mlbundle.md` §3.4).
    TooManyEntries,
}

impl ZipReason {
    /// True for the reasons that are resource limits rather than bad data.
    pub(crate) fn is_limit(&self) -> bool {
        matches!(self, ZipReason::OutOfMemory | ZipReason::TooManyEntries)
            || matches!(self, ZipReason::Inflate(r) if r.is_limit())
    }
}

impl fmt::Display for ZipReason {
    /// A fixed text, with the value of a field that is not in its set; never contains
    /// archive bytes (`spec/mlbundle.md` §9.2).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            ZipReason::TooShort => "archive is shorter than an end record",
            ZipReason::NoEndRecord => {
                "no end record at the end of the archive (comments and appended bytes are rejected)"
            }
            ZipReason::MultiDisk => "multi-disk archives are not supported",
            ZipReason::BadLocator => "malformed ZIP64 end record locator",
            ZipReason::BadZip64End => "malformed ZIP64 end record",
            ZipReason::EndRecordsDisagree => "end record and ZIP64 end record disagree",
            ZipReason::DirectoryEnd => "central directory does not end at the end record",
            ZipReason::BadCentralHeader => "malformed central directory header",
            ZipReason::DirectoryCount => "central directory size or entry count disagrees with the end record",
            ZipReason::MemberComment => "member comments are not allowed",
            ZipReason::BadCentralField => "disk start or internal attributes not allowed",
            ZipReason::UnknownName => "member name is not allowed",
            ZipReason::DuplicateName => "duplicate member",
            ZipReason::BadExtraField => "extra field other than one exact ZIP64 field",
            ZipReason::MissingZip64Value => "ZIP64 extra field lacks a value for a sentinel field",
            ZipReason::RedundantZip64Value => "ZIP64 extra field holds a value no sentinel field needs",
            ZipReason::PlantedDescriptor => {
                "stored member's data holds a data descriptor that a streaming reader would end it at"
            }
            ZipReason::UnsignedStoredDescriptor => {
                "stored member's data descriptor has no signature, so a streaming reader cannot find its end"
            }
            ZipReason::DescriptorCrcIsSignature => {
                "data descriptor without signature whose CRC-32 reads as the descriptor signature"
            }
            ZipReason::LocalZip64OneSize => {
                "local header takes one size from a ZIP64 field; APPNOTE 4.5.3 requires both"
            }
            ZipReason::UnsupportedMethod(m) => {
                return write!(f, "compression method {m} is not stored (0) or deflated (8)");
            }
            ZipReason::StoredSizeMismatch => "stored member's compressed and uncompressed sizes differ",
            ZipReason::BadVersionNeeded(v) => {
                return write!(
                    f,
                    "version needed to extract {v} is not allowed (expected 10: stored, without ZIP64; \
                     20: without ZIP64; 45)"
                );
            }
            ZipReason::Encrypted => "encrypted member",
            ZipReason::BadFlags => "general-purpose flag not allowed",
            ZipReason::NotRegularFile => "member is not a regular file",
            ZipReason::BadLocalHeader => "no valid local header where the directory points",
            ZipReason::LocalMismatch => "local header disagrees with the central directory",
            ZipReason::BadDescriptor => "data descriptor is malformed or disagrees with the central directory",
            ZipReason::Gap => "bytes not covered by a listed record",
            ZipReason::Overlap => "records overlap",
            ZipReason::EmptyCompressed => "nonempty member with compressed size 0",
            ZipReason::Inflate(r) => return write!(f, "member data rejected: {r}"),
            ZipReason::CrcMismatch { expected, actual } => {
                return write!(f, "CRC-32 mismatch: declared {expected:08x}, computed {actual:08x}");
            }
            ZipReason::OutOfMemory => "member buffer could not be reserved",
            ZipReason::TooManyEntries => "more members than the member-count limit",
        };
        f.write_str(s)
    }
}

/// A rejected archive: the reason, the archive offset of the offending record or field,
/// and the member (index into the caller's name table) when one is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ZipError {
    /// What was wrong.
    pub reason: ZipReason,
    /// Archive offset of the offending record, field or byte.
    pub offset: u64,
    /// Index of the member's name in the allowed-name table, when known.
    pub member: Option<usize>,
}

impl ZipError {
    /// An error at `offset`, without member.
    pub fn at(reason: ZipReason, offset: u64) -> Self {
        ZipError {
            reason,
            offset,
            member: None,
        }
    }

    /// The same error, attributed to member `index`.
    pub fn member(mut self, index: usize) -> Self {
        self.member = Some(index);
        self
    }
}

impl fmt::Display for ZipError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.reason, self.offset)
    }
}

impl core::error::Error for ZipError {}
