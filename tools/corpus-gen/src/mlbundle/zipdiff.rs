//! `hostile-corpus/mlbundle/*-zipdiff-*`: one bundle per ambiguity type of ZipDiff (You et al.,
//! "My ZIP isn't your ZIP", USENIX Security 2025), built with this crate's ZIP builder from
//! the facts of the paper's constructions, with variants where they are cheap. a1–a5: which of
//! two records decides a member's method, sizes, name, type or encryption; b1–b4: how names
//! are interpreted; c1–c5: which records make up the archive (local headers read as a stream
//! or the central directory, the end record, counts, the directory offset, ZIP64). Each file is
//! rejected with its exact outcome; `spec/mlbundle.md` §15 names the rule that decides each
//! type.

use super::*;

/// The first model member of the composite bundles.
const SKOPS: Option<&str> = Some("model.skops");

/// A model member other than [`model_bytes`], for the second reading of an ambiguous file.
const EVIL: &[u8] = b"\x08\x07\x12\x04EVIL model";

/// A stored local record (header and data) of `name` holding `data`.
fn local_record(name: &str, data: &[u8]) -> Vec<u8> {
    let (b, l) = Zip::new(vec![Member::new(name, data).stored()]).build();
    b[..l.data_end[0] as usize].to_vec()
}

/// A signed 32-bit data descriptor (§2.11).
fn signed_descriptor(crc: u32, size: u32) -> Vec<u8> {
    [&le32(0x0807_4b50)[..], &le32(crc), &le32(size), &le32(size)].concat()
}

/// Four bytes that, appended to `data`, give it the CRC-32 `target`. The CRC of `data`
/// followed by four bytes is affine in their 32 bits, so a basis of the 32 single-bit images
/// solves it.
fn crc_suffix(data: &[u8], target: u32) -> [u8; 4] {
    let image = |x: u32| crc32(&[data, &x.to_le_bytes()].concat());
    let base = image(0);
    let mut basis: Vec<(u32, u32)> = Vec::new();
    for bit in 0..32 {
        let (mut v, mut m) = (image(1 << bit) ^ base, 1u32 << bit);
        for &(bv, bm) in &basis {
            if v ^ bv < v {
                v ^= bv;
                m ^= bm;
            }
        }
        if v != 0 {
            basis.push((v, m));
            basis.sort_unstable_by(|a, b| b.cmp(a));
        }
    }
    let (mut want, mut x) = (target ^ base, 0u32);
    for &(bv, bm) in &basis {
        if want ^ bv < want {
            want ^= bv;
            x ^= bm;
        }
    }
    assert_eq!(image(x), target, "CRC-32 is affine in its last 32 bits");
    x.to_le_bytes()
}

/// The standard bundle with model.onnx renamed to `name` in both headers: an unknown name
/// at the central header's name field (§1.1).
fn model_named(name: &[u8], made_by: u16) -> (Vec<u8>, Expect) {
    let (b, l) = built(with(1, |m| {
        m.name = name.to_vec();
        m.made_by = made_by;
    }));
    (b, ic(None, l.central[1] + 46))
}

/// The standard bundle and a fourth member `name` holding another model: a reader that
/// canonicalizes or folds names would take it for model.onnx (§1.1 rejects the name).
fn second_model(name: &[u8]) -> (Vec<u8>, Expect) {
    let mut z = std_zip();
    let mut m = Member::new("model.onnx", EVIL);
    m.name = name.to_vec();
    z.members.push(m);
    let (b, l) = built(z);
    (b, ic(None, l.central[3] + 46))
}

/// A Unicode Path extra field (0x7075, version 1) naming `name` `other`.
fn unicode_path(name: &[u8], other: &[u8]) -> Vec<u8> {
    let len = 5 + other.len() as u16;
    [&le16(0x7075)[..], &le16(len), &[1], &le32(crc32(name)), other].concat()
}

