#!/usr/bin/env bash
# A root directory holding Debian's own stripped OTP of another suite, to run
# under chroot (capture.sh 27 --stock): erlang-base and the libraries its
# beam.smp needs, from the suite's binary packages (apt-get download through a
# private apt configuration: the machine's sources are left alone), plus sh
# and cat for the scenario's ports. Cached under
# $XDG_CACHE_HOME/beamcore/stock-<release>[-<arch>] (under $BEAMCORE_OTP_CACHE
# when set, as build-otp.sh). Prints the root.
#   testdata/stock-root.sh 27         erlang-base 27.3.4.1 (trixie), amd64
#   testdata/stock-root.sh 27 arm64   the same for arm64, run under qemu-user
#                                     (binfmt_misc, qemu-user-static)
#   testdata/stock-root.sh 29         erlang-base 29.1.1 (forky: it exports no VM
#                                     global; src/dwarf/routes-*.def place them)
set -euo pipefail
rel=${1:?usage: stock-root.sh 27|29 [amd64|arm64]}
arch=${2:-amd64}
# erlang-base pinned where a pack holds routes for one build (its build-id)
case $rel in
  27) suite=trixie; pin= ;;
  29) suite=forky; pin='=1:29.1.1+dfsg-1' ;;
  *) echo "stock-root.sh: no stock root for $rel" >&2; exit 64 ;;
esac
base=${BEAMCORE_OTP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/beamcore}
case $arch in
  amd64) cache=$base/stock-$rel ;;
  arm64) cache=$base/stock-$rel-$arch ;;
  *) echo "stock-root.sh: no stock root for $arch" >&2; exit 64 ;;
esac
root=$cache/root
mkdir -p "$(dirname "$cache")"
exec 9>"$cache.lock"
flock 9
if [ -f "$cache/.made" ]; then echo "$root"; exit 0; fi
# never remove a tree with /dev or /proc still bound into it (capture.sh mounts them)
if grep -q " $cache/" /proc/mounts; then
  echo "stock-root.sh: something is still mounted under $cache: unmount it first" >&2; exit 1
fi
rm -rf "$cache"
mkdir -p "$cache/apt/lists/partial" "$cache/apt/cache" "$cache/debs" "$root"
echo "deb [arch=$arch] http://deb.debian.org/debian $suite main" >"$cache/apt/sources.list"
apt=(-o Dir::Etc::SourceList="$cache/apt/sources.list" -o Dir::Etc::SourceParts=/nonexistent
     -o Dir::State::Lists="$cache/apt/lists" -o Dir::Cache="$cache/apt/cache"
     -o APT::Architectures=$arch -o APT::Sandbox::User=root)
apt-get "${apt[@]}" -qq update >&2
# another arch's root has its own sh and cat (dash, coreutils) for the ports
tools=(); [ "$arch" = amd64 ] || tools=(dash coreutils)
pkgs=(libc6 libgcc-s1 libstdc++6 libtinfo6 zlib1g "${tools[@]}")
( cd "$cache/debs" && apt-get "${apt[@]}" -qq download "erlang-base:$arch$pin" "${pkgs[@]/%/:$arch}" >&2 )
for d in "$cache"/debs/*.deb; do dpkg-deb -x "$d" "$root"; done
# merged /usr; the scenario's ports spawn sh and cat (the host's run on the newer libc)
ln -sfn usr/lib "$root/lib"; ln -sfn usr/lib64 "$root/lib64"; ln -sfn usr/bin "$root/bin"
if [ "$arch" = amd64 ]; then cp /bin/dash "$root/usr/bin/sh"; cp /bin/cat "$root/usr/bin/cat"
else ln -sfn dash "$root/usr/bin/sh"; fi
mkdir -p "$root/dev" "$root/proc" "$root/out" "$root/tmp"
rm -rf "$cache/apt" "$cache/debs"
touch "$cache/.made"
echo "$root"
