#!/usr/bin/env python3
"""The summary of the incident scenario names the culprits in its first fifteen lines
(the deadlock, the biggest bottleneck and the suspended come first),
and its JSON agrees with the live ground truth: the top process by memory, the
longest queue, the largest ETS table, the largest refc-binary holder, the orphans.
Usage: check_summary.py BEAMCORE FIXTURE CORE (FIXTURE under $BEAMCORE_FIXTURES)."""
import sys
from fixture import Fixture

def pid_key(pid):
    _, num, serial = pid.strip("<>").split(".")
    return int(serial), int(num)

def subtree_holding_most(gt, dump):
    """(pid, bytes) of the subtree summary should name, from the live node's
    own records (tree.c's rule, docs/json.md): each process's parent is the
    live head of its '$ancestors', else the older process it is linked to (a
    supervisor first, else the youngest); from the tree holding the most whose
    root has children (its largest child, unless the root itself holds more),
    down while one child holds at least half of its parent and has children
    itself (a worker is no subtree: where one holds half, it is named with its
    supervisor); None when that holds under 20% of what all the trees hold.
    (pid, bytes, worker pid or None, whether the ground truth's writer is in it)"""
    procs = {p["pid"]: p for p in gt["processes"]}
    regs = {p["registered_name"]: p["pid"] for p in gt["processes"] if p["registered_name"]}
    ets = {}
    for t in gt["ets"]:
        ets[t["owner"]] = ets.get(t["owner"], 0) + t["memory"] * 8
    holders = {}
    for p in gt["processes"]:
        if p["pid"] == gt.get("collector"):
            continue  # (the writer's binaries are those of the writing, as its memory)
        for addr, size, _ in p["binary"] or []:
            holders.setdefault(addr, (size, set()))[1].add(p["pid"])
    order = sorted(procs, key=pid_key)
    parent, nkids = {}, {}
    for pid in order:
        anc = procs[pid].get("ancestors") or []
        head = (anc[0] if anc[0] in procs else regs.get(anc[0])) if anc else None
        if head and head != pid:
            parent[pid] = head
            nkids[head] = nkids.get(head, 0) + 1

    def below(x, i):
        while x is not None:
            if x == i:
                return True
            x = parent.get(x)
        return False

    for pid in order:
        if pid in parent:
            continue
        cands = [l for l in procs[pid].get("links", []) if l in procs and l != pid
                 and pid_key(l) < pid_key(pid) and not below(l, pid)]
        sup = lambda q: nkids.get(q, 0) > 0 or (procs[q].get("proc_lib_initial_call") or "").startswith(
            ("supervisor:", "supervisor_bridge:"))
        if cands:
            q = max(cands, key=lambda q: (sup(q), pid_key(q)))
            parent[pid] = q
            nkids[q] = nkids.get(q, 0) + 1
    kids = {}
    for c, p in parent.items():
        kids.setdefault(p, []).append(c)
    for v in kids.values():
        v.sort(key=lambda x: (pid_key(x)[1], pid_key(x)[0]))

    def sub(n):
        out, st = set(), [n]
        while st:
            x = st.pop()
            out.add(x)
            st.extend(kids.get(x, []))
        return out
    memo = {}

    def held(n):
        if n not in memo:
            s = sub(n)
            b = 0 if dump else sum(size for size, hs in holders.values() if hs <= s)
            # (the ground truth's writer: its live memory is that of the
            # writing, not the core's: left out)
            memo[n] = sum(procs[p]["memory"] for p in s if p != gt.get("collector")) + \
                sum(ets.get(p, 0) for p in s) + b
        return memo[n]
    roots = sorted((p for p in procs if p not in parent), key=lambda x: (pid_key(x)[1], pid_key(x)[0]))
    trees = [r for r in roots if kids.get(r)]
    if not trees:
        return None
    at = max(trees, key=held)   # (ties: the first in pid order, as beamcore)
    first, worker = True, None
    while kids.get(at):
        best = max(kids[at], key=held)
        if first:
            rest = sum(held(c) for c in kids[at])
            if held(at) > rest and held(at) - rest >= held(best):
                break
        elif held(best) * 2 < held(at):
            break
        if not kids.get(best):
            worker = best
            break
        at, first = best, False
    total = sum(held(r) for r in roots)
    writer = gt.get("collector") in sub(at)
    return (at, held(at), worker, writer) if held(at) * 100 >= total * 20 else None

