#!/usr/bin/env python3
"""`beamcore tui` driven in a real terminal (tmux): the first screen is the
process list sorted by memory with the largest (ground_truth.json, without the
collector) on top; `s` cycles the sort to message_queue_len and brings
`flooded` up; `/bin_router` leaves only bin_router; Enter shows its stack;
every view key opens its pane and Esc/q come back; a resize to 80x24 keeps the
header and footer on screen; q quits with exit status 0 (ASan builds: no leak).
Usage: tui_browse.py BEAMCORE FIXTURE CORE. Skips (77) without tmux or fixture.
TUI_CAPTURE_DIR=DIR writes each screen to DIR/NAME.txt (for docs/tui.md)."""
import atexit, os, shutil, subprocess, sys, tempfile, time
from fixture import Fixture, SKIP

DUMP = False  # the target is a crash dump (set in main)

TIMEOUT = 60  # ASan+UBSan builds load a core slowly

class Term:
    made = 0

    def __init__(self, cmd, cols, rows):
        # a socket per terminal: a new server on the socket of one just killed
        # can fail while the old one exits (seen: new-session exit status 1)
        Term.made += 1
        self.sock = f"beamcore-tui-{os.getpid()}-{Term.made}"
        self.tmux(["new-session", "-d", "-x", str(cols), "-y", str(rows), cmd])

    def tmux(self, args, check=True):
        return subprocess.run(["tmux", "-L", self.sock, "-f", "/dev/null", *args],
                              capture_output=True, text=True, check=check).stdout

    def keys(self, *keys):
        self.tmux(["send-keys", *keys])

    def text(self, escapes=False):
        return self.tmux(["capture-pane", "-p", *(["-e"] if escapes else [])], check=False)

    def wait(self, what, pred):
        end = time.time() + TIMEOUT
        while time.time() < end:
            screen = self.text()
            if pred(screen):
                return screen
            time.sleep(0.1)
        fail(f"{what}: timed out; screen:\n{self.text()}")

    def settled(self, what, pred):
        """As wait, and then until the screen holds still for 0.5 s: a title
        can be drawn before the rows under it (an ASan build's redraw of
        15,000 rows is slow), and a screen taken as a reference must be whole."""
        screen = self.wait(what, pred)
        end = time.time() + TIMEOUT
        while time.time() < end:
            time.sleep(0.5)
            again = self.text()
            if again == screen and pred(again):
                return again
            screen = again
        fail(f"{what}: the screen never held still; screen:\n{self.text()}")

    def close(self):
        self.tmux(["kill-server"], check=False)

def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)

def lines(screen):
    return screen.split("\n")

def tui_term(fx, cols, nrows, tmp):
    """`beamcore tui` on the fixture's target in a cols x nrows terminal: the
    Term, and the file its exit code lands in (stderr in tmp/stderr)."""
    status = os.path.join(tmp, "status")
    cmd = (f"sh -c 'LC_ALL=C.UTF-8 {os.path.abspath(fx.beamcore)} tui {fx.core} {fx.beam} "
           f"2>{tmp}/stderr; echo $? > {status}'")
    return Term(cmd, cols, nrows), status

def rows(screen):
    """the process list's data rows (line 3 on, pids first), footer excluded"""
    return [l for l in lines(screen)[3:-1] if l.startswith("<")]

def save(name, screen):
    d = os.environ.get("TUI_CAPTURE_DIR")
    if d:
        with open(os.path.join(d, name + ".txt"), "w") as f:
            f.write(screen.rstrip("\n") + "\n")

