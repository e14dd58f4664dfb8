"""``modelgate.mlbundle.read_container`` from a path, bytes and a binary stream."""

from __future__ import annotations

import hashlib
import io
import os
import zipfile
from pathlib import Path

import pytest

import modelgate
from modelgate import mlbundle

BUNDLE = "valid-composite-skops-ubj-all-members.mlbundle"


def zip_members(path: Path) -> dict:
    """Each member's uncompressed bytes as Python's zipfile reads them."""
    with zipfile.ZipFile(path) as z:
        return {name: z.read(name) for name in z.namelist()}


def check_read(manifest: dict, members: dict, path: Path) -> None:
    expected = zip_members(path)
    assert members == expected
    assert list(members) == [n for n in mlbundle.MEMBER_NAMES if n in expected]
    assert manifest["format"] == "mlbundle" and manifest["format_version"] == "1"
    for name, record in manifest["integrity"].items():
        assert record["sha256"] == hashlib.sha256(members[name]).hexdigest()
        assert record["size"] == len(members[name])
    assert "manifest.json" in members and "manifest.json" not in manifest["integrity"]


def test_from_a_path_str_and_pathlike(corpus: Path) -> None:
    path = corpus / "mlbundle" / BUNDLE
    manifest, members = mlbundle.read_container(path)
    check_read(manifest, members, path)
    assert manifest["recipe"] == {"kind": "composite", "members": ["model.skops", "model.ubj"]}
    assert mlbundle.read_container(str(path)) == (manifest, members)


def test_from_bytes_bytearray_and_memoryview(corpus: Path) -> None:
    path = corpus / "mlbundle" / "valid-writer-standalone-onnx.mlbundle"
    data = path.read_bytes()
    for source in (data, bytearray(data), memoryview(data)):
        manifest, members = mlbundle.read_container(source)
        check_read(manifest, members, path)
        assert "model.onnx" in members


def test_from_a_stream_at_its_current_position_left_open(corpus: Path, tmp_path: Path) -> None:
    path = corpus / "mlbundle" / BUNDLE
    prefix = b"not part of the bundle" * 10
    stored = tmp_path / "prefixed.bin"
    stored.write_bytes(prefix + path.read_bytes())
    with open(stored, "rb") as f:
        f.seek(len(prefix))
        manifest, members = mlbundle.read_container(f)
        assert not f.closed
        assert f.tell() == os.path.getsize(stored), "read to its end"
        f.seek(0)
        assert f.read(len(prefix)) == prefix
    check_read(manifest, members, path)
    stream = io.BytesIO(prefix + path.read_bytes())
    stream.seek(len(prefix))
    assert mlbundle.read_container(stream) == (manifest, members)
    assert not stream.closed
    # Read from the position as it is: before the prefix, the bundle has bytes before it.
    stream.seek(0)
    with pytest.raises(modelgate.InvalidContainer):
        mlbundle.read_container(stream)


def test_rejections_raise_their_kind(corpus: Path) -> None:
    path = corpus / "mlbundle" / "InvalidContainer-appended-byte.mlbundle"
    with pytest.raises(modelgate.InvalidContainer) as caught:
        mlbundle.read_container(path)
    e = caught.value
    assert (e.kind, e.format) == ("InvalidContainer", "mlbundle")
    checked = modelgate.check(path)
    assert (e.message, e.location, e.offset) == (checked.message, checked.location, checked.offset)
    assert str(e) == f"InvalidContainer: {e.message} ({e.location})"
    with pytest.raises(modelgate.ModelgateError):
        mlbundle.read_container(io.BytesIO(path.read_bytes()))


def test_limits_lower_the_defaults(corpus: Path) -> None:
    path = corpus / "mlbundle" / BUNDLE
    size = path.stat().st_size
    assert mlbundle.DEFAULT_LIMITS["archive"] == 512 * 1024 * 1024
    mlbundle.read_container(path, limits={"archive": size})
    for limits in ({"archive": size - 1}, mlbundle.Limits(archive=size - 1)):
        with pytest.raises(modelgate.LimitExceeded) as caught:
            mlbundle.read_container(path, limits=limits)
        assert caught.value.offset == size - 1
    with open(path, "rb") as f:
        with pytest.raises(modelgate.LimitExceeded):
            mlbundle.read_container(f, limits=mlbundle.Limits(archive=size - 1))
    with pytest.raises(modelgate.LimitExceeded):
        mlbundle.read_container(path, limits=mlbundle.Limits(members=2))
    with pytest.raises(ValueError, match="lowered, never raised"):
        mlbundle.read_container(path, limits={"members": 7})
    with pytest.raises(ValueError, match="unknown limit"):
        mlbundle.read_container(path, limits={"files": 3})


def test_sources_of_other_types_and_io_errors(tmp_path: Path) -> None:
    with pytest.raises(TypeError):
        mlbundle.read_container(12)  # type: ignore[arg-type]
    with pytest.raises(FileNotFoundError):
        mlbundle.read_container(tmp_path / "missing.mlbundle")
    with pytest.raises(OSError):
        mlbundle.read_container(tmp_path)
    with pytest.raises(TypeError, match="binary mode"):
        mlbundle.read_container(io.StringIO("text"))

    class Failing(io.RawIOBase):
        def readable(self) -> bool:
            return True

        def read(self, n: int = -1) -> bytes:
            raise RuntimeError("disk on fire")

    with pytest.raises(RuntimeError, match="disk on fire"):
        mlbundle.read_container(Failing())
