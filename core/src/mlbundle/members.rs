//! The member work of `read_container` (`spec/mlbundle.md` §4, §7, §8.1, §12.0): reading
//! every member but the manifest, hashing it and checking the JSON members, split into two
//! groups that a [`Join`] may run at the same time. The groups only fill in results;
//! `read_container` reports them in the serial order, so the outcome never depends on the
//! join or the plan.
//!
//! A task's rank is its place in the serial order: the reads in fixed member order (§4.1),
//! then the JSON checks (§8). Each group runs its tasks in rank order and stops at its first
//! failure; a failure also stops the other group before any task ranked after it. A task
//! skipped this way can only be needed after a failure of lower rank, which is reported
//! first; [`Outcomes`] leaves such a task to the caller, which then runs it itself.
//!
//! There are two plans (§12.0). The fused plan is one join: each read computes its SHA-256
//! in the same pass as its CRC-32, and a deflated JSON member is checked after its read in
//! the same group. The split plan is two joins: first every read with its CRC-32 only, then
//! the SHA-256 of every member and the JSON checks, each on whichever side is lighter. A
//! join whose halves run at the same time gets the split plan when its estimated time is
//! shorter (two deflated members of similar size, one of them JSON: the SHA-256 of the
//! bytes one side inflated runs beside the other side's JSON check); any other join gets
//! the fused plan, which touches each byte once.
//!
//! A join that offers two SHA-256 lanes ([`Join::sha256_pair`]) gets, in either plan, each
//! group's two largest whole-member hashes as one task that steps both chains side by side:
//! the pair read of two stored members, or the pair hash of two members' read bytes.

use super::declaration::{check_member, check_member_first, check_member_joined, check_member_second};
use super::error::Error;
use super::limits::ArchiveLimits;
use super::names::{ALL, MemberName};
use crate::digest::lanes::{CompressPair, in_turn, sha256_pair};
use crate::digest::sha256;
use crate::join::Join;
use crate::json::split::{CHUNK, Meeting, Prefix, Suffix};
use crate::zip::header::STORED;
use crate::zip::{Archive, Entry, read_member, read_member_with, read_stored_pair, stored_data};
use alloc::borrow::Cow;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicUsize, Ordering};

/// A member's uncompressed bytes and SHA-256, or why they could not be read (§4). A stored
/// member's bytes are borrowed from the archive; a deflated member's are its output buffer.
pub type ReadResult<'a> = Result<(Cow<'a, [u8]>, [u8; 32]), Error>;

/// A JSON member's §8.1 check: its validation (no member is decoded).
pub type CheckResult = Result<(), Error>;

/// A read as the member work records it (§12.0): the SHA-256 is `None` when the plan hashes
/// in a task of its own and that task did not run.
pub type PlannedRead<'a> = Result<(Cow<'a, [u8]>, Option<[u8; 32]>), Error>;

/// Relative cost per byte of each kind of task, in about quarter nanoseconds on x86-64 with
/// SHA-NI, as measured inside a whole read (`perf`; `cli/benches/HISTORY.md`: a JSON check there
/// reads its member from memory, not cache). They only balance the groups and choose the plan.
/// A stored member's CRC-32, over its bytes where they lie in the archive.
const STORED_CRC: u64 = 1;
/// A deflated member's inflate with its CRC-32 (and the copy out of the ring).
const INFLATE: u64 = 20;
/// SHA-256.
const SHA: u64 = 4;
/// A JSON member's validation.
const VALIDATE: u64 = 12;
/// The smallest JSON member whose check two workers share (§12.0, `spec/json.md` §10.5):
/// twice the [`json::split::CHUNK`](crate::json::split::CHUNK) a second worker leaves the
/// first at least (a `usize` of 1 MiB: widening it to `u64` loses nothing).
const SHARED_MIN: u64 = 2 * CHUNK as u64;
/// SHA-256 in two lanes ([`Join::sha256_pair`]), per byte of each lane: two chains side by
/// side take about 1.3 times less than one after the other (`cli/benches/HISTORY.md`, "Two
/// SHA-256 lanes").
const SHA_PAIR: u64 = 6;

