#!/usr/bin/env python3
"""beamcore's leak forensics (issue 32) on the leak fixture
(testdata/capture-leak.sh), against what the node wrote (leak.json):

atoms and the summary's atom finding:
  core.gcore and erl_crash.dump (one idle state, seen both ways): the count
  and limit; user_<N> the largest pattern with exactly the atoms the loop
  made, from index atom_count_before (an atom's index is its creation order)
  to the last; the newest its last made; atom_hoarder the top holder with
  exactly the atoms it holds (the core's heaps, the dump's heap sections);
  the summary's first finding names the pattern, its range and the holder;
  full/erl_crash.dump (the node died "no more index entries in atom_tab"):
  the table full, user_<N> with every atom made after atom_count_before, the
  summary's first finding critical and naming it;
slices keeping binaries alive (binaries --waste, the summary's binary_waste):
  on the core, slice_keeper the first row with exactly its slices, the bytes
  they use and the binaries they keep (binary:referenced_byte_size/1 of each);
  the summary's finding names it with those bytes, right after the atoms';
  port_keeper's TCP socket (its peer never reads): its row with exactly the
  queued bytes (port_info queue_size) and the binaries the queue holds whole,
  and a summary finding;
  slice_table (its rows' slices: ProcBins of part of a binary to OTP 26, as
  copy_struct stores them; sub-bitstrings from 27) its row with exactly the
  node's sums over its rows, and the summary's next finding names it;
  the modules of user_<N>: exactly the module that makes them (its literal
  "user_"), on the core; none searched on the dumps;
  on the dump, --waste said missing (exit 1);
binaries held by native code (binaries --audit): the NIF's kept binaries (its
  own count: native.json) the one group held outside, by size and first bytes,
  exactly; nothing corrupt; explained + held outside + magic + no reference
  found reconcile with the node's erlang:memory(binary) within 0.1%; on the
  dump, the audit said missing (no reference counts);
NIF resources (resources, the summary's resource_native): the NIF's type
  beamcore_leak_nif:leaky with exactly the resources alive and those native
  code holds (its destructor's count), res_owner the top holder of exactly
  those it was given; the summary names it; a dump: resources fails, exit 2,
  one line (not recorded);
every --json against docs/schema/.

usage: check_leak.py BEAMCORE FIXTURE   (FIXTURE: leak25, ...)"""
import json, os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from fixture import CI, SKIP  # noqa: E402

bad = []


def run(beamcore, cmd, target, *args):
    r = subprocess.run([beamcore, cmd, *target, *args], capture_output=True, text=True, timeout=300)
    return r.returncode, r.stdout, r.stderr


def validate(doc, name):
    try:
        import check_schema
        v = check_schema.validators(check_schema.load_schemas())[name]
    except SystemExit:
        raise
    except Exception as e:  # (no jsonschema: check_schema says so on its own)
        bad.append(f"schema {name}: {e}")
        return
    for e in list(v.iter_errors(doc))[:5]:
        bad.append(f"{name} schema: {e.message} at {list(e.path)}")


