#!/usr/bin/env python3
"""beamcore export --format crashdump on a real core, read back by beamcore's
own dump loader and by OTP's crashdump_viewer, against the ground truth the
live node wrote just before the core was taken (testdata/capture.sh).

beamcore: procs, ets, stacks and memory of the written dump are compared as
compare_dump.py compares a dump the VM wrote itself (every idle process field,
every ETS table, erlang:memory() and the allocators), then check_identity.py,
check_terms.py and compare_proc.py run on it (the dictionaries, heaps and
message queues of the deep sections, decoded). crashdump_viewer
(tests/cdv_read.escript, headless; the core's own release's where its OTP
tree is built, else Debian's 25.2.3): it opens the file without a warning, lists
every process, every ETS table and the dump's =memory, and decodes the
messages, dictionary and stack of two processes from their heaps with no
"incomplete heap" warning. Bad input: a crash dump as the target, an
unwritable -o: exit 2, one line, no file left.
A crash fixture (testdata/capture-crash.sh: crash.json, no ground truth): the
export's slogan names the signal, its Calling Thread is the scheduler that
took it and beamcore reading it back names the process crash.json names as
the one running there; crashdump_viewer opens it and decodes that process.
Usage: check_crashdump.py BEAMCORE FIXTURE CORE (FIXTURE under $BEAMCORE_FIXTURES).
Exit 0 pass, 1 fail, 77 skip."""
import json, os, shutil, subprocess, sys, tempfile, time
import compare_dump
from fixture import Fixture, CI, SIGNAL_HELPERS, idle_processes

here = os.path.dirname(os.path.abspath(__file__))

def crash(fx, bad):
    """A core of a node that died by a signal (crash.json says who ran)."""
    want = fx.json_file("crash.json")
    tmp = tempfile.mkdtemp(prefix="bc-crashdump-")
    try:
        out = os.path.join(tmp, "crash.dump")
        r = subprocess.run([fx.beamcore, "export", fx.core, fx.beam, "--format", "crashdump",
                            "-o", out], capture_output=True, text=True, timeout=600)
        if r.returncode != 0:
            bad.append(f"export exit {r.returncode}: {r.stderr.strip()[:300]}")
            return
        s = subprocess.run([fx.beamcore, "summary", out, "--json"], capture_output=True,
                           text=True, timeout=300)
        doc = json.loads(s.stdout)
        d = doc["target"]["death"] or {}
        sig = want["signal"]
        if sig != "none" and f"({sig})" not in (d.get("slogan") or ""):
            bad.append(f"slogan {d.get('slogan')!r} does not name {sig}")
        if sig != "none" and d.get("culprit") != want["pid"]:
            bad.append(f"culprit {d.get('culprit')!r} (thread {d.get('thread')!r}), "
                       f"crash.json {want['pid']}")
        cmd, env, label = viewer_for(fx, tmp)
        if cmd:
            v = subprocess.run(cmd + [os.path.join(here, "cdv_read.escript"), out, want["pid"]],
                               capture_output=True, text=True, timeout=600, env=env)
            lines = v.stdout.splitlines()
            vd = json.loads(lines[-1]) if v.returncode == 0 and lines else None
            det = vd["details"][0] if vd and vd["details"] else {}
            if not vd or len(lines) > 1 or det.get("warning") != "[]" or \
                    "Return addr" not in (det.get("detail") or [""] * 37)[36]:
                bad.append(f"{label}: exit {v.returncode}: {(v.stderr + v.stdout)[-400:]}")
            else:
                print(f"{label}: {len(vd['processes'])} processes, {want['pid']}'s stack decoded")
        print(f"crash: slogan {d.get('slogan')!r}, thread {d.get('thread')}, culprit "
              f"{d.get('culprit')} (crash.json {want['pid']} {want['registered_name']})")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

