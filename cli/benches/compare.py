#!/usr/bin/env python3
"""Python peers of `cargo bench -p modelgate-cli --bench compare`, on the files the
Rust benchmark generated, with ratios against its medians from results.json.

    python3 cli/benches/compare.py [--results target/bench-data/results.json] [--reps 5]

Cases (each at least 5 runs, median):
  mlbundle read, deflated  zipfile.ZipFile(...).read() of every member, in process, from
                           the bundle's bytes in memory (as modelgate's read_container)
  ONNX -> OneModel         onnx.load + onnx.save in a child Python process (as modelgate's
                           child process), wall time with interpreter start, peak RSS
  MPK extract              tarfile.open(...).extractall(filter="data") in a child process

The Rust benchmark also runs the child-process peers itself, alternating with modelgate in
the same run (`compare.py --run-peer onnx|onnx-external|onnx-check|tarfile SRC DST`), when
python3 can import the module; this script adds zipfile and repeats the first ones at its own
moment.

Needs `pip install onnx numpy`.
"""

import argparse
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
import zipfile



def run_peer(name, src, dst):
    """One run of a child-process peer (`compare.py --run-peer NAME SRC DST`); the Rust
    benchmark starts the same command so both measure the same peer."""
    if name == "onnx":
        import onnx

        onnx.save(onnx.load(src), dst)
    elif name == "onnx-external":
        import onnx

        onnx.save_model(onnx.load(src), dst, save_as_external_data=True, all_tensors_to_one_file=True,
                        location=os.path.basename(dst) + ".data")
    elif name == "onnx-check":
        import onnx

        # The checker of the onnx package, given the path: it reads the protobuf and checks
        # the external data references; DST is not written.
        onnx.checker.check_model(src)
    elif name == "tarfile":
        import tarfile

        with tarfile.open(src, "r:gz") as t:
            t.extractall(dst, filter="data")
    else:
        sys.exit(f"compare.py: unknown peer {name}")


# Runs the command, reaps it with os.wait4 and prints "seconds rss-bytes". It runs in a fresh
# interpreter because Linux carries the pre-exec high-water mark of the spawning process into
# ru_maxrss, and this script holds the bundle's bytes (the Rust benchmark does the same).
HELPER = """
import os, subprocess, sys, time
start = time.perf_counter()
proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
_, status, usage = os.wait4(proc.pid, 0)
elapsed = time.perf_counter() - start
print(elapsed, usage.ru_maxrss * 1024)
sys.exit(os.waitstatus_to_exitcode(status))
"""


def child(argv):
    """Wall time (with interpreter start) and peak RSS (bytes) of one child process."""
    out = subprocess.run([sys.executable, "-c", HELPER, *argv], stdout=subprocess.PIPE, text=True)
    if out.returncode != 0:
        sys.exit(f"compare.py: {' '.join(argv)} exited with {out.returncode}")
    elapsed, rss = out.stdout.split()
    return float(elapsed), int(rss)


def zip_read(data):
    start = time.perf_counter()
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        members = [z.read(n) for n in z.namelist()]  # CRC-32 checked at each member's end
    elapsed = time.perf_counter() - start
    del members
    return elapsed, 0


def median(samples):
    return statistics.median(t for t, _ in samples), max(m for _, m in samples)


def fresh(path):
    shutil.rmtree(path, ignore_errors=True)
    if os.path.exists(path):
        os.remove(path)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    default = os.path.join(here, "..", "..", "target", "bench-data", "results.json")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--results", default=os.environ.get("MODELGATE_BENCH_RESULTS", default))
    ap.add_argument("--reps", type=int, default=int(os.environ.get("MODELGATE_BENCH_REPS", "5")))
    args = ap.parse_args()
    with open(args.results) as f:
        results = json.load(f)
    files = results["files"]
    ours = {(r["case"], r["impl"]): r for r in results["rows"]}
    work = os.path.join(os.path.dirname(os.path.abspath(args.results)), "work-py")
    os.makedirs(work, exist_ok=True)
    rows = []  # (case, impl, median, bytes, mem, modelgate row, goal)

    if "mlbundle_deflated" in files:
        data = open(files["mlbundle_deflated"], "rb").read()
        mg = ours.get(("mlbundle read, deflated", "modelgate read_container, 2 threads"))
        s = median([zip_read(data) for _ in range(args.reps)])
        rows.append(("mlbundle read, deflated", "Python zipfile.read", s, mg and mg["bytes"], "heap", mg, 2.0))

    if "onnx" in files:
        out = os.path.join(work, "resaved.onnx")
        mg = ours.get(("ONNX → OneModel", "modelgate onemodel convert"))
        samples = []
        for _ in range(args.reps):
            fresh(out)
            samples.append(child([sys.executable, os.path.abspath(__file__), "--run-peer", "onnx", files["onnx"], out]))
        size = os.path.getsize(files["onnx"])
        rows.append(("ONNX → OneModel", "Python onnx.load + onnx.save", median(samples), size, "rss", mg, 1.5))

    if "mpk_package" in files:
        dest = os.path.join(work, "mpk-tarfile")
        mg = ours.get(("MPK extract", "modelgate mpk extract"))
        samples = []
        for _ in range(args.reps):
            fresh(dest)
            os.makedirs(dest)
            samples.append(child([sys.executable, os.path.abspath(__file__), "--run-peer", "tarfile", files["mpk_package"], dest]))
        size = os.path.getsize(files["mpk_package"])
        rows.append(("MPK extract", 'Python tarfile filter="data"', median(samples), size, "rss", mg, 2.0))

    shutil.rmtree(work, ignore_errors=True)
    report(results, rows, args.reps)


def report(results, rows, reps):
    run = results["run"]
    print(f"\ncompare.py: scale {run['scale']}, {reps} runs each, Python {sys.version.split()[0]}, "
          f"{run['cpu']} ({run['cores']} cores), load average {os.getloadavg()[0]:.2f}\n")
    print("| case | implementation | median | MiB/s | peak memory | modelgate speed vs this |")
    print("|---|---|---|---|---|---|")
    verdicts = []
    for case, impl, (t, mem), size, kind, mg, goal in rows:
        tput = f"{size / 1048576 / t:.0f}" if size else "—"
        memtext = f"{mem / 1048576:.1f} MiB RSS" if kind == "rss" and mem else "—"
        ratio = "—"
        if mg and mg["median_s"] > 0:
            r = t / mg["median_s"]
            ratio = f"{r:.2f}×"
            verdicts.append((case, f"≥ {goal:g}× {impl}", f"{r:.2f}×", r >= goal))
        print(f"| {case} | {impl} | {fmt(t)} | {tput} | {memtext} | {ratio} |")
    print("\n| case | goal | measured | met |")
    print("|---|---|---|---|")
    for case, goal, measured, met in verdicts:
        print(f"| {case} | {goal} | {measured} | {'yes' if met else '**no**'} |")


def fmt(t):
    return f"{t:.2f} s" if t >= 1 else f"{t * 1e3:.2f} ms"


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--run-peer":
        run_peer(*sys.argv[2:])
    else:
        main()
