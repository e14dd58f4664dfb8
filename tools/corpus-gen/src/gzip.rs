//! `hostile-corpus/gzip/`: one file per rule of `spec/inflate.md` §5 (RFC 1952 headers,
//! trailers, members, padding, truncation, the output limit) and the engine rules of §2 as
//! gzip meets them, each named for the rule and carrying the exact outcome (`valid`, or
//! the reason and absolute byte offset) that the tests below assert through
//! `modelgate_core::gzip::gunzip`.

use crate::deflate::{SHORT, Stream, crc32, distance_symbol, long_text, multi_block, ring_wrap, written};
use crate::{CorpusFile, Expect, Kind};
use Expect::{Reject, Valid};
use modelgate_core::digest::ChunkDigest;
use modelgate_core::gzip::{GzipError, GzipReason, GzipReason as R, gunzip, write_gzip};
use modelgate_core::inflate::InflateReason as I;
use std::sync::OnceLock;

/// Largest total output `modelgate check` accepts for a `.gz` file (256 MiB).
pub const LIMIT: u64 = 256 * 1024 * 1024;

/// The outcome the library gives for `bytes` as `modelgate check` checks a `.gz` file.
pub fn outcome(bytes: &[u8]) -> Expect<GzipReason> {
    match gunzip(bytes, LIMIT, |_| {}) {
        Ok(_) => Valid,
        Err(e) => Reject(e.reason, e.offset),
    }
}

// ------------------------------------------------------------------------ builders

const FTEXT: u8 = 1;
const FHCRC: u8 = 2;
const FEXTRA: u8 = 4;
const FNAME: u8 = 8;
const FCOMMENT: u8 = 16;

/// The member payload most cases use.
const TEXT: &[u8] = b"modelgate hostile corpus: one gzip member\n";

/// The ten fixed header bytes: ID1 ID2 CM FLG MTIME XFL OS (RFC 1952 §2.3).
fn fixed(flg: u8, mtime: u32, xfl: u8, os: u8) -> Vec<u8> {
    let mut h = vec![0x1f, 0x8b, 8, flg];
    h.extend_from_slice(&mtime.to_le_bytes());
    h.extend_from_slice(&[xfl, os]);
    h
}

/// Fixed fields with `flg`, then the optional fields `optional` as given.
fn header(flg: u8, optional: &[u8]) -> Vec<u8> {
    let mut h = fixed(flg, 0, 0, 255);
    h.extend_from_slice(optional);
    h
}

/// `h` followed by its FHCRC, the low 16 bits of the CRC-32 of `h` (§5.4).
fn with_hcrc(mut h: Vec<u8>) -> Vec<u8> {
    let crc = hcrc(&h);
    h.extend_from_slice(&crc.to_le_bytes());
    h
}

/// The FHCRC value for header bytes `h`: the low 16 bits of their CRC-32 (§5.4).
fn hcrc(h: &[u8]) -> u16 {
    u16::try_from(crc32(h) & 0xffff).expect("masked")
}

/// Fixed fields with FHCRC set, before the FHCRC field.
fn flagged_fhcrc() -> Vec<u8> {
    header(FHCRC, b"")
}

/// Fixed fields with FHCRC and FNAME set, and the name `n`, before the FHCRC field.
fn named() -> Vec<u8> {
    header(FHCRC | FNAME, b"n\0")
}

/// The writer's member for `data` (`spec/inflate.md` §5.13).
fn plain(data: &[u8]) -> Vec<u8> {
    write_gzip(data, usize::MAX).expect("the writer has no bound here")
}

/// A member with header `h`, then the writer's deflate stream and trailer for `data`.
fn member(h: &[u8], data: &[u8]) -> Vec<u8> {
    let mut m = h.to_vec();
    m.extend_from_slice(&plain(data)[10..]);
    m
}

/// A member with the writer's header around `stream`, whose output is `out`.
fn member_of(stream: &[u8], out: &[u8]) -> Vec<u8> {
    let mut m = fixed(0, 0, 0, 255);
    m.extend_from_slice(stream);
    m.extend_from_slice(&crc32(out).to_le_bytes());
    m.extend_from_slice(&u32::try_from(out.len()).expect("small").to_le_bytes());
    m
}

/// A member of the hand-assembled stream `s`.
fn member_stream(s: Stream) -> Vec<u8> {
    let out = s.out.clone();
    member_of(&s.finish(), &out)
}

/// Concatenation.
fn cat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

