#!/usr/bin/env bash
# Capture a test fixture: run beamcore_scenario on our DWARF build of OTP REL,
# then take a gdb core (gcore) and a kernel core of the same idle node.
#   testdata/capture.sh 25|27|29 OUTDIR [--no-gcore] [--no-kernel-core] [--dump] [--gcore-dump] [--emu] [--dist] [--strip]
# OUTDIR gets: ground_truth.json, core.gcore, core.kernel (both made sparse),
# beam.smp.path, pid, node.log, beamcore_scenario.beam.
# --dump: no cores; `kill -USR1` makes the idle node write erl_crash.dump (same
# state as the ground truth) and exit; then two small nodes die the other common
# ways (testdata/beamcore_deaths.erl): oom.dump (eheap_alloc fails under
# `ulimit -v`) and kernel_pid.dump ("Kernel pid terminated"); links.dump: a
# process linked to 120,000 others, its links in links.json.
# --gcore-dump: a gcore of the idle node, then the same node's erl_crash.dump
# (SIGUSR1, as --dump) and no other dumps: one state seen both ways (beamcore
# diff core.gcore erl_crash.dump: no changes).
# --emu: the emulator flavor (beam.emu, erl -emu_flavor emu). build-otp.sh
# builds it for 29 only; for 25 and 27 set BEAMCORE_OTP to a tree that has it
# (testdata/build-emu.sh).
# BEAMCORE_OTP=DIR: this built OTP tree instead of build-otp.sh's.
# --strip: the node runs a stripped copy (strip --strip-unneeded, as Debian's
# dh_strip) of our beam.smp or beam.emu, OUTDIR/bin/: no DWARF, read through
# the compiled-in layout pack of its release and flavor (docs/layout-packs.md).
# --stock: Debian's own erl and stripped beam.smp, read through a layout pack
# (docs/layout-packs.md) instead of our DWARF build: 25 as installed (erlang-base),
# 27 trixie's and 29 forky's under chroot (testdata/stock-root.sh; /dev, /proc and
# OUTDIR bind-mounted into the root while the node runs).
# --arm64: 27 --stock for arm64 (testdata/stock-root.sh 27 arm64) under
# qemu-user (binfmt_misc, +JMsingle true: qemu cannot run the JIT's dual-mapped
# code area); no gcore: `kill -ABRT` makes qemu write the guest's aarch64 core
# (no NT_FILE), kept as core.qemu; the kernel's x86-64 core of qemu is deleted.
# --arm64-dwarf: as --arm64, with our cross-compiled DWARF beam.smp
# (build-otp.sh 27 arm64) in the root's /opt/beamcore-dwarf/bin beside the
# stock erts' other programs.
# --dist: a distributed node (-sname, loopback only) and a peer node it is
# linked to and monitors, both ways (beamcore_scenario's build_dist); the peer
# is killed afterwards.
# --live: no cores and no dumps: the node is left running, idle after writing
# the ground truth (it rewrites OUTDIR/heartbeat every 100 ms, so a reader can
# tell it still runs); its OS pid is the last line printed and in OUTDIR/pid.
# The caller kills it (kill -KILL $(cat OUTDIR/pid)).
# Exit 0 ok, 77 not enough disk space, 64 usage, other non-zero on failure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
usage() { echo "usage: capture.sh 25|27|29 OUTDIR [--no-gcore] [--no-kernel-core] [--dump] [--gcore-dump] [--emu] [--dist] [--live] [--stock] [--arm64] [--strip] [--arm64-dwarf]" >&2; exit 64; }
[ $# -ge 2 ] || usage
rel=$1; out=$(realpath -m "$2"); shift 2
gcore=1; kcore=1; dump=0; emu=0; dist=0; deaths=1; live=0; stock=0; arm64=0; strip=0
for a in "$@"; do
  case $a in
    --no-gcore) gcore=0 ;; --no-kernel-core) kcore=0 ;; --dump) dump=1 ;;
    --gcore-dump) dump=2 ;;
    --emu) emu=1 ;; --dist) dist=1 ;; --stock) stock=1 ;; --strip) strip=1 ;; --arm64) arm64=1; stock=1; gcore=0 ;; --arm64-dwarf) arm64=1; gcore=0 ;; --live) live=1; gcore=0; kcore=0 ;; *) usage ;;
  esac
