//! mlbundle fixtures: a bundle with a deflated float32 weights member (`model.cbm`) and a
//! forest JSON member (`structure.json`), written by `write_container`, and the same
//! members stored (method 0) by a minimal writer here (`spec/mlbundle.md` §2 layout).

use crate::data::{cached, read, write};
use crate::measure::fail;
use crate::payload::{forest_json, weights};
use modelgate_core::digest::crc32;
use modelgate_core::mlbundle::{ArchiveLimits, Manifest, MemberName, Recipe, read_container, write_container};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The two bundle files and the size of their members.
pub struct Bundles {
    /// Written by `write_container` (every member deflated).
    pub deflated: PathBuf,
    /// The same members stored.
    pub stored: PathBuf,
    /// The forest JSON on its own (the JSON cases read it).
    pub json: PathBuf,
    /// Sum of the uncompressed member sizes.
    pub member_bytes: u64,
}

/// Builds (or reuses) the bundles with `member` bytes of weights and of JSON.
pub fn prepare(dir: &Path, member: usize) -> Bundles {
    let recipe = format!("member={member}");
    let json = cached(&dir.join("forest.json"), &recipe, |p| write(p, &forest_json(member, 7)));
    let deflated = cached(&dir.join("deflated.mlbundle"), &recipe, |p| {
        write(p, &deflated_bundle(&read(&json), member));
    });
    let stored = cached(&dir.join("stored.mlbundle"), &recipe, |p| {
        write(p, &stored_copy(&read(&deflated)))
    });
    let member_bytes = read_container(&read(&deflated), &ArchiveLimits::DEFAULT)
        .map(|c| c.listing.iter().map(|l| l.size).sum())
        .unwrap_or_else(|e| fail(&format!("generated bundle rejected: {e:?}")));
    Bundles {
        deflated,
        stored,
        json,
        member_bytes,
    }
}

fn schema() -> Vec<u8> {
    let inputs: Vec<String> = (0..256)
        .map(|f| format!(r#"{{"name":"f_{f:03}","dtype":"float32"}}"#))
        .collect();
    format!(
        r#"{{"inputs":[{}],"outputs":[{{"name":"score","dtype":"float64"}}]}}"#,
        inputs.join(",")
    )
    .into_bytes()
}

fn deflated_bundle(json: &[u8], member: usize) -> Vec<u8> {
    let mut members = BTreeMap::new();
    members.insert(MemberName::ModelCbm, weights(member, 1));
    members.insert(MemberName::Structure, json.to_vec());
    members.insert(MemberName::Schema, schema());
    let manifest = Manifest::new(Recipe::Standalone(MemberName::ModelCbm), true, false);
    write_container(&manifest, &members, &ArchiveLimits::DEFAULT)
        .unwrap_or_else(|e| fail(&format!("write_container: {e:?}")))
}

/// The members of `bundle`, in its order, written again with method 0 and version
/// needed 10; checked by `read_container` before it is used.
fn stored_copy(bundle: &[u8]) -> Vec<u8> {
    let c = read_container(bundle, &ArchiveLimits::DEFAULT).unwrap_or_else(|e| fail(&format!("{e:?}")));
    let members: Vec<(&str, &[u8])> = c
        .listing
        .iter()
        .filter_map(|l| c.members.get(&l.name).map(|b| (l.name.as_str(), &**b)))
        .collect();
    let out = stored_zip(&members);
    if let Err(e) = read_container(&out, &ArchiveLimits::DEFAULT) {
        fail(&format!("stored bundle rejected: {e:?}"));
    }
    out
}

fn put16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put32(out: &mut Vec<u8>, v: usize) {
    out.extend_from_slice(&u32::try_from(v).unwrap_or(u32::MAX).to_le_bytes());
}

/// Version needed, flags, method, time, date (1980-01-01), CRC-32, sizes, name and extra
/// lengths: the fields local and central headers share.
fn common(out: &mut Vec<u8>, name: &str, data: &[u8]) {
    for v in [10u16, 0, 0, 0, 0x0021] {
        put16(out, v);
    }
    out.extend_from_slice(&crc32(data).to_le_bytes());
    put32(out, data.len());
    put32(out, data.len());
    put16(out, u16::try_from(name.len()).unwrap_or(0));
    put16(out, 0);
}

fn stored_zip(members: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut offsets = Vec::new();
    for (name, data) in members {
        offsets.push(out.len());
        put32(&mut out, 0x0403_4b50);
        common(&mut out, name, data);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(data);
    }
    let cd = out.len();
    for ((name, data), offset) in members.iter().zip(offsets) {
        put32(&mut out, 0x0201_4b50);
        put16(&mut out, 0x0314);
        common(&mut out, name, data);
        for v in [0u16, 0, 0] {
            put16(&mut out, v);
        }
        put32(&mut out, 0o100_600 << 16);
        put32(&mut out, offset);
        out.extend_from_slice(name.as_bytes());
    }
    let cd_size = out.len() - cd;
    put32(&mut out, 0x0605_4b50);
    let count = u16::try_from(members.len()).unwrap_or(0);
    for v in [0u16, 0, count, count] {
        put16(&mut out, v);
    }
    put32(&mut out, cd_size);
    put32(&mut out, cd);
    put16(&mut out, 0);
    out
}
