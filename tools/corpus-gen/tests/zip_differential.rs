//! The members modelgate reads from a bundle against two other readings of it
//! (`spec/mlbundle.md` §2.11.1, §2.12, §15): a streaming reading of the local records from
//! byte 0, as `bsdtar -xf -` and Java's `ZipInputStream` read a ZIP they cannot seek in, and
//! Python's `zipfile`, which reads the central directory. A bundle read two ways is what the
//! strict reader exists to refuse, so every accepted bundle must give all three the same
//! members. Inputs: every valid file of `hostile-corpus/mlbundle/` (Python's own fixtures
//! among them), bundles `write_container` writes for random member sets, and bundles the
//! corpus builder writes with random methods, descriptor forms, ZIP64 records and central
//! orders. The corpus files whose directory hides another reading (planted descriptors, the
//! ZipDiff c1 files) must read otherwise when streamed: the check would catch them if the
//! rules that reject them were removed. Python's part is skipped, with a message, without
//! `python3`.

use modelgate_core::digest::{crc32, crc32_continue};
use modelgate_core::inflate::{Inflater, OutputBound};
use modelgate_core::mlbundle::{ArchiveLimits, Manifest, MemberName, Recipe, read_container, write_container};
use modelgate_corpus_gen::mlbundle::zip::{Desc, Member, Zip};
use modelgate_corpus_gen::mlbundle::{SAMPLES, SCHEMA, STRUCTURE, manifest_for};
use modelgate_corpus_gen::rng::{Rng, pseudorandom};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A reading: each member's name and bytes, sorted (names may repeat in a streaming reading).
type Members = Vec<(String, Vec<u8>)>;

const LOCAL_SIG: &[u8] = b"PK\x03\x04";
const CENTRAL_SIG: &[u8] = b"PK\x01\x02";
const END_SIG: &[u8] = b"PK\x05\x06";
const ZIP64_END_SIG: &[u8] = b"PK\x06\x06";
const DESCRIPTOR_SIG: &[u8] = b"PK\x07\x08";

fn le(b: &[u8], at: usize, len: usize) -> Result<u64, String> {
    let f = b
        .get(at..at + len)
        .ok_or_else(|| format!("field at {at} past the end"))?;
    Ok(f.iter().rev().fold(0u64, |v, &x| (v << 8) | u64::from(x)))
}

/// modelgate's reading, or its error.
fn ours(bytes: &[u8]) -> Result<Members, String> {
    let c = read_container(bytes, &ArchiveLimits::DEFAULT).map_err(|e| e.to_string())?;
    let mut m: Members = c
        .members
        .iter()
        .map(|(n, b)| (n.as_str().to_string(), b.to_vec()))
        .collect();
    m.sort();
    Ok(m)
}

/// The local records read as a stream from byte 0, as libarchive's streaming reader
/// (`bsdtar -xf -`) reads them: the local header's sizes, or with the descriptor flag, for
/// deflated data the end of the deflate stream and for stored data the first signed
/// descriptor whose CRC-32 is that of the bytes read so far (libarchive's test) or whose
/// sizes are their count (the 32- or 64-bit form); then a descriptor whose form is told by
/// its first four bytes and the local ZIP64 field. Between records it looks for the next
/// local header signature and stops at a central header or end record signature.
fn streaming(data: &[u8]) -> Result<Members, String> {
    let mut out = Vec::new();
    let mut pos = 0usize;
    loop {
        let sig = data.get(pos..pos + 4).ok_or("no central directory after the records")?;
        if sig == CENTRAL_SIG || sig == END_SIG || sig == ZIP64_END_SIG {
            out.sort();
            return Ok(out);
        }
        if sig != LOCAL_SIG {
            pos += 1;
            continue;
        }
        let (member, next) = record(data, pos)?;
        out.push(member);
        pos = next;
    }
}

