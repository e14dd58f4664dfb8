//! The package check over tar entries (`spec/mpk.md` §3.1 to §3.3): entry types, paths,
//! classes, the flattened layout and its collisions, limits, JSON documents, required
//! content, the contract and the pipeline.

use super::classify::{Class, basename, classify, destination, is_contract_name};
use super::contract::{Contract, parse_contract, parse_contract_json};
use super::error::{MpkError, MpkKind};
use super::limits::MpkLimits;
use super::pipeline::{PIPELINE_FILE, Pipeline, read_pipelines};
use super::registry::Registry;
use crate::Location;
use crate::archive_path::{PathLimits, PathReason, PathSet, SetError, normalize};
use crate::json::{self, Limits, Reason, Value};
use crate::tar::{Entry, EntryKind, reader::lossy_name};
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// What to do with an entry's data (§3.1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// A directory: accepted and ignored; it has no data.
    Ignore,
    /// A file to extract to `dest` (`<class folder><file name>`, §3.2).
    Extract {
        /// Normalised archive path.
        path: String,
        /// Destination relative to the extraction root.
        dest: String,
    },
}

/// One accepted file (§3.2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackageFile {
    /// Normalised archive path.
    pub path: String,
    /// Destination relative to the extraction root: the class folder and the file name.
    pub dest: String,
    /// Class.
    pub class: Class,
    /// Size in bytes.
    pub size: u64,
}

/// A package that passed every rule (§3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Package {
    /// Accepted files in archive order.
    pub files: Vec<PackageFile>,
    /// Archive path of the MPK contract.
    pub contract_path: String,
    /// The contract.
    pub contract: Contract,
    /// The pipelines of `pipeline_sequence.json`, stages in execution order; `None` when the
    /// package has none (it is optional, §3.3.3).
    pub pipelines: Option<Vec<Pipeline>>,
}

struct Current {
    path: String,
    size: u64,
    received: u64,
    json: Option<Vec<u8>>,
    header_offset: u64,
}

/// Checks a package entry by entry as the tar reader delivers it (`spec/mpk.md` §3).
/// JSON files are buffered (at most `max_total_json_bytes` together) and parsed strictly
/// when they end; other data is only counted.
pub struct PackageCheck {
    limits: MpkLimits,
    registry: Registry,
    /// Archive paths (§2.7) and destinations (§3.2.3): one duplicate rule for both.
    paths: PathSet,
    dests: PathSet,
    entries: u64,
    json_bytes: u64,
    files: Vec<PackageFile>,
    /// The first contract's path and kept value, and the path of a second one (§3.3.2).
    contract: Option<(String, Value)>,
    second_contract: Option<String>,
    /// The path of `pipeline_sequence.json` and the verdict on it (§3.4, §3.5), reported
    /// when the package ends.
    pipelines: Option<(String, Result<Vec<Pipeline>, MpkError>)>,
    current: Option<Current>,
    hash_key: [u64; 2],
}

impl PackageCheck {
    /// A check under `limits` and `registry`; `hash_key` keys the duplicate tables and
    /// the JSON name tables.
    pub fn new(limits: MpkLimits, registry: Registry, hash_key: [u64; 2]) -> Self {
        PackageCheck {
            limits,
            registry,
            paths: PathSet::new(hash_key),
            dests: PathSet::new(hash_key),
            entries: 0,
            json_bytes: 0,
            files: Vec::new(),
            contract: None,
            second_contract: None,
            pipelines: None,
            current: None,
            hash_key,
        }
    }

