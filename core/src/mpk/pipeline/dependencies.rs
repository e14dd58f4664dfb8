//! §3.5.2 over one pipeline's text, read a second time once its stages are known and
//! ordered: each input names `decoder` or a stage strictly earlier in the order. The first
//! read checked the text's JSON and every stage's own rules, so every input here is a
//! non-empty string; this read keeps nothing per input but, when building, the
//! [`Dependency`] it resolves to.

use super::{DECODER, Dependency, INPUT, NOT_EARLIER, Stage, rule};
use crate::invariant;
use crate::json::{self, Cursor, JsonType, Limits, Parser, Sink, Str, Token, shape};
use crate::mpk::MpkError;
use crate::unique::Key;
use alloc::collections::BTreeMap;
use alloc::vec::Vec;

/// The input §3.5.2 refuses first: by its stage's place in the order, then by its place
/// in the list.
#[derive(Clone, Copy)]
pub(super) struct Miss {
    /// The stage's place in the order, its index in `sequence`, the input's index in the
    /// `input` array (`None` for an `input` string) and its offset in the document.
    position: usize,
    stage: usize,
    item: Option<usize>,
    at: usize,
}

impl Miss {
    /// The error at `sequence[stage].input[item]` (or `sequence[stage].input`) below `seq`.
    pub(super) fn error(&self, seq: &Cursor<'_, '_>) -> MpkError {
        let s = shape(0, JsonType::Object);
        let s = seq.element(&s, self.stage);
        let name = shape(self.at, JsonType::String);
        match self.item {
            Some(k) => {
                let list = shape(0, JsonType::Array);
                let list = s.member(&list, INPUT);
                rule(&list.element(&name, k), NOT_EARLIER)
            }
            None => rule(&s.member(&name, INPUT), NOT_EARLIER),
        }
    }
}

/// Reads `text` (a pipeline object, at `base` in the document) for §3.5.2 against
/// `stages`, in execution order. With `build`, a pipeline that passes gets each stage's
/// inputs. An error is the JSON's, which the first read already accepted.
pub(super) fn check(
    text: &[u8],
    base: usize,
    limits: Limits,
    stages: &mut [Stage],
    build: bool,
) -> Result<Option<Miss>, json::Error> {
    let positions: BTreeMap<Key<'_>, usize> = stages.iter().enumerate().map(|(p, s)| (Key::new(&s.name), p)).collect();
    // Stage `i` of `sequence` is at `place[i]` of the order.
    let mut place = alloc::vec![0usize; stages.len()];
    for (p, s) in stages.iter().enumerate() {
        if let Some(slot) = place.get_mut(s.index) {
            *slot = p;
        }
    }
    let mut walk = Walk {
        positions,
        place,
        base,
        roles: Vec::new(),
        member: None,
        stage: 0,
        stages_seen: 0,
        item: 0,
        miss: None,
        found: build.then(|| alloc::vec![Vec::new(); stages.len()]),
    };
    Parser::new(text, limits)?.read_into(&mut walk)?;
    let (miss, found) = (walk.miss, walk.found.take());
    drop(walk);
    if let (None, Some(found)) = (miss, found) {
        for (s, deps) in stages.iter_mut().zip(found) {
            s.input = deps;
        }
    }
    Ok(miss)
}

/// What an open container is: the pipeline, its `sequence`, a stage, its `input` array.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Pipeline,
    Sequence,
    Stage,
    Dependencies,
    Other,
}

struct Walk<'s, 'a> {
    /// Each stage's place in the order, by name (keyed by its first eight bytes first, so
    /// that most comparisons are one integer comparison).
    positions: BTreeMap<Key<'s>, usize>,
    place: Vec<usize>,
    base: usize,
    roles: Vec<Role>,
    member: Option<Str<'a>>,
    /// The stage being read (its index in `sequence`), stages seen, and the next input's
    /// index.
    stage: usize,
    stages_seen: usize,
    item: usize,
    miss: Option<Miss>,
    /// When building: each stage's inputs, by place in the order.
    found: Option<Vec<Vec<Dependency>>>,
}

impl<'a> Walk<'_, 'a> {
    fn start(&mut self, object: bool) -> Role {
        let named = |want: &str| self.member.is_some_and(|n| n.value() == want);
        match self.roles.last().copied() {
            None if object => Role::Pipeline,
            Some(Role::Pipeline) if !object && named("sequence") => Role::Sequence,
            Some(Role::Sequence) => {
                self.stage = self.stages_seen;
                self.stages_seen = self.stages_seen.saturating_add(1);
                self.item = 0;
                if object { Role::Stage } else { Role::Other }
            }
            Some(Role::Stage) if !object && named(INPUT) => Role::Dependencies,
            _ => Role::Other,
        }
    }

    /// An input `name` at `at` of the stage being read (§3.5.2): element `k` of its `input`
    /// array, or (`None`) its `input` string.
    fn dependency(&mut self, at: usize, name: &str, k: Option<usize>) {
        // The sequence rules passed: every element read is a stage with its place.
        let position = invariant::item(&self.place, self.stage);
        let resolved = if name == DECODER {
            Some(Dependency::Decoder)
        } else {
            // A position fits 32 bits: the text is at most `json::MAX_INPUT` (u32::MAX)
            // bytes, and a stage takes more than one.
            self.positions
                .get(&Key::new(name))
                .filter(|&&p| p < position)
                .and_then(|&p| u32::try_from(p).ok())
                .map(Dependency::Stage)
        };
        match resolved {
            Some(d) => {
                if let Some(deps) = self.found.as_mut().and_then(|f| f.get_mut(position)) {
                    deps.push(d);
                }
            }
            None => {
                let miss = Miss {
                    position,
                    stage: self.stage,
                    item: k,
                    at: self.base.saturating_add(at),
                };
                if self.miss.is_none_or(|m| (position, k) < (m.position, m.item)) {
                    self.miss = Some(miss);
                }
            }
        }
    }
}

impl<'a> Sink<'a> for Walk<'_, 'a> {
    fn open(&mut self, _: usize, object: bool) {
        let role = self.start(object);
        self.member = None;
        self.roles.push(role);
    }

    fn close(&mut self, _: usize) {
        self.roles.pop();
    }

    fn name(&mut self, _: usize, name: Str<'a>) {
        self.member = Some(name);
    }

    fn scalar(&mut self, at: usize, token: Token<'a>) {
        let named = self.member.take().is_some_and(|n| n.value() == INPUT);
        match (self.roles.last(), token) {
            (Some(Role::Dependencies), Token::String(s)) => {
                let k = self.item;
                self.item = self.item.saturating_add(1);
                self.dependency(at, &s.value(), Some(k));
            }
            (Some(Role::Stage), Token::String(s)) if named => self.dependency(at, &s.value(), None),
            (Some(Role::Sequence), _) => {
                // A stage that is not an object fails its own rules in the first read.
                self.stages_seen = self.stages_seen.saturating_add(1);
            }
            _ => {}
        }
    }
}
