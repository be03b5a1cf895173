#!/usr/bin/env python3
"""Every command's --json on a fixture (core or crash dump) against its JSON
Schema in docs/schema/ (issue 13 part 4): the commands are those
`beamcore --help` lists (tui aside), so a new command without a schema file
fails here. A failure (exit 2: threads on a dump) must match error.json.
Besides the schemas, what the documents say is checked against the fixture:
the command named, complete agreeing with the exit code, the target's kind,
procs listing every process, proc answering for the process asked; and
docs/json.md against the schemas: its finding kinds the schema's, each of its
field tables' fields in one schema object, `|null` where the schema allows null.

usage: check_schema.py BEAMCORE FIXTURE CORE   (CORE: core.kernel or erl_crash.dump)
Debian 12's python3-jsonschema (4.10, RefResolver) or a newer one (referencing)."""
import tempfile, json, os, re, subprocess, sys

from fixture import Fixture

try:
    from jsonschema import Draft202012Validator
except ImportError:
    # a python3 first in PATH (pyenv, a venv) without it: Debian's, where
    # testdata/deps.sh installs python3-jsonschema
    if os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3") and \
            os.access("/usr/bin/python3", os.X_OK) and not os.environ.get("BC_SCHEMA_REEXEC"):
        os.environ["BC_SCHEMA_REEXEC"] = "1"
        os.execv("/usr/bin/python3", ["/usr/bin/python3", os.path.abspath(__file__), *sys.argv[1:]])
    print("FAIL: no python3 jsonschema module (testdata/deps.sh installs python3-jsonschema)")
    sys.exit(1)

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA_DIR = os.path.join(HERE, "..", "docs", "schema")
JSON_MD = os.path.join(HERE, "..", "docs", "json.md")
# tui: interactive; layout: writes a layout pack (C source) from a beam.smp, not a target
NO_JSON = {"tui", "layout"}
# a running node only (no core or dump): its --json is checked against its
# schema by tests/sample_live.py on live nodes, through validators() here
LIVE_ONLY = {"sample"}
# takes paths, not one target (no target object): tests/triage.py validates its
# --json against docs/schema/triage.json on a corpus
PATHS = {"triage"}

def load_schemas():
    schemas = {}
    for f in sorted(os.listdir(SCHEMA_DIR)):
        if f.endswith(".json"):
            with open(os.path.join(SCHEMA_DIR, f)) as fh:
                s = json.load(fh)
            Draft202012Validator.check_schema(s)  # a schema that is not one fails here
            if s.get("$id") != f:
                raise SystemExit(f"FAIL: docs/schema/{f}: $id is {s.get('$id')!r}, not {f!r}")
            schemas[f[:-5]] = s
    return schemas

def validators(schemas):
    """name -> validator, cross-file $refs ("common.json#/$defs/pid") resolved
    among the files themselves (never fetched)."""
    try:
        from referencing import Registry, Resource
        reg = Registry().with_resources((s["$id"], Resource.from_contents(s)) for s in schemas.values())
        return {n: Draft202012Validator(s, registry=reg) for n, s in schemas.items()}
    except ImportError:  # jsonschema < 4.18 (Debian 12: 4.10)
        from jsonschema import RefResolver
        store = {s["$id"]: s for s in schemas.values()}
        return {n: Draft202012Validator(s, resolver=RefResolver.from_schema(s, store=store))
                for n, s in schemas.items()}

def canon(v):
    """What a schema here can tell apart in a value: keys, types, null, an
    integer's sign, a string with its digit runs made 0 (every pattern in
    docs/schema/ matches both or neither), bool from int."""
    if isinstance(v, dict):
        return {k: canon(x) for k, x in v.items()}
    if isinstance(v, list):
        return [canon(x) for x in v]
    if isinstance(v, str):
        return re.sub(r"[0-9]+", "0", v)
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, int):
        return 0 if v >= 0 else -1
    return 0.5

KEEP = 65  # more than any maxItems in docs/schema/ (64)

def shrink(doc):
    """The document with each long array of objects cut to its first KEEP rows
    and one row of each further kind (canon): valid exactly when the whole is
    (the schemas judge rows one by one), and 15,000 process rows validate in a
    fraction of the time."""
    if isinstance(doc, dict):
        return {k: shrink(x) for k, x in doc.items()}
    if not isinstance(doc, list):
        return doc
    if len(doc) <= KEEP or not all(isinstance(x, dict) for x in doc):
        return [shrink(x) for x in doc]
    seen, rows = set(), list(doc[:KEEP])
    for x in doc[KEEP:]:
        k = json.dumps(canon(x), sort_keys=True)
        if k not in seen:
            seen.add(k)
            rows.append(x)
    return [shrink(x) for x in rows]

