#!/usr/bin/env python3
"""beamcore --pid on a running node (issue 15): capture.sh --live starts the
scenario node of OTP REL and leaves it idle after writing its ground truth.
  1. procs, ets, memory and every command's schema read with --pid (stopped:
     a copy taken while stopped, copied_bytes; two reads agree; --max-stop
     passed gives a racy read, or with --max-stop-fail exit 2):
     every idle process exactly as the ground truth (compare_procs.py & co.);
     the stop time said (target.stopped_ms, the text header); the node keeps
     running afterwards (its heartbeat file advances; not traced, not stopped).
  2. bad input: a pid that is not beam.smp (a sleep: left running, untraced),
     one that does not exist, another user's node (setpriv): one line, exit 2;
     --pid with diff, --no-stop without --pid, --pid abc: exit 64.
  3. SIGINT/SIGTERM sent to beamcore in the middle of a stopped read: the node
     is left running (not traced, not stopped).
  4. the live TUI (tmux): REDS/S refreshes, largest first, with and without
     --stop; q exits 0, the node runs on.
  5. --no-stop while the node churns (processes spawned and exiting, ETS
     filled and emptied, queues, heaps): RUNS reads (procs, ets, memory,
     summary, stacks in turn) each exit 0 or 1 in time with valid JSON,
     racy true; then a stopped read of the churning node is complete and its
     process count plausible; then the node is killed in the middle of a read:
     exit 0, 1 or 2 in time, never a crash.
Usage: check_live.py BEAMCORE CAPTURE_SH REL. Exit 0 pass, 1 fail, 77 skip."""
import json, os, shutil, signal, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
CI = os.environ.get("CI") == "true"
RUNS = int(os.environ.get("BEAMCORE_LIVE_RUNS", "20"))

def state(pid):
    """(State letter, TracerPid) of pid, or (None, None) when gone."""
    try:
        st = dict(l.split(":", 1) for l in open(f"/proc/{pid}/status").read().splitlines() if ":" in l)
        return st["State"].split()[0], int(st["TracerPid"])
    except OSError:
        return None, None

def heartbeat(d):
    try:
        return int(open(os.path.join(d, "heartbeat")).read().strip() or 0)
    except (OSError, ValueError):
        return 0

def running(pid, bad, label):
    s, tracer = state(pid)
    if s is None or s in "tTZX" or tracer:
        bad.append(f"{label}: pid {pid} state {s}, TracerPid {tracer}: not left running")

def ticks(d, bad, label):
    """The node's heartbeat must advance: it still runs its code."""
    a = heartbeat(d)
    t = time.time()
    while heartbeat(d) <= a and time.time() - t < 5:
        time.sleep(0.05)
    if heartbeat(d) <= a:
        bad.append(f"{label}: the node's heartbeat stopped at {a}")

def run(argv, timeout=120, env=None):
    t = time.time()
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env)
        return r.returncode, r.stdout, r.stderr, time.time() - t
    except subprocess.TimeoutExpired:
        return "timeout", "", "", time.time() - t

def one_line(bad, label, rc, err, want=2, has=None):
    lines = err.strip().splitlines()
    if rc != want or len(lines) != 1 or (has and has not in lines[0]):
        bad.append(f"{label}: exit {rc} (want {want}), stderr {err.strip()[:300]!r}")
    else:
        print(f"{label}: exit {rc}: {lines[0]}")

