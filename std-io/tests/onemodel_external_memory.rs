//! ONNX external data at scale in bounded memory (`spec/onemodel.md` §4, §5, §6.2, §6.3):
//! a 160-byte model whose four 64 MiB initializers live in a sparse 256 MiB `w.bin` is
//! checked, converted to OneModel and written back to ONNX with its data in `<OUT>.data`,
//! and none of the three holds a tensor in memory: the heap stays under 1 MiB, and on Linux
//! the peak resident set grows by less than 64 MiB over the whole run (the tensors are
//! copied file to file, through the page cache, never through this process's pages).

use modelgate_corpus_gen::onemodel::pb::{int, len, model};
use modelgate_io::onemodel::{self, Options};
use modelgate_io::temp::TempDir;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

use modelgate_corpus_gen::counting;

#[global_allocator]
static GLOBAL: counting::Counting = counting::Counting;

const MIB: u64 = 1 << 20;
/// Elements per tensor: 16 Mi floats, 64 MiB.
const N: u64 = 16 * MIB;
const TENSORS: u64 = 4;

/// The byte written at `at` of `w.bin` (the rest of the sparse file reads as zeros).
fn mark(at: u64) -> u8 {
    (at % 251) as u8 | 1
}

/// The marked offsets: each tensor's first and last byte.
fn marks() -> Vec<u64> {
    (0..TENSORS).flat_map(|i| [i * N * 4, (i + 1) * N * 4 - 1]).collect()
}

/// `m.onnx` and the sparse `w.bin` it names: tensor `t{i}` is the `i`-th 64 MiB of it.
fn write_model(d: &Path) {
    let mut w = File::create(d.join("w.bin")).unwrap();
    w.set_len(TENSORS * N * 4).unwrap();
    for at in marks() {
        w.seek(SeekFrom::Start(at)).unwrap();
        w.write_all(&[mark(at)]).unwrap();
    }
    let entry = |k: &str, v: &str| len(13, &[len(1, k.as_bytes()), len(2, v.as_bytes())].concat());
    let mut graph = Vec::new();
    for i in 0..TENSORS {
        let name = format!("t{i}");
        let tensor = [
            int(1, N),
            int(2, 1),
            len(8, name.as_bytes()),
            entry("location", "w.bin"),
            entry("offset", &(i * N * 4).to_string()),
            entry("length", &(N * 4).to_string()),
            int(14, 1),
        ]
        .concat();
        graph.extend(len(5, &tensor));
        graph.extend(len(12, &len(1, name.as_bytes())));
    }
    std::fs::write(d.join("m.onnx"), model(&graph)).unwrap();
}

/// The byte at `at` of the file at `path`.
fn byte_at(path: &Path, at: u64) -> u8 {
    let mut f = File::open(path).unwrap();
    f.seek(SeekFrom::Start(at)).unwrap();
    let mut b = [0u8];
    f.read_exact(&mut b).unwrap();
    b[0]
}

/// The peak resident set since the last reset, less the resident set at the reset, in
/// bytes (Linux: `/proc/self/clear_refs` 5 resets the peak); `None` elsewhere.
struct Resident(Option<u64>);

fn status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse::<u64>().ok().map(|k| k * 1024)
}

impl Resident {
    fn reset() -> Self {
        let reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
        Resident(status_kib("VmRSS:").filter(|_| reset))
    }

    fn growth(&self) -> Option<u64> {
        Some(status_kib("VmHWM:")?.saturating_sub(self.0?))
    }
}

#[test]
fn external_data_is_checked_converted_and_written_back_in_bounded_memory() {
    let tmp = TempDir::create(&std::env::temp_dir(), "modelgate-external", "memory").unwrap();
    let d = tmp.path();
    write_model(d);
    let (input, one, back) = (d.join("m.onnx"), d.join("m.onemodel"), d.join("back.onnx"));
    let resident = Resident::reset();
    let (checked, heap) = counting::peak_of(|| onemodel::with_onnx(&input, onemodel::limits(), |_, f| f.files().len()));
    assert_eq!(checked.unwrap(), 1);
    assert!(heap < MIB as usize, "check: heap peak {heap} bytes");
    let (converted, heap) = counting::peak_of(|| onemodel::convert(&input, &one, &Options::default(), &mut |_, _| {}));
    converted.unwrap();
    assert!(heap < MIB as usize, "convert: heap peak {heap} bytes");
    let external = Options {
        external_data: true,
        ..Options::default()
    };
    let (written, heap) = counting::peak_of(|| onemodel::to_onnx(&one, &back, &external, &mut |_, _| {}));
    written.unwrap();
    assert!(heap < MIB as usize, "to-onnx: heap peak {heap} bytes");
    if let Some(growth) = resident.growth() {
        assert!(growth < 64 * MIB, "peak resident set grew by {growth} bytes");
    }
    // Every tensor landed where the formats put it: after the OneModel head at multiples
    // of 64, back to back in the data file (64 MiB is a multiple of 64).
    let data_offset = std::fs::metadata(&one).unwrap().len() - TENSORS * N * 4;
    assert_eq!(data_offset % 64, 0);
    let data = d.join("back.onnx.data");
    assert_eq!(std::fs::metadata(&data).unwrap().len(), TENSORS * N * 4);
    for at in marks() {
        assert_eq!(byte_at(&one, data_offset + at), mark(at), "OneModel byte {at}");
        assert_eq!(byte_at(&data, at), mark(at), "data file byte {at}");
    }
    assert!(std::fs::metadata(&back).unwrap().len() < 1024);
}
