//! ONNX external data in the model's folder (`spec/onemodel.md` §6.2): each tensor's
//! `location` must be a relative path without `..` or look-alikes
//! (`archive_path::normalize`), every component below the folder a real directory or file
//! (each opened beneath the folder, held open from the first external tensor on, without
//! following a link, [`Beneath::open_file`], so a folder swapped for a link meanwhile is
//! refused too), the file regular with no second name (one hard link on Unix), and the
//! tensor's range inside it and as long as dtype × dims. Only metadata is read: no tensor
//! byte is, so checking a model costs the same whatever its weights. The conversions copy
//! the bytes later from the same files, opened again beneath the same folder ([`Sources`]).

use super::copy::Sources;
use crate::beneath::Beneath;
use modelgate_core::archive_path::{PathLimits, normalize};
use modelgate_core::onemodel::ErrorKind;
use modelgate_core::onnx::{ExternalError, ExternalRef};
use std::collections::BTreeMap;
use std::fs::File;
use std::io;
use std::path::Path;

/// An external data file a model names: its location (normalised, relative to the model's
/// folder), its size when it was checked, and how many tensors and bytes of it the model
/// names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExternalFile {
    /// The location, normalised (`spec/mpk.md` §2).
    pub location: String,
    /// The file's size in bytes.
    pub size: u64,
    /// How many tensors name it.
    pub tensors: u64,
    /// The bytes those tensors name (a range named twice counted twice).
    pub bytes: u64,
}

/// The external data files of one ONNX model, numbered in the order the model first names
/// them (the numbers its tensors' [`modelgate_core::onemodel::FileRange`]s carry).
#[derive(Debug)]
pub struct ExternalFiles<'d> {
    /// The model's folder.
    dir: &'d Path,
    /// The folder, opened at the first external tensor and held.
    folder: Option<Beneath>,
    /// The files, by number.
    files: Vec<ExternalFile>,
    /// Each file's number by location.
    by_location: BTreeMap<String, usize>,
    /// Each file's number by identity (device and inode on Unix), so that two locations
    /// of one file (letter case on a case-insensitive filesystem) are one file.
    by_identity: BTreeMap<(u64, u64), usize>,
    /// The file last opened for copying, by number.
    open: Option<(usize, File)>,
}

fn ext_err(kind: ErrorKind, message: &'static str) -> ExternalError {
    (kind, message)
}

impl<'d> ExternalFiles<'d> {
    /// No files yet, for a model in the folder `dir`.
    pub fn new(dir: &'d Path) -> Self {
        ExternalFiles {
            dir,
            folder: None,
            files: Vec::new(),
            by_location: BTreeMap::new(),
            by_identity: BTreeMap::new(),
            open: None,
        }
    }

    /// The files the model names, by number.
    pub fn files(&self) -> &[ExternalFile] {
        &self.files
    }

    /// The ONNX reader's resolver (§6.2): checks `r` and returns its file's number.
    pub fn resolve(&mut self, r: &ExternalRef<'_>) -> Result<usize, ExternalError> {
        let rel = normalize(r.location.as_bytes(), &PathLimits::DEFAULT).map_err(|e| {
            let message = if e.reason.is_traversal() {
                "external data location escapes the model's folder"
            } else {
                // Over the limits of `spec/mpk.md` §2.6, a control character, a trailing dot.
                "external data location is not a valid relative path"
            };
            ext_err(ErrorKind::Malformed, message)
        })?;
        let number = match self.by_location.get(&rel) {
            Some(&n) => n,
            None => self.add(rel)?,
        };
        let file = self
            .files
            .get_mut(number)
            .ok_or_else(|| ext_err(ErrorKind::Malformed, "external data file not readable"))?;
        let length = r.length.unwrap_or(file.size.saturating_sub(r.offset));
        match r.offset.checked_add(length) {
            Some(end) if end <= file.size => {}
            _ => return Err(ext_err(ErrorKind::OutOfRange, "external data range outside its file")),
        }
        if length != r.expected {
            return Err(ext_err(
                ErrorKind::OutOfRange,
                "external data length differs from dtype and dims",
            ));
        }
        file.tensors += 1;
        file.bytes = file.bytes.saturating_add(length);
        Ok(number)
    }

