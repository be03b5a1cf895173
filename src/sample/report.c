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
		struct sgroup *ng = grow(r->g, &r->gcap, r->ng, sizeof *ng, 256);
		if (!ng)
			return -1;
		r->g = ng;
		const char **nf = n ? grow(r->frames, &r->fcap, r->nframes + n - 1, sizeof *nf, 4096)
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
	struct sevent *e = grow(r->ev, &r->evcap, r->nev, sizeof *e, 4096);
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

/* The output, described as records (render/record.h): JSON (docs/schema/
 * sample.json) the window, "schedulers", the other "threads" that ran, the
 * "stacks"; text a title, a table of the schedulers, one of the heaviest
 * stacks. Record ids: a scheduler's or thread's index in r->th, a stack's rank. */
struct jctx {
	const struct report *r;
	const struct report_opts *o;
	const uint32_t *ix;          /* the stacks, heaviest first */
	uint32_t *sched, *other;     /* r->th indices: schedulers; other threads that ran */
	uint32_t *shown;             /* text: the normal schedulers and those that ran */
	size_t nsched, nother, nshown;
	size_t text_top;             /* text: the stacks shown (--top, default 20) */
	uint64_t total;              /* text: what every stack weighs */
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
	{ .key = "role", .kind = RF_STR, .flags = RCOL_TEXT_ONLY },  /* "scheduler 1" */
};
static const char *const sched_line[] = { "role", "tid", "utilisation", "cpu", "samples", NULL };

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
	case 7: v->s = s->t->role; break;
	}
	v->text = RT_FIXED2;  /* (the shares) */
}

static const struct rrec sched_rec = {
	.fields = sched_fields, .nfields = 8, .get = sched_get,
	.line = "%-24s %8s %12s %8s %8s\n", .line_keys = sched_line,
};

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

enum { SK_STACK, SK_STATUS, SK_COUNT, SK_REDUCTIONS, SK_PIDS, SK_NAMES, SK_MORE, SK_WEIGHT,
       SK_PERCENT, SK_WHO, SK_STATUS_TEXT };
static const struct rfield stack_fields[] = {
	{ .key = "stack", .kind = RF_STRS, .sep = " <- " },  /* innermost first */
	{ .key = "status", .kind = RF_STR },
	{ .key = "count", .kind = RF_U64 },
	{ .key = "reductions", .kind = RF_U64 },
	{ .key = "pids", .kind = RF_STRS },
	{ .key = "registered_names", .kind = RF_STRS },
	{ .key = "more_pids", .kind = RF_BOOL },
	/* text: "     12  40.0%  my_server    [running] f/1 <- g/2" */
	{ .key = "weight", .kind = RF_U64, .flags = RCOL_TEXT_ONLY },
	{ .key = "percent", .kind = RF_F64, .flags = RCOL_TEXT_ONLY },
	{ .key = "who", .kind = RF_STR, .text = RT_RAW, .flags = RCOL_TEXT_ONLY },
	{ .key = "status_text", .kind = RF_STR, .text = RT_RAW, .flags = RCOL_TEXT_ONLY },
};
static const char *const stack_line[] = { "weight", "percent", "who", "status_text", "stack",
					   NULL };

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
	case SK_WEIGHT: v->u = gweight(g, c->o); break;
	case SK_PERCENT:
		v->f = c->total ? 100.0 * (double)gweight(g, c->o) / (double)c->total : 0.0;
		break;
	case SK_WHO: {
		char pid[64], who[96] = "-";  /* (cut as it always was) */
		if (g->npids == 1)
			snprintf(who, sizeof who, "%s", g->names[0] ? g->names[0]
					: vm_pid2str(g->pids[0], pid, sizeof pid));
		else if (g->npids > 1)
			snprintf(who, sizeof who, "%d%s procs", g->npids, g->more_pids ? "+" : "");
		snprintf(buf, len, "%s", who);
		v->s = buf;
		break;
	}
	case SK_STATUS_TEXT:
		snprintf(buf, len, c->o->by_status ? "[%s] " : "", sstate_names[g->state]);
		v->s = buf;
		break;
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
	.fields = stack_fields, .nfields = sizeof stack_fields / sizeof *stack_fields,
	.get = stack_get, .item_str = stack_str, .line = "%8s %5s%%  %-12s %s%s\n",
	.line_keys = stack_line,
};

enum { SR_TITLE, SR_PID, SR_OTP, SR_JIT, SR_START, SR_SECONDS, SR_HZ, SR_SAMPLES, SR_LOST,
       SR_WEIGHT, SR_SCHEDULERS, SR_THREADS, SR_STACKS, SR_SHOWN, SR_STACKS_TITLE,
       SR_STACKS_SHOWN, SR_MORE };
static const char *const title_line[] = { "title", "=SCHEDULER", "=TID", "=UTILISATION", "=CPU",
					  "=SAMPLES", NULL };
static const char *const stacks_title_line[] = { "stacks_title", "=%", "=PROCESS",
						 "=STACK (innermost first)", NULL };
