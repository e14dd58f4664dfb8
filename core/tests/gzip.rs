//! Tests of gzip decoding (`spec/inflate.md` §5) and its corpus kinds (§7). Each
//! rule has a test named for it asserting the exact reason and absolute offset. Every
//! case goes through [`decode`], which also feeds the decoder one byte at a time and
//! requires the identical result.

use modelgate_core::Location;
use modelgate_core::gzip::{GzStep, GzipDecoder, GzipError, GzipReason, GzipSummary, gunzip, write_gzip};
use modelgate_core::inflate::{InflateReason, MAX_CHUNK, deflate};

use modelgate_core::digest::crc32;
use modelgate_corpus_gen::rng::{Rng, pseudorandom};

// ---------------------------------------------------------------- helpers

const FTEXT: u8 = 1;
const FHCRC: u8 = 2;
const FEXTRA: u8 = 4;
const FNAME: u8 = 8;
const FCOMMENT: u8 = 16;

/// The 10 fixed header bytes; optional fields are appended by the caller.
fn fixed_header(flg: u8, xfl: u8, os: u8) -> Vec<u8> {
    vec![0x1f, 0x8b, 8, flg, 0x78, 0x56, 0x34, 0x12, xfl, os]
}

/// Appends FHCRC: the low 16 bits of the CRC-32 of `header` so far.
fn with_hcrc(mut header: Vec<u8>) -> Vec<u8> {
    let crc16 = (crc32(&header) & 0xffff) as u16;
    header.extend_from_slice(&crc16.to_le_bytes());
    header
}

/// `header`, then the deflate stream of `data`, then its trailer.
fn member(header: Vec<u8>, data: &[u8]) -> Vec<u8> {
    let mut out = header;
    out.extend(deflate(data, usize::MAX).unwrap());
    out.extend_from_slice(&crc32(data).to_le_bytes());
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out
}

/// A member whose deflate stream is one stored block (predictable offsets).
fn stored_member(data: &[u8]) -> Vec<u8> {
    let mut out = fixed_header(0, 0, 3);
    let len = data.len() as u16;
    out.push(1);
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&(!len).to_le_bytes());
    out.extend_from_slice(data);
    out.extend_from_slice(&crc32(data).to_le_bytes());
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out
}

type Decoded = Result<(Vec<u8>, GzipSummary), GzipError>;

fn whole(input: &[u8], limit: u64) -> Decoded {
    let mut out = Vec::new();
    let summary = gunzip(input, limit, |c| {
        assert!(!c.is_empty() && c.len() <= MAX_CHUNK);
        out.extend_from_slice(c);
    })?;
    Ok((out, summary))
}

fn bytewise(input: &[u8], limit: u64) -> Decoded {
    let mut decoder = GzipDecoder::new(limit);
    let mut out = Vec::new();
    for i in 0..input.len() {
        let mut byte = &input[i..i + 1];
        loop {
            let (used, step) = decoder.step(byte)?;
            byte = &byte[used..];
            match step {
                GzStep::Output(c) => out.extend_from_slice(c),
                GzStep::NeedInput => {
                    assert!(byte.is_empty());
                    break;
                }
            }
        }
    }
    let summary = decoder.finish()?;
    Ok((out, summary))
}

/// Decodes `input` whole and one byte at a time; both must agree exactly.
fn decode(input: &[u8], limit: u64) -> Decoded {
    let a = whole(input, limit);
    let b = bytewise(input, limit);
    assert_eq!(a, b, "whole-slice and byte-at-a-time results differ");
    a
}

fn rejected(input: &[u8]) -> GzipError {
    decode(input, u64::MAX).unwrap_err()
}

fn gz_err(reason: GzipReason, offset: u64) -> GzipError {
    GzipError { reason, offset }
}

fn accepted(input: &[u8], expected: &[u8]) -> GzipSummary {
    let (out, summary) = decode(input, u64::MAX).unwrap();
    assert!(out == expected);
    assert_eq!(summary.output_len, expected.len() as u64);
    summary
}

// ------------------------------------------------- accepted members

