#!/usr/bin/env python3
"""`stacks` on hibernating processes (issue 21: shown as "(no stack)", without
saying they hibernate or who they are). Against what the node wrote: a process
is `hibernating` exactly when its current_function was erlang:hibernate/3; the
hibernating groups are split by the shown initial call (proc_lib's
'$initial_call', else the spawn's) with the node's counts; the text says
"hibernating: WHO". On a core each hibernating process has `wake_up`, the
function erlang:hibernate/3 was given (through proc_lib:hibernate/3, the one
proc_lib:wake_up/3 was given): erlang:hibernate calls it from outside its
module, so it must be one M exports; that is checked in M's .beam (ExpT) where
the .beam is found (the fixture, the OTP it ran, RabbitMQ's plugins). A dump
does not record it: null. `proc` says the same of each group's first process.
Usage: check_hibernating.py BEAMCORE FIXTURE TARGET."""
import collections, glob, os, re, struct, subprocess, sys
from fixture import Fixture, report

def beam_exports(path):
    """{(function, arity)} from a .beam's ExpT and atom chunks."""
    data = open(path, "rb").read()
    if data[:4] != b"FOR1" or data[8:12] != b"BEAM":
        return None
    chunks, off = {}, 12
    while off + 8 <= len(data):
        cid, size = data[off:off + 4], struct.unpack(">I", data[off + 4:off + 8])[0]
        chunks[cid] = data[off + 8:off + 8 + size]
        off += 8 + ((size + 3) & ~3)
    atoms, a = [None], chunks.get(b"AtU8") or chunks.get(b"Atom")
    n, o = struct.unpack(">i", a[:4])[0], 4
    for _ in range(abs(n)):
        if n < 0:  # OTP 28+: compact-term encoded lengths (short atoms: one byte)
            b0 = a[o]
            ln, o = (b0 >> 4, o + 1) if b0 & 0x08 == 0 else ((((b0 >> 5) << 8) | a[o + 1]), o + 2)
        else:
            ln, o = a[o], o + 1
        atoms.append(a[o:o + ln].decode())
        o += ln
    e = chunks[b"ExpT"]
    return {(atoms[f], ar) for f, ar, _ in
            (struct.unpack(">III", e[4 + 12 * i:16 + 12 * i]) for i in range(struct.unpack(">I", e[:4])[0]))}

def beam_dirs(fx):
    """where the node's modules are: the fixture's, its OTP's (a real system's
    bin/erl names Debian's ROOTDIR), RabbitMQ's plugins"""
    root = os.path.dirname(os.path.dirname(os.path.dirname(fx.beam)))  # .../bin/ARCH/beam.smp
    erl = os.path.join(fx.dir, "bin", "erl")
    m = re.search(r"ROOTDIR=(\S+)", open(erl).read()) if os.path.exists(erl) else None
    root = m.group(1).strip("'\"") if m else root
    return ([fx.dir, os.path.join(fx.dir, "ebin")] + glob.glob(os.path.join(root, "lib", "*", "ebin")) +
            glob.glob("/usr/lib/rabbitmq/lib/*/plugins/*/ebin"))

def main():
    fx = Fixture(sys.argv)
    gt = fx.truth["processes"]
    doc = fx.json("stacks")
    got = {p["pid"]: p for p in doc["processes"]}
    bad = []
    hib = {p["pid"]: p for p in gt if p["current_function"] == "erlang:hibernate/3"}
    for p in gt:
        g = got.get(p["pid"])
        if g and g["hibernating"] != (p["pid"] in hib):
            bad.append(f"{p['pid']}: hibernating {g['hibernating']}, current_function {p['current_function']}")
    want = collections.Counter(p.get("proc_lib_initial_call") or p["initial_call"] for p in hib.values())
    groups = [g for g in doc["groups"] if g["hibernating"]]
    have = collections.Counter()
    for g in groups:
        have[g["initial_call"]] += g["count"]
    if have != want:
        bad.append(f"hibernating groups by initial call: {dict(have)}, the node's {dict(want)}")
    text = subprocess.run([fx.beamcore, "stacks", *fx.target, fx.beam], capture_output=True,
                          text=True, timeout=300).stdout
    for ic in want:
        if f"hibernating: {ic}" not in text:
            bad.append(f"text: no line 'hibernating: {ic}'")
    if "(no stack)" in text and not any(not p["current_stacktrace"] and p["current_function"] !=
                                        "erlang:hibernate/3" for p in gt):
        bad.append("text: '(no stack)' while every stackless process hibernates")
    dump = fx.name.endswith(".dump")
    dirs, exports, verified = beam_dirs(fx), {}, collections.Counter()
    for pid in hib:
        w = got[pid]["wake_up"] if pid in got else None
        if dump:
            if w is not None:
                bad.append(f"{pid}: wake_up {w} on a dump (it records none)")
            continue
        if not w:
            bad.append(f"{pid}: hibernating without wake_up")
            continue
        mod, fa = w.split(":", 1)
        f, a = fa.rsplit("/", 1)
        if mod not in exports:
            path = next((p for d in dirs for p in [os.path.join(d, mod + ".beam")] if os.path.exists(p)), None)
            exports[mod] = beam_exports(path) if path else None
        if exports[mod] is None:
            verified["module's .beam not found"] += 1
        elif (f, int(a)) not in exports[mod]:
            bad.append(f"{pid}: wake_up {w}: {mod} does not export {f}/{a}")
        else:
            verified["exported"] += 1
    for g in groups:  # proc says the same of each group's first process
        w = fx.json("proc", arg=g["pids"][0])["process"].get("wake_up", "missing")
        if w != g["wake_up"]:
            bad.append(f"proc {g['pids'][0]}: wake_up {w}, stacks {g['wake_up']}")
    wakes = collections.Counter(g["wake_up"] for g in groups)
    print(f"{fx.name}: {len(hib)} hibernating of {len(gt)}, {len(groups)} groups "
          f"({', '.join(f'{n} {ic}' for ic, n in want.most_common(4))}...); wake_up "
          f"{'null (a dump)' if dump else dict(wakes)}; exports: {dict(verified)}")
    return report(bad)

if __name__ == "__main__":
    sys.exit(main())
