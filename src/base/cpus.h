/* How many threads a loader splits work over: one rule for every loader. */
#ifndef BEAMCORE_CPUS_H
#define BEAMCORE_CPUS_H

#include <stddef.h>

/* Threads for n items: every CPU (at most max, at most n) once n reaches
 * min_n, else 1. BEAMCORE_THREADS=N gives N threads whatever n (1: one
 * thread, e.g. on a busy production host). */
size_t threads_for(size_t n, size_t min_n, size_t max);

#endif
