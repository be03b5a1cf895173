#!/usr/bin/env python3
"""Issue 21 on the real-system fixtures (testdata/capture-rabbitmq.sh and
capture-elixir.sh: a RabbitMQ broker under AMQP load, an Elixir application),
against what the node wrote about itself (testdata/beamcore_real.erl).

Checked (exit 1 when wrong), what beamcore already gets right:
  - the fixture: supervisors.json asked every supervisor-like process, names.json
    names every live process but the collector;
  - every live process is in `procs`, with its registered name;
  - `tree`: every which_children edge of every supervisor-like process
    (supervisor, supervisor2, ranch_conns_sup, ...) is one of its edges;
    every edge it shows is a live one (a which_children edge, else the head of
    the child's live '$ancestors', else, with no live head, a live link);
    coverage says every process, and >= 99% of them are placed;
  - the largest server states (states.json: erts_debug:flat_size of
    sys:get_state) are largest_terms[0] of their process, within 1%;
  - on a core, `ports` agrees with erlang:ports() and port_info/2 (name,
    connected, queue_size, input, output, os_pid, links) for every port.
  - on a core, `procs --garbage`'s garbage_bytes of the idle processes against
    what erlang:garbage_collect/1 freed in each (gc.json): the sum within 10%,
    and every process that freed more than 64 KiB within 10%.
  - labels (names.json: registered name, '$process_label', RabbitMQ's process_name,
    Elixir Registry via-names, proc_lib's initial call): every process's label in
    procs --json and every command's JSON, label_source; procs' and the summary's
    text show the application's names; `proc LABEL` by a unique substring, an
    ambiguous one exit 64. On a dump: Registry names (ETS rows) fall back, said.
Printed as "GAP ..." lines with numbers, never failed on (later work turns each
into an assertion): ports on a dump, binary memory attribution, the summary's
first lines, long lists in `proc`.
Usage: check_real.py BEAMCORE FIXTURE CORE (FIXTURE under $BEAMCORE_FIXTURES).
Exit 0 pass, 1 fail, 77 skip."""
import json, os, sys
from fixture import Fixture, report
from label_text import short

fx = Fixture(sys.argv)
gt = fx.truth
app = gt.get("application")
if not app:
    print(f"FAIL: {fx.dir}/ground_truth.json is not a real application's (testdata/beamcore_real.erl)")
    sys.exit(1)
dump = fx.name.endswith(".dump")
live = {p["pid"]: p for p in gt["processes"]}
sups = {s["pid"]: s for s in fx.json_file("supervisors.json")["supervisors"]}
names = {p["pid"]: p for p in fx.json_file("names.json")["processes"]}
ports = fx.json_file("ports.json")
states = fx.json_file("states.json")["processes"] if os.path.exists(
    os.path.join(fx.dir, "states.json")) else []
bad, gaps = [], []

def gap(text):
    gaps.append(text)

def pct(a, b):
    return f"{100 * a / b:.1f}%" if b else "-"

# --- the fixture itself
unasked = [p for p, s in sups.items() if s["children"] is None]
if unasked:
    bad.append(f"fixture: which_children failed for {len(unasked)} supervisor-like processes "
               f"({[sups[p]['error'] for p in unasked[:3]]})")
unnamed = set(live) - set(names) - {gt["collector"]}
if unnamed:
    bad.append(f"fixture: names.json lacks {len(unnamed)} live processes")

# --- procs: every live process, its registered name
procs = fx.json("procs", ok=(0, 1))
got = {p["pid"]: p for p in procs["processes"]}
missing = [p for p in live if p not in got]
if missing:
    bad.append(f"procs: {len(missing)} live processes missing ({missing[:5]})")
for pid, p in live.items():
    q = got.get(pid)
    if q and q.get("registered_name") != p["registered_name"]:
        bad.append(f"procs {pid}: registered_name {q.get('registered_name')!r}, live {p['registered_name']!r}")

# --- tree: edges beamcore shows are live edges; OTP supervisors' children exact
tree = fx.json("tree", ok=(0, 1))
bc_parent, bc_nodes, bc_children = {}, {}, {}

def walk(n, parent):
    bc_nodes[n["pid"]] = n
    bc_children[n["pid"]] = {c["pid"] for c in n["children"]}
    if parent:
        bc_parent[n["pid"]] = parent
    for c in n["children"]:
        walk(c, n["pid"])

