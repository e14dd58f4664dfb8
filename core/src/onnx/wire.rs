//! The protobuf wire format, bounded (`spec/onemodel.md` §6.1): varints of at most 10 bytes,
//! field keys with a valid field number and wire type (0, 1, 2 or 5; groups and the
//! undefined types 6 and 7 are rejected), and length-delimited payloads checked against the
//! bytes that remain before they are sliced. Nothing is allocated here. The reader is the
//! ONNX reader's own; the three writers ([`put_varint`], [`put_key`], [`put_len`]) are public
//! for tools and tests that build protobuf inputs.

use crate::invariant;
use alloc::string::String;

/// A wire-level failure: what is wrong, at which absolute byte offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct WireError {
    /// Absolute offset of the offending byte.
    pub offset: usize,
    /// What is wrong.
    pub what: Fault,
}

/// What is wrong at the wire level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fault {
    /// A fixed text (`varint cut short`, `fixed-size field cut short`).
    Text(&'static str),
    /// A key whose field number is 0 or above 2^29 − 1.
    FieldNumber(u64),
    /// A length-delimited field whose length runs past the end of its message.
    LengthPastEnd {
        /// The field number.
        number: u32,
        /// The length the field states.
        length: u64,
        /// The bytes left in the message after the length.
        left: usize,
    },
    /// A key with wire type 3, 4 (groups), 6 or 7 (undefined), which ONNX never uses.
    WireType {
        /// The key's field number.
        number: u32,
        /// The wire type found.
        wire: u8,
    },
}

/// The largest field number protobuf allows.
const MAX_FIELD_NUMBER: u32 = (1 << 29) - 1;

impl Fault {
    /// The message, naming the message type the field is in when it is known (`field 1 of
    /// ModelProto has ...`).
    pub(crate) fn message(self, message_type: Option<&str>) -> String {
        let of = message_type.map(|t| alloc::format!(" of {t}")).unwrap_or_default();
        match self {
            Fault::Text(t) => String::from(t),
            Fault::FieldNumber(n) => alloc::format!("invalid field number {n} (expected 1 to {MAX_FIELD_NUMBER})"),
            Fault::LengthPastEnd { number, length, left } => {
                let bytes = if left == 1 { "byte" } else { "bytes" };
                alloc::format!(
                    "field {number}{of} has length {length}, which runs past the end of the message ({left} {bytes} left)"
                )
            }
            Fault::WireType { number, wire } => {
                let what = if matches!(wire, 3 | 4) { "group" } else { "undefined" };
                alloc::format!(
                    "field {number}{of} has {what} wire type {wire} (expected 0, 1, 2 or 5): not an ONNX model"
                )
            }
        }
    }
}

impl WireError {
    fn text(offset: usize, what: &'static str) -> Self {
        WireError {
            offset,
            what: Fault::Text(what),
        }
    }
}

/// A field's payload by wire type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Value<'a> {
    /// Wire type 0.
    Varint(u64),
    /// Wire type 1 (fixed64, double).
    Fixed64(u64),
    /// Wire type 2: the payload bytes.
    Len(&'a [u8]),
    /// Wire type 5 (fixed32, float).
    Fixed32(u32),
}

/// One field: its number, payload, and the absolute offsets of its key and payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Field<'a> {
    /// Field number (1 ..= 2^29 − 1).
    pub number: u32,
    /// The payload.
    pub value: Value<'a>,
    /// Absolute offset of the key.
    pub offset: usize,
    /// Absolute offset of the payload (after the key and any length prefix).
    pub payload: usize,
}

/// Reads a varint at `pos` of `buf`; returns the value and the position after it.
/// At most 10 bytes, and the 10th may only carry the top bit of a u64.
pub(crate) fn varint(buf: &[u8], pos: usize, base: usize) -> Result<(u64, usize), WireError> {
    let mut v: u64 = 0;
    for i in 0..10 {
        let at = pos + i;
        let Some(&b) = buf.get(at) else {
            return Err(WireError::text(base + at, "varint cut short"));
        };
        if i == 9 && b > 1 {
            return Err(WireError::text(base + at, "varint longer than 64 bits"));
        }
        v |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return Ok((v, at + 1));
        }
    }
    Err(WireError::text(base + pos, "varint longer than 10 bytes"))
}

/// The fields of one message, in order. `base` is the absolute offset of `buf[0]`.
pub(crate) struct Fields<'a> {
    buf: &'a [u8],
    pos: usize,
    base: usize,
}

impl<'a> Fields<'a> {
    /// Iterates the fields of the message `buf`, which starts at absolute offset `base`.
    pub(crate) fn new(buf: &'a [u8], base: usize) -> Self {
        Fields { buf, pos: 0, base }
    }

    fn fixed<const N: usize>(&mut self, start: usize) -> Result<[u8; N], WireError> {
        let mut out = [0u8; N];
        let src = self
            .buf
            .get(self.pos..self.pos + N)
            .ok_or(WireError::text(self.base + start, "fixed-size field cut short"))?;
        out.copy_from_slice(src);
        self.pos += N;
        Ok(out)
    }

