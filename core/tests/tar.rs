//! Tests of the tar reader and writer (`spec/mpk.md` §1). Each rule has a test named for
//! it asserting the exact reason and absolute offset. Every case goes through [`read`],
//! which also feeds the reader one byte at a time and in uneven pieces and requires the
//! identical result.

use modelgate_core::tar::BLOCK;
use modelgate_core::tar::{
    Dialect, EntryKind, Event, Field, FileMeta, Flavor, PathSource, PaxKey, TarLimits, TarReader, TarReason, TarWriter,
    entries, file_header,
};
use modelgate_core::tar::{END_OF_ARCHIVE, padding};
use modelgate_corpus_gen::pax_record;

// ---------------------------------------------------------------- helpers

/// Entry (kind, path, link, size, data) as the reader reports it.
type Seen = (EntryKind, Vec<u8>, Vec<u8>, u64, Vec<u8>);

fn push_read(tar: &[u8], piece: usize) -> Result<Vec<Seen>, (TarReason, u64)> {
    let mut r = TarReader::new(TarLimits::DEFAULT);
    let mut out: Vec<Seen> = Vec::new();
    let mut ended = false;
    for chunk in tar.chunks(piece.max(1)) {
        let mut pos = 0;
        loop {
            let (used, ev) = r.step(&chunk[pos..]).map_err(|e| (e.reason, e.offset))?;
            pos += used;
            match ev {
                Event::Entry(e) => out.push((e.kind, e.path, e.link, e.size, Vec::new())),
                Event::Data(d) => out.last_mut().unwrap().4.extend_from_slice(d),
                Event::EntryEnd => {
                    let last = out.last().unwrap();
                    assert_eq!(last.4.len() as u64, last.3, "EntryEnd after exactly size bytes");
                }
                Event::End => ended = true,
                Event::NeedInput => break,
            }
        }
    }
    let summary = r.finish().map_err(|e| (e.reason, e.offset))?;
    assert!(ended);
    assert_eq!(summary.entries, out.len() as u64);
    assert_eq!(summary.input_len, tar.len() as u64);
    Ok(out)
}

/// Reads `tar` whole, in 1-byte pieces and in 7-byte pieces through the push reader and
/// through [`entries`]; all must agree.
fn read(tar: &[u8]) -> Result<Vec<Seen>, (TarReason, u64)> {
    let whole = push_read(tar, tar.len());
    assert_eq!(push_read(tar, 1), whole, "byte-at-a-time differs");
    assert_eq!(push_read(tar, 7), whole, "7-byte pieces differ");
    let sliced: Result<Vec<Seen>, (TarReason, u64)> = entries(tar, TarLimits::DEFAULT)
        .map(|r| {
            r.map(|(e, d)| (e.kind, e.path, e.link, e.size, d.to_vec()))
                .map_err(|e| (e.reason, e.offset))
        })
        .collect();
    assert_eq!(sliced, whole, "entries() differs");
    whole
}

fn reject(tar: &[u8]) -> (TarReason, u64) {
    read(tar).expect_err("must be rejected")
}

/// A header block with the given fields and a correct checksum.
fn raw(name: &[u8], flag: u8, size: u64, gnu: bool) -> [u8; BLOCK] {
    let mut b = [0u8; BLOCK];
    b[..name.len()].copy_from_slice(name);
    b[100..108].copy_from_slice(b"0000644\0");
    b[108..116].copy_from_slice(b"0000000\0");
    b[116..124].copy_from_slice(b"0000000\0");
    b[124..136].copy_from_slice(format!("{size:011o}\0").as_bytes());
    b[136..148].copy_from_slice(b"00000000000\0");
    b[156] = flag;
    b[257..265].copy_from_slice(if gnu { b"ustar  \0" } else { b"ustar\x0000" });
    fix(&mut b);
    b
}

