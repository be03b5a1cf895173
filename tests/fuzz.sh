#!/usr/bin/env bash
# libFuzzer targets of fuzz/ (clang, ASan+UBSan): build them in build-fuzz and
# run each for SECONDS (default 45) on its seed corpus testdata/fuzz/TARGET
# (plus what earlier runs found, kept in build-fuzz/corpus/TARGET).
#   tests/fuzz.sh [SECONDS [TARGET...]]
# Prints one line per target, "fuzz TARGET: ok|FAIL (N runs, S s)", and writes
# the same to build-fuzz/fuzz-results.txt; a crash's input is kept in
# build-fuzz/crash-TARGET-*. Exit 1 if any target failed.
# fuzz_vm patches a real core: the fixture $BEAMCORE_FIXTURES/crash25-kill
# (its core and beam.smp.path; BEAMCORE_FUZZ_VM_FIXTURE names another). Without
# it the line says SKIP, and under CI=true FAIL (the fixture must be made).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
secs=${1:-45}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_dump fuzz_dump_terms fuzz_core fuzz_vm)
b=build-fuzz
if [ ! -d "$b" ]; then
  CC=clang meson setup "$b" -Dfuzz=true -Dc_args=-fsanitize=fuzzer-no-link \
    -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debugoptimized >/dev/null ||
    { echo "fuzz: meson setup (clang) failed"; exit 1; }
fi
ninja -C "$b" -j2 "${targets[@]/#/fuzz/}" >/dev/null || { ninja -C "$b" -j2 "${targets[@]/#/fuzz/}"; echo "fuzz: build failed"; exit 1; }
: >"$b/fuzz-results.txt"
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
fail=0
for t in "${targets[@]}"; do
  if [ "$t" = fuzz_vm ]; then
    fx=${BEAMCORE_FIXTURES:-/nonexistent}/${BEAMCORE_FUZZ_VM_FIXTURE:-crash25-kill}
    if [ -f "$fx/core" ] && [ -f "$fx/beam.smp.path" ]; then
      export BEAMCORE_FUZZ_CORE=$fx/core BEAMCORE_FUZZ_BEAM
      BEAMCORE_FUZZ_BEAM=$(cat "$fx/beam.smp.path")
    else
      if [ "${CI:-}" = true ]; then
        line="fuzz $t: FAIL (no fixture $fx/core: made by tests/run.sh)"
        fail=1
      else
        line="fuzz $t: SKIP (no fixture $fx/core: BEAMCORE_FIXTURES=DIR)"
      fi
      echo "$line" | tee -a "$b/fuzz-results.txt"
      continue
    fi
  fi
  corpus=$b/corpus/$t
  mkdir -p "$corpus"
  log=$b/fuzz-$t.log
  t0=$(date +%s)
  "$b/fuzz/$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$b/crash-$t-" "$corpus" "testdata/fuzz/$t" >"$log" 2>&1
  rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  took=$(( $(date +%s) - t0 ))
  if [ $rc -eq 0 ]; then
    line="fuzz $t: ok (${runs:-?} runs, $took s)"
  else
    line="fuzz $t: FAIL (exit $rc; $log, crash input $b/crash-$t-*)"
    grep -m5 -E 'ERROR|runtime error|SUMMARY' "$log"
    fail=1
  fi
  echo "$line" | tee -a "$b/fuzz-results.txt"
done
exit $fail
