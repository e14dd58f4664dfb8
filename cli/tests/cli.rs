//! The command lines, run as a user runs them (CONVENTIONS.md "Command line").

mod common;
use common::*;
use std::path::Path;

#[test]
fn check_prints_one_line_per_file_and_exits_1_on_rejection() {
    let d = scratch("check_lines");
    let ok = write(&d, "a.json", b"{\"a\":[1,2]}");
    let bad = write(&d, "b.json", b"{\"a\":1,\"a\":2}");
    let out = modelgate(&["check", &ok, &bad]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout(&out),
        format!("{ok}: ok (json)\n{bad}: rejected (json) InvalidJSON: duplicate object member name (byte 7)\n")
    );
}

#[test]
fn check_exits_0_when_all_accepted() {
    let d = scratch("check_ok");
    let ok = write(&d, "a.json", b"[]");
    let out = modelgate(&["check", &ok]);
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn check_json_output_has_the_six_keys() {
    let d = scratch("check_json");
    let ok = write(&d, "a.json", b"null");
    let bad = write(&d, "b.json", "[\"\u{FFFF}\"]".as_bytes());
    let out = modelgate(&["check", "--json", &ok, &bad]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let lines: Vec<_> = text.lines().collect();
    assert_eq!(
        lines[0],
        format!(
            "{{\"file\":\"{ok}\",\"format\":\"json\",\"ok\":true,\"kind\":null,\"message\":null,\"location\":null}}"
        )
    );
    assert_eq!(
        lines[1],
        format!(
            "{{\"file\":\"{bad}\",\"format\":\"json\",\"ok\":false,\"kind\":\"InvalidJSON\",\"message\":\"Unicode noncharacter in string\",\"location\":{{\"offset\":2}}}}"
        )
    );
    // Each line is itself strict JSON.
    for l in lines {
        modelgate_core::json::validate(l.as_bytes(), modelgate_core::json::Limits::DEFAULT).unwrap();
    }
}

#[test]
fn check_format_flag_overrides_the_name() {
    let d = scratch("check_format");
    let f = write(&d, "data.bin", b"{}");
    assert_eq!(
        modelgate(&["check", &f]).status.code(),
        Some(2),
        "no format from name or content"
    );
    let out = modelgate(&["check", "--format", "json", &f]);
    assert_eq!(
        (out.status.code(), stdout(&out)),
        (Some(0), format!("{f}: ok (json)\n"))
    );
}

#[test]
fn check_usage_and_io_errors_exit_2() {
    assert_eq!(modelgate(&["check"]).status.code(), Some(2));
    assert_eq!(
        modelgate(&["check", "--format", "nope", "x.json"]).status.code(),
        Some(2)
    );
    assert_eq!(modelgate(&["check", "/nonexistent/x.json"]).status.code(), Some(2));
    assert_eq!(modelgate(&["frobnicate"]).status.code(), Some(2));
}

#[test]
fn every_subcommand_has_help() {
    for args in [&["--help"][..], &["check", "--help"], &["corpus-check", "--help"]] {
        let out = modelgate(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(stdout(&out).contains("Usage:"), "{args:?}");
    }
    assert_eq!(corpus_check(&["--help"]).status.code(), Some(0));
}

#[test]
fn corpus_check_reports_mismatches_and_counts() {
    let d = scratch("corpus");
    std::fs::create_dir_all(d.join("sub")).unwrap();
    write(&d, "valid-ok.json", b"{}");
    write(&d, "InvalidJSON-really.json", b"{,}");
    let wrong_kind = write(&d.join("sub"), "LimitExceeded-not-really.json", b"[1,]");
    let wrongly_valid = write(&d, "InvalidJSON-fine.json", b"[]");
    write(&d, "README.md", b"skipped");
    write(&d, "Unknown-kind.json", b"skipped: not a known kind");
    let out = corpus_check(&[d.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let lines: Vec<_> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(
        lines.contains(&format!("{wrongly_valid}: expected InvalidJSON, got ok (json)").as_str()),
        "{text}"
    );
    assert!(
        lines.contains(
            &format!("{wrong_kind}: expected LimitExceeded, got rejected (json) InvalidJSON: unexpected byte, expected a value (byte 3)")
                .as_str()
        ),
        "{text}"
    );
    assert_eq!(lines[2], "2 passed, 2 failed");
    // The subcommand form gives the same result.
    let sub = modelgate(&["corpus-check", d.to_str().unwrap()]);
    assert_eq!((sub.status.code(), stdout(&sub)), (Some(1), text));
}

#[test]
fn corpus_check_passes_on_the_bundled_corpus() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../hostile-corpus");
    let out = corpus_check(&[corpus.to_str().unwrap()]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.ends_with(" passed, 0 failed\n"), "{text}");
}

#[cfg(unix)]
#[test]
fn corpus_check_walks_a_folder_named_through_a_link() {
    // A folder named on the command line through a link is walked: before, it was passed
    // over and the run reported `0 passed, 0 failed` with exit 0, a pass of nothing.
    let d = scratch("corpus_link");
    let real = d.join("real");
    std::fs::create_dir_all(&real).unwrap();
    let bad = write(&real, "valid-not-really.json", b"[1,]");
    std::os::unix::fs::symlink(&real, d.join("link")).unwrap();
    let link = d.join("link");
    let out = corpus_check(&[link.to_str().unwrap()]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let through_link = bad.replace("/real/", "/link/");
    assert_eq!(
        text,
        format!(
            "{through_link}: expected valid, got rejected (json) InvalidJSON: unexpected byte, expected a value (byte 3)\n\
             0 passed, 1 failed\n"
        )
    );
    // Below the root, a link to a file is checked through the link, one that leads nowhere
    // is an I/O error of that file, and a link to a folder is not walked.
    let inner = scratch("corpus_link_inner");
    let linked = inner.join("valid-linked.json");
    std::os::unix::fs::symlink(&bad, &linked).unwrap();
    let dangling = inner.join("valid-dangling.json");
    std::os::unix::fs::symlink(inner.join("nowhere"), &dangling).unwrap();
    std::os::unix::fs::symlink(&real, inner.join("folder-link")).unwrap();
    let out = corpus_check(&[inner.to_str().unwrap()]);
    let text = stdout(&out);
    let lines: Vec<_> = text.lines().collect();
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert_eq!(lines.len(), 3, "{text}");
    assert!(
        lines[0].starts_with(&format!("{}: expected valid, got I/O error", dangling.display())),
        "{text}"
    );
    assert!(
        lines[1].starts_with(&format!("{}: expected valid, got rejected (json)", linked.display())),
        "{text}"
    );
    assert_eq!(lines[2], "0 passed, 2 failed");
}

#[cfg(target_os = "linux")]
#[test]
fn results_that_cannot_be_written_exit_2() {
    // A failed write of the results is an I/O error (exit 2), not a panic (exit 101).
    let d = scratch("stdout_full");
    let ok = write(&d, "a.json", b"[]");
    let full = || std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let run = |program: &str, args: &[&str]| {
        std::process::Command::new(program)
            .args(args)
            .stdout(full())
            .output()
            .unwrap()
    };
    let modelgate = env!("CARGO_BIN_EXE_modelgate");
    for args in [
        &["check", &ok][..],
        &["check", "--json", &ok],
        &["corpus-check", d.to_str().unwrap()],
    ] {
        let out = run(modelgate, args);
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("cannot write the results"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    let out = run(env!("CARGO_BIN_EXE_corpus-check"), &[d.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
}
