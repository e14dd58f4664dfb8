//! One 512-byte tar header block: magic, checksum, numbers, names and type
//! (`spec/mpk.md` §1.1).

use super::error::{Field, TarReason};
use crate::invariant;

/// Size of a tar block.
pub const BLOCK: usize = 512;

/// ustar magic and version (`spec/mpk.md` §1.1.2).
const USTAR_MAGIC: &[u8; 8] = b"ustar\x0000";
/// GNU magic and version (`spec/mpk.md` §1.1.2).
const GNU_MAGIC: &[u8; 8] = b"ustar  \x00";
/// Offset of the magic field.
pub const MAGIC_OFFSET: usize = 257;
/// Offset of the typeflag byte.
pub(crate) const TYPEFLAG_OFFSET: usize = 156;

/// Which header dialect a block uses (`spec/mpk.md` §1.1.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// POSIX ustar (`ustar\0`, `00`), also used by PAX archives.
    Ustar,
    /// GNU (`ustar `, ` \0`).
    Gnu,
}

/// What an entry is, from its typeflag (`spec/mpk.md` §1.1.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    /// `0` or NUL.
    Regular,
    /// `5`.
    Directory,
    /// `1`.
    HardLink,
    /// `2`.
    Symlink,
    /// `3`.
    CharDevice,
    /// `4`.
    BlockDevice,
    /// `6`.
    Fifo,
    /// Any other typeflag that is not a meta entry (`7`, GNU `D`, `M`, `N`, `V`, ...).
    Other(u8),
}

impl EntryKind {
    /// True for the types whose data other readers skip: they must have size 0 (§1.1.7).
    pub(crate) fn must_be_empty(self) -> bool {
        !matches!(self, EntryKind::Regular | EntryKind::Other(_))
    }

    /// A short name for messages and listings.
    pub fn name(self) -> &'static str {
        match self {
            EntryKind::Regular => "file",
            EntryKind::Directory => "directory",
            EntryKind::HardLink => "hard link",
            EntryKind::Symlink => "symbolic link",
            EntryKind::CharDevice => "character device",
            EntryKind::BlockDevice => "block device",
            EntryKind::Fifo => "FIFO",
            EntryKind::Other(_) => "special entry",
        }
    }
}

/// The typeflag of a block, meta types included (`spec/mpk.md` §1.1.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TypeFlag {
    /// An entry proper.
    Entry(EntryKind),
    /// `x`: PAX extended header for the next entry.
    Pax,
    /// `g`: PAX global header.
    PaxGlobal,
    /// `L`: GNU long name for the next entry.
    LongName,
    /// `K`: GNU long link name for the next entry.
    LongLink,
    /// `S`: GNU sparse file (rejected).
    Sparse,
    /// `X`: Solaris extended header (rejected).
    SolarisExtended,
}

impl TypeFlag {
    /// Maps the typeflag byte (`spec/mpk.md` §1.1.6).
    pub(crate) fn from_byte(b: u8) -> TypeFlag {
        match b {
            b'0' | 0 => TypeFlag::Entry(EntryKind::Regular),
            b'1' => TypeFlag::Entry(EntryKind::HardLink),
            b'2' => TypeFlag::Entry(EntryKind::Symlink),
            b'3' => TypeFlag::Entry(EntryKind::CharDevice),
            b'4' => TypeFlag::Entry(EntryKind::BlockDevice),
            b'5' => TypeFlag::Entry(EntryKind::Directory),
            b'6' => TypeFlag::Entry(EntryKind::Fifo),
            b'x' => TypeFlag::Pax,
            b'g' => TypeFlag::PaxGlobal,
            b'L' => TypeFlag::LongName,
            b'K' => TypeFlag::LongLink,
            b'S' => TypeFlag::Sparse,
            b'X' => TypeFlag::SolarisExtended,
            other => TypeFlag::Entry(EntryKind::Other(other)),
        }
    }
}

/// A header block that passed every check of §1.1. Names borrow the block.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Header<'a> {
    /// ustar or GNU.
    pub dialect: Dialect,
    /// The typeflag.
    pub flag: TypeFlag,
    /// The typeflag byte as written: NUL and `0` are both a regular file, but readers that
    /// follow the V7 convention take a NUL-typed entry named with a trailing `/` for a
    /// directory (§1.1.6).
    pub typeflag: u8,
    /// `name` up to its terminator.
    pub name: &'a [u8],
    /// `prefix` up to its terminator (empty for GNU headers, §1.1.5).
    pub prefix: &'a [u8],
    /// `linkname` up to its terminator.
    pub linkname: &'a [u8],
    /// `mode`.
    pub mode: u64,
    /// `uid`.
    pub uid: u64,
    /// `gid`.
    pub gid: u64,
    /// `size` as the header states it.
    pub size: u64,
    /// `mtime`.
    pub mtime: u64,
}

