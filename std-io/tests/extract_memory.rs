//! Extraction memory is bounded by a few chunks, whatever the package size
//! (`spec/mpk.md` §6.2): a package holding 48 MiB of binaries is checked and extracted
//! with a peak heap far below its size. A counting global allocator measures the peak.

use modelgate_core::digest::ChunkDigest;
use modelgate_core::mpk::MpkLimits;
use modelgate_core::tar::{END_OF_ARCHIVE, padding};
use modelgate_core::tar::{FileMeta, Flavor, TarWriter, file_header};
use modelgate_io::extract::{CHUNK, HANDOFF_BUFFER, HANDOFF_BUFFERS, READ_AHEAD, check_package, extract};
use std::fs::{self, File};
use std::io::Write;

use modelgate_corpus_gen::counting;

#[global_allocator]
static GLOBAL: counting::Counting = counting::Counting;

const BIG: usize = 48 << 20;

/// Streams a gzip member of stored deflate blocks to `out`, 64 KiB at a time, so the
/// test itself never holds the package in memory.
struct StoredGzip<W: Write> {
    out: W,
    digest: ChunkDigest,
    len: u64,
}

impl<W: Write> StoredGzip<W> {
    fn new(mut out: W) -> Self {
        out.write_all(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255]).unwrap();
        StoredGzip {
            out,
            digest: ChunkDigest::crc_only(),
            len: 0,
        }
    }
    fn write(&mut self, data: &[u8]) {
        for block in data.chunks(65535) {
            let n = block.len() as u16;
            self.out.write_all(&[0]).unwrap();
            self.out.write_all(&n.to_le_bytes()).unwrap();
            self.out.write_all(&(!n).to_le_bytes()).unwrap();
            self.out.write_all(block).unwrap();
            self.digest.update(block);
            self.len += block.len() as u64;
        }
    }
    fn finish(mut self) {
        self.out.write_all(&[1, 0, 0, 0xff, 0xff]).unwrap();
        self.out.write_all(&self.digest.crc32().to_le_bytes()).unwrap();
        self.out.write_all(&(self.len as u32).to_le_bytes()).unwrap();
    }
}

#[test]
fn peak_heap_stays_far_below_package_size() {
    let dir = std::env::temp_dir().join(format!("modelgate-extract-memory-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    let pkg = dir.join("big.tar.gz");
    {
        let mut gz = StoredGzip::new(std::io::BufWriter::new(File::create(&pkg).unwrap()));
        let mut small = TarWriter::new(Flavor::Gnu);
        let contract = br#"{"name":"m","plugins":[{"name":"run","sequence":1,"processor":"MLA","type":"sgpProcess","config_params":{"desired_batch_size":1,"actual_batch_size":1},"input_nodes":[],"output_nodes":[],"resources":{"executable":"m.elf"}}]}"#;
        let pipeline = br#"{"pipelines":[{"sequence":[{"sequence_id":1,"name":"run","pluginId":"processmla","configPath":"run.json","processor":"MLA","kernel":"infer","input":"decoder"}]}]}"#;
        small.append_file(b"mpk.json", contract, &FileMeta::FIXED).unwrap();
        small
            .append_file(b"pipeline_sequence.json", pipeline, &FileMeta::FIXED)
            .unwrap();
        small.append_file(b"run.json", b"{}", &FileMeta::FIXED).unwrap();
        let mut t = small.finish();
        t.truncate(t.len() - END_OF_ARCHIVE.len());
        gz.write(&t);
        gz.write(&file_header(b"m.elf", BIG as u64, &FileMeta::FIXED, Flavor::Gnu).unwrap());
        let chunk = vec![0x5a; 1 << 20];
        for _ in 0..BIG >> 20 {
            gz.write(&chunk);
        }
        gz.write(padding(BIG as u64));
        gz.write(&END_OF_ARCHIVE);
        gz.finish();
    }
    assert!(fs::metadata(&pkg).unwrap().len() > BIG as u64);

    let (checked, check_peak) = counting::peak_of(|| check_package(&pkg, MpkLimits::DEFAULT, &mut |_, _| {}));
    checked.unwrap();
    let (extracted, extract_peak) =
        counting::peak_of(|| extract(&pkg, &dir.join("out"), MpkLimits::DEFAULT, &mut |_, _| {}));
    extracted.unwrap();
    assert_eq!(fs::metadata(dir.join("out/share/m.elf")).unwrap().len(), BIG as u64);
    fs::remove_dir_all(&dir).unwrap();

    eprintln!(
        "package {} MiB: peak heap check {check_peak} B, extract {extract_peak} B",
        BIG >> 20
    );
    // A few 64 KiB chunks (read buffer, inflate window and output) plus small state, and
    // the fixed pools of buffers between the reading, inflating and tar threads.
    let bound = (512 << 10) + HANDOFF_BUFFER * HANDOFF_BUFFERS + READ_AHEAD * CHUNK;
    assert!(check_peak < bound, "check peak {check_peak}");
    assert!(extract_peak < bound, "extract peak {extract_peak}");
}
