#!/usr/bin/env python3
"""`beamcore memory --json` against erlang:memory() and
erlang:system_info({allocator, A}) written by the live VM (memory.json) after the
node settled, just before the core was taken.

atom, atom_used, code and ets must match exactly. total, processes,
processes_used, system and binary may differ by up to 1%: the process writing
memory.json allocates its result and file buffers after taking the figures.
Allocator instances: blocks and carriers sizes within 1% or 256 KiB (the writer's own heap).
Usage: compare_memory.py BEAMCORE FIXTURE CORE (FIXTURE under $BEAMCORE_FIXTURES)."""
import os, sys
from fixture import Fixture

EXACT = ["atom", "atom_used", "code", "ets"]
CLOSE = ["total", "processes", "processes_used", "system", "binary"]

def close(a, b, rel=0.01, absolute=262144):
    return abs(a - b) <= max(rel * max(a, b), absolute if absolute else 0)

def main():
    fx = Fixture(sys.argv)
    if not os.path.exists(os.path.join(fx.dir, "memory.json")):
        print(f"SKIP: {fx.dir} has no memory.json (regenerate the fixture)")
        return 77
    live = fx.json_file("memory.json")
    doc = fx.json("memory")
    bad, report = [], []
    for k in EXACT + CLOSE:
        got, want = doc["memory"][k], live["memory"][k]
        ok = got == want if k in EXACT else (got is not None and close(got, want, absolute=0))
        report.append(f"{k} {100 * (got - want) / want:+.3f}%" if got is not None else f"{k} null")
        if not ok:
            bad.append(f"memory {k}: live {want}, beamcore {got}")
    want_allocs = {(a["allocator"], a["instance"]): a for a in live["allocators"]}
    got_allocs = {(a["allocator"], a["instance"]): a for a in doc["allocators"]}
    if set(want_allocs) != set(got_allocs):
        bad.append(f"allocator instances: live {sorted(set(want_allocs) - set(got_allocs))} "
                   f"missing, {sorted(set(got_allocs) - set(want_allocs))} extra")
    for key, w in want_allocs.items():
        g = got_allocs.get(key)
        if not g:
            continue
        pairs = [("mbcs_blocks_size", w["mbcs_blocks_size"] + w["pool_blocks_size"]),
                 ("mbcs_carriers_size", w["mbcs_carriers_size"] + w["pool_carriers_size"]),
                 ("sbcs_blocks_size", w["sbcs_blocks_size"]),
                 ("sbcs_carriers_size", w["sbcs_carriers_size"])]
        for f, want in pairs:
            if not close(g[f], want):
                bad.append(f"{key[0]}[{key[1]}] {f}: live {want}, beamcore {g[f]}")
    print(f"{fx.name}: erlang:memory() {', '.join(report)}; "
          f"{len(want_allocs)} allocator instances; {len(bad)} mismatches")
    for b in bad[:40]:
        print("  MISMATCH " + b)
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main())
