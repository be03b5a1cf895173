#!/usr/bin/env bash
# Benchmark: beamcore on a big erl_crash.dump vs the grep/sed/sort approach of
# recon's erl_crashdump_analyzer.sh. An OTP 27 node (our build) with 400,000
# processes writes its dump on SIGUSR1; then `beamcore summary`, `beamcore
# procs --top 20`, `grep -c '^=proc:'` (the floor), a lone `grep '^Stack+heap' |
# sort | uniq -c` and the whole grep approach run on it: wall time (page cache
# warm) and peak RSS. Run on demand; not part of the test suite. See
# bench/README.md.
#
#   bench/dump-400k.sh [--processes N] [--words K] [--runs N] [--keep] [--dir DIR]
#                      [--dump FILE]
#
#   --processes N  processes the node spawns; default 400000
#   --words K      tuples each keeps live (its heap lines in the dump); default 20
#   --runs N       timed runs of each command (min and median); default 3
#   --keep         keep the work dir (the dump, outputs, logs)
#   --dir DIR      parent of the work dir; default ${TMPDIR:-/var/tmp}
#                  (outside the repo; needs ~3 GB free disk, ~3 GB memory)
#   --dump FILE    no node: measure an existing dump (e.g. procs-1m.sh's)
# Environment: BEAMCORE (default build/beamcore, copied at the start).
# Exit 0 ok (and the targets met), 1 a target missed or a failure, 64 usage,
# 77 not enough disk or memory.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)

