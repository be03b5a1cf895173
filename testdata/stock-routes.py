#!/usr/bin/env python3
"""Routes to the VM globals of a stock beam.smp that exports none (Debian's
OTP 29: -fvisibility=hidden, no etp_* and no erts_* in .dynsym), found by
matching its code against our DWARF build of the same source, never guessed.

  testdata/stock-routes.py OUR_BEAM STOCK_BEAM > src/dwarf/routes-....def

1. Code. Each function .dynsym exports in both (enif_*, driver_*, erl_drv_*)
   is a matched pair. In a pair, the %rip-relative operands and the calls are
   aligned in order (objdump; difflib on mnemonic and target section); an
   aligned operand names, through our .symtab, which global the stock's target
   is, and an aligned call matches the two callees, which are walked the same
   way (892 functions of forky's 29.1.1 from the ~300 exported).
2. Accepted. A global is placed when code references agree on it and its
   shift (stock - ours) is that of a neighbour placed by code too, or, with no
   reference, when the nearest code-placed globals below and above it in the
   same section have the same shift (the linker lays out the same objects in
   the same order: nothing between them moved).
3. Checked by content where the file has it: a constant in .rodata must hold
   our build's bytes (etp_otp_release "29", erts_alc_n2t ...), an array of
   strings in .data the same strings. What holds only at run time (.bss) is
   checked by beamcore on each core (docs/layout-packs.md).
Writes BUILD(build-id) and a V(ID, SIZE, ADDRESS) line per global placed,
with its evidence; a global not placed is a comment saying why.
"""
import bisect
import collections
import difflib
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def run(*args):
    return subprocess.run(args, capture_output=True, text=True, check=True).stdout


def symbols(path, dyn):
    out = {}
    for line in run('readelf', '-W', '--dyn-syms' if dyn else '--syms', path).splitlines():
        f = line.split()
        if len(f) < 8 or not f[0].endswith(':') or f[6] == 'UND':
            continue
        try:
            out.setdefault(f[7].split('@')[0], (int(f[1], 16), int(f[2], 0), f[3]))
        except ValueError:
            pass
    return out


def sections(path):
    out = []
    for line in run('readelf', '-W', '-S', path).splitlines():
        m = re.match(r'\s*\[\s*\d+\]\s+(\S+)\s+(\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)', line)
        if m and int(m.group(3), 16):
            out.append((m.group(1), m.group(2), int(m.group(3), 16), int(m.group(4), 16),
                        int(m.group(5), 16)))
    return out


def section_of(secs, addr):
    for name, typ, a, off, size in secs:
        if a <= addr < a + size:
            return name
    return None


def fdes(path):
    out = {}
    for line in run('readelf', '-wf', path).splitlines():
        m = re.search(r'FDE cie=\S+ pc=([0-9a-f]+)\.\.([0-9a-f]+)', line)
        if m:
            out[int(m.group(1), 16)] = int(m.group(2), 16)
    return out


def disassembly(path):
    addrs, text = [], []
    p = subprocess.Popen(['objdump', '-d', '--no-show-raw-insn', '-w', path],
                         stdout=subprocess.PIPE, text=True)
    for line in p.stdout:
        m = re.match(r'\s+([0-9a-f]+):\t(.*)$', line)
        if m:
            addrs.append(int(m.group(1), 16))
            text.append(m.group(2))
    p.wait()
    return addrs, text


RIP = re.compile(r'^(\S+)\s.*\(%rip\).*#\s*([0-9a-f]+)')
BRANCH = re.compile(r'^(call|jmp|j\w+)\s+([0-9a-f]+) <')


