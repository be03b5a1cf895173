#!/usr/bin/env bash
# Start a live node of our DWARF build of OTP REL running beamcore_busy (a
# known 50/30/20 CPU split on one scheduler) in the background, for beamcore
# sample's tests and bench/sample.sh.
#   testdata/busy-node.sh 25|27|29 OUTDIR [--emu] [-- EXTRA ERL ARGS]
# Prints the node's OS pid once OUTDIR/busy.log has its first tick; the node
# runs until killed (the caller's job). OUTDIR gets busy.log, node.log, pid,
# beamcore_busy.beam. Exit 0 ok, 64 usage, 1 failure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
usage() { echo "usage: busy-node.sh 25|27|29 OUTDIR [--emu] [-- ERL ARGS]" >&2; exit 64; }
[ $# -ge 2 ] || usage
rel=$1; out=$(realpath -m "$2"); shift 2
emu=0; extra=()
while [ $# -gt 0 ]; do
  case $1 in --emu) emu=1 ;; --) shift; extra=("$@"); break ;; *) usage ;; esac
  shift
done
case $rel in 25|27|29) ;; *) usage ;; esac
[ $emu = 0 ] || [ "$rel" = 29 ] || usage
die() { echo "busy-node.sh: $*" >&2; exit 1; }

otp=$("$here/build-otp.sh" "$rel")
if [ "$rel" = 25 ]; then
  erts_bin=$(echo /usr/lib/erlang/erts-*/bin)
  [ -x "$erts_bin/erlexec" ] || die "Debian erlang-base not installed (run testdata/deps.sh)"
  bindir=$otp/bindir
  mkdir -p "$bindir"
  for f in "$erts_bin"/*; do ln -sfn "$f" "$bindir/$(basename "$f")"; done
  for f in beam.smp erl_child_setup; do ln -sfn "$otp/bin/x86_64-pc-linux-gnu/$f" "$bindir/$f"; done
  erlc=/usr/bin/erlc
  run=(env BINDIR="$bindir" ROOTDIR=/usr/lib/erlang EMU=beam PROGNAME=erl "$bindir/erlexec")
else
  erlc=$otp/bin/erlc
  run=("$otp/bin/erl")
fi
[ $emu = 0 ] || run+=(-emu_flavor emu)
mkdir -p "$out"
rm -f "$out/busy.log" "$out/pid"
"$erlc" -o "$out" "$here/beamcore_busy.erl"
# +S 1:1: one normal scheduler, the whole split on it; +sbwt none: an idle
# scheduler sleeps at once (no spinning to tell apart)
( cd "$out" && exec "${run[@]}" -noshell +S 1:1 +MIscs 64 "${extra[@]}" -pa "$out" \
    -run beamcore_busy start "$out/busy.log" ) >"$out/node.log" 2>&1 &
pid=$!
for _ in $(seq 100); do
  [ "$(cat "$out/busy.log" 2>/dev/null | wc -l)" -ge 2 ] && break
  kill -0 "$pid" 2>/dev/null || { cat "$out/node.log" >&2; die "node died"; }
  sleep 0.1
done
[ "$(cat "$out/busy.log" 2>/dev/null | wc -l)" -ge 2 ] || { kill -KILL "$pid"; die "no ticks in $out/busy.log"; }
echo "$pid" >"$out/pid"
echo "$pid"
