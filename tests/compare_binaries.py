#!/usr/bin/env python3
"""`beamcore binaries --json` against process_info(P, binary) of every process,
written by the live VM just before the core was taken. For every idle process:
the distinct binaries of that list, their bytes and the references (the list's
length), and the bytes it alone references (refc equal to its references: at
least those; beamcore also counts its writable binaries, its queued messages'
and its ports'); for every binary those processes hold: size, refc and holders.
On the fixtures with memory.json: the attribution sums to erlang:memory(binary)
(each share within it, the sum within 2%).
Usage: compare_binaries.py BEAMCORE FIXTURE CORE (FIXTURE under $BEAMCORE_FIXTURES)."""
import os, sys
from fixture import Fixture, idle_processes

def attribution_bad(fx, doc):
    """The attribution against memory.json: [] or the mismatches."""
    path = os.path.join(fx.dir, "memory.json")
    if not os.path.exists(path):
        return []
    live = fx.json_file("memory.json")["memory"]["binary"]
    a = doc["attribution"]
    shares = [v for k, v in a.items() if k not in ("binary", "unattributed") and v is not None]
    total = sum(shares) + a["unattributed"]
    print(f"{fx.name}: attribution {a}; erlang:memory(binary) live {live:,}")
    bad = []
    if abs(a["binary"] - live) > 0.02 * live:
        bad.append(f"attribution binary {a['binary']:,}, live {live:,}")
    if abs(total - live) > 0.02 * live:
        bad.append(f"attribution sums to {total:,}, live erlang:memory(binary) {live:,}")
    return bad

def queue_bad(fx, gt, holders):
    """The binaries only queued messages hold (the scenario's off_heap process:
    ground truth `queued_binaries`), and a busy port's sender: the binary it
    and its port's queue hold is its alone ("only holder of" it all)."""
    bad = []
    q = gt.get("queued_binaries")
    if q:
        h = holders.get(q["pid"]) or {}
        got = (h.get("message_queue_count"), h.get("message_queue_bytes"))
        print(f"{fx.name}: {q['pid']} in its message queue: live {q['count']} binaries, "
              f"{q['bytes']:,} bytes; beamcore {got}")
        if got != (q["count"], q["bytes"]):
            bad.append(f"{q['pid']} message_queue_count/bytes: live {(q['count'], q['bytes'])}, beamcore {got}")
        # the summary says where they sit, not "keeps alive what others dropped"
        said = [f["text"] for f in fx.json("summary", ok=(0, 1))["findings"]
                if f["kind"] == "binary_holder" and f["pid"] == q["pid"]]
        if q["bytes"] >= 2**20 and not (said and "not received yet" in said[0]):
            bad.append(f"summary on {q['pid']}'s queued binaries: {said}")
    path = os.path.join(fx.dir, "ports.json")
    ports = fx.json_file("ports.json") if os.path.exists(path) else []
    ports = ports["ports"] if isinstance(ports, dict) else ports
    for p in ports:
        h = holders.get(p["connected"])
        if p.get("busy") and h and h["exclusive_bytes"] != h["bytes"]:
            bad.append(f"{p['connected']} (sender on busy {p['id']}): exclusive_bytes "
                       f"{h['exclusive_bytes']}, its binaries {h['bytes']} (its port's queue holds the rest)")
    return bad

