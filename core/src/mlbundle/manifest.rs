//! The manifest: schema, strict parsing, canonical writing (`spec/mlbundle.md` §5).

use super::error::{Error, ErrorKind};
use super::limits::ArchiveLimits;
use super::names::{MemberName, NAMES};
use super::version::{READER_VERSION, is_strict_version, quote_version, reexport_hint};
use crate::Location;
use crate::digest::hex;
use crate::json::{self, Cursor, FieldError, Keep, Member, Node, Problem, Value};
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// The format identity (§5.2).
pub(crate) const FORMAT: &str = "mlbundle";
/// The only supported format version (§5.3).
pub(crate) const FORMAT_VERSION: &str = "1";

/// How the model members are combined (§5.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recipe {
    /// One model member.
    Standalone(MemberName),
    /// `model.skops` with this native member (`model.ubj` or `model.cbm`).
    Composite(MemberName),
}

impl Recipe {
    /// The recipe's members in order.
    pub fn members(&self) -> impl Iterator<Item = MemberName> {
        let (a, b) = match *self {
            Recipe::Standalone(m) => (m, None),
            Recipe::Composite(n) => (MemberName::ModelSkops, Some(n)),
        };
        core::iter::once(a).chain(b)
    }

    /// True when the recipe is one §5.5 allows.
    pub(crate) fn is_valid(&self) -> bool {
        match *self {
            Recipe::Standalone(m) => m.is_model(),
            Recipe::Composite(n) => matches!(n, MemberName::ModelUbj | MemberName::ModelCbm),
        }
    }
}

/// SHA-256 and size of one non-manifest member (§5.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntegrityRecord {
    /// SHA-256 of the member's uncompressed bytes.
    pub sha256: [u8; 32],
    /// Uncompressed size in bytes.
    pub size: u64,
}

/// A validated manifest (§5.2). The schema reference is always `schema.json`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Manifest {
    /// The writer version that produced the bundle (a strict version string, §5.4).
    pub writer_version: String,
    /// The model recipe (§5.5).
    pub recipe: Recipe,
    /// Whether `structure.json` is referenced.
    pub structure: bool,
    /// Whether `samples.json` is referenced.
    pub samples: bool,
    /// Integrity records keyed by member (§5.6).
    pub integrity: BTreeMap<MemberName, IntegrityRecord>,
}

impl Manifest {
    /// A manifest written by this version, without integrity records (the writer fills them).
    pub fn new(recipe: Recipe, structure: bool, samples: bool) -> Manifest {
        Manifest {
            writer_version: String::from(READER_VERSION),
            recipe,
            structure,
            samples,
            integrity: BTreeMap::new(),
        }
    }

    /// Parses and validates `bytes` (§5.1–§5.6): identity and version first, then every
    /// typed member, with the re-export hint on `InvalidManifest` (§5.7). The value holds
    /// only what these rules read (§5.1).
    pub fn parse(bytes: &[u8], limits: &ArchiveLimits) -> Result<Manifest, Error> {
        Manifest::read(&kept(bytes, limits)?)
    }

    /// The rules of §5.2–§5.7 on a parsed manifest.
    fn read(value: &Value) -> Result<Manifest, Error> {
        let root = Cursor::root(value, "manifest");
        identity(&root)?;
        let writer = value.get("writer_version").and_then(Value::as_str);
        typed(&root).map_err(|e| field_error(&e, &reexport_hint(writer)))
    }

    /// JSON-ready manifest parts for the writer (§10.4): the manifest schema of §5.2, except
    /// that `writer_version` and `integrity` may be omitted (the writer sets both; given
    /// integrity records are validated, then replaced).
    pub fn from_parts(bytes: &[u8], limits: &ArchiveLimits) -> Result<Manifest, Error> {
        let mut value = kept(bytes, limits)?;
        if let Node::Object(members) = &mut value.node {
            let missing = |members: &[Member], name: &str| !members.iter().any(|m| m.name == name);
            if missing(members, "writer_version") {
                members.push(synthetic("writer_version", Node::String(READER_VERSION.into())));
            }
            if missing(members, "integrity") {
                members.push(synthetic("integrity", Node::Object(alloc::vec::Vec::new())));
            }
        }
        let root = Cursor::root(&value, "manifest");
        identity(&root)?;
        typed(&root).map_err(|e| field_error(&e, ""))
    }

