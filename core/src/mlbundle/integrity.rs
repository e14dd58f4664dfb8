//! Recipe agreement (`spec/mlbundle.md` §6.2) and integrity (§7).

use super::admission::Models;
use super::error::{Error, ErrorKind};
use super::manifest::{IntegrityRecord, Manifest, Recipe};
use super::names::{ALL, MemberName};
use super::version::reexport_hint;
use crate::Location;
use alloc::format;

fn manifest_path(path: &str) -> Location {
    let mut at = Location::NONE.in_member(MemberName::Manifest.as_str());
    at.path = Some(alloc::string::String::from(path));
    at
}

/// §6.2: the recipe equals the admitted models; schema present; structure and samples
/// present exactly when referenced. `present(name)` says whether a member exists. A
/// disagreement is a manifest-validation failure after the identity passed, so its message
/// carries the re-export hint of §5.7 when the manifest's writer version is another one.
pub(crate) fn check_agreement(
    manifest: &Manifest,
    models: Models,
    present: impl Fn(MemberName) -> bool,
) -> Result<(), Error> {
    let hint = reexport_hint(Some(&manifest.writer_version));
    agreement(manifest, models, present).map_err(|mut e| {
        e.message.push_str(&hint);
        e
    })
}

fn agreement(manifest: &Manifest, models: Models, present: impl Fn(MemberName) -> bool) -> Result<(), Error> {
    let agrees = matches!(
        (manifest.recipe, models),
        (Recipe::Standalone(a), Models::One(b)) | (Recipe::Composite(a), Models::SkopsWith(b)) if a == b
    );
    if !agrees {
        let msg = "recipe does not match the model members in the archive";
        return Err(Error::new(
            ErrorKind::InvalidManifest,
            msg,
            manifest_path("manifest.recipe"),
        ));
    }
    let refs = [
        (MemberName::Schema, true, "manifest.schema"),
        (MemberName::Structure, manifest.structure, "manifest.structure"),
        (MemberName::Samples, manifest.samples, "manifest.samples"),
    ];
    for (name, referenced, path) in refs {
        if present(name) != referenced {
            let msg = match referenced {
                true => format!("{name} is referenced but not in the archive"),
                false => format!("{name} is in the archive but not referenced"),
            };
            return Err(Error::new(ErrorKind::InvalidManifest, msg, manifest_path(path)));
        }
    }
    Ok(())
}

/// §7: every non-manifest member has a record equal to its actual size and SHA-256, and no
/// record names an absent member. `actual(name)` gives a present member's record.
pub(crate) fn check_integrity(
    manifest: &Manifest,
    actual: impl Fn(MemberName) -> Option<IntegrityRecord>,
) -> Result<(), Error> {
    for name in ALL.into_iter().filter(|n| *n != MemberName::Manifest) {
        let mismatch = |what: &str| {
            let at = Location::NONE.in_member(name.as_str());
            Error::new(ErrorKind::IntegrityMismatch, format!("{name}: {what}"), at)
        };
        match (manifest.integrity.get(&name), actual(name)) {
            (None, None) => {}
            (None, Some(_)) => return Err(mismatch("member has no integrity record")),
            (Some(_), None) => return Err(mismatch("integrity record for a member not in the archive")),
            (Some(rec), Some(got)) if rec.size != got.size => {
                return Err(mismatch(&format!(
                    "size {} differs from the recorded {}",
                    got.size, rec.size
                )));
            }
            (Some(rec), Some(got)) if rec.sha256 != got.sha256 => {
                return Err(mismatch("SHA-256 differs from the integrity record"));
            }
            _ => {}
        }
    }
    Ok(())
}
