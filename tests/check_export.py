#!/usr/bin/env python3
"""`beamcore export` (speedscope, dot) on a core or an erl_crash.dump, against the
live node's ground truth and the other commands:
  - speedscope: valid against speedscope's published file-format schema
    (tests/data/); its samples are `stacks`' groups (each stack outermost
    first, weight = the group's count), the weights sum to the processes the
    live node had (exact, bar the ground truth's writer), --weight memory
    sums to `procs`' memory;
  - dot: `nop` (Graphviz's parser) reads the whole graph; every call the live
    node knows (ground truth "calls") is a red edge waiter -> callee; the
    supervision edges are `tree`'s: every which_children edge (parent ->
    child, bridges' children aside), the others each the head of the child's
    live '$ancestors' or, with no live head, a live link; every link between two idle processes the live node
    listed is a link edge (and none is invented between idle processes);
    --around X --depth 1 keeps exactly X and its neighbours in the full graph,
    and `dot -Tsvg` lays it out;
  - bad input: an unknown format and no -o are exit 64, an unwritable -o is
    exit 2, a failing export (speedscope --weight binary of a dump: unknown
    weights) is exit 2 and leaves no file and an existing one untouched.
Usage: check_export.py BEAMCORE FIXTURE TARGET. Exit 0 pass, 1 fail, 77 skip."""
import atexit, shutil, collections, json, os, re, subprocess, sys, tempfile
import jsonschema
from fixture import Fixture, idle_processes, report

fx = Fixture(sys.argv)
gt = fx.truth
dump = fx.name.endswith(".dump")
bad = []
tmp = tempfile.mkdtemp(prefix="beamcore-export-")
atexit.register(shutil.rmtree, tmp, True)  # every exit, a failing one too
here = os.path.dirname(os.path.abspath(__file__))

def export(fmt, out, *args):
    return fx.run("export", "--format", fmt, "-o", out, *args)

# speedscope
ss = os.path.join(tmp, "p.speedscope.json")
rc, out, err = export("speedscope", ss)
if rc != 0:
    print(f"FAIL: export speedscope exited {rc}: {err.strip()}")
    sys.exit(1)
prof = json.load(open(ss))
schema = json.load(open(os.path.join(here, "data", "speedscope-file-format-schema.json")))
try:
    jsonschema.validate(prof, schema)
except jsonschema.ValidationError as e:
    bad.append(f"speedscope: not valid against speedscope's schema: {e.message}")
frames = [f["name"] for f in prof["shared"]["frames"]]
p0 = prof["profiles"][0]
got = collections.Counter()
for s, w in zip(p0["samples"], p0["weights"]):
    names = [frames[i] for i in reversed(s)]
    got[tuple(n for n in names if n != "(no stack)")] += w
stacks = fx.json("stacks")
want = collections.Counter()
for g in stacks["groups"]:
    want[tuple(g["current_stacktrace"])] += g["count"]
if got != want:
    diff = (got - want) + (want - got)
    bad.append(f"speedscope: samples differ from stacks' groups in {len(diff)} stacks, e.g. "
               f"{next(iter(diff))}")
# straight against the live node: each stack its idle processes had carries at
# least that many, at most that many plus those that ran meanwhile (on a dump
# erl_signal_server ran too: it took the SIGUSR1 that wrote the dump)
idle_stacks = collections.Counter(tuple(p["current_stacktrace"]) for p in idle_processes(gt)
                                  if not (dump and p.get("registered_name") == "erl_signal_server"))
others = len(gt["processes"]) - sum(idle_stacks.values())
off = [(st, n, got.get(st, 0)) for st, n in idle_stacks.items()
       if not n <= got.get(st, 0) <= n + others]
if off:
    bad.append(f"speedscope: {len(off)} live stacks of idle processes with another weight, e.g. "
               f"{off[0][0][:2]}: live {off[0][1]}, profile {off[0][2]}")
