#!/usr/bin/env python3
"""Crash dumps of real deaths (testdata/capture.sh --dump, beamcore_deaths.erl):
  oom.dump             eheap_alloc failed under `ulimit -v`: the summary names the
                       allocator, the size and the type from the slogan, and the
                       process that grew (the registered `grower`)
  kernel_pid.dump      Kernel pid terminated (application_controller) (killed)
  kernel_pid_cut.dump  the same death cut by ERL_CRASH_DUMP_BYTES (=abort:): exit 1,
                       the cut named; every process whose section is whole is
                       exactly what the dump says, the cut one has nulls
Usage: check_dump_deaths.py BEAMCORE FIXTURE (FIXTURE under $BEAMCORE_FIXTURES)."""
import json, os, re, subprocess, sys

bad = []

def run(bc, *args, want_rc=0):
    r = subprocess.run([bc, *args], capture_output=True, text=True, timeout=300)
    if "Sanitizer" in r.stderr or "runtime error:" in r.stderr:
        bad.append(f"{' '.join(args)}: sanitizer: {r.stderr[-1500:]}")
    if r.returncode != want_rc:
        bad.append(f"{' '.join(args)}: exit {r.returncode}, want {want_rc}: {r.stderr.strip()[:300]}")
    return r

def sections(path, tag):
    """{name: {key: value}} of the =tag:name sections, read independently of beamcore."""
    out, cur = {}, None
    with open(path, "rb") as f:
        data = f.read().decode("latin-1")
    if data.rstrip("\n").rsplit("\n", 1)[-1].startswith("=abort:"):
        data = data[:data.rindex("\n=abort:")]
        data = data[:data.rindex("\n") + 1]  # the writer's partial last line
    for line in data.split("\n")[:-1]:
        if line.startswith("="):
            cur = out.setdefault(line[len(tag) + 2:], {}) if line.startswith(f"={tag}:") else None
        elif cur is not None and ": " in line:
            k, v = line.split(": ", 1)
            cur[k] = v
    return out

def oom(bc, path):
    slogan = open(path, errors="replace").read(4096).split("Slogan: ", 1)[1].split("\n", 1)[0]
    m = re.match(r'(\w+): Cannot allocate (\d+) bytes of memory \(of type "(\w+)"\)', slogan)
    if not m:
        bad.append(f"oom.dump: slogan {slogan!r} is not an allocation failure")
        return
    alloc, size, typ = m.group(1), int(m.group(2)), m.group(3)
    grower = [pid for pid, s in sections(path, "proc").items() if s.get("Name") == "grower"]
    doc = json.loads(run(bc, "summary", path, "--json").stdout or "{}")
    d = (doc.get("target") or {}).get("death") or {}
    got = (d.get("allocator"), d.get("alloc_size"), d.get("alloc_type"), d.get("culprit"))
    if alloc != "eheap_alloc" or got != (alloc, size, typ, grower[0] if grower else None):
        bad.append(f"oom.dump: death {got}, slogan says {(alloc, size, typ)}, grower {grower}")
    if doc.get("processes") and doc["processes"][0]["registered_name"] != "grower":
        bad.append(f"oom.dump: top process {doc['processes'][0]['pid']}, not grower")
    text = run(bc, path).stdout.splitlines()[:6]
    grew = [l for l in text if l.startswith("  grew ")]
    if not grew or "grower" not in grew[0] or not any("eheap_alloc could not allocate" in l for l in text):
        bad.append(f"oom.dump: the header does not name the allocator and the process: {text}")
    print(f"oom.dump: {slogan}; culprit {got[3]} (grower {grower}); header: {grew[:1]}")

def kernel(bc, path):
    doc = json.loads(run(bc, "summary", path, "--json").stdout or "{}")
    d = (doc.get("target") or {}).get("death") or {}
    if (d.get("kernel_pid"), d.get("reason")) != ("application_controller", "killed"):
        bad.append(f"kernel_pid.dump: death {d}")
    print(f"kernel_pid.dump: {d.get('slogan')!r} -> kernel_pid {d.get('kernel_pid')}, reason {d.get('reason')}")

def cut(bc, path):
    if not open(path, "rb").read().rstrip(b"\n").rsplit(b"\n", 1)[-1].startswith(b"=abort:"):
        bad.append("kernel_pid_cut.dump does not end in =abort:")
        return
    for cmd in ("procs", "ets", "memory", "summary"):
        r = run(bc, cmd, path, "--json", want_rc=1)
        if r.returncode == 1:
            doc = json.loads(r.stdout)
            if doc["complete"] or not any("ERL_CRASH_DUMP_BYTES" in m for m in doc["missing"]):
                bad.append(f"cut {cmd}: missing does not name the size limit: {doc['missing']}")
    ref = sections(path, "proc")
    doc = json.loads(run(bc, "procs", path, "--json", want_rc=1).stdout or '{"processes": []}')
    fields = {"heap_size": "Stack+heap", "message_queue_len": "Message queue length",
              "memory": "Memory", "reductions": "Reductions"}
    got = {p["pid"]: p for p in doc["processes"]}
    whole = nulls = 0
    for pid, s in ref.items():
        q = got.get(pid)
        if q is None:
            if "State" in s:
                bad.append(f"cut: {pid} missing")
            continue
        for f, k in fields.items():
            want = int(s[k]) if k in s else None
            if q[f] != want:
                bad.append(f"cut: {pid} {f} {q[f]!r}, the dump says {want!r}")
            nulls += want is None
        whole += "Memory" in s
    if set(got) - set(ref):
        bad.append(f"cut: processes not in the dump: {sorted(set(got) - set(ref))[:5]}")
    last = list(ref)[-1] if ref else None
    if not any(last and last in m and "cut" in m for m in doc.get("missing", [])):
        bad.append(f"cut: the last =proc section ({last}) is not named as cut: {doc.get('missing')}")
    print(f"kernel_pid_cut.dump: {len(ref)} =proc sections before the cut ({whole} whole), "
          f"{nulls} fields null in the cut one; exit 1 for procs, ets, memory, summary")

def main():
    bc, fx = sys.argv[1], sys.argv[2]
    fx = os.path.join(os.environ.get("BEAMCORE_FIXTURES", "/nonexistent"), fx)
    paths = [os.path.join(fx, n) for n in ("oom.dump", "kernel_pid.dump", "kernel_pid_cut.dump")]
    if not all(os.path.exists(p) for p in paths):
        print(f"SKIP: no death dumps in {fx} (testdata/capture.sh REL DIR --dump)")
        return 1 if os.environ.get("CI") == "true" else 77  # CI: no skips
    oom(bc, paths[0])
    kernel(bc, paths[1])
    cut(bc, paths[2])
    print(f"{len(bad)} problems")
    for b in bad[:40]:
        print("  " + b)
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main())
