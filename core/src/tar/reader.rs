//! The push-style tar reader: one meaning per entry, bounded memory (`spec/mpk.md` §1).

use super::error::{TarError, TarReason};
use super::header::{self, BLOCK, Dialect, EntryKind, Header, TYPEFLAG_OFFSET, TypeFlag};
use super::pax::{self, PaxOverrides};
use crate::invariant;
use alloc::string::String;
use alloc::vec::Vec;

/// Reader limits (`spec/mpk.md` §1.2.1, §1.3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TarLimits {
    /// Largest PAX extended or global header data (default 64 KiB).
    pub max_meta_bytes: u64,
    /// Longest GNU long name or long link name, its NUL excluded (default 4096).
    pub max_path_bytes: u64,
}

impl TarLimits {
    /// The defaults of `spec/mpk.md` §1.2.1 and §1.3.1.
    pub const DEFAULT: TarLimits = TarLimits {
        max_meta_bytes: 64 * 1024,
        max_path_bytes: 4096,
    };
}

impl Default for TarLimits {
    fn default() -> Self {
        TarLimits::DEFAULT
    }
}

/// Where an entry's path came from (`spec/mpk.md` §1.1.5, §1.2.3, §1.3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathSource {
    /// The header's `name` (and ustar `prefix`).
    Header,
    /// A PAX `path` record.
    Pax,
    /// A GNU `L` entry.
    GnuLongName,
}

/// One entry with its single meaning (`spec/mpk.md` §1.1.7): path, link and size from
/// the PAX record when present, else from a GNU long name, else from the header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// What the entry is.
    pub kind: EntryKind,
    /// Raw path bytes; validate with [`crate::archive_path`] before use.
    pub path: Vec<u8>,
    /// Where `path` came from.
    pub path_source: PathSource,
    /// Raw link target (empty for non-links).
    pub link: Vec<u8>,
    /// Size of the data; exactly this many bytes follow as [`Event::Data`].
    pub size: u64,
    /// `mode` from the header.
    pub mode: u64,
    /// `uid` from the header.
    pub uid: u64,
    /// `gid` from the header.
    pub gid: u64,
    /// `mtime` from the header.
    pub mtime: u64,
    /// ustar or GNU header.
    pub dialect: Dialect,
    /// Offset of the entry's first header block (its first meta header, if any).
    pub header_offset: u64,
    /// Offset of the entry's first data byte.
    pub data_offset: u64,
}

/// What one [`TarReader::step`] produced.
#[derive(Debug, PartialEq, Eq)]
pub enum Event<'a> {
    /// A new entry; its data follows.
    Entry(Entry),
    /// A piece of the current entry's data, borrowed from the input.
    Data(&'a [u8]),
    /// The current entry's data is complete.
    EntryEnd,
    /// The end-of-archive marker was read; only zero bytes may follow (§1.4.2).
    End,
    /// Every given byte was consumed; pass more input or call [`TarReader::finish`].
    NeedInput,
}

