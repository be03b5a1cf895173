#!/usr/bin/env bash
# libdwfl (beamcore's unwinder) against libunwind-coredump on every crash
# fixture: per thread and in total, frames reached, frames named, walks that
# reach the thread's root. Figures and the choice: docs/unwinding.md.
#   bench/unwinders.sh [FIXTURES]   (default $BEAMCORE_FIXTURES; tests/run.sh's layout)
# Needs libunwind-dev (apt-get install libunwind-dev; not in testdata/deps.sh:
# beamcore itself does not use it) and a meson build dir `build`.
# Exit 0 ok, 64 usage, 77 nothing to measure.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
fx=${1:-${BEAMCORE_FIXTURES:-}}
[ -n "$fx" ] && [ -d "$fx" ] || { echo "usage: bench/unwinders.sh FIXTURES_DIR" >&2; exit 64; }
pkg-config --exists libunwind-coredump ||
  { echo "unwinders.sh: libunwind-coredump not installed (apt-get install libunwind-dev)" >&2; exit 77; }
[ -d "$root/build" ] || meson setup "$root/build" >/dev/null
meson setup --reconfigure "$root/build" >/dev/null   # picks up libunwind if installed since
ninja -C "$root/build" unwinders >/dev/null
n=0
for core in "$fx"/crash*-nif/core "$fx"/crash*-abort/core "$fx"/crash*-alloc/core \
            "$fx"/otp*-fp/core.kernel; do
  [ -f "$core" ] || continue
  d=$(dirname "$core")
  echo "== $(basename "$d")/$(basename "$core")"
  "$root/build/unwinders" "$core" "$(cat "$d/beam.smp.path")"
  n=$((n + 1))
done
[ $n -gt 0 ] || { echo "unwinders.sh: no crash fixtures under $fx" >&2; exit 77; }
