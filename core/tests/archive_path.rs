//! Tests of archive path validation, normalisation and duplicate detection
//! (`spec/mpk.md` §2). Each rule has a test named for it asserting the exact reason and
//! byte offset.

use modelgate_core::archive_path::{PathLimits, PathReason, PathSet, SetError, normalize};

fn ok(raw: &str) -> String {
    normalize(raw.as_bytes(), &PathLimits::DEFAULT).unwrap_or_else(|e| panic!("{raw:?}: {e}"))
}

fn bad(raw: &[u8]) -> (PathReason, usize) {
    let e = normalize(raw, &PathLimits::DEFAULT).expect_err("must be rejected");
    (e.reason, e.offset)
}

#[test]
fn plain_paths_accepted() {
    assert_eq!(ok("etc/model.json"), "etc/model.json");
    assert_eq!(ok("a.so"), "a.so");
    assert_eq!(
        ok("qwen--qwen3-0.6b@c1899de289a0/model/w.safetensors"),
        "qwen--qwen3-0.6b@c1899de289a0/model/w.safetensors"
    );
    assert_eq!(ok("dir/.hidden"), "dir/.hidden");
    assert_eq!(ok("a/..b/c..d"), "a/..b/c..d");
    assert_eq!(ok("名前/モデル.elf"), "名前/モデル.elf");
}

#[test]
fn dot_and_empty_segments_normalised() {
    assert_eq!(ok("./a"), "a");
    assert_eq!(ok("a//b"), "a/b");
    assert_eq!(ok("a/./b/"), "a/b");
    assert_eq!(ok("././a///./b/."), "a/b");
    assert_eq!(ok("dir/"), "dir");
}

#[test]
fn absolute_rejected() {
    assert_eq!(bad(b"/etc/passwd"), (PathReason::Absolute, 0));
    assert_eq!(bad(b"//server/share"), (PathReason::Absolute, 0));
}

#[test]
fn traversal_rejected() {
    assert_eq!(bad(b".."), (PathReason::Traversal, 0));
    assert_eq!(bad(b"../x"), (PathReason::Traversal, 0));
    assert_eq!(bad(b"a/../../x"), (PathReason::Traversal, 2));
    assert_eq!(bad(b"a/b/.."), (PathReason::Traversal, 4));
    assert_eq!(bad(b"./..//x"), (PathReason::Traversal, 2));
    assert_eq!(bad(b"a/..//"), (PathReason::Traversal, 2));
}

#[test]
fn drive_prefix_rejected() {
    assert_eq!(bad(b"C:"), (PathReason::DrivePrefix, 1));
    assert_eq!(bad(b"c:/windows"), (PathReason::DrivePrefix, 1));
    assert_eq!(bad(b"C:foo"), (PathReason::DrivePrefix, 1));
}

#[test]
fn colon_rejected() {
    assert_eq!(bad(b"file.so:stream"), (PathReason::Colon, 7));
    assert_eq!(bad(b"ab:"), (PathReason::Colon, 2));
}

#[test]
fn backslash_and_mixed_separators_rejected() {
    assert_eq!(bad(b"..\\x"), (PathReason::Backslash, 2));
    assert_eq!(bad(b"a\\b"), (PathReason::Backslash, 1));
    assert_eq!(bad(b"a/..\\/b"), (PathReason::Backslash, 4));
    assert_eq!(bad(b"C:\\x"), (PathReason::DrivePrefix, 1));
}

#[test]
fn nul_rejected() {
    assert_eq!(bad(b"a\0b"), (PathReason::Nul, 1));
}

#[test]
fn control_character_rejected() {
    assert_eq!(bad(b"a\nb"), (PathReason::ControlCharacter, 1));
    assert_eq!(bad(b"a\x7f"), (PathReason::ControlCharacter, 1));
}

