//! File classes, their destination folders and the flattened layout (`spec/mpk.md` §3.2).

use alloc::string::String;
use core::fmt;

/// The class of an accepted file, from the last extension of its name (`spec/mpk.md` §3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    /// `*.json` → `etc/`; parsed as strict JSON.
    Json,
    /// `*.yaml`, `*.yml` → `etc/`; carried, not parsed.
    Yaml,
    /// `*.so` → `lib/`.
    SharedObject,
    /// `*.elf` → `share/`.
    Elf,
}

impl Class {
    /// The destination folder, with its trailing slash.
    pub fn folder(self) -> &'static str {
        match self {
            Class::Json | Class::Yaml => "etc/",
            Class::SharedObject => "lib/",
            Class::Elf => "share/",
        }
    }

    /// True for the model binaries a package must hold one of (§3.3): `.elf` and `.so`.
    pub(crate) fn is_binary(self) -> bool {
        matches!(self, Class::SharedObject | Class::Elf)
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Class::Json => "json",
            Class::Yaml => "yaml",
            Class::SharedObject => "so",
            Class::Elf => "elf",
        })
    }
}

/// The last segment of a normalised path: the name a file is extracted under (§3.2).
pub(crate) fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The class of a normalised path from its file name's last extension, exact and
/// case-sensitive, after a non-empty stem (§3.2.1): `.json`, `.yaml`, `.yml`, `.so`, `.elf`.
/// `None` for anything else (`lib.so.1`, `x.JSON`, `.json`).
pub(crate) fn classify(path: &str) -> Option<Class> {
    let (stem, ext) = basename(path).rsplit_once('.')?;
    if stem.is_empty() {
        return None;
    }
    match ext {
        "json" => Some(Class::Json),
        "yaml" | "yml" => Some(Class::Yaml),
        "so" => Some(Class::SharedObject),
        "elf" => Some(Class::Elf),
        _ => None,
    }
}

/// Where a file of `class` at normalised archive path `path` is extracted (§3.2.2): its
/// class folder and its file name, whatever folders the archive put it in.
pub fn destination(path: &str, class: Class) -> String {
    let name = basename(path);
    let mut dest = String::with_capacity(class.folder().len() + name.len());
    dest.push_str(class.folder());
    dest.push_str(name);
    dest
}

/// True for the MPK contract's file name: `mpk.json` or `<stem>_mpk.json` (§3.3.2).
pub(crate) fn is_contract_name(name: &str) -> bool {
    name == "mpk.json" || name.strip_suffix("_mpk.json").is_some_and(|stem| !stem.is_empty())
}
