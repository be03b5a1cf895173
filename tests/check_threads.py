#!/usr/bin/env python3
"""`beamcore threads` on the scenario's cores: every scheduler thread is named
(as many "scheduler N" as erlang:system_info(schedulers) said), the dirty
schedulers and the main thread are found, and each thread has a backtrace.
Usage: check_threads.py BEAMCORE FIXTURE CORE (FIXTURE under $BEAMCORE_FIXTURES)."""
import re, sys
from fixture import Fixture

def main():
    fx = Fixture(sys.argv)
    gt = fx.truth
    threads = fx.json("threads")["threads"]
    roles = [t["role"] or "" for t in threads]
    sched = sorted(int(m.group(1)) for r_ in roles if (m := re.fullmatch(r"scheduler (\d+)", r_)))
    bad = []
    if sched != list(range(1, gt["schedulers"] + 1)):
        bad.append(f"scheduler threads {sched}, want 1..{gt['schedulers']}")
    for role in ("main", "dirty cpu scheduler 1", "dirty io scheduler 1"):
        if role not in roles:
            bad.append(f"no {role!r} thread among {roles}")
    empty = [t["tid"] for t in threads if not t["frames"]]
    if empty:
        bad.append(f"threads without frames: {empty}")
    kinds = sorted(set(re.sub(r" [0-9]+$", "", x) for x in roles))
    print(f"{fx.name}: {len(threads)} threads, roles {kinds}; {len(bad)} problems")
    for b in bad:
        print("  " + b)
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main())
