"""modelgate: strict checks of model-container files, from Python.

Every rule is modelgate's own Rust code (``modelgate-core`` and ``modelgate-io``) run
through the extension module ``modelgate._modelgate``; this package only converts
arguments and results.

- :func:`check`: the full validating read of a file (or bytes), as ``modelgate check``
  runs it, as a :class:`CheckResult`.
- :mod:`modelgate.mlbundle`: ``read_container`` of an mlbundle (ZIP) bundle.
- :mod:`modelgate.onemodel`: ``read`` of a OneModel file, its tensors as NumPy views of a
  memory map.
- :mod:`modelgate.mpk`: ``extract`` of an MPK package.
- :mod:`modelgate.mvb`: ``export``, ``import_`` and ``verify`` of mvb bundles.
- Rejections raise :class:`ModelgateError` subclasses, one per error kind
  (:data:`KINDS`); I/O failures raise :class:`OSError` subclasses.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Dict, Optional, Tuple, Type, Union

from . import _modelgate, mlbundle, mpk, mvb, onemodel
from ._errors import (
    IntegrityMismatch,
    InvalidArchive,
    InvalidContainer,
    InvalidDeflate,
    InvalidGzip,
    InvalidJSON,
    InvalidManifest,
    LimitExceeded,
    Malformed,
    ModelgateError,
    OutOfRange,
    PathTraversal,
    SchemaError,
    SizeLimitExceeded,
    Unsupported,
    UnsupportedFormatVersion,
    UnsupportedVersion,
    class_for,
)

__all__ = [
    "check",
    "CheckResult",
    "Format",
    "FORMATS",
    "KINDS",
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
    "mlbundle",
    "onemodel",
    "mpk",
    "mvb",
]

__version__ = "0.1.0"

#: The ``kind`` of a :class:`CheckResult` for a file whose format neither its name nor its
#: first bytes tell (as ``modelgate check --json`` reports it).
UNKNOWN_FORMAT = "UnknownFormat"


@dataclass(frozen=True)
class Format:
    """A format ``modelgate check`` reads: its name, the file-name suffixes that select it,
    and the error kinds it reports."""

    name: str
    suffixes: Tuple[str, ...]
    kinds: Tuple[str, ...]


#: Every registered format, in the order detection by content tries them.
FORMATS: Tuple[Format, ...] = tuple(
    Format(name, tuple(suffixes), tuple(kinds)) for name, suffixes, kinds in _modelgate.formats()
)

#: Every error kind of every format, by its exact name, with the exception class raised for
#: it.
KINDS: Dict[str, Type[ModelgateError]] = {k: class_for(k) for f in FORMATS for k in f.kinds}

_BY_NAME = {f.name: f for f in FORMATS}


@dataclass(frozen=True)
class CheckResult:
    """The outcome of :func:`check`; true when the file was accepted.

    Attributes:
        ok: the file was accepted.
        format: the format it was read as (``None`` when none could be told).
        kind: the error kind's exact name (as ``modelgate check`` and ``corpus-check`` print
            it), ``UnknownFormat`` when no format could be told, ``None`` when accepted.
        message: what is wrong, ``None`` when accepted.
        location: where (``member NAME, PATH, byte N``), empty when unknown or accepted.
        member, json_path, offset: the location's parts, where known.
    """

    ok: bool
    format: Optional[str]
    kind: Optional[str]
    message: Optional[str]
    location: str
    member: Optional[str] = None
    json_path: Optional[str] = None
    offset: Optional[int] = None

    def __bool__(self) -> bool:
        return self.ok

    def __str__(self) -> str:
        if self.ok:
            return f"ok ({self.format})"
        text = f"{self.kind}: {self.message}"
        if self.location:
            text += f" ({self.location})"
        return f"rejected ({self.format}) {text}" if self.format else text

    def error(self) -> Optional[ModelgateError]:
        """The rejection as the exception the other functions raise; ``None`` when the file
        was accepted or no format could be told."""
        if self.ok or self.format is None or self.kind is None:
            return None
        return class_for(self.kind)(
            self.message or "",
            kind=self.kind,
            location=self.location,
            format=self.format,
            member=self.member,
            json_path=self.json_path,
            offset=self.offset,
        )

    def raise_for_error(self) -> None:
        """Raises :meth:`error` when the file was rejected; ``ValueError`` when no format
        could be told."""
        error = self.error()
        if error is not None:
            raise error
        if not self.ok:
            raise ValueError(self.message)


PathOrBytes = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview]


def check(source: PathOrBytes, format: Optional[str] = None) -> CheckResult:
    """The full validating read of a file, as ``modelgate check`` runs it.

    ``source`` is a path (``str`` or :class:`os.PathLike`) or the file's bytes
    (``bytes``, ``bytearray``, ``memoryview``). A path is read as ``format`` when given, else
    as the format its name tells (the longest registered suffix) or, failing that, its first
    64 KiB. Bytes are read as ``format`` when given, else as the format their first 64 KiB
    tell, and checked in memory with the same rules and limits: nothing is written to or
    read from disk. Two rules need a file and are not applied to bytes: an MPK package's
    file name (``.tar.gz``), and an ONNX model's external data, which is ``Unsupported``.

    A rejection is a result, not an exception: ``ok`` false with the kind, message and
    location. A file that cannot be read raises :class:`OSError`; an unknown ``format``
    name raises :class:`ValueError`.
    """
    if format is not None and format not in _BY_NAME:
        names = ", ".join(_BY_NAME)
        raise ValueError(f"unknown format {format!r}; expected one of {names}")
    if isinstance(source, (bytes, bytearray, memoryview)):
        return CheckResult(*_modelgate.check_bytes(bytes(source), format))
    return CheckResult(*_modelgate.check(os.fsdecode(source), format))
