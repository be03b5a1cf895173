#!/usr/bin/env python3
"""The cost of beamcore sample to the node it samples (issue 15 part 4), against
eprof and fprof on the same workload.

A node of OTP REL runs testdata/beamcore_busy.erl (busy_worker: one process
busy on one scheduler; the node logs its rounds every 100 ms). Each measured
window (beamcore sample at 10, 100 and 1000 Hz; eprof and fprof profiling the
worker, started inside the node) is preceded by an unmeasured window of the
same length: its throughput is the worker's rounds per CPU second of the node
(its scheduler thread, user + kernel, from /proc/self/task/*/schedstat: the cost
the sampler's interrupts and stack copies put on the node counts; the
machine's other load does not) and per wall second, relative to the window
before it. Each configuration is measured ROUNDS times; the median is shown.

usage: bench/sample_cost.py BEAMCORE [REL (29; 29-emu: the emu flavor)] [SECONDS (3)] [ROUNDS (3)]
Prints a markdown table (bench/README.md has one)."""
import json, os, shutil, signal, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
from sample_live import parse_log, rate  # noqa: E402


def wait_line(log, word, tool, since, timeout):
    """The node's "profiling Tool T0" / "profile Tool T0 T1" line after since."""
    end = time.time() + timeout
    while time.time() < end:
        for line in open(log):
            f = line.split()
            if f[:2] == [word, tool] and int(f[2]) / 1000.0 >= since:
                return [int(x) / 1000.0 for x in f[2:]]
        time.sleep(0.2)
    return None


def main():
    beamcore = sys.argv[1]
    rel = sys.argv[2] if len(sys.argv) > 2 else "29"
    secs = float(sys.argv[3]) if len(sys.argv) > 3 else 3.0
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    work = tempfile.mkdtemp(prefix="bc-bench-")
    node = None
    res = {}
    try:
        r = subprocess.run(["bash", os.path.join(HERE, "..", "testdata", "busy-node.sh"), rel.split("-")[0],
                            work, *(["--emu"] if rel.endswith("-emu") else [])],
                           capture_output=True, text=True, timeout=900, check=True)
        node = int(r.stdout.split()[-1])
        log = os.path.join(work, "busy.log")
        time.sleep(1)
        configs = os.environ.get("BENCH_CONFIGS", "10 Hz,100 Hz,1000 Hz,eprof,fprof").split(",")
        for _ in range(rounds):
            for c in configs:
                time.sleep(secs + 0.3)  # the window before
                if c.endswith("Hz"):
                    t = subprocess.run([beamcore, "sample", "--pid", str(node), "--seconds", str(secs),
                                        "--hz", c.split()[0], "--json"], capture_output=True, text=True,
                                       timeout=120)
                    if t.returncode != 0:
                        raise SystemExit(f"sample: {t.stderr}")
                    d = json.loads(t.stdout)
                    t0, t1 = d["start"], d["start"] + d["seconds"]
                    extra = d["samples"]
                else:
                    mark = time.time()
                    with open(log + ".ctl", "w") as f:
                        f.write(f"{c} {secs}\n")
                    t0 = wait_line(log, "profiling", c, mark - 1, 60)[0]
                    t1 = t0 + secs  # the profiler's window; stopping may take longer
                    time.sleep(max(0, t1 + 0.5 - time.time()))
                    extra = wait_line(log, "profile", c, mark - 1, 120)
                    if not extra:  # fprof's stop drains its trace for minutes: measured, then left
                        print(f"  {c}: still stopping after 120 s; the node is restarted", file=sys.stderr)
                time.sleep(0.3)  # the tick after the window
                _, ticks = parse_log(log)
                bw, bc = rate(ticks, t0 - secs - 0.2, t0 - 0.2)
                dw, dc = rate(ticks, t0 + 0.1, t1 - 0.1)
                res.setdefault(c, []).append((100.0 * (dc - bc) / bc, 100.0 * (dw - bw) / bw, extra))
                print(f"  {c}: per CPU s {100.0 * (dc - bc) / bc:+.1f}%, per wall s "
                      f"{100.0 * (dw - bw) / bw:+.1f}%", file=sys.stderr)
                if not c.endswith("Hz") and not extra:
                    os.kill(node, signal.SIGKILL)
                    r = subprocess.run(["bash", os.path.join(HERE, "..", "testdata", "busy-node.sh"),
                                        rel.split("-")[0], work, *(["--emu"] if rel.endswith("-emu") else [])],
                                       capture_output=True, text=True, timeout=900, check=True)
                    node = int(r.stdout.split()[-1])
                    time.sleep(1)
                elif not c.endswith("Hz"):
                    time.sleep(1)  # let the tool's tear-down pass
    finally:
        if node:
            os.kill(node, signal.SIGKILL)
        shutil.rmtree(work, ignore_errors=True)
    print(f"| observer ({rel}, {secs:g} s windows, median of {rounds}) | throughput per CPU second | per wall second |")
    print("|---|---|---|")
    for c, v in res.items():
        print(f"| {c} | {statistics.median(x[0] for x in v):+.1f}% | {statistics.median(x[1] for x in v):+.1f}% |")


if __name__ == "__main__":
    main()
