#!/usr/bin/env python3
"""What `beamcore --pid` costs the node it reads (issue 15): how long each
read stops it (target.stopped_ms) and the node's throughput around the read.

For each size N (default 15,000 and 200,000 processes) an OTP 25 node (our
DWARF build, run as testdata/capture.sh runs it) runs bench/live_load.erl: N
idle processes and, on every scheduler, a worker counting operations; a
sampler records the count every 10 ms. Meanwhile beamcore reads it RUNS times
with `procs --pid`, `summary --pid` (stopped) and `procs --pid --no-stop`,
one second apart. Per command: the stop (ms), the wall time of the run, the
throughput in the 10 ms windows during the run against the median of the
windows outside any run (the lowest window, as a share), and the work lost as
milliseconds of the whole node's throughput. Then the scenario node
(capture.sh 25 --live: 15,724 processes, a 55 MB heap, a 200,000-row ETS
table) for procs and summary's stop times.

  bench/live_stop.py [--sizes 15000,200000] [--runs 5] [--no-scenario] [--against BEAMCORE]
Environment: BEAMCORE (default build/beamcore). Needs OTP 25 built
(testdata/build-otp.sh 25) and ~1.5 GB of RAM at 200,000 processes."""
import argparse, collections, json, os, shutil, signal, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)

def otp25():
    otp = subprocess.run([os.path.join(TOP, "testdata", "build-otp.sh"), "25"], capture_output=True,
                         text=True, check=True).stdout.strip().splitlines()[-1]
    bindir = os.path.join(otp, "bindir")
    erts = [d for d in os.listdir("/usr/lib/erlang") if d.startswith("erts-")][0]
    os.makedirs(bindir, exist_ok=True)
    for f in os.listdir(f"/usr/lib/erlang/{erts}/bin"):
        dst = os.path.join(bindir, f)
        if not os.path.lexists(dst):
            os.symlink(f"/usr/lib/erlang/{erts}/bin/{f}", dst)
    for f in ("beam.smp", "erl_child_setup"):
        dst = os.path.join(bindir, f)
        if os.path.lexists(dst):
            os.unlink(dst)
        os.symlink(os.path.join(otp, "bin", "x86_64-pc-linux-gnu", f), dst)
    return bindir

WHY = collections.Counter()

def read(beamcore, pid, cmd, *extra, tag=""):
    t0 = time.time()
    r = subprocess.run([beamcore, cmd, "--pid", str(pid), "--json", *extra], capture_output=True,
                       text=True, timeout=600)
    t1 = time.time()
    doc = json.loads(r.stdout) if r.returncode in (0, 1) else {}
    if r.returncode:  # what made it partial (or failed): said after the table
        WHY[f"{cmd}{tag}: {(r.stderr.strip().splitlines() or ['?'])[0][:160]}"] += 1
    return {"cmd": " ".join([cmd, *extra]) + tag, "rc": r.returncode, "t0": t0 * 1000, "t1": t1 * 1000,
            "wall_ms": (t1 - t0) * 1000, "stopped_ms": doc.get("target", {}).get("stopped_ms"),
            "procs": doc.get("target", {}).get("process_count")}

