//! Strict JSON: RFC 8259 exactly, plus I-JSON (RFC 7493) where it is stricter
//! (`spec/json.md`). One tokenizer for every manifest and member reader in modelgate.
//!
//! - [`Parser`]: pull API, events with byte offsets.
//! - [`parse`] / [`validate`]: the whole document into a [`Value`] (or, with a [`Keep`]
//!   schema in its [`ParseOptions`], only the parts it names), or checked only.
//! - [`Cursor`]: typed reads that name the JSON path of a failure.
//! - [`Writer`] / [`to_canonical`]: the canonical writer; [`canonical_with_members`]: a
//!   document's canonical text with members of one object set, streamed.

pub(crate) mod error;
pub(crate) mod keys;
pub(crate) mod number;
pub(crate) mod path;
pub(crate) mod prune;
pub(crate) mod rewrite;
pub(crate) mod siphash;
pub(crate) mod text;
pub(crate) mod tokenizer;
pub(crate) mod utf8;
pub(crate) mod value;
pub(crate) mod writer;

pub use error::{Error, ErrorKind, Expected, Message, Reason, Utf8Problem};
#[cfg(feature = "onemodel")]
pub(crate) use number::lexeme_to_i64;
pub use number::{IntError, Number, lexeme_to_u64};
#[cfg(any(feature = "mlbundle", feature = "mvb", feature = "onemodel"))]
pub(crate) use path::quoted;
pub use path::{Cursor, FieldError, Problem};
pub use prune::Keep;
pub use rewrite::canonical_with_members;
pub use siphash::siphash13;
pub use text::Text;
#[cfg(any(feature = "mlbundle", feature = "mpk", feature = "onemodel"))]
pub(crate) use tokenizer::Sink;
#[cfg(feature = "mlbundle")]
pub(crate) use tokenizer::string_value;
pub use tokenizer::{DEFAULT_HASH_KEY, Event, MAX_INPUT, Parser, Str, Token};
pub use utf8::is_ijson_text;
#[cfg(any(feature = "mlbundle", feature = "mpk"))]
pub(crate) use value::scalar_type;
pub use value::{JsonType, Member, Node, Value, build, container, shape};
pub use writer::{Writer, to_canonical};

/// Size and nesting limits (`spec/json.md` §6), and the key of the duplicate-name table
/// (§5): what every read takes. Each format sets its own limits; the key is carried here, as
/// [`crate::onemodel::Limits`] and `mlbundle::ArchiveLimits` carry theirs, because every read
/// takes its limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Longest accepted input in bytes (capped at [`MAX_INPUT`]).
    pub max_bytes: usize,
    /// Most containers open at once; the outermost counts as depth 1.
    pub max_depth: usize,
    /// The SipHash key of the duplicate-name table (§5). [`DEFAULT_HASH_KEY`], which anyone
    /// can read, makes the table key itself from the input; a caller with an entropy source
    /// passes its own key and skips that pass.
    pub hash_key: [u64; 2],
}

impl Limits {
    /// The generic default: 256 MiB, depth 1024 and [`DEFAULT_HASH_KEY`] (`spec/json.md` §5,
    /// §6).
    pub const DEFAULT: Limits = Limits {
        max_bytes: 256 * 1024 * 1024,
        max_depth: 1024,
        hash_key: DEFAULT_HASH_KEY,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}

/// How [`parse`] reads a document: its [`Limits`] (and duplicate-table key), and what of the
/// value it builds. A [`Limits`] converts into the options that build the whole value.
#[derive(Clone, Copy, Debug)]
pub struct ParseOptions<'k> {
    /// Size and depth limits and the duplicate-table key (`spec/json.md` §5, §6).
    pub limits: Limits,
    /// `None`: the whole value. A schema: only the parts it names, every other member and
    /// element checked and dropped, so memory is bounded by the kept parts (§8.1).
    pub keep: Option<Keep<'k>>,
}

impl From<Limits> for ParseOptions<'_> {
    fn from(limits: Limits) -> Self {
        ParseOptions { limits, keep: None }
    }
}

/// Parses the whole input, checked by every rule of `spec/json.md` §1–§6, into an owned
/// value (§8); with [`ParseOptions::keep`], only the parts its schema names are built, and the
/// checks, errors and offsets are the same (§8.1).
pub fn parse<'k>(input: &[u8], options: impl Into<ParseOptions<'k>>) -> Result<Value, Error> {
    let ParseOptions { limits, keep } = options.into();
    match keep {
        None => build(&mut Parser::new(input, limits)?),
        Some(keep) => prune::parse_kept(input, limits, keep),
    }
}

/// Checks the whole input without building a value. Reads the input once: UTF-8 is
/// checked inside strings as they are scanned, and only a rejected input is checked whole,
/// so that an ill-formed sequence anywhere wins over every other problem but the size
/// limit, the byte-order mark included, as §1.1 orders.
pub fn validate(input: &[u8], limits: Limits) -> Result<(), Error> {
    let mut parser = Parser::deferred_utf8(input, limits)?.defer_duplicates();
    let result = tokenizer::no_byte_order_mark(input).and_then(|()| parser.skip_to_end());
    result.map_err(|e| utf8::validate(input).err().unwrap_or(e))
}
