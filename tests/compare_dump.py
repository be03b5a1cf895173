#!/usr/bin/env python3
"""beamcore on an erl_crash.dump written on SIGUSR1 by the idle scenario node,
against the ground truth the live node wrote just before (testdata/capture.sh
--dump): procs, ets, memory and summary, every number the dump carries. Also on
a real application's node (testdata/capture-rabbitmq.sh, capture-elixir.sh
--dump): the same, but none of the scenario's culprits. procs' default sort puts
a process whose total_heap_size the dump cannot give above every process whose
known one is smaller than its live one.

Processes: every live process must be in the dump. Idle ones (waiting, not the
collector, not the signal handler that wrote the dump) must match exactly on
every field the dump carries. A field may be null only where the dump cannot
carry it: total_heap_size of a process with queued messages (process_info adds
their heap fragments, the dump does not size them). Reductions are the live
value + 1 (answering the collector's process_info costs one, as in cores).
ETS: every field of ets:info/1; the id of a named table is null (a dump prints
the name in its place), of an unnamed one exact. Memory: as compare_memory.py.
Usage: compare_dump.py BEAMCORE FIXTURE DUMP (FIXTURE under $BEAMCORE_FIXTURES).
Exit 0 pass, 1 fail, 77 skip."""
import json, os, re, subprocess, sys
from fixture import memory_mismatches, reductions_ok, EXACT_MEM

FIELDS = ["registered_name", "initial_call", "current_function", "status", "heap_size",
          "stack_size", "message_queue_len", "memory"]

bad = []

def run(bc, *args):
    r = subprocess.run([bc, *args, "--json"], capture_output=True, text=True, timeout=300)
    if "Sanitizer" in r.stderr or "runtime error:" in r.stderr:
        bad.append(f"{' '.join(args)}: sanitizer: {r.stderr[-1500:]}")
    if r.returncode != 0:
        bad.append(f"{' '.join(args)}: exit {r.returncode}: {r.stderr.strip()[:300]}")
        return None
    doc = json.loads(r.stdout)
    if not doc["complete"] or doc["missing"]:
        bad.append(f"{' '.join(args)}: complete dump reported partial: {doc['missing'][:3]}")
    return doc

def procs(bc, dump, gt):
    doc = run(bc, "procs", dump)
    if not doc:
        return
    got = {p["pid"]: p for p in doc["processes"]}
    running = {p["pid"] for p in doc["processes"] if p["status"] != "waiting"}
    # (a real application's node: processes it saw run on their own timers
    # may run again before the dump, ground truth "periodic")
    periodic = set(gt.get("periodic", []))
    idle = [p for p in gt["processes"] if p["status"] == "waiting"
            and p["pid"] != gt["collector"] and p["pid"] not in running and p["pid"] not in periodic]
    nulls, compared = 0, 0
    for p in gt["processes"]:
        q = got.get(p["pid"])
        if q is None:
            bad.append(f"{p['pid']}: missing from the dump's processes")
            continue
        if p not in idle:
            continue
        name = p.get("registered_name") or p.get("initial_call")
        live = dict((f, p[f]) for f in FIELDS)
        compared += 1
        if not reductions_ok(p, q["reductions"]):
            bad.append(f"{p['pid']} ({name}) reductions: live {p['reductions']} (+1), "
                       f"dump {q['reductions']!r}")
        live["link_count"] = len(p["links"])
        live["monitor_count"] = p["monitors"]
        live["monitored_by_count"] = p["monitored_by"]
        for f, want in live.items():
            compared += 1
            if q.get(f) != want:
                bad.append(f"{p['pid']} ({name}) {f}: live {want!r}, dump {q.get(f)!r}")
        ths = q["total_heap_size"]
        if ths is None:
            nulls += 1
            if not p["message_queue_len"]:
                bad.append(f"{p['pid']} ({name}) total_heap_size null with no queued messages")
        elif ths != p["total_heap_size"]:
            bad.append(f"{p['pid']} ({name}) total_heap_size: live {p['total_heap_size']}, dump {ths}")
    extra = set(got) - {p["pid"] for p in gt["processes"]}
    # the default sort (total_heap_size): a process whose size the dump cannot
    # give ranks above every process whose known size is below its live one
    # (issue 21 part 7: the largest sank to the last row)
    live_ths = {p["pid"]: p["total_heap_size"] for p in gt["processes"]}
    unknown = 0
    for i, q in enumerate(doc["processes"]):
        want = live_ths.get(q["pid"])
        if q["total_heap_size"] is not None or not want:
            continue
        unknown += 1
        above = [r["pid"] for r in doc["processes"][:i]
                 if r["total_heap_size"] is not None and r["total_heap_size"] < 0.9 * want]
        if above:
            bad.append(f"procs: {q['pid']} (total_heap_size unknown, live {want:,} words) is row "
                       f"{i + 1}, below {len(above)} with a smaller known one, e.g. {above[:3]}")
    print(f"procs: {len(gt['processes'])} live, {len(got)} in the dump, {len(idle)} idle compared "
          f"on {len(FIELDS) + 4} fields ({compared} values); total_heap_size null for {nulls} "
          f"with queued messages; sort checked for {unknown} with it unknown; only in the dump: {len(extra)}")

