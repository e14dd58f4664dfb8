//! File classes and their destination folders (`spec/mpk.md` §3.2).

use core::fmt;

/// The class of an accepted file, from its extension (`spec/mpk.md` §3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    /// `*.json` → `etc/`.
    Json,
    /// `*.so` → `lib/`.
    SharedObject,
    /// `*.elf` → `share/`.
    Elf,
}

impl Class {
    /// The destination folder, with its trailing slash.
    pub fn folder(self) -> &'static str {
        match self {
            Class::Json => "etc/",
            Class::SharedObject => "lib/",
            Class::Elf => "share/",
        }
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Class::Json => "json",
            Class::SharedObject => "so",
            Class::Elf => "elf",
        })
    }
}

/// The class of a normalised path: its last segment ends in exactly `.json`, `.so` or
/// `.elf` (lowercase) after a non-empty stem (§3.2). `None` for anything else.
pub fn classify(path: &str) -> Option<Class> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let (stem, ext) = name.rsplit_once('.')?;
    if stem.is_empty() {
        return None;
    }
    match ext {
        "json" => Some(Class::Json),
        "so" => Some(Class::SharedObject),
        "elf" => Some(Class::Elf),
        _ => None,
    }
}

/// True for the MPK contract's file name: `mpk.json` or `<stem>_mpk.json` (§3.3).
pub fn is_contract_name(name: &str) -> bool {
    name == "mpk.json" || name.strip_suffix("_mpk.json").is_some_and(|stem| !stem.is_empty())
}