done
[ $dump != 1 ] || { gcore=0; kcore=0; }
[ $live = 0 ] || [ $dump = 0 ] || usage
[ $dump != 2 ] || { gcore=1; kcore=0; dump=1; deaths=0; }
case $rel in 25|27|29) ;; *) usage ;; esac
[ $emu = 0 ] || [ $stock = 0 ] || usage
[ $strip = 0 ] || [ $stock = 0 ] || usage
[ $arm64 = 0 ] || { [ "$rel" = 27 ] && [ $dump = 0 ] && [ $dist = 0 ]; } || usage
die() { echo "capture.sh: $*" >&2; exit 1; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.1fs", b-a}'; }

# Cores are big: never inside the repo, and only with room to spare.
if top=$(git -C "$here" rev-parse --show-toplevel 2>/dev/null); then
  case $out/ in "$top"/*) die "OUTDIR must be outside the repo ($top)" ;; esac
fi
mkdir -p "$out"
free_kb=$(df -Pk "$out" | awk 'NR==2{print $4}')
if [ "$free_kb" -lt $((4 * 1024 * 1024)) ]; then
  echo "capture.sh: need ~4 GB free in $out, have $((free_kb / 1024)) MB" >&2; exit 77
fi

root=
if { [ $stock = 1 ] && [ "$rel" != 25 ]; } || [ $arm64 = 1 ]; then
  if [ $arm64 = 1 ]; then
    [ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] ||
      die "no binfmt_misc entry qemu-aarch64 (apt-get install qemu-user-static binfmt-support;" \
          "mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc)"
    root=$("$here/stock-root.sh" 27 arm64)
    BEAMCORE_ERL_FLAGS="+JMsingle true ${BEAMCORE_ERL_FLAGS:-}"
  else
    root=$("$here/stock-root.sh" "$rel")
  fi
  otp=$root/usr/lib/erlang
  erts=$(cd "$otp" && echo erts-*/bin)
  # Debian's 25 erlc writes modules 27 loads; 29 takes its own release's
  if [ "$rel" = 29 ]; then erlc=$("$here/build-otp.sh" 29)/bin/erlc; else erlc=/usr/bin/erlc; fi
  # the node under chroot; OUTDIR at its own path inside, so every path holds
  bindir=/usr/lib/erlang/$erts
  if [ $stock = 0 ]; then  # --arm64-dwarf: our beam.smp, the stock erts' other programs
    xbeam=$("$here/build-otp.sh" 27 arm64)/bin/aarch64-unknown-linux-gnu/beam.smp
    mkdir -p "$root/opt/beamcore-dwarf/bin"
    for f in "$otp/$erts"/*; do ln -sfn "$bindir/$(basename "$f")" "$root/opt/beamcore-dwarf/bin/"; done
    bindir=/opt/beamcore-dwarf/bin
    otp=$root/opt/beamcore-dwarf
    erts=bin
    rm -f "$root$bindir/beam.smp"
    cp "$xbeam" "$root$bindir/beam.smp"
  fi
  run=(env BINDIR=$bindir ROOTDIR=/usr/lib/erlang EMU=beam PROGNAME=erl
       /usr/sbin/chroot "$root" /usr/bin/sh -c 'cd "$0" && exec "$@"' "$out" "$bindir/erlexec")
elif [ $stock = 1 ]; then otp=/usr/lib/erlang
elif [ -n "${BEAMCORE_OTP:-}" ]; then otp=$(realpath "$BEAMCORE_OTP")
else otp=$("$here/build-otp.sh" "$rel"); fi
if [ -n "$root" ]; then :
elif [ $stock = 1 ]; then
  [ -x /usr/bin/erl ] || die "Debian erlang-base not installed (run testdata/deps.sh)"
  erlc=/usr/bin/erlc
  run=(/usr/bin/erl)
elif [ "$rel" = 25 ]; then
  # Emulator-only build: our beam.smp + erl_child_setup, Debian's other erts
  # binaries and /usr/lib/erlang libraries (same 25.2.3 release).
  erts_bin=$(echo /usr/lib/erlang/erts-*/bin)
  [ -x "$erts_bin/erlexec" ] || die "Debian erlang-base not installed (run testdata/deps.sh)"
  bindir=$otp/bindir
  mkdir -p "$bindir"
  for f in "$erts_bin"/*; do ln -sfn "$f" "$bindir/$(basename "$f")"; done
  for f in beam.smp beam.emu erl_child_setup; do
    [ -e "$otp/bin/x86_64-pc-linux-gnu/$f" ] && ln -sfn "$otp/bin/x86_64-pc-linux-gnu/$f" "$bindir/$f"
  done
  erlc=/usr/bin/erlc
  run=(env BINDIR="$bindir" ROOTDIR=/usr/lib/erlang EMU=beam PROGNAME=erl "$bindir/erlexec")
else
  erlc=$otp/bin/erlc
  run=("$otp/bin/erl")
fi
flavor=beam.smp
[ $emu = 0 ] || flavor=beam.emu
[ $stock = 1 ] || [ $arm64 = 1 ] || [ -x "$otp/bin/x86_64-pc-linux-gnu/$flavor" ] ||
  die "no $flavor in $otp (the emu flavor of 25 and 27: testdata/build-emu.sh, then BEAMCORE_OTP)"
exedir=$otp
if [ $strip = 1 ]; then
  # The tree's erts binaries beside a stripped copy of the emulator; erlexec
  # runs the emulator from BINDIR.
  exedir=$out
  rm -rf "$out/bin"; mkdir -p "$out/bin"
  src=$otp/bin/x86_64-pc-linux-gnu
  [ "$rel" != 25 ] || src=$bindir
  for f in "$src"/*; do ln -sfn "$(realpath "$f")" "$out/bin/$(basename "$f")"; done
  rm -f "$out/bin/$flavor"
  strip --strip-unneeded -o "$out/bin/$flavor" "$otp/bin/x86_64-pc-linux-gnu/$flavor"
  [ "$rel" = 25 ] || run=(env BINDIR="$out/bin" ROOTDIR="$otp" EMU=beam PROGNAME=erl "$out/bin/erlexec")
  [ "$rel" != 25 ] || run=(env BINDIR="$out/bin" ROOTDIR=/usr/lib/erlang EMU=beam PROGNAME=erl "$out/bin/erlexec")
fi
[ $emu = 0 ] || run+=(-emu_flavor emu)
# Distribution on loopback only; no ticks while the fixture is taken (a tick
# would wake net_kernel's ticker between the ground truth and the core).
distargs=()
peer=
if [ $dist = 1 ]; then
  export ERL_EPMD_ADDRESS=127.0.0.1
  distargs=(-kernel inet_dist_use_interface "{127,0,0,1}" -kernel net_ticktime 3600)
  peer=bcpeer$$@localhost
fi

rm -f "$out"/{ground_truth.json,memory.json,ready,heartbeat,core,core.[0-9]*,core.gcore,core.kernel,core.qemu,beam.smp.path,sysroot,pid,node.log}
rm -f "$out"/qemu_*.core "$out/tasks"
rm -f "$out"/{erl_crash,oom,kernel_pid,kernel_pid_cut,links}.{dump,log} "$out/links.json"
"$erlc" -o "$out" "$here/beamcore_scenario.erl"
[ $deaths = 0 ] || [ $dump = 0 ] || "$erlc" -o "$out" "$here/beamcore_deaths.erl"

pid=
peerpid=
cleanup() {
  for p in $pid $peerpid; do
    if kill -0 "$p" 2>/dev/null; then kill -KILL "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; fi
  done
  if [ -n "$root" ]; then for m in "$root$out" "$root/proc" "$root/dev"; do umount "$m" 2>/dev/null || true; done; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
if [ -n "$root" ]; then
  mkdir -p "$root$out"
  mount --bind /dev "$root/dev" && mount -t proc proc "$root/proc" && mount --bind "$out" "$root$out" ||
    die "cannot mount /dev, /proc and $out into $root"
fi

if [ $dist = 1 ]; then
  mkdir -p "$out/peer"; rm -f "$out/peer/peer_ready"
  ( cd "$out/peer" && exec "${run[@]}" -noshell -sname "$peer" +MIscs 64 "${distargs[@]}" -pa "$out" \
      -run beamcore_scenario peer ) >"$out/peer/node.log" 2>&1 &
  peerpid=$!
  for _ in $(seq 60); do [ -f "$out/peer/peer_ready" ] && break; sleep 1; done
  [ -f "$out/peer/peer_ready" ] || { cat "$out/peer/node.log" >&2; die "peer node $peer not ready"; }
  distargs+=(-sname "beamcore$$@localhost")
fi

# +MIscs 64: 64 MB literal super carrier instead of 1 GB (mostly untouched
# address space that gcore would write out as zeros).
t0=$(now)
( cd "$out" && ulimit -c unlimited &&
  # shellcheck disable=SC2086  # BEAMCORE_ERL_FLAGS: extra emulator flags, e.g. "+JPperf true"
  BEAMCORE_PEER=${peer:-} BEAMCORE_HEARTBEAT=$live ERL_CRASH_DUMP="$out/erl_crash.dump" exec "${run[@]}" -noshell +MIscs 64 ${BEAMCORE_ERL_FLAGS:-} \
    "${distargs[@]}" -pa "$out" -run beamcore_scenario start ) \
  >"$out/node.log" 2>&1 &
pid=$!   # erl/erlexec exec into beam.smp: same pid
wait_s=300; [ $arm64 = 0 ] || wait_s=1800   # emulated: ~10x slower
for _ in $(seq $wait_s); do
  [ -f "$out/ready" ] && break
  kill -0 "$pid" 2>/dev/null || { cat "$out/node.log" >&2; die "node died before ready"; }
  sleep 1
done
[ -f "$out/ready" ] || { cat "$out/node.log" >&2; die "no $out/ready after $wait_s s"; }
echo "scenario ready in $(since "$t0") (pid $pid)"

if [ $arm64 = 1 ]; then
  # the process is qemu; the guest's beam.smp is the root's
  exe=$otp/$erts/$flavor
  [ "$(readelf -h "$exe" | sed -n 's/^ *Machine: *//p')" = AArch64 ] || die "$exe is not an AArch64 ELF"
