//! OneModel and ONNX files on disk (`spec/onemodel.md` §4–§6): loading (memory-mapped at
//! 1 MiB, [`crate::mmap`]), the read of a OneModel file from its header and manifest alone
//! (§5), ONNX external data checked in the model's folder (`external`), and the
//! conversions behind `modelgate onemodel convert` and `to-onnx`, which lay the output out
//! (`modelgate_core::onemodel::Layout`), copy each tensor from where it is (`copy`) and
//! publish atomically. Neither conversion holds tensor bytes in memory beyond those of the
//! ONNX file it reads: external data and a OneModel file's tensors are copied file to file.

pub(crate) mod copy;
pub(crate) mod external;
pub(crate) mod inspect;

use crate::mmap::{self, FileBytes};
use crate::publish::publish;
use copy::{OneFile, Sources};
pub use external::{ExternalFile, ExternalFiles};
use modelgate_core::onemodel::DEFAULT_MAX_TENSOR_BYTES;
use modelgate_core::onemodel::{self, ErrorKind, Header, Layout, Limits, Model};
use modelgate_core::onnx::{self, Data};
use modelgate_core::{Location, Rejection};
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Largest model file loaded (header fields are at most 2^63 − 1).
pub(crate) const FILE_LIMIT: u64 = i64::MAX as u64;

/// Bytes written between two progress reports.
pub(crate) const PROGRESS_CHUNK: usize = 4 << 20;

