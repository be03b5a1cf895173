/* A running process as a core (live.c): segments and file mappings from
 * /proc/PID/maps, auxv, command line, threads, and its memory through
 * process_vm_readv (livemem.c) behind the cache its reader needs. */
#ifndef BEAMCORE_LIVE_H
#define BEAMCORE_LIVE_H
#include "core.h"

enum core_live_mem {
	/* 64 KiB chunks kept for the run: a model is built from what was
	 * read, and core_ptr's pointers stay valid (--pid commands) */
	LIVE_KEPT,
	/* 4 KiB pages dropped at every core_flush: the same structures read
	 * again and again as they change (beamcore sample, between batches of
	 * samples); any address, mapped since the open too; core_ptr copies */
	LIVE_FLUSHED,
};

/* A running process, not stopped (core_live_stop stops it). */
bc_err *core_open_live(int pid, enum core_live_mem kind, struct core **out);
/* Stop a live process opened unstopped: every thread, its mappings and
 * registers read again, the cache emptied (earlier pointers stay valid). */
bc_err *core_live_stop(struct core *c);
/* What a snapshot copies (snap.c): the 4 KiB pages a process's reads asked
 * for, gathered on an unstopped open (a rehearsal of the command); NULL: out
 * of memory. */
struct core_plan;
struct core_plan *core_live_plan(const struct core *c);
void core_plan_free(struct core_plan *p);
struct core_snap_stat {
	double stopped_ms;   /* how long the process was stopped, -1: not */
	uint64_t planned;    /* bytes the plan asked for (the stacks besides) */
	uint64_t bytes;      /* bytes copied */
	int over;            /* past max_ms: released before the copy was whole */
};
/* Stop a live process opened unstopped (LIVE_KEPT), read its threads'
 * registers (and with stacks, their stacks from the stack pointer), copy
 * plan's pages (plan is consumed) and release it: reads are then served from
 * the copy (live_frozen), what it lacks read anew (core_live_late_bytes).
 * max_ms > 0: past it the copy stops and the process runs again (over; the
 * reads are then racy, no registers). */
bc_err *core_live_snapshot(struct core *c, struct core_plan *plan, int stacks, double max_ms,
			   struct core_snap_stat *st);
/* Bytes read from the process besides its snapshot (after the release). */
uint64_t core_live_late_bytes(const struct core *c);
/* Resume a stopped live process: milliseconds it was stopped, -1 if it was not. */
double core_live_release(struct core *c);
/* The executable of a live process as /proc/PID/exe names it (without
 * " (deleted)"); an error naming the fix when there is no such process or
 * access is denied. */
bc_err *core_live_exe(int pid, char *buf, size_t len);
/* err, or when pid has exited (or is a zombie) meanwhile, that instead: what
 * failed to read was the process going away. */
bc_err *core_live_exited(int pid, bc_err *err);
/* Whether pid runs: there, and no zombie. */
int core_live_running(int pid);

/* (livemem.c) len bytes at addr as they are now, past any cache (what is
 * read once: a stack); -1 when not all could be read. */
int core_live_read(const struct core *c, uint64_t addr, void *buf, size_t len);
/* Whether a read of pid's memory found it gone (it exits). */
int core_live_gone(int pid);

#endif
