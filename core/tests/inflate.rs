//! Tests of the raw-deflate engine, the whole-slice helpers, the deterministic
//! writer and the `.deflate` frame (`spec/inflate.md` §2 to §4, §6, §7). Each rule
//! has a test named for it that asserts the exact reason and offset.

use modelgate_core::Location;
use modelgate_core::digest::{Digests, sha256};
use modelgate_core::inflate::{
    DeflateError, Deflater, FrameError, InflateError, InflateReason, Inflater, MAX_CHUNK, OutputBound, Step,
    check_frame, deflate, inflate_exact, inflate_into, inflate_to_vec, write_frame,
};

use modelgate_core::digest::crc32;
use modelgate_corpus_gen::rng::{Rng, pseudorandom};

// ---------------------------------------------------------------- helpers

/// One stored block (RFC 1951 §3.2.4), byte aligned; `data` at most 65535 bytes.
fn stored(data: &[u8], last: bool) -> Vec<u8> {
    let len = u16::try_from(data.len()).unwrap();
    let mut out = vec![u8::from(last)];
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&(!len).to_le_bytes());
    out.extend_from_slice(data);
    out
}

/// Bit writer for hand-assembled fixed-Huffman blocks (RFC 1951 §3.2.6).
#[derive(Default)]
struct Bits {
    out: Vec<u8>,
    acc: u64,
    n: u32,
}

const LEN_BASE: [u16; 29] = [
    3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258,
];
const LEN_EXTRA: [u32; 29] = [
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
];
const DIST_BASE: [u16; 30] = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145,
    8193, 12289, 16385, 24577,
];

impl Bits {
    /// `count` bits of `value`, least significant first (header fields, extra bits).
    fn put(&mut self, value: u32, count: u32) {
        self.acc |= u64::from(value) << self.n;
        self.n += count;
        while self.n >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.n -= 8;
        }
    }

    /// A Huffman code, most significant bit first.
    fn code(&mut self, code: u32, len: u32) {
        self.put(code.reverse_bits() >> (32 - len), len);
    }

    fn fixed_header(&mut self, last: bool) {
        self.put(u32::from(last), 1);
        self.put(1, 2);
    }

    fn symbol(&mut self, sym: u32) {
        match sym {
            0..=143 => self.code(0x30 + sym, 8),
            144..=255 => self.code(0x190 + sym - 144, 9),
            256..=279 => self.code(sym - 256, 7),
            _ => self.code(0xc0 + sym - 280, 8),
        }
    }

    fn literal(&mut self, b: u8) {
        self.symbol(u32::from(b));
    }

    fn end_of_block(&mut self) {
        self.symbol(256);
    }

    /// A match of `len` (3..=258) bytes at distance `dist` (1..=32768).
    fn copy(&mut self, len: u16, dist: u16) {
        let li = if len == 258 {
            28
        } else {
            LEN_BASE.iter().rposition(|&b| b <= len).unwrap()
        };
        self.symbol(257 + li as u32);
        self.put(u32::from(len - LEN_BASE[li]), LEN_EXTRA[li]);
        let di = DIST_BASE.iter().rposition(|&b| b <= dist).unwrap();
        self.code(di as u32, 5);
        let dist_extra = if di < 4 { 0 } else { (di as u32 - 2) / 2 };
        self.put(u32::from(dist - DIST_BASE[di]), dist_extra);
    }

    fn finish(mut self) -> Vec<u8> {
        if self.n > 0 {
            self.out.push(self.acc as u8);
        }
        self.out
    }
}

/// Inflates `stream` feeding at most `piece` bytes per step (`more_input` true until
/// the last byte); returns output, bytes consumed when the stream ended, digests.
fn inflate_in_pieces(
    stream: &[u8],
    bound: OutputBound,
    piece: usize,
) -> Result<(Vec<u8>, usize, Digests), InflateError> {
    let mut inf = Inflater::new(bound, false);
    let mut out = Vec::new();
    let mut pos = 0;
    loop {
        let end = (pos + piece).min(stream.len());
        let (used, step) = inf.step(&stream[pos..end], end < stream.len())?;
        pos += used;
        match step {
            Step::Output(chunk) => {
                assert!(!chunk.is_empty() && chunk.len() <= MAX_CHUNK);
                out.extend_from_slice(chunk);
            }
            Step::NeedInput => assert_eq!(pos, end),
            Step::Done => break,
        }
    }
    let digests = inf.finish(None)?;
    Ok((out, pos, digests))
}

fn err(reason: InflateReason, offset: u64) -> InflateError {
    InflateError { reason, offset }
}