/// Why a conversion or load failed.
#[derive(Debug)]
pub enum Failure {
    /// The input was read and rejected.
    Rejected(Rejection),
    /// A file could not be read or written.
    Io(io::Error),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Rejected(e) => e.fmt(f),
            Failure::Io(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for Failure {}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Self {
        Failure::Io(e)
    }
}

fn rejected(e: onemodel::Error) -> Failure {
    Failure::Rejected(e.rejection())
}

/// The process's `max_tensor_bytes` ([`set_max_tensor_bytes`]).
static MAX_TENSOR_BYTES: AtomicU64 = AtomicU64::new(DEFAULT_MAX_TENSOR_BYTES);

/// Sets the `max_tensor_bytes` of [`limits`] for the rest of the process (§2.5 rule 2):
/// the command line's `--max-tensor-bytes`, for the checks of the format registry
/// ([`crate::check`]), which take no options.
pub fn set_max_tensor_bytes(n: u64) {
    MAX_TENSOR_BYTES.store(n, Ordering::Relaxed);
}

/// The limits every OneModel and ONNX read of the format registry runs under: the
/// defaults, with this process's random duplicate-table key (`hash_key`,
/// `spec/json.md` §5) and its `max_tensor_bytes` ([`set_max_tensor_bytes`]).
pub fn limits() -> Limits {
    Limits {
        hash_key: crate::hash_key(),
        max_tensor_bytes: MAX_TENSOR_BYTES.load(Ordering::Relaxed),
        ..Limits::DEFAULT
    }
}

/// Loads a file: mapped when at least 1 MiB, read otherwise (§5).
pub fn load(path: &Path) -> Result<FileBytes, Failure> {
    mmap::load(path, FILE_LIMIT, mmap::Mode::Auto).map_err(|e| match e.kind() {
        io::ErrorKind::InvalidData => Failure::Rejected(Rejection {
            kind: ErrorKind::LimitExceeded.name(),
            message: e.to_string(),
            location: Location::NONE,
        }),
        _ => Failure::Io(e),
    })
}

/// Checks the OneModel file at `path` under `limits` as `modelgate check` does
/// (`spec/onemodel.md` §5): `with_head`, the model dropped.
pub fn check_file(path: &Path, limits: Limits) -> Result<(), Failure> {
    with_head(path, limits, |_, _, _| ())
}

/// Reads the OneModel file at `path` from its header and manifest alone (§5,
/// [`onemodel::read_head`]) and passes the model, each tensor a range of the file, its
/// header and the open file to `use_model`. The verdict is [`onemodel::read`]'s while no tensor byte is
/// read. The header's checks 1–10 (§1.1) run on its first 64 bytes before more is read. A
/// head under 1 MiB is then read; a larger one is mapped with the file, as §5 loads files,
/// so that a manifest that fails early is rejected without being read whole. A file that
/// shrinks while it is read is an I/O error.
pub(crate) fn with_head<T>(
    path: &Path,
    limits: Limits,
    use_model: impl FnOnce(&Model<'_>, &Header, &File) -> T,
) -> Result<T, Failure> {
    let (file, meta) = crate::read::open_regular_file(path)?;
    let len = meta.len();
    let mut head = Vec::new();
    read_until(&file, &mut head, len.min(onemodel::HEADER_LEN))?;
    let need = onemodel::head_length(&head, len, limits).map_err(rejected)?;
    // The header's checks passed under `limits`; without the manifest limit they pass again.
    let header = onemodel::read_header(&head, len, u64::MAX).map_err(rejected)?;
    if need < mmap::MAP_THRESHOLD {
        read_until(&file, &mut head, need)?;
        let model = onemodel::read_head(&head, len, limits).map_err(rejected)?;
        return Ok(use_model(&model, &header, &file));
    }
    let map = mmap::map(&file)?;
    let head = usize::try_from(need)
        .ok()
        .and_then(|n| map.get(..n))
        .ok_or_else(shrank)?;
    let model = onemodel::read_head(head, len, limits).map_err(rejected)?;
    Ok(use_model(&model, &header, &file))
}

/// The error of a file that ended before bytes its length promised.
fn shrank() -> io::Error {
    io::Error::new(io::ErrorKind::UnexpectedEof, "the file shrank while it was read")
}

/// Reads `file` on until `head` holds `n` bytes.
fn read_until(file: &File, head: &mut Vec<u8>, n: u64) -> io::Result<()> {
    let more = n.saturating_sub(u64::try_from(head.len()).unwrap_or(u64::MAX));
    head.try_reserve_exact(usize::try_from(more).map_err(|_| io::Error::other("head larger than memory"))?)?;
    file.take(more).read_to_end(head)?;
    if u64::try_from(head.len()).unwrap_or(u64::MAX) < n {
        return Err(shrank());
    }
    Ok(())
}

/// Reads and checks the ONNX file at `path` under `limits`: its external tensors' references
/// checked in the model's folder without reading their bytes (§6.2, [`ExternalFiles`]),
/// names resolved (§3.1); then passes the model and its external files to `use_model`.
/// Decoding runs on the caller's stack: it needs a fixed amount however deep the model
/// nests (§3.3).
pub fn with_onnx<T>(
    path: &Path,
    limits: Limits,
    use_model: impl FnOnce(&Model<'_>, &mut ExternalFiles<'_>) -> T,
) -> Result<T, Failure> {
    let bytes = load(path)?;
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let mut files = ExternalFiles::new(dir);
    let mut resolver = |r: &onnx::ExternalRef<'_>| files.resolve(r);
    let model = onnx::to_model(
        &bytes,
        onnx::ReadOptions {
            limits,
            resolver: Some(&mut resolver),
        },
    )
    .map_err(rejected)?;
    Ok(use_model(&model, &mut files))
}

/// How a conversion runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Replace existing output files (atomically).
    pub overwrite: bool,
    /// `to-onnx`: write the initializers to `<OUT>.data` even when the model would fit
    /// one ONNX file (§6.3); they go there anyway when it would not.
    pub external_data: bool,
    /// The limits of the read and the write; `max_tensor_bytes` bounds both.
    pub limits: Limits,
}

impl Default for Options {
    /// No overwrite, external data only when needed, [`limits`].
    fn default() -> Self {
        Options {
            overwrite: false,
            external_data: false,
            limits: limits(),
        }
    }
}

/// Converts the ONNX file `input` to the OneModel file `output` (§4), publishing atomically,
/// and reports the bytes written and the output's size to `progress` every
/// 4 MiB (`PROGRESS_CHUNK`). External data is copied into the output as it is written,
/// file to file (§4).
pub fn convert(input: &Path, output: &Path, options: &Options, progress: crate::Progress<'_>) -> Result<(), Failure> {
    with_onnx(input, options.limits, |model, files| {
        let layout = onemodel::layout(model, options.limits).map_err(rejected)?;
        let total = layout.length();
        publish_layout(output, &layout, files, options.overwrite, &mut |done| {
            progress(done, total)
        })
    })?
}

/// Converts the OneModel file `input` back to ONNX protobuf at `output` (§6.3), publishing
/// atomically; with external data, `<OUT>.data` beside it, published first. Reports the
/// bytes written to both files and their total to `progress` every 4 MiB
/// bytes. The input is read from its head (§5) and its tensors copied file to file. The initializers go to `<OUT>.data` (named by its file name, a
/// path relative to the model's folder) when the model would not fit one ONNX file, or
/// always with `external_data`; the data file is published before the model, so a model
/// is never published without its data. Without `overwrite`, an existing `<OUT>` is
/// refused before anything is written.
pub fn to_onnx(input: &Path, output: &Path, options: &Options, progress: crate::Progress<'_>) -> Result<(), Failure> {
    let (data_path, location) = data_file(output)?;
    let data = if options.external_data {
        Data::External(&location)
    } else {
        Data::Auto(&location)
    };
    with_head(input, options.limits, |model, _, file| {
        let written = onnx::write_parts(model, data, options.limits).map_err(rejected)?;
        let (model_bytes, data_bytes) = (written.model.length(), written.data.length());
        let total = model_bytes.saturating_add(data_bytes);
        let mut source = OneFile(file);
        if !written.data.is_empty() {
            if !options.overwrite && std::fs::symlink_metadata(output).is_ok() {
                return Err(Failure::Io(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    "the output file exists",
                )));
            }
            publish_layout(&data_path, &written.data, &mut source, options.overwrite, &mut |done| {
                progress(done, total)
            })?;
        }
        publish_layout(output, &written.model, &mut source, options.overwrite, &mut |done| {
            progress(data_bytes.saturating_add(done), total)
        })
    })?
}