/// One piece of member work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Task {
    /// Read the member (§4.2); in the fused plan with its SHA-256.
    Read(MemberName),
    /// SHA-256 of the member's bytes (§7), after its read, in the split plan.
    Hash(MemberName),
    /// Check the JSON member (§8.1): a stored member's bytes straight from the archive, a
    /// deflated member's from its read.
    Check(MemberName),
    /// The second worker of the JSON member's check, in the other group (§12.0,
    /// `spec/json.md` §10.5): once its group's other tasks are done, it reads the rest of
    /// the member from a comma it claims, unless the check has finished.
    CheckRest(MemberName),
    /// Read two stored members in one pass, their SHA-256s in two lanes, in the fused plan
    /// of a join that offers them; the first member comes first in the serial order.
    ReadPair(MemberName, MemberName),
    /// The SHA-256s of two members' bytes in two lanes, in the split plan of a join that
    /// offers them; the first member comes first in the serial order.
    HashPair(MemberName, MemberName),
}

impl Task {
    /// The task's place in the serial order. A hash cannot fail: it shares its read's rank;
    /// a pair takes its first member's.
    fn rank(self) -> usize {
        match self {
            Task::Read(n) | Task::Hash(n) | Task::ReadPair(n, _) | Task::HashPair(n, _) => n as usize,
            Task::Check(n) | Task::CheckRest(n) => ALL.len().saturating_add(n as usize),
        }
    }
}

impl Plan {
    /// The member whose check two workers share (§12.0): the one with a
    /// [`Task::CheckRest`].
    fn shared(&self) -> Option<MemberName> {
        let groups = match self {
            Plan::Fused(g) | Plan::Split(_, g) => g,
        };
        groups.iter().flat_map(|g| &g.tasks).find_map(|t| match t {
            Task::CheckRest(n) => Some(*n),
            _ => None,
        })
    }
}

/// The tasks one side of a join runs, in rank order, and their estimated cost.
#[derive(Debug, Default)]
struct Group {
    tasks: Vec<Task>,
    cost: u64,
}

/// Tasks that must run in one group, in rank order, and their cost.
type Unit = (u64, Task, Option<Task>);

/// Which tasks run in which join (see the module documentation).
#[derive(Debug)]
enum Plan {
    /// One join; reads hash in the same pass.
    Fused([Group; 2]),
    /// A join of reads, then a join of hashes and checks.
    Split([Group; 2], [Group; 2]),
}

/// What the groups produced, by member; `None` where a task was not run.
#[derive(Debug, Default)]
pub struct Outcomes<'a> {
    reads: [Option<PlannedRead<'a>>; 8],
    hashes: [Option<[u8; 32]>; 8],
    checks: [Option<CheckResult>; 8],
    /// The shared check's first worker, paused where the second claimed the rest.
    first: Option<(MemberName, Prefix<'a>)>,
    /// The shared check's second worker's read of the rest.
    second: Option<Suffix>,
}

impl<'a> Outcomes<'a> {
    /// The read of `name`, if a group ran it, with its SHA-256 if a group computed it.
    pub fn take_read(&mut self, name: MemberName) -> Option<PlannedRead<'a>> {
        let read = self.reads.get_mut(name as usize).and_then(Option::take)?;
        let hash = self.hashes.get_mut(name as usize).and_then(Option::take);
        Some(read.map(|(bytes, sha)| (bytes, sha.or(hash))))
    }

    /// The JSON check of `name`, if a group ran it.
    pub fn take_check(&mut self, name: MemberName) -> Option<CheckResult> {
        self.checks.get_mut(name as usize).and_then(Option::take)
    }

    /// Records a read of `name`; `Err` holds its rank when it failed.
    fn record_read(&mut self, name: MemberName, read: PlannedRead<'a>) -> Result<(), usize> {
        let failed = read.is_err();
        if let Some(slot) = self.reads.get_mut(name as usize) {
            *slot = Some(read);
        }
        if failed { Err(Task::Read(name).rank()) } else { Ok(()) }
    }

    /// Records the SHA-256 of `name`'s bytes.
    fn record_hash(&mut self, name: MemberName, digest: [u8; 32]) {
        if let Some(slot) = self.hashes.get_mut(name as usize) {
            *slot = Some(digest);
        }
    }

    fn read_bytes(&self, name: MemberName) -> Option<&[u8]> {
        match self.reads.get(name as usize) {
            Some(Some(Ok((bytes, _)))) => Some(bytes),
            _ => None,
        }
    }

    fn merge(mut self, other: Outcomes<'a>) -> Outcomes<'a> {
        for (mine, theirs) in self.reads.iter_mut().zip(other.reads) {
            *mine = mine.take().or(theirs);
        }
        for (mine, theirs) in self.hashes.iter_mut().zip(other.hashes) {
            *mine = mine.take().or(theirs);
        }
        for (mine, theirs) in self.checks.iter_mut().zip(other.checks) {
            *mine = mine.take().or(theirs);
        }
        self.first = self.first.take().or(other.first);
        self.second = self.second.take().or(other.second);
        self
    }

    /// Joins the shared check's two workers (`spec/json.md` §10.4) into its result.
    fn settle(mut self) -> Self {
        if let Some((name, first)) = self.first.take() {
            let result = check_member_joined(name, first, self.second.as_ref());
            if let Some(slot) = self.checks.get_mut(name as usize) {
                *slot = Some(result);
            }
        }
        self
    }
}

/// Reads one member (§4.2), as a task or as the caller's own read of a skipped one.
pub fn read_one<'a>(data: &'a [u8], entry: &Entry) -> ReadResult<'a> {
    read_member(data, entry).map_err(Error::from)
}

