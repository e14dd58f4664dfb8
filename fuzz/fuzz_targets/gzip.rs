//! gzip (`spec/inflate.md` §5) over raw file bytes, so every file of `hostile-corpus/gzip/`
//! is a meaningful seed. Properties: never panics; output never exceeds the limit; the
//! summary agrees with the output; feeding in pieces (of a size the input chooses) gives
//! the same outcome and offset as the whole input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use modelgate_core::gzip::{GzipDecoder, gunzip};

/// Output limit for one run.
const LIMIT: u64 = 1 << 20;

fuzz_target!(|data: &[u8]| {
    let mut whole_out = Vec::new();
    let whole = gunzip(data, LIMIT, |c| whole_out.extend_from_slice(c));
    assert!(whole_out.len() as u64 <= LIMIT, "output above the limit");
    if let Ok(summary) = &whole {
        assert_eq!(summary.output_len, whole_out.len() as u64);
        assert_eq!(summary.input_len, data.len() as u64);
        assert!(summary.members >= 1);
    }

    let piece = 1 + data.iter().fold(0usize, |a, &b| a.wrapping_mul(31).wrapping_add(usize::from(b))) % 97;
    let mut dec = GzipDecoder::new(LIMIT);
    let mut piece_out = Vec::new();
    let mut pieced = Ok(());
    for chunk in data.chunks(piece) {
        pieced = dec.feed(chunk, |c| piece_out.extend_from_slice(c));
        if pieced.is_err() {
            break;
        }
    }
    let pieced = pieced.and_then(|()| dec.finish());
    match (&whole, &pieced) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a, b);
            assert_eq!(whole_out, piece_out);
        }
        (Err(a), Err(b)) => assert_eq!(a, b, "piece size changed the error"),
        _ => panic!("piece size changed the outcome: {whole:?} vs {pieced:?}"),
    }
});
