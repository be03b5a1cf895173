#!/usr/bin/env python3
"""beamcore check (issue 13 part 1) on a core or crash dump fixture, against the
ground truth the live node wrote: thresholds derived from it that hold (exit 0)
and that fail (exit 3), the offenders exactly the live processes (tables) above
them with their live values, worst first; percent rules on process_count and
atom_count (a dump records no process limit: not evaluated, exit 1), erlang:memory()
categories with units, rules from a file, JUnit XML parsed by xml.etree, the
text's cut, and bad input (exit 64, one line, before the target is read).
Idle processes (waiting, not the collector) are compared exactly; the others
ran after the ground truth was written.
Usage: check_check.py BEAMCORE FIXTURE FILE (FIXTURE under $BEAMCORE_FIXTURES).
Exit 0 pass, 1 fail, 77 skip."""
import json, os, subprocess, sys, tempfile
import xml.etree.ElementTree as ET
from fixture import Fixture, idle_processes, reductions_ok, close, EXACT_MEM, SIGNAL_HELPERS

PROC_KEYS = ["message_queue_len", "memory", "total_heap_size", "heap_size", "stack_size",
             "reductions"]
UNITS = [("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30), ("KB", 1000), ("MB", 10**6),
         ("GB", 10**9)]
bad = []

def expect(ok, what):
    print(f"{'ok  ' if ok else 'FAIL'} {what}")
    if not ok:
        bad.append(what)
    return ok

def check(fx, *args, want_rc=None):
    """beamcore check FIXTURE ARGS --json: (exit code, document or None, stderr)."""
    rc, out, err = fx.run("check", *args, "--json")
    if "Sanitizer" in err or "runtime error:" in err:
        bad.append(f"check {args}: sanitizer: {err[-1500:]}")
    doc = json.loads(out) if rc in (0, 1, 3) and out else None
    if want_rc is not None and rc != want_rc:
        expect(False, f"check {' '.join(args)}: exit {rc}, want {want_rc}: {err.strip()[:300]}")
    return rc, doc, err

def by_rule(doc):
    return {r["rule"]: r for r in doc["rules"]} if doc else {}

def main():
    fx = Fixture(sys.argv)
    gt = fx.truth
    live_mem = fx.json_file("memory.json")["memory"]
    procs = {p["pid"]: p for p in fx.json("procs")["processes"]}
    idle = {p["pid"]: p for p in idle_processes(gt) if procs.get(p["pid"], {}).get("status") == "waiting"}
    gt_by_pid = {p["pid"]: p for p in gt["processes"]}
    is_dump = fx.name.endswith(".dump")

    # --- per process: thresholds that fail, offenders exactly the live ones ---
    fail_rules, expected = [], {}
    for k in PROC_KEYS:
        vals = sorted({p[k] for p in idle.values()}, reverse=True)
        t = 1000 if k == "message_queue_len" else vals[min(4, len(vals) - 1)]
        t += k == "reductions"  # a core or dump counts one more than process_info did (fixture.py)
        rule = f"{k}<={t}"
        fail_rules += ["--max", f"{k}={t}"]
        expected[rule] = (k, t)
    rc, doc, err = check(fx, *fail_rules, want_rc=3)
    rules = by_rule(doc)
    for rule, (k, t) in expected.items():
        r = rules.get(rule)
        if not expect(r is not None and r["status"] == "fail" and r["key"] == k and r["max"] == t,
                      f"{rule}: fail, max {t}: {r and (r['status'], r['max'])}"):
            continue
        offs = r["offenders"]
        vals = [o["value"] for o in offs]
        expect(vals == sorted(vals, reverse=True) and all(v > t for v in vals),
               f"{rule}: {len(offs)} offenders, worst first, each above {t}")
        # every process whose value beamcore could not read is counted, not passed
        nulls = sum(1 for p in procs.values() if p[k] is None)
        expect(r["unreadable"] == nulls and r["processes"] == len(procs),
               f"{rule}: unreadable {r['unreadable']} = the null {k} of procs ({nulls})")
        # the dirty signal handlers keep working for others while the ground truth
        # is written (fixture.py): their reductions are no idle figure
        idle_k = {pid: p for pid, p in idle.items()
                  if k != "reductions" or p.get("initial_call") not in SIGNAL_HELPERS}
        got_idle = {o["pid"]: o for o in offs if o["pid"] in idle_k}
        want_idle = {pid for pid, p in idle_k.items()
                     if p[k] + (k == "reductions") > t and procs[pid][k] is not None}
        mism = []
        for pid in want_idle | set(got_idle):
            p, o = idle[pid], got_idle.get(pid)
            if pid not in want_idle or o is None:
                mism.append(f"{pid} live {p[k]}, beamcore {o and o['value']}")
            elif not (reductions_ok(p, o["value"]) if k == "reductions" else o["value"] == p[k]):
                mism.append(f"{pid} value live {p[k]}, beamcore {o['value']}")
            elif o["registered_name"] != p.get("registered_name") or \
                    o["name"] != (p.get("registered_name") or procs[pid]["proc_lib_initial_call"]
                                  or procs[pid]["initial_call"]):
                mism.append(f"{pid} name {o['registered_name']!r}/{o['name']!r}")
        others = [o["pid"] for o in offs if o["pid"] not in idle_k]
        names = lambda pids: ", ".join(sorted(idle[p].get("registered_name") or p for p in pids)[:6]) + \
            (f", ... {len(pids) - 6} more" if len(pids) > 6 else "")
        expect(not mism and all(pid in gt_by_pid for pid in others),
               f"{rule}: {len(want_idle)} idle offenders exactly the live ones "
               f"({names(want_idle)}){'; others (ran since): ' + ', '.join(others) if others else ''}"
               + (f"; mismatches {mism[:5]}" if mism else ""))
    # the queue rule, whole: exactly the live node's processes above 1000
    r = rules.get("message_queue_len<=1000")
    if r:
        want = sorted(((p["message_queue_len"], p["pid"], p.get("registered_name"))
                       for p in gt["processes"] if p["message_queue_len"] > 1000), reverse=True)
        got = [(o["value"], o["pid"], o["registered_name"]) for o in r["offenders"]]
        expect(got == want, f"message_queue_len<=1000 names exactly {[(w[2], w[0]) for w in want]}: "
               f"{[(g[2], g[0]) for g in got]}")
        expect(any(w[2] == "flooded" and w[0] == 100000 for w in want) and
               any(w[2] == "stuck_server" and w[0] == 10000 for w in want),
               "the ground truth has flooded (100,000) and stuck_server (10,000)")

    # --- per process: thresholds that hold ---
    hold = []
    for k in PROC_KEYS:
        # (the collector keeps running after the ground truth: 10x its reductions)
        t = (10 if k == "reductions" else 2) * max(p[k] for p in gt["processes"]) + 1000
        hold.append((k, t))
    for k, t in hold:
        nulls = sum(1 for p in procs.values() if p[k] is None)
        want_rc, want_status = (1, "unknown") if nulls else (0, "pass")
        rc, doc, err = check(fx, "--max", f"{k}={t}", want_rc=want_rc)
        r = by_rule(doc).get(f"{k}<={t}")
        worst = max((p for p in procs.values() if p[k] is not None), key=lambda p: p[k])
        expect(r is not None and r["status"] == want_status and r["offenders"] == [] and
               r["value"] == worst[k] and (not nulls or "unreadable" in (r["reason"] or "")),
               f"{k}<={t}: {want_status} (exit {want_rc}; {nulls} unreadable), largest {worst[k]}: "
               f"{r and (r['status'], r['value'], r['reason'])}")

    # --- ETS tables ---
    tables = gt["ets"]
    sizes = sorted({t["size"] for t in tables}, reverse=True)
    ts = sizes[min(3, len(sizes) - 1)]
    mems = sorted({t["memory"] * 8 for t in tables}, reverse=True)
    tm_kib = mems[min(3, len(mems) - 1)] // 1024
    rc, doc, err = check(fx, "--max", f"ets.size={ts}", "--max", f"ets.memory={tm_kib}KiB", want_rc=3)
    rules = by_rule(doc)
    for rule, field, limit, scale in ((f"ets.size<={ts}", "size", ts, 1),
                                      (f"ets.memory<={tm_kib}KiB", "memory", tm_kib * 1024, 8)):
        r = rules.get(rule)
        want = sorted(((t[field] * scale, t["name"], t["owner"]) for t in tables
                       if t[field] * scale > limit), reverse=True)
        got = sorted((o["value"], o["name"], o["owner"]) for o in r["offenders"]) if r else None
        expect(r is not None and r["max"] == limit and got == sorted(want) and
               [o["value"] for o in r["offenders"]] == sorted((o["value"] for o in r["offenders"]), reverse=True),
               f"{rule}: offenders exactly the live tables above {limit}: "
               f"{[(w[1], w[0]) for w in want]} vs {got and [(g[1], g[0]) for g in got]}")
        gt_ids = {t["id"]: t for t in tables}
        expect(r is not None and all(o["id"] is None or (o["id"] in gt_ids and gt_ids[o["id"]]["name"] == o["name"])
                                     for o in r["offenders"]),
               f"{rule}: table ids as the live node's (null only for a dump's named tables)")
    rc, doc, err = check(fx, "--max", f"ets.size={2 * sizes[0]}", "--max", f"ets.memory={mems[0] * 2}",
                         want_rc=0)
    expect(doc is not None and all(r["status"] == "pass" for r in doc["rules"]), "ETS thresholds that hold: pass")

    # --- node: process_count, atom_count, percent of the limit ---
    pc, pl, ac, al = gt["process_count"], gt["process_limit"], gt["atom_count"], gt["atom_limit"]
    p_fail, p_hold = round(100 * pc / pl / 2, 2), min(100, round(100 * pc / pl * 2 + 0.5, 1))
    a_fail, a_hold = round(100 * ac / al / 2, 3), min(100, round(100 * ac / al * 2 + 0.01, 2))
    args = ["--max", f"process_count={p_fail}%", "--max", f"process_count={p_hold}%",
            "--max", f"atom_count={a_fail}%", "--max", f"atom_count={a_hold}%",
            "--max", f"process_count={pc}", "--max", f"atom_count={ac - 1}"]
    rc, doc, err = check(fx, *args, want_rc=3)
    rules = by_rule(doc)
    for key, pct, limit, count, status in (("process_count", p_fail, pl, pc, "fail"),
                                           ("process_count", p_hold, pl, pc, "pass"),
                                           ("atom_count", a_fail, al, ac, "fail"),
                                           ("atom_count", a_hold, al, ac, "pass")):
        r = rules.get(f"{key}<={pct}%")
        if is_dump and key == "process_count":  # a dump records no process limit
            expect(r is not None and r["status"] == "unknown" and r["max"] is None and r["limit"] is None
                   and r["value"] == count and "process_limit" in (r["reason"] or ""),
                   f"{key}<={pct}% on a dump: not evaluated (no process_limit), value {count}: "
                   f"{r and (r['status'], r['reason'])}")
            continue
        want_max = int(limit * pct / 100)
        expect(r is not None and r["status"] == status and r["limit"] == limit and
               abs(r["max"] - want_max) <= 1 and r["max_percent"] == pct and r["value"] == count,
               f"{key}<={pct}%: {status}, max {want_max} of {limit}, value {count}: "
               f"{r and (r['status'], r['max'], r['limit'], r['value'])}")
    expect(rules.get(f"process_count<={pc}", {}).get("status") == "pass" and
           rules.get(f"atom_count<={ac - 1}", {}).get("status") == "fail",
           f"process_count<={pc} holds, atom_count<={ac - 1} fails (exact counts)")
    if is_dump:  # the unknown rule alone: partial (exit 1), never a pass
        rc, doc, err = check(fx, "--max", "process_count=80%", "--max", f"atom_count={ac}", want_rc=1)
        expect(rc == 1 and doc["check"] == {"rules": 2, "passed": 1, "failed": 0, "unknown": 1},
               f"dump: process_count=80% not evaluated, exit 1: {doc and doc['check']}")
    else:
        rc, doc, err = check(fx, "--max", "process_count=80%", "--max", "atom_count=80%", want_rc=0)
        expect(rc == 0, "core: process_count=80% and atom_count=80% hold (exit 0)")

    # --- erlang:memory() with units ---
    args, want = [], {}
    for i, (cat, v) in enumerate(sorted(live_mem.items())):
        if cat not in ("total", "processes", "processes_used", "system", "atom", "atom_used",
                       "binary", "code", "ets"):
            continue
        unit, mult = UNITS[i % len(UNITS)]
        hold_n = -(-v * 3 // 2 // mult) or 1  # 1.5 x, rounded up
        whole, frac = divmod(v // 2 * 1000 // mult, 1000)  # half, with three decimals
        fail_s = f"{whole}.{frac:03d}{unit}"
        for s, m, status in ((f"{hold_n}{unit}", hold_n * mult, "pass"),
                             (fail_s, whole * mult + frac * mult // 1000, "fail")):
            args += ["--max", f"{cat}={s}"]
            want[f"{cat}<={s}"] = (cat, v, m, status)
    rc, doc, err = check(fx, *args, want_rc=3)
    rules = by_rule(doc)
    for rule, (cat, v, m, status) in want.items():
        r = rules.get(rule)
        got = r and r["value"]
        ok_val = got is not None and (got == v if cat in EXACT_MEM else close(got, v, absolute=0))
        expect(r is not None and r["max"] == m and r["unit"] == "bytes" and r["status"] == status and ok_val,
               f"{rule}: max {m}, {status}, value {got} vs live {v}: {r and (r['max'], r['status'])}")

    # --- rules from a file, JUnit XML ---
    with tempfile.TemporaryDirectory(prefix="beamcore-check.") as d:
        rules_file = os.path.join(d, "rules")
        with open(rules_file, "w") as f:
            f.write("# CI gate\n\nmessage_queue_len=1000   # flooded, stuck_server\n"
                    f"  --max memory = {2 * max(p['memory'] for p in gt['processes'])}\n"
                    "total<=64GiB\nprocess_count=80%\n")
        junit = os.path.join(d, "out", "report.xml")
        os.mkdir(os.path.dirname(junit))
        rc, doc, err = check(fx, "--rules", rules_file, "--junit", junit, want_rc=3)
        texts = [r["rule"] for r in doc["rules"]] if doc else []
        expect(len(texts) == 4 and texts[0] == "message_queue_len<=1000" and texts[2] == "total<=64GiB",
               f"--rules FILE: 4 rules, comments and blank lines skipped: {texts}")
        try:
            root = ET.parse(junit).getroot()
        except Exception as e:  # noqa: BLE001 - any parse error is the failure
            root = None
            expect(False, f"JUnit XML parses: {e}")
        if root is not None and doc:
            cases = root.findall(".//testcase")
            fails = [c for c in cases if c.find("failure") is not None]
            skips = [c for c in cases if c.find("skipped") is not None]
            suite = root.find("testsuite")
            nfail = sum(r["status"] == "fail" for r in doc["rules"])
            nunk = sum(r["status"] == "unknown" for r in doc["rules"])
            expect(len(cases) == len(doc["rules"]) and [c.get("name") for c in cases] == texts and
                   len(fails) == nfail and len(skips) == nunk and
                   suite.get("failures") == str(nfail) and suite.get("tests") == str(len(cases)),
                   f"JUnit: {len(cases)} testcases, {len(fails)} failures, {len(skips)} skipped "
                   f"(JSON: {nfail} failed, {nunk} unknown)")
            mq = next((c for c in cases if c.get("name") == "message_queue_len<=1000"), None)
            lines = mq.find("failure").text.strip().splitlines() if mq is not None and mq.find("failure") is not None else []
            want_lines = [f"{o['pid']} {o['name'] or '-'} {o['value']}" for o in by_rule(doc)["message_queue_len<=1000"]["offenders"]]
            expect(lines == want_lines and any("flooded 100000" in l for l in lines),
                   f"JUnit failure lists every offender: {lines}")
        expect(os.listdir(os.path.dirname(junit)) == ["report.xml"],
               f"JUnit written atomically, no temporary left: {os.listdir(os.path.dirname(junit))}")
        # markup in what the report names (here the target's path) is escaped
        odd = os.path.join(d, "a&b<\"c'>.core")
        os.symlink(fx.core, odd)
        r = subprocess.run([fx.beamcore, "check", odd, fx.beam, "--max", "message_queue_len=1000",
                            "--junit", junit], capture_output=True, text=True, timeout=300)
        try:
            suite = ET.parse(junit).getroot().find("testsuite")
            expect(r.returncode == 3 and suite.get("name") == f"beamcore check {odd}",
                   f"JUnit escapes markup: testsuite name {suite.get('name')!r}")
        except ET.ParseError as e:
            expect(False, f"JUnit of a path with markup parses: {e}")
        # a second run replaces it whole
        rc, doc, err = check(fx, "--max", "message_queue_len=1", "--junit", junit, want_rc=3)
        root = ET.parse(junit).getroot()
        expect(len(root.findall(".//testcase")) == 1 and os.listdir(os.path.dirname(junit)) == ["report.xml"],
               "JUnit replaced by the next run")

        # --- bad input: exit 64, one line, before the target is read ---
        nofile = os.path.join(d, "no-such-core")
        bad_rules = os.path.join(d, "bad-rules")
        with open(bad_rules, "w") as f:
            f.write("# ok\nmemory=1GiB\nmesage_queue_len=5\n")
        nul_rules = os.path.join(d, "nul-rules")
        with open(nul_rules, "wb") as f:
            f.write(b"memory=1GiB\n\0\n")
        cases = [
            ("unknown key", ["--max", "frob=1"], "unknown key 'frob'"),
            ("malformed count", ["--max", "message_queue_len=ten"], "malformed threshold 'ten'"),
            ("a unit on a count", ["--max", "message_queue_len=10KiB"], "no unit"),
            ("a unit on words", ["--max", "heap_size=1MiB"], "no unit"),
            ("unknown unit", ["--max", "memory=1XB"], "unknown unit"),
            ("a percent of no limit", ["--max", "memory=80%"], "a percent is only of a limit"),
            ("over 100%", ["--max", "process_count=120%"], "0-100%"),
            ("a fraction of a count", ["--max", "message_queue_len=1.5"], "not a whole number"),
            ("overflow", ["--max", "memory=99999999999999GiB"], "too large"),
            ("no value", ["--max", "memory="], "not a number"),
            ("no key", ["--max", "=5"], "not KEY=VALUE"),
            ("missing rules file", ["--rules", os.path.join(d, "nope")], "No such file"),
            ("a bad line in the rules file", ["--rules", bad_rules], f"{bad_rules}:3: unknown key"),
            ("a rules file that is a directory", ["--rules", d], f"--rules {d}: Is a directory"),
            ("a NUL byte in the rules file", ["--rules", nul_rules], "a NUL byte"),
            ("unwritable junit", ["--max", "memory=1GiB", "--junit", os.path.join(d, "no", "dir", "r.xml")],
             "--junit"),
            ("junit a directory", ["--max", "memory=1GiB", "--junit", d], "a directory"),
            ("no rules", [], "no rules"),
        ]
        for what, a, msg in cases:
            for target in (fx.core, nofile):  # the rules are checked before the target is opened
                r = subprocess.run([fx.beamcore, "check", target, *a], capture_output=True, text=True,
                                   timeout=120)
                lines = r.stderr.strip().splitlines()
                expect(r.returncode == 64 and len(lines) == 1 and msg in lines[0] and not r.stdout,
                       f"bad input, {what}{' (no target file)' if target == nofile else ''}: exit "
                       f"{r.returncode}, {lines[:2]}")
        r = subprocess.run([fx.beamcore, "procs", fx.core, "--max", "memory=1"], capture_output=True,
                           text=True, timeout=120)
        expect(r.returncode == 64 and "not an option of procs" in r.stderr, "--max is check's own option")

    # --- text: every offender up to the cut, "+N more"; JSON all of them ---
    rc, out, err = fx.run("check", "--max", "memory=0")
    rc2, doc, _ = check(fx, "--max", "memory=0", want_rc=3)
    n = len(doc["rules"][0]["offenders"]) if doc else 0
    known = sum(1 for p in procs.values() if p["memory"] is not None)
    expect(rc == 3 and n == known and f"+{n - 20} more" in out and "FAIL     memory<=0" in out,
           f"memory=0: every process offends ({n} of {known} in JSON), text cut at 20 with '+{n - 20} more'")

    for b in bad:
        print(f"FAIL {b[:3000]}")
    print(f"{len(bad)} failures" if bad else "all ok")
    sys.exit(1 if bad else 0)

main()
