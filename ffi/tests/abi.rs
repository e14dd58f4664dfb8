//! The C ABI called as C calls it, from Rust: argument handling, message truncation, the
//! host functions over paths (check, MPK extraction, mvb import and export), and OneModel
//! tensors read from a buffer and from a mapped file. `ffi/tests/run` does the same from C
//! and C++ under AddressSanitizer.

use modelgate_core::onemodel::{self, Graph, Model, Tensor, TensorData};
use modelgate_ffi::*;
use modelgate_io::corpus::{Expected, expectation};
use std::ffi::{CStr, CString};
use std::path::{Path, PathBuf};
use std::ptr;

/// A result with its own message buffer.
struct Out {
    text: Vec<u8>,
    r: mg_result,
}

impl Out {
    fn new(capacity: usize) -> Box<Out> {
        let mut out = Box::new(Out {
            text: vec![0xAA; capacity.max(1)],
            r: mg_result {
                message: ptr::null_mut(),
                message_capacity: capacity,
                message_len: 0,
                offset: 0,
                format: mg_format::MG_FORMAT_NONE,
                kind: 0,
                has_offset: false,
                truncated: false,
            },
        });
        out.r.message = out.text.as_mut_ptr().cast();
        out
    }

    fn text(&self) -> &str {
        std::str::from_utf8(&self.text[..self.r.message_len]).unwrap()
    }

    fn kind(&self) -> &'static str {
        let name = mg_kind_name(self.r.kind);
        assert!(!name.is_null(), "kind {} has no name: {}", self.r.kind, self.text());
        // SAFETY: a static NUL-terminated name.
        unsafe { CStr::from_ptr(name) }.to_str().unwrap()
    }
}

type Check = unsafe extern "C" fn(*const u8, usize, *const mg_limits, *mut mg_result) -> mg_status;

const CHECKS: [Check; 8] = [
    mg_check_json,
    mg_check_mlbundle,
    mg_check_onemodel,
    mg_check_onnx,
    mg_check_mpk,
    mg_check_mvb,
    mg_check_gzip,
    mg_check_deflate,
];

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../hostile-corpus")
}