def shown(p):
    """The initial call observer shows: proc_lib's for proc_lib:init_p/5."""
    if p["initial_call"] == "proc_lib:init_p/5" and p.get("proc_lib_initial_call"):
        return p["proc_lib_initial_call"]
    return p["initial_call"]

def kind_holding_most(gt, fx):
    """(initial call, memory, count) of the kind the summary names, or None."""
    mem = {p["pid"]: p["memory"] for p in gt["processes"]}
    core = {p["pid"]: p for p in fx.json("procs", ok=(0, 1))["processes"]}
    w = core.get(gt["collector"])
    if w:
        mem[w["pid"]] = w["memory"]
    groups = {}
    for p in gt["processes"]:
        groups.setdefault(shown(p), []).append(mem[p["pid"]])
    total = sum(mem.values())
    best = None
    for k, ms in groups.items():
        if len(ms) >= 2 and max(ms) * 2 < sum(ms) and (not best or sum(ms) > best[1]):
            best = (k, sum(ms), len(ms))
    return best if best and best[1] * 100 >= total * 20 else None

def main():
    fx = Fixture(sys.argv)
    gt = fx.truth
    live_mem = fx.json_file("memory.json")["memory"]
    bad = []
    rc, text, err = fx.run("summary")
    # the first lines: the header, the crash, the waits, the memory headline
    # (subtree and kind), then the processes and tables
    head = "\n".join(text.splitlines()[:17])
    if rc != 0:
        bad.append(f"text exit {rc}: {err}")
    for want in ("sessions_server holds", "ETS sessions: 200,000 objects", "flooded ",
                 "100,000 messages queued", "stuck_server has 10,000 messages queued",
                 "bin_router is the only holder",
                 "1,500 of them beamcore_scenario:idle/1"):
        if want not in head:
            bad.append(f"first seventeen lines lack {want!r}")
    doc = fx.json("summary")
    by_name = {p["registered_name"]: p for p in gt["processes"] if p["registered_name"]}
    live_procs = [p for p in gt["processes"] if p["pid"] != gt["collector"]]
    top = max(live_procs, key=lambda p: p["memory"])
    got = doc["processes"][0]
    if (got["pid"], got["memory"]) != (top["pid"], top["memory"]):
        bad.append(f"top process {got['pid']} {got['memory']} != live {top['pid']} {top['memory']}")
    q = max(live_procs, key=lambda p: p["message_queue_len"])
    gq = doc["message_queues"][0]
    if (gq["pid"], gq["message_queue_len"]) != (q["pid"], q["message_queue_len"]):
        bad.append(f"longest queue {gq['pid']} {gq['message_queue_len']} != live {q['pid']} {q['message_queue_len']}")
    e = max(gt["ets"], key=lambda t: t["memory"])
    ge = doc["ets"][0]
    if (ge["id"], ge["size"], ge["memory"], ge["owner_name"]) != (e["id"], e["size"], e["memory"], "sessions_server"):
        bad.append(f"largest ETS {ge} != live {e}")
    router = by_name["bin_router"]
    gh = doc["holders"][0]
    want_h = (router["pid"], len(router["binary"]), sum(b[1] for b in router["binary"]))
    if (gh["pid"], gh["count"], gh["bytes"]) != want_h:
        bad.append(f"top holder {gh} != live {want_h}")
    orphans = [p for p in live_procs if not p["links"] and not p["monitors"]
               and not p["monitored_by"] and not p["registered_name"]]
    idle = sum(1 for p in orphans if p["initial_call"] == "beamcore_scenario:idle/1")
    go = doc["orphans"][0]
    if (go["initial_call"], go["count"]) != ("beamcore_scenario:idle/1", idle) or idle != 1500:
        bad.append(f"orphans {go} != live idle/1 orphans {idle}")
    for k in ("atom", "code", "ets"):
        if doc["memory"][k] != live_mem[k]:
            bad.append(f"memory {k} {doc['memory'][k]} != live {live_mem[k]}")
    if not doc["findings"]:
        bad.append("no findings")
    # the findings a script keys on: kind, pid, value as the live node had them
    kinds = {}
    for f in doc["findings"]:
        kinds.setdefault(f["kind"], []).append(f)
    flooded = by_name["flooded"]
    lq = [f for f in kinds.get("long_queue", []) if f["pid"] == flooded["pid"]]
    if not lq or lq[0]["value"] != flooded["message_queue_len"] or lq[0]["name"] != "flooded":
        bad.append(f"no long_queue finding for flooded with value {flooded['message_queue_len']}: {lq}")
    big = [f for f in kinds.get("large_process", []) if f["pid"] == top["pid"]]
    if not big or big[0]["value"] != top["memory"]:
        bad.append(f"no large_process finding for {top['pid']} with value {top['memory']}: {big}")
    susp = sum(1 for p in gt["processes"] if p["status"] == "suspended")
    sf = kinds.get("suspended", [])
    if susp and (len(sf) != 1 or sf[0]["value"] != susp):
        bad.append(f"suspended finding {sf}, live {susp} suspended")
    # the supervision subtree holding the most (memory, ETS owned, refc binaries
    # only it holds): from the live records, the same rule; none under 20%
    want_sub = subtree_holding_most(gt, fx.name.endswith(".dump"))
    sub = kinds.get("subtree", [])
    if want_sub and want_sub[3]:
        # the writer is in it: its live figures are of the writing; the core's
        # memory and refc binaries of the writer come on top of the live sum
        w = fx.json("proc", arg=gt["collector"])["process"]
        want_sub = (want_sub[0], want_sub[1] + w["memory"] +
                    sum(int(b.strip("{}").split(",")[1]) for b in w["binary"] or []), *want_sub[2:])
    if (len(sub) != (1 if want_sub else 0)) or (want_sub and (sub[0]["pid"], sub[0]["value"]) != want_sub[:2]):
        bad.append(f"subtree finding {sub}, live {want_sub}")
    # never a worker called a subtree, nor "the most" said of a part of its parent's
    if sub and ("holds the most" in sub[0]["text"] or " 1 process:" in sub[0]["text"] or
                (want_sub[2] and f"its worker {want_sub[2]} " not in sub[0]["text"])):
        bad.append(f"subtree finding's text: {sub[0]['text']!r} (worker {want_sub[2]})")
    # the kind of process holding the most (two or more of one shown initial
    # call, none of them half of it, >= 20% of all processes' memory), from
    # the live figures (the writer's as the core has it); before the subtree
    # when it holds more
    want_kind = kind_holding_most(gt, fx)
    kf = kinds.get("process_kind", [])
    if [f["value"] for f in kf] != ([want_kind[1]] if want_kind else []) or \
            (want_kind and f"{want_kind[2]:,} processes with initial call {want_kind[0]} " not in kf[0]["text"]):
        bad.append(f"process_kind finding {kf}, live {want_kind}")
    order = [f["kind"] for f in doc["findings"]]
    if kf and sub and (order.index("process_kind") < order.index("subtree")) != (kf[0]["value"] > sub[0]["value"]):
        bad.append(f"memory headline: process_kind {kf[0]['value']} and subtree {sub[0]['value']} in the order {order}")
    for f in doc["findings"]:
        if set(f) != {"kind", "severity", "pid", "name", "value", "text"} or \
                f["severity"] not in ("critical", "warning", "info"):
            bad.append(f"finding not in schema 2's shape: {f}")
    print(f"{fx.name}: summary checked ({len(doc['findings'])} findings); "
          f"{len(bad)} problems")
    for b in bad:
        print("  " + b)
    if bad:
        print(head)
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main())
