#!/usr/bin/env python3
"""The bash completion and the man page against the commands' option tables
(beamcore --dump-options: each command and its options, from the same tables
the parser and the help read).

- docs/beamcore.bash is made from the tables: this script makes it and fails
  when the committed file differs (--write rewrites it).
- docs/beamcore.1: every command has its entry under COMMANDS, in the order
  beamcore --help lists them; an entry's "Options:" names exactly the
  command's own options (the target's --pid, --no-stop, --debug-file and
  --sysroot are every command's: OPTIONS says so), sample's paragraph names
  each of its options; OPTIONS has an entry for every option of the commands
  that share them.
Usage: check_options.py BEAMCORE [--write]"""
import os, re, subprocess, sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
BASH = os.path.join(ROOT, "docs", "beamcore.bash")
MAN = os.path.join(ROOT, "docs", "beamcore.1")


def tables(bc):
    """[(command, [option dicts])] in the registry's order."""
    out = subprocess.run([bc, "--dump-options"], capture_output=True, text=True, check=True).stdout
    cmds = []
    for line in out.splitlines():
        w = line.split()
        if w[0] == "command":
            cmds.append((w[1], []))
        else:
            name, short, arg, complete, values, store = w[1:7]
            cmds[-1][1].append({"name": name[2:], "short": None if short == "-" else short,
                                "arg": None if arg == "-" else arg,
                                "complete": None if complete == "-" else complete,
                                "values": [] if values == "-" else values.split(","),
                                "store": store})
    return cmds


def completion(cmds):
    """docs/beamcore.bash, made from the tables."""
    names = " ".join([c for c, _ in cmds] + ["help"])
    lines = ["# bash completion for beamcore(1); made from the commands' option tables by",
             "# tests/check_options.py --write (beamcore --dump-options): do not edit",
             "_beamcore()", "{", "\tlocal cur prev cmd i opts",
             "\tcur=${COMP_WORDS[COMP_CWORD]}", "\tprev=${COMP_WORDS[COMP_CWORD-1]}",
             f'\tlocal cmds="{names}"', "\tcmd=",
             "\tfor ((i = 1; i < COMP_CWORD; i++)); do",
             '\t\tcase " $cmds " in *" ${COMP_WORDS[i]} "*) cmd=${COMP_WORDS[i]}; break;; esac',
             "\tdone"]
    # what follows an option that takes a value: the same after every command
    # that has it (*:--pid), else said per command (--weight: stacks', sample's)
    by_flag = {}
    for cmd, opts in cmds:
        for o in opts:
            if not o["arg"]:
                continue
            if o["values"]:
                act = f'COMPREPLY=($(compgen -W "{" ".join(o["values"])}" -- "$cur"))'
            elif o["complete"] == "file":
                act = 'COMPREPLY=($(compgen -f -- "$cur"))'
            elif o["complete"] == "dir":
                act = 'COMPREPLY=($(compgen -d -- "$cur"))'
            elif o["complete"] == "pid":
                act = "COMPREPLY=($(compgen -W \"$(pgrep -d ' ' '^beam\\.' 2>/dev/null)\" -- \"$cur\"))"
            else:
                act = ""
            for flag in ["--" + o["name"]] + ([o["short"]] if o["short"] else []):
                by_flag.setdefault(flag, {}).setdefault(act, []).append(cmd)
    actions = {}
    for flag, acts in by_flag.items():
        for act, cs in acts.items():
            pats = [f"*:{flag}"] if len(acts) == 1 else \
                [f"{c}:{flag}" for c in cs] + ([f":{flag}"] if "summary" in cs else [])
            actions.setdefault(act, []).extend(pats)
    lines.append("\tcase $cmd:$prev in")
    for act, pats in actions.items():
        lines.append(f"\t{'|'.join(pats)})")
        lines.append(f"\t\t{act + '; ' if act else ''}return;;")
    lines.append("\tesac")
    lines += ['\tif [[ $cur == -* ]]; then', "\t\tcase $cmd in"]
    for cmd, opts in cmds:
        flags = []
        for o in opts:
            flags.append("--" + o["name"])
            if o["short"]:
                flags.append(o["short"])
        pat = f"{cmd}|''" if cmd == "summary" else cmd
        lines.append(f'\t\t{pat}) opts="{" ".join(flags + ["--help"])}";;')
    lines += ['\t\t*) opts="--help";;', "\t\tesac", '\t\tCOMPREPLY=($(compgen -W "$opts" -- "$cur"))',
              "\t\treturn", "\tfi", "\tif [[ -z $cmd ]]; then",
              '\t\tCOMPREPLY=($(compgen -W "$cmds" -- "$cur") $(compgen -f -- "$cur"))',
              "\telif [[ $cmd == help ]]; then", '\t\tCOMPREPLY=($(compgen -W "$cmds" -- "$cur"))',
              "\telse", '\t\tCOMPREPLY=($(compgen -f -- "$cur"))', "\tfi", "}",
              "complete -F _beamcore beamcore"]
    return "\n".join(lines) + "\n"


def man_words(text):
    """The --options a piece of the man page names (roff escapes undone)."""
    text = text.replace("\\-", "-").replace("\\fB", "").replace("\\fR", "").replace("\\fI", "")
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*|-o\b)", text))


def check_man(cmds):
    bad = []
    man = open(MAN, encoding="utf-8").read()
    sec = lambda name: man.split(f".SH {name}\n", 1)[1].split("\n.SH ", 1)[0]
    entries = re.split(r"\n\.TP\n", "\n" + sec("COMMANDS"))[1:]
    heads = [re.match(r"\.BI? \"?(\S+?)\"?[ \n]", e) for e in entries]
    listed = [h.group(1) for h in heads if h]
    want = [c for c, _ in cmds] + ["help"]
    if listed != want:
        bad.append(f"COMMANDS lists {listed}, the tables {want}")
    for (cmd, opts), entry in zip(cmds, entries):
        own = {"--" + o["name"] for o in opts if o["store"] == "own"}
        if cmd in ("export", "report"):  # -o FILE: the man page names it as it is typed
            own = own - {"--output"} | {"-o"}
        m = re.search(r"Options:(.*?)\.(\s|$)", entry, re.S)
        named = man_words(m.group(1)) if m else man_words(entry)
        if (named != own) if m else not own <= named:
            bad.append(f"COMMANDS {cmd}: names {sorted(named)}, its table {sorted(own)}")
    shared = {"--" + o["name"] for c, opts in cmds if c != "sample" for o in opts}
    documented = set()
    for e in re.split(r"\n\.TP\n", "\n" + sec("OPTIONS"))[1:]:
        documented |= man_words(e.split("\n", 1)[0])
    missing = shared - documented
    if missing:
        bad.append(f"OPTIONS has no entry for {sorted(missing)}")
    return bad


def main():
    bc = sys.argv[1]
    cmds = tables(bc)
    made = completion(cmds)
    if "--write" in sys.argv:
        open(BASH, "w", encoding="utf-8").write(made)
    bad = []
    if open(BASH, encoding="utf-8").read() != made:
        bad.append("docs/beamcore.bash is not what the tables make: "
                   "python3 tests/check_options.py BEAMCORE --write")
    bad += check_man(cmds)
    for b in bad:
        print("FAIL", b)
    print("all ok" if not bad else f"{len(bad)} failures")
    sys.exit(1 if bad else 0)


main()
