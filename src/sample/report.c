#include "report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "outfile.h"
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

static void json(const struct report *r, const struct report_opts *o, FILE *f, const uint32_t *ix)
{
	struct jw w;
	char buf[64];
	jw_init(&w, f);
	jw_obj(&w, NULL);
	jw_u64(&w, "beamcore_schema", 2);  /* main.c's JSON_SCHEMA */
	jw_str(&w, "command", "sample");
	jw_u64(&w, "pid", r->pid);
	jw_str(&w, "otp_release", r->otp_release[0] ? r->otp_release : NULL);
	jw_bool(&w, "jit", r->jit);
	jw_f64(&w, "start", r->start);
	jw_f64(&w, "seconds", (double)r->window_ns / 1e9);
	jw_u64(&w, "hz", r->hz);
	jw_u64(&w, "samples", r->samples);
	jw_u64(&w, "lost", r->lost);
	jw_str(&w, "weight", weight_reds(o) ? "reductions" : "count");
	jw_arr(&w, "schedulers");
	for (size_t i = 0; i < r->nth; i++) {
		const struct sthread_sum *s = &r->th[i];
		if (!s->t->kind)
			continue;
		jw_obj(&w, NULL);
		jw_u64(&w, "id", s->t->index);
		jw_str(&w, "type", thread_id(s->t, buf, sizeof buf));
		jw_u64(&w, "tid", (uint64_t)s->t->tid);
		jw_f64(&w, "utilisation", report_utilisation(r, s));
		jw_f64(&w, "cpu", r->window_ns ? (double)s->cpu_ns / (double)r->window_ns : 0);
		jw_u64(&w, "samples", s->samples);
		jw_u64(&w, "idle_samples", s->idle);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_arr(&w, "threads");
	for (size_t i = 0; i < r->nth; i++) {
		const struct sthread_sum *s = &r->th[i];
		if (s->t->kind || !s->samples)
			continue;
		jw_obj(&w, NULL);
		jw_str(&w, "name", s->t->comm);
		jw_u64(&w, "tid", (uint64_t)s->t->tid);
		jw_u64(&w, "samples", s->samples);
		jw_f64(&w, "cpu", r->window_ns ? (double)s->cpu_ns / (double)r->window_ns : 0);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_arr(&w, "stacks");
	for (size_t k = 0; k < r->ng && (!o->top || k < o->top); k++) {
		const struct sgroup *g = &r->g[ix[k]];
		jw_obj(&w, NULL);
		jw_arr(&w, "stack");
		for (uint32_t i = g->n; i-- > 0;)
			jw_str(&w, NULL, r->frames[g->first + i]);
		jw_arr_end(&w);
		jw_str(&w, "status", sstate_names[g->state]);
		jw_u64(&w, "count", g->count);
		jw_u64(&w, "reductions", g->reductions);
		jw_arr(&w, "pids");
		for (int i = 0; i < g->npids; i++)
			jw_str(&w, NULL, vm_pid2str(g->pids[i], buf, sizeof buf));
		jw_arr_end(&w);
		jw_arr(&w, "registered_names");
		for (int i = 0; i < g->npids; i++)
			if (g->names[i])
				jw_str(&w, NULL, g->names[i]);
		jw_arr_end(&w);
		jw_bool(&w, "more_pids", g->more_pids);
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_obj_end(&w);  /* ends the line */
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
	if (o->json)
		json(r, o, f, ix);
	else if (o->folded)
		folded(r, o, f, ix);
	else if (o->perf_script)
		perf_script(r, f);
	else if (!o->speedscope)
		text(r, o, f, ix);
	free(ix);
	return err;
}