else exe=$(readlink "/proc/$pid/exe"); fi
case $exe in "$exedir"/*/"$flavor") ;; *) die "running $exe, not our $flavor under $exedir" ;; esac
if [ $stock = 1 ] || [ $strip = 1 ]; then
  readelf -S "$exe" | grep -q '\.debug_info' && die "$exe has DWARF: not a stripped build"
else
  readelf -S "$exe" | grep -q '\.debug_info' || die "$exe has no DWARF"
fi
echo "$exe" >"$out/beam.smp.path"
[ $arm64 = 0 ] || echo "$root" >"$out/sysroot"   # its libraries (--sysroot)
echo "$pid" >"$out/pid"
grep -q "\"os_pid\":\"$pid\"" "$out/ground_truth.json" || die "ground_truth.json is not from pid $pid"

sizes() {
  fallocate --dig-holes "$1"
  echo "$(basename "$1"): $(du -h --apparent-size "$1" | cut -f1) apparent, $(du -h "$1" | cut -f1) on disk"
}

if [ $gcore = 1 ]; then
  t=$(now)
  timeout 900 gcore -o "$out/core.gcore" "$pid" >"$out/gcore.log" 2>&1 ||
    { cat "$out/gcore.log" >&2; die "gcore failed"; }
  mv "$out/core.gcore.$pid" "$out/core.gcore"
  rm -f "$out/gcore.log"
  echo "gcore took $(since "$t")"
  sizes "$out/core.gcore"
fi

pattern=$(cat /proc/sys/kernel/core_pattern)
if [ $kcore = 1 ] && [ $arm64 = 0 ] && { [[ $pattern == \|* ]] || [[ $pattern == */* ]]; }; then
  echo "capture.sh: core_pattern is '$pattern' (pipe or other dir): skipping the kernel core"
  kcore=0
