#!/usr/bin/env python3
"""The seed corpus of fuzz/fuzz_vm.c: patches (its input format) to the
members the walks trust most, offsets from a layout pack of the fixture's
release (the crash25-kill core: OTP 25.2.3's).
  mkvmseeds.py [PACK [DIR]]   (default src/dwarf/pack-25.2.3-jit.def,
                               testdata/fuzz/fuzz_vm)"""
import os, re, struct, sys

here = os.path.dirname(os.path.abspath(__file__))
pack = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "../../src/dwarf/pack-25.2.3-jit.def")
out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "fuzz_vm")

# fuzz_vm.c's roots and ops
R_GLOBAL, R_PROC, R_HEAP, R_STACK, R_OLD_HEAP, R_ATOM, R_ETS, R_PORT = range(8)
RAW, ADD, PTR, CONST = range(4)
# fuzz_vm.c's consts[]
C_ZERO, C_ONES, C_TOP, C_MAX, C_U32, C_2_32, C_2_28, C_2_30, C_NIL, C_END, C_NEXT, C_PREV, C_SELF = range(13)
C_7FFF = 15

off, glob = {}, []
for line in open(pack):
    m = re.match(r"([EGSAF])\((\w+), (\w+)", line)
    if not m:
        continue
    if m.group(1) == "E":
        off[m.group(2)] = int(m.group(3), 0)
    else:
        glob.append(m.group(2))


def patch(op, root, index, at, payload, hops=()):
    b = struct.pack("<BBHB", op, root, index, len(hops))
    for h in hops:
        b += struct.pack("<H", h)
    return b + struct.pack("<H", at) + payload


def const(root, index, at, k, hops=()):
    return patch(CONST, root, index, at, bytes([k]), hops)


def add(root, index, at, delta, hops=()):
    return patch(ADD, root, index, at, struct.pack("<h", delta), hops)


def ptr(root, index, at, to_root, to_index, to_at, tag, hops=()):
    return patch(PTR, root, index, at, struct.pack("<BHHB", to_root, to_index, to_at, tag), hops)


def raw(root, index, at, data, hops=()):
    return patch(RAW, root, index, at, bytes([len(data) - 1]) + data, hops)


def g(name):
    return glob.index(name)


seeds = {"none": b"", "threads": b"\x80"}  # (bit 7 of the first byte: the threads walk too)
# the process table: its size, its slots, a slot pointing at a heap
seeds["ptab-max-huge"] = const(R_GLOBAL, g("G_ERTS_PROC"), off["PTAB_MAX"], C_2_30)
seeds["ptab-tab-zero"] = const(R_GLOBAL, g("G_ERTS_PROC"), off["PTAB_TAB"], C_ZERO)
seeds["ptab-slot-heap"] = ptr(R_GLOBAL, g("G_ERTS_PROC"), 8 * 3, R_HEAP, 3, 0, 0, hops=(off["PTAB_TAB"] // 8,))
seeds["ptab-slot-ones"] = const(R_GLOBAL, g("G_ERTS_PROC"), 8 * 5, C_ONES, hops=(off["PTAB_TAB"] // 8,))
# a Process's members
for name, k in (("P_ID", C_ONES), ("P_HEAP", C_ZERO), ("P_HTOP", C_END), ("P_STOP", C_TOP),
                ("P_HEND", C_MAX), ("P_HEAP_SZ", C_2_30), ("P_OLD_HEAP", C_ONES),
                ("P_OLD_HEND", C_2_32), ("P_MBUF", C_SELF), ("P_SIGQ_FIRST", C_SELF),
                ("P_DICTIONARY", C_ONES), ("P_LINKS", C_SELF), ("P_MONITORS", C_NEXT),
                ("P_REG", C_U32), ("P_CURRENT", C_ZERO), ("P_I", C_ONES),
                ("P_OFF_HEAP_FIRST", C_SELF), ("P_ARITY", C_2_28), ("P_ARG_REG", C_ZERO),
                ("P_STATE", C_ONES), ("P_PSD", C_NEXT), ("P_SIGQ_CONT", C_PREV)):
    if name in off:
        seeds["proc-" + name.lower()[2:]] = const(R_PROC, 7, off[name], k)
seeds["proc-heap-other"] = ptr(R_PROC, 4, off["P_HEAP"], R_HEAP, 9, 0, 0)
seeds["proc-stop-below-heap"] = add(R_PROC, 2, off["P_STOP"], -0x4000)
# heaps: a tuple header of huge arity, a boxed term to itself, a list cell to itself
seeds["heap-huge-tuple"] = raw(R_HEAP, 1, 0, struct.pack("<Q", (0x3ffffff << 6) | 0))
seeds["heap-boxed-self"] = ptr(R_HEAP, 2, 8, R_HEAP, 2, 8, 2)
seeds["heap-list-self"] = ptr(R_HEAP, 3, 16, R_HEAP, 3, 16, 1)
seeds["heap-map-header"] = raw(R_HEAP, 5, 0, struct.pack("<Q", 0x2c | (0xffff << 6)))
seeds["stack-cp-ones"] = const(R_STACK, 1, 0, C_ONES)
seeds["stack-boxed-heap"] = ptr(R_STACK, 6, 8, R_HEAP, 6, 0, 2)
seeds["old-heap-bytes"] = raw(R_OLD_HEAP, 0, 0, b"\xff" * 16)
# the atom table and atoms
seeds["atoms-entries-huge"] = const(R_GLOBAL, g("G_ATOM_TABLE"), off["IT_ENTRIES"], C_2_30)
seeds["atoms-seg-zero"] = const(R_GLOBAL, g("G_ATOM_TABLE"), off["IT_SEG_TABLE"], C_ZERO)
seeds["atom-len-max"] = const(R_ATOM, 100, off["ATOM_LEN"], C_7FFF)
seeds["atom-name-zero"] = const(R_ATOM, 1, off["ATOM_NAME"], C_ZERO)
seeds["atom-false"] = raw(R_ATOM, 0, 0, b"x", hops=(off["ATOM_NAME"] // 8,))
# ETS tables
for name, k in (("DB_OWNER", C_ONES), ("DB_NAME", C_U32), ("DB_ALL_NEXT", C_SELF),
                ("DBH_SEGTAB", C_ONES), ("DBH_NACTIVE", C_2_30), ("DBT_ROOT", C_SELF),
                ("DB_KEYPOS", C_2_28), ("DB_STATUS", C_ONES)):
    if name in off:
        seeds["ets-" + name.lower()] = const(R_ETS, 3, off[name], k)
seeds["ets-bucket-self"] = const(R_ETS, 0, 0, C_SELF, hops=(off["DBH_SEGTAB"] // 8, 0))
# ports and the allocators
seeds["port-id-ones"] = const(R_PORT, 0, off.get("PRT_ID", 0), C_ONES)
seeds["allctrs-ones"] = const(R_GLOBAL, g("G_ALLCTRS_INFO"), 16, C_ONES)
# several at once
seeds["many"] = (seeds["proc-heap"] + seeds["ets-dbh_segtab"] + seeds["atom-len-max"] +
                 seeds["heap-boxed-self"])

os.makedirs(out, exist_ok=True)
for name, data in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
print(f"{len(seeds)} seeds in {out}")