for r in tree["trees"]:
    walk(r, None)
live_children = {p: {c["pid"] for c in s["children"] or [] if c["pid"]} for p, s in sups.items()}
regs = {x["registered_name"]: p for p, x in live.items() if x["registered_name"]}

def live_head(pid):
    """The live process the head of pid's live '$ancestors' names, or None."""
    anc = live[pid].get("ancestors") or []
    if not anc:
        return None
    return anc[0] if anc[0] in live else regs.get(anc[0])

wrong = []
for child, parent in bc_parent.items():
    if child in live_children.get(parent, set()):
        continue
    head = live_head(child) if child in live else None
    if head is not None:
        if head != parent:
            wrong.append(f"{parent} -> {child} (its '$ancestors' head is {head})")
    elif parent not in live.get(child, {}).get("links", []):
        wrong.append(f"{parent} -> {child} (neither its '$ancestors' head nor linked)")
if wrong:
    bad.append(f"tree: {len(wrong)} edges the live node does not have: {wrong[:5]}")
lost = [(s, c) for s, cs in live_children.items() for c in cs
        if c in live and bc_parent.get(c) != s]
if lost:
    bad.append(f"tree: {len(lost)} which_children edges missing: "
               f"{[(s, c, bc_parent.get(c)) for s, c in lost[:5]]}")

cov = tree.get("coverage") or {}
if cov.get("processes") != len(live) or len(bc_nodes) != len(live):
    bad.append(f"tree: coverage.processes {cov.get('processes')}, {len(bc_nodes)} nodes, live {len(live)}")
placed = cov.get("placed", 0)
if placed < 0.99 * len(live):
    bad.append(f"tree: {placed} of {len(live)} processes placed ({pct(placed, len(live))}), under 99%: "
               f"unplaced {cov.get('unplaced')}")
if placed + sum(g["count"] for g in cov.get("unplaced", [])) != cov.get("processes"):
    bad.append(f"tree: coverage placed {placed} + unplaced {cov.get('unplaced')} != processes")

def forest_pids(roots):
    out = set()
    stack = list(roots)
    while stack:
        n = stack.pop()
        out.add(n["pid"])
        stack.extend(n["children"] or [])
    return out

live_placed = forest_pids(gt["supervision"])
by_kind = {}
for s in sups.values():
    by_kind[s["behaviour"]] = by_kind.get(s["behaviour"], 0) + 1
print(f"tree: beamcore places {placed} of {len(live)} processes ({pct(placed, len(live))}), "
      f"the live which_children trees {len(live_placed)}; supervisor-like processes "
      f"{dict(sorted(by_kind.items()))}; {sum(map(len, live_children.values()))} which_children "
      f"edges present, {len(bc_parent)} edges checked; complete={tree['complete']}")

# --- labels: one per process, as the node says it (names.json): registered
# name; else '$process_label'; else the library's name (RabbitMQ process_name,
# an Elixir Registry key); else proc_lib's initial call; else the initial call.
# A dump records no ETS rows (Registry names: the fallback, and a gap said) and
# not every refc binary (a label holding one shows #Binary<not dumped>).
import re
gaps_said = " ".join(f["text"] for f in fx.json("procs", ok=(0, 1))["findings"] if f["kind"] == "labels")

def expected(pid):
    """the label beamcore must show for pid, and why it may differ"""
    n = names[pid]
    if dump and n["label_source"] == "registry":
        return n["proc_lib_initial_call"] or n["initial_call"], "registry rows"
    return n["label"], None

def same_label(got_label, pid):
    want, _ = expected(pid)
    if got_label == want:
        return True
    # a dump's binary that was not dumped: the rest of the label exact
    parts = (got_label or "").split("#Binary<not dumped>")
    if dump and len(parts) > 1:
        return re.fullmatch(".*?".join(re.escape(x) for x in parts), want) is not None
    return False

own = {p: n for p, n in names.items() if n["label_source"] in ("process_name", "registry", "process_label")}
sources = {}
for n in own.values():
    sources[n["label_source"]] = sources.get(n["label_source"], 0) + 1
wrong = [(p, (got.get(p) or {}).get("label"), expected(p)[0]) for p in names
         if p in got and not same_label(got[p].get("label"), p)]
