#!/usr/bin/env python3
"""The summary of the incident scenario names the culprits in its first ten lines,
and its JSON agrees with the live ground truth: the top process by memory, the
longest queue, the largest ETS table, the largest refc-binary holder, the orphans.
Usage: check_summary.py BEAMCORE FIXTURE CORE (FIXTURE under $BEAMCORE_FIXTURES)."""
import json, os, subprocess, sys

def main():
    bc, fx, core = sys.argv[1], sys.argv[2], sys.argv[3]
    fx = os.path.join(os.environ.get("BEAMCORE_FIXTURES", "/nonexistent"), fx)
    core = os.path.join(fx, core)
    if not os.path.exists(core):
        print(f"SKIP: no fixture {core}")
        return 77
    beam = open(os.path.join(fx, "beam.smp.path")).read().strip()
    gt = json.load(open(os.path.join(fx, "ground_truth.json")))
    live_mem = json.load(open(os.path.join(fx, "memory.json")))["memory"]
    bad = []
    text = subprocess.run([bc, core, beam], capture_output=True, text=True, timeout=300)
    head = "\n".join(text.stdout.splitlines()[:10])
    if text.returncode != 0:
        bad.append(f"text exit {text.returncode}: {text.stderr}")
    for want in ("sessions_server holds", "ETS sessions: 200,000 objects", "flooded ",
                 "100,000 messages queued", "stuck_server has 10,000 messages queued",
                 "bin_router is the only holder",
                 "1,500 of them beamcore_scenario:idle/1"):
        if want not in head:
            bad.append(f"first ten lines lack {want!r}")
    r = subprocess.run([bc, "summary", core, beam, "--json"], capture_output=True, text=True,
                       timeout=300)
    doc = json.loads(r.stdout)
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
    if not doc["findings"] or r.returncode != 0:
        bad.append(f"no findings or exit {r.returncode}")
    print(f"{os.path.basename(core)}: summary checked ({len(doc['findings'])} findings); "
          f"{len(bad)} problems")
    for b in bad:
        print("  " + b)
    if bad:
        print(head)
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main())
