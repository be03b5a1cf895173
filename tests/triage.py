#!/usr/bin/env python3
"""beamcore triage on a corpus of real deaths (testdata/triage-corpus.sh: halt
slogans with different numbers and paths, boot failures, eheap_alloc under
ulimit -v, SIGUSR1 dumps, cut, compressed and garbage files) plus the crash
fixtures' kernel cores (capture-crash.sh: NIF segfaults, aborts, kill -ABRT,
the gcore at erts_alc_fatal_error): the groups exactly as expected.json and
crash.json say, each input once, the --json against docs/schema/triage.json,
--baseline/--junit, the same output on one CPU as on all, the memory picture
as `procs`/`memory` read it, and 10,000 files in bounded memory.

usage: triage.py BEAMCORE CORPUS   (CORPUS: a fixture directory, $BEAMCORE_FIXTURES/CORPUS)"""
import glob, json, os, resource, subprocess, sys, tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture import CI, SKIP
import check_schema

beamcore = sys.argv[1]
fixtures = os.environ.get("BEAMCORE_FIXTURES", "/nonexistent")
corpus = os.path.join(fixtures, sys.argv[2])
deaths = os.path.join(corpus, "deaths")
if not os.path.exists(os.path.join(corpus, "expected.json")):
    print(f"{'FAIL (CI=true)' if CI else 'SKIP'}: no fixture {corpus} (testdata/triage-corpus.sh makes it)")
    sys.exit(SKIP)
expected = json.load(open(os.path.join(corpus, "expected.json")))
cores = sorted(glob.glob(os.path.join(fixtures, "crash*", "core")))
bad = []

def run(*args, cpu0=False):
    cmd = (["taskset", "-c", "0"] if cpu0 else []) + [beamcore, "triage", *args]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    return r.returncode, r.stdout, r.stderr

vals = check_schema.validators(check_schema.load_schemas())

def doc_of(*args, want=(0, 1)):
    rc, out, err = run("--json", *args)
    if rc not in want:
        raise SystemExit(f"FAIL: triage {' '.join(args)}: exit {rc}: {err.strip()[:300]}")
    doc = json.loads(out)
    for e in list(vals["triage"].iter_errors(doc))[:5]:
        bad.append(f"triage.json at {'/'.join(map(str, e.absolute_path))}: {e.message[:200]}")
    return rc, doc

rel = lambda f: os.path.relpath(f, deaths)
rc, doc = doc_of(deaths, *cores)
if rc != 1 or doc["complete"]:
    bad.append(f"exit {rc}, complete {doc['complete']}: want 1 and false (unreadable, truncated files)")

# each input once
inputs = sorted(os.path.relpath(f, deaths) for f in glob.glob(deaths + "/**", recursive=True)
                if os.path.isfile(f)) + [rel(c) for c in cores]
seen = [rel(f) for g in doc["groups"] for f in g["files"]] + [rel(u["file"]) for u in doc["unreadable"]]
if sorted(seen) != sorted(inputs) or doc["files"] != len(inputs):
    bad.append(f"inputs {len(inputs)}, listed {len(seen)} (distinct {len(set(seen))}), files {doc['files']}")

# the groups: the corpus's as expected.json; the cores' by what crash.json says they died of
def kind(core):
    c = json.load(open(os.path.join(os.path.dirname(core), "crash.json")))
    return (c["c_function"], c["signal"], c["caller"])
want = [sorted(g) for g in expected["groups"]]
by_kind = {}
for c in cores:
    by_kind.setdefault(kind(c), []).append(rel(c))
want += [sorted(v) for v in by_kind.values()]
got = [sorted(rel(f) for f in g["files"]) for g in doc["groups"]]
for g in want:
    if g not in got:
        bad.append(f"no group of exactly {g}")
for g in got:
    if g not in want:
        bad.append(f"a group not expected: {g}")
trunc = sorted(rel(f) for g in doc["groups"] for f in g["truncated"])
if trunc != sorted(expected["truncated"]):
    bad.append(f"truncated {trunc}, want {sorted(expected['truncated'])}")