cut = sum(1 for p in names if p in got and "#Binary<not dumped>" in (got[p].get("label") or ""))
fallback = sum(1 for p in names if p in got and expected(p)[1])
if wrong:
    bad.append(f"labels: procs --json label of {len(wrong)} of {len(names)} processes is not the "
               f"live one, e.g. {wrong[:3]}")
srcs = [(p, got[p].get("label_source"), names[p]["label_source"]) for p in names
        if p in got and not expected(p)[1] and got[p].get("label_source") != names[p]["label_source"]]
if srcs:
    bad.append(f"labels: label_source of {len(srcs)} processes differs, e.g. {srcs[:3]}")
if fallback and "records no rows" not in gaps_said:
    bad.append(f"labels: {fallback} Registry names are not in the dump and nothing says so")
print(f"labels: {len(names)} processes ({len(own)} named by the application: "
      f"{', '.join(f'{k} {v}' for k, v in sorted(sources.items()))}), {len(names) - len(wrong)} "
      f"labels equal the live ones" + (f" ({cut} with a binary the dump did not write, "
      f"{fallback} Registry names a dump cannot hold: their initial call, said)" if dump else ""))

# the text: every process named by the application shows its label (its start
# and end, cut in the middle; a term with a binary in it in its short form,
# tests/label_text.py) in procs and in the summary's tables
def shows(cell, label):
    label = short(label)
    if cell.startswith(label + " ") or cell.rstrip() == label:
        return True
    head, sep, rest = cell.partition("..")
    return bool(sep) and label.startswith(head) and any(
        rest.startswith(label[-k:] + " ") for k in range(8, len(label) - len(head) + 1))

def text_rows(out):
    at, rows = None, {}
    for line in out.splitlines():
        if line.startswith("PID") and "LABEL" in line:
            at = line.index("LABEL")
        elif at is not None and line.startswith("<"):
            rows[line.split()[0]] = line[at:]
    return rows

prows = text_rows(fx.run("procs")[1])
checked = [p for p in own if not expected(p)[1] and "#Binary" not in (got.get(p) or {}).get("label", "#Binary")]
unshown = [(p, prows.get(p, "")[:60]) for p in checked if not shows(prows.get(p, ""), names[p]["label"])]
if unshown:
    bad.append(f"labels: procs text does not show {len(unshown)} labels, e.g. {unshown[:2]}")
summary = fx.json("summary", ok=(0, 1))
srows = text_rows(fx.run("summary")[1])
in_summary = [p["pid"] for t in ("processes", "message_queues") for p in summary.get(t, [])
              if p["pid"] in own]
bad_summary = [p for p in in_summary if not expected(p)[1] and p in srows and
               "#Binary" not in got[p]["label"] and not shows(srows[p], names[p]["label"])]
if bad_summary:
    bad.append(f"labels: the summary's tables do not show the label of {bad_summary[:3]}")
print(f"labels: procs text shows {len(checked) - len(unshown)} of {len(checked)} application names; the "
      f"summary's tables {len(in_summary) - len(bad_summary)} of {len(in_summary)}")

# proc LABEL: a unique substring opens its process; an ambiguous one is a usage
# error (64) naming a few candidates on one line
probe = "hx.backlog" if app == "rabbitmq" else "{:session, 17}"
want = [p for p, n in names.items() if probe in expected(p)[0]]
rc, out, err = fx.run("proc", "--json", arg=probe)
if want:
    if rc not in (0, 1) or json.loads(out)["process"]["pid"] != want[0]:
        bad.append(f"labels: `proc {probe}` exits {rc} ({err.strip()[:80]}), want {want[0]}")
elif rc not in (2, 64) or "label" not in err:
    bad.append(f"labels: `proc {probe}` exits {rc} with no process labelled so")
many = "hx.q" if app == "rabbitmq" else "{:pool,"
cands = [p for p, n in names.items() if many in expected(p)[0]]
rc, out, err = fx.run("proc", arg=many)
line = err.strip()
if len(cands) > 1 and (rc != 64 or "\n" in line or f"{len(cands)} processes" not in line
                       or line.count("<0.") > 5):
    bad.append(f"labels: ambiguous `proc {many}` ({len(cands)} candidates): exit {rc}, {line[:160]!r}")
