/* beamcore sample --pid PID: the one command that owns its I/O loop. It is not
 * an analyzer (analyzers/analyzer.h turns a finished VM model into tables):
 * it reads a running node for N seconds, draining perf ring buffers and
 * reading the node's memory right after each batch of samples, while the
 * node keeps running. Collection is perf.c, resolution resolve.c, output
 * report.c; this file is the options and the loop. */

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "node.h"
#include "perf.h"
#include "report.h"
#include "resolve.h"
#include "outfile.h"
#include "print.h"
#include "render.h"
#include "analyzer.h"


static volatile sig_atomic_t stop_now;
static void on_signal(int sig)
{
	(void)sig;
	stop_now = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "beamcore: sample: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (see beamcore sample --help)\n");
	return BC_EXIT_USAGE;
}

static int parse_num(const char *s, double lo, double hi, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= lo && v <= hi))
		return -1;
	*out = v;
	return 0;
}

/* Its options: the values the table below fills, with their defaults. */
struct sample_opts {
	long pid;
	double seconds, hz;
	const char *debug_file;
	struct report_opts ro;
};
static struct sample_opts sample_opts = { .seconds = 5, .hz = 99 };

static int parse_pid(const char *arg, void *opts)
{
	char *end;
	long pid = strtol(arg, &end, 10);
	if (*end || end == arg || pid <= 0 || pid > 1 << 22)
		return usage_error("--pid %s: not a process id", arg);
	((struct sample_opts *)opts)->pid = pid;
	return 0;
}

static int parse_seconds(const char *arg, void *opts)
{
	if (parse_num(arg, 0.1, 3600, &((struct sample_opts *)opts)->seconds) < 0)
		return usage_error("--seconds %s: a number of seconds from 0.1 to 3600", arg);
	return 0;
}

static int parse_hz(const char *arg, void *opts)
{
	if (parse_num(arg, 1, 10000, &((struct sample_opts *)opts)->hz) < 0)
		return usage_error("--hz %s: a rate from 1 to 10000", arg);
	return 0;
}

static const char *const weights[] = { "count", "reductions" };

static const char *weight_name(size_t i)
{
	return i < 2 ? weights[i] : NULL;
}

static int parse_weight(const char *arg, void *opts)
{
	if (strcmp(arg, "count") != 0 && strcmp(arg, "reductions") != 0)
		return usage_error("--weight %s: one of count, reductions", arg);
	((struct sample_opts *)opts)->ro.weight = arg;
	return 0;
}

static int parse_top(const char *arg, void *opts)
{
	double v;
	if (parse_num(arg, 1, 1e9, &v) < 0 || v != (double)(size_t)v)
		return usage_error("--top %s: a count from 1", arg);
	((struct sample_opts *)opts)->ro.top = (size_t)v;
	return 0;
}

#define SAMPLE_FLAG(n, h, field) OPT_FLAG(n, h, OPT_OWN, struct sample_opts, field)
static const struct option_entry options[] = {
	{ .kind = OPT_VALUE, .name = "pid", .arg = "PID", .help = "the beam.smp process (required)",
	  .parse = parse_pid, .complete = OPT_COMPLETE_PID },
	{ .kind = OPT_VALUE, .name = "seconds", .arg = "N",
	  .help = "how long to sample (default 5; 0.1 to 3600)", .parse = parse_seconds },
	{ .kind = OPT_VALUE, .name = "hz", .arg = "F",
	  .help = "samples per second of each thread's CPU time (default 99; 1 to 10000)",
	  .parse = parse_hz },
	SAMPLE_FLAG("folded", "folded stacks for flamegraph.pl/speedscope", ro.folded),
	SAMPLE_FLAG("by-status", "group by state too (running, garbage_collecting, idle, ...)",
		    ro.by_status),
	{ .kind = OPT_VALUE, .name = "weight", .arg = "W",
	  .help = "what a stack weighs: count (default), reductions (consumed\n"
		  "between samples, as flame_prof weighs)",
	  .parse = parse_weight, .value = weight_name },
	SAMPLE_FLAG("perf-script", "perf script's text, for Flamescope", ro.perf_script),
	{ .kind = OPT_STRING, .name = "speedscope", .arg = "FILE",
	  .help = "also write a speedscope profile to FILE",
	  .offset = offsetof(struct sample_opts, ro.speedscope), .complete = OPT_COMPLETE_FILE },
	SAMPLE_FLAG("json", "JSON (docs/schema/sample.json)", ro.json),
	{ .kind = OPT_VALUE, .name = "top", .arg = "N", .help = "the N heaviest stacks (text, JSON)",
	  .parse = parse_top },
	{ .kind = OPT_STRING, .name = "debug-file", .arg = "FILE",
	  .help = "beam.smp's DWARF when not in the binary",
	  .offset = offsetof(struct sample_opts, debug_file), .complete = OPT_COMPLETE_FILE },
	OPT_TABLE_END,
};

