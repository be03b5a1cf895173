#!/usr/bin/env python3
"""The browser's waits and tree views and group lists, driven through tmux at
120x40: `w` opens who-waits-on-whom with the deadlock named; Enter on a
callee's row lists its waiters (as many as the live node had); Enter on a stack
group (`g`) lists the group's processes, and Enter on one of them opens it; `t`
shows the supervision trees (every root the live node's which_children gave)
and Enter on a node opens that process.
Usage: tui_waits.py BEAMCORE FIXTURE TARGET. Skips (77) without tmux or fixture."""
import collections, os, re, shutil, sys
from fixture import Fixture, SKIP
from tui_browse import Term, lines

def main():
    fx = Fixture(sys.argv)
    if not shutil.which("tmux"):
        print("SKIP: no tmux")
        return SKIP
    gt = fx.truth
    waiters = collections.Counter(c["callee"] for c in gt["calls"])
    callee, n = waiters.most_common(1)[0]
    want = {c["waiter"] for c in gt["calls"] if c["callee"] == callee}

    def listed(s):
        """A list of processes drawn whole: its rows are the callee's waiters."""
        rows = [l.split()[0] for l in lines(s)[4:-1] if l.strip().startswith("<")]
        return rows and all(p in want for p in rows)
    a, b = gt["cycles"][0]
    bc = os.path.abspath(fx.beamcore)
    failures = []

    def check(what, ok, screen=""):
        print(f"{'ok  ' if ok else 'FAIL'} {what}")
        if not ok:
            failures.append(what)
            print(screen)

    t = Term(f"sh -c 'LC_ALL=C.UTF-8 {bc} tui {fx.core} {fx.beam} 2>/dev/null'", 120, 40)
    try:
        t.wait("first screen", lambda s: "q quit" in s)
        t.keys("w")
        s = t.wait("waits", lambda s: lines(s)[1].startswith("Who waits on whom"))
        check("w: the deadlock is named", "deadlock" in s and a in s and b in s, s)
        # move the cursor to the callee's row of the groups table, Enter
        target = next((i for i, l in enumerate(lines(s)) if l.startswith(callee + " ")), -1)
        check(f"w: {callee} listed as a callee", target > 0, s)
        if target > 0:
            # the title says "(line N of M)": the cursor's line; screen line 2 is line 1
            t.keys(*["Down"] * (target - 2))
            t.wait("cursor on the row", lambda s: f"(line {target - 1} of" in lines(s)[1])
            t.keys("Enter")
            # the list keeps its view's title (", row 1" before Enter too): wait for
            # its heading, "N processes", and its rows (the heading is drawn
            # first: the old view's rows can still stand under it)
            s = t.wait("waiters list", lambda s: ", row 1" in lines(s)[1] and
                       len(lines(s)) > 3 and lines(s)[3].strip().endswith(" processes") and
                       listed(s))
            first = [l.split()[0] for l in lines(s)[2:-1] if l.strip().startswith("<")]
            check(f"Enter on {callee}: lists its {n:,} waiters",
                  f"{n:,} processes" in s and first and all(p in want for p in first), s)
            t.keys("q", "q")
        # stack groups: the cursor starts on the largest group; Enter lists it
        t.wait("process list", lambda s: lines(s)[1].startswith("Processes"))
        t.keys("g")
        s = t.wait("stack groups", lambda s: lines(s)[1].startswith("Stack groups"))
        t.keys("Enter")
        # its heading and its rows: the old view's lines can stand under the
        # heading for a moment (the race of the waiters list above)
        s = t.wait("group list", lambda s: ", row 1" in lines(s)[1] and
                   len(lines(s)) > 3 and lines(s)[3].strip().endswith(" processes") and
                   listed(s))
        pids = [l.split()[0] for l in lines(s)[2:-1] if l.strip().startswith("<")]
        # the largest group: the callers of the largest callee, all of them
        check(f"Enter on the largest stack group lists its {n:,} processes",
              f"{n:,} processes" in s and pids and all(p in want for p in pids), s)
        if pids:
            t.keys("Down", "Down", "Enter")
            # the title changes before the body is drawn: wait for both
            s = t.wait("a process", lambda s: lines(s)[1].startswith("Process <") and
                       ("current_function" in s or "Stack" in s))
            check("Enter on a listed process opens it", "current_function" in s or "Stack" in s, s)
        t.keys("p")  # back to the process list
        t.wait("process list again", lambda s: lines(s)[1].startswith("Processes"))
        t.keys("t")
        s = t.wait("trees", lambda s: lines(s)[1].startswith("Supervision trees"))
        roots = [r["pid"] for r in gt.get("supervision") or []]
        check(f"t: the {len(roots)} roots shown", roots and all(r in s for r in roots), s)
        # Enter on the node under the cursor (moved down to a root's line): the
        # process opened is that node, a node of the live trees
        nodes = set()
        def walk(n):
            nodes.add(n["pid"])
            for c in n["children"] or []:
                walk(c)
        for r in gt.get("supervision") or []:
            walk(r)
        row = next((i for i, l in enumerate(lines(s)) if l.split()[:1] == [roots[0]]), -1) if roots else -1
        if row > 0:
            t.keys(*["Down"] * (row - 2))
            s = t.wait("cursor moved", lambda s: f"(line {row - 1} of" in lines(s)[1])
            at = re.search(r"\(line (\d+) of", lines(s)[1])
            under = lines(s)[int(at.group(1)) + 1].split()[0] if at else ""
            t.keys("Enter")
            s = t.wait("a tree process", lambda s: lines(s)[1].startswith("Process <") and
                       ("current_function" in s or "Stack" in s))
            opened = lines(s)[1].split()[1]
            check(f"Enter on tree node {under} opens it", opened == under and opened in nodes, s)
    finally:
        t.close()
    print(f"{len(failures)} failures" if failures else "ok: tui waits")
    return 1 if failures else 0

if __name__ == "__main__":
    sys.exit(main())