/// A header error: the reason and the offset inside the block.
pub(crate) type HeaderError = (TarReason, usize);

/// True when every byte of the block is zero (§1.4.2).
pub(crate) fn is_zero_block(block: &[u8]) -> bool {
    all_nul(block)
}

/// Parses a header block, checking checksum first, then magic, numbers and names
/// (`spec/mpk.md` §1.1). Errors carry the offset inside the block.
pub(crate) fn parse(block: &[u8; BLOCK]) -> Result<Header<'_>, HeaderError> {
    check_checksum(block)?;
    let magic = field_bytes(block, MAGIC_OFFSET, 8);
    // spec/mpk.md §1.1.2: ustar or GNU magic only.
    let dialect = if magic == USTAR_MAGIC {
        Dialect::Ustar
    } else if magic == GNU_MAGIC {
        Dialect::Gnu
    } else {
        return Err((TarReason::BadMagic, MAGIC_OFFSET));
    };
    let typeflag = invariant::item(block, TYPEFLAG_OFFSET);
    let flag = TypeFlag::from_byte(typeflag);
    let prefix = match dialect {
        Dialect::Ustar => name(block, Field::Prefix)?,
        // §1.1.5: GNU keeps times where ustar has `prefix`, and other readers (Python's
        // tarfile) join that area to the name whatever the magic; it must read as empty.
        Dialect::Gnu => match block.get(Field::Prefix.range().0) {
            Some(0) | None => &[],
            Some(_) => return Err((TarReason::GnuPrefix, Field::Prefix.range().0)),
        },
    };
    name(block, Field::Uname)?;
    name(block, Field::Gname)?;
    optional_number(block, Field::Devmajor)?;
    optional_number(block, Field::Devminor)?;
    Ok(Header {
        dialect,
        flag,
        typeflag,
        name: name(block, Field::Name)?,
        prefix,
        linkname: name(block, Field::Linkname)?,
        mode: number(block, Field::Mode)?,
        uid: number(block, Field::Uid)?,
        gid: number(block, Field::Gid)?,
        size: number(block, Field::Size)?,
        mtime: number(block, Field::Mtime)?,
    })
}

/// §1.1.3: the stored checksum equals the unsigned byte sum with the field as spaces.
fn check_checksum(block: &[u8; BLOCK]) -> Result<(), HeaderError> {
    let (start, len) = Field::Checksum.range();
    // Octal only: GNU tar reads the checksum as octal and skips a header whose checksum is
    // base-256, then reads the entry's data as headers (two readers, two archives).
    let stored = octal(field_bytes(block, start, len)).map_err(|r| (r.reason(Field::Checksum), start))?;
    let before = invariant::sub(block, ..start);
    let after = invariant::sub(block, start + len..);
    // The checksum field itself counts as spaces, one per byte of its length.
    let spaces = u64::from(b' ').saturating_mul(u64::try_from(len).unwrap_or(u64::MAX));
    let computed = u64::from(byte_sum(before))
        .saturating_add(spaces)
        .saturating_add(u64::from(byte_sum(after)));
    if stored != computed {
        return Err((TarReason::BadChecksum { stored, computed }, start));
    }
    Ok(())
}

/// The sum of `bytes` (at most a block, 512 × 255: it cannot overflow a u32), in a form
/// that vectorizes.
fn byte_sum(bytes: &[u8]) -> u32 {
    bytes.iter().map(|&b| u32::from(b)).sum()
}

/// True when every byte is NUL, without a branch per byte.
fn all_nul(bytes: &[u8]) -> bool {
    bytes.iter().fold(0u8, |acc, &b| acc | b) == 0
}

/// The bytes of the field at `start` (a constant of the header layout, §1.1.1).
fn field_bytes(block: &[u8; BLOCK], start: usize, len: usize) -> &[u8] {
    invariant::sub(block, start..start + len)
}

/// §1.1.5: a name field up to its first NUL; only NULs may follow.
fn name(block: &[u8; BLOCK], field: Field) -> Result<&[u8], HeaderError> {
    let (start, len) = field.range();
    let bytes = field_bytes(block, start, len);
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    let (value, rest) = bytes.split_at(end);
    if !all_nul(rest)
        && let Some(i) = rest.iter().position(|&b| b != 0)
    {
        return Err((TarReason::BadNameField(field), start + end + i));
    }
    Ok(value)
}

