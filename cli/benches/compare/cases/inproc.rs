//! In-process cases: mlbundle `read_container` against the `zip` crate and raw
//! miniz_oxide inflate, strict JSON against serde_json, OneModel open against safetensors.

use super::{Case, Goal, Imp, Mem};
use crate::data::read;
use crate::measure::{fail, in_process};
use miniz_oxide::inflate::TINFLStatus;
use miniz_oxide::inflate::core::{DecompressorOxide, decompress, inflate_flags};
use modelgate_core::mlbundle::{ArchiveLimits, read_container};
use modelgate_core::{json, onemodel};
use modelgate_io::source::{self, Source};
use std::io::{Cursor, Read};
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// `modelgate_io::source::read_container` (what `modelgate check` runs) of the bundle in
/// memory, with the default (ceiling) limits: the member work on two threads
/// (`spec/mlbundle.md` §12.0).
fn modelgate_bundle(data: &Rc<Vec<u8>>) -> Imp {
    let data = Rc::clone(data);
    Imp::new("modelgate read_container, 2 threads", move || {
        in_process(|| {
            source::read_container(Source::Bytes(&data), &ArchiveLimits::DEFAULT)
                .unwrap_or_else(|e| fail(&format!("{e:?}")))
        })
    })
}

/// Every member read to its end through the `zip` crate, which checks CRC-32 at the end;
/// one thread.
fn zip_crate(data: &Rc<Vec<u8>>) -> Imp {
    let data = Rc::clone(data);
    Imp::new("zip crate", move || {
        in_process(|| {
            let mut z = zip::ZipArchive::new(Cursor::new(data.as_slice())).unwrap_or_else(|e| fail(&format!("{e}")));
            let mut out = Vec::new();
            for i in 0..z.len() {
                let mut f = z.by_index(i).unwrap_or_else(|e| fail(&format!("{e}")));
                let mut v = Vec::with_capacity(usize::try_from(f.size()).unwrap_or(0));
                f.read_to_end(&mut v).unwrap_or_else(|e| fail(&format!("{e}")));
                out.push(v);
            }
            out
        })
    })
}

/// (start, end, uncompressed size) of every deflated member's raw stream.
fn streams(data: &[u8]) -> Vec<(usize, usize, usize)> {
    let mut z = zip::ZipArchive::new(Cursor::new(data)).unwrap_or_else(|e| fail(&format!("{e}")));
    (0..z.len())
        .filter_map(|i| {
            let f = z.by_index_raw(i).ok()?;
            let start = usize::try_from(f.data_start()?).ok()?;
            let end = start + usize::try_from(f.compressed_size()).ok()?;
            Some((start, end, usize::try_from(f.size()).ok()?))
        })
        .collect()
}

/// The members' raw deflate streams inflated by miniz_oxide into exact-size buffers, no
/// checks: the floor any deflate-based reader stands on.
fn raw_inflate(data: &Rc<Vec<u8>>) -> Imp {
    let data = Rc::clone(data);
    let parts = streams(&data);
    Imp::new("miniz_oxide raw inflate", move || {
        in_process(|| {
            let mut out = Vec::new();
            for &(a, b, n) in &parts {
                let mut buf = vec![0u8; n];
                let mut r = DecompressorOxide::new();
                let flags = inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
                let (status, _, written) = decompress(&mut r, &data[a..b], &mut buf, 0, flags);
                if status != TINFLStatus::Done || written != n {
                    fail(&format!("raw inflate: {status:?}"));
                }
                out.push(buf);
            }
            out
        })
    })
}

/// mlbundle with deflated members: modelgate, the zip crate, raw inflate.
pub fn mlbundle_deflated(path: &Path, member_bytes: u64) -> Case {
    let data = Rc::new(read(path));
    Case {
        name: "mlbundle read, deflated",
        bytes: member_bytes,
        mem: Mem::Heap,
        imps: vec![modelgate_bundle(&data), zip_crate(&data), raw_inflate(&data)],
        goals: vec![
            Goal::Speed {
                peer: "zip crate",
                at_least: 1.0,
                text: "≥ 1.0× the zip crate",
            },
            Goal::Speed {
                peer: "miniz_oxide raw inflate",
                at_least: 0.8,
                text: "≥ 0.8× raw miniz_oxide inflate",
            },
        ],
    }
}

