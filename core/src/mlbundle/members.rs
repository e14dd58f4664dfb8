//! The member work of `read_container` (`spec/mlbundle.md` §4, §8.1, §12.0): reading every
//! member but the manifest and checking the JSON members, split into two groups that a
//! [`Join`] may run at the same time. The groups only fill in results; `read_container`
//! reports them in the serial order, so the outcome never depends on the join.
//!
//! A task's rank is its place in the serial order: the reads in fixed member order (§4.1),
//! then the JSON checks (§8). Each group runs its tasks in rank order and stops at its first
//! failure; a failure also stops the other group before any task ranked after it. A task
//! skipped this way can only be needed after a failure of lower rank, which is reported
//! first; [`Outcomes`] leaves such a task to the caller, which then runs it itself.

use super::declaration::check_member;
use super::error::Error;
use super::limits::ArchiveLimits;
use super::names::{ALL, MemberName};
use crate::join::Join;
use crate::json::Value;
use crate::zip::header::STORED;
use crate::zip::{Archive, Entry, read_member, stored_data};
use alloc::vec::Vec;
use core::sync::atomic::{AtomicUsize, Ordering};

/// A member's uncompressed bytes and SHA-256, or why they could not be read (§4).
pub type ReadResult = Result<(Vec<u8>, [u8; 32]), Error>;

/// A JSON member's §8.1 check: the decoded value (`schema.json`, `samples.json`), `None`
/// for `structure.json`, or the error.
pub type CheckResult = Result<Option<Value>, Error>;

/// Relative cost per byte of each kind of task, in units of copying and hashing one stored
/// byte (measured on x86-64 with SHA-NI, README "Benchmarks"). They only balance the groups.
const STORED_READ: u64 = 1;
const INFLATE_READ: u64 = 3;
const VALIDATE: u64 = 2;
const PARSE: u64 = 6;

/// One piece of member work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Task {
    /// Read the member (§4.2).
    Read(MemberName),
    /// Check the JSON member (§8.1): a stored member's bytes straight from the archive, a
    /// deflated member's from the same group's read.
    Check(MemberName),
}

impl Task {
    /// The task's place in the serial order.
    fn rank(self) -> usize {
        match self {
            Task::Read(n) => n as usize,
            Task::Check(n) => ALL.len().saturating_add(n as usize),
        }
    }
}

/// The tasks one side of the join runs, in rank order, and their estimated cost.
#[derive(Debug, Default)]
struct Group {
    tasks: Vec<Task>,
    cost: u64,
}

/// Tasks that must run in one group, in rank order, and their cost.
type Unit = (u64, Task, Option<Task>);

/// What the groups produced, by member; `None` where a task was not run.
#[derive(Debug, Default)]
pub struct Outcomes {
    reads: [Option<ReadResult>; 8],
    checks: [Option<CheckResult>; 8],
}

impl Outcomes {
    /// The read of `name`, if a group ran it.
    pub fn take_read(&mut self, name: MemberName) -> Option<ReadResult> {
        self.reads.get_mut(name as usize).and_then(Option::take)
    }

    /// The JSON check of `name`, if a group ran it.
    pub fn take_check(&mut self, name: MemberName) -> Option<CheckResult> {
        self.checks.get_mut(name as usize).and_then(Option::take)
    }

    fn read_bytes(&self, name: MemberName) -> Option<&[u8]> {
        match self.reads.get(name as usize) {
            Some(Some(Ok((bytes, _)))) => Some(bytes),
            _ => None,
        }
    }

    fn merge(mut self, other: Outcomes) -> Outcomes {
        let slots = self.reads.iter_mut().zip(other.reads);
        for (mine, theirs) in slots {
            *mine = mine.take().or(theirs);
        }
        for (mine, theirs) in self.checks.iter_mut().zip(other.checks) {
            *mine = mine.take().or(theirs);
        }
        self
    }
}

/// Reads one member (§4.2), as a task or as the caller's own read of a skipped one.
pub fn read_one(data: &[u8], entry: &Entry) -> ReadResult {
    read_member(data, entry).map_err(Error::from)
}

/// What every task reads from, and the lowest rank that failed so far.
struct Context<'a> {
    data: &'a [u8],
    archive: &'a Archive,
    limits: &'a ArchiveLimits,
    failed: AtomicUsize,
}

/// Runs the member work of `archive` (every member but the manifest) in two groups through
/// `join`, or inline when the lighter group's cost is below [`Join::min_work`]. Nothing is
/// copied besides each member's one output buffer (§4.1).
pub fn read_members(data: &[u8], archive: &Archive, limits: &ArchiveLimits, join: &impl Join) -> Outcomes {
    let [a, b] = plan(archive);
    let cx = Context {
        data,
        archive,
        limits,
        failed: AtomicUsize::new(usize::MAX),
    };
    let (x, y) = if b.tasks.is_empty() || a.cost.min(b.cost) < join.min_work() {
        (run(&cx, &a.tasks), run(&cx, &b.tasks))
    } else {
        join.join(|| run(&cx, &a.tasks), || run(&cx, &b.tasks))
    };
    x.merge(y)
}

