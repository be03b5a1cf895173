#!/usr/bin/env python3
"""--sysroot DIR: a core copied from a container or another host, whose
beam.smp and libraries are not at the paths it recorded here. A copy of the
core has the recorded directories of beam.smp and of the NIF library renamed
(in its NT_FILE note) to directories that do not exist; a temporary sysroot
holds copies of both files at those paths. With --sysroot, procs and threads
(frame names from the NIF library and beam.smp, roles) equal the normal run's;
without it, or with a sysroot lacking beam.smp, one line says what is missing.
Usage: check_sysroot.py BEAMCORE FIXTURE CORE (FIXTURE under $BEAMCORE_FIXTURES)."""
import json, os, shutil, struct, subprocess, sys, tempfile
from fixture import Fixture

def note_range(path):
    """(offset, size) of the core's PT_NOTE segment."""
    with open(path, "rb") as f:
        eh = f.read(64)
        phoff, = struct.unpack_from("<Q", eh, 32)
        phentsize, phnum = struct.unpack_from("<HH", eh, 54)
        for i in range(phnum):
            f.seek(phoff + i * phentsize)
            p_type, _, p_offset, _, _, p_filesz, _, _ = struct.unpack("<IIQQQQQQ", f.read(56))
            if p_type == 4:
                return p_offset, p_filesz
    raise SystemExit("FAIL: no PT_NOTE in the core")

def hidden(d):
    """A directory name of the same length as d that does not exist."""
    return "/" + "q" * (len(d) - 1)

def run(args):
    r = subprocess.run(args, capture_output=True, text=True, timeout=300)
    return r.returncode, r.stdout, r.stderr

def main():
    fx = Fixture(sys.argv)
    tmp = tempfile.mkdtemp(prefix="beamcore-sysroot-")
    try:
        off, size = note_range(fx.core)
        with open(fx.core, "rb") as f:
            f.seek(off)
            notes = f.read(size)
        beam = os.path.realpath(fx.beam)
        nif = os.path.realpath(os.path.join(fx.dir, "beamcore_crash_nif.so"))
        moved = [p for p in (beam, nif) if (p + "\0").encode() in notes]
        if beam not in moved:
            print(f"FAIL: the core's NT_FILE note does not name {beam}")
            return 1
        for p in moved:
            d = os.path.dirname(p)
            notes = notes.replace((d + "/").encode(), (hidden(d) + "/").encode())
        core = os.path.join(tmp, "core")
        subprocess.run(["cp", "--sparse=always", fx.core, core], check=True)
        with open(core, "r+b") as f:
            f.seek(off)
            f.write(notes)
        root = os.path.join(tmp, "sysroot")
        for p in moved:
            dest = root + os.path.join(hidden(os.path.dirname(p)), os.path.basename(p))
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            shutil.copy(p, dest)

        bad = []
        for cmd in ("procs", "threads"):
            rc, want, err = run([fx.beamcore, cmd, fx.core, "--json"])
            if rc != 0:
                bad.append(f"{cmd} (normal run): exit {rc} {err.strip()}")
                continue
            rc, got, err = run([fx.beamcore, cmd, core, "--sysroot", root, "--json"])
            if rc != 0:
                bad.append(f"{cmd} --sysroot: exit {rc} {err.strip()}")
                continue
            w, g = json.loads(want), json.loads(got)
            key = "processes" if cmd == "procs" else "threads"
            if w[key] != g[key]:
                bad.append(f"{cmd} --sysroot: {key} differ from the normal run's")
            exe = root + hidden(os.path.dirname(beam)) + "/beam.smp"
            if g["target"]["executable"] != exe:
                bad.append(f"{cmd} --sysroot: executable {g['target']['executable']}, want {exe}")
            if cmd == "threads":
                frames = [f for t in g["threads"] for f in t["frames"]]
                print(f"threads --sysroot: {len(g['threads'])} threads, "
                      f"{sum(1 for f in frames if not f.startswith('0x'))} of {len(frames)} frames "
                      f"named, {sum(1 for f in frames if 'beamcore_crash_nif.so' in f)} in the NIF")
        # the way out, in one line each
        for name, args, want_msg in [
                ("no --sysroot", [fx.beamcore, "procs", core], "--sysroot"),
                ("beam.smp not under --sysroot", [fx.beamcore, "procs", core, "--sysroot", tmp],
                 "not under --sysroot")]:
            rc, _, err = run(args)
            if rc != 64 or len(err.strip().splitlines()) != 1 or want_msg not in err:
                bad.append(f"{name}: exit {rc} {err!r}")
            else:
                print(f"ok {name}: {err.strip()}")
        print(f"{fx.name}: --sysroot with {len(moved)} files moved; {len(bad)} problems")
        for b in bad:
            print("  " + b)
        return 1 if bad else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

if __name__ == "__main__":
    sys.exit(main())