fn hello_stream() -> Vec<u8> {
    stored(b"hello", true)
}

// ------------------------------------------------------- §2.5 exact size

#[test]
fn inflate_exact_size_accepted() {
    let mut got = Vec::new();
    let d = inflate_exact(&hello_stream(), 5, Some(crc32(b"hello")), true, |c| {
        got.extend_from_slice(c)
    })
    .unwrap();
    assert_eq!(got, b"hello");
    assert_eq!(d.len, 5);
    assert_eq!(d.crc32, crc32(b"hello"));
    assert_eq!(d.sha256, Some(sha256(b"hello")));
}

#[test]
fn inflate_lookahead_byte_rejected_before_retained() {
    // 10 stored bytes, declared 3: the 3 declared bytes may be handed out; the engine
    // then lets miniz produce one more (the lookahead byte) and fails before handing
    // it out.
    let stream = stored(b"0123456789", true);
    let mut seen = Vec::new();
    let e = inflate_exact(&stream, 3, None, false, |c| seen.extend_from_slice(c)).unwrap_err();
    assert_eq!(e, err(InflateReason::TooLong, 9)); // 5 header bytes + 4 data bytes
    assert_eq!(seen, b"012");
}

#[test]
fn inflate_lookahead_byte_rejected_after_earlier_chunks() {
    // 131070 bytes in two stored blocks, declared one less: everything up to the
    // bound may be handed out, never a byte past it.
    let data = pseudorandom(131_070, 1);
    let mut stream = stored(&data[..65_535], false);
    stream.extend(stored(&data[65_535..], true));
    let mut seen = Vec::new();
    let e = inflate_exact(&stream, 131_069, None, false, |c| seen.extend_from_slice(c)).unwrap_err();
    assert_eq!(e, err(InflateReason::TooLong, stream.len() as u64));
    assert!(seen.len() <= 131_069);
    assert_eq!(seen[..], data[..seen.len()]);
}

#[test]
fn inflate_one_byte_too_long_rejected() {
    let e = inflate_exact(&hello_stream(), 4, None, false, |_| {}).unwrap_err();
    assert_eq!(e, err(InflateReason::TooLong, 10));
}

#[test]
fn inflate_one_byte_too_short_rejected() {
    let e = inflate_exact(&hello_stream(), 6, None, false, |_| {}).unwrap_err();
    assert_eq!(e, err(InflateReason::TooShort, 10));
}

#[test]
fn inflate_declared_zero_with_output_rejected() {
    let e = inflate_exact(&hello_stream(), 0, None, false, |_| {}).unwrap_err();
    assert_eq!(e, err(InflateReason::TooLong, 6));
}

// --------------------------------------------------- §2.2 corrupt data

#[test]
fn inflate_reserved_block_type_rejected() {
    // BFINAL=1, BTYPE=3.
    let e = inflate_exact(&[0x07, 0, 0, 0], 0, None, false, |_| {}).unwrap_err();
    assert_eq!(e, err(InflateReason::Corrupt, 1));
}

#[test]
fn inflate_stored_length_complement_mismatch_rejected() {
    let mut stream = hello_stream();
    stream[3] ^= 1; // NLEN no longer the complement of LEN
    let e = inflate_exact(&stream, 5, None, false, |_| {}).unwrap_err();
    assert_eq!(e, err(InflateReason::Corrupt, 5));
}

#[test]
fn inflate_distance_before_start_rejected() {
    // 'a', then a copy of 3 bytes from distance 2: only 1 byte exists.
    let mut bits = Bits::default();
    bits.fixed_header(true);
    bits.literal(b'a');
    bits.copy(3, 2);
    bits.end_of_block();
    let stream = bits.finish();
    let e = inflate_exact(&stream, 4, None, false, |_| {}).unwrap_err();
    assert_eq!(e, err(InflateReason::Corrupt, 3));
}

#[test]
fn inflate_distance_equal_to_output_accepted() {
    let mut bits = Bits::default();
    bits.fixed_header(true);
    bits.literal(b'a');
    bits.literal(b'b');
    bits.copy(3, 2);
    bits.end_of_block();
    let (out, _) = inflate_to_vec(&bits.finish(), 5, None, false).unwrap();
    assert_eq!(out, b"ababa");
}

