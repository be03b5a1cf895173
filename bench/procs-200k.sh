#!/usr/bin/env bash
# Benchmark: `beamcore procs` vs a gdb walk of the process table (heap_sz of
# every process: a command-language loop like the etp-* macros, and a Python
# loop), on a gcore of an OTP 25 node (our DWARF build) with 200,000 idle
# processes. Run on demand; not part of the test suite. See bench/README.md.
#
#   bench/procs-200k.sh [--processes N] [--callers N] [--gdb-processes N | --gdb-all]
#                       [--runs N] [--keep] [--dir DIR]
#
#   --processes N      processes the node spawns, all waiting in a receive
#                      (5 of them with bigger heaps); default 200000
#   --callers N        of them, N wait in gen_server:call to one stuck
#                      server (timed: `waits`, `summary`); default 15000
#   --gdb-processes N  time the gdb command loop over the first N processes
#                      of the table and extrapolate linearly; default 10000
#   --gdb-all          time it over every process instead (~4 min at 200k);
#                      the gdb Python loop always walks every process
#   --runs N           timed runs of each beamcore command; default 5
#   --keep             keep the work dir (core, beam outputs, logs)
#   --dir DIR          parent of the work dir; default ${TMPDIR:-/var/tmp}
#                      (must be outside the repo; needs ~3 GB free)
# Environment: BEAMCORE (default build/beamcore; not rebuilt here).
# Exit 0 ok, 64 usage, 77 not enough disk space or memory, other on failure.
# shellcheck disable=SC2154,SC2015  # text_*, json_*: set by printf -v in bench_bc
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)

usage() { sed -n '6,22p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 64; }
nprocs=200000 callers=15000 gdbn=10000 runs=5 keep=0 parent=${TMPDIR:-/var/tmp}
while [ $# -gt 0 ]; do
  case $1 in
    --processes) [ $# -ge 2 ] || usage; nprocs=$2; shift 2 ;;
    --callers) [ $# -ge 2 ] || usage; callers=$2; shift 2 ;;
    --gdb-processes) [ $# -ge 2 ] || usage; gdbn=$2; shift 2 ;;
    --gdb-all) gdbn=0; shift ;;
    --runs) [ $# -ge 2 ] || usage; runs=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --dir) [ $# -ge 2 ] || usage; parent=$2; shift 2 ;;
    -h|--help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) usage ;;
  esac
done
for v in "$nprocs" "$callers" "$gdbn" "$runs"; do [[ $v =~ ^[0-9]+$ ]] || usage; done
[ "$nprocs" -ge 1 ] && [ "$nprocs" -le 1000000 ] && [ "$runs" -ge 1 ] || usage