/// `bytes` with `edit` applied.
fn edit(mut bytes: Vec<u8>, f: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    f(&mut bytes);
    bytes
}

/// `bytes` with the low bit of the byte `back` bytes before the end flipped.
fn flip_back(mut bytes: Vec<u8>, back: usize) -> Vec<u8> {
    let i = bytes.len() - back;
    bytes[i] ^= 1;
    bytes
}

/// `W`: the writer's member for `TEXT`.
fn w() -> Vec<u8> {
    plain(TEXT)
}

/// Length of `W`.
fn wl() -> u64 {
    w().len() as u64
}

/// Offset of `W`'s trailer.
fn wt() -> u64 {
    wl() - 8
}

/// Runs of one byte long enough to fill and slide the inflate window (`spec/inflate.md`
/// §2.7.1), broken by a literal and by a run of another byte.
fn runs() -> Vec<u8> {
    let mut out = vec![0u8; 300_000];
    out.push(b'X');
    out.extend(std::iter::repeat_n(0u8, 100_000));
    out.extend(std::iter::repeat_n(0xFFu8, 200_000));
    out
}

/// A run of period 9 in a fixed block, then a dynamic block in whose codes the 15 bits
/// after a match of 258 at distance 9 are the fixed block's bits for that match, but
/// decode as a match at distance 11, three literals and the start of the next match
/// (`spec/inflate.md` §2.7.1: the same bits are the same match only within one block).
fn run_bits_of_another_block() -> Stream {
    let mut s = Stream::new();
    s.fixed(false);
    for b in 0..9 {
        s.literal(b);
    }
    for _ in 0..3 {
        s.copy(258, 9);
    }
    s.end_block();
    // `A` in 1 bit, `B` in 2, the length 258 (symbol 285) in 3 (110), `C` and the end of
    // block in 4; one distance code, symbol 6 (9 to 12, two extra bits), in 1 bit.
    let mut lit = vec![0u8; 286];
    lit[usize::from(b'A')] = 1;
    lit[usize::from(b'B')] = 2;
    lit[285] = 3;
    lit[usize::from(b'C')] = 4;
    lit[256] = 4;
    let mut dist = vec![0u8; 7];
    dist[6] = 1;
    s.dynamic(true, &lit, &dist);
    s.copy(258, 9);
    // 110 0 01, 0, 10, 0, 110 0 0: the fixed code's 11000101 00110 00 for (258, 9).
    s.copy(258, 11);
    for b in *b"ABA" {
        s.literal(b);
    }
    s.copy(258, 9);
    // Enough input after it for the fast loop, which hands runs over.
    for _ in 0..200 {
        s.literal(b'C');
    }
    s.end_block();
    s
}

/// A fixed block whose first symbol is a match of distance 1: reaches before the start.
fn distance_before_start() -> Vec<u8> {
    let mut s = Stream::new();
    s.fixed(true);
    s.copy(3, 1);
    s.end_block();
    s.finish()
}

/// Compressed offset at which `distance_before_start` fails: the 3 header bits, the
/// 7-bit length code and the 5-bit distance code end in its second byte.
const DISTANCE_BEFORE_START_AT: u64 = 2;

/// A member whose output passes 64 KiB, so the engine's ring wraps.
fn ring_wrapping_member() -> Vec<u8> {
    plain(&vec![b'z'; 70_000])
}

/// A decompression bomb member: `period` literals (the bytes 0, 1, …) and then 258 ×
/// `MATCHES` bytes that repeat them, about 128 MiB, from a dynamic block of matches of
/// length 258 and distance `period` in two bits plus the distance's extra bits, the
/// densest deflate allows (RFC 1951: a match needs at least one bit of length code and
/// one of distance code). Period 1 is a run of zero bytes; period 2 makes every match a
/// copy of two bytes repeated.
struct Bomb {
    member: Vec<u8>,
    /// Bytes of the member (header included) up to the end of the last match.
    through_last_match: u64,
}

/// Matches per bomb member: the smallest count that makes two members exceed 256 MiB.
const MATCHES: u64 = 520_224;

/// The periods of the corpus's bombs: a run of zero bytes, then the shapes that were the
/// slowest to decode as each copy of `spec/inflate.md` §8.8 landed (README "Benchmarks").
const BOMB_PERIODS: [u8; 4] = [1, 2, 9, 33];

