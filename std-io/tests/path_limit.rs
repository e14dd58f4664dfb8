//! `spec/mpk.md` §6.5 (and `spec/mvb.md` §6.2): a file whose path below the destination
//! would pass the operating system's path limit is a rejection of the format's limit kind
//! at its entry, decided before anything is written for it, and nothing is left on disk;
//! a path exactly at the limit is extracted. The destinations are long folders, so the
//! entry paths stay well within the archive path rules (`spec/mpk.md` §2.6); an MPK file is
//! extracted under its name alone (`spec/mpk.md` §3.2.2), so its folders are deep enough
//! that the room is shorter than a name may be.
//!
//! The room below a destination, by §6.5 on Linux: 4096 − 1 (NUL) − the real path of the
//! folder the temporary tree is made in − 1 (`/`) − the longest temporary name (its stem,
//! cut to 128 bytes, and tag + 51), or for MPK DEST's own name when that is longer, − 1
//! (`/`).
#![cfg(target_os = "linux")]

use modelgate_core::Location;
use modelgate_core::digest::{hex, sha256};
use modelgate_core::gzip::write_gzip;
use modelgate_core::mpk::{MpkKind, MpkLimits};
use modelgate_core::mvb::append_entry;
use modelgate_core::mvb::{MANIFEST, MARKER, Manifest, Marker, MvbKind, MvbLimits, bundle_hash, covers};
use modelgate_core::tar::END_OF_ARCHIVE;
use modelgate_core::tar::{FileMeta, Flavor, TarWriter};
use modelgate_io::extract::{ExtractError, extract};
use modelgate_io::mvb::{MvbIoError, import};
use modelgate_io::path_limit::PATH_MAX;
use modelgate_io::temp::TempDir;
use std::fs;
use std::path::{Path, PathBuf};

mod listing;
use listing::sorted_names;

/// What a temporary name adds to its stem and tag at most: five dots, a process id of 10
/// digits, a counter of 20 and 16 random hex digits (`spec/mpk.md` §6.3).
const TEMP_EXTRA: usize = 5 + 10 + 20 + 16;

/// A fresh folder, removed when the test ends.
fn scratch(tag: &str) -> TempDir {
    TempDir::create(&std::env::temp_dir(), "mg-path-limit", tag).unwrap()
}

/// A folder below `base` whose real path is `len` bytes long (made of 200-byte names).
fn long_folder(base: &Path, len: usize) -> PathBuf {
    let mut dir = fs::canonicalize(base).unwrap();
    loop {
        let left = len - dir.as_os_str().len();
        if left == 0 {
            break;
        }
        // A last name of at least 2 bytes: `/` and one letter.
        let take = if left > 201 { 200.min(left - 2 - 1) } else { left - 1 };
        dir.push("d".repeat(take));
    }
    fs::create_dir_all(&dir).unwrap();
    assert_eq!(fs::canonicalize(&dir).unwrap().as_os_str().len(), len);
    dir
}

/// A relative path of exactly `len` bytes ending in `end`, of names of at most 200 bytes.
fn path_of_len(len: usize, end: &str) -> String {
    let mut p = String::new();
    while len - p.len() - end.len() > 201 {
        p.push_str(&"p".repeat(200));
        p.push('/');
    }
    let last = len - p.len() - end.len();
    p.push_str(&"q".repeat(last));
    p.push_str(end);
    assert_eq!(p.len(), len);
    p
}

/// A file name of exactly `len` bytes ending in `end` (at most 255: one path segment).
fn name_of_len(len: usize, end: &str) -> String {
    assert!(len <= 255);
    "q".repeat(len - end.len()) + end
}

/// The room `spec/mpk.md` §6.5 leaves below a temporary tree made in the folder whose real
/// path is `folder_len` bytes long, named from `stem` and `tag` (a DEST name of at most 128
/// bytes: the root's name is then the longer).
fn room(folder_len: usize, stem: &str, tag: &str) -> usize {
    PATH_MAX - 1 - folder_len - 1 - (stem.len() + tag.len() + TEMP_EXTRA) - 1
}

#[test]
fn path_max_is_linuxs() {
    assert_eq!(PATH_MAX, 4096);
}

// ---------------------------------------------------------------- MPK

const CONTRACT: &str = r#"{"name":"m","plugins":[{"name":"run","sequence":1,"processor":"MLA","type":"sgpProcess","config_params":{"desired_batch_size":1,"actual_batch_size":1},"input_nodes":[],"output_nodes":[],"resources":{"executable":"m.elf"}}]}"#;
const PIPELINE: &str = r#"{"pipelines":[{"sequence":[{"sequence_id":1,"name":"run","pluginId":"processmla","configPath":"run.json","processor":"MLA","kernel":"infer","input":"decoder"}]}]}"#;