/* The node's threads from /proc/PID/task. */
static int list_threads(pid_t pid, struct sthread **out, size_t *n)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return -1;
	size_t cap = 0;
	struct dirent *e;
	*out = NULL;
	*n = 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		struct sthread *t = grow(*out, &cap, *n, sizeof *t, 64);
		if (!t)
			break;
		*out = t;
		t = &t[*n];
		memset(t, 0, sizeof *t);
		t->tid = atoi(e->d_name);
		char cp[96];
		snprintf(cp, sizeof cp, "/proc/%d/task/%d/comm", (int)pid, (int)t->tid);
		FILE *f = fopen(cp, "r");
		if (f) {
			if (fgets(t->comm, sizeof t->comm, f))
				t->comm[strcspn(t->comm, "\n")] = '\0';
			fclose(f);
		}
		(*n)++;
	}
	closedir(d);
	return 0;
}

/* /proc/PID/task/TID/schedstat: ns on a CPU, ns runnable waiting for one;
 * and from status, how often it gave up the CPU itself (slept) or was
 * preempted: st[0..3]. */
static int schedstat2(pid_t pid, pid_t tid, uint64_t *run, uint64_t *wait);
static int schedstat(pid_t pid, pid_t tid, uint64_t st[4])
{
	char path[96], line[128];
	snprintf(path, sizeof path, "/proc/%d/task/%d/status", (int)pid, (int)tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	st[2] = st[3] = 0;
	while (fgets(line, sizeof line, f)) {
		unsigned long long v;
		if (sscanf(line, "voluntary_ctxt_switches: %llu", &v) == 1)
			st[2] = v;
		else if (sscanf(line, "nonvoluntary_ctxt_switches: %llu", &v) == 1)
			st[3] = v;
	}
	fclose(f);
	return schedstat2(pid, tid, &st[0], &st[1]);
}

static int schedstat2(pid_t pid, pid_t tid, uint64_t *run, uint64_t *wait)
{
	char path[96];
	snprintf(path, sizeof path, "/proc/%d/task/%d/schedstat", (int)pid, (int)tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	unsigned long long a, b;
	int ok = fscanf(f, "%llu %llu", &a, &b) == 2;
	fclose(f);
	if (!ok)
		return -1;
	*run = a;
	*wait = b;
	return 0;
}

struct loop {
	struct snode *l;
	struct resolver *res;
	struct report *rep;
	struct sthread *th;
	uint32_t ti;
	uint64_t t0, t1;
	int oom;
};

static void on_sample(const struct psample *s, void *arg)
{
	struct loop *c = arg;
	if (s->time < c->t0 || s->time > c->t1)
		return;
	struct rsample rs;
	resolve_sample(c->res, &c->th[c->ti], s, &rs);
	if (report_add(c->rep, c->ti, s->time - c->t0, &rs) < 0)
		c->oom = 1;
}

static int json_out;  /* --json: a failure is also docs/schema/error.json on stdout */

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
	char msg[600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	fprintf(stderr, "beamcore: sample: %s\n", msg);
	if (json_out)
		json_error("sample", msg, BC_EXIT_FAILED);
	return BC_EXIT_FAILED;
}

static int sample_main(const struct target_opts *to, void *vopts, char **words, int nwords)
{
	struct sample_opts *so = vopts;
	struct report_opts ro = so->ro;
	double seconds = so->seconds, hz = so->hz;
	long pid = so->pid;
	const char *debug_file = so->debug_file;
	(void)to;  /* the node is its own --pid */
	if (nwords > 0)
		return usage_error("%s: unexpected argument (the node is --pid PID)", words[0]);
	if (!pid)
		return usage_error("%s", "--pid PID is required");
	if (ro.json + ro.folded + ro.perf_script > 1)
		return usage_error("%s", "one of --json, --folded, --perf-script");

	bc_err *ferr = ro.speedscope ? outfile_check(ro.speedscope, "--speedscope") : NULL;
	if (ferr) {  /* an unwritable file is said before the sampling, not after */
		fprintf(stderr, "beamcore: sample: %s\n", ferr->msg);
		bc_err_free(ferr);
		return BC_EXIT_USAGE;
	}
	json_out = ro.json;
	struct snode *l;
	bc_err *err = snode_open((pid_t)pid, debug_file, &l);
	if (err) {
		int rc = fail("%s", err->msg);
		bc_err_free(err);
		return rc;
	}
	int rc = BC_EXIT_COMPLETE;
	struct sthread *th = NULL;
	size_t nth = 0;
	struct pthread_ev *ev = NULL;
	struct report rep;
	struct resolver *res = resolver_new(l);
	if (!res || list_threads(l->pid, &th, &nth) < 0 || report_init(&rep, nth) < 0 ||
	    !(ev = calloc(nth ? nth : 1, sizeof *ev))) {
		rc = fail("process %ld: cannot list its threads", pid);
		goto out;
	}
	for (size_t i = 0; i < nth; i++) {
		resolve_thread(res, &th[i]);
		rep.th[i].t = &th[i];
		ev[i].fd = -1;
	}
	size_t opened = 0;
	for (size_t i = 0; i < nth; i++) {
		int e = perf_open(&ev[i], th[i].tid, (unsigned)hz, 16384);
		if (e == -EACCES || e == -EPERM) {
			FILE *pf = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
			int par = 99;
			if (pf) {
				if (fscanf(pf, "%d", &par) != 1)
					par = 99;
				fclose(pf);
			}
			rc = fail("perf_event_open on thread %d: %s (kernel.perf_event_paranoid is %d: "
				  "run as root, with CAP_PERFMON, or set it to 1 or less)",
				  (int)th[i].tid, strerror(-e), par);
			goto out;
		}
		if (e == 0)
			opened++;
	}
	if (!opened) {
		rc = fail("process %ld: no thread could be sampled%s", pid,
			  kill((pid_t)pid, 0) < 0 ? ": it exited" : "");
		goto out;
	}
	srand48((long)now_ns());
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	struct loop c = { l, res, &rep, th, 0, now_ns(), 0, 0 };
	c.t1 = c.t0 + (uint64_t)(seconds * 1e9);
	uint64_t (*st0)[4] = calloc(nth ? nth : 1, sizeof *st0);
	if (!st0) {
		rc = fail("out of memory");
		goto out;
	}
	for (size_t i = 0; i < nth; i++)
		if (schedstat(l->pid, th[i].tid, st0[i]) < 0)
			st0[i][0] = UINT64_MAX;
	struct timespec wall;
	clock_gettime(CLOCK_REALTIME, &wall);
	rep.start = (double)wall.tv_sec + (double)wall.tv_nsec / 1e9;
	for (size_t i = 0; i < nth; i++)
		perf_enable(&ev[i]);
	uint64_t start = now_ns();
	c.t0 = start;
	c.t1 = start + (uint64_t)(seconds * 1e9);
	int exited = 0;
	for (;;) {
		uint64_t t = now_ns();
		int last = t >= c.t1 || stop_now;
		if (last)
			for (size_t i = 0; i < nth; i++)
				perf_disable(&ev[i]);
		snode_flush(l);
		for (size_t i = 0; i < nth; i++) {
			c.ti = (uint32_t)i;
			/* a thread that ran: its next period jittered +-10%, so that a
			 * periodic workload cannot lock the samples onto one phase */
			if (perf_drain(&ev[i], on_sample, &c) && !last)
				perf_set_period(&ev[i], (uint64_t)(1e9 / hz * (0.9 + 0.2 * drand48())));
		}
		if (!snode_alive(l)) {
			exited = 1;
			break;
		}
		if (last)
			break;
		struct timespec ts = { 0, 10 * 1000000 };  /* drain every 10 ms */
		nanosleep(&ts, NULL);
	}
	uint64_t end = now_ns();
	if (c.t1 < end)
		end = c.t1;
	rep.window_ns = end - start;
	for (size_t i = 0; i < nth; i++) {
		uint64_t st[4];
		if (st0[i][0] != UINT64_MAX && schedstat(l->pid, th[i].tid, st) == 0 &&
		    st[0] >= st0[i][0] && st[1] >= st0[i][1] && st[2] >= st0[i][2] && st[3] >= st0[i][3]) {
			rep.th[i].cpu_ns = st[0] - st0[i][0];
			/* time runnable but off the CPU counts as busy when it was
			 * preempted, not when it had just woken from sleep (the VM
			 * counts a scheduler active once it runs): the preempted share */
			uint64_t vol = st[2] - st0[i][2], inv = st[3] - st0[i][3];
			rep.th[i].delay_ns = vol + inv ? (uint64_t)((double)(st[1] - st0[i][1]) *
								     (double)inv / (double)(vol + inv)) : 0;
		} else {
			rep.th[i].cpu_ns = perf_cpu_ns(&ev[i]);  /* no schedstat: CPU time only */
		}
		rep.lost += ev[i].lost;
	}
	free(st0);
	if (exited) {
		rc = fail("process %ld exited after %.1f s of sampling", pid, (double)(now_ns() - start) / 1e9);
		goto out;
	}
	if (c.oom) {
		rc = fail("out of memory");
		goto out;
	}
	rep.pid = (uint64_t)pid;
	rep.hz = (uint64_t)hz;
	rep.otp_release = l->b->vm->otp_release;
	rep.jit = l->b->vm->jit;
	if ((err = report_write(&rep, &ro, stdout))) {
		rc = fail("%s", err->msg);
		bc_err_free(err);
	}
	if (fflush(stdout) != 0)
		rc = BC_EXIT_FAILED;
out:
	for (size_t i = 0; ev && i < nth; i++)
		perf_close(&ev[i]);
	free(ev);
	if (rep.th)
		report_free(&rep);
	free(th);
	resolver_free(res);
	snode_close(l);
	return rc;
}

const struct analyzer command_sample = {
	.name = "sample",
	.kind = CMD_MAIN,
	.summary = "--pid PID: sample a running node's schedulers, no stop (beamcore help sample)",
	.usage = "usage: beamcore sample --pid PID [--seconds N] [--hz F] [OPTIONS]\n"
		 "  sample a running node's schedulers for N seconds (default 5) at F Hz (default 99)\n"
		 "  without stopping it: each sample as scheduler, process and Erlang + native stack\n",
	.help_width = 20,
	.options = options,
	.opts = &sample_opts,
	.main = sample_main,
};
