# shellcheck shell=bash disable=SC2154,SC2034  # me, here, pid: set by the caller; out, mode, gc, t0: set for it (real_args)
# Shared by testdata/capture-rabbitmq.sh and capture-elixir.sh (sourced, not run):
# a real application's node on our DWARF OTP 25.2.3 beam.smp, its ground truth
# written inside it by beamcore_real.erl, then a kernel core and an
# erl_crash.dump of the same state (or, with --gc, a gcore and gc.json).
# The caller sets: me (its name), here (testdata/), pid (the node's OS pid once
# started); real_args sets out (OUTDIR, absolute), mode, gc and t0.

die() { echo "$me: $*" >&2; exit 1; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.1fs", b-a}'; }
sizes() {
  fallocate --dig-holes "$1"
  echo "$(basename "$1"): $(du -h --apparent-size "$1" | cut -f1) apparent, $(du -h "$1" | cut -f1) on disk"
}

# OUTDIR [--dump | --gc]: sets out, mode (kernel, dump, gc), gc (1 with --gc)
# and t0; checks OUTDIR (real_outdir) and, for a kernel core, core_pattern.
real_args() {
  [ $# -ge 1 ] && [ $# -le 2 ] || real_usage
  out=$(realpath -m "$1")
  mode=kernel
  case ${2:-} in '') ;; --dump) mode=dump ;; --gc) mode=gc ;; *) real_usage ;; esac
  gc=0; [ $mode != gc ] || gc=1
  t0=$(now)
  real_outdir
  [ $mode != kernel ] || real_core_pattern_ok
}
real_usage() { echo "usage: $me OUTDIR [--dump | --gc]" >&2; exit 64; }

# OUTDIR: outside the repo, with room for a core.
real_outdir() {
  if top=$(git -C "$here" rev-parse --show-toplevel 2>/dev/null); then
    case $out/ in "$top"/*) die "OUTDIR must be outside the repo ($top)" ;; esac
  fi
  mkdir -p "$out"
  local free_kb
  free_kb=$(df -Pk "$out" | awk 'NR==2{print $4}')
  if [ "$free_kb" -lt $((3 * 1024 * 1024)) ]; then
    echo "$me: need ~3 GB free in $out, have $((free_kb / 1024)) MB" >&2; exit 77
  fi
}

# Our OTP 25.2.3 beam.smp (+ erl_child_setup) with Debian's other erts binaries
# and /usr/lib/erlang libraries, and an `erl` in $out/bin that runs it: first
# in PATH, it is the erl that rabbitmq-server and elixir exec.
real_erl() {
  otp=$("$here/build-otp.sh" 25)
  local erts_bin f
  erts_bin=$(echo /usr/lib/erlang/erts-*/bin)
  [ -x "$erts_bin/erlexec" ] || die "Debian erlang-base not installed (run testdata/deps.sh)"
  bindir=$otp/bindir
  mkdir -p "$bindir" "$out/bin"
  for f in "$erts_bin"/*; do ln -sfn "$f" "$bindir/$(basename "$f")"; done
  for f in beam.smp erl_child_setup; do
    ln -sfn "$otp/bin/x86_64-pc-linux-gnu/$f" "$bindir/$f"
  done
  cat >"$out/bin/erl" <<EOF
#!/bin/sh
# our DWARF beam.smp (testdata/real-common.sh)
exec env BINDIR="$bindir" ROOTDIR=/usr/lib/erlang EMU=beam PROGNAME=erl "$bindir/erlexec" "\$@"
EOF
  chmod +x "$out/bin/erl"
  mkdir -p "$out/ebin"
  /usr/bin/erlc -o "$out/ebin" "$here/beamcore_scenario.erl" "$here/beamcore_real.erl"
}

# Wait for FILE in $out (seconds), the node alive meanwhile.
real_wait() {
  local file=$1 secs=$2 step=${3:-0.2} _
  for _ in $(seq "$(awk -v s="$secs" -v t="$step" 'BEGIN{print int(s / t)}')"); do
    [ -f "$out/$file" ] && return 0
    kill -0 "$pid" 2>/dev/null || { tail -n 40 "$out/node.log" >&2; die "node died before $file"; }
    # the collector crashed (its error report names our module)
    ! grep -q 'beamcore_real' "$out/node.log" || { tail -n 40 "$out/node.log" >&2; die "the collector failed"; }
    sleep "$step"
  done
  tail -n 40 "$out/node.log" >&2
  die "no $out/$file after $secs s"
}

# The node runs our DWARF beam.smp (before "go": the core follows the ground
# truth as closely as it can).
real_check_exe() {
  local exe
  exe=$(readlink "/proc/$pid/exe")
  case $exe in "$otp"/*/beam.smp) ;; *) die "running $exe, not our beam.smp under $otp" ;; esac
  readelf -S "$exe" | grep -q '\.debug_info' || die "$exe has no DWARF"
  echo "$exe" >"$out/beam.smp.path"
  echo "$pid" >"$out/pid"
}

