#!/usr/bin/env python3
"""`beamcore stacks --json` against process_info(P, current_stacktrace) of every
process, written by the live VM just before the core was taken: for every idle
process the frames (module:function/arity, in order) must be equal; and on the
scenario's node the 10,000 processes blocked in gen_server:call to stuck_server
form one group.
Usage: compare_stacks.py BEAMCORE FIXTURE CORE (FIXTURE under $BEAMCORE_FIXTURES)."""
import sys
from fixture import Fixture, idle_processes

def main():
    fx = Fixture(sys.argv)
    gt = fx.truth
    doc = fx.json("stacks")
    got = {p["pid"]: p["current_stacktrace"] for p in doc["processes"]}
    # hibernated in the core, not in the ground truth: it ran in between (a
    # system process's hibernation timer, on a slow node); as compare_procs,
    # a few may
    woke = {p["pid"] for p in doc["processes"] if p.get("hibernating")} - \
        {p["pid"] for p in gt["processes"] if p.get("current_function") == "erlang:hibernate/3"}
    idle = [p for p in idle_processes(gt) if p["pid"] not in woke or len(woke) > 3]
    bad = [f"{p['pid']} ({p['registered_name'] or p['initial_call']}): live {p['current_stacktrace']}, "
           f"beamcore {got.get(p['pid'])}" for p in idle if got.get(p["pid"]) != p["current_stacktrace"]]
    callers = [p for p in gt["processes"] if p["initial_call"] == "beamcore_scenario:caller/0"]
    want = callers[0]["current_stacktrace"] if callers else None
    group = next((g for g in doc["groups"] if g["current_stacktrace"] == want), None)
    # (a real application's node, testdata/beamcore_real.erl, has no stuck_server)
    if "application" not in gt and (len(callers) < 10000 or not group or group["count"] != len(callers)
            or sorted(group["pids"]) != sorted(p["pid"] for p in callers)):
        bad.append(f"{len(callers)} callers of stuck_server are not one group: "
                   f"{group and group['count']}")
    print(f"{fx.name}: {len(idle)} idle stacks compared frame by frame; "
          f"{len(callers)} callers in one group: {bool(group)}; {len(bad)} mismatches"
          + (f"; hibernated after the ground truth: {' '.join(sorted(woke))}" if woke else ""))
    for b in bad[:30]:
        print("  MISMATCH " + b)
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main())