/// The standard bundle with model.onnx's local record moved out of the records and into
/// schema.json's central header comment, where the directory points (ZipDiff c1's "LFH inside
/// comments"): a streaming reader reads manifest.json and schema.json only.
fn local_record_in_member_comment() -> (Vec<u8>, Expect) {
    let (b, l) = built(std_zip());
    let span = |from: u64, to: u64| b[from as usize..to as usize].to_vec();
    let record = span(l.local[1], l.local[2]);
    let locals = [span(0, l.local[1]), span(l.local[2], l.cd)].concat();
    let (mut manifest, mut model, mut schema) = (
        span(l.central[0], l.central[1]),
        span(l.central[1], l.central[2]),
        span(l.central[2], l.end),
    );
    patch(&mut schema, 42, &le32((l.local[2] - record.len() as u64) as u32));
    patch(&mut schema, 32, &le16(record.len() as u16));
    let comment = locals.len() + manifest.len() + model.len() + schema.len();
    patch(&mut model, 42, &le32(comment as u32));
    let schema_at = (locals.len() + manifest.len() + model.len()) as u64;
    schema.extend(&record);
    manifest.extend(model);
    manifest.extend(schema);
    let mut end = span(l.end, b.len() as u64);
    patch(&mut end, 12, &le32(manifest.len() as u32));
    patch(&mut end, 16, &le32(locals.len() as u32));
    ([locals, manifest, end].concat(), ic(SCHEMA_M, schema_at + 32))
}

/// Three bundles one after another, each with its own model, each end record followed by a
/// one-byte comment whose declared length reaches the end of the file (ZipDiff c2's
/// construction): a reader that takes the first end record whose comment fits reads the
/// first bundle, one that searches back from the end the last.
fn three_bundles_by_comment_length() -> Vec<u8> {
    let mut all = Vec::new();
    let mut ends = Vec::new();
    for seed in 1..=3u64 {
        let mut z = std_with_member("model.onnx", &crate::rng::pseudorandom(300, seed));
        z.prefix = all.clone();
        let (b, l) = z.build();
        all = b;
        ends.push(l.end);
        all.push(0);
    }
    let len = all.len() as u64;
    for end in ends {
        patch(&mut all, end + 20, &le16((len - end - 22) as u16));
    }
    all
}

/// Two bundles one after another; the first's end record declares a comment that reaches the
/// end of the file, so a reader that takes the first end record reads the first bundle, one
/// that takes the last reads the second.
fn first_end_record_covers_second_bundle() -> Vec<u8> {
    let (mut first, l) = built(std_zip());
    let mut z = std_with_member("model.onnx", EVIL);
    z.prefix = first.clone();
    let (b, _) = z.build();
    let second = (b.len() - first.len()) as u16;
    patch(&mut first, l.end + 20, &le16(second));
    let n = first.len();
    [first, b[n..].to_vec()].concat()
}

/// Two bundles one after another, each with its central directory (the two the same size);
/// the end record at the end declares the first directory's offset, so a reader that trusts
/// the offset reads the first bundle and one that takes the directory just before the end
/// record reads the second (ZipDiff c4).
fn directory_offset_not_adjacent() -> (Vec<u8>, Layout) {
    let (first, lf) = built(std_zip());
    let mut z = std_with_member("model.onnx", EVIL);
    z.prefix = first[..lf.end as usize].to_vec();
    let (mut b, l) = built(z);
    assert_eq!(l.end - l.cd, lf.end - lf.cd, "directories of one size");
    patch(&mut b, l.end + 16, &le32(lf.cd as u32));
    (b, l)
}