/// For reference, not a peer: SHA-256 (the `sha2` crate, as core uses it) of every member's
/// uncompressed bytes, the part of `read_container`'s work the zip crate does not do
/// besides parsing the JSON members (`spec/mlbundle.md` §7, §8).
fn sha256_reference(data: &[u8]) -> Imp {
    let c = read_container(data, &ArchiveLimits::DEFAULT).unwrap_or_else(|e| fail(&format!("{e:?}")));
    let members: Vec<Vec<u8>> = c.members.into_values().map(std::borrow::Cow::into_owned).collect();
    Imp::new("reference: SHA-256 of the members", move || {
        in_process(|| {
            members
                .iter()
                .map(|m| modelgate_core::digest::sha256(m))
                .collect::<Vec<_>>()
        })
    })
}

/// mlbundle with stored members: modelgate against the zip crate.
pub fn mlbundle_stored(path: &Path, member_bytes: u64) -> Case {
    let data = Rc::new(read(path));
    Case {
        name: "mlbundle read, stored",
        bytes: member_bytes,
        mem: Mem::Heap,
        imps: vec![modelgate_bundle(&data), zip_crate(&data), sha256_reference(&data)],
        goals: vec![Goal::Speed {
            peer: "zip crate",
            at_least: 0.9,
            text: "≥ 0.9× the zip crate",
        }],
    }
}

/// Strict validation of the forest JSON, as `modelgate check` validates it (one thread,
/// duplicate names checked), against serde_json into `IgnoredAny`.
pub fn json_validate(path: &Path) -> Case {
    let data = Rc::new(read(path));
    let (a, b) = (Rc::clone(&data), Rc::clone(&data));
    Case {
        name: "JSON validate",
        bytes: data.len() as u64,
        mem: Mem::Heap,
        imps: vec![
            Imp::new("modelgate json::validate", move || {
                in_process(|| json::validate(&a, json::Limits::DEFAULT).unwrap_or_else(|e| fail(&format!("{e:?}"))))
            }),
            Imp::new("serde_json IgnoredAny", move || {
                in_process(|| {
                    serde_json::from_slice::<serde::de::IgnoredAny>(&b).unwrap_or_else(|e| fail(&format!("{e}")))
                })
            }),
        ],
        goals: vec![Goal::Speed {
            peer: "serde_json IgnoredAny",
            at_least: 0.9,
            text: "≥ 0.9× serde_json IgnoredAny",
        }],
    }
}

/// Strict parsing of the forest JSON into the owned value against serde_json's `Value`.
pub fn json_value(path: &Path) -> Case {
    let data = Rc::new(read(path));
    let (a, b) = (Rc::clone(&data), Rc::clone(&data));
    Case {
        name: "JSON into value",
        bytes: data.len() as u64,
        mem: Mem::Heap,
        imps: vec![
            Imp::new("modelgate json::parse", move || {
                in_process(|| json::parse(&a, json::Limits::DEFAULT).unwrap_or_else(|e| fail(&format!("{e:?}"))))
            }),
            Imp::new("serde_json Value", move || {
                in_process(|| serde_json::from_slice::<serde_json::Value>(&b).unwrap_or_else(|e| fail(&format!("{e}"))))
            }),
        ],
        goals: vec![Goal::Speed {
            peer: "serde_json Value",
            at_least: 1.5,
            text: "≥ 1.5× serde_json Value",
        }],
    }
}

/// OneModel open + validate of a file that holds the same tensors as safetensors' and no
/// graph, against safetensors: the two manifests then carry the same information (11.5 KiB
/// against 10 KiB), where the full model's also describes 191 nodes.
pub fn onemodel_tensors_open(tensors: &Path, safetensors: &Path) -> Case {
    let st = safetensors.to_path_buf();
    Case {
        name: "OneModel open + validate, the same tensors without a graph",
        bytes: crate::data::size_of(tensors),
        mem: Mem::Heap,
        imps: vec![onemodel_check(CHECK, tensors), safetensors_deserialize(st)],
        goals: vec![Goal::Speed {
            peer: SAFETENSORS,
            at_least: 1.0,
            text: "≤ 1.0× safetensors' time on the same tensors",
        }],
    }
}