// For every period: each member alone is under the limit and two are over it; one match
// fewer per member would not be; the second member's excess byte comes from its last match.
const _: () = {
    let mut i = 0;
    while i < BOMB_PERIODS.len() {
        let period = BOMB_PERIODS[i] as u64;
        let one = period + 258 * MATCHES;
        assert!(one < LIMIT && 2 * one > LIMIT);
        assert!(2 * (period + 258 * (MATCHES - 1)) <= LIMIT);
        assert!(one + period + 258 * (MATCHES - 1) <= LIMIT);
        i += 1;
    }
};

/// The bomb member of `period` (the bytes 0 to `period` − 1 in turn), one of [`BOMB_PERIODS`],
/// built once.
fn bomb(period: u8) -> &'static Bomb {
    static BOMBS: [OnceLock<Bomb>; BOMB_PERIODS.len()] = [const { OnceLock::new() }; BOMB_PERIODS.len()];
    let i = BOMB_PERIODS.iter().position(|&p| p == period).expect("a bomb period");
    BOMBS[i].get_or_init(|| bomb_of_period(period))
}

/// Two bomb members of `period`: over the limit together.
fn two_bombs(period: u8) -> Vec<u8> {
    cat(&[&bomb(period).member, &bomb(period).member])
}

/// Where [`two_bombs`] passes the limit: the second member's last match.
fn two_bombs_excess_at(period: u8) -> u64 {
    bomb(period).member.len() as u64 + bomb(period).through_last_match
}

/// Code lengths of a bomb of `period`: the length 258 (symbol 285) in one bit; the
/// `period` literals 0 to `period` − 1 and the end of block, n symbols, filling the other
/// half of a complete code (with 2^m ≥ n > 2^(m−1): 2^m − n of them in m bits and the
/// rest in m + 1); one distance code of one bit, for the distance `period`.
fn bomb_codes(period: u8) -> (Vec<u8>, Vec<u8>) {
    let mut lit = vec![0u8; 286];
    lit[285] = 1;
    let n = usize::from(period) + 1;
    let m = n.next_power_of_two().trailing_zeros();
    let short = n.next_power_of_two() - n;
    // The literals 0 .. period - 1, then the end of block.
    for i in 0..n {
        let symbol = if i + 1 == n { 256 } else { i };
        let bits = if i < short { m } else { m + 1 };
        lit[symbol] = u8::try_from(bits).expect("small");
    }
    let (dist_symbol, _, _) = distance_symbol(u16::from(period));
    let mut dist = vec![0u8; dist_symbol + 1];
    dist[dist_symbol] = 1;
    (lit, dist)
}

fn bomb_of_period(period: u8) -> Bomb {
    let mut s = Stream::untracked();
    let (lit, dist) = bomb_codes(period);
    s.dynamic(true, &lit, &dist);
    for b in 0..period {
        s.literal(b);
    }
    for _ in 0..MATCHES {
        s.copy(258, u16::from(period));
    }
    let through_last_match = 10 + s.bits.bytes_so_far();
    s.end_block();
    let len = s.out_len;
    let mut crc = ChunkDigest::crc_only();
    // About 1 MiB, a whole number of periods, so every piece starts with the byte 0.
    let piece_len = (1u32 << 20) / u32::from(period) * u32::from(period);
    let piece: Vec<u8> = (0..piece_len).map(|i| (i % u32::from(period)) as u8).collect();
    let mut left = len;
    while left > 0 {
        let n = left.min(piece.len() as u64);
        crc.update(&piece[..usize::try_from(n).expect("small")]);
        left -= n;
    }
    let mut member = fixed(0, 0, 0, 255);
    member.extend_from_slice(&s.finish());
    member.extend_from_slice(&crc.crc32().to_le_bytes());
    member.extend_from_slice(&u32::try_from(len & 0xffff_ffff).expect("masked").to_le_bytes());
    Bomb {
        member,
        through_last_match,
    }
}