/// A valid package with a last file at `long` (a `.so`, so it lands at `lib/<long>`), and
/// the tar offset of that file's first header.
fn package_with(long: &str) -> (Vec<u8>, u64) {
    let mut w = TarWriter::new(Flavor::Gnu);
    for (p, d) in [
        ("mpk.json", CONTRACT.as_bytes()),
        ("pipeline_sequence.json", PIPELINE.as_bytes()),
        ("run.json", b"{}"),
        ("m.elf", b"\x7fELF"),
    ] {
        w.append_file(p.as_bytes(), d, &FileMeta::FIXED).unwrap();
    }
    let mut before = w.finish();
    before.truncate(before.len() - END_OF_ARCHIVE.len());
    let at = before.len() as u64;
    let mut w = TarWriter::new(Flavor::Gnu);
    w.append_file(long.as_bytes(), b"long", &FileMeta::FIXED).unwrap();
    before.extend_from_slice(&w.finish());
    (write_gzip(&before, usize::MAX).unwrap(), at)
}

/// A package whose last file's destination `lib/<path>` has `dest_len` bytes, extracted to
/// `<folder>/out` where the real path of `folder` has `folder_len` bytes (the package
/// itself is elsewhere); returns the outcome, the folder and the path.
fn extract_at(tmp: &TempDir, folder_len: usize, dest_len: usize) -> (Result<(), ExtractError>, PathBuf, String) {
    let folder = long_folder(tmp.path(), folder_len);
    let path = name_of_len(dest_len - "lib/".len(), ".so");
    let (bytes, _) = package_with(&path);
    let pkg = tmp.path().join("long.tar.gz");
    fs::write(&pkg, bytes).unwrap();
    let r = extract(&pkg, &folder.join("out"), MpkLimits::DEFAULT, &mut |_, _| {});
    (r.map(|_| ()), folder, path)
}

/// The real path length of a folder below which an MPK DEST named `out` has 150 bytes of
/// room: a file name of 146 bytes in `lib/`.
const MPK_FOLDER: usize = PATH_MAX - 1 - 1 - ("out".len() + "mpk-tmp".len() + TEMP_EXTRA) - 1 - 150;

/// Today's failure: a file 100 bytes past the room, which is past the kernel's `PATH_MAX`
/// too whatever the temporary name's digits, was an I/O error (`ENAMETOOLONG`, exit 2).
#[test]
fn mpk_entry_past_the_path_limit_below_the_destination_is_size_limit_exceeded_at_the_entry() {
    let tmp = scratch("mpk-over");
    let folder_len = MPK_FOLDER;
    let dest_len = room(folder_len, "out", "mpk-tmp") + 100;
    let (r, folder, path) = extract_at(&tmp, folder_len, dest_len);
    let (_, at) = package_with(&path);
    match r {
        Err(ExtractError::Rejected(e)) => {
            assert_eq!(e.kind, MpkKind::SizeLimitExceeded, "{e}");
            assert_eq!(e.location, Location::at(at).in_member(&path));
            assert!(e.to_string().contains("path limit leaves"), "{e}");
        }
        other => panic!("{other:?}"),
    }
    // Neither the destination nor the temporary tree is left.
    assert!(sorted_names(&folder).is_empty(), "{:?}", sorted_names(&folder));
}

#[test]
fn mpk_entry_one_byte_past_the_room_is_refused_and_leaves_nothing() {
    let tmp = scratch("mpk-one");
    let dest_len = room(MPK_FOLDER, "out", "mpk-tmp") + 1;
    let (r, folder, _) = extract_at(&tmp, MPK_FOLDER, dest_len);
    assert!(
        matches!(&r, Err(ExtractError::Rejected(e)) if e.kind == MpkKind::SizeLimitExceeded),
        "{r:?}"
    );
    assert!(sorted_names(&folder).is_empty(), "{:?}", sorted_names(&folder));
}

#[test]
fn mpk_entry_exactly_at_the_room_is_extracted() {
    let tmp = scratch("mpk-at");
    let dest_len = room(MPK_FOLDER, "out", "mpk-tmp");
    assert_eq!(dest_len, 150);
    let (r, folder, path) = extract_at(&tmp, MPK_FOLDER, dest_len);
    r.unwrap();
    assert_eq!(sorted_names(&folder), ["out"]);
    assert_eq!(fs::read(folder.join("out/lib").join(&path)).unwrap(), b"long");
}

// ---------------------------------------------------------------- mvb

const ID: &str = "b1";