unread = sorted(rel(u["file"]) for u in doc["unreadable"])
if unread != sorted(expected["unreadable"]):
    bad.append(f"unreadable {unread}, want {sorted(expected['unreadable'])}")
reasons = {rel(u["file"]): u["error"] for u in doc["unreadable"]}
if reasons.get("empty") != "empty file":
    bad.append(f"empty: reason {reasons.get('empty')!r}")
counts = [g["count"] for g in doc["groups"]]
if counts != sorted(counts, reverse=True) or any(g["count"] != len(g["files"]) for g in doc["groups"]):
    bad.append(f"counts {counts}: not most frequent first, or not the files'")

# the signatures: normalized slogans, the culprit's frames, a core's signal and frames
def group_with(f):
    return next(g for g in doc["groups"] if any(rel(x) == f for x in g["files"]))
sig_starts = {
    "disk-3.dump": "disk full: <N> bytes left in /.../data | ",
    "more/config-7.dump": "config error: key <N> missing | ",
    "boot-1.dump": "Runtime terminating during boot ({bad_config,<N>})",
    "enomem-700.dump": 'eheap_alloc: Cannot allocate <N> bytes of memory (of type "heap"). | beamcore_triage:grower/1',
    "usr1-1.dump": "Received SIGUSR1 | ",
    "header-only.dump": "(no slogan)",
}
for f, s in sig_starts.items():
    if not group_with(f)["signature"].startswith(s):
        bad.append(f"{f}: signature {group_with(f)['signature']!r}, want it to start {s!r}")
for c in cores:
    k = kind(c)
    sig = group_with(rel(c))["signature"]
    sigwant = k[1] if k[1] != "none" else "no signal"
    if not sig.startswith(sigwant) or (k[0] != "none" and k[0] not in sig):
        bad.append(f"{rel(c)}: signature {sig!r}: want {sigwant} and {k[0]}")

# first/last seen: the dumps' header times, the cores' mtimes
for g in doc["groups"]:
    times = []
    for f in g["files"]:
        if f in cores:
            times.append(int(os.stat(f).st_mtime))
        else:
            r = subprocess.run([beamcore, "memory", "--json", f], capture_output=True, text=True)
            t = json.loads(r.stdout)["target"]["time"] if r.stdout.startswith("{") else None
            if t:
                times.append(int(t))
    import time
    iso = lambda t: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))
    if times and (g["first_seen"], g["last_seen"]) != (iso(min(times)), iso(max(times))):
        bad.append(f"{g['signature'][:40]}: seen {g['first_seen']}..{g['last_seen']}, "
                   f"want {iso(min(times))}..{iso(max(times))}")

# the memory picture of the enomem group: the grower, as procs and memory read each dump
g = group_with("enomem-700.dump")
files = [f for f in g["files"] if f not in g["truncated"]]
proc_mem, cat_mem = [], []
for f in g["files"]:
    p = json.loads(subprocess.run([beamcore, "procs", "--json", "--sort", "memory", "--top", "1", f],
                                  capture_output=True, text=True).stdout)["processes"][0]
    if p["registered_name"] == "grower":
        proc_mem.append(p["memory"])
    m = json.loads(subprocess.run([beamcore, "memory", "--json", f], capture_output=True,
                                  text=True).stdout)["memory"]
    if m.get("processes") is not None:
        cat_mem.append(m["processes"])
