//! The oracle the token walk is held to (tests and fuzzing only): the rules of §3.4 and
//! §3.5 checked on the document's value, as modelgate checked them before the walk. The
//! per-stage rules are the walk's own ([`super::stage`], [`super::dependency`]); what this
//! checks is the walk around them: which values reach them, in which order, with which
//! paths and offsets.

use super::{
    DECODER, Dependency, INPUT, NOT_EARLIER, Pipeline, ROOT, STAGE, dependency, duplicate_name, field, order, rule,
    sequence, stage,
};
use crate::json::{self, Cursor, Keep, Limits, Value};
use crate::mpk::{MpkError, Registry};
use alloc::collections::BTreeMap;
use alloc::vec::Vec;

/// The document's value, with what the rules read (the kept form the reader built before
/// the walk; `json::parse` gives the same verdicts).
pub fn parse_pipeline_json(bytes: &[u8], limits: Limits, max_stages: usize) -> Result<Value, json::Error> {
    let deps = Keep::Items(usize::MAX, &Keep::Shape);
    let members: Vec<(&str, Keep<'_>)> = STAGE
        .iter()
        .map(|&n| (n, if n == INPUT { deps } else { Keep::Shape }))
        .collect();
    let stage = Keep::Members(&members);
    let pipeline = [("sequence", Keep::Items(max_stages.saturating_add(1), &stage))];
    let pipeline = Keep::Members(&pipeline);
    let root = [("pipelines", Keep::Items(usize::MAX, &pipeline))];
    json::parse(
        bytes,
        json::ParseOptions {
            limits,
            keep: Some(Keep::Members(&root)),
        },
    )
}

/// §3.4 and §3.5 on the value of `pipeline_sequence.json`.
pub fn parse_pipelines(doc: &Value, registry: &Registry, max_stages: usize) -> Result<Vec<Pipeline>, MpkError> {
    let root = Cursor::root(doc, ROOT);
    root.object().map_err(field)?;
    let list = root.field("pipelines").map_err(field)?;
    if list.array().map_err(field)?.is_empty() {
        return Err(rule(&list, "pipelines must be a non-empty array"));
    }
    let mut out = Vec::new();
    for p in list.items().map_err(field)? {
        out.push(pipeline(&p, registry, max_stages)?);
    }
    Ok(out)
}

fn pipeline(p: &Cursor<'_, '_>, registry: &Registry, max_stages: usize) -> Result<Pipeline, MpkError> {
    let len = p.field("sequence").and_then(|s| s.array()).map_or(0, <[Value]>::len);
    let seq = sequence(p, len, max_stages)?;
    let mut stages = Vec::new();
    let mut names: BTreeMap<&str, ()> = BTreeMap::new();
    for (index, s) in seq.items().map_err(field)?.enumerate() {
        let st = stage(&s, index, registry)?;
        if let Some(Ok(items)) = s.opt_field(INPUT).map_err(field)?.as_ref().map(Cursor::items) {
            for d in items {
                dependency(&d)?;
            }
        }
        let name = s.field("name").map_err(field)?.str().map_err(field)?;
        if names.insert(name, ()).is_some() {
            return Err(duplicate_name(&s));
        }
        stages.push(st);
    }
    order(&mut stages);
    let position: BTreeMap<&str, usize> = stages.iter().enumerate().map(|(i, s)| (s.name.as_str(), i)).collect();
    let items: Vec<_> = seq.items().map_err(field)?.collect();
    let mut resolved = Vec::with_capacity(stages.len());
    for (pos, st) in stages.iter().enumerate() {
        let mut list = Vec::new();
        if let Some(input) = items
            .get(st.index)
            .map(|s| s.opt_field(INPUT))
            .transpose()
            .map_err(field)?
            .flatten()
        {
            let names: Vec<_> = match input.items() {
                Ok(items) => items.collect(),
                Err(_) => alloc::vec![input],
            };
            for d in names {
                let name = d.str().map_err(field)?;
                let earlier = position.get(name).filter(|&&p| p < pos);
                list.push(match (name == DECODER, earlier) {
                    (true, _) => Dependency::Decoder,
                    (false, Some(&p)) => Dependency::Stage(u32::try_from(p).unwrap_or(u32::MAX)),
                    (false, None) => return Err(rule(&d, NOT_EARLIER)),
                });
            }
        }
        resolved.push(list);
    }
    for (st, deps) in stages.iter_mut().zip(resolved) {
        st.input = deps;
    }
    Ok(Pipeline { stages })
}
