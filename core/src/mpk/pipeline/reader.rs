//! The walk over `pipeline_sequence.json`'s tokens (`spec/mpk.md` §3.3.1), fed by the
//! strict parser as it validates the document.
//!
//! The walk keeps a stand-in (type and offset) for the root, `pipelines`, the open pipeline
//! and its `sequence`, and for the open stage a small value of the members §3.4 reads
//! (scalars whole, containers as stand-ins, an `input` array as a stand-in plus its first
//! element that is not a non-empty string). When a stage closes, its rules run on that
//! value ([`super::stage`]); when a pipeline closes, the `sequence` rules run, then its
//! stages' first failure, then §3.5 over its text ([`super::dependencies`]), and the
//! pipeline is forgotten (or, in the building read, kept). The first failing pipeline ends
//! the checking; the parser reads on for the JSON rules, whose errors come first.

use super::{
    DECODER, INPUT, Pipeline, ROOT, Rules, STAGE, Stage, dependencies, dependency, duplicate_name, field, order,
    sequence, stage,
};
use crate::invariant;
use crate::json::{
    self, Cursor, JsonType, Limits, Member, Node, Number, Parser, Problem, Sink, Str, Text, Token, Value, container,
    scalar_type, shape,
};
use crate::mpk::MpkError;
use alloc::collections::BTreeSet;
use alloc::string::String;
use alloc::vec::Vec;

/// Reads `bytes` with every JSON check, then gives the rules' verdict; with `build`, the
/// pipelines of a document that passes them.
pub(super) fn read(
    bytes: &[u8],
    limits: Limits,
    rules: &Rules<'_>,
    build: bool,
) -> Result<Result<Vec<Pipeline>, MpkError>, json::Error> {
    let mut walk = Walk {
        bytes,
        limits,
        rules,
        build,
        roles: Vec::new(),
        member: None,
        root: None,
        pipelines: None,
        count: 0,
        pipeline: None,
        error: None,
        json: None,
        out: Vec::new(),
    };
    Parser::new(bytes, limits)?.read_into(&mut walk)?;
    if let Some(e) = walk.json {
        return Err(e);
    }
    Ok(walk.finish())
}

/// What an open container is to the rules.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Root,
    Pipelines,
    Pipeline,
    Sequence,
    Stage,
    Dependencies,
    /// A container no rule looks into.
    Other,
}

/// The stage being read: element `index` of `sequence`.
struct OpenStage {
    index: usize,
    /// Its stand-in; an object gets the members below when it closes.
    value: Value,
    /// The members of [`STAGE`] it has, an `input` array as a stand-in.
    members: Vec<Member>,
    /// Elements of an `input` array so far, and the first that is not a non-empty string.
    items: usize,
    bad_item: Option<(usize, Value)>,
}

/// The pipeline being read: element `index` of `pipelines`.
struct OpenPipeline {
    index: usize,
    value: Value,
    /// The stand-in of its `sequence`, and the number of its elements.
    sequence: Option<Value>,
    len: usize,
    /// Its stages that passed their own rules, in document order, their names, and the
    /// first failure among them; stages after that one are only counted.
    stages: Vec<Stage>,
    names: BTreeSet<String>,
    failure: Option<MpkError>,
    stage: Option<OpenStage>,
    /// True once an input names something other than `decoder`: only then can §3.5.2 fail,
    /// so only then does a checking read go over the pipeline's text again.
    ordered: bool,
}