fi
# A crash dump of a node that died the named way (a separate small node), into
# OUTDIR/FILE.dump (FILE defaults to NAME); waits for the node to exit.
# LIMIT: ulimit -v; BYTES: ERL_CRASH_DUMP_BYTES (the dump then ends in =abort:).
death() {
  local name=$1 vlimit=$2 file=${3:-$1} bytes=${4:-} rc=0 end=
  ( cd "$out" && { [ -z "$vlimit" ] || ulimit -v "$vlimit"; } &&
    exec env ERL_CRASH_DUMP="$out/$file.dump" ${bytes:+ERL_CRASH_DUMP_BYTES=$bytes} \
      timeout 300 "${run[@]}" -noshell +MIscs 64 -pa "$out" -run beamcore_deaths "$name" \
  ) >"$out/$file.log" 2>&1 || rc=$?
  end=$(tail -n 1 "$out/$file.dump" 2>/dev/null || true)
  case $end in =end) [ -z "$bytes" ] ;; =abort:*) [ -n "$bytes" ] ;; *) false ;; esac ||
    { cat "$out/$file.log" >&2; die "$file: no complete $file.dump (node exit $rc, ends '$end')"; }
  echo "$file.dump: $(sed -n 's/^Slogan: //p' "$out/$file.dump" | head -1) ($end)"
}

