#!/usr/bin/env python3
"""`beamcore proc --json`'s message_shapes and largest_terms against the live
node (ground_truth.json):
- message_shapes exact (every shape, every count, in order: count desc, shape
  asc) for every idle process whose queue is not empty (flooded's 100,000
  {event,_,_}, off_heap's queue outside the heap, the '$gen_call' queues of
  stuck_server and bc_deadlock_a), all of it counted (messages_counted equals
  message_queue_len);
- largest_terms[0] of each gen_server in state_flat_size is its state (a stack
  slot of gen_server:loop) with a flat size within 1% of
  erts_debug:flat_size(sys:get_state(Server)); every listed size at least the
  next one; term_roots at least as many as listed.
Usage: check_terms.py BEAMCORE FIXTURE CORE (FIXTURE under $BEAMCORE_FIXTURES)."""
import json, os, sys
from fixture import Fixture, idle_processes

def main():
    fx = Fixture(sys.argv)
    gt = fx.truth
    if "state_flat_size" not in gt or "message_shapes" not in gt["processes"][0]:
        print("SKIP: fixture predates message_shapes/state_flat_size (regenerate it)")
        return 1 if os.environ.get("CI") == "true" else 77
    dump = fx.name.endswith(".dump")
    idle = idle_processes(gt)
    # SIGUSR1 wakes erl_signal_server to write the dump: not idle for a dump
    picks = [p for p in idle if p["message_shapes"] and
             not (dump and p["registered_name"] == "erl_signal_server")]
    bad, checked = [], 0
    for p in picks:
        rc, out, err = fx.run("proc", "--json", arg=p["pid"])
        if rc != 0:
            bad.append(f"{p['pid']}: exit {rc} {err.strip()}")
            continue
        doc = json.loads(out)
        got = [{"shape": s["shape"], "count": s["count"]} for s in doc["message_shapes"]]
        name = p["registered_name"] or p["initial_call"]
        checked += 1
        if got != p["message_shapes"]:
            bad.append(f"{p['pid']} ({name}) message_shapes: live {p['message_shapes'][:5]}, "
                       f"beamcore {got[:5]} ({len(p['message_shapes'])} vs {len(got)} shapes)")
        if doc["process"]["messages_counted"] != p["message_queue_len"]:
            bad.append(f"{p['pid']} ({name}) messages_counted {doc['process']['messages_counted']}, "
                       f"live message_queue_len {p['message_queue_len']}")
    by_name = {p["registered_name"]: p for p in gt["processes"] if p["registered_name"]}
    for server, want in gt["state_flat_size"].items():
        rc, out, err = fx.run("proc", "--json", arg=server)
        if rc != 0:
            bad.append(f"{server}: exit {rc} {err.strip()}")
            continue
        doc = json.loads(out)
        terms = doc["largest_terms"]
        checked += 1
        if not terms:
            bad.append(f"{server}: no largest_terms")
            continue
        top = terms[0]
        print(f"{server}: live flat_size {want:,}; beamcore {top['flat_size']:,} "
              f"({100 * (top['flat_size'] - want) / want:+.3f}%) at {top['where']}: {top['shape']}")
        if abs(top["flat_size"] - want) > 0.01 * want:
            bad.append(f"{server} largest_terms[0] flat_size {top['flat_size']}, live {want}")
        if not top["where"].startswith("stack y(") or "gen_server:loop/" not in top["where"]:
            bad.append(f"{server} largest_terms[0] is at {top['where']}, not gen_server:loop's frame")
        if not top["complete"]:
            bad.append(f"{server} largest_terms[0] was cut")
        sizes = [t["flat_size"] for t in terms]
        if sizes != sorted(sizes, reverse=True) or doc["process"]["term_roots"] < len(terms):
            bad.append(f"{server} largest_terms out of order or term_roots "
                       f"{doc['process']['term_roots']} < {len(terms)}")
        live = by_name.get(server)
        if live and doc["process"]["messages_counted"] != live["message_queue_len"]:
            bad.append(f"{server} messages_counted {doc['process']['messages_counted']}")
    print(f"{fx.name}: {len(picks)} queues, {len(gt['state_flat_size'])} states, {checked} checks; "
          f"{len(bad)} mismatches")
    for b in bad[:30]:
        print("  MISMATCH " + b[:600])
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main())