def ets(bc, dump, gt):
    doc = run(bc, "ets", dump)
    if not doc:
        return
    by_key = {}
    for t in doc["ets"]:
        by_key.setdefault(t["id"] or (t["owner"], t["name"]), []).append(t)
    owners = {p["pid"]: p["registered_name"] for p in gt["processes"]}
    for t in gt["ets"]:
        key = (t["owner"], t["name"]) if t["named_table"] else t["id"]
        qs = by_key.pop(key, [])
        if len(qs) != 1:
            bad.append(f"ETS {t['name']} ({t['id']}): {len(qs)} in the dump")
            continue
        q = qs[0]
        for f in ["name", "named_table", "owner", "type", "protection", "size", "memory"]:
            if q[f] != t[f]:
                bad.append(f"ETS {t['name']} {f}: live {t[f]!r}, dump {q[f]!r}")
        want_id = None if t["named_table"] else t["id"]
        if q["id"] != want_id:
            bad.append(f"ETS {t['name']} id: want {want_id!r}, dump {q['id']!r}")
        if q["owner_name"] != owners.get(t["owner"]):
            bad.append(f"ETS {t['name']} owner_name {q['owner_name']!r}")
    for k in by_key:
        bad.append(f"ETS {k}: only in the dump")
    print(f"ets: {len(gt['ets'])} live tables compared on 9 fields")

def stacks(bc, dump, gt):
    """current_stacktrace: a dump does not record backtrace_depth, so it gives
    the whole stack (to 1024 frames): equal to the live one when that is
    shorter than the depth, the live one its prefix otherwise."""
    doc = run(bc, "stacks", dump)
    if not doc:
        return
    got = {p["pid"]: p["current_stacktrace"] for p in doc["processes"]}
    running = {p["pid"] for p in doc["processes"] if p.get("status", "waiting") != "waiting"}
    depth = gt["backtrace_depth"]
    n = deeper = 0
    periodic = set(gt.get("periodic", []))
    for p in gt["processes"]:
        if p["status"] != "waiting" or p["pid"] == gt["collector"] or p["pid"] in running \
                or p["pid"] in periodic:
            continue
        g, w = got.get(p["pid"]), p["current_stacktrace"]
        n += 1
        if g is None or g[:len(w)] != w or (len(w) < depth and g != w):
            bad.append(f"{p['pid']} ({p['registered_name'] or p['initial_call']}) stack: "
                       f"live {w[:6]}, dump {g and g[:6]}")
        deeper += g is not None and len(g) > len(w)
    callers = [p["pid"] for p in gt["processes"] if p["initial_call"] == "beamcore_scenario:caller/0"]
    want = next((p["current_stacktrace"] for p in gt["processes"] if p["pid"] in callers[:1]), None)
    group = next((g for g in doc["groups"] if g["current_stacktrace"] == want), None)
    if callers and (not group or sorted(group["pids"]) != sorted(callers)):
        bad.append(f"the {len(callers)} callers of stuck_server are not one group")
    print(f"stacks: {n} idle stacks compared frame by frame ({deeper} deeper than "
          f"backtrace_depth {depth}); {len(callers)} callers in one group: {bool(group)}")

def memory(bc, dump, live, periodic=False):
    doc = run(bc, "memory", dump)
    if not doc:
        return
    report, mismatches = memory_mismatches(doc, live, periodic)
    bad.extend(mismatches)
    print(f"memory: {', '.join(report)}")

