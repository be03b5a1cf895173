/* Resolved samples gathered into stacks (identical stack and state: one
 * group, with its count, reductions and pids) and written out: text, folded,
 * JSON, perf-script text, speedscope JSON. */
#ifndef BEAMCORE_SAMPLE_REPORT_H
#define BEAMCORE_SAMPLE_REPORT_H
#include <stdio.h>
#include "error.h"
#include "hmap.h"
#include "resolve.h"

#define SG_PIDS 32

struct sgroup {
	enum sstate state;
	uint32_t first, n;             /* frames: rep->frames[first .. first+n), outermost first */
	uint64_t count, reductions;
	struct vm_pid pids[SG_PIDS];
	const char *names[SG_PIDS];
	int npids;
	bool more_pids;
};

struct sevent {                        /* one sample, for the timelines */
	uint64_t time;
	uint32_t thread, group;
	struct vm_pid pid;
	bool has_pid;
};

struct sthread_sum {                   /* per thread over the window */
	const struct sthread *t;
	uint64_t samples, idle;
	uint64_t cpu_ns;               /* on a CPU during the window */
	uint64_t delay_ns;             /* runnable, waiting for a CPU (schedstat) */
};

struct report {
	struct sgroup *g;
	size_t ng, gcap;
	const char **frames;
	size_t nframes, fcap;
	struct hmap index;
	struct sevent *ev;
	size_t nev, evcap;
	struct sthread_sum *th;
	size_t nth;
	uint64_t samples, lost, window_ns, hz, pid;
	double start;                  /* the window's start, Unix time (s) */
	const char *node, *otp_release;
	bool jit;
};

int report_init(struct report *r, size_t nthreads);
void report_free(struct report *r);
/* Count one resolved sample of thread ti at time; -1 on OOM. */
int report_add(struct report *r, uint32_t ti, uint64_t time, const struct rsample *s);

struct report_opts {
	int folded, by_status, json, perf_script;
	const char *weight;            /* "count" (default) or "reductions" */
	const char *speedscope;        /* file, or NULL */
	size_t top;
};
/* Write what o asks for (the speedscope file first); NULL, or why a file
 * could not be written. */
bc_err *report_write(struct report *r, const struct report_opts *o, FILE *f);
/* Thread s's utilisation as scheduler_wall_time counts it: the wall time it
 * was busy (on a CPU or runnable, i.e. not asleep) over the window, less the
 * share of its samples that were idle (spinning before sleep). */
double report_utilisation(const struct report *r, const struct sthread_sum *s);

#endif