class Binary:
    def __init__(self, path):
        self.path = path
        self.dyn = symbols(path, True)
        self.secs = sections(path)
        self.fde = fdes(path)
        self.addrs, self.text = disassembly(path)
        self.raw = open(path, 'rb').read()

    def events(self, start):
        """The calls out of the function at start and its %rip operands."""
        end = self.fde[start]
        ev = []
        i = bisect.bisect_left(self.addrs, start)
        while i < len(self.addrs) and self.addrs[i] < end:
            t = self.text[i]
            i += 1
            m = BRANCH.match(t)
            if m:
                tgt = int(m.group(2), 16)
                if not start <= tgt < end:
                    ev.append(('call' if m.group(1) == 'call' else 'jmp', 'code', tgt))
                continue
            m = RIP.match(t)
            if m:
                tgt = int(m.group(2), 16)
                ev.append((m.group(1), section_of(self.secs, tgt), tgt))
        return ev

    def bytes_at(self, addr, n):
        for name, typ, a, off, size in self.secs:
            if typ == 'PROGBITS' and a <= addr and addr + n <= a + size:
                return self.raw[off + addr - a:off + addr - a + n]
        return None

    def relocs(self):
        out = {}
        for line in run('readelf', '-W', '-r', self.path).splitlines():
            f = line.split()
            if len(f) == 4 and f[2] == 'R_X86_64_RELATIVE':
                out[int(f[0], 16)] = int(f[3], 16)
        return out

    def cstr(self, addr):
        b = self.bytes_at(addr, 1)
        if b is None:
            return None
        for name, typ, a, off, size in self.secs:
            if a <= addr < a + size:
                s = self.raw[off + addr - a:off + size]
                return s[:s.index(b'\0')] if b'\0' in s else None
        return None


def layout_globals():
    """(id, symbol) of every L_GLOBAL in layout.def; a file static's bare name."""
    out = []
    for line in open(os.path.join(HERE, '..', 'src', 'dwarf', 'layout.def')):
        m = re.match(r'L_GLOBAL\((\w+), "([^"]+)"\)', line)
        if m:
            out.append((m.group(1), m.group(2).split(':')[-1]))
    return out


def match(ours, stock, ourfuncs):
    """Pairs of functions reached from the exported ones; the votes of aligned
    operands: our target -> Counter(stock target), and which functions."""
    pairs, queue, seen = {}, [], set()
    for name, (v, size, typ) in stock.dyn.items():
        if typ == 'FUNC' and name in ours.dyn:
            pairs[ours.dyn[name][0]] = v
            queue.append(ours.dyn[name][0])
    votes = collections.defaultdict(collections.Counter)
    where = collections.defaultdict(set)
    while queue:
        o = queue.pop(0)
        if o in seen or o not in ours.fde or pairs[o] not in stock.fde:
            continue
        seen.add(o)
        eo, es = ours.events(o), stock.events(pairs[o])
        sm = difflib.SequenceMatcher(None, [e[:2] for e in eo], [e[:2] for e in es], autojunk=False)
        for blk in sm.get_matching_blocks():
            if blk.size < 2 and len(eo) > 3:  # a lone match in a long function: by chance
                continue
            for k in range(blk.size):
                x, y = eo[blk.a + k], es[blk.b + k]
                if x[1] == 'code':
                    if x[2] not in pairs and x[2] in ours.fde and y[2] in stock.fde:
                        pairs[x[2]] = y[2]
                        queue.append(x[2])
                elif x[1]:
                    votes[x[2]][y[2]] += 1
                    where[x[2]].add(ourfuncs.get(o, hex(o)))
    return len(seen), votes, where


