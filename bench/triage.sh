#!/usr/bin/env bash
# beamcore triage on 1,000 crash dumps of 1-10 MB (issue 23 part 3: under 10 s
# on 2 CPUs). Ten real dumps of OTP 27 (testdata/build-otp.sh 27): a node with
# 1,000 x (i - 1) idle processes halting with "bench death i: N bytes", i = 1..10,
# then 100 copies of each (not links: 1,000 files, ~5 GB), timed cold-ish
# (right after the copies) and warm, on CPUs 0-1.
#   bench/triage.sh [--dir DIR] [--keep]    (BEAMCORE=path: another binary)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dir=${TMPDIR:-/var/tmp}; keep=0
while [ $# -gt 0 ]; do
  case $1 in --dir) dir=$2; shift 2 ;; --keep) keep=1; shift ;; *) echo "usage: bench/triage.sh [--dir DIR] [--keep]" >&2; exit 64 ;; esac
done
bc=$(mktemp "$dir/triage-bench-bin.XXXXXX"); cp "${BEAMCORE:-$here/build/beamcore}" "$bc"; chmod +x "$bc"
work=$(mktemp -d "$dir/triage-bench.XXXXXX")
cleanup() { rm -f "$bc"; [ $keep = 1 ] || rm -rf "$work"; }
trap cleanup EXIT
free_kb=$(df -Pk "$work" | awk 'NR==2{print $4}')
[ "$free_kb" -ge $((8 * 1024 * 1024)) ] || { echo "bench/triage.sh: need 8 GB free in $work" >&2; exit 77; }
otp=$("$here/testdata/build-otp.sh" 27)
mkdir -p "$work/src" "$work/dumps"
for i in $(seq 10); do
  ERL_CRASH_DUMP="$work/src/d$i.dump" timeout 120 "$otp/bin/erl" -noshell +P 100000 -eval "
    [spawn(fun() -> L = lists:seq(1, 40), receive stop -> L end end) || _ <- lists:seq(1, 1000 * ($i - 1))],
    erlang:halt(\"bench death $i: \" ++ integer_to_list($i * 4096) ++ \" bytes\")." >/dev/null 2>&1 || true
  [ -s "$work/src/d$i.dump" ] || { echo "bench/triage.sh: no dump $i" >&2; exit 1; }
done
for i in $(seq 10); do
  for k in $(seq -w 100); do cp "$work/src/d$i.dump" "$work/dumps/d$i-$k.dump"; done
done
sizes=$(ls -l "$work"/src/*.dump | awk '{s+=$5; if(min==""||$5<min)min=$5; if($5>max)max=$5} END{printf "%.1f-%.1f MB", min/1e6, max/1e6}')
total=$(du -sm "$work/dumps" | cut -f1)
echo "1,000 dumps ($sizes each, $total MB) in $work/dumps"
for run in after-copy warm warm; do
  s=$(date +%s.%N)
  /usr/bin/time -f "%U %S" -o "$work/cpu" taskset -c 0,1 "$bc" triage --json "$work/dumps" \
    > "$work/out.json" || [ $? = 1 ]
  e=$(date +%s.%N)
  cpu=$(awk '{print $1 + $2}' "$work/cpu")
  python3 -c "
import json,sys; d=json.load(open('$work/out.json'))
n=sum(g['count'] for g in d['groups'])
assert n == 1000 and len(d['groups']) == 1 and not d['unreadable'], (n, len(d['groups']))
print(f'$run: {$e-$s:.2f} s wall, $cpu s CPU (user+sys), load $(cut -d" " -f1 /proc/loadavg), {n} files, {len(d[\"groups\"])} group(s): {d[\"groups\"][0][\"signature\"]}')"
done
