//! `modelgate._modelgate`: the Rust half of the `modelgate` Python package.
//!
//! Every check here is a call into `modelgate-core` or `modelgate-io`, exactly as the
//! command line makes it (`cli/src/*.rs`): this crate only converts arguments and results
//! between Rust and Python. The Python half (`python/modelgate/`) turns the tuples returned
//! here into result objects, builds NumPy views of OneModel tensors over a memory map it
//! owns, and holds the exception classes, which the functions here raise
//! (`modelgate._errors.from_rejection`).
//!
//! The GIL is released while a file is read and checked, except while a Python stream is
//! read (its `read` method is Python code).
#![forbid(unsafe_code)]

use modelgate_core::Rejection;
use modelgate_core::digest::hex;
use modelgate_core::mlbundle::{self, ArchiveLimits, Container, Limit};
use modelgate_core::mpk::MpkLimits;
use modelgate_core::onemodel::{self, TensorData};
use modelgate_io::check::{self as registry, CheckError, Format};
use modelgate_io::failure::FileError;
use modelgate_io::source::{ReadError, Source};
use pyo3::exceptions::{PyFileExistsError, PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// The module of the Python exception classes.
const ERRORS: &str = "modelgate._errors";

/// The Python exception for a rejection by `format`: the `ModelgateError` subclass of its
/// kind, made by `modelgate._errors.from_rejection`.
fn rejected(py: Python<'_>, format: &str, r: &Rejection) -> PyErr {
    match rejection_object(py, format, r) {
        Ok(e) => PyErr::from_value(e),
        Err(e) => e,
    }
}

/// The exception object of [`rejected`].
fn rejection_object<'py>(py: Python<'py>, format: &str, r: &Rejection) -> PyResult<Bound<'py, PyAny>> {
    let location = &r.location;
    py.import(ERRORS)?.getattr("from_rejection")?.call1((
        format,
        r.kind,
        r.message.as_str(),
        location.to_string(),
        location.member.as_deref(),
        location.path.as_deref(),
        location.offset,
    ))
}

/// An `OSError` as Python raises it: with an OS error number, `OSError(errno, strerror,
/// filename)`, which Python turns into its subclass (`FileNotFoundError`, …); without one,
/// PyO3's subclass for the error's kind.
fn os_error(e: io::Error, filename: Option<&Path>) -> PyErr {
    let Some(errno) = e.raw_os_error() else {
        return PyErr::from(e);
    };
    let text = e.to_string();
    let strerror = text
        .strip_suffix(&format!(" (os error {errno})"))
        .unwrap_or(&text)
        .to_string();
    match filename {
        Some(f) => PyOSError::new_err((errno, strerror, f.as_os_str().to_os_string())),
        None => PyOSError::new_err((errno, strerror)),
    }
}

/// `FileExistsError` for a destination that exists (`FileError::Exists`).
fn exists_error(py: Python<'_>, path: &Path) -> PyErr {
    let errno = py
        .import("errno")
        .and_then(|m| m.getattr("EEXIST"))
        .and_then(|n| n.extract::<i32>());
    match errno {
        Ok(errno) => PyFileExistsError::new_err((errno, "already exists", path.as_os_str().to_os_string())),
        Err(e) => e,
    }
}

/// The Python exception of a failed operation that reads an archive and writes files.
fn file_error<R>(py: Python<'_>, format: &str, e: FileError<R>, rejection: impl FnOnce(&R) -> Rejection) -> PyErr {
    match e {
        FileError::Rejected(r) => rejected(py, format, &rejection(&r)),
        FileError::Exists(p) => exists_error(py, &p),
        FileError::Io(e) => os_error(e, None),
    }
}

/// Every registered format (`modelgate_io::check::FORMATS`) as `(name, suffixes, kinds)`,
/// in registry order.
#[pyfunction]
fn formats() -> Vec<(&'static str, Vec<&'static str>, Vec<&'static str>)> {
    registry::FORMATS
        .iter()
        .map(|f| (f.name(), f.suffixes().to_vec(), f.kinds().to_vec()))
        .collect()
}

