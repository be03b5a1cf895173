#!/usr/bin/env python3
"""beamcore report in a real browser, headless: Debian's chromium over the
DevTools protocol (tests/cdp.py) or its firefox-esr over Marionette
(tests/marionette.py), on a real core or crash dump:
  report_browser.py BEAMCORE FIXTURE CORE SHOTDIR [chromium|firefox]
- the page loads with no request, console error, exception or CSP refusal;
- the numbers it shows equal the commands' JSON: the process count, the top
  10 by memory, erlang:memory(), the ETS tables' sizes, the cycles in waits;
- sorting by every key gives procs --sort's order, and the filter the TUI's
  rows (a substring of pid, label or current function, ASCII case folded);
- clicking a process row and a treemap cell opens that process's detail;
- each view is drawn (a screenshot of it holds more than a few colours), kept
  in SHOTDIR;
- on a dump: a copy whose names and binaries hold <script>, quotes and
  invalid UTF-8 shows them as text and runs none of them."""
import json, os, re, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(__file__))
from fixture import Fixture, SKIP  # noqa: E402
import cdp  # noqa: E402
import marionette  # noqa: E402
from label_text import short  # noqa: E402

fx = Fixture(sys.argv)
shots = sys.argv[4]
os.makedirs(shots, exist_ok=True)
browser = sys.argv[5] if len(sys.argv) > 5 else "chromium"
tag = os.path.basename(fx.dir) + "-" + fx.name + ("" if browser == "chromium" else "-" + browser)
fails = []

def check(ok, what):
    if not ok:
        fails.append(what)
        print("FAIL:", what)

if browser not in ("chromium", "firefox"):
    print(f"usage: unknown browser {browser!r}")
    sys.exit(64)
if not (cdp.chromium() if browser == "chromium" else marionette.firefox()):
    print(("FAIL (CI=true)" if SKIP == 1 else "SKIP") + f": no {browser} (testdata/deps.sh installs it)")
    sys.exit(SKIP)

def report(target_args, out):
    r = subprocess.run([fx.beamcore, "report", *target_args, "-o", out], capture_output=True,
                       text=True, timeout=600)
    if r.returncode not in (0, 1):
        print(f"FAIL: beamcore report exited {r.returncode}: {r.stderr.strip()}")
        sys.exit(1)
    return r

tmp = tempfile.mkdtemp(prefix="bc-report.")
page = os.path.join(tmp, "report.html")
target = fx.target + ([fx.beam] if fx.target[0] != "--pid" else [])
report(target, page)

procs = fx.json("procs", "--sort", "memory", ok=(0, 1))["processes"]
memory = fx.json("memory", ok=(0, 1))
ets = fx.json("ets", ok=(0, 1))
waits = fx.json("waits", ok=(0, 1))

