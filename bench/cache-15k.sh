#!/usr/bin/env bash
# The layout cache (issue 23 part 1): a command on a core of ~15,000 processes
# (the testdata fixture otp25: testdata/capture.sh 25), its first run on a build
# (no layout cache: beam.smp's DWARF read, the cache written) and its second
# (the cache read, no DWARF). Median wall of N runs each, warm page cache, in a
# private XDG_CACHE_HOME (the user's ~/.cache is not touched). Target: the
# second run under 50 ms. Run on demand; not part of the test suite.
#
#   bench/cache-15k.sh [--runs N] [CORE [BEAM]] [-- COMMAND ARGS...]
#
#   CORE      default $BEAMCORE_FIXTURES/otp25/core.kernel
#   BEAM      default the fixture's beam.smp.path (else the path the core records)
#   COMMAND   default: procs --top 20
#   --runs N  runs of each; default 5
# Environment: BEAMCORE (default build/beamcore).
# Exit 0 target met, 1 missed or a check failed, 64 usage, 77 no fixture.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
usage() { sed -n '9,15p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 64; }
runs=5 core= beam=
cmd=(procs --top 20)
while [ $# -gt 0 ]; do
  case $1 in
    --runs) [ $# -ge 2 ] && [[ $2 =~ ^[1-9][0-9]*$ ]] || usage; runs=$2; shift 2 ;;
    --) shift; [ $# -ge 1 ] || usage; cmd=("$@"); break ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) usage ;;
    *) if [ -z "$core" ]; then core=$1; elif [ -z "$beam" ]; then beam=$1; else usage; fi; shift ;;
  esac
done
if [ -z "$core" ]; then
  fx=${BEAMCORE_FIXTURES:-}/otp25
  [ -n "${BEAMCORE_FIXTURES:-}" ] && [ -f "$fx/core.kernel" ] ||
    { echo "cache-15k.sh: no core (set BEAMCORE_FIXTURES or pass CORE)" >&2; exit 77; }
  core=$fx/core.kernel
  [ -n "$beam" ] || [ ! -f "$fx/beam.smp.path" ] || beam=$(cat "$fx/beam.smp.path")
fi
beamcore=${BEAMCORE:-$top/build/beamcore}
[ -x "$beamcore" ] || { echo "cache-15k.sh: no $beamcore" >&2; exit 1; }
XDG_CACHE_HOME=$(mktemp -d "${TMPDIR:-/tmp}/cache-15k.XXXXXX")
export XDG_CACHE_HOME
trap 'rm -rf "$XDG_CACHE_HOME"' EXIT
run=("$beamcore" "${cmd[@]}" "$core" ${beam:+"$beam"})

# one run: "WALL_MS CPU_MS" (CPU: user + system of the child), its output kept in $out
wall() {
  python3 - "$out" "${run[@]}" "$@" <<'PY'
import os, resource, subprocess, sys, time
out = open(sys.argv[1], "wb")
before = resource.getrusage(resource.RUSAGE_CHILDREN)
t0 = time.perf_counter()
rc = subprocess.run(sys.argv[2:], stdout=out, stderr=subprocess.DEVNULL).returncode
t1 = time.perf_counter()
after = resource.getrusage(resource.RUSAGE_CHILDREN)
if rc > 1:
    sys.exit(f"cache-15k.sh: {' '.join(sys.argv[2:])} exited {rc}")
cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
print(f"{(t1 - t0) * 1000:.1f} {cpu * 1000:.1f}")
PY
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

out=$XDG_CACHE_HOME/out
"${run[@]}" --no-cache >/dev/null 2>&1 || true   # the page cache warm for both
first=() second=() first_cpu=() second_cpu=()
for ((i = 0; i < runs; i++)); do
  rm -rf "$XDG_CACHE_HOME/beamcore"
  read -r w c < <(wall --json) && first+=("$w") first_cpu+=("$c")
  cp "$out" "$XDG_CACHE_HOME/first.json"
  ls "$XDG_CACHE_HOME"/beamcore/layout-*.pack >/dev/null 2>&1 ||
    { echo "cache-15k.sh: the first run wrote no layout cache" >&2; exit 1; }
  read -r w c < <(wall --json) && second+=("$w") second_cpu+=("$c")
  cmp -s "$out" "$XDG_CACHE_HOME/first.json" ||
    { echo "cache-15k.sh: the second run's JSON differs from the first's" >&2; exit 1; }
done
f=$(printf '%s\n' "${first[@]}" | median) s=$(printf '%s\n' "${second[@]}" | median)
fc=$(printf '%s\n' "${first_cpu[@]}" | median) sc=$(printf '%s\n' "${second_cpu[@]}" | median)
procs=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["target"]["process_count"])' \
  "$XDG_CACHE_HOME/first.json" 2>/dev/null || echo "?")
echo "beamcore ${cmd[*]} on $core ($procs processes), median of $runs; $(nproc) CPUs," \
  "load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "  first run (DWARF read, cache written):  wall $f ms, CPU $fc ms   (wall ${first[*]})"
echo "  second run (layout cache, no DWARF):    wall $s ms, CPU $sc ms   (wall ${second[*]})"
if awk -v s="$s" 'BEGIN { exit !(s < 50) }'; then
  echo "  target second run < 50 ms wall: met"
else
  echo "  target second run < 50 ms wall: MISSED"; exit 1
fi
