//! OneModel and ONNX files on disk (`spec/onemodel.md` §4–§6): loading (memory-mapped at
//! 1 MiB, [`crate::mmap`]), ONNX external data resolved inside the model's folder, and the
//! conversions behind `modelgate onemodel convert` and `to-onnx`, published atomically.

use crate::beneath::Beneath;
use crate::mmap::{self, FileBytes};
use crate::publish::publish_with;
use modelgate_core::archive_path::{PathLimits, normalize};
use modelgate_core::onemodel::{self, ErrorKind, Limits};
use modelgate_core::onnx::{self, ExternalError, ExternalRef};
use modelgate_core::{Location, Rejection};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;

/// Largest model file loaded (header fields are at most 2^63 − 1).
pub const FILE_LIMIT: u64 = i64::MAX as u64;

/// Why a conversion or load failed.
#[derive(Debug)]
pub enum Failure {
    /// The input was read and rejected.
    Rejected(Rejection),
    /// A file could not be read or written.
    Io(io::Error),
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Self {
        Failure::Io(e)
    }
}

fn rejected(e: onemodel::Error) -> Failure {
    Failure::Rejected(e.rejection())
}

/// The limits every OneModel read here runs under: the defaults, with this process's random
/// duplicate-table key ([`crate::hash_key`], `spec/json.md` §5).
pub(crate) fn limits() -> Limits {
    Limits {
        hash_key: crate::hash_key(),
        ..Limits::DEFAULT
    }
}

/// Loads a file: mapped when at least 1 MiB, read otherwise (§5).
pub fn load(path: &Path) -> Result<FileBytes, Failure> {
    mmap::load(path, FILE_LIMIT).map_err(|e| match e.kind() {
        io::ErrorKind::InvalidData => Failure::Rejected(Rejection {
            kind: ErrorKind::LimitExceeded.name(),
            message: e.to_string(),
            location: Location::NONE,
        }),
        _ => Failure::Io(e),
    })
}

/// Checks the OneModel file at `path` as `modelgate check` does (`spec/onemodel.md` §5):
/// only its header, manifest and padding are looked at, its data region counted
/// ([`onemodel::check_head`]), so the verdict is [`onemodel::read`]'s while no tensor
/// byte is read. The header's checks 1–10 (§1.1) run on its first 64 bytes before more is
/// read. A head under 1 MiB is then read; a larger one is mapped with the file, as §5 loads
/// files, so that a manifest that fails early is rejected without being read whole. A file
/// that shrinks while it is read is an I/O error.
pub fn check_file(path: &Path) -> Result<(), Failure> {
    let (file, meta) = crate::read::open_regular_file(path)?;
    let len = meta.len();
    let mut head = Vec::new();
    read_until(&file, &mut head, len.min(onemodel::header::HEADER_LEN))?;
    let need = onemodel::head_length(&head, len, limits()).map_err(rejected)?;
    let check = |head: &[u8]| onemodel::check_head(head, len, limits()).map_err(rejected);
    if need < mmap::MAP_THRESHOLD {
        read_until(&file, &mut head, need)?;
        return check(&head);
    }
    let map = mmap::map(&file)?;
    check(
        usize::try_from(need)
            .ok()
            .and_then(|n| map.get(..n))
            .ok_or_else(shrank)?,
    )
}

/// The error of a file that ended before bytes its length promised.
fn shrank() -> io::Error {
    io::Error::new(io::ErrorKind::UnexpectedEof, "the file shrank while it was read")
}

/// Reads `file` on until `head` holds `n` bytes.
fn read_until(file: &std::fs::File, head: &mut Vec<u8>, n: u64) -> io::Result<()> {
    let more = n.saturating_sub(u64::try_from(head.len()).unwrap_or(u64::MAX));
    head.try_reserve_exact(usize::try_from(more).map_err(|_| io::Error::other("head larger than memory"))?)?;
    file.take(more).read_to_end(head)?;
    if u64::try_from(head.len()).unwrap_or(u64::MAX) < n {
        return Err(shrank());
    }
    Ok(())
}

