#!/usr/bin/env python3
"""Crash dumps that are not whole: the dump a disk filled up on, a writer killed
mid-way, ERL_CRASH_DUMP_BYTES, a header followed by garbage, a header alone.
Every case must give everything that is there, say what is missing, exit 1 (or
2 with one line on stderr when nothing can be read), never crash or hang, and
never print a wrong number: every value shown for an idle process, an ETS
table or erlang:memory() is the live value or null.

Usage: bad_dump.py BEAMCORE FIXTURE   (FIXTURE under $BEAMCORE_FIXTURES: erl_crash.dump
and ground_truth.json from testdata/capture.sh --dump)"""
import json, re, os, random, shutil, subprocess, sys, tempfile

failures = []
CMDS = ("procs", "ets", "memory", "summary")

def run(args, timeout=300):
    r = subprocess.run(args, capture_output=True, timeout=timeout)
    err = r.stderr.decode("utf-8", "replace")
    if "Sanitizer" in err or "runtime error:" in err:
        failures.append(f"{' '.join(args[1:3])}: sanitizer: {err[-1500:]}")
    try:
        out = r.stdout.decode("utf-8")  # JSON must be UTF-8 whatever the dump holds
    except UnicodeDecodeError as e:
        failures.append(f"{' '.join(args[1:3])}: output is not UTF-8: {e}")
        out = r.stdout.decode("utf-8", "replace")
    return r.returncode, out, err

def result(name, ok, detail):
    print(f"{'ok  ' if ok else 'FAIL'} {name}: {detail}")
    if not ok:
        failures.append(f"{name}: {detail}")

class Truth:
    """The live values a partial dump may show (or null)."""
    def __init__(self, fx):
        gt = json.load(open(os.path.join(fx, "ground_truth.json")))
        self.live_mem = json.load(open(os.path.join(fx, "memory.json")))["memory"]
        self.procs = {p["pid"]: p for p in gt["processes"]
                      if p["status"] == "waiting" and p["pid"] != gt["collector"]
                      and not p["initial_call"].startswith("erts_dirty_process_signal_handler")}
        self.ets = {(t["owner"], t["name"]): t for t in gt["ets"]}

    def wrong(self, doc):
        out = []
        for q in doc.get("processes", []) + doc.get("message_queues", []):
            p = self.procs.get(q["pid"])
            if not p or q["status"] != "waiting":
                continue  # not idle, or (the signal handler) busy writing the dump
            live = {f: p[f] for f in ("heap_size", "stack_size", "message_queue_len", "memory",
                                      "total_heap_size", "registered_name", "initial_call",
                                      "current_function")}
            live["reductions"] = p["reductions"] + 1
            live["link_count"] = len(p["links"])
            for f, want in live.items():
                if q.get(f) is not None and q[f] != want:
                    out.append(f"{q['pid']} {f} {q[f]!r} != live {want!r}")
        for t in doc.get("ets", []):
            lt = self.ets.get((t["owner"], t["name"]))
            for f in ("size", "memory", "type", "protection"):
                if lt and t[f] is not None and t[f] != lt[f]:
                    out.append(f"ETS {t['name']} {f} {t[f]!r} != live {lt[f]!r}")
        for k in ("atom", "atom_used", "code", "ets"):
            v = (doc.get("memory") or {}).get(k)
            if v is not None and v != self.live_mem[k]:
                out.append(f"memory {k} {v} != live {self.live_mem[k]}")
        return out

def partial(bc, truth, path, name, want_msg):
    """Every command: exit 1, not complete, the cut named, no wrong number."""
    for cmd in CMDS:
        rc, out, err = run([bc, cmd, path, "--json"])
        n = f"{name}, {cmd}"
        if rc != 1:
            result(n, False, f"exit {rc}, want 1: {err.strip()[:300]}")
            continue
        doc = json.loads(out)
        wrong = truth.wrong(doc) if truth else []
        ok = (not doc["complete"] and doc["missing"] and want_msg in err and not wrong)
        shown = len(doc.get("processes", doc.get("ets", doc.get("allocators", []))))
        result(n, ok, f"exit 1, {shown} rows, {len(doc['missing'])} gaps"
               + (f"; wrong: {wrong[:3]}" if wrong else "")
               + ("" if want_msg in err else f"; stderr lacks {want_msg!r}: {err[:200]!r}"))

def failed(bc, path, name, want_msg):
    for cmd in ("procs", "summary"):
        rc, out, err = run([bc, cmd, path])
        lines = [l for l in err.splitlines() if l.strip()]
        result(f"{name}, {cmd}", rc == 2 and len(lines) == 1 and want_msg in err,
               f"exit {rc}: {err.strip()[:200]}")

