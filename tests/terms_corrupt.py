#!/usr/bin/env python3
"""largest_terms on a corrupt core: a copy of the fixture's kernel core with
sessions_server's cache list made into a cycle (a cell's tail naming the cell
itself), then with a tuple of that list given an absurd arity (2^40). Each time
`proc sessions_server --json` must answer in time (exit 0 or 1), with the state
listed first and its walk cut (complete false), its size a lower bound past
the cells before the corruption; message_shapes unaffected; `procs --garbage`
answers in time with sessions_server's live words unknown or within its heap;
`proc --term '<the state> cache'` in time too, the cycle's spine said cut.
The list's tuples are {Id, {user, Id rem 9973}, Id * 3} (beamcore_scenario's
cache): found in the core by their words, the cell that holds one by its
boxed pointer.
Usage: terms_corrupt.py BEAMCORE FIXTURE CORE (FIXTURE under $BEAMCORE_FIXTURES)."""
import json, mmap, os, re, shutil, struct, subprocess, sys, tempfile, time
from fixture import Fixture

def loads(f):
    """PT_LOAD segments of an ELF core: (vaddr, offset, filesz)."""
    f.seek(0)
    eh = f.read(64)
    phoff, phentsize, phnum = struct.unpack_from("<Q", eh, 32)[0], *struct.unpack_from("<HH", eh, 54)
    segs = []
    for i in range(phnum):
        f.seek(phoff + i * phentsize)
        p_type, _, off, vaddr, _, filesz = struct.unpack("<IIQQQQ", f.read(40))
        if p_type == 1 and filesz:
            segs.append((vaddr, off, filesz))
    return segs

def vaddr_of(segs, off):
    for v, o, n in segs:
        if o <= off < o + n:
            return v + off - o
    return None

def offset_of(segs, addr):
    for v, o, n in segs:
        if v <= addr < v + n:
            return o + addr - v
    return None

def small(i):
    return struct.pack("<Q", (i << 4) | 0xF)

def main():
    fx = Fixture(sys.argv)
    ident = 250000
    with open(fx.core, "rb") as f:
        segs = loads(f)
        m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        tup = re.compile(re.escape(struct.pack("<Q", 3 << 6) + small(ident)) + b".{8}" +
                         re.escape(small(ident * 3)), re.S)
        hit = tup.search(m)
        if not hit or vaddr_of(segs, hit.start()) is None:
            print(f"FAIL: no tuple {{{ident},_,{ident * 3}}} in {fx.core}")
            return 1
        t_off, t_addr = hit.start(), vaddr_of(segs, hit.start())
        # the cell whose head is that tuple (boxed pointer: tag 2), at a word boundary
        ptr = struct.pack("<Q", t_addr | 2)
        cell_off = m.find(ptr)
        while cell_off >= 0 and cell_off % 8:
            cell_off = m.find(ptr, cell_off + 1)
        cell_addr = vaddr_of(segs, cell_off) if cell_off >= 0 else None
        m.close()
    if cell_addr is None:
        print(f"FAIL: no list cell holding the tuple at {t_addr:#x}")
        return 1
    print(f"tuple {{{ident},_,{ident * 3}}} at {t_addr:#x}, its cell at {cell_addr:#x}")
    bad = []
    tmp = tempfile.mkdtemp(prefix="beamcore-corrupt-")
    try:
        core = os.path.join(tmp, "core")
        subprocess.run(["cp", "--sparse=always", fx.core, core], check=True)
        cases = [("a list cell whose tail is itself", cell_off + 8, struct.pack("<Q", cell_addr | 1)),
                 ("a tuple of arity 2^40", t_off, struct.pack("<Q", (1 << 40) << 6))]
        saved = None
        for what, off, word in cases:
            with open(core, "r+b") as f:
                if saved:
                    f.seek(saved[0])
                    f.write(saved[1])
                f.seek(off)
                saved = (off, f.read(8))
                f.seek(off)
                f.write(word)
            t0 = time.time()
            r = subprocess.run([fx.beamcore, "proc", "sessions_server", core, fx.beam, "--json"],
                               capture_output=True, text=True, timeout=120)
            took = time.time() - t0
            if r.returncode not in (0, 1):
                bad.append(f"{what}: exit {r.returncode}: {r.stderr.strip()[:300]}")
                continue
            doc = json.loads(r.stdout)
            top = doc["largest_terms"][0] if doc["largest_terms"] else None
            print(f"{what}: {took:.2f} s, exit {r.returncode}; largest_terms[0] "
                  f"{top and (top['where'], top['shape'], top['flat_size'], top['complete'])}")
            if not top or "gen_server:loop/" not in top["where"] or top["complete"]:
                bad.append(f"{what}: largest_terms[0] {top}: not the state, or not cut")
            # the cells before the corrupt one were counted (9 words each)
            elif top["flat_size"] < 9 * (ident - 1):
                bad.append(f"{what}: flat_size {top['flat_size']} < {9 * (ident - 1)}")
            if took > 30:
                bad.append(f"{what}: took {took:.1f} s")
            if doc["message_shapes"] != [] or doc["process"]["messages_counted"] != 0:
                bad.append(f"{what}: message_shapes {doc['message_shapes']}")
            # proc --term down the same list: in time, the cycle's spine cut
            if top:
                t0 = time.time()
                r = subprocess.run([fx.beamcore, "proc", "sessions_server", core, fx.beam, "--json",
                                    "--term", top["where"] + " cache"],
                                   capture_output=True, text=True, timeout=120)
                took = time.time() - t0
                view = json.loads(r.stdout) if r.returncode in (0, 1) else None
                print(f"{what}: --term cache {took:.2f} s, exit {r.returncode}; "
                      f"{view and view['term'].get('element_count')} elements")
                if not view or took > 30:
                    bad.append(f"{what}: --term cache: exit {r.returncode} in {took:.1f} s: "
                               f"{r.stderr.strip()[:200]}")
                elif "tail is itself" in what and view["term"].get("elements_complete") is not False:
                    bad.append(f"{what}: --term cache: the cyclic list's spine not said cut")
            # the live-words walk of every heap (procs --garbage): in time, and
            # the corrupt process's figures unknown or within its heap
            t0 = time.time()
            r = subprocess.run([fx.beamcore, "procs", core, fx.beam, "--garbage", "--json"],
                               capture_output=True, text=True, timeout=120)
            took = time.time() - t0
            if r.returncode not in (0, 1):
                bad.append(f"{what}: procs --garbage exit {r.returncode}: {r.stderr.strip()[:300]}")
                continue
            ss = next(p for p in json.loads(r.stdout)["processes"]
                      if p["registered_name"] == "sessions_server")
            print(f"{what}: procs --garbage {took:.2f} s; sessions_server live_words "
                  f"{ss['live_words']}, garbage_bytes {ss['garbage_bytes']}")
            if took > 30 or (ss["live_words"] is not None and ss["live_words"] > ss["total_heap_size"]):
                bad.append(f"{what}: procs --garbage {took:.1f} s, sessions_server {ss}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{fx.name}: {len(cases)} corruptions; {len(bad)} failures")
    for b in bad:
        print("  FAIL " + b)
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main())
