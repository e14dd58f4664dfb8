//! Owned text that keeps short strings inline (`spec/json.md` §8).
//!
//! Manifests and tree dumps are made of short names, short strings and short number
//! lexemes. Keeping up to [`INLINE`] bytes inside the value itself means building a
//! [`Value`](super::Value) allocates once per container, not once per name and string.
//! Longer text is boxed. Both [`Number`](super::Number) lexemes and string values use it.

use crate::invariant;
use alloc::boxed::Box;
use alloc::string::String;
use core::borrow::Borrow;
use core::fmt;
use core::hash::{Hash, Hasher};
use core::ops::Deref;

/// Bytes kept inline; with the length and the variant tag the type is 24 bytes, the size
/// of a `String`.
pub(crate) const INLINE: usize = 22;

/// An immutable UTF-8 string, inline when at most `INLINE` (22) bytes long.
#[derive(Clone)]
pub struct Text(Repr);

#[derive(Clone)]
enum Repr {
    Inline { len: u8, buf: [u8; INLINE] },
    Heap(Box<str>),
}

impl Text {
    /// Copies `s`, inline when it fits.
    #[inline]
    pub fn new(s: &str) -> Text {
        let bytes = s.as_bytes();
        let mut buf = [0u8; INLINE];
        match (u8::try_from(bytes.len()), buf.get_mut(..bytes.len())) {
            (Ok(len), Some(dst)) => {
                dst.copy_from_slice(bytes);
                Text(Repr::Inline { len, buf })
            }
            _ => Text(Repr::Heap(Box::from(s))),
        }
    }

    /// The text.
    #[inline]
    pub fn as_str(&self) -> &str {
        match &self.0 {
            // The inline bytes were copied from a `&str` whole, so they are UTF-8; the check
            // only keeps this crate free of `unsafe`.
            Repr::Inline { len, buf } => {
                invariant::some(core::str::from_utf8(invariant::sub(buf, ..usize::from(*len))).ok())
            }
            Repr::Heap(s) => s,
        }
    }

    /// The text's bytes, without the UTF-8 check [`Text::as_str`] makes of inline text:
    /// what comparisons use.
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        match &self.0 {
            Repr::Inline { len, buf } => invariant::sub(buf, ..usize::from(*len)),
            Repr::Heap(s) => s.as_bytes(),
        }
    }

    /// True when the text is kept inline (no heap allocation).
    #[cfg(test)]
    pub(crate) fn is_inline(&self) -> bool {
        matches!(self.0, Repr::Inline { .. })
    }
}

impl Deref for Text {
    type Target = str;
    #[inline]
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for Text {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Text {
        Text::new(s)
    }
}

impl From<String> for Text {
    fn from(s: String) -> Text {
        if s.len() <= INLINE {
            Text::new(&s)
        } else {
            Text(Repr::Heap(s.into_boxed_str()))
        }
    }
}

impl From<Text> for String {
    fn from(t: Text) -> String {
        match t.0 {
            Repr::Heap(s) => s.into_string(),
            Repr::Inline { .. } => String::from(t.as_str()),
        }
    }
}

impl PartialEq for Text {
    fn eq(&self, other: &Text) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for Text {}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<Text> for str {
    fn eq(&self, other: &Text) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<Text> for &str {
    fn eq(&self, other: &Text) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialOrd for Text {
    fn partial_cmp(&self, other: &Text) -> Option<core::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Text {
    fn cmp(&self, other: &Text) -> core::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl Hash for Text {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every length round-trips, and exactly the lengths up to `INLINE` stay inline.
    #[test]
    fn text_is_inline_exactly_up_to_twenty_two_bytes() {
        let long = "é".repeat(20);
        for len in 0..=long.len() {
            let Some(s) = long.get(..len) else { continue };
            let t = Text::new(s);
            assert_eq!(t.as_str(), s);
            assert_eq!(t.is_inline(), len <= INLINE, "len {len}");
            let from_string = Text::from(String::from(s));
            assert_eq!(from_string, t);
            assert_eq!(String::from(from_string), s);
        }
        assert_eq!(core::mem::size_of::<Text>(), 24);
    }
}