/// A complete, valid tar stream (`spec/mpk.md` §1.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TarSummary {
    /// Entries delivered (meta entries excluded).
    pub entries: u64,
    /// Bytes of input, padding after the end marker included.
    pub input_len: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MetaKind {
    Pax,
    Global,
    LongName,
    LongLink,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Phase {
    /// Collecting a header block.
    Header,
    /// Collecting a meta entry's data into `meta_buf`.
    Meta {
        kind: MetaKind,
        remaining: u64,
        pad: u64,
        start: u64,
    },
    /// Delivering entry data.
    Data {
        remaining: u64,
        pad: u64,
    },
    /// Data complete; `EntryEnd` not yet returned.
    DataDone {
        pad: u64,
    },
    /// Skipping padding to the next block boundary.
    Padding {
        remaining: u64,
    },
    /// One zero block seen at `at`; collecting the next block.
    ZeroSeen {
        at: u64,
    },
    /// End marker read; `End` not yet returned.
    EndPending,
    /// After the end marker: zero bytes only.
    End,
    Failed(TarError),
}

/// Meta records waiting for their entry (§1.4.1).
#[derive(Clone, Debug, Default)]
struct Pending {
    start: Option<u64>,
    pax: Option<PaxOverrides>,
    long_name: Option<Vec<u8>>,
    long_link: Option<Vec<u8>>,
}

impl Pending {
    fn is_empty(&self) -> bool {
        self.start.is_none()
    }
}

/// Push-style tar reader (`spec/mpk.md` §1): feed it the stream in pieces of any size;
/// it returns entries and their data (borrowed from the input) with exactly one size,
/// path and link per entry. Memory is one header block plus at most one meta header.
#[derive(Debug)]
pub struct TarReader {
    limits: TarLimits,
    phase: Phase,
    block: [u8; BLOCK],
    filled: usize,
    offset: u64,
    pending: Pending,
    meta_buf: Vec<u8>,
    /// The raw name of the entry being read (at most [`ERROR_NAME_BYTES`]), kept in one
    /// reused buffer and rendered by [`lossy_name`] only when an error names it.
    current: Vec<u8>,
    /// Whether an entry is being read (`current` is its name).
    in_entry: bool,
    entries: u64,
    /// Offset of a global header not yet followed by an entry (§1.4.1).
    global_at: Option<u64>,
}

/// Longest entry name an error carries (bytes of lossy UTF-8).
const ERROR_NAME_BYTES: usize = 256;

fn to_u64(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

fn padding(size: u64) -> u64 {
    (BLOCK as u64 - size % BLOCK as u64) % BLOCK as u64
}

impl TarReader {
    /// A reader at the start of a tar stream.
    pub fn new(limits: TarLimits) -> Self {
        TarReader {
            limits,
            phase: Phase::Header,
            block: [0; BLOCK],
            filled: 0,
            offset: 0,
            pending: Pending::default(),
            meta_buf: Vec::new(),
            current: Vec::new(),
            in_entry: false,
            entries: 0,
            global_at: None,
        }
    }

    /// Absolute offset of the next byte the reader expects.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Consumes `input` (the bytes after everything fed before) until an event is
    /// ready. Returns how many bytes were consumed; pass the rest again. After an error
    /// every call returns it.
    pub fn step<'a>(&mut self, input: &'a [u8]) -> Result<(usize, Event<'a>), TarError> {
        if let Phase::Failed(e) = &self.phase {
            return Err(e.clone());
        }
        match self.step_inner(input) {
            Ok(r) => Ok(r),
            Err(mut e) => {
                if e.entry.is_none() {
                    e.entry = self.current_name();
                }
                self.phase = Phase::Failed(e.clone());
                Err(e)
            }
        }
    }

    /// Declares the end of input; checks that it came after the end marker (§1.4.3).
    pub fn finish(&mut self) -> Result<TarSummary, TarError> {
        let reason = match &self.phase {
            Phase::Failed(e) => return Err(e.clone()),
            Phase::End | Phase::EndPending => {
                return Ok(TarSummary {
                    entries: self.entries,
                    input_len: self.offset,
                });
            }
            Phase::Header if self.filled == 0 && (!self.pending.is_empty() || self.global_at.is_some()) => {
                TarReason::DanglingMeta
            }
            Phase::Header if self.filled == 0 => TarReason::MissingEnd,
            Phase::ZeroSeen { .. } if self.filled == 0 => TarReason::MissingEnd,
            _ => TarReason::Truncated,
        };
        let mut e = TarError::new(reason, self.offset);
        e.entry = self.current_name();
        self.phase = Phase::Failed(e.clone());
        Err(e)
    }

    /// The name of the entry being read, for an error ([`lossy_name`]).
    fn current_name(&self) -> Option<String> {
        self.in_entry.then(|| lossy_name(&self.current))
    }

    fn step_inner<'a>(&mut self, input: &'a [u8]) -> Result<(usize, Event<'a>), TarError> {
        let mut pos = 0usize;
        loop {
            let rest = invariant::sub(input, pos..);
            match self.phase.clone() {
                Phase::Data { remaining, pad } => {
                    if rest.is_empty() {
                        return Ok((pos, Event::NeedInput));
                    }
                    let n = usize::try_from(remaining).unwrap_or(usize::MAX).min(rest.len());
                    let chunk = invariant::sub(rest, ..n);
                    self.offset += to_u64(n);
                    let remaining = remaining - to_u64(n);
                    self.phase = if remaining == 0 {
                        Phase::DataDone { pad }
                    } else {
                        Phase::Data { remaining, pad }
                    };
                    return Ok((pos + n, Event::Data(chunk)));
                }
                Phase::DataDone { pad } => {
                    self.after_data(pad);
                    return Ok((pos, Event::EntryEnd));
                }
                Phase::EndPending => {
                    self.phase = Phase::End;
                    return Ok((pos, Event::End));
                }
                _ => {}
            }
            if rest.is_empty() {
                return Ok((pos, Event::NeedInput));
            }
            let (used, entry) = self.consume(rest)?;
            pos += used;
            if let Some(entry) = entry {
                return Ok((pos, Event::Entry(entry)));
            }
        }
    }

    /// Takes bytes outside entry data; returns how many, and an entry when a header
    /// completed one.
    fn consume(&mut self, rest: &[u8]) -> Result<(usize, Option<Entry>), TarError> {
        match self.phase.clone() {
            Phase::Header | Phase::ZeroSeen { .. } => self.fill_block(rest),
            Phase::Meta {
                kind,
                remaining,
                pad,
                start,
            } => self.meta_data(rest, kind, remaining, pad, start).map(|n| (n, None)),
            Phase::Padding { remaining } => {
                let n = usize::try_from(remaining).unwrap_or(usize::MAX).min(rest.len());
                self.offset += to_u64(n);
                let remaining = remaining - to_u64(n);
                if remaining == 0 {
                    self.phase = Phase::Header;
                    self.in_entry = false;
                } else {
                    self.phase = Phase::Padding { remaining };
                }
                Ok((n, None))
            }
            Phase::End => {
                // §1.4.2: only zero bytes after the end marker.
                if let Some(i) = rest.iter().position(|&b| b != 0) {
                    return Err(TarError::new(TarReason::TrailingData, self.offset + to_u64(i)));
                }
                self.offset += to_u64(rest.len());
                Ok((rest.len(), None))
            }
            Phase::Data { .. } | Phase::DataDone { .. } | Phase::EndPending | Phase::Failed(_) => Ok((0, None)),
        }
    }

    fn fill_block(&mut self, rest: &[u8]) -> Result<(usize, Option<Entry>), TarError> {
        let want = BLOCK - self.filled;
        let n = want.min(rest.len());
        if let (Some(dst), Some(src)) = (self.block.get_mut(self.filled..self.filled + n), rest.get(..n)) {
            dst.copy_from_slice(src);
        }
        self.filled += n;
        self.offset += to_u64(n);
        if self.filled < BLOCK {
            return Ok((n, None));
        }
        self.filled = 0;
        let block_start = self.offset - BLOCK as u64;
        Ok((n, self.block_done(block_start)?))
    }

    /// A whole block arrived at `at` (§1.4.2 zero blocks, else a header).
    fn block_done(&mut self, at: u64) -> Result<Option<Entry>, TarError> {
        let zero = header::is_zero_block(&self.block);
        match (self.phase.clone(), zero) {
            (Phase::ZeroSeen { .. }, true) => {
                self.phase = Phase::EndPending;
                Ok(None)
            }
            // §1.4.2: a lone zero block inside the archive.
            (Phase::ZeroSeen { at: zero_at }, false) => Err(TarError::new(TarReason::LoneZeroBlock, zero_at)),
            (_, true) => {
                if let Some(start) = self.pending.start.or(self.global_at) {
                    // §1.4.1: meta entry (or global header) followed by the end marker.
                    return Err(TarError::new(TarReason::DanglingMeta, start));
                }
                self.phase = Phase::ZeroSeen { at };
                Ok(None)
            }
            (_, false) => self.header(at),
        }
    }

    fn header(&mut self, at: u64) -> Result<Option<Entry>, TarError> {
        let block = self.block;
        let h = header::parse(&block).map_err(|(r, off)| TarError::new(r, at + to_u64(off)))?;
        match h.flag {
            // §1.1.6: GNU sparse entries are rejected.
            TypeFlag::Sparse => Err(TarError::new(TarReason::Sparse, at + to_u64(TYPEFLAG_OFFSET))),
            TypeFlag::SolarisExtended => Err(TarError::new(TarReason::SolarisExtended, at + to_u64(TYPEFLAG_OFFSET))),
            TypeFlag::Pax => self.begin_meta(MetaKind::Pax, &h, at).map(|()| None),
            TypeFlag::PaxGlobal => self.begin_meta(MetaKind::Global, &h, at).map(|()| None),
            TypeFlag::LongName => self.begin_meta(MetaKind::LongName, &h, at).map(|()| None),
            TypeFlag::LongLink => self.begin_meta(MetaKind::LongLink, &h, at).map(|()| None),
            TypeFlag::Entry(kind) => self.entry(kind, &h, at).map(Some),
        }
    }

    fn begin_meta(&mut self, kind: MetaKind, h: &Header<'_>, at: u64) -> Result<(), TarError> {
        let duplicate = match kind {
            MetaKind::Pax => self.pending.pax.is_some(),
            MetaKind::LongName => self.pending.long_name.is_some(),
            MetaKind::LongLink => self.pending.long_link.is_some(),
            // §1.4.1: a global header between a meta entry and its entry.
            MetaKind::Global if !self.pending.is_empty() => {
                return Err(TarError::new(
                    TarReason::DanglingMeta,
                    invariant::some_or(self.pending.start, at),
                ));
            }
            MetaKind::Global => false,
        };
        if duplicate {
            // §1.4.1: two meta entries of one type before one entry.
            return Err(TarError::new(TarReason::DuplicateMeta, at));
        }
        if self.pending.pax.is_some() {
            // §1.4.1: a PAX header is the last meta entry before its entry, so its size
            // cannot be read as applying to a long-name entry.
            return Err(TarError::new(TarReason::MetaAfterPax, at));
        }
        let limit = match kind {
            MetaKind::Pax | MetaKind::Global => self.limits.max_meta_bytes,
            MetaKind::LongName | MetaKind::LongLink => self.limits.max_path_bytes.saturating_add(1),
        };
        if h.size > limit {
            // §1.2.1, §1.3.1: checked before anything is buffered.
            return Err(TarError::new(TarReason::MetaTooLarge, at + 124));
        }
        self.meta_buf.clear();
        self.meta_buf
            .try_reserve_exact(usize::try_from(h.size).unwrap_or(usize::MAX))
            .map_err(|_| TarError::new(TarReason::MetaTooLarge, at + 124))?;
        if kind == MetaKind::Global {
            self.global_at = Some(at);
        } else if self.pending.start.is_none() {
            self.pending.start = Some(at);
        }
        self.phase = Phase::Meta {
            kind,
            remaining: h.size,
            pad: padding(h.size),
            start: at + BLOCK as u64,
        };
        Ok(())
    }

    fn meta_data(
        &mut self,
        rest: &[u8],
        kind: MetaKind,
        remaining: u64,
        pad: u64,
        start: u64,
    ) -> Result<usize, TarError> {
        let n = usize::try_from(remaining).unwrap_or(usize::MAX).min(rest.len());
        self.meta_buf.extend_from_slice(invariant::sub(rest, ..n));
        self.offset += to_u64(n);
        let remaining = remaining - to_u64(n);
        if remaining > 0 {
            self.phase = Phase::Meta {
                kind,
                remaining,
                pad,
                start,
            };
            return Ok(n);
        }
        let data = core::mem::take(&mut self.meta_buf);
        let at = |off: usize| start + to_u64(off);
        match kind {
            MetaKind::Pax => {
                let o = pax::parse_extended(&data).map_err(|(r, off)| TarError::new(r, at(off)))?;
                self.pending.pax = Some(o);
            }
            MetaKind::Global => pax::parse_global(&data).map_err(|(r, off)| TarError::new(r, at(off)))?,
            MetaKind::LongName => self.pending.long_name = Some(long_name(data, start)?),
            MetaKind::LongLink => self.pending.long_link = Some(long_name(data, start)?),
        }
        self.after_data(pad);
        Ok(n)
    }

    /// Data (or meta data) complete: skip `pad` bytes of padding, or expect the next
    /// header right away, so that input ending here is `MissingEnd`, not `Truncated`.
    fn after_data(&mut self, pad: u64) {
        if pad == 0 {
            self.phase = Phase::Header;
            self.in_entry = false;
        } else {
            self.phase = Phase::Padding { remaining: pad };
        }
    }

    /// Composes the entry's one meaning (§1.1.7, §1.4.1).
    fn entry(&mut self, kind: EntryKind, h: &Header<'_>, at: u64) -> Result<Entry, TarError> {
        let pending = core::mem::take(&mut self.pending);
        self.global_at = None;
        let pax = pending.pax.unwrap_or_default();
        let (path, path_source) = match (pax.path, pending.long_name) {
            (Some(_), Some(_)) => {
                return Err(TarError::new(
                    TarReason::ConflictingMeta,
                    invariant::some_or(pending.start, at),
                ));
            }
            (Some(p), None) => (p, PathSource::Pax),
            (None, Some(p)) => (p, PathSource::GnuLongName),
            (None, None) => (header_path(h), PathSource::Header),
        };
        let link = match (pax.linkpath, pending.long_link) {
            (Some(_), Some(_)) => {
                return Err(TarError::new(
                    TarReason::ConflictingMeta,
                    invariant::some_or(pending.start, at),
                ));
            }
            (Some(l), None) | (None, Some(l)) => l,
            (None, None) => Vec::from(h.linkname),
        };
        let size = pax.size.unwrap_or(h.size);
        self.current.clear();
        self.current
            .extend_from_slice(path.get(..ERROR_NAME_BYTES).unwrap_or(&path));
        self.in_entry = true;
        if kind.must_be_empty() && size != 0 {
            // §1.1.7: data other readers would skip.
            return Err(TarError::new(TarReason::SizeOnNonFile, at + 124));
        }
        // §1.1.6: a regular file named like a folder is a directory to GNU tar (its final
        // path) and to Python's tarfile (a NUL typeflag and the header's own name), which
        // then read its data as headers.
        let v7_folder = h.typeflag == 0 && h.name.ends_with(b"/");
        if kind == EntryKind::Regular && (v7_folder || path.ends_with(b"/")) {
            return Err(TarError::new(TarReason::FileNamedAsFolder, at));
        }
        self.entries += 1;
        self.phase = Phase::Data {
            remaining: size,
            pad: padding(size),
        };
        if size == 0 {
            self.phase = Phase::DataDone { pad: 0 };
        }
        Ok(Entry {
            kind,
            path,
            path_source,
            link,
            size,
            mode: h.mode,
            uid: h.uid,
            gid: h.gid,
            mtime: h.mtime,
            dialect: h.dialect,
            header_offset: pending.start.unwrap_or(at),
            data_offset: at + BLOCK as u64,
        })
    }
}

