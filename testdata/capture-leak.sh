#!/usr/bin/env bash
# A node that leaks (testdata/beamcore_leak.erl: atoms user_<N> made by a
# loop, a process holding some), on our DWARF build of OTP REL, seen twice in
# one state: OUTDIR/core.gcore (gcore of the idle node), then
# OUTDIR/erl_crash.dump (kill -USR1, the same node); then a second node that
# fills its atom table and dies of it: OUTDIR/full/erl_crash.dump ("no more
# index entries in atom_tab"). Each directory gets the node's leak.json (its
# truth) and beam.smp.path.
#   testdata/capture-leak.sh 25|27|29 OUTDIR
# Exit 77: no room.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rel=${1:?usage: capture-leak.sh 25|27|29 OUTDIR}; out=$(realpath -m "${2:?usage: capture-leak.sh 25|27|29 OUTDIR}")
mkdir -p "$out/full"
rm -f "$out"/{core.gcore,erl_crash.dump,leak.json,native.json,port.json,ready,ready.tmp,beam.smp.path,node.log} "$out"/core.gcore.* \
  "$out"/full/{erl_crash.dump,leak.json,beam.smp.path,node.log}
free_kb=$(df -Pk "$out" | awk 'NR==2{print $4}')
[ "$free_kb" -ge $((3 * 1024 * 1024)) ] || { echo "capture-leak.sh: need 3 GB free in $out" >&2; exit 77; }

# shellcheck source=otp-env.sh
. "$here/otp-env.sh"
otp_env "$rel"
"$erlc" -o "$out" "$here/beamcore_leak.erl" "$here/beamcore_leak_nif.erl"
gcc -shared -fPIC -g -O1 -o "$out/beamcore_leak_nif.so" "$here/beamcore_leak_nif.c" \
  -I "$otp/erts/emulator/beam" -I "$otp/erts/include/x86_64-pc-linux-gnu"

pid=
cleanup() { if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid"; wait "$pid" 2>/dev/null || true; fi; }
trap cleanup EXIT

# the leaking node, idle: a gcore, then its dump
( cd "$out" && ERL_CRASH_DUMP="$out/erl_crash.dump" exec "${run[@]}" -noshell +MIscs 64 +t 65536 \
    -pa "$out" -run beamcore_leak start leak ) >"$out/node.log" 2>&1 &
pid=$!   # erlexec execs beam.smp: the same pid
for _ in $(seq 120); do [ -f "$out/ready" ] && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
[ -f "$out/ready" ] || { cat "$out/node.log" >&2; echo "capture-leak.sh: the node was not ready" >&2; exit 1; }
! grep -q "Error in process" "$out/node.log" || { cat "$out/node.log" >&2; echo "capture-leak.sh: the leaking node failed" >&2; exit 1; }
grep -q "\"os_pid\": \"$pid\"" "$out/leak.json" || { echo "capture-leak.sh: leak.json is not from pid $pid" >&2; exit 1; }
timeout 600 gcore -o "$out/core.gcore" "$pid" >"$out/gcore.log" 2>&1 ||
  { cat "$out/gcore.log" >&2; echo "capture-leak.sh: gcore failed" >&2; exit 1; }
mv "$out/core.gcore.$pid" "$out/core.gcore"
rm -f "$out/gcore.log"
fallocate --dig-holes "$out/core.gcore"
kill -USR1 "$pid"
wait "$pid" 2>/dev/null || true
pid=
tail -1 "$out/erl_crash.dump" | grep -qx '=end' ||
  { echo "capture-leak.sh: no complete erl_crash.dump after SIGUSR1" >&2; exit 1; }
echo "$beam" >"$out/beam.smp.path"

# the node that dies of a full atom table (+t 16384: a few thousand atoms past the boot's)
( cd "$out/full" && ERL_CRASH_DUMP="$out/full/erl_crash.dump" exec timeout 120 "${run[@]}" -noshell \
    +MIscs 64 +t 16384 -pa "$out" -run beamcore_leak start full ) >"$out/full/node.log" 2>&1 || true
tail -1 "$out/full/erl_crash.dump" 2>/dev/null | grep -qx '=end' ||
  { cat "$out/full/node.log" >&2; echo "capture-leak.sh: no complete erl_crash.dump of the full table" >&2; exit 1; }
echo "$beam" >"$out/full/beam.smp.path"
echo "leak fixture in $out: core.gcore $(du -h "$out/core.gcore" | cut -f1) on disk, erl_crash.dump" \
  "$(du -h "$out/erl_crash.dump" | cut -f1), full/erl_crash.dump $(du -h "$out/full/erl_crash.dump" | cut -f1)"
