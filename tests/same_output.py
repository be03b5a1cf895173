#!/usr/bin/env python3
"""Byte-for-byte comparison of two beamcore builds over every command (issue 20:
a redesign that must not change behaviour). Each case is one command line; its
stdout, stderr, exit code and any file it writes (-o, --junit) must be equal.

  same_output.py --record [--base BIN]   run BIN (the reference) on every case and
                                         keep its outputs in --golden DIR
  same_output.py --new BIN               run BIN on the recorded cases, compare
  options: --quick (a subset: one target of each kind), --only REGEX (case names),
           -j N (parallel runs, default 2), --fixtures DIR ($BEAMCORE_FIXTURES),
           --golden DIR (default /var/tmp/golden)

Cases: help texts and usage errors; every command on every fuzz seed
(testdata/fuzz); every command and its variants (sorts, stacks weights, proc
by pid and name, check rules with --junit, each export format, diff pairs) on
every fixture target (cores, crash dumps) made by tests/run.sh. Case lists that
depend on a target (the pids proc opens) are fixed at --record time
(cases.json), so both builds see the same command lines. Runs happen in a
scratch directory with relative output names, so paths in outputs agree.
Exit 0 when every case is equal, 1 otherwise (the first differences shown)."""
import argparse, concurrent.futures as cf, difflib, glob, hashlib, json, os, re
import shutil, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COMMANDS = ["summary", "procs", "proc", "ets", "binaries", "memory", "stacks", "threads",
            "nodes", "waits", "tree", "check", "diff", "export", "tui", "sample"]
BIG = 1 << 20  # outputs above this are kept as a hash only
TIMEOUT = 120

def help_cases():
    c = [["--help"], ["--version"], ["help"], [], ["-h"], ["nosuch"], ["tiu"], ["procz", "x"],
         ["help", "nosuch"], ["help", "procs", "ets"], ["procs"], ["proc"], ["diff", "a"],
         ["diff", "--pid", "1", "a", "b"], ["procs", "x", "--bogus"], ["procs", "x", "--folded"],
         ["procs", "x", "--top", "x"], ["procs", "x", "--top", "-1"], ["procs", "x", "--sort", "nope"],
         ["stacks", "x", "--weight", "nope"], ["check", "x"], ["check", "x", "--max", "bogus=1"],
         ["check", "x", "--max", "memory=lots"], ["check", "x", "--rules", "/nonexistent"],
         ["export", "x"], ["export", "x", "--format", "nope", "-o", "out"],
         ["export", "x", "--format", "dot"], ["export", "x", "--format", "dot", "-o", "o", "--depth", "x"],
         ["export", "x", "--format", "speedscope", "-o", "o", "--around", "<0.1.0>"],
         ["tui"], ["tui", "a", "b", "c"], ["tui", "x", "--interval", "3"], ["sample"],
         ["sample", "--bogus"], ["sample", "--pid", "x"], ["help", "sample"], ["sample", "--help"],
         ["--pid", "1", "sample", "--bogus"], ["--pid", "0", "procs"], ["--pid", "x", "procs"],
         ["procs", "--pid", "1", "a", "b"], ["procs", "--no-stop", "x"], ["procs", "x", "--stop"],
         ["procs", "--pid", "1", "--sysroot", "/"], ["procs", "x", "y", "z"],
         ["proc", "<0.1>", "x"], ["procs", "/nonexistent"], ["procs", "/nonexistent", "--json"],
         ["summary", "/dev/null"], ["summary", "/dev/null", "--json"], ["procs", "-"],
         ["ets", "x", "--sort", "memory"], ["waits", "x", "--json", "--json"],
         ["stacks", "x", "--folded", "--json"], ["--json"], ["--top", "3"]]
    for cmd in COMMANDS:
        c += [["help", cmd], [cmd, "--help"]]
    return [("help " + " ".join(a), a, []) for a in c]

# every command once, as a script would run it (target appended)
SEED_CMDS = [["summary"], ["procs"], ["ets"], ["memory"], ["stacks"], ["nodes"], ["threads"],
             ["binaries"], ["proc", "<0.0.0>"], ["tree"], ["waits"],
             ["check", "--max", "message_queue_len=1000", "--max", "ets.memory=1MiB",
              "--max", "process_count=80%", "--max", "binary=1GiB"]]

def seed_cases(tree):
    """tree: the reference build's checkout (paths in outputs must agree)."""
    seeds = sorted(glob.glob(os.path.join(tree, "testdata/fuzz/*/*")))
    seeds = [s for s in seeds if os.path.isfile(s) and not s.endswith(".py")]
    out = []
    for s in seeds:
        name = os.path.relpath(s, tree)
        for cmd in SEED_CMDS:
            for js in ([], ["--json"]):
                out.append((f"seed {name} {' '.join(cmd + js)}", cmd + [s] + js, []))
        out.append((f"seed {name} diff", ["diff", s, s, "--json"], []))
        for fmt in ("crashdump", "dot", "speedscope"):
            out.append((f"seed {name} export {fmt}",
                        ["export", s, "--format", fmt, "-o", "out"], ["out"]))
    return out