fn c(path: &Path) -> CString {
    CString::new(path.as_os_str().as_encoded_bytes()).unwrap()
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("modelgate-ffi-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn bad_arguments_get_negative_statuses_without_touching_memory() {
    let mut out = Out::new(256);
    for check in CHECKS {
        // SAFETY: NULL data with a length is what is being refused; nothing is read.
        let status = unsafe { check(ptr::null(), 3, ptr::null(), &mut out.r) };
        assert_eq!(status, mg_status::MG_ERR_NULL);
        assert_eq!(out.text(), "data is NULL with a non-zero length");
        assert_eq!((out.r.kind, out.r.format), (MG_KIND_NONE, mg_format::MG_FORMAT_NONE));
        // A length no object can have: refused before the pointer is used.
        let one = [0u8; 1];
        for len in [usize::MAX, isize::MAX as usize + 1] {
            // SAFETY: as above; the length is refused before any read.
            let status = unsafe { check(one.as_ptr(), len, ptr::null(), &mut out.r) };
            assert_eq!(status, mg_status::MG_ERR_LENGTH);
        }
        // NULL with length 0 is the empty input, which no format accepts.
        // SAFETY: the empty input.
        let status = unsafe { check(ptr::null(), 0, ptr::null(), &mut out.r) };
        assert_eq!(status, mg_status::MG_REJECTED);
        assert_ne!(out.r.kind, MG_KIND_NONE);
        assert_ne!(out.r.kind, MG_KIND_UNKNOWN);
    }
    // SAFETY: NULL handles and outputs are what is being refused.
    unsafe {
        assert_eq!(mg_onemodel_tensor_count(ptr::null()), 0);
        assert_eq!(
            mg_onemodel_tensor(ptr::null(), 0, ptr::null_mut()),
            mg_status::MG_ERR_NULL
        );
        mg_onemodel_free(ptr::null_mut());
        assert_eq!(mg_check_file(ptr::null(), &mut out.r), mg_status::MG_ERR_NULL);
        assert_eq!(out.text(), "path is NULL");
        assert_eq!(
            mg_mpk_extract(c"a.tar.gz".as_ptr(), ptr::null(), ptr::null(), &mut out.r),
            mg_status::MG_ERR_NULL
        );
        assert_eq!(
            mg_mvb_import(ptr::null(), c"v".as_ptr(), &mut out.r),
            mg_status::MG_ERR_NULL
        );
        assert!(mg_onemodel_open_file(ptr::null(), ptr::null(), &mut out.r).is_null());
        assert_eq!(out.r.kind, MG_KIND_NONE);
    }
}

#[test]
fn the_message_is_cut_at_any_capacity_and_never_overflows() {
    let input = br#"{"a":1,"a":2}"#;
    let full = "InvalidJSON: duplicate object member name (byte 7)";
    for capacity in 0..=full.len() + 2 {
        let mut out = Out::new(capacity + 1);
        out.r.message_capacity = capacity;
        // SAFETY: live input; `message` holds `capacity + 1` bytes, more than promised.
        let status = unsafe { mg_check_json(input.as_ptr(), input.len(), ptr::null(), &mut out.r) };
        assert_eq!(status, mg_status::MG_REJECTED);
        assert_eq!(out.kind(), "InvalidJSON");
        assert_eq!((out.r.has_offset, out.r.offset), (true, 7));
        let written = full.len().min(capacity.saturating_sub(1));
        assert_eq!(out.r.message_len, written);
        assert_eq!(out.text(), &full[..written]);
        assert_eq!(out.r.truncated, written < full.len());
        if capacity > 0 {
            assert_eq!(out.text[written], 0, "NUL after the text");
        }
        // The byte past the capacity is never written.
        assert_eq!(out.text[capacity], 0xAA, "capacity {capacity}");
    }
}

/// `mg_check_file` gives every corpus file the outcome its name asks for, as corpus-check
/// does, with the kind's value in the format's enum.
#[test]
fn check_file_gives_every_corpus_file_its_expected_kind() {
    let mut checked = 0;
    let mut out = Out::new(512);
    for folder in std::fs::read_dir(corpus()).unwrap() {
        let folder = folder.unwrap().path();
        if !folder.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(&folder).unwrap() {
            let path = file.unwrap().path();
            let Ok(expected) = expectation(&path.file_name().unwrap().to_string_lossy()) else {
                continue;
            };
            // SAFETY: a NUL-terminated path and a live result.
            let status = unsafe { mg_check_file(c(&path).as_ptr(), &mut out.r) };
            match expected {
                Expected::Valid => assert_eq!(status, mg_status::MG_OK, "{}: {}", path.display(), out.text()),
                Expected::Kind(k) => {
                    assert_eq!(status, mg_status::MG_REJECTED, "{}", path.display());
                    assert_eq!(out.kind(), k, "{}", path.display());
                    assert!(out.text().starts_with(&k));
                }
            }
            assert_ne!(out.r.format, mg_format::MG_FORMAT_NONE);
            checked += 1;
        }
    }
    assert!(checked > 1000, "{checked}");
    // SAFETY: as above.
    let status = unsafe { mg_check_file(c"/nonexistent/file.json".as_ptr(), &mut out.r) };
    assert_eq!(status, mg_status::MG_ERR_IO);
}

#[test]
fn mpk_extract_publishes_only_accepted_packages() {
    let dir = temp("mpk");
    let dest = dir.join("out");
    let mut out = Out::new(512);
    let good = c(&corpus().join("mpk/valid-basic-valid.tar.gz"));
    // SAFETY: NUL-terminated paths, NULL limits, a live result.
    let status = unsafe { mg_mpk_extract(good.as_ptr(), c(&dest).as_ptr(), ptr::null(), &mut out.r) };
    assert_eq!(status, mg_status::MG_OK, "{}", out.text());
    assert!(out.text().starts_with("extracted "), "{}", out.text());
    assert!(dest.join("etc").is_dir());
    // SAFETY: as above.
    let again = unsafe { mg_mpk_extract(good.as_ptr(), c(&dest).as_ptr(), ptr::null(), &mut out.r) };
    assert_eq!(again, mg_status::MG_ERR_EXISTS);

    let bad = c(&corpus().join("mpk/path_traversal-dotdot-path.tar.gz"));
    let other = dir.join("other");
    // SAFETY: as above.
    let status = unsafe { mg_mpk_extract(bad.as_ptr(), c(&other).as_ptr(), ptr::null(), &mut out.r) };
    assert_eq!(status, mg_status::MG_REJECTED, "{}", out.text());
    assert_eq!(out.kind(), "path_traversal");
    assert!(!other.exists());

    let wrong_name = c(&corpus().join("mpk/invalid_archive-extension-tgz.tgz"));
    // SAFETY: as above.
    let status = unsafe { mg_mpk_extract(wrong_name.as_ptr(), c(&other).as_ptr(), ptr::null(), &mut out.r) };
    assert_eq!((status, out.kind()), (mg_status::MG_REJECTED, "invalid_archive"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn mvb_import_then_export() {
    let dir = temp("mvb");
    let vault = dir.join("vault");
    std::fs::create_dir(&vault).unwrap();
    let mut out = Out::new(1024);
    let archive = c(&corpus().join("mvb/valid-dataset-bundle.mvb.tar"));
    // SAFETY: NUL-terminated paths and a live result.
    let status = unsafe { mg_mvb_import(archive.as_ptr(), c(&vault).as_ptr(), &mut out.r) };
    assert_eq!(status, mg_status::MG_OK, "{}", out.text());
    let imported = PathBuf::from(out.text());
    assert!(imported.join("manifest.json").is_file(), "{}", imported.display());
    // SAFETY: as above.
    let again = unsafe { mg_mvb_import(archive.as_ptr(), c(&vault).as_ptr(), &mut out.r) };
    assert_eq!(again, mg_status::MG_ERR_EXISTS);

    let hostile = c(&corpus().join("mvb/PathTraversal-absolute-path.mvb.tar"));
    // SAFETY: as above.
    let status = unsafe { mg_mvb_import(hostile.as_ptr(), c(&vault).as_ptr(), &mut out.r) };
    assert_eq!((status, out.kind()), (mg_status::MG_REJECTED, "PathTraversal"));

    let exports = dir.join("exports");
    std::fs::create_dir(&exports).unwrap();
    // SAFETY: as above.
    let status = unsafe { mg_mvb_export(c(&imported).as_ptr(), c(&exports).as_ptr(), false, &mut out.r) };
    assert_eq!(status, mg_status::MG_OK, "{}", out.text());
    let written = out.text().split(" sha256 ").next().unwrap().to_string();
    let bytes = std::fs::read(&written).unwrap();
    // SAFETY: live bytes, NULL limits, a live result.
    let status = unsafe { mg_check_mvb(bytes.as_ptr(), bytes.len(), ptr::null(), &mut out.r) };
    assert_eq!(status, mg_status::MG_OK, "{}", out.text());
    // SAFETY: as above.
    let again = unsafe { mg_mvb_export(c(&imported).as_ptr(), c(&exports).as_ptr(), false, &mut out.r) };
    assert_eq!(again, mg_status::MG_ERR_EXISTS);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A OneModel file of 2 MiB and more, written by the core's writer: its tensors read from a
/// buffer and from the file, mapped, are the bytes that were written, in place.
#[test]
fn onemodel_tensors_point_into_the_buffer_and_the_mapped_file() {
    let weights: Vec<u8> = (0..(1u32 << 21)).map(|i| (i % 251) as u8).collect();
    let model = Model {
        ir_version: 9,
        graph: Graph {
            initializers: vec![
                Tensor {
                    name: "weights".into(),
                    dtype: 1,
                    dims: vec![512, 1024],
                    data: TensorData::Raw(weights.as_slice().into()),
                    ..Tensor::default()
                },
                Tensor {
                    name: "scalar".into(),
                    dtype: 7,
                    dims: vec![],
                    data: TensorData::Raw(7i64.to_le_bytes().to_vec().into()),
                    ..Tensor::default()
                },
            ],
            ..Graph::default()
        },
        ..Model::default()
    };
    let file = onemodel::write(&model, onemodel::Limits::DEFAULT).unwrap();
    let dir = temp("onemodel");
    let path = dir.join("big.onemodel");
    std::fs::write(&path, &file).unwrap();
    let mut out = Out::new(256);

    let check = |h: *mut mg_onemodel, base: Option<*const u8>| {
        // SAFETY: `h` is a live handle until freed at the end of this closure.
        unsafe {
            assert_eq!(mg_onemodel_tensor_count(h), 2);
            let mut t: mg_tensor = std::mem::zeroed();
            assert_eq!(mg_onemodel_tensor(h, 0, &mut t), mg_status::MG_OK);
            assert_eq!(std::slice::from_raw_parts(t.name.cast::<u8>(), t.name_len), b"weights");
            assert_eq!(*t.name.add(t.name_len), 0);
            assert_eq!(t.dtype, mg_dtype::MG_DTYPE_FLOAT);
            assert_eq!(std::slice::from_raw_parts(t.dims, t.rank), [512, 1024]);
            assert_eq!(std::slice::from_raw_parts(t.data, t.data_len), weights.as_slice());
            if let Some(base) = base {
                // In place: a view of the caller's buffer, 64-byte aligned from its start.
                let at = t.data as usize - base as usize;
                assert_eq!(&file[at..at + t.data_len], weights.as_slice());
                assert_eq!(at % 64, 0);
            }
            assert_eq!(mg_onemodel_tensor(h, 1, &mut t), mg_status::MG_OK);
            assert_eq!((t.rank, t.dims.is_null()), (0, true));
            assert_eq!(std::slice::from_raw_parts(t.data, t.data_len), 7i64.to_le_bytes());
            assert_eq!(mg_onemodel_tensor(h, 2, &mut t), mg_status::MG_ERR_ARGUMENT);
            let (mut s, mut n) = (ptr::null(), 0usize);
            assert_eq!(
                mg_onemodel_tensor_string(h, 0, 0, &mut s, &mut n),
                mg_status::MG_ERR_ARGUMENT
            );
            mg_onemodel_free(h);
        }
    };

    // SAFETY: `file` outlives the handle, which `check` frees.
    let h = unsafe { mg_onemodel_open(file.as_ptr(), file.len(), ptr::null(), &mut out.r) };
    assert!(!h.is_null(), "{}", out.text());
    check(h, Some(file.as_ptr()));

    // SAFETY: this test's file is not written again while a handle of it lives.
    unsafe { mg_allow_mapping() };
    // SAFETY: a NUL-terminated path, NULL limits, a live result.
    let h = unsafe { mg_onemodel_open_file(c(&path).as_ptr(), ptr::null(), &mut out.r) };
    assert!(!h.is_null(), "{}", out.text());
    check(h, None);

    // A lower tensor bound is the caller's: the 2 MiB tensor is over it.
    let mut limits = mg_limits_default();
    limits.onemodel.max_tensor_bytes = 1 << 20;
    // SAFETY: as above.
    let h = unsafe { mg_onemodel_open(file.as_ptr(), file.len(), &limits, &mut out.r) };
    assert!(h.is_null());
    assert_eq!(out.kind(), "Unsupported");
    assert_eq!(out.r.format, mg_format::MG_FORMAT_ONEMODEL);
    std::fs::remove_dir_all(&dir).unwrap();
}
