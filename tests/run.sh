#!/usr/bin/env bash
# The whole test suite, from a fresh Debian 12 machine: dependencies, the OTP
# debug builds (cached in $XDG_CACHE_HOME/beamcore), beamcore twice (plain and
# ASan+UBSan, warnings as errors), real cores with live ground truth (generated,
# deleted afterwards), then meson test on both builds. Ends with one line:
#   N passed, N failed[, N skipped]
# BEAMCORE_FIXTURES=DIR reuses (or keeps) fixtures there: DIR/otp25, DIR/otp27.
# Under CI=true (the CI sets it) a fixture that could not be made and a test
# that skipped are failures; outside it they are counted, and a run with
# skipped tests still exits 1: it never reports success with tests skipped.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
say() { printf '== %s\n' "$*"; }
capfail=0   # fixtures that could not be made
nocap() { echo "$*: its tests will skip${CI:+ (CI=$CI)}"; capfail=$((capfail + 1)); }

say "dependencies"
bash testdata/deps.sh || { echo "deps.sh failed"; echo "0 passed, 1 failed"; exit 1; }
for rel in 25 27 29; do
  say "OTP $rel debug build (cached)"
  testdata/build-otp.sh "$rel" || { echo "0 passed, 1 failed"; exit 1; }
done
# 27's emulator for aarch64, cross-compiled with DWARF (16 min on 2 loaded CPUs)
say "OTP 27 arm64 debug build (cached)"
testdata/build-otp.sh 27 arm64 || { echo "0 passed, 1 failed"; exit 1; }

say "build beamcore"
for b in build build-asan; do
  opts=(-Dwerror=true)
  [ "$b" = build-asan ] && opts+=(-Db_sanitize=address,undefined -Db_lundef=false)
  if [ ! -d "$b" ]; then meson setup "$b" "${opts[@]}" >/dev/null || exit 1; fi
  ninja -C "$b" >/dev/null || { ninja -C "$b"; echo "0 passed, 1 failed"; exit 1; }
done

keep=${BEAMCORE_FIXTURES:+1}
fixtures=${BEAMCORE_FIXTURES:-$(mktemp -d "${TMPDIR:-/var/tmp}/beamcore-fixtures.XXXXXX")}
export BEAMCORE_FIXTURES=$fixtures
cleanup() { [ -n "$keep" ] || rm -rf "$fixtures"; }
trap cleanup EXIT
# Core fixtures: DIR, release, capture.sh options. Single nodes of each release and
# flavor, then distributed ones (kernel cores only: the gcore path is the same).
while read -r name rel opts; do
  d=$fixtures/$name
  if [ -f "$d/ground_truth.json" ] && [ -f "$d/memory.json" ] && [ -f "$d/core.kernel" ] &&
     { [ -f "$d/core.gcore" ] || [[ $opts == *--no-gcore* ]]; }; then
    say "fixture $d (reused)"
    continue
  fi
  say "fixture $d"
  # shellcheck disable=SC2086  # opts: several words
  testdata/capture.sh "$rel" "$d" $opts
  rc=$?
  [ $rc -eq 0 ] || nocap "capture.sh $rel $opts exited $rc"
done <<'EOF'
otp25 25
otp27 27
otp29 29
otp29-emu 29 --emu --no-gcore
otp25-dist 25 --dist --no-gcore
otp27-dist 27 --dist --no-gcore
otp29-dist 29 --dist --no-gcore
otp29-emu-dist 29 --emu --dist --no-gcore
otp25-stock 25 --stock --no-gcore
otp27-stock 27 --stock --no-gcore
otp29-stock 29 --stock --no-gcore
EOF

# aarch64: Debian's stock OTP 27 for arm64 under qemu-user, qemu's core of it
# (capture.sh --arm64: about 1.5 min on 2 CPUs, a 400 MB core).
# The same with our cross-compiled DWARF beam.smp (--arm64-dwarf: about 2.5 min).
for v in "" -dwarf; do
  d=$fixtures/arm64-27$v
  if ! [ -f "$d/core.qemu" ] || ! [ -f "$d/ground_truth.json" ]; then
    say "fixture $d (arm64 under qemu)"
    testdata/capture.sh 27 "$d" --arm64$v || nocap "capture.sh 27 --arm64$v failed"
  fi
done

# Frame-pointer frames (+JPperf true: erts_frame_layout FP_RA), kernel core only.
d=$fixtures/otp25-fp
if ! [ -f "$d/core.kernel" ] || ! [ -f "$d/ground_truth.json" ]; then
  say "fixture $d (+JPperf true)"
  BEAMCORE_ERL_FLAGS="+JPperf true" testdata/capture.sh 25 "$d" --no-gcore ||
    nocap "capture.sh (+JPperf) failed"
fi

for rel in 25 27; do
  for death in nif deep abort alloc kill; do
    d=$fixtures/crash$rel-$death
    if [ -f "$d/core" ] && [ -f "$d/crash.json" ]; then continue; fi
    say "crash fixture $d"
    testdata/capture-crash.sh "$rel" "$death" "$d" || nocap "capture-crash.sh $rel $death failed"
  done
done

for rel in 25 27 25-dist 29-dist; do
  d=$fixtures/otp$rel-dump   # erl_crash.dump (SIGUSR1) + its ground truth, oom, kernel_pid
  if [ -f "$d/erl_crash.dump" ] && [ -f "$d/memory.json" ] && [ -f "$d/kernel_pid_cut.dump" ]; then
    say "dump fixture $d (reused)"
    continue
  fi
  say "dump fixture $d"
  case $rel in *-dist) dist=--dist ;; *) dist= ;; esac
  # shellcheck disable=SC2086  # dist: empty or one word
  testdata/capture.sh "${rel%-dist}" "$d" --dump $dist || nocap "capture.sh $rel --dump failed"
