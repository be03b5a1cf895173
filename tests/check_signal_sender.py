#!/usr/bin/env python3
"""Who sent the fatal signal: the scenario's kernel core was made by
`kill -ABRT PID` from capture.sh, so the signal came from another process and
the summary says so (signal_sender: a pid, not the node's own; "killed by
SIGABRT sent by pid N"); a VM that called abort() itself (crash fixture
`abort`) and a NIF fault (`nif`) have no sender and say "died of".
Usage: check_signal_sender.py BEAMCORE REL (fixtures otpREL, crashREL-abort, crashREL-nif
under $BEAMCORE_FIXTURES)."""
import json, os, subprocess, sys

def summary(bc, core):
    r = subprocess.run([bc, "summary", core, "--json"], capture_output=True, text=True, timeout=300)
    doc = json.loads(r.stdout)
    return doc["target"], (doc["findings"] or [""])[0]

def main():
    bc, rel = sys.argv[1], sys.argv[2]
    root = os.environ.get("BEAMCORE_FIXTURES", "/nonexistent")
    kill = os.path.join(root, f"otp{rel}", "core.kernel")
    if not os.path.exists(kill):
        print(f"SKIP: no fixture {kill}")
        return 77
    bad, seen = [], []
    node = int(open(os.path.join(root, f"otp{rel}", "pid")).read())
    t, f = summary(bc, kill)
    s = t.get("signal_sender")
    if t["signal"] != "SIGABRT" or not isinstance(s, int) or s <= 0 or s == node or \
            f"killed by SIGABRT sent by pid {s}" not in f:
        bad.append(f"kill -ABRT core: signal {t['signal']}, sender {s} (node {node}), finding {f[:120]!r}")
    seen.append(f"kill -ABRT: sender {s}")
    for kind, sig in (("abort", "SIGABRT"), ("nif", "SIGSEGV")):
        core = os.path.join(root, f"crash{rel}-{kind}", "core")
        if not os.path.exists(core):
            continue
        t, f = summary(bc, core)
        if t["signal"] != sig or t["signal_sender"] is not None or not f.startswith(f"died of {sig}"):
            bad.append(f"{kind}: signal {t['signal']}, sender {t['signal_sender']}, finding {f[:80]!r}")
        seen.append(f"{kind}: no sender")
    print(f"otp{rel}: {'; '.join(seen)}; {len(bad)} problems")
    for b in bad:
        print("  " + b)
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main())
