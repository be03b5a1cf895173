#!/usr/bin/env python3
"""`beamcore ports --json` against erlang:ports() and erlang:port_info/2 of every
port, written by the live VM (ports.json) before the core or dump was taken; the
ports are idle from then on. Every field must match exactly:
  name, registered_name, connected, links, input, output, queue_size, busy
  (the VM's system_monitor busy_port), and on cores monitors, monitored_by,
  os_pid and os_fd (inet:getfd for sockets, /proc/self/fd for a file port; an
  fd port "N/N" is on N); a crash dump records none of these four: null.
suspended: the busy port's are the processes the ground truth shows suspended
in erts_internal:port_command/3; every other port's is empty. queue_binaries
(cores): none in an empty queue; the busy port's queue holds the one 64 KiB
binary the sender sends again and again (65,536 bytes). The summary names
the port with the most output queued (finding port_queue: its owner, bytes).
Usage: compare_ports.py BEAMCORE FIXTURE CORE (FIXTURE under $BEAMCORE_FIXTURES)."""
import os, re, sys
from fixture import Fixture, SKIP, report

FIELDS = ["name", "registered_name", "connected", "links", "input", "output", "queue_size",
          "busy"]
CORE_ONLY = ["monitors", "monitored_by", "os_pid", "os_fd"]

def expected_fd(t):
    m = re.fullmatch(r"(\d+)/(\d+)", t["name"])
    if m:  # open_port({fd, In, Out}): one descriptor only when In == Out
        return int(m[1]) if m[1] == m[2] else None
    return t["os_fd"]

def main():
    fx = Fixture(sys.argv)
    path = os.path.join(fx.dir, "ports.json")
    if not os.path.exists(path):
        print(f"{'FAIL (CI=true)' if SKIP == 1 else 'SKIP'}: no {path} "
              "(a fixture from before the scenario had ports)")
        return SKIP
    live = fx.json_file("ports.json")
    dump = fx.name.endswith(".dump")
    procs = {p["pid"]: p for p in fx.truth["processes"]}
    got = {p["id"]: p for p in fx.json("ports")["ports"]}
    bad = []
    for t in live:
        q = got.pop(t["id"], None)
        if q is None:
            bad.append(f"{t['id']} ({t['name']}): missing")
            continue
        t = dict(t, os_fd=expected_fd(t))
        for f in FIELDS + CORE_ONLY:
            want = None if dump and f in CORE_ONLY else t[f]
            have = sorted(q[f]) if isinstance(q[f], list) else q[f]
            if want != have:
                bad.append(f"{t['id']} ({t['name']}) {f}: live {want!r}, beamcore {have!r}")
        for s in q["suspended"]:
            p = procs.get(s, {})
            if not t["busy"] or p.get("status") != "suspended" or \
               p.get("current_function") != "erts_internal:port_command/3":
                bad.append(f"{t['id']} suspended {s}: live {p.get('status')} in "
                           f"{p.get('current_function')}")
        qb = (q["queue_binaries"], q["queue_binary_bytes"])
        want_qb = (None, None) if dump else (1, 65536) if t["busy"] else \
            (0, 0) if not t["queue_size"] else qb
        if qb != want_qb:
            bad.append(f"{t['id']} queue_binaries, queue_binary_bytes: {qb}, want {want_qb}")
        if t["busy"] and not q["suspended"]:
            bad.append(f"{t['id']} busy: no process suspended on it")
    bad += [f"{i}: in the {'dump' if dump else 'core'} only" for i in got]
    queued = sorted((t for t in live if t["queue_size"]), key=lambda t: -t["queue_size"])
    if queued:
        t = queued[0]
        f = [f for f in fx.json("summary", ok=(0, 1))["findings"] if f["kind"] == "port_queue"]
        if not f or (f[0]["name"], f[0]["pid"], f[0]["value"]) != (t["id"], t["connected"],
                                                                  t["queue_size"]):
            bad.append(f"summary: no port_queue finding for {t['id']} ({t['queue_size']} bytes "
                       f"queued, owner {t['connected']}): {f[:1]}")
    print(f"{fx.name}: {len(live)} live ports compared on "
          f"{len(FIELDS) + (0 if dump else len(CORE_ONLY)) + 1} fields; {len(bad)} mismatches")
    return report(bad)

if __name__ == "__main__":
    sys.exit(main())