cases! {
    expect: Expect<GzipReason>;
    ext: "gz";
    check: |case| assert_eq!(outcome(&case.bytes), case.expect);
    // §5.13, §5.1: the writer's member; any MTIME, every allowed XFL, OS and FTEXT.
    one_member: w() => Valid;
    empty_member: plain(b"") => Valid;
    ftext_flag_no_effect: member(&fixed(FTEXT, 0, 0, 3), TEXT) => Valid;
    mtime_any_xfl_2_os_0: member(&fixed(0, u32::MAX, 2, 0), TEXT) => Valid;
    xfl_4_os_13: member(&fixed(0, 0x5eed_1952, 4, 13), TEXT) => Valid;
    // §5.2 FEXTRA: XLEN 0; subfields that tile XLEN exactly, SI2 = 0 included.
    extra_field_xlen_0: member(&header(FEXTRA, &[0, 0]), TEXT) => Valid;
    extra_field_subfields_tile_xlen: member(&header(FEXTRA, b"\x0b\x00AB\x03\x00xyzC\x00\x00\x00"), TEXT) => Valid;
    // §5.3 FNAME and FCOMMENT: any non-zero bytes, zero-terminated.
    file_name: member(&header(FNAME, b"model.bin\0"), TEXT) => Valid;
    comment_any_bytes: member(&header(FCOMMENT, b"\xff\xfe comment \x01\x7f\0"), TEXT) => Valid;
    // §5.4 FHCRC over every header byte before it.
    header_crc: member(&with_hcrc(header(FHCRC, b"")), TEXT) => Valid;
    header_crc_all_fields: member(
        &with_hcrc(header(FTEXT | FHCRC | FEXTRA | FNAME | FCOMMENT, b"\x04\x00XY\x00\x00name\0comment\0")),
        TEXT,
    ) => Valid;
    // §2 through gzip: stored, fixed and dynamic blocks; an output that wraps the ring.
    blocks_stored_fixed_dynamic: member_stream(multi_block()) => Valid;
    dynamic_block_member: plain(&long_text()) => Valid;
    ring_wrap_long_distances: member_stream(ring_wrap()) => Valid;
    // §2.7.1: the bits of a run's match are read in the codes of its own block.
    run_match_bits_of_another_block: member_stream(run_bits_of_another_block()) => Valid;
    // §5.7 several members; §5.8 zero padding.
    two_members: cat(&[&w(), &plain(SHORT)]) => Valid;
    zero_padding: cat(&[&w(), &[0; 512]]) => Valid;
    two_members_then_zero_padding: cat(&[&w(), &plain(b""), &[0; 3]]) => Valid;
    second_member_after_ring_wrap: cat(&[&ring_wrapping_member(), &w()]) => Valid;

    // §5.9 no member.
    empty_input: b"".as_slice() => Reject(R::NoMember, 0);
    only_zeros: [0u8; 512].as_slice() => Reject(R::BadMagic, 0);
    zeros_then_member: cat(&[&[0; 4], &w()]) => Reject(R::BadMagic, 0);
    // §5.1 fixed fields.
    bad_id1: edit(w(), |b| b[0] = 0x1e) => Reject(R::BadMagic, 0);
    bad_id2: edit(w(), |b| b[1] = 0x8c) => Reject(R::BadMagic, 1);
    zlib_stream: cat(&[&[0x78, 0x9c], &written(TEXT)]) => Reject(R::BadMagic, 0);
    method_7: edit(w(), |b| b[2] = 7) => Reject(R::BadMethod(7), 2);
    reserved_flag_bit_5: edit(w(), |b| b[3] = 0x20) => Reject(R::ReservedFlags, 3);
    reserved_flag_bit_7: member(&header(0x80 | FNAME, b"x\0"), TEXT) => Reject(R::ReservedFlags, 3);
    xfl_1: edit(w(), |b| b[8] = 1) => Reject(R::BadXfl(1), 8);
    os_14: edit(w(), |b| b[9] = 14) => Reject(R::BadOs(14), 9);
    os_254: edit(w(), |b| b[9] = 254) => Reject(R::BadOs(254), 9);
    // §5.2 FEXTRA subfields must tile XLEN: a subfield overrunning it, leftover bytes
    // too short for a subfield header, and input ending inside the field.
    // Offsets: the subfield's SI1 byte (XLEN is at 10 and 11).
    extra_subfield_longer_than_xlen: member(&header(FEXTRA, b"\x06\x00AB\x03\x00xyz"), TEXT)
        => Reject(R::BadExtraField, 12);
    extra_xlen_leftover_too_short: member(&header(FEXTRA, b"\x06\x00AB\x00\x00zz"), TEXT)
        => Reject(R::BadExtraField, 16);
    extra_xlen_too_short_for_any_subfield: member(&header(FEXTRA, b"\x03\x00AB\x00"), TEXT)
        => Reject(R::BadExtraField, 12);
    extra_field_truncated: header(FEXTRA, b"\x0a\x00AB\x06\x00xyz") => Reject(R::Truncated, 19);
    // §5.3, §5.10: unterminated FNAME and FCOMMENT.
    file_name_unterminated: header(FNAME, b"model.bin") => Reject(R::Truncated, 19);
    comment_unterminated: header(FNAME | FCOMMENT, b"n\0comment") => Reject(R::Truncated, 19);
    // §5.4 FHCRC.
    header_crc_wrong: member(&cat(&[&flagged_fhcrc(), &(hcrc(&flagged_fhcrc()) ^ 1).to_le_bytes()]), TEXT)
        => Reject(R::HeaderCrcMismatch { expected: hcrc(&flagged_fhcrc()) ^ 1, actual: hcrc(&flagged_fhcrc()) }, 10);
    // The CRC of the ten fixed bytes only, as if FNAME were not covered.
    header_crc_over_fixed_fields_only: member(&cat(&[&named(), &hcrc(&named()[..10]).to_le_bytes()]), TEXT)
        => Reject(R::HeaderCrcMismatch { expected: hcrc(&named()[..10]), actual: hcrc(&named()) }, 12);
    header_crc_truncated: with_hcrc(header(FHCRC, b""))[..11].to_vec() => Reject(R::Truncated, 11);
    // §5.5 invalid deflate data inside a member.
    deflate_block_type_3: cat(&[&header(0, b""), &[0x07, 0, 0, 0, 0, 0, 0, 0, 0, 0]])
        => Reject(R::Deflate(I::Corrupt), 11);
    deflate_distance_before_start: member_of(&distance_before_start(), b"")
        => Reject(R::Deflate(I::Corrupt), 10 + DISTANCE_BEFORE_START_AT);
    // §2.2, §8.5: a second member may not reach into the first member's output, even
    // after the ring has wrapped.
    second_member_distance_into_first: cat(&[&w(), &member_of(&distance_before_start(), b"")])
        => Reject(R::Deflate(I::Corrupt), wl() + 10 + DISTANCE_BEFORE_START_AT);
    second_member_after_ring_wrap_distance_into_first:
        cat(&[&ring_wrapping_member(), &member_of(&distance_before_start(), b"")])
        => Reject(R::Deflate(I::Corrupt), ring_wrapping_member().len() as u64 + 10 + DISTANCE_BEFORE_START_AT);
    // §5.6 trailer: CRC-32, then ISIZE.
    crc_mismatch: flip_back(w(), 8)
        => Reject(R::CrcMismatch { expected: crc32(TEXT) ^ 1, actual: crc32(TEXT) }, wt());
    isize_mismatch: flip_back(w(), 4)
        => Reject(R::SizeMismatch { expected: TEXT.len() as u32 ^ 1, actual: TEXT.len() as u32 }, wt() + 4);
    crc_checked_before_isize: flip_back(flip_back(w(), 8), 4)
        => Reject(R::CrcMismatch { expected: crc32(TEXT) ^ 1, actual: crc32(TEXT) }, wt());
    // §2.7.1: the CRC-32 reported is the output's, though runs that fill the window
    // have theirs appended rather than computed over their bytes.
    crc_mismatch_after_runs_that_fill_the_window: flip_back(plain(&runs()), 8)
        => Reject(R::CrcMismatch { expected: crc32(&runs()) ^ 1, actual: crc32(&runs()) }, plain(&runs()).len() as u64 - 8);
    second_member_crc_mismatch: cat(&[&w(), &flip_back(w(), 8)])
        => Reject(R::CrcMismatch { expected: crc32(TEXT) ^ 1, actual: crc32(TEXT) }, wl() + wt());
    // §5.8 after a member: garbage, padding then garbage, a member after padding, a
    // second header with a bad ID2.
    garbage_after_member: cat(&[&w(), b"x"]) => Reject(R::TrailingGarbage, wl());
    garbage_after_zero_padding: cat(&[&w(), &[0; 4], b"x"]) => Reject(R::TrailingGarbage, wl() + 4);
    member_after_zero_padding: cat(&[&w(), &[0], &w()]) => Reject(R::TrailingGarbage, wl() + 1);
    second_member_bad_id2: cat(&[&w(), &[0x1f, 0x8c]]) => Reject(R::BadMagic, wl() + 1);
    // §5.10 truncation at every structural boundary.
    truncated_inside_fixed_header: w()[..6].to_vec() => Reject(R::Truncated, 6);
    truncated_after_header: w()[..10].to_vec() => Reject(R::Truncated, 10);
    truncated_inside_deflate_data: w()[..12].to_vec() => Reject(R::Truncated, 12);
    truncated_before_trailer: w()[..w().len() - 8].to_vec() => Reject(R::Truncated, wt());
    truncated_inside_trailer: w()[..w().len() - 3].to_vec() => Reject(R::Truncated, wl() - 3);
    second_member_lone_id1: cat(&[&w(), &[0x1f]]) => Reject(R::Truncated, wl() + 1);
    second_member_partial_header: cat(&[&w(), &w()[..5]]) => Reject(R::Truncated, wl() + 5);
    // §5.11: the limit is on the total output; each member alone is under it. The excess
    // byte comes from the second member's last match.
    output_over_256_mib_across_two_members: two_bombs(1) => Reject(R::LimitExceeded, two_bombs_excess_at(1));
    // The same with a period of two bytes: no run of one byte, so every byte is written.
    output_over_256_mib_of_period_2_across_two_members: two_bombs(2)
        => Reject(R::LimitExceeded, two_bombs_excess_at(2));
    // Period 9: each 8-byte copy would read bytes that the two stores before it wrote
    // (the slowest shape before the period word, README "Benchmarks").
    output_over_256_mib_of_period_9_across_two_members: two_bombs(9)
        => Reject(R::LimitExceeded, two_bombs_excess_at(9));
    // Period 33: the shortest distance above the period word's of 1771862, whose 8-byte
    // copies still read two stores just made; the slowest shape until the copy from
    // farther back (README "Benchmarks").
    output_over_256_mib_of_period_33_across_two_members: two_bombs(33)
        => Reject(R::LimitExceeded, two_bombs_excess_at(33));
}