/// The format `modelgate check` reads `path` as (`modelgate_io::check::detect`): the
/// longest matching file-name suffix, then the first bytes; `None` when neither tells.
#[pyfunction]
fn detect(py: Python<'_>, path: PathBuf) -> PyResult<Option<&'static str>> {
    let found = py.detach(|| registry::detect(&path));
    found.map(|f| f.map(|f| f.name())).map_err(|e| os_error(e, Some(&path)))
}

/// What [`check`] returns: `(ok, format, kind, message, location, member, json_path,
/// offset)`.
type Outcome = (
    bool,
    Option<&'static str>,
    Option<String>,
    Option<String>,
    String,
    Option<String>,
    Option<String>,
    Option<u64>,
);

/// The format a file was read as and the check's outcome; `None` when no format was found.
type Checked = Option<(&'static dyn Format, Result<(), CheckError>)>;

/// The full validating read of the file at `path`, as `modelgate check` runs it: read as
/// `format` when given, else as the format `detect` finds. A rejection is a result (`ok`
/// false, the kind, message and location); a file whose format cannot be told is the
/// result `UnknownFormat`, as `modelgate check --json` reports it; a file that cannot be
/// read raises `OSError`; an unknown `format` name raises `ValueError`.
#[pyfunction]
#[pyo3(signature = (path, format=None))]
fn check(py: Python<'_>, path: PathBuf, format: Option<&str>) -> PyResult<Outcome> {
    let forced = format.map(format_named).transpose()?;
    let outcome = py.detach(|| {
        let format = forced.map_or_else(|| registry::detect(&path), |f| Ok(Some(f)))?;
        outcome_of(format.map(|f| (f, f.check(&path, &mut |_, _| {}))))
    });
    outcome.map_err(|e| os_error(e, Some(&path)))
}

/// The same validating read over bytes held in memory (`Format::check_bytes`): read as
/// `format` when given, else as the format their first bytes tell (`detect_content`).
/// Nothing is read from or written to the file system, so an MPK package's name rule is not
/// applied and an ONNX model's external data is `Unsupported`.
#[pyfunction]
#[pyo3(signature = (data, format=None))]
fn check_bytes(py: Python<'_>, data: &[u8], format: Option<&str>) -> PyResult<Outcome> {
    let forced = format.map(format_named).transpose()?;
    let checked = py.detach(|| -> Checked {
        let format = forced.or_else(|| registry::detect_content(data))?;
        Some((format, format.check_bytes(data)))
    });
    outcome_of(checked).map_err(|e| os_error(e, None))
}

/// The registered format named `name`; `ValueError` naming the known ones otherwise.
fn format_named(name: &str) -> PyResult<&'static dyn Format> {
    registry::by_name(name).ok_or_else(|| {
        PyValueError::new_err(format!(
            "unknown format {name:?}; expected one of {}",
            registry::names().join(", ")
        ))
    })
}

/// A check's result as [`Outcome`]; the I/O error that kept the file from being read.
fn outcome_of(checked: Checked) -> io::Result<Outcome> {
    match checked {
        None => Ok((
            false,
            None,
            Some("UnknownFormat".to_string()),
            Some(format!(
                "cannot tell the format from the name or the first bytes; pass format= ({})",
                registry::names().join(", ")
            )),
            String::new(),
            None,
            None,
            None,
        )),
        Some((format, Ok(()))) => Ok((true, Some(format.name()), None, None, String::new(), None, None, None)),
        Some((format, Err(CheckError::Rejected(r)))) => Ok((
            false,
            Some(format.name()),
            Some(r.kind.to_string()),
            Some(r.message.clone()),
            r.location.to_string(),
            r.location.member.clone(),
            r.location.path.clone(),
            r.location.offset,
        )),
        Some((_, Err(CheckError::Io(e)))) => Err(e),
    }
}

/// The archive limit each `limits` key of `read_container` sets (`spec/mlbundle.md` §3.1).
const LIMIT_KEYS: [(&str, Limit); 11] = [
    ("members", Limit::Members),
    ("archive", Limit::Archive),
    ("compressed_total", Limit::CompressedTotal),
    ("member", Limit::Member),
    ("uncompressed_total", Limit::UncompressedTotal),
    ("ratio", Limit::Ratio),
    ("manifest", Limit::Manifest),
    ("structure", Limit::Structure),
    ("schema", Limit::Schema),
    ("samples", Limit::Samples),
    ("json_depth", Limit::JsonDepth),
];

/// The default value of every archive limit, by its `limits` key.
#[pyfunction]
fn archive_limit_defaults() -> Vec<(&'static str, u64)> {
    LIMIT_KEYS
        .iter()
        .map(|(k, l)| (*k, ArchiveLimits::DEFAULT.get(*l)))
        .collect()
}

/// [`ArchiveLimits::DEFAULT`] lowered by each `key: value` of `limits`
/// ([`ArchiveLimits::with`], §3.2): an unknown key, or a value above the ceiling or below
/// the minimum, raises `ValueError`.
fn archive_limits(limits: Option<&Bound<'_, PyDict>>) -> PyResult<ArchiveLimits> {
    let mut out = ArchiveLimits::DEFAULT;
    for (key, value) in limits.into_iter().flat_map(|d| d.iter()) {
        let key: String = key.extract()?;
        let Some((_, limit)) = LIMIT_KEYS.iter().find(|(k, _)| *k == key) else {
            let known: Vec<&str> = LIMIT_KEYS.iter().map(|(k, _)| *k).collect();
            return Err(PyValueError::new_err(format!(
                "unknown limit {key:?}; expected one of {}",
                known.join(", ")
            )));
        };
        let value: u64 = value
            .extract()
            .map_err(|_| PyValueError::new_err(format!("limit {key:?} must be a non-negative integer")))?;
        out = out
            .with(*limit, value)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
    }
    Ok(out)
}

/// A binary Python stream read through its `read` method, from its current position; never
/// closed. An exception `read` raises is kept and raised again by the caller.
struct PyStream<'py> {
    stream: Bound<'py, PyAny>,
    raised: Option<PyErr>,
}