def dump_main(fx):
    """A crash dump: each idle process's distinct binaries its heap shows are
    among those process_info(P, binary) listed (an unreachable one, still on
    the off-heap list live, is not dumped): never more, and all of them for
    most processes."""
    gt = fx.truth
    doc = fx.json("binaries", ok=(1,))
    holders = {h["pid"]: h for h in doc["holders"]}
    bad, same, fewer, untold = [], 0, 0, []
    for p in idle_processes(gt):
        want = {a: size for a, size, _ in p["binary"]}
        h = holders.get(p["pid"])
        got = (h["count"], h["bytes"]) if h else (0, 0)
        if got[0] is None:
            # queued messages' terms are written among the heap's: which
            # binaries are only a message's the dump does not say (null, a gap)
            untold.append(p["pid"])
            if not p.get("message_queue_len"):
                bad.append(f"{p['pid']}: binaries null with no queued message")
        elif got == (len(want), sum(want.values())):
            same += 1
        elif got[0] <= len(want) and got[1] <= sum(want.values()):
            fewer += 1
        else:
            bad.append(f"{p['pid']} dumped binaries (count, bytes) {got}, live {(len(want), sum(want.values()))}")
    qb = gt.get("queued_binaries")
    if qb and qb["pid"] not in untold:
        bad.append(f"{qb['pid']} (its queue holds {qb['count']} binaries): its dumped binaries "
                   f"{holders.get(qb['pid'])}, not unknown")
    if untold and not any("queued messages" in m for m in doc["missing"]):
        bad.append("binaries of queued messages not told apart, and no gap says so")
    a = doc["attribution"]
    if a["processes"] != sum(b["size"] for b in doc["binaries"]) or a["unattributed"] is not None:
        bad.append(f"attribution {a}: processes is the dumped binaries' sizes, the rest null")
    if fewer > 0.01 * (same + fewer):
        bad.append(f"{fewer} of {same + fewer} idle processes show fewer binaries than live")
    print(f"{fx.name}: {same} idle processes' dumped binaries equal process_info(P, binary)'s, "
          f"{fewer} fewer, {len(untold)} unknown (queued messages: {untold[:3]}); "
          f"{len(bad)} mismatches")
    for b in bad[:40]:
        print("  MISMATCH " + b)
    return 1 if bad else 0

def main():
    fx = Fixture(sys.argv)
    if sys.argv[3].endswith(".dump"):
        return dump_main(fx)
    gt = fx.truth
    # partial only for what is not attributed (said in "missing")
    doc = fx.json("binaries", ok=(0, 1))
    others = [m for m in doc["missing"] if "not attributed" not in m]
    if doc["complete"] is False and (others or not doc["missing"]):
        print(f"FAIL: beamcore binaries partial: {others or doc['missing_total']}")
        return 1
    holders = {h["pid"]: h for h in doc["holders"]}
    bins = {b["address"]: b for b in doc["binaries"]}
    idle = idle_processes(gt)
    bad, nbins = [], 0
    for p in idle:
        want = p["binary"]
        h = holders.get(p["pid"])
        distinct = {a: (size, refc) for a, size, refc in want}
        uses = {}
        for a, _, _ in want:
            uses[a] = uses.get(a, 0) + 1
        exp = (len(distinct), sum(v[0] for v in distinct.values()), len(want))
        got = (h["count"], h["bytes"], h["references"]) if h else (0, 0, 0)
        if got != exp:
            bad.append(f"{p['pid']} ({p['registered_name']}) count/bytes/references: live {exp}, beamcore {got}")
        alone = sum(v[0] for a, v in distinct.items() if v[1] == uses[a])
        held = h["bytes"] + h["wrt_bins_bytes"] + h["message_queue_bytes"] if h else 0
        if h and not alone <= h["exclusive_bytes"] <= held:
            bad.append(f"{p['pid']} exclusive_bytes {h['exclusive_bytes']}: live at least {alone}, at most {held}")
        for addr, (size, refc) in distinct.items():
            nbins += 1
            b = bins.get(addr)
            if not b or (b["size"], b["refc"]) != (size, refc) or p["pid"] not in b["holders"]:
                bad.append(f"{p['pid']} binary {addr:#x} size {size} refc {refc}: beamcore {b}")
    bad += attribution_bad(fx, doc)
    bad += queue_bad(fx, gt, holders)
    held = sum(1 for p in idle if p["binary"])
    print(f"{fx.name}: {held} idle holders, {nbins} references compared; "
          f"{len(bad)} mismatches")
    for b in bad[:40]:
        print("  MISMATCH " + b)
    return 1 if bad or held == 0 else 0

if __name__ == "__main__":
    sys.exit(main())
