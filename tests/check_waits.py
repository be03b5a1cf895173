#!/usr/bin/env python3
"""`beamcore waits --json` against the calls the scenario made (ground_truth.json
`calls`, `cycles`): every process blocked in gen_server:call is found with the
process it calls (a remote callee by {Name, Node}), no other waiter is invented,
the groups by callee have the live counts and pids, and the deadlock of
bc_deadlock_a and bc_deadlock_b is the one cycle, under one "Deadlocks" heading
in text (check_real.py: none on a node without a cycle). Then `summary` names the
deadlock and the biggest bottleneck. With ports.json, the busy port's waiters
too: its connected process in prim_inet's send, and those suspended in
erts_internal:port_command/3 (on the one busy port), each waiting on the port.
Usage: check_waits.py BEAMCORE FIXTURE CORE (FIXTURE under $BEAMCORE_FIXTURES)."""
import collections
import os
import sys
from fixture import Fixture

def canon(cycle):
    """A cycle up to rotation: start at its smallest pid."""
    i = cycle.index(min(cycle))
    return tuple(cycle[i:] + cycle[:i])

def main():
    fx = Fixture(sys.argv)
    gt = fx.truth
    if "calls" not in gt:
        print("FAIL: ground_truth.json has no calls (fixture made by an older capture.sh)")
        return 1
    doc = fx.json("waits", ok=(0, 1))
    bad = []
    want = {c["waiter"]: (c["callee"], c["via"]) for c in gt["calls"]}
    if os.path.exists(os.path.join(fx.dir, "ports.json")):
        procs = {p["pid"]: p for p in gt["processes"]}
        busy = [q for q in fx.json_file("ports.json") if q["busy"]]
        for q in busy:
            c = procs.get(q["connected"], {})
            if c.get("current_function") in ("prim_inet:send_recv_reply/2", "prim_inet:send/4"):
                want[c["pid"]] = (q["id"], c["current_function"])
        suspended = [p["pid"] for p in gt["processes"] if p["status"] == "suspended" and
                     p["current_function"] == "erts_internal:port_command/3"]
        if len(busy) == 1:
            want.update({s: (busy[0]["id"], "erts_internal:port_command/3") for s in suspended})
    got = {w["waiter"]: (w["callee"], w["via"]) for w in doc["waits"]}
    # a waiter that monitors several processes (50 backend callers): the call's
    # monitor is told by its alias state or by the reference its waiting frame
    # holds, on cores and dumps alike: no callee may stay unknown
    nmon = {p["pid"]: p["monitors"] for p in gt["processes"]}
    unknown = [w for w in doc["waits"] if w["callee"] is None]
    for w in unknown:
        bad.append(f"callee of {w['waiter']} unknown: {w['callee_unknown']}")
        got[w["waiter"]] = want.get(w["waiter"])
    multi = sum(1 for w in want if nmon.get(w, 0) > 1)
    missing = [w for w in want if w not in got]
    wrong = [(w, want[w], got[w]) for w in want if w in got and got[w] != want[w]]
    extra = [w for w in got if w not in want]
    if missing:
        bad.append(f"{len(missing)} of {len(want)} calls not found, e.g. {missing[:3]}")
    if wrong:
        bad.append(f"{len(wrong)} callees wrong (waiter, live, beamcore), e.g. {wrong[:3]}")
    if extra:
        bad.append(f"{len(extra)} waiters the scenario did not make, e.g. "
                   f"{[(w, got[w]) for w in extra[:3]]}")
    wgroups = collections.defaultdict(set)
    unknown_pids = {w["waiter"] for w in unknown}
    for w, (callee, _) in want.items():
        if w not in unknown_pids:
            wgroups[callee].add(w)
    ggroups = {g["callee"]: g for g in doc["groups"]}
    for callee, pids in wgroups.items():
        g = ggroups.get(callee)
        if not g or g["count"] != len(pids) or set(g["pids"]) != pids:
            bad.append(f"group of {callee}: live {len(pids)} waiters, beamcore "
                       f"{g and g['count']}")
    if len(ggroups) != len(wgroups):
        bad.append(f"{len(ggroups)} groups, live {len(wgroups)}")
    counts = [g["count"] for g in doc["groups"]]
    if counts != sorted(counts, reverse=True):
        bad.append(f"groups not by count: {counts}")
    wc = {canon(c) for c in gt["cycles"]}
    gc = {canon(c) for c in doc["cycles"]}
    if wc != gc:
        bad.append(f"cycles: live {sorted(wc)}, beamcore {sorted(gc)}")
    # text: the Deadlocks heading once, over the cycles (none without one)
    rc, out, err = fx.run("waits")
    heads = out.splitlines().count("Deadlocks")
    if heads != (1 if doc["cycles"] else 0) or ("DEADLOCK" in out) != bool(doc["cycles"]):
        bad.append(f"waits text: {heads} Deadlocks headings for {len(doc['cycles'])} cycles")
    # the summary says both in its findings
    # (findings are objects a script keys on: kind, pid, value)
    s = fx.json("summary", ok=(0, 1))
    text = "\n".join(f["text"] for f in s["findings"])
    a, b = gt["cycles"][0]
    dl = [f for f in s["findings"] if f["kind"] == "deadlock"]
    if "deadlock" not in text or a not in text or b not in text or len(dl) != 1 or \
            dl[0]["pid"] not in (a, b) or dl[0]["value"] != 2 or dl[0]["severity"] != "critical":
        bad.append(f"summary does not name the deadlock {a} <-> {b}: {s['findings']}")
    top = max(wgroups.items(), key=lambda kv: len(kv[1]))
    bn = [f for f in s["findings"] if f["kind"] == "bottleneck"]
    if f"{len(top[1]):,} processes wait" not in text or top[0] not in text or \
            not bn or bn[0]["value"] != len(top[1]) or bn[0]["pid"] != top[0]:
        bad.append(f"summary does not name the bottleneck: {len(top[1]):,} on {top[0]}: {bn}")
    print(f"{fx.name}: {len(got)} waiters in {len(ggroups)} groups, {len(gc)} cycles; "
          f"live {len(want)} calls ({multi} by waiters with several monitors; "
          f"{len(unknown)} unknown callees); {len(bad)} mismatches")
    for m in bad:
        print("  MISMATCH", m)
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main())
