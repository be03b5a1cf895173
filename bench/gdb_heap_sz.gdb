# What operators do today without beamcore, the way the etp-* macros of
# erts/etc/unix/etp-commands do it: a gdb command-language loop over the
# process table of a beam.smp core, reading heap_sz of every process.
#
#   gdb -batch -nx -ex 'set $lim = N' -x bench/gdb_heap_sz.gdb BEAM CORE
#
# erts_proc.r.o.tab is an array of erts_proc.r.o.max slots (ethr_atomic_t);
# .counter holds a Process* as an integer, 0 or erts_proc.r.o.invalid_element
# when the slot is empty. $lim = 0: every process; $lim = N: stop after the
# first N (procs-200k.sh then extrapolates). Prints "bench_gdb ..." lines.
#
# Pass 2 walks the same slots again with $skip = 1: the same commands, but
# the process branch is never taken. Its time is the cost of the slots alone,
# which a partial walk needs for its extrapolation: the table has max slots
# (1M with +P 1048576) however many processes, and the first processes sit
# denser than the average (ERTS does not fill the table in order).
# Timestamps come from `shell date` (one fork per mark).
set $max = erts_proc.r.o.max
set $inv = (long) erts_proc.r.o.invalid_element
# look `Process` up now (gdb expands its DWARF unit: seconds, once)
set $p = (Process *) 0
shell date '+bench_gdb_t setup %s.%N'

set $skip = 0
set $i = 0
set $n = 0
set $sum = 0
while $i < $max && ($lim == 0 || $n < $lim)
  set $p = erts_proc.r.o.tab[$i].counter
  if $p != 0 && $p != $inv && $skip == 0
    set $sum = $sum + ((Process *) $p)->heap_sz
    set $n = $n + 1
  end
  set $i = $i + 1
end
shell date '+bench_gdb_t walk %s.%N'
printf "bench_gdb procs=%d slots=%d max=%d heap_words=%d\n", $n, $i, $max, $sum

if $lim != 0
  set $slots = $i
  set $skip = 1
  set $i = 0
  set $n = 0
  while $i < $slots && ($lim == 0 || $n < $lim)
    set $p = erts_proc.r.o.tab[$i].counter
    if $p != 0 && $p != $inv && $skip == 0
      set $sum = $sum + ((Process *) $p)->heap_sz
      set $n = $n + 1
    end
    set $i = $i + 1
  end
  shell date '+bench_gdb_t slots_only %s.%N'
end
