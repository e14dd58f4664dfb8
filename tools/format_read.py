#!/usr/bin/env python3
"""An independent OneModel v1 reader in Python with numpy only, written from
spec/onemodel.md alone (not from the Rust code). It checks the header (§1.1), parses the
manifest strictly enough for the comparison (§1.2: integers exact, floats as bit patterns,
base64), checks every tensor range (§2.5), and returns the tensors in data order (§1.3).

Usage as a module: read(path) -> dict with 'header', 'manifest', 'tensors' where tensors is a
list of (where, dtype_code, dims, bytes_or_list_of_bytes) in data order.
As a script: format_read.py FILE.onemodel prints one line per tensor.
"""
import base64
import json
import struct
import sys

import numpy as np

MAGIC = bytes([0x8F]) + b"ONEMODL"
MAX_FIELD = 2**63 - 1
BITS = {1: 32, 6: 32, 12: 32, 2: 8, 3: 8, 9: 8, 17: 8, 18: 8, 19: 8, 20: 8, 24: 8,
        4: 16, 5: 16, 10: 16, 16: 16, 7: 64, 11: 64, 13: 64, 14: 64, 15: 128,
        21: 4, 22: 4, 23: 4, 25: 2, 26: 2, 27: 6, 28: 6}
NUMPY = {1: "<f4", 6: "<i4", 12: "<u4", 2: "u1", 3: "i1", 9: "?", 4: "<u2", 5: "<i2",
         10: "<f2", 7: "<i8", 11: "<f8", 13: "<u8", 14: "<c8", 15: "<c16"}


class Rejected(Exception):
    def __init__(self, kind, where, message):
        super().__init__(f"{kind}: {message} ({where})")
        self.kind = kind


def _no_duplicates(pairs):
    seen = {}
    for k, v in pairs:
        if k in seen:
            raise Rejected("Malformed", "manifest", "duplicate member name")
        seen[k] = v
    return seen


def _reject_float(text):
    raise Rejected("Malformed", "manifest", "number with fraction or exponent")


def header(data):
    if data[:8] != MAGIC:
        raise Rejected("Malformed", "magic", "not a OneModel file")
    if len(data) < 64:
        raise Rejected("OutOfRange", "header", "file shorter than the header")
    version, mlen, doff, dlen, flen = struct.unpack_from("<5Q", data, 8)
    if version != 1:
        raise Rejected("Unsupported", "format_version", "unsupported format version")
    for name, v in (("manifest_length", mlen), ("data_offset", doff), ("data_length", dlen), ("file_length", flen)):
        if v > MAX_FIELD:
            raise Rejected("OutOfRange", name, "above 2^63 - 1")
    if any(data[48:64]):
        raise Rejected("Malformed", "reserved", "reserved byte not zero")
    if flen != len(data):
        raise Rejected("OutOfRange", "file_length", "differs from the real length")
    if 64 + mlen > flen:
        raise Rejected("OutOfRange", "manifest_length", "past the end")
    if doff != (64 + mlen + 63) // 64 * 64:
        raise Rejected("OutOfRange", "data_offset", "not the manifest end rounded up to 64")
    if doff + dlen != flen:
        raise Rejected("OutOfRange", "data_length", "does not end at the end of the file")
    if any(data[64 + mlen:doff]):
        raise Rejected("Malformed", "padding", "padding byte not zero")
    return {"manifest_length": mlen, "data_offset": doff, "data_length": dlen}


def b64(text, where):
    if not isinstance(text, str):
        raise Rejected("Malformed", where, "expected a base64 string")
    try:
        raw = base64.b64decode(text, validate=True)
    except Exception:
        raise Rejected("Malformed", where, "invalid base64")
    if base64.b64encode(raw).decode() != text:
        raise Rejected("Malformed", where, "non-canonical base64")
    return raw


def _int(v, where):
    if type(v) is not int:
        raise Rejected("Malformed", where, "expected an integer")
    return v