impl Read for PyStream<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let got = self.stream.call_method1("read", (buf.len(),)).and_then(|data| {
            if data.is_none() {
                // A non-blocking raw stream with nothing to give.
                return Err(PyValueError::new_err(
                    "the stream's read() returned None (non-blocking stream); pass a blocking binary stream",
                ));
            }
            let bytes = data
                .cast::<PyBytes>()
                .map_err(|_| PyTypeError::new_err("the stream's read() must return bytes (open it in binary mode)"))?;
            let bytes = bytes.as_bytes();
            let place = buf
                .get_mut(..bytes.len())
                .ok_or_else(|| PyValueError::new_err("the stream's read() returned more bytes than were asked for"))?;
            place.copy_from_slice(bytes);
            Ok(bytes.len())
        });
        got.map_err(|e| {
            self.raised = Some(e);
            io::Error::other("the stream's read() raised")
        })
    }
}

/// `read_container(source, limits)` of `modelgate_io::source` (`spec/mlbundle.md` §11.1
/// and §2–§8): `source` is bytes, a binary stream (an object with `read`, read from its
/// current position to its end and not closed) or a path. Returns the validated manifest as
/// canonical JSON text and every member's original uncompressed bytes, `manifest.json`
/// included, in the fixed member order. A rejection raises the `ModelgateError` subclass
/// of its kind, a source that cannot be read `OSError` (or what the stream's `read` raised).
#[pyfunction]
#[pyo3(signature = (source, limits=None))]
fn read_container<'py>(
    py: Python<'py>,
    source: &Bound<'py, PyAny>,
    limits: Option<&Bound<'py, PyDict>>,
) -> PyResult<Members<'py>> {
    let limits = archive_limits(limits)?;
    if let Ok(bytes) = source.cast::<PyBytes>() {
        // Stored members stay borrowed from `bytes` until they are copied into Python.
        let bytes = bytes.as_bytes();
        let read = py.detach(|| modelgate_io::source::read_container(Source::Bytes(bytes), &limits));
        return container(py, read, None);
    }
    if source.hasattr("read")? {
        let mut stream = PyStream {
            stream: source.clone(),
            raised: None,
        };
        let read = modelgate_io::source::read_container(Source::Stream(&mut stream), &limits);
        let members = container(py, read, None);
        return match stream.raised {
            Some(e) => Err(e),
            None => members,
        };
    }
    let path: PathBuf = source.extract()?;
    let read = py.detach(|| modelgate_io::source::read_container(Source::Path(&path), &limits));
    container(py, read, Some(&path))
}

/// What [`read_container`] returns: the manifest's canonical JSON text, and each member's
/// name and bytes.
type Members<'py> = (String, Vec<(&'static str, Bound<'py, PyBytes>)>);

