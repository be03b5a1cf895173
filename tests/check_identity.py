#!/usr/bin/env python3
"""proc_lib's identity of every process: `procs --json`'s proc_lib_initial_call
and ancestors against what the live node wrote (ground_truth.json: the
'$initial_call' as "m:f/a" or null, the '$ancestors' list of names and pids or
null), exact for every process in both, on a core or an erl_crash.dump.

A process the core or dump shows exiting (its dictionary is gone: process_info
answers undefined) or, in a dump, garbage collecting (the dump writes no deep
sections for it) may have null for both; every other must match. Also: the
text table shows the proc_lib initial call for a proc_lib:init_p/5 process,
and stacks --json's processes carry the same proc_lib_initial_call.
Usage: check_identity.py BEAMCORE FIXTURE CORE (FIXTURE under $BEAMCORE_FIXTURES).
Exit 0 pass, 1 fail, 77 skip."""
import sys
from fixture import Fixture, report

fx = Fixture(sys.argv)
gt = fx.truth
if not gt["processes"] or "proc_lib_initial_call" not in gt["processes"][0]:
    print("FAIL: the ground truth has no proc_lib_initial_call/ancestors: recapture the fixture "
          "with the current testdata/beamcore_scenario.erl")
    sys.exit(1)
doc = fx.json("procs")
got = {p["pid"]: p for p in doc["processes"]}
bad, compared, with_ic, with_anc, unseen = [], 0, 0, 0, 0
for p in gt["processes"]:
    q = got.get(p["pid"])
    if q is None:
        continue
    want = (p["proc_lib_initial_call"], p["ancestors"])
    have = (q["proc_lib_initial_call"], q["ancestors"])
    gone = q["status"] in ("exiting", "free") or \
        (fx.name.endswith(".dump") and q["status"] == "garbage_collecting")
    if have == (None, None) and gone:
        unseen += 1
        continue
    compared += 1
    with_ic += want[0] is not None
    with_anc += want[1] is not None
    if have != want:
        name = p.get("registered_name") or p.get("initial_call")
        bad.append(f"{p['pid']} ({name}): live {want}, beamcore {have}")
# OTP 27's proc_lib:set_label/1 ('$process_label', the ground truth's
# process_label, as io_lib:print prints it): the label of an unregistered process
labelled = [p for p in gt["processes"] if p.get("process_label") and not p["registered_name"]
            and p["pid"] in got]
for p in labelled:
    q = got[p["pid"]]
    if (q.get("label"), q.get("label_source")) != (p["process_label"], "process_label"):
        bad.append(f"{p['pid']}: label {q.get('label')!r} ({q.get('label_source')}), live "
                   f"'$process_label' {p['process_label']!r}")
print(f"'$process_label': {len(labelled)} processes labelled (OTP 27+ ground truth with "
      f"process_label; none before)")
if compared < len(gt["processes"]) * 0.9:
    bad.append(f"only {compared} of {len(gt['processes'])} live processes compared")
if with_ic == 0 or with_anc == 0:
    bad.append("no process with a proc_lib initial call or ancestors: nothing was tested")

# stacks --json's processes carry the same (a group splits by who they are)
st = {p["pid"]: p for p in fx.json("stacks")["processes"]}
for pid, q in got.items():
    if pid in st and st[pid].get("proc_lib_initial_call", "absent") != q["proc_lib_initial_call"]:
        bad.append(f"{pid}: stacks says proc_lib_initial_call "
                   f"{st[pid].get('proc_lib_initial_call', 'absent')!r}, procs "
                   f"{q['proc_lib_initial_call']!r}")
        break

# the LABEL column: the proc_lib initial call of an unnamed proc_lib:init_p/5
# process that no label rule names (docs/labels.md; check_real.py checks those)
rc, out, err = fx.run("procs")
shown = {}
for line in out.splitlines():
    f = line.split()
    if len(f) > 1 and f[0].startswith("<"):
        shown[f[0]] = f[1]
named = 0
for p in gt["processes"]:
    q = got.get(p["pid"])
    if not q or q["registered_name"] or q["initial_call"] != "proc_lib:init_p/5" \
            or not q["proc_lib_initial_call"] or p["pid"] not in shown \
            or q.get("label_source") not in ("proc_lib_initial_call", None):
        continue
    named += 1
    if shown[p["pid"]] != q["proc_lib_initial_call"]:
        bad.append(f"{p['pid']}: the table shows {shown[p['pid']]!r}, not its proc_lib initial "
                   f"call {q['proc_lib_initial_call']!r}")

print(f"{fx.name}: {compared} processes compared ({with_ic} with '$initial_call', {with_anc} "
      f"with '$ancestors'), {unseen} exiting/unseen, {named} unnamed proc_lib processes shown "
      f"by their proc_lib initial call")
sys.exit(report(bad))