def run(binary, argv, cwd, files):
    try:
        r = subprocess.run([binary] + argv, cwd=cwd, capture_output=True, timeout=TIMEOUT,
                           stdin=subprocess.DEVNULL, env=dict(os.environ, TERM="dumb", COLUMNS="80"))
        res = {"rc": r.returncode, "out": r.stdout, "err": r.stderr}
    except subprocess.TimeoutExpired:
        res = {"rc": "timeout", "out": b"", "err": b""}
    for f in files:
        p = os.path.join(cwd, f)
        res["file:" + f] = open(p, "rb").read() if os.path.exists(p) else None
        if os.path.exists(p):
            os.unlink(p)
    return res

def pack(res):
    """JSON-able: small outputs whole (text), large ones as a hash."""
    d = {}
    for k, v in res.items():
        if isinstance(v, bytes) and len(v) > BIG:
            d[k] = {"sha256": hashlib.sha256(v).hexdigest(), "len": len(v),
                    "head": v[:2000].decode("utf-8", "replace")}
        elif isinstance(v, bytes):
            d[k] = {"text": v.decode("latin-1")}
        else:
            d[k] = v
    return d

def fixture_targets(fx):
    """(fixture name, target file) for every target a fixture holds."""
    names = ["core.kernel", "core.gcore", "core", "erl_crash.dump", "oom.dump",
             "kernel_pid.dump", "kernel_pid_cut.dump", "core.1", "core.2"]
    out = []
    for d in sorted(glob.glob(os.path.join(fx, "*"))):
        for n in names:
            p = os.path.join(d, n)
            if os.path.isfile(p) and os.path.getsize(p) > 0:
                out.append((os.path.basename(d), p))
    return out

def fixture_cases(base, fx, scratch):
    out = []
    targets = fixture_targets(fx)
    for fxname, path in targets:
        tn = f"{fxname}/{os.path.basename(path)}"
        is_core = not path.endswith(".dump")
        # pids to open: the three largest and a registered name
        r = run(base, ["procs", path, "--json", "--top", "3", "--sort", "memory"], scratch, [])
        pids = []
        try:
            for p in json.loads(r["out"]).get("processes", []):
                pids.append(p["pid"])
        except (ValueError, KeyError, TypeError):
            pass
        variants = [["summary"], ["procs"], ["procs", "--sort", "message_queue_len", "--top", "5"],
                    ["procs", "--sort", "reductions"], ["procs", "--sort", "current_function"],
                    ["ets"], ["ets", "--top", "3"], ["binaries"], ["binaries", "--top", "2"],
                    ["memory"], ["stacks"], ["stacks", "--folded"],
                    ["stacks", "--weight", "memory", "--by-status"],
                    ["stacks", "--folded", "--weight", "binary", "--by-status"],
                    ["threads"], ["nodes"], ["waits"], ["waits", "--top", "2"], ["tree"],
                    ["proc", "<0.0.0>"], ["proc", "code_server"], ["proc", "init"],
                    ["proc", "<0.99999.0>"], ["proc", "no_such_name"]]
        variants += [["proc", p] for p in pids]
        out_files = []
        for v in variants:
            for js in ([], ["--json"]):
                out.append((f"fx {tn} {' '.join(v + js)}", v[:1] + ([v[1]] if v[0] == "proc" else [])
                            + [path] + (v[2:] if v[0] == "proc" else v[1:]) + js, []))
        chk = ["check", path, "--max", "message_queue_len=100", "--max", "memory=1MiB",
               "--max", "process_count=80%", "--max", "ets.size=1000", "--max", "binary=1MiB",
               "--junit", "junit.xml"]
        out.append((f"fx {tn} check", chk, ["junit.xml"]))
        out.append((f"fx {tn} check --json", chk + ["--json"], ["junit.xml"]))
        fmts = ["dot", "speedscope"] + (["crashdump"] if is_core else [])
        for fmt in fmts:
            out.append((f"fx {tn} export {fmt}", ["export", path, "--format", fmt, "-o", "out"], ["out"]))
            out.append((f"fx {tn} export {fmt} --json",
                        ["export", path, "--format", fmt, "-o", "out", "--json"], ["out"]))
        out.append((f"fx {tn} export dot around",
                    ["export", path, "--format", "dot", "-o", "-", "--around", "<0.0.0>", "--depth", "1"], []))
        out.append((f"fx {tn} export speedscope memory",
                    ["export", path, "--format", "speedscope", "-o", "-", "--weight", "memory"], []))
    # diff pairs: same fixture's targets, and the grow series
    for d in sorted(glob.glob(os.path.join(fx, "*"))):
        ts = [p for n, p in targets if n == os.path.basename(d)]
        if len(ts) >= 2:
            for js in ([], ["--json"]):
                out.append((f"fx diff {os.path.basename(d)} {' '.join(js)}",
                            ["diff", ts[0], ts[1]] + js, []))
                out.append((f"fx diff {os.path.basename(d)} top {' '.join(js)}",
                            ["diff", ts[-1], ts[0], "--top", "3"] + js, []))
    return out

