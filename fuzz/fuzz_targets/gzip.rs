//! gzip (`spec/inflate.md` §5): never panics; output never exceeds the caller's limit;
//! accepted members inflate to the bytes the reference decoder gives (CRC checked by the
//! decoder itself); feeding in pieces gives the same outcome and offset as the whole input.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use modelgate_core::gzip::{GzipDecoder, gunzip};

#[derive(Arbitrary, Debug)]
struct Input {
    limit: u16,
    piece: u8,
    data: Vec<u8>,
}

fuzz_target!(|input: Input| {
    let limit = u64::from(input.limit);
    let mut whole_out = Vec::new();
    let whole = gunzip(&input.data, limit, |c| whole_out.extend_from_slice(c));
    assert!(whole_out.len() as u64 <= limit, "output above the limit");
    if let Ok(summary) = &whole {
        assert_eq!(summary.output_len, whole_out.len() as u64);
        assert!(summary.members >= 1);
    }

    let piece = usize::from(input.piece).max(1);
    let mut dec = GzipDecoder::new(limit);
    let mut piece_out = Vec::new();
    let mut pieced = Ok(());
    for chunk in input.data.chunks(piece) {
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
