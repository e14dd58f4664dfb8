//! `read_container`: the full container validation (`spec/mlbundle.md` §2–§8), in the order
//! structure, limits, admission, manifest, agreement, members, integrity, JSON members
//! (§12.0). The member work runs in two halves through the [`Join`] of its
//! [`ReadOptions`] (`members.rs`), and is reported in the same order whatever the join.

use super::admission::{Models, admit};
use super::budget::check_budget;
use super::declaration::{check_member, check_samples, check_schema, parse_member};
use super::error::{Error, ErrorKind};
use super::integrity::{check_agreement, check_integrity};
use super::limits::{ArchiveLimits, Limit};
use super::manifest::{IntegrityRecord, Manifest};
use super::members::{read_members, read_one};
use super::names::{MemberName, NAMES};
use crate::Location;
use crate::join::{Join, Serial};
use crate::json::Value;
use crate::zip::{Archive, Entry, ZipError, ZipReason};
use alloc::borrow::Cow;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::vec::Vec;

/// One member as the archive lists it (§12.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Listing {
    /// The member.
    pub name: MemberName,
    /// ZIP method (0 stored, 8 deflated).
    pub method: u16,
    /// Compressed size.
    pub compressed: u64,
    /// Uncompressed size.
    pub size: u64,
    /// SHA-256 of the uncompressed bytes.
    pub sha256: [u8; 32],
    /// Offset in the archive of the member's data, right after its local header (§2).
    pub offset: u64,
}

/// A validated bundle: the manifest, every member's original bytes (manifest included),
/// the listing in fixed order and the schema's input count. The JSON members are checked
/// without being decoded (§8.1); [`Container::schema`] and [`Container::samples`] decode
/// them on request.
/// A stored member's bytes are borrowed from the archive bytes `'a` (§4.2: they are checked
/// where they lie, never copied); [`Container::into_owned`] detaches the container from them.
#[derive(Clone, Debug)]
pub struct Container<'a> {
    /// The validated manifest.
    pub manifest: Manifest,
    /// Original uncompressed bytes keyed by member, in fixed order: borrowed for a stored
    /// member, owned for a deflated one.
    pub members: BTreeMap<MemberName, Cow<'a, [u8]>>,
    /// Members in fixed order with sizes and digests.
    pub listing: Vec<Listing>,
    /// The number of inputs `schema.json` declares (§8.2).
    pub inputs: usize,
}

impl Container<'_> {
    /// The decoded `schema.json` (§8.2), built from its checked bytes on each call: a value
    /// costs some 60 to 80 bytes of heap per element (`spec/json.md` §8). `limits` are
    /// those of the read (a lower depth than the read's refuses the member again).
    pub fn schema(&self, limits: &ArchiveLimits) -> Result<Value, Error> {
        let bytes = self.members.get(&MemberName::Schema).map_or(&[][..], |b| b);
        parse_member(MemberName::Schema, bytes, limits)
    }

    /// The decoded `samples.json` (§8.3) when the bundle has one, as [`Container::schema`].
    pub fn samples(&self, limits: &ArchiveLimits) -> Option<Result<Value, Error>> {
        let bytes = self.members.get(&MemberName::Samples)?;
        Some(parse_member(MemberName::Samples, bytes, limits))
    }

    /// The same container with every member's bytes owned (a stored member's copied), for a
    /// caller that must outlive the archive bytes. Each copy is reserved with
    /// `try_reserve_exact`; a failure is the error a deflated member's buffer gives (§4.1):
    /// `LimitExceeded`, "member buffer could not be reserved", at the member's data offset.
    pub fn into_owned(self) -> Result<Container<'static>, Error> {
        let mut members = BTreeMap::new();
        for (name, bytes) in self.members {
            let owned = match bytes {
                Cow::Owned(v) => v,
                Cow::Borrowed(b) => copy(b).ok_or_else(|| out_of_memory(name, &self.listing))?,
            };
            members.insert(name, Cow::Owned(owned));
        }
        Ok(Container {
            manifest: self.manifest,
            members,
            listing: self.listing,
            inputs: self.inputs,
        })
    }
}

/// `bytes` in a buffer of their own, or `None` when it cannot be reserved (§4.1).
fn copy(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut v = Vec::new();
    v.try_reserve_exact(bytes.len()).ok()?;
    v.extend_from_slice(bytes);
    Some(v)
}

