"""OneModel files (``spec/onemodel.md``): :func:`read` checks a file as ``modelgate check``
does, from its header and manifest alone (§5), and gives its tensors as read-only NumPy
views of a memory map of the file: no tensor byte is copied.

The file is mapped by Python's :mod:`mmap` (read-only), and only the bytes before the data
region (header, manifest and padding) are copied and handed to modelgate-core's
``onemodel::read_head``, which runs every rule of the format on them with the data region
known by its length: the verdict is that of the full read, and each tensor comes back as a
byte range of the file. The views are built over those ranges.

**The file must not be modified while it is mapped** (the same caveat as the command
line's memory-mapped loading): bytes changed under the map change the arrays, checked or
not, and a file truncated under the map makes reading the arrays crash the process
(``SIGBUS``). Replace files by renaming a new one into place, never by rewriting them.

Element types map onto NumPy dtypes, little-endian as the format stores them:

==============================  =============================================================
ONNX dtype                      NumPy array
==============================  =============================================================
float, double, float16          ``float32``, ``float64``, ``float16``
int8/16/32/64, uint8/16/32/64   the same-named integer dtypes
bool                            ``bool``
complex64, complex128           ``complex64``, ``complex128``
bfloat16                        ``ml_dtypes.bfloat16`` when ``ml_dtypes`` is installed,
                                else ``uint16`` (the raw bits)
float8 (e4m3fn, e4m3fnuz,       the ``ml_dtypes`` float8 type when installed, else
e5m2, e5m2fnuz, e8m0)           ``uint8`` (the raw bits)
int4, uint4, float4e2m1,        packed below one byte per element: a flat ``uint8`` array of
int2, uint2, float6e2m3/e3m2    the packed bytes (``length`` bytes, not reshaped); unpack
                                with the shape in :attr:`OneModel.shapes`
string                          an ``object`` array of ``bytes`` (strings live in the
                                manifest, so these are copies)
==============================  =============================================================

:attr:`OneModel.tensors` holds the main graph's initializers, by name, in manifest order;
sparse initializers and tensors inside node attributes are not listed.
"""

from __future__ import annotations

import errno
import mmap
import os
import stat
from typing import TYPE_CHECKING, Any, Dict, Optional, Tuple, Union

from . import _modelgate

if TYPE_CHECKING:  # pragma: no cover
    import numpy

__all__ = ["read", "OneModel", "HEADER_LEN"]

#: Bytes in a OneModel header (§1.1).
HEADER_LEN = 64

# ONNX TensorProto.DataType codes with a NumPy dtype of their own (little-endian).
_NUMPY = {
    1: "<f4",
    2: "u1",
    3: "i1",
    4: "<u2",
    5: "<i2",
    6: "<i4",
    7: "<i8",
    9: "?",
    10: "<f2",
    11: "<f8",
    12: "<u4",
    13: "<u8",
    14: "<c8",
    15: "<c16",
}

# Codes NumPy lacks, by their ml_dtypes name, and the raw dtype used without ml_dtypes.
_ML_DTYPES = {
    16: ("bfloat16", "<u2"),
    17: ("float8_e4m3fn", "u1"),
    18: ("float8_e4m3fnuz", "u1"),
    19: ("float8_e5m2", "u1"),
    20: ("float8_e5m2fnuz", "u1"),
    24: ("float8_e8m0fnu", "u1"),
}

_STRING = 8


def _dtype(code: int) -> "Optional[numpy.dtype[Any]]":
    """The NumPy dtype of ONNX dtype ``code``; ``None`` for packed (sub-byte) and unknown
    codes, which are given as raw ``uint8`` bytes."""
    import numpy as np

    if code in _NUMPY:
        return np.dtype(_NUMPY[code])
    if code in _ML_DTYPES:
        name, raw = _ML_DTYPES[code]
        try:
            import ml_dtypes  # type: ignore[import-not-found]

            found: "numpy.dtype[Any]" = np.dtype(getattr(ml_dtypes, name))
            return found
        except (ImportError, AttributeError):
            return np.dtype(raw)
    return None