    fn field(&mut self) -> Result<Field<'a>, WireError> {
        let start = self.pos;
        let (key, next) = varint(self.buf, self.pos, self.base)?;
        self.pos = next;
        let at = self.base + start;
        let number = match u32::try_from(key >> 3) {
            Ok(n) if (1..=MAX_FIELD_NUMBER).contains(&n) => n,
            _ => {
                return Err(WireError {
                    offset: at,
                    what: Fault::FieldNumber(key >> 3),
                });
            }
        };
        let value = match key & 7 {
            0 => {
                let (v, next) = varint(self.buf, self.pos, self.base)?;
                self.pos = next;
                Value::Varint(v)
            }
            1 => Value::Fixed64(u64::from_le_bytes(self.fixed::<8>(start)?)),
            2 => {
                let (len, next) = varint(self.buf, self.pos, self.base)?;
                let remaining = self.buf.len().saturating_sub(next);
                let Some(len) = usize::try_from(len).ok().filter(|&l| l <= remaining) else {
                    return Err(WireError {
                        offset: at,
                        what: Fault::LengthPastEnd {
                            number,
                            length: len,
                            left: remaining,
                        },
                    });
                };
                self.pos = next + len;
                Value::Len(invariant::sub(self.buf, next..next + len))
            }
            5 => Value::Fixed32(u32::from_le_bytes(self.fixed::<4>(start)?)),
            wire => {
                return Err(WireError {
                    offset: at,
                    what: Fault::WireType {
                        number,
                        wire: u8::try_from(wire).unwrap_or(u8::MAX),
                    },
                });
            }
        };
        let payload = match value {
            Value::Len(b) => self.pos - b.len(),
            Value::Fixed64(_) => self.pos - 8,
            Value::Fixed32(_) => self.pos - 4,
            Value::Varint(_) => next_after_key(start, self.buf, self.base),
        };
        Ok(Field {
            number,
            value,
            offset: at,
            payload: self.base + payload,
        })
    }
}

fn next_after_key(start: usize, buf: &[u8], base: usize) -> usize {
    varint(buf, start, base).map_or(start, |(_, n)| n)
}

impl<'a> Iterator for Fields<'a> {
    type Item = Result<Field<'a>, WireError>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.pos >= self.buf.len() {
            return None;
        }
        let r = self.field();
        if r.is_err() {
            self.pos = self.buf.len();
        }
        Some(r)
    }
}

/// Appends `v` as a varint.
pub fn put_varint(out: &mut alloc::vec::Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(u8::try_from(v & 0x7f).unwrap_or(0) | 0x80);
        v >>= 7;
    }
    out.push(u8::try_from(v).unwrap_or(0));
}

/// Appends a field key.
pub fn put_key(out: &mut alloc::vec::Vec<u8>, number: u32, wire: u8) {
    put_varint(out, (u64::from(number) << 3) | u64::from(wire));
}

/// Appends a length-delimited field.
pub fn put_len(out: &mut alloc::vec::Vec<u8>, number: u32, bytes: &[u8]) {
    put_key(out, number, 2);
    put_varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    #[test]
    fn varint_bounds() {
        assert_eq!(varint(&[0x96, 0x01], 0, 0), Ok((150, 2)));
        let max = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
        assert_eq!(varint(&max, 0, 0), Ok((u64::MAX, 10)));
        let over = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02];
        assert_eq!(varint(&over, 0, 0).unwrap_err().offset, 9);
        assert_eq!(varint(&[0x80, 0x80], 0, 5).unwrap_err().offset, 7);
    }

    #[test]
    fn wire_types_6_and_7_and_groups_rejected() {
        for key in [0x0e, 0x0f, 0x0b, 0x0c] {
            let e = Fields::new(&[key, 0], 0).next().unwrap().unwrap_err();
            assert_eq!(e.offset, 0);
            let wire = key & 7;
            assert_eq!(e.what, Fault::WireType { number: 1, wire });
        }
        let e = Fields::new(&[0x0f], 0).next().unwrap().unwrap_err();
        assert_eq!(
            e.what.message(None),
            "field 1 has undefined wire type 7 (expected 0, 1, 2 or 5): not an ONNX model"
        );
        let e = Fields::new(&[0x0b], 0).next().unwrap().unwrap_err();
        assert_eq!(
            e.what.message(Some("ModelProto")),
            "field 1 of ModelProto has group wire type 3 (expected 0, 1, 2 or 5): not an ONNX model"
        );
    }

    #[test]
    fn field_numbers_0_and_above_2_29_rejected_with_the_number() {
        let e = Fields::new(&[0x00, 0x00], 7).next().unwrap().unwrap_err();
        assert_eq!((e.offset, e.what), (7, Fault::FieldNumber(0)));
        assert_eq!(e.what.message(None), "invalid field number 0 (expected 1 to 536870911)");
        let mut key = Vec::new();
        put_varint(&mut key, 1 << 32);
        let e = Fields::new(&key, 0).next().unwrap().unwrap_err();
        assert_eq!(e.what, Fault::FieldNumber(1 << 29));
    }

    #[test]
    fn length_past_end_rejected() {
        let e = Fields::new(&[0x0a, 0x05, 1, 2], 100).next().unwrap().unwrap_err();
        assert_eq!(e.offset, 100);
        assert_eq!(
            e.what.message(None),
            "field 1 has length 5, which runs past the end of the message (2 bytes left)"
        );
        let huge = [0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
        assert!(Fields::new(&huge, 0).next().unwrap().is_err());
    }

    #[test]
    fn field_offsets() {
        let f: Vec<_> = Fields::new(&[0x08, 0x07, 0x12, 0x01, 0x41], 10)
            .map(|f| f.unwrap())
            .collect();
        assert_eq!(f[0].value, Value::Varint(7));
        assert_eq!((f[1].offset, f[1].payload), (12, 14));
        assert_eq!(f[1].value, Value::Len(b"A"));
    }
}
