#!/usr/bin/env python3
"""A native stack deeper than beamcore shows (a NIF 5,000 frames into its own
recursion when it segfaults, testdata/capture-crash.sh deep): the crashing
thread's backtrace is the recursion up to the limit and says it is cut, in
JSON ("frames_cut": true, unwind_stopped) and in text; no other thread is cut.
Usage: check_deep_stack.py BEAMCORE FIXTURE (FIXTURE under $BEAMCORE_FIXTURES)."""
import json, os, subprocess, sys

LIMIT = 4096  # src/beam/threads.c MAX_FRAMES

def main():
    bc, fx = sys.argv[1], os.path.join(os.environ.get("BEAMCORE_FIXTURES", "/nonexistent"), sys.argv[2])
    core = os.path.join(fx, "core")
    if not os.path.exists(core) or not os.path.exists(os.path.join(fx, "crash.json")):
        print(f"SKIP: no crash fixture {fx}")
        return 1 if os.environ.get("CI") == "true" else 77  # CI: no skips
    want = json.load(open(os.path.join(fx, "crash.json")))
    depth = want["native_depth"]
    bad = []
    r = subprocess.run([bc, "threads", core, "--json"], capture_output=True, text=True, timeout=300)
    threads = json.loads(r.stdout)["threads"]
    crashed = [t for t in threads if t["crash_site"]]
    if len(crashed) != 1:
        print(f"FAIL: {len(crashed)} crash sites")
        return 1
    c = crashed[0]
    rec = sum(1 for f in c["frames"] if f.startswith(want["c_function"] + "+"))
    if depth >= LIMIT:
        if len(c["frames"]) != LIMIT or rec != LIMIT or c["frames_cut"] is not True or \
                "cut" not in (c["unwind_stopped"] or ""):
            bad.append(f"crashing thread: {len(c['frames'])} frames ({rec} {want['c_function']}), "
                       f"frames_cut {c['frames_cut']}, unwind_stopped {c['unwind_stopped']!r}; want "
                       f"{LIMIT} and the cut said")
    elif rec != depth + 1 or c["frames_cut"]:
        bad.append(f"crashing thread: {rec} {want['c_function']} frames, want {depth + 1}, all shown")
    others = [t["tid"] for t in threads if t is not c and t["frames_cut"]]
    if others:
        bad.append(f"other threads cut: {others}")
    r = subprocess.run([bc, "threads", core], capture_output=True, text=True, timeout=300)
    if depth >= LIMIT and f"... (cut at {LIMIT} frames" not in r.stdout:
        bad.append("text output does not say where the backtrace is cut")
    print(f"{os.path.basename(fx)}: recursion {depth} deep, {len(c['frames'])} frames shown, "
          f"frames_cut {c['frames_cut']}; {len(bad)} problems")
    for b in bad:
        print("  " + b)
    return 1 if bad or r.returncode != 0 else 0

if __name__ == "__main__":
    sys.exit(main())
