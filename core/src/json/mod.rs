//! Strict JSON: RFC 8259 exactly, plus I-JSON (RFC 7493) where it is stricter
//! (`spec/json.md`). One tokenizer for every manifest and member reader in modelgate.
//!
//! - [`Parser`]: pull API, events with byte offsets.
//! - [`parse`] / [`validate`]: the whole document into a [`Value`], or checked only.
//! - [`parse_kept`]: checked whole, with only the parts a [`Keep`] schema names built.
//! - [`Cursor`]: typed reads that name the JSON path of a failure.
//! - [`Writer`] / [`to_canonical`]: the canonical writer; [`canonical_with_members`]: a
//!   document's canonical text with members of one object set, streamed.

mod error;
mod keys;
mod number;
mod path;
mod prune;
mod rewrite;
mod siphash;
mod text;
mod tokenizer;
pub mod utf8;
mod value;
mod writer;

pub use error::{Error, ErrorKind, Expected, Message, Reason, Utf8Problem};
pub use number::{IntError, Number, lexeme_to_i64, lexeme_to_u64};
pub use path::{Cursor, FieldError, Problem};
pub use prune::{Keep, parse_kept};
pub use rewrite::canonical_with_members;
pub use siphash::siphash13;
pub use text::Text;
#[cfg(any(feature = "mlbundle", feature = "mpk", feature = "onemodel"))]
pub(crate) use tokenizer::Sink;
#[cfg(feature = "mlbundle")]
pub(crate) use tokenizer::string_value;
pub use tokenizer::{DEFAULT_HASH_KEY, Event, MAX_INPUT, Parser, Str, Token};
pub use utf8::is_ijson_text;
pub use value::{JsonType, Member, Node, Value, build, container, scalar_type, shape};
pub use writer::{Writer, to_canonical, write_string};

/// Size and nesting limits (`spec/json.md` §6). Each format sets its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Longest accepted input in bytes (capped at [`MAX_INPUT`]).
    pub max_bytes: usize,
    /// Most containers open at once; the outermost counts as depth 1.
    pub max_depth: usize,
}

impl Limits {
    /// The generic default: 256 MiB and depth 1024 (`spec/json.md` §6).
    pub const DEFAULT: Limits = Limits {
        max_bytes: 256 * 1024 * 1024,
        max_depth: 1024,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}

/// Parses the whole input into an owned value (`spec/json.md` §8). Without a hash key of
/// the caller's, the duplicate-name table is keyed from the input (§5).
pub fn parse(input: &[u8], limits: Limits) -> Result<Value, Error> {
    build(&mut Parser::new(input, limits)?)
}

/// Parses with the given duplicate-table hash key (`spec/json.md` §5).
pub fn parse_keyed(input: &[u8], limits: Limits, key: [u64; 2]) -> Result<Value, Error> {
    build(&mut Parser::new(input, limits)?.with_hash_key(key))
}

/// Checks the whole input without building a value. Without a hash key of the caller's,
/// the duplicate-name table is keyed from the input (§5).
pub fn validate(input: &[u8], limits: Limits) -> Result<(), Error> {
    validate_keyed(input, limits, DEFAULT_HASH_KEY)
}

/// [`validate`] with the given duplicate-table hash key. Reads the input once: UTF-8 is
/// checked inside strings as they are scanned, and only a rejected input is checked whole,
/// so that an ill-formed sequence anywhere wins over every other problem but the size
/// limit, the byte-order mark included, as §1.1 orders.
pub fn validate_keyed(input: &[u8], limits: Limits, key: [u64; 2]) -> Result<(), Error> {
    let mut parser = Parser::deferred_utf8(input, limits)?
        .with_hash_key(key)
        .defer_duplicates();
    let result = tokenizer::no_byte_order_mark(input).and_then(|()| parser.skip_to_end());
    result.map_err(|e| utf8::validate(input).err().unwrap_or(e))
}
