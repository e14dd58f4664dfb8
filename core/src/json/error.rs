//! JSON errors: the two kinds of `spec/json.md` §7 and the precise reason, with a byte offset.

use core::fmt;

/// The corpus-visible kind of a JSON failure (`spec/errors.md` §1, `json` row).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The text is not strict JSON (`spec/json.md` §1–§5).
    InvalidJson,
    /// A configured limit was exceeded (`spec/json.md` §6).
    LimitExceeded,
}

impl ErrorKind {
    /// The exact kind name used in CLI output and corpus file names.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::InvalidJson => "InvalidJSON",
            ErrorKind::LimitExceeded => "LimitExceeded",
        }
    }
}

/// What the parser expected where it found something else (`spec/json.md` §2 grammar).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expected {
    /// Any JSON value.
    Value,
    /// An object member name (a string).
    Name,
    /// The `:` after a member name.
    Colon,
    /// `,` or `]` after an array element.
    CommaOrArrayEnd,
    /// `,` or `}` after an object member.
    CommaOrObjectEnd,
    /// The closing `"` of a string.
    StringEnd,
}

impl Expected {
    fn describe(self) -> &'static str {
        match self {
            Expected::Value => "a value",
            Expected::Name => "an object member name",
            Expected::Colon => "':' after the member name",
            Expected::CommaOrArrayEnd => "',' or ']'",
            Expected::CommaOrObjectEnd => "',' or '}'",
            Expected::StringEnd => "the closing '\"' of the string",
        }
    }
}

/// How a byte sequence fails to be UTF-8 (`spec/json.md` §1, Unicode table 3-7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Utf8Problem {
    /// A byte that can never start a sequence (0x80–0xBF, 0xC0, 0xC1, 0xF5–0xFF).
    InvalidLeadByte,
    /// An encoding longer than needed (E0 80–9F, F0 80–8F).
    Overlong,
    /// The encoding of a surrogate code point U+D800–U+DFFF (ED A0–BF).
    SurrogateEncoding,
    /// A code point above U+10FFFF (F4 90–BF).
    AboveMaximum,
    /// A sequence cut short by a non-continuation byte or the end of input.
    Truncated,
}

/// The precise reason for a JSON failure. Each maps to one [`ErrorKind`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// The input starts with a UTF-8 byte-order mark (`spec/json.md` §1.2).
    ByteOrderMark,
    /// The input is not well-formed UTF-8 (`spec/json.md` §1.1).
    InvalidUtf8(Utf8Problem),
    /// A string contains a Unicode noncharacter, raw or escaped (`spec/json.md` §3.4).
    Noncharacter,
    /// A string contains an unescaped control character U+0000–U+001F (`spec/json.md` §3.2).
    ControlCharacter,
    /// A backslash not followed by one of `"\/bfnrt` or `u` and four hex digits (§3.3).
    InvalidEscape,
    /// A `\u` escape of a surrogate that is not part of a high–low pair (§3.4).
    UnpairedSurrogate,
    /// A number that breaks the RFC 8259 number grammar at this byte (§4).
    InvalidNumber,
    /// A misspelt `true`, `false` or `null` (§2).
    InvalidLiteral,
    /// A byte that does not fit the grammar here.
    UnexpectedByte(Expected),
    /// The input ended where more was required.
    UnexpectedEnd(Expected),
    /// Non-whitespace after the top-level value (§2).
    TrailingContent,
    /// An object member name equal, after unescaping, to an earlier one in the same
    /// object (§5).
    DuplicateName,
    /// More containers open at once than the depth limit allows (§6).
    TooDeep,
    /// The input is longer than the size limit (§6).
    TooLarge,
}

impl Reason {
    /// The kind this reason belongs to.
    pub fn kind(self) -> ErrorKind {
        match self {
            Reason::TooDeep | Reason::TooLarge => ErrorKind::LimitExceeded,
            _ => ErrorKind::InvalidJson,
        }
    }
}

/// A JSON failure: its reason and the byte offset where it was found (`spec/json.md` §7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Error {
    /// Why the input was rejected.
    pub reason: Reason,
    /// Offset of the offending byte from the start of the input.
    pub offset: usize,
}

impl Error {
    pub(crate) fn new(reason: Reason, offset: usize) -> Self {
        Error { reason, offset }
    }

    /// The corpus-visible kind.
    pub fn kind(&self) -> ErrorKind {
        self.reason.kind()
    }

    /// The same failure as a format-independent [`crate::Rejection`].
    pub fn rejection(&self) -> crate::Rejection {
        crate::Rejection {
            kind: self.kind().name(),
            message: alloc::format!("{}", Message(self.reason)),
            location: crate::Location::at(self.offset as u64),
        }
    }
}

/// The human-readable text of a reason, without location.
pub struct Message(pub Reason);

impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Reason::ByteOrderMark => f.write_str("byte-order mark is not allowed"),
            Reason::InvalidUtf8(p) => {
                let what = match p {
                    Utf8Problem::InvalidLeadByte => "invalid lead byte",
                    Utf8Problem::Overlong => "overlong encoding",
                    Utf8Problem::SurrogateEncoding => "encoded surrogate",
                    Utf8Problem::AboveMaximum => "code point above U+10FFFF",
                    Utf8Problem::Truncated => "truncated sequence",
                };
                write!(f, "invalid UTF-8 ({what})")
            }
            Reason::Noncharacter => f.write_str("Unicode noncharacter in string"),
            Reason::ControlCharacter => f.write_str("unescaped control character in string"),
            Reason::InvalidEscape => f.write_str("invalid escape sequence"),
            Reason::UnpairedSurrogate => f.write_str("unpaired surrogate escape"),
            Reason::InvalidNumber => f.write_str("invalid number"),
            Reason::InvalidLiteral => f.write_str("invalid literal"),
            Reason::UnexpectedByte(e) => write!(f, "unexpected byte, expected {}", e.describe()),
            Reason::UnexpectedEnd(e) => {
                write!(f, "unexpected end of input, expected {}", e.describe())
            }
            Reason::TrailingContent => f.write_str("content after the top-level value"),
            Reason::DuplicateName => f.write_str("duplicate object member name"),
            Reason::TooDeep => f.write_str("nesting depth limit exceeded"),
            Reason::TooLarge => f.write_str("size limit exceeded"),
        }
    }
}

impl fmt::Display for Error {
    /// `InvalidJSON: duplicate object member name at byte 9`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} at byte {}",
            self.kind().name(),
            Message(self.reason),
            self.offset
        )
    }
}

impl core::error::Error for Error {}
