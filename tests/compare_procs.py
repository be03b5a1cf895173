#!/usr/bin/env python3
"""Compare `beamcore procs --json` on a real core with the ground truth the live
VM wrote just before the core was taken (testdata/capture.sh).

Idle processes (waiting, not the collector that wrote the ground truth) must match
exactly on every field; the others are reported, and so are those a real
application's node saw run on their own timers ("periodic"). Exit 0 pass, 1 fail, 77 skip."""
import sys
from fixture import Fixture, idle_processes, reductions_ok, SIGNAL_HELPERS

FIELDS = ["registered_name", "initial_call", "current_function", "status",
          "total_heap_size", "heap_size", "stack_size", "message_queue_len",
          "memory", "reductions"]

def same(field, live, core, p):
    if field == "reductions" and isinstance(live, int):
        return reductions_ok(p, core)
    return live == core

def main():
    fx = Fixture(sys.argv)
    rc, _, err = fx.run("procs")
    out = fx.json("procs", ok=(0, 1))
    gt = fx.truth
    got = {p["pid"]: p for p in out["processes"]}
    idle = idle_processes(gt)
    periodic = set(gt.get("periodic", []))
    failures, others, woke = [], [], []
    for p in gt["processes"]:
        q = got.get(p["pid"])
        strict = p in idle
        # a live node (--pid) keeps its heartbeat: file writes on a dirty IO
        # scheduler, whose signals the dirty signal handlers take
        if fx.target[0] == "--pid" and p.get("initial_call") in SIGNAL_HELPERS:
            strict = False
        # a real application's node (testdata/beamcore_real.erl): processes it
        # saw run on their own timers while idle may run again before the core
        if p["pid"] in periodic:
            strict = False
        # A process that ran between the ground truth and the core (more
        # reductions than process_info's own +1: global's locker on a
        # distributed node, say) was not idle: reported, and only a few may.
        if strict and q and isinstance(q.get("reductions"), int) and \
                p.get("initial_call") not in SIGNAL_HELPERS and q["reductions"] > p["reductions"] + 1:
            strict = False
            woke.append(f"{p['pid']} ({p.get('current_function')}) ran: reductions "
                        f"{p['reductions']} -> {q['reductions']}")
        if q is None:
            (failures if strict else others).append(f"{p['pid']}: missing from beamcore output")
            continue
        counts = [("link_count", len(p["links"]), q.get("link_count")),
                  ("monitor_count", p["monitors"], q.get("monitor_count")),
                  ("monitored_by_count", p.get("monitored_by"), q.get("monitored_by_count"))]
        for f, live, got_n in counts:
            if live != got_n:
                msg = f"{p['pid']} ({p.get('registered_name') or p.get('initial_call')}) {f}: live {live!r}, beamcore {got_n!r}"
                (failures if strict else others).append(msg)
        for f in FIELDS:
            if not same(f, p.get(f), q.get(f), p):
                msg = f"{p['pid']} ({p.get('registered_name') or p.get('initial_call')}) {f}: live {p.get(f)!r}, beamcore {q.get(f)!r}"
                (failures if strict else others).append(msg)
    if len(woke) > 3:
        failures.append(f"{len(woke)} idle processes ran between the ground truth and the core: "
                        "the fixture was not idle")
    extra = set(got) - {p["pid"] for p in gt["processes"]}
    print(f"{fx.name}: {len(gt['processes'])} live processes, {len(got)} in core, "
          f"{len(idle)} idle compared exactly on {len(FIELDS) + 3} fields; "
          f"{len(failures)} mismatches; non-idle differences: {len(others)}; "
          f"only in core: {len(extra)}")
    for m in woke:
        print("  (woke) " + m)
    for m in others[:20]:
        print("  (non-idle) " + m)
    for m in failures[:50]:
        print("  MISMATCH " + m)
    # text sort keys: ascending, unnamed processes after the named ones
    by_name = [q["registered_name"] for q in fx.json("procs", "--sort", "name")["processes"]]
    named = [n for n in by_name if n]
    if named != sorted(named) or by_name[:len(named)] != named:
        failures.append("--sort name: registered names not first and ascending")
        print("  MISMATCH --sort name order")
    by_pid = [tuple(map(int, q["pid"][1:-1].split(".")[1:]))
              for q in fx.json("procs", "--sort", "pid")["processes"]]
    if by_pid != sorted(by_pid):
        failures.append("--sort pid: not ascending")
        print("  MISMATCH --sort pid order")
    failures += group_sums(fx, gt, {p["pid"] for p in idle} - periodic - {w.split()[0] for w in woke})
    if rc != 0:
        print(f"FAIL: exit {rc} (partial) on a complete core: {err.strip()}")
        return 1
    return 1 if failures else 0

GROUP_SUMS = ["memory", "total_heap_size", "message_queue_len"]

