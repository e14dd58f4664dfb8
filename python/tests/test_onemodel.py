"""``modelgate.onemodel.read``: the check of ``modelgate check``, tensors as read-only NumPy
views of a memory map (no copy)."""

from __future__ import annotations

import base64
import json
import mmap
import struct
from pathlib import Path
from typing import Any, List, Tuple

import numpy as np
import pytest

import modelgate
from modelgate import onemodel

MAGIC = bytes([0x8F]) + b"ONEMODL"


def write_onemodel(path: Path, tensors: List[Tuple[str, int, List[int], Any]]) -> None:
    """A OneModel file (spec/onemodel.md §1) whose graph has these initializers:
    ``(name, dtype, dims, raw bytes)``, or a list of byte strings for dtype 8."""
    data = bytearray()
    initializers = []
    for name, dtype, dims, payload in tensors:
        tensor: dict = {"name": name, "dtype": dtype, "dims": dims}
        if dtype == 8:
            tensor["strings"] = [base64.b64encode(s).decode() for s in payload]
        else:
            data += bytes(-len(data) % 64)
            tensor["data"] = {"offset": len(data), "length": len(payload)}
            data += payload
        initializers.append(tensor)
    manifest = json.dumps(
        {"ir_version": 9, "opsets": [{"version": 17}], "graph": {"initializers": initializers}},
        separators=(",", ":"),
    ).encode()
    data_offset = -(-(64 + len(manifest)) // 64) * 64
    length = data_offset + len(data)
    header = MAGIC + struct.pack("<5Q", 1, len(manifest), data_offset, len(data), length) + bytes(16)
    path.write_bytes(header + manifest + bytes(data_offset - 64 - len(manifest)) + bytes(data))


def file_ranges(path: Path) -> dict:
    """Each tensor's bytes as the file's header and manifest place them (§2.5: ``length``
    bytes at ``data_offset + offset``)."""
    raw = path.read_bytes()
    manifest_length, data_offset = struct.unpack_from("<2Q", raw, 16)
    manifest = json.loads(raw[64 : 64 + manifest_length])
    out = {}
    for t in manifest["graph"].get("initializers", []):
        if "data" in t:
            start = data_offset + t["data"]["offset"]
            out[t["name"]] = raw[start : start + t["data"]["length"]]
    return out


def reaches_mmap(array: np.ndarray) -> bool:
    """True when the array's ``base`` chain (through memoryviews' ``obj``) ends at an mmap."""
    obj: Any = array
    for _ in range(16):
        if isinstance(obj, mmap.mmap):
            return True
        obj = obj.obj if isinstance(obj, memoryview) else getattr(obj, "base", None)
        if obj is None:
            return False
    return False


RNG = np.random.default_rng(7)
F32 = RNG.standard_normal((3, 4)).astype("<f4")
BIG = RNG.standard_normal((512, 600)).astype("<f4")  # 1.2 MB
I64 = np.array([-(2**62), 2**53 + 1], dtype="<i8")
F16 = np.array([[1.5, -2.0], [0.0, 65504.0]], dtype="<f2")
C64 = np.array([1 + 2j, -3.5j], dtype="<c8")
TENSORS = [
    ("f32", 1, [3, 4], F32.tobytes()),
    ("big", 1, [512, 600], BIG.tobytes()),
    ("i64", 7, [2], I64.tobytes()),
    ("f16", 10, [2, 2], F16.tobytes()),
    ("bf16", 16, [3], np.array([0x3F80, 0xC000, 0x7F80], dtype="<u2").tobytes()),
    ("u8", 2, [5], bytes([0, 1, 2, 254, 255])),
    ("flags", 9, [4], bytes([1, 0, 0, 1])),
    ("i4", 22, [3], bytes([0x21, 0x0F])),
    ("c64", 14, [2], C64.tobytes()),
    ("f64", 11, [], struct.pack("<d", 2.5)),
    ("empty", 1, [0, 3], b""),
    ("names", 8, [2], [b"alpha", b"\xff\x00"]),
]


@pytest.fixture
def model_path(tmp_path: Path) -> Path:
    path = tmp_path / "model.onemodel"
    write_onemodel(path, TENSORS)
    assert modelgate.check(path).ok, modelgate.check(path)
    return path


def test_tensors_are_read_only_views_of_the_map(model_path: Path) -> None:
    model = onemodel.read(model_path)
    assert list(model.tensors) == [t[0] for t in TENSORS]
    ranges = file_ranges(model_path)
    whole = np.frombuffer(model._map, dtype=np.uint8)  # the same map, for addresses
    base = whole.__array_interface__["data"][0]
    raw = model_path.read_bytes()
    for name, array in model.tensors.items():
        if name == "names":
            continue
        assert reaches_mmap(array), name
        assert not array.flags.writeable, name
        assert array.tobytes() == ranges[name], name
        if ranges[name]:
            # The array's first byte is the tensor's first byte in the map: no copy.
            at = array.__array_interface__["data"][0] - base
            assert raw[at : at + len(ranges[name])] == ranges[name], name
    with pytest.raises(ValueError):
        model.tensors["f32"][0, 0] = 1.0


def test_dtypes_and_shapes(model_path: Path) -> None:
    model = onemodel.read(model_path)
    t = model.tensors
    np.testing.assert_array_equal(t["f32"], F32)
    assert t["f32"].dtype == np.dtype("<f4") and t["f32"].shape == (3, 4)
    np.testing.assert_array_equal(t["big"], BIG)
    np.testing.assert_array_equal(t["i64"], I64)
    np.testing.assert_array_equal(t["f16"], F16)
    np.testing.assert_array_equal(t["c64"], C64)
    assert t["f64"].shape == () and float(t["f64"]) == 2.5
    assert t["u8"].tolist() == [0, 1, 2, 254, 255]
    assert t["flags"].dtype == np.bool_ and t["flags"].tolist() == [True, False, False, True]
    # bfloat16: ml_dtypes when installed, else the raw bits.
    bf16 = t["bf16"]
    if bf16.dtype == np.dtype("<u2"):
        assert bf16.tolist() == [0x3F80, 0xC000, 0x7F80]
    else:
        assert bf16.astype(np.float32).tolist() == [1.0, -2.0, float("inf")]
    # int4: the packed bytes, flat.
    assert t["i4"].dtype == np.uint8 and t["i4"].tolist() == [0x21, 0x0F]
    assert model.shapes["i4"] == (3,) and model.dtypes["i4"] == "int4"
    assert t["empty"].shape == (0, 3)
    names = t["names"]
    assert names.dtype == object and names.tolist() == [b"alpha", b"\xff\x00"]
    assert model.dtypes == {
        "f32": "float", "big": "float", "i64": "int64", "f16": "float16", "bf16": "bfloat16",
        "u8": "uint8", "flags": "bool", "i4": "int4", "c64": "complex64", "f64": "double",
        "empty": "float", "names": "string",
    }


def test_shared_bytes_are_one_memory(corpus: Path) -> None:
    model = onemodel.read(corpus / "onemodel" / "valid-tensors-share-bytes.onemodel")
    a, b = model.tensors["a"], model.tensors["b"]
    assert np.shares_memory(a, b)
    assert a.tobytes() == b.tobytes() == bytes([0x11]) * 8


def test_every_corpus_onemodel_reads_as_check_says(corpus: Path) -> None:
    files = sorted((corpus / "onemodel").glob("*.onemodel"))
    assert len(files) > 100
    for path in files:
        checked = modelgate.check(path)
        if checked.ok:
            with onemodel.read(path) as model:
                assert isinstance(model.tensors, dict)
            continue
        with pytest.raises(modelgate.ModelgateError) as caught:
            onemodel.read(path)
        e = caught.value
        assert type(e) is modelgate.KINDS[checked.kind], path
        assert (e.kind, e.message, e.location, e.format) == (
            checked.kind, checked.message, checked.location, "onemodel"
        ), path


def test_max_tensor_bytes(model_path: Path) -> None:
    with pytest.raises(modelgate.Unsupported):
        onemodel.read(model_path, max_tensor_bytes=1000)
    assert len(onemodel.read(model_path, max_tensor_bytes=BIG.nbytes).tensors) == len(TENSORS)


def test_close_unmaps_once_no_view_is_left(model_path: Path) -> None:
    with onemodel.read(model_path) as model:
        kept = model.tensors["f32"]
    assert model.tensors == {}
    assert kept.tolist() == F32.tolist(), "a view kept keeps the map"
    model = onemodel.read(model_path)
    model.close()
    model.close()


def test_io_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        onemodel.read(tmp_path / "missing.onemodel")
    with pytest.raises(OSError):
        onemodel.read(tmp_path)
    empty = tmp_path / "empty.onemodel"
    empty.write_bytes(b"")
    with pytest.raises(modelgate.Malformed):
        onemodel.read(empty)