def main():
    global DUMP
    fx = Fixture(sys.argv)
    DUMP = fx.name.endswith(".dump")
    if not shutil.which("tmux"):
        print("SKIP: no tmux")
        return SKIP
    gt = fx.truth
    top = max((p for p in gt["processes"] if p["pid"] != gt["collector"]),
              key=lambda p: p["memory"])
    router = next(p for p in gt["processes"] if p["registered_name"] == "bin_router")
    tmp = tempfile.mkdtemp(prefix="beamcore-tui.")
    atexit.register(shutil.rmtree, tmp, True)  # every exit, a failing one too
    t, status = tui_term(fx, 120, 40, tmp)
    try:
        s = t.wait("first screen", lambda s: rows(s) and "q quit" in s)
        save("procs", s)
        if not lines(s)[0].startswith(f"OTP {gt['otp_release']} | {gt['node']} |"):
            fail(f"header: {lines(s)[0]!r}")
        if "sorted by memory" not in lines(s)[1]:
            fail(f"title: {lines(s)[1]!r}")
        first = rows(s)[0]
        if not first.startswith(top["pid"] + " ") or (top["registered_name"] or "") not in first:
            fail(f"top row {first!r}, want {top['pid']} {top['registered_name']}")
        esc = [l for l in lines(t.text(escapes=True)) if top["pid"] in l][0]
        if "7m" not in esc.split(top["pid"])[0]:  # reverse video: the cursor
            fail(f"cursor not on the top row: {esc!r}")

        t.keys("s", "s")  # memory -> total_heap_size -> message_queue_len
        # (waits until the whole screen is redrawn; the check below then cannot race)
        s = t.wait("sort by message_queue_len", lambda s: "sorted by message_queue_len" in s
                   and rows(s) and " flooded " in rows(s)[0])
        save("procs-msgq", s)
        if " flooded " not in rows(s)[0]:
            fail(f"top row by message queue: {rows(s)[0]!r}")

        t.keys("/", *"bin_router")
        s = t.wait("filter", lambda s: "Filter (pid, label, function): bin_router_" in s)
        t.keys("Enter")
        s = t.wait("filtered list", lambda s: "filter: bin_router" in s and len(rows(s)) == 1)
        save("procs-filter", s)
        if len(rows(s)) != 1 or not rows(s)[0].startswith(router["pid"] + " "):
            fail(f"filter bin_router kept {rows(s)!r}")

        t.keys("Enter")
        s = t.wait("process view", lambda s: f"Process {router['pid']}" in s
                   and "Current stacktrace" in s)
        save("proc", s)
        stack = lines(s)[lines(s).index("Current stacktrace") + 1:]
        for i, fn in enumerate(router["current_stacktrace"]):
            if stack[i].strip() != fn:
                fail(f"stack frame {i}: {stack[i]!r}, want {fn}")
        t.keys("End")
        t.wait("the end of the process view", lambda s: "Backtrace" in s or "backtrace" in s)
        t.keys("Escape")
        t.wait("back to the list", lambda s: "filter: bin_router" in s)
        t.keys("/", "Escape")  # drop the filter
        t.wait("unfiltered", lambda s: "filter:" not in s and len(rows(s)) > 10)

        views = [("u", "Summary", "erlang:memory()"),
                 ("e", "ETS tables", "sessions"),
                 ("b", "Binary holders", "bin_router"),
                 ("a", "Memory and allocators", "eheap_alloc"),
                 ("g", "Stack groups", "beamcore_scenario:idle/1"),
                 ("n", "Native threads", "scheduler"),
                 # the peer of a distributed node, else "not distributed"
                 ("d", "Connected nodes", gt["nodes"][0] if gt.get("nodes") else "not distributed"),
                 ("o", "Ports", "forker")]
        if DUMP:  # a crash dump records neither binary holders nor native threads
            views = [v for v in views if v[0] not in "bn"]
        for key, title, want in views:
            t.keys(key)
            s = t.wait(title, lambda s: lines(s)[1].startswith(title) and want in s)
            save(title.split()[0].lower(), s)
            t.keys("q")
            t.wait(f"back from {title}", lambda s: lines(s)[1].startswith("Processes"))

        t.keys("e", "Down", "Down", "Enter")  # first ETS row -> its owner
        s = t.wait("ETS owner", lambda s: lines(s)[1].startswith("Process <"))
        t.keys("p")
        t.wait("back with p", lambda s: lines(s)[1].startswith("Processes"))

        # (a resize whose SIGWINCH the browser misses under heavy load leaves
        # the 120x40 screen scrolled in 80x24: seen once; resize again, at most
        # three times, before failing)
        ok80 = lambda s: len(lines(s.rstrip("\n"))) == 24 and "q quit" in s \
            and lines(s)[0].startswith("OTP ")
        for attempt in range(3):
            if attempt:
                t.tmux(["resize-window", "-x", "81", "-y", "25"])
                time.sleep(0.5)
            t.tmux(["resize-window", "-x", "80", "-y", "24"])
            end = time.time() + TIMEOUT / 3
            while time.time() < end and not ok80(t.text()):
                time.sleep(0.1)
            if ok80(t.text()):
                break
        s = t.wait("resize", ok80)
        save("procs-80x24", s)
        if any(len(l) > 80 for l in lines(s)):
            fail("a line wider than 80 columns after the resize")
        if not rows(s) or not lines(s)[2].startswith("PID"):
            fail(f"layout after resize:\n{s}")

        t.keys("q")
        end = time.time() + TIMEOUT
        while not (os.path.exists(status) and open(status).read().strip()) and time.time() < end:
            time.sleep(0.1)
        rc = open(status).read().strip() if os.path.exists(status) else "none"
        if rc != "0":
            fail(f"q: exit status {rc}; stderr: {open(tmp + '/stderr').read()[-2000:]}")
        err = open(tmp + "/stderr").read()
        if err:  # sanitizer reports, or anything else the browser said
            fail(f"stderr: {err[-2000:]}")
    finally:
        t.close()
    shutil.rmtree(tmp, ignore_errors=True)
    print("ok: tui browse, sort, filter, process view, views, resize, quit")
    return 0

if __name__ == "__main__":
    sys.exit(main())
