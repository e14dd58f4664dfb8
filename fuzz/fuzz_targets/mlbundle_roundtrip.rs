//! Writer and reader round trip (`spec/mlbundle.md` §10): arbitrary model members written by
//! `write_container` read back byte for byte, the writer is deterministic, and it fails only
//! with `LimitExceeded` (the ratio ceiling) for valid inputs.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use modelgate_core::mlbundle::{
    ArchiveLimits, ErrorKind, Manifest, MemberName as N, Recipe, read_container, write_container,
};
use std::collections::BTreeMap;

#[derive(Arbitrary, Debug)]
struct Input {
    recipe: u8,
    first: Vec<u8>,
    second: Vec<u8>,
    structure: Option<u16>,
    samples: bool,
}

const SCHEMA: &[u8] = br#"{"inputs":[{"name":"a","dtype":"int64"}]}"#;

fuzz_target!(|input: Input| {
    let recipe = match input.recipe % 6 {
        0 => Recipe::Standalone(N::ModelOnnx),
        1 => Recipe::Standalone(N::ModelSkops),
        2 => Recipe::Standalone(N::ModelUbj),
        3 => Recipe::Standalone(N::ModelCbm),
        4 => Recipe::Composite(N::ModelUbj),
        _ => Recipe::Composite(N::ModelCbm),
    };
    let mut members = BTreeMap::new();
    let models: Vec<N> = recipe.members().collect();
    members.insert(models[0], input.first.clone());
    if let Some(&second) = models.get(1) {
        members.insert(second, input.second.clone());
    }
    members.insert(N::Schema, SCHEMA.to_vec());
    if let Some(n) = input.structure {
        members.insert(N::Structure, format!("{{\"n\":{n}}}").into_bytes());
    }
    if input.samples {
        members.insert(N::Samples, b"{\"rows\":[[1],[2]]}".to_vec());
    }
    let manifest = Manifest::new(recipe, input.structure.is_some(), input.samples);
    let limits = ArchiveLimits::DEFAULT;
    let bytes = match write_container(&manifest, &members, &limits) {
        Ok(b) => b,
        Err(e) => {
            assert_eq!(e.kind, ErrorKind::LimitExceeded, "{e}");
            return;
        }
    };
    assert_eq!(write_container(&manifest, &members, &limits).unwrap(), bytes);
    let c = read_container(&bytes, &limits).unwrap();
    for (name, data) in &members {
        assert_eq!(&c.members[name], data);
    }
    assert_eq!(c.manifest.recipe, recipe);
});
