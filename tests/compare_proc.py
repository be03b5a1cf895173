#!/usr/bin/env python3
"""`beamcore proc PID --json` against the live node's process_info of that pid
(ground_truth.json): links, current_stacktrace, the backtrace with file:line
(process_info's current_stacktrace locations, for stacks without repeated
frames), the dictionary (small ones, as a set) and the first messages, printed
as Erlang prints them. Checked for every registered idle process and a few others. On a crash dump
the located backtrace is unknown (null) and skipped. The text (issue 21 part 7):
the scalars first, then every list under its heading, those a dump does not
give (binaries, backtrace) too, never "binary ?" among the lists. A reference
in largest_terms' `where` (a dictionary key) printed as the live node printed
it (a dump's key was cut to #Ref<0.0.0.0>), on up to five processes whose
dictionary holds one.
Usage: compare_proc.py BEAMCORE FIXTURE CORE (FIXTURE under $BEAMCORE_FIXTURES)."""
import json, os, re, sys
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
    # text: the scalars, then the lists, each under its heading (as on a core)
    heads = ("Current stacktrace", "Links", "Monitors (the other end)", "Dictionary",
             "Messages (first", "Refc binaries {address,size,refc}", "Backtrace")
    for p in picks[:10]:
        rc, out, err = fx.run("proc", arg=p["pid"])
        lines = out.split("\n\nLargest terms")[0].splitlines()
        first = next((i for i, l in enumerate(lines) if not l.strip()), len(lines))
        scalars_late = [l for l in lines[first:] if re.match(r"^  [a-z_]+ +\S", l)
                        and l.split()[0] in ("binary", "backtrace", "links", "monitors",
                                             "term_roots", "messages_counted")]
        missing = [h for h in heads if not any(l.startswith(h) for l in lines)]
        checked += 1
        if rc != 0 or scalars_late or missing:
            bad.append(f"{p['pid']} text: exit {rc}; fields among the lists {scalars_late}; "
                       f"headings missing {missing}")
    # a reference in a dictionary key's `where`: as the live node printed it
    with_ref = [p for p in gt["processes"] if any("#Ref<" in d for d in p.get("dictionary_head") or [])]
    for p in with_ref[:5]:
        rc, out, err = fx.run("proc", "--json", arg=p["pid"])
        if rc not in (0, 1):
            bad.append(f"{p['pid']}: exit {rc} {err.strip()}")
            continue
        live = " ".join(p["dictionary_head"])
        for t in json.loads(out).get("largest_terms") or []:
            for ref in re.findall(r"#Ref<[0-9.]+>", t["where"]):
                checked += 1
                if ref not in live:
                    bad.append(f"{p['pid']} largest_terms where {t['where']!r}: {ref} is not "
                               "in its live dictionary")
    print(f"{fx.name}: {len(picks)} processes, {checked} checks; {len(bad)} mismatches")
    for b in bad[:30]:
        print("  MISMATCH " + b[:600])
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main())
