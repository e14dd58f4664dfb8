#!/usr/bin/env python3
"""Holds check_corpus's output to the outcome each corpus file's name asks for.

    compare.py CORPUS_DIR < check_corpus-output

A file named `<Expected>-<case>.<ext>` must give `valid` when <Expected> is `valid`, else
exactly the kind <Expected> (std-io/src/corpus.rs, which corpus-check runs). Every such
file under CORPUS_DIR's format folders must appear in the output, so a file the C program
missed fails too. Other files (fixtures_manifest.json) are listed as skipped. Prints every
mismatch, then `N passed, N failed`; exit 1 when any failed.
"""
import os
import sys


def expectation(name):
    """`valid`, an error kind, or None when the name carries no expectation (corpus.rs)."""
    prefix, sep, rest = name.partition("-")
    if not sep or not prefix or not rest or "." not in rest:
        return None
    return prefix


def main():
    root = sys.argv[1].rstrip("/")
    got = {}
    for line in sys.stdin:
        path, _, kind = line.rstrip("\n").rpartition(" ")
        got[os.path.normpath(path)] = kind
    expected = {}
    for folder in sorted(os.listdir(root)):
        top = os.path.join(root, folder)
        if not os.path.isdir(top):
            continue
        for dirpath, _, files in os.walk(top):
            for f in files:
                expected[os.path.normpath(os.path.join(dirpath, f))] = expectation(f)
    passed = failed = skipped = 0
    for path in sorted(expected):
        want = expected[path]
        if want is None:
            skipped += 1
            print(f"skipped {path}: name is not <Expected>-<case>.<ext>")
            continue
        have = got.get(path)
        if have == want:
            passed += 1
        else:
            failed += 1
            print(f"MISMATCH {path}: expected {want}, got {have or 'no line'}")
    extra = sorted(set(got) - set(expected))
    for path in extra:
        failed += 1
        print(f"MISMATCH {path}: not a corpus file")
    print(f"{skipped} skipped")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