b = cdp.Browser() if browser == "chromium" else marionette.Browser()
try:
    t0 = time.time()
    def open_page(path):
        """open path and wait for its first view (the data block is unpacked
        after load, DecompressionStream: at most 60 s)"""
        b.open(path)
        b.eval("""new Promise(r => { const t0 = performance.now(); const t = () =>
            document.body.dataset.ready || performance.now() - t0 > 60000 ? r(1) : setTimeout(t, 20); t(); })""")

    open_page(page)
    check(b.eval("document.body.dataset.ready") == "1", "the page says it is ready")
    print(f"loaded in {time.time() - t0:.2f} s")

    def go(view):
        b.eval(f"document.querySelector('button[data-view={view}]').click()")
        b.eval("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")

    def shot(view):
        data = b.screenshot(os.path.join(shots, f"{tag}-{view}.png"))
        small, step = b.small_png()
        n = cdp.png_colors(small, step=step)
        check(n > 8, f"{view}: drawn (a screenshot of {n} colours)")
        return data

    def click_at(selector):
        """a real mouse click in the middle of the first element selector matches"""
        r = b.eval(f"""(() => {{ const e = document.querySelector({json.dumps(selector)});
            if (!e) return null; e.scrollIntoView({{block: 'center'}});
            const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2,
            e.dataset.pid || null]; }})()""")
        if not r:
            return False
        b.click(r[0], r[1])
        b.eval("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        return r[2] or True

    # the overview: the findings and what is missing
    go("overview")
    shot("overview")
    page_missing = b.eval("Array.from(document.querySelectorAll('.bc-missing li')).map(e => e.textContent)")
    check(len(page_missing) >= len(memory["missing"]) and
          all(m in page_missing for m in memory["missing"]),
          "the model's missing list is shown")

    # processes: the count, the top 10 by memory, every sort key, the filter
    go("processes")
    count = b.eval("document.getElementById('proc-count').textContent")
    check(count.startswith(f"{len(procs):,} of {len(procs):,} processes"),
          f"process count: page {count!r}, procs --json {len(procs)}")
    b.eval("beamcoreReport.sort('memory')")
    b.eval("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    shown = b.eval("""Array.from(document.querySelectorAll('#proc-viewport .bc-row'))
        .sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top)).map(e => e.dataset.pid)""")
    want = [p["pid"] for p in procs[:10]]
    check(shown[:10] == want, f"top 10 by memory: page {shown[:10]}, procs {want}")
    mem_cells = b.eval("""Array.from(document.querySelectorAll('#proc-viewport .bc-row'))
        .sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top)).slice(0, 10)
        .map(e => e.querySelector('.c-memory').textContent)""")
    check(all(c == "?" if p["memory"] is None else c.endswith("B") for c, p in zip(mem_cells, procs)),
          "the top rows' memory is shown in bytes, unknown as ?")
    shot("processes")
    keys = b.eval("beamcoreReport.data.processes.sort_keys.map(k => k.name)")
    rules = [k for k in fx.json("procs", "--top", "1", ok=(0, 1)).get("sort_keys", [])] or None
    for key in keys:
        want = [p["pid"] for p in fx.json("procs", "--sort", key, ok=(0, 1))["processes"]]
        b.eval(f"beamcoreReport.sort({json.dumps(key)})")
        got = b.eval("beamcoreReport.shownPids()")
        check(got == want, f"--sort {key}: the page's order is procs --sort's"
              + ("" if got == want else f" (first difference at row "
                 f"{next(i for i, (x, y) in enumerate(zip(got + [None], want + [None])) if x != y)})"))
    # the TUI's filter: strcasestr over pid, label, current function
    b.eval("beamcoreReport.sort('memory')")
    labels = [p for p in procs if p.get("current_function")]
    needle = (labels[len(labels) // 2]["current_function"].split(":")[0][:5].upper()
              if labels else "0.")
    lower = lambda s: re.sub("[A-Z]", lambda m: m.group(0).lower(), s or "")
    # (the label as its column shows it: a term's short form)
    want = [p["pid"] for p in procs if lower(needle) in lower(p["pid"]) or
            lower(needle) in lower(short(p.get("label") or "")) or
            lower(needle) in lower(p.get("current_function"))]
    b.eval(f"beamcoreReport.filter({json.dumps(needle)})")
    time.sleep(0.3)
    got = b.eval("beamcoreReport.shownPids()")
    check(got == want, f"filter {needle!r}: {len(got)} rows, the TUI's rule {len(want)}")
    b.eval("beamcoreReport.filter('')")
    time.sleep(0.3)
    # a row opens its detail
    pid = click_at("#proc-viewport .bc-row")
    opened = b.eval("document.getElementById('proc-detail').dataset.pid || null")
    check(pid is not None and opened == pid, f"a row clicked ({pid}) opens its detail ({opened})")
    has_detail = b.eval("!!beamcoreReport.data.details[" + json.dumps(pid or "") + "]")
    check(has_detail, f"the top process by memory ({pid}) has its detail in the page")

    # memory: erlang:memory() as memory --json says, the treemap opens a process
    go("memory")
    for k, v in (memory.get("memory") or {}).items():
        got = b.eval(f"(() => {{ const e = document.querySelector('#memory-memory dd[data-key={k}]');"
                     " return e ? (e.dataset.value === undefined ? e.textContent : Number(e.dataset.value)) : 'absent'; })()")
        check(got == (v if v is not None else "?"), f"erlang:memory() {k}: page {got}, memory --json {v}")
    shot("memory")
    leaf = None
    for _ in range(12):  # down the subtrees to a process
        leaf = b.eval("(() => { const e = document.querySelector('#treemap .bc-cell[data-pid]:not(.group)');"
                      " return e ? e.dataset.pid : null; })()")
        if leaf:
            break
        if not click_at("#treemap .bc-cell.group"):
            break
    check(leaf is not None, "the treemap reaches a process")
    # garbage where proc estimated it: a process cell's hatch is its garbage_bytes
    hatched = b.eval("Array.from(document.querySelectorAll('#treemap .bc-cell[data-pid][data-garbage]:not(.group)'))"
                     ".map(e => [e.dataset.pid, Number(e.dataset.garbage)])") or []
    print(f"treemap: {len(hatched)} process cells hatched with garbage at the level reached")
    for gpid, g in hatched[:3]:
        want = fx.json("proc", arg=gpid, ok=(0, 1)).get("process", {}).get("garbage_bytes")
        check(g == want, f"treemap cell {gpid}: garbage {g}, proc --json garbage_bytes {want}")
    if leaf:
        sel = f"#treemap .bc-cell[data-pid=\"{leaf}\"]:not(.group)"
        clicked = click_at(sel)
        opened = b.eval("document.getElementById('proc-detail').dataset.pid || null")
        check(opened == clicked == leaf, f"a treemap cell clicked ({leaf}) opens its detail ({opened})")

    # stacks, waits (the cycles), the tree, the rest (ETS sizes)
    go("stacks")
    shot("stacks")
    go("waits")
    shot("waits")
    # the cycles, as waits --json lists them (each a list of pids): each drawn
    # as a ring of exactly its processes, in its order; a callee in one marked
    want_cycles = [c if isinstance(c, list) else c.get("pids", []) for c in waits.get("cycles") or []]
    drawn = b.eval("""Array.from(document.querySelectorAll('#wait-cycles svg')).map(s =>
        Array.from(s.querySelectorAll('text.cycle-node')).map(t => t.dataset.pid))""") or []
    check(drawn == [c[:24] for c in want_cycles[:20]],
          f"the waits' cycles are drawn: page {drawn}, waits --json {want_cycles[:20]}")
    in_cycles = {p for c in want_cycles for p in c}
    marked = set(b.eval("Array.from(document.querySelectorAll('#wait-graph text.cycle')).map(e => e.textContent.split(' ')[0])") or [])
    shown_callees = set(b.eval("Array.from(document.querySelectorAll('#wait-graph text:not([text-anchor])')).map(e => e.textContent.split(' ')[0])") or [])
    check(marked == in_cycles & shown_callees,
          f"callees in a cycle marked in the graph: page {sorted(marked)}, waits --json {sorted(in_cycles & shown_callees)}")
    if want_cycles:
        print(f"waits: {len(want_cycles)} cycles drawn and checked")
    go("tree")
    shot("tree")
    go("tables")
    shot("tables")
    rows = b.eval("""Array.from(document.querySelectorAll('#view-tables [data-key=ets] tbody tr')).map(tr =>
        Array.from(tr.children).map(td => td.dataset.value === undefined ? td.textContent : Number(td.dataset.value)))""")
    heads = b.eval("Array.from(document.querySelectorAll('#view-tables [data-key=ets] thead th')).map(e => e.textContent)")
    want_rows = ets.get("ets", [])[:500]
    check(len(rows) == len(want_rows), f"ETS: {len(rows)} rows, ets --json {len(want_rows)}")
    for r, w in zip(rows, want_rows):
        for col in ("size", "memory"):
            if col in heads:
                got = r[heads.index(col)]
                check(got == (w.get(col) if w.get(col) is not None else "?"),
                      f"ETS {w.get('name')} {col}: page {got}, ets --json {w.get(col)}")
    bad = b.problems()
    check(not bad, "no request, console error or CSP refusal: " + "; ".join(bad[:5]))

    # hostile strings (a dump: its names and binaries are text beamcore reads)
    if fx.name.endswith("crash_dump") or fx.name.endswith(".dump"):
        evil = "<script>window.bcPwned=1</script>\"&<img src=x onerror=window.bcPwned=2>"
        raw = open(fx.core, "rb").read()
        names = re.findall(rb"^Name: ([a-z_]+)$", raw, re.M)
        if names:
            hostile = os.path.join(tmp, "hostile.dump")
            victim = names[0]
            with open(hostile, "wb") as f:
                # (a quoted atom, as the VM prints one)
                f.write(raw.replace(b"Name: " + victim + b"\n",
                                    b"Name: '" + evil.encode() + b"'\n", 1))
            hpage = os.path.join(tmp, "hostile.html")
            report([hostile], hpage)
            b.events.clear()
            open_page(hpage)
            check(b.eval("document.body.dataset.ready") == "1", "the hostile page is ready")
            check(b.eval("window.bcPwned === undefined"), "no hostile script ran")
            check(b.eval("document.scripts.length") == 2, "the page holds its two scripts only")
            go("processes")
            b.eval("beamcoreReport.sort('name')")
            b.eval("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
            text = b.eval("document.getElementById('proc-viewport').textContent")
            check("<script>window.bcPwned=1</script>" in text, "the hostile name is shown as text")
            check(b.eval("document.querySelectorAll('img').length") == 0, "no element from the name")
            bad = b.problems()
            check(not bad, "hostile page: no request or error: " + "; ".join(bad[:5]))
finally:
    b.close()
    subprocess.run(["rm", "-rf", tmp])

print(f"{'FAIL' if fails else 'ok'}: report of {tag} in {browser} ({len(fails)} failed)")
sys.exit(1 if fails else 0)
