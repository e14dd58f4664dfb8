//! Bounded raw inflate through the `.deflate` test frame (`spec/inflate.md` §2, §6), so every
//! file of `hostile-corpus/deflate/` is a meaningful seed. Properties: never panics; never
//! hands out more than the declared size; accepted output is exactly what a reference
//! inflater produces and its CRC-32 is what the frame declares; feeding the stream in two
//! pieces gives the same outcome and offset as the whole. Built with the feature
//! `fast-inflate` (`fuzz/README.md`), also: modelgate's own decoder hands out the same bytes
//! and ends with the same result as the miniz_oxide engine of the default build
//! (`inflate::reference`, `spec/inflate.md` §10), under an exact and an at-most bound,
//! whole and cut.
#![no_main]

use libfuzzer_sys::fuzz_target;
use modelgate_core::inflate::{
    FRAME_HEADER_LEN, InflateError, InflateReason, Inflater, MAX_CHUNK, OutputBound, check_frame, inflate_exact,
};

/// Declared sizes above this are rejected before inflating (keeps each run small).
const LIMIT: u64 = 1 << 20;

fuzz_target!(|data: &[u8]| {
    let frame = check_frame(data, LIMIT);
    let Some((header, stream)) = data.split_at_checked(FRAME_HEADER_LEN) else {
        assert!(frame.is_err());
        return;
    };
    let declared = u64::from_le_bytes(header[..8].try_into().unwrap());
    let crc = u32::from_le_bytes(header[8..12].try_into().unwrap());
    if declared > LIMIT {
        assert_eq!(frame.unwrap_err().reason, InflateReason::DeclaredTooLarge);
        return;
    }

    let mut out = Vec::new();
    let mut biggest = 0;
    let whole = inflate_exact(stream, declared, Some(crc), false, |c| {
        biggest = biggest.max(c.len());
        out.extend_from_slice(c);
    });
    assert!(out.len() as u64 <= declared, "handed out more than declared");
    assert!(biggest <= MAX_CHUNK);
    assert_eq!(whole.is_ok(), frame.is_ok(), "frame and member helper disagree");
    if whole.is_ok() {
        assert_eq!(out.len() as u64, declared);
        assert_eq!(crc32fast::hash(&out), crc);
        let reference = miniz_oxide::inflate::decompress_to_vec_with_limit(stream, declared as usize + 1)
            .expect("accepted stream must inflate with the reference decoder");
        assert_eq!(reference, out, "accepted output differs from the reference");
    }

    // Two pieces, cut at a point the input itself chooses.
    let cut = (crc as usize) % (stream.len() + 1);
    let (a, b) = stream.split_at(cut);
    let mut engine = Inflater::new(OutputBound::Exact(declared), false);
    let mut split_out = Vec::new();
    let split = engine
        .feed(a, true, |c| split_out.extend_from_slice(c))
        .and_then(|p| {
            if p.done {
                Ok(p.consumed)
            } else {
                engine
                    .feed(b, false, |c| split_out.extend_from_slice(c))
                    .map(|q| cut + q.consumed)
            }
        })
        .and_then(|consumed| {
            if consumed == stream.len() {
                engine.finish(Some(crc))
            } else {
                Err(InflateError::new(InflateReason::TrailingData, consumed as u64))
            }
        });
    match (&whole, &split) {
        (Ok(_), Ok(_)) => assert_eq!(out, split_out),
        (Err(e1), Err(e2)) => assert_eq!(e1, e2, "splitting changed the error"),
        _ => panic!("splitting changed the outcome: {whole:?} vs {split:?}"),
    }

    // fast-inflate: the decoder against the default build's engine (spec/inflate.md §10).
    #[cfg(feature = "fast-inflate")]
    for bound in [OutputBound::Exact(declared), OutputBound::AtMost(declared)] {
        use modelgate_core::inflate::reference::{run_engine, run_reference};
        for cuts in [&[][..], &[cut][..]] {
            let ours = run_engine(stream, bound, cuts);
            let theirs = run_reference(stream, bound, cuts);
            assert!(
                ours == theirs,
                "decoder and miniz engine differ under {bound:?}, cuts {cuts:?}: {ours:?} vs {theirs:?}"
            );
        }
    }
});