def main():
    if len(sys.argv) != 3:
        sys.exit('usage: stock-routes.py OUR_BEAM STOCK_BEAM')
    ours, stock = Binary(sys.argv[1]), Binary(sys.argv[2])
    osym = symbols(sys.argv[1], False)
    ourfuncs = {v: n for n, (v, s, t) in osym.items() if t == 'FUNC'}
    nfun, votes, where = match(ours, stock, ourfuncs)
    objs = sorted((v, s, n) for n, (v, s, t) in osym.items() if t in ('OBJECT', 'NOTYPE') and v)
    starts = [o[0] for o in objs]

    def containing(addr):
        i = bisect.bisect_right(starts, addr) - 1
        return objs[i] if i >= 0 and addr < objs[i][0] + max(objs[i][1], 1) else None

    # each object's shift by code: the shift most of its references agree on
    shift, refs = {}, {}
    per_obj = collections.defaultdict(collections.Counter)
    for a, c in votes.items():
        obj = containing(a)  # a string literal is no symbol: its own address
        start = obj[0] if obj else a
        for t, n in c.items():
            per_obj[start][t - a] += n
    for start, c in per_obj.items():
        (d, n), = c.most_common(1)
        if 2 * n > sum(c.values()):
            shift[start], refs[start] = d, n
    placed = sorted(shift)

    def name_of(a):
        obj = containing(a)
        return obj[2] if obj else '0x%x' % a

    def neighbours(addr):
        i = bisect.bisect_left(placed, addr)
        lo = placed[i - 1] if i > 0 else None
        hi = placed[i + 1] if i < len(placed) and placed[i] == addr else \
            placed[i] if i < len(placed) else None
        return lo, hi

    def same_section(a, b):
        return b is not None and section_of(ours.secs, a) == section_of(ours.secs, b)

    rel_o, rel_s = ours.relocs(), stock.relocs()

    def content(addr, at, size):
        """Checked by the file's bytes: None (nothing in the file), True, False."""
        sec = section_of(ours.secs, addr)
        if sec in ('.bss', None):
            return None, ''
        if any(addr + k in rel_o for k in range(0, size, 8)):  # pointers: the strings they hold
            for k in range(0, size, 8):
                if (addr + k in rel_o) != (at + k in rel_s):
                    return False, 'pointers differ'
                if addr + k in rel_o and ours.cstr(rel_o[addr + k]) != stock.cstr(rel_s[at + k]):
                    return False, 'string %d differs' % (k // 8)
            return True, 'its %d strings are ours' % sum(addr + k in rel_o for k in range(0, size, 8))
        a, b = ours.bytes_at(addr, size), stock.bytes_at(at, size)
        return (a is not None and a == b), 'its %d bytes are ours' % size

    print('/* routes to the VM globals of one stock build (docs/layout-packs.md): written by */')
    print('/* testdata/stock-routes.py %s (our DWARF build) */' % sys.argv[1])
    print('/* %s (%d functions matched) */' % (sys.argv[2], nfun))
    bid = re.search(r'Build ID: ([0-9a-f]+)', run('readelf', '-n', sys.argv[2])).group(1)
    print('BUILD("%s")' % bid)
    for lid, name in layout_globals():
        if name not in osym:
            print('/* not in this build: %s */' % lid)
            continue
        addr, size, typ = osym[name]
        lo, hi = neighbours(addr)
        lo = lo if same_section(addr, lo) else None
        hi = hi if same_section(addr, hi) else None
        why = None
        if addr in shift:
            d = shift[addr]
            agree = [n for n in (lo, hi) if n is not None and shift[n] == d]
            if refs[addr] >= 2 or agree:
                why = 'code: %d reference%s (%s)%s' % (
                    refs[addr], 's' if refs[addr] > 1 else '', ', '.join(sorted(where[addr])[:2]),
                    '' if not agree else ', shift as its neighbours')
        elif lo is not None and hi is not None and shift[lo] == shift[hi]:
            why = 'between %s and %s, both placed by code at the same shift' % (name_of(lo), name_of(hi))
            d = shift[lo]
        elif section_of(ours.secs, addr) == '.rodata':
            # a constant no code reads (etp_*): the run of constants around
            # it (its unit's, laid out back to back), once in the stock's .rodata
            d = why = None
            i = bisect.bisect_left(starts, addr)
            lo_i = hi_i = i
            while lo_i > 0 and objs[lo_i - 1][0] + objs[lo_i - 1][1] == objs[lo_i][0]:
                lo_i -= 1
            while hi_i + 1 < len(objs) and objs[hi_i][0] + objs[hi_i][1] == objs[hi_i + 1][0]:
                hi_i += 1
            run_lo, run_hi = objs[lo_i][0], objs[hi_i][0] + objs[hi_i][1]
            ob = ours.bytes_at(run_lo, run_hi - run_lo)
            for sname, styp, sa, soff, ssize in stock.secs:
                if sname == '.rodata' and ob and len(ob) >= 64:
                    data = stock.raw[soff:soff + ssize]
                    k = data.find(ob)
                    if k >= 0 and data.find(ob, k + 1) < 0:
                        d = sa + k - run_lo
                        why = 'in the run of %d constants %s..%s (%d bytes), once in .rodata' % (
                            hi_i - lo_i + 1, objs[lo_i][2], objs[hi_i][2], run_hi - run_lo)
        else:
            d = None
        if why is None:
            print('/* no route: %s (%s) */' % (lid, name))
            continue
        ok, what = content(addr, addr + d, size)
        if ok is False:
            print('/* refused: %s at 0x%x: %s */' % (lid, addr + d, what))
            continue
        print('V(%s, %d, 0x%x)  /* %s%s */' % (lid, size, addr + d, why, '; ' + what if ok else ''))


if __name__ == '__main__':
    main()
