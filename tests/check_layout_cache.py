#!/usr/bin/env python3
"""The layout cache (src/dwarf/layoutcache.h), in a private XDG_CACHE_HOME:
the first command on a build writes $XDG_CACHE_HOME/beamcore/layout-BUILDID.pack,
the second reads it and no DWARF — shown without a clock: the second run's
beam.smp is a --strip-debug copy of the same build (same build-id, no DWARF
anywhere), and its JSON is byte for byte the first run's, while --no-cache on
that binary cannot give it. Stale (another beamcore's), corrupt, cut, another
build's and wrong (offsets that do not fit the core) cache files are rebuilt,
the output unchanged; --no-cache neither reads nor writes; an unwritable cache
directory is no error; concurrent first runs leave one whole cache file and no
temporary ones. threads (native unwinding, symbols from the DWARF) reads as
without the cache.
Usage: check_layout_cache.py BEAMCORE FIXTURE CORE (FIXTURE under $BEAMCORE_FIXTURES)."""
import glob, os, re, shutil, subprocess, sys, tempfile
from fixture import Fixture, SKIP, CI

bad = []


def expect(ok, what):
    print(f"{'ok  ' if ok else 'FAIL'} {what}")
    if not ok:
        bad.append(what)


def main():
    fx = Fixture(sys.argv)
    if not shutil.which("objcopy"):
        print(f"{'FAIL (CI=true)' if CI else 'SKIP'}: no objcopy")
        return SKIP
    tmp = tempfile.mkdtemp(prefix="bc-lcache-", dir=os.environ.get("TMPDIR", "/tmp"))
    try:
        return run(fx, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def run(fx, tmp):
    beam = os.path.join(tmp, "beam.smp")  # one path for every run: the JSON names it
    shutil.copy(fx.beam, beam)
    xdg = os.path.join(tmp, "xdg")
    env = {k: v for k, v in os.environ.items() if k != "DEBUGINFOD_URLS"}
    env["XDG_CACHE_HOME"] = xdg

    def bc(*args, xdg_home=None, cmd="procs"):
        e = dict(env, XDG_CACHE_HOME=xdg_home or xdg)
        r = subprocess.run([fx.beamcore, cmd, fx.core, beam, "--json", *args], env=e,
                           capture_output=True, timeout=300)
        return r.returncode, r.stdout, r.stderr.decode(errors="replace").strip()

    def cache_files():
        return sorted(glob.glob(os.path.join(xdg, "beamcore", "*")))

    rc, first, first_err = bc()
    expect(rc in (0, 1) and first, f"first run: exit {rc} {first_err[:200]}")
    files = cache_files()
    build_id = re.search(rb'"build_id": *"([0-9a-f]+)"', first)
    want_name = f"layout-{build_id.group(1).decode()}.pack" if build_id else "?"
    expect([os.path.basename(f) for f in files] == [want_name],
           f"first run writes {want_name}: {files}")
    if not files:
        return 1
    path = files[0]
    written = open(path, "rb").read()
    expect(b"\nCACHE(" in written and b"\nBUILD(" in written and
           re.search(rb"\nV\(G_ERTS_PROC, \d+, 0x[0-9a-f]+\)", written),
           "the cache holds its CACHE and BUILD lines, every global at its address (V)")

    rc, second, err = bc()
    expect(rc in (0, 1) and second == first, f"second run: the same JSON, byte for byte "
           f"({len(second)} bytes)")
    expect(open(path, "rb").read() == written, "second run: the cache as it was")

    # no DWARF in the second run: the same build with none left in it
    subprocess.run(["objcopy", "--strip-debug", fx.beam, beam], check=True)
    rc, stripped, err = bc()
    expect(rc in (0, 1) and stripped == first,
           "a --strip-debug beam.smp of the same build, from the cache: the first run's "
           f"JSON byte for byte (exit {rc} {err[:200]})")
    rc, nocache, err = bc("--no-cache")
    expect(nocache != first and (rc == 2 or b'"debug_file": "layout pack' in nocache),
           f"the same with --no-cache: no DWARF, so a layout pack or exit 2 (exit {rc} "
           f"{err[:120]})")
    shutil.copy(fx.beam, beam)

    # native unwinding and symbols still read the DWARF, later and only for them
    rc_t, threads, err = bc(cmd="threads")
    rc_n, threads_nc, _ = bc("--no-cache", cmd="threads")
    expect(rc_t == rc_n and threads == threads_nc,
           f"threads with the cache as with --no-cache (exit {rc_t}, {len(threads)} bytes)")

    # rebuilt, the output the same, the file as the DWARF writes it
    text = written.decode()
    wrong_pid = re.sub(r"^E\(P_ID, 0x([0-9a-f]+),", lambda m: f"E(P_ID, {hex(int(m.group(1), 16) + 8)},",
                       text, flags=re.M)
    cases = [
        ("stale (written by another beamcore)",
         re.sub(r'^(CACHE\(")[^"]+', r"\g<1>0-0", text, flags=re.M).encode()),
        ("corrupt (bytes)", b"\x7fELF\x00garbage\xff" * 50),
        ("cut in half", written[:len(written) // 2]),
        ("cut at a line's end", written[:written.rindex(b"\nE(", 0, len(written) // 2) + 1]),
        ("one entry's line left out", re.sub(r"^E\(P_REG,.*\n", "", text, flags=re.M).encode()),
        ("one entry's size changed (read by no check)",
         re.sub(r"^(E\(P_REG, 0x[0-9a-f]+, )(\d+)", lambda m: m.group(1) + str(int(m.group(2)) + 1),
                text, flags=re.M).encode()),
        ("empty", b""),
        ("another build's", re.sub(r'^BUILD\("[0-9a-f]', 'BUILD("x', text, flags=re.M).encode()),
        ("offsets that do not fit the core (Process.common.id moved)", wrong_pid.encode()),
    ]
    for what, content in cases:
        if content == written:
            expect(False, f"{what}: the test did not change the file")
            continue
        open(path, "wb").write(content)
        rc, out, err = bc()
        expect(rc in (0, 1) and out == first and open(path, "rb").read() == written,
               f"{what}: rebuilt, the same JSON (exit {rc} {err[:160]})")

    # --no-cache: nothing written
    shutil.rmtree(os.path.join(xdg, "beamcore"))
    rc, out, err = bc("--no-cache")
    expect(out == first and not os.path.exists(os.path.join(xdg, "beamcore")),
           f"--no-cache: the same JSON, no cache written ({cache_files()})")

    # an unwritable cache directory: no error, nothing said
    blocker = os.path.join(tmp, "not-a-dir")
    open(blocker, "w").close()
    rc, out, err = bc(xdg_home=blocker)
    expect(rc in (0, 1) and out == first and err == first_err,
           f"XDG_CACHE_HOME a file: the same JSON, no word of it (exit {rc} {err[:160]})")

    # concurrent first runs: one whole file, no temporary left
    procs = [subprocess.Popen([fx.beamcore, "procs", fx.core, beam, "--json"], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) for _ in range(4)]
    outs = [p.communicate(timeout=300)[0] for p in procs]
    expect(all(o == first for o in outs), "4 concurrent first runs: the same JSON each")
    expect([os.path.basename(f) for f in cache_files()] == [want_name] and
           open(path, "rb").read() == written,
           f"4 concurrent first runs: one whole cache file, no temporary ({cache_files()})")

    print(f"{fx.name}: layout cache, {len(bad)} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
