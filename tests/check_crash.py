#!/usr/bin/env python3
"""Crash sites on real cores of nodes that died (testdata/capture-crash.sh): the
summary names the signal, the C function (the NIF, or abort), the process and
the Erlang function that called it; `threads` names the crashing scheduler and
the process it ran. What to name comes from crash.json, written by the dying node.
Usage: check_crash.py BEAMCORE FIXTURE (FIXTURE under $BEAMCORE_FIXTURES)."""
import json, os, subprocess, sys

def main():
    bc, fx = sys.argv[1], sys.argv[2]
    fx = os.path.join(os.environ.get("BEAMCORE_FIXTURES", "/nonexistent"), fx)
    core = os.path.join(fx, "core")
    if not os.path.exists(core) or not os.path.exists(os.path.join(fx, "crash.json")):
        print(f"SKIP: no crash fixture {fx}")
        return 1 if os.environ.get("CI") == "true" else 77  # CI: no skips
    beam = open(os.path.join(fx, "beam.smp.path")).read().strip()
    want = json.load(open(os.path.join(fx, "crash.json")))
    bad = []
    s = subprocess.run([bc, "summary", core, beam, "--json"], capture_output=True, text=True, timeout=300)
    doc = json.loads(s.stdout)
    site = doc["findings"][0]["text"] if doc["findings"] else ""
    signal = None if want["signal"] == "none" else want["signal"]
    head = f"died of {signal}" if signal else f"caught dying in {want['c_function']}"
    for part in (head, want["c_function"], want["pid"], want["registered_name"], want["caller"]) + \
            tuple(want.get("also", [])):
        if part not in site:
            bad.append(f"crash finding lacks {part!r}: {site!r}")
    if doc["target"]["signal"] != signal:
        bad.append(f"target signal {doc['target']['signal']} != {signal}")
    t = subprocess.run([bc, "threads", core, beam, "--json"], capture_output=True, text=True, timeout=300)
    threads = json.loads(t.stdout)["threads"]
    crashed = [x for x in threads if x["crash_site"]]
    if len(crashed) != 1 or (signal and crashed[0]["signal"] != signal):
        bad.append(f"{len(crashed)} threads marked as the crash site")
    else:
        c = crashed[0]
        if "scheduler" not in (c["role"] or "") or c["running"] != want["pid"]:
            bad.append(f"crashing thread {c['role']} running {c['running']}, want a scheduler running {want['pid']}")
        if not any(want["c_function"] in f for f in c["frames"][:4]):
            bad.append(f"{want['c_function']} not among the innermost frames {c['frames'][:4]}")
    print(f"{os.path.basename(fx)}: {site[:200]}; {len(bad)} problems")
    for b in bad:
        print("  " + b)
    return 1 if bad or s.returncode != 0 or t.returncode != 0 else 0

if __name__ == "__main__":
    sys.exit(main())
