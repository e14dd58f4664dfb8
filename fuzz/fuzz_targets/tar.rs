//! The tar reader (`spec/mpk.md` §1): never panics; the push reader fed in pieces and
//! the slice iterator agree exactly (entries, data, error and offset); every entry's data
//! is exactly its size; accepted regular files rewritten by the writer read back the same.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use modelgate_core::tar::{EntryKind, Event, FileMeta, Flavor, TarLimits, TarReader, TarWriter, entries};

#[derive(Arbitrary, Debug)]
struct Input {
    piece: u8,
    data: Vec<u8>,
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

fuzz_target!(|input: Input| {
    let pieced = pieces(&input.data, usize::from(input.piece));
    let sliced: Result<Seen, (String, u64)> = entries(&input.data, TarLimits::DEFAULT)
        .map(|r| {
            r.map(|(e, d)| (e.kind, e.path, e.link, e.size, d.to_vec()))
                .map_err(|e| (format!("{:?}", e.reason), e.offset))
        })
        .collect();
    assert_eq!(pieced, sliced, "push and slice readers disagree");
    if let Ok(seen) = sliced {
        let total: u64 = seen.iter().map(|s| s.3).sum();
        assert!(total <= input.data.len() as u64);
        let files: Vec<_> = seen
            .iter()
            .filter(|s| s.0 == EntryKind::Regular && !s.1.is_empty())
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
