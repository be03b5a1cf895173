# What operators do today without beamcore: walk the process table of a
# beam.smp core in gdb and read one field (heap_sz) of every process.
#
#   BENCH_GDB_PROCESSES=N gdb -batch -nx -x bench/gdb_heap_sz.py BEAM CORE
#
# erts_proc.r.o.tab is an array of erts_proc.r.o.max slots (ethr_atomic_t);
# .counter holds a Process* as an integer, 0 or erts_proc.r.o.invalid_element
# when the slot is empty. Stops after N processes (BENCH_GDB_PROCESSES, 0 or
# unset = all). Prints one "bench_gdb key=value ..." line for procs-200k.sh,
# with the time spent on empty slots and on process slots kept apart: the
# table has erts_proc.r.o.max slots however few processes there are (1M with
# +P 1048576), and the first processes are not spread like the rest (ERTS
# does not fill the table in order), so a partial walk would be extrapolated
# per kind of slot (procs-200k.sh runs this one over the whole table).
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
empty_s = 0.0  # time on empty slots
proc_s = 0.0   # time on slots holding a process (slot + heap_sz)
t_setup = time.monotonic()
for i in range(max_slots):
    ts = time.monotonic()
    slots += 1
    p = int(tab[i]["counter"])
    if p == 0 or p == invalid:
        empty_s += time.monotonic() - ts
        continue
    heap_words += int(gdb.Value(p).cast(proc_ptr)["heap_sz"])
    procs += 1
    proc_s += time.monotonic() - ts
    if limit and procs >= limit:
        break
t1 = time.monotonic()

print("bench_gdb procs=%d slots=%d max=%d heap_words=%d setup_s=%.3f walk_s=%.3f"
      " empty_s=%.3f proc_s=%.3f complete=%d"
      % (procs, slots, max_slots, heap_words, t_setup - t0, t1 - t0,
         empty_s, proc_s, int(slots == max_slots)))
