//! mvb import validation over in-memory tars (`spec/mvb.md` §4): never panics; feeding in
//! pieces gives exactly the outcome of feeding at once; every rejection has a location;
//! an accepted archive hashes to its own SHA-256, the sink saw exactly the recorded files,
//! every payload file matches the inventory and the bundle hash is recomputed. Inputs are
//! either raw bytes or a valid bundle with byte edits and a cut, so the deep rules are
//! reached.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use modelgate_core::digest::{hex, sha256};
use modelgate_core::mvb::{
    Failure, ImportValidator, Imported, MANIFEST, Manifest, Marker, MvbError, MvbLimits, bundle_hash, covers,
    write_bundle,
};
use modelgate_core::tar::EntrySink;

#[derive(Arbitrary, Debug)]
struct Input {
    piece: u16,
    /// Payload files of the valid bundle (bundle path suffix, bytes).
    files: Vec<(String, Vec<u8>)>,
    /// (offset, xor) edits of the valid bundle.
    edits: Vec<(u32, u8)>,
    /// Keep at most this many bytes (u32::MAX keeps all).
    cut: u32,
}

const ID: &str = "org--model@0123456789ab";
const KEY: [u64; 2] = [7, 11];

fn valid_bundle(files: &[(String, Vec<u8>)]) -> Option<Vec<u8>> {
    let mut payload: Vec<(String, &[u8])> = Vec::new();
    for (i, (name, data)) in files.iter().take(8).enumerate() {
        let clean: String = name.chars().filter(|c| c.is_ascii_alphanumeric()).take(40).collect();
        payload.push((format!("model/{i}{clean}"), data.as_slice()));
    }
    let inv: Vec<String> = payload
        .iter()
        .map(|(p, d)| format!(r#"{{"path":"{p}","size":{},"sha256":"{}"}}"#, d.len(), hex(&sha256(d))))
        .collect();
    let hexes: Vec<(String, String)> = payload.iter().map(|(p, d)| (p.clone(), hex(&sha256(d)))).collect();
    let h = bundle_hash(hexes.iter().map(|(p, x)| (p.as_str(), x.as_str())));
    let manifest = format!(
        r#"{{"schema_version":"1.0.0","kind":"darsay.bundle","artifact_type":"model","bundle_id":"{ID}","inventory":{{"layout":{{"payload_root":"model/"}},"files":[{}],"bundle_hash":{{"algorithm":"sha256-of-sorted-sha256-lines","value":"{h}","covers":"{}"}}}},"archive":{{"date_archived":"2024-05-06T07:08:09Z"}}}}"#,
        inv.join(","),
        covers("model")
    );
    let m = Manifest::parse(manifest.as_bytes(), &MvbLimits::DEFAULT, KEY).ok()?;
    let marker = Marker::for_manifest(&m);
    let mut all: Vec<(&str, &[u8])> = payload.iter().map(|(p, d)| (p.as_str(), *d)).collect();
    all.push((MANIFEST, manifest.as_bytes()));
    write_bundle(&marker, &all, m.mtime).ok()
}

#[derive(Default, Debug, PartialEq)]
struct Seen {
    files: Vec<(String, u64, Vec<u8>)>,
}

impl EntrySink for Seen {
    type Error = std::convert::Infallible;
    fn begin(&mut self, dest: &str, size: u64) -> Result<(), Self::Error> {
        let (id, path) = dest.split_once('/').expect("a file is <bundle_id>/<path>");
        assert!(!id.is_empty() && !path.is_empty(), "a file has a bundle and a path");
        self.files.push((path.to_string(), size, Vec::new()));
        Ok(())
    }
    fn data(&mut self, chunk: &[u8]) -> Result<(), Self::Error> {
        self.files
            .last_mut()
            .expect("data after begin")
            .2
            .extend_from_slice(chunk);
        Ok(())
    }
    fn end(&mut self) -> Result<(), Self::Error> {
        let last = self.files.last().expect("end after begin");
        assert_eq!(last.2.len() as u64, last.1, "a file's data is its declared size");
        Ok(())
    }
}

fn run(data: &[u8], piece: usize) -> (Result<Imported, MvbError>, Seen) {
    let mut v = ImportValidator::new(MvbLimits::DEFAULT, KEY);
    let mut seen = Seen::default();
    for chunk in data.chunks(piece.max(1)) {
        match v.feed(chunk, &mut seen) {
            Ok(()) => {}
            Err(Failure::Rejected(e)) => return (Err(e), seen),
            Err(Failure::Sink(never)) => match never {},
        }
    }
    (v.finish(), seen)
}

fuzz_target!(|raw: &[u8]| {
    // Corpus seeds are whole archives and go in as they are. An input starting with 0xFF
    // instead describes a valid bundle to build and then edit.
    let (data, piece) = if let Some((&0xFF, rest)) = raw.split_first() {
        let Ok(input) = Input::arbitrary_take_rest(Unstructured::new(rest)) else {
            return;
        };
        let Some(mut v) = valid_bundle(&input.files) else {
            return;
        };
        for (at, x) in input.edits.iter().take(16) {
            let len = v.len();
            if len > 0 {
                v[*at as usize % len] ^= x;
            }
        }
        v.truncate(input.cut as usize);
        (v, usize::from(input.piece))
    } else {
        (
            raw.to_vec(),
            1 + raw
                .iter()
                .fold(0usize, |a, &b| a.wrapping_mul(31).wrapping_add(usize::from(b)))
                % 4096,
        )
    };
    let (whole, whole_seen) = run(&data, data.len().max(1));
    let (pieced, pieced_seen) = run(&data, piece);
    match (&whole, &pieced) {
        (Ok(a), Ok(b)) => assert_eq!((a.tar_sha256, &a.files), (b.tar_sha256, &b.files)),
        (Err(a), Err(b)) => assert_eq!(a, b, "pieces change the rejection"),
        _ => panic!("pieces change acceptance"),
    }
    assert_eq!(whole_seen, pieced_seen, "pieces change what the sink saw");
    match whole {
        Err(e) => assert!(!e.location.is_none(), "rejection without location: {e}"),
        Ok(ok) => {
            assert_eq!(ok.tar_sha256, sha256(&data));
            assert_eq!(ok.tar_len, data.len() as u64);
            assert_eq!(whole_seen.files.len(), ok.files.len());
            for (rec, (path, size, bytes)) in ok.files.iter().zip(&whole_seen.files) {
                assert_eq!((&rec.path, rec.size, rec.sha256), (path, *size, sha256(bytes)));
            }
            for f in &ok.manifest.files {
                let rec = ok
                    .files
                    .iter()
                    .find(|r| r.path == f.path)
                    .expect("inventory file present");
                assert_eq!((rec.size, hex(&rec.sha256)), (f.size, f.sha256.clone()));
            }
            assert_eq!(ok.bundle_hash, ok.marker.bundle_hash.value);
        }
    }
});