    /// Opens and checks the file at `rel`, not seen under this location before: its number.
    fn add(&mut self, rel: String) -> Result<usize, ExternalError> {
        let (file, identity) = self.checked(&rel)?;
        let size = file
            .metadata()
            .map_err(|_| ext_err(ErrorKind::Malformed, "external data file not readable"))?
            .len();
        let number = match identity.and_then(|id| self.by_identity.get(&id)) {
            Some(&n) => n,
            None => {
                let n = self.files.len();
                self.files.push(ExternalFile {
                    location: rel.clone(),
                    size,
                    tensors: 0,
                    bytes: 0,
                });
                if let Some(id) = identity {
                    self.by_identity.insert(id, n);
                }
                n
            }
        };
        self.by_location.insert(rel, number);
        Ok(number)
    }

    /// The file at `rel` opened beneath the model's folder, a regular file with one name,
    /// and its identity (Unix).
    fn checked(&mut self, rel: &str) -> Result<(File, Option<(u64, u64)>), ExternalError> {
        if self.folder.is_none() {
            let open =
                Beneath::open(self.dir).map_err(|_| ext_err(ErrorKind::Malformed, "model folder not readable"))?;
            self.folder = Some(open);
        }
        let folder = self
            .folder
            .as_ref()
            .ok_or_else(|| ext_err(ErrorKind::Malformed, "model folder not readable"))?;
        let file = folder.open_file(rel).map_err(|e| {
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
        let identity = identity(&meta)?;
        Ok((file, identity))
    }
}

impl Sources for ExternalFiles<'_> {
    /// File `number`, opened again beneath the folder and checked as when the model was
    /// read: the same file (Unix) of the same size, or an I/O error.
    fn open(&mut self, number: usize) -> io::Result<&File> {
        if self.open.as_ref().is_none_or(|(n, _)| *n != number) {
            self.open = None;
            let changed = || io::Error::other("an external data file changed after it was checked");
            let (location, size) = self
                .files
                .get(number)
                .map(|f| (f.location.clone(), f.size))
                .ok_or_else(|| io::Error::other("no such external data file"))?;
            let (file, identity) = self.checked(&location).map_err(|(_, m)| io::Error::other(m))?;
            let known = identity.map(|id| self.by_identity.get(&id) == Some(&number));
            if known == Some(false) || file.metadata()?.len() != size {
                return Err(changed());
            }
            self.open = Some((number, file));
        }
        match &self.open {
            Some((_, file)) => Ok(file),
            None => Err(io::Error::other("no such external data file")),
        }
    }
}

/// The opened file's identity, once it is known to have no second name (one hard link on
/// Unix) that could lie outside the folder; `None` off Unix.
#[cfg(unix)]
fn identity(opened: &std::fs::Metadata) -> Result<Option<(u64, u64)>, ExternalError> {
    use std::os::unix::fs::MetadataExt;
    if opened.nlink() != 1 {
        return Err(ext_err(ErrorKind::Malformed, "external data file is hard-linked"));
    }
    Ok(Some((opened.dev(), opened.ino())))
}

#[cfg(not(unix))]
fn identity(_opened: &std::fs::Metadata) -> Result<Option<(u64, u64)>, ExternalError> {
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh folder, removed with its contents when the test ends (pass or panic).
    fn dir(name: &str) -> crate::temp::TempDir {
        crate::temp::TempDir::create(&std::env::temp_dir(), "modelgate-ext", name).unwrap()
    }

    fn r(location: &str, offset: u64, length: Option<u64>, expected: u64) -> ExternalRef<'_> {
        ExternalRef {
            location,
            offset,
            length,
            expected,
        }
    }

    fn resolve(folder: &Path, r: &ExternalRef<'_>) -> Result<usize, ExternalError> {
        ExternalFiles::new(folder).resolve(r)
    }

