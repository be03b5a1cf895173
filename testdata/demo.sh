#!/usr/bin/env bash
# Newcomer path: dependencies, beamcore, OTP 25 with DWARF, a captured incident
# node (5,000 processes, a 55 MB gen_server, a flooded mailbox...), then beamcore
# on its kernel core. The gcore is skipped; the core stays in the output dir.
#   testdata/demo.sh            output in ${TMPDIR:-/tmp}/beamcore-demo
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
out=${TMPDIR:-/tmp}/beamcore-demo
"$here/deps.sh"
cd "$root"
[ -d build ] || meson setup build >/dev/null
ninja -C build >/dev/null
"$here/build-otp.sh" 25 >/dev/null
"$here/capture.sh" 25 "$out" --no-gcore
beam=$(cat "$out/beam.smp.path")
set -x
build/beamcore "$out/core.kernel" "$beam"
build/beamcore procs "$out/core.kernel" "$beam" --sort message_queue_len --top 5
