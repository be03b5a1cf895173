/* The core loader's entry points: open a beam.smp core (or a running node),
 * load the parts of the VM model a command needs, close. The reader the walks
 * share is read.h; the walks are walks.h; neither is seen through this header. */
#ifndef BEAMCORE_BEAM_H
#define BEAMCORE_BEAM_H
#include "error.h"

struct beam;       /* (read.h: what the walks share; not for the layers above) */
struct core_plan;
struct vm;
struct core;

struct beam_open_opts {
	const char *core_path;     /* NULL: a live process (pid) */
	const char *exe_path;      /* NULL: the path the core recorded */
	const char *debug_file;    /* NULL: standard search */
	const char *sysroot;       /* NULL: the recorded paths as they are */
	const char *layout_file;   /* a layout pack for a stripped beam.smp (--layout) */
	int no_cache;              /* --no-cache: the layout cache neither read nor written */
	int pid;                   /* core_path NULL: a running beam.smp (/proc, process_vm_readv) */
	int no_stop;               /* read it without stopping it (racy) */
	int flushed;               /* its memory read anew after each core_flush (the sampler) */
	/* live: stopped only to copy these pages (core_live_snapshot; consumed by
	 * beam_open), with the threads' stacks when stacks; past max_stop_ms (> 0)
	 * released and read racily, or with max_stop_fail an error */
	struct core_plan *plan;
	int stacks;
	double max_stop_ms;
	int max_stop_fail;
	/* the layout pack of the binary's release even where DWARF is found:
	 * the fuzz target reads one core both ways (users: DWARF always wins) */
	int pack_over_dwarf;
};

bc_err *beam_open(const struct beam_open_opts *o, struct beam **out);
/* Run the walks of the NEED_* parts asked for (needs.h) and not yet run. */
bc_err *beam_load(struct beam *b, unsigned needs);
/* Read a core file again as if opened anew: a new model (b->vm), the walks'
 * caches and what beam_load ran forgotten, the facts and the pack's checks
 * read again through b->L as it is (a caller restores the table the open
 * made: a pack's checks drop entries that do not fit). For memory changed in
 * place (fuzz/fuzz_vm.c patches the core between runs). */
bc_err *beam_reread(struct beam *b);
void beam_close(struct beam *b);
/* The model the loader fills (beam_load), and the core (or live process) it reads. */
struct vm *beam_vm(const struct beam *b);
struct core *beam_core(const struct beam *b);
/* A live process stopped for the read runs again; vm->stopped_ms says how long. */
void beam_release(struct beam *b);

#endif