class OneModel:
    """A OneModel file that passed every check, its tensors mapped.

    Attributes:
        path: the file.
        tensors: the main graph's initializers by name: read-only NumPy arrays viewing the
            memory map (see the module's dtype table).
        dtypes: each tensor's ONNX dtype name (``float``, ``int4``, ...).
        shapes: each tensor's dims.

    :meth:`close` (or leaving a ``with`` block) unmaps the file once no array views it
    any more; until then the map stays open, and it is unmapped when the last view goes.
    """

    path: str
    tensors: "Dict[str, numpy.ndarray[Any, Any]]"
    dtypes: Dict[str, Optional[str]]
    shapes: Dict[str, Tuple[int, ...]]

    def __init__(self, path: str, map: mmap.mmap, rows: Any) -> None:
        import numpy as np

        self.path = path
        self._map: Optional[mmap.mmap] = map
        self.tensors = {}
        self.dtypes = {}
        self.shapes = {}
        for name, code, dtype_name, dims, data in rows:
            shape = tuple(dims)
            self.dtypes[name] = dtype_name
            self.shapes[name] = shape
            if data[0] == "strings":
                array = np.empty(len(data[1]), dtype=object)
                array[:] = data[1]
                array = array.reshape(shape)
                array.flags.writeable = False
            else:
                buffer: Any
                if data[0] == "file":
                    buffer, offset, length = map, data[1], data[2]
                else:
                    buffer, offset, length = data[1], 0, len(data[1])
                if length == 0:
                    offset = 0
                dtype = None if code == _STRING else _dtype(code)
                if dtype is None:
                    array = np.frombuffer(buffer, dtype=np.uint8, count=length, offset=offset)
                else:
                    count = length // dtype.itemsize
                    array = np.frombuffer(buffer, dtype=dtype, count=count, offset=offset).reshape(shape)
            self.tensors[name] = array

    def close(self) -> None:
        """Drops the tensors and unmaps the file, unless arrays taken from :attr:`tensors`
        still view it: then the map is left to close when the last of them goes."""
        self.tensors = {}
        if self._map is not None:
            try:
                self._map.close()
            except BufferError:
                pass
            self._map = None

    def __enter__(self) -> "OneModel":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"OneModel({self.path!r}, {len(self.tensors)} tensors)"


def read(path: Union[str, "os.PathLike[str]"], *, max_tensor_bytes: Optional[int] = None) -> OneModel:
    """Checks the OneModel file at ``path`` as ``modelgate check`` does and maps its tensors.

    The path must be a regular file (anything else raises :class:`OSError` without being
    opened for long: it is opened non-blocking and checked). Its first 64 bytes are read
    and the header checked (``onemodel::head_length``), then the file is mapped read-only
    and the bytes before its data region are checked (``onemodel::read_head``).
    ``max_tensor_bytes`` raises or lowers the largest tensor accepted (default 2^31 − 1,
    as the command line's ``--max-tensor-bytes``).

    Raises the :class:`modelgate.ModelgateError` subclass of the rejection's kind
    (``Malformed``, ``OutOfRange``, ``Unsupported``, ``LimitExceeded``), :class:`OSError`
    when the file cannot be read, ``ImportError`` without NumPy.
    """
    try:
        import numpy  # noqa: F401  (fail before any work without NumPy)
    except ImportError as e:
        raise ImportError("modelgate.onemodel.read needs NumPy (pip install numpy)") from e

    path = os.fsdecode(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", path)
        length = info.st_size
        first = os.read(fd, HEADER_LEN) if length else b""
        need = _modelgate.onemodel_head_length(first, length, max_tensor_bytes)
        # The header passed: the file is at least 64 bytes long, so it can be mapped.
        mapped = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
    finally:
        os.close(fd)
    try:
        if len(mapped) != length or need > length:
            raise OSError(errno.EIO, "the file changed while it was read", path)
        head = mapped[:need]
        rows = _modelgate.onemodel_tensors(head, length, max_tensor_bytes)
        return OneModel(path, mapped, rows)
    except BaseException:
        mapped.close()
        raise
