#!/usr/bin/env python3
"""Big things stay readable (issue 21 part 5), against what the node held:

- `proc PID --term PATH` on the scenario's sessions_server: its state (the
  largest term's `where`) has the flat size erts_debug:flat_size(sys:get_state/1)
  gave (ground truth state_flat_size); its `cache` is the list of 500,000
  {Id,{user,Id rem 9973},Id*3} the scenario built, each element 7 words and
  printed whole; the text says "... and 499,950 more"; an index past the end,
  an unknown key or root exit 2 naming what exists, a malformed path 64;
  `dictionary {key,5}` of big_dict is {value,5}; `message 100000` of flooded
  is {event,100000,<<"payload">>}.
- lists over 50 items are cut in text with the exact remainder (flooded's
  100,000 messages, big_dict's 10,000 keys, deep_recursion's frames, the RabbitMQ backlog queue's 50,000
  binaries) and whole in JSON;
- every element's flat size adds up to its container's (a list: 2 words a
  cell; a tuple: arity + 1), on the RabbitMQ queue's 4 M-word state too;
- `ets TABLE --rows [N]`: every table's rows counted equal its size as
  ets:info/1 gave it; the scenario's rows as it inserted them (session_index
  {{user,U},U*7} in key order, session_tags {I rem 100,{tag,I}}, scratch
  {I,[x,...]} of I rem 8 atoms, hit_counters {I,0}, sessions
  {Id,{user,Id rem 9973},1700000000+Id,<<"tok",Id:64>>}), "... and N more"
  exact; on a dump: exit 2, it holds no rows.

usage: check_big.py BEAMCORE FIXTURE CORE"""
import json, re, subprocess, sys

from fixture import Fixture, report

fx = Fixture(sys.argv)
gt = fx.truth
bad = []
dump = fx.name.endswith(".dump")


def term(who, path, *args, ok=(0,)):
    rc, out, err = fx.run("proc", "--term", path, "--json", *args, arg=who)
    if rc not in ok:
        bad.append(f"proc {who} --term {path!r}: exit {rc}: {err.strip()[:300]}")
        return None
    return json.loads(out) if rc in (0, 1) else (rc, err)


def more_line(text, n):
    return f"... and {n:,} more" in text


def cut_check(who, key, heading):
    """text: the list under heading shows 50 items then the exact remainder;
    JSON has every one."""
    doc = fx.json("proc", arg=who)
    items = doc["process"][key] or []
    rc, out, _ = fx.run("proc", arg=who)
    if len(items) <= 50:
        bad.append(f"{who} {key}: {len(items)} items, the test wants more than 50")
        return items
    block = out.split("\n" + heading, 1)
    shown = [l for l in block[1].split("\n\n")[0].splitlines()[1:] if l.startswith("  ")] \
        if len(block) == 2 else []
    if len(shown) != 51 or not more_line(shown[-1], len(items) - 50):
        bad.append(f"{who} {key}: text shows {len(shown)} lines, last {shown[-1:]!r}; "
                   f"want 50 and '... and {len(items) - 50:,} more'")
    rc, out_all, _ = fx.run("proc", "--all", arg=who)
    if "more (--all" in out_all.split("\n" + heading, 1)[-1].split("\n\n")[0]:
        bad.append(f"{who} {key}: --all still cuts the list")
    return items


def sums_up(doc, where):
    """A container's flat size: its own words plus its elements' (all shown)."""
    t, els = doc["term"], doc.get("elements") or []
    if not t.get("element_count") or len(els) != t["element_count"] or not t["complete"]:
        return
    shape = t["shape"]
    # a flatmap (up to 32 keys): header, size, keys pointer, the values, and
    # its keys tuple (these keys atoms: no words of their own)
    atom_keys = all(re.fullmatch(r"[a-z][A-Za-z0-9_@]*|'[^']*'", e["key"]) for e in els)
    own = 2 * len(els) if shape.startswith("list") else len(els) + 1 if shape.startswith("tuple") \
        else 2 * len(els) + 4 if shape.startswith("map") and len(els) <= 32 and atom_keys else None
    if own is not None and own + sum(e["flat_size"] for e in els) != t["flat_size"]:
        bad.append(f"{where}: elements sum to {own + sum(e['flat_size'] for e in els)}, "
                   f"the term is {t['flat_size']}")