print(f"labels: `proc {probe}` opens {want[:1]}; `proc {many}` exits 64 for {len(cands)} candidates")
if app == "rabbitmq" and not dump:
    # a user's rule, from $XDG_CONFIG_HOME/beamcore/labels and from --labels: ranch's
    # connection supervisors by their listener, rows {{conns_sup, Ref}, Pid} of
    # ranch_server (docs/labels.md's example); a bad file: one line, exit 64
    import tempfile
    rule = 'ets ranch_server arity=2 pid=2 name=1.2 where=1.1:conns_sup label="ranch conns_sup %n"\n'
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "beamcore"))
        with open(os.path.join(d, "beamcore", "labels"), "w") as f:
            f.write("# mine\n" + rule)
        with open(os.path.join(d, "bad"), "w") as f:
            f.write(rule + "ets t pid=1\n")
        env = dict(os.environ, XDG_CONFIG_HOME=d)
        import subprocess
        def run(*args):
            r = subprocess.run([fx.beamcore, "procs", *args, *fx.target, fx.beam, "--json"],
                               capture_output=True, text=True, env=env, timeout=300)
            return r.returncode, r.stdout, r.stderr
        rc, out, err = run()
        conns = [p for p in json.loads(out)["processes"] if p["proc_lib_initial_call"] == "ranch_conns_sup:init/7"] \
            if rc in (0, 1) else []
        if not conns or any(not (p["label"] or "").startswith("ranch conns_sup {acceptor,") or
                           p["label_source"] != "ets" for p in conns):
            bad.append(f"labels: the default file's rule did not label ranch_conns_sup: exit {rc}, "
                       f"{[(p['pid'], p['label']) for p in conns][:2]} {err.strip()[:100]}")
        rc, out, err = run("--labels", os.path.join(d, "bad"))
        if rc != 64 or err.count("\n") != 1 or "bad:2: ets: pid=POS and name=POS" not in err:
            bad.append(f"labels: a bad --labels file: exit {rc}, {err.strip()[:120]!r}")
        print(f"labels: a user's rule names {len(conns)} ranch_conns_sup processes; a bad file exits 64")

if app == "elixir":
    # an Elixir module's registered name, as procs prints it and as Elixir writes it
    for arg in ("Elixir.BcApp.Store", "BcApp.Store"):
        rc, out, err = fx.run("proc", arg=arg)
        if rc not in (0, 1):
            bad.append(f"labels: `proc {arg}` exits {rc}: {err.strip()[:100]}")

# --- ports
rc, out, err = fx.run("ports", "--json")
tcp = sum(1 for p in ports["ports"] if p["name"] == "tcp_inet")
queued = sum(1 for p in ports["ports"] if p["queue_size"])
agree = differ = 0
if rc in (0, 1):
    bp = {p["id"]: p for p in json.loads(out)["ports"]}
    for p in ports["ports"]:
        q = bp.get(p["port"])
        same = q is not None and all(q.get(k) == p[k] for k in ("name", "connected", "queue_size",
                                                                 "input", "output", "os_pid")) \
            and sorted(q.get("links") or []) == sorted(p["links"])
        agree += same
        differ += not same
        if not same and not dump:
            bad.append(f"ports {p['port']} ({p['name']}): live {p}, beamcore {q}")
gap(f"ports: erlang:ports() {len(ports['ports'])} ({tcp} tcp_inet, {queued} with queued output); "
    f"`beamcore ports` exits {rc}, {agree} agree with port_info (name, connected, queue, "
    f"input, output, os_pid, links), {differ} differ")

# --- binaries: erlang:memory(binary) against what is attributed
live_bin = fx.json_file("memory.json")["memory"]["binary"]
if dump:
    b = fx.json("binaries", ok=(1,))
    gap(f"binaries: erlang:memory(binary) {live_bin:,}; the dump's heaps show "
        f"{len(b['binaries'])} refc binaries, {b['attribution']['processes']:,} bytes; the rest "
        "is not recorded")