/// Splits the work into two groups of about equal cost (see [`assign`]).
fn plan(archive: &Archive) -> [Group; 2] {
    let units = ALL
        .into_iter()
        .skip(1)
        .filter_map(|name| archive.entry(name as usize).map(|e| (name, e)))
        .flat_map(|(name, e)| units_of(name, e.central.uncompressed, e.central.method == STORED))
        .flatten()
        .collect();
    assign(units)
}

/// Longest processing time first: the costliest unit first, each into the lighter group;
/// then each group's tasks in rank order.
fn assign(mut units: Vec<Unit>) -> [Group; 2] {
    units.sort_by_key(|u| core::cmp::Reverse(u.0));
    let mut groups = [Group::default(), Group::default()];
    for (cost, first, second) in units {
        let [a, b] = &mut groups;
        let lighter = if b.cost < a.cost { b } else { a };
        lighter.cost = lighter.cost.saturating_add(cost);
        lighter.tasks.extend([Some(first), second].into_iter().flatten());
    }
    for g in &mut groups {
        g.tasks.sort_by_key(|t| t.rank());
    }
    groups
}

/// The units of a member of `size` bytes: its read, and for a JSON member its check,
/// together when the check needs the read's output (deflated), apart when it reads the
/// stored bytes.
fn units_of(name: MemberName, size: u64, stored: bool) -> [Option<Unit>; 2] {
    let read = size.saturating_mul(if stored { STORED_READ } else { INFLATE_READ });
    if !name.is_json_member() {
        return [Some((read, Task::Read(name), None)), None];
    }
    let check = size.saturating_mul(if name == MemberName::Structure { VALIDATE } else { PARSE });
    if stored {
        [
            Some((read, Task::Read(name), None)),
            Some((check, Task::Check(name), None)),
        ]
    } else {
        [
            Some((read.saturating_add(check), Task::Read(name), Some(Task::Check(name)))),
            None,
        ]
    }
}

/// Runs one group's tasks in rank order until one fails or one ranked after a recorded
/// failure comes up.
fn run(cx: &Context<'_>, tasks: &[Task]) -> Outcomes {
    let mut out = Outcomes::default();
    for &task in tasks {
        if cx.failed.load(Ordering::Relaxed) < task.rank() {
            break;
        }
        let ok = match task {
            Task::Read(name) => {
                let Some(e) = cx.archive.entry(name as usize) else {
                    continue;
                };
                let r = read_one(cx.data, e);
                let ok = r.is_ok();
                if let Some(slot) = out.reads.get_mut(name as usize) {
                    *slot = Some(r);
                }
                ok
            }
            Task::Check(name) => {
                let stored = cx.archive.entry(name as usize).and_then(|e| stored_data(cx.data, e));
                let Some(bytes) = stored.or_else(|| out.read_bytes(name)) else {
                    continue;
                };
                let r = check_member(name, bytes, cx.limits);
                let ok = r.is_ok();
                if let Some(slot) = out.checks.get_mut(name as usize) {
                    *slot = Some(r);
                }
                ok
            }
        };
        if !ok {
            cx.failed.fetch_min(task.rank(), Ordering::Relaxed);
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use MemberName::{ModelCbm, Schema, Structure};

    fn groups(members: &[(MemberName, u64)], stored: bool) -> [Vec<Task>; 2] {
        let units = members
            .iter()
            .flat_map(|&(n, size)| units_of(n, size, stored))
            .flatten()
            .collect();
        assign(units).map(|g| g.tasks)
    }

    #[test]
    fn deflated_big_members_go_to_different_groups_each_with_its_check() {
        let m = [(ModelCbm, 64 << 20), (Schema, 9 << 10), (Structure, 64 << 20)];
        let [a, b] = groups(&m, false);
        assert_eq!(a, [Task::Read(Structure), Task::Check(Structure)]);
        assert_eq!(b, [Task::Read(ModelCbm), Task::Read(Schema), Task::Check(Schema)]);
    }

    #[test]
    fn a_stored_structure_is_validated_beside_the_reads() {
        let m = [(ModelCbm, 64 << 20), (Schema, 9 << 10), (Structure, 64 << 20)];
        let [a, b] = groups(&m, true);
        // Validating structure costs about as much as reading both big members; the small
        // schema's units fill in where the cost is lower (ties to the first group).
        assert_eq!(a, [Task::Check(Schema), Task::Check(Structure)]);
        assert_eq!(b, [Task::Read(ModelCbm), Task::Read(Schema), Task::Read(Structure)]);
    }

    #[test]
    fn tasks_rank_reads_in_member_order_then_checks() {
        let ranks: Vec<usize> = [Task::Read(ModelCbm), Task::Read(Structure), Task::Check(Schema)]
            .map(Task::rank)
            .into();
        assert!(ranks.is_sorted(), "{ranks:?}");
    }
}