#[test]
fn inflate_distance_before_start_rejected_after_reset() {
    // A reused engine must not read the previous stream's bytes from the ring.
    let mut inf = Inflater::new(OutputBound::AtMost(1 << 20), false);
    inf.feed(&stored(&[7u8; 40_000], true), false, |_| {}).unwrap();
    inf.finish(None).unwrap();
    let mut bits = Bits::default();
    bits.fixed_header(true);
    bits.literal(b'x');
    bits.copy(3, 30_000);
    bits.end_of_block();
    inf.reset(OutputBound::AtMost(1 << 20), false);
    let e = inf.feed(&bits.finish(), false, |_| {}).unwrap_err();
    assert_eq!(e.reason, InflateReason::Corrupt);
}

#[test]
fn inflate_ring_wrap_matches_reference() {
    // 70000 stored bytes fill the ring once; then matches reach back the full
    // 32768-byte window across the ring's wrap point.
    let data = pseudorandom(70_000, 7);
    let mut stream = stored(&data[..65_535], false);
    stream.extend(stored(&data[65_535..], false));
    let mut expected = data.clone();
    let mut bits = Bits::default();
    bits.fixed_header(true);
    for i in 0..400u16 {
        let (len, dist) = match i % 4 {
            0 => (258, 32_768),
            1 => (3 + i % 200, 1 + (i * 97) % 32_768),
            2 => (258, 1),
            _ => (17, 24_577 + i),
        };
        bits.copy(len, dist);
        for _ in 0..len {
            expected.push(expected[expected.len() - usize::from(dist)]);
        }
        bits.literal(i as u8);
        expected.push(i as u8);
    }
    bits.end_of_block();
    stream.extend(bits.finish());
    let (out, digests) = inflate_to_vec(&stream, expected.len() as u64, Some(crc32(&expected)), false).unwrap();
    assert!(out == expected);
    assert_eq!(digests.len, expected.len() as u64);
    for piece in [1, 7, 4096, 65_536] {
        let (out, used, _) = inflate_in_pieces(&stream, OutputBound::Exact(expected.len() as u64), piece).unwrap();
        assert!(out == expected, "piece {piece}");
        assert_eq!(used, stream.len());
    }
}

// ----------------------------------------------------- §2.4 truncation

#[test]
fn inflate_truncated_stream_rejected() {
    let stream = hello_stream();
    let e = inflate_exact(&stream[..9], 5, None, false, |_| {}).unwrap_err();
    assert_eq!(e, err(InflateReason::Truncated, 9));
}

#[test]
fn inflate_truncated_huffman_stream_rejected() {
    let data = pseudorandom(10_000, 3);
    let stream = deflate(&data, usize::MAX).unwrap();
    for cut in [1, stream.len() / 2, stream.len() - 1] {
        let e = inflate_exact(&stream[..cut], 10_000, None, false, |_| {}).unwrap_err();
        assert_eq!(e, err(InflateReason::Truncated, cut as u64), "cut {cut}");
    }
}

#[test]
fn inflate_empty_input_truncated() {
    let e = inflate_exact(&[], 0, None, false, |_| {}).unwrap_err();
    assert_eq!(e, err(InflateReason::Truncated, 0));
}

#[test]
fn inflate_finish_before_end_truncated() {
    let stream = hello_stream();
    let mut inf = Inflater::new(OutputBound::Exact(5), false);
    let p = inf.feed(&stream[..7], true, |_| {}).unwrap();
    assert_eq!((p.consumed, p.done), (7, false));
    assert_eq!(inf.finish(None), Err(err(InflateReason::Truncated, 7)));
}

// -------------------------------------------------- §2.3 trailing data

#[test]
fn inflate_trailing_packed_data_rejected() {
    let mut stream = hello_stream();
    stream.push(0);
    let e = inflate_exact(&stream, 5, None, false, |_| {}).unwrap_err();
    assert_eq!(e, err(InflateReason::TrailingData, 10));
}

#[test]
fn inflate_second_stream_is_trailing_data() {
    let mut stream = deflate(b"abc", 100).unwrap();
    let first = stream.len() as u64;
    stream.extend(deflate(b"abc", 100).unwrap());
    let e = inflate_exact(&stream, 3, None, false, |_| {}).unwrap_err();
    assert_eq!(e, err(InflateReason::TrailingData, first));
}

#[test]
fn inflate_end_offset_same_when_fed_in_pieces() {
    let data = pseudorandom(50_000, 11);
    let mut stream = deflate(&data, usize::MAX).unwrap();
    let len = stream.len();
    stream.extend_from_slice(&[0xaa; 9]);
    for piece in [1, 2, 3, 13, 1000, stream.len()] {
        let (out, used, _) = inflate_in_pieces(&stream, OutputBound::AtMost(1 << 20), piece).unwrap();
        assert_eq!(used, len, "piece {piece}");
        assert!(out == data);
    }
}

