//! The package check over tar entries (`spec/mpk.md` §3.1 to §3.3, §3.8): entry types,
//! paths, classes, limits, JSON documents, required content, pipeline and contract.

use super::classify::{Class, classify, is_contract_name};
use super::contract::{Contract, parse_contract, parse_contract_json, search_order};
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
    /// A file to extract to `dest` (`<class folder><normalised path>`).
    Extract {
        /// Destination relative to the extraction root.
        dest: String,
        /// The file's class.
        class: Class,
    },
}

/// One accepted file (§3.2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackageFile {
    /// Normalised archive path.
    pub path: String,
    /// Destination relative to the extraction root.
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
    /// The pipelines, stages in execution order.
    pub pipelines: Vec<Pipeline>,
}

struct Current {
    path: String,
    size: u64,
    received: u64,
    json: Option<Vec<u8>>,
    header_offset: u64,
}

/// Checks a package entry by entry as the tar reader delivers it (`spec/mpk.md` §3).
/// JSON files are buffered (at most `max_json_bytes` each) and parsed strictly when
/// they end; other data is only counted.
pub struct PackageCheck {
    limits: MpkLimits,
    registry: Registry,
    set: PathSet,
    entries: u64,
    files: Vec<PackageFile>,
    docs: BTreeMap<String, Value>,
    /// The verdict on `pipeline_sequence.json` (§3.4, §3.5), reported when the package ends.
    pipelines: Option<Result<Vec<Pipeline>, MpkError>>,
    current: Option<Current>,
    hash_key: [u64; 2],
}

impl PackageCheck {
    /// A check under `limits` and `registry`; `hash_key` keys the duplicate table and
    /// the JSON name tables.
    pub fn new(limits: MpkLimits, registry: Registry, hash_key: [u64; 2]) -> Self {
        PackageCheck {
            limits,
            registry,
            set: PathSet::new(hash_key),
            entries: 0,
            files: Vec::new(),
            docs: BTreeMap::new(),
            pipelines: None,
            current: None,
            hash_key,
        }
    }

