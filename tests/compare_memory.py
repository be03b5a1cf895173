#!/usr/bin/env python3
"""`beamcore memory --json` against erlang:memory() and
erlang:system_info({allocator, A}) written by the live VM (memory.json) after the
node settled, just before the core was taken.

atom, atom_used, code and ets must match exactly. total, processes,
processes_used, system and binary may differ by up to 1%: the process writing
memory.json allocates its result and file buffers after taking the figures.
Allocator instances: blocks and carriers sizes within 1% or 256 KiB (the writer's own heap);
on a real system's node (ground truth lists "periodic" processes, which run on
their own timers) a carrier size may move by one carrier more (1 MiB) between
memory.json and the core, as fixture.memory_mismatches says.
target.process_count and process_limit as `procs` says them (memory reads no
process: issue 21 part 7, it said 0), and as the live node counted them (a
core or dump: a running node read with --pid counts at the read).
Usage: compare_memory.py BEAMCORE FIXTURE CORE (FIXTURE under $BEAMCORE_FIXTURES)."""
import os, sys
from fixture import Fixture, memory_mismatches

def main():
    fx = Fixture(sys.argv)
    if not os.path.exists(os.path.join(fx.dir, "memory.json")):
        print(f"SKIP: {fx.dir} has no memory.json (regenerate the fixture)")
        return 1 if os.environ.get("CI") == "true" else 77  # CI: no skips
    doc = fx.json("memory")
    gt = fx.truth
    report, bad = memory_mismatches(doc, fx.json_file("memory.json"), "periodic" in gt,
                                    running=doc["target"]["kind"] == "live")
    tgt, procs = doc["target"], fx.json("procs", "--top", "1", ok=(0, 1))["target"]
    for k in ("process_count", "process_limit"):
        if tgt[k] != procs[k]:
            bad.append(f"target.{k}: memory says {tgt[k]}, procs {procs[k]}")
    # a running node (--pid) counts at the read, not when memory.json was
    # written: processes come and go in between (15,728 read, 15,727 written)
    live = tgt.get("kind") == "live"
    if (gt.get("process_count") is not None and not live and
            tgt["process_count"] != gt["process_count"]):
        bad.append(f"target.process_count {tgt['process_count']}, live {gt['process_count']}")
    print(f"{fx.name}: erlang:memory() {', '.join(report)}; {len(bad)} mismatches")
    if bad and gt_mem_unsettled(fx):
        print("  (memory.json was written on a node whose memory never held still for 100 ms)")
    for b in bad[:40]:
        print("  MISMATCH " + b)
    return 1 if bad else 0

def gt_mem_unsettled(fx):
    return fx.json_file("memory.json").get("settled") is False

if __name__ == "__main__":
    sys.exit(main())
