//! Bounded raw inflate (`spec/inflate.md` §2, §3): never panics; never hands out more than
//! the declared size; accepted output is exactly what a reference inflater produces, and its
//! CRC-32 is what the engine reports; the result does not depend on how input is split.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use modelgate_core::inflate::{Inflater, MAX_CHUNK, OutputBound, inflate_exact};

#[derive(Arbitrary, Debug)]
struct Input {
    declared: u16,
    split: u16,
    stream: Vec<u8>,
}

fuzz_target!(|input: Input| {
    let declared = u64::from(input.declared);
    let mut out = Vec::new();
    let mut biggest_chunk = 0;
    let whole = inflate_exact(&input.stream, declared, None, false, |chunk| {
        biggest_chunk = biggest_chunk.max(chunk.len());
        out.extend_from_slice(chunk);
    });
    assert!(out.len() as u64 <= declared, "handed out more than declared");
    assert!(biggest_chunk <= MAX_CHUNK);

    if let Ok(digests) = &whole {
        assert_eq!(out.len() as u64, declared);
        assert_eq!(digests.crc32, crc32fast::hash(&out));
        let reference = miniz_oxide::inflate::decompress_to_vec_with_limit(&input.stream, usize::from(input.declared) + 1)
            .expect("accepted stream must inflate with the reference decoder");
        assert_eq!(reference, out, "accepted output differs from the reference");
    }

    // The same stream fed in two pieces gives the same outcome and offset.
    let cut = usize::from(input.split) % (input.stream.len() + 1);
    let (a, b) = input.stream.split_at(cut);
    let mut engine = Inflater::new(OutputBound::Exact(declared), false);
    let mut split_out = Vec::new();
    let result = engine
        .feed(a, true, |c| split_out.extend_from_slice(c))
        .and_then(|p| if p.done { Ok(p.consumed) } else { engine.feed(b, false, |c| split_out.extend_from_slice(c)).map(|q| cut + q.consumed) })
        .and_then(|consumed| {
            if consumed == input.stream.len() {
                engine.finish(None)
            } else {
                Err(modelgate_core::inflate::InflateError::new(
                    modelgate_core::inflate::InflateReason::TrailingData,
                    consumed as u64,
                ))
            }
        });
    match (&whole, &result) {
        (Ok(_), Ok(_)) => assert_eq!(out, split_out),
        (Err(e1), Err(e2)) => assert_eq!(e1, e2, "split changed the error"),
        _ => panic!("split changed the outcome: {whole:?} vs {result:?}"),
    }
});
