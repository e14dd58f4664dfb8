"""MPK packages (``spec/mpk.md``): :func:`extract`, modelgate-io's safe extraction (§6)."""

from __future__ import annotations

import os
from typing import Union

from . import _modelgate

__all__ = ["extract"]

PathLike = Union[str, "os.PathLike[str]"]


def extract(package: PathLike, dest: PathLike) -> str:
    """Validates the MPK package ``package`` (its name must end in ``.tar.gz``) and
    extracts it to the new folder ``dest``, as ``modelgate mpk extract`` does: one streaming
    pass into a private folder beside ``dest``, renamed into place only when the whole
    package passed; on any failure nothing is left behind. JSON and YAML files go to
    ``dest/etc``, ``.so`` files to ``dest/lib``, ``.elf`` files to ``dest/share``.

    An existing ``dest`` (a symbolic link included) raises :class:`FileExistsError`: a
    folder is never replaced (``spec/mpk.md`` §6), here as on the command line.

    Returns ``dest``. Raises the :class:`modelgate.ModelgateError` subclass of the
    rejection's kind (``InvalidArchive`` for ``invalid_archive``, ``PathTraversal``,
    ``SchemaError``, ``UnsupportedVersion``, ``SizeLimitExceeded``; ``kind`` is the exact
    key), :class:`OSError` when a file cannot be read or written.
    """
    dest = os.fsdecode(dest)
    _modelgate.mpk_extract(os.fsdecode(package), dest)
    return dest
