#!/usr/bin/env python3
"""Bad input is the normal case for a post-mortem tool: each case must give a
clear one-line error or a partial result that says what is missing, with the
right exit code (0 complete, 1 partial, 2 failed, 64 usage), never a crash.

Usage: bad_input.py BEAMCORE FIXTURE   (FIXTURE under $BEAMCORE_FIXTURES)"""
import glob, json, os, shutil, signal, subprocess, sys, tempfile, time

failures = []

def run(args, timeout=120):
    r = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    return r.returncode, r.stdout, r.stderr

def check(name, args, want_rc, want_msg=None):
    rc, out, err = run(args)
    lines = [l for l in err.splitlines() if l.strip()]
    ok = rc == want_rc and (want_msg is None or want_msg.lower() in err.lower())
    if want_rc == 2 and len(lines) != 1:
        ok = False
    print(f"{'ok  ' if ok else 'FAIL'} {name}: exit {rc}: {err.strip()[:300]}")
    if not ok:
        failures.append(f"{name}: want exit {want_rc} {want_msg!r}, got {rc} {err!r}")
    return rc, out, err

def truncated(core, gt, beam, tmp, bc):
    """Cut the core at several points: the result is partial or a clear failure,
    and every number printed for an idle process is the live value or null."""
    size = os.path.getsize(core)
    gtp = {p["pid"]: p for p in gt["processes"]}
    for frac in (0.02, 0.3, 0.6, 0.9):
        cut = os.path.join(tmp, "core.cut")
        with open(core, "rb") as src, open(cut, "wb") as dst:
            left = int(size * frac)
            while left > 0:
                chunk = src.read(min(left, 1 << 22))
                if not chunk:
                    break
                if chunk.count(0) == len(chunk):
                    dst.seek(len(chunk), 1)  # keep it sparse
                else:
                    dst.write(chunk)
                left -= len(chunk)
            dst.truncate(int(size * frac))
        rc, out, err = run([bc, "procs", cut, beam, "--json"])
        name = f"core truncated at {int(frac * 100)}%"
        if rc < 0 or rc not in (1, 2):
            failures.append(f"{name}: exit {rc}: {err!r}")
            print(f"FAIL {name}: exit {rc}")
            continue
        if rc == 2:
            ok = len(err.strip().splitlines()) == 1
            print(f"{'ok  ' if ok else 'FAIL'} {name}: exit 2: {err.strip()[:200]}")
            if not ok:
                failures.append(f"{name}: not one line: {err!r}")
            continue
        doc = json.loads(out)
        wrong = []
        for q in doc["processes"]:
            p = gtp.get(q["pid"])
            if not p or p["status"] != "waiting" or p["pid"] == gt["collector"]:
                continue
            for f in ("total_heap_size", "heap_size", "stack_size", "message_queue_len", "memory"):
                if q[f] is not None and q[f] != p[f]:
                    wrong.append(f"{q['pid']} {f} {q[f]} != live {p[f]}")
        ok = not wrong and "truncated" in err and not doc["complete"] and doc["missing"]
        print(f"{'ok  ' if ok else 'FAIL'} {name}: exit 1, {len(doc['processes'])} processes, "
              f"{len(doc['missing'])} gaps; wrong numbers: {len(wrong)}")
        if not ok:
            failures.append(f"{name}: {wrong[:5]} {err[:300]!r}")
        os.unlink(cut)

def phdrs(path):
    """(index, offset of the phdr, p_type, p_flags, p_vaddr, p_filesz) of each program header."""
    import struct
    with open(path, "rb") as f:
        eh = f.read(64)
        phoff, = struct.unpack_from("<Q", eh, 32)
        phentsize, phnum = struct.unpack_from("<HH", eh, 54)
        out = []
        for i in range(phnum):
            f.seek(phoff + i * phentsize)
            p_type, p_flags, p_offset, p_vaddr, _, p_filesz, p_memsz, _ = struct.unpack("<IIQQQQQQ", f.read(56))
            out.append((i, phoff + i * phentsize, p_type, p_flags, p_vaddr, p_filesz))
    return out

