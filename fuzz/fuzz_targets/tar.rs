//! The tar reader (`spec/mpk.md` §1): never panics; the push reader fed in pieces and
//! the slice iterator agree exactly (entries, data, error and offset); every entry's data
//! is exactly its size; accepted regular files rewritten by the writer read back the same.
#![no_main]

use libfuzzer_sys::fuzz_target;
use modelgate_core::tar::{EntryKind, Event, FileMeta, Flavor, TarLimits, TarReader, TarWriter, entries};

/// A cheap hash of the input, from which the target derives its own parameters (piece
/// size, shape), so that every byte of a corpus file reaches the parser as it is.
fn mix(data: &[u8]) -> usize {
    data.iter().fold(0usize, |a, &b| a.wrapping_mul(31).wrapping_add(usize::from(b)))
}

type Seen = Vec<(EntryKind, Vec<u8>, Vec<u8>, u64, Vec<u8>)>;

fn pieces(data: &[u8], piece: usize) -> Result<Seen, (String, u64)> {
    let mut r = TarReader::new(TarLimits::DEFAULT);
    let mut out: Seen = Vec::new();
    for chunk in data.chunks(piece.max(1)) {
        let mut pos = 0;
        loop {
            let (used, ev) = r
                .step(&chunk[pos..])
                .map_err(|e| (format!("{:?}", e.reason), e.offset))?;
            pos += used;
            match ev {
                Event::Entry(e) => out.push((e.kind, e.path, e.link, e.size, Vec::new())),
                Event::Data(d) => out.last_mut().expect("data after an entry").4.extend_from_slice(d),
                Event::EntryEnd => {
                    let last = out.last().expect("end after an entry");
                    assert_eq!(last.4.len() as u64, last.3, "data length is the size");
                }
                Event::End => {}
                Event::NeedInput => break,
            }
        }
    }
    r.finish().map_err(|e| (format!("{:?}", e.reason), e.offset))?;
    Ok(out)
}

fuzz_target!(|data: &[u8]| {
    let pieced = pieces(data, 1 + mix(data) % 1024);
    let sliced: Result<Seen, (String, u64)> = entries(&data, TarLimits::DEFAULT)
        .map(|r| {
            r.map(|(e, d)| (e.kind, e.path, e.link, e.size, d.to_vec()))
                .map_err(|e| (format!("{:?}", e.reason), e.offset))
        })
        .collect();
    assert_eq!(pieced, sliced, "push and slice readers disagree");
    if let Ok(seen) = sliced {
        let total: u64 = seen.iter().map(|s| s.3).sum();
        assert!(total <= data.len() as u64);
        let files: Vec<_> = seen
            .iter()
            // The writer cannot represent a NUL in a path (the reader passes one on from a PAX
            // record; archive_path rejects it as traversal in every format that reads paths).
            .filter(|s| s.0 == EntryKind::Regular && !s.1.is_empty() && !s.1.contains(&0))
            .collect();
        let mut w = TarWriter::new(Flavor::Gnu);
        for (_, path, _, _, data) in &files {
            w.append_file(path, data, &FileMeta::FIXED)
                .expect("accepted path is writable");
        }
        let again: Vec<_> = entries(
            &w.finish(),
            TarLimits {
                max_path_bytes: u64::MAX >> 1,
                ..TarLimits::DEFAULT
            },
        )
        .map(|r| r.map(|(e, d)| (e.path, d.to_vec())))
        .collect::<Result<_, _>>()
        .expect("the writer's output reads back");
        let want: Vec<_> = files.iter().map(|s| (s.1.clone(), s.4.clone())).collect();
        assert_eq!(again, want, "round trip through the writer");
    }
});
