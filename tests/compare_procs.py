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
    if rc != 0:
        print(f"FAIL: exit {rc} (partial) on a complete core: {err.strip()}")
        return 1
    return 1 if failures else 0

if __name__ == "__main__":
    sys.exit(main())