/// What a conversion reports progress about: bytes of external data copied (their total is
/// not known in advance) and bytes of the output file written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// External tensor bytes read into the model (§6.2); `total` is 0 (not known).
    External,
    /// Output bytes written; `total` is the output's size.
    Write,
}

/// A progress callback: phase, bytes done so far, bytes in total (0 when not known).
pub type ConvertProgress<'p> = dyn FnMut(Phase, u64, u64) + 'p;

/// Bytes copied between two progress reports.
pub const PROGRESS_CHUNK: usize = 4 << 20;

/// Reads and checks the ONNX file at `path`, external tensors copied from the model's
/// folder (§6.2), names resolved (§3.1), and passes the model to `use_model`. Decoding runs
/// on the caller's stack: it needs a fixed amount however deep the model nests (§3.3).
pub fn with_onnx<T>(path: &Path, use_model: impl FnOnce(&onemodel::Model<'_>) -> T) -> Result<T, Failure> {
    with_onnx_progress(path, &mut |_, _, _| {}, use_model)
}

fn with_onnx_progress<T>(
    path: &Path,
    progress: &mut ConvertProgress<'_>,
    use_model: impl FnOnce(&onemodel::Model<'_>) -> T,
) -> Result<T, Failure> {
    let bytes = load(path)?;
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let mut copied = 0u64;
    let mut budget = ExternalBudget::default();
    // The model's folder, opened at the first external tensor and held for the others.
    let mut folder: Option<Beneath> = None;
    let mut resolver = |r: &ExternalRef<'_>| {
        if folder.is_none() {
            let open = Beneath::open(dir).map_err(|_| ext_err(ErrorKind::Malformed, "model folder not readable"))?;
            folder = Some(open);
        }
        let folder = folder
            .as_ref()
            .ok_or_else(|| ext_err(ErrorKind::Malformed, "model folder not readable"))?;
        read_external(folder, r, &mut budget, &mut |n| {
            copied = copied.saturating_add(n);
            progress(Phase::External, copied, 0);
        })
    };
    let mut model = onnx::read_model_with(&bytes, onemodel::Limits::DEFAULT, &mut resolver).map_err(rejected)?;
    onemodel::names::resolve(&mut model).map_err(rejected)?;
    Ok(use_model(&model))
}

/// Converts the ONNX file `input` to the OneModel file `output` (§4), publishing atomically.
pub fn convert(input: &Path, output: &Path, overwrite: bool) -> Result<(), Failure> {
    convert_with(input, output, overwrite, &mut |_, _, _| {})
}

/// [`convert`], reporting the external data copied and the output written to `progress`
/// every [`PROGRESS_CHUNK`] bytes.
pub fn convert_with(
    input: &Path,
    output: &Path,
    overwrite: bool,
    progress: &mut ConvertProgress<'_>,
) -> Result<(), Failure> {
    let bytes = with_onnx_progress(input, progress, |m| onemodel::write(m, Limits::DEFAULT))?.map_err(rejected)?;
    publish_progress(output, &bytes, overwrite, progress)
}

/// Converts the OneModel file `input` back to ONNX protobuf at `output` (§6.3).
pub fn to_onnx(input: &Path, output: &Path, overwrite: bool) -> Result<(), Failure> {
    to_onnx_with(input, output, overwrite, &mut |_, _, _| {})
}

/// [`to_onnx`], reporting the output written to `progress` every [`PROGRESS_CHUNK`] bytes.
pub fn to_onnx_with(
    input: &Path,
    output: &Path,
    overwrite: bool,
    progress: &mut ConvertProgress<'_>,
) -> Result<(), Failure> {
    let bytes = load(input)?;
    let model = onemodel::read(&bytes, limits()).map_err(rejected)?;
    let proto = onnx::write_model(&model).map_err(rejected)?;
    publish_progress(output, &proto, overwrite, progress)
}

/// Publishes `bytes` atomically, written in chunks with a progress report after each.
fn publish_progress(
    output: &Path,
    bytes: &[u8],
    overwrite: bool,
    progress: &mut ConvertProgress<'_>,
) -> Result<(), Failure> {
    let total = bytes.len() as u64;
    publish_with(output, overwrite, |f| {
        let mut done = 0u64;
        progress(Phase::Write, 0, total);
        for chunk in bytes.chunks(PROGRESS_CHUNK) {
            f.write_all(chunk)?;
            done += chunk.len() as u64;
            progress(Phase::Write, done, total);
        }
        Ok(())
    })?;
    Ok(())
}

fn ext_err(kind: ErrorKind, message: &'static str) -> ExternalError {
    (kind, message)
}

/// What one conversion has copied from external data files (§6.2): every tensor's bytes are
/// copied on their own, so tensors naming the same range would each cost a copy. The
/// copies may add up to at most the sizes of the distinct files they come from, which
/// tensors in disjoint ranges never exceed; more is LimitExceeded before the copy is made.
#[derive(Debug, Default)]
struct ExternalBudget {
    /// The size of each file read, by its location (normalised, relative to the folder).
    files: std::collections::BTreeMap<String, u64>,
    /// The sum of `files`.
    held: u64,
    /// Bytes copied so far.
    copied: u64,
}

impl ExternalBudget {
    /// Charges a copy of `length` bytes from the file at `location` of `size` bytes.
    fn charge(&mut self, location: &str, size: u64, length: u64) -> Result<(), ExternalError> {
        if !self.files.contains_key(location) {
            self.files.insert(String::from(location), size);
            self.held = self.held.saturating_add(size);
        }
        self.copied = self.copied.saturating_add(length);
        if self.copied > self.held {
            return Err(ext_err(
                ErrorKind::LimitExceeded,
                "external data named more than once adds up to more than its files hold",
            ));
        }
        Ok(())
    }
}

/// The bytes of one external tensor: `location` must be a relative path without `..` or
/// look-alikes (`archive_path::normalize`), every component under `folder` a real directory
/// or file (no symbolic link: each is opened beneath the folder held open, without following
/// one, [`Beneath::open_file`], so a folder swapped for a link meanwhile is refused too), the
/// file not hard-linked elsewhere (link count 1 on Unix), and `offset`/`length` inside the
/// file and equal to dtype × dims (§6.2); the copy must fit the conversion's `budget`, and its
/// buffer must be granted (LimitExceeded otherwise). `copied` is told the size of each chunk
/// read.
fn read_external(
    folder: &Beneath,
    r: &ExternalRef<'_>,
    budget: &mut ExternalBudget,
    copied: &mut dyn FnMut(u64),
) -> Result<Vec<u8>, ExternalError> {
    let rel = normalize(r.location.as_bytes(), &PathLimits::DEFAULT).map_err(|e| {
        let message = if e.reason.is_traversal() {
            "external data location escapes the model's folder"
        } else {
            // Over the limits of `spec/mpk.md` §2.6, a control character, a trailing dot.
            "external data location is not a valid relative path"
        };
        ext_err(ErrorKind::Malformed, message)
    })?;
    let mut file = folder.open_file(&rel).map_err(|e| {
        let message = match e.kind() {
            io::ErrorKind::NotFound => "external data file not found",
            io::ErrorKind::InvalidInput => "external data location is a link or not a regular file",
            _ => "external data file not readable",
        };
        ext_err(ErrorKind::Malformed, message)
    })?;
    let meta = file
        .metadata()
        .map_err(|_| ext_err(ErrorKind::Malformed, "external data file not readable"))?;
    no_second_name(&meta)?;
    let size = meta.len();
    let length = r.length.unwrap_or(size.saturating_sub(r.offset));
    match r.offset.checked_add(length) {
        Some(end) if end <= size => {}
        _ => return Err(ext_err(ErrorKind::OutOfRange, "external data range outside its file")),
    }
    if length != r.expected {
        return Err(ext_err(
            ErrorKind::OutOfRange,
            "external data length differs from dtype and dims",
        ));
    }
    budget.charge(&rel, size, length)?;
    let too_large = || ext_err(ErrorKind::LimitExceeded, "external data too large for memory");
    let len = usize::try_from(length).map_err(|_| too_large())?;
    let mut out = Vec::new();
    out.try_reserve_exact(len).map_err(|_| too_large())?;
    out.resize(len, 0);
    let short = |_| ext_err(ErrorKind::OutOfRange, "external data file shorter than stated");
    file.seek(SeekFrom::Start(r.offset)).map_err(short)?;
    for chunk in out.chunks_mut(PROGRESS_CHUNK) {
        file.read_exact(chunk).map_err(short)?;
        copied(chunk.len() as u64);
    }
    Ok(out)
}

/// The opened file has no second name (Unix) that could lie outside the folder.
#[cfg(unix)]
fn no_second_name(opened: &std::fs::Metadata) -> Result<(), ExternalError> {
    use std::os::unix::fs::MetadataExt;
    if opened.nlink() != 1 {
        return Err(ext_err(ErrorKind::Malformed, "external data file is hard-linked"));
    }
    Ok(())
}

#[cfg(not(unix))]
fn no_second_name(_opened: &std::fs::Metadata) -> Result<(), ExternalError> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// A fresh folder, removed with its contents when the test ends (pass or panic).
    fn dir(name: &str) -> crate::temp::TempDir {
        crate::temp::TempDir::create(&std::env::temp_dir(), "modelgate-ext", name).unwrap()
    }

    fn read_ext(folder: &Path, r: &ExternalRef<'_>) -> Result<Vec<u8>, ExternalError> {
        read_external(
            &Beneath::open(folder).unwrap(),
            r,
            &mut ExternalBudget::default(),
            &mut |_| {},
        )
    }

    fn r(location: &str, offset: u64, length: Option<u64>, expected: u64) -> ExternalRef<'_> {
        ExternalRef {
            location,
            offset,
            length,
            expected,
        }
    }

    /// `modelgate check`'s read of a file's header and manifest gives every corpus file the
    /// verdict of the read of the whole file (`spec/onemodel.md` §5).
    #[test]
    fn the_check_of_each_corpus_file_is_the_whole_read() {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../hostile-corpus/onemodel");
        let mut n = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "onemodel") {
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            let whole = onemodel::read(&bytes, limits()).map(drop);
            match (check_file(&path), whole) {
                (Ok(()), Ok(())) => {}
                (Err(Failure::Rejected(a)), Err(b)) => assert_eq!(a, b.rejection(), "{}", path.display()),
                (a, b) => panic!("{}: check {a:?}, whole read {b:?}", path.display()),
            }
            n += 1;
        }
        assert!(n > 100);
    }

    /// A manifest of 1 MiB or more is checked through a map of the file: a valid one, one that
    /// fails at its first byte and one that fails at its last give the whole read's verdicts.
    #[test]
    fn a_manifest_of_a_mebibyte_or_more_is_checked_through_a_map() {
        use modelgate_core::onemodel::writer::assemble;
        let tmp = dir("big-manifest");
        let doc = "d".repeat(1 << 20);
        let valid = format!(r#"{{"ir_version":8,"doc":"{doc}","graph":{{"name":"g"}}}}"#);
        let cases = [
            valid.clone(),
            format!("x{}", &valid[1..]),
            format!("{}]", &valid[..valid.len() - 1]),
        ];
        for (i, manifest) in cases.iter().enumerate() {
            let bytes = assemble(manifest.as_bytes(), &[0u8; 64]);
            assert!(bytes.len() as u64 > mmap::MAP_THRESHOLD);
            let path = tmp.path().join(format!("{i}.onemodel"));
            std::fs::write(&path, &bytes).unwrap();
            let whole = onemodel::read(&bytes, limits()).map(drop);
            assert_eq!(whole.is_ok(), i == 0, "case {i}");
            match (check_file(&path), whole) {
                (Ok(()), Ok(())) => {}
                (Err(Failure::Rejected(a)), Err(b)) => assert_eq!(a, b.rejection(), "case {i}"),
                (a, b) => panic!("case {i}: check {a:?}, whole read {b:?}"),
            }
        }
    }

    /// A file shorter than its length said when it was opened is an I/O error, never a
    /// verdict on bytes that were not read.
    #[test]
    fn a_head_cut_short_is_an_io_error() {
        let tmp = dir("short");
        let path = tmp.path().join("m.onemodel");
        std::fs::write(&path, [7u8; 10]).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        let mut head = Vec::new();
        read_until(&file, &mut head, 6).unwrap();
        assert_eq!(head, [7u8; 6]);
        let e = read_until(&file, &mut head, 20).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
        assert_eq!(head.len(), 10);
    }

    #[test]
    fn external_data_inside_folder_read() {
        let tmp = dir("ok");
        let d = tmp.path();
        std::fs::write(d.join("w.bin"), (0u8..32).collect::<Vec<_>>()).unwrap();
        assert_eq!(read_ext(d, &r("w.bin", 8, Some(4), 4)).unwrap(), [8, 9, 10, 11]);
        assert_eq!(read_ext(d, &r("w.bin", 28, None, 4)).unwrap(), [28, 29, 30, 31]);
        assert_eq!(
            read_ext(d, &r("w.bin", 30, Some(4), 4)).unwrap_err().0,
            ErrorKind::OutOfRange
        );
        assert_eq!(
            read_ext(d, &r("w.bin", 0, Some(4), 8)).unwrap_err().0,
            ErrorKind::OutOfRange
        );
    }

    #[test]
    fn external_data_escapes_rejected() {
        let tmp = dir("escape");
        let d = tmp.path();
        let inner = d.join("m");
        std::fs::create_dir_all(&inner).unwrap();
        std::fs::write(d.join("secret.bin"), [1u8; 4]).unwrap();
        for loc in ["../secret.bin", "/etc/passwd", "a/../../secret.bin", "C:/x"] {
            assert_eq!(
                read_ext(&inner, &r(loc, 0, None, 4)).unwrap_err().0,
                ErrorKind::Malformed,
                "{loc}"
            );
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(d.join("secret.bin"), inner.join("link.bin")).unwrap();
            assert_eq!(
                read_ext(&inner, &r("link.bin", 0, None, 4)).unwrap_err().0,
                ErrorKind::Malformed
            );
            std::fs::hard_link(d.join("secret.bin"), inner.join("hard.bin")).unwrap();
            assert_eq!(
                read_ext(&inner, &r("hard.bin", 0, None, 4)).unwrap_err().0,
                ErrorKind::Malformed
            );
            // A folder on the way that is a link, also one swapped in after the model's
            // folder was opened for an earlier tensor.
            std::fs::create_dir_all(d.join("out")).unwrap();
            std::fs::write(d.join("out/w.bin"), [1u8; 4]).unwrap();
            std::os::unix::fs::symlink(d.join("out"), inner.join("sub")).unwrap();
            let e = read_ext(&inner, &r("sub/w.bin", 0, None, 4)).unwrap_err();
            assert_eq!(
                (e.0, e.1),
                (
                    ErrorKind::Malformed,
                    "external data location is a link or not a regular file"
                )
            );
            std::fs::remove_file(inner.join("sub")).unwrap();
            std::fs::create_dir_all(inner.join("sub")).unwrap();
            std::fs::write(inner.join("sub/w.bin"), [2u8; 4]).unwrap();
            let folder = Beneath::open(&inner).unwrap();
            let mut budget = ExternalBudget::default();
            let read = read_external(&folder, &r("sub/w.bin", 0, None, 4), &mut budget, &mut |_| {});
            assert_eq!(read.unwrap(), [2u8; 4]);
            std::fs::rename(inner.join("sub"), inner.join("sub-moved")).unwrap();
            std::os::unix::fs::symlink(d.join("out"), inner.join("sub")).unwrap();
            let e = read_external(&folder, &r("sub/w.bin", 0, None, 4), &mut budget, &mut |_| {}).unwrap_err();
            assert_eq!(e.0, ErrorKind::Malformed);
        }
    }

    /// ONNX with one float tensor of `n` elements kept in `w.bin` beside the model.
    fn onnx_with_external(d: &Path, n: usize) -> PathBuf {
        onnx_with_external_tensors(d, n, &["w"])
    }

    /// ONNX with one float tensor of `n` elements per name, each naming all of `w.bin`.
    fn onnx_with_external_tensors(d: &Path, n: usize, names: &[&str]) -> PathBuf {
        use modelgate_core::onnx::wire::{put_key, put_len, put_varint};
        let len = |number: u32, bytes: &[u8]| {
            let mut v = Vec::new();
            put_len(&mut v, number, bytes);
            v
        };
        let int = |number: u32, value: u64| {
            let mut v = Vec::new();
            put_key(&mut v, number, 0);
            put_varint(&mut v, value);
            v
        };
        std::fs::write(d.join("w.bin"), vec![7u8; n * 4]).unwrap();
        let entry = [len(1, b"location"), len(2, b"w.bin")].concat();
        let tensor = |name: &str| {
            [
                int(1, n as u64),
                int(2, 1),
                len(8, name.as_bytes()),
                len(13, &entry),
                int(14, 1),
            ]
            .concat()
        };
        let mut graph: Vec<u8> = names.iter().flat_map(|name| len(5, &tensor(name))).collect();
        graph.extend(len(12, &len(1, b"w")));
        let model = [int(1, 9), len(7, &graph), len(8, &int(2, 17))].concat();
        let path = d.join("m.onnx");
        std::fs::write(&path, model).unwrap();
        path
    }

    /// §6.2: copies of external data may add up to the sizes of the files they come from, no
    /// more: ranges of one file each copied once pass, a range named twice is LimitExceeded
    /// before its copy is made.
    #[test]
    fn external_data_copied_beyond_its_files_is_limit_exceeded() {
        let tmp = dir("budget");
        let d = tmp.path();
        std::fs::write(d.join("w.bin"), [1u8; 32]).unwrap();
        let mut budget = ExternalBudget::default();
        let folder = Beneath::open(d).unwrap();
        for offset in [0, 16] {
            read_external(&folder, &r("w.bin", offset, Some(16), 16), &mut budget, &mut |_| {}).unwrap();
        }
        let e = read_external(&folder, &r("w.bin", 0, Some(16), 16), &mut budget, &mut |_| {}).unwrap_err();
        assert_eq!(e.0, ErrorKind::LimitExceeded);
        // Through a conversion: two tensors naming all of one file.
        let input = onnx_with_external_tensors(d, 8, &["w", "v"]);
        match convert(&input, &d.join("m.onemodel"), false) {
            Err(Failure::Rejected(r)) => assert_eq!(r.kind, "LimitExceeded"),
            other => panic!("{other:?}"),
        }
        let input = onnx_with_external_tensors(d, 8, &["w"]);
        convert(&input, &d.join("one.onemodel"), false).unwrap();
    }

    #[test]
    fn convert_progress_totals_match_the_copied_and_written_bytes() {
        let tmp = dir("progress");
        let d = tmp.path();
        let n = PROGRESS_CHUNK / 4 * 2 + 5;
        let input = onnx_with_external(d, n);
        let (out, back) = (d.join("m.onemodel"), d.join("back.onnx"));
        let mut calls = Vec::new();
        convert_with(&input, &out, false, &mut |p, done, total| calls.push((p, done, total))).unwrap();
        let external: Vec<_> = calls.iter().filter(|c| c.0 == Phase::External).collect();
        assert_eq!(
            external.iter().map(|c| c.1).collect::<Vec<_>>(),
            [PROGRESS_CHUNK as u64, 2 * PROGRESS_CHUNK as u64, n as u64 * 4]
        );
        let size = std::fs::metadata(&out).unwrap().len();
        let writes: Vec<_> = calls.iter().filter(|c| c.0 == Phase::Write).collect();
        assert!(writes.iter().all(|c| c.2 == size && c.1 <= size));
        assert_eq!(writes.first().map(|c| c.1), Some(0));
        assert_eq!(writes.last().map(|c| c.1), Some(size));
        assert!(writes.windows(2).all(|w| w[0].1 < w[1].1));
        let mut last = None;
        to_onnx_with(&out, &back, false, &mut |p, done, total| last = Some((p, done, total))).unwrap();
        let size = std::fs::metadata(&back).unwrap().len();
        assert_eq!(last, Some((Phase::Write, size, size)));
    }
}
