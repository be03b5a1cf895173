#!/usr/bin/env bash
# largest_terms on a big heap: one process holding a list of N {I, 2*I} tuples
# (default 75,000,000: erts_debug:flat_size 375,000,000 words, a 3 GB heap) on
# our OTP 27 build, its kernel core, then `beamcore proc big --json` timed
# twice (cold, warm) with /usr/bin/time, and the walk's own memory (peak
# RssAnon: the core is mapped, its pages are not the walk's). Checks that
# largest_terms[0] equals the live flat_size. The core is deleted at the end.
#   bench/largest-terms.sh [N] [DIR]
# Needs ~2.5x the heap in RAM while the list is built and ~1.2x on disk.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-75000000}
dir=$(realpath -m "${2:-${TMPDIR:-/var/tmp}/beamcore-bench-terms}")
bc=${BEAMCORE:-$root/build/beamcore}
otp=$("$root/testdata/build-otp.sh" 27)
beam=$otp/bin/x86_64-pc-linux-gnu/beam.smp
mkdir -p "$dir"
rm -f "$dir"/{core,ready}
cat >"$dir/bigheap.erl" <<ERL
-module(bigheap).
-export([start/0, hold/0]).
start() -> register(big, spawn(?MODULE, hold, [])), ok.
build(0, Acc) -> Acc;
build(N, Acc) -> build(N - 1, [{N, N * 2} | Acc]).
hold() ->
    L = build($n, []),
    erlang:garbage_collect(),
    file:write_file("ready", integer_to_list(erts_debug:flat_size(L))),
    receive stop -> length(L) end.
ERL
"$otp/bin/erlc" -o "$dir" "$dir/bigheap.erl"
( cd "$dir" && ulimit -c unlimited && exec "$otp/bin/erl" -noshell +MIscs 64 -pa . \
    -eval 'bigheap:start()' ) >"$dir/node.log" 2>&1 &
pid=$!
trap 'kill -KILL $pid 2>/dev/null || true; rm -f "$dir/core"' EXIT
for _ in $(seq 600); do [ -f "$dir/ready" ] && break; sleep 1; done
[ -f "$dir/ready" ] || { echo "largest-terms.sh: the node did not get ready" >&2; exit 1; }
want=$(cat "$dir/ready")
kill -ABRT $pid; wait $pid 2>/dev/null || true
[ -f "$dir/core" ] || { echo "largest-terms.sh: no kernel core in $dir" >&2; exit 1; }
echo "heap: flat_size $want words; core $(du -h --apparent-size "$dir/core" | cut -f1)"
for run in cold warm; do
  /usr/bin/time -f "%e %M" -o "$dir/time" "$bc" proc big "$dir/core" "$beam" --json >"$dir/out.json" &
  tp=$!; peak=0
  while kill -0 $tp 2>/dev/null; do
    c=$(pgrep -P $tp 2>/dev/null | head -1) || true
    a=$( [ -n "$c" ] && awk '/RssAnon/{print $2}' /proc/$c/status 2>/dev/null || true)
    [ -n "$a" ] && [ "$a" -gt "$peak" ] && peak=$a
    sleep 0.2
  done
  wait $tp
  read -r secs rss <"$dir/time"
  echo "$run: $secs s, max RSS $rss KB (mapped core pages included), peak RssAnon $peak KB"
done
python3 - "$dir/out.json" "$want" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["largest_terms"][0]
print(f"largest_terms[0]: {t['flat_size']:,} words ({t['where']}: {t['shape']}), live {int(sys.argv[2]):,}")
sys.exit(0 if t["flat_size"] == int(sys.argv[2]) and t["complete"] else 1)
PY