#[test]
fn gzip_single_member_accepted() {
    let input = write_gzip(b"hello", 1000).unwrap();
    let s = accepted(&input, b"hello");
    let expected = GzipSummary {
        members: 1,
        output_len: 5,
        input_len: input.len() as u64,
        padding: 0,
    };
    assert_eq!(s, expected);
}

#[test]
fn gzip_writer_is_deterministic_with_fixed_header() {
    let data = pseudorandom(150_000, 3);
    let a = write_gzip(&data, usize::MAX).unwrap();
    assert_eq!(a, write_gzip(&data, usize::MAX).unwrap());
    assert_eq!(a[..10], [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255]);
    accepted(&a, &data);
    assert_eq!(
        write_gzip(b"", 100).unwrap(),
        [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    );
    assert!(write_gzip(b"", 19).is_err());
}

#[test]
fn gzip_empty_member_accepted() {
    accepted(&member(fixed_header(0, 0, 255), b""), b"");
}

// ------------------------------------------------ §5.1 fixed fields

#[test]
fn gzip_bad_magic_rejected() {
    let mut input = write_gzip(b"x", 100).unwrap();
    input[0] = 0x1e;
    assert_eq!(rejected(&input), gz_err(GzipReason::BadMagic, 0));
    input[0] = 0x1f;
    input[1] = 0x8c;
    assert_eq!(rejected(&input), gz_err(GzipReason::BadMagic, 1));
}

#[test]
fn gzip_method_not_deflate_rejected() {
    let mut input = write_gzip(b"x", 100).unwrap();
    input[2] = 7;
    assert_eq!(rejected(&input), gz_err(GzipReason::BadMethod(7), 2));
    assert_eq!(
        GzipReason::BadMethod(7).to_string(),
        "compression method 7 is not deflate (expected CM 8)"
    );
}

#[test]
fn gzip_reserved_flag_bits_rejected() {
    for bit in 5..8 {
        let input = member(fixed_header(1 << bit, 0, 3), b"x");
        assert_eq!(rejected(&input), gz_err(GzipReason::ReservedFlags, 3), "bit {bit}");
    }
}

#[test]
fn gzip_mtime_any_value_accepted() {
    let mut header = fixed_header(0, 0, 3);
    header[4..8].copy_from_slice(&[0xff; 4]);
    accepted(&member(header, b"t"), b"t");
}

#[test]
fn gzip_xfl_must_be_0_2_or_4() {
    for xfl in [0, 2, 4] {
        accepted(&member(fixed_header(0, xfl, 3), b"x"), b"x");
    }
    for xfl in [1, 3, 5, 8, 255] {
        let input = member(fixed_header(0, xfl, 3), b"x");
        assert_eq!(rejected(&input), gz_err(GzipReason::BadXfl(xfl), 8), "xfl {xfl}");
    }
    assert_eq!(
        GzipReason::BadXfl(1).to_string(),
        "invalid XFL value 1 (expected 0, 2 or 4)"
    );
}

#[test]
fn gzip_os_must_be_0_to_13_or_255() {
    for os in (0..=13).chain([255]) {
        accepted(&member(fixed_header(0, 0, os), b"x"), b"x");
    }
    for os in [14, 100, 254] {
        let input = member(fixed_header(0, 0, os), b"x");
        assert_eq!(rejected(&input), gz_err(GzipReason::BadOs(os), 9), "os {os}");
    }
    assert_eq!(
        GzipReason::BadOs(14).to_string(),
        "invalid OS value 14 (expected 0 to 13 or 255)"
    );
}

#[test]
fn gzip_ftext_allowed() {
    accepted(&member(fixed_header(FTEXT, 0, 3), b"text\n"), b"text\n");
}

// ------------------------------------------------------- §5.2 FEXTRA

/// FEXTRA header with the given XLEN and raw extra bytes.
fn extra_header(xlen: u16, extra: &[u8]) -> Vec<u8> {
    let mut h = fixed_header(FEXTRA, 0, 3);
    h.extend_from_slice(&xlen.to_le_bytes());
    h.extend_from_slice(extra);
    h
}

#[test]
fn gzip_fextra_subfields_tiling_xlen_accepted() {
    // (A, p, 3, "xyz") and (B, q, 0): 7 + 4 = 11 bytes.
    let extra = [b'A', b'p', 3, 0, b'x', b'y', b'z', b'B', b'q', 0, 0];
    accepted(&member(extra_header(11, &extra), b"e"), b"e");
}

#[test]
fn gzip_fextra_empty_accepted() {
    accepted(&member(extra_header(0, &[]), b"e"), b"e");
}

#[test]
fn gzip_fextra_subfield_overrunning_xlen_rejected() {
    // XLEN 6, but the subfield at offset 12 declares 3 data bytes (needs 7).
    let extra = [b'A', b'p', 3, 0, b'x', b'y', b'z'];
    let input = member(extra_header(6, &extra), b"e");
    assert_eq!(rejected(&input), gz_err(GzipReason::BadExtraField, 12));
}

#[test]
fn gzip_fextra_remainder_shorter_than_subfield_header_rejected() {
    for xlen in 1..4u16 {
        let input = member(extra_header(xlen, &[0; 3][..usize::from(xlen)]), b"e");
        assert_eq!(rejected(&input), gz_err(GzipReason::BadExtraField, 12), "xlen {xlen}");
    }
    // One complete empty subfield (4 bytes), then 1 byte left over at offset 16.
    let input = member(extra_header(5, &[b'A', b'p', 0, 0, 0]), b"e");
    assert_eq!(rejected(&input), gz_err(GzipReason::BadExtraField, 16));
}

#[test]
fn gzip_fextra_large_subfield_accepted() {
    let mut extra = vec![b'L', b'g'];
    extra.extend_from_slice(&65_531u16.to_le_bytes());
    extra.extend(std::iter::repeat_n(7u8, 65_531));
    accepted(&member(extra_header(65_535, &extra), b"big extra"), b"big extra");
}

// ------------------------------------------------ §5.3 FNAME, FCOMMENT

#[test]
fn gzip_fname_and_fcomment_accepted() {
    let mut header = fixed_header(FNAME | FCOMMENT, 0, 3);
    header.extend_from_slice(b"model.bin\0a comment \xff\x01\0");
    accepted(&member(header, b"named"), b"named");
}

#[test]
fn gzip_fname_of_any_length_accepted() {
    let mut header = fixed_header(FNAME, 0, 3);
    header.extend(std::iter::repeat_n(b'n', 1 << 20));
    header.push(0);
    let input = member(header, b"long name");
    let (out, _) = whole(&input, 100).unwrap();
    assert_eq!(out, b"long name");
}

#[test]
fn gzip_fname_unterminated_truncated() {
    let mut input = fixed_header(FNAME, 0, 3);
    input.extend_from_slice(b"no terminator");
    assert_eq!(rejected(&input), gz_err(GzipReason::Truncated, input.len() as u64));
}

// ------------------------------------------------------- §5.4 FHCRC

#[test]
fn gzip_fhcrc_correct_accepted() {
    let mut header = fixed_header(FHCRC | FEXTRA | FNAME | FCOMMENT, 2, 3);
    header.extend_from_slice(&[4, 0, b'S', b'i', 0, 0]);
    header.extend_from_slice(b"n\0c\0");
    accepted(&member(with_hcrc(header), b"crc16"), b"crc16");
}

#[test]
fn gzip_fhcrc_wrong_rejected() {
    let mut header = fixed_header(FHCRC | FNAME, 0, 3);
    header.extend_from_slice(b"a\0");
    let good = with_hcrc(header);
    let actual = u16::from_le_bytes([good[12], good[13]]);
    let mut bad = good.clone();
    bad[13] ^= 0x40;
    let expected = u16::from_le_bytes([bad[12], bad[13]]);
    let input = member(bad, b"x");
    let reason = GzipReason::HeaderCrcMismatch { expected, actual };
    assert_eq!(rejected(&input), gz_err(reason, 12));
}

// ------------------------------------------------- §5.5 deflate data

#[test]
fn gzip_corrupt_deflate_offset_is_absolute() {
    let first = write_gzip(b"first", 100).unwrap();
    let mut input = first.clone();
    input.extend(fixed_header(0, 0, 3));
    input.extend_from_slice(&[0x07, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    let at = first.len() as u64 + 10 + 1;
    assert_eq!(
        rejected(&input),
        gz_err(GzipReason::Deflate(InflateReason::Corrupt), at)
    );
}

// --------------------------------------------------- §5.6 trailer

#[test]
fn gzip_crc_mismatch_rejected() {
    let mut input = write_gzip(b"payload", 100).unwrap();
    let trailer = input.len() - 8;
    input[trailer] ^= 1;
    let reason = GzipReason::CrcMismatch {
        expected: crc32(b"payload") ^ 1,
        actual: crc32(b"payload"),
    };
    assert_eq!(rejected(&input), gz_err(reason, trailer as u64));
}

#[test]
fn gzip_isize_mismatch_rejected() {
    let mut input = write_gzip(b"payload", 100).unwrap();
    let isize_at = input.len() - 4;
    input[isize_at] = 8;
    let reason = GzipReason::SizeMismatch { expected: 8, actual: 7 };
    assert_eq!(rejected(&input), gz_err(reason, isize_at as u64));
}

// ------------------------------------------------ §5.7 several members

#[test]
fn gzip_two_members_concatenated() {
    let mut input = write_gzip(b"one,", 100).unwrap();
    let mut second = fixed_header(FNAME, 4, 0);
    second.extend_from_slice(b"two\0");
    input.extend(member(second, b"two"));
    let s = accepted(&input, b"one,two");
    assert_eq!((s.members, s.padding), (2, 0));
}

// ------------------------------------------- §5.8 after the last member

#[test]
fn gzip_zero_padding_after_member_accepted() {
    let mut input = write_gzip(b"padded", 100).unwrap();
    input.extend_from_slice(&[0; 1024]);
    let s = accepted(&input, b"padded");
    assert_eq!((s.members, s.padding, s.input_len), (1, 1024, input.len() as u64));
}

#[test]
fn gzip_garbage_after_member_rejected() {
    let mut input = write_gzip(b"x", 100).unwrap();
    let end = input.len() as u64;
    input.push(0x42);
    assert_eq!(rejected(&input), gz_err(GzipReason::TrailingGarbage, end));
}

#[test]
fn gzip_garbage_after_zero_padding_rejected() {
    let mut input = write_gzip(b"x", 100).unwrap();
    let end = input.len() as u64;
    input.extend_from_slice(&[0, 0, 0x42, 0]);
    assert_eq!(rejected(&input), gz_err(GzipReason::TrailingGarbage, end + 2));
}

#[test]
fn gzip_member_after_zero_padding_rejected() {
    let mut input = write_gzip(b"x", 100).unwrap();
    let end = input.len() as u64;
    input.push(0);
    input.extend(write_gzip(b"y", 100).unwrap());
    assert_eq!(rejected(&input), gz_err(GzipReason::TrailingGarbage, end + 1));
}

#[test]
fn gzip_partial_second_header_rejected() {
    let first = write_gzip(b"x", 100).unwrap();
    let end = first.len() as u64;
    for tail in [&[0x1f][..], &[0x1f, 0x8b], &[0x1f, 0x8b, 8, 0, 0]] {
        let mut input = first.clone();
        input.extend_from_slice(tail);
        let at = input.len() as u64;
        assert_eq!(rejected(&input), gz_err(GzipReason::Truncated, at));
    }
    let mut input = first.clone();
    input.extend_from_slice(&[0x1f, 0x00]);
    assert_eq!(rejected(&input), gz_err(GzipReason::BadMagic, end + 1));
}

// --------------------------------------------------- §5.9 no member

#[test]
fn gzip_empty_input_has_no_member() {
    assert_eq!(rejected(&[]), gz_err(GzipReason::NoMember, 0));
}

/// §5.9: a zero byte at the start is a wrong magic, decided at that byte: a decoder fed only
/// the first byte of an all-zero input already rejects it.
#[test]
fn gzip_only_zeros_rejected_at_the_first_byte() {
    assert_eq!(rejected(&[0; 100]), gz_err(GzipReason::BadMagic, 0));
    let mut d = modelgate_core::gzip::GzipDecoder::new(u64::MAX);
    let e = d.step(&[0]).unwrap_err();
    assert_eq!((e.reason, e.offset), (GzipReason::BadMagic, 0));
}

#[test]
fn gzip_leading_zeros_before_member_rejected() {
    let mut input = vec![0, 0];
    input.extend(write_gzip(b"x", 100).unwrap());
    assert_eq!(rejected(&input), gz_err(GzipReason::BadMagic, 0));
}

// --------------------------------------------------- §5.10 truncation

#[test]
fn gzip_every_truncation_point_reported_at_end() {
    let mut header = fixed_header(FHCRC | FEXTRA | FNAME | FCOMMENT, 0, 3);
    header.extend_from_slice(&[6, 0, b'S', b'i', 2, 0, 1, 2]);
    header.extend_from_slice(b"name\0comment\0");
    let input = member(with_hcrc(header), &pseudorandom(3000, 5));
    for cut in 1..input.len() {
        let e = rejected(&input[..cut]);
        assert_eq!(e, gz_err(GzipReason::Truncated, cut as u64), "cut {cut}");
    }
}

// -------------------------------------------------------- §5.11 limit

#[test]
fn gzip_limit_exceeded_rejected() {
    let input = stored_member(&[9; 100]);
    // Deflate data starts at 10; the stored block's 5-byte header and all 100
    // bytes (the limit of 99 plus the lookahead byte) are consumed: 10 + 105.
    assert_eq!(decode(&input, 99).unwrap_err(), gz_err(GzipReason::LimitExceeded, 115));
    assert_eq!(decode(&input, 100).unwrap().0, [9; 100]);
}

#[test]
fn gzip_limit_is_over_total_output() {
    let mut input = stored_member(&[1; 60]);
    input.extend(stored_member(&[2; 60]));
    let second = stored_member(&[1; 60]).len() as u64;
    let e = decode(&input, 119).unwrap_err();
    assert_eq!(e, gz_err(GzipReason::LimitExceeded, second + 10 + 5 + 60));
    assert_eq!(decode(&input, 120).unwrap().1.output_len, 120);
}

#[test]
fn gzip_chunks_never_exceed_64k() {
    let data = pseudorandom(1 << 20, 8);
    let input = write_gzip(&data, usize::MAX).unwrap();
    let (out, _) = whole(&input, u64::MAX).unwrap(); // asserts chunk sizes
    assert!(out == data);
}

#[test]
fn gzip_streams_ten_mib_without_buffering() {
    const LEN: usize = 10 << 20;
    let input = write_gzip(&vec![0u8; LEN], usize::MAX).unwrap();
    let (mut chunks, mut total) = (0usize, 0usize);
    let s = gunzip(&input, LEN as u64, |c| {
        assert!(c.len() <= MAX_CHUNK);
        chunks += 1;
        total += c.len();
    })
    .unwrap();
    assert_eq!((total, s.output_len), (LEN, LEN as u64));
    assert!(chunks >= LEN / MAX_CHUNK);
}

// -------------------------------------------------- pieces and errors

#[test]
fn gzip_one_byte_feeding_matches_whole() {
    let big = pseudorandom(300_000, 12);
    let mut input = write_gzip(&big, usize::MAX).unwrap();
    let mut second = fixed_header(FHCRC | FEXTRA | FNAME, 4, 11);
    second.extend_from_slice(&[4, 0, b'a', b'b', 0, 0, b'f', 0]);
    input.extend(member(with_hcrc(second), b"tail"));
    input.extend_from_slice(&[0; 33]);
    let mut expected = big.clone();
    expected.extend_from_slice(b"tail");
    let s = accepted(&input, &expected); // `decode` compares both ways
    assert_eq!((s.members, s.padding), (2, 33));
    for piece in [2, 3, 1000, 65_536] {
        let mut decoder = GzipDecoder::new(u64::MAX);
        let mut out = Vec::new();
        for part in input.chunks(piece) {
            decoder.feed(part, |c| out.extend_from_slice(c)).unwrap();
        }
        assert_eq!(decoder.finish().unwrap(), s);
        assert!(out == expected);
    }
}

#[test]
fn gzip_error_is_sticky() {
    let mut decoder = GzipDecoder::new(100);
    let e = decoder.feed(&[0x1f, 0x8b, 9], |_| {}).unwrap_err();
    assert_eq!(e, gz_err(GzipReason::BadMethod(9), 2));
    assert_eq!(decoder.feed(&[0], |_| {}), Err(e));
    assert_eq!(decoder.finish(), Err(e));
}

// ------------------------------------------------------- §7 kinds

#[test]
fn gzip_rejection_kind_message_and_location() {
    let r = gz_err(GzipReason::BadMagic, 0).rejection();
    assert_eq!(r.kind, "InvalidGzip");
    assert_eq!(r.message, "not a gzip member (bad magic)");
    assert_eq!(r.location, Location::at(0));
    let r = gz_err(GzipReason::LimitExceeded, 115).rejection();
    assert_eq!((r.kind, r.location), ("LimitExceeded", Location::at(115)));
    assert_eq!(
        gz_err(GzipReason::Deflate(InflateReason::Corrupt), 3).kind(),
        "InvalidGzip"
    );
    assert_eq!(gz_err(GzipReason::Truncated, 3).kind(), "InvalidGzip");
    assert_eq!(gz_err(GzipReason::NoMember, 0).kind(), "InvalidGzip");
}

// --------------------------------------------------- input splits

#[test]
fn gzip_result_independent_of_input_split() {
    // Mutated multi-member inputs under random limits: whole-slice decoding and
    // decoding in pseudorandom pieces agree exactly (reason, offset, output).
    let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
    let mut next = || rng.next_u64();
    let text: Vec<u8> = (0..2000u32)
        .flat_map(|i| format!("line {} ", (i * 13) % 97).into_bytes())
        .collect();
    let mut base = write_gzip(&text, usize::MAX).unwrap();
    let mut header = fixed_header(FNAME | FHCRC, 2, 3);
    header.extend_from_slice(b"n\0");
    base.extend(member(with_hcrc(header), &text[..500]));
    base.extend_from_slice(&[0; 4]);
    let mut limit_hits = 0;
    for round in 0..600 {
        let mut input = base.clone();
        for _ in 0..next() % 3 {
            let i = (next() as usize) % input.len();
            match next() % 3 {
                0 => input[i] ^= 1 << (next() % 8),
                1 => input[i] = next() as u8,
                _ => input.truncate(i.max(1)),
            }
        }
        let limit = if round % 2 == 0 { u64::MAX } else { next() % 25_000 };
        let expected = whole(&input, limit);
        limit_hits += usize::from(matches!(
            expected,
            Err(GzipError {
                reason: GzipReason::LimitExceeded,
                ..
            })
        ));
        let mut decoder = GzipDecoder::new(limit);
        let mut out = Vec::new();
        let mut pos = 0;
        let split = loop {
            if pos == input.len() {
                break decoder.finish().map(|s| (std::mem::take(&mut out), s));
            }
            let end = (pos + 1 + (next() % 64) as usize).min(input.len());
            if let Err(e) = decoder.feed(&input[pos..end], |c| out.extend_from_slice(c)) {
                break Err(e);
            }
            pos = end;
        };
        assert_eq!(expected, split, "round {round}");
    }
    assert!(limit_hits > 50, "{limit_hits} limit hits");
}

/// §5.12, §2.8: a deflate failure found in the step that handed out the last output is
/// what `finish` reports, as `gunzip` does, when the caller ends the input right after
/// that output instead of calling `step` again.
#[test]
fn gzip_finish_reports_failure_pending_after_last_output() {
    // A non-final stored block holding "hello", then a block of reserved type 3.
    let mut input = fixed_header(0, 0, 255);
    input.extend_from_slice(&[0x00, 0x05, 0x00, 0xfa, 0xff, b'h', b'e', b'l', b'l', b'o', 0x07]);
    let whole = gunzip(&input, 1 << 20, |_| {}).unwrap_err();
    assert_eq!(whole, gz_err(GzipReason::Deflate(InflateReason::Corrupt), 21));
    let mut d = GzipDecoder::new(1 << 20);
    let (used, step) = d.step(&input).unwrap();
    assert_eq!((used, step), (input.len(), GzStep::Output(&b"hello"[..])));
    assert_eq!(d.finish(), Err(whole));
}
