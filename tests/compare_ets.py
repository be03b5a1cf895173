#!/usr/bin/env python3
"""`beamcore ets --json` against ets:info/1 of every table, written by the live VM
just before the core was taken. Every field must match exactly: the tables are
idle (the scenario is quiet while the ground truth is written).
Usage: compare_ets.py BEAMCORE FIXTURE CORE (FIXTURE under $BEAMCORE_FIXTURES)."""
import sys
from fixture import Fixture

FIELDS = ["name", "named_table", "owner", "type", "protection", "size", "memory"]

def main():
    fx = Fixture(sys.argv)
    gt = fx.truth
    got = {t["id"]: t for t in fx.json("ets")["ets"]}
    owners = {p["pid"]: p["registered_name"] for p in gt["processes"]}
    bad = []
    for t in gt["ets"]:
        q = got.pop(t["id"], None)
        if q is None:
            bad.append(f"{t['id']} ({t['name']}): missing")
            continue
        for f in FIELDS:
            if t[f] != q[f]:
                bad.append(f"{t['id']} ({t['name']}) {f}: live {t[f]!r}, beamcore {q[f]!r}")
        if q["owner_name"] != owners.get(t["owner"]):
            bad.append(f"{t['id']} owner_name {q['owner_name']!r} != {owners.get(t['owner'])!r}")
    bad += [f"{i}: in the core only" for i in got]
    print(f"{fx.name}: {len(gt['ets'])} live tables compared on "
          f"{len(FIELDS) + 2} fields; {len(bad)} mismatches")
    for b in bad[:40]:
        print("  MISMATCH " + b)
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main())
