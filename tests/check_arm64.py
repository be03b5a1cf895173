#!/usr/bin/env python3
"""An aarch64 core from qemu-user (capture.sh 27 --arm64), read on x86_64: with
--sysroot alone beam.smp is found by the path the core recorded (AT_EXECFN) and
the run is complete; without it, one line naming that path (exit 64); an
x86_64 beam.smp given for it, one line naming both machines, and another
aarch64 build's, one line saying it is not the core's (exit 2).
Usage: check_arm64.py BEAMCORE FIXTURE   (FIXTURE under $BEAMCORE_FIXTURES: the stock one)"""
import filecmp, os, subprocess, sys

def main():
    bc, fx = sys.argv[1], sys.argv[2]
    d = os.path.join(os.environ.get("BEAMCORE_FIXTURES", "/nonexistent"), fx)
    core = os.path.join(d, "core.qemu")
    if not os.path.exists(core):
        print(f"SKIP: no fixture {core}")
        sys.exit(1 if os.environ.get("CI") == "true" else 77)
    root = open(os.path.join(d, "sysroot")).read().strip()
    failures = []
    cases = [("summary --sysroot, beam.smp not given", [bc, "summary", core, "--sysroot", root], 0, None),
             ("summary, beam.smp not given", [bc, "summary", core], 64,
              "/usr/lib/erlang/erts-15.2.7/bin/beam.smp")]
    x86 = "/usr/lib/erlang/erts-13.1.5/bin/beam.smp"  # Debian 12's (testdata/deps.sh)
    if os.path.exists(x86):
        cases.append(("an x86_64 beam.smp for it", [bc, "procs", core, x86], 2,
                      "is built for x86_64, but the core is of an aarch64 process"))
    # another aarch64 build of the same release (ours, when built): the core
    # holds no build-id, so beam.smp's dynamic section tells them apart
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    other = os.path.join(cache, "beamcore/otp-27.3.4.1-arm64/bin/aarch64-unknown-linux-gnu/beam.smp")
    if os.path.exists(other) and not filecmp.cmp(other, open(os.path.join(d, "beam.smp.path")).read().strip(),
                                                 shallow=False):
        cases.append(("another aarch64 build's beam.smp", [bc, "procs", core, other], 2,
                      "is not the beam.smp of this core (the core holds no build-id; its dynamic section differs"))
    for name, args, want_rc, want in cases:
        r = subprocess.run(args, capture_output=True, text=True, timeout=300)
        lines = [l for l in r.stderr.splitlines() if l.strip()]
        ok = r.returncode == want_rc and (want is None or (len(lines) == 1 and want in r.stderr))
        print(f"{'ok  ' if ok else 'FAIL'} {name}: exit {r.returncode}: {r.stderr.strip()[:200]}")
        if not ok:
            failures.append(name)
    print(f"{len(failures)} problems")
    sys.exit(1 if failures else 0)

main()