// -------------------------------------------------------- §2.6 CRC-32

#[test]
fn inflate_crc_mismatch_rejected() {
    let actual = crc32(b"hello");
    let e = inflate_exact(&hello_stream(), 5, Some(actual ^ 1), false, |_| {}).unwrap_err();
    let reason = InflateReason::CrcMismatch {
        expected: actual ^ 1,
        actual,
    };
    assert_eq!(e, err(reason, 10));
}

#[test]
fn inflate_sha256_computed_only_when_requested() {
    let d = inflate_exact(&hello_stream(), 5, None, false, |_| {}).unwrap();
    assert_eq!(d.sha256, None);
    let d = inflate_exact(&hello_stream(), 5, None, true, |_| {}).unwrap();
    assert_eq!(d.sha256, Some(sha256(b"hello")));
}

// ---------------------------------------------------- empty streams

#[test]
fn inflate_empty_stored_block_accepted() {
    let d = inflate_exact(&stored(b"", true), 0, Some(0), false, |_| panic!("no output")).unwrap();
    assert_eq!((d.len, d.crc32), (0, 0));
}

#[test]
fn inflate_empty_fixed_block_accepted() {
    let d = inflate_exact(&[0x03, 0x00], 0, Some(0), false, |_| panic!("no output")).unwrap();
    assert_eq!(d.len, 0);
}

// ------------------------------------------------- §2.5 AtMost bound

#[test]
fn inflate_at_most_bound_exceeded_rejected() {
    let stream = stored(b"0123456789", true);
    let mut inf = Inflater::new(OutputBound::AtMost(3), false);
    let mut seen = Vec::new();
    let e = inf.feed(&stream, false, |c| seen.extend_from_slice(c)).unwrap_err();
    assert_eq!(e, err(InflateReason::LimitExceeded, 9));
    assert_eq!(seen, b"012");
}

#[test]
fn inflate_at_most_bound_reached_exactly_accepted() {
    let stream = stored(b"0123456789", true);
    let mut inf = Inflater::new(OutputBound::AtMost(10), false);
    let mut got = Vec::new();
    let p = inf.feed(&stream, false, |c| got.extend_from_slice(c)).unwrap();
    assert!(p.done);
    assert_eq!(got, b"0123456789");
    assert_eq!(inf.finish(None).unwrap().len, 10);
}

#[test]
fn inflate_at_most_allows_shorter_output() {
    let mut inf = Inflater::new(OutputBound::AtMost(1000), false);
    inf.feed(&hello_stream(), false, |_| {}).unwrap();
    assert_eq!(inf.finish(None).unwrap().len, 5);
}

#[test]
fn inflate_error_is_sticky() {
    let mut inf = Inflater::new(OutputBound::AtMost(3), false);
    let e = inf.feed(&stored(b"0123456789", true), false, |_| {}).unwrap_err();
    assert_eq!(inf.step(&[], false).unwrap_err(), e);
    assert_eq!(inf.finish(None).unwrap_err(), e);
}

// ---------------------------------------------- §2.7 chunks and memory

#[test]
fn inflate_chunks_never_exceed_64k() {
    for data in [vec![0u8; 1 << 20], pseudorandom(1 << 20, 5)] {
        let stream = deflate(&data, usize::MAX).unwrap();
        let mut total = 0usize;
        inflate_exact(&stream, data.len() as u64, Some(crc32(&data)), false, |c| {
            assert!(!c.is_empty() && c.len() <= MAX_CHUNK, "chunk of {}", c.len());
            total += c.len();
        })
        .unwrap();
        assert_eq!(total, data.len());
    }
}

#[test]
fn inflate_streams_ten_mib_of_zeros_without_buffering() {
    const LEN: usize = 10 << 20;
    let stream = deflate(&vec![0u8; LEN], usize::MAX).unwrap();
    assert!(stream.len() < 20_000);
    // The sink only counts: no output is stored anywhere. Chunks arrive as they are
    // produced, so there are at least LEN / 64 KiB of them.
    let (mut chunks, mut total, mut nonzero) = (0usize, 0usize, false);
    let d = inflate_exact(&stream, LEN as u64, None, false, |c| {
        assert!(c.len() <= MAX_CHUNK);
        chunks += 1;
        total += c.len();
        nonzero |= c.iter().any(|&b| b != 0);
    })
    .unwrap();
    assert_eq!((total, d.len), (LEN, LEN as u64));
    assert!(chunks >= LEN / MAX_CHUNK, "{chunks} chunks");
    assert!(!nonzero);
}

