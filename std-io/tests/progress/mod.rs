//! The progress contract of `modelgate check` (`spec/errors.md` §3.6), shared by the
//! format tests that check it.

use std::path::Path;

/// Checks `file` through the format registry entry `format`, as `modelgate check` does,
/// and asserts that progress is reported more than once, strictly increasing, never past
/// the file's length, which is the total every call names, and that the last call reports
/// it all.
pub fn assert_progress_monotone_to_the_total(format: &str, file: &Path) {
    let len = std::fs::metadata(file).unwrap().len();
    let mut calls = Vec::new();
    let checker = modelgate_io::check::by_name(format).unwrap();
    checker
        .check(file, &mut |done, total| calls.push((done, total)))
        .unwrap();
    assert!(calls.len() > 1, "{calls:?}");
    assert!(calls.windows(2).all(|w| w[0].0 < w[1].0), "{calls:?}");
    assert!(
        calls.iter().all(|&(done, total)| done <= total && total == len),
        "{calls:?}"
    );
    assert_eq!(calls.last(), Some(&(len, len)));
}