static const char *const more_line[] = { "more", NULL };
static const struct rfield sample_fields[] = {
	/* text: "sample: pid 42 (OTP 27, JIT), 5.00 s at 99 Hz: 990 samples" */
	{ .key = "title", .kind = RF_STR, .text = RT_RAW, .flags = RCOL_TEXT_ONLY,
	  .line = "%s\n\n%-24s %8s %12s %8s %8s\n", .line_keys = title_line },
	{ .key = "pid", .kind = RF_U64 },
	{ .key = "otp_release", .kind = RF_STR },
	{ .key = "jit", .kind = RF_BOOL },
	{ .key = "start", .kind = RF_F64 },
	{ .key = "seconds", .kind = RF_F64 },
	{ .key = "hz", .kind = RF_U64 },
	{ .key = "samples", .kind = RF_U64 },
	{ .key = "lost", .kind = RF_U64 },
	{ .key = "weight", .kind = RF_STR },
	{ .key = "schedulers", .kind = RF_LIST, .flags = RCOL_JSON_ONLY },
	{ .key = "threads", .kind = RF_LIST, .flags = RCOL_JSON_ONLY },
	{ .key = "stacks", .kind = RF_LIST, .flags = RCOL_JSON_ONLY },
	/* text: the schedulers that ran (and every normal one), the heaviest stacks */
	{ .key = "shown", .kind = RF_LIST, .flags = RCOL_TEXT_ONLY },
	{ .key = "stacks_title", .kind = RF_STR, .flags = RCOL_TEXT_ONLY,
	  .line = "\n%8s %6s  %-12s %s\n", .line_keys = stacks_title_line },
	{ .key = "stacks_shown", .kind = RF_LIST, .flags = RCOL_TEXT_ONLY },
	{ .key = "more", .kind = RF_STR, .flags = RCOL_TEXT_ONLY, .line = "%s", .line_keys = more_line },
};

static void sample_get(void *ctx, uint64_t id, size_t f, struct rval *v, char *buf, size_t len)
{
	(void)id;
	const struct jctx *c = ctx;
	const struct report *r = c->r;
	switch (f) {
	case SR_TITLE: {
		int n = snprintf(buf, len, "sample: pid %llu (OTP %s, %s), %.2f s at %llu Hz: %llu samples",
				 (unsigned long long)r->pid, r->otp_release[0] ? r->otp_release : "?",
				 r->jit ? "JIT" : "emu", (double)r->window_ns / 1e9,
				 (unsigned long long)r->hz, (unsigned long long)r->samples);
		if (r->lost && n >= 0 && (size_t)n < len)
			snprintf(buf + n, len - (size_t)n, " (%llu lost)", (unsigned long long)r->lost);
		v->s = buf;
		break;
	}
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
	case SR_SHOWN: v->n = c->nshown; v->rec = &sched_rec; break;
	case SR_STACKS_TITLE: v->s = weight_reds(c->o) ? "REDS" : "SAMPLES"; break;
	case SR_STACKS_SHOWN:
		v->n = c->text_top < r->ng ? c->text_top : r->ng;
		v->rec = &stack_rec;
		break;
	case SR_MORE:
		snprintf(buf, len, "... %zu more stacks (--top N)\n", r->ng - c->text_top);
		v->s = buf;
		v->absent = r->ng <= c->text_top;
		break;
	}
}

static uint64_t sample_item(void *ctx, uint64_t id, size_t f, size_t i)
{
	(void)id;
	const struct jctx *c = ctx;
	return f == SR_SCHEDULERS ? c->sched[i] : f == SR_THREADS ? c->other[i]
	     : f == SR_SHOWN ? c->shown[i] : i;
}

static const struct rrec sample_rec = {
	.fields = sample_fields, .nfields = sizeof sample_fields / sizeof *sample_fields,
	.get = sample_get, .item = sample_item,
};

/* The text, or with json the JSON document; -1: out of memory. */
static int describe(const struct report *r, const struct report_opts *o, FILE *f,
		    const uint32_t *ix, int json)
{
	struct jctx c = { r, o, ix, calloc(r->nth + 1, sizeof *c.sched),
			  calloc(r->nth + 1, sizeof *c.other), calloc(r->nth + 1, sizeof *c.shown),
			  0, 0, 0, o->top ? o->top : 20, 0 };
	for (size_t k = 0; k < r->ng; k++)
		c.total += gweight(&r->g[k], o);
	if (!c.sched || !c.other || !c.shown) {
		free(c.sched);
		free(c.other);
		free(c.shown);
		return -1;
	}
	for (size_t i = 0; i < r->nth; i++) {
		const struct sthread_sum *s = &r->th[i];
		if (s->t->kind)
			c.sched[c.nsched++] = (uint32_t)i;
		else if (s->samples)
			c.other[c.nother++] = (uint32_t)i;
		if (s->t->kind && (s->samples || s->t->kind == BS_NORMAL))
			c.shown[c.nshown++] = (uint32_t)i;
	}
	struct rdoc d = { &sample_rec, &c, 0 };
	if (json) {
		struct jw w;
		jw_init(&w, f);
		jw_obj(&w, NULL);
		jw_u64(&w, "beamcore_schema", JSON_SCHEMA);
		jw_str(&w, "command", "sample");
		render_doc_json(&w, &d);
		jw_obj_end(&w);  /* ends the line */
	} else {
		render_doc_text(f, &d);
	}
	free(c.sched);
	free(c.other);
	free(c.shown);
	return 0;
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
	if (o->json || (!o->folded && !o->perf_script && !o->speedscope)) {
		if (describe(r, o, f, ix, o->json) < 0 && !err)
			err = bc_error(BC_ENOMEM, "out of memory");
	} else if (o->folded)
		folded(r, o, f, ix);
	else if (o->perf_script)
		perf_script(r, f);
	free(ix);
	return err;
}