/// The ustar path: `prefix/name` when `prefix` is set (§1.1.5).
fn header_path(h: &Header<'_>) -> Vec<u8> {
    let mut p = Vec::with_capacity(h.prefix.len() + 1 + h.name.len());
    if !h.prefix.is_empty() {
        p.extend_from_slice(h.prefix);
        p.push(b'/');
    }
    p.extend_from_slice(h.name);
    p
}

/// §1.3.1: the name up to a NUL followed only by NULs (or the end); non-empty.
fn long_name(mut data: Vec<u8>, start: u64) -> Result<Vec<u8>, TarError> {
    let end = data.iter().position(|&b| b == 0).unwrap_or(data.len());
    if let Some(i) = invariant::sub(&data, end..).iter().position(|&b| b != 0) {
        return Err(TarError::new(TarReason::LongNameHiddenBytes, start + to_u64(end + i)));
    }
    if end == 0 {
        return Err(TarError::new(TarReason::BadLongName, start));
    }
    data.truncate(end);
    Ok(data)
}

/// An entry name for error messages: lossy UTF-8 of at most `ERROR_NAME_BYTES` (256) bytes, control
/// characters escaped (`\n`, `\u{0}`), so a hostile name cannot inject lines into output.
pub(crate) fn lossy_name(path: &[u8]) -> String {
    let cut = path.get(..ERROR_NAME_BYTES).unwrap_or(path);
    let text = String::from_utf8_lossy(cut);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// Reads a whole tar stream held in memory (`spec/mpk.md` §1): yields each entry with
/// its data as one slice of `tar`, then checks the end of the stream.
pub fn entries(tar: &[u8], limits: TarLimits) -> Entries<'_> {
    Entries {
        tar,
        pos: 0,
        reader: TarReader::new(limits),
        current: None,
        done: false,
    }
}