/// The corpus files of this module.
pub fn files() -> Vec<CorpusFile> {
    cases().iter().map(|c| c.file("gzip")).collect()
}

impl Kind for GzipReason {
    fn kind(self, offset: u64) -> &'static str {
        GzipError::new(self, offset).kind()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use modelgate_core::gzip::GzipDecoder;

    #[test]
    fn at_least_thirty_cases_with_distinct_names() {
        crate::assert_enough_distinct(cases().iter().map(|c| c.name), 30);
    }

    #[test]
    fn files_are_small_except_the_bombs() {
        for f in files() {
            if f.path.contains("output-over-256-mib") {
                // Two bits per match and the distance's extra bits: four for period 33.
                assert!(f.bytes.len() < 800 * 1024, "{} {}", f.path, f.bytes.len());
            } else {
                assert!(f.bytes.len() < 64 * 1024, "{} {}", f.path, f.bytes.len());
            }
        }
    }

    #[test]
    fn ring_wrapping_member_passes_64_kib() {
        let mut n = 0u64;
        gunzip(&ring_wrapping_member(), LIMIT, |c| n += c.len() as u64).expect("valid");
        assert!(n > 65_536);
    }

    /// The outcome when the input is fed one byte at a time (`spec/inflate.md` §5.12:
    /// the same as `gunzip` over the whole slice).
    fn outcome_bytewise(bytes: &[u8]) -> Expect<GzipReason> {
        let mut decoder = GzipDecoder::new(LIMIT);
        let result = bytes
            .chunks(1)
            .try_for_each(|b| decoder.feed(b, |_| {}))
            .and_then(|()| decoder.finish());
        match result {
            Ok(_) => Valid,
            Err(e) => Reject(e.reason, e.offset),
        }
    }