/// What every task reads from (the archive bytes `'d`, which stored members' reads borrow),
/// and the lowest rank that failed so far.
struct Context<'d, 'c> {
    data: &'d [u8],
    archive: &'c Archive,
    limits: &'c ArchiveLimits,
    failed: AtomicUsize,
    /// The join's two SHA-256 lanes, or lanes in turn when it offers none (then the plan
    /// holds no pair task).
    pair: CompressPair,
    /// The member whose check two workers share, if the plan has one, and where they meet.
    shared: Option<MemberName>,
    meeting: Meeting,
}

/// Runs the member work of `archive` (every member but the manifest) in two groups through
/// `join` (one join or two, see `Plan`), or inline when the lighter group's cost is below
/// [`Join::min_work`]. Nothing is copied: a deflated member is inflated into its one output
/// buffer, a stored member is read where it lies (§4.1).
pub fn read_members<'d>(data: &'d [u8], archive: &Archive, limits: &ArchiveLimits, join: &impl Join) -> Outcomes<'d> {
    let lanes = join.sha256_pair();
    let plan = plan(archive, join.parallel(), lanes.is_some());
    let cx = Context {
        data,
        archive,
        limits,
        failed: AtomicUsize::new(usize::MAX),
        pair: lanes.unwrap_or(in_turn),
        shared: plan.shared(),
        meeting: Meeting::new(CHUNK),
    };
    let none = Outcomes::default();
    match plan {
        Plan::Fused(groups) => run_pair(&cx, &groups, &none, join, true).settle(),
        Plan::Split(reads, rest) => {
            let first = run_pair(&cx, &reads, &none, join, false);
            // A failed read is reported before any hash or check would be needed.
            if cx.failed.load(Ordering::Relaxed) != usize::MAX {
                return first;
            }
            let second = run_pair(&cx, &rest, &first, join, false);
            first.merge(second).settle()
        }
    }
}

/// Runs two groups through `join`, or one after the other when either is too small.
fn run_pair<'d>(
    cx: &Context<'d, '_>,
    [a, b]: &[Group; 2],
    prior: &Outcomes<'d>,
    join: &impl Join,
    hash: bool,
) -> Outcomes<'d> {
    let (x, y) = if b.tasks.is_empty() || a.cost.min(b.cost) < join.min_work() {
        (run(cx, &a.tasks, prior, hash), run(cx, &b.tasks, prior, hash))
    } else {
        join.join(|| run(cx, &a.tasks, prior, hash), || run(cx, &b.tasks, prior, hash))
    };
    x.merge(y)
}

/// Chooses the plan (see [`Plan`]): the split one only for a `parallel` join and only when
/// its estimated time is shorter; with two SHA-256 `lanes`, each plan's groups hash two
/// members side by side ([`pair_up`]).
fn plan(archive: &Archive, parallel: bool, lanes: bool) -> Plan {
    let members: Vec<(MemberName, u64, bool)> = ALL
        .into_iter()
        .skip(1)
        .filter_map(|name| archive.entry(name as usize).map(|e| (name, e)))
        .map(|(name, e)| (name, e.central.uncompressed, e.central.method == STORED))
        .collect();
    choose(&members, parallel, lanes)
}

