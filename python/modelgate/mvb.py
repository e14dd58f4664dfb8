"""mvb bundles (``spec/mvb.md``): :func:`export`, :func:`import_` and :func:`verify`,
modelgate-io's functions behind ``modelgate mvb export|import|verify``."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Union

from . import _modelgate

__all__ = ["export", "import_", "verify", "VerifyReport"]

PathLike = Union[str, "os.PathLike[str]"]


def export(bundle_dir: PathLike, out_dir: PathLike, overwrite: bool = False) -> str:
    """Packs the bundle folder ``bundle_dir`` (holding ``manifest.json``) into
    ``out_dir/<bundle_id>.mvb.tar`` (§5): deterministic GNU tar, marker first, every payload
    file re-hashed against the manifest while it is written, published atomically; then the
    export is logged in the bundle's ``exports.json``.

    An existing export file raises :class:`FileExistsError` unless ``overwrite``, which
    replaces it atomically. Returns the path of the export. Raises the
    :class:`modelgate.ModelgateError` subclass of the rejection's kind when the bundle
    breaks a rule, :class:`OSError` when a file cannot be read or written.
    """
    path, _sha256, _size, _files = _modelgate.mvb_export(os.fsdecode(bundle_dir), os.fsdecode(out_dir), overwrite)
    return os.fsdecode(path)


def import_(mvb_tar: PathLike, vault_dir: PathLike) -> str:
    """Validates the export ``mvb_tar`` (its name must end in ``.mvb.tar``) and moves its
    bundle into ``vault_dir/<bundle_id>``, which must not exist (§6): one streaming pass
    into a private staging folder; only when everything passed is the bundle stamped and
    moved into the vault. On any failure the vault is unchanged.

    Returns the imported bundle's folder. Raises the :class:`modelgate.ModelgateError`
    subclass of the rejection's kind, :class:`FileExistsError` when the bundle's folder
    exists in the vault, :class:`OSError` when a file cannot be read or written.
    """
    dest, _bundle_id, _bundle_hash = _modelgate.mvb_import(os.fsdecode(mvb_tar), os.fsdecode(vault_dir))
    return os.fsdecode(dest)


@dataclass(frozen=True)
class VerifyReport:
    """A bundle that verified: how many payload files were hashed, and the bundle hash
    recomputed from them."""

    files: int
    bundle_hash: str


def verify(bundle_dir: PathLike) -> VerifyReport:
    """Re-hashes a bundle against its manifest (§7), as ``modelgate mvb verify``: a folder
    has every payload file hashed and the bundle hash recomputed, and all missing, extra
    and mismatched files are found; any other path is read as an ``.mvb.tar`` (validated,
    not unpacked).

    Returns a :class:`VerifyReport`. A bundle with problems raises the
    :class:`modelgate.ModelgateError` subclass of the first one's kind, every problem in
    its ``problems`` list; :class:`OSError` when a file cannot be read.
    """
    files, bundle_hash = _modelgate.mvb_verify(os.fsdecode(bundle_dir))
    return VerifyReport(files, bundle_hash)
