"""MPK packages (``spec/mpk.md``): :func:`extract`, modelgate-io's safe extraction (§6)."""

from __future__ import annotations

import errno
import os
import shutil
import uuid
from typing import Union

from . import _modelgate

__all__ = ["extract"]

PathLike = Union[str, "os.PathLike[str]"]


def extract(package: PathLike, dest: PathLike, overwrite: bool = False) -> str:
    """Validates the MPK package ``package`` (its name must end in ``.tar.gz``) and
    extracts it to the new folder ``dest``, as ``modelgate mpk extract`` does: one streaming
    pass into a private folder beside ``dest``, renamed into place only when the whole
    package passed; on any failure nothing is left behind. JSON and YAML files go to
    ``dest/etc``, ``.so`` files to ``dest/lib``, ``.elf`` files to ``dest/share``.

    Without ``overwrite`` an existing ``dest`` (a symbolic link included) raises
    :class:`FileExistsError`, as the command line refuses it. With ``overwrite``, an
    existing folder ``dest`` (not a link) is replaced once the package has been extracted
    in full beside it: the old folder is renamed aside, the new one renamed into place, and
    the old one removed. A package that is rejected leaves it untouched. The two renames
    are not one atomic step.

    Returns ``dest``. Raises the :class:`modelgate.ModelgateError` subclass of the
    rejection's kind (``InvalidArchive`` for ``invalid_archive``, ``PathTraversal``,
    ``SchemaError``, ``UnsupportedVersion``, ``SizeLimitExceeded``; ``kind`` is the exact
    key), :class:`OSError` when a file cannot be read or written.
    """
    package = os.fsdecode(package)
    dest = os.fsdecode(dest)
    if not overwrite or not os.path.lexists(dest):
        _modelgate.mpk_extract(package, dest)
        return dest
    if os.path.islink(dest) or not os.path.isdir(dest):
        raise FileExistsError(errno.EEXIST, "exists and is not a folder; only a folder is replaced", dest)
    parent, name = os.path.split(os.path.abspath(dest))
    tag = uuid.uuid4().hex
    fresh = os.path.join(parent, f".{name}.modelgate-new-{tag}")
    old = os.path.join(parent, f".{name}.modelgate-old-{tag}")
    _modelgate.mpk_extract(package, fresh)
    try:
        os.rename(dest, old)
    except BaseException:
        shutil.rmtree(fresh)
        raise
    try:
        os.rename(fresh, dest)
    except BaseException:
        os.rename(old, dest)
        shutil.rmtree(fresh)
        raise
    shutil.rmtree(old)
    return dest
