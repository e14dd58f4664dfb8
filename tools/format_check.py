#!/usr/bin/env python3
"""Compares tools/format_read.py's view of converted models with the ONNX files they came
from, tensor by tensor, byte for byte (spec/onemodel.md §1.3, §2.5).

For each model the onnx package ships or generates (as tools/onemodel_roundtrip.py): convert
with `modelgate onemodel convert`, read the result with format_read.read, walk the ONNX model's
tensors in the same data order, and compare dtype, dims and bytes (raw_data layout as
numpy_helper.from_array produces it; strings as byte lists).

Usage: format_check.py MODELGATE_BINARY [LIMIT]
"""
import glob
import os
import subprocess
import sys
import tempfile

import onnx
from onnx import numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import format_read  # noqa: E402


def onnx_bytes(t):
    if t.data_type == onnx.TensorProto.STRING:
        return list(t.string_data)
    if t.HasField("raw_data"):
        return t.raw_data
    return numpy_helper.from_array(numpy_helper.to_array(t)).raw_data


def walk_graph(g, out):
    for t in g.initializer:
        out.append(t)
    for s in g.sparse_initializer:
        out.extend([s.values, s.indices])
    walk_nodes(g.node, out)


def walk_attrs(attrs, out):
    for a in attrs:
        if a.ref_attr_name:
            continue
        if a.type == onnx.AttributeProto.TENSOR:
            out.append(a.t)
        elif a.type == onnx.AttributeProto.TENSORS:
            out.extend(a.tensors)
        elif a.type == onnx.AttributeProto.SPARSE_TENSOR:
            out.extend([a.sparse_tensor.values, a.sparse_tensor.indices])
        elif a.type == onnx.AttributeProto.SPARSE_TENSORS:
            for s in a.sparse_tensors:
                out.extend([s.values, s.indices])
        elif a.type == onnx.AttributeProto.GRAPH:
            walk_graph(a.g, out)
        elif a.type == onnx.AttributeProto.GRAPHS:
            for g in a.graphs:
                walk_graph(g, out)


def walk_nodes(nodes, out):
    for n in nodes:
        walk_attrs(n.attribute, out)


def onnx_tensors(model):
    out = []
    walk_graph(model.graph, out)
    for f in model.functions:
        walk_nodes(f.node, out)
        walk_attrs(f.attribute_proto, out)
    return out


def models():
    root = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data")
    yield from sorted(glob.glob(os.path.join(root, "**", "model.onnx"), recursive=True))


def main():
    binary = sys.argv[1]
    limit = int(sys.argv[2]) if len(sys.argv) > 2 else None
    passed = failed = tensors = 0
    with tempfile.TemporaryDirectory() as tmp:
        from onnx.backend.test.case.node import collect_testcases

        paths = list(models())
        for i, case in enumerate(collect_testcases(None)):
            p = os.path.join(tmp, f"g{i:05d}.onnx")
            onnx.save(case.model, p)
            paths.append(p)
        out = os.path.join(tmp, "m.onemodel")
        for path in paths[:limit]:
            subprocess.run([binary, "onemodel", "convert", path, out, "--overwrite"], check=True, capture_output=True)
            ours = format_read.read(out)["tensors"]
            theirs = onnx_tensors(onnx.load(path))
            ok = len(ours) == len(theirs)
            for (where, dtype, dims, value), t in zip(ours, theirs):
                if dtype != t.data_type or dims != list(t.dims) or list(value) != list(onnx_bytes(t)):
                    ok = False
                    print(f"FAIL {path}: {where} differs")
                    break
            tensors += len(ours)
            if ok:
                passed += 1
            else:
                failed += 1
                print(f"FAIL {path}")
    print(f"{passed} passed, {failed} failed ({tensors} tensors compared byte for byte)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
