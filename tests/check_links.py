#!/usr/bin/env python3
"""No silent cap on a process's strings: `proc many_links` on a dump of a
process linked to 120,000 others (testdata/capture.sh --dump: links.dump and
links.json, process_info(P, links) written by the live VM) lists every link,
none empty, with "complete": true; the text output with --all has all 120,000
lines, without it the first 50 and "... and 119,950 more" (issue 21 part 5).
(Before: a 1 MiB string pool printed 28,943 of them as "".)
Usage: check_links.py BEAMCORE FIXTURE (an otpREL-dump fixture under $BEAMCORE_FIXTURES)."""
import json, os, subprocess, sys

def main():
    bc = sys.argv[1]
    d = os.path.join(os.environ.get("BEAMCORE_FIXTURES", "/nonexistent"), sys.argv[2])
    dump, truth = os.path.join(d, "links.dump"), os.path.join(d, "links.json")
    if not (os.path.exists(dump) and os.path.exists(truth)):
        print(f"SKIP: no {dump} (testdata/capture.sh REL DIR --dump makes it)")
        return 1 if os.environ.get("CI") == "true" else 77  # CI: no skips
    gt = json.load(open(truth))
    failures = []
    for arg in (gt["pid"], gt["registered_name"]):
        r = subprocess.run([bc, "proc", arg, dump, "--json"], capture_output=True, text=True, timeout=300)
        if r.returncode != 0:
            failures.append(f"proc {arg}: exit {r.returncode}: {r.stderr[-300:]}")
            continue
        doc = json.loads(r.stdout)
        links = doc["process"]["links"]
        empty = sum(1 for l in links if not l)
        print(f"proc {arg}: {len(links)} links ({empty} empty), complete {doc['complete']}, "
              f"live {gt['link_count']}")
        if sorted(links) != sorted(gt["links"]) or empty or not doc["complete"]:
            failures.append(f"proc {arg}: {len(links)} links, {empty} empty, "
                            f"{len(set(links) ^ set(gt['links']))} differ from the live list")
    links_text = lambda out: [l.strip() for l in
                              out.split("\nLinks\n", 1)[-1].split("\n\n", 1)[0].splitlines()]
    r = subprocess.run([bc, "proc", gt["registered_name"], dump, "--all"], capture_output=True,
                       text=True, timeout=300)
    got = links_text(r.stdout)
    print(f"text --all: {len(got)} link lines")
    if r.returncode != 0 or sorted(got) != sorted(gt["links"]):
        failures.append(f"text --all: {len(got)} link lines, exit {r.returncode}")
    r = subprocess.run([bc, "proc", gt["registered_name"], dump], capture_output=True, text=True,
                       timeout=300)
    got = links_text(r.stdout)
    rest = f"... and {len(gt['links']) - 50:,} more"
    if r.returncode != 0 or len(got) != 51 or not got[-1].startswith(rest) or \
            not set(got[:50]) <= set(gt["links"]):
        failures.append(f"text: {len(got)} link lines, last {got[-1:]}; want 50 and {rest!r}")
    for f in failures:
        print("FAIL:", f)
    print(f"{len(failures)} failures" if failures else "ok: every link")
    return 1 if failures else 0

if __name__ == "__main__":
    sys.exit(main())
