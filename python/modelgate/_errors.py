"""The exceptions modelgate raises: :class:`ModelgateError` and one subclass per error kind.

A rejection carries the error kind's exact name as modelgate's command line and
``corpus-check`` print it (``InvalidContainer``, ``path_traversal``, ...) in ``kind``. The
subclass is named after the kind in CamelCase (``path_traversal`` is :class:`PathTraversal`);
when two formats name a kind alike (mvb's ``PathTraversal``, MPK's ``path_traversal``), one
class stands for both and ``kind`` tells them apart. Failures to read or write files are
Python's own :class:`OSError` subclasses, never these.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple, Type

__all__ = [
    "ModelgateError",
    "InvalidContainer",
    "InvalidManifest",
    "UnsupportedFormatVersion",
    "InvalidJSON",
    "IntegrityMismatch",
    "LimitExceeded",
    "Malformed",
    "OutOfRange",
    "Unsupported",
    "InvalidArchive",
    "PathTraversal",
    "SchemaError",
    "UnsupportedVersion",
    "SizeLimitExceeded",
    "InvalidGzip",
    "InvalidDeflate",
    "class_name",
    "class_for",
]


class ModelgateError(Exception):
    """A file rejected by modelgate's rules.

    Attributes:
        kind: the error kind's exact name, as the command line prints it.
        message: what is wrong (never echoes file contents).
        location: where, as the command line prints it (``member NAME, PATH, byte N`` with
            absent parts left out; empty when nothing is known).
        format: the format the file was read as (``mlbundle``, ``mpk``, ...).
        member: the archive member, tar entry or header field of the location, if any.
        json_path: the JSON path of the location, if any.
        offset: the byte offset of the location, if any.
        problems: every problem found, this one first (``mvb.verify`` of a folder reports
            them all; elsewhere just this one).

    ``str(error)`` is ``KIND: message (location)``, the rejection as ``modelgate check``
    prints it.
    """

    #: The exact kind names this class stands for (empty for the base class).
    kinds: Tuple[str, ...] = ()

    kind: str
    message: str
    location: str
    format: Optional[str]
    member: Optional[str]
    json_path: Optional[str]
    offset: Optional[int]
    problems: List["ModelgateError"]

    def __init__(
        self,
        message: str,
        *,
        kind: Optional[str] = None,
        location: str = "",
        format: Optional[str] = None,
        member: Optional[str] = None,
        json_path: Optional[str] = None,
        offset: Optional[int] = None,
    ) -> None:
        super().__init__(message)
        if kind is None:
            kind = self.kinds[0] if self.kinds else type(self).__name__
        self.kind = kind
        self.message = message
        self.location = location
        self.format = format
        self.member = member
        self.json_path = json_path
        self.offset = offset
        self.problems = [self]

    def __str__(self) -> str:
        text = f"{self.kind}: {self.message}"
        return f"{text} ({self.location})" if self.location else text

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r}, format={self.format!r})"


class InvalidContainer(ModelgateError):
    """mlbundle: the ZIP structure, names or recipe break `spec/mlbundle.md`."""

    kinds = ("InvalidContainer",)


class InvalidManifest(ModelgateError):
    """mlbundle, mvb: the manifest (or mvb marker) breaks its schema."""

    kinds = ("InvalidManifest",)


class UnsupportedFormatVersion(ModelgateError):
    """mlbundle: a format version this reader does not read."""

    kinds = ("UnsupportedFormatVersion",)


class InvalidJSON(ModelgateError):
    """json, mlbundle: not strict RFC 8259 / I-JSON."""

    kinds = ("InvalidJSON",)


class IntegrityMismatch(ModelgateError):
    """mlbundle, mvb: sizes or hashes disagree with the manifest."""

    kinds = ("IntegrityMismatch",)


class LimitExceeded(ModelgateError):
    """Any format: a configured limit was exceeded."""

    kinds = ("LimitExceeded",)


class Malformed(ModelgateError):
    """onemodel, onnx: the bytes do not follow the format."""

    kinds = ("Malformed",)


class OutOfRange(ModelgateError):
    """onemodel, onnx: an offset, length or index points outside what it must."""

    kinds = ("OutOfRange",)


class Unsupported(ModelgateError):
    """onemodel, onnx: valid, but not something this reader reads."""

    kinds = ("Unsupported",)


class InvalidArchive(ModelgateError):
    """mvb ``InvalidArchive``, MPK ``invalid_archive``: the tar (or gzip) structure."""

    kinds = ("InvalidArchive", "invalid_archive")


class PathTraversal(ModelgateError):
    """mvb ``PathTraversal``, MPK ``path_traversal``: a link or a path leaving its root."""

    kinds = ("PathTraversal", "path_traversal")


class SchemaError(ModelgateError):
    """MPK ``schema_error``: a package file breaks its schema."""

    kinds = ("schema_error",)


class UnsupportedVersion(ModelgateError):
    """mvb ``UnsupportedVersion``, MPK ``unsupported_version``."""

    kinds = ("UnsupportedVersion", "unsupported_version")


class SizeLimitExceeded(ModelgateError):
    """MPK ``size_limit_exceeded``: a size limit of `spec/mpk.md`."""

    kinds = ("size_limit_exceeded",)


class InvalidGzip(ModelgateError):
    """gzip: not a valid RFC 1952 stream."""

    kinds = ("InvalidGzip",)


class InvalidDeflate(ModelgateError):
    """deflate: not a valid raw deflate frame."""

    kinds = ("InvalidDeflate",)


_CLASSES: Dict[str, Type[ModelgateError]] = {
    c.__name__: c
    for c in (
        InvalidContainer,
        InvalidManifest,
        UnsupportedFormatVersion,
        InvalidJSON,
        IntegrityMismatch,
        LimitExceeded,
        Malformed,
        OutOfRange,
        Unsupported,
        InvalidArchive,
        PathTraversal,
        SchemaError,
        UnsupportedVersion,
        SizeLimitExceeded,
        InvalidGzip,
        InvalidDeflate,
    )
}


def class_name(kind: str) -> str:
    """The class name of error kind ``kind``: a snake_case kind in CamelCase
    (``path_traversal`` is ``PathTraversal``), any other kind as it is."""
    if kind.islower():
        return "".join(part.capitalize() for part in kind.split("_"))
    return kind


def class_for(kind: str) -> Type[ModelgateError]:
    """The :class:`ModelgateError` subclass raised for error kind ``kind``. A kind this
    module does not list (one added to modelgate since) gets a subclass of its own, made
    once."""
    name = class_name(kind)
    cls = _CLASSES.get(name)
    if cls is None:
        cls = type(name, (ModelgateError,), {"kinds": (kind,), "__module__": "modelgate"})
        _CLASSES[name] = cls
    elif kind not in cls.kinds:
        cls.kinds = cls.kinds + (kind,)
    return cls


def from_rejection(
    format: str,
    kind: str,
    message: str,
    location: str,
    member: Optional[str],
    json_path: Optional[str],
    offset: Optional[int],
) -> ModelgateError:
    """The exception for one rejection (called by the extension module)."""
    return class_for(kind)(
        message,
        kind=kind,
        location=location,
        format=format,
        member=member,
        json_path=json_path,
        offset=offset,
    )


for _cls in _CLASSES.values():
    _cls.__module__ = "modelgate"
ModelgateError.__module__ = "modelgate"