/// The peer of both OneModel cases.
const SAFETENSORS: &str = "safetensors deserialize (mapped)";

fn safetensors_deserialize(st: PathBuf) -> Imp {
    Imp::new(SAFETENSORS, move || {
        in_process(|| {
            let map = modelgate_io::mmap::load(&st, u64::MAX, modelgate_io::mmap::Mode::Auto)
                .unwrap_or_else(|e| fail(&format!("{e}")));
            let n = safetensors::SafeTensors::deserialize(&map)
                .map(|t| t.len())
                .unwrap_or_else(|e| fail(&format!("{e}")));
            // Unmapped inside the clock, as `modelgate check` unmaps its file (about 11 us
            // for this 1 GiB map on the benchmark's machine).
            drop(map);
            n
        })
    })
}

/// The modelgate row of both OneModel cases.
const CHECK: &str = "modelgate check (header and manifest read)";

/// `modelgate check`'s validation of a OneModel file, as an implementation: its header and
/// manifest read, its data region counted and never read (`spec/onemodel.md` §5).
fn onemodel_check(name: &str, path: &Path) -> Imp {
    let path = path.to_path_buf();
    let format = modelgate_io::check::by_name("onemodel").unwrap_or_else(|| fail("no onemodel format"));
    Imp::new(name, move || {
        in_process(|| {
            format
                .check(&path, &mut |_, _| {})
                .unwrap_or_else(|e| fail(&format!("{e:?}")))
        })
    })
}

/// For reference, not a peer: the read of the whole file over a memory map, every tensor a
/// view of it (`onemodel::read`, what a loader runs), mapped and unmapped inside the
/// clock as the peer's file is.
fn mapped_read_reference(path: &Path) -> Imp {
    let path = path.to_path_buf();
    Imp::new("reference: modelgate read (mapped)", move || {
        in_process(|| {
            let map = modelgate_io::mmap::load(&path, u64::MAX, modelgate_io::mmap::Mode::Auto)
                .unwrap_or_else(|e| fail(&format!("{e}")));
            let n = onemodel::read(&map, onemodel::Limits::DEFAULT)
                .map(|m| m.graph.nodes.len())
                .unwrap_or_else(|e| fail(&format!("{e:?}")));
            drop(map);
            n
        })
    })
}

/// For reference, not a peer: serde_json's derive read of the same (mapped) file's manifest
/// into borrowed structs of its exact shape, with none of the OneModel rules
/// ([`crate::manifest_shape`]).
fn manifest_reference(path: &Path) -> Imp {
    let path = path.to_path_buf();
    Imp::new("reference: serde_json structs of the manifest (mapped)", move || {
        in_process(|| {
            let map = modelgate_io::mmap::load(&path, u64::MAX, modelgate_io::mmap::Mode::Auto)
                .unwrap_or_else(|e| fail(&format!("{e}")));
            let n = crate::manifest_shape::read(&map)
                .map(|m| m.nodes())
                .unwrap_or_else(|e| fail(&e));
            drop(map);
            n
        })
    })
}

/// OneModel open + full validation against `SafeTensors::deserialize` of the same tensors
/// over a memory map; and the same model with 1/16 of the tensor bytes.
pub fn onemodel_open(big: &Path, safetensors: &Path, small: &Path) -> Case {
    let st = safetensors.to_path_buf();
    let bytes = crate::data::size_of(big);
    Case {
        name: "OneModel open + validate",
        bytes,
        mem: Mem::Heap,
        imps: vec![
            onemodel_check(CHECK, big),
            safetensors_deserialize(st),
            onemodel_check("modelgate, 1/16 of the tensor bytes", small),
            mapped_read_reference(big),
            manifest_reference(big),
        ],
        goals: vec![
            Goal::Speed {
                peer: SAFETENSORS,
                at_least: 0.5,
                text: "≤ 2× safetensors' time",
            },
            Goal::Speed {
                peer: "modelgate, 1/16 of the tensor bytes",
                at_least: 0.8,
                text: "time independent of tensor bytes (≤ 1.25× the 1/16 file)",
            },
        ],
    }
}