#[test]
fn inflate_piecewise_feeding_matches_whole() {
    let data = pseudorandom(200_000, 9);
    let stream = deflate(&data, usize::MAX).unwrap();
    let whole = inflate_exact(&stream, data.len() as u64, None, true, |_| {}).unwrap();
    for piece in [1, 5, 64, 65_536] {
        let (out, used, d) = inflate_in_pieces(&stream, OutputBound::Exact(data.len() as u64), piece).unwrap();
        assert!(out == data);
        assert_eq!(used, stream.len());
        assert_eq!((d.crc32, d.len), (whole.crc32, whole.len));
    }
}

/// A fixed block of the bytes 0 to `period` − 1, then `matches` matches of 258 bytes at
/// distance `period`: a run of that period (spec/inflate.md §2.7.1).
fn period_stream(period: u16, matches: usize) -> (Vec<u8>, Vec<u8>) {
    let mut bits = Bits::default();
    bits.fixed_header(true);
    for b in 0..period {
        bits.literal(b as u8);
    }
    for _ in 0..matches {
        bits.copy(258, period);
    }
    bits.end_of_block();
    let data: Vec<u8> = (0..period)
        .map(|b| b as u8)
        .cycle()
        .take(usize::from(period) + 258 * matches)
        .collect();
    (bits.finish(), data)
}

/// §2.7: runs of one period (1 to 258 bytes, and 259) long enough to fill the engine's
/// buffer many times decode to the data with its CRC-32. With the `fast-inflate` engine
/// (§2.7.1), once the window repeats one period throughout, the slide keeps the history
/// from a multiple of the period (chunks of 64 KiB less 64 KiB modulo the period); a
/// period over 258 bytes is not a run and slides 32 KiB before the window's end, as every
/// other window does. The default engine's ring hands out chunks of 64 KiB.
#[test]
fn inflate_runs_of_a_period_decode_as_the_data() {
    for period in [1u16, 2, 9, 33, 258, 259] {
        let (stream, data) = period_stream(period, 4_000);
        let mut inf = Inflater::new(OutputBound::Exact(data.len() as u64), false);
        let (mut out, mut lengths) = (Vec::new(), Vec::new());
        let mut pos = 0;
        loop {
            let (used, step) = inf.step(&stream[pos..], false).unwrap();
            pos += used;
            match step {
                Step::Output(chunk) => {
                    out.extend_from_slice(chunk);
                    lengths.push(chunk.len());
                }
                Step::NeedInput => unreachable!(),
                Step::Done => break,
            }
        }
        assert_eq!(inf.finish(Some(crc32(&data))).unwrap().len, data.len() as u64);
        assert!(out == data, "period {period}");
        let full = if period <= 258 && cfg!(feature = "fast-inflate") {
            MAX_CHUNK - MAX_CHUNK % usize::from(period)
        } else {
            MAX_CHUNK
        };
        // fast-inflate: the first chunk fills the window; the next slides 32 KiB before
        // its end, as the run does not start at the window's start; from then on the run
        // spans it.
        assert!(
            lengths[3..lengths.len() - 1].iter().all(|&n| n == full),
            "period {period}: {lengths:?}"
        );
    }
}

// ------------------------------------------------ §3 whole-slice helpers

#[test]
fn inflate_into_fills_callers_buffer() {
    let data = pseudorandom(100_000, 13);
    let stream = deflate(&data, usize::MAX).unwrap();
    let mut out = vec![0u8; data.len()];
    let d = inflate_into(&stream, &mut out, Some(crc32(&data)), true).unwrap();
    assert!(out == data);
    assert_eq!(d.sha256, Some(sha256(&data)));
}

#[test]
fn inflate_into_buffer_too_small_rejected() {
    let mut out = [0u8; 4];
    let e = inflate_into(&hello_stream(), &mut out, None, false).unwrap_err();
    assert_eq!(e, err(InflateReason::TooLong, 10));
}

#[test]
fn inflate_into_buffer_too_large_rejected() {
    let mut out = [0u8; 6];
    let e = inflate_into(&hello_stream(), &mut out, None, false).unwrap_err();
    assert_eq!(e, err(InflateReason::TooShort, 10));
}

#[test]
fn inflate_to_vec_round_trip() {
    let data = pseudorandom(70_000, 17);
    let stream = deflate(&data, usize::MAX).unwrap();
    let (out, d) = inflate_to_vec(&stream, 70_000, Some(crc32(&data)), false).unwrap();
    assert!(out == data);
    assert_eq!(out.capacity(), 70_000);
    assert_eq!(d.len, 70_000);
}

