#!/usr/bin/env python3
"""The summary's subtree finding on any fixture (issue 21: it called a worker
"the supervision subtree under" a pid that "holds the most" while its parent
held more): from the live node's own records (check_summary's rule, tree.c's),
the supervisor it names, what that holds, and the worker holding half of it;
the text never says "the most" nor calls one process a subtree.
Usage: check_subtree.py BEAMCORE FIXTURE TARGET."""
import sys
from fixture import Fixture, report
from check_summary import subtree_holding_most

def main():
    fx = Fixture(sys.argv)
    gt = fx.truth
    doc = fx.json("summary", ok=(0, 1))
    sub = [f for f in doc["findings"] if f["kind"] == "subtree"]
    dump = fx.name.endswith(".dump")
    want = subtree_holding_most(gt, dump)
    bad = []
    if want and want[3]:
        w = fx.json("proc", arg=gt["collector"])["process"]
        want = (want[0], want[1] + w["memory"] + (0 if dump else
                sum(int(b.strip("{}").split(",")[1]) for b in w["binary"] or [])), *want[2:])
    if len(sub) != (1 if want else 0) or (want and (sub[0]["pid"], sub[0]["value"]) != want[:2]):
        bad.append(f"subtree finding {sub}, live {want}")
    for f in sub:
        if "holds the most" in f["text"] or " (1 process:" in f["text"] or \
                (want and want[2] and f"its worker {want[2]} " not in f["text"]):
            bad.append(f"text {f['text']!r} (worker {want and want[2]})")
    print(f"{fx.name}: subtree {sub[0]['text'] if sub else None!r}; live {want}")
    return report(bad)

if __name__ == "__main__":
    sys.exit(main())
