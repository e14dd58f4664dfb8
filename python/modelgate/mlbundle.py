"""mlbundle (ZIP) bundles: :func:`read_container`, the full container validation of
``spec/mlbundle.md`` (§2–§8) behind modelgate-io's ``read_container``, with its bounded
sources (§11.1)."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from typing import IO, Any, Dict, Mapping, Optional, Tuple, Union

from . import _modelgate

__all__ = ["read_container", "Limits", "DEFAULT_LIMITS", "MEMBER_NAMES"]

#: The eight member names in their fixed order (§1).
MEMBER_NAMES: Tuple[str, ...] = tuple(_modelgate.mlbundle_member_names())

#: Every archive limit's default, which is also its ceiling (§3.1), by its key.
DEFAULT_LIMITS: Dict[str, int] = dict(_modelgate.archive_limit_defaults())


@dataclass(frozen=True)
class Limits:
    """Archive limits to lower (§3): each field left ``None`` keeps its default. Each maps
    onto ``ArchiveLimits::with``; a value above the version 1 ceiling or below the minimum
    raises ``ValueError`` (limits are lowered, never raised or clamped).

    Fields: ``members`` (member count, manifest included), ``archive`` (archive bytes),
    ``compressed_total``, ``member`` (any uncompressed member), ``uncompressed_total``,
    ``ratio`` (uncompressed/compressed of each member), ``manifest``, ``structure``,
    ``schema``, ``samples`` (each JSON member's bytes) and ``json_depth``.
    """

    members: Optional[int] = None
    archive: Optional[int] = None
    compressed_total: Optional[int] = None
    member: Optional[int] = None
    uncompressed_total: Optional[int] = None
    ratio: Optional[int] = None
    manifest: Optional[int] = None
    structure: Optional[int] = None
    schema: Optional[int] = None
    samples: Optional[int] = None
    json_depth: Optional[int] = None

    def to_dict(self) -> Dict[str, int]:
        """The limits set, by key."""
        return {k: v for k, v in asdict(self).items() if v is not None}


Source = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, IO[bytes]]


def read_container(
    source: Source,
    *,
    limits: Union[None, Limits, Mapping[str, int]] = None,
) -> Tuple[Dict[str, Any], Dict[str, bytes]]:
    """Reads and validates an mlbundle.

    ``source`` is a path (``str`` or :class:`os.PathLike`: stat'ed first, a regular file no
    longer than the archive limit), the bundle's bytes (``bytes``, ``bytearray``,
    ``memoryview``), or a binary stream (anything with ``read``), read from its current
    position to its end, at most one byte past the archive limit, and not closed.

    ``limits`` lowers archive limits: a :class:`Limits` or a mapping of its field names.

    Returns ``(manifest, members)``: the validated manifest as a dict (its canonical JSON
    form, §10.4), and every member's original uncompressed bytes by name, ``manifest.json``
    included, in the fixed member order.

    Raises the :class:`modelgate.ModelgateError` subclass of the rejection's kind
    (``InvalidContainer``, ``LimitExceeded``, ``InvalidManifest``, ...), :class:`OSError`
    when the source cannot be read (or whatever the stream's ``read`` raised),
    ``ValueError`` for a limit out of range, ``TypeError`` for a source of another type.
    """
    if isinstance(limits, Limits):
        limits = limits.to_dict()
    elif limits is not None:
        limits = dict(limits)
    if isinstance(source, (bytearray, memoryview)):
        source = bytes(source)
    elif isinstance(source, os.PathLike):
        source = os.fsdecode(source)
    if not isinstance(source, (bytes, str)) and not hasattr(source, "read"):
        raise TypeError(
            f"source must be a path, bytes or a binary stream, not {type(source).__name__}"
        )
    manifest, members = _modelgate.read_container(source, limits)
    return json.loads(manifest), dict(members)
