/* A sample (registers + a copy of the top of the stack) as what the node was
 * doing: which scheduler, which Erlang process (pid, registered name), its
 * Erlang stack and the native frames under it, or idle / garbage collecting.
 * No I/O of its own beyond reading the node's memory through struct snode. */
#ifndef BEAMCORE_SAMPLE_RESOLVE_H
#define BEAMCORE_SAMPLE_RESOLVE_H
#include <stdbool.h>
#include "node.h"
#include "perf.h"

/* A thread of the node and what it is to the VM. */
struct sthread {
	pid_t tid;
	char comm[16];
	unsigned kind;             /* BS_* of beam.h; 0: not a scheduler */
	uint64_t index;            /* 1-based scheduler number */
	uint64_t esd;              /* its ErtsSchedulerData; 0 unknown */
	const char *role;          /* "scheduler 1", "dirty cpu scheduler 2", "aux" */
	/* reductions weight: the process and FCALLS of its last JIT sample */
	uint64_t last_proc, last_fcalls;
};

enum sstate { SS_RUNNING, SS_GC, SS_IDLE, SS_SCHEDULER, SS_OTHER, SS_N };
extern const char *const sstate_names[SS_N];

#define RS_MAX_FRAMES 128

struct rsample {
	enum sstate state;
	bool has_pid;
	struct vm_pid pid;
	const char *name;              /* registered name, interned; NULL none */
	const char *frames[RS_MAX_FRAMES];  /* outermost first: Erlang, then native */
	int nframes;
	uint64_t reductions;           /* consumed since the previous sample of it (JIT) */
	bool frames_cut;
};

struct resolver;
/* The threads of the node are named by /proc/PID/task/TID/comm; esd found
 * from the scheduler arrays. */
struct resolver *resolver_new(struct snode *n);
void resolver_free(struct resolver *r);
/* Fill out from s taken on thread t. */
void resolve_sample(struct resolver *r, struct sthread *t, const struct psample *s,
		    struct rsample *out);
/* Name threads: kind/index/esd/role from comm and the scheduler arrays. */
void resolve_thread(struct resolver *r, struct sthread *t);

#endif
