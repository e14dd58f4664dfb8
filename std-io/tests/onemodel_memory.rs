//! Re-writing a OneModel file whose tensors share bytes (`spec/onemodel.md` §1.3, §4): the
//! writer writes each tensor in full, and what that adds beyond the memory the model holds
//! is capped by `Limits::max_shared_data` (2^31 − 1 by default). A 1.3 MB file of 2049
//! tensors over one 1 MiB range, loaded (mapped) from disk as a library user would, is
//! refused before the 2 GiB output is reserved.

use modelgate_core::onemodel::{self, ErrorKind, assemble};
use modelgate_io::temp::TempDir;

use modelgate_corpus_gen::counting;

#[global_allocator]
static GLOBAL: counting::Counting = counting::Counting;

#[test]
fn rewriting_tensors_that_share_bytes_is_refused_without_reserving_the_output() {
    let tensor = |i: usize| {
        format!("{{\"name\":\"t{i}\",\"dtype\":2,\"dims\":[1048576],\"data\":{{\"offset\":0,\"length\":1048576}}}}")
    };
    let list: Vec<String> = (0..2049).map(tensor).collect();
    let manifest = format!(
        "{{\"ir_version\":9,\"graph\":{{\"initializers\":[{}]}}}}",
        list.join(",")
    );
    let dir = TempDir::create(&std::env::temp_dir(), "modelgate-shared", "memory").unwrap();
    let path = dir.path().join("shared.onemodel");
    std::fs::write(&path, assemble(manifest.as_bytes(), &vec![7u8; 1 << 20])).unwrap();
    let bytes = modelgate_io::onemodel::load(&path).unwrap();
    let model = onemodel::read(&bytes, onemodel::Limits::DEFAULT).unwrap();
    // 2049 MiB of tensor bytes over 1 MiB of memory: sharing adds 2^31 bytes, one over.
    // Only the length leaves the closure, so a failing run does not print the output.
    let (written, peak) =
        counting::peak_of(|| onemodel::write(&model, onemodel::Limits::DEFAULT).map(|file| file.len()));
    assert!(peak < 16 << 20, "peak {peak} bytes");
    let e = written.unwrap_err();
    assert_eq!(
        (e.kind, e.path.as_deref(), e.offset),
        (ErrorKind::LimitExceeded, Some("model"), None)
    );
}
