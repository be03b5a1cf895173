"""beamcore diff A B against what the live node said.

  check_diff.py BEAMCORE FIXTURE same   (testdata/capture.sh REL DIR --gcore-dump)
    a gcore and the same idle node's erl_crash.dump: one state seen twice. No
    phantom changes: every group and table in both, counts equal, the groups of
    idle processes (ground_truth.json) and every table unchanged, erlang:memory
    within 1% (atom, code, ets exact); group counts and keys as the ground truth
    makes them. No per-second rates over an interval the clocks cannot
    resolve (a dump header has whole seconds; issue 21 part 7): the gcore and
    the dump; copies of the dump whose header says 1 s and 3 s later (rates
    over 3 s only, between the two dumps), and the core against the dump 1 s
    later (0.1-0.9 s by the clocks: no rates, where the old rule gave some).
  check_diff.py BEAMCORE FIXTURE grow   (testdata/capture-grow.sh REL DIR)
    two gcores seconds apart while bc_grow_table and bc_grow_sink's queue grow:
    the table's size and memory and the queue's length exactly as truth1.json
    and truth2.json say, matched by name, first in their lists; the interval
    and the rates. Then bad input: one target (64), a missing or unreadable
    second one (2, one line; --json: the error object)."""
import json, os, shutil, subprocess, sys, tempfile, time
from collections import Counter

from fixture import SKIP, CI, EXACT_MEM, CLOSE_MEM, close, idle_processes
from page import page_data

beamcore, fx, mode = sys.argv[1:4]
d = os.path.join(os.environ.get("BEAMCORE_FIXTURES", "/nonexistent"), fx)
a_name, b_name = ("core.gcore", "erl_crash.dump") if mode == "same" else ("core.1", "core.2")
A, B = os.path.join(d, a_name), os.path.join(d, b_name)
for f in (A, B):
    if not os.path.exists(f):
        print(f"{'FAIL (CI=true)' if CI else 'SKIP'}: no fixture {f} "
              f"(testdata/{'capture.sh REL DIR --gcore-dump' if mode == 'same' else 'capture-grow.sh'})")
        sys.exit(SKIP)

bad = []

def run(*args):
    r = subprocess.run([beamcore, "diff", *args], capture_output=True, text=True, timeout=600)
    return r.returncode, r.stdout, r.stderr

def diff_json(*args):
    rc, out, err = run(A, B, "--json", *args)
    if rc != 0:
        print(f"FAIL: beamcore diff {a_name} {b_name} --json exited {rc}: {err.strip()}")
        sys.exit(1)
    return json.loads(out)

def proc_key(p):
    """The identity beamcore groups by (docs/json.md, diff)."""
    if p.get("registered_name"):
        return "registered_name:" + p["registered_name"]
    if p.get("proc_lib_initial_call"):
        k = "proc_lib:" + p["proc_lib_initial_call"]
        if p.get("ancestors") is not None:
            k += " ancestors:" + ",".join(p["ancestors"])
        return k
    return "initial_call:" + (p["initial_call"] or "?")

doc = diff_json()
by_key = {g["key"]: g for g in doc["processes"]}
ets = {t["key"]: t for t in doc["ets"]}
for k in ("a", "b"):
    if doc["targets"][k]["path"] != (A if k == "a" else B):
        bad.append(f"targets.{k}.path {doc['targets'][k]['path']}")

