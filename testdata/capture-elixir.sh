#!/usr/bin/env bash
# A real Elixir application as a fixture: Debian's elixir 1.14 on our DWARF OTP
# 25.2.3 beam.smp (an `erl` first in PATH), a Mix-less application
# (testdata/elixir/*.ex, compiled with elixirc; nested Supervisors, a
# DynamicSupervisor with 200 children, a Task.Supervisor with 50 tasks, a
# Registry with via-named workers, a PartitionSupervisor, an Agent and a
# GenServer with a large state), then its ground truth written inside the node
# (testdata/beamcore_real.erl) and at once a kernel core of that state.
#   testdata/capture-elixir.sh OUTDIR [--dump | --gc]
# OUTDIR gets: core.kernel (sparse), ground_truth.json, memory.json,
# supervisors.json, names.json, ports.json, beam.smp.path, pid, node.log.
# --dump: erl_crash.dump (SIGUSR1) instead of the core. --gc: a gcore
# (core.gcore; the node lives on), then gc.json: what erlang:garbage_collect/1
# frees in each process idle in the ground truth.
# Exit 0 ok, 77 not enough disk space, 64 usage, other non-zero on failure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
me=capture-elixir.sh
# shellcheck source=testdata/real-common.sh
. "$here/real-common.sh"
real_args "$@"
command -v elixirc >/dev/null && [ -x /usr/lib/elixir/bin/elixir ] || die "elixir not installed (run testdata/deps.sh)"
rm -f "$out"/{ground_truth,memory,supervisors,names,ports,gc}.json "$out"/{go,gc,gc_done,ready,app_ready}
rm -f "$out"/{core,core.[0-9]*,core.kernel,core.gcore,erl_crash.dump,beam.smp.path,pid,node.log}
real_erl
# the application: its modules and a hand-written .app (no Mix)
env PATH="$out/bin:$PATH" elixirc --ignore-module-conflict -pa "$out/ebin" -o "$out/ebin" "$here"/elixir/*.ex >"$out/elixirc.log" 2>&1 ||
  { cat "$out/elixirc.log" >&2; die "elixirc failed"; }
mods=$(cd "$out/ebin" && ls Elixir.BcApp*.beam | sed "s/\.beam\$//; s/.*/'&'/" | paste -sd, -)
cat >"$out/ebin/bc_app.app" <<EOF
{application, bc_app,
 [{description, "beamcore's real-elixir fixture"}, {vsn, "1.0.0"},
  {modules, [$mods]}, {registered, []},
  {applications, [kernel, stdlib, elixir, logger]},
  {mod, {'Elixir.BcApp.Application', []}}]}.
EOF
echo "compiled in $(since "$t0")"

pid=
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# elixir execs erl (ours, first in PATH), which execs erlexec and beam.smp: one pid.
( cd "$out" && ulimit -c unlimited && exec env PATH="$out/bin:$PATH" HOME="$out" \
    BEAMCORE_OUT="$out" BEAMCORE_GC=$gc BEAMCORE_APP=elixir ERL_CRASH_DUMP="$out/erl_crash.dump" \
    BEAMCORE_STATES=Elixir.BcApp.Store,registry \
    /usr/lib/elixir/bin/elixir --no-halt --erl "+MIscs 64 -noinput" -pa "$out/ebin" \
      -e "BcApp.Fixture.start(\"$out\")" ) </dev/null >"$out/node.log" 2>&1 &
pid=$!
real_wait app_ready 120
echo "application started after $(since "$t0") (pid $pid)"
real_check_exe
real_capture $mode
echo "fixture in $out ($(cat "$out/beam.smp.path")), $(since "$t0") in all"