/// One local record at `pos` read as [`streaming`] reads it; its member and where the next
/// record would start.
fn record(data: &[u8], pos: usize) -> Result<((String, Vec<u8>), usize), String> {
    let (flags, method) = (le(data, pos + 6, 2)?, le(data, pos + 8, 2)?);
    let (csize, name_len, extra_len) = (le(data, pos + 18, 4)?, le(data, pos + 26, 2)?, le(data, pos + 28, 2)?);
    let name_at = pos + 30;
    let name = data
        .get(name_at..name_at + name_len as usize)
        .ok_or("name past the end")?;
    let extra = data
        .get(name_at + name_len as usize..name_at + (name_len + extra_len) as usize)
        .ok_or("extra field past the end")?;
    let zip64 = extra.len() >= 4 && le(extra, 0, 2)? == 1;
    let csize = if csize == u64::from(u32::MAX) && zip64 {
        le(extra, 12, 8)?
    } else {
        csize
    };
    let start = name_at + (name_len + extra_len) as usize;
    let descriptor = flags & 8 != 0;
    let (bytes, mut end) = match (method, descriptor) {
        (8, _) => {
            let (bytes, used) = inflate_to_end(data.get(start..).unwrap_or_default())?;
            if !descriptor && used as u64 != csize {
                return Err(format!("deflate stream at {start} does not end at the local size"));
            }
            (bytes, start + used)
        }
        (0, false) => {
            let end = start + csize as usize;
            (data.get(start..end).ok_or("stored data past the end")?.to_vec(), end)
        }
        (0, true) => {
            let k = stored_end(data, start)?;
            (data[start..start + k].to_vec(), start + k)
        }
        _ => return Err(format!("method {method} at {pos}")),
    };
    if descriptor {
        if data.get(end..end + 4) == Some(DESCRIPTOR_SIG) {
            end += 4;
        }
        end += if zip64 { 20 } else { 12 };
    }
    Ok(((String::from_utf8_lossy(name).into_owned(), bytes), end))
}

/// The output of the deflate stream that starts `input`, and how many bytes it takes.
fn inflate_to_end(input: &[u8]) -> Result<(Vec<u8>, usize), String> {
    let mut out = Vec::new();
    let mut inflater = Inflater::new(OutputBound::AtMost(1 << 32), false);
    let progress = inflater
        .feed(input, false, |c| out.extend_from_slice(c))
        .map_err(|e| e.to_string())?;
    if !progress.done {
        return Err("deflate stream does not end".into());
    }
    Ok((out, progress.consumed))
}

/// Where a streaming reader ends stored data starting at `start`: the first signed descriptor
/// whose CRC-32 is that of the bytes before it or whose sizes are their count.
fn stored_end(data: &[u8], start: usize) -> Result<usize, String> {
    let (mut crc, mut crc_end) = (0u32, start);
    for at in start..data.len() {
        if data.get(at..at + 4) != Some(DESCRIPTOR_SIG) {
            continue;
        }
        let k = (at - start) as u64;
        crc = crc32_continue(crc, &data[crc_end..at]);
        crc_end = at;
        let narrow = le(data, at + 8, 4) == Ok(k) && le(data, at + 12, 4) == Ok(k);
        let wide = le(data, at + 8, 8) == Ok(k) && le(data, at + 16, 8) == Ok(k);
        if narrow || wide || le(data, at + 4, 4) == Ok(u64::from(crc)) {
            return Ok(at - start);
        }
    }
    Err(format!("no descriptor ends the stored data at {start}"))
}

const PYTHON: &str = r#"
import sys, zipfile
for path in sys.argv[1:]:
    try:
        with zipfile.ZipFile(path) as z:
            read = [(n, z.read(n)) for n in z.namelist()]
        for n, b in read:
            print(path, n.encode().hex(), b.hex(), sep="\t")
    except Exception as e:
        print(path, "!", type(e).__name__, sep="\t")
"#;

/// Python's `zipfile` reading of each file (namelist, then `read` of each name), or `None`
/// without python3.
fn python(paths: &[PathBuf]) -> Option<BTreeMap<PathBuf, Result<Members, String>>> {
    let out = Command::new("python3")
        .arg("-c")
        .arg(PYTHON)
        .args(paths)
        .output()
        .ok()?;
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let hex = |s: &str| -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    };
    let mut readings: BTreeMap<PathBuf, Result<Members, String>> =
        paths.iter().map(|p| (p.clone(), Ok(Vec::new()))).collect();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let f: Vec<&str> = line.split('\t').collect();
        let reading = readings.get_mut(Path::new(f[0])).unwrap();
        match (f[1], reading) {
            ("!", r) => *r = Err(f[2].to_string()),
            (name, Ok(m)) => m.push((String::from_utf8(hex(name)).unwrap(), hex(f[2]))),
            (_, Err(_)) => {}
        }
    }
    for m in readings.values_mut().flatten() {
        m.sort();
    }
    Some(readings)
}

