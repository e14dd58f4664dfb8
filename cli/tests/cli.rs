//! The command lines, run as a user runs them (`spec/errors.md` §3, §4).

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
        all(&modelgate(&["check", &f])),
        (
            Some(2),
            String::new(),
            format!(
                "{f}: cannot tell the format from the name or the first bytes; use --format \
                 (mlbundle, onemodel, mpk, mvb, json, onnx, gzip, deflate)\n"
            )
        ),
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
    let o = modelgate(&["check"]);
    assert_eq!((o.status.code(), stdout(&o)), (Some(2), String::new()));
    assert!(
        stderr(&o).starts_with("error: the following required arguments were not provided:\n  <FILE>...\n"),
        "{}",
        stderr(&o)
    );
    let o = modelgate(&["check", "--format", "nope", "x.json"]);
    assert_eq!(
        all(&o),
        (
            Some(2),
            String::new(),
            "error: invalid value 'nope' for '--format <FORMAT>'\n  \
             [possible values: mlbundle, onemodel, mpk, mvb, json, onnx, gzip, deflate]\n\n\
             For more information, try '--help'.\n"
                .to_string()
        )
    );
    // The I/O error names the file, on stderr; the other files are still checked.
    let d = scratch("check_io");
    let ok = write(&d, "a.json", b"[]");
    assert_eq!(
        all(&modelgate(&["check", "/nonexistent/x.json", &ok])),
        (
            Some(2),
            format!("{ok}: ok (json)\n"),
            "/nonexistent/x.json: No such file or directory (os error 2)\n".to_string()
        )
    );
    assert_eq!(
        all(&modelgate(&["check", d.to_str().unwrap()])),
        (Some(2), String::new(), format!("{}: not a regular file\n", d.display()))
    );
}

#[test]
fn check_json_reports_io_and_unknown_format_errors_as_objects() {
    // With --json every file gives one object on stdout, the errors included; nothing on stderr.
    let d = scratch("check_json_errors");
    let unknown = write(&d, "data.bin", b"xx");
    let o = modelgate(&["check", "--json", "/nonexistent/x.json", &unknown]);
    assert_eq!(
        all(&o),
        (
            Some(2),
            format!(
                "{{\"file\":\"/nonexistent/x.json\",\"format\":\"json\",\"ok\":false,\"kind\":\"IoError\",\
                 \"message\":\"No such file or directory (os error 2)\",\"location\":null}}\n\
                 {{\"file\":\"{unknown}\",\"format\":null,\"ok\":false,\"kind\":\"UnknownFormat\",\
                 \"message\":\"cannot tell the format from the name or the first bytes; use --format \
                 (mlbundle, onemodel, mpk, mvb, json, onnx, gzip, deflate)\",\"location\":null}}\n"
            ),
            String::new()
        )
    );
}

#[test]
fn json_usage_errors_are_one_object() {
    let o = modelgate(&["check", "--json", "--fromat", "json", "x.json"]);
    assert_eq!(
        all(&o),
        (
            Some(2),
            "{\"file\":null,\"format\":null,\"ok\":false,\"kind\":\"UsageError\",\"message\":\"unexpected \
             argument '--fromat' found; tip: a similar argument exists: '--format'\",\"location\":null}\n"
                .to_string(),
            String::new()
        )
    );
    let o = modelgate(&["inspect", "--json"]);
    assert_eq!(
        all(&o),
        (
            Some(2),
            "{\"file\":null,\"format\":null,\"ok\":false,\"kind\":\"UsageError\",\"message\":\"the following \
             required arguments were not provided:\",\"location\":null}\n"
                .to_string(),
            String::new()
        )
    );
    // After `--`, `--json` is a file name: the error is plain text.
    let o = modelgate(&["check", "--bogus", "--", "--json"]);
    assert_eq!((o.status.code(), stdout(&o)), (Some(2), String::new()));
    assert!(stderr(&o).starts_with("error: unexpected argument '--bogus' found\n"));
}