if mode == "same":
    gt = json.load(open(os.path.join(d, "ground_truth.json")))
    mem = json.load(open(os.path.join(d, "memory.json")))["memory"]
    if doc["only_in_a"] or doc["only_in_b"]:
        bad.append(f"only_in_a {doc['only_in_a'][:3]}, only_in_b {doc['only_in_b'][:3]}: phantom groups")
    # the groups as the live node's processes make them
    want = Counter(proc_key(p) for p in gt["processes"])
    got = {k: g["a"]["count"] for k, g in by_key.items()}
    if got != dict(want):
        diffk = sorted(set(want.items()) ^ set(got.items()))[:5]
        bad.append(f"groups: {len(got)} from beamcore, {len(want)} from the ground truth; e.g. {diffk}")
    idle = {p["pid"] for p in idle_processes(gt)}
    busy = {proc_key(p) for p in gt["processes"] if p["pid"] not in idle}
    checked = 0
    for k, g in by_key.items():
        if g["delta"]["count"] != 0:
            bad.append(f"{k}: count {g['a']['count']} -> {g['b']['count']}")
        if k in busy:
            continue
        checked += 1
        for m in ("memory", "message_queue_len", "total_heap_size"):
            dm = g["delta"][m]
            # a dump lacks a garbage-collecting process's heap: null, never 0
            if dm is None and (g["a"][m] is None or g["b"][m] is None) and m == "total_heap_size":
                continue
            if dm != 0:
                bad.append(f"{k} (idle): {m} {g['a'][m]} -> {g['b'][m]} (delta {dm})")
    if checked * 2 < len(by_key):
        bad.append(f"only {checked} of {len(by_key)} groups all idle: the check proves little")
    # tables: every one in both, no change
    want_ets = Counter("named_table:" + t["name"] for t in gt["ets"] if t["named_table"])
    got_named = {k: t["a"]["count"] for k, t in ets.items() if k.startswith("named_table:")}
    if got_named != dict(want_ets):
        bad.append(f"named tables: {sorted(set(got_named.items()) ^ set(want_ets.items()))[:5]}")
    if sum(t["a"]["count"] for t in ets.values()) != len(gt["ets"]):
        bad.append(f"tables: {sum(t['a']['count'] for t in ets.values())}, live {len(gt['ets'])}")
    for k, t in ets.items():
        if t["delta"] != {"count": 0, "size": 0, "memory": 0}:
            bad.append(f"table {k}: delta {t['delta']}")
    for k in EXACT_MEM + CLOSE_MEM:
        m = doc["memory"][k]
        if m["a"] is None or m["b"] is None or m["delta"] != m["b"] - m["a"]:
            bad.append(f"memory {k}: {m}")
        elif k in EXACT_MEM and m["delta"] != 0:
            bad.append(f"memory {k}: {m['a']} -> {m['b']}, expected no change")
        elif not close(m["a"], m["b"], absolute=0):
            bad.append(f"memory {k}: {m['a']} -> {m['b']}: over 1%")
        if not close(m["a"], mem[k], absolute=0):
            bad.append(f"memory {k}: A {m['a']}, live {mem[k]}")
    # the text report lists no changed group
    rc, out, err = run(A, B)
    if rc != 0 or "in both: %d, 0 changed" % len(by_key) not in out:
        bad.append(f"text: exit {rc}, {[l for l in out.splitlines() if 'in both' in l]}")
    # rates only over an interval the clocks resolve
    def clocks(a, b, want_rates, what):
        rc, out, err = run(a, b, "--json")
        iv = json.loads(out)["interval"] if rc == 0 else None
        rc2, text, _ = run(a, b)
        line = next((l for l in text.splitlines() if l.startswith("interval:")), None)
        if rc or rc2 or not iv:
            bad.append(f"clocks, {what}: exit {rc}/{rc2}, interval {iv}")
        elif want_rates != (iv["memory_total_per_second"] is not None) or \
                want_rates != (iv.get("no_rates") is None) or ("rates over" in text) != want_rates or \
                (not want_rates and iv["fastest_group"] is not None):
            bad.append(f"clocks, {what}: interval {iv}; text {line!r}")
        elif not want_rates and ("(no rates)" not in line or "whole seconds" not in line
                                 or "-" in line.split(":", 1)[1]):
            bad.append(f"clocks, {what}: text {line!r}, interval {iv}")
        return iv and iv["seconds"], line
    secs, line0 = clocks(A, B, False, "gcore, then the dump")
    with tempfile.TemporaryDirectory() as tmp:
        dt = json.loads(run(B, B, "--json")[1])["targets"]["a"]["time"]
        copies = {}
        for shift in (1, 3):
            p = os.path.join(tmp, f"later{shift}.dump")
            shutil.copyfile(B, p)
            with open(p, "r+b") as f:
                head = f.read(64)
                i = head.index(b"\n") + 1
                old = head[i:head.index(b"\n", i)]
                new = time.ctime(dt + shift).encode()
                if len(new) != len(old):
                    bad.append(f"clocks: header {old!r} cannot become {new!r} in place")
                    break
                f.seek(i)
                f.write(new)
            copies[shift] = p
        if len(copies) == 2:
            s1, l1 = clocks(A, copies[1], False, "gcore, then a dump 1 s later")
            clocks(B, copies[1], False, "dump, then one 1 s later")
            s3, l3 = clocks(B, copies[3], True, "dump, then one 3 s later")
            if s3 != 3:
                bad.append(f"clocks: dumps 3 s apart, interval {s3}")
            print(f"clocks: {line0}; a dump 1 s later: {l1}; two dumps 3 s apart: {l3}")
    print(f"{len(by_key)} process groups ({checked} all idle: unchanged), {len(ets)} table groups "
          f"unchanged; memory total {doc['memory']['total']['relative']:+.5f}")