def tui(beamcore, pid, bad):
    """beamcore tui --pid in tmux: a top for the BEAM. Sorted by REDS/S, which
    is '-' on the first read and then numbers that refresh every --interval
    (the read time in the header moves), largest first; M sorts by memory, P
    back; --stop says how long each read stopped the node; q exits 0 and the
    node runs on."""
    if not shutil.which("tmux"):
        print("SKIP (tui part): no tmux")
        if CI:
            bad.append("tui: no tmux (CI=true: no skips)")
        return
    tmp = tempfile.mkdtemp(prefix="bc-live-tui.")
    sock = None
    def tmux(*a, check=True):
        return subprocess.run(["tmux", "-L", sock, "-f", "/dev/null", *a], capture_output=True,
                              text=True, check=check).stdout
    def screen():
        return tmux("capture-pane", "-p", check=False)
    def wait(what, pred, secs=60):
        end = time.time() + secs
        while time.time() < end:
            s = screen()
            if pred(s):
                return s
            time.sleep(0.1)
        bad.append(f"tui: {what}: timed out; screen:\n{screen()}")
        return None
    def rates(s):
        """REDS/S of the rows (the column under its heading), None for '-'"""
        ls = s.split("\n")
        head = next((l for l in ls if "REDS/S" in l), None)
        if head is None:
            return []
        end = head.index("REDS/S") + len("REDS/S")
        out = []
        for l in ls[3:]:
            if not l.startswith("<"):
                continue
            cell = l[end - 11:end].strip()
            out.append(None if cell == "-" else int(cell.replace(",", "")) if cell.replace(",", "").isdigit() else "?")
        return out
    def read_at(s):
        m = [w for w in s.split("\n")[0].split("|") if "live PID" in w]
        return m[0] if m else None
    for stop in (False, True):
        # a socket per terminal: a new server on one just killed can fail
        sock = f"bc-live-{os.getpid()}-{int(stop)}"
        status = os.path.join(tmp, "status")
        cmd = (f"sh -c 'LC_ALL=C.UTF-8 {os.path.abspath(beamcore)} tui --pid {pid} --interval 0.5"
               f"{' --stop' if stop else ''} 2>{tmp}/stderr; echo $? > {status}'")
        tmux("new-session", "-d", "-x", "150", "-y", "30", cmd)
        try:
            s = wait("first screen", lambda s: "REDS/S" in s and f"live PID {pid}" in s)
            if not s:
                return
            first = read_at(s)
            if "sorted by reductions/s" not in s:
                bad.append(f"tui: not sorted by reductions/s first: {s.splitlines()[1]!r}")
            s = wait("REDS/S numbers after a refresh",
                     lambda s: read_at(s) != first and rates(s) and isinstance(rates(s)[0], int))
            if not s:
                return
            second = read_at(s)
            s = wait("another refresh", lambda s: read_at(s) not in (first, second))
            if not s:
                return
            r = [x for x in rates(s) if x is not None]
            if not r or r[0] <= 0 or any(not isinstance(x, int) for x in r) or r != sorted(r, reverse=True):
                bad.append(f"tui: REDS/S not positive numbers, largest first: {r[:10]}; screen:\n{s}")
            if stop and "stopped" not in read_at(s):
                bad.append(f"tui --stop: the header does not say the stop: {read_at(s)!r}")
            if not stop and "not stopped" not in read_at(s):
                bad.append(f"tui: the header does not say 'not stopped': {read_at(s)!r}")
            print(f"tui{' --stop' if stop else ''}: {read_at(s).strip()}; top REDS/S {r[:3]}")
            tmux("send-keys", "M")
            wait("M: sorted by memory", lambda s: "sorted by memory" in s)
            tmux("send-keys", "P")
            wait("P: sorted by reductions/s", lambda s: "sorted by reductions/s" in s)
            tmux("send-keys", "q")
            end = time.time() + 30
            while not os.path.exists(status) and time.time() < end:
                time.sleep(0.1)
            rc = open(status).read().strip() if os.path.exists(status) else "none"
            if rc != "0":
                bad.append(f"tui: exit {rc}: {open(os.path.join(tmp, 'stderr')).read()[:300]}")
            os.unlink(status) if os.path.exists(status) else None
        finally:
            tmux("kill-server", check=False)
        running(pid, bad, f"after the tui{' --stop' if stop else ''}")
    shutil.rmtree(tmp, ignore_errors=True)

