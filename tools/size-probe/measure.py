#!/usr/bin/env python3
"""Code size of each modelgate format for thumbv7em-none-eabihf (README, "Embedding the core").

Builds the probe (a no_std static library calling one reader, fat LTO, opt-level "s", panic
abort) once per format feature and prints, as a Markdown table, the `.text` and `.rodata`
bytes of the library's LTO object: the reader, the building blocks it needs and the parts of
core and alloc it calls. compiler_builtins' objects are left out (a linker keeps only the
intrinsics used, a few KiB). Run from anywhere: python3 tools/size-probe/measure.py
"""
import os
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TARGET = "thumbv7em-none-eabihf"
FEATURES = ["json", "mlbundle", "onemodel", "onnx", "mpk", "mvb", "json,mlbundle,onemodel,onnx,mpk,mvb"]


def ar_members(data):
    """(name, bytes) of each member of a System V ar archive."""
    assert data[:8] == b"!<arch>\n", "not an ar archive"
    pos, names = 8, b""
    while pos + 60 <= len(data):
        header = data[pos:pos + 60]
        name = header[:16].decode().strip()
        size = int(header[48:58].decode().strip())
        body = data[pos + 60:pos + 60 + size]
        if name == "//":
            names = body
        elif name.startswith("/") and name[1:].isdigit():
            start = int(name[1:])
            name = names[start:names.index(b"/\n", start)].decode()
        yield name, body
        pos += 60 + size + (size & 1)


def section_sizes(elf):
    """{section name: size} of a 32-bit little-endian ELF object."""
    assert elf[:4] == b"\x7fELF" and elf[4] == 1 and elf[5] == 1, "not ELF32 LE"
    shoff, = struct.unpack_from("<I", elf, 0x20)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x2E)
    headers = [struct.unpack_from("<IIIIIIIIII", elf, shoff + i * shentsize) for i in range(shnum)]
    strtab = headers[shstrndx]
    names = elf[strtab[4]:strtab[4] + strtab[5]]
    out = {}
    for h in headers:
        name = names[h[0]:names.index(b"\0", h[0])].decode()
        out[name] = out.get(name, 0) + h[5]
    return out


def measure(feature):
    subprocess.run(
        ["cargo", "build", "-q", "--release", "--target", TARGET, "--no-default-features",
         "--features", feature],
        cwd=HERE, check=True)
    lib = os.path.join(HERE, "target", TARGET, "release", "libmodelgate_size_probe.a")
    data = open(lib, "rb").read()
    text = rodata = 0
    for name, body in ar_members(data):
        if not name.startswith("modelgate_size_probe"):
            continue
        for section, size in section_sizes(body).items():
            if section.startswith(".text"):
                text += size
            elif section.startswith(".rodata"):
                rodata += size
    return text, rodata


def main():
    rows = [(f,) + measure(f) for f in FEATURES]
    print(f"| format feature | `.text` | `.rodata` |")
    print("|---|---:|---:|")
    for f, text, rodata in rows:
        label = {"json": "JSON validation only (baseline)"}.get(f, f"`{f}`" if "," not in f else "all five formats")
        print(f"| {label} | {text / 1024:.1f} KiB | {rodata / 1024:.1f} KiB |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