def main():
    fx = Fixture(sys.argv)
    bc = fx.beamcore
    if os.path.exists(os.path.join(fx.dir, "crash.json")):
        crash(fx, compare_dump.bad)
        bad = compare_dump.bad
        print(f"{len(bad)} mismatches")
        for b in bad:
            print("  MISMATCH " + b)
        return 1 if bad else 0
    bad = compare_dump.bad
    tmp = tempfile.mkdtemp(prefix="bc-crashdump-")
    try:
        d = os.path.join(tmp, "fx")
        os.mkdir(d)
        # (ports.json: check_waits.py expects the busy port's waiters, which the
        # export's =port sections name, as the VM's own dumps do)
        for f in ("ground_truth.json", "memory.json", "beam.smp.path", "ports.json"):
            if f != "ports.json" or os.path.exists(os.path.join(fx.dir, f)):
                os.symlink(os.path.join(fx.dir, f), os.path.join(d, f))
        out = os.path.join(d, "export.dump")
        t0 = time.time()
        r = subprocess.run([bc, "export", fx.core, fx.beam, "--format", "crashdump", "-o", out],
                           capture_output=True, text=True, timeout=600)
        took = time.time() - t0
        # a complete core exports completely (exit 0)
        if r.returncode != 0 or not os.path.exists(out):
            print(f"FAIL: export exit {r.returncode}: {r.stderr.strip()[:500]}")
            return 1
        size = os.path.getsize(out)
        gaps = [l for l in r.stderr.splitlines() if l.strip()]
        print(f"export: {size:,} bytes in {took:.1f}s, exit {r.returncode}; "
              f"{'; '.join(gaps) if gaps else 'no gaps'}")
        gt, live = fx.truth, fx.json_file("memory.json")
        compare_dump.procs(bc, out, gt)
        compare_dump.ets(bc, out, gt)
        compare_dump.stacks(bc, out, gt)
        compare_dump.memory(bc, out, live)
        # the deep sections: proc_lib identity from the dictionaries, largest
        # terms and message shapes from the heaps, every field of proc; the
        # Link lists (supervision trees, call waits); the connected nodes
        for script in ("check_identity.py", "check_terms.py", "compare_proc.py", "check_tree.py",
                       "check_waits.py", "check_nodes.py"):
            r = subprocess.run([sys.executable, os.path.join(here, script), bc, "fx", "export.dump"],
                               capture_output=True, text=True, timeout=900,
                               env=dict(os.environ, BEAMCORE_FIXTURES=tmp))
            tail = r.stdout.strip().splitlines()[-1:] or [r.stderr.strip()[-300:]]
            print(f"{script}: exit {r.returncode}: {tail[0]}")
            if r.returncode != 0:
                bad.append(f"{script} on the exported dump: {r.stdout[-1500:]}")
        viewer(fx, out, gt, tmp, bad)
        bad_input(bc, fx, out, tmp, bad)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{len(bad)} mismatches")
    for b in bad[:50]:
        print("  MISMATCH " + b)
    return 1 if bad else 0

