/* A running beam.smp read from outside, without stopping it: memory through
 * process_vm_readv behind a small page cache (flushed by the caller whenever
 * what it reads may have changed), a struct beam over that memory for the
 * walks of src/beam (code index, atoms, schedulers), and a libdwfl session of
 * the process's mappings for native symbols and unwinding.
 * Not src/core/live.c (the --pid backend): that one caches what it read for
 * the whole run (core_ptr's pointers must stay valid while a model is built);
 * sampling reads the same process structures again and again as they change,
 * so its pages are dropped after every batch of samples (slive_flush). */
#ifndef BEAMCORE_SAMPLE_LIVE_H
#define BEAMCORE_SAMPLE_LIVE_H
#include <elfutils/libdwfl.h>
#include <stdint.h>
#include <sys/types.h>
#include "beam.h"
#include "error.h"

#define LIVE_PAGES 512

struct live_page {
	uint64_t addr;      /* page address + 1 when valid (0: empty) */
	uint8_t data[4096];
};

struct live_range {
	uint64_t start, end;
};

struct live {
	pid_t pid;
	struct beam *b;
	Dwfl *dwfl;                     /* the process's mappings (symbols, CFI) */
	Dwfl_Callbacks cb;
	char *debuginfo_path;
	struct live_range jit[8];       /* executable anonymous/memfd mappings: JIT code */
	int njit;
	char exe[4096];
	struct live_page *cache;        /* LIVE_PAGES, direct-mapped */
	int gone;                       /* a read failed with ESRCH: the process exited */
};

/* Open pid: it must be a beam.smp (or beam.emu) we may read. Errors are one
 * sentence (BC_EIO: no such process / no permission; BC_EMISMATCH: not a BEAM). */
bc_err *slive_open(pid_t pid, const char *debug_file, struct live **out);
void slive_close(struct live *l);
/* Forget cached pages: what the process changed since is read again. */
void slive_flush(struct live *l);
/* Uncached read of len bytes at addr; -1 when not all were read. */
int slive_read(struct live *l, uint64_t addr, void *buf, size_t len);
/* Whether pc lies in JIT code. */
int slive_in_jit(const struct live *l, uint64_t pc);
/* Re-read the JIT mappings (modules loaded since may have added some). */
void slive_scan_maps(struct live *l);

#endif