def main():
    beamcore, capture, rel = sys.argv[1], sys.argv[2], sys.argv[3]
    built = os.environ.get("BEAMCORE_OTP_CACHE") or os.path.expanduser("~/.cache/beamcore")
    if not any(n.startswith(f"otp-{rel}.") and os.path.exists(os.path.join(built, n, ".built"))
               for n in (os.listdir(built) if os.path.isdir(built) else [])):
        print(f"{'FAIL (CI=true)' if CI else 'SKIP'}: OTP {rel} not built (testdata/build-otp.sh {rel})")
        return 1 if CI else 77
    top = tempfile.mkdtemp(prefix="bc-live-", dir=os.environ.get("TMPDIR", "/var/tmp"))
    fx = f"otp{rel}"
    d = os.path.join(top, fx)
    pid = None
    bad = []
    try:
        r = subprocess.run(["bash", capture, rel, d, "--live"], capture_output=True, text=True,
                           timeout=600)
        if r.returncode != 0 or not os.path.exists(os.path.join(d, "pid")):
            print(r.stdout[-2000:], r.stderr[-2000:])
            print(f"{'FAIL' if CI else 'SKIP'}: capture.sh --live failed ({r.returncode})")
            return 1 if CI else 77
        pid = int(open(os.path.join(d, "pid")).read())
        beam = open(os.path.join(d, "beam.smp.path")).read().strip()
        print(r.stdout.strip().splitlines()[0], f"(OS pid {pid})")

        # 1. exact, stopped reads
        env = dict(os.environ, BEAMCORE_FIXTURES=top)
        for script in ("compare_procs.py", "compare_ets.py", "compare_memory.py", "check_schema.py"):
            rc, out, err, secs = run([sys.executable, os.path.join(HERE, script), beamcore, fx, "live"],
                                     timeout=900, env=env)
            tail = [l for l in out.splitlines() if "MISMATCH" in l or "FAIL" in l][:10]
            print(f"{script}: exit {rc} in {secs:.1f} s: {(out.strip().splitlines() or [''])[-1][:200]}")
            for l in tail:
                print("   ", l)
            if rc != 0:
                bad.append(f"{script} on the live node: exit {rc} {err.strip()[:200]}")
            running(pid, bad, f"after {script}")
        rc, out, err, secs = run([beamcore, "procs", "--pid", str(pid), "--json"])
        doc = json.loads(out) if rc in (0, 1) else {}
        t = doc.get("target", {})
        print(f"procs --json: exit {rc} in {secs:.2f} s; stopped {t.get('stopped_ms')} ms, "
              f"racy {t.get('racy')}, os_pid {t.get('os_pid')}, kind {t.get('kind')}")
        if rc != 0 or t.get("kind") != "live" or t.get("os_pid") != pid or t.get("racy") is not False \
                or not (isinstance(t.get("stopped_ms"), (int, float)) and 0 < t["stopped_ms"] < secs * 1000) \
                or not (isinstance(t.get("copied_bytes"), int) and t["copied_bytes"] > 0) \
                or not isinstance(t.get("racy_bytes"), int):
            bad.append(f"procs --json: exit {rc}, target {json.dumps(t)[:400]}")
        else:
            print(f"procs: copied {t['copied_bytes']} bytes while stopped, {t['racy_bytes']} read after")
        # the copy: a second read finds the same processes, each the same
        # (the scenario's processes are idle; reductions of the few that run move)
        rc2, out2, _, _ = run([beamcore, "procs", "--pid", str(pid), "--json", "--top", "1000000"])
        rc3, out3, _, _ = run([beamcore, "procs", "--pid", str(pid), "--json", "--top", "1000000"])
        if rc2 != 0 or rc3 != 0:
            bad.append(f"procs --top 1000000: exits {rc2}, {rc3}")
        else:
            one = {p["pid"]: p for p in json.loads(out2)["processes"]}
            two = {p["pid"]: p for p in json.loads(out3)["processes"]}
            moved = [k for k in one if k in two and {f: v for f, v in one[k].items() if f != "reductions"}
                     != {f: v for f, v in two[k].items() if f != "reductions"}]
            print(f"two snapshot reads: {len(one)} and {len(two)} processes, {len(moved)} differ")
            if len(one) != len(two) or len(moved) > max(3, len(one) // 1000):
                bad.append(f"two snapshot reads differ: {len(one)} vs {len(two)} processes, "
                           f"{len(moved)} changed: {moved[:5]}")
        # --max-stop: summary copies the 55 MB heap, more than 1 ms of copying
        rc, out, err, secs = run([beamcore, "summary", "--pid", str(pid), "--json", "--max-stop", "1"])
        t = json.loads(out).get("target", {}) if rc in (0, 1) else {}
        if rc not in (0, 1) or t.get("racy") is not True or not isinstance(t.get("stopped_ms"), (int, float)) \
                or t["stopped_ms"] > 250:
            bad.append(f"summary --max-stop 1: exit {rc}, target {json.dumps(t)[:300]} {err.strip()[:200]}")
        else:
            print(f"summary --max-stop 1: exit {rc}, racy, released after {t['stopped_ms']:.1f} ms, "
                  f"{t['copied_bytes']} bytes copied")
        rc, _, err, _ = run([beamcore, "summary", "--pid", str(pid), "--max-stop", "1", "--max-stop-fail"])
        one_line(bad, "summary --max-stop 1 --max-stop-fail", rc, err, has="--max-stop")
        rc, out, err, _ = run([beamcore, "memory", "--pid", str(pid), "--json", "--max-stop", "600000"])
        t = json.loads(out).get("target", {}) if rc in (0, 1) else {}
        if rc != 0 or t.get("racy") is not False or not t.get("copied_bytes"):
            bad.append(f"memory --max-stop 600000: exit {rc}, target {json.dumps(t)[:300]}")
        rc, out, err, _ = run([beamcore, "summary", "--pid", str(pid)])
        head = out.splitlines()[:2]
        if rc != 0 or not head or not head[0].startswith(f"live of PID {pid}:") or \
                "stopped for" not in head[1]:
            bad.append(f"summary text header: exit {rc}: {head}")
        else:
            print("summary:", head[1].strip())
        running(pid, bad, "after the stopped reads")
        ticks(d, bad, "after the stopped reads")

        # 2. bad input
        sleeper = subprocess.Popen(["sleep", "100"])
        rc, _, err, _ = run([beamcore, "procs", "--pid", str(sleeper.pid)])
        one_line(bad, "a sleep's pid", rc, err, has="not beam.smp")
        running(sleeper.pid, bad, "the sleep after beamcore refused it")
        sleeper.kill()
        sleeper.wait()
        rc, _, err, _ = run([beamcore, "procs", "--pid", str(sleeper.pid), "--json"])
        one_line(bad, "a pid that no longer exists", rc, err, has="no such process")
        for args, label in [(["diff", "--pid", str(pid)], "diff --pid"),
                            (["procs", "--no-stop", os.path.join(d, "pid")], "--no-stop without --pid"),
                            (["procs", "--pid", "abc"], "--pid abc"),
                            (["procs", "--pid", str(pid), "--no-stop", "--max-stop", "5"],
                             "--max-stop with --no-stop"),
                            (["procs", "--pid", str(pid), "--max-stop-fail"], "--max-stop-fail alone"),
                            (["procs", "--pid", str(pid), "--max-stop", "0"], "--max-stop 0"),
                            (["procs", "--pid", str(pid), "--interval", "1"], "procs --interval"),
                            (["procs", "--pid", str(pid), beam, beam], "--pid with two words")]:
            rc, _, err, _ = run([beamcore, *args])
            one_line(bad, label, rc, err, want=64)
        if os.geteuid() == 0 and shutil.which("setpriv"):
            rc, _, err, _ = run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                                 beamcore, "procs", "--pid", str(pid)])
            one_line(bad, "another user's node", rc, err, has="uid 0")
        running(pid, bad, "after the bad input")

        # 3. beamcore interrupted in the middle of a stopped read
        for sig in (signal.SIGINT, signal.SIGTERM):
            for delay in (0.02, 0.08):
                p = subprocess.Popen([beamcore, "stacks", "--pid", str(pid), "--json"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                time.sleep(delay)
                p.send_signal(sig)
                p.wait(timeout=30)
                time.sleep(0.05)
                running(pid, bad, f"{signal.Signals(sig).name} after {delay} s")
        ticks(d, bad, "after interrupted reads")
        print("interrupted reads: the node runs on")

        # 4. --no-stop on a churning node
        open(os.path.join(d, "churn"), "w").close()
        time.sleep(1.5)
        tui(beamcore, pid, bad)
        cmds = ["procs", "ets", "memory", "summary", "stacks"]
        rcs = {}
        worst = 0
        for i in range(RUNS):
            cmd = cmds[i % len(cmds)]
            rc, out, err, secs = run([beamcore, cmd, "--pid", str(pid), "--no-stop", "--json"], timeout=120)
            worst = max(worst, secs)
            rcs[rc] = rcs.get(rc, 0) + 1
            label = f"--no-stop run {i + 1} ({cmd})"
            if rc not in (0, 1):
                bad.append(f"{label}: exit {rc}: {err.strip()[:300]}")
                continue
            try:
                doc = json.loads(out)
            except ValueError as e:
                bad.append(f"{label}: not JSON: {e}")
                continue
            if doc["target"].get("racy") is not True or doc["target"].get("stopped_ms") is not None:
                bad.append(f"{label}: target racy {doc['target'].get('racy')}, "
                           f"stopped_ms {doc['target'].get('stopped_ms')}")
            if doc["complete"] != (rc == 0):
                bad.append(f"{label}: exit {rc}, complete {doc['complete']}")
            if "ERROR: AddressSanitizer" in err or "runtime error:" in err:
                bad.append(f"{label}: sanitizer: {err.strip()[:300]}")
        print(f"--no-stop on the churning node: {RUNS} runs, exits {rcs}, slowest {worst:.2f} s")
        running(pid, bad, "after the --no-stop reads")
        ticks(d, bad, "after the --no-stop reads")
        # (a process caught while being spawned or freed may be partly
        # unreadable, as in a core of a busy node: a few gaps, never many)
        rc, out, err, secs = run([beamcore, "procs", "--pid", str(pid), "--json"])
        doc = json.loads(out) if rc in (0, 1) else None
        if not doc or doc["missing_total"] > max(5, len(doc["processes"]) // 100) or \
                doc["target"]["racy"] or not doc["target"]["stopped_ms"]:
            bad.append(f"a stopped read of the churning node: exit {rc}: {err.strip()[:300]}")
        else:
            print(f"stopped read of the churning node: exit {rc}, {len(doc['processes'])} processes, "
                  f"{doc['missing_total']} gaps, stopped {doc['target']['stopped_ms']:.1f} ms")
        running(pid, bad, "after the stopped read of the churning node")
        # killed in the middle of a read
        p = subprocess.Popen([beamcore, "summary", "--pid", str(pid), "--json"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(0.05)
        os.kill(pid, signal.SIGKILL)
        try:
            out, err = p.communicate(timeout=60)
            if p.returncode not in (0, 1, 2) or (p.returncode == 2 and len(err.strip().splitlines()) != 1):
                bad.append(f"node killed mid-read: exit {p.returncode}: {err.strip()[:300]}")
            else:
                print(f"node killed mid-read: exit {p.returncode}"
                      f"{': ' + err.strip().splitlines()[0] if err.strip() else ''}")
        except subprocess.TimeoutExpired:
            p.kill()
            bad.append("node killed mid-read: beamcore hung")
    finally:
        if pid and state(pid)[0]:
            os.kill(pid, signal.SIGKILL)
        shutil.rmtree(top, ignore_errors=True)
    for b in bad:
        print("FAIL:", b)
    print("FAIL" if bad else "PASS")
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main())