/// §1.1.4: `devmajor`/`devminor` may be all NUL; otherwise a number.
fn optional_number(block: &[u8; BLOCK], field: Field) -> Result<u64, HeaderError> {
    let (start, len) = field.range();
    if all_nul(field_bytes(block, start, len)) {
        return Ok(0);
    }
    number(block, field)
}

/// §1.1.4: an octal or base-256 numeric field.
fn number(block: &[u8; BLOCK], field: Field) -> Result<u64, HeaderError> {
    let (start, len) = field.range();
    parse_number(field_bytes(block, start, len)).map_err(|r| (r.reason(field), start))
}

/// Why a numeric field is invalid, before the field is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NumberError {
    /// Not well-formed.
    Bad,
    /// Negative base-256.
    Negative,
    /// Above 2^64 − 1.
    Overflow,
}

impl NumberError {
    fn reason(self, field: Field) -> TarReason {
        match self {
            NumberError::Bad => TarReason::BadNumber(field),
            NumberError::Negative => TarReason::NegativeNumber(field),
            NumberError::Overflow => TarReason::NumberOverflow(field),
        }
    }
}

/// Parses one numeric field's bytes as octal or base-256 (`spec/mpk.md` §1.1.4).
pub(crate) fn parse_number(bytes: &[u8]) -> Result<u64, NumberError> {
    match bytes.first() {
        Some(0x80) => base256(invariant::sub(bytes, 1..)),
        Some(0xff) => Err(NumberError::Negative),
        Some(b) if b & 0x80 != 0 => Err(NumberError::Bad),
        _ => octal(bytes),
    }
}

fn base256(digits: &[u8]) -> Result<u64, NumberError> {
    let mut value: u64 = 0;
    for &b in digits {
        value = value
            .checked_mul(256)
            .and_then(|v| v.checked_add(u64::from(b)))
            .ok_or(NumberError::Overflow)?;
    }
    Ok(value)
}

/// Leading spaces, at least one octal digit, then only NULs and spaces (§1.1.4); one pass.
fn octal(bytes: &[u8]) -> Result<u64, NumberError> {
    let lead = bytes.iter().take_while(|&&b| b == b' ').count();
    let rest = invariant::sub(bytes, lead..);
    let mut value: u64 = 0;
    let mut overflow = false;
    let mut digits = 0;
    for &b in rest {
        let d = b.wrapping_sub(b'0');
        if d > 7 {
            break;
        }
        // value * 8 + d overflows exactly when value >= 2^61; reported after the form.
        overflow |= value >> 61 != 0;
        value = (value << 3) | u64::from(d);
        digits += 1;
    }
    if digits == 0 {
        return Err(NumberError::Bad);
    }
    // The terminator and what follows: NULs and spaces only.
    let tail = invariant::sub(rest, digits..);
    if tail.iter().any(|&b| b != 0 && b != b' ') {
        return Err(NumberError::Bad);
    }
    if overflow {
        return Err(NumberError::Overflow);
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn octal_forms() {
        assert_eq!(parse_number(b"0000644\0"), Ok(0o644));
        assert_eq!(parse_number(b"   644 \0"), Ok(0o644));
        assert_eq!(parse_number(b"77777777"), Ok(0o77777777));
        assert_eq!(parse_number(b"\0\0\0\0"), Err(NumberError::Bad));
        assert_eq!(parse_number(b"0008\0"), Err(NumberError::Bad));
        assert_eq!(parse_number(b"12 3\0"), Err(NumberError::Bad));
        assert_eq!(parse_number(b"-12\0"), Err(NumberError::Bad));
        // 2^64 - 1 is the largest value; one more is Overflow, but a bad form wins over it.
        assert_eq!(parse_number(b"1777777777777777777777\0"), Ok(u64::MAX));
        assert_eq!(parse_number(b"2000000000000000000000\0"), Err(NumberError::Overflow));
        assert_eq!(parse_number(b"20000000000000000000000"), Err(NumberError::Overflow));
        assert_eq!(parse_number(b"2000000000000000000000 x"), Err(NumberError::Bad));
    }

    #[test]
    fn base256_forms() {
        assert_eq!(parse_number(&[0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0]), Ok(256));
        assert_eq!(parse_number(&[0xff, 0xff, 0xff]), Err(NumberError::Negative));
        assert_eq!(parse_number(&[0x81, 0]), Err(NumberError::Bad));
        assert_eq!(
            parse_number(&[0x80, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
            Ok(u64::MAX)
        );
        assert_eq!(
            parse_number(&[0x80, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
            Err(NumberError::Overflow)
        );
    }
}
