#!/usr/bin/env bash
# A corpus for beamcore triage (tests/triage.py): real deaths of OTP REL's
# build (testdata/build-otp.sh), several of each with different numbers, and
# files that are no input, all in OUTDIR; expected.json says which files die
# of the same cause. Cores are not made here (the crash fixtures of
# capture-crash.sh are: tests/triage.py adds them by path).
#   disk-N.dump     erlang:halt("disk full: N*512 bytes left in /var/tmp/runN/data")
#   config-N.dump   erlang:halt("config error: key N missing")
#   boot-N.dump     do_boot exits with {bad_config, N}
#   enomem-N.dump   eheap_alloc fails under ulimit -v (N: the limit, MB)
#   usr1-N.dump     kill -USR1 of a waiting node
#   *-cut.dump      those cut short (a truncated dump keeps its slogan)
#   *.dump.zst, *.dump.xz   compressed
#   empty, garbage, notes.txt, header-only.dump: unreadable or no slogan
#   testdata/triage-corpus.sh 27 OUTDIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rel=${1:?usage: triage-corpus.sh REL OUTDIR}; out=$(realpath -m "${2:?}")
otp=$("$here/build-otp.sh" "$rel")
erl=$otp/bin/erl; erlc=$otp/bin/erlc
[ "$rel" != 25 ] || { echo "triage-corpus.sh: OTP 25's build has no bin/erl here; use 27 or 29" >&2; exit 64; }
rm -rf "$out"; mkdir -p "$out/deaths/more" "$out/work"
"$erlc" -o "$out/work" "$here/beamcore_triage.erl"

# one node dying by F ARG, its dump at $out/deaths/NAME (run in the background)
die() {  # NAME F ARG [ULIMIT_KB]
  local name=$1 f=$2 arg=$3 lim=${4:-}
  mkdir -p "$out/work/$name"
  ( cd "$out/work/$name" && { [ -z "$lim" ] || ulimit -v "$lim"; } &&
    ERL_CRASH_DUMP="$out/deaths/$name" exec timeout 60 "$erl" -noshell +MIscs 64 \
      -pa "$out/work" -run beamcore_triage "$f" "$arg" ) >"$out/work/$name.log" 2>&1 || true
}
pids=()
for n in 3 17 250; do die "disk-$n.dump" disk "$n" & pids+=($!); done
for n in 7 1024; do die "more/config-$n.dump" config "$n" & pids+=($!); done
for n in 1 99; do die "boot-$n.dump" boot "$n" & pids+=($!); done
wait "${pids[@]}"
# enomem: one at a time (each grows to its limit)
for mb in 700 900; do die "enomem-$mb.dump" grow x $((mb * 1024)); done
# SIGUSR1: a waiting node, its dump requested from outside
for n in 1 2; do
  mkdir -p "$out/work/usr1-$n"
  ( cd "$out/work/usr1-$n" && ERL_CRASH_DUMP="$out/deaths/usr1-$n.dump" exec timeout 60 "$erl" \
      -noshell -pa "$out/work" -run beamcore_triage wait x ) >"$out/work/usr1-$n.log" 2>&1 &
  node=$!
  for _ in $(seq 100); do [ -f "$out/work/usr1-$n/ready" ] && break; sleep 0.1; done
  beam=$(pgrep -P "$node" -f beam.smp || echo "$node")
  kill -USR1 "$beam"
  wait "$node" || true
done
d=$out/deaths
for f in disk-3 disk-17 disk-250 more/config-7 more/config-1024 boot-1 boot-99 enomem-700 enomem-900 usr1-1 usr1-2; do
  [ -s "$d/$f.dump" ] || { echo "triage-corpus.sh: no $f.dump (see $out/work/${f#more/}.dump.log)" >&2; exit 1; }
done
# cut short: after the slogan (a dump's header), and half way
head -c 2000 "$d/disk-17.dump" > "$d/disk-17-cut.dump"
head -c $(( $(stat -c %s "$d/enomem-900.dump") / 2 )) "$d/enomem-900.dump" > "$d/more/enomem-900-cut.dump"
zstd -q -f --rm "$d/disk-250.dump" -o "$d/disk-250.dump.zst"
xz -f "$d/boot-99.dump"
: > "$d/empty"
head -c 4096 /dev/urandom > "$d/garbage"
echo "not a dump" > "$d/more/notes.txt"
printf '=erl_crash_dump:0.5\nThu Nov 26 00:00:00 2026\n' > "$d/header-only.dump"
rm -rf "$out/work"
# the groups, by file (relative to OUTDIR/deaths), and the unreadable ones
cat > "$out/expected.json" <<'JSON'
{"groups": [
  ["disk-17-cut.dump", "disk-17.dump", "disk-250.dump.zst", "disk-3.dump"],
  ["more/config-1024.dump", "more/config-7.dump"],
  ["boot-1.dump", "boot-99.dump.xz"],
  ["enomem-700.dump", "enomem-900.dump", "more/enomem-900-cut.dump"],
  ["usr1-1.dump", "usr1-2.dump"],
  ["header-only.dump"]],
 "truncated": ["disk-17-cut.dump", "more/enomem-900-cut.dump", "header-only.dump"],
 "unreadable": ["empty", "garbage", "more/notes.txt"]}
JSON
echo "triage corpus in $d"