def check_atoms(beamcore, label, target, truth, full, core):
    rc, out, err = run(beamcore, "atoms", target, "--json")
    if rc not in (0, 1):
        bad.append(f"{label}: atoms exited {rc}: {err.strip()}")
        return
    doc = json.loads(out)
    validate(doc, "atoms")
    a = doc["atoms"]
    limit = truth["atom_limit"]
    count = limit if full else truth["atom_count"]
    made = limit - truth["atom_count_before"] if full else truth["made"]
    first = truth["atom_count_before"]
    print(f"{label}: count {a['count']:,} (truth {count:,}), limit {a['limit']:,} ({limit:,}), "
          f"read {a['read']:,}, {a['patterns_total']} patterns, exit {rc}")
    if (a["count"], a["limit"], a["read"]) != (count, limit, count):
        bad.append(f"{label}: count/limit/read {a['count']}/{a['limit']}/{a['read']}, want {count}/{limit}/{count}")
    p = doc["patterns"][0] if doc["patterns"] else {}
    print(f"  {p.get('pattern')}: {p.get('count', 0):,} atoms (made {made:,}), indexes "
          f"{p.get('first_index')}-{p.get('last_index')} (want {first}-{first + made - 1}), newest {p.get('newest')}")
    want = {"pattern": "user_<N>", "count": made, "first_index": first, "last_index": first + made - 1,
            "newest": f"user_{made}"}
    got = {k: p.get(k) for k in want}
    if got != want:
        bad.append(f"{label}: the largest pattern {got}, want {want}")
    # (the table has the pattern of every other atom too: nothing lost or counted twice)
    total = sum(x["count"] for x in doc["patterns"]) + a["singles"]
    if total != a["read"]:
        bad.append(f"{label}: patterns and singles sum to {total}, read {a['read']}")
    if not full:  # (a core's and a dump's: the heaps' terms, each object once)
        h = [x for x in doc.get("holders", []) if x["pattern"] == "user_<N>"]
        top = h[0] if h else {}
        print(f"  top holder {top.get('pid')} {top.get('label')}: {top.get('atoms')} "
              f"(truth {truth['hoarder']} atom_hoarder: {truth['hoarded']})")
        if (top.get("pid"), top.get("label"), top.get("atoms")) != \
                (truth["hoarder"], "atom_hoarder", truth["hoarded"]):
            bad.append(f"{label}: top holder {top}, want {truth['hoarder']} atom_hoarder {truth['hoarded']}")
        if p.get("holders", [None])[0] != truth["hoarder"]:
            bad.append(f"{label}: patterns[0].holders {p.get('holders')}")
    # who makes them: the module whose literal "user_" the loop's
    # list_to_atom("user_" ++ ...) uses (that module alone: no longer word
    # such as "user_drv" counts); a dump records no literals
    want_mods = [truth["maker"]] if core else None
    print(f"  modules {p.get('modules')} (want {want_mods}), unscanned {a.get('modules_unscanned')}")
    if p.get("modules") != want_mods or a.get("modules_unscanned") != (0 if core else None):
        bad.append(f"{label}: patterns[0].modules {p.get('modules')}, unscanned "
                   f"{a.get('modules_unscanned')}, want {want_mods}")
        if rc != 0 or not doc["complete"]:
            bad.append(f"{label}: exit {rc}, complete {doc['complete']}: {doc['missing']}")

    # the summary: its first finding (after a core's crash line) is the table's
    rc, out, err = run(beamcore, "summary", target, "--json")
    if rc not in (0, 1):
        bad.append(f"{label}: summary exited {rc}: {err.strip()}")
        return
    doc = json.loads(out)
    validate(doc, "summary")
    fs = [f for f in doc["findings"] if f["kind"] != "crash"]
    f = fs[0] if fs else {}
    print(f"  summary: {f.get('text')}")
    sev = "critical" if full else "warning"
    if (f.get("kind"), f.get("severity"), f.get("name"), f.get("value")) != ("atom_limit", sev, "user_<N>", count):
        bad.append(f"{label}: summary's first finding {f}, want atom_limit {sev} user_<N> {count}")
    words = f"{made:,} of them are user_<N>, made from index {first:,} to {first + made - 1:,}"
    if words not in (f.get("text") or ""):
        bad.append(f"{label}: the finding does not say {words!r}")
    if core and f"module {truth['maker']} names them" not in f.get("text", ""):
        bad.append(f"{label}: the finding does not name the module {truth['maker']}")
    if not full and (f.get("pid") != truth["hoarder"] or
                     f"holds {truth['hoarded']:,} of them" not in f.get("text", "")):
        bad.append(f"{label}: the finding does not name the holder {truth['hoarder']}")
    if full and "no more index entries in atom_tab" not in (doc["target"].get("death") or {}).get("slogan", ""):
        bad.append(f"{label}: the death is not the atom table's: {doc['target'].get('death')}")
    rc, text, _ = run(beamcore, "summary", target)
    first_line = next((l for l in text.splitlines() if l.startswith("* ")), "")
    if "user_<N>" not in first_line:
        bad.append(f"{label}: the text's first finding does not name user_<N>: {first_line!r}")


