//! Every hostile-corpus file that must be rejected is rejected, as `corpus-check` checks it,
//! with at most 16 MiB of heap above its own size (the hostile-corpus memory goal of README
//! "Benchmarks"; `spec/errors.md` §2.3: sizes are checked before anything is allocated from
//! them). The benchmark's
//! `hostile` case reports the same peak; this test keeps it from regressing in CI.
//! `onemodel/Malformed-sparse-initializers-131072-numbers.onemodel` is the file that pins
//! the OneModel reader's capped list reservations: a reader that reserved for a list's
//! length up front would need about 43 MB for its 256 KiB.

use modelgate_io::corpus::{Expected, check_one, collect};
use std::path::PathBuf;

use modelgate_corpus_gen::counting;

#[global_allocator]
static GLOBAL: counting::Counting = counting::Counting;

const GOAL: usize = 16 << 20;

#[test]
fn every_rejected_corpus_file_stays_within_16_mib_of_heap_above_its_size() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../hostile-corpus");
    let files = collect(std::slice::from_ref(&root)).unwrap().files;
    let rejected: Vec<_> = files.iter().filter(|(_, e)| matches!(e, Expected::Kind(_))).collect();
    assert!(rejected.len() > 600, "{}", rejected.len());
    let mut worst = (0, PathBuf::new());
    for (path, expected) in rejected {
        let size = usize::try_from(std::fs::metadata(path).unwrap().len()).unwrap();
        let (mismatch, peak) = counting::peak_of(|| check_one(path, expected));
        assert!(mismatch.is_none(), "{}: {mismatch:?}", path.display());
        let above = peak.saturating_sub(size);
        if above > worst.0 {
            worst = (above, path.clone());
        }
    }
    eprintln!("largest heap above the input: {} B ({})", worst.0, worst.1.display());
    assert!(
        worst.0 <= GOAL,
        "{} B above the input for {}",
        worst.0,
        worst.1.display()
    );
}