# "go", then the ground truth (ready), at once the core or dump (mode: kernel,
# dump or gc), and the checks after.
real_capture() {
  local mode=$1 t
  t=$(now)
  : >"$out/go"
  real_wait ready 300 0.02
  case $mode in
    kernel) real_kernel_core ;;
    dump) real_dump ;;
    gc) real_gcore_and_gc ;;
  esac
  echo "ground truth written in $(since "$t") (with the $mode capture)"
  grep -q "\"os_pid\":\"$(cat "$out/pid")\"" "$out/ground_truth.json" ||
    die "ground_truth.json is not from pid $(cat "$out/pid")"
}

# The kernel's core: beam.smp installs no SIGABRT handler, the default action
# dumps core in the node's cwd ($out). (A core and an erl_crash.dump of one
# state cannot both come from one node: the dump writer overwrites the heaps
# it has written, so a core taken after it, e.g. from the BREAK menu's
# "(A)bort with dump", holds wrecked heaps.)
real_kernel_core() {
  local t rc k
  t=$(now)
  kill -ABRT "$pid"
  rc=0; wait "$pid" 2>/dev/null || rc=$?
  pid=
  [ $rc = 134 ] || { tail -n 20 "$out/node.log" >&2; die "node exited with status $rc, expected 134 (SIGABRT + core)"; }
  k=$(find "$out" -maxdepth 1 -type f -name 'core*' ! -name core.gcore ! -name core.kernel -newer "$out/ready" | head -1)
  [ -n "$k" ] || die "no kernel core in $out (core_pattern '$(cat /proc/sys/kernel/core_pattern)')"
  mv "$k" "$out/core.kernel"
  echo "kernel core took $(since "$t")"
  sizes "$out/core.kernel"
}

# erl_crash.dump of the ground truth's state: SIGUSR1 (slogan "Received SIGUSR1").
real_dump() {
  local t rc
  t=$(now)
  kill -USR1 "$pid"
  rc=0; wait "$pid" 2>/dev/null || rc=$?
  pid=
  [ "$(tail -c 5 "$out/erl_crash.dump" 2>/dev/null)" = "=end" ] ||
    { tail -n 20 "$out/node.log" >&2; die "no complete erl_crash.dump after SIGUSR1 (node exit $rc)"; }
  echo "erl_crash.dump took $(since "$t"): $(du -h "$out/erl_crash.dump" | cut -f1)"
}

# --gc: a gcore (the node lives on), then gc.json: what erlang:garbage_collect/1
# frees in each idle process of that same state.
real_gcore_and_gc() {
  local t
  t=$(now)
  timeout 900 gcore -o "$out/core.gcore" "$pid" >"$out/gcore.log" 2>&1 ||
    { cat "$out/gcore.log" >&2; die "gcore failed"; }
  mv "$out/core.gcore.$pid" "$out/core.gcore"
  rm -f "$out/gcore.log"
  echo "gcore took $(since "$t")"
  sizes "$out/core.gcore"
  t=$(now)
  : >"$out/gc"
  real_wait gc_done 300
  echo "gc.json took $(since "$t")"
  kill -KILL "$pid"; wait "$pid" 2>/dev/null || true; pid=
}

real_core_pattern_ok() {
  local pattern
  pattern=$(cat /proc/sys/kernel/core_pattern)
  if [[ $pattern == \|* ]] || [[ $pattern == */* ]]; then
    die "core_pattern is '$pattern' (pipe or other dir): no kernel core in the node's cwd"
  fi
}