#[test]
fn a_mistyped_command_gets_a_suggestion() {
    let o = modelgate(&["chek", "x.json"]);
    assert_eq!(
        all(&o),
        (
            Some(2),
            String::new(),
            "error: unrecognized subcommand 'chek'\n\n  tip: a similar subcommand exists: 'check'\n\n\
             Usage: modelgate [OPTIONS] <COMMAND>\n\nFor more information, try '--help'.\n"
                .to_string()
        )
    );
    let o = modelgate(&["mvb", "exprot"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("tip: a similar subcommand exists: 'export'"),
        "{}",
        stderr(&o)
    );
}

/// Every command and subcommand, as its words on the command line.
const COMMANDS: &[&[&str]] = &[
    &[],
    &["check"],
    &["inspect"],
    &["mlbundle"],
    &["mlbundle", "pack"],
    &["mpk"],
    &["mpk", "extract"],
    &["mvb"],
    &["mvb", "export"],
    &["mvb", "import"],
    &["mvb", "verify"],
    &["onemodel"],
    &["onemodel", "convert"],
    &["onemodel", "to-onnx"],
    &["corpus-check"],
    &["completions"],
    &["man"],
];

#[test]
fn every_subcommand_has_wrapped_help_and_a_version() {
    for words in COMMANDS {
        for flag in ["--help", "-h"] {
            let args: Vec<&str> = words.iter().copied().chain([flag]).collect();
            let o = modelgate(&args);
            let text = stdout(&o);
            assert_eq!(o.status.code(), Some(0), "{args:?}");
            assert!(text.contains("Usage: modelgate"), "{args:?}: {text}");
            for line in text.lines() {
                assert!(line.chars().count() <= 100, "{args:?}: {line:?}");
            }
        }
        // The program's name, whatever the subcommand (not clap's `modelgate-check`).
        for flag in ["--version", "-V"] {
            let args: Vec<&str> = words.iter().copied().chain([flag]).collect();
            let o = modelgate(&args);
            assert_eq!(
                (o.status.code(), stdout(&o), stderr(&o)),
                (Some(0), String::from("modelgate 0.1.0\n"), String::new()),
                "{args:?}"
            );
        }
    }
    let o = corpus_check(&["--help"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).lines().all(|l| l.chars().count() <= 100), "{}", stdout(&o));
    assert_eq!(stdout(&corpus_check(&["--version"])), "corpus-check 0.1.0\n");
}

#[test]
fn help_states_the_conventions_and_check_help_lists_the_formats() {
    let top = stdout(&modelgate(&["--help"]));
    assert!(
        top.contains(
            "Writing: mlbundle pack, onemodel convert and to-onnx, mpk extract, mvb export and import take their\n\
             inputs first and the output last (OUT). They print what they wrote on stdout and any failure, a\n\
             rejection included, on stderr."
        ),
        "{top}"
    );
    let help = stdout(&modelgate(&["check", "--help"]));
    assert!(
        help.contains(
            "          Possible values:\n\
             \x20         - mlbundle: *.mlbundle, or a ZIP archive\n\
             \x20         - onemodel: *.onemodel, or the OneModel magic\n\
             \x20         - mpk:      *.tar.gz, *.tgz, *.mpk, or gzip holding a tar archive\n\
             \x20         - mvb:      *.mvb.tar, or a tar archive\n\
             \x20         - json:     *.json\n\
             \x20         - onnx:     *.onnx\n\
             \x20         - gzip:     *.gz, or other gzip\n\
             \x20         - deflate:  *.deflate\n"
        ),
        "{help}"
    );
    let short = stdout(&modelgate(&["check", "-h"]));
    let flat = short.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("[possible values: mlbundle, onemodel, mpk, mvb, json, onnx, gzip, deflate]"),
        "{short}"
    );
}

#[test]
fn quiet_prints_only_what_did_not_pass() {
    let d = scratch("quiet");
    let ok = write(&d, "a.json", b"[]");
    let bad = write(&d, "b.json", b"[1,]");
    assert_eq!(
        all(&modelgate(&["check", "--quiet", &ok, &bad, "/nonexistent/x.json"])),
        (
            Some(2),
            format!("{bad}: rejected (json) InvalidJSON: unexpected byte, expected a value (byte 3)\n"),
            "/nonexistent/x.json: No such file or directory (os error 2)\n".to_string()
        )
    );
    assert_eq!(
        all(&modelgate(&["-q", "check", "--json", &ok])),
        (Some(0), String::new(), String::new())
    );
}

