#!/usr/bin/env bash
# A core of a node that dies by KIND, on our DWARF build of OTP REL, with
# crash.json saying which process, Erlang function, C function and signal
# beamcore must name:
#   nif    a NIF segfaults (kernel core)
#   deep   a NIF segfaults 5,000 native frames deep (kernel core)
#   abort  erlang:halt(abort) (kernel core)
#   alloc  a process outgrows `ulimit -v`: gdb, attached with a breakpoint on
#          erts_alc_fatal_error, takes a gcore there (modern OTP would otherwise
#          write a crash dump and _exit without a core)
#   kill   the script sends the waiting node SIGABRT (kill -ABRT from another
#          process: si_code SI_USER, si_pid the sender; kernel core); the
#          sender's pid in OUTDIR/sender
#   testdata/capture-crash.sh 25|27 nif|deep|abort|alloc|kill OUTDIR
# OUTDIR gets core, crash.json, beam.smp.path. Exit 77: no room or no core.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rel=${1:?usage: capture-crash.sh 25|27 nif|deep|abort|alloc|kill OUTDIR}; kind=${2:?}; out=$(realpath -m "${3:?}")
case $kind in nif|deep|abort|alloc|kill) ;; *) echo "capture-crash.sh: kind nif|deep|abort|alloc|kill" >&2; exit 64 ;; esac
mkdir -p "$out"
rm -f "$out"/core "$out"/core.[0-9]* "$out"/crash.json "$out"/beam.smp.path "$out"/sender
free_kb=$(df -Pk "$out" | awk 'NR==2{print $4}')
[ "$free_kb" -ge $((2 * 1024 * 1024)) ] || { echo "capture-crash.sh: need 2 GB free in $out" >&2; exit 77; }
case $(cat /proc/sys/kernel/core_pattern) in \|*|*/*) echo "capture-crash.sh: core_pattern not usable" >&2; exit 77 ;; esac

otp=$("$here/build-otp.sh" "$rel")
if [ "$rel" = 25 ]; then
  bindir=$otp/bindir   # made by capture.sh; make it here too
  erts_bin=$(echo /usr/lib/erlang/erts-*/bin)
  mkdir -p "$bindir"
  for f in "$erts_bin"/*; do ln -sfn "$f" "$bindir/$(basename "$f")"; done
  for f in beam.smp erl_child_setup; do ln -sfn "$otp/bin/x86_64-pc-linux-gnu/$f" "$bindir/$f"; done
  erlc=/usr/bin/erlc
  run=(env BINDIR="$bindir" ROOTDIR=/usr/lib/erlang EMU=beam PROGNAME=erl "$bindir/erlexec")
else
  erlc=$otp/bin/erlc
  run=("$otp/bin/erl")
fi
"$erlc" -o "$out" "$here/beamcore_crash.erl" "$here/beamcore_crash_nif.erl"
gcc -shared -fPIC -g -O1 -o "$out/beamcore_crash_nif.so" "$here/beamcore_crash_nif.c" \
  -I "$otp/erts/emulator/beam" -I "$otp/erts/include/x86_64-pc-linux-gnu"

rm -f "$out/go"
rc=0   # (bash reports the signal the node died of)
if [ "$kind" = alloc ]; then
  ( cd "$out" && ulimit -v 2000000 &&
    exec timeout 120 "${run[@]}" -noshell +MIscs 64 -pa "$out" -run beamcore_crash start alloc ) \
    >"$out/node.log" 2>&1 &
  node=$!
  for _ in $(seq 100); do [ -f "$out/crash.json" ] && break; sleep 0.2; done
  # the node's beam.smp (timeout forks it): the child of the timeout process
  beam=$(pgrep -P "$node" -f beam.smp || pgrep -P "$(pgrep -P "$node" | head -1)" | head -1)
  timeout 120 gdb -p "$beam" -batch -nx -ex 'set pagination off' \
    -ex 'handle SIGUSR1 SIGUSR2 SIGPIPE SIGCHLD SIGALRM SIGINT nostop noprint pass' \
    -ex 'break erts_alc_fatal_error' -ex continue -ex "gcore $out/core" -ex kill \
    >"$out/gdb.log" 2>&1 &
  gdb=$!
  sleep 3
  touch "$out/go"
  wait "$gdb" || rc=$?
  kill -KILL "$beam" 2>/dev/null || true
  wait "$node" 2>/dev/null || true
elif [ "$kind" = kill ]; then
  ( cd "$out" && ulimit -c unlimited &&
    exec "${run[@]}" -noshell +MIscs 64 -pa "$out" -run beamcore_crash start kill ) \
    >"$out/node.log" 2>&1 &
  node=$!   # erlexec execs beam.smp: the same pid
  for _ in $(seq 150); do [ -f "$out/crash.json" ] && break; sleep 0.2; done
  [ -f "$out/crash.json" ] || { kill -KILL "$node" 2>/dev/null; cat "$out/node.log" >&2; exit 77; }
  sleep 1
  # this shell sends it (bash's builtin kill): the sender is this script's pid
  echo "$$" >"$out/sender"
  kill -ABRT "$node"
  wait "$node" 2>/dev/null || rc=$?
else
  ( cd "$out" && ulimit -c unlimited &&
    exec timeout 120 "${run[@]}" -noshell +MIscs 64 -pa "$out" -run beamcore_crash start "$kind" ) \
    >"$out/node.log" 2>&1 || rc=$?
fi
core=$(find "$out" -maxdepth 1 -type f \( -name core -o -name 'core.[0-9]*' \) | head -1)
[ -n "$core" ] || { echo "capture-crash.sh: no core (node exit $rc)" >&2; cat "$out/node.log" >&2; exit 77; }
[ "$core" = "$out/core" ] || mv "$core" "$out/core"
fallocate --dig-holes "$out/core"
readlink -f "$otp/bin/x86_64-pc-linux-gnu/beam.smp" >"$out/beam.smp.path"  # the one that ran
echo "crash fixture $kind in $out (node exit $rc): $(du -h "$out/core" | cut -f1) on disk"
