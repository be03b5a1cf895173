#!/usr/bin/env python3
"""Trim a real erl_crash.dump to a small fuzz seed: every section kind kept,
at most KEEP of each kind (a process's sections for the first KEEP processes),
lines cut to 512 bytes, atoms/literals/funs/modules to a handful.
  trim_dump.py IN OUT [KEEP]"""
import sys

src, dst = sys.argv[1], sys.argv[2]
keep = int(sys.argv[3]) if len(sys.argv) > 3 else 6
data = open(src, "rb").read()
sections, cur = [], None
for line in data.split(b"\n"):
    if line.startswith(b"=") and line[1:2].isalpha():
        cur = [line]
        sections.append(cur)
    elif cur is not None:
        cur.append(line)
pids, count, out = [], {}, []
for s in sections:
    head = s[0]
    tag, _, arg = head.partition(b":")
    if tag.startswith(b"=proc"):
        if tag == b"=proc" and len(pids) < keep:
            pids.append(arg)
        if arg not in pids:
            continue
    else:
        count[tag] = count.get(tag, 0) + 1
        if count[tag] > keep and tag not in (b"=end", b"=memory", b"=erl_crash_dump"):
            continue
    body = [l[:512] for l in s[1:]]
    if tag in (b"=atoms", b"=literals", b"=persistent_terms", b"=loaded_modules") and len(body) > 24:
        body = body[:24]
    if len(body) > 64:
        body = body[:64]
    out.append(b"\n".join([head] + body))
open(dst, "wb").write(b"\n".join(out).rstrip(b"\n") + b"\n")
