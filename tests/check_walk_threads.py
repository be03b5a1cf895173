#!/usr/bin/env python3
"""The process walk on several threads (issue 23; a dump: its =proc sections
parsed on several threads) says exactly what one thread says: every command that reads processes, run with BEAMCORE_THREADS=1 and with
BEAMCORE_THREADS=3 (threads forced even on a small core), must print the same
bytes and exit the same way, text and --json. Also a row count check: the
threaded procs lists every process the ground truth lists.
Usage: check_walk_threads.py BEAMCORE FIXTURE CORE (FIXTURE under $BEAMCORE_FIXTURES)."""
import json, os, subprocess, sys
from fixture import Fixture

CASES = [["procs"], ["procs", "--json"], ["procs", "--sort", "memory", "--json"],
         ["summary"], ["summary", "--json"], ["tree", "--json"], ["waits", "--json"],
         ["binaries", "--json"], ["stacks", "--json"], ["memory", "--json"]]

def run(fx, threads, case):
    target = fx.target + ([fx.beam] if fx.target[0] != "--pid" else [])
    env = dict(os.environ, BEAMCORE_THREADS=str(threads))
    r = subprocess.run([fx.beamcore, case[0], *target, *case[1:]], capture_output=True,
                       text=True, timeout=300, env=env)
    return r.returncode, r.stdout, r.stderr

def main():
    fx = Fixture(sys.argv)
    bad = 0
    for case in CASES:
        one, three = run(fx, 1, case), run(fx, 3, case)
        same = one == three
        print(f"{'ok  ' if same else 'DIFF'} {' '.join(case)}: exit {one[0]}/{three[0]}, "
              f"{len(one[1])} bytes")
        if not same:
            bad += 1
            for k, name in ((0, "exit"), (1, "stdout"), (2, "stderr")):
                if one[k] != three[k]:
                    a, b = str(one[k]).splitlines(), str(three[k]).splitlines()
                    first = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]),
                                 min(len(a), len(b)))
                    print(f"  {name} differs at line {first + 1}:")
                    print(f"    1 thread:  {a[first][:200] if first < len(a) else '(end)'}")
                    print(f"    3 threads: {b[first][:200] if first < len(b) else '(end)'}")
    rc, out, _ = run(fx, 3, ["procs", "--json"])
    doc = json.loads(out)
    want = {p["pid"] for p in fx.truth["processes"]}
    got = {p["pid"] for p in doc["processes"]}
    if not want <= got:
        bad += 1
        print(f"MISSING with 3 threads: {sorted(want - got)[:5]}")
    print(f"{fx.name}: {len(CASES)} commands, {len(got)} processes, {bad} differences")
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main())