def truncations(bc, truth, dump, tmp):
    """A writer stopped at several points (no =end): mid-line, at a line end."""
    data_size = os.path.getsize(dump)
    cut = os.path.join(tmp, "cut.dump")
    shutil.copyfile(dump, cut)
    with open(dump, "rb") as f:
        head = f.read(min(data_size, 64 << 20))
    points = [("in the header", 150), ("in the schedulers", 2000)]
    for tag in (b"\n=memory", b"\n=allocator:eheap_alloc", b"\n=proc:", b"\n=ets:", b"\n=proc_stack:"):
        i = head.find(tag)
        if i > 0:
            points.append((f"just before {tag.decode().strip()} (a line end)", i + 1))
            points.append((f"inside the first {tag.decode().strip()} (mid-line)", i + len(tag) + 40))
    for frac in (0.2, 0.5, 0.8, 0.95):
        points.append((f"at {int(frac * 100)}%", int(data_size * frac)))
    points.append(("in =end", data_size - 2))
    # a number cut mid-way must not be shown as a smaller number
    i = head.find(b"\nMemory: ", head.find(b"\nName: sessions_server"))
    if i > 0:
        points.append(("inside sessions_server's Memory: line", i + 12))
    for name, at in sorted(points, key=lambda p: -p[1]):
        os.truncate(cut, at)
        partial(bc, truth, cut, f"truncated {name} (byte {at})", "truncated")
        if "sessions_server" in name:
            rc, out, _ = run([bc, "procs", cut, "--json"])
            ss = [p for p in json.loads(out)["processes"] if p["registered_name"] == "sessions_server"]
            result(f"{name}: its memory", bool(ss) and ss[0]["memory"] is None,
                   f"memory {ss[0]['memory'] if ss else 'missing'!r} (want null)")
    os.unlink(cut)

def aborted(bc, truth, dump, tmp):
    """ERL_CRASH_DUMP_BYTES: the writer appends \\n=abort: to a partial line."""
    size = os.path.getsize(dump)
    p = os.path.join(tmp, "abort.dump")
    with open(dump, "rb") as src, open(p, "wb") as dst:
        dst.write(src.read(int(size * 0.4)))
        dst.write(b"\n=abort:CRASH DUMP SIZE LIMIT REACHED\n")
    partial(bc, truth, p, "cut by ERL_CRASH_DUMP_BYTES at 40%", "ERL_CRASH_DUMP_BYTES")
    os.unlink(p)

def garbage(bc, tmp):
    rnd = random.Random(5)
    cases = {
        "header only": b"=erl_crash_dump:0.5\n",
        "header and date only": b"=erl_crash_dump:0.5\nSun Nov 22 03:48:16 2026\n",
        "header, then random bytes": b"=erl_crash_dump:0.5\n" + rnd.randbytes(1 << 20),
        "header, then sections of junk": b"=erl_crash_dump:0.5\nSlogan: x\n" + b"".join(
            rnd.choice([b"=proc:<0.%d.0>\n" % rnd.randrange(1 << 40), b"=ets:<0.1.0>\n",
                        b"=proc_stack:<0.1.0>\n", b"=memory\n", b"=allocator:x[1]\n",
                        b"=scheduler:1\n", b"State: Waiting\n", b"Memory: 99999999999999999999999\n",
                        b"Link list: [{to,'a\\',b'\n", b"Stack+heap: -1\n", b"=\n", b"==\n",
                        b"Spawned as: 'x:y/1\n", b"Name: '\n", b"Current Process: <0.1\n",
                        rnd.randbytes(rnd.randrange(80))]) for _ in range(20000)),
    }
    for name, data in cases.items():
        p = os.path.join(tmp, "g.dump")
        with open(p, "wb") as f:
            f.write(data)
        partial(bc, None, p, name, "truncated")
    p = os.path.join(tmp, "v.dump")
    with open(p, "wb") as f:
        f.write(b"=erl_crash_dump:x.y\nSlogan: x\n=end\n")
    failed(bc, p, "unknown version", "version")