/// A read container as [`Members`], or the Python exception of its failure.
fn container<'py>(
    py: Python<'py>,
    read: Result<Container<'_>, ReadError>,
    path: Option<&Path>,
) -> PyResult<Members<'py>> {
    match read {
        Ok(c) => Ok((
            c.manifest.to_json(),
            c.members
                .iter()
                .map(|(name, bytes)| (name.as_str(), PyBytes::new(py, bytes)))
                .collect(),
        )),
        Err(ReadError::Rejected(e)) => Err(rejected(py, "mlbundle", &e.rejection())),
        Err(ReadError::Io(e)) => Err(os_error(e, path)),
    }
}

/// The OneModel limits of `modelgate check` (`modelgate_io::onemodel::limits`), with
/// `max_tensor_bytes` when given (§2.5 rule 2).
fn onemodel_limits(max_tensor_bytes: Option<u64>) -> onemodel::Limits {
    let mut limits = modelgate_io::onemodel::limits();
    if let Some(n) = max_tensor_bytes {
        limits.max_tensor_bytes = n;
    }
    limits
}

/// How many first bytes of a OneModel file `onemodel_tensors` needs
/// (`modelgate_core::onemodel::head_length`, the header's `data_offset`): `first` is the
/// file's first 64 bytes (all of it when shorter), `file_length` its length. The header's
/// checks run on them; a failure raises the `ModelgateError` subclass of its kind.
#[pyfunction]
#[pyo3(signature = (first, file_length, max_tensor_bytes=None))]
fn onemodel_head_length(
    py: Python<'_>,
    first: &[u8],
    file_length: u64,
    max_tensor_bytes: Option<u64>,
) -> PyResult<u64> {
    onemodel::head_length(first, file_length, onemodel_limits(max_tensor_bytes))
        .map_err(|e| rejected(py, "onemodel", &e.rejection()))
}

/// One tensor of [`onemodel_tensors`]: `(name, dtype code, dtype name, dims, data)`, where
/// data is `("file", offset, length)` (a range of the file), `("raw", bytes)` or
/// `("strings", [bytes, ...])`.
type TensorRow<'py> = (String, u8, Option<&'static str>, Vec<u64>, Bound<'py, PyAny>);

/// The full check of a OneModel file from its first bytes alone
/// (`modelgate_core::onemodel::read_head`, as `modelgate check` reads a file, §5): `head`
/// holds at least the first `onemodel_head_length` bytes of a file of `file_length` bytes.
/// Returns the main graph's initializers in manifest order; a rejection raises the
/// `ModelgateError` subclass of its kind.
#[pyfunction]
#[pyo3(signature = (head, file_length, max_tensor_bytes=None))]
fn onemodel_tensors<'py>(
    py: Python<'py>,
    head: &[u8],
    file_length: u64,
    max_tensor_bytes: Option<u64>,
) -> PyResult<Vec<TensorRow<'py>>> {
    let limits = onemodel_limits(max_tensor_bytes);
    let model = py
        .detach(|| onemodel::read_head(head, file_length, limits))
        .map_err(|e| rejected(py, "onemodel", &e.rejection()))?;
    let mut rows = Vec::with_capacity(model.graph.initializers.len());
    for t in &model.graph.initializers {
        let data = match &t.data {
            TensorData::File(range) => ("file", range.offset, range.length).into_pyobject(py)?.into_any(),
            TensorData::Raw(bytes) => ("raw", PyBytes::new(py, bytes)).into_pyobject(py)?.into_any(),
            TensorData::Strings(items) => {
                let list = PyList::new(py, items.iter().map(|s| PyBytes::new(py, s)))?;
                ("strings", list).into_pyobject(py)?.into_any()
            }
        };
        rows.push((
            t.name.to_string(),
            t.dtype,
            onemodel::dtype_name(t.dtype),
            t.dims.clone(),
            data,
        ));
    }
    Ok(rows)
}

/// `modelgate mpk extract` (`modelgate_io::extract::extract`, `spec/mpk.md` §6): validates
/// `package` and extracts it to `dest`, which must not exist, under the default limits.
/// Returns `(files, plugins)`. A rejection raises the `ModelgateError` subclass of its kind
/// and leaves nothing behind; an existing `dest` raises `FileExistsError`.
#[pyfunction]
fn mpk_extract(py: Python<'_>, package: PathBuf, dest: PathBuf) -> PyResult<(usize, usize)> {
    let r = py.detach(|| modelgate_io::extract::extract(&package, &dest, MpkLimits::DEFAULT, &mut |_, _| {}));
    match r {
        Ok(p) => Ok((p.files.len(), p.contract.plugins.len())),
        Err(e) => Err(file_error(py, "mpk", e, |e| e.rejection())),
    }
}

