"""Every file of the hostile corpus gives, through ``modelgate.check(path)``, the outcome its
name states, as ``corpus-check`` requires (std-io/src/corpus.rs): ``valid-...`` is accepted;
``<Kind>-...`` is rejected with exactly that kind. Names that are not
``<Expected>-<case>.<ext>`` with a known expectation are skipped, as corpus-check skips them."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import List, Optional, Tuple

import pytest

import modelgate

from conftest import CORPUS


def expectation(name: str) -> Optional[str]:
    """``valid`` or the kind a corpus file name asks for; ``None`` when corpus-check skips it."""
    prefix, sep, rest = name.partition("-")
    if not sep or not prefix or not rest or "." not in rest:
        return None
    if prefix == "valid" or prefix in modelgate.KINDS:
        return prefix
    return None


def corpus_files() -> Tuple[List[Tuple[Path, str]], List[Path]]:
    """Every corpus file with its expectation, and every path skipped, both sorted."""
    files, skipped = [], []
    for path in sorted(p for p in CORPUS.rglob("*") if p.is_file()):
        expected = expectation(path.name)
        if expected is None:
            skipped.append(path)
        else:
            files.append((path, expected))
    return files, skipped


FILES, SKIPPED = corpus_files()


def test_the_corpus_is_there_and_only_its_manifests_are_skipped() -> None:
    assert len(FILES) > 1000
    assert {p.name for p in SKIPPED} == {"SHA256SUMS", "fixtures_manifest.json"}
    formats = {p.parent.name for p, _ in FILES}
    assert formats == {"deflate", "gzip", "json", "mlbundle", "mpk", "mvb", "onemodel"}


@pytest.mark.parametrize(
    "path,expected", FILES, ids=[f"{p.parent.name}/{p.name}" for p, _ in FILES]
)
def test_corpus_file_gives_the_outcome_its_name_states(path: Path, expected: str) -> None:
    result = modelgate.check(path)
    assert result.format is not None, f"no format for {path}: {result}"
    if expected == "valid":
        assert result.ok, str(result)
        assert result.kind is None and result.message is None and result.location == ""
        assert bool(result)
    else:
        assert not result.ok
        assert result.kind == expected, str(result)
        assert expected in modelgate.KINDS
        assert result.kind in next(f for f in modelgate.FORMATS if f.name == result.format).kinds
        error = result.error()
        assert isinstance(error, modelgate.KINDS[expected])
        assert error.kind == expected and error.format == result.format


def test_a_rejection_reads_as_the_command_line_prints_it(corpus: Path) -> None:
    path = next(p for p, e in FILES if e == "InvalidJSON" and p.parent.name == "json")
    result = modelgate.check(path)
    assert result.location and result.offset is not None
    assert str(result) == f"rejected (json) InvalidJSON: {result.message} ({result.location})"
    with pytest.raises(modelgate.InvalidJSON) as caught:
        result.raise_for_error()
    assert caught.value.offset == result.offset


def test_bytes_are_checked_in_memory_as_the_file_is(tmp_path: Path) -> None:
    """Every corpus file's bytes get its file's outcome, told by content or named. An MPK
    package's name rule needs a name: a package whose name breaks it is compared with its
    bytes under a name that keeps it."""
    renamed = 0
    for path, _ in FILES:
        data = path.read_bytes()
        by_name = modelgate.check(path)
        if by_name.format == "mpk" and not path.name.endswith(".tar.gz"):
            kept = tmp_path / "package.tar.gz"
            kept.write_bytes(data)
            by_name, renamed = modelgate.check(kept), renamed + 1
        forced = modelgate.check(data, format=by_name.format)
        assert (forced.ok, forced.kind, forced.format) == (by_name.ok, by_name.kind, by_name.format), path
        assert (forced.message, forced.location) == (by_name.message, by_name.location), path
    assert renamed >= 2
    bundle = CORPUS / "mlbundle" / "valid-stored-members.mlbundle"
    detected = modelgate.check(bytearray(bundle.read_bytes()))
    assert detected.ok and detected.format == "mlbundle"
    package = CORPUS / "mpk" / "valid-basic-valid.tar.gz"
    assert modelgate.check(memoryview(package.read_bytes())).format == "mpk"
    unknown = modelgate.check(b"plain text")
    assert (unknown.ok, unknown.format, unknown.kind) == (False, None, "UnknownFormat")
    with pytest.raises(ValueError):
        unknown.raise_for_error()


def test_bytes_are_checked_without_the_file_system(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No temporary file: with no temporary folder to write to, bytes are still checked."""
    missing = tmp_path / "missing"
    monkeypatch.setenv("TMPDIR", str(missing))
    monkeypatch.setattr(tempfile, "tempdir", str(missing))
    for name, format in [
        ("mvb/valid-dataset-bundle.mvb.tar", None),
        ("mpk/valid-basic-valid.tar.gz", None),
        ("onemodel/valid-minimal.onnx", "onnx"),
    ]:
        result = modelgate.check((CORPUS / name).read_bytes(), format)
        assert result.ok, (name, str(result))
    assert not missing.exists()


def varint(n: int) -> bytes:
    out = bytearray()
    while True:
        out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


def field(number: int, payload: "bytes | int") -> bytes:
    """One protobuf field: a varint for an ``int``, length-delimited for ``bytes``."""
    if isinstance(payload, int):
        return varint(number << 3) + varint(payload)
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def test_onnx_external_data_is_looked_for_beside_a_file_and_unsupported_in_bytes(tmp_path: Path) -> None:
    """``spec/onemodel.md`` §6.2: a path's external data is read from its folder; bytes have
    no folder."""
    location = field(13, field(1, b"location") + field(2, b"w.bin"))
    tensor = field(1, 2) + field(2, 1) + field(8, b"w") + location + field(14, 1)
    model = field(1, 8) + field(7, field(2, b"g") + field(5, tensor)) + field(8, field(2, 13))
    path = tmp_path / "model.onnx"
    path.write_bytes(model)
    (tmp_path / "w.bin").write_bytes(bytes(8))
    assert modelgate.check(path).ok, str(modelgate.check(path))
    in_memory = modelgate.check(model, format="onnx")
    assert (in_memory.format, in_memory.kind) == ("onnx", "Unsupported"), str(in_memory)


def test_format_names_and_io_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown format"):
        modelgate.check(b"{}", format="yaml")
    with pytest.raises(FileNotFoundError) as caught:
        modelgate.check(tmp_path / "missing.json")
    assert caught.value.filename == str(tmp_path / "missing.json")
    with pytest.raises(OSError):
        modelgate.check(tmp_path)
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    assert modelgate.check(text).kind == "UnknownFormat"
    assert modelgate.check(text, format="json").kind == "InvalidJSON"
