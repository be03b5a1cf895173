#!/usr/bin/env python3
"""target.os_pid of every core fixture is the OS pid the live node wrote (issue 21:
null for a gcore): kernel cores and gcores carry it in NT_PRPSINFO. The node's own
word: the fixture's `pid` file, else os_pid in ground_truth.json, truth1.json
(capture-grow.sh) or crash.json (capture-crash.sh's kill). A crash dump records no
OS pid: null. Usage: check_os_pid.py BEAMCORE (every fixture under $BEAMCORE_FIXTURES)."""
import glob, json, os, subprocess, sys
from fixture import every_core, report

def truth_pid(d):
    if os.path.exists(os.path.join(d, "pid")):
        return int(open(os.path.join(d, "pid")).read())
    for name in ("ground_truth.json", "truth1.json", "crash.json"):
        try:
            v = json.load(open(os.path.join(d, name))).get("os_pid")
        except (OSError, ValueError):
            continue
        if v is not None:
            return int(v)
    return None

def os_pid(bc, path):
    """target.os_pid, with the fixture's beam.smp when it names one (a stock
    node's in a chroot is not where the core says); an error: its line."""
    beam = os.path.join(os.path.dirname(path), "beam.smp.path")
    extra = [open(beam).read().strip()] if os.path.exists(beam) and "core" in \
        os.path.basename(path) else []
    r = subprocess.run([bc, "memory", path, *extra, "--json"], capture_output=True, text=True,
                       timeout=300)
    try:
        return json.loads(r.stdout)["target"]["os_pid"]
    except (ValueError, KeyError):
        return f"(exit {r.returncode}: {r.stderr.strip()[:200]})"

def main():
    bc = sys.argv[1]
    root, cores = every_core()
    bad, checked, untold = [], 0, []
    for core in cores:
        want = truth_pid(os.path.dirname(core))
        got = os_pid(bc, core)
        name = os.path.relpath(core, root)
        if want is None:  # the node wrote no pid: at least one was read
            untold.append(name)
            if not isinstance(got, int) or got <= 0:
                bad.append(f"{name}: os_pid {got}")
            continue
        checked += 1
        if got != want:
            bad.append(f"{name}: os_pid {got}, the node's {want}")
    dumps = sorted(glob.glob(os.path.join(root, "*", "erl_crash.dump")))
    for d in dumps:
        got = os_pid(bc, d)
        if got is not None:
            bad.append(f"{os.path.relpath(d, root)}: os_pid {got} (a dump records none)")
    print(f"{checked} cores: os_pid equal to the node's; {len(untold)} without a pid written "
          f"(a pid read); {len(dumps)} dumps: null")
    return report(bad)

if __name__ == "__main__":
    sys.exit(main())
