//! A file as a writer lays it out (`spec/onemodel.md` §4, §6.3): the bytes the writer built
//! (header, manifest, protobuf fields, padding) and, between them, the tensor bytes it refers
//! to where they are, in memory or in a file the caller holds ([`FileRange`]). Nothing is
//! copied until the caller writes the pieces in order, so a file larger than memory can be
//! written from a model whose tensors stay in files.

use super::error::{Error, ErrorKind};
use super::model::{FileRange, TensorData};
use alloc::string::String;
use alloc::vec::Vec;

/// One piece of a laid-out file, as the caller writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Piece<'p> {
    /// Bytes in memory: built by the writer, or a tensor's.
    Bytes(&'p [u8]),
    /// A tensor's bytes in a file the caller holds.
    File(FileRange),
}

impl Piece<'_> {
    /// The piece's length in bytes.
    pub fn length(&self) -> u64 {
        match self {
            Piece::Bytes(b) => u64::try_from(b.len()).unwrap_or(u64::MAX),
            Piece::File(r) => r.length,
        }
    }
}

/// What a layout holds before the built bytes at its end.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Held<'t> {
    /// Bytes the writer built.
    Built(Vec<u8>),
    /// A tensor's bytes in memory.
    Memory(&'t [u8]),
    /// A tensor's bytes in a file.
    File(FileRange),
}

/// A laid-out file: its pieces in file order, built bytes that meet joined, no empty
/// tensor piece.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Layout<'t> {
    /// The pieces before `tail`.
    held: Vec<Held<'t>>,
    /// The bytes built since the last tensor.
    tail: Vec<u8>,
}

impl<'t> Layout<'t> {
    /// The pieces in file order.
    pub fn pieces(&self) -> impl Iterator<Item = Piece<'_>> {
        let held = self.held.iter().map(|h| match h {
            Held::Built(b) => Piece::Bytes(b),
            Held::Memory(b) => Piece::Bytes(b),
            Held::File(r) => Piece::File(*r),
        });
        held.chain((!self.tail.is_empty()).then_some(Piece::Bytes(&self.tail)))
    }

    /// The file's length: the sum of its pieces' (saturating; a writer bounds it first).
    pub fn length(&self) -> u64 {
        self.pieces().fold(0u64, |n, p| n.saturating_add(p.length()))
    }

    /// True when nothing is laid out.
    pub fn is_empty(&self) -> bool {
        self.held.is_empty() && self.tail.is_empty()
    }

    /// The built bytes at the end of the file, for the writer to append to.
    pub(crate) fn bytes(&mut self) -> &mut Vec<u8> {
        &mut self.tail
    }

    /// Ends the built bytes before a tensor.
    fn hold_tail(&mut self) {
        if !self.tail.is_empty() {
            self.held.push(Held::Built(core::mem::take(&mut self.tail)));
        }
    }

    /// Appends a tensor's fixed-size bytes where they are (strings are the writer's to
    /// encode: nothing is appended for them).
    pub(crate) fn tensor(&mut self, data: &'t TensorData<'_>) {
        let held = match data {
            TensorData::Raw(b) if !b.is_empty() => Held::Memory(b),
            TensorData::File(r) if r.length > 0 => Held::File(*r),
            _ => return,
        };
        self.hold_tail();
        self.held.push(held);
    }

    /// Appends `other`'s pieces, joining built bytes that meet (the ONNX writer's messages).
    #[cfg(feature = "onnx")]
    pub(crate) fn append(&mut self, other: Layout<'t>) {
        for held in other.held {
            match held {
                Held::Built(b) => self.tail.extend_from_slice(&b),
                tensor => {
                    self.hold_tail();
                    self.held.push(tensor);
                }
            }
        }
        self.tail.extend_from_slice(&other.tail);
    }

    /// The file as one buffer, for a model whose tensors are all in memory: a tensor in a
    /// file is Unsupported at `model` (the caller must copy it, §4), and a buffer the system
    /// refuses is LimitExceeded at `model`, never an abort.
    pub fn into_vec(self) -> Result<Vec<u8>, Error> {
        let model = |kind, message| Error::at_path(kind, String::from("model"), None, message);
        if self.held.iter().any(|h| matches!(h, Held::File(_))) {
            return Err(model(
                ErrorKind::Unsupported,
                "tensor bytes kept in a file: write the layout's pieces instead",
            ));
        }
        if self.held.is_empty() {
            return Ok(self.tail);
        }
        let total =
            usize::try_from(self.length()).map_err(|_| model(ErrorKind::LimitExceeded, "file too large for memory"))?;
        let mut out = Vec::new();
        out.try_reserve_exact(total)
            .map_err(|_| model(ErrorKind::LimitExceeded, "file too large for memory"))?;
        for piece in self.pieces() {
            if let Piece::Bytes(b) = piece {
                out.extend_from_slice(b);
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::borrow::Cow;

    #[test]
    fn pieces_join_built_bytes_and_skip_empty_tensors() {
        let w = TensorData::Raw(Cow::Borrowed(&[9u8, 9]));
        let empty = TensorData::Raw(Cow::Borrowed(&[]));
        let range = FileRange {
            file: 3,
            offset: 100,
            length: 1 << 40,
        };
        let f = TensorData::File(range);
        let mut a = Layout::default();
        a.bytes().push(1);
        a.tensor(&empty);
        a.bytes().push(2);
        a.tensor(&w);
        let mut b = Layout::default();
        b.bytes().push(3);
        b.tensor(&f);
        b.bytes().push(4);
        a.append(b);
        let pieces: Vec<Piece<'_>> = a.pieces().collect();
        assert_eq!(
            pieces,
            [
                Piece::Bytes(&[1, 2]),
                Piece::Bytes(&[9, 9]),
                Piece::Bytes(&[3]),
                Piece::File(range),
                Piece::Bytes(&[4])
            ]
        );
        assert_eq!(a.length(), 6 + (1 << 40));
        let e = a.into_vec().unwrap_err();
        assert_eq!((e.kind, e.path.as_deref()), (ErrorKind::Unsupported, Some("model")));
        let mut c = Layout::default();
        c.bytes().push(1);
        c.tensor(&w);
        c.bytes().push(2);
        assert_eq!(c.into_vec().unwrap(), [1, 9, 9, 2]);
        assert!(Layout::default().is_empty());
        assert_eq!(Layout::default().into_vec().unwrap(), Vec::<u8>::new());
    }
}