struct Walk<'a, 'r> {
    bytes: &'a [u8],
    limits: Limits,
    rules: &'r Rules<'r>,
    build: bool,
    roles: Vec<Role>,
    /// The member whose value comes next, and where its name starts.
    member: Option<(usize, Str<'a>)>,
    root: Option<Value>,
    pipelines: Option<Value>,
    /// Elements of `pipelines` so far.
    count: usize,
    pipeline: Option<OpenPipeline>,
    /// The first failing pipeline's failure; nothing is checked after it.
    error: Option<MpkError>,
    /// A failure of the second read of a pipeline's text (which the first read accepted).
    json: Option<json::Error>,
    out: Vec<Pipeline>,
}

/// A value of the stage's members whole: scalars as they are, a container as a stand-in.
fn scalar(at: usize, token: &Token<'_>) -> Value {
    let node = match token {
        Token::String(s) => Node::String(Text::new(&s.value())),
        // The tokenizer has checked the number's syntax.
        Token::Number(n) => Node::Number(invariant::some_or(Number::parse(n.raw()), Number::from_u64(0))),
        Token::Bool(b) => Node::Bool(*b),
        _ => Node::Null,
    };
    Value { offset: at, node }
}

/// An object's stand-in holding one member's stand-in, so that a typed read finds it (the
/// rules read the member's value and offset, never its name's offset).
fn holding(object: &Value, name: &str, value: Option<&Value>) -> Value {
    let node = match value {
        Some(v) => Node::Object(alloc::vec![Member {
            name: Text::new(name),
            name_offset: object.offset,
            value: v.clone(),
        }]),
        None => Node::Object(Vec::new()),
    };
    Value {
        offset: object.offset,
        node: if object.json_type() == JsonType::Object {
            node
        } else {
            object.node.clone()
        },
    }
}

impl<'a> Walk<'a, '_> {
    /// A value of type `json_type` starts at `at` (`token` for a scalar); returns what it
    /// is to the rules if it is a container.
    fn start(&mut self, at: usize, json_type: JsonType, token: Option<&Token<'a>>) -> Role {
        let member = self.member.take();
        let named = |want: &str| member.is_some_and(|(_, n)| n.value() == want);
        match self.roles.last().copied() {
            None => {
                self.root = Some(shape(at, json_type));
                if json_type == JsonType::Object {
                    Role::Root
                } else {
                    Role::Other
                }
            }
            Some(Role::Root) if named("pipelines") => {
                self.pipelines = Some(shape(at, json_type));
                if json_type == JsonType::Array {
                    Role::Pipelines
                } else {
                    Role::Other
                }
            }
            Some(Role::Pipelines) => self.start_pipeline(at, json_type),
            Some(Role::Pipeline) if named("sequence") => match self.pipeline.as_mut() {
                Some(p) => {
                    p.sequence = Some(shape(at, json_type));
                    if json_type == JsonType::Array {
                        Role::Sequence
                    } else {
                        Role::Other
                    }
                }
                None => Role::Other,
            },
            Some(Role::Sequence) => self.start_stage(at, json_type),
            Some(Role::Stage) => match member {
                Some((name_at, name)) => self.stage_member(at, json_type, token, name_at, name),
                None => Role::Other,
            },
            Some(Role::Dependencies) => {
                self.dependency_item(at, json_type, token);
                Role::Other
            }
            _ => Role::Other,
        }
    }

    /// Element `count` of `pipelines` starts (§3.4.1).
    fn start_pipeline(&mut self, at: usize, json_type: JsonType) -> Role {
        let index = self.count;
        self.count = self.count.saturating_add(1);
        if self.error.is_some() {
            return Role::Other;
        }
        let p = OpenPipeline {
            index,
            value: shape(at, json_type),
            sequence: None,
            len: 0,
            stages: Vec::new(),
            names: BTreeSet::new(),
            failure: None,
            stage: None,
            ordered: false,
        };
        if json_type == JsonType::Object {
            self.pipeline = Some(p);
            return Role::Pipeline;
        }
        // Not an object: §3.4.1 refuses it whatever follows.
        self.close_pipeline(p, at);
        Role::Other
    }

    /// Element `len` of the open pipeline's `sequence` starts (§3.4.2, §3.4.3). Only the
    /// first `max_stages` are read: one more fails §3.4.2 before any stage rule.
    fn start_stage(&mut self, at: usize, json_type: JsonType) -> Role {
        let max_stages = self.rules.max_stages;
        let Some(p) = self.pipeline.as_mut() else {
            return Role::Other;
        };
        let index = p.len;
        p.len = p.len.saturating_add(1);
        if index >= max_stages || p.failure.is_some() {
            return Role::Other;
        }
        p.stage = Some(OpenStage {
            index,
            value: shape(at, json_type),
            members: Vec::with_capacity(STAGE.len()),
            items: 0,
            bad_item: None,
        });
        if json_type == JsonType::Object {
            return Role::Stage;
        }
        self.close_stage();
        Role::Other
    }

    /// The value of the open stage's member `name` (its name at `name_at`) starts.
    fn stage_member(
        &mut self,
        at: usize,
        json_type: JsonType,
        token: Option<&Token<'a>>,
        name_at: usize,
        name: Str<'a>,
    ) -> Role {
        let Some(st) = self.pipeline.as_mut().and_then(|p| p.stage.as_mut()) else {
            return Role::Other;
        };
        let name = name.value();
        if !STAGE.contains(&name.as_ref()) {
            return Role::Other;
        }
        let value = match token {
            Some(t) => scalar(at, t),
            None => shape(at, json_type),
        };
        st.members.push(Member {
            name: Text::new(&name),
            name_offset: name_at,
            value,
        });
        if name != INPUT {
            return Role::Other;
        }
        match token {
            // One input, as a string.
            Some(Token::String(s)) => {
                if let Some(p) = self.pipeline.as_mut() {
                    p.ordered |= s.value() != DECODER;
                }
                Role::Other
            }
            _ if json_type == JsonType::Array => Role::Dependencies,
            _ => Role::Other,
        }
    }

