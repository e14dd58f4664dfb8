#!/bin/bash -eu
# ClusterFuzzLite build: exactly the OSS-Fuzz build (fuzz/oss-fuzz/build.sh), which puts every
# cargo-fuzz target, its seed corpus zip and its dictionary into $OUT.
set -eu -o pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
for script in "$here/../fuzz/oss-fuzz/build.sh" "${SRC:-}/modelgate/fuzz/oss-fuzz/build.sh"; do
  if [ -f "$script" ]; then
    exec bash "$script"
  fi
done
echo ".clusterfuzzlite/build.sh: fuzz/oss-fuzz/build.sh not found" >&2
exit 1
