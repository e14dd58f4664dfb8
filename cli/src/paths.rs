//! The checks every writing command runs on its paths before it starts (README "Command
//! line"): an input that cannot be opened, an output whose folder does not exist, an output
//! that exists already, each reported with the path it is about before any work is done.
//!
//! These checks only make the common mistakes fast and named: the libraries still refuse
//! an existing destination atomically when they publish, and whatever changes between the
//! check and the work is reported by them.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// A path that cannot serve as the command needs it to: `PATH: message`.
#[derive(Debug)]
pub struct PathError {
    /// The path the problem is about.
    pub path: PathBuf,
    /// What is wrong with it.
    pub message: String,
}

impl PathError {
    fn new(path: &Path, message: impl Into<String>) -> Self {
        PathError {
            path: path.to_path_buf(),
            message: message.into(),
        }
    }
}

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

/// An input file: a regular file that can be opened for reading (a FIFO or device is refused
/// without being opened, [`modelgate_io::read::open_regular_file`]).
pub fn input_file(path: &Path) -> Result<(), PathError> {
    modelgate_io::read::open_regular_file(path)
        .map(drop)
        .map_err(|e| PathError::new(path, e.to_string()))
}

/// An existing folder: an input folder, or one that a command writes into.
pub fn folder(path: &Path) -> Result<(), PathError> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(PathError::new(path, "not a folder")),
        Err(e) => Err(PathError::new(path, e.to_string())),
    }
}

/// An output file: its folder exists; without `overwrite` nothing exists at `path` (a
/// symbolic link, even a dangling one, counts); with it, `path` is not a folder.
pub fn output_file(path: &Path, overwrite: bool) -> Result<(), PathError> {
    parent_exists(path)?;
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(PathError::new(path, e.to_string())),
        Ok(_) if !overwrite => Err(exists(path)),
        Ok(m) if m.is_dir() => Err(PathError::new(path, "is a folder; give the path of the file to write")),
        Ok(_) => Ok(()),
    }
}

/// A folder a command creates: its parent exists and nothing exists at `path`. Folders are
/// never replaced.
pub fn new_folder(path: &Path) -> Result<(), PathError> {
    parent_exists(path)?;
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(PathError::new(path, e.to_string())),
        Ok(_) => Err(PathError::new(path, "already exists; a folder is never replaced")),
    }
}

/// The error of an output file that exists (also when a library finds it at publication).
pub fn exists(path: &Path) -> PathError {
    PathError::new(path, "already exists; use --overwrite to replace it")
}

/// The folder `path` is written in exists and is a folder.
fn parent_exists(path: &Path) -> Result<(), PathError> {
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    match std::fs::metadata(parent) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(PathError::new(path, format!("{} is not a folder", parent.display()))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err(PathError::new(
            path,
            format!("folder {} does not exist", parent.display()),
        )),
        Err(e) => Err(PathError::new(parent, e.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_name_alone_is_written_in_the_current_folder() {
        assert!(parent_exists(Path::new("x.onemodel")).is_ok());
    }
}