#[test]
fn invalid_utf8_rejected() {
    assert_eq!(bad(b"ok/\xff"), (PathReason::InvalidUtf8, 3));
    assert_eq!(bad(b"\xc0\xaf"), (PathReason::InvalidUtf8, 0));
    assert_eq!(bad(b"a\xed\xa0\x80"), (PathReason::InvalidUtf8, 1));
    assert_eq!(bad(b"\xe2\x88"), (PathReason::InvalidUtf8, 0));
}

#[test]
fn slash_confusables_rejected() {
    for c in [
        '\u{FF0F}', '\u{2215}', '\u{FF3C}', '\u{2044}', '\u{29F8}', '\u{29F9}', '\u{FE68}', '\u{2216}',
    ] {
        let p = format!("..{c}etc{c}passwd");
        assert_eq!(bad(p.as_bytes()), (PathReason::SlashConfusable, 2), "{c:?}");
        let p = format!("a{c}b");
        assert_eq!(bad(p.as_bytes()), (PathReason::SlashConfusable, 1), "{c:?}");
    }
}

#[test]
fn dot_confusables_in_traversal_segments_rejected() {
    for c in ['\u{3002}', '\u{FF61}', '\u{2025}', '\u{A60E}'] {
        for seg in [format!("{c}{c}"), format!(".{c}"), format!("{c}."), format!("{c}")] {
            let p = format!("a/{seg}/b");
            assert_eq!(bad(p.as_bytes()), (PathReason::DotConfusable, 2), "{seg:?}");
        }
    }
    assert_eq!(bad("\u{2025}/x".as_bytes()), (PathReason::DotConfusable, 0));
    assert_eq!(bad("\u{2026}".as_bytes()), (PathReason::DotConfusable, 0));
}

#[test]
fn ignorables_in_traversal_segments_rejected() {
    assert_eq!(bad("a/..\u{200B}/b".as_bytes()), (PathReason::DotConfusable, 2));
    assert_eq!(bad("\u{FEFF}../b".as_bytes()), (PathReason::DotConfusable, 0));
    assert_eq!(bad(".\u{FE0F}.".as_bytes()), (PathReason::DotConfusable, 0));
}

/// §2.4: the three dot look-alikes the MPK loader rewrites to `.` are rejected anywhere,
/// at the first one, before any segment rule.
#[test]
fn rewritten_dot_lookalikes_rejected_anywhere() {
    for c in ['\u{FF0E}', '\u{2024}', '\u{FE52}'] {
        assert_eq!(
            bad(format!("extra/v1{c}0.json").as_bytes()),
            (PathReason::DotLookalike, 8)
        );
        assert_eq!(bad(format!("a/{c}{c}/b").as_bytes()), (PathReason::DotLookalike, 2));
        assert_eq!(bad(format!("{c}").as_bytes()), (PathReason::DotLookalike, 0));
        assert_eq!(bad(format!("../{c}").as_bytes()), (PathReason::DotLookalike, 3));
    }
    assert!(PathReason::DotLookalike.is_traversal());
}

/// §2.5: the other dot confusables are rejected only where they make a segment look like a
/// traversal.
#[test]
fn other_dot_confusables_in_ordinary_names_accepted() {
    assert_eq!(ok("model\u{3002}json"), "model\u{3002}json");
    assert_eq!(ok("a\u{2026}b/c"), "a\u{2026}b/c");
}

#[test]
fn dot_segment_rejected() {
    assert_eq!(bad(b"a/.../b"), (PathReason::DotSegment, 2));
    assert_eq!(bad(b". ."), (PathReason::DotSegment, 0));
    assert_eq!(bad(b"x/ "), (PathReason::DotSegment, 2));
    assert_eq!(bad(b".. /x"), (PathReason::DotSegment, 0));
}

#[test]
fn trailing_dot_or_space_rejected() {
    assert_eq!(bad(b"a./b"), (PathReason::TrailingDotOrSpace, 1));
    assert_eq!(bad(b"dir/model.json "), (PathReason::TrailingDotOrSpace, 14));
}

