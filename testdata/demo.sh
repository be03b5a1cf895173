#!/usr/bin/env bash
# Newcomer path: dependencies, OTP 25 with DWARF, a captured incident node,
# then beamcore on its kernel core (if beamcore is built).
#   testdata/demo.sh            output in ${TMPDIR:-/tmp}/beamcore-demo
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${TMPDIR:-/tmp}/beamcore-demo
"$here/deps.sh"
"$here/build-otp.sh" 25 >/dev/null
"$here/capture.sh" 25 "$out"
beamcore=$here/../build/beamcore
if [ -x "$beamcore" ]; then
  "$beamcore" procs "$out/core.kernel" "$(cat "$out/beam.smp.path")" --top 15
else
  echo "build beamcore (build/beamcore), then: build/beamcore procs $out/core.kernel $(cat "$out/beam.smp.path") --top 15"
fi
