#!/usr/bin/env python3
"""`beamcore binaries --json` against process_info(P, binary) of every process,
written by the live VM just before the core was taken. For every idle process:
the count, the bytes (sum of orig_size, as recon's binary_memory) and the bytes
it alone references; for every binary those processes hold: size, refc and holders.
Usage: compare_binaries.py BEAMCORE FIXTURE CORE (FIXTURE under $BEAMCORE_FIXTURES)."""
import sys
from fixture import Fixture, idle_processes

def main():
    fx = Fixture(sys.argv)
    gt = fx.truth
    doc = fx.json("binaries")
    holders = {h["pid"]: h for h in doc["holders"]}
    bins = {b["address"]: b for b in doc["binaries"]}
    idle = idle_processes(gt)
    bad, nbins = [], 0
    for p in idle:
        want = p["binary"]
        h = holders.get(p["pid"])
        got = (h["count"], h["bytes"], h["exclusive_bytes"]) if h else (0, 0, 0)
        exp = (len(want), sum(b[1] for b in want), sum(b[1] for b in want if b[2] == 1))
        if got != exp:
            bad.append(f"{p['pid']} ({p['registered_name']}) count/bytes/exclusive: live {exp}, beamcore {got}")
        for addr, size, refc in want:
            nbins += 1
            b = bins.get(addr)
            if not b or (b["size"], b["refc"]) != (size, refc) or p["pid"] not in b["holders"]:
                bad.append(f"{p['pid']} binary {addr:#x} size {size} refc {refc}: beamcore {b}")
    held = sum(1 for p in idle if p["binary"])
    print(f"{fx.name}: {held} idle holders, {nbins} references compared; "
          f"{len(bad)} mismatches")
    for b in bad[:40]:
        print("  MISMATCH " + b)
    return 1 if bad or held == 0 else 0

if __name__ == "__main__":
    sys.exit(main())
