#!/usr/bin/env python3
"""A core of a stock beam.smp that exports no VM global (Debian forky's OTP 29),
read through the routes of its build (docs/layout-packs.md): the compiled-in
pack and the same pack with its routes as --layout FILE give the same
processes; routes moved to a neighbour's address (scheduler data, the node,
the process table) are refused in one line by the core's own checks, as are
another release's pack and a pack with no routes for this build, naming the
ways to full fidelity.
Usage: check_routes.py BEAMCORE FIXTURE CORE (FIXTURE under $BEAMCORE_FIXTURES)."""
import json, os, subprocess, sys, tempfile
from fixture import Fixture, report

PACKS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "dwarf")


def main():
    fx = Fixture(sys.argv)
    bad = []
    want = fx.json("procs")
    if not want["target"]["debug_file"].endswith("with routes to this build's globals"):
        bad.append(f"not read through routes: {want['target']['debug_file']}")
    pack = open(os.path.join(PACKS, "pack-29.1.1-jit.def")).read()
    routes = open(os.path.join(PACKS, "routes-29.1.1-jit-debian.def")).read()
    with tempfile.TemporaryDirectory(prefix="beamcore-routes-") as tmp:
        def pack_file(name, text):
            path = os.path.join(tmp, name)
            with open(path, "w") as f:
                f.write(text)
            return path

        def refused(what, path, needle):
            rc, out, err = fx.run("procs", "--layout", path)
            lines = err.strip().splitlines()
            if rc != 2 or len(lines) != 1 or needle not in err:
                bad.append(f"{what}: exit {rc}, {err.strip()[:300]!r} (wanted exit 2 and {needle!r})")
            else:
                print(f"{what}: refused: ...{err.strip()[-120:]}")

        rc, out, err = fx.run("procs", "--json", "--layout", pack_file("ok.def", pack + routes))
        if rc != 0 or json.loads(out)["processes"] != want["processes"]:
            bad.append(f"--layout with the routes: exit {rc} {err.strip()[:200]}")
        # each route moved to the address of the global beside it
        for line, moved in [("V(G_SCHED_DATA, 8, 0xc177a8)", "V(G_SCHED_DATA, 8, 0xc177a0)"),
                            ("V(G_THIS_NODE, 8, 0xc4e8a0)", "V(G_THIS_NODE, 8, 0xc4e8a8)"),
                            ("V(G_ERTS_PROC, 320, 0xc17ec0)", "V(G_ERTS_PROC, 320, 0xc386c0)")]:
            if line not in routes:
                bad.append(f"no {line} in the routes")
                continue
            refused(f"{line} moved", pack_file("moved.def", pack + routes.replace(line, moved)),
                    "does not fit this core")
        refused("a pack with no routes for this build", os.path.join(PACKS, "pack-29.1.1-jit.def"),
                "DEBUGINFOD_URLS")
        p27 = open(os.path.join(PACKS, "pack-27.3.4.1-jit.def")).read()
        refused("another release's pack with these routes", pack_file("p27.def", p27 + routes),
                "is for OTP 27")
    print(f"{fx.name}: {len(want['processes'])} processes through the routes")
    return report(bad)


if __name__ == "__main__":
    sys.exit(main())
