#!/usr/bin/env python3
"""`beamcore nodes --json` against what the live node wrote: the connected
nodes are nodes() (visible) and nodes(hidden), each controller is
erlang:system_info(dist_ctrl)'s, and the links and monitors per node add up to
the remote links, monitors and monitors-by of every process's process_info
(ground_truth.json). On a core the state is connected and the (idle) output
queue empty; a crash dump records neither (null). A node that is not
distributed lists none.
Usage: check_nodes.py BEAMCORE FIXTURE CORE (FIXTURE under $BEAMCORE_FIXTURES)."""
import sys
from fixture import Fixture

def remote(s):
    return not s.startswith(("<0.", "#Port<0.", "#Ref<0."))

def main():
    fx = Fixture(sys.argv)
    gt = fx.truth
    doc = fx.json("nodes")
    got = {n["name"]: n for n in doc["nodes"]}
    want_names = {n: "visible" for n in gt.get("nodes", [])}
    want_names.update({n: "hidden" for n in gt.get("hidden_nodes", [])})
    bad = []
    if set(got) != set(want_names):
        bad.append(f"nodes: live {sorted(want_names)}, beamcore {sorted(got)}")
    ctrl = {c["node"]: c["ctrl"] for c in gt.get("dist_ctrl", [])}
    procs = gt["processes"]
    dump = fx.name.endswith(".dump")
    for name, n in got.items():
        if name not in want_names:
            continue
        links = sum(1 for p in procs for link in p["links"] if remote(link))
        mons = sum(1 for p in procs for m in (p.get("monitor_targets") or [])
                   if name in m or remote(m))
        monby = sum(p.get("monitored_by_remote", 0) for p in procs)
        checks = [("type", want_names[name], n["type"]), ("controller", ctrl.get(name), n["controller"]),
                  ("links", links, n["links"]), ("monitors", mons, n["monitors"]),
                  ("monitored_by", monby, n["monitored_by"]),
                  ("state", None if dump else "connected", n["state"]),
                  ("output_queue_size", None if dump else 0, n["output_queue_size"])]
        for what, live, mine in checks:
            if live != mine:
                bad.append(f"{name} {what}: live {live}, beamcore {mine}")
    if not doc["complete"]:
        bad.append(f"incomplete: {doc['missing']}")
    summary = ", ".join(f"{k}: {v['links']} links" for k, v in got.items())
    print(f"{fx.name}: {len(got)} nodes ({summary}); {len(bad)} mismatches")
    for b in bad:
        print("  MISMATCH " + b)
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main())
