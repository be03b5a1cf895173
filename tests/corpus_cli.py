#!/usr/bin/env python3
"""Every command on every fuzz seed (testdata/fuzz: cut, tiny and distributed
dumps, synthetic and broken cores, the core that made the fuzzer crash) under
the build given: exit 0, 1 or 2 (check also 3; 64 when a core names no readable beam.smp
and none was given) within 20 s, one line on stderr for 2 and 64, and
--json output that is valid UTF-8 JSON whenever it exits 0 or 1 (report: its
page's data too).
Usage: corpus_cli.py BEAMCORE"""
import glob, json, os, subprocess, sys, tempfile

from page import page_data as read_page

PAGE = os.path.join(tempfile.mkdtemp(prefix="bc-corpus."), "report.html")

def page_data(path):
    """the report page's embedded JSON, or why it is not"""
    try:
        read_page(path)
    except ValueError as e:
        return str(e)
    return None

CMDS = [["summary"], ["procs"], ["ets"], ["memory"], ["stacks"], ["nodes"], ["threads"],
        ["binaries"], ["proc", "<0.0.0>"], ["tree"],
        # check: a rule of each kind (exit 3 when one fails)
        ["check", "--max", "message_queue_len=1000", "--max", "ets.memory=1MiB",
         "--max", "process_count=80%", "--max", "binary=1GiB"],
        ["diff", "{input}"],  # diff: the input twice
        # report: the page's data block is JSON with no '<' (it lives in a <script>)
        ["report", "-o", "{page}"]]

def main():
    bc = sys.argv[1]
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "fuzz")
    inputs = sorted(glob.glob(os.path.join(here, "fuzz_dump", "*")) +
                    glob.glob(os.path.join(here, "fuzz_core", "*")) +
                    glob.glob(os.path.join(here, "crashes", "*")))
    bad, runs = [], 0
    for path in inputs:
        for cmd in CMDS:
            args = [bc, *(path if w == "{input}" else PAGE if w == "{page}" else w for w in cmd),
                    path, "--json"]
            runs += 1
            try:
                r = subprocess.run(args, capture_output=True, timeout=20)
            except subprocess.TimeoutExpired:
                bad.append(f"{os.path.basename(path)} {cmd[0]}: no answer in 20 s")
                continue
            err = r.stderr.decode("utf-8", "replace")
            name = f"{os.path.basename(path)} {cmd[0]}"
            ok_rc = (0, 1, 2, 3, 64) if cmd[0] == "check" else (0, 1, 2, 64)
            if r.returncode not in ok_rc or "Sanitizer" in err or "runtime error" in err:
                bad.append(f"{name}: exit {r.returncode}: {err[-400:]}")
            elif r.returncode in (2, 64) and len(err.strip().splitlines()) != 1:
                bad.append(f"{name}: exit 2 with {len(err.strip().splitlines())} lines")
            elif r.returncode == 2:  # --json: the failure as JSON on stdout too
                try:
                    doc = json.loads(r.stdout.decode("utf-8"))
                    if not doc.get("error") or doc.get("exit") != 2:
                        bad.append(f"{name}: exit 2 without an error object: {doc}")
                except (UnicodeDecodeError, ValueError) as e:
                    bad.append(f"{name}: exit 2, stdout is not a JSON error: {e}")
            elif r.returncode in (0, 1, 3):
                try:
                    json.loads(r.stdout.decode("utf-8"))
                    why = page_data(PAGE) if cmd[0] == "report" else None
                    if why:
                        bad.append(f"{name}: the page: {why}")
                except (UnicodeDecodeError, ValueError) as e:
                    bad.append(f"{name}: output is not UTF-8 JSON: {e}")
    print(f"{len(inputs)} inputs x {len(CMDS)} commands = {runs} runs; {len(bad)} problems")
    for b in bad[:30]:
        print("  " + b)
    return 1 if bad or not inputs else 0

if __name__ == "__main__":
    sys.exit(main())
