//! The member work of `read_container` (`spec/mlbundle.md` §4, §7, §8.1, §12.0): every
//! member but the manifest read once, its CRC-32 and SHA-256 in the same pass, and the JSON
//! members validated, in two halves that a [`Join`] may run at the same time.
//!
//! The reading half reads the members in fixed order; the checking half validates the JSON
//! members. A stored JSON member is validated where it lies in the archive while the reading
//! half reads it; a deflated one is read by the checking half, whose check needs the
//! inflated bytes. Each half runs its tasks in the serial order (the reads in member order,
//! then the checks) and stops at its own first failure. The halves only fill in
//! [`Outcomes`]; `read_container` reports them in the serial order, so the outcome never
//! depends on the join.

use super::declaration::check_member;
use super::error::Error;
use super::limits::ArchiveLimits;
use super::names::{ALL, MemberName};
use crate::join::Join;
use crate::zip::header::STORED;
use crate::zip::{Archive, Entry, read_member, stored_data};
use alloc::borrow::Cow;
use alloc::vec::Vec;

/// A member's uncompressed bytes and SHA-256, or why they could not be read (§4). A stored
/// member's bytes are borrowed from the archive; a deflated member's are its output buffer.
pub(crate) type ReadResult<'a> = Result<(Cow<'a, [u8]>, [u8; 32]), Error>;

/// A JSON member's §8.1 check: its validation (no member is decoded).
pub(crate) type CheckResult = Result<(), Error>;

/// One piece of member work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Task {
    /// Read the member with its CRC-32 and SHA-256 (§4.2).
    Read(MemberName),
    /// Validate the JSON member (§8.1): a stored member's bytes where they lie in the
    /// archive, a deflated member's from its read in the same half.
    Check(MemberName),
}

/// The tasks of one half in the serial order, and its work: the size of each member it
/// reads or checks (a deflated JSON member counts twice, for its read and its check).
#[derive(Debug, Default, PartialEq, Eq)]
struct Half {
    tasks: Vec<Task>,
    bytes: u64,
}

impl Half {
    fn push(&mut self, task: Task, size: u64) {
        self.tasks.push(task);
        self.bytes = self.bytes.saturating_add(size);
    }
}

/// What the halves produced, by member; `None` where a half did not run the task.
#[derive(Debug, Default)]
pub(crate) struct Outcomes<'a> {
    reads: [Option<ReadResult<'a>>; 8],
    checks: [Option<CheckResult>; 8],
}

impl<'a> Outcomes<'a> {
    /// The read of `name`, if a half ran it.
    pub(crate) fn take_read(&mut self, name: MemberName) -> Option<ReadResult<'a>> {
        self.reads.get_mut(name as usize).and_then(Option::take)
    }

    /// The JSON check of `name`, if a half ran it.
    pub(crate) fn take_check(&mut self, name: MemberName) -> Option<CheckResult> {
        self.checks.get_mut(name as usize).and_then(Option::take)
    }

    /// The results of both halves: each task runs in one half only.
    fn merge(mut self, other: Outcomes<'a>) -> Outcomes<'a> {
        for (mine, theirs) in self.reads.iter_mut().zip(other.reads) {
            *mine = mine.take().or(theirs);
        }
        for (mine, theirs) in self.checks.iter_mut().zip(other.checks) {
            *mine = mine.take().or(theirs);
        }
        self
    }
}

/// Reads one member (§4.2), as a task or as the caller's own read.
pub(crate) fn read_one<'a>(data: &'a [u8], entry: &Entry) -> ReadResult<'a> {
    read_member(data, entry).map_err(Error::from)
}

/// Runs the member work of `archive` (every member but the manifest) in its two halves
/// through `join`, or one after the other when the lighter half has less than
/// [`Join::min_work`] member bytes. Nothing is copied: a deflated member is inflated into
/// its one output buffer, a stored member is read where it lies (§4.1).
pub(crate) fn read_members<'d>(
    data: &'d [u8],
    archive: &Archive,
    limits: &ArchiveLimits,
    join: &impl Join,
) -> Outcomes<'d> {
    let members = ALL.into_iter().skip(1).filter_map(|name| {
        let e = archive.entry(name as usize)?;
        Some((name, e.central.uncompressed, e.central.method == STORED))
    });
    let [reading, checking] = halves(members);
    let run = |half: &Half| run(data, archive, limits, &half.tasks);
    let (a, b) = if reading.bytes.min(checking.bytes) < join.min_work() {
        (run(&reading), run(&checking))
    } else {
        join.join(|| run(&reading), || run(&checking))
    };
    a.merge(b)
}