    #[test]
    fn ranges_inside_their_file_are_numbered_by_file() {
        let tmp = dir("ok");
        let d = tmp.path();
        std::fs::write(d.join("w.bin"), (0u8..32).collect::<Vec<_>>()).unwrap();
        std::fs::create_dir(d.join("sub")).unwrap();
        std::fs::write(d.join("sub/v.bin"), [0u8; 8]).unwrap();
        let mut files = ExternalFiles::new(d);
        assert_eq!(files.resolve(&r("w.bin", 8, Some(4), 4)), Ok(0));
        assert_eq!(files.resolve(&r("sub/v.bin", 0, None, 8)), Ok(1));
        assert_eq!(files.resolve(&r("./w.bin", 28, None, 4)), Ok(0));
        assert_eq!(files.resolve(&r("w.bin", 8, Some(4), 4)), Ok(0));
        let w = ExternalFile {
            location: "w.bin".into(),
            size: 32,
            tensors: 3,
            bytes: 12,
        };
        assert_eq!(files.files().first(), Some(&w));
        assert_eq!(files.files().get(1).map(|f| f.location.as_str()), Some("sub/v.bin"));
        // The copy opens the same files again.
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut files.open(0).unwrap(), &mut bytes).unwrap();
        assert_eq!(bytes.len(), 32);
        for (case, kind) in [
            (r("w.bin", 30, Some(4), 4), ErrorKind::OutOfRange),
            (r("w.bin", 0, Some(4), 8), ErrorKind::OutOfRange),
            (r("w.bin", 0, None, 8), ErrorKind::OutOfRange),
            (r("w.bin", u64::MAX, Some(2), 2), ErrorKind::OutOfRange),
            (r("x.bin", 0, None, 0), ErrorKind::Malformed),
        ] {
            assert_eq!(resolve(d, &case).unwrap_err().0, kind, "{case:?}");
        }
        // A file that changed size after it was checked is not copied from.
        std::fs::write(d.join("sub/v.bin"), [0u8; 9]).unwrap();
        assert!(files.open(1).is_err());
    }

    #[test]
    fn locations_that_escape_or_links_are_refused() {
        let tmp = dir("escape");
        let d = tmp.path();
        let inner = d.join("m");
        std::fs::create_dir_all(&inner).unwrap();
        std::fs::write(d.join("secret.bin"), [1u8; 4]).unwrap();
        for loc in ["../secret.bin", "/etc/passwd", "a/../../secret.bin", "C:/x", ""] {
            assert_eq!(
                resolve(&inner, &r(loc, 0, None, 4)).unwrap_err().0,
                ErrorKind::Malformed,
                "{loc}"
            );
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(d.join("secret.bin"), inner.join("link.bin")).unwrap();
            assert_eq!(
                resolve(&inner, &r("link.bin", 0, None, 4)).unwrap_err().0,
                ErrorKind::Malformed
            );
            std::fs::hard_link(d.join("secret.bin"), inner.join("hard.bin")).unwrap();
            assert_eq!(
                resolve(&inner, &r("hard.bin", 0, None, 4)).unwrap_err(),
                (ErrorKind::Malformed, "external data file is hard-linked")
            );
            // A folder on the way that is a link, also one swapped in after the model's
            // folder was opened for an earlier tensor.
            std::fs::create_dir_all(d.join("out")).unwrap();
            std::fs::write(d.join("out/w.bin"), [1u8; 4]).unwrap();
            std::os::unix::fs::symlink(d.join("out"), inner.join("sub")).unwrap();
            assert_eq!(
                resolve(&inner, &r("sub/w.bin", 0, None, 4)).unwrap_err(),
                (
                    ErrorKind::Malformed,
                    "external data location is a link or not a regular file"
                )
            );
            std::fs::remove_file(inner.join("sub")).unwrap();
            std::fs::create_dir_all(inner.join("sub")).unwrap();
            std::fs::write(inner.join("sub/w.bin"), [2u8; 4]).unwrap();
            std::fs::write(inner.join("sub/v.bin"), [2u8; 4]).unwrap();
            let mut files = ExternalFiles::new(&inner);
            assert_eq!(files.resolve(&r("sub/w.bin", 0, None, 4)), Ok(0));
            std::fs::rename(inner.join("sub"), inner.join("sub-moved")).unwrap();
            std::os::unix::fs::symlink(d.join("out"), inner.join("sub")).unwrap();
            assert_eq!(
                files.resolve(&r("sub/v.bin", 0, None, 4)).unwrap_err().0,
                ErrorKind::Malformed
            );
            // Nor is a file copied from through the link.
            assert!(files.open(0).is_err());
        }
    }
}
