#!/usr/bin/env bash
# Install everything beamcore needs to build and test on Debian 12.
# Idempotent; safe to run on every CI run.
set -euo pipefail
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
pkgs=(meson ninja-build pkg-config gcc g++ make perl python3
      libdw-dev libelf-dev libncurses-dev libzstd-dev liblzma-dev liblz4-dev zlib1g-dev
      erlang-base gdb tmux xz-utils zstd lz4 dpkg-dev
      qemu-user-static binfmt-support  # capture.sh --arm64: arm64 OTP under qemu-user
      gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross  # build-otp.sh 27 arm64
      python3-jsonschema  # tests/check_schema.py: --json against docs/schema/
      graphviz  # tests/check_export.py: export --format dot read by nop and dot -Tsvg
      erlang-observer  # tests/check_crashdump.py: OTP's crashdump_viewer reads the exported dump
      clang libclang-rt-14-dev  # clang: the libFuzzer targets (tests/fuzz.sh)
      chromium  # tests/report_browser.py: beamcore report in a real browser, headless
      firefox-esr  # the same in Firefox, over Marionette (tests/marionette.py)
      # real applications on our OTP 25 (testdata/capture-rabbitmq.sh, capture-elixir.sh)
      rabbitmq-server python3-pika elixir)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
# deb-src lines for the suites whose erlang sources the fixtures build from
src=/etc/apt/sources.list.d/beamcore-src.sources
need_update=0
if [ ! -f "$src" ]; then
  $SUDO tee "$src" >/dev/null <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm trixie forky
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  need_update=1
fi
if [ ${#missing[@]} -gt 0 ] || [ $need_update -eq 1 ]; then
  $SUDO apt-get update -qq
fi
if [ ${#missing[@]} -gt 0 ]; then
  # No service may start (rabbitmq-server's would on Debian's beam, port 5672):
  # a policy-rc.d that denies it, for the install only, where none is set.
  policy=/usr/sbin/policy-rc.d
  if [ ! -e $policy ]; then
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee $policy >/dev/null
    $SUDO chmod +x $policy
    trap '$SUDO rm -f $policy' EXIT
  fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# qemu-user-static's binfmt entry (capture.sh --arm64 runs arm64 binaries in a chroot)
if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
  mountpoint -q /proc/sys/fs/binfmt_misc ||
    $SUDO mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc || true
  $SUDO update-binfmts --enable qemu-aarch64 || true
fi
