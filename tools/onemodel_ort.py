#!/usr/bin/env python3
"""onnxruntime gives bit-identical outputs before and after the ONNX -> OneModel -> ONNX round
trip (spec/onemodel.md §4, §6).

Three small real-architecture blocks are built with onnx.helper, with random weights and
fixed inputs: a convolution block (Conv, BatchNormalization, Relu, MaxPool, Conv, Add,
GlobalAveragePool, Flatten, Gemm), an attention block (LayerNormalization, MatMul, Transpose,
Mul, Softmax, MatMul, Add) and an embedding lookup (Gather, ReduceMean, Mul). Each is saved as
one file and with its weights as external data (onnx.save_model's convention), converted by
`modelgate onemodel convert`, written back by `modelgate onemodel to-onnx` both as one file
and with `--external-data`, and run by onnxruntime on one thread; every output of every
written model must equal the original's bit for bit, and the written models must pass
onnx.checker.

Usage: onemodel_ort.py MODELGATE_BINARY   (needs `pip install onnx numpy onnxruntime`)
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

RNG = np.random.default_rng(45)


def weight(name, *shape, dtype=np.float32):
    return numpy_helper.from_array((RNG.standard_normal(shape) * 0.1).astype(dtype), name)


def model(nodes, inputs, outputs, initializers, name):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializers)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="modelgate-ort-test")
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def conv_block():
    c = 16
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c1", "g", "beta", "mean", "var"], ["n1"], epsilon=1e-5),
        helper.make_node("Relu", ["n1"], ["r1"]),
        helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1]),
        helper.make_node("Add", ["c2", "p1"], ["s"]),
        helper.make_node("Relu", ["s"], ["r2"]),
        helper.make_node("GlobalAveragePool", ["r2"], ["gap"]),
        helper.make_node("Flatten", ["gap"], ["f"]),
        helper.make_node("Gemm", ["f", "fc", "fcb"], ["y"], transB=1),
    ]
    var = numpy_helper.from_array(RNG.uniform(0.5, 1.5, c).astype(np.float32), "var")
    inits = [
        weight("w1", c, 3, 3, 3), weight("b1", c), weight("g", c), weight("beta", c), weight("mean", c), var,
        weight("w2", c, c, 3, 3), weight("b2", c), weight("fc", 10, c), weight("fcb", 10),
    ]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, 32, 32])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 10])
    feeds = {"x": RNG.standard_normal((2, 3, 32, 32)).astype(np.float32)}
    return model(nodes, [x], [y], inits, "conv_block"), feeds


def attention_block():
    s, d = 8, 64
    nodes = [
        helper.make_node("LayerNormalization", ["x", "ln_g", "ln_b"], ["h"], axis=-1, epsilon=1e-5),
        helper.make_node("MatMul", ["h", "wq"], ["q"]),
        helper.make_node("MatMul", ["h", "wk"], ["k"]),
        helper.make_node("MatMul", ["h", "wv"], ["v"]),
        helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 2, 1]),
        helper.make_node("MatMul", ["q", "kt"], ["scores"]),
        helper.make_node("Mul", ["scores", "scale"], ["scaled"]),
        helper.make_node("Softmax", ["scaled"], ["attn"], axis=-1),
        helper.make_node("MatMul", ["attn", "v"], ["ctx"]),
        helper.make_node("MatMul", ["ctx", "wo"], ["o"]),
        helper.make_node("Add", ["o", "x"], ["y"]),
    ]
    scale = numpy_helper.from_array(np.array(1 / np.sqrt(d), dtype=np.float32), "scale")
    ln_g = numpy_helper.from_array(RNG.uniform(0.5, 1.5, d).astype(np.float32), "ln_g")
    inits = [ln_g, weight("ln_b", d), weight("wq", d, d), weight("wk", d, d), weight("wv", d, d), weight("wo", d, d), scale]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", d])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "seq", d])
    feeds = {"x": RNG.standard_normal((2, s, d)).astype(np.float32)}
    return model(nodes, [x], [y], inits, "attention_block"), feeds


def embedding_lookup():
    vocab, d = 1000, 32
    nodes = [
        helper.make_node("Gather", ["table", "ids"], ["e"], axis=0),
        helper.make_node("ReduceMean", ["e"], ["pooled"], axes=[1], keepdims=0),
        helper.make_node("Mul", ["pooled", "gain"], ["y"]),
    ]
    inits = [weight("table", vocab, d, dtype=np.float16), weight("gain", d, dtype=np.float16)]
    ids = helper.make_tensor_value_info("ids", TensorProto.INT64, ["batch", "seq"])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT16, ["batch", d])
    feeds = {"ids": RNG.integers(0, vocab, (3, 7)).astype(np.int64)}
    return model(nodes, [ids], [y], inits, "embedding_lookup"), feeds


def run(path, feeds):
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def modelgate(binary, *args):
    r = subprocess.run([binary, *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"modelgate {' '.join(args)}: exit {r.returncode}: {r.stdout.strip()} {r.stderr.strip()}")


def main():
    binary = os.path.abspath(sys.argv[1])
    failed = 0
    checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        for build in (conv_block, attention_block, embedding_lookup):
            m, feeds = build()
            name = build.__name__
            for layout in ("one-file", "external"):
                folder = os.path.join(tmp, f"{name}-{layout}")
                os.makedirs(folder)
                original = os.path.join(folder, "model.onnx")
                if layout == "external":
                    onnx.save_model(m, original, save_as_external_data=True, all_tensors_to_one_file=True,
                                    location="model.onnx.data", size_threshold=0)
                else:
                    onnx.save_model(m, original)
                expected = run(original, feeds)
                one = os.path.join(folder, "model.onemodel")
                modelgate(binary, "onemodel", "convert", original, one)
                modelgate(binary, "check", one)
                for flags, out in (([], "back.onnx"), (["--external-data"], "back-external.onnx")):
                    back = os.path.join(folder, out)
                    modelgate(binary, "onemodel", "to-onnx", one, back, *flags)
                    has_data = os.path.exists(back + ".data")
                    # Each of these models' weight matrices holds at least 1024 bytes.
                    if has_data != bool(flags):
                        failed += 1
                        print(f"FAIL {name} {layout} {out}: data file present {has_data}")
                    onnx.checker.check_model(back)
                    got = run(back, feeds)
                    checked += 1
                    for i, (a, b) in enumerate(zip(expected, got)):
                        if a.dtype != b.dtype or a.shape != b.shape or a.tobytes() != b.tobytes():
                            failed += 1
                            print(f"FAIL {name} {layout} {out}: output {i} differs")
    print(f"{checked} round trips, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
