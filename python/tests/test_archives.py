"""MPK extraction and the mvb export → import → verify round trip, in temporary folders."""

from __future__ import annotations

import os
import shutil
import tarfile
from pathlib import Path

import pytest

import modelgate
from modelgate import mpk, mvb


def tree(root: Path) -> dict:
    """Every file below ``root`` by relative path, with its bytes."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def test_mpk_extract(corpus: Path, tmp_path: Path) -> None:
    package = corpus / "mpk" / "valid-basic-valid.tar.gz"
    dest = tmp_path / "out"
    assert mpk.extract(package, dest) == str(dest)
    files = tree(dest)
    assert files and all(name.split("/")[0] in {"etc", "lib", "share"} for name in files)
    with tarfile.open(package) as t:
        members = {
            os.path.basename(m.name): t.extractfile(m).read() for m in t.getmembers() if m.isfile()
        }
    for name, data in files.items():
        assert members[os.path.basename(name)] == data, name
    with pytest.raises(FileExistsError):
        mpk.extract(package, dest)
    assert tree(dest) == files


def test_mpk_rejected_package_leaves_nothing(corpus: Path, tmp_path: Path) -> None:
    bad = next((corpus / "mpk").glob("path_traversal-*.tar.gz"))
    dest = tmp_path / "out"
    with pytest.raises(modelgate.PathTraversal) as caught:
        mpk.extract(bad, dest)
    assert caught.value.kind == "path_traversal" and caught.value.format == "mpk"
    assert os.listdir(tmp_path) == []
    with pytest.raises(modelgate.InvalidArchive) as caught:
        mpk.extract(next((corpus / "mpk").glob("invalid_archive-*.tar.gz")), dest)
    assert caught.value.kind == "invalid_archive"
    assert os.listdir(tmp_path) == []


def test_mpk_existing_destination_is_never_replaced(corpus: Path, tmp_path: Path) -> None:
    dest = tmp_path / "out"
    dest.mkdir()
    (dest / "old.txt").write_text("old")
    package = corpus / "mpk" / "valid-multi-member-valid.tar.gz"
    with pytest.raises(FileExistsError):
        mpk.extract(package, dest)
    assert tree(dest) == {"old.txt": b"old"}
    assert sorted(os.listdir(tmp_path)) == ["out"]


def test_mvb_export_import_verify_round_trip(corpus: Path, tmp_path: Path) -> None:
    source = corpus / "mvb" / "valid-model-bundle.mvb.tar"
    assert mvb.verify(source).files > 0
    vault = tmp_path / "vault"
    vault.mkdir()
    bundle = Path(mvb.import_(source, vault))
    assert bundle.parent == vault and (bundle / "manifest.json").is_file()
    report = mvb.verify(bundle)
    assert report == mvb.verify(source)
    with pytest.raises(FileExistsError):
        mvb.import_(source, vault)

    out = tmp_path / "exports"
    out.mkdir()
    exported = Path(mvb.export(bundle, out))
    assert exported.parent == out and exported.name.endswith(".mvb.tar")
    assert (bundle / "exports.json").is_file(), "the export is logged in the bundle"
    assert mvb.verify(exported) == report
    with pytest.raises(FileExistsError):
        mvb.export(bundle, out)
    assert Path(mvb.export(bundle, out, overwrite=True)) == exported

    vault2 = tmp_path / "vault2"
    vault2.mkdir()
    again = Path(mvb.import_(exported, vault2))
    assert again.name == bundle.name
    assert mvb.verify(again) == report
    payload = lambda root: {k: v for k, v in tree(root).items() if "/" in k}  # noqa: E731
    assert payload(again) == payload(bundle)


def test_mvb_verify_reports_every_problem(corpus: Path, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    bundle = Path(mvb.import_(corpus / "mvb" / "valid-model-bundle.mvb.tar", vault))
    payload = sorted(p for p in bundle.rglob("*") if p.is_file() and p.parent != bundle)
    assert len(payload) >= 2
    payload[0].write_bytes(payload[0].read_bytes() + b"!")
    payload[1].unlink()
    with pytest.raises(modelgate.IntegrityMismatch) as caught:
        mvb.verify(bundle)
    e = caught.value
    assert e.format == "mvb" and e.problems[0] is not None and len(e.problems) >= 2
    assert all(isinstance(p, modelgate.ModelgateError) for p in e.problems)


def test_mvb_rejected_import_leaves_the_vault_unchanged(corpus: Path, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    bad = corpus / "mvb" / "PathTraversal-invalid-utf8-path.mvb.tar"
    with pytest.raises(modelgate.PathTraversal) as caught:
        mvb.import_(bad, vault)
    assert caught.value.kind == "PathTraversal"
    assert os.listdir(vault) == []
    with pytest.raises(modelgate.InvalidArchive):
        mvb.verify(corpus / "mvb" / "InvalidArchive-not-a-tar.mvb.tar")
    with pytest.raises(FileNotFoundError):
        mvb.verify(tmp_path / "absent.mvb.tar")
    copy = tmp_path / "bundle.tar"
    shutil.copy(corpus / "mvb" / "valid-model-bundle.mvb.tar", copy)
    with pytest.raises(modelgate.ModelgateError):
        mvb.import_(copy, vault)
