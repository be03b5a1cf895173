/* Open whatever the user pointed at (an ELF core, a running node or an
 * erl_crash.dump) and load the parts of the VM model (NEED_*, needs.h) a
 * command needs. */
#ifndef BEAMCORE_TARGET_H
#define BEAMCORE_TARGET_H
#include "error.h"
#include "needs.h"
#include "options.h"
#include "vm.h"

struct target_opts {
	const char *path;
	const char *beam;        /* may be NULL */
	const char *debug_file;  /* may be NULL */
	const char *sysroot;     /* may be NULL */
	const char *layout;      /* --layout FILE: a layout pack; may be NULL */
	const char *labels;      /* --labels FILE: label rules after the default file's; NULL */
	int pid;                 /* path NULL: a running beam.smp (--pid) */
	int no_cache;            /* --no-cache: no layout cache (read the DWARF) */
	int no_stop;             /* --no-stop: read it without stopping it */
	int flushed;             /* pid: read again as it runs (beamcore sample): its
				  * memory cache flushed by core_flush, never stopped */
	int snapshot;            /* pid, stopped: opened for a rehearsal, then stopped only
				  * to copy what it read (target_snapshot) */
	long max_stop_ms;        /* --max-stop: the longest stop for the copy (0: none) */
	int max_stop_fail;       /* --max-stop-fail: past it exit 2, not a racy read */
};

/* The options that fill struct target_opts (options.c): --pid and --no-stop,
 * --debug-file and --sysroot; the commands' tables place them through their
 * slots, which target_options_slots fills (before a command line is read). */
extern const struct option_entry target_live_options[], target_file_options[];
void target_options_slots(void);
/* The target's options together, once the line is whole (--sysroot is for a
 * core, not --pid): an exit code after saying why, or -1 when they are good. */
int target_options_check(const struct target_opts *o);

struct target;
/* Once, before targets are opened on several threads (triage): what every
 * target_open does first (the label files), done on this one. */
bc_err *target_init(const struct target_opts *o);
bc_err *target_open(const struct target_opts *o, struct target **out);
bc_err *target_load(struct target *t, unsigned needs);
struct vm *target_vm(struct target *t);
/* The core or live process as the loader holds it; NULL for a crash dump. */
struct beam *target_beam(struct target *t);
/* A crash dump cut short (dump_truncated); false for a core or a live node. */
bool target_truncated(const struct target *t);
/* path is a snapshot (an ELF core, a crash dump, a compressed file), not a
 * beam.smp: `report A B` is two targets, `report CORE BEAM` one */
bool target_is_snapshot(const char *path);
/* A live target opened with snapshot: the command's reads so far were a
 * rehearsal on the running node (a racy model). target_snapshot stops it,
 * copies the pages they read (the threads' stacks too when the loads asked for
 * NEED_THREADS), lets it run and opens a new model over the copy: load and run
 * the command again. No-op otherwise. */
int target_rehearsing(const struct target *t);
bc_err *target_snapshot(struct target *t);
/* A live target stopped for the read runs again (vm->stopped_ms); no-op otherwise.
 * Reads after it are racy. */
void target_release(struct target *t);
void target_close(struct target *t);

#endif