#[test]
fn inspect_takes_several_files() {
    let d = scratch("inspect_many");
    let mvb = corpus("mvb", "valid-model-bundle.mvb.tar");
    let mpk = corpus("mpk", "valid-basic-valid.tar.gz");
    let json = write(&d, "a.json", b"[]");
    let bad = corpus("mvb", "PathTraversal-symlink-entry.mvb.tar");
    let o = modelgate(&["inspect", &mvb, &json, &mpk, &bad]);
    let (code, out, err) = all(&o);
    assert_eq!(code, Some(2), "{out}{err}");
    assert_eq!(
        err,
        format!("{json}: json files have no inspection; use `modelgate check`\n")
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], format!("{mvb}: ok (mvb)"));
    assert_eq!(
        lines[1],
        "bundle qwen--qwen3-0.6b@c1899de289a0 (model, mvb 1.2, schema 1.6.0)"
    );
    let at = lines.iter().position(|l| *l == format!("{mpk}: ok (mpk)")).expect(&out);
    assert_eq!(
        lines[at + 1],
        "contract etc/model_mpk.json (name model, model_sdk_version 2.0.0)"
    );
    assert!(
        lines
            .last()
            .unwrap()
            .starts_with(&format!("{bad}: rejected (mvb) PathTraversal: link entry in bundle")),
        "{out}"
    );
    // With --json: one line per file, in the order given.
    let o = modelgate(&["inspect", "--json", &mvb, &json, &mpk]);
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(lines[0].starts_with("{\"artifact_type\":\"model\""), "{out}");
    assert_eq!(
        lines[1],
        format!(
            "{{\"file\":\"{json}\",\"format\":\"json\",\"ok\":false,\"kind\":\"UsageError\",\
             \"message\":\"json files have no inspection; use `modelgate check`\",\"location\":null}}"
        )
    );
    assert!(lines[2].starts_with("{\"contract\":\"etc/model_mpk.json\""), "{out}");
    assert_eq!((o.status.code(), stderr(&o)), (Some(2), String::new()));
}

#[test]
fn content_tells_the_format_of_a_file_whose_name_does_not() {
    use flate2::{Compression, GzBuilder};
    use std::io::Write;
    let d = scratch("sniff");
    let copy = |from: &str, to: &str| {
        let p = d.join(to);
        std::fs::copy(from, &p).unwrap();
        p.to_str().unwrap().to_string()
    };
    let bundle = copy(&corpus("mlbundle", "valid-composite-skops-cbm.mlbundle"), "bundle.bin");
    let export = copy(&corpus("mvb", "valid-model-bundle.mvb.tar"), "export.bin");
    let package = copy(&corpus("mpk", "valid-basic-valid.tar.gz"), "package.bin");
    let gzip = |name: Option<Vec<u8>>, payload: &[u8]| {
        let mut b = GzBuilder::new();
        if let Some(n) = name {
            b = b.filename(n);
        }
        let mut w = b.write(Vec::new(), Compression::default());
        w.write_all(payload).unwrap();
        w.finish().unwrap()
    };
    let mut tar_block = vec![0u8; 1024];
    tar_block[257..263].copy_from_slice(b"ustar\0");
    let plain = write(&d, "plain.bin", &gzip(None, b"hello"));
    // A tar header past the first 64 KiB (behind a 70,000-byte file name) is not looked for.
    let far = write(&d, "far.bin", &gzip(Some(vec![b'n'; 70_000]), &tar_block));
    let o = modelgate(&["check", &bundle, &export, &package, &plain, &far]);
    assert_eq!(
        all(&o),
        (
            Some(1),
            format!(
                "{bundle}: ok (mlbundle)\n{export}: ok (mvb)\n\
                 {package}: rejected (mpk) invalid_archive: package file name must end in .tar.gz\n\
                 {plain}: ok (gzip)\n{far}: ok (gzip)\n"
            ),
            String::new()
        )
    );
}

#[test]
fn corpus_check_reports_mismatches_skips_and_counts() {
    let d = scratch("corpus");
    std::fs::create_dir_all(d.join("sub")).unwrap();
    write(&d, "valid-ok.json", b"{}");
    write(&d, "InvalidJSON-really.json", b"{,}");
    let wrong_kind = write(&d.join("sub"), "LimitExceeded-not-really.json", b"[1,]");
    let wrongly_valid = write(&d, "InvalidJSON-fine.json", b"[]");
    let readme = write(&d, "README.md", b"skipped");
    let typo = write(&d, "InvalidJson-typo.json", b"skipped: not a known kind");
    let out = corpus_check(&[d.to_str().unwrap()]);
    assert_eq!(
        all(&out),
        (
            Some(1),
            format!(
                "{wrongly_valid}: expected InvalidJSON, got ok (json)\n\
                 {wrong_kind}: expected LimitExceeded, got rejected (json) InvalidJSON: unexpected byte, \
                 expected a value (byte 3)\n\
                 {typo}: skipped (\"InvalidJson\" is neither valid nor the error kind of a format)\n\
                 {readme}: skipped (name is not <Expected>-<case>.<ext>)\n\
                 2 skipped\n\
                 2 passed, 2 failed\n"
            ),
            String::new()
        )
    );
    // The subcommand form gives the same result.
    let sub = modelgate(&["corpus-check", d.to_str().unwrap()]);
    assert_eq!(all(&sub), all(&out));
}