for name, want in (gt.get("state_flat_size") or {}).items():
    # a gen_server's state (largest_terms' first root) opened by --term: the
    # flat size erts_debug:flat_size(sys:get_state/1) gave, its elements adding up
    who = name if re.fullmatch(r"[a-z][A-Za-z0-9_@]*", name) else f"'{name}'"
    root = fx.json("proc", arg=who)["largest_terms"][0]["where"]
    st = term(who, root, "--all")
    if st and (st["term"]["flat_size"] != want or st["term"]["path"] != root):
        bad.append(f"{name} {root}: flat size {st['term']['flat_size']}, live {want}")
    elif st:
        sums_up(st, f"{name} {root}")
        print(f"{name}: {root} {st['term']['flat_size']:,} words = the live flat size")

if "state_flat_size" in gt and "sessions_server" in (gt["state_flat_size"] or {}):
    root = fx.json("proc", arg="sessions_server")["largest_terms"][0]["where"]
    cache = term("sessions_server", root + " cache")
    rows = 500000
    if cache:
        t, els = cache["term"], cache["elements"]
        if t["element_count"] != rows or len(els) != 50 or t["flat_size"] != 9 * rows:
            bad.append(f"cache: {t['element_count']} elements ({len(els)} shown), flat "
                       f"{t['flat_size']}; want {rows} (50 shown), {9 * rows}")
        for i, e in enumerate(els, 1):
            w = f"{{{i},{{user,{i % 9973}}},{3 * i}}}"
            if e["key"] != str(i) or e["flat_size"] != 7 or e["term"] != w:
                bad.append(f"cache element {i}: {e}; want {w}, 7 words")
                break
    rc, out, _ = fx.run("proc", "--term", root + " cache", arg="sessions_server")
    if not more_line(out, rows - 50):
        bad.append(f"cache text: no '... and {rows - 50:,} more'")
    last = term("sessions_server", f"{root} cache {rows}")
    if last and (last["term"]["term"] != f"{{{rows},{{user,{rows % 9973}}},{3 * rows}}}"
                 or not last["term"]["whole"] or last["term"]["flat_size"] != 7):
        bad.append(f"cache {rows}: {last['term']}")
    for path, code, says in ((f"{root} cache {rows + 1}", 2, "1..500,000"),
                             (f"{root} cach", 2, "its keys: cache, tables"),
                             ("stack y(99)", 2, "its roots: stack y(0) of"),
                             ("nonsense", 64, "a path starts with"),
                             (f"{root} cache 1 1 1", 2, "has no elements")):
        rc, out, err = fx.run("proc", "--term", path, arg="sessions_server")
        if rc != code or says not in err or len(err.strip().splitlines()) != 1:
            bad.append(f"--term {path!r}: exit {rc}, {err.strip()[:200]!r}; want {code}, {says!r}")
    # a dictionary key and a message as roots
    d = term("big_dict", "dictionary {key,5}")
    if d and (d["term"]["term"] != "{value,5}" or d["term"]["flat_size"] != 3):
        bad.append(f"big_dict dictionary {{key,5}}: {d['term']}")
    m = term("flooded", "message 100000")
    if m and m["term"]["term"] != '{event,100000,<<"payload">>}':
        bad.append(f"flooded message 100000: {m['term']}")
    msgs = cut_check("flooded", "messages", "Messages")
    if len(msgs) != 100000 or msgs[-1] != '{event,100000,<<"payload">>}':
        bad.append(f"flooded: {len(msgs)} messages in JSON, last {msgs[-1:]}; want 100,000")
    keys = cut_check("big_dict", "dictionary", "Dictionary")
    if sum(1 for k in keys if k.startswith("{{key,")) != 10000:
        bad.append(f"big_dict: {len(keys)} dictionary entries in JSON, want the 10,000 keys")
    if not dump:
        cut_check("deep_recursion", "backtrace", "Backtrace")
    first = term("sessions_server", root + " cache 1")
    if first:
        sums_up(first, "cache 1")

