#!/usr/bin/env python3
"""`beamcore tree --json` against the supervision trees the live node wrote
(ground_truth.json "supervision": supervisor:which_children/1 recursively from
every supervisor whose first ancestor is not a supervisor), on a core or an
erl_crash.dump:
  - every live root in beamcore's trees (under the application master
    beamcore places it in), and at every level the same type and the same
    children (by pid), but that beamcore places below a node the processes
    no supervisor lists too (a worker's proc_lib children, its spawn_link'ed
    helpers: none of them in a live tree; such a worker is a supervisor); a node whose children the live node could not ask (a
    supervisor_bridge such as user_sup: children null) has its children
    unchecked, and so do the counts of the subtrees holding it; so has every
    supervisor_bridge (which_children cannot ask one: the live node writes []
    for one its parent's spec calls a worker, inet_gethost_native_sup under
    kernel_safe_sup, though it has a child), whose type is the spec's (worker
    or supervisor) live and always supervisor in beamcore;
  - each subtree's processes: the count of the live subtree (with those);
  - coverage: every process in the trees, placed + unplaced = processes;
  - each subtree's memory: the sum of the live `memory` of its processes, when
    all of them are idle (waiting, not the collector; their memory is exact);
  - over such idle subtrees also ets_memory (the live ets:info memory of the
    tables its processes own, in bytes) and, on a core, binary (the sizes of
    the refc binaries only its processes hold, by the live
    process_info(P, binary) lists);
  - the rollups are non-negative integers (binary null on a dump: it does not
    record refc binaries), and the text output names every root.
Usage: check_tree.py BEAMCORE FIXTURE CORE (FIXTURE under $BEAMCORE_FIXTURES).
Exit 0 pass, 1 fail, 77 skip."""
import sys
from fixture import Fixture, idle_processes, report

fx = Fixture(sys.argv)
gt = fx.truth
if "supervision" not in gt:
    print("FAIL: the ground truth has no supervision trees: recapture the fixture with the "
          "current testdata/beamcore_scenario.erl")
    sys.exit(1)
doc = fx.json("tree")
live = {p["pid"]: p for p in gt["processes"]}
idle = {p["pid"] for p in idle_processes(gt)}
dump = fx.name.endswith(".dump")
ets_words = {}
for t in gt["ets"]:
    ets_words[t["owner"]] = ets_words.get(t["owner"], 0) + t["memory"]
holders, sizes = {}, {}
for p in gt["processes"]:
    for addr, size, _ in p["binary"]:
        holders.setdefault(addr, set()).add(p["pid"])
        sizes[addr] = size
bridges = {p["pid"] for p in gt["processes"]
           if (p.get("proc_lib_initial_call") or "").startswith("supervisor_bridge:")}
bad = []
stats = {"nodes": 0, "memory": 0, "counts": 0}

def live_pids(n):
    """The pids of a live subtree, and whether all of its children are known."""
    pids, known = [n["pid"]], n["children"] is not None and n["pid"] not in bridges
    for c in n["children"] or []:
        p, k = live_pids(c)
        pids += p
        known &= k
    return pids, known

def forest(nodes, out):
    for n in nodes:
        out[n["pid"]] = n
        forest(n["children"] or [], out)
    return out

def bc_pids(n):
    out = [n["pid"]]
    for c in n["children"]:
        out += bc_pids(c)
    return out

live_forest = forest(gt["supervision"], {})
bc_forest = forest(doc["trees"], {})

