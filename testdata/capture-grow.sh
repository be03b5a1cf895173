#!/usr/bin/env bash
# Two snapshots of one node seconds apart while an ETS table and a message
# queue grow (testdata/beamcore_grow.erl), for `beamcore diff`:
#   testdata/capture-grow.sh 27|29 OUTDIR
# OUTDIR gets core.1 and core.2 (gcore, made sparse, their mtimes the moments
# gcore stopped the node), truth1.json and truth2.json (what the VM said just before
# each), beam.smp.path, node.log. The node stands still while each gcore is
# taken (it waits for goN), then is killed.
# Exit 0 ok, 77 not enough disk space, 64 usage, other non-zero on failure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# = 2 ] || { echo "usage: capture-grow.sh 27|29 OUTDIR" >&2; exit 64; }
rel=$1; out=$(realpath -m "$2")
case $rel in 27|29) ;; *) echo "usage: capture-grow.sh 27|29 OUTDIR" >&2; exit 64 ;; esac
die() { echo "capture-grow.sh: $*" >&2; exit 1; }

if top=$(git -C "$here" rev-parse --show-toplevel 2>/dev/null); then
  case $out/ in "$top"/*) die "OUTDIR must be outside the repo ($top)" ;; esac
fi
mkdir -p "$out"
free_kb=$(df -Pk "$out" | awk 'NR==2{print $4}')
if [ "$free_kb" -lt $((2 * 1024 * 1024)) ]; then
  echo "capture-grow.sh: need ~2 GB free in $out, have $((free_kb / 1024)) MB" >&2; exit 77
fi
otp=$("$here/build-otp.sh" "$rel")
rm -f "$out"/{core.1,core.2,truth1.json,truth2.json,snap1,snap2,go1,go2,beam.smp.path,node.log}
"$otp/bin/erlc" -o "$out" "$here/beamcore_grow.erl"

pid=
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid"; wait "$pid" 2>/dev/null || true; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
( cd "$out" && exec "$otp/bin/erl" -noshell +MIscs 64 -pa "$out" -run beamcore_grow start ) \
  >"$out/node.log" 2>&1 &
pid=$!   # erl exec's into beam.smp: same pid

for n in 1 2; do
  for _ in $(seq 600); do
    [ -f "$out/snap$n" ] && break
    kill -0 "$pid" 2>/dev/null || { cat "$out/node.log" >&2; die "node died before snapshot $n"; }
    sleep 0.1
  done
  [ -f "$out/snap$n" ] || die "no $out/snap$n after 60 s"
  [ $n = 2 ] || readlink "/proc/$pid/exe" >"$out/beam.smp.path"
  grep -q "\"os_pid\":\"$pid\"" "$out/truth$n.json" || die "truth$n.json is not from pid $pid"
  t=$(date +%s.%N)   # the moment of the snapshot: gcore stops the node first
  timeout 600 gcore -o "$out/core.$n" "$pid" >"$out/gcore.log" 2>&1 ||
    { cat "$out/gcore.log" >&2; die "gcore $n failed"; }
  mv "$out/core.$n.$pid" "$out/core.$n"
  fallocate --dig-holes "$out/core.$n"
  touch -d "@$t" "$out/core.$n"   # beamcore diff takes a core's time from its mtime
  rm -f "$out/gcore.log"
  echo "core.$n: $(du -h --apparent-size "$out/core.$n" | cut -f1) apparent, $(du -h "$out/core.$n" | cut -f1) on disk"
  : >"$out/go$n"
done
kill -KILL "$pid"; wait "$pid" 2>/dev/null || true; pid=
echo "grow fixture in $out ($(cat "$out/beam.smp.path"))"