die() { echo "procs-200k.sh: $*" >&2; exit 1; }
say() { echo "== $*"; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.3f", b-a}'; }

beamcore=${BEAMCORE:-$top/build/beamcore}
[ -x "$beamcore" ] || die "no $beamcore (build it: meson setup build && ninja -C build)"
for t in gdb gcore erlc fallocate timeout python3; do
  command -v "$t" >/dev/null || die "$t not found"
done
[ -x /usr/bin/time ] || die "/usr/bin/time not found (apt-get install time)"

# --- room: the core is ~3 GB before holes are dug (200k processes), the
# node ~1.5 GB of RAM, gdb on the whole table ~1 GB.
parent=$(realpath -m "$parent")
case $parent/ in "$top"/*) die "--dir must be outside the repo ($top)" ;; esac
mkdir -p "$parent"
need_mb=$(( 1024 + nprocs * 10 / 1000 ))   # 3 GB at 200k, 1 GB floor
free_mb=$(( $(df -Pk "$parent" | awk 'NR==2{print $4}') / 1024 ))
if [ "$free_mb" -lt "$need_mb" ]; then
  echo "procs-200k.sh: need ~$need_mb MB free in $parent, have $free_mb MB" >&2; exit 77
fi
avail_mb=$(( $(awk '/^MemAvailable:/{print $2}' /proc/meminfo) / 1024 ))
need_ram=$(( 512 + nprocs * 6 / 1000 ))
if [ "$avail_mb" -lt "$need_ram" ]; then
  echo "procs-200k.sh: need ~$need_ram MB of available memory, have $avail_mb MB" >&2; exit 77
fi

# --- OTP 25 with DWARF, run emulator-only like testdata/capture.sh
otp=$("$top/testdata/build-otp.sh" 25)
bindir=$otp/bindir
beam=$otp/bin/x86_64-pc-linux-gnu/beam.smp
if [ ! -x "$bindir/erlexec" ] || [ "$(readlink -f "$bindir/beam.smp")" != "$(readlink -f "$beam")" ]; then
  erts_bin=$(echo /usr/lib/erlang/erts-*/bin)
  [ -x "$erts_bin/erlexec" ] || die "Debian erlang-base not installed (run testdata/deps.sh)"
  mkdir -p "$bindir"
  for f in "$erts_bin"/*; do ln -sfn "$f" "$bindir/$(basename "$f")"; done
  for f in beam.smp erl_child_setup; do
    ln -sfn "$otp/bin/x86_64-pc-linux-gnu/$f" "$bindir/$f"
  done
fi
readelf -S "$beam" | grep -q '\.debug_info' || die "$beam has no DWARF"

work=$(mktemp -d "$parent/beamcore-bench.XXXXXX")
pid='' ok=0
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true
  fi
  if [ $ok = 1 ] && [ $keep = 1 ]; then
    echo "kept $work"
  else
    [ $ok = 1 ] || echo "procs-200k.sh: failed; removing $work" >&2
    rm -rf "$work"
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

/usr/bin/erlc -o "$work" "$here/bench_node.erl"
# Benchmark a copy: build/beamcore may be rebuilt while this runs.
bc_desc="$beamcore, built $(date -u -r "$beamcore" +%Y-%m-%dT%H:%MZ), sha256 $(sha256sum "$beamcore" | cut -c1-12)"
bc_rev=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo '?')
git -C "$top" diff --quiet HEAD -- src analyzers meson.build 2>/dev/null || bc_rev+=" + uncommitted changes"
cp "$beamcore" "$work/beamcore"
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
beamcore=$work/beamcore

# --- 1. the node, then its gcore
say "node: OTP 25 ($beam), spawning $nprocs processes"
t0=$(now)
( cd "$work" && exec env BINDIR="$bindir" ROOTDIR=/usr/lib/erlang EMU=beam PROGNAME=erl \
    "$bindir/erlexec" -noshell +MIscs 64 +P 1048576 -pa "$work" \
    -run bench_node start "$nprocs" "$work" "$callers" ) >"$work/node.log" 2>&1 &
pid=$!   # the subshell execs env, erlexec, then beam.smp: same pid
for _ in $(seq 600); do
  [ -f "$work/ready" ] && break
  kill -0 "$pid" 2>/dev/null || { cat "$work/node.log" >&2; die "node died before ready"; }
  sleep 0.5
done
[ -f "$work/ready" ] || { cat "$work/node.log" >&2; die "no ready after 300 s"; }
exe=$(readlink "/proc/$pid/exe")
[ "$exe" -ef "$beam" ] || die "node runs $exe, not $beam"
node_count=$(tr -d '[:space:]' <"$work/process_count")
node_rss_mb=$(( $(awk '/^VmRSS:/{print $2}' "/proc/$pid/status") / 1024 ))
sed 's/^/   /' "$work/node.log"
echo "   ready in $(since "$t0") s: process_count $node_count, node RSS $node_rss_mb MB (pid $pid)"

t=$(now)
timeout 900 gcore -o "$work/core" "$pid" >"$work/gcore.log" 2>&1 ||
  { cat "$work/gcore.log" >&2; die "gcore failed"; }
gcore_s=$(since "$t")
core=$work/core
mv "$core.$pid" "$core"
kill -KILL "$pid"; wait "$pid" 2>/dev/null || true; pid=
t=$(now)
fallocate --dig-holes "$core"
dig_s=$(since "$t")
core_apparent=$(du -h --apparent-size "$core" | cut -f1)
core_disk=$(du -h "$core" | cut -f1)
echo "   gcore ${gcore_s} s, holes dug in ${dig_s} s: $core_apparent apparent, $core_disk on disk"

# --- 2. beamcore procs, text --top 20 and --json (all processes)
# One run under /usr/bin/time -v (peak RSS; also warms the page cache), then
# $runs timed runs. Exit 0 (complete) or 1 (partial) both count as a result.
bc_run() {   # bc_run OUT CMD...: runs CMD, stdout to OUT, fails on exit > 1
  local out=$1 rc=0; shift
  timeout 600 "$@" >"$out" 2>>"$work/beamcore.stderr" || rc=$?
  [ $rc -le 1 ] || { cat "$work/beamcore.stderr" >&2; die "beamcore exit $rc: $*"; }
  return 0
}
stats() {   # stats FILE: "min median" of one number per line
  sort -g "$1" | awk '{v[NR]=$1} END{m=(NR%2)?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2; printf "%.3f %.3f", v[1], m}'
}
rss_mb() { awk -F': ' '/Maximum resident set size/{printf "%.0f", $2/1024}' "$1"; }
bench_bc() {   # bench_bc NAME OUT ARGS...: sets <NAME>_min, _med, _rss
  local name=$1 out=$2; shift 2
  bc_run "$out" /usr/bin/time -v -o "$work/$name.time" "$beamcore" "$@"
  : >"$work/$name.runs"
  for _ in $(seq "$runs"); do
    local t; t=$(now)
    bc_run /dev/null "$beamcore" "$@"
    since "$t" >>"$work/$name.runs"; echo >>"$work/$name.runs"
  done
  local s; s=$(stats "$work/$name.runs")
  printf -v "${name}_min" %s "${s% *}"
  printf -v "${name}_med" %s "${s#* }"
  printf -v "${name}_rss" %s "$(rss_mb "$work/$name.time")"
}
say "beamcore procs --top 20 ($runs runs)"
bench_bc text "$work/top20.txt" procs "$core" "$beam" --top 20
echo "   min $text_min s, median $text_med s, peak RSS $text_rss MB"
say "beamcore procs --json, all processes ($runs runs)"
bench_bc json "$work/procs.json" procs "$core" "$beam" --json
echo "   min $json_min s, median $json_med s, peak RSS $json_rss MB"

# the passes that say why: waits (every caller found, one group) and summary
say "beamcore waits --json ($runs runs)"
bench_bc waits "$work/waits.json" waits "$core" "$beam" --json
echo "   min $waits_min s, median $waits_med s, peak RSS $waits_rss MB"
say "beamcore tree --json ($runs runs)"
bench_bc tree "$work/tree.json" tree "$core" "$beam" --json
echo "   min $tree_min s, median $tree_med s, peak RSS $tree_rss MB"
say "beamcore summary ($runs runs)"
bench_bc summ "$work/summary.txt" summary "$core" "$beam"
echo "   min $summ_min s, median $summ_med s, peak RSS $summ_rss MB"
read -r w_n w_top < <(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
g = d["groups"]
print(len(d["waits"]), g[0]["count"] if g else 0)' "$work/waits.json")

read -r bc_count bc_rows bc_heap bc_complete < <(python3 - "$work/procs.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
p = d["processes"]
heap = sum(x["heap_size"] for x in p if x.get("heap_size") is not None)
print(d["target"]["process_count"], len(p), heap, str(d["complete"]).lower())
EOF
)

# --- 3. gdb: the same table walk, reading heap_sz of every process
# a) gdb command-language loop (bench/gdb_heap_sz.gdb), the way the etp-*
#    macros do it: first $gdbn processes, extrapolated (or all: --gdb-all).
# b) gdb Python loop (bench/gdb_heap_sz.py): always all processes.
kv() {   # kv FILE PREFIX: "key=value ..." pairs of the line "PREFIX ..." into g[]
  local line; line=$(grep "^$2 " "$1") || { tail -20 "$1" >&2; die "no '$2' line from gdb"; }
  for x in ${line#"$2" }; do g[${x%%=*}]=${x#*=}; done
}
declare -A g
if [ "$gdbn" = 0 ]; then
  say "gdb command loop: whole process table (heap_sz of every process)"
else
  say "gdb command loop: first $gdbn processes of the table (heap_sz of each)"
fi
t=$(now)
echo "bench_gdb_t start $t" >"$work/gdb-cmd.log"
timeout 3600 gdb -batch -nx -ex "set \$lim = $gdbn" -x "$here/gdb_heap_sz.gdb" "$beam" "$core" \
  >>"$work/gdb-cmd.log" 2>&1 || { tail -20 "$work/gdb-cmd.log" >&2; die "gdb failed"; }
kv "$work/gdb-cmd.log" bench_gdb
mark() { awk -v k="$1" '$1=="bench_gdb_t" && $2==k {print $3}' "$work/gdb-cmd.log"; }
span() { awk -v a="$(mark "$1")" -v b="$(mark "$2")" 'BEGIN{printf "%.3f", b-a}'; }
cmd_procs=${g[procs]} cmd_slots=${g[slots]} cmd_max=${g[max]} cmd_heap=${g[heap_words]}
cmd_startup=$(span start setup) cmd_walk=$(span setup walk)
cmd_s=$(awk -v a="$cmd_startup" -v b="$cmd_walk" 'BEGIN{printf "%.3f", a+b}')
if [ "$gdbn" = 0 ]; then
  cmd_all=$cmd_s cmd_how="measured over all $cmd_procs processes"
  echo "   $cmd_s s: gdb startup $cmd_startup s + walk $cmd_walk s over $cmd_procs processes ($cmd_slots slots)"
else
  # walk = a*slots + b*processes; pass 2 (same slots, process branch never
  # taken) gives a*slots. All: startup + a*max + b*(all processes).
  cmd_slotpass=$(span walk slots_only)
  read -r cmd_a cmd_b cmd_all < <(awk -v s="$cmd_startup" -v w="$cmd_walk" -v e="$cmd_slotpass" \
    -v S="$cmd_slots" -v n="$cmd_procs" -v M="$bc_count" -v X="$cmd_max" \
    'BEGIN{a=e/S; b=(w-e)/n; if (b<0) b=0; printf "%.3f %.3f %.1f\n", a*1000, b*1000, s+a*X+b*M}')
  cmd_how="EXTRAPOLATED linearly from the first $cmd_procs processes ($cmd_slots of $cmd_max slots): startup + ${cmd_a} ms x $cmd_max slots + ${cmd_b} ms x $bc_count processes"
  echo "   $cmd_s s: gdb startup $cmd_startup s + walk $cmd_walk s over $cmd_procs processes ($cmd_slots slots);" \
    "calibration pass over the same slots without the processes $cmd_slotpass s"
  echo "   => $cmd_a ms per slot + $cmd_b ms per process; all $bc_count processes ($cmd_max slots): ~$cmd_all s"
fi

say "gdb Python loop: whole process table (heap_sz of every process)"
t=$(now)
BENCH_GDB_PROCESSES=0 timeout 1800 gdb -batch -nx -x "$here/gdb_heap_sz.py" "$beam" "$core" \
  >"$work/gdb-py.log" 2>&1 || { tail -20 "$work/gdb-py.log" >&2; die "gdb (Python) failed"; }
py_s=$(since "$t")
g=(); kv "$work/gdb-py.log" bench_gdb
py_procs=${g[procs]} py_heap=${g[heap_words]} py_walk=${g[walk_s]}
py_startup=$(awk -v a="$py_s" -v b="$py_walk" 'BEGIN{printf "%.3f", a-b}')
echo "   $py_s s: gdb startup $py_startup s + setup and walk $py_walk s over $py_procs processes (${g[slots]} slots)"

# --- 4. checks and report
fail=0 checks=()
if [ "$bc_count" = "$node_count" ] && [ "$bc_rows" = "$node_count" ]; then
  checks+=("process count: node $node_count = beamcore $bc_count = JSON rows $bc_rows")
else
  echo "MISMATCH: node process_count $node_count, beamcore process_count $bc_count, JSON rows $bc_rows" >&2; fail=1
fi
heapcheck() {   # heapcheck NAME PROCS HEAP
  if [ "$2" = "$bc_count" ] && [ "$3" = "$bc_heap" ]; then
    checks+=("$1: $2 processes, heap_sz sum $3 words = beamcore's heap_size sum")
  else
    echo "MISMATCH: $1 $2 processes / heap_sz sum $3 words, beamcore $bc_count / $bc_heap" >&2; fail=1
  fi
}
heapcheck "gdb Python loop" "$py_procs" "$py_heap"
if [ "$w_n" = "$callers" ] && { [ "$callers" = 0 ] || [ "$w_top" = "$callers" ]; }; then
  checks+=("waits: $w_n waiters, all in one group on bench_stuck (spawned $callers)")
else
  echo "MISMATCH: waits found $w_n waiters, largest group $w_top; spawned $callers callers" >&2; fail=1
fi
[ "$gdbn" != 0 ] || heapcheck "gdb command loop" "$cmd_procs" "$cmd_heap"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{r=a/b; printf (r>=100?"%.0f":"%.1f"), r}'; }

cat <<EOF

beamcore procs benchmark, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, $(awk -F': ' '/^model name/{print $2; exit}' /proc/cpuinfo)
  OTP 25.2.3 (DWARF build), gdb $(gdb --version | head -1 | awk '{print $NF}'), load average $load_start at start, $(cut -d' ' -f1-3 /proc/loadavg) at end
  beamcore: $bc_desc (tree at start: $bc_rev)
  processes          $bc_count (node process_count $node_count; $nprocs spawned, +P 1048576: $cmd_max table slots); beamcore complete=$bc_complete
  core               $core_apparent apparent, $core_disk on disk after fallocate --dig-holes (gcore $gcore_s s, node RSS $node_rss_mb MB)
  beamcore --top 20  min $text_min s, median $text_med s ($runs runs), peak RSS $text_rss MB
  beamcore --json    min $json_min s, median $json_med s ($runs runs, all processes), peak RSS $json_rss MB
  beamcore waits     min $waits_min s, median $waits_med s ($runs runs, --json, $w_n waiters), peak RSS $waits_rss MB
  beamcore tree      min $tree_min s, median $tree_med s ($runs runs, --json), peak RSS $tree_rss MB
  beamcore summary   min $summ_min s, median $summ_med s ($runs runs, waits included), peak RSS $summ_rss MB
  gdb command loop   measured $cmd_s s for $cmd_procs processes (startup $cmd_startup s + walk $cmd_walk s)
                     all $bc_count processes: $cmd_all s, $cmd_how
  gdb Python loop    measured $py_s s for all $py_procs processes (startup $py_startup s + walk $py_walk s)
  ratio              gdb command loop / beamcore --top 20 median: $(ratio "$cmd_all" "$text_med")x, / --json median: $(ratio "$cmd_all" "$json_med")x
                     gdb Python loop  / beamcore --top 20 median: $(ratio "$py_s" "$text_med")x, / --json median: $(ratio "$py_s" "$json_med")x
EOF
for c in "${checks[@]}"; do echo "  check              $c"; done
echo
echo "beamcore procs CORE BEAM --top 20 (first 20 lines):"
head -20 "$work/top20.txt"
[ $fail = 0 ] || die "process counts or heap sums differ (see above)"
ok=1
