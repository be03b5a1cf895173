#!/usr/bin/env python3
"""The summary of the incident scenario names the culprits in its first ten lines,
and its JSON agrees with the live ground truth: the top process by memory, the
longest queue, the largest ETS table, the largest refc-binary holder, the orphans.
Usage: check_summary.py BEAMCORE FIXTURE CORE (FIXTURE under $BEAMCORE_FIXTURES)."""
import sys
from fixture import Fixture

def main():
    fx = Fixture(sys.argv)
    gt = fx.truth
    live_mem = fx.json_file("memory.json")["memory"]
    bad = []
    rc, text, err = fx.run("summary")
    head = "\n".join(text.splitlines()[:10])
    if rc != 0:
        bad.append(f"text exit {rc}: {err}")
    for want in ("sessions_server holds", "ETS sessions: 200,000 objects", "flooded ",
                 "100,000 messages queued", "stuck_server has 10,000 messages queued",
                 "bin_router is the only holder",
                 "1,500 of them beamcore_scenario:idle/1"):
        if want not in head:
            bad.append(f"first ten lines lack {want!r}")
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
    print(f"{fx.name}: summary checked ({len(doc['findings'])} findings); "
          f"{len(bad)} problems")
    for b in bad:
        print("  " + b)
    if bad:
        print(head)
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main())