def commands(beamcore):
    """The commands `beamcore --help` lists."""
    out = subprocess.run([beamcore, "--help"], capture_output=True, text=True).stdout
    sect = out.split("\ncommands:\n", 1)[1].split("\n\n", 1)[0]
    return [m.group(1) for m in re.finditer(r"^  ([a-z][a-z_-]*)\b", sect, re.M)]

def doc_kinds():
    """The finding kinds docs/json.md's kind table names."""
    text = open(JSON_MD).read()
    table = text.split("| kind | severity | pid | value |", 1)[1].split("\n\n", 1)[0]
    kinds = set()
    for line in table.splitlines()[2:]:
        kinds.update(re.findall(r"`([a-z_]+)`", line.split("|")[1]))
    return kinds | {"note"}

def objects(node, found):
    """Every object schema with properties, anywhere in a schema."""
    if isinstance(node, dict):
        if isinstance(node.get("properties"), dict):
            found.append(node["properties"])
        for v in node.values():
            objects(v, found)
    elif isinstance(node, list):
        for v in node:
            objects(v, found)
    return found

def nullable(prop):
    t = prop.get("type")
    return ((isinstance(t, list) and "null" in t) or None in prop.get("enum", [1])
            or any(a.get("type") == "null" for a in prop.get("anyOf", [])))

def doc_tables():
    """docs/json.md's field tables: [(line, {field: type text})]."""
    lines, tables = open(JSON_MD).read().splitlines(), []
    for i, l in enumerate(lines):
        if re.match(r"^\| *(field|key) *\| *type *\|", l):
            rows = {}
            for r in lines[i + 2:]:
                if not r.startswith("|"):
                    break
                cells = [c.strip() for c in r.strip("|").split("|")] if "\\|" not in r else \
                    [c.strip().replace("\\", "") for c in re.split(r"(?<!\\)\|", r.strip("|"))]
                for name in re.findall(r"`([a-z_]+)`", cells[0]):
                    rows[name] = cells[1]
            tables.append((i + 1, rows))
    return tables

def doc_mismatches(schemas):
    """Each field table of docs/json.md against the schema object holding all its
    fields: the same fields nullable (`|null`) on both sides."""
    objs = [o for s in schemas.values() for o in objects(s, [])]
    bad = []
    for line, rows in doc_tables():
        cands = [o for o in objs if set(rows) <= set(o)]
        if not cands:
            bad.append(f"docs/json.md:{line}: no schema object has the fields {sorted(rows)}")
            continue
        o = min(cands, key=len)
        for name, typ in rows.items():
            if ("null" in typ) != bool(nullable(o[name])):
                bad.append(f"docs/json.md:{line}: {name} is {typ!r} there, "
                           f"{'nullable' if nullable(o[name]) else 'never null'} in the schema")
    return bad