def summary(bc, dump, gt, live):
    doc = run(bc, "summary", dump)
    text = subprocess.run([bc, dump], capture_output=True, text=True, timeout=300)
    if not doc:
        return
    # the heading and the findings: what comes before the first table
    head = text.stdout.split("\nerlang:memory()\n", 1)[0]
    # the scenario's culprits (a real application's node has none of them)
    scenario = "application" not in gt
    for want in ("slogan Received SIGUSR1",) + (("sessions_server holds",
                 "1,500 of them beamcore_scenario:idle/1") if scenario else ()):
        if want not in head:
            bad.append(f"summary text: first lines lack {want!r}")
    flooded = [l for l in head.splitlines() if "flooded" in l and "100,000 messages" in l]
    if not flooded and scenario:
        bad.append("summary text: first lines do not name flooded's 100,000 messages")
    # its total_heap_size is unknown in a dump (its messages' fragments are not
    # recorded): "?", or what the dump records of its heaps as the least it can
    # be, no more than the live node's
    live_ths = {p.get("registered_name"): p["total_heap_size"] for p in gt["processes"]}
    for l in (l for l in flooded if "total_heap_size" in l):
        m = re.search(r"total_heap_size (\?|at least ([\d,]+)) words", l)
        if not m or (m.group(2) and "flooded" in live_ths and
                     int(m.group(2).replace(",", "")) > live_ths["flooded"]):
            bad.append(f"summary text: flooded's unknown total_heap_size as a bound "
                       f"(live {live_ths.get('flooded')}): {l}")
    d = doc["target"]["death"]
    if not d or d["slogan"] != "Received SIGUSR1" or not d["culprit"]:
        bad.append(f"summary death {d}")
    if doc["target"]["otp_release"] != gt["otp_release"] or \
            doc["target"]["erts_version"] != gt["erts_version"] or \
            doc["target"]["node"] != gt["node"] or doc["target"]["atom_limit"] != gt["atom_limit"] \
            or doc["target"]["schedulers"] != gt["schedulers"]:
        bad.append(f"summary target {doc['target']}")
    live_procs = [p for p in gt["processes"] if p["pid"] != gt["collector"]]
    top = max(live_procs, key=lambda p: p["memory"])
    got = doc["processes"][0]
    if (got["pid"], got["memory"]) != (top["pid"], top["memory"]):
        bad.append(f"top process {got['pid']} {got['memory']} != live {top['pid']} {top['memory']}")
    q = max(live_procs, key=lambda p: p["message_queue_len"])
    gq = doc["message_queues"][0] if doc["message_queues"] else {"pid": None, "message_queue_len": 0}
    if q["message_queue_len"] and (gq["pid"], gq["message_queue_len"]) != (q["pid"], q["message_queue_len"]):
        bad.append(f"longest queue {gq['pid']} != live {q['pid']} {q['message_queue_len']}")
    e = max(gt["ets"], key=lambda t: t["memory"])
    ge = doc["ets"][0]
    if (ge["name"], ge["size"], ge["memory"]) != (e["name"], e["size"], e["memory"]):
        bad.append(f"largest ETS {ge} != live {e}")
    for k in EXACT_MEM:
        if doc["memory"][k] != live["memory"][k]:
            bad.append(f"summary memory {k} {doc['memory'][k]} != live {live['memory'][k]}")
    print(f"summary: {len(doc['findings'])} findings, death {d['slogan']!r}, culprit {d['culprit']}")

def main():
    bc, fx, name = sys.argv[1], sys.argv[2], sys.argv[3]
    fx = os.path.join(os.environ.get("BEAMCORE_FIXTURES", "/nonexistent"), fx)
    dump = os.path.join(fx, name)
    if not os.path.exists(dump) or not os.path.exists(os.path.join(fx, "memory.json")):
        print(f"SKIP: no fixture {dump} (testdata/capture.sh REL DIR --dump)")
        return 1 if os.environ.get("CI") == "true" else 77  # CI: no skips
    gt = json.load(open(os.path.join(fx, "ground_truth.json")))
    live = json.load(open(os.path.join(fx, "memory.json")))
    procs(bc, dump, gt)
    ets(bc, dump, gt)
    stacks(bc, dump, gt)
    memory(bc, dump, live, "periodic" in gt)  # a real system's node
    summary(bc, dump, gt, live)
    print(f"{len(bad)} mismatches")
    for b in bad[:50]:
        print("  MISMATCH " + b)
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main())
