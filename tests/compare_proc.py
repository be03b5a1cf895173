#!/usr/bin/env python3
"""`beamcore proc PID --json` against the live node's process_info of that pid
(ground_truth.json): links, current_stacktrace, the backtrace with file:line
(process_info's current_stacktrace locations, for stacks without repeated
frames), the dictionary (small ones, as a set) and the first messages, printed
as Erlang prints them. Checked for every registered idle process and a few others. On a crash dump
the located backtrace is unknown (null) and skipped.
Usage: compare_proc.py BEAMCORE FIXTURE CORE (FIXTURE under $BEAMCORE_FIXTURES)."""
import json, os, sys
from fixture import Fixture, idle_processes

def main():
    fx = Fixture(sys.argv)
    gt = fx.truth
    if "messages_head" not in gt["processes"][0]:
        print("SKIP: fixture predates messages_head (regenerate it)")
        return 1 if os.environ.get("CI") == "true" else 77  # CI: no skips
    idle = idle_processes(gt)
    picks = [p for p in idle if p["registered_name"]]
    if fx.name.endswith(".dump"):
        # SIGUSR1 wakes erl_signal_server, which halts the node to write the dump:
        # it was idle for the ground truth, not when the dump was written.
        picks = [p for p in picks if p["registered_name"] != "erl_signal_server"]
    for call in ("beamcore_scenario:caller/0", "beamcore_scenario:idle/1",
                 "beamcore_scenario:dist_worker/3"):
        picks += [p for p in idle if p["initial_call"] == call][:2]
    # another node's pid is printed as the VM prints it, then " on NODE"
    peers = gt.get("nodes", [])
    def on_node(pid):
        local = pid.startswith(("<0.", "#Port<0.", "#Ref<0."))
        return pid if local or len(peers) != 1 else f"{pid} on {peers[0]}"
    bad, checked = [], 0
    for p in picks:
        rc, out, err = fx.run("proc", "--json", arg=p["pid"])
        if rc != 0:
            bad.append(f"{p['pid']}: exit {rc} {err.strip()}")
            continue
        q = json.loads(out)["process"]
        name = p["registered_name"] or p["initial_call"]
        checks = [("links", sorted(map(on_node, p["links"])), q["links"] and sorted(q["links"])),
                  ("current_stacktrace", p["current_stacktrace"], q["current_stacktrace"]),
                  ("messages", p["messages_head"], q["messages"][:3])]
        st = p["current_stacktrace"]
        if len(st) < gt["backtrace_depth"] and all(a != b for a, b in zip(st, st[1:])):
            want = [f"{m} ({loc})" if loc else m for m, loc in zip(st, p["current_location"])]
            checks.append(("backtrace", want, q["backtrace"]))
        if p.get("monitor_targets") is not None and q["monitors"] is not None:
            checks.append(("monitors", p["monitor_targets"],
                           sorted(m.split(" on ")[0] for m in q["monitors"])))
        if p["dictionary_head"] is not None:
            checks.append(("dictionary", sorted(p["dictionary_head"]), sorted(q["dictionary"])))
        for what, live, got in checks:
            if got is None and fx.name.endswith(".dump") and what == "backtrace":
                continue  # a crash dump does not say: unknown (null), never wrong
            checked += 1
            if live != got:
                bad.append(f"{p['pid']} ({name}) {what}: live {live}, beamcore {got}")
    print(f"{fx.name}: {len(picks)} processes, {checked} checks; {len(bad)} mismatches")
    for b in bad[:30]:
        print("  MISMATCH " + b[:600])
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main())