else:
    b = fx.json("binaries", ok=(0, 1))
    a = b["attribution"]
    shares = {k: v or 0 for k, v in a.items() if k not in ("binary", "unattributed")}
    attributed = sum(shares.values())
    total = attributed + a["unattributed"]
    if abs(total - live_bin) > 0.02 * live_bin:
        bad.append(f"binaries: attribution sums to {total:,}, erlang:memory(binary) {live_bin:,}")
    if attributed < 0.8 * live_bin:
        bad.append(f"binaries: {pct(attributed, live_bin)} of erlang:memory(binary) attributed "
                   f"({a}), want >= 80%")
    unattributed_said = any("not attributed" in m for m in b["missing"])
    if (a["unattributed"] > 0.01 * a["binary"]) != unattributed_said:
        bad.append(f"binaries: {a['unattributed']:,} unattributed of {a['binary']:,}, "
                   f"said in missing: {unattributed_said}")
    # the ports' receive buffers: the inet buffers the sockets have (opts buffer)
    recv = sum((p.get("inet") or {}).get("opts", {}).get("buffer", 0) for p in ports["ports"])
    got_recv = sum(p["buffer_bytes"] or 0 for p in b["ports"])
    gap(f"binaries: erlang:memory(binary) {live_bin / 2**20:.1f} MiB; attributed "
        f"{pct(attributed, live_bin)}: processes {shares['processes'] / 2**20:.1f} MiB, ports "
        f"{shares['ports'] / 2**20:.1f} MiB (receive buffers {got_recv / 2**20:.1f} MiB; the "
        f"sockets' buffer option {recv / 2**20:.1f} MiB), ETS {shares['ets'] / 2**10:.1f} KiB, "
        f"literals {shares['literals'] / 2**10:.1f} KiB, not attributed {a['unattributed']:,} B")

    # per process: distinct binaries of process_info(P, binary), as the idle ones had them
    idle = [p for p in gt["processes"] if p["status"] == "waiting" and p["pid"] != gt["collector"]]
    holders = {h["pid"]: h for h in b["holders"]}
    same = differ = 0
    for p in idle:
        distinct = {x[0]: x[1] for x in p["binary"]}
        h = holders.get(p["pid"])
        got = (h["count"], h["bytes"]) if h else (0, 0)
        ok = got == (len(distinct), sum(distinct.values()))
        same += ok
        differ += not ok
    if differ > 0.02 * max(1, same + differ):
        bad.append(f"binaries: {differ} of {same + differ} idle processes' distinct binaries "
                   "differ from process_info(P, binary)")
    repeats = max((len(x["holders"]) - len(set(x["holders"])) for x in b["binaries"]), default=0)
    if repeats:
        bad.append(f"binaries: a binary's holders repeat a holder {repeats} times")
    gap(f"binaries: {same} of {same + differ} idle processes hold the distinct binaries "
        "process_info(P, binary) lists (count, bytes)")

    # --- binaries --audit (issue 32): no false leak on a real server: nothing
    # corrupt; what is held outside what was searched counted and said, its
    # bytes part of erlang:memory(binary) exactly with the rest
    au = fx.json("binaries", "--audit", ok=(0, 1))
    x = au["audit"]
    parts = x["explained"]["bytes"] + x["held_outside"]["bytes"] + x["magic"]["bytes"] + x["no_reference_found_bytes"]
    if x["corrupt_count"]:
        bad.append(f"binaries --audit: {x['corrupt_count']} corrupt on a live server: {au['audit']['corrupt'][:3]}")
    if parts != max(au["attribution"]["binary"], parts - x["no_reference_found_bytes"]):
        bad.append(f"binaries --audit: its parts sum to {parts:,}, erlang:memory(binary) "
                   f"{au['attribution']['binary']:,}")
    said = [f for f in au["findings"] if f["text"].startswith("audit: ")]
    if not said or f"{x['held_outside']['count']:,} held outside" not in said[0]["text"]:
        bad.append(f"binaries --audit: the held outside not said in a finding: {said[:1]}")
    gap(f"binaries --audit: {x['binaries']:,} binaries, {x['explained']['count']:,} explained, "
        f"{x['held_outside']['count']:,} held outside ({x['held_outside']['bytes']:,} B, "
        f"{pct(x['held_outside']['bytes'], live_bin)} of erlang:memory(binary); groups "
        f"{[(g['size'], g['alloc_type'], g['count'], g['first_bytes']) for g in au['audit']['groups'][:3]]}), "
        f"{x['magic']['count']} magic, {x['no_reference_found_bytes']:,} B with no reference found")
    wa = fx.json("binaries", "--waste", ok=(0, 1))
    gap(f"binaries --waste: {len(wa['waste'])} processes with slices keeping binaries; the first "
        f"{wa['waste'][:2]}")