def mutations(bc, small, tmp):
    """A few hundred random edits of a small whole dump: any exit 0/1/2, no crash."""
    rnd = random.Random(7)
    lines = open(small, "rb").read().split(b"\n")
    p = os.path.join(tmp, "m.dump")
    crashes = 0
    for i in range(150):
        ls = list(lines)
        for _ in range(rnd.randrange(1, 30)):
            j = rnd.randrange(1, len(ls))
            op = rnd.randrange(5)
            if op == 0:
                del ls[j]
            elif op == 1:
                ls.insert(j, ls[rnd.randrange(len(ls))])
            elif op == 2 and ls[j]:
                k = rnd.randrange(len(ls[j]))
                ls[j] = ls[j][:k] + bytes([rnd.randrange(256)]) + ls[j][k + 1:]
            elif op == 3:
                ls[j] = ls[j][:rnd.randrange(len(ls[j]) + 1)]
            else:
                ls[j] = b"=" + ls[j]
        with open(p, "wb") as f:
            f.write(b"\n".join(ls))
        for cmd in ("summary", "procs"):
            rc, out, err = run([bc, cmd, p, "--json"])
            try:
                rc in (0, 1) and json.loads(out)
            except ValueError as e:
                failures.append(f"mutation {i} {cmd}: invalid JSON: {e}")
            if rc not in (0, 1, 2) or (rc == 2 and len(err.strip().splitlines()) != 1):
                crashes += 1
                shutil.copyfile(p, os.path.join(tmp, f"crash-{i}.dump"))
                failures.append(f"mutation {i} {cmd}: exit {rc}: {err[-500:]}")
    result("150 mutated small dumps", crashes == 0, f"{crashes} crashes")

def hostile(bc, dump, tmp):
    """Issue 10's reproducers on the real dump: padded to a page multiple (no
    NUL after the mapping), `proc` of every process with links must not read
    past it; bytes that are not UTF-8 come out escaped, the JSON valid."""
    data = open(dump, "rb").read()
    at = data.index(b"\nSystem version")
    pad = (4096 - len(data) % 4096) % 4096
    padded = os.path.join(tmp, "padded.dump")
    with open(padded, "wb") as f:
        f.write(data[:at] + b" " * pad + data[at:])
    assert os.path.getsize(padded) % 4096 == 0
    pids = re.findall(rb"=proc:(<[0-9.]+>)\n(?:(?!=proc:).)*?\nLink list: \[", data[:30_000_000], re.S)
    bad = 0
    for pid in pids[:40]:
        rc, out, err = run([bc, "proc", pid.decode(), padded, "--json"])
        if rc not in (0, 1):
            bad += 1
            failures.append(f"padded dump: proc {pid.decode()}: exit {rc}: {err[-300:]}")
    result(f"page-multiple dump, proc of {min(len(pids), 40)} linked processes", bad == 0, f"{bad} bad")
    # an owner pid and an atom that are not UTF-8
    i = data.index(b"=ets:<0.")
    mangled = os.path.join(tmp, "latin1.dump")
    with open(mangled, "wb") as f:
        f.write(data[:i] + b"=ets:<\xff." + data[i + len(b"=ets:<0."):])
    ok = True
    for cmd in ("ets", "summary"):
        rc, out, err = run([bc, cmd, mangled, "--json"])
        try:
            json.loads(out)
        except ValueError as e:
            ok = False
            failures.append(f"latin-1 dump {cmd}: invalid JSON: {e}")
        if cmd == "ets" and "\\u00ff" not in out:
            ok = False
            failures.append("latin-1 dump: the byte 0xff is not escaped as \\u00ff in the JSON")
    rc, out, err = run([bc, "ets", mangled])
    ok = ok and "\\xff" in out + err
    result("bytes that are not UTF-8: escaped in JSON and text", ok, f"exit {rc}")

def main():
    bc = sys.argv[1]
    fx = os.path.join(os.environ.get("BEAMCORE_FIXTURES", "/nonexistent"), sys.argv[2])
    dump = os.path.join(fx, "erl_crash.dump")
    small = os.path.join(fx, "kernel_pid.dump")
    if not os.path.exists(dump) or not os.path.exists(small):
        print(f"SKIP: no fixture {dump} (testdata/capture.sh REL DIR --dump)")
        return 1 if os.environ.get("CI") == "true" else 77  # CI: no skips
    truth = Truth(fx)
    tmp = tempfile.mkdtemp(prefix="beamcore-bad-dump-")
    try:
        # what the heaps show, the rest said in one line (partial)
        rc, out, err = run([bc, "binaries", dump])
        # (each gap one line: what the dump does not record, and which
        # processes' binaries its queued messages make unknown)
        lines = err.strip().splitlines()
        result("binaries on a dump", rc == 1 and lines and
               all(l.startswith("beamcore: partial: ") for l in lines) and
               "not record" in err and out.strip(), f"exit {rc}: {err.strip()}")
        rc, _, err = run([bc, "threads", dump])
        result("threads on a dump", rc == 2 and len(err.strip().splitlines()) == 1,
               f"exit {rc}: {err.strip()}")
        truncations(bc, truth, dump, tmp)
        aborted(bc, truth, dump, tmp)
        garbage(bc, tmp)
        mutations(bc, small, tmp)
        hostile(bc, dump, tmp)
    finally:
        if not failures:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"{len(failures)} failures" + (f" (inputs kept in {tmp})" if failures else ""))
    for f in failures[:40]:
        print("  " + f)
    return 1 if failures else 0

if __name__ == "__main__":
    sys.exit(main())
