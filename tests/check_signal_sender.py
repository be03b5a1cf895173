#!/usr/bin/env python3
"""Who sent the fatal signal: the scenario's kernel core was made by
`kill -ABRT PID` from capture.sh, so the signal came from another process and
the summary says so (signal_sender: a pid, not the node's own; "killed by
SIGABRT sent by pid N"); the crash fixture `kill` (capture-crash.sh sends
SIGABRT itself and writes its pid to `sender`) names exactly that pid; a VM that called abort() itself (crash fixture
`abort`) and a NIF fault (`nif`) have no sender and say "died of".
Usage: check_signal_sender.py BEAMCORE REL (fixtures otpREL, crashREL-abort, crashREL-nif
under $BEAMCORE_FIXTURES)."""
import json, os, subprocess, sys

def summary(bc, core):
    r = subprocess.run([bc, "summary", core, "--json"], capture_output=True, text=True, timeout=300)
    doc = json.loads(r.stdout)
    return doc["target"], (doc["findings"] or [{"text": ""}])[0]["text"]

def main():
    bc, rel = sys.argv[1], sys.argv[2]
    root = os.environ.get("BEAMCORE_FIXTURES", "/nonexistent")
    kill = os.path.join(root, f"otp{rel}", "core.kernel")
    if not os.path.exists(kill):
        print(f"SKIP: no fixture {kill}")
        return 1 if os.environ.get("CI") == "true" else 77  # CI: no skips
    bad, seen = [], []
    node = int(open(os.path.join(root, f"otp{rel}", "pid")).read())
    t, f = summary(bc, kill)
    s = t.get("signal_sender")
    if t["signal"] != "SIGABRT" or not isinstance(s, int) or s <= 0 or s == node or \
            f"killed by SIGABRT sent by pid {s}" not in f:
        bad.append(f"kill -ABRT core: signal {t['signal']}, sender {s} (node {node}), finding {f[:120]!r}")
    seen.append(f"kill -ABRT: sender {s}")
    # crash fixture kind kill: capture-crash.sh itself sent SIGABRT and wrote its pid
    kcore = os.path.join(root, f"crash{rel}-kill", "core")
    if os.path.exists(kcore):
        sender = int(open(os.path.join(root, f"crash{rel}-kill", "sender")).read())
        t, f = summary(bc, kcore)
        text = subprocess.run([bc, "summary", kcore], capture_output=True, text=True, timeout=300).stdout
        if t["signal"] != "SIGABRT" or t.get("signal_sender") != sender or \
                not f.startswith(f"killed by SIGABRT sent by pid {sender} ") or \
                f"SIGABRT sent by pid {sender}\n" not in text or "died of" in text:
            bad.append(f"crash kill: signal {t['signal']}, sender {t.get('signal_sender')} (sent by "
                       f"{sender}), finding {f[:120]!r}")
        seen.append(f"crash kill: sender {t.get('signal_sender')} (the script's pid {sender})")
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
