#!/usr/bin/env python3
"""Small synthetic x86-64 ELF cores, the seed corpus of fuzz/fuzz_core.c:
notes (NT_PRSTATUS, NT_PRPSINFO, NT_SIGINFO, NT_AUXV, NT_FILE) and PT_LOAD
segments, one with a hole (p_filesz < p_memsz), variants cut short.
  mkcores.py DIR"""
import os, struct, sys

def note(name, ntype, desc):
    n = name + b"\0"
    pad = lambda b: b + b"\0" * (-len(b) % 4)
    return struct.pack("<III", len(n), len(desc), ntype) + pad(n) + pad(desc)

def prstatus(tid, sig, rip, rsp):
    regs = [0] * 27
    regs[4], regs[16], regs[19], regs[21] = rsp + 16, rip, rsp, 0x7f0000001000
    head = struct.pack("<iiiHxxQQiiii", sig, 0, 0, sig, 0, 0, tid, 1, tid, tid) + b"\0" * 64
    return head + struct.pack("<27Q", *regs) + struct.pack("<ixxxx", 1)

def core(segs, notes, cut=None):
    """segs: (vaddr, memsz, data bytes, flags)."""
    nph = 1 + len(segs)
    off = 64 + 56 * nph
    notes_b = b"".join(notes)
    body, phdrs = bytearray(), []
    phdrs.append(struct.pack("<IIQQQQQQ", 4, 0, off, 0, 0, len(notes_b), 0, 4))
    body += notes_b
    for vaddr, memsz, data, flags in segs:
        body += b"\0" * (-(off + len(body)) % 16)
        phdrs.append(struct.pack("<IIQQQQQQ", 1, flags, off + len(body), vaddr, 0, len(data), memsz, 4096))
        body += data
    eh = (b"\x7fELF\x02\x01\x01" + b"\0" * 9 +
          struct.pack("<HHIQQQIHHHHHH", 4, 62, 1, 0, 64, 0, 0, 64, 56, nph, 64, 0, 0))
    out = eh + b"".join(phdrs) + bytes(body)
    return out[:cut] if cut else out

def files_note(entries):
    d = struct.pack("<QQ", len(entries), 4096)
    for s, e, pg, _ in entries:
        d += struct.pack("<QQQ", s, e, pg)
    return d + b"".join(p.encode() + b"\0" for *_, p in entries)

def main(d):
    os.makedirs(d, exist_ok=True)
    text = bytes(range(256)) * 2
    stack = struct.pack("<8Q", *range(0x1000, 0x1008))
    segs = [(0x400000, 512, text, 5), (0x7ffd0000, 0x2000, stack * 4, 6),
            (0x600000, 0x1000, b"", 4)]                      # a hole: nothing in the file
    siginfo = struct.pack("<iii4xQ", 11, 0, 1, 0xdeadbeef) + b"\0" * 104
    auxv = struct.pack("<8Q", 3, 0x400040, 9, 0x400100, 33, 0x7fff0000, 0, 0)
    psinfo = struct.pack("<bcbb4xQIIiiii16s80s", 0, b"R", 0, 0, 0, 0, 0, 42, 1, 42, 42,
                         b"beam.smp", b"beam.smp -- -root /usr/lib/erlang")
    nf = files_note([(0x400000, 0x401000, 0, "/usr/lib/erlang/erts/bin/beam.smp"),
                     (0x600000, 0x601000, 1, "/lib/x86_64-linux-gnu/libc.so.6")])
    notes = [note(b"CORE", 1, prstatus(42, 11, 0x400010, 0x7ffd0100)),
             note(b"CORE", 3, psinfo), note(b"CORE", 0x53494749, siginfo),
             note(b"CORE", 6, auxv), note(b"CORE", 0x46494C45, nf),
             note(b"CORE", 1, prstatus(43, 0, 0x400020, 0x7ffd0200))]
    full = core(segs, notes)
    seeds = {"full": full, "cut-in-segment": full[:len(full) - 700],
             "cut-in-notes": full[:64 + 56 * 4 + 200], "headers-only": full[:64 + 56 * 4],
             "no-notes": core(segs, []), "one-segment": core(segs[:1], notes[:1]),
             "kill-siginfo": core(segs[:2], [note(b"CORE", 0x53494749,
                                  struct.pack("<iii4xii", 6, 0, 0, 1234, 0) + b"\0" * 104)])}
    for name, data in seeds.items():
        open(os.path.join(d, name), "wb").write(data)

main(sys.argv[1])
