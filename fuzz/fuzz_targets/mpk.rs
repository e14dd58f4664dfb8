//! MPK packages (`spec/mpk.md` §3 to §5): never panics; every rejection's message starts
//! with its taxonomy key and has a location; feeding in pieces changes nothing. Three
//! shapes reach every layer: raw bytes as the `.tar.gz`, raw bytes as the tar (gzipped
//! here), and raw bytes as `pipeline_sequence.json` (or the contract) in an otherwise
//! valid package.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use modelgate_core::gzip::write_gzip;
use modelgate_core::mpk::{Failure, MpkError, MpkLimits, MpkReader, NullSink, Package, Registry, check_tar_gz};
use modelgate_core::tar::{FileMeta, Flavor, TarWriter};

#[derive(Arbitrary, Debug)]
enum Shape {
    Gz,
    Tar,
    Pipeline,
    Contract,
}

#[derive(Arbitrary, Debug)]
struct Input {
    shape: Shape,
    piece: u16,
    data: Vec<u8>,
}

const CONTRACT: &[u8] =
    br#"{"mpk_version":"1.0","model":"m","stages":[{"name":"run","processor":"MLA","executable":"m.elf"}]}"#;
const PIPELINE: &[u8] = br#"{"pipelines":[{"sequence":[{"sequence_id":1,"name":"run","pluginId":"p","configPath":"run.json","processor":"MLA","kernel":"mla_inference","dependencies":["decoder"]}]}]}"#;

fn package(contract: &[u8], pipeline: &[u8]) -> Vec<u8> {
    let mut w = TarWriter::new(Flavor::Gnu);
    for (p, d) in [
        ("mpk.json", contract),
        ("pipeline_sequence.json", pipeline),
        ("run.json", b"{}"),
        ("m.elf", b"ELF"),
    ] {
        w.append_file(p.as_bytes(), d, &FileMeta::FIXED).expect("fixed paths");
    }
    write_gzip(&w.finish(), usize::MAX).expect("gzip")
}

fn pieced(bytes: &[u8], piece: usize) -> Result<Package, MpkError> {
    let mut r = MpkReader::new(MpkLimits::DEFAULT, Registry::DEFAULT, [1, 2]);
    for c in bytes.chunks(piece.max(1)) {
        match r.feed(c, &mut NullSink) {
            Ok(()) => {}
            Err(Failure::Rejected(e)) => return Err(e),
            Err(Failure::Sink(n)) => match n {},
        }
    }
    r.finish()
}

fuzz_target!(|input: Input| {
    let bytes = match input.shape {
        Shape::Gz => input.data,
        Shape::Tar => write_gzip(&input.data, usize::MAX).expect("gzip"),
        Shape::Pipeline => package(CONTRACT, &input.data),
        Shape::Contract => package(&input.data, PIPELINE),
    };
    let whole = check_tar_gz(&bytes, MpkLimits::DEFAULT, Registry::DEFAULT, [3, 4]);
    if let Err(e) = &whole {
        assert!(e.to_string().starts_with(e.kind.key()), "{e}");
        assert!(e.message().starts_with(e.kind.key()));
    }
    if let Ok(p) = &whole {
        for pl in &p.pipelines {
            assert!(
                pl.stages.windows(2).all(|w| w[0].sequence_id <= w[1].sequence_id),
                "stable order"
            );
        }
    }
    assert_eq!(
        whole,
        pieced(&bytes, usize::from(input.piece)),
        "piece size changed the outcome"
    );
});