def check_waste(beamcore, label, target, truth, core):
    rc, out, err = run(beamcore, "binaries", target, "--waste", "--json")
    if rc not in (0, 1):
        bad.append(f"{label}: binaries --waste exited {rc}: {err.strip()}")
        return
    doc = json.loads(out)
    validate(doc, "binaries")
    if not core:
        if rc != 1 or not any("--waste" in m for m in doc["missing"]):
            bad.append(f"{label}: a dump's slices not said missing (exit {rc}, {doc['missing']})")
        return
    w = doc["waste"][0] if doc.get("waste") else {}
    want = {"pid": truth["slice_keeper"], "table": None, "port": None, "label": "slice_keeper",
            "slices": truth["slices"], "referenced_bytes": truth["slice_bytes"],
            "binaries": truth["slices"], "kept_alive_bytes": truth["kept_alive_bytes"]}
    print(f"{label}: binaries --waste first row {w}")
    if w != want:
        bad.append(f"{label}: waste[0] {w}, want {want}")
    # the table's slices: its rows' sub-binaries, each keeping its own binary
    t = next((x for x in doc.get("waste", []) if x.get("table") == truth["ets_table"]), {})
    want = {"pid": None, "table": truth["ets_table"], "port": None, "label": None, "slices": truth["ets_slices"],
            "referenced_bytes": truth["ets_slice_bytes"], "binaries": truth["ets_slices"],
            "kept_alive_bytes": truth["ets_kept_alive_bytes"]}
    print(f"  the table's row {t}")
    if t != want:
        bad.append(f"{label}: waste's {truth['ets_table']} row {t}, want {want}")
    # the port's driver queue: the bytes to write (port_info queue_size)
    # against the binaries it holds whole (the filler and the sliced ones)
    pt = json.load(open(os.path.join(os.path.dirname(target[0]), "port.json")))
    p = next((x for x in doc.get("waste", []) if x.get("port") == pt["port"]), {})
    want = {"pid": None, "table": None, "port": pt["port"], "label": None, "slices": None,
            "referenced_bytes": pt["queue_size"], "binaries": pt["binaries"],
            "kept_alive_bytes": pt["kept_alive_bytes"]}
    print(f"  the port's row {p}")
    if p != want:
        bad.append(f"{label}: waste's {pt['port']} row {p}, want {want}")
    if any("slices" in m for m in doc["missing"]):
        bad.append(f"{label}: binaries --waste says slices missing: {doc['missing']}")
    rc, out, err = run(beamcore, "summary", target, "--json")
    fs = [f for f in json.loads(out)["findings"] if f["kind"] != "crash"] if rc in (0, 1) else []
    kinds = [f["kind"] for f in fs]
    f = fs[1] if len(fs) > 1 else {}
    print(f"  summary: {f.get('text')}")
    if kinds[:2] != ["atom_limit", "binary_waste"] or f.get("pid") != truth["slice_keeper"] or \
            f.get("value") != truth["kept_alive_bytes"] or f"{truth['slices']} slices" not in f.get("text", ""):
        bad.append(f"{label}: the summary's second finding {f} (kinds {kinds[:3]})")
    f = next((x for x in fs[:6] if x["kind"] == "binary_waste" and x.get("name") == pt["port"]), {})
    print(f"  summary: {f.get('text')}")
    if f.get("value") != pt["kept_alive_bytes"] or "queued to write" not in f.get("text", ""):
        bad.append(f"{label}: the summary's port waste finding {f} (kinds {kinds[:6]})")
    f = fs[2] if len(fs) > 2 else {}
    print(f"  summary: {f.get('text')}")
    if (f.get("kind"), f.get("name"), f.get("value")) != ("binary_waste", truth["ets_table"],
                                                          truth["ets_kept_alive_bytes"]) or \
            not f.get("text", "").startswith(f"ETS {truth['ets_table']} holds {truth['ets_slices']} slices"):
        bad.append(f"{label}: the summary's third finding {f}, want the table's slices")


def check_audit(beamcore, label, target, native, core):
    rc, out, err = run(beamcore, "binaries", target, "--audit", "--json")
    if rc not in (0, 1):
        bad.append(f"{label}: binaries --audit exited {rc}: {err.strip()}")
        return
    doc = json.loads(out)
    validate(doc, "binaries")
    if not core:
        if rc != 1 or not any("--audit" in m for m in doc["missing"]):
            bad.append(f"{label}: a dump's audit not said missing (exit {rc}, {doc['missing']})")
        return
    a = doc["audit"]
    g = doc["audit"]["groups"]
    print(f"{label}: audit {a['binaries']} binaries: {a['explained']['count']} explained, "
          f"{a['held_outside']['count']} held outside ({a['held_outside']['bytes']:,} B), "
          f"{a['corrupt_count']} corrupt; groups {g[:2]}; NIF keeps {native['kept']} of {native['size']} B")
    # (the NIF's copies are of Erlang's binaries: binary_alloc's own type)
    want = {"size": native["size"], "alloc_type": "binary", "count": native["kept"],
            "references_not_found": native["kept"], "first_bytes": native["first_bytes"].encode().hex()}
    if len(g) != 1 or {k: g[0].get(k) for k in want} != want:
        bad.append(f"{label}: audit_groups {g}, want one {want}")
    if a["held_outside"]["count"] != native["kept"] or a["held_outside"]["references"] != native["kept"]:
        bad.append(f"{label}: held_outside {a['held_outside']['count']}/{a['held_outside']['references']}, "
                   f"want {native['kept']}")
    if a["corrupt_count"] or doc["audit"]["corrupt"]:
        bad.append(f"{label}: {a['corrupt_count']} corrupt")
    total = a["explained"]["bytes"] + a["held_outside"]["bytes"] + a["magic"]["bytes"] + a["no_reference_found_bytes"]
    truth = native["binary_memory"]
    print(f"  reconciled: {total:,} B against erlang:memory(binary) {truth:,} B "
          f"({100.0 * (total - truth) / truth:+.3f}%)")
    if abs(total - truth) > truth / 1000:
        bad.append(f"{label}: the audit's bytes {total} vs erlang:memory(binary) {truth} (> 0.1%)")
    # the summary says so too, among its first findings, naming the group
    rc, out, err = run(beamcore, "summary", target, "--json")
    fs = [f for f in json.loads(out)["findings"] if f["kind"] != "crash"] if rc in (0, 1) else []
    f = next((x for x in fs[:6] if x["kind"] == "binary_held_outside"), {})
    print(f"  summary: {f.get('text')}")
    if f.get("value") != a["held_outside"]["bytes"] or \
            f"{native['kept']} refc binaries" not in f.get("text", "") or '"LEAK"' not in f.get("text", ""):
        bad.append(f"{label}: the summary's held outside finding {f} (kinds {[x['kind'] for x in fs[:6]]})")
    if not any(f["kind"] == "binary_held_outside" and f["value"] == a["held_outside"]["bytes"]
               for f in doc["findings"]):
        bad.append(f"{label}: no binary_held_outside finding")


