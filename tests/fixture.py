"""Shared by the end-to-end tests: find a fixture (a core and the ground truth
the live node wrote, under $BEAMCORE_FIXTURES) and run beamcore on it."""
import glob, json, os, subprocess, sys

# Under CI=true a fixture that could not be made is a failure, not a skip: the
# test command must never pass with its end-to-end tests skipped.
CI = os.environ.get("CI") == "true"
SKIP = 1 if CI else 77

class Fixture:
    def __init__(self, argv, core_name=None):
        """argv: BEAMCORE FIXTURE [CORE]. Exits 77 (skip) when the fixture is absent
        (1 under CI=true). CORE "live": the running node capture.sh --live left
        in FIXTURE, read with --pid (tests/live_node.py)."""
        self.beamcore = argv[1]
        self.dir = os.path.join(os.environ.get("BEAMCORE_FIXTURES", "/nonexistent"), argv[2])
        self.core = os.path.join(self.dir, core_name or argv[3])
        self.target = [self.core]
        if (core_name or argv[3]) == "live":
            pid = open(os.path.join(self.dir, "pid")).read().strip()
            self.target = ["--pid", pid]
            self.core = f"/proc/{pid}"
        if not os.path.exists(self.core):
            print(f"{'FAIL (CI=true)' if CI else 'SKIP'}: no fixture {self.core} "
                  "(testdata/capture.sh makes it)")
            sys.exit(SKIP)
        self.name = os.path.basename(self.core)
        self.beam = open(os.path.join(self.dir, "beam.smp.path")).read().strip()
        # a node run in another machine's root (capture.sh --arm64): its libraries there
        sysroot = os.path.join(self.dir, "sysroot")
        if os.path.exists(sysroot) and self.target[0] != "--pid":
            self.target += ["--sysroot", open(sysroot).read().strip()]

    def json_file(self, name):
        return json.load(open(os.path.join(self.dir, name)))

    @property
    def truth(self):
        return self.json_file("ground_truth.json")

    def run(self, cmd, *args, arg=None):
        """(exit code, stdout, stderr) of `beamcore CMD [ARG] CORE BEAM ARGS...`."""
        target = self.target + ([self.beam] if self.target[0] != "--pid" else [])
        r = subprocess.run([self.beamcore, cmd, *([arg] if arg else []), *target,
                            *args], capture_output=True, text=True, timeout=300)
        return r.returncode, r.stdout, r.stderr

    def json(self, cmd, *args, arg=None, ok=(0,)):
        """beamcore CMD ... --json, parsed; a failed run ends the test with a message."""
        rc, out, err = self.run(cmd, *args, "--json", arg=arg)
        if rc not in ok:
            print(f"FAIL: beamcore {cmd} exited {rc}: {err.strip()}")
            sys.exit(1)
        return json.loads(out)

def every_core():
    """($BEAMCORE_FIXTURES, every core file under it, sorted); exits 77 (skip)
    when there is none (1 under CI=true)."""
    root = os.environ.get("BEAMCORE_FIXTURES", "/nonexistent")
    cores = sorted(glob.glob(os.path.join(root, "*", "core*")))
    if not cores:
        print(f"{'FAIL (CI=true)' if CI else 'SKIP'}: no core fixtures under {root}")
        sys.exit(SKIP)
    return root, cores

def report(bad, limit=30):
    """Print the first mismatches and PASS/FAIL; the exit code."""
    for b in bad[:limit]:
        print("  " + b)
    if len(bad) > limit:
        print(f"  ... and {len(bad) - limit} more")
    print("FAIL" if bad else "PASS")
    return 1 if bad else 0

def idle_processes(gt):
    """Processes that slept through the capture: waiting, and not the one that
    wrote the ground truth."""
    return [p for p in gt["processes"] if p["status"] == "waiting" and p["pid"] != gt["collector"]]

# erlang:memory() figures the writer of memory.json cannot disturb (exact), and
# those its own result and file buffers move a little (within 1%).
EXACT_MEM = ["atom", "atom_used", "code", "ets"]
CLOSE_MEM = ["total", "processes", "processes_used", "system", "binary"]

# A real system's periodic processes touch ETS between memory.json and the
# snapshot: erlang:memory(ets) moved by 24 bytes in 1 of 6 RabbitMQ captures
# (its tables, compared one by one by compare_ets.py, did not).
PERIODIC_ETS_SLACK = 1024

def close(a, b, rel=0.01, absolute=262144):
    return abs(a - b) <= max(rel * max(a, b), absolute if absolute else 0)