    /// Decides an entry (§3.1, in this order): count limit, path (§2), entry type,
    /// duplicates, class, size limits.
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
            // §3.1 step 2: a link entry is `path_traversal` whatever its path (CONVENTIONS), so
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
        self.set.insert(&path, is_dir).map_err(|se| {
            let kind = match se {
                SetError::Full => MpkKind::SizeLimitExceeded,
                _ => MpkKind::InvalidArchive,
            };
            MpkError::new(kind, format!("{se}"), at())
        })?;
        if is_dir {
            return Ok(Decision::Ignore);
        }
        let Some(class) = classify(&path) else {
            return Err(MpkError::new(
                MpkKind::InvalidArchive,
                "file is not .json, .so or .elf",
                at(),
            ));
        };
        if e.size > self.limits.max_entry_bytes {
            return Err(MpkError::new(
                MpkKind::SizeLimitExceeded,
                "entry larger than max_entry_bytes",
                at(),
            ));
        }
        let json = if class == Class::Json {
            if e.size > self.limits.max_json_bytes {
                return Err(MpkError::new(
                    MpkKind::SizeLimitExceeded,
                    "JSON file larger than max_json_bytes",
                    at(),
                ));
            }
            let mut buf = Vec::new();
            buf.try_reserve_exact(usize::try_from(e.size).unwrap_or(usize::MAX))
                .map_err(|_| MpkError::new(MpkKind::SizeLimitExceeded, "JSON file does not fit in memory", at()))?;
            Some(buf)
        } else {
            None
        };
        let dest = format!("{}{}", class.folder(), path);
        self.files.push(PackageFile {
            path: path.clone(),
            dest: dest.clone(),
            class,
            size: e.size,
        });
        self.current = Some(Current {
            path,
            size: e.size,
            received: 0,
            json,
            header_offset: e.header_offset,
        });
        Ok(Decision::Extract { dest, class })
    }

    /// A piece of the current file's data; counted against its declared size again
    /// (§4.2) and buffered for JSON.
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

    /// The current file ended: a JSON file is parsed strictly now (§3.3).
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
        if let Some(buf) = cur.json {
            let limits = Limits {
                max_bytes: usize::try_from(self.limits.max_json_bytes).unwrap_or(usize::MAX),
                max_depth: self.limits.max_json_depth,
            };
            let err = |e: json::Error| json_error(&e, &cur.path);
            // §3.3.1: every JSON file is checked. Only the contract, whose rules read it, is
            // built into a value, and only the parts those rules read (a value costs some 60
            // bytes per element at its peak); the pipeline's rules run over its tokens, one
            // pipeline at a time, and the pipelines are built only if they all pass.
            let max_stages = self.limits.max_stages;
            let root = !cur.path.contains('/');
            if root && is_contract_name(&cur.path) {
                let doc = parse_contract_json(&buf, limits, self.hash_key, max_stages).map_err(err)?;
                self.docs.insert(cur.path, doc);
            } else if root && cur.path == PIPELINE_FILE {
                let verdict = read_pipelines(&buf, limits, self.hash_key, &self.registry, max_stages).map_err(err)?;
                self.pipelines = Some(verdict);
            } else {
                json::validate_keyed(&buf, limits, self.hash_key).map_err(err)?;
            }
        }
        Ok(())
    }

    /// The archive ended: required content, pipeline and contract (§3.3, §3.4, §3.7).
    pub fn finish(mut self) -> Result<Package, MpkError> {
        let none = Location::NONE;
        // §3.3: exactly one contract at the package root.
        let mut contracts = self.docs.keys().filter(|k| !k.contains('/') && is_contract_name(k));
        let Some(contract_path) = contracts.next().cloned() else {
            return Err(MpkError::new(
                MpkKind::SchemaError,
                "package has no mpk.json or *_mpk.json",
                none,
            ));
        };
        if let Some(second) = contracts.next() {
            let loc = Location::NONE.in_member(second);
            return Err(MpkError::new(
                MpkKind::SchemaError,
                "package has more than one MPK contract",
                loc,
            ));
        }
        let Some(verdict) = self.pipelines.take() else {
            return Err(MpkError::new(
                MpkKind::SchemaError,
                "package has no pipeline_sequence.json",
                none,
            ));
        };
        if !self
            .files
            .iter()
            .any(|f| matches!(f.class, Class::Elf | Class::SharedObject))
        {
            return Err(MpkError::new(
                MpkKind::SchemaError,
                "package has no .elf or .so model binary",
                none,
            ));
        }
        let pipelines = verdict?;
        self.check_configs(&pipelines)?;
        let first = pipelines.first().cloned().unwrap_or_default();
        let contract_doc = self.docs.get(&contract_path).ok_or_else(|| {
            MpkError::new(
                MpkKind::SchemaError,
                "package has no mpk.json or *_mpk.json",
                none.clone(),
            )
        })?;
        let contract = parse_contract(contract_doc, &contract_path, &first)?;
        self.check_executables(&contract, &contract_path)?;
        Ok(Package {
            files: self.files,
            contract_path,
            contract,
            pipelines,
        })
    }

    /// §3.3: every stage's `configPath` names a JSON file of the package.
    fn check_configs(&self, pipelines: &[Pipeline]) -> Result<(), MpkError> {
        let json: BTreeMap<&str, ()> = self
            .files
            .iter()
            .filter(|f| f.class == Class::Json)
            .map(|f| (f.path.as_str(), ()))
            .collect();
        for (pi, p) in pipelines.iter().enumerate() {
            for st in &p.stages {
                if !json.contains_key(st.config_path.as_str()) {
                    let path = format!("pipeline_sequence.pipelines[{pi}].sequence[{}].configPath", st.index);
                    let loc = Location {
                        member: Some(String::from(PIPELINE_FILE)),
                        path: Some(path),
                        offset: None,
                    };
                    return Err(MpkError::new(
                        MpkKind::SchemaError,
                        "configPath names no JSON file of the package",
                        loc,
                    ));
                }
            }
        }
        Ok(())
    }

    /// §3.7.4: every contract executable is in the package.
    fn check_executables(&self, contract: &Contract, member: &str) -> Result<(), MpkError> {
        let files: BTreeMap<&str, ()> = self.files.iter().map(|f| (f.dest.as_str(), ())).collect();
        for (i, st) in contract.stages.iter().enumerate() {
            let found = search_order(&st.processor)
                .iter()
                .any(|folder| files.contains_key(format!("{folder}{}", st.executable).as_str()));
            if !found {
                let loc = Location {
                    member: Some(String::from(member)),
                    path: Some(format!("mpk.stages[{i}].executable")),
                    offset: None,
                };
                return Err(MpkError::new(
                    MpkKind::SchemaError,
                    "executable is not in the package",
                    loc,
                ));
            }
        }
        Ok(())
    }
}

/// §3.3: JSON failures are `schema_error`; the size limit was checked before.
fn json_error(e: &json::Error, member: &str) -> MpkError {
    let mut err = MpkError::from_json(e, member);
    if e.reason == Reason::TooLarge {
        err.kind = MpkKind::SizeLimitExceeded;
    }
    err
}

/// Symbolic and hard links: `path_traversal` (§3.1 step 3, CONVENTIONS).
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