def compare(want, got, path):
    stats["nodes"] += 1
    where = f"{path}{want['pid']} ({want['registered_name'] or '-'})"
    if got["type"] != want["type"] and want["pid"] not in bridges and \
            not (want["type"] == "worker" and got["children"]):
        bad.append(f"{where}: type {got['type']}, live {want['type']}")
    if got["registered_name"] != want["registered_name"]:
        bad.append(f"{where}: registered_name {got['registered_name']}, live {want['registered_name']}")
    s = got["subtree"]
    for k in ["processes", "memory", "message_queue_len", "ets_memory", "binary"]:
        v = s.get(k)
        if not (isinstance(v, int) and v >= 0) and not (k == "binary" and dump and v is None):
            bad.append(f"{where}: subtree {k} {v!r}")
    pids, known = live_pids(want)
    if known:
        stats["counts"] += 1
        # beamcore places below it the processes no supervisor lists too (a
        # worker's own proc_lib children, its spawn_link'ed helpers)
        got_pids = bc_pids(got)
        extra = set(got_pids) - set(pids)
        if not set(pids) <= set(got_pids) or extra & set(live_forest):
            bad.append(f"{where}: subtree {sorted(set(pids) - set(got_pids))[:5]} missing, "
                       f"{sorted(extra & set(live_forest))[:5]} from elsewhere in the live trees")
        pids = got_pids
        if s["processes"] != len(pids):
            bad.append(f"{where}: subtree processes {s['processes']}, live {len(pids)}")
        if all(p in idle for p in pids):
            stats["memory"] += 1
            total = sum(live[p]["memory"] for p in pids)
            if s["memory"] != total:
                bad.append(f"{where}: subtree memory {s['memory']}, live sum {total} "
                           f"over {len(pids)} idle processes")
            ets = 8 * sum(ets_words.get(p, 0) for p in pids)
            if s["ets_memory"] != ets:
                bad.append(f"{where}: subtree ets_memory {s['ets_memory']}, live {ets}")
            inside = set(pids)
            binary = sum(sizes[a] for a, h in holders.items() if h <= inside)
            if not dump and s["binary"] != binary:
                bad.append(f"{where}: subtree binary {s['binary']}, live {binary}")
    if want["children"] is None or want["pid"] in bridges:
        return
    wk = {c["pid"]: c for c in want["children"]}
    gk = {c["pid"]: c for c in got["children"]}
    if not set(wk) <= set(gk) or set(gk) - set(wk) & set(live_forest):
        bad.append(f"{where}: children missing {sorted(set(wk) - set(gk))[:10]}, "
                   f"extra {sorted(set(gk) - set(wk))[:10]}")
    for pid in sorted(set(wk) & set(gk)):
        compare(wk[pid], gk[pid], path + "  ")

want_roots = {r["pid"]: r for r in gt["supervision"]}
got_roots = {p: bc_forest[p] for p in want_roots if p in bc_forest}
if set(want_roots) != set(got_roots):
    bad.append(f"roots: live {sorted(want_roots)}, not in beamcore's trees: "
               f"{sorted(set(want_roots) - set(got_roots))}")
for pid in sorted(got_roots):
    compare(want_roots[pid], got_roots[pid], "")
cov = doc["coverage"]
if cov["processes"] != len(live) or len(bc_forest) != len(live) or \
        cov["placed"] + sum(g["count"] for g in cov["unplaced"]) != cov["processes"]:
    bad.append(f"coverage {cov}: live {len(live)} processes, {len(bc_forest)} in beamcore's trees")
if not any(r["registered_name"] == "bc_sup" for r in gt["supervision"]):
    bad.append("the live node wrote no bc_sup tree: nothing of the scenario's was tested")

rc, out, err = fx.run("tree")
if rc != 0:
    bad.append(f"text output: exit {rc}: {err.strip()[:200]}")
for pid in want_roots:
    if pid not in out:
        bad.append(f"text output does not name root {pid}")

print(f"{fx.name}: {cov['placed']} of {cov['processes']} processes placed; {len(want_roots)} live roots, {stats['nodes']} nodes compared, {stats['counts']} "
      f"subtree counts and {stats['memory']} all-idle subtrees' memory, ets_memory"
      f"{'' if dump else ', binary'} checked")
sys.exit(report(bad))
