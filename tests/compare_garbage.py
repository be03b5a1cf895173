#!/usr/bin/env python3
"""procs --garbage on a crash dump against the gcore of the same node
(capture.sh --gcore-dump: the dump written right after the gcore). The core's
estimate is the one checked against erlang:garbage_collect/1 on a live node
(check_real.py on real-elixir-gc: exact); the dump's is made from its heap
sections (the terms the dump wrote) and its =proc lines. For the idle
processes (waiting, not the writer of the ground truth): live_words and
garbage_bytes equal in at least 99% of those the dump can tell, the sums
within 1%; the dump tells all but those whose x registers hold terms (arity
> 0: hibernating processes), which it does not write.
Usage: compare_garbage.py BEAMCORE FIXTURE. Exit 0 pass, 1 fail, 77 skip."""
import json, sys
from fixture import Fixture, idle_processes, report

core = Fixture(sys.argv[:3] + ["core.gcore"])
dump = Fixture(sys.argv[:3] + ["erl_crash.dump"])
idle = {p["pid"] for p in idle_processes(core.truth)}
c = {p["pid"]: p for p in core.json("procs", "--garbage", ok=(0, 1))["processes"]}
d = {p["pid"]: p for p in dump.json("procs", "--garbage", ok=(0, 1))["processes"]}
bad = []
told = [p for p in idle if p in c and p in d and c[p]["garbage_bytes"] is not None
        and d[p]["garbage_bytes"] is not None]
untold = [p for p in idle if p in d and d[p]["garbage_bytes"] is None]
hib = [p for p in untold if d[p]["current_function"] == "erlang:hibernate/3"]
for field in ("live_words", "garbage_bytes"):
    same = sum(1 for p in told if c[p][field] == d[p][field])
    sc, sd = sum(c[p][field] for p in told), sum(d[p][field] for p in told)
    print(f"{field}: {same} of {len(told)} idle processes equal on the core and the dump; "
          f"sums {sc:,} and {sd:,}")
    if same < 0.99 * len(told) or abs(sc - sd) > 0.01 * max(sc, 1):
        bad.append(f"{field}: {same} of {len(told)} equal, sums {sc:,} (core) and {sd:,} (dump); "
                   f"e.g. {[(p, c[p][field], d[p][field]) for p in told if c[p][field] != d[p][field]][:5]}")
print(f"the dump cannot tell {len(untold)} idle processes ({len(hib)} hibernating)")
if len(told) < 0.9 * len(idle):
    bad.append(f"the dump tells only {len(told)} of {len(idle)} idle processes")
sys.exit(report(bad))