live_n = len([p for p in gt["processes"] if p["pid"] != gt["collector"]])
if abs(sum(p0["weights"]) - live_n) > 1:
    bad.append(f"speedscope: weights sum to {sum(p0['weights'])}, the live node had {live_n} "
               "processes (+ the writer)")
if not dump:
    ssm = os.path.join(tmp, "m.speedscope.json")
    rc, _, err = export("speedscope", ssm, "--weight", "memory")
    procs = fx.json("procs")["processes"]
    if rc != 0:
        bad.append(f"speedscope --weight memory exited {rc}: {err.strip()}")
    elif sum(json.load(open(ssm))["profiles"][0]["weights"]) != sum(p["memory"] for p in procs):
        bad.append("speedscope --weight memory: weights do not sum to procs' memory")

# dot
dot = os.path.join(tmp, "g.dot")
rc, out, err = export("dot", dot)
if rc not in (0, 1):
    print(f"FAIL: export dot exited {rc}: {err.strip()}")
    sys.exit(1)
r = subprocess.run(["nop", dot], capture_output=True, text=True, timeout=120)
if r.returncode != 0:
    bad.append(f"dot: Graphviz's nop cannot read it: {r.stderr.strip()[:200]}")
EDGE = re.compile(r'^\s*"([^"]+)" -> "([^"]+)" \[([^\]]*)\];$')

def edges(path):
    out = collections.defaultdict(set)
    nodes = set()
    for line in open(path):
        m = EDGE.match(line)
        if m:
            a, b, attrs = m.groups()
            kind = ("link" if "dir=none" in attrs else "monitor" if "dashed" in attrs else
                    "supervises" if "bold" in attrs else "calls" if "red" in attrs else "?")
            out[kind].add((a, b))
        else:
            m = re.match(r'^\s*"([^"]+)" \[', line)
            if m:
                nodes.add(m.group(1))
    return out, nodes

E, nodes = edges(dot)
calls = {(c["waiter"], c["callee"]) for c in gt["calls"] if c["callee"].startswith("<0.")}
missing = calls - E["calls"]
if missing:
    bad.append(f"dot: {len(missing)} of {len(calls)} calls the live node knows are no red edge, "
               f"e.g. {sorted(missing)[:3]}")
bridges = {p["pid"] for p in gt["processes"]
           if (p.get("proc_lib_initial_call") or "").startswith("supervisor_bridge:")}
sup = set()

def walk(n):
    for c in n["children"] or []:
        if n["pid"] not in bridges and c["pid"].startswith("<"):
            sup.add((n["pid"], c["pid"]))
        walk(c)

for t in gt["supervision"]:
    walk(t)
got_sup = {e for e in E["supervises"] if e[0] not in bridges}
live_p = {p["pid"]: p for p in gt["processes"]}
regs = {p["registered_name"]: p["pid"] for p in gt["processes"] if p["registered_name"]}
listed = {c for _, c in sup}

def live_edge(parent, child):
    """A supervision edge no which_children lists: the head of the child's live
    '$ancestors', else (no live head) a live link."""
    if child in listed or child not in live_p:
        return False
    anc = live_p[child].get("ancestors") or []
    head = (anc[0] if anc[0] in live_p else regs.get(anc[0])) if anc else None
    return head == parent if head else parent in live_p[child].get("links", [])

odd = sorted(e for e in got_sup - sup if not live_edge(*e))
if not sup <= got_sup or odd:
    bad.append(f"dot: supervision edges differ from which_children: missing "
               f"{sorted(sup - got_sup)[:3]}, extra (no '$ancestors' head, no link) {odd[:3]}")
tree_edges = set()

def tree_walk(n):
    for c in n["children"]:
        tree_edges.add((n["pid"], c["pid"]))
        tree_walk(c)

for t in fx.json("tree", ok=(0, 1))["trees"]:
    tree_walk(t)
if tree_edges != E["supervises"]:
    bad.append(f"dot: supervision edges differ from tree's: {sorted(tree_edges ^ E['supervises'])[:3]}")
