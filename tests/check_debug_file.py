#!/usr/bin/env python3
"""A stripped beam.smp with its debug info beside it (`objcopy --only-keep-debug`,
what a -dbgsym package ships): `--debug-file`, and the .gnu_debuglink search,
give the same answers as the unstripped binary — the processes, and every
native thread's frames and role (symbols and unwinding come from the same
session as the DWARF), also with no .symtab left (`--strip-unneeded`, as
Debian's dh_strip does); without the debug file, a one-line error says how to
get debug info.
Usage: check_debug_file.py BEAMCORE FIXTURE CORE (FIXTURE under $BEAMCORE_FIXTURES)."""
import shutil, subprocess, sys, tempfile, os
from fixture import Fixture

def main():
    fx = Fixture(sys.argv)
    if not shutil.which("objcopy"):
        print("SKIP: no objcopy")
        return 1 if os.environ.get("CI") == "true" else 77  # CI: no skips
    tmp = tempfile.mkdtemp(prefix="beamcore-dbg-")
    try:
        stripped, debug = os.path.join(tmp, "beam.smp"), os.path.join(tmp, "beam.smp.debug")
        subprocess.run(["objcopy", "--only-keep-debug", fx.beam, debug], check=True)
        subprocess.run(["objcopy", "--strip-debug", "--add-gnu-debuglink=" + debug, fx.beam,
                        stripped], check=True)
        want = fx.json("procs")
        bad = []
        # threads: names and roles as with the unstripped binary, symbols from the debug file
        bare = os.path.join(tmp, "beam.smp.bare")
        subprocess.run(["objcopy", "--strip-unneeded", fx.beam, bare], check=True)
        want_threads = fx.json("threads")["threads"]
        named = sum(1 for t in want_threads for f in t["frames"] if not f.startswith("0x"))
        for binary in (stripped, bare):
            r = subprocess.run([fx.beamcore, "threads", fx.core, binary, "--json", "--debug-file", debug],
                               capture_output=True, text=True, timeout=300)
            what = f"threads with {os.path.basename(binary)} --debug-file"
            if r.returncode != 0:
                bad.append(f"{what}: exit {r.returncode} {r.stderr.strip()}")
                continue
            got = __import__("json").loads(r.stdout)["threads"]
            if got != want_threads:
                diff = [(w["tid"], w["role"], g["role"]) for w, g in zip(want_threads, got) if w != g]
                bad.append(f"{what}: {len(diff)} threads differ from the unstripped binary's, "
                           f"e.g. {diff[:3]}")
        print(f"threads: {len(want_threads)} threads, {named} named frames, compared with "
              f"--strip-debug and --strip-unneeded binaries")
        r = subprocess.run([fx.beamcore, "procs", fx.core, stripped, "--json", "--debug-file", debug],
                           capture_output=True, text=True, timeout=300)
        if r.returncode != 0:
            bad.append(f"--debug-file: exit {r.returncode} {r.stderr.strip()}")
        else:
            got = __import__("json").loads(r.stdout)
            if got["processes"] != want["processes"]:
                bad.append("--debug-file: processes differ from the unstripped binary's")
            if got["target"]["debug_file"] != debug:
                bad.append(f"debug_file {got['target']['debug_file']} != {debug}")
        # .gnu_debuglink: libdwfl's standard search finds the file beside the binary
        r = subprocess.run([fx.beamcore, "procs", fx.core, stripped, "--json"],
                           capture_output=True, text=True, timeout=300)
        if r.returncode != 0 or __import__("json").loads(r.stdout)["processes"] != want["processes"]:
            bad.append(f"via .gnu_debuglink: exit {r.returncode} {r.stderr.strip()}")
        os.unlink(debug)  # now nothing can find the DWARF: a layout pack reads it
        # (docs/layout-packs.md), the same processes; a build whose .dynsym
        # exports no VM global (our OTP 29) cannot: exit 2 naming the way out.
        # (--no-cache: the layout cache of this build, written by the runs
        # above, would read it as with DWARF: tests/check_layout_cache.py)
        r = subprocess.run([fx.beamcore, "procs", fx.core, stripped, "--json", "--no-cache"],
                           capture_output=True, text=True, timeout=300)
        lines = r.stderr.strip().splitlines()
        if r.returncode == 0:
            got = __import__("json").loads(r.stdout)
            if got["processes"] != want["processes"]:
                bad.append("layout pack: processes differ from the unstripped binary's")
            if not got["target"]["debug_file"].startswith("layout pack"):
                bad.append(f"layout pack: debug_file {got['target']['debug_file']}")
            print(f"layout pack: {len(got['processes'])} processes as with DWARF")
        elif r.returncode != 2 or len(lines) != 1 or "--debug-file" not in r.stderr or \
                "dbgsym" not in r.stderr or "layout pack" not in r.stderr:
            bad.append(f"stripped without debug info: exit {r.returncode} {r.stderr!r}")
        else:
            print(f"no layout pack can place its globals: {r.stderr.strip()[:200]}")
        print(f"{fx.name}: --debug-file and stripped-binary checks; {len(bad)} problems")
        for b in bad:
            print("  " + b)
        return 1 if bad else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

if __name__ == "__main__":
    sys.exit(main())
