"""Every file of the hostile corpus gives, through ``modelgate.check(path)``, the outcome its
name states, as ``corpus-check`` requires (std-io/src/corpus.rs): ``valid-...`` is accepted;
``<Kind>-...`` is rejected with exactly that kind. Names that are not
``<Expected>-<case>.<ext>`` with a known expectation are skipped, as corpus-check skips them."""

from __future__ import annotations

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


def test_bytes_are_checked_by_content_or_as_the_format_named(corpus: Path) -> None:
    for path, expected in FILES[::25]:
        data = path.read_bytes()
        by_name = modelgate.check(path)
        forced = modelgate.check(data, format=by_name.format)
        assert (forced.ok, forced.kind, forced.format) == (by_name.ok, by_name.kind, by_name.format), path
        assert (forced.message, forced.location) == (by_name.message, by_name.location), path
    bundle = corpus / "mlbundle" / "valid-stored-members.mlbundle"
    detected = modelgate.check(bytearray(bundle.read_bytes()))
    assert detected.ok and detected.format == "mlbundle"
    package = corpus / "mpk" / "valid-basic-valid.tar.gz"
    assert modelgate.check(memoryview(package.read_bytes())).format == "mpk"
    unknown = modelgate.check(b"plain text")
    assert (unknown.ok, unknown.format, unknown.kind) == (False, None, "UnknownFormat")
    with pytest.raises(ValueError):
        unknown.raise_for_error()


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
