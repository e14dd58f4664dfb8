"""The exception classes: one base, one subclass per error kind, shared by formats that name
a kind alike; I/O failures are OSError."""

from __future__ import annotations

import pytest

import modelgate
from modelgate import _errors


def test_every_kind_of_every_format_has_its_class() -> None:
    kinds = {k for f in modelgate.FORMATS for k in f.kinds}
    assert kinds == set(modelgate.KINDS)
    for kind, cls in modelgate.KINDS.items():
        assert issubclass(cls, modelgate.ModelgateError) and cls is not modelgate.ModelgateError
        assert issubclass(cls, Exception) and not issubclass(cls, OSError)
        assert kind in cls.kinds
        assert cls.__name__ == _errors.class_name(kind)
        assert getattr(modelgate, cls.__name__) is cls, f"modelgate.{cls.__name__} is not exported"
        assert cls.__name__ in modelgate.__all__
        # Listed in the module, not made on the fly for a kind it does not know.
        assert cls.__doc__ and cls.__module__ == "modelgate"


def test_kinds_named_alike_share_one_class() -> None:
    k = modelgate.KINDS
    assert k["PathTraversal"] is k["path_traversal"] is modelgate.PathTraversal
    assert k["InvalidArchive"] is k["invalid_archive"] is modelgate.InvalidArchive
    assert k["UnsupportedVersion"] is k["unsupported_version"] is modelgate.UnsupportedVersion
    assert k["schema_error"] is modelgate.SchemaError
    assert k["size_limit_exceeded"] is modelgate.SizeLimitExceeded
    # One LimitExceeded for every format that reports it.
    reporting = [f.name for f in modelgate.FORMATS if "LimitExceeded" in f.kinds]
    assert len(reporting) > 3 and k["LimitExceeded"] is modelgate.LimitExceeded
    distinct = {cls for cls in k.values()}
    assert len(distinct) == len({_errors.class_name(kind) for kind in k})


def test_attributes_and_text() -> None:
    e = _errors.from_rejection("mpk", "path_traversal", "entry leaves the root", "member a/../../b", "a/../../b", None, None)
    assert isinstance(e, modelgate.PathTraversal) and isinstance(e, modelgate.ModelgateError)
    assert (e.kind, e.message, e.location, e.format, e.member) == (
        "path_traversal", "entry leaves the root", "member a/../../b", "mpk", "a/../../b"
    )
    assert e.json_path is None and e.offset is None and e.problems == [e]
    assert str(e) == "path_traversal: entry leaves the root (member a/../../b)"
    bare = modelgate.InvalidJSON("bad")
    assert (bare.kind, bare.location, str(bare)) == ("InvalidJSON", "", "InvalidJSON: bad")
    with pytest.raises(modelgate.ModelgateError):
        raise bare


def test_a_kind_added_later_still_gets_a_subclass() -> None:
    cls = _errors.class_for("brand_new_kind")
    assert cls.__name__ == "BrandNewKind" and issubclass(cls, modelgate.ModelgateError)
    assert _errors.class_for("brand_new_kind") is cls


def test_io_errors_are_oserror_subclasses(tmp_path) -> None:
    with pytest.raises(FileNotFoundError) as caught:
        modelgate.check(tmp_path / "absent.mlbundle")
    assert caught.value.errno is not None and isinstance(caught.value, OSError)
    assert not isinstance(caught.value, modelgate.ModelgateError)