/// `modelgate mvb export` (`modelgate_io::mvb::export`, `spec/mvb.md` §5): writes
/// `out_dir/<bundle_id>.mvb.tar` and logs the export in the bundle's `exports.json`.
/// Returns `(path, sha256 hex, size, files)`.
#[pyfunction]
fn mvb_export(
    py: Python<'_>,
    bundle: PathBuf,
    out_dir: PathBuf,
    overwrite: bool,
) -> PyResult<(PathBuf, String, u64, usize)> {
    let r = py.detach(|| modelgate_io::mvb::export(&bundle, &out_dir, overwrite, &mut |_, _| {}));
    match r {
        Ok(x) => Ok((x.path, hex(&x.sha256), x.size, x.files)),
        Err(e) => Err(file_error(py, "mvb", e, |e| e.rejection())),
    }
}

/// `modelgate mvb import` (`modelgate_io::mvb::import`, `spec/mvb.md` §6): validates the
/// export and moves its bundle into `vault/<bundle_id>`. Returns `(dest, bundle_id,
/// bundle_hash)`.
#[pyfunction]
fn mvb_import(py: Python<'_>, archive: PathBuf, vault: PathBuf) -> PyResult<(PathBuf, String, String)> {
    let r = py.detach(|| modelgate_io::mvb::import(&archive, &vault, &mut |_, _| {}));
    match r {
        Ok(x) => Ok((x.dest, x.imported.marker.bundle_id, x.imported.bundle_hash)),
        Err(e) => Err(file_error(py, "mvb", e, |e| e.rejection())),
    }
}

/// `modelgate mvb verify` (`spec/mvb.md` §7): a folder is re-hashed against its manifest
/// (`verify_folder`), anything else read as an `.mvb.tar` (`verify_archive`). Returns
/// `(files, bundle_hash)`; a bundle with problems raises the `ModelgateError` subclass of
/// the first one's kind, with every problem in its `problems` attribute.
#[pyfunction]
fn mvb_verify(py: Python<'_>, target: PathBuf) -> PyResult<(usize, String)> {
    if target.is_dir() {
        let r = py.detach(|| modelgate_io::mvb::verify_folder(&target, &mut |_, _| {}));
        let report = r.map_err(|e| file_error(py, "mvb", e, |e| e.rejection()))?;
        let Some(first) = report.problems.first() else {
            return Ok((report.files, report.bundle_hash));
        };
        let problems = report
            .problems
            .iter()
            .map(|p| rejection_object(py, "mvb", &p.rejection()))
            .collect::<PyResult<Vec<_>>>()?;
        let error = rejection_object(py, "mvb", &first.rejection())?;
        error.setattr("problems", problems)?;
        return Err(PyErr::from_value(error));
    }
    let r = py.detach(|| modelgate_io::mvb::verify_archive(&target, &mut |_, _| {}));
    match r {
        Ok(i) => Ok((i.manifest.files.len(), i.bundle_hash)),
        Err(e) => Err(file_error(py, "mvb", e, |e| e.rejection())),
    }
}

/// The `mlbundle` member names in their fixed order (`spec/mlbundle.md` §1).
#[pyfunction]
fn mlbundle_member_names() -> Vec<&'static str> {
    mlbundle::NAMES.to_vec()
}

/// The extension module.
#[pymodule]
fn _modelgate(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(formats, m)?)?;
    m.add_function(wrap_pyfunction!(detect, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(check_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(archive_limit_defaults, m)?)?;
    m.add_function(wrap_pyfunction!(read_container, m)?)?;
    m.add_function(wrap_pyfunction!(onemodel_head_length, m)?)?;
    m.add_function(wrap_pyfunction!(onemodel_tensors, m)?)?;
    m.add_function(wrap_pyfunction!(mpk_extract, m)?)?;
    m.add_function(wrap_pyfunction!(mvb_export, m)?)?;
    m.add_function(wrap_pyfunction!(mvb_import, m)?)?;
    m.add_function(wrap_pyfunction!(mvb_verify, m)?)?;
    m.add_function(wrap_pyfunction!(mlbundle_member_names, m)?)?;
    Ok(())
}