/// The standard bundle whose last central header's comment holds a second bundle's local
/// records, directory, ZIP64 end record and locator (ZipDiff c5): a reader that looks for a
/// locator before the end record reads the second bundle. With `sentinels`, the end record's
/// counts, size and offset are ZIP64 sentinels.
fn zip64_end_in_member_comment(sentinels: bool) -> Vec<u8> {
    let inner = |prefix: usize| {
        let mut z = std_with_member("model.onnx", EVIL);
        z.zip64_end = true;
        z.prefix = vec![0; prefix];
        let (b, l) = z.build();
        b[prefix..l.end as usize].to_vec()
    };
    let outer = |comment: Vec<u8>| built(with(2, |m| m.comment = comment));
    let (_, l) = outer(inner(0));
    let at = l.central[2] + 46 + "schema.json".len() as u64;
    let (mut b, l) = outer(inner(at as usize));
    if sentinels {
        patch(&mut b, l.end + 8, &[0xff; 12]);
    }
    b
}

/// A stored `model.onnx` with a signed descriptor whose data holds, after 8 bytes, a signed
/// descriptor carrying the CRC-32 of those 8 bytes but sizes of 999, then a local header of
/// another `model.onnx`. libarchive's streaming reader ends stored data at the first signed
/// descriptor whose CRC is that of the bytes read, whatever its sizes.
fn planted_descriptor_crc_only() -> (Vec<u8>, Layout, u64) {
    let head = b"\x08\x07\x12\x04onnx".to_vec();
    let k = head.len() as u64;
    let mut fake = signed_descriptor(crc32(&head), 999);
    fake.extend(local_record("model.onnx", EVIL));
    let data = [head, fake, b"rest of the real model".to_vec()].concat();
    let mut z = std_with_member("model.onnx", &data);
    z.members[1] = z.members[1].clone().stored();
    z.members[1].descriptor = Some(Desc {
        signed: true,
        wide: false,
        zero_local: true,
    });
    let (b, l) = built(z);
    (b, l, k)
}

/// A composite bundle whose stored `model.skops` has a data descriptor of the form `skops`,
/// followed by `model.ubj`, stored with a signed descriptor and zero local fields, whose data
/// holds a signed descriptor planted for everything a streaming reader has read from the
/// start of model.skops's data (that data, its descriptor, model.ubj's local header and four
/// bytes), then a local header of another `model.ubj`. Without a signature at the end of
/// model.skops, libarchive's streaming reader reads on into model.ubj and ends model.skops at
/// the planted descriptor.
fn stored_descriptor_then_planted(skops: Desc) -> (Vec<u8>, Layout) {
    let model = b"skops model bytes".to_vec();
    let make = |planted: &[u8]| {
        let ubj = [
            b"ubj:",
            planted,
            &local_record("model.ubj", EVIL),
            b"rest of the real model",
        ]
        .concat();
        let mut z = bundle(
            Recipe::Composite(MemberName::ModelUbj),
            &[
                ("model.skops", model.clone()),
                ("model.ubj", ubj),
                ("schema.json", SCHEMA.to_vec()),
            ],
        );
        z.members[1] = z.members[1].clone().stored();
        z.members[1].descriptor = Some(skops);
        z.members[2] = z.members[2].clone().stored();
        z.members[2].descriptor = Some(Desc {
            signed: true,
            wide: false,
            zero_local: true,
        });
        z.build()
    };
    let (b, l) = make(&[0; 16]);
    let read = &b[l.data[1] as usize..l.data[2] as usize + 4];
    make(&signed_descriptor(crc32(read), read.len() as u32))
}

/// A composite bundle whose deflated `model.skops` has an unsigned data descriptor whose
/// CRC-32 field (the data's CRC, forced by its last four bytes) is the descriptor signature,
/// followed by a stored `model.ubj` holding a local header of another `model.ubj`. Readers
/// that tell the descriptor's form by its first four bytes (libarchive, Java, Go) take the
/// CRC for the signature and read four bytes too many; libarchive's streaming reader then
/// looks for the next local header signature and finds the planted one.
fn unsigned_descriptor_crc_is_signature() -> (Vec<u8>, Layout) {
    let mut model = b"skops model bytes".to_vec();
    model.extend(crc_suffix(&model, 0x0807_4b50));
    let ubj = [b"ubj:", &local_record("model.ubj", EVIL)[..], b"rest of the real model"].concat();
    let mut z = bundle(
        Recipe::Composite(MemberName::ModelUbj),
        &[
            ("model.skops", model),
            ("model.ubj", ubj),
            ("schema.json", SCHEMA.to_vec()),
        ],
    );
    z.members[1].descriptor = Some(Desc {
        signed: false,
        wide: false,
        zero_local: true,
    });
    z.members[2] = z.members[2].clone().stored();
    built(z)
}

