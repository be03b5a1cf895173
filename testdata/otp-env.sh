# Sourced: how to run our DWARF build of OTP REL (build-otp.sh, built on first
# use): otp_env REL sets otp (the build), beam (its beam.smp), erlc and run (the
# erl command line as an array). 25 is the emulator only: our beam.smp with
# Debian's erlang-base libraries (a bindir of links, capture.sh's way).
otp_env() {
  local here f erts_bin
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  otp=$("$here/build-otp.sh" "$1")
  beam=$(readlink -f "$otp/bin/x86_64-pc-linux-gnu/beam.smp")
  if [ "$1" = 25 ]; then
    local bindir=$otp/bindir
    erts_bin=$(echo /usr/lib/erlang/erts-*/bin)
    mkdir -p "$bindir"
    for f in "$erts_bin"/*; do ln -sfn "$f" "$bindir/$(basename "$f")"; done
    for f in beam.smp erl_child_setup; do ln -sfn "$otp/bin/x86_64-pc-linux-gnu/$f" "$bindir/$f"; done
    erlc=/usr/bin/erlc
    run=(env BINDIR="$bindir" ROOTDIR=/usr/lib/erlang EMU=beam PROGNAME=erl "$bindir/erlexec")
  else
    erlc=$otp/bin/erlc
    run=("$otp/bin/erl")
  fi
}