/// Asserts that modelgate accepts every file and reads from each the members the streaming
/// reading and Python's `zipfile` read.
fn all_read_alike(paths: &[PathBuf]) {
    let py = python(paths);
    if py.is_none() {
        eprintln!("python3 not available; Python's zipfile reading skipped");
    }
    for path in paths {
        let bytes = std::fs::read(path).unwrap();
        let ours = ours(&bytes);
        assert!(ours.is_ok(), "{}: {ours:?}", path.display());
        assert_eq!(streaming(&bytes), ours, "{}: streamed otherwise", path.display());
        if let Some(py) = &py {
            assert_eq!(
                py[path],
                ours,
                "{}: Python's zipfile reads it otherwise",
                path.display()
            );
        }
    }
}

fn corpus(filter: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../hostile-corpus/mlbundle");
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| filter(p.file_name().unwrap().to_str().unwrap()))
        .collect();
    out.sort();
    out
}

/// Writes `bundles` into a fresh folder for test `name`; their paths.
fn written(name: &str, bundles: &[Vec<u8>]) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("zip_differential-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    bundles
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let p = dir.join(format!("{i}.mlbundle"));
            std::fs::write(&p, b).unwrap();
            p
        })
        .collect()
}

/// A random member set: a recipe, its models (empty, small, or across a 64 KiB chunk, with
/// runs and noise), schema.json, and structure.json and samples.json or not.
fn member_set(rng: &mut Rng) -> (Recipe, Vec<(MemberName, Vec<u8>)>) {
    let (recipe, models) = match rng.below(6) {
        0 => (Recipe::Standalone(MemberName::ModelOnnx), vec![MemberName::ModelOnnx]),
        1 => (Recipe::Standalone(MemberName::ModelSkops), vec![MemberName::ModelSkops]),
        2 => (Recipe::Standalone(MemberName::ModelUbj), vec![MemberName::ModelUbj]),
        3 => (Recipe::Standalone(MemberName::ModelCbm), vec![MemberName::ModelCbm]),
        4 => (
            Recipe::Composite(MemberName::ModelUbj),
            vec![MemberName::ModelSkops, MemberName::ModelUbj],
        ),
        _ => (
            Recipe::Composite(MemberName::ModelCbm),
            vec![MemberName::ModelSkops, MemberName::ModelCbm],
        ),
    };
    let mut members: Vec<(MemberName, Vec<u8>)> = models
        .into_iter()
        .map(|name| {
            let len = [0, 1, 300, 70_000][rng.below(4)];
            let mut bytes = pseudorandom(len, rng.next_u64() | 1);
            bytes.truncate(len);
            if len > 0 {
                let run = rng.below(len);
                bytes[..run / 4].fill(0);
            }
            (name, bytes)
        })
        .collect();
    members.push((MemberName::Schema, SCHEMA.to_vec()));
    if rng.one_in(2) {
        members.push((MemberName::Structure, STRUCTURE.to_vec()));
    }
    if rng.one_in(2) {
        members.push((MemberName::Samples, SAMPLES.to_vec()));
    }
    (recipe, members)
}

#[test]
fn every_valid_corpus_bundle_reads_alike() {
    let files = corpus(|n| n.starts_with("valid-"));
    assert!(files.len() >= 33, "{} valid files", files.len());
    assert!(
        files
            .iter()
            .any(|p| p.to_str().unwrap().contains("python-zipfile-stored-descriptors"))
    );
    all_read_alike(&files);
}

#[test]
fn bundles_modelgate_writes_read_alike() {
    let mut rng = Rng::new(0x7772_6974_6572);
    let bundles: Vec<Vec<u8>> = (0..16)
        .map(|_| {
            let (recipe, members) = member_set(&mut rng);
            let has = |n: MemberName| members.iter().any(|(m, _)| *m == n);
            let manifest = Manifest::new(recipe, has(MemberName::Structure), has(MemberName::Samples));
            let members: BTreeMap<MemberName, Vec<u8>> = members.into_iter().collect();
            write_container(&manifest, &members, &ArchiveLimits::DEFAULT).unwrap()
        })
        .collect();
    all_read_alike(&written("writer", &bundles));
}