def group_sums(fx, gt, strict):
    """procs --group-by initial_call, stack and label: each group's count and sums
    against the same sums of the live figures (the shown initial call is
    proc_lib's, else the initial call; a stack its current_stacktrace's
    functions; binary: process_info(P, binary)'s sizes). A group whose members
    all slept through the capture (strict) must be exact; the others are
    reported (the collector's stack is not the one it had when it wrote the
    ground truth). Returns the mismatches."""
    live = gt["processes"]
    known = {p["pid"] for p in live}
    def shown(p):  # observer's: proc_lib's for proc_lib:init_p/5
        if p["initial_call"] == "proc_lib:init_p/5" and p.get("proc_lib_initial_call"):
            return p["proc_lib_initial_call"]
        return p["initial_call"]
    # label: the label `procs` shows each process by (registered name, a
    # library's own name, the initial call: checked against the node's own
    # names by check_real.py), the groups' sums against the live figures
    rows = fx.json("procs", ok=(0, 1))["processes"]
    if rows and "label" in rows[0]:
        label = {p["pid"]: p["label"] for p in rows}
    else:  # no label field: the groups as beamcore made them
        doc = fx.json("procs", "--group-by", "label")
        label = {pid: g["label"] for g in doc["groups"] for pid in g["pids"]}
    def stack(p):  # a hibernating process: who it is (stacks' groups)
        hib = not p["current_stacktrace"] and p["current_function"] == "erlang:hibernate/3"
        return (tuple(p["current_stacktrace"]), shown(p) if hib else None)
    kinds = {"initial_call": ("initial_call", shown),
             "stack": ("current_stacktrace", stack),
             "label": ("label", lambda p: label.get(p["pid"]))}
    failures, others, checked = [], [], 0
    docs = {by: fx.json("procs", "--group-by", by) for by in kinds}
    if fx.target[0] == "--pid":
        # a running node is read anew by each command: a process that changed
        # between the first read and one after the groups' (erts_code_purger
        # hibernates after a purge) ran while they were read
        again = {p["pid"]: p for p in fx.json("procs", ok=(0, 1))["processes"]}
        ran = {p["pid"] for p in rows if again.get(p["pid"]) != p}
        if ran:
            print(f"  (ran while the groups were read) {len(ran)}: {sorted(ran)[:10]}")
        strict = strict - ran
    for by, (field, key) in kinds.items():
        doc = docs[by]
        want = {}
        for p in live:
            want.setdefault(key(p), []).append(p)
        got = {}  # by key; hibernating groups that differ in wake_up only, summed
        for g in doc["groups"]:
            k = (tuple(g[field]), g["initial_call"] if g["hibernating"] else None) \
                if by == "stack" else g[field]
            if k in got:
                got[k] = {f: got[k][f] + g[f] for f in GROUP_SUMS + ["count", "binary", "pids"]}
            else:
                got[k] = g
        if sum(g["count"] for g in doc["groups"]) != len({p for g in doc["groups"] for p in g["pids"]}):
            failures.append(f"--group-by {by}: a process in two groups")
        order = [g["total_heap_size"] for g in doc["groups"]]
        if order != sorted(order, reverse=True):
            failures.append(f"--group-by {by}: groups not largest total_heap_size first")
        for k, members in want.items():
            g = got.get(k)
            # exact when every member slept through the capture and the group
            # holds no process the ground truth does not know (one spawned
            # after it was written: a running node's)
            exact = all(p["pid"] in strict for p in members) and \
                (g is None or all(pid in known for pid in g["pids"]))
            sums = {f: sum(p[f] for p in members) for f in GROUP_SUMS}
            sums["count"] = len(members)
            sums["binary"] = sum(b[1] for p in members for b in p["binary"] or [])
            sums["pids"] = sorted(p["pid"] for p in members)
            bad = [f"{f} live {v}, beamcore {g.get(f) if f != 'pids' else sorted(g['pids'])}"
                   for f, v in sums.items() if g and v != (sorted(g[f]) if f == "pids" else g[f])
                   and f != "binary"]
            # beamcore's lists hold the binaries a process wrote to a port
            # (wrt_bins) too, beyond process_info(P, binary) (issue 21, part 3):
            # more is reported, less is wrong
            if g and g["binary"] is not None and g["binary"] > sums["binary"]:
                others.append(f"--group-by {by} {k}: binary live {sums['binary']}, beamcore "
                              f"{g['binary']} (wrt_bins)")
            elif g and g["binary"] != sums["binary"]:
                bad.append(f"binary live {sums['binary']}, beamcore {g['binary']}")
            if g is None or bad:
                msg = f"--group-by {by} {k}: " + ("missing" if g is None else "; ".join(bad)[:300])
                (failures if exact else others).append(msg)
            checked += exact
    print(f"groups: {checked} groups of idle processes compared exactly (count, {', '.join(GROUP_SUMS)}, "
          f"binary, pids); {len(failures)} mismatches, {len(others)} differences in groups with "
          f"a process that ran")
    for m in others[:10]:
        print("  (reported) " + m)
    for m in failures[:20]:
        print("  MISMATCH " + m)
    return failures

if __name__ == "__main__":
    sys.exit(main())