def check_resources(beamcore, label, target, native, core):
    rc, out, err = run(beamcore, "resources", target, "--json")
    if not core:
        if rc != 2 or "not record" not in err or len(err.strip().splitlines()) != 1:
            bad.append(f"{label}: resources on a dump: exit {rc}, {err.strip()!r}")
        return
    if rc != 0:
        bad.append(f"{label}: resources exited {rc}: {err.strip()}")
        return
    doc = json.loads(out)
    validate(doc, "resources")
    t = next((x for x in doc["types"] if (x["module"], x["name"]) == ("beamcore_leak_nif", "leaky")), {})
    print(f"{label}: resources leaky {t}; the NIF: {native['resources_alive']} alive, "
          f"{native['resources_native']} native, res_owner {native['resources_held']}")
    # (res_table's: the only term of each, explained; res_owner holds more)
    want = {"count": native["resources_alive"],
            "found": native["resources_held"] + native["resources_in_ets"],
            "native_count": native["resources_native"],
            "holders": [native["res_owner"], native["res_table"]]}
    if {k: t.get(k) for k in want} != want:
        bad.append(f"{label}: leaky {t}, want {want}")
    if doc["types"] and doc["types"][0] is not t:
        bad.append(f"{label}: leaky is not the first type: {doc['types'][0]}")
    rc, out, err = run(beamcore, "summary", target, "--json")
    fs = json.loads(out)["findings"] if rc in (0, 1) else []
    f = next((f for f in fs if f["kind"] == "resource_native"), {})
    kinds = [x["kind"] for x in fs if x["kind"] != "crash"]
    # (the summary walks the ETS objects of a table this small: res_table's
    # are explained there too)
    if f.get("name") != "beamcore_leak_nif:leaky" or f.get("value") != native["resources_native"] or \
            "ETS objects not searched" in f.get("text", "") or \
            f.get("pid") != native["res_owner"] or "resource_native" not in kinds[:6]:
        bad.append(f"{label}: the summary's resource finding {f} (kinds {kinds[:6]})")


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 64
    beamcore, name = sys.argv[1], sys.argv[2]
    d = os.path.join(os.environ.get("BEAMCORE_FIXTURES", "/nonexistent"), name)
    need = [os.path.join(d, f) for f in ("core.gcore", "erl_crash.dump", "leak.json", "beam.smp.path",
                                         "full/erl_crash.dump", "full/leak.json", "native.json", "port.json")]
    missing = [f for f in need if not os.path.exists(f)]
    if missing:
        print(f"{'FAIL (CI=true)' if CI else 'SKIP'}: no fixture {missing[0]} (testdata/capture-leak.sh makes it)")
        return SKIP
    beam = open(os.path.join(d, "beam.smp.path")).read().strip()
    truth = json.load(open(os.path.join(d, "leak.json")))
    core = [os.path.join(d, "core.gcore"), beam]
    dump = [os.path.join(d, "erl_crash.dump")]
    check_atoms(beamcore, "core.gcore", core, truth, False, True)
    check_atoms(beamcore, "erl_crash.dump", dump, truth, False, False)
    check_waste(beamcore, "core.gcore", core, truth, True)
    check_waste(beamcore, "erl_crash.dump", dump, truth, False)
    native = json.load(open(os.path.join(d, "native.json")))
    check_audit(beamcore, "core.gcore", core, native, True)
    check_audit(beamcore, "erl_crash.dump", dump, native, False)
    check_resources(beamcore, "core.gcore", core, native, True)
    check_resources(beamcore, "erl_crash.dump", dump, native, False)
    full = json.load(open(os.path.join(d, "full", "leak.json")))
    check_atoms(beamcore, "full/erl_crash.dump", [os.path.join(d, "full", "erl_crash.dump")], full, True, False)
    for b in bad:
        print(f"  {b}")
    print("FAIL" if bad else "ok")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
