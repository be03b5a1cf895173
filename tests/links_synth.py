#!/usr/bin/env python3
"""No silent cap on proc's strings, on any dump fixture: a copy of a real crash
dump whose longest `Link list: [<0.N.S>, ...]` is made 120,000 entries long
(its own entries, then new distinct pids), written at run time into a temp dir.
`proc PID --json` must list all 120,000 in the dump's order, none empty, with
"complete": true and exit 0; the text output with --all must print 120,000 link
lines, without it the first ones and "... and N more" with the exact rest.
(Before the string arena: a 1 MiB pool printed tens of thousands of them as ""
with "complete": true.) The same dump cut inside that Link list must not claim
to be complete.
Usage: links_synth.py BEAMCORE FIXTURE (a dump fixture under $BEAMCORE_FIXTURES,
e.g. otp25-dump)."""
import json, os, re, subprocess, sys, tempfile

N = 120000

def main():
    bc = sys.argv[1]
    src = os.path.join(os.environ.get("BEAMCORE_FIXTURES", "/nonexistent"), sys.argv[2],
                       "erl_crash.dump")
    if not os.path.exists(src):
        print(f"SKIP: no {src}")
        return 77
    with open(src, "rb") as f:
        lines = f.read().split(b"\n")
    # the longest Link list of plain local pids, and the process it belongs to
    best, owner, cur = None, None, None
    for i, l in enumerate(lines):
        if l.startswith(b"=proc:"):
            cur = l[6:].decode()
        elif l.startswith(b"Link list: [<0.") and (best is None or len(l) > len(lines[best])):
            best, owner = i, cur
    if best is None:
        print(f"SKIP: no Link list of pids in {src}")
        return 77
    own = re.findall(rb"<0\.\d+\.\d+>", lines[best])
    links = [p.decode() for p in own]
    seen = set(links)
    n = 10 ** 6
    while len(links) < N:
        p = f"<0.{n}.0>"
        n += 1
        if p not in seen:
            links.append(p)
    lines[best] = ("Link list: [" + ", ".join(links) + "]").encode()
    failures = []
    with tempfile.TemporaryDirectory(prefix="beamcore-links.") as d:
        dump = os.path.join(d, "erl_crash.dump")
        with open(dump, "wb") as f:
            f.write(b"\n".join(lines))
        print(f"{owner}: Link list of {len(own)} made {len(links)} (line {best + 1})")
        r = subprocess.run([bc, "proc", owner, dump, "--json"], capture_output=True, text=True,
                           timeout=300)
        if r.returncode != 0:
            failures.append(f"proc --json: exit {r.returncode}: {r.stderr[-300:]}")
        else:
            doc = json.loads(r.stdout)
            got = doc["process"]["links"]
            empty = sum(1 for l in got if not l)
            print(f"json: {len(got)} links ({empty} empty), complete {doc['complete']}, "
                  f"missing_total {doc.get('missing_total')}")
            if got != links or empty or doc["complete"] is not True:
                failures.append(f"json: {len(got)} links, {empty} empty, "
                                f"{sum(1 for a, b in zip(got, links) if a != b)} differ")
        # text: with --all every link; without, the first 50 and the exact rest
        r = subprocess.run([bc, "proc", owner, dump, "--all"], capture_output=True, text=True,
                           timeout=300)
        text = r.stdout.split("\nLinks\n", 1)[-1].split("\n\n", 1)[0].splitlines()
        got = [l.strip() for l in text]
        print(f"text --all: {len(got)} link lines, exit {r.returncode}")
        if r.returncode != 0 or got != links:
            failures.append(f"text --all: {len(got)} link lines, exit {r.returncode}")
        r = subprocess.run([bc, "proc", owner, dump], capture_output=True, text=True, timeout=300)
        text = r.stdout.split("\nLinks\n", 1)[-1].split("\n\n", 1)[0].splitlines()
        got = [l.strip() for l in text]
        print(f"text: {len(got)} link lines, last {got[-1:]}, exit {r.returncode}")
        if r.returncode != 0 or got[:-1] != links[:len(got) - 1] or not got or \
                not re.search(rf"\b{len(links) - (len(got) - 1):,} more", got[-1]):
            failures.append(f"text: {len(got)} link lines, last {got[-1:]}, exit {r.returncode}")
        # cut inside the long Link list: whatever is printed, not "complete"
        with open(dump, "wb") as f:
            f.write(b"\n".join(lines[:best]) + b"\n" + lines[best][: len(lines[best]) // 2])
        r = subprocess.run([bc, "proc", owner, dump, "--json"], capture_output=True, text=True,
                           timeout=300)
        doc = json.loads(r.stdout) if r.returncode in (0, 1) and r.stdout else None
        complete = doc["complete"] if doc else None
        print(f"cut dump: exit {r.returncode}, complete {complete}")
        if r.returncode not in (1, 2) or complete is True:
            failures.append(f"cut dump: exit {r.returncode}, complete {complete}: {r.stderr[-200:]}")
    for f in failures:
        print("FAIL:", f)
    print(f"{len(failures)} failures" if failures else "ok: every link, and the cut said")
    return 1 if failures else 0

if __name__ == "__main__":
    sys.exit(main())