usage() { sed -n '10,20p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 64; }
nprocs=400000 words=20 runs=3 keep=0 parent=${TMPDIR:-/var/tmp} given=
while [ $# -gt 0 ]; do
  case $1 in
    --processes) [ $# -ge 2 ] || usage; nprocs=$2; shift 2 ;;
    --words) [ $# -ge 2 ] || usage; words=$2; shift 2 ;;
    --runs) [ $# -ge 2 ] || usage; runs=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --dir) [ $# -ge 2 ] || usage; parent=$2; shift 2 ;;
    --dump) [ $# -ge 2 ] || usage; given=$(realpath "$2"); shift 2 ;;
    -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) usage ;;
  esac
done
for v in "$nprocs" "$words" "$runs"; do [[ $v =~ ^[0-9]+$ ]] || usage; done
[ "$nprocs" -ge 2 ] && [ "$nprocs" -le 1000000 ] && [ "$runs" -ge 1 ] || usage

die() { echo "dump-400k.sh: $*" >&2; exit 1; }
say() { echo "== $*"; }
now() { date +%s.%N; }

src=${BEAMCORE:-$top/build/beamcore}
[ -x "$src" ] || die "no $src (build it: meson setup build && ninja -C build)"
[ -x /usr/bin/time ] || die "/usr/bin/time not found (apt-get install time)"
parent=$(realpath -m "$parent")
case $parent/ in "$top"/*) die "--dir must be outside the repo ($top)" ;; esac
mkdir -p "$parent"
free_mb=$(df -Pm "$parent" | awk 'NR==2{print $4}')
mem_mb=$(awk '/MemAvailable/{print int($2/1024)}' /proc/meminfo)
need_mb=$(( 512 + nprocs * (words * 120 + 600) / 1000000 ))
[ -n "$given" ] && need_mb=64
[ "$free_mb" -ge "$need_mb" ] || { echo "dump-400k.sh: need ~$need_mb MB free in $parent"; exit 77; }
[ "$mem_mb" -ge $(( need_mb * 2 )) ] || { echo "dump-400k.sh: need ~$((need_mb * 2)) MB of memory"; exit 77; }

work=$(mktemp -d "$parent/beamcore-dump-bench.XXXXXX")
pid=
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid"; wait "$pid" 2>/dev/null || true; fi
  [ $keep = 1 ] && echo "kept $work" || rm -rf "$work"
}
trap cleanup EXIT
beamcore=$work/beamcore
cp "$src" "$beamcore"

t=$(now)
if [ -n "$given" ]; then
  dump=$given
else
otp=$("$top/testdata/build-otp.sh" 27)
"$otp/bin/erlc" -o "$work" "$here/dump_node.erl"
dump=$work/erl_crash.dump

say "node: $nprocs processes, $words tuples each"
t=$(now)
( cd "$work" && ERL_CRASH_DUMP="$dump" exec "$otp/bin/erl" -noshell +P 1048576 +MIscs 64 \
    -pa "$work" -run dump_node start "$nprocs" "$words" "$work" ) >"$work/node.log" 2>&1 &
pid=$!
for _ in $(seq 600); do
  [ -f "$work/ready" ] && break
  kill -0 "$pid" 2>/dev/null || { cat "$work/node.log" >&2; die "node died"; }
  sleep 1
done
[ -f "$work/ready" ] || die "node not ready after 600 s"
echo "ready in $(awk -v a="$t" -v b="$(now)" 'BEGIN{printf "%.1f", b-a}') s"
t=$(now)
kill -USR1 "$pid"
wait "$pid" 2>/dev/null || true
pid=
fi
[ "$(tail -c 5 "$dump")" = "=end" ] || die "no complete dump"
size=$(stat -c %s "$dump")
nproc_dump=$(grep -c '^=proc:' "$dump")
echo "dump ${given:+$given }written in $(awk -v a="$t" -v b="$(now)" 'BEGIN{printf "%.1f", b-a}') s:" \
  "$((size / 1048576)) MiB, $nproc_dump processes"

# The grep approach of recon's erl_crashdump_analyzer.sh, written out here:
# one grep (and sed/sort/uniq) pass over the whole file per question.
cat >"$work/greps.sh" <<'SH'
d=$1
grep -m 1 '^Slogan:' "$d"
for k in processes processes_used system atom atom_used binary code ets total; do
  grep -m 1 "^$k: " "$d"
done
grep 'Message queue length' "$d" | sed 's/Message queue length: //' | sort -n -r | uniq -c | head -5
grep -A 10 -m 1 '^Name: error_logger' "$d" | grep 'Message queue length'
grep 'Port controls linked-in driver:' "$d" | wc -l
grep -c '^=proc:' "$d"
grep 'Stack+heap' "$d" | sed 's/Stack+heap: //' | sort -n -r | uniq -c | head -5
grep 'OldHeap' "$d" | sed 's/OldHeap: //' | sort -n -r | uniq -c | head -5
grep '^State: ' "$d" | sed 's/State: //' | sort | uniq -c
SH

declare -A secs rss
measure() {  # name command...: one run for RSS (warms the cache), then $runs timed
  local name=$1; shift
  /usr/bin/time -f '%M' -o "$work/rss" "$@" >"$work/$name.out" 2>"$work/$name.err" ||
    { cat "$work/$name.err" >&2; die "$name failed"; }
  rss[$name]=$(tail -1 "$work/rss")
  local ts=()
  for _ in $(seq "$runs"); do
    local a; a=$(now)
    "$@" >/dev/null 2>&1
    ts+=("$(awk -v a="$a" -v b="$(now)" 'BEGIN{printf "%.3f", b-a}')")
  done
  secs[$name]=$(printf '%s\n' "${ts[@]}" | sort -n | awk '{v[NR]=$1} END{printf "%s %s", v[1], v[int((NR+1)/2)]}')
}
measure summary "$beamcore" summary "$dump"
measure procs_top20 "$beamcore" procs "$dump" --top 20
measure procs_json "$beamcore" procs "$dump" --json
# (into a file: GNU grep writing to /dev/null stops at the first match)
measure grep_count sh -c 'grep -c "^=proc:" "$0" >"$1"' "$dump" "$work/grep_count.n"
measure grep_stack_heap bash -c "grep '^Stack+heap' '$dump' | sort | uniq -c"
measure greps bash "$work/greps.sh" "$dump"

# Same answers: every process, and the largest heaps (Stack+heap) agree.
got=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["processes"]))' "$work/procs_json.out")
[ "$got" = "$nproc_dump" ] || die "beamcore listed $got processes, the dump has $nproc_dump"
"$beamcore" procs "$dump" --sort heap_size --top 20 --json |
  python3 -c 'import json,sys; print("\n".join(str(p["heap_size"]) for p in json.load(sys.stdin)["processes"]))' >"$work/top.beamcore"
grep '^Stack+heap: ' "$dump" | sed 's/Stack+heap: //' | sort -n -r | awk 'NR <= 20' >"$work/top.grep"
cmp -s "$work/top.beamcore" "$work/top.grep" || die "top 20 heap sizes differ from grep's"

say "results: $((size / 1048576)) MiB dump, $nproc_dump processes (time: min median of $runs, warm page cache)"
printf '%-34s %16s %14s\n' "command" "seconds" "peak RSS"
for n in summary procs_top20 procs_json grep_count grep_stack_heap greps; do
  case $n in
    summary) label="beamcore summary" ;; procs_top20) label="beamcore procs --top 20" ;;
    procs_json) label="beamcore procs --json (all)" ;;
    grep_count) label="grep -c '^=proc:'" ;;
    grep_stack_heap) label="grep '^Stack+heap' | sort | uniq -c" ;; greps) label="recon-style greps (11 passes)" ;;
  esac
  printf '%-34s %16s %11s MiB\n' "$label" "${secs[$n]}" "$(( ${rss[$n]} / 1024 ))"
done
# medians against grep -c of the same run (issue 23: no slower than it)
le_med() { awk -v a="${secs[$1]#* }" -v b="${secs[$2]#* }" 'BEGIN{print (a <= b) ? 1 : 0}'; }
fast=$(le_med procs_top20 grep_count) fast_s=$(le_med summary grep_count)
small=$(( ${rss[procs_top20]} * 1024 * 10 < size && ${rss[summary]} * 1024 * 10 < size ))
yn() { [ "$1" = 1 ] && echo yes || echo NO; }
echo "targets (medians): procs --top 20 no slower than grep -c: $(yn "$fast"); summary: $(yn "$fast_s");" \
  "peak RSS under a tenth of the dump ($((size / 10485760)) MiB): $(yn "$small")"
[ "$fast" = 1 ] && [ "$fast_s" = 1 ] && [ "$small" = 1 ]
