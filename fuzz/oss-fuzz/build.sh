#!/bin/bash -eu
# OSS-Fuzz / ClusterFuzzLite build script for modelgate (also runs outside Docker).
#
# Builds every cargo-fuzz target of fuzz/ with `cargo fuzz build -O` and puts into $OUT, per
# target T (the names `cargo fuzz list` prints):
#   $OUT/T                  the libFuzzer binary (address sanitizer, cargo-fuzz's default)
#   $OUT/T_seed_corpus.zip  the files of the hostile-corpus/ folders fuzz/seeds.txt names for T
#                           (via fuzz/seed-dirs; no zip when T has none)
#   $OUT/T.dict             fuzz/dicts/T.dict (libFuzzer dictionary), when it exists
#
# Inside the OSS-Fuzz images $SRC is /src and the repository is /src/modelgate; outside Docker:
#   SRC=/path/to/modelgate OUT=$(mktemp -d) bash fuzz/oss-fuzz/build.sh
# The repository is found next to this script first, then at $SRC/modelgate, then at $SRC.
# Outside the images the nightly toolchain is picked with `cargo +nightly` unless `cargo` is
# already nightly; fuzz/target is reused, so a build already done by fuzz/run-all or
# fuzz/replay-seeds makes this quick.
set -eu -o pipefail
: "${OUT:?set OUT to the output folder}"
SRC="${SRC:-}"

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo=""
for candidate in "$here/../.." "${SRC:+$SRC/modelgate}" "$SRC"; do
  if [ -n "$candidate" ] && [ -f "$candidate/fuzz/Cargo.toml" ] && [ -x "$candidate/fuzz/seed-dirs" ]; then
    repo="$(cd "$candidate" && pwd)"
    break
  fi
done
[ -n "$repo" ] || { echo "build.sh: cannot find the modelgate repository (fuzz/Cargo.toml)" >&2; exit 1; }

if cargo --version | grep -q nightly; then
  cargo=(cargo)
else
  cargo=(cargo +nightly)
fi

mkdir -p "$OUT"
cd "$repo/fuzz"
"${cargo[@]}" fuzz build -O
bin="target/x86_64-unknown-linux-gnu/release"

mapfile -t targets < <("${cargo[@]}" fuzz list)
[ ${#targets[@]} -gt 0 ] || { echo "build.sh: cargo fuzz list printed no target" >&2; exit 1; }

zip_seeds() { # zip_seeds ZIPFILE FOLDER... : the folders' regular files, flat, in name order
  local zipfile="$1"
  shift
  rm -f "$zipfile"
  if command -v zip >/dev/null; then
    find "$@" -maxdepth 1 -type f -print0 | sort -z | xargs -0 zip -q -j -X "$zipfile"
  else
    python3 - "$zipfile" "$@" <<'PY'
import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
    for d in sys.argv[2:]:
        for n in sorted(os.listdir(d)):
            p = os.path.join(d, n)
            if os.path.isfile(p):
                z.write(p, n)
PY
  fi
}

for t in "${targets[@]}"; do
  cp "$bin/$t" "$OUT/$t"
  mapfile -t dirs < <(./seed-dirs "$t")
  seeds=0
  if [ ${#dirs[@]} -gt 0 ]; then
    zip_seeds "$OUT/${t}_seed_corpus.zip" "${dirs[@]}"
    seeds=$(find "${dirs[@]}" -maxdepth 1 -type f | wc -l)
  fi
  dict="-"
  if [ -f "dicts/$t.dict" ]; then
    cp "dicts/$t.dict" "$OUT/$t.dict"
    dict="$t.dict"
  fi
  printf 'build.sh: %-20s seeds %4d  dict %s\n' "$t" "$seeds" "$dict"
done
