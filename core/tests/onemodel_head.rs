//! The check from a file's first bytes (`spec/onemodel.md` §5, `onemodel::check_head`): the
//! header, the manifest and its padding, the data region known by its length alone, give
//! every file the verdict, and every failure the kind and location, of the read of the
//! whole file (`onemodel::read`). Every hostile-corpus file is held to the same
//! through `modelgate_io::onemodel::check_file`, which calls these two functions
//! (`std-io/src/onemodel.rs`, `the_check_of_each_corpus_file_is_the_whole_read`).

use modelgate_core::onemodel::assemble;
use modelgate_core::onemodel::*;

/// What `modelgate check` does with a file: its first 64 bytes to [`head_length`], then
/// that many to [`check_head`].
fn by_head(f: &[u8], limits: Limits) -> Result<(), Error> {
    let len = f.len() as u64;
    let need = head_length(&f[..f.len().min(64)], len, limits)?;
    let need = usize::try_from(need).expect("a head that fits in memory");
    assert!(need <= f.len(), "head_length {need} past the file's {} bytes", f.len());
    check_head(&f[..need], len, limits)
}

/// The verdict of the whole read, the model dropped.
fn whole(f: &[u8], limits: Limits) -> Result<(), Error> {
    read(f, limits).map(drop)
}

fn agree(f: &[u8], what: &str) {
    assert_eq!(by_head(f, Limits::DEFAULT), whole(f, Limits::DEFAULT), "{what}");
}

/// The manifest of [`valid`]: two tensors in the data region and a graph that uses them.
const MANIFEST: &str = r#"{"ir_version":8,"opsets":[{"domain":"","version":17}],"graph":{"name":"g","initializers":[{"name":"w","dtype":1,"dims":[2,2],"data":{"offset":0,"length":16}},{"name":"b","dtype":1,"dims":[2],"data":{"offset":64,"length":8}}],"inputs":[{"name":"x"}],"outputs":[{"name":"y"}],"nodes":[{"name":"m","op":"MatMul","inputs":["x","w"],"outputs":["t"]},{"name":"a","op":"Add","inputs":["t","b"],"outputs":["y"]}]}}"#;

/// A valid file with 72 bytes of data region.
fn valid() -> Vec<u8> {
    assemble(MANIFEST.as_bytes(), &[1u8; 72])
}

#[test]
fn a_valid_file_checked_by_its_head_is_accepted() {
    let f = valid();
    assert_eq!(whole(&f, Limits::DEFAULT), Ok(()));
    let data_offset = u64::from_le_bytes(f[24..32].try_into().unwrap());
    assert_eq!(head_length(&f[..64], f.len() as u64, Limits::DEFAULT), Ok(data_offset));
    assert_eq!(by_head(&f, Limits::DEFAULT), Ok(()));
    // More bytes than needed change nothing: the whole file as its own head.
    assert_eq!(check_head(&f, f.len() as u64, Limits::DEFAULT), Ok(()));
}

/// §1.1 checks 1–11: every header byte and every padding byte set to values that break
/// each check, and every truncation of the file, read the same both ways.
#[test]
fn every_header_and_padding_failure_is_the_same_by_head() {
    let f = valid();
    let manifest_end = 64 + u64::from_le_bytes(f[16..24].try_into().unwrap()) as usize;
    let data_offset = u64::from_le_bytes(f[24..32].try_into().unwrap()) as usize;
    assert!(data_offset > manifest_end, "the file has padding");
    let mut tried = 0;
    for at in (0..64).chain(manifest_end..data_offset) {
        for v in [0u8, 1, 0x40, 0x80, 0xFF] {
            let mut g = f.clone();
            g[at] ^= v;
            agree(&g, &format!("byte {at} ^ {v:#x}"));
            tried += 1;
        }
    }
    for len in 0..f.len() {
        agree(&f[..len], &format!("the first {len} bytes"));
        tried += 1;
    }
    let mut longer = f.clone();
    longer.extend_from_slice(&[0; 64]);
    agree(&longer, "64 bytes more");
    assert!(tried > 500);
}

/// The tensor rules (§2.5 rules 1–5) look only at the data region's length: a range past
/// its end, a misaligned offset and a wrong length fail by head as they fail whole.
#[test]
fn tensor_ranges_are_checked_against_the_region_length() {
    for (old, new) in [
        (r#""offset":64,"length":8"#, r#""offset":128,"length":8"#),
        (r#""offset":64,"length":8"#, r#""offset":32,"length":8"#),
        (r#""offset":64,"length":8"#, r#""offset":64,"length":12"#),
        (r#""offset":0,"length":16"#, r#""offset":64,"length":16"#),
    ] {
        let g = assemble(MANIFEST.replace(old, new).as_bytes(), &[1u8; 72]);
        let e = whole(&g, Limits::DEFAULT).expect_err(new);
        assert_eq!(by_head(&g, Limits::DEFAULT), Err(e), "{new}");
    }
}

/// The manifest size limit (§1.1 check 10) is met before more than the header is asked
/// for: `head_length` rejects the file from its first 64 bytes.
#[test]
fn the_manifest_limit_is_met_from_the_first_64_bytes() {
    let f = valid();
    let small = Limits {
        max_manifest: 16,
        ..Limits::DEFAULT
    };
    let e = head_length(&f[..64], f.len() as u64, small).expect_err("over the limit");
    assert_eq!((e.kind, e.field), (ErrorKind::LimitExceeded, Some("manifest_length")));
    assert_eq!(by_head(&f, small), whole(&f, small));
}

/// Fewer bytes than the checks need are never read as a file: too short a head is
/// OutOfRange at the header or at `data_offset`, not a verdict on missing bytes.
#[test]
fn a_head_shorter_than_asked_for_is_out_of_range() {
    let f = valid();
    let len = f.len() as u64;
    let e = head_length(&f[..10], len, Limits::DEFAULT).expect_err("10 of 64 bytes");
    assert_eq!(
        (e.kind, e.field, e.offset),
        (ErrorKind::OutOfRange, Some("header"), Some(10))
    );
    let e = check_head(&f[..10], len, Limits::DEFAULT).expect_err("10 bytes");
    assert_eq!((e.kind, e.field), (ErrorKind::OutOfRange, Some("header")));
    let need = head_length(&f[..64], len, Limits::DEFAULT).unwrap() as usize;
    for short in [64, need - 1] {
        let e = check_head(&f[..short], len, Limits::DEFAULT).expect_err("short head");
        assert_eq!(
            (e.kind, e.field, e.offset),
            (ErrorKind::OutOfRange, Some("data_offset"), Some(24)),
            "{short}"
        );
    }
}