if [ $dump = 1 ]; then
  # The signal handler process halts the node with a crash dump (slogan
  # "Received SIGUSR1"); nothing else runs in between.
  t=$(now)
  kill -USR1 "$pid"
  rc=0; wait "$pid" 2>/dev/null || rc=$?
  pid=
  [ "$(tail -c 5 "$out/erl_crash.dump" 2>/dev/null)" = "=end" ] ||
    { cat "$out/node.log" >&2; die "no complete erl_crash.dump after SIGUSR1 (node exit $rc)"; }
  echo "erl_crash.dump took $(since "$t"): $(du -h "$out/erl_crash.dump" | cut -f1)"
fi
if [ $dump = 1 ] && [ $deaths = 1 ]; then
  # 2 GB of address space: beam.smp starts in far less; the growing heap hits it.
  death oom 2000000
  death kernel_pid ""
  # cut by ERL_CRASH_DUMP_BYTES in the middle of the process list
  death kernel_pid "" kernel_pid_cut 105000
  # a process linked to 120,000 others (links.json: its links as the VM listed them)
  death links ""
fi

if [ $live = 1 ]; then
  # left running for the caller, who kills it (and the peer: OUTDIR/peer.pid)
  [ -z "$peerpid" ] || echo "$peerpid" >"$out/peer.pid"
  pid=; peerpid=
  echo "live node in $out ($(cat "$out/beam.smp.path")), pid:"
  cat "$out/pid"
  exit 0
fi
if [ $kcore = 1 ]; then
  # qemu's threads: the guest's (each its own host thread, its tid in the
  # core's NT_PRSTATUS) and qemu's own RCU thread
  [ $arm64 = 0 ] || ls "/proc/$pid/task" >"$out/tasks"
  # beam.smp installs no SIGABRT handler: the default action dumps core.
  t=$(now)
  kill -ABRT "$pid"
  rc=0; wait "$pid" 2>/dev/null || rc=$?   # (quiet: no "Aborted (core dumped)")
  pid=
  [ $rc = 134 ] || die "node exited with status $rc, expected 134 (SIGABRT + core)"
  if [ $arm64 = 1 ]; then
    # qemu wrote the guest's core; the kernel's core of qemu itself is of no use
    find "$out" -maxdepth 1 -type f -name 'core*' ! -name core.gcore -newer "$out/ready" -delete
    q=$(find "$out" -maxdepth 1 -type f -name 'qemu_*.core' -newer "$out/ready" | head -1)
    [ -n "$q" ] || die "no qemu_*.core in $out"
    mv "$q" "$out/core.qemu"
    echo "qemu core took $(since "$t")"
    sizes "$out/core.qemu"
  else
    # core_pattern "core" (or "core.PID" with core_uses_pid) in the node's cwd
    k=$(find "$out" -maxdepth 1 -type f -name 'core*' ! -name core.gcore -newer "$out/ready" | head -1)
    [ -n "$k" ] || die "no kernel core in $out (core_pattern '$pattern')"
    mv "$k" "$out/core.kernel"
    echo "kernel core took $(since "$t")"
    sizes "$out/core.kernel"
  fi
elif [ -n "$pid" ]; then
  kill -KILL "$pid"; wait "$pid" 2>/dev/null || true; pid=
fi
if [ -n "$peerpid" ]; then kill -KILL "$peerpid"; wait "$peerpid" 2>/dev/null || true; peerpid=; fi
echo "fixture in $out ($(cat "$out/beam.smp.path"))"