fn fix(b: &mut [u8; BLOCK]) {
    b[148..156].copy_from_slice(b"        ");
    let sum: u32 = b.iter().map(|&x| u32::from(x)).sum();
    b[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
}

fn pad(v: &mut Vec<u8>) {
    while !v.len().is_multiple_of(BLOCK) {
        v.push(0);
    }
}

/// A member: header, data, padding.
fn member(header: [u8; BLOCK], data: &[u8]) -> Vec<u8> {
    let mut v = header.to_vec();
    v.extend_from_slice(data);
    pad(&mut v);
    v
}

fn file(name: &str, data: &[u8]) -> Vec<u8> {
    member(raw(name.as_bytes(), b'0', data.len() as u64, false), data)
}

fn pax(records: &[u8]) -> Vec<u8> {
    member(raw(b"PaxHeaders/x", b'x', records.len() as u64, false), records)
}

fn archive(parts: &[Vec<u8>]) -> Vec<u8> {
    let mut v: Vec<u8> = parts.concat();
    v.extend_from_slice(&END_OF_ARCHIVE);
    v
}

// ---------------------------------------------------------------- valid archives

#[test]
fn ustar_files_and_directories_read() {
    let tar = archive(&[
        file("etc/a.json", b"{}"),
        member(raw(b"lib/", b'5', 0, false), b""),
        file("x", b""),
    ]);
    let got = read(&tar).unwrap();
    assert_eq!(got.len(), 3);
    assert_eq!(
        got[0],
        (EntryKind::Regular, b"etc/a.json".to_vec(), vec![], 2, b"{}".to_vec())
    );
    assert_eq!(got[1].0, EntryKind::Directory);
    assert_eq!(got[2].3, 0);
}

#[test]
fn ustar_prefix_joined_to_name() {
    let mut h = raw(b"name.so", b'0', 1, false);
    h[345..351].copy_from_slice(b"a/b/cc");
    fix(&mut h);
    let got = read(&archive(&[member(h, b"z")])).unwrap();
    assert_eq!(got[0].1, b"a/b/cc/name.so");
}

/// §1.1.5: GNU stores atime/ctime where ustar has `prefix`, and Python's tarfile joins that
/// area to the name whatever the magic; a GNU header whose area does not start with NUL
/// would name the entry differently there, so it is refused. Later bytes are not a name to
/// any reader and stay free.
#[test]
fn gnu_header_time_area_must_read_as_an_empty_prefix() {
    let mut h = raw(b"name.so", b'0', 0, true);
    h[345..357].copy_from_slice(b"14712345670\0");
    fix(&mut h);
    assert_eq!(
        read(&archive(&[member(h, b"")])).unwrap_err(),
        (TarReason::GnuPrefix, 345)
    );
    let mut h = raw(b"name.so", b'0', 0, true);
    h[346..357].copy_from_slice(b"4712345670\0");
    fix(&mut h);
    assert_eq!(read(&archive(&[member(h, b"")])).unwrap()[0].1, b"name.so");
}

/// §1.1.6: a regular entry (typeflag NUL or `0`) whose header name or final path ends in
/// `/` is a directory to GNU tar and Python's tarfile, which then read its data as headers.
#[test]
fn regular_file_named_like_a_folder_rejected() {
    let hidden = file("evil.py", b"print(1)\n");
    for flag in [0u8, b'0'] {
        let tar = archive(&[member(raw(b"hidden.so/", flag, hidden.len() as u64, false), &hidden)]);
        assert_eq!(
            read(&tar).unwrap_err(),
            (TarReason::FileNamedAsFolder, 0),
            "typeflag {flag}"
        );
    }
    let tar = archive(&[pax(&pax_record("path", b"dir/")), file("x.so", b"1")]);
    assert_eq!(read(&tar).unwrap_err(), (TarReason::FileNamedAsFolder, 1024));
}

/// §1.1.3: the checksum is octal. GNU tar skips a header whose checksum is base-256 and
/// reads the entry's data as headers, so such a header is refused at the field.
#[test]
fn base256_checksum_rejected() {
    let mut h = raw(b"cover.so", b'0', 0, false);
    fix(&mut h);
    let sum: u64 = h
        .iter()
        .enumerate()
        .map(|(i, &b)| if (148..156).contains(&i) { 32 } else { u64::from(b) })
        .sum();
    h[148] = 0x80;
    h[149..156].copy_from_slice(&sum.to_be_bytes()[1..]);
    assert!(matches!(
        read(&archive(&[member(h, b"")])).unwrap_err(),
        (TarReason::BadNumber(Field::Checksum), 148)
    ));
}

#[test]
fn zero_padding_after_end_accepted() {
    let mut tar = archive(&[file("a", b"1")]);
    tar.extend_from_slice(&[0u8; 10240 - 3 * 512]);
    assert_eq!(read(&tar).unwrap().len(), 1);
}

#[test]
fn empty_archive_accepted() {
    assert_eq!(read(&END_OF_ARCHIVE).unwrap(), vec![]);
}

#[test]
fn base256_size_accepted() {
    let mut h = raw(b"f", b'0', 0, true);
    h[124..136].copy_from_slice(&[0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3]);
    fix(&mut h);
    let got = read(&archive(&[member(h, b"abc")])).unwrap();
    assert_eq!(got[0].4, b"abc");
}

#[test]
fn octal_with_leading_spaces_accepted() {
    let mut h = raw(b"f", b'0', 0, false);
    h[124..136].copy_from_slice(b"         3 \0");
    fix(&mut h);
    assert_eq!(read(&archive(&[member(h, b"abc")])).unwrap()[0].3, 3);
}

// ---------------------------------------------------------------- §1.1 headers

#[test]
fn checksum_mismatch_rejected() {
    let mut tar = archive(&[file("a", b"1"), file("b", b"2")]);
    tar[1024 + 5] ^= 1; // inside the second header's name
    assert!(matches!(reject(&tar), (TarReason::BadChecksum { .. }, 1172)));
}

#[test]
fn checksum_not_octal_rejected() {
    let mut h = raw(b"a", b'0', 0, false);
    h[148..156].copy_from_slice(b"12x45\0  ");
    assert_eq!(
        reject(&archive(&[member(h, b"")])),
        (TarReason::BadNumber(Field::Checksum), 148)
    );
}

#[test]
fn signed_checksum_rejected() {
    // A header with a byte >= 0x80 whose checksum was computed with signed chars.
    let mut h = raw(b"a\xe9", b'0', 0, false);
    let signed: i32 = h
        .iter()
        .enumerate()
        .map(|(i, &x)| {
            if (148..156).contains(&i) {
                32
            } else {
                i32::from(x as i8)
            }
        })
        .sum();
    h[148..156].copy_from_slice(format!("{signed:06o}\0 ").as_bytes());
    assert!(matches!(
        reject(&archive(&[member(h, b"")])),
        (TarReason::BadChecksum { .. }, 148)
    ));
}

#[test]
fn v7_header_without_magic_rejected() {
    let mut h = raw(b"a", b'0', 0, false);
    h[257..265].fill(0);
    fix(&mut h);
    assert_eq!(reject(&archive(&[member(h, b"")])), (TarReason::BadMagic, 257));
}

#[test]
fn mixed_magic_rejected() {
    let mut h = raw(b"a", b'0', 0, false);
    h[257..265].copy_from_slice(b"ustar\x00 \x00");
    fix(&mut h);
    assert_eq!(reject(&archive(&[member(h, b"")])), (TarReason::BadMagic, 257));
}

#[test]
fn bad_octal_size_rejected() {
    let mut h = raw(b"a", b'0', 0, false);
    h[124..136].copy_from_slice(b"0000000008\0\0");
    fix(&mut h);
    assert_eq!(
        reject(&archive(&[file("z", b""), member(h, b"")])),
        (TarReason::BadNumber(Field::Size), 512 + 124)
    );
}

#[test]
fn empty_size_field_rejected() {
    let mut h = raw(b"a", b'0', 0, false);
    h[124..136].fill(0);
    fix(&mut h);
    assert_eq!(
        reject(&archive(&[member(h, b"")])),
        (TarReason::BadNumber(Field::Size), 124)
    );
}

#[test]
fn negative_base256_size_rejected() {
    let mut h = raw(b"a", b'0', 0, true);
    h[124..136].copy_from_slice(&[0xff; 12]);
    fix(&mut h);
    assert_eq!(
        reject(&archive(&[member(h, b"")])),
        (TarReason::NegativeNumber(Field::Size), 124)
    );
}

#[test]
fn overflowing_base256_size_rejected() {
    let mut h = raw(b"a", b'0', 0, true);
    h[124..136].copy_from_slice(&[0x80, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    fix(&mut h);
    assert_eq!(
        reject(&archive(&[member(h, b"")])),
        (TarReason::NumberOverflow(Field::Size), 124)
    );
}

#[test]
fn bad_mtime_rejected() {
    let mut h = raw(b"a", b'0', 0, false);
    h[136..148].copy_from_slice(b"abcdefghijk\0");
    fix(&mut h);
    assert_eq!(
        reject(&archive(&[member(h, b"")])),
        (TarReason::BadNumber(Field::Mtime), 136)
    );
}

#[test]
fn name_field_hidden_bytes_rejected() {
    let mut h = raw(b"a.json\0../../x", b'0', 0, false);
    fix(&mut h);
    assert_eq!(
        reject(&archive(&[member(h, b"")])),
        (TarReason::BadNameField(Field::Name), 7)
    );
}

#[test]
fn gnu_sparse_typeflag_rejected() {
    let h = raw(b"a", b'S', 0, true);
    assert_eq!(reject(&archive(&[member(h, b"")])), (TarReason::Sparse, 156));
}

#[test]
fn entry_types_mapped() {
    let tar = archive(&[
        member(raw(b"l", b'1', 0, false), b""),
        member(raw(b"s", b'2', 0, false), b""),
        member(raw(b"c", b'3', 0, false), b""),
        member(raw(b"b", b'4', 0, false), b""),
        member(raw(b"p", b'6', 0, false), b""),
        member(raw(b"o", b'7', 1, false), b"q"),
        member(raw(b"n", 0, 1, false), b"q"),
    ]);
    let kinds: Vec<EntryKind> = read(&tar).unwrap().into_iter().map(|s| s.0).collect();
    assert_eq!(
        kinds,
        [
            EntryKind::HardLink,
            EntryKind::Symlink,
            EntryKind::CharDevice,
            EntryKind::BlockDevice,
            EntryKind::Fifo,
            EntryKind::Other(b'7'),
            EntryKind::Regular
        ]
    );
}

#[test]
fn size_on_directory_rejected() {
    let h = raw(b"d/", b'5', 512, false);
    assert_eq!(
        reject(&archive(&[member(h, &[0u8; 512])])),
        (TarReason::SizeOnNonFile, 124)
    );
}

#[test]
fn size_on_symlink_rejected() {
    let h = raw(b"s", b'2', 10, false);
    assert_eq!(
        reject(&archive(&[member(h, b"0123456789")])),
        (TarReason::SizeOnNonFile, 124)
    );
}

// ---------------------------------------------------------------- §1.2 PAX

#[test]
fn pax_size_wins_over_header() {
    // The header says 0 bytes; PAX says 1024. A reader that used the header size would
    // read the hidden header inside the data as an entry named ../../evil.
    let hidden = [raw(b"../../evil", b'0', 0, false).to_vec(), vec![0u8; 512]].concat();
    let tar = archive(&[
        pax(&pax_record("size", b"1024")),
        member(raw(b"a.so", b'0', 0, false), &hidden),
    ]);
    let got = read(&tar).unwrap();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].1, b"a.so");
    assert_eq!(got[0].3, 1024);
    assert_eq!(got[0].4, hidden);
}

#[test]
fn pax_size_smaller_than_header_wins() {
    let tar = archive(&[
        pax(&pax_record("size", b"0")),
        member(raw(b"a.so", b'0', 512, false), b""),
        file("b", b"x"),
    ]);
    let got = read(&tar).unwrap();
    assert_eq!((got[0].3, got[1].1.as_slice()), (0, &b"b"[..]));
}

#[test]
fn pax_path_wins_over_header() {
    let tar = archive(&[
        pax(&pax_record("path", b"../../etc/passwd")),
        file("harmless.json", b""),
    ]);
    let got = read(&tar).unwrap();
    assert_eq!(got[0].1, b"../../etc/passwd");
}

#[test]
fn pax_path_source_reported() {
    let tar = archive(&[pax(&pax_record("path", b"long/name.so")), file("x", b"")]);
    let e = entries(&tar, TarLimits::DEFAULT).next().unwrap().unwrap().0;
    assert_eq!(
        (e.path_source, e.header_offset, e.data_offset),
        (PathSource::Pax, 0, 1536)
    );
}

#[test]
fn pax_linkpath_wins() {
    let tar = archive(&[
        pax(&pax_record("linkpath", b"/etc/shadow")),
        member(raw(b"l", b'2', 0, false), b""),
    ]);
    assert_eq!(read(&tar).unwrap()[0].2, b"/etc/shadow");
}

#[test]
fn pax_record_length_mismatch_rejected() {
    let mut rec = pax_record("path", b"abc");
    rec[0] += 1; // "12 path..." -> "13 path..."
    let tar = archive(&[pax(&[pax_record("mtime", b"1"), rec].concat()), file("x", b"")]);
    assert_eq!(reject(&tar), (TarReason::BadPax, 512 + 11));
}

#[test]
fn pax_record_without_newline_rejected() {
    let mut rec = pax_record("path", b"abc");
    *rec.last_mut().unwrap() = b'x';
    assert_eq!(reject(&archive(&[pax(&rec), file("x", b"")])), (TarReason::BadPax, 512));
}

#[test]
fn pax_record_without_equals_rejected() {
    assert_eq!(
        reject(&archive(&[pax(b"9 pathab\n"), file("x", b"")])),
        (TarReason::BadPax, 512)
    );
}

#[test]
fn pax_record_leading_zero_length_rejected() {
    assert_eq!(
        reject(&archive(&[pax(b"010 path=\n"), file("x", b"")])),
        (TarReason::BadPax, 512)
    );
}

#[test]
fn pax_size_not_decimal_rejected() {
    for v in [&b"+5"[..], b"-5", b"05", b"5 ", b"", b"0x10", b"18446744073709551616"] {
        let tar = archive(&[pax(&pax_record("size", v)), file("x", b"")]);
        assert_eq!(reject(&tar), (TarReason::BadPaxNumber(PaxKey::Size), 512), "{v:?}");
    }
}

/// §1.2.3: a NUL in a name value, which a C reader would end the value at, is refused by
/// the reader, whatever its consumer.
#[test]
fn pax_nul_in_names_rejected() {
    for (key, k) in [
        ("path", PaxKey::Path),
        ("linkpath", PaxKey::Linkpath),
        ("uname", PaxKey::Uname),
        ("gname", PaxKey::Gname),
    ] {
        let tar = archive(&[
            pax(&[pax_record("comment", b"ok"), pax_record(key, b"a\0b")].concat()),
            file("x", b""),
        ]);
        assert_eq!(reject(&tar), (TarReason::PaxNul(k), 512 + 14), "{key}");
    }
}

/// §1.2.3: times and ids are strict decimals, so that no two readers read them apart.
#[test]
fn pax_times_and_ids_strict() {
    for (key, k, v) in [
        ("mtime", PaxKey::Mtime, &b"1e9"[..]),
        ("atime", PaxKey::Atime, b" 1"),
        ("ctime", PaxKey::Ctime, b"1."),
        ("uid", PaxKey::Uid, b"-1"),
        ("gid", PaxKey::Gid, b"01"),
    ] {
        let tar = archive(&[pax(&pax_record(key, v)), file("x", b"")]);
        assert_eq!(reject(&tar), (TarReason::BadPaxNumber(k), 512), "{key}={v:?}");
    }
    let ok = [
        pax_record("mtime", b"1700000000.5"),
        pax_record("atime", b"-2"),
        pax_record("uid", b"1000"),
    ]
    .concat();
    let tar = archive(&[pax(&ok), file("x", b"")]);
    assert!(modelgate_core::tar::entries(&tar, TarLimits::DEFAULT).all(|r| r.is_ok()));
}

/// §1.1.6: a Solaris extended header (`X`), which Python's tarfile applies as PAX and GNU
/// tar as a file, is refused at its typeflag.
#[test]
fn solaris_extended_header_rejected() {
    let x = member(raw(b"x", b'X', 12, true), b"12 path=a.b\n");
    assert_eq!(
        reject(&archive(&[x, file("y", b"")])),
        (TarReason::SolarisExtended, 156)
    );
}

#[test]
fn pax_empty_path_rejected() {
    assert_eq!(
        reject(&archive(&[pax(&pax_record("path", b"")), file("x", b"")])),
        (TarReason::BadPax, 512)
    );
}

#[test]
fn pax_duplicate_key_rejected() {
    let recs = [pax_record("path", b"a"), pax_record("path", b"b")].concat();
    assert_eq!(
        reject(&archive(&[pax(&recs), file("x", b"")])),
        (TarReason::DuplicatePaxKey, 512 + 9)
    );
}

#[test]
fn pax_sparse_record_rejected() {
    let recs = [pax_record("mtime", b"1"), pax_record("GNU.sparse.size", b"10")].concat();
    assert_eq!(
        reject(&archive(&[pax(&recs), file("x", b"")])),
        (TarReason::Sparse, 512 + 11)
    );
}

#[test]
fn pax_too_many_records_rejected() {
    let recs: Vec<u8> = (0..65).flat_map(|i| pax_record(&format!("k{i}"), b"v")).collect();
    assert!(matches!(
        reject(&archive(&[pax(&recs), file("x", b"")])),
        (TarReason::MetaTooLarge, _)
    ));
}

#[test]
fn pax_header_over_limit_rejected_before_buffering() {
    // Declares 1 MiB of records but holds none: rejected from the header alone.
    let h = raw(b"PaxHeaders/x", b'x', 1 << 20, false);
    assert_eq!(reject(&h), (TarReason::MetaTooLarge, 124));
}

#[test]
fn pax_global_comment_accepted() {
    let g = member(
        raw(b"pax_global_header", b'g', 52, false),
        &pax_record("comment", &[b'c'; 40]),
    );
    let got = read(&archive(&[g, file("x", b"1")])).unwrap();
    assert_eq!(got.len(), 1);
}

#[test]
fn pax_global_path_rejected() {
    let rec = pax_record("path", b"x");
    let g = member(raw(b"pax_global_header", b'g', rec.len() as u64, false), &rec);
    assert_eq!(
        reject(&archive(&[g, file("x", b"1")])),
        (TarReason::UnsupportedGlobalKey, 512)
    );
}

// ---------------------------------------------------------------- §1.3 GNU long names

#[test]
fn gnu_long_name_read() {
    let long = "d/".repeat(80) + "model.elf";
    let mut w = TarWriter::new(Flavor::Gnu);
    w.append_file(long.as_bytes(), b"ELF", &FileMeta::FIXED).unwrap();
    let tar = w.finish();
    let e = entries(&tar, TarLimits::DEFAULT).next().unwrap().unwrap();
    assert_eq!(
        (e.0.path.as_slice(), e.0.path_source, e.1),
        (long.as_bytes(), PathSource::GnuLongName, &b"ELF"[..])
    );
    assert_eq!(e.0.dialect, Dialect::Gnu);
}

#[test]
fn gnu_long_name_hidden_bytes_rejected() {
    let l = member(raw(b"././@LongLink", b'L', 5, true), b"ab\0cd");
    assert_eq!(
        reject(&archive(&[l, file("x", b"")])),
        (TarReason::LongNameHiddenBytes, 512 + 3)
    );
}

#[test]
fn gnu_long_name_empty_rejected() {
    let l = member(raw(b"././@LongLink", b'L', 1, true), b"\0");
    assert_eq!(reject(&archive(&[l, file("x", b"")])), (TarReason::BadLongName, 512));
}

#[test]
fn gnu_long_name_over_limit_rejected() {
    let l = raw(b"././@LongLink", b'L', 4098, true);
    assert_eq!(reject(&l), (TarReason::MetaTooLarge, 124));
}

#[test]
fn gnu_long_link_read() {
    let k = member(raw(b"././@LongLink", b'K', 4, true), b"abc\0");
    let got = read(&archive(&[k, member(raw(b"l", b'2', 0, true), b"")])).unwrap();
    assert_eq!(got[0].2, b"abc");
}

// ---------------------------------------------------------------- §1.4 sequences

#[test]
fn duplicate_pax_headers_rejected() {
    let tar = archive(&[
        pax(&pax_record("path", b"a")),
        pax(&pax_record("path", b"b")),
        file("x", b""),
    ]);
    assert_eq!(reject(&tar), (TarReason::DuplicateMeta, 1024));
}

#[test]
fn duplicate_long_names_rejected() {
    let l = member(raw(b"././@LongLink", b'L', 2, true), b"a\0");
    assert_eq!(
        reject(&archive(&[l.clone(), l, file("x", b"")])),
        (TarReason::DuplicateMeta, 1024)
    );
}

#[test]
fn long_name_after_pax_rejected() {
    let l = member(raw(b"././@LongLink", b'L', 2, true), b"a\0");
    let tar = archive(&[pax(&pax_record("mtime", b"1")), l, file("x", b"")]);
    assert_eq!(reject(&tar), (TarReason::MetaAfterPax, 1024));
}

#[test]
fn pax_path_and_long_name_conflict_rejected() {
    let l = member(raw(b"././@LongLink", b'L', 2, true), b"a\0");
    let tar = archive(&[l, pax(&pax_record("path", b"b")), file("x", b"")]);
    assert_eq!(reject(&tar), (TarReason::ConflictingMeta, 0));
}

#[test]
fn pax_before_end_rejected() {
    assert_eq!(
        reject(&archive(&[file("x", b""), pax(&pax_record("path", b"b"))])),
        (TarReason::DanglingMeta, 512)
    );
}

#[test]
fn pax_at_input_end_rejected() {
    let tar = [file("x", b""), pax(&pax_record("path", b"b"))].concat();
    assert_eq!(reject(&tar), (TarReason::DanglingMeta, 1536));
}

#[test]
fn lone_zero_block_rejected() {
    let tar = [file("a", b""), vec![0u8; 512], file("b", b""), END_OF_ARCHIVE.to_vec()].concat();
    assert_eq!(reject(&tar), (TarReason::LoneZeroBlock, 512));
}

#[test]
fn missing_end_rejected() {
    assert_eq!(reject(&file("a", b"1")), (TarReason::MissingEnd, 1024));
}

#[test]
fn single_zero_block_end_rejected() {
    let tar = [file("a", b"1"), vec![0u8; 512]].concat();
    assert_eq!(reject(&tar), (TarReason::MissingEnd, 1536));
}

#[test]
fn trailing_data_after_end_rejected() {
    let mut tar = archive(&[file("a", b"1")]);
    tar.extend_from_slice(&[0, 0, 0, 7]);
    assert_eq!(reject(&tar), (TarReason::TrailingData, 2048 + 3));
}

#[test]
fn trailing_header_after_end_rejected() {
    let tar = [archive(&[file("a", b"1")]), file("b", b"2")].concat();
    assert_eq!(reject(&tar), (TarReason::TrailingData, 2048));
}

#[test]
fn truncated_at_every_boundary_rejected() {
    let tar = archive(&[pax(&pax_record("path", b"p.json")), file("a", &[7u8; 600])]);
    for cut in 1..tar.len() {
        let (reason, offset) = reject(&tar[..cut]);
        let expected = match cut {
            // inside a header, PAX data, entry data or padding.
            1024 => TarReason::DanglingMeta,
            // between entries, or after one zero block, without the end marker.
            c if c % 512 == 0 && c >= 2560 => TarReason::MissingEnd,
            _ => TarReason::Truncated,
        };
        assert_eq!((reason, offset), (expected, cut as u64), "cut at {cut}");
    }
}

#[test]
fn error_names_entry() {
    let tar = file("etc/model.json", &[1u8; 100]);
    let e = entries(&tar[..600], TarLimits::DEFAULT).last().unwrap().unwrap_err();
    assert_eq!(
        (e.reason, e.offset, e.entry.as_deref()),
        (TarReason::Truncated, 600, Some("etc/model.json"))
    );
}

/// An error names at most the first 256 bytes of the entry's name (here a 401-byte PAX
/// path), and an error after the entry's data and padding, between entries, names none.
#[test]
fn error_entry_name_is_cut_and_cleared_between_entries() {
    let long = "d/".repeat(200) + "f";
    let tar = [pax(&pax_record("path", long.as_bytes())), file("ignored", &[1u8; 100])].concat();
    let cut = &tar[..tar.len() - 100];
    let e = entries(cut, TarLimits::DEFAULT).last().unwrap().unwrap_err();
    assert_eq!(e.entry.as_deref(), Some(&long[..256]));
    let e = entries(&tar, TarLimits::DEFAULT).last().unwrap().unwrap_err();
    assert_eq!((e.reason, e.entry), (TarReason::MissingEnd, None));
}

/// The name an error carries is the current entry's alone: the reused buffer is emptied
/// before the next name is kept, never appended to.
#[test]
fn error_entry_name_is_not_appended_to_the_previous_entrys() {
    let tar = [file("first-long-name.json", b"x"), file("b", &[1u8; 100])].concat();
    let cut = &tar[..tar.len() - 100];
    let e = entries(cut, TarLimits::DEFAULT).last().unwrap().unwrap_err();
    assert_eq!((e.reason, e.entry.as_deref()), (TarReason::Truncated, Some("b")));
}

/// An entry whose data ends on a block boundary (no padding), or that has no data, is over
/// once its data is read: an error in the next header names no entry.
#[test]
fn error_after_an_unpadded_or_empty_entry_names_no_entry() {
    for data in [&[1u8; 512][..], &[]] {
        let tar = [file("a", data), pax(&pax_record("path", b"b"))].concat();
        let cut = &tar[..tar.len() - 600];
        let e = entries(cut, TarLimits::DEFAULT).last().unwrap().unwrap_err();
        assert_eq!(
            (e.reason, e.entry),
            (TarReason::Truncated, None),
            "{} data bytes",
            data.len()
        );
    }
}

#[test]
fn error_repeats_after_failure() {
    let mut r = TarReader::new(TarLimits::DEFAULT);
    let bad = [1u8; 512];
    let first = r.step(&bad).unwrap_err();
    assert_eq!(r.step(&END_OF_ARCHIVE).unwrap_err(), first);
    assert_eq!(r.finish().unwrap_err(), first);
}

// ---------------------------------------------------------------- §1.6 writer

#[test]
fn writer_is_deterministic_and_reads_back() {
    let meta = FileMeta {
        mode: 0o644,
        mtime: 1_700_000_000,
        uid: 0,
        gid: 0,
    };
    let build = || {
        let mut w = TarWriter::new(Flavor::Gnu);
        w.append_file(b"b/.mvb.json", b"{}", &meta).unwrap();
        w.append_file(("m/".repeat(70) + "w.bin").as_bytes(), &[9u8; 1000], &meta)
            .unwrap();
        w.finish()
    };
    let tar = build();
    assert_eq!(tar, build());
    let got = read(&tar).unwrap();
    assert_eq!(got.len(), 2);
    assert_eq!(got[1].4, vec![9u8; 1000]);
    let e = entries(&tar, TarLimits::DEFAULT).next().unwrap().unwrap().0;
    assert_eq!((e.mode, e.mtime, e.uid, e.gid), (0o644, 1_700_000_000, 0, 0));
}

#[test]
fn writer_ustar_splits_prefix() {
    let path = "p/".repeat(40) + &"n".repeat(90);
    let mut w = TarWriter::new(Flavor::Ustar);
    w.append_file(path.as_bytes(), b"x", &FileMeta::FIXED).unwrap();
    let tar = w.finish();
    let e = entries(&tar, TarLimits::DEFAULT).next().unwrap().unwrap().0;
    assert_eq!(
        (e.path, e.path_source, e.dialect),
        (path.into_bytes(), PathSource::Header, Dialect::Ustar)
    );
    let too_long = "n".repeat(101);
    assert!(file_header(too_long.as_bytes(), 0, &FileMeta::FIXED, Flavor::Ustar).is_err());
}

#[test]
fn writer_large_size_uses_base256() {
    let h = file_header(b"big", 1 << 40, &FileMeta::FIXED, Flavor::Gnu).unwrap();
    assert_eq!(h[124], 0x80);
    let mut r = TarReader::new(TarLimits::DEFAULT);
    let (_, ev) = r.step(&h).unwrap();
    match ev {
        Event::Entry(e) => assert_eq!(e.size, 1 << 40),
        other => panic!("{other:?}"),
    }
    assert_eq!(padding(1 << 40).len(), 0);
    assert_eq!(padding(1).len(), 511);
}

#[test]
fn error_entry_name_escapes_control_characters() {
    let tar = file("a\nb\u{1b}[31m", &[1u8; 10]);
    let e = entries(&tar[..600], TarLimits::DEFAULT).last().unwrap().unwrap_err();
    assert_eq!(e.entry.as_deref(), Some("a\\nb\\u{1b}[31m"));
}

#[test]
fn pax_global_before_end_rejected() {
    let g = member(
        raw(b"pax_global_header", b'g', 52, false),
        &pax_record("comment", &[b'c'; 40]),
    );
    assert_eq!(
        reject(&archive(&[file("x", b"1"), g.clone()])),
        (TarReason::DanglingMeta, 1024)
    );
    assert_eq!(reject(&[file("x", b"1"), g].concat()), (TarReason::DanglingMeta, 2048));
}

#[test]
fn missing_end_after_block_aligned_data_rejected() {
    // Data of exactly one block: no padding, so the input ends between entries.
    assert_eq!(reject(&file("a", &[7u8; 512])), (TarReason::MissingEnd, 1024));
    let tar = [pax(&pax_record("comment", &[b'c'; 499])), file("a", &[7u8; 512])].concat();
    assert_eq!(pax_record("comment", &[b'c'; 499]).len(), 512);
    assert_eq!(reject(&tar[..1024]), (TarReason::DanglingMeta, 1024));
    assert_eq!(reject(&tar), (TarReason::MissingEnd, 2048));
}