/// Iterator returned by [`entries`].
#[derive(Debug)]
pub struct Entries<'a> {
    tar: &'a [u8],
    pos: usize,
    reader: TarReader,
    current: Option<Entry>,
    done: bool,
}

impl<'a> Entries<'a> {
    fn next_inner(&mut self) -> Result<Option<(Entry, &'a [u8])>, TarError> {
        loop {
            let rest = invariant::sub(self.tar, self.pos..);
            let (used, event) = self.reader.step(rest)?;
            self.pos += used;
            match event {
                Event::Entry(e) => self.current = Some(e),
                Event::Data(_) | Event::End => {}
                Event::EntryEnd => {
                    if let Some(e) = self.current.take() {
                        let start = usize::try_from(e.data_offset).unwrap_or(usize::MAX);
                        let data = invariant::sub(self.tar, start..self.pos);
                        return Ok(Some((e, data)));
                    }
                }
                Event::NeedInput => {
                    self.reader.finish()?;
                    return Ok(None);
                }
            }
        }
    }
}

impl<'a> Iterator for Entries<'a> {
    type Item = Result<(Entry, &'a [u8]), TarError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let r = self.next_inner();
        if !matches!(r, Ok(Some(_))) {
            self.done = true;
        }
        r.transpose()
    }
}