/// The data file of the ONNX file `output` (`<OUT>.data`, the PyTorch exporter's
/// convention) and its location as the model names it: its file name, which must be UTF-8
/// and a location the reader accepts (§6.2), so that the model written reads back.
pub(crate) fn data_file(output: &Path) -> io::Result<(PathBuf, String)> {
    let invalid = |message| io::Error::new(io::ErrorKind::InvalidInput, message);
    let name = output
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| invalid("the output file name is not UTF-8"))?;
    let location = format!("{name}.data");
    let limits = modelgate_core::archive_path::PathLimits::DEFAULT;
    if modelgate_core::archive_path::normalize(location.as_bytes(), &limits).as_deref() != Ok(location.as_str()) {
        return Err(invalid("the output file name cannot name an external data file"));
    }
    Ok((output.with_file_name(&location), location))
}

/// Publishes `layout` at `dest` (§4, `spec/mlbundle.md` §11.2), its tensors copied from
/// `sources`; `written` is told the bytes written so far, from 0 to the layout's length.
fn publish_layout(
    dest: &Path,
    layout: &Layout<'_>,
    sources: &mut dyn Sources,
    overwrite: bool,
    written: &mut dyn FnMut(u64),
) -> Result<(), Failure> {
    publish(dest, overwrite, |f| {
        written(0);
        copy::write_layout(f, layout, sources, written)
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use modelgate_core::onemodel::TensorData;

    /// A fresh folder, removed with its contents when the test ends (pass or panic).
    fn dir(name: &str) -> crate::temp::TempDir {
        crate::temp::TempDir::create(&std::env::temp_dir(), "modelgate-onemodel", name).unwrap()
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
            match (check_file(&path, limits()), whole) {
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
        use modelgate_core::onemodel::assemble;
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
            match (check_file(&path, limits()), whole) {
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
        let file = File::open(&path).unwrap();
        let mut head = Vec::new();
        read_until(&file, &mut head, 6).unwrap();
        assert_eq!(head, [7u8; 6]);
        let e = read_until(&file, &mut head, 20).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
        assert_eq!(head.len(), 10);
    }

    /// ONNX in `d/m.onnx` with one float tensor of `n` elements per name, each naming
    /// `w.bin` at the given offset (or all of it, without one), and `w.bin` of `file_len`
    /// bytes `i % 251`.
    fn onnx_with_external(d: &Path, n: usize, tensors: &[(&str, Option<u64>)], file_len: usize) -> PathBuf {
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
        let bytes: Vec<u8> = (0..file_len).map(|i| (i % 251) as u8).collect();
        std::fs::write(d.join("w.bin"), bytes).unwrap();
        let entry = |k: &str, v: &str| len(13, &[len(1, k.as_bytes()), len(2, v.as_bytes())].concat());
        let tensor = |name: &str, offset: Option<u64>| {
            let mut t = [
                int(1, n as u64),
                int(2, 1),
                len(8, name.as_bytes()),
                entry("location", "w.bin"),
            ]
            .concat();
            if let Some(o) = offset {
                t.extend(entry("offset", &o.to_string()));
                t.extend(entry("length", &(n * 4).to_string()));
            }
            t.extend(int(14, 1));
            t
        };
        let mut graph: Vec<u8> = tensors.iter().flat_map(|(name, o)| len(5, &tensor(name, *o))).collect();
        for (name, _) in tensors {
            graph.extend(len(12, &len(1, name.as_bytes())));
        }
        let model = [int(1, 9), len(7, &graph), len(8, &int(2, 17))].concat();
        let path = d.join("m.onnx");
        std::fs::write(&path, model).unwrap();
        path
    }

    /// The tensor bytes of every initializer of the OneModel file at `path`, read whole.
    fn initializers(path: &Path) -> Vec<Vec<u8>> {
        let bytes = std::fs::read(path).unwrap();
        let m = onemodel::read(&bytes, limits()).unwrap();
        m.graph
            .initializers
            .iter()
            .map(|t| match &t.data {
                TensorData::Raw(b) => b.to_vec(),
                other => panic!("{other:?}"),
            })
            .collect()
    }

    /// §4, §6.2: `convert` copies each external range into the data region, file to file,
    /// and `to-onnx` gives it back: in one file (the bytes `onnx::write_model` gives for the
    /// model read whole), or with `external_data` as `<OUT>.data` beside the model, each
    /// initializer at a multiple of 64, which reads back to the same tensors.
    #[test]
    fn external_data_converts_and_comes_back() {
        let tmp = dir("round-trip");
        let d = tmp.path();
        let n = 1000;
        let input = onnx_with_external(d, n, &[("w", Some(64)), ("v", Some(4096))], 8200);
        let out = d.join("m.onemodel");
        convert(&input, &out, &Options::default(), &mut |_, _| {}).unwrap();
        let source: Vec<u8> = (0..8200).map(|i| (i % 251) as u8).collect();
        assert_eq!(initializers(&out), [&source[64..4064], &source[4096..8096]]);
        let one = d.join("one.onnx");
        to_onnx(&out, &one, &Options::default(), &mut |_, _| {}).unwrap();
        let whole = std::fs::read(&out).unwrap();
        let expected = onnx::write_model(&onemodel::read(&whole, limits()).unwrap()).unwrap();
        assert_eq!(std::fs::read(&one).unwrap(), expected);
        assert!(!d.join("one.onnx.data").exists());
        let external = Options {
            external_data: true,
            ..Options::default()
        };
        let two = d.join("two.onnx");
        to_onnx(&out, &two, &external, &mut |_, _| {}).unwrap();
        let data = std::fs::read(d.join("two.onnx.data")).unwrap();
        assert_eq!(data.len(), 4032 + 4000);
        assert_eq!((&data[..4000], &data[4032..]), (&source[64..4064], &source[4096..8096]));
        assert!(data[4000..4032].iter().all(|&b| b == 0));
        let back = d.join("back.onemodel");
        convert(&two, &back, &Options::default(), &mut |_, _| {}).unwrap();
        assert_eq!(std::fs::read(&back).unwrap(), whole);
        // Without overwrite, an existing model is refused before its data file is written.
        std::fs::remove_file(d.join("two.onnx.data")).unwrap();
        assert!(
            matches!(to_onnx(&out, &two, &external, &mut |_, _| {}), Err(Failure::Io(e)) if e.kind() == io::ErrorKind::AlreadyExists)
        );
        assert!(!d.join("two.onnx.data").exists());
        to_onnx(
            &out,
            &two,
            &Options {
                overwrite: true,
                ..external
            },
            &mut |_, _| {},
        )
        .unwrap();
        assert_eq!(std::fs::read(d.join("two.onnx.data")).unwrap(), data);
    }

    /// §4: tensors that name one range of an external file are each copied in full, and
    /// what that adds is capped by `max_shared_data`, before anything is written.
    #[test]
    fn external_ranges_named_twice_are_capped_by_max_shared_data() {
        let tmp = dir("shared");
        let d = tmp.path();
        let input = onnx_with_external(d, 8, &[("w", None), ("v", None)], 32);
        let out = d.join("m.onemodel");
        convert(&input, &out, &Options::default(), &mut |_, _| {}).unwrap();
        let all: Vec<u8> = (0..32).collect();
        assert_eq!(initializers(&out), [all.clone(), all]);
        let tight = Options {
            overwrite: true,
            limits: Limits {
                max_shared_data: 31,
                ..limits()
            },
            ..Options::default()
        };
        match convert(&input, &out, &tight, &mut |_, _| {}) {
            Err(Failure::Rejected(r)) => {
                assert_eq!((r.kind, r.location.path.as_deref()), ("LimitExceeded", Some("model")))
            }
            other => panic!("{other:?}"),
        }
    }

    /// §2.5 rule 2 through the conversions: a bound below a tensor refuses it, naming the
    /// option, in the check of the ONNX file, in `convert` and in `to-onnx`.
    #[test]
    fn max_tensor_bytes_bounds_check_convert_and_to_onnx() {
        let tmp = dir("bound");
        let d = tmp.path();
        let input = onnx_with_external(d, 16, &[("w", Some(0))], 64);
        let out = d.join("m.onemodel");
        convert(&input, &out, &Options::default(), &mut |_, _| {}).unwrap();
        let tight = Options {
            overwrite: true,
            limits: Limits {
                max_tensor_bytes: 63,
                ..limits()
            },
            ..Options::default()
        };
        let unsupported = |r: Result<(), Failure>| match r {
            Err(Failure::Rejected(r)) => r.kind == "Unsupported" && r.message.contains("--max-tensor-bytes"),
            _ => false,
        };
        assert!(unsupported(with_onnx(&input, tight.limits, |_, _| ())));
        assert!(unsupported(convert(&input, &out, &tight, &mut |_, _| {})));
        assert!(unsupported(check_file(&out, tight.limits)));
        assert!(unsupported(to_onnx(&out, &d.join("m.onnx2"), &tight, &mut |_, _| {})));
        assert!(check_file(&out, limits()).is_ok());
    }

    /// `<OUT>.data` is named by its file name, which must read back as a location (§6.2).
    #[test]
    fn the_data_file_is_named_beside_the_model() {
        let (path, location) = data_file(Path::new("out/m.onnx")).unwrap();
        assert_eq!(
            (path, location.as_str()),
            (PathBuf::from("out/m.onnx.data"), "m.onnx.data")
        );
        for refused in ["out/a\u{1}.onnx", "/", "out/.."] {
            let e = data_file(Path::new(refused)).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{refused}");
        }
    }

    #[test]
    fn progress_reports_every_chunk_up_to_the_total() {
        let tmp = dir("progress");
        let d = tmp.path();
        let n = PROGRESS_CHUNK / 4 * 2 + 5;
        let input = onnx_with_external(d, n, &[("w", None)], n * 4);
        let (out, back) = (d.join("m.onemodel"), d.join("back.onnx"));
        let mut calls = Vec::new();
        convert(&input, &out, &Options::default(), &mut |done, total| {
            calls.push((done, total))
        })
        .unwrap();
        let size = std::fs::metadata(&out).unwrap().len();
        assert!(calls.iter().all(|c| c.1 == size && c.0 <= size));
        assert_eq!(calls.first().map(|c| c.0), Some(0));
        assert_eq!(calls.last().map(|c| c.0), Some(size));
        assert!(calls.windows(2).all(|w| w[0].0 <= w[1].0));
        assert!(calls.len() >= 3);
        let external = Options {
            external_data: true,
            ..Options::default()
        };
        let mut calls = Vec::new();
        to_onnx(&out, &back, &external, &mut |done, total| calls.push((done, total))).unwrap();
        let size = std::fs::metadata(&back).unwrap().len() + std::fs::metadata(d.join("back.onnx.data")).unwrap().len();
        assert_eq!(calls.last(), Some(&(size, size)));
        assert!(calls.windows(2).all(|w| w[0].0 <= w[1].0));
    }
}