/// An mvb archive of one payload file at `model/<rest>`, and the offset of its header.
fn archive_with(rest: &str) -> (Vec<u8>, u64) {
    let bundle_path = format!("model/{rest}");
    let data = b"deep".as_slice();
    let sha = hex(&sha256(data));
    let hash = bundle_hash([(bundle_path.as_str(), sha.as_str())]);
    let manifest = format!(
        r#"{{"schema_version":"1.6.0","kind":"darsay.bundle","artifact_type":"model","bundle_id":"{ID}","inventory":{{"layout":{{"payload_root":"model/"}},"files":[{{"path":"{bundle_path}","size":4,"sha256":"{sha}"}}],"bundle_hash":{{"algorithm":"sha256-of-sorted-sha256-lines","value":"{hash}","covers":"{}"}}}},"archive":{{"date_archived":"2025-06-01T12:00:00Z"}}}}"#,
        covers("model")
    );
    let parsed = Manifest::parse(manifest.as_bytes(), &MvbLimits::DEFAULT, [1, 2]).unwrap();
    let marker = Marker::for_manifest(&parsed);
    let mut out = Vec::new();
    append_entry(&mut out, ID, MARKER, &marker.to_bytes(), 0).unwrap();
    append_entry(&mut out, ID, MANIFEST, manifest.as_bytes(), 0).unwrap();
    let at = out.len() as u64;
    append_entry(&mut out, ID, &bundle_path, data, 0).unwrap();
    out.extend_from_slice(&END_OF_ARCHIVE);
    (out, at)
}

/// Imports an archive whose payload file's destination `<id>/model/<rest>` has `dest_len`
/// bytes into a vault whose real path has `vault_len` bytes.
fn import_at(tmp: &TempDir, vault_len: usize, dest_len: usize) -> (Result<(), MvbIoError>, PathBuf, String, u64) {
    let vault = long_folder(tmp.path(), vault_len);
    let rest = path_of_len(dest_len - format!("{ID}/model/").len(), ".bin");
    let (bytes, at) = archive_with(&rest);
    let file = tmp.path().join("b1.mvb.tar");
    fs::write(&file, bytes).unwrap();
    let r = import(&file, &vault, &mut |_, _| {});
    (r.map(|_| ()), vault, rest, at)
}

/// Today's failure: an I/O error (`ENAMETOOLONG`, exit 2) after the staging tree was made.
#[test]
fn mvb_entry_past_the_path_limit_below_the_vault_is_limit_exceeded_at_the_entry() {
    let tmp = scratch("mvb-over");
    let dest_len = room(3000, "mvb-import", "tmp") + 100;
    let (r, vault, rest, at) = import_at(&tmp, 3000, dest_len);
    let entry = format!("{ID}/model/{rest}");
    match r {
        Err(MvbIoError::Rejected(e)) => {
            assert_eq!(e.kind, MvbKind::LimitExceeded, "{e}");
            // Entry names in locations are cut at 256 bytes (`spec/mpk.md` §1.5).
            assert_eq!(e.location, Location::at(at).in_member(&entry[..256]));
        }
        other => panic!("{other:?}"),
    }
    assert!(sorted_names(&vault).is_empty(), "{:?}", sorted_names(&vault));
}

#[test]
fn mvb_entry_one_byte_past_the_room_is_refused_and_leaves_nothing() {
    let tmp = scratch("mvb-one");
    let dest_len = room(3000, "mvb-import", "tmp") + 1;
    let (r, vault, _, _) = import_at(&tmp, 3000, dest_len);
    assert!(
        matches!(&r, Err(MvbIoError::Rejected(e)) if e.kind == MvbKind::LimitExceeded),
        "{r:?}"
    );
    assert!(sorted_names(&vault).is_empty(), "{:?}", sorted_names(&vault));
}

#[test]
fn mvb_entry_exactly_at_the_room_is_imported() {
    let tmp = scratch("mvb-at");
    let dest_len = room(3000, "mvb-import", "tmp");
    let (r, vault, rest, _) = import_at(&tmp, 3000, dest_len);
    r.unwrap();
    assert_eq!(sorted_names(&vault), [ID]);
    assert_eq!(fs::read(vault.join(ID).join("model").join(&rest)).unwrap(), b"deep");
}

/// `spec/mpk.md` §6.3: the temporary root's name keeps at most 128 bytes of DEST's name, so
/// a DEST whose own name is valid but long (240 bytes) gets a root within NAME_MAX (it used
/// to be `ENAMETOOLONG`).
#[test]
fn mpk_destination_with_a_long_name_is_extracted_into_a_root_of_a_cut_name() {
    let tmp = scratch("mpk-name");
    let (bytes, _) = package_with("x.so");
    let pkg = tmp.path().join("p.tar.gz");
    fs::write(&pkg, bytes).unwrap();
    let name = "n".repeat(240);
    extract(&pkg, &tmp.path().join(&name), MpkLimits::DEFAULT, &mut |_, _| {}).unwrap();
    assert_eq!(fs::read(tmp.path().join(&name).join("lib/x.so")).unwrap(), b"long");
}