#[test]
fn inflate_to_vec_unallocatable_size_is_limit() {
    let e = inflate_to_vec(&hello_stream(), u64::MAX, None, false).unwrap_err();
    assert_eq!(e, err(InflateReason::LimitExceeded, 0));
}

// --------------------------------------------------------- §4 writer

#[test]
fn deflate_round_trips() {
    let cases: Vec<Vec<u8>> = vec![
        vec![],
        vec![42],
        pseudorandom(65_535, 1),
        pseudorandom(65_536, 2),
        pseudorandom(65_537, 3),
        vec![0u8; 1 << 20],
        pseudorandom(1 << 20, 4),
    ];
    for data in cases {
        let stream = deflate(&data, usize::MAX).unwrap();
        let mut got = Vec::new();
        let d = inflate_exact(&stream, data.len() as u64, Some(crc32(&data)), false, |c| {
            got.extend_from_slice(c)
        })
        .unwrap();
        assert!(got == data, "length {}", data.len());
        assert_eq!(d.len, data.len() as u64);
    }
}

#[test]
fn deflate_is_deterministic() {
    for data in [pseudorandom(300_000, 21), vec![0u8; 300_000], b"abcabc".repeat(50_000)] {
        let a = deflate(&data, usize::MAX).unwrap();
        let b = deflate(&data, usize::MAX).unwrap();
        assert_eq!(a, b);
        // The streaming writer gives the same bytes whatever pieces input arrives in.
        for piece in [1, 999, 65_536, 100_000] {
            let mut out = Vec::new();
            let mut w = Deflater::new(u64::MAX);
            let mut sink = |c: &[u8]| {
                out.extend_from_slice(c);
                Ok(())
            };
            let step = if piece == 1 { 1 } else { piece };
            for part in data.chunks(step).take(if piece == 1 { 5000 } else { usize::MAX }) {
                w.write(part, &mut sink).unwrap();
            }
            if piece == 1 {
                w.write(&data[5000..], &mut sink).unwrap();
            }
            w.finish(&mut sink).unwrap();
            assert!(out == a, "piece {piece}");
        }
    }
}

#[test]
fn deflate_golden_output() {
    // Pins the writer's parameters (§4.1): a change here changes every written file.
    assert_eq!(deflate(b"", 100).unwrap(), [0x03, 0x00]);
    assert_eq!(deflate(b"a", 100).unwrap(), [0x4b, 0x04, 0x00]);
    assert_eq!(
        deflate(b"hello hello hello hello", 100).unwrap(),
        [
            0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x57, 0xc8, 0x48, 0xcd, 0xc9, 0xc9, 0x57, 0xc8, 0x48, 0xcd, 0xc9, 0xc9, 0x57,
            0xc8, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00
        ]
    );
    let zeros = deflate(&[0u8; 1000], 100).unwrap();
    assert_eq!(
        zeros,
        [
            0xed, 0xc0, 0x01, 0x0d, 0x00, 0x00, 0x00, 0xc2, 0xa0, 0xf7, 0x4f, 0x6d, 0x0f, 0x07, 0x05, 0xbc, 0x1b
        ]
    );
}

#[test]
fn deflate_output_bound_enforced() {
    let data = pseudorandom(100_000, 23);
    let len = deflate(&data, usize::MAX).unwrap().len();
    assert_eq!(deflate(&data, len).unwrap().len(), len);
    assert_eq!(
        deflate(&data, len - 1),
        Err(DeflateError::OutputTooLarge {
            max_output: len as u64 - 1
        })
    );
    assert_eq!(deflate(&data, 0), Err(DeflateError::OutputTooLarge { max_output: 0 }));
}

#[test]
fn deflate_output_bound_checked_as_produced() {
    // With a small bound the sink never receives more than the bound.
    let data = pseudorandom(1 << 20, 29);
    let mut w = Deflater::new(40_000);
    let mut seen = 0usize;
    let mut sink = |c: &[u8]| {
        seen += c.len();
        Ok(())
    };
    let e = w.write(&data, &mut sink).unwrap_err();
    assert_eq!(e, DeflateError::OutputTooLarge { max_output: 40_000 });
    assert_eq!(w.finish(&mut sink), Err(e));
    assert!(seen <= 40_000);
}

// --------------------------------------------------------- §6 frame

fn frame_err(reason: InflateReason, offset: u64) -> FrameError {
    FrameError { reason, offset }
}