    /// The canonical manifest text (§10.4): members in the order of §5.2.
    pub fn to_json(&self) -> String {
        let mut w = json::Writer::new();
        w.begin_object();
        w.name("format").string(FORMAT);
        w.name("format_version").string(FORMAT_VERSION);
        w.name("writer_version").string(&self.writer_version);
        w.name("recipe").begin_object();
        let kind = match self.recipe {
            Recipe::Standalone(_) => "standalone",
            Recipe::Composite(_) => "composite",
        };
        w.name("kind").string(kind);
        w.name("members").begin_array();
        for m in self.recipe.members() {
            w.string(m.as_str());
        }
        w.end_array().end_object();
        w.name("schema").string(MemberName::Schema.as_str());
        if self.structure {
            w.name("structure").string(MemberName::Structure.as_str());
        }
        if self.samples {
            w.name("samples").string(MemberName::Samples.as_str());
        }
        w.name("integrity").begin_object();
        for (name, rec) in &self.integrity {
            w.name(name.as_str()).begin_object();
            w.name("sha256").string(&hex(&rec.sha256));
            w.name("size").u64(rec.size);
            w.end_object();
        }
        w.end_object().end_object();
        w.finish()
    }
}

/// What §5 reads of an integrity record.
const RECORD: [(&str, Keep<'static>); 2] = [("sha256", Keep::Shape), ("size", Keep::Shape)];

/// What §5.6 reads of `integrity`: a record per non-manifest member name. Those are seven,
/// so of a longer object the closed schema keeps an unknown name among its first eight
/// members, which the rule reports first.
#[allow(clippy::indexing_slicing)] // Evaluated at compile time: a bad index fails the build.
const INTEGRITY: [(&str, Keep<'static>); 7] = {
    let rec = Keep::Closed(&RECORD);
    [
        (NAMES[1], rec),
        (NAMES[2], rec),
        (NAMES[3], rec),
        (NAMES[4], rec),
        (NAMES[5], rec),
        (NAMES[6], rec),
        (NAMES[7], rec),
    ]
};

/// What §5.5 reads of `recipe`: every element of `members` is checked.
const RECIPE: [(&str, Keep<'static>); 2] = [
    ("kind", Keep::Shape),
    ("members", Keep::Items(usize::MAX, &Keep::Shape)),
];

/// What §5.2–§5.7 read of the manifest: exactly its members (§5.2), which `typed` also
/// takes from here.
const ROOT: [(&str, Keep<'static>); 8] = [
    ("format", Keep::Shape),
    ("format_version", Keep::Shape),
    ("writer_version", Keep::Shape),
    ("recipe", Keep::Closed(&RECIPE)),
    ("schema", Keep::Shape),
    ("structure", Keep::Shape),
    ("samples", Keep::Shape),
    ("integrity", Keep::Closed(&INTEGRITY)),
];

/// The manifest parsed with every check of §5.1 (`spec/json.md` §8.1), holding only what
/// the rules read: the closed objects' members and their first unknown one, which
/// `only_members` reports. Unknown members cost their text, never a value (§5.1).
fn kept(bytes: &[u8], limits: &ArchiveLimits) -> Result<Value, Error> {
    let json = limits.json(MemberName::Manifest);
    let keep = Some(Keep::Closed(&ROOT));
    json::parse(bytes, json::ParseOptions { limits: json, keep }).map_err(syntax_error)
}

/// A member the writer supplies for omitted parts.
fn synthetic(name: &str, node: Node) -> Member {
    Member {
        name: name.into(),
        name_offset: 0,
        value: Value::new(node),
    }
}

/// §5.1: syntax is `InvalidManifest`, size and depth `LimitExceeded`.
fn syntax_error(e: json::Error) -> Error {
    let kind = match e.kind() {
        json::ErrorKind::LimitExceeded => ErrorKind::LimitExceeded,
        json::ErrorKind::InvalidJson => ErrorKind::InvalidManifest,
    };
    let message = format!("manifest is not valid JSON: {}", json::Message(e.reason));
    Error::new(kind, message, manifest_at(None, e.offset))
}

fn manifest_at(path: Option<String>, offset: usize) -> Location {
    let offset = u64::try_from(offset).unwrap_or(u64::MAX);
    let mut at = Location::at(offset).in_member(MemberName::Manifest.as_str());
    at.path = path;
    at
}

fn field_error(e: &FieldError, hint: &str) -> Error {
    let message = format!("{}: {}{hint}", e.path, e.problem);
    Error::new(
        ErrorKind::InvalidManifest,
        message,
        manifest_at(Some(e.path.clone()), e.offset),
    )
}

/// §5.3: `format` then `format_version`, before anything version-specific.
fn identity(root: &Cursor<'_, '_>) -> Result<(), Error> {
    let plain = |e: FieldError| field_error(&e, "");
    root.object().map_err(plain)?;
    let format = root.field("format").map_err(plain)?;
    let found = format.str().map_err(plain)?;
    if found != FORMAT {
        let text = format!("format {} is not \"{FORMAT}\"", quote_version(found));
        return Err(plain(format.error(Problem::Stated(text))));
    }
    let version = root.field("format_version").map_err(plain)?;
    let v = version.str().map_err(plain)?;
    if v != FORMAT_VERSION {
        let message = format!(
            "unsupported mlbundle format version {} (this reader supports \"{FORMAT_VERSION}\")",
            quote_version(v)
        );
        let at = manifest_at(Some(version.path()), version.value().offset);
        return Err(Error::new(ErrorKind::UnsupportedFormatVersion, message, at));
    }
    Ok(())
}

/// §5.2, §5.4–§5.6: the version-specific members.
fn typed(root: &Cursor<'_, '_>) -> Result<Manifest, FieldError> {
    root.only_members(&ROOT.map(|(name, _)| name))?;
    let wv = root.field("writer_version")?;
    let writer_version = wv.str()?;
    if !is_strict_version(writer_version) {
        return Err(wv.error(Problem::Rule("writer_version is not a strict version string")));
    }
    let recipe = recipe(&root.field("recipe")?)?;
    reference(&root.field("schema")?, MemberName::Schema)?;
    let structure = root.opt_field("structure")?;
    if let Some(s) = &structure {
        reference(s, MemberName::Structure)?;
    }
    let samples = root.opt_field("samples")?;
    if let Some(s) = &samples {
        reference(s, MemberName::Samples)?;
    }
    let integrity = integrity(&root.field("integrity")?)?;
    Ok(Manifest {
        writer_version: String::from(writer_version),
        recipe,
        structure: structure.is_some(),
        samples: samples.is_some(),
        integrity,
    })
}

fn reference(c: &Cursor<'_, '_>, name: MemberName) -> Result<(), FieldError> {
    let found = c.str()?;
    if found != name.as_str() {
        let text = format!(
            "reference {} does not name its member (expected \"{name}\")",
            quote_version(found)
        );
        return Err(c.error(Problem::Stated(text)));
    }
    Ok(())
}

/// §5.5.
fn recipe(c: &Cursor<'_, '_>) -> Result<Recipe, FieldError> {
    c.only_members(&RECIPE.map(|(name, _)| name))?;
    let kind = c.field("kind")?;
    let members = c.field("members")?;
    let list = members.array()?;
    let mut names = [None; 2];
    for (i, item) in members.items()?.enumerate() {
        let found = item.str()?;
        let name = MemberName::parse(found).filter(|n| n.is_model());
        let name = name.ok_or_else(|| {
            let models: Vec<&str> = NAMES
                .into_iter()
                .filter(|n| MemberName::parse(n).is_some_and(MemberName::is_model))
                .collect();
            let text = format!(
                "{} is not a model member name (expected one of {})",
                quote_version(found),
                models.join(", ")
            );
            item.error(Problem::Stated(text))
        })?;
        if let Some(slot) = names.get_mut(i) {
            *slot = Some(name);
        }
    }
    let recipe = match (kind.str()?, list.len(), names) {
        ("standalone", 1, [Some(m), None]) => Recipe::Standalone(m),
        ("composite", 2, [Some(MemberName::ModelSkops), Some(n)]) => Recipe::Composite(n),
        ("standalone" | "composite", _, _) => {
            return Err(members.error(Problem::Rule("members do not fit the recipe kind")));
        }
        (other, _, _) => {
            let text = format!("kind {} is not \"standalone\" or \"composite\"", quote_version(other));
            return Err(kind.error(Problem::Stated(text)));
        }
    };
    if !recipe.is_valid() {
        return Err(members.error(Problem::Rule("members do not fit the recipe kind")));
    }
    Ok(recipe)
}

/// §5.6: names are non-manifest members, records are exactly `{sha256, size}`.
fn integrity(c: &Cursor<'_, '_>) -> Result<BTreeMap<MemberName, IntegrityRecord>, FieldError> {
    let mut out = BTreeMap::new();
    for (name, rec) in c.members()? {
        let member = MemberName::parse(name).filter(|n| *n != MemberName::Manifest);
        let member = member.ok_or_else(|| {
            let names: Vec<&str> = NAMES
                .into_iter()
                .filter(|n| *n != MemberName::Manifest.as_str())
                .collect();
            let text = format!(
                "integrity record for {}, which is not a member name (expected one of {})",
                quote_version(name),
                names.join(", ")
            );
            rec.error(Problem::Stated(text))
        })?;
        rec.only_members(&RECORD.map(|(name, _)| name))?;
        let sha = rec.field("sha256")?;
        let sha256 = parse_hex(sha.str()?).ok_or_else(|| sha.error(Problem::Rule("not 64 lowercase hex digits")))?;
        let size = rec.field("size")?.u64()?;
        out.insert(member, IntegrityRecord { sha256, size });
    }
    Ok(out)
}

fn parse_hex(s: &str) -> Option<[u8; 32]> {
    let bytes = s.as_bytes();
    if bytes.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (o, pair) in out.iter_mut().zip(bytes.chunks_exact(2)) {
        let digit = |b: u8| match b {
            b'0'..=b'9' => Some(b - b'0'),
            b'a'..=b'f' => Some(b - b'a' + 10),
            _ => None,
        };
        *o = (digit(*pair.first()?)? << 4) | digit(*pair.get(1)?)?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    //! The kept manifest against the whole one: over manifests generated around §5, the
    //! rules give the same outcome on both, error for error.

    use super::*;
    use crate::test_docs::{Choose, ODD, Rng, list, object};

    const HEX: &str = "\"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"";

    fn pick(rng: &mut Rng, options: &[&str]) -> String {
        String::from(if rng.one_in(8) {
            rng.pick(&ODD)
        } else {
            rng.pick(options)
        })
    }

    fn record(rng: &mut Rng) -> String {
        if rng.one_in(3) {
            return object(rng, &["sha256", "size", "x"], |rng, key| match key {
                "sha256" => pick(rng, &[HEX, "\"abc\""]),
                "size" => pick(rng, &["1", "-1", "1.5"]),
                _ => String::from(rng.pick(&ODD)),
            });
        }
        format!(r#"{{"sha256":{HEX},"size":{}}}"#, rng.pick(&["0", "3", "2.0"]))
    }

    fn integrity(rng: &mut Rng) -> String {
        let keys = [
            "model.onnx",
            "model.cbm",
            "schema.json",
            "samples.json",
            "structure.json",
            "model.skops",
            "manifest.json",
            "bogus",
            "other",
        ];
        if rng.one_in(3) {
            return object(rng, &keys, |rng, _| {
                if rng.one_in(10) {
                    String::from(rng.pick(&ODD))
                } else {
                    record(rng)
                }
            });
        }
        object(rng, &keys[..5], |rng, _| record(rng))
    }

    fn recipe(rng: &mut Rng) -> String {
        let members = |rng: &mut Rng| {
            let names = [
                "\"model.onnx\"",
                "\"model.skops\"",
                "\"model.ubj\"",
                "\"model.cbm\"",
                "\"schema.json\"",
            ];
            format!("[{}]", list(rng, 3, |rng| pick(rng, &names)))
        };
        if rng.one_in(3) {
            return object(rng, &["kind", "members", "x"], |rng, key| match key {
                "kind" => pick(rng, &["\"standalone\"", "\"composite\"", "\"x\""]),
                "members" => members(rng),
                _ => String::from(rng.pick(&ODD)),
            });
        }
        String::from(rng.pick(&[
            r#"{"kind":"standalone","members":["model.onnx"]}"#,
            r#"{"kind":"composite","members":["model.skops","model.cbm"]}"#,
            r#"{"members":["model.skops","model.ubj"],"kind":"composite"}"#,
            r#"{"kind":"composite","members":["model.skops","model.onnx"]}"#,
            r#"{"kind":"standalone","members":["model.cbm","model.cbm"]}"#,
        ]))
    }

    fn manifest(rng: &mut Rng) -> String {
        let keys = [
            "format",
            "format_version",
            "writer_version",
            "recipe",
            "schema",
            "structure",
            "samples",
            "integrity",
            "x",
        ];
        let value = |rng: &mut Rng, key: &str| match key {
            "format" => pick(rng, &["\"mlbundle\"", "\"zip\""]),
            "format_version" => pick(rng, &["\"1\"", "\"2\""]),
            "writer_version" => pick(rng, &["\"0.1.0\"", "\"0.1.0\"", "\"1.0\"", "\"0.0.9\""]),
            "recipe" => recipe(rng),
            "schema" => pick(rng, &["\"schema.json\"", "\"x.json\""]),
            "structure" => pick(rng, &["\"structure.json\"", "\"schema.json\""]),
            "samples" => pick(rng, &["\"samples.json\""]),
            "integrity" => integrity(rng),
            _ => format!("[{}]", list(rng, 3, |rng| String::from(rng.pick(&ODD)))),
        };
        if rng.one_in(4) {
            return object(rng, &keys, value);
        }
        // The identity and the required members, then some of the others.
        let mut members = alloc::vec![
            String::from(r#""format":"mlbundle","format_version":"1""#),
            format!(r#""writer_version":{}"#, value(rng, "writer_version")),
            format!(r#""recipe":{}"#, value(rng, "recipe")),
            format!(r#""schema":{}"#, value(rng, "schema")),
            format!(r#""integrity":{}"#, value(rng, "integrity")),
        ];
        for (key, one_in) in [("structure", 3), ("samples", 3), ("x", 12), ("y", 12)] {
            if rng.one_in(one_in) {
                members.push(format!(r#""{key}":{}"#, value(rng, key)));
            }
        }
        format!("{{{}}}", members.join(","))
    }

    #[test]
    fn kept_manifest_gives_the_rules_outcome_of_the_whole_one() {
        let limits = ArchiveLimits::DEFAULT;
        let mut rng = Rng::new(5);
        let (mut accepted, mut rejected) = (0, 0);
        for _ in 0..40_000 {
            let doc = manifest(&mut rng);
            let Ok(whole) = json::parse(doc.as_bytes(), json::Limits::DEFAULT) else {
                continue;
            };
            let want = Manifest::read(&whole);
            assert_eq!(Manifest::read(&kept(doc.as_bytes(), &limits).unwrap()), want, "{doc}");
            if want.is_ok() { accepted += 1 } else { rejected += 1 }
        }
        assert!(
            accepted > 300 && rejected > 10_000,
            "{accepted} accepted, {rejected} rejected"
        );
    }
}
