#!/usr/bin/env python3
"""Labels in `beamcore tui` (tmux), on a real system's fixture against the
labels the node wrote (names.json, testdata/beamcore_real.erl): the process
list's LABEL column shows each process's label (a term in its short form,
tests/label_text.py), cut in its middle so its end
(the queue, the Registry key) stays on screen; `/` filters by label: a
RabbitMQ queue's name (or an Elixir Registry key) leaves exactly the processes
whose live label holds it, each row ending as its label ends.
Usage: tui_labels.py BEAMCORE FIXTURE CORE. Skips (77) without tmux or fixture."""
import atexit, os, shutil, sys, tempfile
from fixture import Fixture, SKIP
from tui_browse import tui_term, fail, rows, lines
from label_text import short

def label_start(screen):
    head = next(l for l in lines(screen) if l.startswith("PID"))
    return head.index("LABEL")

def shows(cell, label):
    """cell (the row from the LABEL column on) starts with label whole, or with
    its start, "..", and its end (at least its last 8 characters)"""
    if cell.startswith(label + " "):
        return True
    head, sep, rest = cell.partition("..")
    if not sep or not label.startswith(head):
        return False
    return any(rest.startswith(label[-k:] + " ") for k in range(8, len(label) - len(head) + 1))

def check_rows(s, names, want_pids, what):
    start = label_start(s)
    got = [r.split()[0] for r in rows(s)]
    if sorted(got) != sorted(want_pids):
        fail(f"{what}: rows {got[:8]}... ({len(got)}), want {sorted(want_pids)[:8]}... ({len(want_pids)})")
    for r in rows(s):
        label = short(names[r.split()[0]]["label"])  # (a term: its short form)
        if not shows(r[start:], label):
            fail(f"{what}: row {r!r} does not show live label {label!r}")

def main():
    fx = Fixture(sys.argv)
    if not shutil.which("tmux"):
        print("SKIP: no tmux")
        return SKIP
    names = {p["pid"]: p for p in fx.json_file("names.json")["processes"]}
    dump = fx.name.endswith(".dump")
    queues = [p for p in names.values() if "rabbit_amqqueue_process" in p["label"]]
    via = [p for p in names.values() if p["label_source"] == "registry"]
    if queues:
        probes = [("hx.backlog", "queue hx.backlog"), ("rabbit_amqqueue_process", "every queue")]
    elif via and not dump:
        probes = [(":session, 5}", "Registry key {:session, 5}"), ("{:pool, 1", "Registry key {:pool, 1*}")]
    else:
        print("SKIP: no queue or Registry-named process to look for")
        return SKIP
    tmp = tempfile.mkdtemp(prefix="beamcore-tui.")
    atexit.register(shutil.rmtree, tmp, True)  # every exit, a failing one too
    t, status = tui_term(fx, 160, 70, tmp)
    try:
        t.wait("first screen", lambda s: rows(s) and "q quit" in s)
        for probe, what in probes:
            want = [p for p, n in names.items() if probe in n["label"]]
            t.keys("/", *probe)
            t.wait(f"filter {probe}", lambda s: f"Filter (pid, label, function): {probe}_" in s)
            t.keys("Enter")
            s = t.wait(f"{what} filtered", lambda s: f"filter: {probe}" in s and
                       len(rows(s)) == min(len(want), 64))
            if len(want) <= 64:
                check_rows(s, names, want, what)
            print(f"ok: /{probe}: {len(rows(s))} rows, each shown by its label ({what})")
            t.keys("/", "Escape")
            t.wait("unfiltered", lambda s: "filter:" not in s and len(rows(s)) > 10)
        t.keys("q")
        t.wait("exit", lambda s: os.path.exists(status))
    finally:
        t.close()
    rc = open(status).read().strip() if os.path.exists(status) else "?"
    if rc not in ("0", "1"):
        fail(f"tui exited {rc}: {open(os.path.join(tmp, 'stderr')).read()[:300]}")
    print("PASS")
    return 0

if __name__ == "__main__":
    sys.exit(main())
