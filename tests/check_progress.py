#!/usr/bin/env python3
"""The progress line (src/base/progress.c) on a core and a crash dump.

With stderr a terminal (a pty) and BEAMCORE_PROGRESS_DELAY=0 (drawn from the
start instead of after a second): `procs` on the core draws "reading
processes done/total" with total the node's process count
(ground_truth.json), `procs` on the dump "scanning the dump" with total the
dump's size, `export --format crashdump` "reading stacks" and "writing
processes' heaps" with total the process count, `triage` of two dumps "reading files done/2"; every
line is cleared at the end (the last bytes are "\\r\\033[K"), and what is
left of stderr once the progress lines are taken out is what the same command
writes to a pipe. With stderr a pipe or a file, not one byte more than with no
progress asked for; --quiet: nothing, in a terminal too. The export written
under progress is byte for byte the one written without it.
Usage: check_progress.py BEAMCORE CORE_FIXTURE DUMP_FIXTURE. Skips (77)
without the fixtures."""
import os, pty, re, subprocess, sys, tempfile
from fixture import Fixture

failures = 0

def check(ok, what):
    global failures
    print(("ok    " if ok else "FAIL  ") + what)
    failures += not ok

def env(delay):
    e = dict(os.environ)
    e.pop("BEAMCORE_PROGRESS_DELAY", None)
    if delay is not None:
        e["BEAMCORE_PROGRESS_DELAY"] = delay
    return e

def in_pty(cmd, delay="0"):
    """(exit code, stderr bytes) of cmd with stderr a terminal, stdout discarded."""
    master, slave = pty.openpty()
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave,
                         env=env(delay))
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    return p.wait(timeout=600), out

def piped(cmd, delay="0"):
    r = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, env=env(delay), timeout=600)
    return r.returncode, r.stderr

def to_file(cmd, path, delay="0"):
    with open(path, "wb") as f:
        rc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=f,
                            env=env(delay), timeout=600).returncode
    return rc, open(path, "rb").read()

LINE = re.compile(rb"\rbeamcore: ([a-z' ]+?) ([0-9][0-9,.]*(?: [KMGT]?i?B)?)"
                  rb"(?:/([0-9][0-9,.]*(?: [KMGT]?i?B)?) \(([0-9]+)%\))?"
                  rb"(?:, [^\r\x1b]*)?\x1b\[K")
CLEAR = b"\r\x1b[K"

def lines(err):
    """The progress lines drawn: [(what, done, total, pct)], and stderr without them."""
    found = [tuple(x.decode() if x else None for x in m.groups()) for m in LINE.finditer(err)]
    rest = LINE.sub(b"", err).replace(CLEAR, b"")
    return found, rest

def scaled(v):  # units.c fmt_bytes
    if v < 1024:
        return f"{v} B"
    d, u = float(v), 0
    units = ["B", "KiB", "MiB", "GiB", "TiB"]
    while d >= 1024 and u + 1 < len(units):
        d /= 1024
        u += 1
    return (f"{d:.1f}" if d < 10 else f"{d:.0f}") + " " + units[u]

def same_stderr(name, cmd, tmp):
    """The pty's stderr, its lines checked cleared and the rest what a pipe gets."""
    rc, err = in_pty(cmd)
    prc, perr = piped(cmd, delay=None)
    found, rest = lines(err)
    check(bool(found), f"{name}: a progress line in a terminal ({len(found)} drawn)")
    last = max((m.end() for m in LINE.finditer(err)), default=0)
    check(bool(found) and err.rfind(CLEAR) >= last,
          f"{name}: the line is cleared at the end (nothing drawn after the last clear)")
    check(rc == prc and rest.replace(b"\r\n", b"\n") == perr,
          f"{name}: the rest of stderr is the pipe's (exit {rc}/{prc}, {len(rest)}/{len(perr)} bytes)")
    # a pipe and a file: not one byte more with progress asked for
    rc1, e1 = piped(cmd, delay="0")
    check(rc1 == prc and e1 == perr, f"{name}: stderr a pipe: the same bytes ({len(e1)}/{len(perr)})")
    rc2, e2 = to_file(cmd, os.path.join(tmp, "err"), delay="0")
    check(rc2 == prc and e2 == perr, f"{name}: stderr a file: the same bytes ({len(e2)}/{len(perr)})")
    rc3, e3 = in_pty(cmd + ["--quiet"])
    check(rc3 == prc and not LINE.search(e3) and CLEAR not in e3,
          f"{name}: --quiet in a terminal: no progress ({len(e3)} bytes of stderr)")
    return found

def main():
    core = Fixture(sys.argv[:2] + [sys.argv[2], "core.kernel"])
    dump = Fixture(sys.argv[:2] + [sys.argv[3], "erl_crash.dump"])
    bc = core.beamcore
    count = core.truth["process_count"]
    with tempfile.TemporaryDirectory() as tmp:
        found = same_stderr("procs on the core", [bc, "procs", core.core, core.beam, "--top", "3"], tmp)
        walk = [f for f in found if f[0] == "reading processes"]
        check(bool(walk) and all(f[2] == f"{count:,}" for f in walk),
              f"core: reading processes .../{count:,} (the node's process count): "
              f"{sorted(set(f[2] for f in walk))}")
        check(all(int(f[1].replace(",", "")) <= count for f in walk),
              "core: done never past the total")

        found = same_stderr("procs on the dump", [bc, "procs", dump.core, "--top", "3"], tmp)
        size = scaled(os.path.getsize(dump.core))
        scan = [f for f in found if f[0] == "scanning the dump"]
        check(bool(scan) and all(f[2] == size for f in scan),
              f"dump: scanning the dump .../{size} (the file's size): {sorted(set(f[2] for f in scan))}")

        # a cut dump: its "partial:" lines stay whole beside the progress line
        cut = os.path.join(dump.dir, "kernel_pid_cut.dump")
        if os.path.exists(cut):
            found = same_stderr("procs on a cut dump", [bc, "procs", cut, "--top", "3"], tmp)
            rc, err = in_pty([bc, "procs", cut, "--top", "3"])
            check(bool(found) and b"beamcore: partial: " in lines(err)[1],
                  "cut dump: the partial lines are there, the progress line taken out")

        a, b = os.path.join(tmp, "a.dump"), os.path.join(tmp, "b.dump")
        found = same_stderr("export", [bc, "export", core.core, core.beam, "--format", "crashdump",
                                       "-o", a], tmp)
        stacks = [f for f in found if f[0] == "reading stacks"]
        check(bool(stacks) and all(f[2] == f"{count:,}" for f in stacks),
              f"export: reading stacks .../{count:,}: {sorted(set(f[2] for f in stacks))}")
        heaps = [f for f in found if f[0] == "writing processes' heaps"]
        check(bool(heaps) and all(f[2] == f"{count:,}" for f in heaps),
              f"export: writing processes' heaps .../{count:,}: {sorted(set(f[2] for f in heaps))}")
        piped([bc, "export", core.core, core.beam, "--format", "crashdump", "-o", b], delay=None)
        check(open(a, "rb").read() == open(b, "rb").read(),
              "export: the dump written under progress is the one written without")

        found = same_stderr("triage", [bc, "triage", dump.core, dump.core], tmp)
        files = [f for f in found if f[0] == "reading files"]
        check(bool(files) and all(f[2] == "2" for f in files),
              f"triage: reading files .../2: {sorted(set(f[2] for f in files))}")
    print("all ok" if not failures else f"{failures} failures")
    sys.exit(1 if failures else 0)

main()
