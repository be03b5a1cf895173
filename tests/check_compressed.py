#!/usr/bin/env python3
"""Compressed input, as systemd-coredump keeps cores (.zst) and as people ship
them (.xz, .lz4): the fixture's core or dump compressed by each tool gives the
same output as the file itself (only its name differs), whatever the file is
called (detected by magic bytes); cut short or corrupted, one line and exit 2.
Usage: check_compressed.py BEAMCORE FIXTURE FILE (FIXTURE under $BEAMCORE_FIXTURES)."""
import re, os, shutil, subprocess, sys, tempfile
from fixture import Fixture

TOOLS = {"zstd": ["zstd", "-q", "-T2", "-c"], "xz": ["xz", "-0", "-T2", "-c"], "lz4": ["lz4", "-q", "-c"]}

def run(bc, args):
    r = subprocess.run([bc, *args], capture_output=True, text=True, timeout=600)
    return r.returncode, r.stdout, r.stderr

def untimed(out):
    """The output without target.time (a file's mtime)."""
    return re.sub(r'\n\s*"time": [^\n]*', "", out)

def main():
    fx = Fixture(sys.argv)
    with open(fx.core, "rb") as f:
        is_core = f.read(4) == b"\x7fELF"
    cmds = [["summary"], ["procs", "--json"]] + ([["threads", "--json"]] if is_core else [])
    tmp = tempfile.mkdtemp(prefix="beamcore-z-")
    bad, done = [], []
    try:
        want = {}
        for c in cmds:
            rc, out, err = run(fx.beamcore, [c[0], fx.core, *c[1:]])
            want[c[0]] = (rc, out)
        for fmt, tool in TOOLS.items():
            if not shutil.which(tool[0]):
                print(f"note: no {tool[0]}: {fmt} not checked")
                continue
            z = os.path.join(tmp, "input")   # no extension: the magic bytes decide
            with open(fx.core, "rb") as src, open(z, "wb") as dst:
                subprocess.run(tool, stdin=src, stdout=dst, check=True)
            size = os.path.getsize(z)
            for c in cmds:
                rc, out, err = run(fx.beamcore, [c[0], z, *c[1:]])
                wrc, wout = want[c[0]]
                # (target.time is the input file's mtime: the compressed copy's own)
                same = untimed(out) == untimed(wout.replace(fx.core, z))
                if rc != wrc or not same:
                    bad.append(f"{fmt} {c[0]}: exit {rc} (want {wrc}), output "
                               f"{'same' if same else 'differs'}; {err.strip()[:200]}")
            # cut in the middle, and 64 bytes flipped in the middle
            data = open(z, "rb").read()
            cut = os.path.join(tmp, "cut")
            open(cut, "wb").write(data[: size // 2])
            flipped = bytearray(data)
            for i in range(size // 2, min(size, size // 2 + 64)):
                flipped[i] ^= 0x5A
            mangled = os.path.join(tmp, "mangled")
            open(mangled, "wb").write(bytes(flipped))
            for name, path, word in (("cut", cut, "truncated"), ("corrupt", mangled, "corrupt")):
                rc, _, err = run(fx.beamcore, ["procs", path])
                lines = err.strip().splitlines()
                if rc != 2 or len(lines) != 1 or word not in err or fmt not in err:
                    bad.append(f"{fmt} {name}: exit {rc} {err!r}")
            done.append(f"{fmt} {size >> 20} MiB")
            os.unlink(z)
        print(f"{fx.name}: {', '.join(done)} compressed; {len(cmds)} commands each, cut and "
              f"corrupt copies; {len(bad)} problems")
        for b in bad:
            print("  " + b)
        return 1 if bad else (0 if done else (1 if os.environ.get("CI") == "true" else 77))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

if __name__ == "__main__":
    sys.exit(main())
