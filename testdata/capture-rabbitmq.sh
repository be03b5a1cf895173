#!/usr/bin/env bash
# A real RabbitMQ broker as a fixture: Debian's rabbitmq-server 3.10.8 on our
# DWARF OTP 25.2.3 beam.smp (an `erl` first in PATH), loopback only, under AMQP
# load from Debian's python3-pika (testdata/rabbitmq-load.py: 100 connections,
# 300 channels, 50 queues, hx.backlog holding 50,000 messages, a stalled consumer
# with 2,000 unacked), then its ground truth written inside the node
# (testdata/beamcore_real.erl) and at once a kernel core of that state.
#   testdata/capture-rabbitmq.sh OUTDIR [--dump | --gc]
# OUTDIR gets: core.kernel (sparse), ground_truth.json, memory.json,
# supervisors.json, names.json, ports.json, beam.smp.path, pid, node.log,
# load.log. --dump: erl_crash.dump (SIGUSR1) instead of the core. --gc: a
# gcore (core.gcore; the node lives on), then gc.json: what
# erlang:garbage_collect/1 frees in each process idle in the ground truth.
# Exit 0 ok, 77 not enough disk space, 64 usage, other non-zero on failure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
me=capture-rabbitmq.sh
# shellcheck source=testdata/real-common.sh
. "$here/real-common.sh"
real_args "$@"
[ -x /usr/lib/rabbitmq/bin/rabbitmq-server ] || die "rabbitmq-server not installed (run testdata/deps.sh)"
/usr/bin/python3 -c 'import pika' 2>/dev/null || die "python3-pika not installed (run testdata/deps.sh)"
rm -rf "${out:?}/mnesia" "${out:?}/log" "${out:?}/home"
rm -f "$out"/{ground_truth,memory,supervisors,names,ports,gc}.json "$out"/{go,gc,gc_done,ready,loaded}
rm -f "$out"/{core,core.[0-9]*,core.kernel,core.gcore,erl_crash.dump,beam.smp.path,pid,node.log,load.log}
real_erl

# Two free loopback ports: AMQP and distribution.
read -r amqp dist < <(/usr/bin/python3 -c '
import socket
ss = [socket.socket() for _ in range(2)]
for s in ss: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in ss])')
mkdir -p "$out/home" "$out/log"
: >"$out/rabbitmq-env.conf"
echo '[].' >"$out/enabled_plugins"
cat >"$out/rabbitmq.conf" <<EOF
listeners.tcp.1 = 127.0.0.1:$amqp
log.console = true
log.console.level = warning
log.file = false
vm_memory_high_watermark.relative = 0.9
disk_free_limit.absolute = 50MB
EOF

pid=
loadpid=
cleanup() {
  for p in $pid $loadpid; do
    if kill -0 "$p" 2>/dev/null; then kill -KILL "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; fi
  done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# RABBITMQ_ALLOW_INPUT: the script execs erl itself (without it, it runs erl
# in the background under a shell that traps signals: not beam.smp's pid);
# -noinput as the script would add. -s beamcore_real start: the collector,
# waiting for OUTDIR/go.
( cd "$out" && ulimit -c unlimited && exec env PATH="$out/bin:$PATH" HOME="$out/home" \
    ERL_EPMD_ADDRESS=127.0.0.1 BEAMCORE_OUT="$out" BEAMCORE_GC=$gc BEAMCORE_APP=rabbitmq \
    BEAMCORE_STATES=process_name:rabbit_amqqueue_process \
    ERL_CRASH_DUMP="$out/erl_crash.dump" \
    RABBITMQ_CONF_ENV_FILE="$out/rabbitmq-env.conf" \
    RABBITMQ_CONFIG_FILE="$out/rabbitmq.conf" \
    RABBITMQ_ENABLED_PLUGINS_FILE="$out/enabled_plugins" \
    RABBITMQ_MNESIA_BASE="$out/mnesia" RABBITMQ_LOG_BASE="$out/log" RABBITMQ_LOGS=- \
    RABBITMQ_PID_FILE="$out/rabbit.pid" \
    RABBITMQ_NODENAME="bcrabbit$$@localhost" RABBITMQ_DIST_PORT="$dist" \
    RABBITMQ_NODE_IP_ADDRESS=127.0.0.1 RABBITMQ_NODE_PORT="$amqp" \
    RABBITMQ_ALLOW_INPUT=1 \
    RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS="-noinput +MIscs 64 -kernel inet_dist_use_interface {127,0,0,1} -pa $out/ebin -s beamcore_real start" \
    /usr/lib/rabbitmq/bin/rabbitmq-server ) </dev/null >"$out/node.log" 2>&1 &
pid=$!   # rabbitmq-server, erl and erlexec exec: beam.smp's pid

for _ in $(seq 600); do
  /usr/bin/python3 -c "import socket; socket.create_connection(('127.0.0.1', $amqp), 1)" 2>/dev/null && break
  kill -0 "$pid" 2>/dev/null || { tail -n 40 "$out/node.log" >&2; die "broker died while starting"; }
  sleep 0.2
done
echo "broker listening on 127.0.0.1:$amqp after $(since "$t0") (pid $pid)"
real_check_exe
t=$(now)
/usr/bin/python3 "$here/rabbitmq-load.py" "$amqp" "$out" >"$out/load.log" 2>&1 &
loadpid=$!
for _ in $(seq 900); do
  [ -f "$out/loaded" ] && break
  kill -0 "$loadpid" 2>/dev/null || { cat "$out/load.log" >&2; die "load client failed"; }
  kill -0 "$pid" 2>/dev/null || { tail -n 40 "$out/node.log" >&2; die "broker died under load"; }
  sleep 0.2
done
[ -f "$out/loaded" ] || die "load not done after 180 s"
echo "load: $(cat "$out/loaded") in $(since "$t")"
real_capture $mode
kill -KILL "$loadpid" 2>/dev/null || true; wait "$loadpid" 2>/dev/null || true; loadpid=
rm -rf "$out/mnesia"
echo "fixture in $out ($(cat "$out/beam.smp.path")), $(since "$t0") in all"