def holes(core, gt, beam, tmp, bc):
    """Memory missing from the middle of a core (a segment the core does not hold,
    as coredump_filter leaves them): the walk says what it could not read, exits 1,
    and every number it does print is the live value."""
    import struct
    cut = os.path.join(tmp, "core.holes")
    subprocess.run(["cp", "--sparse=always", core, cut], check=True)
    gtp = {p["pid"]: p for p in gt["processes"]}
    loads = [p for p in phdrs(cut) if p[2] == 1 and p[3] & 2]  # PT_LOAD, writable
    loads.sort(key=lambda p: -p[5])
    for idx, off, _, _, vaddr, filesz in loads[:4]:
        with open(cut, "r+b") as f:          # p_filesz = 0: "not in the core"
            f.seek(off + 32)
            f.write(struct.pack("<Q", 0))
        for cmd in ("procs", "ets", "binaries", "memory", "summary"):
            rc, out, err = run([bc, cmd, cut, beam, "--json"])
            name = f"{cmd} with segment 0x{vaddr:x} ({filesz >> 20} MiB) missing"
            if rc < 0 or rc not in (0, 1, 2) or (rc == 2 and len(err.strip().splitlines()) != 1):
                failures.append(f"{name}: exit {rc} {err!r}")
                print(f"FAIL {name}: exit {rc}")
                continue
            if rc != 1:
                print(f"ok   {name}: exit {rc} {err.strip()[:120]}")
                continue
            doc = json.loads(out)
            wrong = []
            for q in doc.get("processes", []):
                p = gtp.get(q["pid"])
                if not p or p["status"] != "waiting" or p["pid"] == gt["collector"]:
                    continue
                for f_ in ("total_heap_size", "heap_size", "stack_size", "message_queue_len", "memory"):
                    if q[f_] is not None and q[f_] != p[f_]:
                        wrong.append(f"{q['pid']} {f_} {q[f_]} != live {p[f_]}")
            ok = not wrong and doc["missing"] and not doc["complete"]
            print(f"{'ok  ' if ok else 'FAIL'} {name}: exit 1, {len(doc['missing'])} gaps, "
                  f"wrong numbers: {len(wrong)}")
            if not ok:
                failures.append(f"{name}: {wrong[:5]} {doc['missing'][:3]}")
        with open(cut, "r+b") as f:          # restore for the next segment
            f.seek(off + 32)
            f.write(struct.pack("<Q", filesz))
    os.unlink(cut)

def corrupt_process(core, gt, beam, tmp, bc):
    """A process table slot pointing at garbage: that process is left out with a
    message, exit 1, and every other number is still the live value."""
    import struct
    victim = next(p for p in gt["processes"] if p["registered_name"] == "sessions_server")
    r = subprocess.run([bc, "proc", victim["pid"], core, beam, "--json"], capture_output=True,
                       text=True, timeout=120)
    addr = int(json.loads(r.stdout)["process"]["address"], 16)
    cut = os.path.join(tmp, "core.corrupt")
    subprocess.run(["cp", "--sparse=always", core, cut], check=True)
    with open(cut, "rb") as f:
        eh = f.read(64)
        phoff, = struct.unpack_from("<Q", eh, 32)
        phentsize, phnum = struct.unpack_from("<HH", eh, 54)
        off = None
        for i in range(phnum):
            f.seek(phoff + i * phentsize)
            p_type, _, p_offset, p_vaddr, _, p_filesz, _, _ = struct.unpack("<IIQQQQQQ", f.read(56))
            if p_type == 1 and p_vaddr <= addr < p_vaddr + p_filesz:
                off = p_offset + addr - p_vaddr
    if off is None:
        failures.append("corrupt process: its struct is not in the core file")
        return
    with open(cut, "r+b") as f:
        f.seek(off)
        f.write(b"\xab" * 256)
    rc, out, err = run([bc, "procs", cut, beam, "--json"])
    doc = json.loads(out) if out else {"processes": []}
    pids = {q["pid"] for q in doc["processes"]}
    gtp = {p["pid"]: p for p in gt["processes"]}
    wrong = [f"{q['pid']} {f}" for q in doc["processes"]
             for f in ("total_heap_size", "heap_size", "stack_size", "message_queue_len", "memory")
             if q["pid"] in gtp and gtp[q["pid"]]["status"] == "waiting" and q["pid"] != gt["collector"]
             and q[f] is not None and q[f] != gtp[q["pid"]][f]]
    ok = rc == 1 and "looks corrupt" in err and victim["pid"] not in pids and not wrong \
        and len(pids) == len(gt["processes"]) - 1
    print(f"{'ok  ' if ok else 'FAIL'} corrupt struct process of {victim['pid']}: exit {rc}, "
          f"{len(pids)} processes, wrong numbers {len(wrong)}: {err.strip()[:160]}")
    if not ok:
        failures.append(f"corrupt process: exit {rc} {err!r} {wrong[:3]}")
    os.unlink(cut)