QUICK = re.compile(r"^(help|seed testdata/fuzz/fuzz_dump/|fx (otp25|otp29-emu|otp27-dist)/core\.kernel |"
                   r"fx otp25-dump/erl_crash\.dump |fx crash25-nif/core |fx diff otp27-gcore-dump)")

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--record", action="store_true")
    ap.add_argument("--base", default="/var/tmp/base/build/beamcore")
    ap.add_argument("--new")
    ap.add_argument("--golden", default="/var/tmp/golden")
    ap.add_argument("--fixtures", default=os.environ.get("BEAMCORE_FIXTURES", "/var/tmp/fx"))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only")
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--tally", action="store_true",
                    help="after the differences, how many cases of each command differ")
    a = ap.parse_args()
    scratch = tempfile.mkdtemp(prefix="same_output.")
    try:
        if a.record:
            return record(a, scratch)
        if not a.new:
            ap.error("--new BIN or --record")
        return compare(a, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

def case_dir(scratch, i):
    d = os.path.join(scratch, str(i))
    os.makedirs(d, exist_ok=True)
    return d

def record(a, scratch):
    base = os.path.abspath(a.base)
    tree = os.path.dirname(os.path.dirname(base))  # BIN is TREE/build/beamcore
    cases = help_cases() + seed_cases(tree)
    if os.path.isdir(a.fixtures):
        cases += fixture_cases(base, a.fixtures, scratch)
    if a.only:
        cases = [c for c in cases if re.search(a.only, c[0])]
    os.makedirs(a.golden, exist_ok=True)
    results = {}
    with cf.ThreadPoolExecutor(a.j) as ex:
        futs = {ex.submit(run, base, argv, case_dir(scratch, i), files): name
                for i, (name, argv, files) in enumerate(cases)}
        for f in cf.as_completed(futs):
            results[futs[f]] = pack(f.result())
    old = {}
    gpath = os.path.join(a.golden, "golden.json")
    if a.only and os.path.exists(gpath):
        old = json.load(open(gpath))
    old_cases = old.get("cases", [])
    names = {c[0] for c in cases}
    merged = [c for c in old_cases if c[0] not in names] + [list(c) for c in cases]
    res = {**old.get("results", {}), **results}
    json.dump({"base": base, "cases": merged, "results": res}, open(gpath + ".tmp", "w"))
    os.replace(gpath + ".tmp", gpath)
    print(f"recorded {len(cases)} cases ({len(merged)} in all) in {gpath}")
    return 0

def show(name, k, want, got):
    print(f"DIFF {name}: {k}")
    if isinstance(want, dict) and "text" in want and isinstance(got, dict) and "text" in got:
        d = difflib.unified_diff(want["text"].splitlines(), got["text"].splitlines(),
                                 "base", "new", lineterm="", n=1)
        for line in list(d)[:12]:
            print("   " + line[:200])
    else:
        print(f"   base: {str(want)[:300]}\n   new:  {str(got)[:300]}")

def command_of(name):
    """A case's kind for --tally: help, or the command (and target kind: core/dump)."""
    w = name.split()
    if w[0] == "help":
        return "help"
    if w[0] == "seed":
        return "seed " + w[2]
    if w[1] == "diff":
        return "diff"
    return w[2] + (" (dump)" if w[1].endswith(".dump") else " (core)")

def compare(a, scratch):
    g = json.load(open(os.path.join(a.golden, "golden.json")))
    cases = g["cases"]
    if a.quick:
        cases = [c for c in cases if QUICK.search(c[0])]
    if a.only:
        cases = [c for c in cases if re.search(a.only, c[0])]
    new = os.path.abspath(a.new)
    bad = 0
    tally, total = {}, {}
    with cf.ThreadPoolExecutor(a.j) as ex:
        futs = {ex.submit(run, new, argv, case_dir(scratch, i), files): name
                for i, (name, argv, files) in enumerate(cases)}
        for f in cf.as_completed(futs):
            name = futs[f]
            got, want = pack(f.result()), g["results"].get(name)
            if want is None:
                print(f"NEW {name}: no recorded output (record again)")
                continue
            diffs = [k for k in sorted(set(want) | set(got)) if want.get(k) != got.get(k)]
            kind = command_of(name)
            total[kind] = total.get(kind, 0) + 1
            if diffs:
                tally[kind] = tally.get(kind, 0) + 1
                bad += 1
                if bad <= 20:
                    for k in diffs:
                        show(name, k, want.get(k), got.get(k))
    if a.tally:
        for kind in sorted(total):
            print(f"  {kind:28} {tally.get(kind, 0):5} of {total[kind]:5} differ")
    print(f"{len(cases)} cases, {bad} differ" + (" (first 20 shown)" if bad > 20 else ""))
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main())
