#!/usr/bin/env python3
"""Clock `beamcore tui` in a real terminal (tmux, 120x40), as tests/tui_browse.py
drives it: the time from starting the command to the first screen of the
process list (rows and the footer drawn), then the time from pressing `s` to
the list redrawn by the next sort key (memory -> total_heap_size ->
message_queue_len), then q. The screen is polled every ~5 ms (tmux
capture-pane): figures are upper bounds by about that much.

Usage: tui_clock.py BEAMCORE TARGET [BEAM_SMP]
Prints: tui first_s=... sort1_s=... sort2_s=... quit_s=... status=...
Exit 0 ok, 1 timed out or wrong screen, 77 no tmux."""
import os, shutil, subprocess, sys, tempfile, time

TIMEOUT = 120

def main():
    if len(sys.argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 64
    if not shutil.which("tmux"):
        print("SKIP: no tmux", file=sys.stderr)
        return 77
    sock = f"beamcore-tuiclock-{os.getpid()}"
    tmp = tempfile.mkdtemp(prefix="beamcore-tuiclock.")
    status = os.path.join(tmp, "status")
    args = " ".join(os.path.abspath(a) for a in sys.argv[1:2]) + " tui " + " ".join(sys.argv[2:])
    cmd = f"sh -c 'LC_ALL=C.UTF-8 {args} 2>{tmp}/stderr; echo $? > {status}'"

    def tmux(*a, check=True):
        return subprocess.run(["tmux", "-L", sock, "-f", "/dev/null", *a],
                              capture_output=True, text=True, check=check).stdout

    def screen():
        return tmux("capture-pane", "-p", check=False)

    def rows(s):
        return [l for l in s.split("\n")[3:-1] if l.startswith("<")]

    def wait(what, pred):
        end = time.monotonic() + TIMEOUT
        while time.monotonic() < end:
            s = screen()
            if pred(s):
                return time.monotonic()
            time.sleep(0.005)
        print(f"FAIL: {what}: timed out; screen:\n{screen()}", file=sys.stderr)
        sys.exit(1)

    try:
        t0 = time.monotonic()
        tmux("new-session", "-d", "-x", "120", "-y", "40", cmd)
        t1 = wait("first screen", lambda s: rows(s) and "q quit" in s and "sorted by memory" in s)
        times = []
        for key in ("total_heap_size", "message_queue_len"):
            t = time.monotonic()
            tmux("send-keys", "s")
            t2 = wait(f"sort by {key}", lambda s: f"sorted by {key}" in s and rows(s)
                      and "q quit" in s)
            times.append(t2 - t)
        t = time.monotonic()
        tmux("send-keys", "q")
        wait("quit", lambda s: os.path.exists(status) and open(status).read().strip() != "")
        t3 = time.monotonic()
        st = open(status).read().strip()
        print(f"tui first_s={t1 - t0:.3f} sort1_s={times[0]:.3f} sort2_s={times[1]:.3f} "
              f"quit_s={t3 - t:.3f} status={st}")
        return 0 if st in ("0", "1") else 1
    finally:
        tmux("kill-server", check=False)
        shutil.rmtree(tmp, ignore_errors=True)

if __name__ == "__main__":
    sys.exit(main())
