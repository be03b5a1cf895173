"""Shared by the end-to-end tests: find a fixture (a core and the ground truth
the live node wrote, under $BEAMCORE_FIXTURES) and run beamcore on it."""
import json, os, subprocess, sys

SKIP = 77

class Fixture:
    def __init__(self, argv, core_name=None):
        """argv: BEAMCORE FIXTURE [CORE]. Exits 77 (skip) when the fixture is absent."""
        self.beamcore = argv[1]
        self.dir = os.path.join(os.environ.get("BEAMCORE_FIXTURES", "/nonexistent"), argv[2])
        self.core = os.path.join(self.dir, core_name or argv[3])
        if not os.path.exists(self.core):
            print(f"SKIP: no fixture {self.core} (testdata/capture.sh makes it)")
            sys.exit(SKIP)
        self.name = os.path.basename(self.core)
        self.beam = open(os.path.join(self.dir, "beam.smp.path")).read().strip()

    def json_file(self, name):
        return json.load(open(os.path.join(self.dir, name)))

    @property
    def truth(self):
        return self.json_file("ground_truth.json")

    def run(self, cmd, *args, arg=None):
        """(exit code, stdout, stderr) of `beamcore CMD [ARG] CORE BEAM ARGS...`."""
        r = subprocess.run([self.beamcore, cmd, *([arg] if arg else []), self.core, self.beam,
                            *args], capture_output=True, text=True, timeout=300)
        return r.returncode, r.stdout, r.stderr

    def json(self, cmd, *args, arg=None, ok=(0,)):
        """beamcore CMD ... --json, parsed; a failed run ends the test with a message."""
        rc, out, err = self.run(cmd, *args, "--json", arg=arg)
        if rc not in ok:
            print(f"FAIL: beamcore {cmd} exited {rc}: {err.strip()}")
            sys.exit(1)
        return json.loads(out)

def idle_processes(gt):
    """Processes that slept through the capture: waiting, and not the one that
    wrote the ground truth."""
    return [p for p in gt["processes"] if p["status"] == "waiting" and p["pid"] != gt["collector"]]