#[test]
fn corpus_check_fails_on_a_missing_path_and_when_nothing_was_checked() {
    let d = scratch("corpus_nothing");
    let found = write(&d, "valid-x.json", b"[]");
    let missing = d.join("nowhere");
    let missing = missing.to_str().unwrap();
    // A path that does not exist fails the run; the others are still checked.
    assert_eq!(
        all(&corpus_check(&[missing, &found])),
        (
            Some(1),
            "1 passed, 0 failed\n".to_string(),
            format!("corpus-check: {missing}: does not exist\n")
        )
    );
    // An empty folder, or a file whose name states no outcome, checks nothing: a failure.
    let empty = d.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let other = write(&d, "notes.txt", b"");
    let nothing = "corpus-check: no <Expected>-<case>.<ext> file was found; nothing was checked\n";
    assert_eq!(
        all(&corpus_check(&[empty.to_str().unwrap()])),
        (Some(1), "0 passed, 0 failed\n".to_string(), nothing.to_string())
    );
    assert_eq!(
        all(&corpus_check(&[&other])),
        (
            Some(1),
            format!("{other}: skipped (name is not <Expected>-<case>.<ext>)\n1 skipped\n0 passed, 0 failed\n"),
            nothing.to_string()
        )
    );
    // A file named for an outcome is checked on its own.
    assert_eq!(
        all(&corpus_check(&[&found])),
        (Some(0), "1 passed, 0 failed\n".to_string(), String::new())
    );
}

#[test]
fn corpus_check_passes_on_the_bundled_corpus() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../hostile-corpus");
    let out = corpus_check(&[corpus.to_str().unwrap()]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.ends_with(" passed, 0 failed\n"), "{text}");
    // The only files skipped are the checksum manifests: a case named with a misspelt kind
    // would be listed here.
    let skipped = format!(
        "{}: skipped (name is not <Expected>-<case>.<ext>)\n\
         {}: skipped (name is not <Expected>-<case>.<ext>)\n2 skipped\n",
        corpus.join("SHA256SUMS").display(),
        corpus.join("mpk/fixtures_manifest.json").display()
    );
    assert!(text.starts_with(&skipped), "{text}");
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
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert_eq!(
        text,
        format!(
            "{}: expected valid, got I/O error: No such file or directory (os error 2)\n\
             {}: expected valid, got rejected (json) InvalidJSON: unexpected byte, expected a value (byte 3)\n\
             {}: skipped (link to a folder, not walked)\n\
             1 skipped\n\
             0 passed, 2 failed\n",
            dangling.display(),
            linked.display(),
            inner.join("folder-link").display()
        )
    );
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

#[test]
fn completions_and_man_pages_come_from_the_command_definitions() {
    let script = |shell: &str| {
        let o = modelgate(&["completions", shell]);
        assert_eq!((o.status.code(), stderr(&o)), (Some(0), String::new()), "{shell}");
        stdout(&o)
    };
    let bash = script("bash");
    assert!(bash.starts_with("_modelgate() {\n"), "{bash}");
    assert!(bash.contains("modelgate__subcmd__mvb__subcmd__export"), "{bash}");
    assert!(script("zsh").starts_with("#compdef modelgate\n"));
    assert!(
        script("fish").contains("mpk\\t'*.tar.gz, *.tgz, *.mpk, or gzip holding a tar archive'"),
        "the formats complete with their help"
    );
    script("elvish");
    script("powershell");
    let o = modelgate(&["man"]);
    let page = stdout(&o);
    assert_eq!(o.status.code(), Some(0));
    assert!(page.contains(".TH modelgate 1"), "{page}");
    assert!(page.contains("modelgate\\-mvb(1)"), "{page}");
    let page = stdout(&modelgate(&["man", "mvb", "export"]));
    assert!(page.contains(".TH modelgate-mvb-export 1"), "{page}");
    assert!(page.contains("\\fB\\-\\-overwrite\\fR"), "{page}");
    assert_eq!(
        all(&modelgate(&["man", "mvb", "nope"])),
        (
            Some(2),
            String::new(),
            "modelgate man: no command \"nope\" in `modelgate mvb nope`\n".to_string()
        )
    );
}
