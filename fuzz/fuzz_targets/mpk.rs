//! MPK packages (`spec/mpk.md` §3 to §5): never panics; every rejection's message starts
//! with its taxonomy key and has a location; feeding in pieces changes nothing. Three
//! shapes reach every layer: raw bytes as the `.tar.gz`, raw bytes as the tar (gzipped
//! here), and raw bytes as `pipeline_sequence.json` (or the contract) in an otherwise
//! valid package. JSON input is also read as `pipeline_sequence.json` on its own: the
//! token walk (`read_pipelines`) must give the verdict the rules give on the whole value
//! (`pipeline::reference`), error for error, under several stage limits.
#![no_main]

use libfuzzer_sys::fuzz_target;
use modelgate_core::gzip::write_gzip;
use modelgate_core::json;
use modelgate_core::mpk::pipeline_reference as reference;
use modelgate_core::mpk::read_pipelines;
use modelgate_core::mpk::{Failure, MpkError, MpkLimits, MpkReader, Package, Registry, check_tar_gz};
use modelgate_core::tar::{Discard, FileMeta, Flavor, TarWriter};

/// A cheap hash of the input, from which the target derives its own parameters (piece
/// size, shape), so that every byte of a corpus file reaches the parser as it is.
fn mix(data: &[u8]) -> usize {
    data.iter()
        .fold(0usize, |a, &b| a.wrapping_mul(31).wrapping_add(usize::from(b)))
}

const CONTRACT: &[u8] = br#"{"name":"m","plugins":[{"name":"run","sequence":1,"processor":"MLA","type":"sgpProcess","config_params":{"desired_batch_size":1,"actual_batch_size":1},"input_nodes":[],"output_nodes":[],"resources":{"executable":"m.elf"}}]}"#;
const PIPELINE: &[u8] = br#"{"pipelines":[{"sequence":[{"sequence_id":1,"name":"run","pluginId":"processmla","configPath":"run.json","processor":"MLA","kernel":"infer","input":"decoder"}]}]}"#;

fn package(contract: &[u8], pipeline: &[u8]) -> Vec<u8> {
    let mut w = TarWriter::new(Flavor::Gnu);
    for (p, d) in [
        ("etc/m_mpk.json", contract),
        ("etc/pipeline_sequence.json", pipeline),
        ("etc/run.json", b"{}"),
        ("share/m.elf", b"ELF"),
    ] {
        w.append_file(p.as_bytes(), d, &FileMeta::FIXED).expect("fixed paths");
    }
    write_gzip(&w.finish(), usize::MAX).expect("gzip")
}

fn pieced(bytes: &[u8], piece: usize) -> Result<Package, MpkError> {
    let mut r = MpkReader::new(MpkLimits::DEFAULT, Registry::DEFAULT, [1, 2]);
    for c in bytes.chunks(piece.max(1)) {
        match r.feed(c, &mut Discard) {
            Ok(()) => {}
            Err(Failure::Rejected(e)) => return Err(e),
            Err(Failure::Sink(n)) => match n {},
        }
    }
    r.finish()
}

/// The walk against the oracle on `data` as the pipeline document.
fn walk_matches_the_value_rules(data: &[u8]) {
    let limits = json::Limits {
        max_bytes: 16 << 20,
        max_depth: 64,
        hash_key: [1, 2],
    };
    let whole = json::parse(data, limits);
    for max_stages in [1, 3, 1024] {
        let walked = read_pipelines(data, limits, &Registry::DEFAULT, max_stages);
        let want = match &whole {
            Ok(v) => Ok(reference::parse_pipelines(v, &Registry::DEFAULT, max_stages)),
            Err(e) => Err(*e),
        };
        assert_eq!(walked, want, "under {max_stages} stages");
    }
}

fuzz_target!(|data: &[u8]| {
    if data.first() == Some(&b'{') {
        walk_matches_the_value_rules(data);
    }
    // The input's own shape picks how it is used: a gzip file as it is (corpus seeds), JSON
    // as the pipeline or the contract of an otherwise valid package, anything else as the
    // tar inside a gzip member.
    let h = mix(data);
    let bytes = match data.first() {
        Some(0x1f) => data.to_vec(),
        Some(b'{') if h % 2 == 0 => package(CONTRACT, data),
        Some(b'{') => package(data, PIPELINE),
        _ => write_gzip(data, usize::MAX).expect("gzip"),
    };
    let whole = check_tar_gz(&bytes, MpkLimits::DEFAULT, Registry::DEFAULT, [3, 4]);
    if let Err(e) = &whole {
        assert!(e.to_string().starts_with(e.kind.key()), "{e}");
        assert!(e.message().starts_with(e.kind.key()));
    }
    if let Ok(p) = &whole {
        assert!(
            p.contract.plugins.windows(2).all(|w| w[0].sequence < w[1].sequence),
            "plugins in sequence order"
        );
        for pl in p.pipelines.iter().flatten() {
            assert!(
                pl.stages.windows(2).all(|w| w[0].sequence_id <= w[1].sequence_id),
                "stable order"
            );
        }
    }
    assert_eq!(whole, pieced(&bytes, 1 + h % 4096), "piece size changed the outcome");
});