#[test]
fn frame_round_trip() {
    for data in [vec![], b"frame".to_vec(), pseudorandom(200_000, 31)] {
        let frame = write_frame(&data).unwrap();
        assert_eq!(frame[..8], (data.len() as u64).to_le_bytes());
        assert_eq!(frame[8..12], crc32(&data).to_le_bytes());
        let d = check_frame(&frame, 1 << 20).unwrap();
        assert_eq!((d.len, d.crc32), (data.len() as u64, crc32(&data)));
    }
}

#[test]
fn frame_shorter_than_header_truncated() {
    let frame = write_frame(b"x").unwrap();
    for len in 0..12 {
        let e = check_frame(&frame[..len], 100).unwrap_err();
        assert_eq!(e, frame_err(InflateReason::Truncated, len as u64));
        assert_eq!(e.kind(), "InvalidDeflate");
    }
}

#[test]
fn frame_declared_size_over_limit_rejected_before_inflating() {
    // The stream part is garbage: had it been decoded, the error would be Corrupt.
    let mut frame = 101u64.to_le_bytes().to_vec();
    frame.extend_from_slice(&[0; 4]);
    frame.push(0x07);
    let e = check_frame(&frame, 100).unwrap_err();
    assert_eq!(e, frame_err(InflateReason::DeclaredTooLarge, 0));
    assert_eq!(e.kind(), "LimitExceeded");
    assert_eq!(check_frame(&frame, 101).unwrap_err().reason, InflateReason::Corrupt);
}

#[test]
fn frame_offsets_are_absolute() {
    let mut frame = write_frame(b"hello").unwrap();
    let end = frame.len() as u64;
    frame.push(0);
    assert_eq!(
        check_frame(&frame, 100),
        Err(frame_err(InflateReason::TrailingData, end))
    );
    let mut frame = 0u64.to_le_bytes().to_vec();
    frame.extend_from_slice(&[0; 4]);
    frame.push(0x07);
    assert_eq!(check_frame(&frame, 100), Err(frame_err(InflateReason::Corrupt, 13)));
}

#[test]
fn frame_exact_size_rules() {
    let good = write_frame(b"hello").unwrap();
    let end = good.len() as u64;
    let mut long = good.clone();
    long[..8].copy_from_slice(&4u64.to_le_bytes());
    assert_eq!(check_frame(&long, 100).unwrap_err().reason, InflateReason::TooLong);
    let mut short = good.clone();
    short[..8].copy_from_slice(&6u64.to_le_bytes());
    assert_eq!(check_frame(&short, 100), Err(frame_err(InflateReason::TooShort, end)));
    let mut bad_crc = good.clone();
    bad_crc[8] ^= 0xff;
    let reason = InflateReason::CrcMismatch {
        expected: crc32(b"hello") ^ 0xff,
        actual: crc32(b"hello"),
    };
    assert_eq!(check_frame(&bad_crc, 100), Err(frame_err(reason, end)));
    assert_eq!(
        check_frame(&good[..good.len() - 1], 100).unwrap_err().reason,
        InflateReason::Truncated
    );
}

#[test]
fn frame_rejection_kind_message_and_location() {
    let e = frame_err(InflateReason::Corrupt, 13);
    let r = e.rejection();
    assert_eq!(r.kind, "InvalidDeflate");
    assert_eq!(r.message, "corrupt deflate data");
    assert_eq!(r.location, Location::at(13));
    let r = frame_err(InflateReason::DeclaredTooLarge, 0).rejection();
    assert_eq!((r.kind, r.location), ("LimitExceeded", Location::at(0)));
    assert_eq!(frame_err(InflateReason::LimitExceeded, 5).kind(), "LimitExceeded");
}

#[test]
fn inflate_messages_are_short_and_fixed() {
    let e = err(InflateReason::CrcMismatch { expected: 1, actual: 2 }, 7);
    assert_eq!(
        e.to_string(),
        "CRC-32 mismatch: declared 00000001, computed 00000002 at compressed byte 7"
    );
    assert_eq!(InflateReason::TrailingData.name(), "TrailingData");
}

// ------------------------------------------- §2.8 offsets and input splits

/// Runs the engine over `stream` cut into pseudorandom pieces of 1 to 40 bytes.
fn inflate_split(stream: &[u8], bound: OutputBound, rng: &mut Rng) -> Result<(usize, u64), InflateError> {
    let mut inf = Inflater::new(bound, false);
    let mut pos = 0;
    loop {
        let end = (pos + 1 + (rng.next_u64() % 40) as usize).min(stream.len());
        let (used, step) = inf.step(&stream[pos..end], end < stream.len())?;
        pos += used;
        if step == Step::Done {
            return Ok((pos, inf.finish(None)?.len));
        }
    }
}

