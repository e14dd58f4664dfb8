#!/usr/bin/env python3
"""Writes the mlbundle fixtures that another ZIP writer must produce (spec/mlbundle.md §2):
Python's zipfile with stored entries, with data descriptors (streaming to a non-seekable
file), with force_zip64, with descriptors and force_zip64 together, and with a central
directory in another order than the local records.

Run once from the repository root; the output is committed under
tools/corpus-gen/fixtures/mlbundle/ and included byte for byte by the corpus generator
(tools/corpus-gen/src/mlbundle.rs). Timestamps are fixed, so a rerun with the same Python
and zlib gives the same bytes.

    python3 tools/mlbundle_python_fixtures.py
"""
import hashlib
import io
import json
import os
import zipfile

OUT = os.path.join(os.path.dirname(__file__), "corpus-gen", "fixtures", "mlbundle")
WHEN = (2024, 5, 17, 12, 30, 44)

def varint(n):
    out = bytearray()
    while True:
        low = n & 0x7F
        n >>= 7
        out.append(low | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(number, payload):
    """A length-delimited protobuf field."""
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def number(number, value):
    """A varint protobuf field."""
    return varint(number << 3) + varint(value)


# A self-contained ONNX model (spec/mlbundle.md §12.2): ir_version 7, producer "onnx", one
# uint8 initializer `w` holding runs and noise, which is the graph's output.
WEIGHTS = bytes(range(256)) * 3 + b"\x00" * 500
TENSOR = number(1, len(WEIGHTS)) + number(2, 2) + field(8, b"w") + field(9, WEIGHTS)
MODEL = number(1, 7) + field(2, b"onnx") + field(7, field(5, TENSOR) + field(12, field(1, b"w")))
SCHEMA = b'{"inputs":[{"name":"x","dtype":"float32"},{"name":"y","dtype":"int64"}]}'
SAMPLES = b'{"rows":[[1.0,2],[3.5,null]]}'


def manifest(members):
    integrity = {
        name: {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
        for name, data in members
    }
    doc = {
        "format": "mlbundle",
        "format_version": "1",
        "writer_version": "0.1.0",
        "recipe": {"kind": "standalone", "members": ["model.onnx"]},
        "schema": "schema.json",
        "samples": "samples.json",
        "integrity": integrity,
    }
    return json.dumps(doc, indent=2, sort_keys=True).encode()


MEMBERS = [("model.onnx", MODEL), ("schema.json", SCHEMA), ("samples.json", SAMPLES)]
ALL = [("manifest.json", manifest(MEMBERS))] + MEMBERS


class Unseekable(io.RawIOBase):
    """A write-only stream without tell/seek, as a pipe or socket is."""

    def __init__(self):
        self.buf = bytearray()

    def writable(self):
        return True

    def write(self, b):
        self.buf += b
        return len(b)


def info(name, compress_type):
    zi = zipfile.ZipInfo(name, date_time=WHEN)
    zi.compress_type = compress_type
    zi.external_attr = 0o100644 << 16
    return zi


def write(fileobj, compress_type, force_zip64=False, reverse_central=False):
    with zipfile.ZipFile(fileobj, "w") as zf:
        for name, data in ALL:
            with zf.open(info(name, compress_type), "w", force_zip64=force_zip64) as f:
                f.write(data)
        if reverse_central:
            zf.filelist.reverse()


def seekable(path, **kw):
    buf = io.BytesIO()
    write(buf, **kw)
    return buf.getvalue()


def unseekable(**kw):
    s = Unseekable()
    write(s, **kw)
    return bytes(s.buf)


def main():
    os.makedirs(OUT, exist_ok=True)
    files = {
        "python-zipfile-stored": seekable(None, compress_type=zipfile.ZIP_STORED),
        "python-zipfile-descriptors": unseekable(compress_type=zipfile.ZIP_DEFLATED),
        "python-zipfile-stored-descriptors": unseekable(compress_type=zipfile.ZIP_STORED),
        "python-zipfile-stored-descriptors-zip64": unseekable(compress_type=zipfile.ZIP_STORED, force_zip64=True),
        "python-zipfile-force-zip64": seekable(None, compress_type=zipfile.ZIP_DEFLATED, force_zip64=True),
        "python-zipfile-descriptors-zip64": unseekable(compress_type=zipfile.ZIP_DEFLATED, force_zip64=True),
        "python-zipfile-central-order": seekable(None, compress_type=zipfile.ZIP_DEFLATED, reverse_central=True),
    }
    for name, data in files.items():
        with open(os.path.join(OUT, name + ".mlbundle"), "wb") as f:
            f.write(data)
        # Python itself must read what it wrote.
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            assert zf.testzip() is None, name


if __name__ == "__main__":
    main()