def load_node(bins, bindir, n, runs, secs):
    work = tempfile.mkdtemp(prefix="bc-live-stop.", dir=os.environ.get("TMPDIR", "/var/tmp"))
    subprocess.run(["/usr/bin/erlc", "-o", work, os.path.join(HERE, "live_load.erl")], check=True)
    env = dict(os.environ, BINDIR=bindir, ROOTDIR="/usr/lib/erlang", EMU="beam", PROGNAME="erl")
    node = subprocess.Popen([os.path.join(bindir, "erlexec"), "-noshell", "+MIscs", "64", "+P", "1048576",
                             "-pa", work, "-run", "live_load", "start", str(n), work, str(secs)],
                            cwd=work, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        end = time.time() + 300
        while not os.path.exists(os.path.join(work, "ready")) and time.time() < end:
            time.sleep(0.2)
        time.sleep(2)  # the load's baseline
        started = time.time()
        runs_done = []
        for cmd in (("procs",), ("summary",), ("procs", "--no-stop")):
            for _ in range(runs):
                for tag, beamcore in bins:  # (with --against: the two binaries in turn)
                    runs_done.append(read(beamcore, node.pid, *cmd, tag=tag))
                    time.sleep(1)
        left = secs - (time.time() - started) - 2
        if left < 0:
            print(f"  (the runs took longer than the {secs} s sampled: raise it)")
        end = time.time() + 2 * secs + 120  # (10 ms sleeps take longer on a loaded machine)
        while not os.path.exists(os.path.join(work, "rates.txt")) and time.time() < end:
            time.sleep(0.5)
        time.sleep(0.5)
        samples = [tuple(map(int, l.split())) for l in open(os.path.join(work, "rates.txt"))]
    finally:
        node.kill()
        node.wait()
        shutil.rmtree(work, ignore_errors=True)
    # rate of each window: ops over its real length (a stop delays the sampler)
    wins = [(samples[i - 1][0], samples[i][0], samples[i][1]) for i in range(1, len(samples))]
    def busy(a, b):
        return any(a < r["t1"] + 20 and b > r["t0"] - 20 for r in runs_done)
    base = statistics.median(d / (b - a) for a, b, d in wins if b > a and not busy(a, b))  # ops/ms
    out = []
    for cmd in dict.fromkeys(r["cmd"] for r in runs_done):
        rs = [r for r in runs_done if r["cmd"] == cmd]
        lost, low = [], []
        for r in rs:
            w = [(a, b, d) for a, b, d in wins if a < r["t1"] and b > r["t0"]]
            span = sum(b - a for a, b, _ in w)
            lost.append(max(0.0, (base * span - sum(d for *_, d in w)) / base) if w else 0.0)
            low.append(min(d / (b - a) for a, b, d in w) / base if w else 1.0)
        st = [r["stopped_ms"] for r in rs if r["stopped_ms"] is not None]
        out.append((n, cmd, rs[0]["procs"], statistics.median(st) if st else None,
                    max(st) if st else None, statistics.median(r["wall_ms"] for r in rs),
                    statistics.median(lost), min(low), [r["rc"] for r in rs]))
    return base * 1000, out

def scenario(bins, runs):
    top = tempfile.mkdtemp(prefix="bc-live-stop-scn.", dir=os.environ.get("TMPDIR", "/var/tmp"))
    d = os.path.join(top, "otp25")
    subprocess.run(["bash", os.path.join(TOP, "testdata", "capture.sh"), "25", d, "--live"],
                   check=True, capture_output=True)
    pid = int(open(os.path.join(d, "pid")).read())
    try:
        res = []
        for cmd in ("procs", "summary"):
            rs = [read(b, pid, cmd, tag=tag) for _ in range(runs) for tag, b in bins]
            for tag, _ in bins:
                mine = [r for r in rs if r["cmd"] == cmd + tag]
                st = [r["stopped_ms"] for r in mine]
                res.append((cmd + tag, mine[0]["procs"], statistics.median(st), max(st),
                            statistics.median(r["wall_ms"] for r in mine)))
        return res
    finally:
        os.kill(pid, signal.SIGKILL)
        shutil.rmtree(top, ignore_errors=True)

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="15000,200000")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--no-scenario", action="store_true")
    ap.add_argument("--against", metavar="BEAMCORE", help="also read with this binary, in turn "
                    "with BEAMCORE (e.g. a build of main): its rows are marked [against]")
    a = ap.parse_args()
    beamcore = os.path.abspath(os.environ.get("BEAMCORE", os.path.join(TOP, "build", "beamcore")))
    bins = [("", beamcore)] + ([(" [against]", os.path.abspath(a.against))] if a.against else [])
    bindir = otp25()
    print(f"beamcore {' and '.join(b for _, b in bins)}; {os.cpu_count()} CPUs; load {open('/proc/loadavg').read().split()[:3]}")
    print(f"{'processes':>10} {'command':<26} {'stop ms (med/max)':>18} {'wall ms':>8} "
          f"{'lost ms':>8} {'lowest 10 ms':>13}  exits")
    for n in map(int, a.sizes.split(",")):
        base, rows = load_node(bins, bindir, n, a.runs,
                               30 + a.runs * 3 * len(bins) * (2 + n // 40000))
        for n_, cmd, procs, smed, smax, wall, lost, low, rcs in rows:
            stop = f"{smed:.0f} / {smax:.0f}" if smed is not None else "not stopped"
            print(f"{procs or n_:>10,} {cmd:<26} {stop:>18} {wall:>8.0f} {lost:>8.0f} "
                  f"{100 * low:>12.0f}%  {rcs}")
        print(f"{'':>10} (baseline {base:,.0f} ops/s on {n:,} processes)")
        for why, k in WHY.most_common():
            print(f"{'':>10} exit != 0, {k}x: {why}")
        WHY.clear()
    if not a.no_scenario:
        print("scenario node (capture.sh 25 --live):")
        for cmd, procs, smed, smax, wall in scenario(bins, a.runs):
            print(f"{procs:>10,} {cmd:<26} {f'{smed:.0f} / {smax:.0f}':>18} {wall:>8.0f}")

if __name__ == "__main__":
    sys.exit(main())
