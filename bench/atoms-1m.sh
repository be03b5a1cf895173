#!/usr/bin/env bash
# Benchmark at a million atoms (issue 32): one OTP 25 node (our DWARF build)
# whose loop made N atoms user_1 .. user_N (+t N + 100,000), kept in a list
# (atom_hoarder holds a tenth of them); its gcore, then its erl_crash.dump (SIGUSR1). Target:
#   atoms on the core and on the dump   at most 3x summary's time on the same
# and the count and the pattern right (user_<N>, N atoms). Run on demand.
#   bench/atoms-1m.sh [--atoms N] [--runs N] [--keep] [--dir DIR]
# Environment: BEAMCORE (default build/beamcore).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
natoms=1000000 runs=3 keep=0 parent=${TMPDIR:-/var/tmp}
while [ $# -gt 0 ]; do
  case $1 in
    --atoms) natoms=$2; shift ;; --runs) runs=$2; shift ;; --keep) keep=1 ;; --dir) parent=$2; shift ;;
    *) echo "usage: bench/atoms-1m.sh [--atoms N] [--runs N] [--keep] [--dir DIR]" >&2; exit 64 ;;
  esac
  shift
done
beamcore=${BEAMCORE:-$root/build/beamcore}
# shellcheck source=../testdata/otp-env.sh
. "$root/testdata/otp-env.sh"
otp_env 25
work=$(mktemp -d "$parent/beamcore-atoms.XXXXXX")
pid=
cleanup() {
  if [ -n "$pid" ]; then kill -KILL "$pid" 2>/dev/null || true; fi
  [ "$keep" = 1 ] || rm -rf "$work"
}
trap cleanup EXIT
t0=$(date +%s.%N)
( cd "$work" && ERL_CRASH_DUMP="$work/erl_crash.dump" exec "${run[@]}" -noshell +MIscs 64 +t $((natoms + 100000)) -eval "
      Atoms = [list_to_atom(\"user_\" ++ integer_to_list(I)) || I <- lists:seq(1, $natoms)],
      H = spawn(fun() -> receive never -> ok end end),
      register(atom_hoarder, H),
      H ! lists:sublist(Atoms, $natoms div 10),
      file:write_file(\"ready\", integer_to_list(erlang:system_info(atom_count))),
      receive never -> ok end." ) >"$work/node.log" 2>&1 &
pid=$!
for _ in $(seq 300); do [ -f "$work/ready" ] && break; sleep 0.5; done
[ -f "$work/ready" ] || { cat "$work/node.log" >&2; echo "atoms-1m.sh: node not ready" >&2; exit 1; }
count=$(cat "$work/ready")
echo "node: $count atoms, ready in $(echo "$(date +%s.%N) - $t0" | bc) s"
gcore -o "$work/core" "$pid" >/dev/null 2>&1
mv "$work/core.$pid" "$work/core"
fallocate --dig-holes "$work/core"
kill -USR1 "$pid"; wait "$pid" 2>/dev/null || true; pid=
echo "core $(du -h --apparent-size "$work/core" | cut -f1) apparent; dump $(du -h "$work/erl_crash.dump" | cut -f1)"

med() { sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
timeit() {  # runs of a command: the median wall time
  for _ in $(seq "$runs"); do
    /usr/bin/time -f %e -o "$work/t" "$@" >/dev/null 2>&1 || true
    tail -1 "$work/t"
  done | med
}
fail=0
for t in core dump; do
  target=("$work/core" "$beam"); [ $t = core ] || target=("$work/erl_crash.dump")
  s=$(timeit "$beamcore" summary "${target[@]}")
  a=$(timeit "$beamcore" atoms "${target[@]}")
  r=$(awk -v a="$a" -v s="$s" 'BEGIN{printf "%.2f", a / s}')
  got=$( ("$beamcore" atoms "${target[@]}" --json --top 1 2>/dev/null || true) | python3 -c "
import json, sys; d = json.load(sys.stdin); p = d['patterns'][0]
print(d['atoms']['count'], p['pattern'], p['count'], d.get('holders', [{}])[0].get('atoms') if d.get('holders') else '-')" || true)
  ok=met; awk -v r="$r" 'BEGIN{exit !(r <= 3)}' || { ok=MISSED; fail=1; }
  # (the top holder: the -eval process, whose bindings keep the whole list)
  # (the dump: atom_hoarder's tenth; the VM's dump writes the evaluator's
  # 5 M-word heap as 19 lines, without the list)
  want="$count user_<N> $natoms $natoms"; [ $t = core ] || want="$count user_<N> $natoms $((natoms / 10))"
  [ "$got" = "$want" ] || { echo "  $t: atoms says '$got', want '$want' (the node's)"; fail=1; }
  echo "  $ok $t: atoms ${a} s vs summary ${s} s = ${r}x (target <= 3x; medians of $runs); atoms says: $got"
done
exit $fail
