//! `modelgate mlbundle pack`: writes a bundle with the deterministic writer
//! (`spec/mlbundle.md` §10) and publishes it atomically (§11.2).

use crate::output::{self, USAGE_OR_IO};
use crate::paths;
use clap::{Args, Subcommand};
use modelgate_core::mlbundle::{self, ArchiveLimits, Manifest, MemberName, Recipe};
use modelgate_io::publish::{WriteError, write_mlbundle};
use modelgate_io::read::{ReadError, read_bounded};
use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `modelgate mlbundle ...` subcommands.
#[derive(Subcommand)]
pub enum MlbundleCommand {
    /// Write a bundle from a model, a schema and optional structure and samples
    ///
    /// The model member's name comes from the model file's extension (.onnx, .skops, .ubj,
    /// .cbm); give two models for model.skops with model.ubj or model.cbm. The bundle is
    /// written deterministically and published atomically.
    Pack(PackArgs),
}

/// Arguments of `modelgate mlbundle pack`.
#[derive(Args)]
pub struct PackArgs {
    /// Model file (.onnx, .skops, .ubj or .cbm); twice for a .skops model with .ubj or .cbm.
    #[arg(long = "model", required = true, value_name = "FILE")]
    models: Vec<PathBuf>,
    /// The schema.json member.
    #[arg(long, value_name = "FILE")]
    schema: PathBuf,
    /// The structure.json member.
    #[arg(long, value_name = "FILE")]
    structure: Option<PathBuf>,
    /// The samples.json member.
    #[arg(long, value_name = "FILE")]
    samples: Option<PathBuf>,
    /// Replace an existing output file (atomically).
    #[arg(long)]
    overwrite: bool,
    /// The bundle to write (`*.mlbundle`).
    #[arg(value_name = "OUT")]
    output: PathBuf,
}

/// Runs one `mlbundle` subcommand. Exit 0 on success (`OUT: written (mlbundle, N bytes)` on
/// stdout unless `quiet`), 1 when an input is rejected (`FILE: rejected (mlbundle) KIND:
/// message` on stderr, naming the input the rejected member came from), 2 for usage or I/O
/// errors.
pub fn run(command: MlbundleCommand, quiet: bool) -> ExitCode {
    match command {
        MlbundleCommand::Pack(args) => pack(&args, quiet),
    }
}

fn model_name(path: &Path) -> Option<MemberName> {
    match path.extension()?.to_str()? {
        "onnx" => Some(MemberName::ModelOnnx),
        "skops" => Some(MemberName::ModelSkops),
        "ubj" => Some(MemberName::ModelUbj),
        "cbm" => Some(MemberName::ModelCbm),
        _ => None,
    }
}

fn recipe(models: &[(MemberName, &PathBuf)]) -> Option<Recipe> {
    let mut names: Vec<MemberName> = models.iter().map(|(n, _)| *n).collect();
    names.sort();
    match names.as_slice() {
        [one] => Some(Recipe::Standalone(*one)),
        [
            MemberName::ModelSkops,
            n @ (MemberName::ModelUbj | MemberName::ModelCbm),
        ] => Some(Recipe::Composite(*n)),
        _ => None,
    }
}

fn usage(msg: &str) -> ExitCode {
    eprintln!("modelgate mlbundle pack: {msg}");
    ExitCode::from(USAGE_OR_IO)
}

fn pack(args: &PackArgs, quiet: bool) -> ExitCode {
    let mut models = Vec::new();
    for p in &args.models {
        match model_name(p) {
            Some(n) => models.push((n, p)),
            None => {
                let ext = p.extension().map(|e| e.to_string_lossy().into_owned());
                return usage(&format!(
                    "{}: the model's extension is {}; expected .onnx, .skops, .ubj or .cbm",
                    p.display(),
                    ext.map_or_else(|| "missing".to_string(), |e| format!(".{e}"))
                ));
            }
        }
    }
    let Some(recipe) = recipe(&models) else {
        let given: Vec<String> = models.iter().map(|(n, _)| n.as_str().to_string()).collect();
        return usage(&format!(
            "the models give {}; expected one model, or model.skops with model.ubj or model.cbm",
            given.join(" and ")
        ));
    };
    if let Err(e) = paths::output_file(&args.output, args.overwrite) {
        return output::path_error(&e);
    }
    let limits = ArchiveLimits::DEFAULT;
    let mut inputs: Vec<(MemberName, &PathBuf)> = models;
    inputs.push((MemberName::Schema, &args.schema));
    if let Some(p) = &args.structure {
        inputs.push((MemberName::Structure, p));
    }
    if let Some(p) = &args.samples {
        inputs.push((MemberName::Samples, p));
    }
    let mut members = BTreeMap::new();
    for (name, path) in &inputs {
        let cap = limits.member_cap(*name);
        match read_bounded(path, cap) {
            Ok(bytes) => {
                members.insert(*name, bytes);
            }
            Err(ReadError::TooLarge { limit }) => {
                let e = mlbundle::Error::new(
                    mlbundle::ErrorKind::LimitExceeded,
                    format!("larger than the {limit}-byte limit for {name}"),
                    modelgate_core::Location::NONE.in_member(name.as_str()),
                );
                return output::rejected(path, "mlbundle", e.rejection());
            }
            Err(ReadError::Io(e)) => {
                output::error(path, e);
                return ExitCode::from(USAGE_OR_IO);
            }
        }
    }
    let manifest = Manifest::new(recipe, args.structure.is_some(), args.samples.is_some());
    match write_mlbundle(&manifest, &members, Some(&args.output), args.overwrite, &limits) {
        Ok(bytes) => output::done(
            &format!("{}: written (mlbundle, {} bytes)", args.output.display(), bytes.len()),
            quiet,
        ),
        Err(WriteError::Rejected(e)) => {
            let r = e.rejection();
            // The member the rejection is about came from one of the inputs; the bundle's
            // own records (the manifest) from none.
            let source = inputs
                .iter()
                .find(|(name, _)| r.location.member.as_deref() == Some(name.as_str()))
                .map_or(args.output.as_path(), |(_, p)| p.as_path());
            output::rejected(source, "mlbundle", r)
        }
        Err(WriteError::Io(e)) if e.kind() == io::ErrorKind::AlreadyExists => {
            output::path_error(&paths::exists(&args.output))
        }
        Err(WriteError::Io(e)) => {
            output::error(&args.output, e);
            ExitCode::from(USAGE_OR_IO)
        }
    }
}
