//! `modelgate mlbundle pack`: writes a bundle with the deterministic writer
//! (`spec/mlbundle.md` §10) and publishes it atomically (§11.2).

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
    /// Write a bundle from a model (or model.skops with model.ubj or model.cbm), a schema
    /// and optional structure and samples; the model member name comes from the file's
    /// extension (.onnx, .skops, .ubj, .cbm).
    Pack(PackArgs),
}

/// Arguments of `modelgate mlbundle pack`.
#[derive(Args)]
pub struct PackArgs {
    /// Model file (.onnx, .skops, .ubj or .cbm); give two for model.skops with .ubj or .cbm.
    #[arg(long = "model", required = true, value_name = "FILE")]
    models: Vec<PathBuf>,
    /// schema.json contents.
    #[arg(long, value_name = "FILE")]
    schema: PathBuf,
    /// structure.json contents.
    #[arg(long, value_name = "FILE")]
    structure: Option<PathBuf>,
    /// samples.json contents.
    #[arg(long, value_name = "FILE")]
    samples: Option<PathBuf>,
    /// Output file (`*.mlbundle`).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    output: PathBuf,
    /// Replace an existing output file (atomically); without it an existing file is an error.
    #[arg(long)]
    overwrite: bool,
}

const USAGE_OR_IO: u8 = 2;

/// Runs one `mlbundle` subcommand. Exit 0 on success, 1 when the inputs are rejected
/// (`OUT: rejected (mlbundle) KIND: message`), 2 for usage or I/O errors.
pub fn run(command: MlbundleCommand) -> ExitCode {
    match command {
        MlbundleCommand::Pack(args) => pack(&args),
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

fn pack(args: &PackArgs) -> ExitCode {
    let mut models = Vec::new();
    for p in &args.models {
        match model_name(p) {
            Some(n) => models.push((n, p)),
            None => {
                return usage(&format!(
                    "{}: model files end in .onnx, .skops, .ubj or .cbm",
                    p.display()
                ));
            }
        }
    }
    let Some(recipe) = recipe(&models) else {
        return usage("give one model, or a .skops model with a .ubj or .cbm model");
    };
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
    for (name, path) in inputs {
        let cap = limits.member_cap(name);
        match read_bounded(path, cap) {
            Ok(bytes) => {
                members.insert(name, bytes);
            }
            Err(ReadError::TooLarge { limit }) => {
                let e = mlbundle::Error::new(
                    mlbundle::ErrorKind::LimitExceeded,
                    format!("{} is larger than the {limit}-byte limit for {name}", path.display()),
                    modelgate_core::Location::NONE.in_member(name.as_str()),
                );
                return rejected(&args.output, &e);
            }
            Err(ReadError::Io(e)) => return io_error(path, &e),
        }
    }
    let manifest = Manifest::new(recipe, args.structure.is_some(), args.samples.is_some());
    match write_mlbundle(&manifest, &members, Some(&args.output), args.overwrite, &limits) {
        Ok(bytes) => {
            println!("{}: written (mlbundle, {} bytes)", args.output.display(), bytes.len());
            ExitCode::SUCCESS
        }
        Err(WriteError::Rejected(e)) => rejected(&args.output, &e),
        Err(WriteError::Io(e)) if e.kind() == io::ErrorKind::AlreadyExists => {
            eprintln!(
                "{}: already exists; use --overwrite to replace it",
                args.output.display()
            );
            ExitCode::from(USAGE_OR_IO)
        }
        Err(WriteError::Io(e)) => io_error(&args.output, &e),
    }
}

fn rejected(out: &Path, e: &mlbundle::Error) -> ExitCode {
    println!("{}: rejected (mlbundle) {}", out.display(), e.rejection());
    ExitCode::from(1)
}

fn io_error(path: &Path, e: &io::Error) -> ExitCode {
    eprintln!("{}: {e}", path.display());
    ExitCode::from(USAGE_OR_IO)
}