#[test]
fn empty_rejected() {
    assert_eq!(bad(b""), (PathReason::Empty, 0));
    assert_eq!(bad(b"./"), (PathReason::Empty, 0));
    assert_eq!(bad(b".//./"), (PathReason::Empty, 0));
}

#[test]
fn too_long_rejected() {
    let long = "a/".repeat(2048) + "b";
    assert_eq!(bad(long.as_bytes()), (PathReason::TooLong, 4096));
    let seg = "s".repeat(256);
    assert_eq!(bad(format!("d/{seg}").as_bytes()), (PathReason::TooLong, 2));
    assert_eq!(ok(&"s".repeat(255)).len(), 255);
}

/// §2.6: at most 255 segments after normalisation (empty and `.` segments do not count);
/// the 256th is `TooDeep` at its offset, after the earlier segments' own checks.
#[test]
fn more_segments_than_the_limit_rejected() {
    let deepest = "d/".repeat(254) + "x";
    assert_eq!(ok(&deepest).split('/').count(), 255);
    assert_eq!(
        ok(&("./".repeat(40) + &deepest.replace('/', "//"))).split('/').count(),
        255
    );
    let deeper = "d/".repeat(255) + "x";
    assert_eq!(bad(deeper.as_bytes()), (PathReason::TooDeep, 510));
    assert!(!PathReason::TooDeep.is_traversal());
    let traversal_first = "d/".repeat(300) + "../x";
    assert_eq!(bad(traversal_first.as_bytes()), (PathReason::TooDeep, 510));
    assert_eq!(
        bad(("../".to_string() + &deeper).as_bytes()),
        (PathReason::Traversal, 0)
    );
}

#[test]
fn accepted_paths_have_only_plain_segments() {
    for raw in ["./a", "a//b/./c/", "x/y.so"] {
        let n = ok(raw);
        assert!(n.split('/').all(|s| !s.is_empty() && s != "." && s != ".."));
        assert!(!n.starts_with('/'));
    }
}

// ---------------------------------------------------------------- §2.7 PathSet

fn set() -> PathSet {
    PathSet::new([1, 2])
}

#[test]
fn duplicate_after_normalisation_rejected() {
    let mut s = set();
    s.insert(&ok("./etc/a.json"), false).unwrap();
    assert_eq!(s.insert(&ok("etc//a.json"), false), Err(SetError::Duplicate));
}

#[test]
fn case_folded_duplicate_rejected() {
    let mut s = set();
    s.insert("etc/A.json", false).unwrap();
    assert_eq!(s.insert("ETC/a.JSON", false), Err(SetError::Duplicate));
}

#[test]
fn file_under_file_conflict_rejected() {
    let mut s = set();
    s.insert("a.so", false).unwrap();
    assert_eq!(s.insert("a.so/b", false), Err(SetError::Conflict));
}

#[test]
fn file_over_directory_conflict_rejected() {
    let mut s = set();
    s.insert("d/x", false).unwrap();
    assert_eq!(s.insert("d", false), Err(SetError::Conflict));
    assert_eq!(s.insert("d/x", true), Err(SetError::Conflict));
}

#[test]
fn repeated_directories_accepted() {
    let mut s = set();
    s.insert("d", true).unwrap();
    s.insert("d/x", false).unwrap();
    s.insert("d", true).unwrap();
    s.insert("D/y", false).unwrap();
}

#[test]
fn many_paths_distinct() {
    let mut s = set();
    for i in 0..20_000 {
        s.insert(&format!("d{}/f{i}.json", i % 97), false).unwrap();
    }
    assert_eq!(s.insert("d5/f5.json", false), Err(SetError::Duplicate));
    assert_eq!(s.insert("d6/F6.JSON", false), Err(SetError::Duplicate));
    assert_eq!(s.insert("d5/f6.json", false), Ok(()));
}