idle = {p["pid"] for p in idle_processes(gt)}
live_links = set()
for p in gt["processes"]:
    if p["pid"] in idle:
        for l in p.get("links", []):
            if l in idle:
                live_links.add(frozenset((p["pid"], l)))
got_links = {frozenset(e) for e in E["link"] if e[0] in idle and e[1] in idle}
if live_links != got_links:
    bad.append(f"dot: links between idle processes differ: missing "
               f"{[tuple(x) for x in list(live_links - got_links)[:3]]}, extra "
               f"{[tuple(x) for x in list(got_links - live_links)[:3]]}")
# --around: X and its neighbours in the full graph
cyc = gt["cycles"][0] if gt.get("cycles") else None
if cyc:
    x = cyc[1]
    near = {x}
    for kind in E.values():
        for a, b in kind:
            if a == x:
                near.add(b)
            if b == x:
                near.add(a)
    small = os.path.join(tmp, "around.dot")
    rc, _, err = export("dot", small, "--around", x, "--depth", "1")
    _, got_nodes = edges(small)
    if rc not in (0, 1):
        bad.append(f"dot --around {x}: exit {rc}: {err.strip()}")
    elif got_nodes != near:
        bad.append(f"dot --around {x} --depth 1: nodes {sorted(got_nodes - near)[:3]} extra, "
                   f"{sorted(near - got_nodes)[:3]} missing")
    r = subprocess.run(["dot", "-Tsvg", small], capture_output=True, text=True, timeout=120)
    if r.returncode != 0 or "<svg" not in r.stdout:
        bad.append(f"dot -Tsvg cannot lay out the --around graph: {r.stderr.strip()[:200]}")
    print(f"  --around {x} --depth 1: {len(got_nodes)} nodes")
print(f"  speedscope: {len(p0['samples'])} stacks; dot: {sum(len(v) for v in E.values())} edges "
      f"({', '.join(f'{k} {len(v)}' for k, v in sorted(E.items()))}), {len(nodes)} nodes")

# bad input
for args, code in [(["--format", "nope", "-o", os.path.join(tmp, "x")], 64),
                   (["--format", "dot"], 64),
                   (["--format", "dot", "-o", "/nonexistent-dir/x.dot"], 2),
                   (["--format", "speedscope", "--around", "init", "-o", os.path.join(tmp, "y")], 64)]:
    rc, out, err = fx.run("export", *args)
    lines = err.strip().splitlines()
    if rc != code or len(lines) != 1:
        bad.append(f"export {' '.join(args)}: exit {rc} (want {code}), stderr {err.strip()!r}")
# a device is written in place: /dev/null stays a device (a rename over it
# would make it a regular file for the whole machine)
import stat
rc, out, err = fx.run("export", "--format", "dot", "-o", "/dev/null", "--json")
if rc not in (0, 1) or not stat.S_ISCHR(os.stat("/dev/null").st_mode) or \
        json.loads(out)["export"]["bytes"] is not None:
    bad.append(f"export -o /dev/null: exit {rc}, /dev/null {'a device' if stat.S_ISCHR(os.stat('/dev/null').st_mode) else 'NO LONGER A DEVICE'}")
rc, out, err = fx.run("export", "--format", "dot", "-o", tmp)
if rc != 2 or len(err.strip().splitlines()) != 1:
    bad.append(f"export -o DIRECTORY: exit {rc} (want 2), {err.strip()!r}")
if os.path.exists(os.path.join(tmp, "x")) or os.path.exists(os.path.join(tmp, "y")):
    bad.append("a refused export left a file")
if dump:  # a dump gives no process's binary: the export fails, nothing is written
    keep = os.path.join(tmp, "keep.json")
    open(keep, "w").write("old\n")
    rc, _, err = export("speedscope", keep, "--weight", "binary")
    if rc != 2 or open(keep).read() != "old\n":
        bad.append(f"a failing export (exit {rc}) touched the existing -o file")
    if [f for f in os.listdir(tmp) if f.startswith("keep.json.")]:
        bad.append("a failing export left its temporary file")
sys.exit(report(bad))