else:
    t1 = json.load(open(os.path.join(d, "truth1.json")))
    t2 = json.load(open(os.path.join(d, "truth2.json")))
    tk, sk = "named_table:" + t1["table"], "registered_name:" + t1["sink"]
    t, s = ets.get(tk), by_key.get(sk)
    if not t or not s:
        print(f"FAIL: table {tk} {'found' if t else 'missing'}, group {sk} {'found' if s else 'missing'}")
        sys.exit(1)
    for side, truth in (("a", t1), ("b", t2)):
        if (t[side]["size"], t[side]["memory"], t[side]["count"]) != (truth["size"], truth["memory"], 1):
            bad.append(f"table {side}: {t[side]}, live size {truth['size']} memory {truth['memory']}")
        if (s[side]["message_queue_len"], s[side]["count"]) != (truth["message_queue_len"], 1):
            bad.append(f"{sk} {side}: {s[side]}, live queue {truth['message_queue_len']}")
    if t["delta"]["size"] != t2["size"] - t1["size"] or t["delta"]["memory"] != t2["memory"] - t1["memory"]:
        bad.append(f"table delta {t['delta']}")
    if s["delta"]["message_queue_len"] != t2["message_queue_len"] - t1["message_queue_len"]:
        bad.append(f"queue delta {s['delta']}")
    if doc["ets"][0]["key"] != tk or doc["processes"][0]["key"] != sk:
        bad.append(f"largest growth first: {doc['ets'][0]['key']}, {doc['processes'][0]['key']}")
    # nothing else grew in the table or queue sense: every other table unchanged in size
    others = [k for k, x in ets.items() if k != tk and x["delta"]["size"]]
    if others:
        bad.append(f"tables that also changed size: {others}")
    iv = doc["interval"]
    want_secs = os.stat(B).st_mtime - os.stat(A).st_mtime
    if not iv or abs(iv["seconds"] - want_secs) > 0.01 or iv["a_time_from"] != "file mtime" or \
            abs(iv["a_time"] - os.stat(A).st_mtime) > 0.001 or abs(iv["b_time"] - os.stat(B).st_mtime) > 0.001:
        bad.append(f"interval {iv}, mtimes {want_secs:.3f} s apart")
    else:
        tot = doc["memory"]["total"]["delta"] / iv["seconds"]
        if abs(iv["memory_total_per_second"] - tot) > abs(tot) * 1e-5 + 1:
            bad.append(f"memory_total_per_second {iv['memory_total_per_second']}, want {tot}")
        fg = iv["fastest_group"]
        if not fg or fg["key"] != sk or abs(fg["memory_per_second"] - s["delta"]["memory"] / iv["seconds"]) > 1:
            bad.append(f"fastest_group {fg}")
    # --top 1: one row each, the totals say how many there are
    top = diff_json("--top", "1")
    if len(top["processes"]) != 1 or top["processes_total"] != len(doc["processes"]) or \
            top["processes"][0]["key"] != sk or len(top["ets"]) != 1:
        bad.append(f"--top 1: {len(top['processes'])} of {top['processes_total']}")
    rc, out, err = run(A, B, "--top", "1")
    if rc != 0 or "the first 1 shown (--top)" not in out or sk not in out or "rates over" not in out:
        bad.append(f"text --top 1: exit {rc}: {out[:600]}")
    # bad input
    with tempfile.TemporaryDirectory() as tmp:
        junk = os.path.join(tmp, "junk")
        open(junk, "w").write("not a core\n")
        for args, code, json_err in [((A,), 64, False), ((A, B, A), 64, False),
                                     ((A, os.path.join(tmp, "absent")), 2, True),
                                     ((A, junk), 2, True), ((junk, B), 2, True), ((A, tmp), 2, True)]:
            rc, out, err = run(*args, "--json")
            lines = err.strip().splitlines()
            if rc != code or len(lines) != 1 or not lines[0].startswith("beamcore: "):
                bad.append(f"diff {args}: exit {rc} (want {code}), stderr {lines}")
            if json_err:
                try:
                    e = json.loads(out)
                    if e.get("exit") != 2 or e.get("command") != "diff" or not e.get("error"):
                        bad.append(f"diff {args} --json: {e}")
                except ValueError:
                    bad.append(f"diff {args} --json: stdout not JSON: {out!r}")
    # report A B (issue 31): B's page with diff A B's output in it, drawn
    with tempfile.TemporaryDirectory() as tmp:
        page = os.path.join(tmp, "ab.html")
        r = subprocess.run([beamcore, "report", A, B, "-o", page], capture_output=True, text=True,
                           timeout=600)
        if r.returncode != 0:
            bad.append(f"report A B: exit {r.returncode}: {r.stderr.strip()}")
        else:
            data = page_data(page)
            want = diff_json()
            got = data["sections"].get("diff", {})
            for k in want:
                if k not in ("beamcore_schema", "command", "complete", "targets", "missing",
                             "missing_total") and got.get(k) != want[k]:
                    bad.append(f"report A B: the page's diff {k} is not diff --json's")
            if data["target"]["path"] != B or data.get("target_a", {}).get("path") != A:
                bad.append(f"report A B: targets {data.get('target_a', {}).get('path')}, "
                           f"{data['target']['path']}")
            if shutil.which("chromium"):
                import cdp
                br = cdp.Browser()
                try:
                    br.open(page)
                    br.eval("""new Promise(r => { const t0 = performance.now(); const t = () =>
                        document.body.dataset.ready || performance.now() - t0 > 60000 ? r(1) :
                        setTimeout(t, 20); t(); })""")
                    br.eval("document.getElementById('overview-changes').click()")
                    rows = br.eval("""Array.from(document.querySelectorAll(
                        '#changes-processes tbody tr')).map(e => [e.dataset.key, e.dataset.delta])""")
                    if not rows or rows[0] != [sk, str(s["delta"]["memory"])]:
                        bad.append(f"report A B page: first process group {rows[:1]}, diff says "
                                   f"{sk} {s['delta']['memory']}")
                    trow = br.eval(f"""Array.from(document.querySelectorAll('#changes-ets tbody tr'))
                        .filter(e => e.dataset.key === {json.dumps(t1['table'])})
                        .map(e => e.dataset.delta)""")
                    if trow != [str(t["delta"]["memory"])]:
                        bad.append(f"report A B page: table {t1['table']} delta {trow}, diff says "
                                   f"{t['delta']['memory']}")
                    bad.extend("report A B page: " + p for p in br.problems())
                finally:
                    br.close()
            elif CI:
                bad.append("report A B: no chromium to open the page in (testdata/deps.sh)")
    print(f"table {tk}: size {t['a']['size']} -> {t['b']['size']}, memory {t['a']['memory']} -> "
          f"{t['b']['memory']} words; {sk}: queue {s['a']['message_queue_len']} -> "
          f"{s['b']['message_queue_len']}; interval {iv and iv['seconds']:.2f} s")

if bad:
    print(f"FAIL: {len(bad)} problems")
    for b in bad[:30]:
        print("  " + b)
    sys.exit(1)
print("OK")