names = fx.json_file("names.json")["processes"] if "rabbit" in fx.dir else []
backlog = [n["pid"] for n in names if "hx.backlog" in (n.get("label") or "")]
if backlog:
    pid = backlog[0]
    rc, out, _ = fx.run("proc", arg=pid)
    if len(out.splitlines()) > 1000:
        bad.append(f"proc {pid}: {len(out.splitlines())} lines of text")
    if not dump:
        cut_check(pid, "binary", "Refc binaries")
    doc = fx.json("proc", arg=pid)
    root = doc["largest_terms"][0]["where"]
    path = root
    for step in range(6):  # down the largest element each time
        got = term(pid, path, "--all", ok=(0, 1))  # 1: a dump's funs (their words assumed)
        if not got or not got.get("elements"):
            break
        sums_up(got, path)
        big = max(got["elements"], key=lambda e: e["flat_size"])
        path += " " + big["key"]
    # (a dump has no x registers: a hibernated queue's state is not among its roots)
    if step < 3 and doc["largest_terms"][0]["flat_size"] > 100000:
        bad.append(f"{pid}: the walk down its largest term stopped at {path!r}")

def ets_rows(table, n, *args):
    """beamcore ets TABLE --rows [N] TARGET BEAM ARGS (N the word after TABLE)"""
    r = subprocess.run([fx.beamcore, "ets", table, "--rows", *([str(n)] if n else []), fx.core,
                        fx.beam, *args], capture_output=True, text=True, timeout=300)
    return r.returncode, r.stdout, r.stderr


def rows(table, n=None):
    rc, out, err = ets_rows(table, n, "--json")
    if rc != 0:
        bad.append(f"ets {table} --rows: exit {rc}: {err.strip()[:200]}")
        return None
    return json.loads(out)["table"]


tables = gt.get("ets") or []
if dump and tables:
    rc, out, err = ets_rows(tables[0]["id"], None)
    if rc != 2 or "does not record" not in err:
        bad.append(f"ets --rows on a dump: exit {rc}, {err.strip()!r}; want 2, no rows")
elif tables:
    counted = 0
    for t in tables:  # every table's rows counted: its size
        if t["size"] > 20000:
            continue
        r = rows(t["id"], 3)
        counted += 1
        if r and (r["rows_counted"] != t["size"] or len(r["rows"]) != min(3, t["size"])
                  or not r["rows_complete"]):
            bad.append(f"ets {t['name']} {t['id']}: {r['rows_counted']} rows counted "
                       f"({len(r['rows'])} shown), ets:info size {t['size']}")
    by = {t["name"]: t for t in tables}
    checks = {
        "session_index": (r"\{\{user,(\d+)\},(\d+)\}", lambda m, i: int(m[1]) == i + 1 and int(m[2]) == 7 * (i + 1)),
        "session_tags": (r"\{(\d+),\{tag,(\d+)\}\}", lambda m, i: int(m[2]) % 100 == int(m[1])),
        "hit_counters": (r"\{(\d+),0\}", lambda m, i: 1 <= int(m[1]) <= 10000),
        "scratch": (r"\{(\d+),\[(.*)\]\}", lambda m, i: (m[2].split(",") if m[2] else []) == ["x"] * (int(m[1]) % 8)),
        "sessions": (r"\{(\d+),\{user,(\d+)\},(\d+),<<116,111,107,(.*)>>\}",
                     lambda m, i: int(m[2]) == int(m[1]) % 9973 and int(m[3]) == 1700000000 + int(m[1])
                     and int.from_bytes(bytes(int(b) for b in m[4].split(",")), "big") == int(m[1])),
    }
    for name, (pat, ok) in checks.items():
        if name not in by:
            continue
        r = rows(by[name]["id"], 40)
        if not r:
            continue
        if r["rows_counted"] != by[name]["size"] or len(r["rows"]) != 40:
            bad.append(f"ets {name}: {r['rows_counted']} counted, {len(r['rows'])} shown")
        for i, row in enumerate(r["rows"]):
            m = re.fullmatch(pat, row)
            if not m or not ok(m, i):
                bad.append(f"ets {name} row {i + 1}: {row!r} is not what the scenario inserted")
                break
        rc, out, _ = ets_rows(by[name]["id"], None)
        if not more_line(out, by[name]["size"] - 20):
            bad.append(f"ets {name} --rows text: no '... and {by[name]['size'] - 20:,} more'")
    print(f"ets --rows: {counted} tables counted")
print(f"{fx.name}: big lists and --term checked")
sys.exit(report(bad))
