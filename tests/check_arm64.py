#!/usr/bin/env python3
"""An aarch64 core (capture.sh 27 --arm64) until its VM is read: every command
says why in one line and exits 2 (64 when the beam.smp cannot be found), and
never prints an x86_64 reading of it.
Usage: check_arm64.py BEAMCORE FIXTURE   (FIXTURE under $BEAMCORE_FIXTURES)"""
import os, subprocess, sys

def main():
    bc, fx = sys.argv[1], sys.argv[2]
    d = os.path.join(os.environ.get("BEAMCORE_FIXTURES", "/nonexistent"), fx)
    core = os.path.join(d, "core.qemu")
    if not os.path.exists(core):
        print(f"SKIP: no fixture {core}")
        sys.exit(1 if os.environ.get("CI") == "true" else 77)
    beam = open(os.path.join(d, "beam.smp.path")).read().strip()
    root = beam[:beam.index("/usr/lib/erlang/")]
    failures = []
    cases = []
    for cmd in ("summary", "procs", "ets", "memory", "stacks", "threads", "binaries"):
        cases.append((f"{cmd} --sysroot", [bc, cmd, core, "--sysroot", root], 2, "aarch64"))
        cases.append((f"{cmd} CORE BEAM", [bc, cmd, core, beam], 2, "aarch64"))
        cases.append((f"{cmd} --json", [bc, cmd, core, beam, "--json"], 2, "aarch64"))
    # the path AT_EXECFN recorded is the chroot's: not on this machine
    cases.append(("summary, beam.smp not given", [bc, "summary", core], 64,
                  "/usr/lib/erlang/erts-15.2.7/bin/beam.smp"))
    for name, args, want_rc, want in cases:
        r = subprocess.run(args, capture_output=True, text=True, timeout=300)
        lines = [l for l in r.stderr.splitlines() if l.strip()]
        ok = r.returncode == want_rc and len(lines) == 1 and want in r.stderr and \
            (r.stdout.strip() == "" or "--json" in args)
        print(f"{'ok  ' if ok else 'FAIL'} {name}: exit {r.returncode}: {r.stderr.strip()[:160]}")
        if not ok:
            failures.append(name)
    print(f"{len(failures)} problems")
    sys.exit(1 if failures else 0)

main()