    #[test]
    fn every_case_gives_the_same_outcome_fed_byte_by_byte() {
        crate::assert_every_case(&cases(), outcome_bytewise);
    }

    #[test]
    fn every_reason_has_a_case() {
        let all = cases();
        let has = |f: &dyn Fn(GzipReason) -> bool| crate::has_reason(&all, f);
        assert!(has(&|r| r == R::BadMagic));
        assert!(has(&|r| matches!(r, R::BadMethod(_))));
        assert!(has(&|r| r == R::ReservedFlags));
        assert!(has(&|r| matches!(r, R::BadXfl(_))));
        assert!(has(&|r| matches!(r, R::BadOs(_))));
        assert!(has(&|r| r == R::BadExtraField));
        assert!(has(&|r| matches!(r, R::HeaderCrcMismatch { .. })));
        assert!(has(&|r| matches!(r, R::Deflate(_))));
        assert!(has(&|r| matches!(r, R::CrcMismatch { .. })));
        assert!(has(&|r| matches!(r, R::SizeMismatch { .. })));
        assert!(has(&|r| r == R::TrailingGarbage));
        assert!(has(&|r| r == R::Truncated));
        assert!(has(&|r| r == R::NoMember));
        assert!(has(&|r| r == R::LimitExceeded));
    }
}