cases! {
    @pairs
    expect: Expect;
    ext: "mlbundle";
    check: |case| assert_eq!(outcome(&case.bytes), case.expect);

    // ------------------------------------------- a1: method, local against central (§2.10)
    zipdiff_a1_local_method_stored => {
        // The local header says stored (with the uncompressed size), the directory deflated.
        let (mut b, l) = built(std_zip());
        patch(&mut b, l.local[1] + 8, &le16(0));
        patch(&mut b, l.local[1] + 18, &le32(model_bytes().len() as u32));
        (b, ic(MODEL, l.local[1] + 4))
    };
    zipdiff_a1_central_method_stored => {
        let (mut b, l) = built(std_zip());
        patch(&mut b, l.central[1] + 10, &le16(0));
        patch(&mut b, l.central[1] + 20, &le32(model_bytes().len() as u32));
        (b, ic(MODEL, l.local[1] + 4))
    };

    // ------------------------- a2: sizes in local, central, descriptor, ZIP64 (§2.4, §2.10, §2.11)
    zipdiff_a2_local_compressed_size_zero => {
        let (mut b, l) = built(std_zip());
        patch(&mut b, l.local[1] + 18, &le32(0));
        (b, ic(MODEL, l.local[1] + 14))
    };
    zipdiff_a2_central_sizes_zero => {
        let (mut b, l) = built(std_zip());
        patch(&mut b, l.central[1] + 20, &[0; 8]);
        (b, ic(MODEL, l.local[1] + 14))
    };
    zipdiff_a2_descriptor_sizes_zero => {
        let (mut b, l) = built(desc(true, false));
        patch(&mut b, l.data_end[1] + 8, &[0; 8]);
        (b, ic(MODEL, l.data_end[1]))
    };
    zipdiff_a2_two_zip64_fields => {
        let (u, c) = (model_bytes().len() as u64, zip::written(&model_bytes()).len() as u64);
        let field = |u: u64, c: u64| [&le16(1)[..], &le16(16), &u.to_le_bytes(), &c.to_le_bytes()].concat();
        let (b, l) = built(with(1, |m| {
            m.local_zip64 = true;
            m.local_extra = Some([field(u, c), field(0, 0)].concat());
        }));
        (b, ic(MODEL, l.local[1] + 30 + 10 + 20))
    };

    // -------------------------------------------- a3: names, local, central, extra (§1.1, §2.4, §2.10)
    zipdiff_a3_local_name_other_member => {
        // schema.json in the directory, model.skops (as long) in the local header.
        let (mut b, l) = built(std_zip());
        patch(&mut b, l.local[2] + 30, b"model.skops");
        (b, ic(SCHEMA_M, l.local[2] + 30))
    };
    zipdiff_a3_unicode_path_extra_field => {
        let up = unicode_path(b"model.onnx", b"model.cbm");
        let (b, l) = built(with(1, |m| {
            m.local_extra = Some(up.clone());
            m.central_extra = Some(up);
        }));
        (b, ic(MODEL, l.central[1] + 46 + 10))
    };

    // ----------------------------------------- a4: file type from name or attributes (§1.1, §2.9)
    zipdiff_a4_dos_directory_attribute => {
        let (b, l) = built(with(1, |m| {
            m.external = 0x10;
            m.made_by = 0x0014;
        }));
        (b, ic(MODEL, l.central[1] + 38))
    };
    zipdiff_a4_unix_directory_type_from_macos => {
        let (b, l) = built(with(1, |m| {
            m.external = 0o040_755 << 16;
            m.made_by = 19 << 8 | 20;
        }));
        (b, ic(MODEL, l.central[1] + 38))
    };
    zipdiff_a4_trailing_slash_name => renamed(b"schema.json/");

    // ------------------------------------------------- a5: encryption flag (§2.7, §2.10)
    zipdiff_a5_local_encrypted => {
        let (mut b, l) = built(std_zip());
        patch(&mut b, l.local[1] + 6, &le16(1));
        (b, ic(MODEL, l.local[1] + 4))
    };
    zipdiff_a5_central_encrypted => {
        let (mut b, l) = built(std_zip());
        patch(&mut b, l.central[1] + 8, &le16(1));
        (b, ic(MODEL, l.central[1] + 8))
    };

    // -------------------------------------------------------- b1: duplicate names (§1.2)
    zipdiff_b1_duplicate_model => {
        let mut z = std_zip();
        z.members.push(Member::new("model.onnx", EVIL));
        let (b, l) = built(z);
        (b, ic(MODEL, l.central[3]))
    };

    // ------------------------------------------------- b2: special bytes in names (§1.1)
    zipdiff_b2_nul_in_name => model_named(b"model.onnx\0.txt", 0x0314);
    zipdiff_b2_backslash_from_dos => model_named(b"x\\model.onnx", 0x0014);
    zipdiff_b2_special_byte_local_name_only => {
        let (mut b, l) = built(std_zip());
        patch(&mut b, l.local[1] + 30 + 5, &[0]);
        (b, ic(MODEL, l.local[1] + 30))
    };

    // ------------------------------------------------ b3: path canonicalization (§1.1)
    zipdiff_b3_dot_slash_second_model => second_model(b"./model.onnx");
    zipdiff_b3_parent_segment_second_model => second_model(b"x/../model.onnx");
    zipdiff_b3_absolute_second_model => second_model(b"/model.onnx");

    // ------------------------------------------------------ b4: letter case (§1.1)
    zipdiff_b4_case_variant_of_model => second_model(b"MODEL.ONNX");

    // ----------------------- c1: local records read as a stream against the directory (§2.11, §2.12, §4.2)
    zipdiff_c1_lfh_without_cdh => {
        // A streaming reader also reads the last local record, a second model.onnx.
        let mut z = std_zip();
        z.members.push(Member::new("model.onnx", EVIL));
        z.central_order = vec![0, 1, 2];
        let (b, l) = built(z);
        (b, ic(None, l.local[3]))
    };
    zipdiff_c1_central_header_after_data => {
        // A streaming reader stops at the central header signature after model.onnx's data.
        let (b0, l0) = built(std_zip());
        let fake = b0[l0.central[0] as usize..l0.central[1] as usize].to_vec();
        let (b, l) = built(with(1, |m| m.trailing = fake));
        (b, ic(None, l.data_end[1]))
    };
    zipdiff_c1_local_record_in_member_comment => local_record_in_member_comment();
    zipdiff_c1_outer_local_header_around_listed_record => {
        // An unlisted local header of model.onnx whose data is the record the directory
        // lists: a streaming reader reads that record's bytes as model.onnx.
        let mut z = std_with_member("model.onnx", EVIL);
        z.members[1] = z.members[1].clone().stored();
        z.members[0].trailing = vec![0; 40];
        let (b0, l0) = built(z.clone());
        let inner = &b0[l0.local[1] as usize..l0.data_end[1] as usize];
        let outer = local_record("model.onnx", inner);
        z.members[0].trailing = outer[..40].to_vec();
        let (b, l) = built(z);
        (b, ic(None, l.data_end[0]))
    };
    zipdiff_c1_deflate_stream_ends_early => {
        // The deflate stream ends before the directory's compressed size; a descriptor and a
        // local header of another model.onnx fill the rest, where a streaming reader reads on.
        let mut stream = zip::written(&model_bytes());
        let end = stream.len() as u64;
        stream.extend(signed_descriptor(crc32(&model_bytes()), end as u32));
        stream.extend(local_record("model.onnx", EVIL));
        let (b, l) = built(with(1, |m| {
            m.stream = Some(stream);
            m.descriptor = Some(Desc { signed: true, wide: false, zero_local: true });
        }));
        (b, ic(MODEL, l.data[1] + end))
    };
    zipdiff_c1_stored_descriptor_planted_crc_only => {
        let (b, l, k) = planted_descriptor_crc_only();
        (b, ic(MODEL, l.data[1] + k))
    };
    zipdiff_c1_stored_unsigned_descriptor_then_planted => {
        let (b, l) = stored_descriptor_then_planted(Desc { signed: false, wide: false, zero_local: true });
        (b, ic(SKOPS, l.data_end[1]))
    };
    zipdiff_c1_stored_signed_descriptor_then_planted => {
        // The same planted bytes behind a signed descriptor: every reader ends model.skops at
        // its own descriptor, and the planted descriptor fits nothing model.ubj's reader has
        // read, so they are model.ubj's data to all.
        (stored_descriptor_then_planted(Desc { signed: true, wide: false, zero_local: true }).0, Valid)
    };
    zipdiff_c1_unsigned_descriptor_crc_is_signature => {
        let (b, l) = unsigned_descriptor_crc_is_signature();
        (b, ic(SKOPS, l.data_end[1]))
    };

    // ---------------------------------------------------------- c2: end record (§2.1)
    zipdiff_c2_three_end_records_by_comment_length => {
        let b = three_bundles_by_comment_length();
        let at = b.len() as u64 - 22;
        (b, ic(None, at))
    };
    zipdiff_c2_first_end_record_covers_second_bundle => (first_end_record_covers_second_bundle(), ic(None, 0));

    // ------------------------------------------------- c3: entry counts and size (§2.1, §2.3)
    zipdiff_c3_entry_counts_one_short => {
        let (mut b, l) = built(std_zip());
        patch(&mut b, l.end + 8, &[2, 0, 2, 0]);
        (b, ic(None, l.central[2]))
    };
    zipdiff_c3_disk_entry_count_one_short => {
        let (mut b, l) = built(std_zip());
        patch(&mut b, l.end + 8, &le16(2));
        (b, ic(None, l.end + 4))
    };
    zipdiff_c3_directory_size_of_one_header => {
        let (mut b, l) = built(std_zip());
        patch(&mut b, l.end + 12, &le32((l.central[1] - l.central[0]) as u32));
        (b, ic(None, l.end))
    };

    // ------------------------------------------------- c4: directory offset (§2.2, §2.12)
    zipdiff_c4_directory_offset_not_adjacent => {
        let (b, l) = directory_offset_not_adjacent();
        (b, ic(None, l.end))
    };

    // ------------------------------------------------------------------ c5: ZIP64 (§2.2)
    zipdiff_c5_zip64_end_in_member_comment => {
        let b = zip64_end_in_member_comment(false);
        let at = b.len() as u64 - 42;
        (b, ic(None, at))
    };
    zipdiff_c5_zip64_end_in_member_comment_with_sentinels => (zip64_end_in_member_comment(true), ic(None, 0));
    zipdiff_c5_zip64_end_count_one_short => {
        let mut z = std_zip();
        z.zip64_end = true;
        z.end_sentinels = true;
        let (mut b, l) = built(z);
        let at = l.zip64_end.unwrap();
        patch(&mut b, at + 24, &2u64.to_le_bytes());
        patch(&mut b, at + 32, &2u64.to_le_bytes());
        (b, ic(None, l.central[2]))
    };
}
