//! `ArchiveLimits`: the version 1 defaults and ceilings, which callers may lower but never
//! raise (`spec/mlbundle.md` §3).

use super::names::MemberName;
use crate::invariant;
use crate::json::DEFAULT_HASH_KEY;
use core::fmt;

const MIB: u64 = 1024 * 1024;

/// One configurable limit (§3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// Member count, including the manifest (minimum 2).
    Members,
    /// Entire archive in bytes, including headers.
    Archive,
    /// Sum of compressed member sizes.
    CompressedTotal,
    /// Any uncompressed member.
    Member,
    /// Sum of uncompressed member sizes, including the manifest.
    UncompressedTotal,
    /// Uncompressed/compressed ratio of each member.
    Ratio,
    /// `manifest.json`.
    Manifest,
    /// `structure.json`.
    Structure,
    /// `schema.json`.
    Schema,
    /// `samples.json`.
    Samples,
    /// JSON nesting depth of every JSON member.
    JsonDepth,
}

/// (ceiling = default, minimum) per [`Limit`], in declaration order (§3.1).
const TABLE: [(u64, u64); 11] = [
    (6, 2),
    (512 * MIB, 1),
    (512 * MIB, 0),
    (512 * MIB, 0),
    (1024 * MIB, 0),
    (200, 1),
    (8 * MIB, 0),
    (256 * MIB, 0),
    (16 * MIB, 0),
    (16 * MIB, 0),
    (32, 1),
];

/// A requested limit above its ceiling or below its minimum (§3.2: never clamped).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LimitConfigError {
    /// The limit.
    pub limit: Limit,
    /// The value asked for.
    pub requested: u64,
}

impl fmt::Display for LimitConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (max, min) = invariant::item(&TABLE, self.limit as usize);
        write!(
            f,
            "{:?} limit {} is outside {min}..={max}: version 1 limits may be lowered, never raised",
            self.limit, self.requested
        )
    }
}

impl core::error::Error for LimitConfigError {}

/// The limits one read or write runs under (§3). [`ArchiveLimits::DEFAULT`] is the version
/// 1 ceiling; [`ArchiveLimits::with`] lowers one limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArchiveLimits {
    values: [u64; 11],
    /// The key of the JSON members' duplicate-name tables (`spec/json.md` §5): not a limit,
    /// carried here because every read takes its limits. [`DEFAULT_HASH_KEY`] unless the
    /// caller has an entropy source ([`ArchiveLimits::with_hash_key`]).
    hash_key: [u64; 2],
}

impl ArchiveLimits {
    /// The defaults, which are the ceilings (§3.1).
    pub const DEFAULT: ArchiveLimits = ArchiveLimits {
        values: [
            TABLE[0].0,
            TABLE[1].0,
            TABLE[2].0,
            TABLE[3].0,
            TABLE[4].0,
            TABLE[5].0,
            TABLE[6].0,
            TABLE[7].0,
            TABLE[8].0,
            TABLE[9].0,
            TABLE[10].0,
        ],
        hash_key: DEFAULT_HASH_KEY,
    };

    /// These limits with `limit` set to `value`, which must lie between the limit's
    /// minimum and its version 1 ceiling (§3.2).
    pub fn with(mut self, limit: Limit, value: u64) -> Result<ArchiveLimits, LimitConfigError> {
        let err = LimitConfigError {
            limit,
            requested: value,
        };
        let (max, min) = TABLE.get(limit as usize).copied().ok_or(err)?;
        if value > max || value < min {
            return Err(err);
        }
        let slot = self.values.get_mut(limit as usize).ok_or(err)?;
        *slot = value;
        Ok(self)
    }

    /// These limits with the JSON members' duplicate-name tables keyed with `key`
    /// (`spec/json.md` §5): a caller with an entropy source passes a random key, which spares
    /// the JSON reader the SHA-256 pass it makes to key a wide object without one.
    pub fn with_hash_key(mut self, key: [u64; 2]) -> ArchiveLimits {
        self.hash_key = key;
        self
    }

    /// The JSON members' duplicate-table key ([`ArchiveLimits::with_hash_key`]).
    pub fn hash_key(&self) -> [u64; 2] {
        self.hash_key
    }

    /// The current value of `limit`.
    pub fn get(&self, limit: Limit) -> u64 {
        invariant::item(&self.values, limit as usize)
    }

    /// The effective cap of one member: the smaller of its specific cap and the general
    /// member cap (§3.2).
    pub fn member_cap(&self, name: MemberName) -> u64 {
        let specific = match name {
            MemberName::Manifest => Some(Limit::Manifest),
            MemberName::Structure => Some(Limit::Structure),
            MemberName::Schema => Some(Limit::Schema),
            MemberName::Samples => Some(Limit::Samples),
            _ => None,
        };
        let general = self.get(Limit::Member);
        specific.map_or(general, |l| general.min(self.get(l)))
    }

    /// JSON limits for member `name`: its cap, the configured depth and the key.
    pub fn json(&self, name: MemberName) -> crate::json::Limits {
        crate::json::Limits {
            max_bytes: usize::try_from(self.member_cap(name)).unwrap_or(usize::MAX),
            max_depth: usize::try_from(self.get(Limit::JsonDepth)).unwrap_or(usize::MAX),
            hash_key: self.hash_key,
        }
    }
}

impl Default for ArchiveLimits {
    fn default() -> Self {
        ArchiveLimits::DEFAULT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The duplicate-table key rides along with the limits and changes none of them
    /// (`spec/json.md` §5): the default is the published key, which the JSON reader replaces
    /// with one derived from the input.
    #[test]
    fn hash_key_changes_no_limit() {
        let keyed = ArchiveLimits::DEFAULT.with_hash_key([7, 8]);
        assert_eq!(ArchiveLimits::DEFAULT.hash_key(), DEFAULT_HASH_KEY);
        assert_eq!(keyed.hash_key(), [7, 8]);
        assert_eq!(keyed.with_hash_key(DEFAULT_HASH_KEY), ArchiveLimits::DEFAULT);
        for limit in [Limit::Members, Limit::Archive, Limit::Samples, Limit::JsonDepth] {
            assert_eq!(keyed.get(limit), ArchiveLimits::DEFAULT.get(limit));
        }
    }
}