def stripped_core(tmp):
    """A kernel core of Debian's own (stripped) beam.smp."""
    erl = shutil.which("erl")
    if not erl:
        return None
    d = os.path.join(tmp, "stripped")
    os.mkdir(d)
    p = subprocess.Popen(["sh", "-c", f"cd {d} && ulimit -c unlimited && exec {erl} -noshell "
                          "+MIscs 64 -eval 'timer:sleep(infinity)'"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(3)
    os.kill(p.pid, signal.SIGABRT)
    p.wait(timeout=60)
    cores = glob.glob(os.path.join(d, "core*"))
    return cores[0] if cores else None

def main():
    bc = sys.argv[1]
    fx = os.path.join(os.environ.get("BEAMCORE_FIXTURES", "/nonexistent"), sys.argv[2])
    core = os.path.join(fx, "core.kernel")
    if not os.path.exists(core):
        print(f"SKIP: no fixture {core}")
        return 1 if os.environ.get("CI") == "true" else 77  # CI: no skips
    beam = open(os.path.join(fx, "beam.smp.path")).read().strip()
    gt = json.load(open(os.path.join(fx, "ground_truth.json")))
    debian_beam = (glob.glob("/usr/lib/erlang/erts-*/bin/beam.smp") or [None])[0]
    tmp = tempfile.mkdtemp(prefix="beamcore-bad-")
    try:
        notcore = os.path.join(tmp, "notes.txt")
        open(notcore, "w").write("this is not a core\n")
        empty = os.path.join(tmp, "empty")
        open(empty, "w").close()
        check("missing file", [bc, "procs", os.path.join(tmp, "nope")], 2, "No such file")
        check("text file", [bc, "procs", notcore], 2, "neither an ELF core")
        check("empty file", [bc, "procs", empty], 2, "neither an ELF core")
        check("directory", [bc, "procs", tmp], 2, None)
        check("beam.smp given as the core", [bc, "procs", beam], 2, "not a core")
        # not regular files: refused before open() (a FIFO would block it for ever)
        fifo = os.path.join(tmp, "fifo")
        os.mkfifo(fifo)
        check("FIFO as the core", [bc, "procs", fifo], 2, "is a FIFO")
        check("FIFO as BEAM", [bc, "procs", core, fifo], 2, "is a FIFO")
        check("FIFO as --debug-file", [bc, "procs", core, beam, "--debug-file", fifo], 2, "is a FIFO")
        check("device as the core", [bc, "procs", "/dev/null"], 2, "is a device")
        check("no arguments", [bc], 64, "no TARGET")
        check("bad --sort", [bc, "procs", core, beam, "--sort", "bogus"], 64, "--sort")
        check("bad --top", [bc, "procs", core, beam, "--top", "x"], 64, "--top")
        check("unknown option", [bc, "procs", core, "--frobnicate"], 64, None)
        check("too many arguments", [bc, "procs", core, beam, "extra"], 64, "too many")
        if debian_beam:
            check("mismatched beam.smp (Debian's)", [bc, "procs", core, debian_beam], 2,
                  "is not the beam.smp of this core")
        check("--debug-file of another binary", [bc, "procs", core, beam, "--debug-file",
              "/bin/ls"], 2, "build-id")
        # The path the core recorded is used when BEAM is omitted.
        check("executable from the core's file notes", [bc, "procs", core, "--top", "1"], 0)
        truncated(core, gt, beam, tmp, bc)
        holes(core, gt, beam, tmp, bc)
        corrupt_process(core, gt, beam, tmp, bc)
        free = shutil.disk_usage(tmp).free
        if free > 2 << 30:
            sc = stripped_core(tmp)
            if sc:
                # read through the compiled-in layout pack; another release's refused
                check("core of Debian's stripped beam.smp", [bc, "procs", sc], 0, None)
                packs = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "dwarf")
                check("another release's layout pack", [bc, "procs", sc, "--layout",
                      os.path.join(packs, "pack-27.3.4.1-jit.def")], 2, "is for OTP 27")
                # 27's offsets under 25's name, the globals' sizes blanked: past the
                # identity and the size checks, refused by the core's own processes
                forged = os.path.join(tmp, "forged.def")
                with open(os.path.join(packs, "pack-27.3.4.1-jit.def")) as f27, \
                        open(forged, "w") as out:
                    for l in f27:
                        if l.startswith("PACK("):
                            l = 'PACK("25", "13.1.5", "jit", "x86_64")\n'
                        elif l.startswith("G("):
                            l = l[:l.rindex(",")] + ", 0)\n"
                        out.write(l)
                check("another release's offsets under this one's name", [bc, "procs", sc,
                      "--layout", forged], 2, "does not fit this core")
                check("a malformed layout pack refused",
                      [bc, "procs", sc, "--layout", notcore], 2, "not NAME(ARGS)")
            else:
                failures.append("could not make a core of Debian's beam.smp")
        else:
            print("note: skipped the stripped-core case: <2 GiB free")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{len(failures)} failures")
    return 1 if failures else 0

if __name__ == "__main__":
    sys.exit(main())
