//! `hostile-corpus/mvb/`: placeholder until its issue lands.

use crate::CorpusFile;

/// The corpus files of this module.
pub fn files() -> Vec<CorpusFile> {
    Vec::new()
}
