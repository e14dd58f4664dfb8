//! Publication (`spec/mlbundle.md` §11.2): concurrent no-overwrite writers, failures that
//! leave no file, atomic replacement, the exclusive-create fallback, and no temporary files
//! left behind.

use modelgate_io::publish::publish;
use modelgate_io::temp::TempDir;
use std::fs;
use std::io::{self, Write};
use std::sync::{Arc, Barrier};

mod listing;
use listing::sorted_names;

/// A fresh folder under the system temporary folder, removed with its contents when the
/// test ends, whether it passes or panics.
fn scratch(name: &str) -> TempDir {
    TempDir::create(&std::env::temp_dir(), "mg-publish", name).unwrap()
}

#[test]
fn publish_creates_file_and_leaves_no_temporary() {
    let tmp = scratch("create");
    let dir = tmp.path();
    let dest = dir.join("out.mlbundle");
    publish(&dest, false, |f| f.write_all(b"hello")).unwrap();
    assert_eq!(fs::read(&dest).unwrap(), b"hello");
    assert_eq!(sorted_names(dir), ["out.mlbundle"]);
}

#[test]
fn existing_destination_without_overwrite_is_already_exists() {
    let tmp = scratch("exists");
    let dir = tmp.path();
    let dest = dir.join("out.mlbundle");
    fs::write(&dest, b"old").unwrap();
    let e = publish(&dest, false, |f| f.write_all(b"new")).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
    assert_eq!(fs::read(&dest).unwrap(), b"old");
    assert_eq!(sorted_names(dir), ["out.mlbundle"]);
}

#[test]
fn overwrite_replaces_atomically() {
    let tmp = scratch("overwrite");
    let dir = tmp.path();
    let dest = dir.join("out.mlbundle");
    fs::write(&dest, b"old contents").unwrap();
    // A reader holding the old file keeps seeing the old bytes: the new file is a different
    // inode renamed over the name, never the old file rewritten in place.
    let mut held = fs::File::open(&dest).unwrap();
    publish(&dest, true, |f| f.write_all(b"new")).unwrap();
    assert_eq!(fs::read(&dest).unwrap(), b"new");
    let mut old = String::new();
    io::Read::read_to_string(&mut held, &mut old).unwrap();
    assert_eq!(old, "old contents");
    assert_eq!(sorted_names(dir), ["out.mlbundle"]);
}

#[test]
fn concurrent_no_overwrite_writers_exactly_one_wins() {
    let tmp = scratch("race");
    let dir = tmp.path();
    let dest = dir.join("out.mlbundle");
    let writers = 8;
    let barrier = Arc::new(Barrier::new(writers));
    let handles: Vec<_> = (0..writers)
        .map(|i| {
            let (dest, barrier) = (dest.clone(), barrier.clone());
            std::thread::spawn(move || {
                let body = vec![i as u8; 100_000];
                barrier.wait();
                publish(&dest, false, |f| f.write_all(&body)).map(|()| i)
            })
        })
        .collect();
    let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    let winners: Vec<usize> = results.iter().filter_map(|r| r.as_ref().ok().copied()).collect();
    assert_eq!(winners.len(), 1, "{results:?}");
    for r in &results {
        if let Err(e) = r {
            assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
        }
    }
    // The file is one writer's complete bytes.
    assert_eq!(fs::read(&dest).unwrap(), vec![winners[0] as u8; 100_000]);
    assert_eq!(sorted_names(dir), ["out.mlbundle"]);
}

#[test]
fn failure_mid_write_leaves_no_file() {
    let tmp = scratch("midwrite");
    let dir = tmp.path();
    let dest = dir.join("out.mlbundle");
    let e = publish(&dest, false, |f| {
        f.write_all(&[1; 5000])?;
        Err(io::Error::other("disk full"))
    })
    .unwrap_err();
    assert_eq!(e.to_string(), "disk full");
    assert!(!dest.exists());
    assert!(sorted_names(dir).is_empty());
}

#[test]
fn failure_mid_write_with_overwrite_keeps_old_file() {
    let tmp = scratch("midwrite-overwrite");
    let dir = tmp.path();
    let dest = dir.join("out.mlbundle");
    fs::write(&dest, b"old").unwrap();
    publish(&dest, true, |f| {
        f.write_all(b"partial")?;
        Err(io::Error::other("boom"))
    })
    .unwrap_err();
    assert_eq!(fs::read(&dest).unwrap(), b"old");
    assert_eq!(sorted_names(dir), ["out.mlbundle"]);
}

#[test]
fn missing_destination_folder_propagates() {
    let tmp = scratch("nofolder");
    let dir = tmp.path();
    let e = publish(&dir.join("absent").join("out.mlbundle"), false, |f| f.write_all(b"x")).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::NotFound);
}

/// The permission bits of `path`.
#[cfg(unix)]
fn mode(path: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

/// §11.2: an overwrite gives the new file the replaced file's permission bits, whatever the
/// umask: a private file stays private, an executable stays executable, a read-only file
/// stays read-only. (A new file is created 0666 less the umask, so 0751 and 0604 cannot come
/// from creation, and 0600 does not with the usual umask 022.)
#[cfg(unix)]
#[test]
fn overwrite_keeps_the_replaced_files_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = scratch("modes");
    let dir = tmp.path();
    for (i, bits) in [0o600, 0o751, 0o604, 0o444].into_iter().enumerate() {
        let dest = dir.join(format!("out{i}.json"));
        fs::write(&dest, b"old").unwrap();
        fs::set_permissions(&dest, fs::Permissions::from_mode(bits)).unwrap();
        publish(&dest, true, |f| f.write_all(b"new")).unwrap();
        assert_eq!(fs::read(&dest).unwrap(), b"new");
        assert_eq!(mode(&dest), bits, "{bits:o}");
        // The same with bytes written by a `fill` that runs after the mode is set.
        publish(&dest, true, |f| {
            assert_eq!(f.metadata()?.permissions().mode() & 0o777, bits);
            f.write_all(b"newer")
        })
        .unwrap();
        assert_eq!(fs::read(&dest).unwrap(), b"newer");
        assert_eq!(mode(&dest), bits, "{bits:o}");
    }
    let mut names: Vec<String> = (0..4).map(|i| format!("out{i}.json")).collect();
    names.sort();
    assert_eq!(sorted_names(dir), names);
}
