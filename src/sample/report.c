#include "report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "outfile.h"
#include "print.h"
#include "record.h"
#include "render.h"
#include "speedscope.h"
#include "vm.h"

int report_init(struct report *r, size_t nthreads)
{
	memset(r, 0, sizeof *r);
	r->th = calloc(nthreads ? nthreads : 1, sizeof *r->th);
	r->nth = nthreads;
	return r->th && hmap_init(&r->index, 1024) == 0 ? 0 : -1;
}

void report_free(struct report *r)
{
	free(r->g);
	free(r->frames);
	free(r->ev);
	free(r->th);
	hmap_free(&r->index);
}

static uint64_t group_hash(enum sstate st, const char *const *f, size_t n)
{
	uint64_t h = st + 1;
	for (size_t i = 0; i < n; i++)
		h = h * 1000003 ^ (uint64_t)(uintptr_t)f[i];  /* frames are interned */
	return h;
}

static uint64_t hash_item(const void *ctx, uint32_t i)
{
	const struct report *r = ctx;
	return group_hash(r->g[i].state, r->frames + r->g[i].first, r->g[i].n);
}

static void add_pid(struct sgroup *g, const struct rsample *s)
{
	for (int i = 0; i < g->npids; i++)
		if (g->pids[i].num == s->pid.num && g->pids[i].serial == s->pid.serial)
			return;
	if (g->npids == SG_PIDS) {
		g->more_pids = true;
		return;
	}
	g->names[g->npids] = s->name;
	g->pids[g->npids++] = s->pid;
}

int report_add(struct report *r, uint32_t ti, uint64_t time, const struct rsample *s)
{
	const char *f[RS_MAX_FRAMES + 1];
	size_t n = 0;
	struct sthread_sum *ts = &r->th[ti];
	ts->samples++;
	r->samples++;
	if (s->state == SS_IDLE)
		ts->idle++;
	/* a root frame for time outside any process */
	if (s->state == SS_IDLE)
		f[n++] = "(idle)";
	else if (!s->has_pid)
		f[n++] = s->state == SS_OTHER ? ts->t->role : "(scheduler)";
	if (s->state != SS_IDLE)
		for (int i = 0; i < s->nframes; i++)
			f[n++] = s->frames[i];
	uint64_t h = group_hash(s->state, f, n);
	size_t j = hmap_first(&r->index, h);
	struct sgroup *g = NULL;
	for (; r->index.slot[j]; j = hmap_next(&r->index, j)) {
		struct sgroup *c = &r->g[r->index.slot[j] - 1];
		if (c->state == s->state && c->n == n &&
		    memcmp(r->frames + c->first, f, n * sizeof *f) == 0) {
			g = c;
			break;
		}
	}
	if (!g) {
		struct sgroup *ng = vm_grow(r->g, &r->gcap, r->ng, sizeof *ng, 256);
		if (!ng)
			return -1;
		r->g = ng;
		const char **nf = n ? vm_grow(r->frames, &r->fcap, r->nframes + n - 1, sizeof *nf, 4096)
				    : r->frames;
		if (n && !nf)
			return -1;
		r->frames = nf;
		g = &r->g[r->ng];
		memset(g, 0, sizeof *g);
		g->state = s->state;
		g->first = (uint32_t)r->nframes;
		g->n = (uint32_t)n;
		if (n)
			memcpy(r->frames + r->nframes, f, n * sizeof *f);
		r->nframes += n;
		hmap_set(&r->index, j, (uint32_t)r->ng, hash_item, r);
		r->ng++;
	}
	g->count++;
	g->reductions += s->reductions;
	if (s->has_pid)
		add_pid(g, s);
	struct sevent *e = vm_grow(r->ev, &r->evcap, r->nev, sizeof *e, 4096);
	if (!e)
		return -1;
	r->ev = e;
	r->ev[r->nev++] = (struct sevent){ time, ti, (uint32_t)(g - r->g), s->pid, s->has_pid };
	return 0;
}

double report_utilisation(const struct report *r, const struct sthread_sum *s)
{
	if (!r->window_ns || !s->samples)
		return 0;
	double busy = (double)(s->samples - s->idle) / (double)s->samples;
	double u = busy * (double)(s->cpu_ns + s->delay_ns) / (double)r->window_ns;
	return u > 1 ? 1 : u;
}

static int weight_reds(const struct report_opts *o)
{
	return o->weight && strcmp(o->weight, "reductions") == 0;
}