/// The reading and the checking half of `members` (name, size, stored), given in fixed
/// order (see the module documentation).
fn halves(members: impl Iterator<Item = (MemberName, u64, bool)> + Clone) -> [Half; 2] {
    let (mut reading, mut checking) = (Half::default(), Half::default());
    for (name, size, stored) in members.clone() {
        let half = if name.is_json_member() && !stored {
            &mut checking
        } else {
            &mut reading
        };
        half.push(Task::Read(name), size);
    }
    for (name, size, _) in members.filter(|m| m.0.is_json_member()) {
        checking.push(Task::Check(name), size);
    }
    [reading, checking]
}

/// Runs one half's tasks in order until one fails.
fn run<'d>(data: &'d [u8], archive: &Archive, limits: &ArchiveLimits, tasks: &[Task]) -> Outcomes<'d> {
    let mut out = Outcomes::default();
    for &task in tasks {
        let ok = match task {
            Task::Read(name) => {
                let entry = archive.entry(name as usize);
                debug_assert!(entry.is_some(), "the halves list only members of the archive");
                let Some(e) = entry else {
                    continue;
                };
                let read = read_one(data, e);
                let ok = read.is_ok();
                if let Some(slot) = out.reads.get_mut(name as usize) {
                    *slot = Some(read);
                }
                ok
            }
            Task::Check(name) => {
                let stored = archive.entry(name as usize).and_then(|e| stored_data(data, e));
                let read = match out.reads.get(name as usize) {
                    Some(Some(Ok((bytes, _)))) => Some(&**bytes),
                    _ => None,
                };
                // No bytes: a stored member's data is not inside the archive, and its read
                // fails (§2), which is reported first.
                let Some(bytes) = stored.or(read) else {
                    continue;
                };
                let check = check_member(name, bytes, limits);
                let ok = check.is_ok();
                if let Some(slot) = out.checks.get_mut(name as usize) {
                    *slot = Some(check);
                }
                ok
            }
        };
        if !ok {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use MemberName::{ModelCbm, ModelSkops, Samples, Schema, Structure};
    use alloc::vec;

    fn tasks(members: &[(MemberName, u64, bool)]) -> [Vec<Task>; 2] {
        halves(members.iter().copied()).map(|h| h.tasks)
    }

    #[test]
    fn stored_json_members_are_checked_beside_their_reads() {
        let m = [
            (ModelCbm, 64 << 20, true),
            (Schema, 9 << 10, true),
            (Structure, 64 << 20, true),
        ];
        let [reading, checking] = halves(m.iter().copied());
        assert_eq!(
            reading.tasks,
            [Task::Read(ModelCbm), Task::Read(Schema), Task::Read(Structure)]
        );
        assert_eq!(checking.tasks, [Task::Check(Schema), Task::Check(Structure)]);
        assert_eq!(
            (reading.bytes, checking.bytes),
            ((128 << 20) + (9 << 10), (64 << 20) + (9 << 10))
        );
    }

    #[test]
    fn deflated_json_members_are_read_where_they_are_checked() {
        let m = [
            (ModelSkops, 1, false),
            (ModelCbm, 64 << 20, false),
            (Schema, 9 << 10, true),
            (Structure, 64 << 20, false),
            (Samples, 5, false),
        ];
        assert_eq!(
            tasks(&m),
            [
                vec![Task::Read(ModelSkops), Task::Read(ModelCbm), Task::Read(Schema)],
                vec![
                    Task::Read(Structure),
                    Task::Read(Samples),
                    Task::Check(Schema),
                    Task::Check(Structure),
                    Task::Check(Samples)
                ]
            ]
        );
    }

    /// For every set of members, each stored or deflated: every member is read exactly
    /// once and every JSON member checked exactly once, after its read when the check needs
    /// the read's bytes, and each half lists its reads in member order before its checks.
    #[test]
    fn every_member_is_read_once_and_every_json_member_checked_once_in_order() {
        for set in 0u32..(1 << 14) {
            let members: Vec<(MemberName, u64, bool)> = ALL
                .into_iter()
                .skip(1)
                .enumerate()
                .filter(|(i, _)| set & (1 << (2 * i)) != 0)
                .map(|(i, n)| (n, 1, set & (1 << (2 * i + 1)) != 0))
                .collect();
            let halves = tasks(&members);
            let all: Vec<Task> = halves.concat();
            for &(n, _, stored) in &members {
                assert_eq!(all.iter().filter(|t| **t == Task::Read(n)).count(), 1, "{members:?}");
                let checks = all.iter().filter(|t| **t == Task::Check(n)).count();
                assert_eq!(checks, usize::from(n.is_json_member()), "{members:?}");
                if n.is_json_member() && !stored {
                    assert!(halves[1].contains(&Task::Read(n)), "{members:?}");
                }
            }
            for half in &halves {
                let rank = |t: &Task| match *t {
                    Task::Read(n) => n as usize,
                    Task::Check(n) => ALL.len() + n as usize,
                };
                assert!(half.is_sorted_by_key(rank), "{half:?}");
            }
        }
    }
}