done

# beamcore diff: a gcore and then the same node's erl_crash.dump (one state
# seen twice); two gcores of a node whose ETS table and message queue grow.
d=$fixtures/otp27-gcore-dump
if [ -f "$d/core.gcore" ] && [ -f "$d/erl_crash.dump" ] && [ -f "$d/memory.json" ]; then
  say "diff fixture $d (reused)"
else
  say "diff fixture $d"
  testdata/capture.sh 27 "$d" --gcore-dump || nocap "capture.sh 27 --gcore-dump failed"
fi
# beamcore triage: a corpus of real deaths (dumps; the crash fixtures' cores by path)
d=$fixtures/triage-corpus
if [ -f "$d/expected.json" ]; then
  say "triage fixture $d (reused)"
else
  say "triage fixture $d"
  testdata/triage-corpus.sh 27 "$d" || nocap "triage-corpus.sh failed"
fi
# leaks (issue 32): atoms made by a loop and held, a gcore and a dump of one
# idle node, and a node killed by its full atom table (a few seconds, ~40 MB)
for rel in 25 29; do
  d=$fixtures/leak$rel
  if [ -f "$d/core.gcore" ] && [ -f "$d/full/erl_crash.dump" ]; then
    say "leak fixture $d (reused)"
    continue
  fi
  say "leak fixture $d"
  testdata/capture-leak.sh "$rel" "$d" || nocap "capture-leak.sh $rel failed"
done
for rel in 27 29; do
  d=$fixtures/otp$rel-grow
  if [ -f "$d/core.2" ] && [ -f "$d/truth2.json" ]; then
    say "grow fixture $d (reused)"
    continue
  fi
  say "grow fixture $d"
  testdata/capture-grow.sh "$rel" "$d" || nocap "capture-grow.sh $rel failed"
done

# Real applications on our OTP 25 beam.smp (issue 21): a RabbitMQ broker under
# AMQP load and an Elixir application, from Debian's packages; each as a kernel
# core, as an erl_crash.dump (--dump: another run to the same state; a core
# and a dump of one node cannot both be had) and (Elixir) as a gcore followed
# by what garbage_collect/1 frees (--gc, gc.json).
while read -r name script opt; do
  d=$fixtures/$name
  case $opt in --dump) want=erl_crash.dump ;; --gc) want=gc.json ;; *) want=core.kernel ;; esac
  if [ -f "$d/$want" ] && [ -f "$d/memory.json" ] && [ -f "$d/names.json" ]; then
    say "real fixture $d (reused)"
    continue
  fi
  say "real fixture $d"
  # shellcheck disable=SC2086  # opt: empty or one word
  # stdin from /dev/null: the node (or erl) would read the rest of this list
  testdata/$script "$d" $opt </dev/null || nocap "$script $opt failed"
done <<'EOF'
real-rabbitmq capture-rabbitmq.sh
real-rabbitmq-dump capture-rabbitmq.sh --dump
real-elixir capture-elixir.sh
real-elixir-dump capture-elixir.sh --dump
real-elixir-gc capture-elixir.sh --gc
EOF

export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
for b in build build-asan; do
  say "meson test ($b)"
  meson test -C "$b" --print-errorlogs --num-processes 2
done

# libFuzzer targets (fuzz/, clang): each a bounded time on its seed corpus,
# each one test in the count below (a crash, a leak or a build failure: failed;
# fuzz_vm, on the crash25-kill fixture's core, skipped without it).
say "fuzz targets (${BEAMCORE_FUZZ_SECONDS:-45} s each)"
rm -f build-fuzz/fuzz-results.txt
bash tests/fuzz.sh "${BEAMCORE_FUZZ_SECONDS:-45}"

CAPFAIL=$capfail python3 - build/meson-logs/testlog.json build-asan/meson-logs/testlog.json <<'PY'
import json, os, sys
p = f = s = 0
failed = []
try:
    fuzz = open("build-fuzz/fuzz-results.txt").read().splitlines()
except OSError:
    fuzz = []
for t in ("fuzz_dump", "fuzz_dump_terms", "fuzz_core", "fuzz_vm"):
    if any(l.startswith(f"fuzz {t}: ok") for l in fuzz): p += 1
    elif any(l.startswith(f"fuzz {t}: SKIP") for l in fuzz): s += 1
    else: f += 1
for path in sys.argv[1:]:
    try:
        lines = open(path).read().splitlines()
    except OSError:
        f += 1
        continue
    for line in lines:
        t = json.loads(line)
        r = t["result"]
        if r in ("OK", "EXPECTEDFAIL"): p += 1
        elif r == "SKIP": s += 1
        else:
            f += 1
            failed.append((path.split("/")[0], t))
# What each failed test said, last: CI keeps only the head and tail of the log.
for build, t in failed:
    out = (t.get("stdout") or "").splitlines()
    print(f"== FAILED {build}: {t['name']} ({t['result']}), its last lines:")
    for l in out[-12:]:
        print("   " + l[:300])
capfail = int(os.environ.get("CAPFAIL", "0"))
if capfail:
    print(f"{capfail} fixture(s) could not be made")
if os.environ.get("CI") == "true":
    # CI: nothing may pass by skipping
    f += capfail + s
    s = 0
print(f"{p} passed, {f} failed" + (f", {s} skipped" if s else ""))
sys.exit(1 if f or s or capfail else 0)
PY
