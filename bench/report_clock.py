#!/usr/bin/env python3
"""bench/report_clock.py PAGE [RUNS]: beamcore report's page in headless
chromium (tests/cdp.py): the time from navigation to the first drawn view
(the page's own clock, performance.now() when it is ready), then sorting
every row by each sort key (the page's sort, ms each). One line per run:
  report_clock first_s=F sort_max_s=S sort_key=K rows=N problems=P"""
import os, sys, time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import cdp  # noqa: E402

page = sys.argv[1]
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 1
for _ in range(runs):
    b = cdp.Browser()
    try:
        b.open(page, timeout=600)
        for _ in range(600):
            if b.eval("document.body.dataset.ready") == "1":
                break
            time.sleep(0.05)
        first = b.eval("beamcoreReport.readyMs") / 1000
        b.eval("document.querySelector('button[data-view=processes]').click()")
        keys = b.eval("beamcoreReport.data.processes.sort_keys.map(k => k.name)")
        worst, worst_key = 0.0, None
        for k in keys:
            ms = b.eval(f"beamcoreReport.sort('{k}')")
            if ms / 1000 > worst:
                worst, worst_key = ms / 1000, k
        rows = b.eval("beamcoreReport.data.processes.count")
        print(f"report_clock first_s={first:.3f} sort_max_s={worst:.3f} sort_key={worst_key} "
              f"rows={rows} problems={len(b.problems())}", flush=True)
    finally:
        b.close()