    /// An element of the open stage's `input` array starts: the first that is not a
    /// non-empty string is kept for §3.4.3.
    fn dependency_item(&mut self, at: usize, json_type: JsonType, token: Option<&Token<'a>>) {
        let Some(p) = self.pipeline.as_mut() else {
            return;
        };
        let Some(st) = p.stage.as_mut() else {
            return;
        };
        let k = st.items;
        st.items = st.items.saturating_add(1);
        let fine = match token {
            Some(Token::String(s)) if !s.raw().is_empty() => {
                p.ordered |= s.value() != DECODER;
                true
            }
            _ => false,
        };
        if !fine && st.bad_item.is_none() {
            st.bad_item = Some((k, shape(at, json_type)));
        }
    }

    /// The open stage closed: its own rules (§3.4.3 to §3.4.5), then the uniqueness of
    /// its name among the pipeline's stages so far.
    fn close_stage(&mut self) {
        let (Some(p), Some(root), Some(list)) = (self.pipeline.as_mut(), &self.root, &self.pipelines) else {
            return;
        };
        let Some(st) = p.stage.take() else {
            return;
        };
        // A stage is an element of `sequence`, which opened first.
        let seq_value = invariant::some_or(p.sequence.clone(), shape(0, JsonType::Array));
        let value = match st.value.node {
            Node::Object(_) => Value {
                offset: st.value.offset,
                node: Node::Object(st.members),
            },
            _ => st.value,
        };
        let root = Cursor::root(root, ROOT);
        let list = root.member(list, "pipelines");
        let pc = list.element(&p.value, p.index);
        let seq = pc.member(&seq_value, "sequence");
        let s = seq.element(&value, st.index);
        let verdict = stage(&s, st.index, self.rules.registry).and_then(|stage| {
            if let Some((k, item)) = &st.bad_item {
                let deps = s.field(INPUT).map_err(field)?;
                dependency(&deps.element(item, *k))?;
            }
            Ok(stage)
        });
        match verdict {
            Ok(stage) if p.names.contains(&stage.name) => p.failure = Some(duplicate_name(&s)),
            Ok(stage) => {
                p.names.insert(stage.name.clone());
                p.stages.push(stage);
            }
            Err(e) => p.failure = Some(e),
        }
    }

    /// Pipeline `p` closed at `end`: §3.4.1 and §3.4.2, its stages' first failure, then
    /// §3.5 over its text.
    fn close_pipeline(&mut self, p: OpenPipeline, end: usize) {
        let (Some(root), Some(list)) = (&self.root, &self.pipelines) else {
            return;
        };
        let value = holding(&p.value, "sequence", p.sequence.as_ref());
        let root = Cursor::root(root, ROOT);
        let list = root.member(list, "pipelines");
        let pc = list.element(&value, p.index);
        let verdict = sequence(&pc, p.len, self.rules.max_stages).and_then(|seq| match p.failure {
            Some(e) => Err(e),
            None => {
                let mut stages = p.stages;
                order(&mut stages);
                if !(self.build || p.ordered) {
                    return Ok(Pipeline::default());
                }
                let text = invariant::sub(self.bytes, p.value.offset..=end);
                let base = p.value.offset;
                match dependencies::check(text, base, self.limits, &mut stages, self.build) {
                    Err(e) => {
                        self.json = Some(e);
                        Ok(Pipeline::default())
                    }
                    Ok(Some(miss)) => Err(miss.error(&seq)),
                    Ok(None) => Ok(Pipeline { stages }),
                }
            }
        });
        match verdict {
            Ok(pipeline) if self.build => self.out.push(pipeline),
            Ok(_) => {}
            Err(e) => self.error = Some(e),
        }
    }

    /// The document has been read: §3.4.1 on the root, then the first failing pipeline.
    fn finish(self) -> Result<Vec<Pipeline>, MpkError> {
        // The parser returned after the whole document, whose first value set the root.
        let root_value = invariant::some_or(self.root, shape(0, JsonType::Null));
        let root_value = holding(&root_value, "pipelines", self.pipelines.as_ref());
        let root = Cursor::root(&root_value, ROOT);
        root.object().map_err(field)?;
        let list = root.field("pipelines").map_err(field)?;
        list.array().map_err(field)?;
        if self.count == 0 {
            // §3.4.1: "JSON object with non-empty pipelines array".
            return Err(field(list.error(Problem::Rule("pipelines must be a non-empty array"))));
        }
        match self.error {
            Some(e) => Err(e),
            None => Ok(self.out),
        }
    }
}

impl<'a> Sink<'a> for Walk<'a, '_> {
    fn open(&mut self, at: usize, object: bool) {
        let role = self.start(at, container(object), None);
        self.roles.push(role);
    }

    fn close(&mut self, at: usize) {
        match self.roles.pop() {
            Some(Role::Stage) => self.close_stage(),
            Some(Role::Pipeline) => {
                if let Some(p) = self.pipeline.take() {
                    self.close_pipeline(p, at);
                }
            }
            _ => {}
        }
    }

    fn name(&mut self, at: usize, name: Str<'a>) {
        self.member = Some((at, name));
    }

    fn scalar(&mut self, at: usize, token: Token<'a>) {
        self.start(at, scalar_type(&token), Some(&token));
    }
}