/// `spec/mpk.md` §6.5: the published path `<DEST>/<destination path>` must fit as well. A
/// DEST name longer than the root's longest cut name (240 > 128 + 58 bytes) leaves less
/// room below DEST than below the root: the room is the smaller of the two, so every
/// extracted file can be opened at its published path, and one byte more is refused.
#[test]
fn mpk_destination_with_a_long_name_has_the_room_its_published_paths_leave() {
    let tmp = scratch("mpk-name-room");
    let name = "n".repeat(240);
    let folder_len = folder_for_room(name.len());
    let folder = long_folder(tmp.path(), folder_len);
    assert!(room_below_dest(folder_len, name.len()) < room(folder_len, &name[..128], "mpk-tmp"));
    refused_past_and_extracted_at_the_room(&tmp, &folder.join(&name), &folder.join(&name), folder_len);
}

/// The room below DEST, whose folder's real path has `folder_len` bytes and whose own name
/// `name_len`, when that name is longer than the root's (§6.5).
fn room_below_dest(folder_len: usize, name_len: usize) -> usize {
    PATH_MAX - 1 - folder_len - 1 - name_len - 1
}

/// The folder length that leaves 150 bytes of room below a DEST named with `name_len` bytes.
fn folder_for_room(name_len: usize) -> usize {
    PATH_MAX - 1 - 1 - name_len - 1 - 150
}

/// Extracts a package whose last destination path is one byte past the room below `real`
/// (DEST's real path, reached as `dest`), which is refused at its entry leaving nothing,
/// then one at the room, which extracts and opens at its real published path of
/// `PATH_MAX − 1` bytes.
fn refused_past_and_extracted_at_the_room(tmp: &TempDir, dest: &Path, real: &Path, folder_len: usize) {
    let room = room_below_dest(folder_len, real.file_name().unwrap().len());
    let folder = real.parent().unwrap();
    let before = sorted_names(folder);
    let pkg = tmp.path().join("p.tar.gz");
    let path = name_of_len(room + 1 - "lib/".len(), ".so");
    let (bytes, at) = package_with(&path);
    fs::write(&pkg, bytes).unwrap();
    match extract(&pkg, dest, MpkLimits::DEFAULT, &mut |_, _| {}) {
        Err(ExtractError::Rejected(e)) => {
            assert_eq!(e.kind, MpkKind::SizeLimitExceeded, "{e}");
            assert_eq!(e.location, Location::at(at).in_member(&path));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(sorted_names(folder), before);
    let path = name_of_len(room - "lib/".len(), ".so");
    let (bytes, _) = package_with(&path);
    fs::write(&pkg, bytes).unwrap();
    extract(&pkg, dest, MpkLimits::DEFAULT, &mut |_, _| {}).unwrap();
    let published = real.join("lib").join(&path);
    assert_eq!(published.as_os_str().len(), PATH_MAX - 1);
    assert_eq!(fs::read(published).unwrap(), b"long");
}

/// §6.5 counts DEST's name in bytes: a name of 250 bytes that are not UTF-8 (its lossy form,
/// which names the root, has 750) leaves the room of 250 bytes.
#[test]
fn mpk_destination_with_a_long_non_utf8_name_has_the_room_of_its_bytes() {
    use std::os::unix::ffi::OsStrExt;
    let tmp = scratch("mpk-name-bytes");
    let folder_len = folder_for_room(250);
    let folder = long_folder(tmp.path(), folder_len);
    let name = std::ffi::OsStr::from_bytes(&[0xff; 250]);
    refused_past_and_extracted_at_the_room(&tmp, &folder.join(name), &folder.join(name), folder_len);
}

/// §6.3, §6.5: DEST reached through a link and `..` (relative to nothing the process
/// changes) is measured at its real path, where the files are written.
#[test]
fn mpk_destination_through_a_link_and_dot_dot_is_measured_at_its_real_path() {
    let tmp = scratch("mpk-link");
    let name = "n".repeat(200);
    let folder_len = folder_for_room(name.len());
    let folder = long_folder(tmp.path(), folder_len);
    fs::create_dir(folder.join("sub")).unwrap();
    let link = tmp.path().join("ln");
    std::os::unix::fs::symlink(&folder, &link).unwrap();
    let dest = link.join("sub/..").join(&name);
    refused_past_and_extracted_at_the_room(&tmp, &dest, &folder.join(&name), folder_len);
}
