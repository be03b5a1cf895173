#!/usr/bin/env python3
"""`threads` never names JIT code after a library (issue 21: a JIT frame was
named after the NIF library mapped just below the JIT area, and the unwind
stopped there). On every core fixture whose VM runs the JIT: the JIT's code
area is the memfd "vmem" mappings in the core's NT_FILE note (what /proc/PID/maps
showed: the JIT's executable and writable views), or with a single mapping the
executable memory no file backs (the vDSO aside); every frame whose pc (a
return address: pc - 1) lies there must be an Erlang function "(JIT)" or JIT
runtime code, never "function+0x.. (library)"; and every frame named after a
library must lie in a mapping of that library's file.
Usage: check_jit_frames.py BEAMCORE (every core under $BEAMCORE_FIXTURES)."""
import collections, json, os, shutil, struct, subprocess, sys, tempfile
from fixture import every_core, report

NT_FILE = 0x46494c45

def notes(path):
    """([(start, end, path)] of the core's NT_FILE note, [(start, end)] of its
    executable PT_LOAD segments, AT_SYSINFO_EHDR: the vDSO)"""
    maps, xsegs, vdso = [], [], None
    with open(path, "rb") as f:
        h = f.read(64)
        phoff = struct.unpack_from("<Q", h, 32)[0]
        phentsize, phnum = struct.unpack_from("<HH", h, 54)
        f.seek(phoff)
        ph = f.read(phentsize * phnum)
        for i in range(phnum):
            t, flags, off, vaddr, _, fs, ms, _ = struct.unpack_from("<IIQQQQQQ", ph, i * phentsize)
            if t == 1 and flags & 1:  # PT_LOAD, PF_X
                xsegs.append((vaddr, vaddr + ms))
            if t != 4:  # PT_NOTE
                continue
            f.seek(off)
            d, o = f.read(fs), 0
            while o + 12 <= len(d):
                nsz, dsz, ty = struct.unpack_from("<III", d, o)
                o += 12 + ((nsz + 3) & ~3)
                desc = d[o:o + dsz]
                o += (dsz + 3) & ~3
                if ty == NT_FILE and not maps:
                    cnt = struct.unpack_from("<Q", desc, 0)[0]
                    ents = [struct.unpack_from("<QQQ", desc, 16 + 24 * k) for k in range(cnt)]
                    names = desc[16 + 24 * cnt:].split(b"\0")
                    maps = [(a, b, names[k].decode(errors="replace")) for k, (a, b, _) in enumerate(ents)]
                elif ty == 6:  # NT_AUXV
                    for k in range(0, len(desc) - 15, 16):
                        key, val = struct.unpack_from("<QQ", desc, k)
                        if key == 33:  # AT_SYSINFO_EHDR
                            vdso = val
    return maps, xsegs, vdso

def jit_area(core):
    """the JIT's code: its memfd "vmem" views, or (single-mapped, +JMsingle)
    the executable memory no file backs, the vDSO aside"""
    maps, xsegs, vdso = notes(core)
    jit = [(a, b) for a, b, p in maps if p.startswith("/memfd:vmem")]
    jit += [(a, b) for a, b in xsegs if a != vdso and a < 1 << 47 and  # not [vsyscall]
            not any(s <= a < e for s, e, _ in maps)]
    return maps, jit

def threads(bc, core, beam):
    r = subprocess.run([bc, "threads", core, beam, "--json"], capture_output=True, text=True,
                       timeout=600)
    return json.loads(r.stdout)

def check(name, doc, maps, jit, bad, counts):
    """each frame against the JIT area and its library's mappings"""
    for t in doc["threads"]:
        for k, (frame, pc) in enumerate(zip(t["frames"], t["pcs"])):
            at = int(pc, 16) - (1 if k else 0)  # a return address: the call is before it
            lib = frame.endswith(")") and not frame.endswith("(JIT)") and " (" in frame
            lib = lib and frame.rsplit(" (", 1)[1][:-1]
            if any(a <= at < b for a, b in jit):
                counts["jit"] += 1
                if lib:
                    bad.append(f"{name}: thread {t['tid']} #{k} {pc} in the JIT area named {frame!r}")
            elif lib and lib not in ("no module", "?"):
                counts["lib"] += 1
                if not any(a <= at < b and os.path.basename(p) == lib for a, b, p in maps):
                    bad.append(f"{name}: thread {t['tid']} #{k} {pc} named {frame!r}, "
                               f"outside {lib}'s mappings")