/// [`plan`] over `(member, size, stored)`.
fn choose(members: &[(MemberName, u64, bool)], parallel: bool, lanes: bool) -> Plan {
    let size = |name: MemberName| members.iter().find(|m| m.0 == name).map_or(0, |m| m.1);
    let mut fused = assign(
        members
            .iter()
            .flat_map(|&(n, size, stored)| fused_units(n, size, stored))
            .flatten()
            .collect(),
    );
    if lanes {
        let stored = |name: MemberName| members.iter().any(|m| m.0 == name && m.2);
        pair_up(&mut fused, size, Task::ReadPair, |t| match t {
            Task::Read(n) if stored(n) => Some(n),
            _ => None,
        });
    }
    if !parallel {
        return Plan::Fused(fused);
    }
    let stored = |n: MemberName| members.iter().any(|m| m.0 == n && m.2);
    share_check(&mut fused, size, stored);
    let reads = members
        .iter()
        .map(|&(n, size, stored)| (read_cost(size, stored), Task::Read(n), None))
        .collect();
    let rest = members
        .iter()
        .flat_map(|&(n, size, _)| {
            let hash = (size.saturating_mul(SHA), Task::Hash(n), None);
            let check = n.is_json_member().then(|| (check_cost(size), Task::Check(n), None));
            [Some(hash), check]
        })
        .flatten()
        .collect();
    let (reads, mut rest) = (assign(reads), assign(rest));
    if lanes {
        pair_up(&mut rest, size, Task::HashPair, |t| match t {
            Task::Hash(n) => Some(n),
            _ => None,
        });
    }
    if makespan(&reads).saturating_add(makespan(&rest)) < makespan(&fused) {
        Plan::Split(reads, rest)
    } else {
        Plan::Fused(fused)
    }
}

/// The estimated time of two groups run at the same time.
fn makespan([a, b]: &[Group; 2]) -> u64 {
    a.cost.max(b.cost)
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

/// Joins each group's two largest tasks whose SHA-256 could run in a lane (`lane` names
/// their member) into one task of the two (`pair`, the member first in the serial order
/// first), and takes what the lanes save off the group's cost (§12.0).
fn pair_up(
    groups: &mut [Group; 2],
    size: impl Fn(MemberName) -> u64,
    pair: fn(MemberName, MemberName) -> Task,
    lane: impl Fn(Task) -> Option<MemberName>,
) {
    for g in groups {
        let mut found: Vec<(u64, MemberName)> = g.tasks.iter().filter_map(|&t| lane(t)).map(|n| (size(n), n)).collect();
        found.sort_by_key(|&(bytes, n)| (core::cmp::Reverse(bytes), n as usize));
        let [(x_bytes, x), (y_bytes, y)] = match found.get(..2) {
            Some(&[x, y]) => [x, y],
            _ => continue,
        };
        g.tasks.retain(|&t| lane(t).is_none_or(|n| n != x && n != y));
        g.tasks.push(if (x as usize) < (y as usize) {
            pair(x, y)
        } else {
            pair(y, x)
        });
        g.tasks.sort_by_key(|t| t.rank());
        let saved = x_bytes.min(y_bytes).saturating_mul(2 * SHA - SHA_PAIR);
        g.cost = g.cost.saturating_sub(saved);
    }
}

/// Gives the check of the largest `stored` JSON member of at least [`SHARED_MIN`] bytes
/// a second worker in the other group, which reads the member where it lies too (§12.0,
/// `spec/json.md` §10.5). The costs stay as they are: where the workers meet is decided
/// as they run, by which is free first.
fn share_check(groups: &mut [Group; 2], size: impl Fn(MemberName) -> u64, stored: impl Fn(MemberName) -> bool) {
    let largest = |g: &Group| {
        g.tasks
            .iter()
            .filter_map(|t| match *t {
                Task::Check(n) if stored(n) && size(n) >= SHARED_MIN => Some((size(n), n)),
                _ => None,
            })
            .max_by_key(|&(bytes, n)| (bytes, core::cmp::Reverse(n as usize)))
    };
    let [a, b] = groups;
    let (other, name) = match (largest(a), largest(b)) {
        (Some(x), Some(y)) if y > x => (a, y.1),
        (Some(x), _) => (b, x.1),
        (None, Some(y)) => (a, y.1),
        (None, None) => return,
    };
    other.tasks.push(Task::CheckRest(name));
    other.tasks.sort_by_key(|t| t.rank());
}

/// A read's cost without its SHA-256.
fn read_cost(size: u64, stored: bool) -> u64 {
    size.saturating_mul(if stored { STORED_CRC } else { INFLATE })
}

/// A JSON member's §8.1 check's cost.
fn check_cost(size: u64) -> u64 {
    size.saturating_mul(VALIDATE)
}

/// The fused plan's units of a member of `size` bytes: its read with its SHA-256, and for
/// a JSON member its check, together when the check needs the read's output (deflated),
/// apart when it reads the stored bytes.
fn fused_units(name: MemberName, size: u64, stored: bool) -> [Option<Unit>; 2] {
    let read = read_cost(size, stored).saturating_add(size.saturating_mul(SHA));
    if !name.is_json_member() {
        return [Some((read, Task::Read(name), None)), None];
    }
    let check = check_cost(size);
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
/// failure comes up. Reads hash in the same pass when `hash` is set; hashes and checks
/// find a read's bytes in the group's own results or in `prior` (the first join's).
fn run<'d>(cx: &Context<'d, '_>, tasks: &[Task], prior: &Outcomes<'d>, hash: bool) -> Outcomes<'d> {
    let mut out = Outcomes::default();
    for &task in tasks {
        if cx.failed.load(Ordering::Relaxed) < task.rank() {
            break;
        }
        if let Err(rank) = run_task(cx, task, &mut out, prior, hash) {
            cx.failed.fetch_min(rank, Ordering::Relaxed);
            break;
        }
    }
    out
}

