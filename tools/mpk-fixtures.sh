#!/bin/sh
# Writes the MPK packages that GNU tar and Python's tarfile make (interoperability
# fixtures, spec/mpk.md §8) into tools/corpus-gen/fixtures/mpk/. Run once from the
# repository root after `cargo run -p modelgate-corpus-gen -- write hostile-corpus`;
# the generator include_bytes!-es the outputs, so the corpus stays reproducible.
set -eu
out=tools/corpus-gen/fixtures/mpk
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
tar -xzf hostile-corpus/mpk/valid-basic-valid.tar.gz -C "$src"
# A path over 100 bytes (GNU long name, PAX path record) and a non-ASCII name.
long="$src/configs/$(printf 'very-long-folder-name-%02d/' 1 2 3 4 5)"
mkdir -p "$long"
printf '{}' > "$long/extra.json"
printf '{}' > "$src/$(printf 'mod\303\250le.json')"
mkdir -p "$out"
common="--sort=name --mtime=@1700000000 --owner=0 --group=0 --numeric-owner"
# GNU format, with the ./ root directory entry `tar -czf pkg.tar.gz .` writes.
tar $common --format=gnu -C "$src" -cf - . | gzip -9n > "$out/gnu-tar-dot.tar.gz"
# POSIX pax format (PAX extended headers for every entry).
tar $common --format=posix --pax-option=delete=atime,delete=ctime,exthdr.name=%d/PaxHeaders/%f \
    -C "$src" -cf - . | gzip -9n > "$out/gnu-tar-posix.tar.gz"
# Python tarfile, PAX format (its default).
python3 - "$src" "$out/python-tarfile-pax.tar" <<'PY'
import os, sys, tarfile
src, dst = sys.argv[1], sys.argv[2]
def norm(ti):
    ti.mtime, ti.uid, ti.gid, ti.uname, ti.gname = 1700000000, 0, 0, "", ""
    return ti
with tarfile.open(dst, "w", format=tarfile.PAX_FORMAT) as t:
    for name in sorted(os.listdir(src)):
        t.add(os.path.join(src, name), arcname=name, filter=norm)
PY
gzip -9nf "$out/python-tarfile-pax.tar"