def straddle(bc, core, beam, doc, maps, jit, bad, counts):
    """The issue's case: a JIT piece inside a library's span (mapped in the hole
    between its segments, as a library aligned to 2 MiB leaves one). A copy of
    a single-mapped JIT core whose NT_FILE note moves the library's last mapping
    from below the JIT piece holding a frame to just above it: same frames,
    still JIT code, never that library's."""
    pcs = [int(pc, 16) - (1 if k else 0) for t in doc["threads"] for k, pc in enumerate(t["pcs"])]
    piece = next(((a, b) for a, b in jit if any(a <= pc < b for pc in pcs)), None)
    ents = sorted(maps)
    below = [m for m in ents if m[1] <= piece[0]] if piece else []
    above = [m for m in ents if m[0] >= piece[1]] if piece else []
    if not below or not below[-1][2].endswith(".so") and ".so." not in below[-1][2]:
        return f"{os.path.basename(core)}: no library right below a JIT piece with a frame"
    lib, last = below[-1][2], below[-1]
    size = last[1] - last[0]
    moved = (piece[1], piece[1] + size)
    if above and moved[1] > above[0][0]:
        return f"no room above the JIT piece for {lib}'s mapping"
    tmp = tempfile.mkdtemp(prefix="beamcore-jitlib-")
    try:
        copy = os.path.join(tmp, "core")
        subprocess.run(["cp", "--sparse=always", core, copy], check=True)
        with open(copy, "r+b") as f:
            data = f.read(1 << 20)
            at = data.find(struct.pack("<QQ", *last[:2]))
            f.seek(at)
            f.write(struct.pack("<QQ", *moved))
        got = threads(bc, copy, beam)
        check(f"{os.path.basename(core)} with {os.path.basename(lib)} around the JIT piece "
              f"{piece[0]:#x}", got, maps, jit, bad, counts)
        same = [t["frames"] for t in got["threads"]] == [t["frames"] for t in doc["threads"]]
        if not same:
            bad.append(f"{lib} moved around the JIT piece: the frames changed")
        return (f"{os.path.basename(lib)}'s last mapping moved from {last[0]:#x} to {moved[0]:#x}, "
                f"around the JIT piece {piece[0]:#x}-{piece[1]:#x}: frames "
                f"{'unchanged' if same else 'changed'}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

def main():
    bc = sys.argv[1]
    root, cores = every_core()
    bad, seen, counts, said = [], 0, collections.Counter(), []
    for core in cores:
        name = os.path.relpath(core, root)
        beam = open(os.path.join(os.path.dirname(core), "beam.smp.path")).read().strip()
        doc = threads(bc, core, beam)
        if not doc["target"].get("jit"):
            continue
        maps, jit = jit_area(core)
        if not maps:  # qemu-user writes no NT_FILE: what a file backs is unknown here
            said.append(f"{name}: no NT_FILE note (a qemu-user core), so this check cannot tell the "
                        "JIT area from beam.smp's code; its frames are checked by compare_stacks "
                        "and check_threads")
            continue
        if not jit:
            bad.append(f"{name}: a JIT VM without a JIT area (memfd:vmem, anonymous executable)")
            continue
        seen += 1
        check(name, doc, maps, jit, bad, counts)
        if not any(p.startswith("/memfd:vmem") for _, _, p in maps):  # single-mapped
            said.append(straddle(bc, core, beam, doc, maps, jit, bad, counts))
    print(f"{seen} JIT cores: {counts['jit']} frames in the JIT area, none named after a library; "
          f"{counts['lib']} library frames each inside its library's mapping")
    for s in said:
        print("  " + s)
    if not said:
        bad.append("no single-mapped JIT core (otp25-fp): the straddling case was not tried")
    return report(bad)

if __name__ == "__main__":
    sys.exit(main())