fn inflate_whole(stream: &[u8], bound: OutputBound) -> Result<(usize, u64), InflateError> {
    let mut inf = Inflater::new(bound, false);
    let progress = inf.feed(stream, false, |_| {})?;
    Ok((progress.consumed, inf.finish(None)?.len))
}

#[test]
fn inflate_result_independent_of_input_split() {
    // Every reason and offset (§2.8) must not depend on how the input is cut:
    // bit-flipped variants of a Huffman stream, bounds at and around its true size,
    // and random byte strings.
    let text: Vec<u8> = (0..3000u32)
        .flat_map(|i| format!("w{} ", (i * 7) % 131).into_bytes())
        .collect();
    let base = deflate(&text, usize::MAX).unwrap();
    let len = text.len() as u64;
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    let mut reasons = std::collections::BTreeSet::new();
    for round in 0..1500 {
        let mut stream = base.clone();
        for _ in 0..rng.next_u64() % 3 {
            let i = (rng.next_u64() as usize) % stream.len();
            stream[i] ^= 1 << (rng.next_u64() % 8);
        }
        let bound = match round % 3 {
            0 => OutputBound::Exact(len - rng.next_u64() % 3),
            1 => OutputBound::AtMost(rng.next_u64() % (len + 10)),
            _ => OutputBound::Exact(len),
        };
        let whole = inflate_whole(&stream, bound);
        assert_eq!(whole, inflate_split(&stream, bound, &mut rng), "round {round}");
        reasons.insert(whole.map_or_else(|e| e.reason.name(), |_| "ok"));
    }
    for round in 0..3000 {
        let mut stream: Vec<u8> = (0..1 + rng.next_u64() % 200).map(|_| rng.next_u64() as u8).collect();
        stream[0] &= !4; // stored or fixed blocks: they get further than dynamic ones
        let bound = OutputBound::AtMost(rng.next_u64() % 500);
        let whole = inflate_whole(&stream, bound);
        assert_eq!(whole, inflate_split(&stream, bound, &mut rng), "random {round}");
    }
    for reason in ["ok", "Corrupt", "TooLong", "TooShort", "LimitExceeded"] {
        assert!(reasons.contains(reason), "{reason} not exercised: {reasons:?}");
    }
}

/// A run's error and the bytes it handed out before it.
type Outcome<E> = (E, Vec<u8>);

/// `stream` decoded with exact size `size` whole, then fed one byte at a time.
fn whole_and_bytewise(stream: &[u8], size: u64) -> (Outcome<InflateError>, Outcome<Option<InflateError>>) {
    let mut whole_out = Vec::new();
    let whole = inflate_exact(stream, size, None, false, |c| whole_out.extend_from_slice(c)).unwrap_err();
    let mut engine = Inflater::new(OutputBound::Exact(size), false);
    let mut bytes_out = Vec::new();
    let mut bytewise = None;
    for (i, b) in stream.iter().enumerate() {
        if let Err(e) = engine.feed(std::slice::from_ref(b), i + 1 < stream.len(), |c| {
            bytes_out.extend_from_slice(c)
        }) {
            bytewise = Some(e);
            break;
        }
    }
    ((whole, whole_out), (bytewise, bytes_out))
}

/// §2.8: output written before a failure reaches the caller before the error, whether the
/// stream arrives whole or one byte at a time.
#[test]
fn inflate_output_before_failure_handed_out_whatever_the_split() {
    // A non-final stored block holding "hello", then a block of reserved type 3.
    let stream = [0x00, 0x05, 0x00, 0xfa, 0xff, b'h', b'e', b'l', b'l', b'o', 0x07];
    let ((whole, whole_out), (bytewise, bytes_out)) = whole_and_bytewise(&stream, 100);
    assert_eq!(whole.reason, InflateReason::Corrupt);
    assert_eq!(bytewise, Some(whole));
    assert_eq!(whole_out, b"hello");
    assert_eq!(bytes_out, b"hello");
}

/// §2.8, §2.5: a stream that ends short of its exact size in the call that writes its last
/// bytes hands those bytes out before `TooShort`, as when the end arrives a byte later.
#[test]
fn inflate_output_before_too_short_handed_out_whatever_the_split() {
    let ((whole, whole_out), (bytewise, bytes_out)) = whole_and_bytewise(&stored(b"hello", true), 6);
    assert_eq!(whole, err(InflateReason::TooShort, 10));
    assert_eq!(bytewise, Some(whole));
    assert_eq!(whole_out, b"hello");
    assert_eq!(bytes_out, b"hello");
}