def memory_mismatches(doc, live, periodic=False, running=False):
    """`beamcore memory --json` (doc) against memory.json (live): a report of the
    deviations, and the mismatches. Allocator instances: blocks and carriers
    within 1% or 256 KiB (the writer's own heap); mbcs figures include the pool.
    periodic: a real system's node (its ground truth lists "periodic"
    processes, which run on their own timers): between memory.json and the
    snapshot a carrier size may move by one carrier more (1 MiB; the Elixir
    dump fixture's eheap_alloc[2] once gained 512 KiB), and erlang:memory(ets)
    by up to PERIODIC_ETS_SLACK bytes.
    running: a node read with --pid lives on between memory.json and the read
    (tens of seconds under a loaded test run): an allocator may hand a whole
    empty carrier back meanwhile (fix_alloc[2] once lost 4 MiB), so carrier
    sizes are reported there, not failed; blocks stay compared.
    An instance's mbcs figures that moved while its type's sums over all
    instances held (a pooled carrier fetched by another instance) are reported,
    not failed; so is an instance's mbcs carriers size that moved by at most
    one carrier (8 MiB) while its blocks held."""
    bad, report, moved = [], [], []
    for k in EXACT_MEM + CLOSE_MEM:
        got, want = doc["memory"][k], live["memory"][k]
        if k in EXACT_MEM:
            ok = got == want or (periodic and k == "ets" and got is not None
                                 and abs(got - want) <= PERIODIC_ETS_SLACK)
        else:
            ok = got is not None and close(got, want, absolute=0)
        report.append(f"{k} {100 * (got - want) / want:+.3f}%" if got is not None else f"{k} null")
        if not ok:
            bad.append(f"memory {k}: live {want}, beamcore {got}")
    want_allocs = {(a["allocator"], a["instance"]): a for a in live["allocators"]}
    got_allocs = {(a["allocator"], a["instance"]): a for a in doc["allocators"]}
    if set(want_allocs) != set(got_allocs):
        bad.append(f"allocator instances: live {sorted(set(want_allocs) - set(got_allocs))} "
                   f"missing, {sorted(set(got_allocs) - set(want_allocs))} extra")
    mbcs = {}  # (allocator, field) -> [live sum, beamcore sum, its instances' mismatches]
    for key, w in want_allocs.items():
        g = got_allocs.get(key)
        if not g:
            continue
        for f, want in [("mbcs_blocks_size", w["mbcs_blocks_size"] + w["pool_blocks_size"]),
                        ("mbcs_carriers_size", w["mbcs_carriers_size"] + w["pool_carriers_size"]),
                        ("sbcs_blocks_size", w["sbcs_blocks_size"]),
                        ("sbcs_carriers_size", w["sbcs_carriers_size"])]:
            slack = 262144 + (1 << 20 if periodic and f.endswith("carriers_size") else 0)
            t = mbcs.setdefault((key[0], f), [0, 0, []]) if f.startswith("mbcs") else None
            if t:
                t[0] += want
                t[1] += g[f]
            if not close(g[f], want, absolute=slack):
                msg = f"{key[0]}[{key[1]}] {f}: live {want}, beamcore {g[f]}"
                if running and f.endswith("carriers_size"):
                    moved.append(msg)
                elif t:
                    t[2].append((key, want, g[f], msg))
                else:
                    bad.append(msg)
    blocks_moved = {k for (_, f), t in mbcs.items() if f == "mbcs_blocks_size" for k, *_ in t[2]}
    # A carrier in the pool goes to whichever instance fetches it first: one
    # moved between memory.json and the core (CI: a 4 MiB binary_alloc carrier
    # from [1] to [2]). The type's sums over its instances did not move.
    # An instance near full makes a new carrier for a heap a GC asks for and
    # frees the old heap's blocks: its carriers grew by one carrier (at most
    # the largest, 8 MiB) while its blocks held (CI: eheap_alloc[1] of the
    # otp25-dist-dump fixture, 98% used, +8 MiB between memory.json and the
    # dump). The blocks are still compared.
    for (a, f), (want, got, msgs) in mbcs.items():
        if not msgs:
            continue
        other = mbcs[(a, "mbcs_carriers_size" if f == "mbcs_blocks_size" else "mbcs_blocks_size")]
        if close(got, want, absolute=262144) and close(other[1], other[0], absolute=262144):
            moved.extend(m + f" (all {a}: live {want}, beamcore {got})" for *_, m in msgs)
            continue
        for key, w, g, m in msgs:
            if (f == "mbcs_carriers_size" and key not in blocks_moved and
                    abs(g - w) <= (8 << 20) + 262144):
                moved.append(m + " (one carrier made or freed, its blocks held)")
            else:
                bad.append(m)
    report.append(f"{len(want_allocs)} allocator instances" +
                  (f" ({len(moved)} sizes moved between memory.json and the snapshot: "
                   f"{moved[:4]})" if moved else ""))
    return report, bad

# Answering the collector's process_info request costs the target one reduction,
# charged after it has answered: an idle process's counter in a core or dump is
# the live value + 1. Processes that handle signals on behalf of others (the
# dirty process signal handlers) keep working while the ground truth is written.
SIGNAL_HELPERS = {"erts_dirty_process_signal_handler:start/0"}

def reductions_ok(p, got):
    """Does beamcore's reductions (got) agree with live process p's?"""
    if not isinstance(got, int):
        return False
    if p.get("initial_call") in SIGNAL_HELPERS:
        return got >= p["reductions"]
    return got == p["reductions"] + 1