    /// Decides an entry (§3.1, in this order): count limit, path (§2), entry type,
    /// duplicates, class, destination collisions, size limits.
    pub fn entry(&mut self, e: &Entry) -> Result<Decision, MpkError> {
        self.entries += 1;
        if self.entries > self.limits.max_entries {
            return Err(MpkError::new(
                MpkKind::SizeLimitExceeded,
                "more entries than max_entries",
                Location::at(e.header_offset).in_member(&lossy_name(&e.path)),
            ));
        }
        let path = match normalize(&e.path, &PathLimits::DEFAULT) {
            Ok(p) => p,
            // §3.1 step 2: `./` (as `tar -C dir -czf pkg.tar.gz .` writes it) is the root
            // itself; a directory entry for it is ignored like any directory.
            Err(pe) if pe.reason == PathReason::Empty && e.kind == EntryKind::Directory => {
                return Ok(Decision::Ignore);
            }
            // §3.1 step 2: a link entry is `path_traversal` whatever its path (`spec/errors.md` §5), so
            // a link whose path also fails a rule of kind `invalid_archive` (a control
            // character, a trailing dot, an empty path) is reported as the link it is.
            Err(_) if is_link(e.kind) => {
                let at = Location::at(e.header_offset).in_member(&lossy_name(&e.path));
                return Err(link_error(e.kind, at));
            }
            Err(pe) => return Err(MpkError::from_path(&pe, &lossy_name(&e.path), e.header_offset)),
        };
        // A location (and its copy of the path) is built only for an error.
        let at = || Location::at(e.header_offset).in_member(&path);
        let is_dir = match e.kind {
            EntryKind::Regular => false,
            EntryKind::Directory => true,
            EntryKind::HardLink | EntryKind::Symlink => return Err(link_error(e.kind, at())),
            EntryKind::Other(flag) => {
                let what = format!("entries of tar typeflag {:?} are not allowed", char::from(flag));
                return Err(MpkError::new(MpkKind::InvalidArchive, what, at()));
            }
            _ => {
                return Err(MpkError::new(
                    MpkKind::InvalidArchive,
                    format!("{} entries are not allowed", e.kind.name()),
                    at(),
                ));
            }
        };
        self.paths.insert(&path, is_dir).map_err(|se| set_error(se, at()))?;
        if is_dir {
            return Ok(Decision::Ignore);
        }
        let Some(class) = classify(&path) else {
            return Err(MpkError::new(
                MpkKind::SchemaError,
                "file type not allowed in a package (.json, .yaml, .yml, .so, .elf)",
                at(),
            ));
        };
        let dest = destination(&path, class);
        self.dests.insert(&dest, false).map_err(|se| match se {
            SetError::Duplicate => self.collision(&path, &dest, at()),
            other => set_error(other, at()),
        })?;
        let json = self
            .limit_sizes(e.size, class)
            .map_err(|detail| MpkError::new(MpkKind::SizeLimitExceeded, detail, at()))?;
        self.files.push(PackageFile {
            path: path.clone(),
            dest: dest.clone(),
            class,
            size: e.size,
        });
        self.current = Some(Current {
            path: path.clone(),
            size: e.size,
            received: 0,
            json,
            header_offset: e.header_offset,
        });
        Ok(Decision::Extract { path, dest })
    }

    /// §3.1 step 7: the size limits, from the header before any byte is buffered; a JSON
    /// file gets its buffer.
    fn limit_sizes(&mut self, size: u64, class: Class) -> Result<Option<Vec<u8>>, &'static str> {
        if size > self.limits.max_entry_bytes {
            return Err("entry larger than max_entry_bytes");
        }
        if class != Class::Json {
            return Ok(None);
        }
        self.json_bytes = self.json_bytes.saturating_add(size);
        if self.json_bytes > self.limits.max_total_json_bytes {
            return Err("JSON files larger than max_total_json_bytes together");
        }
        let mut buf = Vec::new();
        buf.try_reserve_exact(usize::try_from(size).unwrap_or(usize::MAX))
            .map_err(|_| "JSON file does not fit in memory")?;
        Ok(Some(buf))
    }

    /// §3.2.3: `path` extracts to `dest`, where an earlier file already does.
    fn collision(&self, path: &str, dest: &str, at: Location) -> MpkError {
        let earlier = self.files.iter().find(|f| f.dest.eq_ignore_ascii_case(dest));
        debug_assert!(
            earlier.is_some(),
            "a destination is a duplicate only of an earlier file's"
        );
        let detail = match earlier {
            Some(f) => format!("{} and {path} both extract to {dest}", f.path),
            None => format!("{path} extracts to {dest} twice"),
        };
        MpkError::new(MpkKind::InvalidArchive, detail, at)
    }

    /// A piece of the current file's data; counted against its declared size again
    /// (§4) and buffered for JSON.
    pub fn data(&mut self, chunk: &[u8]) -> Result<(), MpkError> {
        let Some(cur) = self.current.as_mut() else {
            return Ok(());
        };
        cur.received = cur
            .received
            .saturating_add(u64::try_from(chunk.len()).unwrap_or(u64::MAX));
        if cur.received > cur.size {
            let loc = Location::at(cur.header_offset).in_member(&cur.path);
            return Err(MpkError::new(
                MpkKind::InvalidArchive,
                "entry data longer than its size",
                loc,
            ));
        }
        if let Some(buf) = cur.json.as_mut() {
            buf.extend_from_slice(chunk);
        }
        Ok(())
    }

    /// The current file ended: a JSON file is parsed strictly now (§3.3.1).
    pub fn entry_end(&mut self) -> Result<(), MpkError> {
        let Some(cur) = self.current.take() else { return Ok(()) };
        if cur.received != cur.size {
            let loc = Location::at(cur.header_offset).in_member(&cur.path);
            return Err(MpkError::new(
                MpkKind::InvalidArchive,
                "entry data shorter than its size",
                loc,
            ));
        }
        let Some(buf) = cur.json else { return Ok(()) };
        let limits = Limits {
            max_bytes: usize::try_from(self.limits.max_total_json_bytes).unwrap_or(usize::MAX),
            max_depth: self.limits.max_json_depth,
            hash_key: self.hash_key,
        };
        let err = |e: json::Error| json_error(&e, &cur.path);
        // §3.3.1: every JSON file is checked. Only the contract is built into a value, and
        // only the parts its rules read; the pipeline's rules run over its tokens, one
        // pipeline at a time, and the pipelines are built only if they all pass.
        let max_stages = self.limits.max_stages;
        let name = basename(&cur.path);
        if is_contract_name(name) {
            let doc = parse_contract_json(&buf, limits, &self.registry, max_stages).map_err(err)?;
            match self.contract {
                None => self.contract = Some((cur.path, doc)),
                Some(_) => {
                    if self.second_contract.is_none() {
                        self.second_contract = Some(cur.path);
                    }
                }
            }
        } else if name == PIPELINE_FILE {
            let verdict = read_pipelines(&buf, limits, &self.registry, max_stages).map_err(err)?;
            // The rules name the file `pipeline_sequence.json`; the package names its path.
            let verdict = verdict.map_err(|mut e| {
                e.location.member = Some(cur.path.clone());
                e
            });
            self.pipelines = Some((cur.path, verdict));
        } else {
            json::validate(&buf, limits).map_err(err)?;
        }
        Ok(())
    }

    /// The tar stream's end-of-archive marker was read (§3.3.4): an archive without entries
    /// is refused here, before the bytes after the marker are read.
    pub fn end(&self) -> Result<(), MpkError> {
        if self.entries == 0 {
            return Err(MpkError::new(
                MpkKind::InvalidArchive,
                "archive has no entries",
                Location::NONE,
            ));
        }
        Ok(())
    }

    /// The archive ended (after [`PackageCheck::end`]): the whole-package rules, in this
    /// order (§3.3): one contract, a model binary, the contract's rules, the pipeline's rules
    /// and its config files.
    pub fn finish(mut self) -> Result<Package, MpkError> {
        let Some((contract_path, doc)) = self.contract.take() else {
            return Err(MpkError::new(
                MpkKind::SchemaError,
                "package has no mpk.json or *_mpk.json",
                Location::NONE,
            ));
        };
        if let Some(second) = &self.second_contract {
            return Err(MpkError::new(
                MpkKind::SchemaError,
                format!("package has more than one MPK contract ({contract_path} first)"),
                Location::NONE.in_member(second),
            ));
        }
        if !self.files.iter().any(|f| f.class.is_binary()) {
            return Err(MpkError::new(
                MpkKind::InvalidArchive,
                "package has no .elf or .so model binary",
                Location::NONE,
            ));
        }
        let classes: BTreeMap<&str, Class> = self.files.iter().map(|f| (f.dest.as_str(), f.class)).collect();
        let files = |dest: &str| classes.get(dest).copied();
        let contract = parse_contract(&doc, &contract_path, &self.registry, self.limits.max_stages, &files)?;
        let pipelines = match self.pipelines.take() {
            Some((path, verdict)) => {
                let pipelines = verdict?;
                check_configs(&pipelines, &path, &files)?;
                Some(pipelines)
            }
            None => None,
        };
        Ok(Package {
            files: self.files,
            contract_path,
            contract,
            pipelines,
        })
    }
}

