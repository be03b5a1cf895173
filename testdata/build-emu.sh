#!/usr/bin/env bash
# The emulator flavor (beam.emu) of OTP 25 or 27 with DWARF, built in a copy of
# build-otp.sh's tree (which stays as it is: tests and fixtures use it), for
# writing their layout packs (docs/layout-packs.md). Not run by CI: the packs
# are committed. About 15 minutes on 2 cores. Prints the copy's dir.
#   testdata/build-emu.sh 25|27 DIR    (DIR: new, outside the repo; ~700 MB)
# Then: beamcore layout DIR/bin/x86_64-pc-linux-gnu/beam.emu, and
# BEAMCORE_OTP=DIR testdata/capture.sh REL OUTDIR --emu [--strip].
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rel=${1:?usage: build-emu.sh 25|27 DIR}; dst=$(realpath -m "${2:?usage: build-emu.sh 25|27 DIR}")
case $rel in 25|27) ;; *) echo "build-emu.sh: 25 or 27 (build-otp.sh 29 builds 29's)" >&2; exit 64 ;; esac
[ ! -e "$dst" ] || { echo "build-emu.sh: $dst exists" >&2; exit 64; }
src=$("$here/build-otp.sh" "$rel")
cp -a "$src" "$dst"
cd "$dst"
# configure wrote the tree's absolute path into Makefiles and scripts: point
# them at the copy (mtimes kept, so make rebuilds only the new flavor).
grep -rlI "$src" . | while read -r f; do
  sed -i "s#$src#$dst#g" "$f"
  touch -r "$src/$f" "$f"
done
if grep -rlI "$src" . | grep -q .; then echo "build-emu.sh: $dst still names $src" >&2; exit 1; fi
log=$dst/build-emu.log
echo "build-emu.sh: building beam.emu in $dst (log: $log)" >&2
ERL_TOP=$dst nice make -j"$(nproc)" emulator FLAVOR=emu ERL_TOP="$dst" >"$log" 2>&1 || true
test -x bin/x86_64-pc-linux-gnu/beam.emu ||
  { echo "build-emu.sh: no beam.emu, see $log" >&2; tail -20 "$log" >&2; exit 2; }
echo "$dst"