# --- garbage: what erlang:garbage_collect/1 freed on the live node against
# procs --garbage's estimate (a core: the live words walked, the heap sized as
# the collector sizes it): the sum within 10%, and each process that freed
# more than 64 KiB within 10%
if os.path.exists(os.path.join(fx.dir, "gc.json")):
    gc = fx.json_file("gc.json")["processes"]
    freed = sum(p["freed"] for p in gc)
    est = {p["pid"]: p for p in fx.json("procs", "--garbage", ok=(0, 1))["processes"]}
    known = [p for p in gc if isinstance((est.get(p["pid"]) or {}).get("garbage_bytes"), int)]
    total = sum(est[p["pid"]]["garbage_bytes"] for p in known)
    exact = sum(1 for p in known if est[p["pid"]]["garbage_bytes"] == max(p["freed"], 0))
    big = [p for p in gc if p["freed"] > 65536]
    off = [(p["pid"], p["freed"], (est.get(p["pid"]) or {}).get("garbage_bytes")) for p in big
           if p not in known or abs(est[p["pid"]]["garbage_bytes"] - p["freed"]) > 0.1 * p["freed"]]
    print(f"garbage: garbage_collect/1 freed {freed:,} bytes ({freed / 2**20:.1f} MiB) in {len(gc)} "
          f"idle processes; procs --garbage estimates {total:,} ({pct(total, freed)} of it) for "
          f"{len(known)} of them, {exact} exact; {len(big)} freed > 64 KiB, {len(off)} of them off by > 10%")
    if dump:
        gap(f"garbage: a dump's estimate {total:,} of {freed:,} freed")
    else:
        if len(known) < len(gc) or abs(total - freed) > 0.1 * freed:
            bad.append(f"garbage: estimated {total:,} bytes for {len(known)} of {len(gc)} idle "
                       f"processes, garbage_collect/1 freed {freed:,}")
        if off:
            bad.append(f"garbage: {len(off)} processes off by more than 10% (pid, freed, "
                       f"garbage_bytes): {off[:5]}")
        # the summary's sum over the idle processes
        sf = [f for f in fx.json("summary", ok=(0, 1))["findings"] if f["kind"] == "garbage"]
        if len(sf) != 1 or sf[0]["value"] is None or abs(sf[0]["value"] - freed) > 0.1 * freed:
            bad.append(f"garbage: the summary's finding {sf}, garbage_collect/1 freed {freed:,}")
        else:
            print(f"summary: {sf[0]['text']}")

# --- the largest states: largest_terms[0]
big = sorted([s for s in states if isinstance(s.get("flat_size"), int)],
             key=lambda s: -s["flat_size"])[:3]
for s in big:
    rc, out, err = fx.run("proc", "--json", arg=s["pid"])
    if rc not in (0, 1):
        bad.append(f"proc {s['pid']}: exit {rc} {err.strip()[:200]}")
        continue
    terms = json.loads(out).get("largest_terms") or []
    top = terms[0] if terms else None
    label = s.get("registered_name") or s.get("label")
    if dump:
        gap(f"terms: {s['pid']} {label}: live state {s['flat_size']:,} words; on the dump "
            f"largest_terms[0] {top and top['flat_size']}")
    elif not top or abs(top["flat_size"] - s["flat_size"]) > 0.01 * s["flat_size"]:
        bad.append(f"terms: {s['pid']} ({label}) largest_terms[0] {top and top['flat_size']}, "
                   f"live state {s['flat_size']}")
    else:
        print(f"state of {s['pid']} {label}: {s['flat_size']:,} words live, largest_terms[0] "
              f"{top['flat_size']:,} at {top['where']}: {top['shape'][:60]}")
    rc, out, err = fx.run("proc", arg=s["pid"])
    gap(f"proc {s['pid']} ({label}): {len(out.splitlines()):,} lines of text, {len(out):,} bytes")

# --- the summary's first lines: the process holding the most (the backlog's
# queue, the Elixir store) and the subtree or kind holding the memory, in the
# findings before the first table
rc, out, err = fx.run("summary")
head = out.split("\nerlang:memory()\n", 1)[0]
for want in (["hx.backlog"] if app == "rabbitmq" else ["BcApp.Store"]):
    if want not in head:
        bad.append(f"summary: the findings do not name {want!r}")