class Reader:
    def __init__(self, data, head):
        self.data = data
        self.head = head
        self.tensors = []

    def tensor(self, t, where):
        dtype = _int(t["dtype"], where + ".dtype")
        if dtype not in BITS and dtype != 8:
            raise Rejected("Unsupported", where + ".dtype", "unsupported dtype")
        dims = [_int(d, where + ".dims") for d in t["dims"]]
        if any(d < 0 for d in dims):
            raise Rejected("OutOfRange", where + ".dims", "negative dimension")
        count = 0 if 0 in dims else int(np.prod(dims, dtype=object)) if dims else 1
        if count >= 2**60:
            raise Rejected("LimitExceeded", where + ".dims", "element count at 2^60 or more")
        if dtype == 8:
            if "data" in t or "strings" not in t:
                raise Rejected("Malformed", where, "string tensor needs strings")
            if len(t["strings"]) != count:
                raise Rejected("OutOfRange", where + ".strings", "string count")
            value = [b64(s, where + ".strings") for s in t["strings"]]
        else:
            if "strings" in t or "data" not in t:
                raise Rejected("Malformed", where, "fixed-size tensor needs data")
            off = _int(t["data"]["offset"], where + ".data.offset")
            length = _int(t["data"]["length"], where + ".data.length")
            if off < 0 or length < 0:
                raise Rejected("OutOfRange", where + ".data", "negative")
            expected = (count * BITS[dtype] + 7) // 8
            if expected > 2**31 - 1:
                raise Rejected("Unsupported", where + ".data", "tensor over 2^31 - 1 bytes")
            if length != expected:
                raise Rejected("OutOfRange", where + ".data.length", "length differs from dtype and dims")
            if length > 0 and off % 64 != 0:
                raise Rejected("OutOfRange", where + ".data.offset", "not a multiple of 64")
            if off + length > self.head["data_length"]:
                raise Rejected("OutOfRange", where + ".data.offset", "outside the data region")
            start = self.head["data_offset"] + off
            value = self.data[start:start + length]
        self.tensors.append((where, dtype, dims, value))

    def sparse(self, s, where):
        self.tensor(s["values"], where + ".values")
        self.tensor(s["indices"], where + ".indices")

    def attributes(self, attrs, where):
        for i, a in enumerate(attrs):
            w = f"{where}[{i}].value"
            t, v = a["type"], a.get("value")
            if a.get("ref"):
                continue
            if t == 4:
                self.tensor(v, w)
            elif t == 9:
                for j, x in enumerate(v):
                    self.tensor(x, f"{w}[{j}]")
            elif t == 11:
                self.sparse(v, w)
            elif t == 12:
                for j, x in enumerate(v):
                    self.sparse(x, f"{w}[{j}]")
            elif t == 5:
                self.graph(v, w)
            elif t == 10:
                for j, x in enumerate(v):
                    self.graph(x, f"{w}[{j}]")

    def nodes(self, nodes, where):
        for i, n in enumerate(nodes):
            self.attributes(n.get("attributes", []), f"{where}[{i}].attributes")

    def graph(self, g, where):
        for i, t in enumerate(g.get("initializers", [])):
            self.tensor(t, f"{where}.initializers[{i}]")
        for i, s in enumerate(g.get("sparse_initializers", [])):
            self.sparse(s, f"{where}.sparse_initializers[{i}]")
        self.nodes(g.get("nodes", []), f"{where}.nodes")


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    head = header(data)
    text = data[64:64 + head["manifest_length"]]
    if text.startswith(b"\xef\xbb\xbf"):
        raise Rejected("Malformed", "manifest", "byte-order mark")
    try:
        manifest = json.loads(text.decode("utf-8"), object_pairs_hook=_no_duplicates, parse_float=_reject_float)
    except (ValueError, RecursionError):
        raise Rejected("Malformed", "manifest", "not strict JSON")
    r = Reader(data, head)
    r.graph(manifest["graph"], "manifest.graph")
    for i, f in enumerate(manifest.get("functions", [])):
        r.nodes(f.get("nodes", []), f"manifest.functions[{i}].nodes")
        r.attributes(f.get("attribute_defaults", []), f"manifest.functions[{i}].attribute_defaults")
    return {"header": head, "manifest": manifest, "tensors": r.tensors}


def as_numpy(dtype, dims, value):
    """The tensor as a numpy array where numpy has the element type, else raw bytes."""
    if dtype in NUMPY:
        return np.frombuffer(value, dtype=NUMPY[dtype]).reshape(dims)
    return value


if __name__ == "__main__":
    for where, dtype, dims, value in read(sys.argv[1])["tensors"]:
        size = len(value) if isinstance(value, (bytes, bytearray)) else sum(map(len, value))
        print(f"{where}: dtype {dtype} dims {dims} {size} bytes")
