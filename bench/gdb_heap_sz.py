# What operators do today without beamcore: walk the process table of a
# beam.smp core in gdb and read one field (heap_sz) of every process.
#
#   BENCH_GDB_PROCESSES=N gdb -batch -nx -x bench/gdb_heap_sz.py BEAM CORE
#
# erts_proc.r.o.tab is an array of erts_proc.r.o.max slots (ethr_atomic_t);
# .counter holds a Process* as an integer, 0 or erts_proc.r.o.invalid_element
# when the slot is empty. Stops after N processes (BENCH_GDB_PROCESSES, 0 or
# unset = all). Prints one "bench_gdb key=value ..." line for procs-200k.sh.
import os
import time

import gdb

limit = int(os.environ.get("BENCH_GDB_PROCESSES", "0") or 0)

t0 = time.monotonic()
o = gdb.parse_and_eval("erts_proc")["r"]["o"]
tab = o["tab"]
max_slots = int(o["max"])
invalid = int(o["invalid_element"].cast(gdb.lookup_type("long")))
proc_ptr = gdb.lookup_type("Process").pointer()

procs = 0
slots = 0
heap_words = 0
for i in range(max_slots):
    slots += 1
    p = int(tab[i]["counter"])
    if p == 0 or p == invalid:
        continue
    heap_words += int(gdb.Value(p).cast(proc_ptr)["heap_sz"])
    procs += 1
    if limit and procs >= limit:
        break
t1 = time.monotonic()

print("bench_gdb procs=%d slots=%d max=%d heap_words=%d walk_s=%.3f complete=%d"
      % (procs, slots, max_slots, heap_words, t1 - t0, int(slots == max_slots)))
