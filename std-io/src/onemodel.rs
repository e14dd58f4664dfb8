//! OneModel and ONNX files on disk (`spec/onemodel.md` §4–§6): loading (memory-mapped at
//! 1 MiB, [`crate::mmap`]), ONNX external data resolved inside the model's folder, and the
//! conversions behind `modelgate onemodel convert` and `to-onnx`, published atomically.

use crate::mmap::{self, FileBytes};
use crate::publish::publish_bytes;
use modelgate_core::archive_path::{PathLimits, normalize};
use modelgate_core::onemodel::{self, ErrorKind, Limits};
use modelgate_core::onnx::{self, ExternalError, ExternalRef};
use modelgate_core::{Location, Rejection};
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

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

/// Stack for decoding: graphs and types nest 64 deep (§3.2) and each level costs tens of KiB
/// of stack in unoptimised builds, so decoding runs on a thread with this much.
pub const DECODE_STACK: usize = 64 << 20;

/// Runs `f` on a scoped thread with [`DECODE_STACK`] bytes of stack.
pub fn on_decode_stack<T: Send>(f: impl FnOnce() -> T + Send) -> io::Result<T> {
    std::thread::scope(|s| {
        let handle = std::thread::Builder::new()
            .stack_size(DECODE_STACK)
            .spawn_scoped(s, f)?;
        Ok(handle.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
    })
}

/// Reads and checks the ONNX file at `path`, external tensors copied from the model's
/// folder (§6.2), names resolved (§3.1), and passes the model to `use_model`; decoding runs
/// on [`DECODE_STACK`].
pub fn with_onnx<T: Send>(path: &Path, use_model: impl FnOnce(&onemodel::Model<'_>) -> T + Send) -> Result<T, Failure> {
    on_decode_stack(|| with_onnx_here(path, use_model))?
}

fn with_onnx_here<T>(path: &Path, use_model: impl FnOnce(&onemodel::Model<'_>) -> T) -> Result<T, Failure> {
    let bytes = load(path)?;
    let folder = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut resolver = |r: &ExternalRef<'_>| read_external(&folder, r);
    let mut model = onnx::read_model_with(&bytes, onnx::Limits::default(), &mut resolver).map_err(rejected)?;
    onemodel::names::resolve(&mut model, None).map_err(rejected)?;
    Ok(use_model(&model))
}

/// Converts the ONNX file `input` to the OneModel file `output` (§4), publishing atomically.
pub fn convert(input: &Path, output: &Path, overwrite: bool) -> Result<(), Failure> {
    let bytes = with_onnx(input, onemodel::write)?.map_err(rejected)?;
    publish_bytes(output, &bytes, overwrite)?;
    Ok(())
}

/// Converts the OneModel file `input` back to ONNX protobuf at `output` (§6.3).
pub fn to_onnx(input: &Path, output: &Path, overwrite: bool) -> Result<(), Failure> {
    let bytes = load(input)?;
    let proto = on_decode_stack(|| {
        onemodel::read_with(&bytes, Limits::DEFAULT, crate::hash_key()).map(|m| onnx::write_model(&m))
    })?
    .map_err(rejected)?;
    publish_bytes(output, &proto, overwrite)?;
    Ok(())
}

fn ext_err(kind: ErrorKind, message: &'static str) -> ExternalError {
    (kind, message)
}

/// The bytes of one external tensor: `location` must be a relative path without `..` or
/// look-alikes (`archive_path::normalize`), every component under `folder` a real directory
/// or file (no symbolic link), the file not hard-linked elsewhere (link count 1 on Unix), and
/// `offset`/`length` inside the file and equal to dtype × dims (§6.2).
fn read_external(folder: &Path, r: &ExternalRef<'_>) -> Result<Vec<u8>, ExternalError> {
    let rel = normalize(r.location.as_bytes(), &PathLimits::DEFAULT).map_err(|_| {
        ext_err(
            ErrorKind::Malformed,
            "external data location escapes the model's folder",
        )
    })?;
    let mut path = PathBuf::from(if folder.as_os_str().is_empty() {
        Path::new(".")
    } else {
        folder
    });
    let segments: Vec<&str> = rel.split('/').collect();
    for (i, seg) in segments.iter().enumerate() {
        path.push(seg);
        let meta = std::fs::symlink_metadata(&path)
            .map_err(|_| ext_err(ErrorKind::Malformed, "external data file not found"))?;
        let last = i + 1 == segments.len();
        if meta.file_type().is_symlink() || (last && !meta.is_file()) || (!last && !meta.is_dir()) {
            return Err(ext_err(
                ErrorKind::Malformed,
                "external data location is a link or not a regular file",
            ));
        }
    }
    let mut file = File::open(&path).map_err(|_| ext_err(ErrorKind::Malformed, "external data file not readable"))?;
    let meta = file
        .metadata()
        .map_err(|_| ext_err(ErrorKind::Malformed, "external data file not readable"))?;
    check_same_file(&path, &meta)?;
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
    let mut out = vec![0u8; usize::try_from(length).unwrap_or(0)];
    file.seek(SeekFrom::Start(r.offset))
        .and_then(|_| file.read_exact(&mut out))
        .map_err(|_| ext_err(ErrorKind::OutOfRange, "external data file shorter than stated"))?;
    Ok(out)
}

/// The opened file is the one checked (no swap between check and open), and on Unix it has
/// no second name that could lie outside the folder.
#[cfg(unix)]
fn check_same_file(path: &Path, opened: &std::fs::Metadata) -> Result<(), ExternalError> {
    use std::os::unix::fs::MetadataExt;
    let checked =
        std::fs::symlink_metadata(path).map_err(|_| ext_err(ErrorKind::Malformed, "external data file changed"))?;
    if checked.dev() != opened.dev() || checked.ino() != opened.ino() {
        return Err(ext_err(
            ErrorKind::Malformed,
            "external data file changed while opening",
        ));
    }
    if opened.nlink() != 1 {
        return Err(ext_err(ErrorKind::Malformed, "external data file is hard-linked"));
    }
    Ok(())
}

#[cfg(not(unix))]
fn check_same_file(_path: &Path, _opened: &std::fs::Metadata) -> Result<(), ExternalError> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("modelgate-ext-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn r(location: &str, offset: u64, length: Option<u64>, expected: u64) -> ExternalRef<'_> {
        ExternalRef {
            location,
            offset,
            length,
            expected,
        }
    }

    #[test]
    fn external_data_inside_folder_read() {
        let d = dir("ok");
        std::fs::write(d.join("w.bin"), (0u8..32).collect::<Vec<_>>()).unwrap();
        assert_eq!(read_external(&d, &r("w.bin", 8, Some(4), 4)).unwrap(), [8, 9, 10, 11]);
        assert_eq!(read_external(&d, &r("w.bin", 28, None, 4)).unwrap(), [28, 29, 30, 31]);
        assert_eq!(
            read_external(&d, &r("w.bin", 30, Some(4), 4)).unwrap_err().0,
            ErrorKind::OutOfRange
        );
        assert_eq!(
            read_external(&d, &r("w.bin", 0, Some(4), 8)).unwrap_err().0,
            ErrorKind::OutOfRange
        );
    }

    #[test]
    fn external_data_escapes_rejected() {
        let d = dir("escape");
        let inner = d.join("m");
        std::fs::create_dir_all(&inner).unwrap();
        std::fs::write(d.join("secret.bin"), [1u8; 4]).unwrap();
        for loc in ["../secret.bin", "/etc/passwd", "a/../../secret.bin", "C:/x"] {
            assert_eq!(
                read_external(&inner, &r(loc, 0, None, 4)).unwrap_err().0,
                ErrorKind::Malformed,
                "{loc}"
            );
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(d.join("secret.bin"), inner.join("link.bin")).unwrap();
            assert_eq!(
                read_external(&inner, &r("link.bin", 0, None, 4)).unwrap_err().0,
                ErrorKind::Malformed
            );
            std::fs::hard_link(d.join("secret.bin"), inner.join("hard.bin")).unwrap();
            assert_eq!(
                read_external(&inner, &r("hard.bin", 0, None, 4)).unwrap_err().0,
                ErrorKind::Malformed
            );
        }
    }
}