med = lambda v: sorted(v)[len(v) // 2]
pic = g["memory"]
if (pic["largest_process"], pic["largest_process_bytes"]) != ("grower", med(proc_mem)) or \
        (pic["largest_category"], pic["largest_category_bytes"]) != ("processes", med(cat_mem)):
    bad.append(f"enomem memory picture {pic}, want grower {med(proc_mem)}, processes {med(cat_mem)}")

# text: a line per group, then the unreadable ones
rc, out, _ = run(deaths, *cores)
lines = out.splitlines()
if len([l for l in lines if l[:5].strip().isdigit()]) != len(doc["groups"]) or \
        f"unreadable: {len(doc['unreadable'])}" not in lines:
    bad.append(f"text: {len(lines)} lines for {len(doc['groups'])} groups")

# the same on one CPU
_, out1, _ = run("--json", deaths, *cores, cpu0=True)
if json.loads(out1) != doc:
    bad.append("--json on one CPU differs from all CPUs")

with tempfile.TemporaryDirectory() as tmp:
    # --baseline: a run without the SIGUSR1 dumps; the full run has one new group
    base = os.path.join(tmp, "base.json")
    whole = [os.path.join(deaths, f) for f in ("disk-3.dump", "more/config-7.dump", "boot-1.dump")]
    _, bdoc = doc_of(*whole)
    json.dump(bdoc, open(base, "w"))
    junit = os.path.join(tmp, "t.xml")
    rc, ndoc = doc_of("--baseline", base, "--junit", junit, *whole,
                      os.path.join(deaths, "usr1-1.dump"))
    new = [g["signature"] for g in ndoc["groups"] if g["new"]]
    if rc != 1 or len(new) != 1 or not new[0].startswith("Received SIGUSR1"):
        bad.append(f"--baseline: exit {rc}, new {new}")
    suite = ET.parse(junit).getroot()
    fails = [tc.get("name") for tc in suite.iter("testcase") if tc.find("failure") is not None]
    if suite.get("tests") != "4" or fails != new:
        bad.append(f"--junit: tests {suite.get('tests')}, failures {fails}")
    rc, _, _ = run("--baseline", base, *whole)
    if rc != 0:
        bad.append(f"--baseline with nothing new: exit {rc}")

    # a slogan longer than a signature holds: said cut ("..."), and read back by --baseline
    long = os.path.join(tmp, "long.dump")
    with open(long, "wb") as f:
        f.write(b"=erl_crash_dump:0.5\nThu Nov 26 00:00:00 2026\nSlogan: " + "\u00e9".encode() * 700 +
                b" 12\n=end\n")
    _, ldoc = doc_of(long)
    sig = ldoc["groups"][0]["signature"]
    json.dump(ldoc, open(base, "w"))
    _, again = doc_of("--baseline", base, long)
    if len(sig.encode()) > 1023 or not sig.endswith("...") or again["groups"][0]["new"] is not False:
        bad.append(f"a long slogan: {len(sig.encode())} bytes, ends {sig[-4:]!r}, "
                   f"new against itself: {again['groups'][0]['new']}")

    # 10,000 files: bounded memory (links to small dumps and to garbage)
    big = os.path.join(tmp, "many")
    os.mkdir(big)
    srcs = [os.path.join(deaths, f) for f in ("disk-17-cut.dump", "header-only.dump", "garbage")]
    for i in range(10000):
        os.symlink(srcs[i % 3], os.path.join(big, f"f{i:05d}"))
    # this run's own peak (wait4), not the largest of every child so far;
    # ASan's quarantine of freed blocks (256 MB) counts under a sanitizer build
    with tempfile.TemporaryFile() as out:
        p = subprocess.Popen([beamcore, "triage", "--json", big], stdout=out,
                             stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        many = json.loads(out.read())
    rss = usage.ru_maxrss
    limit = (600 if b"libasan" in open(beamcore, "rb").read() else 200) * 1024
    n = sum(g["count"] for g in many["groups"]) + len(many["unreadable"])
    if n != 10000 or len(many["groups"]) != 2 or len(many["unreadable"]) != 3333:
        bad.append(f"10,000 files: {n} listed, {len(many['groups'])} groups, "
                   f"{len(many['unreadable'])} unreadable")
    if p.returncode not in (0, 1) or rss > limit:
        bad.append(f"10,000 files: exit {p.returncode}, max RSS {rss // 1024} MB "
                   f"(limit {limit // 1024} MB)")
    print(f"10,000 files: {len(many['groups'])} groups, max RSS {rss // 1024} MB")

print(f"{len(inputs)} inputs ({len(cores)} cores): {len(doc['groups'])} groups, "
      f"{len(doc['unreadable'])} unreadable")
for b in bad:
    print("FAIL", b)
sys.exit(1 if bad else 0)