def main():
    fx = Fixture(sys.argv)
    dump = fx.name.endswith(".dump")
    gt = fx.truth
    schemas = load_schemas()
    vals = validators(schemas)
    bad = []

    enum = set(schemas["common"]["$defs"]["finding"]["properties"]["kind"]["enum"])
    if enum != doc_kinds():
        bad.append(f"finding kinds: docs/json.md {sorted(doc_kinds() - enum)} not in common.json, "
                   f"common.json {sorted(enum - doc_kinds())} not in docs/json.md")

    def check(label, cmd, args=(), arg=None, want_rc=(0,), schema=None, two=False):
        """Run, validate against the command's schema (error.json for exit 2),
        return the document (None when it failed). two: `CMD CORE CORE` (diff)."""
        if two:
            # the target's options after its path (--sysroot of a core from another machine)
            opts = fx.target[fx.target.index("--sysroot"):] if "--sysroot" in fx.target else []
            r = subprocess.run([fx.beamcore, cmd, fx.core, fx.core, *opts, *args, "--json"],
                               capture_output=True, text=True, timeout=300)
            rc, out, err = r.returncode, r.stdout, r.stderr
        else:
            rc, out, err = fx.run(cmd, *args, "--json", arg=arg)
        if rc not in want_rc:
            bad.append(f"{label}: exit {rc} (want {'/'.join(map(str, want_rc))}): {err.strip()[:300]}")
            return None
        try:
            doc = json.loads(out)
        except ValueError as e:
            bad.append(f"{label}: not JSON ({e})")
            return None
        name = "error" if rc == 2 else schema or cmd
        if name not in vals:
            bad.append(f"{label}: no docs/schema/{name}.json")
            return None
        errs = list(vals[name].iter_errors(shrink(doc)))
        if errs:  # the whole document, for the rows' real places
            errs = list(vals[name].iter_errors(doc))
        # one line per kind of error (the same one on 15,000 rows is one line)
        kinds = {}
        for e in errs:
            where = "/".join("N" if isinstance(x, int) else x for x in e.absolute_path) or "(top)"
            kinds.setdefault((where, re.sub(r"\d+", "N", e.message[:200])), []).append(e)
        for (where, _), es in sorted(kinds.items())[:10]:
            first = "/".join(map(str, es[0].absolute_path)) or "(top)"
            bad.append(f"{label}: {name}.json at {first}"
                       f"{f' (and {len(es) - 1} more like it)' if len(es) > 1 else ''}: {es[0].message[:300]}")
        if len(kinds) > 10:
            bad.append(f"{label}: ... {len(kinds) - 10} more kinds of schema error")
        if doc.get("command") != cmd:
            bad.append(f"{label}: command {doc.get('command')!r}, not {cmd!r}")
        if rc == 2:
            if doc.get("exit") != 2:
                bad.append(f"{label}: exit 2 but the error object says {doc.get('exit')}")
        elif cmd == "check":  # complete is the input's; the exit code is the rules' too
            rules = doc.get("rules") or []
            failed = any(r.get("status") == "fail" for r in rules)
            unknown = any(r.get("status") == "unknown" for r in rules)
            want = 3 if failed else 1 if unknown or not doc.get("complete") else 0
            if rc != want or doc.get("complete") != (doc.get("missing_total") == 0):
                bad.append(f"{label}: exit {rc} (want {want}), complete {doc.get('complete')}")
        else:
            if doc.get("complete") != (rc == 0):
                bad.append(f"{label}: exit {rc} but complete is {doc.get('complete')}")
            t = doc.get("target") or (doc.get("targets") or {}).get("b") or {}
            live = fx.target[0] == "--pid"
            if t.get("kind") != ("crash_dump" if dump else "live" if live else "core"):
                bad.append(f"{label}: target.kind {t.get('kind')!r}")
            if live and (not isinstance(t.get("stopped_ms"), (int, float)) or t.get("racy")):
                bad.append(f"{label}: a stopped live read: stopped_ms {t.get('stopped_ms')!r}, "
                           f"racy {t.get('racy')!r}")
            if len(doc.get("missing", [])) > doc.get("missing_total", 0):
                bad.append(f"{label}: missing lists more than missing_total")
        print(f"{label}: exit {rc}, {len(out):,} bytes, {len(errs)} schema errors")
        return doc

    bad += doc_mismatches(schemas)

    ok = (0, 1)
    cmds = commands(fx.beamcore)
    for c in ("summary", "procs", "proc", "ets", "binaries", "memory", "stacks", "threads", "nodes",
              "ports", "waits", "tree", "check", "diff", "export"):
        if c not in cmds:
            bad.append(f"beamcore --help does not list {c}")
    for c in cmds:
        if c not in NO_JSON and c not in schemas:
            bad.append(f"{c}: no docs/schema/{c}.json (every command's --json has a schema)")

    # the process the most messages wait for (by name), the largest gen_server state
    # (by pid), the one with most links (by pid)
    procs = gt["processes"]
    named = [p for p in procs if p.get("registered_name")]
    flooded = max(named, key=lambda p: p["message_queue_len"])
    by_name = {p.get("registered_name"): p for p in named}
    stateful = by_name.get(next(iter(gt.get("state_flat_size") or {}), None)) or named[0]
    linked = max(procs, key=lambda p: len(p["links"]))
    proc_runs = [(flooded["registered_name"], flooded), (stateful["pid"], stateful), (linked["pid"], linked)]

    for c in cmds:
        if c in NO_JSON or c in LIVE_ONLY or c in PATHS:
            continue
        if c == "proc":
            for arg, p in proc_runs:
                d = check(f"proc {arg}", "proc", arg=arg, want_rc=ok)
                if d and d["process"]["pid"] != p["pid"]:
                    bad.append(f"proc {arg}: pid {d['process']['pid']}, want {p['pid']}")
                if d and d["process"]["registered_name"] != p.get("registered_name"):
                    bad.append(f"proc {arg}: registered_name {d['process']['registered_name']!r}")
            check("proc <0.999999.0>", "proc", arg="<0.999999.0>", want_rc=(2,))
        elif c == "procs":
            d = check("procs", "procs", want_rc=ok)
            if d and len(d["processes"]) != d["target"]["process_count"]:
                bad.append(f"procs: {len(d['processes'])} rows, process_count {d['target']['process_count']}")
            d = check("procs --top 3 --sort memory", "procs", ("--top", "3", "--sort", "memory"), want_rc=ok)
            if d and len(d["processes"]) != 3:
                bad.append(f"procs --top 3: {len(d['processes'])} rows")
            check("procs --garbage --top 5", "procs", ("--garbage", "--top", "5"), want_rc=ok)
            check("procs --group-by initial_call --sort garbage_bytes", "procs",
                  ("--group-by", "initial_call", "--sort", "garbage_bytes"), want_rc=ok)
            for by in ("label", "initial_call", "stack"):
                d = check(f"procs --group-by {by}", "procs", ("--group-by", by), want_rc=ok)
                if d and sum(g["count"] for g in d["groups"]) != d["target"]["process_count"]:
                    bad.append(f"procs --group-by {by}: the groups' counts do not sum to process_count")
        elif c == "stacks":
            check("stacks", "stacks", want_rc=ok)
            check("stacks --weight memory", "stacks", ("--weight", "memory"), want_rc=ok)
            check("stacks --by-status", "stacks", ("--by-status",), want_rc=ok)
            check("stacks --weight message_queue_len --by-status --top 5", "stacks",
                  ("--weight", "message_queue_len", "--by-status", "--top", "5"), want_rc=ok)
            d = check("stacks --folded", "stacks", ("--folded",), want_rc=ok)
            if d and not d["folded"]:
                bad.append("stacks --folded: no folded lines")
            # a dump does not give binaries: exit 2 and the error object
            check("stacks --weight binary", "stacks", ("--weight", "binary"),
                  want_rc=(2,) if dump else ok)
        elif c == "binaries":
            # a dump: what its heaps show, the rest said (exit 1)
            check(c, c, want_rc=(1,) if dump else ok)
            check("binaries --audit --waste", c, ("--audit", "--waste"),
                  want_rc=(1,) if dump else ok)
        elif c in ("threads", "resources"):
            # a dump records none: exit 2, error.json
            check(c, c, want_rc=(2,) if dump else ok)
        elif c == "atoms":
            check(c, c, want_rc=ok)
            check("atoms --top 3", c, ("--top", "3"), want_rc=ok)

        elif c == "waits":
            check("waits", "waits", want_rc=ok)
            d = check("waits --top 2", "waits", ("--top", "2"), want_rc=ok)
            if d and len(d["groups"]) > 2:
                bad.append(f"waits --top 2: {len(d['groups'])} groups")
        elif c == "check":
            # a rule of each kind: per process and table ones that fail (every
            # offender), node-wide ones, a percent a dump cannot evaluate
            check("check (rules that fail)", "check",
                  ("--max", "message_queue_len=1000", "--max", "stack_size=20", "--max", "ets.size=1000",
                   "--max", "ets.memory=1MiB", "--max", "process_count=80%", "--max", "atom_count=1%",
                   "--max", "binary=1KiB", "--max", "total=1TiB", "--max", "total_heap_size=1"),
                  want_rc=(3,))
            check("check (rules that hold)", "check", ("--max", "memory=1TiB", "--max", "total=1TiB"),
                  want_rc=ok)
        elif c == "diff" and fx.target[0] == "--pid":
            pass  # two snapshots, not a live node (a usage error: check_live.py)
        elif c == "diff":
            # the fixture against itself: every group in both, none changed
            d = check("diff", "diff", want_rc=ok, two=True)
            if d and (d["only_in_a"] or d["only_in_b"] or
                      any(g["delta"]["count"] for g in d["processes"] + d["ets"])):
                bad.append("diff of a target with itself: groups changed or on one side")
            d = check("diff --top 2", "diff", ("--top", "2"), want_rc=ok, two=True)
            if d and (len(d["processes"]) > 2 or len(d["ets"]) > 2):
                bad.append(f"diff --top 2: {len(d['processes'])} groups, {len(d['ets'])} tables")
        elif c == "export":  # the file is checked by check_export.py; here what is said
            with tempfile.TemporaryDirectory() as tmp:
                for fmt in ("speedscope", "dot"):
                    d = check(f"export --format {fmt}", "export",
                              ("--format", fmt, "-o", os.path.join(tmp, "out")), want_rc=ok)
                    if d and d["export"]["bytes"] != os.path.getsize(os.path.join(tmp, "out")):
                        bad.append(f"export --format {fmt}: bytes is not the file's size")
        elif c == "report":  # the page is report_browser.py's; here what is said
            with tempfile.TemporaryDirectory() as tmp:
                page = os.path.join(tmp, "report.html")
                d = check("report", "report", ("-o", page), want_rc=ok)
                if d and d["report"]["bytes"] != os.path.getsize(page):
                    bad.append("report: bytes is not the page's size")
        elif c == "summary":
            check("summary", "summary", want_rc=ok)
            check("summary --top 2", "summary", ("--top", "2"), want_rc=ok)
        else:
            check(c, c, want_rc=ok)

    for b in bad:
        print("FAIL:", b)
    print(f"{fx.name} ({os.path.basename(fx.dir)}): {len(bad)} failures")
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main())