def viewer_for(fx, tmp):
    """The crashdump_viewer of the core's own release where its OTP tree is
    built (~/.cache/beamcore/otp-REL: observer is not built there, its
    crashdump_viewer and observer_lib are compiled here from the tree's
    sources), else Debian's (erlang-observer, 25.2.3): (command, env, label)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(fx.beam))))
    src = os.path.join(root, "lib", "observer", "src")
    erlc, escript = os.path.join(root, "bin", "erlc"), os.path.join(root, "bin", "escript")
    if all(os.path.exists(x) for x in (erlc, escript, os.path.join(src, "crashdump_viewer.erl"))):
        out = os.path.join(tmp, "cdv")
        os.makedirs(out, exist_ok=True)
        r = subprocess.run([erlc, "-I", os.path.join(root, "lib"), "-I", src, "-o", out,
                            os.path.join(src, "crashdump_viewer.erl"),
                            os.path.join(src, "observer_lib.erl")],
                           capture_output=True, text=True, timeout=300)
        if r.returncode == 0:
            return [escript], dict(os.environ, ERL_FLAGS="-pa " + out), \
                f"crashdump_viewer of {os.path.basename(root)}"
    libs = "/usr/lib/erlang/lib"
    if shutil.which("escript") and os.path.isdir(libs) and \
            any(n.startswith("observer-") for n in os.listdir(libs)):
        return ["escript"], dict(os.environ), "Debian's crashdump_viewer (erlang-observer)"
    return None, None, None

def viewer(fx, dump, gt, tmp, bad):
    """OTP's crashdump_viewer on the written dump."""
    cmd, env, label = viewer_for(fx, tmp)
    if not cmd:
        msg = "crashdump_viewer: erlang-observer not installed (testdata/deps.sh)"
        if CI:
            bad.append(msg)
        print("SKIP " + msg)
        return
    # proc_details of two small processes (a big heap takes the viewer
    # minutes): one with queued messages, one proc_lib process with a dictionary
    live = [p for p in gt["processes"] if p["pid"] != gt["collector"]]
    # an idle one: the dirty signal handlers take signals while the ground truth
    # is written (<0.3.0>, running, had one message in ground_truth.json and
    # none in an OTP 29 core)
    with_msgs = min((p for p in idle_processes(gt) if p["message_queue_len"] > 0 and
                     p["initial_call"] not in SIGNAL_HELPERS), key=lambda p: p["memory"])
    sup = next(p for p in live if p.get("registered_name") == "kernel_sup")
    t0 = time.time()
    r = subprocess.run(cmd + [os.path.join(here, "cdv_read.escript"), dump, with_msgs["pid"],
                        sup["pid"]], capture_output=True, text=True, timeout=900, env=env)
    took = time.time() - t0
    lines = r.stdout.splitlines()
    if r.returncode != 0 or not lines:
        bad.append(f"crashdump_viewer: exit {r.returncode}: {(r.stderr + r.stdout)[-500:]}")
        return
    warnings = [l for l in lines[:-1] if l.strip()]  # "WARNING: Found unexpected ..."
    if warnings:
        bad.append(f"crashdump_viewer warned: {warnings[:3]}")
    doc = json.loads(lines[-1])
    got = {p["pid"]: p for p in doc["processes"]}
    missing = [p["pid"] for p in gt["processes"] if p["pid"] not in got]
    if missing:
        bad.append(f"crashdump_viewer: {len(missing)} processes not listed, e.g. {missing[:3]}")
    for p in live:
        q = got.get(p["pid"])
        if q and p["status"] == "waiting" and q["state"] != "Waiting":
            bad.append(f"crashdump_viewer {p['pid']} state {q['state']}")
            break
    if doc["warnings"]:
        bad.append(f"crashdump_viewer: truncation warnings {doc['warnings']}")
    if doc["general"]["num_procs"] != str(len(got)):
        bad.append(f"crashdump_viewer: general num_procs {doc['general']['num_procs']}, "
                   f"listed {len(got)}")
    mem = doc["memory"]
    with open(dump) as f:
        head = f.read(1 << 16).splitlines()
    for k in ("total", "processes", "processes_used", "system", "atom", "code", "binary", "ets"):
        line = next((l for l in head if l.startswith(k + ": ")), None)
        if not line or mem.get(k) != line.split(": ")[1]:
            bad.append(f"crashdump_viewer memory {k}: {mem.get(k)!r}, dump {line!r}")
    if len(doc["ets"]) != len(gt["ets"]):
        bad.append(f"crashdump_viewer: {len(doc['ets'])} ETS tables, live {len(gt['ets'])}")
    # #proc{} (crashdump_viewer.hrl) after the record tag: msg_q 9th, dict
    # 17th, stack_dump 37th
    for p, want in ((with_msgs, "msg_q"), (sup, "dict")):
        det = next((x for x in doc["details"] if x["pid"] == p["pid"]), {})
        f = det.get("detail") or []
        if "error" in det or len(f) < 37 or det.get("warning") != "[]":
            bad.append(f"crashdump_viewer proc_details {p['pid']}: {str(det)[:400]}")
            continue
        if "Return addr" not in f[36]:
            bad.append(f"crashdump_viewer {p['pid']} stack: {f[36][:200]}")
        if want == "msg_q" and f[8] in ("[]", "undefined"):
            bad.append(f"crashdump_viewer {p['pid']} messages: {f[8][:200]}")
        if want == "dict" and "'$ancestors'" not in f[16]:
            bad.append(f"crashdump_viewer {p['pid']} dictionary: {f[16][:200]}")
    print(f"{label}: read in {took:.1f}s, {len(got)} processes listed, "
          f"{len(doc['ets'])} ETS tables, memory total {mem.get('total')}; "
          f"{with_msgs['pid']}'s messages and {sup['pid']}'s dictionary and stacks decoded "
          "from their heaps, no incomplete heap")

def bad_input(bc, fx, dump, tmp, bad):
    """A crash dump as the target; an unwritable -o: exit 2, one line, no file."""
    out = os.path.join(tmp, "again.dump")
    r = subprocess.run([bc, "export", dump, "--format", "crashdump", "-o", out],
                       capture_output=True, text=True, timeout=300)
    if r.returncode != 2 or len(r.stderr.strip().splitlines()) != 1 or \
            any(n.startswith("again.dump") for n in os.listdir(tmp)):
        bad.append(f"a dump as target: exit {r.returncode}, {r.stderr.strip()!r}, "
                   f"files {os.listdir(tmp)}")
    out = os.path.join(tmp, "no-such-dir", "x.dump")
    r = subprocess.run([bc, "export", fx.core, fx.beam, "--format", "crashdump", "-o", out],
                       capture_output=True, text=True, timeout=300)
    if r.returncode != 2 or len(r.stderr.strip().splitlines()) != 1 or os.path.exists(out):
        bad.append(f"unwritable -o: exit {r.returncode}, {r.stderr.strip()!r}")
    print("bad input: a dump as target, an unwritable -o: exit 2, one line, no file")

if __name__ == "__main__":
    sys.exit(main())