/// The §4.1 reservation failure about `name`, at its data offset as `listing` records it.
fn out_of_memory(name: MemberName, listing: &[Listing]) -> Error {
    let offset = listing.iter().find(|l| l.name == name).map_or(0, |l| l.offset);
    Error::from(ZipError::at(ZipReason::OutOfMemory, offset).member(name as usize))
}

/// How [`read_container`] runs: under which limits, and through which [`Join`] its member
/// work (§4 reads, §8.1 JSON checks) is split in two halves (§12.0). A `&ArchiveLimits`
/// converts into the options that run both halves on the calling thread ([`Serial`]).
#[derive(Clone, Copy, Debug)]
pub struct ReadOptions<'l, J = Serial> {
    /// The limits of the read (§3), with the JSON members' duplicate-table key.
    pub limits: &'l ArchiveLimits,
    /// Runs the two halves of the member work, for example on two threads. Results are
    /// reported in the serial order, so every input gets the outcome of [`Serial`].
    pub join: J,
}

impl<'l> From<&'l ArchiveLimits> for ReadOptions<'l> {
    fn from(limits: &'l ArchiveLimits) -> Self {
        ReadOptions { limits, join: Serial }
    }
}

/// Reads and validates the bundle in `data` (§2–§8) under the options' limits, the member
/// work run through its join. Never deserializes a model.
pub fn read_container<'a, 'l, J: Join>(
    data: &'a [u8],
    options: impl Into<ReadOptions<'l, J>>,
) -> Result<Container<'a>, Error> {
    let ReadOptions { limits, join } = options.into();
    let join = &join;
    let len = u64::try_from(data.len()).unwrap_or(u64::MAX);
    let max = limits.get(Limit::Archive);
    if len > max {
        let msg = format!("archive is larger than the {max}-byte limit");
        return Err(Error::new(ErrorKind::LimitExceeded, msg, Location::at(max)));
    }
    let archive = Archive::parse(data, &NAMES, limits.get(Limit::Members))?;
    let end = archive.directory.end;
    let entry = |n: MemberName| archive.entry(n as usize);
    let manifest_entry = entry(MemberName::Manifest).ok_or_else(|| {
        Error::new(
            ErrorKind::InvalidContainer,
            "manifest.json is missing",
            Location::at(end),
        )
    })?;
    check_budget(&archive, limits)?;
    let present = archive
        .entries
        .iter()
        .filter_map(|e| MemberName::from_index(e.central.name));
    let models: Models = admit(present, end)?;
    let (manifest_bytes, manifest_sha) = read_one(data, manifest_entry)?;
    let manifest = Manifest::parse(&manifest_bytes, limits)?;
    check_agreement(&manifest, models, |n| entry(n).is_some())?;
    let mut done = read_members(data, &archive, limits, join);
    let mut members = BTreeMap::new();
    let mut listing = Vec::new();
    listing.push(listed(MemberName::Manifest, manifest_entry, manifest_sha));
    members.insert(MemberName::Manifest, manifest_bytes);
    for name in super::names::ALL.into_iter().skip(1) {
        if let Some(e) = entry(name) {
            // A read the member work did not run comes after a failure reported first
            // (§12.0); it is run here all the same.
            let (bytes, sha) = done.take_read(name).unwrap_or_else(|| read_one(data, e))?;
            listing.push(listed(name, e, sha));
            members.insert(name, bytes);
        }
    }
    let record = |n: MemberName| {
        listing.iter().find(|l| l.name == n).map(|l| IntegrityRecord {
            sha256: l.sha256,
            size: l.size,
        })
    };
    check_integrity(&manifest, record)?;
    let mut json = |n: MemberName| match members.get(&n) {
        Some(b) => done
            .take_check(n)
            .unwrap_or_else(|| check_member(n, b, limits))
            .map(|()| Some(&**b)),
        None => Ok(None),
    };
    let schema = json(MemberName::Schema)?
        .ok_or_else(|| Error::new(ErrorKind::InvalidManifest, "schema.json is missing", Location::at(end)))?;
    json(MemberName::Structure)?;
    let samples = json(MemberName::Samples)?;
    // §8.2 and §8.3 over the members' tokens: no value is built (§8.1).
    let inputs = check_schema(schema, limits)?;
    if let Some(s) = samples {
        check_samples(s, inputs, limits)?;
    }
    Ok(Container {
        manifest,
        members,
        listing,
        inputs,
    })
}

fn listed(name: MemberName, e: &Entry, sha256: [u8; 32]) -> Listing {
    Listing {
        name,
        method: e.central.method,
        compressed: e.central.compressed,
        size: e.central.uncompressed,
        sha256,
        offset: e.local.data_start,
    }
}