sj = fx.json("summary", ok=(0, 1))
if not any(f["kind"] in ("subtree", "process_kind") for f in sj["findings"]):
    bad.append("summary: no subtree or kind finding says where process memory is")
# binaries a quarter or more of the node's memory (the broker's receive
# buffers): the summary says who holds them, as binaries' attribution does
mem = fx.json_file("memory.json")["memory"]
bf = [f for f in sj["findings"] if f["kind"] == "binary_memory"]
if not dump and mem["binary"] * 4 >= mem["total"]:
    port = b["ports"][0]["port"] if b["ports"] else None
    if not bf or bf[0]["value"] != b["attribution"]["binary"] or (port and port + " " not in bf[0]["text"]
                                                                   and port + " (" not in bf[0]["text"]):
        bad.append(f"summary: binary_memory finding {bf[:1]}, binaries' attribution "
                   f"{b['attribution']}, top port {port}")
    else:
        print(f"summary: {bf[0]['text'][:200]}")
elif bf and dump:
    bad.append(f"summary: a binary_memory finding on a dump (no port buffers read): {bf[0]['text']}")

# --- issue 21 part 7: the small defects, each asserted
# waits: the "Deadlocks" heading only over a real cycle (none on these nodes)
wj = fx.json("waits", ok=(0, 1))
rc, out, err = fx.run("waits")
heading = "Deadlocks" in out.splitlines() or "DEADLOCK" in out
if heading != bool(wj["cycles"]):
    bad.append(f"waits: {len(wj['cycles'])} cycles, text {'has' if heading else 'lacks'} "
               "the Deadlocks heading")
# memory reads no process: its target still has the process count procs says
mt = fx.json("memory", ok=(0, 1))["target"]
for k in ("process_count", "process_limit"):
    if mt[k] != procs["target"][k]:
        bad.append(f"memory --json: target.{k} {mt[k]}, procs says {procs['target'][k]}")
# JSON registered_name is the process's registered name or null, in every
# command (binaries and summary put the initial call there)
def named(x, out, labels=None):
    if isinstance(x, dict):
        pid = x.get("pid") or x.get("waiter")
        if "registered_name" in x and pid in live:
            out.append((pid, x["registered_name"]))
        if labels is not None and "label" in x and pid in names:
            labels.append((pid, x["label"]))
        if labels is not None and "connected_label" in x and x.get("connected") in names:
            labels.append((x["connected"], x["connected_label"]))
        for v in x.values():
            named(v, out, labels)
    elif isinstance(x, list):
        for v in x:
            named(v, out, labels)

for cmd in ("summary", "procs", "stacks", "waits", "tree", "ports", "check", "binaries", "proc"):
    if cmd == "binaries" and dump:
        continue
    extra = ("--max", "memory=1MiB") if cmd == "check" else ()
    arg = max(live, key=lambda p: bool(live[p]["registered_name"])) if cmd == "proc" else None
    rc, out, err = fx.run(cmd, *extra, "--json", arg=arg)
    if rc not in (0, 1, 3):
        bad.append(f"{cmd} --json: exit {rc} {err.strip()[:200]}")
        continue
    pairs, labels = [], []
    named(json.loads(out), pairs, labels)
    off = [(p, l, expected(p)[0]) for p, l in labels if not same_label(l, p)]
    if off or (cmd in ("summary", "procs", "tree", "ports", "check", "proc") and not labels):
        bad.append(f"{cmd} --json: label of {len(off)} of {len(labels)} processes is not the "
                   f"live one, e.g. {off[:3]}")
    wrong = [(p, n) for p, n in pairs if n != live[p]["registered_name"]]
    if wrong:
        bad.append(f"{cmd} --json: registered_name of {len(wrong)} of {len(pairs)} processes is not "
                   f"their registered name, e.g. {wrong[:3]}")

for g in gaps:
    print("GAP " + g)
print(f"{fx.name} ({app}): {len(live)} processes, {len(sups)} supervisor-like, "
      f"{len(bc_parent)} tree edges checked, {len(gaps)} gaps printed")
sys.exit(report(bad))