/// A random bundle from the corpus builder: each member stored or deflated, with a data
/// descriptor of a random form (signed for stored data, §2.11.1) or none, ZIP64 local and
/// central fields or not, the members and the directory in random orders, ZIP64 end records
/// or not.
fn built_bundle(rng: &mut Rng) -> Vec<u8> {
    let (recipe, members) = member_set(rng);
    let refs: Vec<(&str, &[u8])> = members.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect();
    let manifest = manifest_for(recipe, &refs);
    let mut all = vec![Member::new("manifest.json", manifest.as_bytes())];
    all.extend(refs.iter().map(|(n, b)| Member::new(n, b)));
    for m in &mut all {
        if rng.one_in(2) {
            m.method = 0;
        }
        if rng.one_in(2) {
            let wide = rng.one_in(2);
            m.descriptor = Some(Desc {
                signed: m.method == 0 || rng.one_in(2),
                wide,
                zero_local: rng.one_in(2),
            });
            m.local_zip64 = wide;
        } else {
            m.local_zip64 = rng.below(4) == 0;
        }
        m.central_zip64 = rng.below(4) == 0;
        if m.local_zip64 || m.central_zip64 {
            m.version = 45;
        }
    }
    let n = all.len();
    for i in (1..n).rev() {
        all.swap(i, rng.below(i + 1));
    }
    let mut z = Zip::new(all);
    z.central_order = (0..n).collect();
    for i in (1..n).rev() {
        z.central_order.swap(i, rng.below(i + 1));
    }
    z.zip64_end = rng.one_in(2);
    z.end_sentinels = z.zip64_end && rng.one_in(2);
    z.build().0
}

#[test]
fn bundles_the_corpus_builder_writes_read_alike() {
    let mut rng = Rng::new(0x6275_696c_6465);
    let bundles: Vec<Vec<u8>> = (0..32).map(|_| built_bundle(&mut rng)).collect();
    all_read_alike(&written("builder", &bundles));
}

/// The corpus files whose directory hides a second reading of the local records: modelgate
/// rejects each, and the streaming reading differs from Python's `zipfile` reading of the
/// directory (or its refusal: versions with its overlap check, CVE-2024-0450, refuse the local
/// record inside the directory). Were one accepted, no reading of it could equal both, so the
/// tests above would fail.
#[test]
fn hidden_second_readings_stream_otherwise() {
    let files = corpus(|n| n.starts_with("InvalidContainer-") && (n.contains("planted") || n.contains("-zipdiff-c1-")));
    assert!(files.len() >= 10, "{} files", files.len());
    let py = python(&files);
    if py.is_none() {
        eprintln!("python3 not available; Python's zipfile reading skipped");
    }
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        assert!(ours(&bytes).is_err(), "{}", path.display());
        if let Some(py) = &py {
            assert_ne!(streaming(&bytes), py[path], "{}", path.display());
        }
    }
}

/// The streaming reading reads a stored member with a descriptor as the directory does when
/// nothing is planted, and ends it at a planted descriptor of either kind.
#[test]
fn streaming_reading_ends_stored_data_at_the_first_fitting_descriptor() {
    let head = b"0123456789".to_vec();
    let descriptor = |crc: u32, size: u32| {
        [
            DESCRIPTOR_SIG,
            &crc.to_le_bytes(),
            &size.to_le_bytes(),
            &size.to_le_bytes(),
        ]
        .concat()
    };
    let build = |data: &[u8]| {
        let mut m = Member::new("model.ubj", data).stored();
        m.descriptor = Some(Desc {
            signed: true,
            wide: false,
            zero_local: true,
        });
        Zip::new(vec![m]).build().0
    };
    let plain = [head.clone(), b"tail".to_vec()].concat();
    assert_eq!(streaming(&build(&plain)), Ok(vec![("model.ubj".into(), plain)]));
    for planted in [descriptor(crc32(&head), 99), descriptor(0, head.len() as u32)] {
        let data = [head.clone(), planted, b"tail".to_vec()].concat();
        let streamed = streaming(&build(&data)).unwrap();
        assert_eq!(streamed[0], ("model.ubj".into(), head.clone()));
    }
}
