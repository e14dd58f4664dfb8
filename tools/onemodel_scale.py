#!/usr/bin/env python3
"""OneModel and ONNX past 2 GiB (spec/onemodel.md §2.5, §6.2, §6.3).

1. A 2.25 GiB model: nine float32 MatMul weights of 256 MiB each, whose bytes are written
   straight to `big.onnx.data` (never through a protobuf message; sparse: a random 64 KiB at
   the start and end of each tensor, holes between) and named by external_data entries.
   `modelgate check` accepts it, `onemodel convert` copies it into a OneModel file, `check`
   accepts that, and `onemodel to-onnx` writes it back with its initializers in
   `back.onnx.data`, since it does not fit one 2 GiB file; none of these runs peaks above
   64 MiB of resident memory. Every tensor of the result equals
   the original byte for byte (numpy over memory maps of both data files), and the graph
   equals the original's once the external_data entries (whose offsets the writer chooses)
   are set aside.
2. A model whose one float16 embedding table of 262144 x 4096 is 2^31 bytes, one more than
   the default bound: `check` and `convert` refuse it as Unsupported, naming
   --max-tensor-bytes; with --max-tensor-bytes it is checked, converted, and written back,
   and the table comes back byte for byte.

Run once, in release; files are deleted as soon as they have been compared. Disk: about
4.5 GiB at the peak (the OneModel file and the data file written back; the originals are
sparse).

Usage: onemodel_scale.py MODELGATE_BINARY   (needs `pip install onnx numpy`)
"""
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper

MIB = 1 << 20
RNG = np.random.default_rng(2045)


def external(name, dims, dtype, location, offset, length):
    """A TensorProto whose bytes are `length` bytes at `offset` of `location`."""
    t = TensorProto()
    t.name = name
    t.data_type = dtype
    t.dims.extend(dims)
    t.data_location = TensorProto.EXTERNAL
    for key, value in (("location", location), ("offset", str(offset)), ("length", str(length))):
        entry = t.external_data.add()
        entry.key, entry.value = key, value
    return t


def write_sparse(path, size, marks):
    """A file of `size` bytes, zero but for random 64 KiB blocks at the offsets in `marks`."""
    with open(path, "wb") as f:
        f.truncate(size)
        for at in marks:
            f.seek(at)
            f.write(RNG.bytes(64 * 1024))


# GNU time reports a command's own peak resident set; Python's RUSAGE_CHILDREN would count
# the interpreter's pages the child held between fork and exec.
GNU_TIME = "/usr/bin/time" if os.path.exists("/usr/bin/time") else None
PEAKS = {}


def modelgate(binary, *args, expect=0):
    command = [binary, *args]
    if GNU_TIME:
        command = [GNU_TIME, "-f", "peak %M", *command]
    r = subprocess.run(command, capture_output=True, text=True)
    if r.returncode != expect:
        raise SystemExit(f"modelgate {' '.join(args)}: exit {r.returncode}, wanted {expect}: "
                         f"{r.stdout.strip()} {r.stderr.strip()}")
    stderr = r.stderr.strip().splitlines()
    if GNU_TIME:
        PEAKS[" ".join(os.path.basename(a) for a in args[:3])] = int(stderr.pop().split()[1]) * 1024
    # Verdicts of `check` go to stdout, a writer's rejection to stderr (README, "Checking files").
    return r.stdout + "\n".join(stderr)


def ranges(model_path):
    """Each initializer's (location, offset, length) from its external_data entries."""
    m = onnx.load(model_path, load_external_data=False)
    out = {}
    for t in m.graph.initializer:
        entries = {e.key: e.value for e in t.external_data}
        out[t.name] = (entries["location"], int(entries.get("offset", 0)), int(entries["length"]))
    return m, out


def without_external_entries(m):
    """The model's bytes with every initializer's external_data left out."""
    copy = onnx.ModelProto()
    copy.CopyFrom(m)
    for t in copy.graph.initializer:
        del t.external_data[:]
    return copy.SerializeToString(deterministic=True)


def same_tensors(folder_a, model_a, folder_b, model_b):
    """Compares every initializer's bytes through memory maps of both data files."""
    a, ra = ranges(os.path.join(folder_a, model_a))
    b, rb = ranges(os.path.join(folder_b, model_b))
    assert ra.keys() == rb.keys(), (ra.keys(), rb.keys())
    for name, (loc_a, off_a, len_a) in ra.items():
        loc_b, off_b, len_b = rb[name]
        assert len_a == len_b, name
        assert off_b % 64 == 0, (name, off_b)
        x = np.memmap(os.path.join(folder_a, loc_a), dtype=np.uint8, mode="r", offset=off_a, shape=(len_a,))
        y = np.memmap(os.path.join(folder_b, loc_b), dtype=np.uint8, mode="r", offset=off_b, shape=(len_b,))
        assert np.array_equal(x, y), name
        del x, y
    assert without_external_entries(a) == without_external_entries(b), "graphs differ"
    return len(ra)


