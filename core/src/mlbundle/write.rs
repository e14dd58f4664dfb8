//! `write_container`: the deterministic bundle writer (`spec/mlbundle.md` §10).

use super::admission::admit;
use super::budget::check_ratio;
use super::declaration::{check_member, check_samples, check_schema};
use super::error::{Error, ErrorKind};
use super::integrity::check_agreement;
use super::limits::{ArchiveLimits, Limit};
use super::manifest::{IntegrityRecord, Manifest};
use super::names::MemberName;
use super::read::read_container;
use crate::Location;
use crate::digest::{ChunkDigest, sha256};
use crate::inflate::{DeflateError, deflate};
use crate::zip::write::{WriteMember, overhead, write_archive};
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::vec::Vec;

/// Writes a bundle of `manifest` (recipe and references set by the caller; integrity
/// records and writer version replaced) and the non-manifest `members`, under `limits`
/// (§10). The result has been re-read through [`read_container`] before it is returned.
/// Identical inputs give identical bytes on every platform.
pub fn write_container(
    manifest: &Manifest,
    members: &BTreeMap<MemberName, Vec<u8>>,
    limits: &ArchiveLimits,
) -> Result<Vec<u8>, Error> {
    if members.contains_key(&MemberName::Manifest) {
        let msg = "manifest.json is written by the writer, not passed as a member";
        return Err(Error::new(ErrorKind::InvalidContainer, msg, Location::NONE));
    }
    let models = admit(members.keys().copied(), 0)?;
    let mut manifest = manifest.clone();
    manifest.writer_version = alloc::string::String::from(super::version::READER_VERSION);
    check_agreement(&manifest, models, |n| members.contains_key(&n))?;
    check_members(members, limits)?;
    manifest.integrity = members
        .iter()
        .map(|(name, bytes)| {
            let size = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
            (
                *name,
                IntegrityRecord {
                    sha256: sha256(bytes),
                    size,
                },
            )
        })
        .collect();
    let manifest_text = manifest.to_json();
    let manifest_cap = limits.member_cap(MemberName::Manifest);
    if u64::try_from(manifest_text.len()).unwrap_or(u64::MAX) > manifest_cap {
        let at = Location::NONE.in_member(MemberName::Manifest.as_str());
        let msg = format!("manifest exceeds the {manifest_cap}-byte limit");
        return Err(Error::new(ErrorKind::LimitExceeded, msg, at));
    }
    let mut all: Vec<(MemberName, &[u8])> = Vec::new();
    all.push((MemberName::Manifest, manifest_text.as_bytes()));
    all.extend(members.iter().map(|(n, b)| (*n, b.as_slice())));
    if all.len() as u64 > limits.get(Limit::Members) {
        let msg = format!("more than {} members", limits.get(Limit::Members));
        return Err(Error::new(ErrorKind::LimitExceeded, msg, Location::NONE));
    }
    let total: u64 = all.iter().map(|(_, b)| b.len() as u64).sum();
    if total > limits.get(Limit::UncompressedTotal) {
        let msg = format!(
            "uncompressed sizes exceed the {}-byte total limit",
            limits.get(Limit::UncompressedTotal)
        );
        return Err(Error::new(ErrorKind::LimitExceeded, msg, Location::NONE));
    }
    let bytes = compress_all(&all, limits)?;
    read_container(&bytes, limits)?;
    Ok(bytes)
}

/// Member caps (§3.2) and JSON members (§8) before anything is compressed.
fn check_members(members: &BTreeMap<MemberName, Vec<u8>>, limits: &ArchiveLimits) -> Result<(), Error> {
    for (name, bytes) in members {
        let cap = limits.member_cap(*name);
        if bytes.len() as u64 > cap {
            let at = Location::NONE.in_member(name.as_str());
            return Err(Error::new(
                ErrorKind::LimitExceeded,
                format!("member exceeds the {cap}-byte limit"),
                at,
            ));
        }
    }
    let json = |n: MemberName| {
        let bytes = members.get(&n).map(Vec::as_slice);
        bytes.map(|b| check_member(n, b, limits)).transpose().map(|_| bytes)
    };
    let schema = json(MemberName::Schema)?;
    json(MemberName::Structure)?;
    let samples = json(MemberName::Samples)?;
    if let Some(schema) = schema {
        let inputs = check_schema(schema, limits)?;
        if let Some(s) = samples {
            check_samples(s, inputs, limits)?;
        }
    }
    Ok(())
}

/// Compresses every member within the budgets left after the fixed overhead (§10.3) and
/// lays out the archive (§10.1, §10.2).
fn compress_all(all: &[(MemberName, &[u8])], limits: &ArchiveLimits) -> Result<Vec<u8>, Error> {
    let fixed = overhead(all.iter().map(|(n, _)| n.as_str().len()));
    let limit_err = |msg: alloc::string::String, name: Option<MemberName>| {
        let at = name.map_or(Location::NONE, |n| Location::NONE.in_member(n.as_str()));
        Error::new(ErrorKind::LimitExceeded, msg, at)
    };
    let archive_budget = limits.get(Limit::Archive).checked_sub(fixed);
    let archive_budget = archive_budget.ok_or_else(|| limit_err("headers exceed the archive limit".into(), None))?;
    let mut budget = archive_budget.min(limits.get(Limit::CompressedTotal));
    let mut streams = Vec::new();
    for (name, bytes) in all {
        let max = usize::try_from(budget).unwrap_or(usize::MAX);
        let stream = deflate(bytes, max).map_err(|e| match e {
            DeflateError::OutputTooLarge { .. } => {
                limit_err("compressed output exceeds the remaining budget".into(), Some(*name))
            }
            _ => limit_err(format!("{e}"), Some(*name)),
        })?;
        let (c, u) = (stream.len() as u64, bytes.len() as u64);
        check_ratio(c, u, limits.get(Limit::Ratio), &Location::NONE).map_err(|e| e.about(*name))?;
        budget = budget.saturating_sub(c);
        let mut d = ChunkDigest::crc_only();
        d.update(bytes);
        let uncompressed = u32::try_from(u).map_err(|_| limit_err("member too large".into(), Some(*name)))?;
        streams.push((*name, d.crc32(), uncompressed, stream));
    }
    let records: Vec<WriteMember<'_>> = streams
        .iter()
        .map(|(n, crc, u, s)| WriteMember {
            name: n.as_str(),
            crc32: *crc,
            uncompressed: *u,
            compressed: s,
        })
        .collect();
    write_archive(&records).map_err(|e| limit_err(format!("archive cannot be laid out: {e:?}"), None))
}