/// The bytes of `name`'s read, from `out` or else from `prior`.
fn found_bytes<'o>(out: &'o Outcomes<'_>, prior: &'o Outcomes<'_>, name: MemberName) -> Option<&'o [u8]> {
    out.read_bytes(name).or_else(|| prior.read_bytes(name))
}

/// A stored member's bytes, where they lie in the archive (§4.1).
fn stored_bytes<'d>(cx: &Context<'d, '_>, name: MemberName) -> Option<&'d [u8]> {
    cx.archive.entry(name as usize).and_then(|e| stored_data(cx.data, e))
}

/// Runs one task into `out`; `Err` holds the rank of the member whose read or check failed
/// (a pair's second member may fail alone). A task whose member is absent, or whose read
/// bytes are not there, does nothing.
fn run_task<'d>(
    cx: &Context<'d, '_>,
    task: Task,
    out: &mut Outcomes<'d>,
    prior: &Outcomes<'d>,
    hash: bool,
) -> Result<(), usize> {
    match task {
        Task::Read(name) => {
            let Some(e) = cx.archive.entry(name as usize) else {
                return Ok(());
            };
            out.record_read(name, read_member_with(cx.data, e, hash).map_err(Error::from))
        }
        Task::ReadPair(a, b) => {
            let (Some(ea), Some(eb)) = (cx.archive.entry(a as usize), cx.archive.entry(b as usize)) else {
                return Ok(());
            };
            let [ra, rb] = read_stored_pair(cx.data, [ea, eb], cx.pair);
            let first = out.record_read(a, ra.map_err(Error::from));
            first.and(out.record_read(b, rb.map_err(Error::from)))
        }
        Task::Hash(name) => {
            if let Some(digest) = found_bytes(out, prior, name).map(sha256) {
                out.record_hash(name, digest);
            }
            Ok(())
        }
        Task::HashPair(a, b) => {
            // The split plan hashes only after every read succeeded, so both are there; a
            // digest not recorded here is computed by the caller (§12.0).
            if let (Some(x), Some(y)) = (found_bytes(out, prior, a), found_bytes(out, prior, b)) {
                let [dx, dy] = sha256_pair(x, y, cx.pair, false);
                out.record_hash(a, dx.sha256);
                out.record_hash(b, dy.sha256);
            }
            Ok(())
        }
        Task::CheckRest(name) => {
            if let Some(member) = stored_bytes(cx, name) {
                out.second = check_member_second(name, member, cx.limits, &cx.meeting);
            }
            Ok(())
        }
        Task::Check(name) => {
            let stored = stored_bytes(cx, name);
            let r = if let (Some(member), true) = (stored, cx.shared == Some(name)) {
                let first = check_member_first(name, member, cx.limits, &cx.meeting);
                if first.paused().is_some() {
                    // The second worker has the rest: the result comes when both are done.
                    out.first = Some((name, first));
                    return Ok(());
                }
                check_member_joined(name, first, None)
            } else {
                let Some(member) = stored.or_else(|| found_bytes(out, prior, name)) else {
                    return Ok(());
                };
                check_member(name, member, cx.limits)
            };
            let failed = r.is_err();
            if let Some(slot) = out.checks.get_mut(name as usize) {
                *slot = Some(r);
            }
            if failed { Err(task.rank()) } else { Ok(()) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use MemberName::{ModelCbm, Schema, Structure};
    use alloc::vec;

    fn groups(members: &[(MemberName, u64)], stored: bool) -> [Vec<Task>; 2] {
        let units = members
            .iter()
            .flat_map(|&(n, size)| fused_units(n, size, stored))
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
        // Validating structure costs more than reading both big members in place (CRC-32
        // and SHA-256, no copy), so the small schema's units join the reads.
        assert_eq!(a, [Task::Check(Structure)]);
        assert_eq!(
            b,
            [
                Task::Read(ModelCbm),
                Task::Read(Schema),
                Task::Read(Structure),
                Task::Check(Schema)
            ]
        );
    }

    fn tasks(groups: &[Group; 2]) -> [Vec<Task>; 2] {
        [groups[0].tasks.clone(), groups[1].tasks.clone()]
    }

    #[test]
    fn two_deflated_members_of_which_one_is_json_get_the_split_plan_on_two_workers() {
        let m = [
            (ModelCbm, 64 << 20, false),
            (Schema, 9 << 10, false),
            (Structure, 64 << 20, false),
        ];
        let Plan::Split(reads, rest) = choose(&m, true, false) else {
            panic!("expected the split plan");
        };
        // The inflates side by side; then the JSON check beside both hashes.
        assert_eq!(
            tasks(&reads),
            [
                vec![Task::Read(ModelCbm), Task::Read(Schema)],
                vec![Task::Read(Structure)]
            ]
        );
        assert_eq!(
            tasks(&rest),
            [
                vec![Task::Check(Structure)],
                vec![
                    Task::Hash(ModelCbm),
                    Task::Hash(Schema),
                    Task::Hash(Structure),
                    Task::Check(Schema)
                ]
            ]
        );
        // Fused, one side would inflate, hash and validate structure.json.
        assert!(makespan(&reads) + makespan(&rest) < (INFLATE + SHA + VALIDATE) * (64 << 20));
    }

    #[test]
    fn one_worker_always_gets_the_fused_plan() {
        let m = [(ModelCbm, 64 << 20, false), (Structure, 64 << 20, false)];
        assert!(matches!(choose(&m, false, false), Plan::Fused(_)));
    }

    #[test]
    fn stored_members_and_a_lone_deflated_member_keep_the_fused_plan() {
        let stored = [
            (ModelCbm, 64 << 20, true),
            (Schema, 9 << 10, true),
            (Structure, 64 << 20, true),
        ];
        assert!(matches!(choose(&stored, true, false), Plan::Fused(_)));
        // Hashing after the read cannot overlap anything: splitting would only add a pass.
        let lone = [(ModelCbm, 64 << 20, false), (Schema, 9 << 10, true)];
        assert!(matches!(choose(&lone, true, false), Plan::Fused(_)));
    }

    #[test]
    fn with_two_lanes_the_two_largest_stored_reads_are_one_task() {
        let m = [
            (ModelCbm, 64 << 20, true),
            (Schema, 9 << 10, true),
            (Structure, 60 << 20, true),
        ];
        let Plan::Fused(groups) = choose(&m, true, true) else {
            panic!("expected the fused plan");
        };
        assert_eq!(
            tasks(&groups),
            [
                vec![Task::Check(Structure)],
                vec![
                    Task::ReadPair(ModelCbm, Structure),
                    Task::Read(Schema),
                    Task::Check(Schema),
                    // Once the lanes are done, the rest of structure.json (§12.0).
                    Task::CheckRest(Structure)
                ]
            ]
        );
        // The lanes save what a chain in turn would cost beyond them on the shorter member.
        let Plan::Fused(alone) = choose(&m, true, false) else {
            panic!("expected the fused plan");
        };
        assert_eq!(alone[1].cost - groups[1].cost, (60 << 20) * (2 * SHA - SHA_PAIR));
        // One worker pairs them too.
        let Plan::Fused(one) = choose(&m, false, true) else {
            panic!("expected the fused plan");
        };
        assert!(tasks(&one).concat().contains(&Task::ReadPair(ModelCbm, Structure)));
    }

    #[test]
    fn with_two_lanes_a_deflated_read_is_not_paired_but_its_hash_is() {
        let m = [
            (ModelCbm, 64 << 20, false),
            (Schema, 9 << 10, true),
            (Structure, 64 << 20, false),
        ];
        let Plan::Split(reads, rest) = choose(&m, true, true) else {
            panic!("expected the split plan");
        };
        assert!(tasks(&reads).iter().flatten().all(|t| matches!(t, Task::Read(_))));
        assert_eq!(
            tasks(&rest),
            [
                vec![Task::Check(Structure)],
                vec![
                    Task::HashPair(ModelCbm, Structure),
                    Task::Hash(Schema),
                    Task::Check(Schema)
                ]
            ]
        );
        // Fused, the deflated reads hash in their own pass: nothing to pair but the
        // schema, which has no partner.
        let Plan::Fused(fused) = choose(&m, false, true) else {
            panic!("expected the fused plan");
        };
        assert!(tasks(&fused).iter().flatten().all(|t| !matches!(t, Task::ReadPair(..))));
    }

    #[test]
    fn without_lanes_no_task_is_a_pair() {
        for stored in [false, true] {
            let m = [(ModelCbm, 64 << 20, stored), (Structure, 64 << 20, stored)];
            for parallel in [false, true] {
                let all = match choose(&m, parallel, false) {
                    Plan::Fused(g) => tasks(&g).concat(),
                    Plan::Split(r, h) => [tasks(&r).concat(), tasks(&h).concat()].concat(),
                };
                assert!(
                    all.iter()
                        .all(|t| !matches!(t, Task::ReadPair(..) | Task::HashPair(..))),
                    "{all:?}"
                );
            }
        }
    }

    #[test]
    fn a_pair_takes_its_first_members_rank() {
        assert_eq!(Task::ReadPair(ModelCbm, Structure).rank(), Task::Read(ModelCbm).rank());
        assert_eq!(Task::HashPair(ModelCbm, Structure).rank(), Task::Read(ModelCbm).rank());
    }

    #[test]
    fn a_hash_shares_its_reads_rank() {
        assert_eq!(Task::Hash(Structure).rank(), Task::Read(Structure).rank());
        assert!(Task::Hash(Structure).rank() < Task::Check(Schema).rank());
    }

    #[test]
    fn tasks_rank_reads_in_member_order_then_checks() {
        let ranks: Vec<usize> = [Task::Read(ModelCbm), Task::Read(Structure), Task::Check(Schema)]
            .map(Task::rank)
            .into();
        assert!(ranks.is_sorted(), "{ranks:?}");
    }

    /// The tasks of each join of `plan` (one for the fused plan, two for the split one), both
    /// groups in turn.
    fn all_tasks(plan: &Plan) -> Vec<Vec<Task>> {
        match plan {
            Plan::Fused(g) => vec![tasks(g).concat()],
            Plan::Split(r, h) => vec![tasks(r).concat(), tasks(h).concat()],
        }
    }

    /// For random member sets (one to seven members, sizes among them empty and equal,
    /// stored, deflated or mixed), with and without lanes, one worker or two: every member
    /// is read exactly once (alone or in one pair), hashed exactly once in the split plan,
    /// and each JSON member checked exactly once; a pair joins two members of one group in
    /// serial order, pairs only stored reads in a plan's reads, and each group stays in rank
    /// order.
    #[test]
    fn every_plan_reads_hashes_and_checks_each_member_exactly_once() {
        use crate::test_docs::{Choose, Rng};
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        const SIZES: [u64; 6] = [0, 0, 1, 64, 1 << 20, 64 << 20];
        for _ in 0..2000 {
            let mut members: Vec<(MemberName, u64, bool)> = Vec::new();
            for n in ALL.into_iter().skip(1) {
                if rng.one_in(2) {
                    members.push((n, SIZES[rng.below(SIZES.len())], rng.one_in(2)));
                }
            }
            for parallel in [false, true] {
                for lanes in [false, true] {
                    let plan = choose(&members, parallel, lanes);
                    let groups: Vec<&Group> = match &plan {
                        Plan::Fused(g) => g.iter().collect(),
                        Plan::Split(r, h) => r.iter().chain(h).collect(),
                    };
                    for g in &groups {
                        assert!(g.tasks.is_sorted_by_key(|t| t.rank()), "{members:?} {plan:?}");
                    }
                    let joins = all_tasks(&plan);
                    let reads = &joins[0];
                    let stored = |n: MemberName| members.iter().any(|m| m.0 == n && m.2);
                    for &(n, _, _) in &members {
                        let read = |t: &&Task| match **t {
                            Task::Read(m) => m == n,
                            Task::ReadPair(a, b) => a == n || b == n,
                            _ => false,
                        };
                        assert_eq!(reads.iter().filter(read).count(), 1, "{n:?} {members:?} {plan:?}");
                        let hashes = |t: &&Task| match **t {
                            Task::Hash(m) => m == n,
                            Task::HashPair(a, b) => a == n || b == n,
                            _ => false,
                        };
                        let hashed = joins.iter().flatten().filter(hashes).count();
                        assert_eq!(hashed, usize::from(joins.len() == 2), "{n:?} {members:?} {plan:?}");
                        let checked = joins.iter().flatten().filter(|t| **t == Task::Check(n)).count();
                        assert_eq!(checked, usize::from(n.is_json_member()), "{n:?} {plan:?}");
                    }
                    for t in joins.iter().flatten() {
                        match *t {
                            Task::ReadPair(a, b) => {
                                assert!(
                                    lanes && (a as usize) < (b as usize) && stored(a) && stored(b),
                                    "{plan:?}"
                                )
                            }
                            Task::HashPair(a, b) => assert!(lanes && (a as usize) < (b as usize), "{plan:?}"),
                            _ => {}
                        }
                    }
                    // §12.0: a check has a second worker only on two workers, for a stored
                    // member of at least the shared chunk, in the other group of its join,
                    // and only one check has.
                    let rests: Vec<MemberName> = joins
                        .iter()
                        .flatten()
                        .filter_map(|t| match *t {
                            Task::CheckRest(n) => Some(n),
                            _ => None,
                        })
                        .collect();
                    assert!(rests.len() <= 1, "{plan:?}");
                    for &n in &rests {
                        let size = members.iter().find(|m| m.0 == n).map_or(0, |m| m.1);
                        assert!(parallel && stored(n) && size >= SHARED_MIN, "{plan:?}");
                        assert_eq!(plan.shared(), Some(n));
                        assert!(
                            groups
                                .iter()
                                .any(|g| g.tasks.contains(&Task::Check(n)) && !g.tasks.contains(&Task::CheckRest(n)))
                        );
                        assert!(
                            groups
                                .iter()
                                .any(|g| g.tasks.contains(&Task::CheckRest(n)) && !g.tasks.contains(&Task::Check(n)))
                        );
                    }
                    let big_stored_json = members.iter().any(|m| m.0.is_json_member() && m.2 && m.1 >= SHARED_MIN);
                    if parallel && big_stored_json && matches!(plan, Plan::Fused(_)) {
                        assert_eq!(rests.len(), 1, "{members:?} {plan:?}");
                    }
                    // No member of the plan that is not in the bundle.
                    assert!(joins.iter().flatten().all(|t| {
                        let n = match *t {
                            Task::Read(n)
                            | Task::Hash(n)
                            | Task::Check(n)
                            | Task::CheckRest(n)
                            | Task::ReadPair(n, _)
                            | Task::HashPair(n, _) => n,
                        };
                        members.iter().any(|m| m.0 == n)
                    }));
                }
            }
        }
    }
}