def big_model(tmp, binary):
    rows, cols, count = 16384, 4096, 9
    size = rows * cols * 4
    location = "big.onnx.data"
    inits, nodes, outputs = [], [], []
    for i in range(count):
        inits.append(external(f"w{i}", [rows, cols], TensorProto.FLOAT, location, i * size, size))
        nodes.append(helper.make_node("MatMul", ["x", f"w{i}"], [f"y{i}"]))
        outputs.append(helper.make_tensor_value_info(f"y{i}", TensorProto.FLOAT, ["batch", cols]))
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", rows])
    graph = helper.make_graph(nodes, "big", [x], outputs, inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    src = os.path.join(tmp, "src")
    os.makedirs(src)
    with open(os.path.join(src, "big.onnx"), "wb") as f:
        f.write(m.SerializeToString())
    write_sparse(os.path.join(src, location), count * size,
                 [at for i in range(count) for at in (i * size, (i + 1) * size - 64 * 1024)])
    assert count * size > 2 * 1024 * MIB
    original = os.path.join(src, "big.onnx")
    start = time.monotonic()
    modelgate(binary, "check", original)
    print(f"check of the {os.path.getsize(original)}-byte model with {count * size} bytes of external data: "
          f"{time.monotonic() - start:.2f} s")
    inspect = modelgate(binary, "inspect", "--json", original)
    assert f'"initializer_bytes":{count * size}' in inspect, inspect
    out = os.path.join(tmp, "out")
    os.makedirs(out)
    one = os.path.join(out, "big.onemodel")
    modelgate(binary, "onemodel", "convert", original, one)
    modelgate(binary, "check", one)
    back = os.path.join(out, "back.onnx")
    modelgate(binary, "onemodel", "to-onnx", one, back)
    assert os.path.getsize(back) < MIB and os.path.exists(back + ".data")
    # Goal: peak RSS at most the protobuf or manifest size plus 64 MiB, whatever the tensors.
    for command, peak in PEAKS.items():
        print(f"peak resident set of modelgate {command}: {peak / MIB:.1f} MiB")
        assert peak < 64 * MIB, (command, peak)
    if not GNU_TIME:
        print("peak resident sets not measured: no /usr/bin/time")
    os.remove(one)
    n = same_tensors(src, "big.onnx", out, "back.onnx")
    onnx.checker.check_model(back)
    for folder in (src, out):
        for name in os.listdir(folder):
            os.remove(os.path.join(folder, name))
    print(f"2.25 GiB model: {n} tensors and the graph round-trip")


def one_big_tensor(tmp, binary):
    vocab, d = 262144, 4096
    size = vocab * d * 2
    assert size == 1 << 31
    location = "emb.onnx.data"
    table = external("table", [vocab, d], TensorProto.FLOAT16, location, 0, size)
    nodes = [helper.make_node("Gather", ["table", "ids"], ["y"], axis=0)]
    ids = helper.make_tensor_value_info("ids", TensorProto.INT64, ["batch", "seq"])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT16, ["batch", "seq", d])
    m = helper.make_model(helper.make_graph(nodes, "embedding", [ids], [y], [table]),
                          opset_imports=[helper.make_opsetid("", 17)])
    folder = os.path.join(tmp, "emb")
    os.makedirs(folder)
    original = os.path.join(folder, "emb.onnx")
    with open(original, "wb") as f:
        f.write(m.SerializeToString())
    write_sparse(os.path.join(folder, location), size, [0, size // 2, size - 64 * 1024])
    raised = ["--max-tensor-bytes", str(size)]
    for args in (["check", original], ["onemodel", "convert", original, os.path.join(folder, "x.onemodel")]):
        said = modelgate(binary, *args, expect=1)
        assert "Unsupported" in said and "--max-tensor-bytes" in said, said
    modelgate(binary, "check", *raised, original)
    one = os.path.join(folder, "emb.onemodel")
    modelgate(binary, "onemodel", "convert", *raised, original, one)
    said = modelgate(binary, "check", one, expect=1)
    assert "Unsupported" in said and "--max-tensor-bytes" in said, said
    modelgate(binary, "check", *raised, one)
    back = os.path.join(folder, "back.onnx")
    modelgate(binary, "onemodel", "to-onnx", *raised, one, back)
    os.remove(one)
    same_tensors(folder, "emb.onnx", folder, "back.onnx")
    for name in os.listdir(folder):
        os.remove(os.path.join(folder, name))
    print("one 2^31-byte tensor: refused by default, round-trips with --max-tensor-bytes")


def main():
    binary = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        big_model(tmp, binary)
        one_big_tensor(tmp, binary)
    print("ok")


if __name__ == "__main__":
    main()