static uint64_t gweight(const struct sgroup *g, const struct report_opts *o)
{
	return weight_reds(o) ? g->reductions : g->count;
}

static const struct report_opts *sort_opts;
static const struct report *sort_rep;
static int by_weight(const void *a, const void *b)
{
	const struct sgroup *x = &sort_rep->g[*(const uint32_t *)a];
	const struct sgroup *y = &sort_rep->g[*(const uint32_t *)b];
	uint64_t wx = gweight(x, sort_opts), wy = gweight(y, sort_opts);
	if (wx != wy)
		return wx < wy ? 1 : -1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static uint32_t *sorted(const struct report *r, const struct report_opts *o)
{
	uint32_t *ix = malloc((r->ng ? r->ng : 1) * sizeof *ix);
	if (!ix)
		return NULL;
	for (size_t i = 0; i < r->ng; i++)
		ix[i] = (uint32_t)i;
	sort_opts = o;
	sort_rep = r;
	if (r->ng > 1)
		qsort(ix, r->ng, sizeof *ix, by_weight);
	return ix;
}

static void folded(const struct report *r, const struct report_opts *o, FILE *f,
		   const uint32_t *ix)
{
	for (size_t k = 0; k < r->ng; k++) {
		const struct sgroup *g = &r->g[ix[k]];
		uint64_t w = gweight(g, o);
		if (!w)
			continue;
		if (o->by_status)
			fprintf(f, "%s;", sstate_names[g->state]);
		for (uint32_t i = 0; i < g->n; i++)
			fprintf(f, "%s%s", i ? ";" : "", r->frames[g->first + i]);
		fprintf(f, " %llu\n", (unsigned long long)w);
	}
}

static const char *thread_id(const struct sthread *t, char *buf, size_t len)
{
	static const char *const kinds[] = { [BS_NORMAL] = "normal", [BS_DIRTY_CPU] = "dirty_cpu",
					     [BS_DIRTY_IO] = "dirty_io" };
	snprintf(buf, len, "%s", t->kind ? kinds[t->kind] : "other");
	return buf;
}

/* --json (docs/schema/sample.json), described as records (render/record.h):
 * the window, "schedulers", the other "threads" that ran, the "stacks".
 * Record ids: a scheduler's or thread's index in r->th, a stack's rank. */
struct jctx {
	const struct report *r;
	const struct report_opts *o;
	const uint32_t *ix;          /* the stacks, heaviest first */
	uint32_t *sched, *other;     /* r->th indices: schedulers; other threads that ran */
	size_t nsched, nother;
};

static double cpu_share(const struct report *r, const struct sthread_sum *s)
{
	return r->window_ns ? (double)s->cpu_ns / (double)r->window_ns : 0;
}

static const struct rfield sched_fields[] = {
	{ .key = "id", .kind = RF_U64 },
	{ .key = "type", .kind = RF_STR },
	{ .key = "tid", .kind = RF_U64 },
	{ .key = "utilisation", .kind = RF_F64 },
	{ .key = "cpu", .kind = RF_F64 },
	{ .key = "samples", .kind = RF_U64 },
	{ .key = "idle_samples", .kind = RF_U64 },
};

static void sched_get(void *ctx, uint64_t id, size_t f, struct rval *v, char *buf, size_t len)
{
	const struct jctx *c = ctx;
	const struct sthread_sum *s = &c->r->th[id];
	switch (f) {
	case 0: v->u = s->t->index; break;
	case 1: v->s = thread_id(s->t, buf, len); break;
	case 2: v->u = (uint64_t)s->t->tid; break;
	case 3: v->f = report_utilisation(c->r, s); break;
	case 4: v->f = cpu_share(c->r, s); break;
	case 5: v->u = s->samples; break;
	case 6: v->u = s->idle; break;
	}
}

static const struct rrec sched_rec = { .fields = sched_fields, .nfields = 7, .get = sched_get };

static const struct rfield thread_fields[] = {
	{ .key = "name", .kind = RF_STR },
	{ .key = "tid", .kind = RF_U64 },
	{ .key = "samples", .kind = RF_U64 },
	{ .key = "cpu", .kind = RF_F64 },
};

static void thread_get(void *ctx, uint64_t id, size_t f, struct rval *v, char *buf, size_t len)
{
	(void)buf, (void)len;
	const struct jctx *c = ctx;
	const struct sthread_sum *s = &c->r->th[id];
	switch (f) {
	case 0: v->s = s->t->comm; break;
	case 1: v->u = (uint64_t)s->t->tid; break;
	case 2: v->u = s->samples; break;
	case 3: v->f = cpu_share(c->r, s); break;
	}
}

static const struct rrec thread_rec = { .fields = thread_fields, .nfields = 4, .get = thread_get };

enum { SK_STACK, SK_STATUS, SK_COUNT, SK_REDUCTIONS, SK_PIDS, SK_NAMES, SK_MORE };
static const struct rfield stack_fields[] = {
	{ .key = "stack", .kind = RF_STRS },  /* outermost first */
	{ .key = "status", .kind = RF_STR },
	{ .key = "count", .kind = RF_U64 },
	{ .key = "reductions", .kind = RF_U64 },
	{ .key = "pids", .kind = RF_STRS },
	{ .key = "registered_names", .kind = RF_STRS },
	{ .key = "more_pids", .kind = RF_BOOL },
};

static void stack_get(void *ctx, uint64_t id, size_t f, struct rval *v, char *buf, size_t len)
{
	(void)buf, (void)len;
	const struct jctx *c = ctx;
	const struct sgroup *g = &c->r->g[c->ix[id]];
	switch (f) {
	case SK_STACK: v->n = g->n; break;
	case SK_STATUS: v->s = sstate_names[g->state]; break;
	case SK_COUNT: v->u = g->count; break;
	case SK_REDUCTIONS: v->u = g->reductions; break;
	case SK_PIDS: v->n = (size_t)g->npids; break;
	case SK_NAMES:
		for (int i = 0; i < g->npids; i++)
			v->n += g->names[i] != NULL;
		break;
	case SK_MORE: v->u = g->more_pids; break;
	}
}

static const char *stack_str(void *ctx, uint64_t id, size_t f, size_t i, char *buf, size_t len)
{
	const struct jctx *c = ctx;
	const struct sgroup *g = &c->r->g[c->ix[id]];
	if (f == SK_STACK)
		return c->r->frames[g->first + g->n - 1 - i];
	if (f == SK_PIDS)
		return vm_pid2str(g->pids[i], buf, len);
	for (int k = 0; k < g->npids; k++)  /* SK_NAMES: the i-th of those named */
		if (g->names[k] && i-- == 0)
			return g->names[k];
	return NULL;
}

static const struct rrec stack_rec = {
	.fields = stack_fields, .nfields = 7, .get = stack_get, .item_str = stack_str,
};

enum { SR_PID, SR_OTP, SR_JIT, SR_START, SR_SECONDS, SR_HZ, SR_SAMPLES, SR_LOST, SR_WEIGHT,
       SR_SCHEDULERS, SR_THREADS, SR_STACKS };
static const struct rfield sample_fields[] = {
	{ .key = "pid", .kind = RF_U64 },
	{ .key = "otp_release", .kind = RF_STR },
	{ .key = "jit", .kind = RF_BOOL },
	{ .key = "start", .kind = RF_F64 },
	{ .key = "seconds", .kind = RF_F64 },
	{ .key = "hz", .kind = RF_U64 },
	{ .key = "samples", .kind = RF_U64 },
	{ .key = "lost", .kind = RF_U64 },
	{ .key = "weight", .kind = RF_STR },
	{ .key = "schedulers", .kind = RF_LIST },
	{ .key = "threads", .kind = RF_LIST },
	{ .key = "stacks", .kind = RF_LIST },
};

static void sample_get(void *ctx, uint64_t id, size_t f, struct rval *v, char *buf, size_t len)
{
	(void)id, (void)buf, (void)len;
	const struct jctx *c = ctx;
	const struct report *r = c->r;
	switch (f) {
	case SR_PID: v->u = r->pid; break;
	case SR_OTP: v->s = r->otp_release[0] ? r->otp_release : NULL; break;
	case SR_JIT: v->u = r->jit; break;
	case SR_START: v->f = r->start; break;
	case SR_SECONDS: v->f = (double)r->window_ns / 1e9; break;
	case SR_HZ: v->u = r->hz; break;
	case SR_SAMPLES: v->u = r->samples; break;
	case SR_LOST: v->u = r->lost; break;
	case SR_WEIGHT: v->s = weight_reds(c->o) ? "reductions" : "count"; break;
	case SR_SCHEDULERS: v->n = c->nsched; v->rec = &sched_rec; break;
	case SR_THREADS: v->n = c->nother; v->rec = &thread_rec; break;
	case SR_STACKS:
		v->n = c->o->top && c->o->top < r->ng ? c->o->top : r->ng;
		v->rec = &stack_rec;
		break;
	}
}

static uint64_t sample_item(void *ctx, uint64_t id, size_t f, size_t i)
{
	(void)id;
	const struct jctx *c = ctx;
	return f == SR_SCHEDULERS ? c->sched[i] : f == SR_THREADS ? c->other[i] : i;
}

static const struct rrec sample_rec = {
	.fields = sample_fields, .nfields = sizeof sample_fields / sizeof *sample_fields,
	.get = sample_get, .item = sample_item,
};

static int json(const struct report *r, const struct report_opts *o, FILE *f, const uint32_t *ix)
{
	struct jctx c = { r, o, ix, calloc(r->nth + 1, sizeof *c.sched),
			  calloc(r->nth + 1, sizeof *c.other), 0, 0 };
	if (!c.sched || !c.other) {
		free(c.sched);
		free(c.other);
		return -1;
	}
	for (size_t i = 0; i < r->nth; i++) {
		if (r->th[i].t->kind)
			c.sched[c.nsched++] = (uint32_t)i;
		else if (r->th[i].samples)
			c.other[c.nother++] = (uint32_t)i;
	}
	struct jw w;
	jw_init(&w, f);
	jw_obj(&w, NULL);
	jw_u64(&w, "beamcore_schema", JSON_SCHEMA);
	jw_str(&w, "command", "sample");
	render_doc_json(&w, &(struct rdoc){ &sample_rec, &c, 0 });
	jw_obj_end(&w);  /* ends the line */
	free(c.sched);
	free(c.other);
	return 0;
}

static void text(const struct report *r, const struct report_opts *o, FILE *f, const uint32_t *ix)
{
	char buf[64];
	fprintf(f, "sample: pid %llu (OTP %s, %s), %.2f s at %llu Hz: %llu samples",
		(unsigned long long)r->pid, r->otp_release[0] ? r->otp_release : "?",
		r->jit ? "JIT" : "emu", (double)r->window_ns / 1e9, (unsigned long long)r->hz,
		(unsigned long long)r->samples);
	if (r->lost)
		fprintf(f, " (%llu lost)", (unsigned long long)r->lost);
	fprintf(f, "\n\n%-24s %8s %12s %8s %8s\n", "SCHEDULER", "TID", "UTILISATION", "CPU", "SAMPLES");
	for (size_t i = 0; i < r->nth; i++) {
		const struct sthread_sum *s = &r->th[i];
		if (!s->t->kind || (!s->samples && s->t->kind != BS_NORMAL))
			continue;
		fprintf(f, "%-24s %8d %12.2f %8.2f %8llu\n", s->t->role, (int)s->t->tid,
			report_utilisation(r, s),
			r->window_ns ? (double)s->cpu_ns / (double)r->window_ns : 0,
			(unsigned long long)s->samples);
	}
	uint64_t total = 0;
	for (size_t k = 0; k < r->ng; k++)
		total += gweight(&r->g[k], o);
	fprintf(f, "\n%8s %6s  %-12s %s\n", weight_reds(o) ? "REDS" : "SAMPLES", "%", "PROCESS",
		"STACK (innermost first)");
	size_t top = o->top ? o->top : 20;
	for (size_t k = 0; k < r->ng && k < top; k++) {
		const struct sgroup *g = &r->g[ix[k]];
		uint64_t w = gweight(g, o);
		char who[96] = "-";
		if (g->npids == 1)
			snprintf(who, sizeof who, "%s", g->names[0] ? g->names[0]
					: vm_pid2str(g->pids[0], buf, sizeof buf));
		else if (g->npids > 1)
			snprintf(who, sizeof who, "%d%s procs", g->npids, g->more_pids ? "+" : "");
		fprintf(f, "%8llu %5.1f%%  %-12s ", (unsigned long long)w,
			total ? 100.0 * (double)w / (double)total : 0.0, who);
		if (o->by_status)
			fprintf(f, "[%s] ", sstate_names[g->state]);
		for (uint32_t i = g->n; i-- > 0;)
			fprintf(f, "%s%s", r->frames[g->first + i], i ? " <- " : "");
		fputc('\n', f);
	}
	if (r->ng > top)
		fprintf(f, "... %zu more stacks (--top N)\n", r->ng - top);
}

/* perf script's text (as `perf script` prints samples with call chains), which
 * Flamescope and the FlameGraph scripts read. */
static void perf_script(const struct report *r, FILE *f)
{
	for (size_t i = 0; i < r->nev; i++) {
		const struct sevent *e = &r->ev[i];
		const struct sthread_sum *s = &r->th[e->thread];
		const struct sgroup *g = &r->g[e->group];
		fprintf(f, "beam.smp %llu/%d [000] %llu.%06llu: %llu cpu-clock:\n",
			(unsigned long long)r->pid, (int)s->t->tid,
			(unsigned long long)(e->time / 1000000000ull),
			(unsigned long long)(e->time % 1000000000ull / 1000),
			(unsigned long long)(r->hz ? 1000000000ull / r->hz : 0));
		for (uint32_t k = g->n; k-- > 0;)
			fprintf(f, "\t%16llx %s (beam)\n", (unsigned long long)k, r->frames[g->first + k]);
		fputc('\n', f);
	}
}

static uint64_t uniq_hash(const void *ctx, uint32_t i)
{
	return (uint64_t)(uintptr_t)((const char *const *)ctx)[i];
}

/* speedscope's file format (render/speedscope.h): one sampled profile per
 * scheduler thread over shared frames, written through the output file (a
 * temporary file renamed into place once whole). */
static bc_err *speedscope(const struct report *r, const char *path)
{
	/* frame index: position in r->frames of the first occurrence of each string */
	struct hmap fi;
	uint32_t *fid = calloc(r->nframes ? r->nframes : 1, sizeof *fid);
	const char **uniq = calloc(r->nframes ? r->nframes : 1, sizeof *uniq);
	if (!fid || !uniq || hmap_init(&fi, r->nframes + 16) < 0) {
		free(fid);
		free(uniq);
		return bc_error(BC_ENOMEM, "out of memory");
	}
	struct outfile of;
	bc_err *err = outfile_open(path, "--speedscope", &of);
	if (err) {
		hmap_free(&fi);
		free(fid);
		free(uniq);
		return err;
	}
	struct speedscope ss;
	speedscope_begin(&ss, of.f, "beamcore sample", NULL);
	size_t nu = 0;
	for (size_t i = 0; i < r->nframes; i++) {
		uint64_t h = (uint64_t)(uintptr_t)r->frames[i];
		size_t j = hmap_first(&fi, h);
		for (; fi.slot[j]; j = hmap_next(&fi, j))
			if (uniq[fi.slot[j] - 1] == r->frames[i])
				break;
		if (!fi.slot[j]) {
			uniq[nu] = r->frames[i];
			hmap_set(&fi, j, (uint32_t)nu, uniq_hash, uniq);
			speedscope_frame(&ss, r->frames[i]);
			nu++;
		}
		fid[i] = fi.slot[j] - 1;
	}
	for (size_t t = 0; t < r->nth; t++) {
		const struct sthread_sum *s = &r->th[t];
		if (!s->samples)
			continue;
		speedscope_profile(&ss, s->t->role, "nanoseconds", r->window_ns);
		for (size_t i = 0; i < r->nev; i++) {
			if (r->ev[i].thread != t)
				continue;
			const struct sgroup *g = &r->g[r->ev[i].group];
			speedscope_stack(&ss);
			for (uint32_t k = 0; k < g->n; k++)
				speedscope_stack_frame(&ss, fid[g->first + k]);
		}
		speedscope_weights(&ss);
		for (size_t i = 0; i < r->nev; i++)
			if (r->ev[i].thread == t)
				speedscope_weight(&ss, r->hz ? 1000000000ull / r->hz : 1);
	}
	speedscope_end(&ss);
	hmap_free(&fi);
	free(fid);
	free(uniq);
	uint64_t bytes;
	bool known;
	return outfile_commit(&of, &bytes, &known);
}

bc_err *report_write(struct report *r, const struct report_opts *o, FILE *f)
{
	uint32_t *ix = sorted(r, o);
	if (!ix)
		return bc_error(BC_ENOMEM, "out of memory");
	bc_err *err = o->speedscope ? speedscope(r, o->speedscope) : NULL;
	if (o->json) {
		if (json(r, o, f, ix) < 0 && !err)
			err = bc_error(BC_ENOMEM, "out of memory");
	} else if (o->folded)
		folded(r, o, f, ix);
	else if (o->perf_script)
		perf_script(r, f);
	else if (!o->speedscope)
		text(r, o, f, ix);
	free(ix);
	return err;
}