/// §3.4.4: every stage's `configPath` names a JSON file extracted to `etc/`.
fn check_configs(pipelines: &[Pipeline], member: &str, files: &dyn Fn(&str) -> Option<Class>) -> Result<(), MpkError> {
    for (pi, p) in pipelines.iter().enumerate() {
        for st in &p.stages {
            if files(&format!("etc/{}", st.config_path)) != Some(Class::Json) {
                let path = format!("pipeline_sequence.pipelines[{pi}].sequence[{}].configPath", st.index);
                let loc = Location {
                    member: Some(String::from(member)),
                    path: Some(path),
                    offset: None,
                };
                return Err(MpkError::new(
                    MpkKind::SchemaError,
                    "configPath names no JSON file extracted to etc/",
                    loc,
                ));
            }
        }
    }
    Ok(())
}

/// §2.7, §3.2.3: a duplicate or conflicting path is `invalid_archive`; a full set is a limit.
fn set_error(se: SetError, at: Location) -> MpkError {
    let kind = match se {
        SetError::Full => MpkKind::SizeLimitExceeded,
        _ => MpkKind::InvalidArchive,
    };
    MpkError::new(kind, format!("{se}"), at)
}

/// §3.3.1: JSON failures are `schema_error`; the size limit was checked before.
fn json_error(e: &json::Error, member: &str) -> MpkError {
    let mut err = MpkError::from_json(e, member);
    if e.reason == Reason::TooLarge {
        err.kind = MpkKind::SizeLimitExceeded;
    }
    err
}

/// Symbolic and hard links: `path_traversal` (§3.1 step 3, `spec/errors.md` §5).
fn is_link(kind: EntryKind) -> bool {
    matches!(kind, EntryKind::HardLink | EntryKind::Symlink)
}

/// The rejection of a link entry at `at` (§3.1 steps 2 and 3).
fn link_error(kind: EntryKind, at: Location) -> MpkError {
    MpkError::new(
        MpkKind::PathTraversal,
        format!("{} entries are not allowed", kind.name()),
        at,
    )
}
