#!/usr/bin/env bash
# Build an OTP with DWARF (-g -O2, the default) from Debian's source package,
# cached under $XDG_CACHE_HOME/beamcore/otp-<release> ($BEAMCORE_OTP_CACHE
# instead of $XDG_CACHE_HOME/beamcore when set: the test suite runs with a
# private XDG_CACHE_HOME, tests/meson.build). Prints the install dir.
#   testdata/build-otp.sh 25   OTP 25.2.3 (bookworm): emulator only; runs with
#                              Debian's installed erlang-base 25.2.3 libraries
#   testdata/build-otp.sh 27   OTP 27.3.4.1 (trixie): minimal full OTP
#   testdata/build-otp.sh 29   OTP 29.1.1 (forky): minimal full OTP, JIT and
#                              the emulator flavor (bin/<target>/beam.emu,
#                              run with erl -emu_flavor emu)
#   testdata/build-otp.sh 27 arm64   OTP 27.3.4.1's emulator cross-compiled for
#                              aarch64 (gcc-aarch64-linux-gnu, g++-aarch64-linux-gnu,
#                              libc6-dev-arm64-cross): bin/aarch64-unknown-linux-gnu/
#                              beam.smp with DWARF, run under qemu with Debian's
#                              arm64 erts beside it (stock-root.sh 27 arm64)
# The emulator flavor of 25 and 27 (for their layout packs): testdata/build-emu.sh.
set -euo pipefail
rel=${1:?usage: build-otp.sh 25|27|29 [arm64]}
arch=${2:-}
case $rel in
  25) suite=bookworm; ver=25.2.3 ;;
  27) suite=trixie; ver=27.3.4.1 ;;
  29) suite=forky; ver=29.1.1 ;;
  *) echo "build-otp.sh: unknown release $rel" >&2; exit 64 ;;
esac
cache=${BEAMCORE_OTP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/beamcore}
dir=$cache/otp-$ver${arch:+-$arch}
case $arch in ""|arm64) ;; *) echo "build-otp.sh: unknown arch $arch" >&2; exit 64 ;; esac
[ -z "$arch" ] || [ "$rel" = 27 ] || { echo "build-otp.sh: arm64 for 27 only" >&2; exit 64; }
mkdir -p "$cache"
# One build per release at a time: a second caller waits, then finds .built
# (without the lock it would rm -rf the tree the first one is building in).
exec 9>"$cache/.lock-$ver${arch:+-$arch}"
flock 9
if [ -f "$dir/.built" ]; then echo "$dir"; exit 0; fi
log=$cache/build-otp-$ver${arch:+-$arch}.log
echo "build-otp.sh: building OTP $ver into $dir (a few minutes; log: $log)" >&2
# The build runs in a subshell outside any || list: bash ignores set -e in
# one, so a failed step would otherwise still reach touch .built.
set +e
(
  set -e
  src=$cache/src-$ver${arch:+-$arch}
  rm -rf "$dir" "$src"
  mkdir -p "$src"
  cd "$src"
  # Only the upstream tarball is used: a mirror that lacks the Debian patch
  # files (.dsc, .debian.tar.xz: 404 once a stable update replaced them) fails
  # apt-get source after it fetched the tarball, and that is fine.
  apt-get source --download-only "erlang/$suite" >/dev/null ||
    ls erlang_*.orig.tar.xz >/dev/null
  tar xf erlang_*.orig.tar.xz
  mv otp-OTP-$ver "$dir"
  rm -rf "$src"
  cd "$dir"
  if [ "$arch" = arm64 ]; then
    # the emulator alone: the stock root's erts and libraries run it
    ./configure --build=x86_64-pc-linux-gnu --host=aarch64-linux-gnu --without-javac \
      --without-wx --without-odbc --without-ssl --without-termcap
    # make stops at erl_call after beam.smp is built: harmless
    make -j"$(nproc)" emulator || true
    test -x bin/aarch64-unknown-linux-gnu/beam.smp
  elif [ "$rel" = 25 ]; then
    ./configure --without-javac --without-wx --without-odbc --without-ssl
    # make stops at erl_call after beam.smp is built: harmless
    make -j"$(nproc)" emulator || true
    test -x bin/x86_64-pc-linux-gnu/beam.smp
  else
    keep=" kernel stdlib compiler sasl runtime_tools parsetools syntax_tools tools "
    for a in lib/*/; do a=$(basename "$a"); case $keep in *" $a "*) ;; *) touch "lib/$a/SKIP";; esac; done
    ./configure --without-javac --without-wx --without-odbc --without-ssl
    make -j"$(nproc)"
    test -x bin/erl
    if [ "$rel" = 29 ]; then
      make -j"$(nproc)" emulator FLAVOR=emu
      test -x bin/x86_64-pc-linux-gnu/beam.emu
    fi
  fi
  touch .built
) >"$log" 2>&1
rc=$?
set -e
if [ $rc -ne 0 ] || [ ! -f "$dir/.built" ]; then
  echo "build-otp.sh: OTP $ver build failed, see $log" >&2; tail -20 "$log" >&2; exit 2
fi
echo "$dir"
