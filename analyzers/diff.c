/* diff A B: what changed between two snapshots of one node (cores or crash
 * dumps, mixed): erlang:memory(), ETS tables matched by name, processes
 * matched by identity (pids are not stable across restarts; names, proc_lib
 * initial calls and ancestors are) and grouped, largest memory growth first;
 * with both snapshots' times, the interval and growth rates. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyzer.h"
#include "target.h"

/* A group's sums on one side; metric 0 is always the count. */
#define NMETRIC 4
struct group {
	const char *key;               /* interned in ctx->keys */
	const char *name;              /* ETS: the table's name (NULL for processes) */
	uint64_t v[2][NMETRIC];        /* [side][metric] */
	uint32_t unknown[2];           /* metric bits: some member's value unreadable */
	bool in[2];
};

/* Groups of one kind (processes or ETS tables), found by key. */
struct gset {
	const char *const *metrics;    /* JSON names, metric 0 "count" */
	size_t nmetrics;
	int mem, second;               /* the metric growth sorts by, then this one */
	int mem_words;                 /* memory in words (ETS): text shows bytes */
	struct group *g;
	size_t n, cap;
	struct hmap index;
	uint32_t *order;               /* in both (sorted), only in A, only in B */
	size_t nboth, nonly[2];
};

static const char *const proc_metrics[] = { "count", "memory", "message_queue_len",
					    "total_heap_size" };
static const char *const ets_metrics[] = { "count", "size", "memory" };
enum { PM_COUNT, PM_MEMORY, PM_MSGQ, PM_THS };
enum { EM_COUNT, EM_SIZE, EM_MEMORY };

struct ctx {
	const struct vm *vm[2];
	struct strtab *keys;
	char *buf;                     /* the key being built */
	size_t len, cap;
	bool oom;
	struct gset procs, ets;
	size_t top;
};

static void add(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct ctx *c, const char *fmt, ...)
{
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(c->buf + c->len, c->cap - c->len, fmt, ap);
		va_end(ap);
		if (n < 0) {
			c->oom = true;
			return;
		}
		if ((size_t)n < c->cap - c->len) {
			c->len += (size_t)n;
			return;
		}
		size_t cap = (c->cap + (size_t)n + 1) * 2;  /* no cap on a key's length */
		char *b = realloc(c->buf, cap);
		if (!b) {
			c->oom = true;
			return;
		}
		c->buf = b;
		c->cap = cap;
	}
}

/* A process's identity: its registered name, else proc_lib's initial call and
 * ancestors, else its initial call. */
static void proc_key(struct ctx *c, const struct vm *vm, const struct vm_proc *p)
{
	char m[1100];
	if (p->registered_name && !(p->unknown & VPF_REGISTERED_NAME)) {
		add(c, "registered_name:%s", p->registered_name);
		return;
	}
	if (!(p->unknown & VPF_IDENTITY) && p->proc_lib_initial_call.module) {
		add(c, "proc_lib:%s", vm_mfa_str(&p->proc_lib_initial_call, m, sizeof m));
		if (p->has_ancestors) {
			add(c, " ancestors:");
			for (uint32_t i = 0; i < p->anc_n; i++)
				add(c, "%s%s", i ? "," : "", vm->ancestors[p->anc_first + i]);
		}
		return;
	}
	const char *ic = p->unknown & VPF_INITIAL_CALL ? NULL : vm_mfa_str(&p->initial_call, m, sizeof m);
	add(c, "initial_call:%s", ic ? ic : "?");
}

/* A table's identity: a named table's name; else its name, type and owner's identity. */
static void ets_key(struct ctx *c, const struct vm *vm, const struct vm_ets *t)
{
	const char *name = t->unknown & VEF_NAME ? "?" : t->name ? t->name : "?";
	if (t->named_table && !(t->unknown & VEF_NAME)) {
		add(c, "named_table:%s", name);
		return;
	}
	add(c, "table:%s type:%s owner:", name, t->type ? t->type : "?");
	const struct vm_proc *p = vm_find_proc(vm, t->owner);
	if (p) {
		proc_key(c, vm, p);
	} else {
		char b[32];
		add(c, "pid:%s", vm_pid2str(t->owner, b, sizeof b));
	}
}

static uint64_t key_hash(const void *vset, uint32_t item)
{
	const struct gset *s = vset;
	return hmap_hash_bytes(&s->g[item].key, sizeof s->g[item].key);
}

/* The group of the key in c->buf (added if new); NULL on OOM. */
static struct group *group_of(struct ctx *c, struct gset *s)
{
	if (c->oom)
		return NULL;
	const char *key = strtab_intern(c->keys, c->buf, c->len);  /* same text, same pointer */
	if (!key)
		return NULL;
	size_t j;
	for (j = hmap_first(&s->index, hmap_hash_bytes(&key, sizeof key)); s->index.slot[j];
	     j = hmap_next(&s->index, j))
		if (s->g[s->index.slot[j] - 1].key == key)
			return &s->g[s->index.slot[j] - 1];
	struct group *g = vm_grow(s->g, &s->cap, s->n, sizeof *g, 64);
	if (!g)
		return NULL;
	s->g = g;
	g = &s->g[s->n];
	memset(g, 0, sizeof *g);
	g->key = key;
	if (hmap_set(&s->index, j, (uint32_t)s->n, key_hash, s) < 0 && !s->index.slot[j])
		return NULL;
	s->n++;
	return g;
}

static void put(struct group *g, int side, int metric, uint64_t v, bool unknown)
{
	if (unknown)
		g->unknown[side] |= 1u << metric;
	else
		g->v[side][metric] += v;
}

static bc_err *collect(struct ctx *c, int side)
{
	const struct vm *vm = c->vm[side];
	for (size_t i = 0; i < vm->nprocs; i++) {
		const struct vm_proc *p = &vm->procs[i];
		c->len = 0;
		proc_key(c, vm, p);
		struct group *g = group_of(c, &c->procs);
		if (!g)
			return bc_error(BC_ENOMEM, "out of memory");
		g->in[side] = true;
		g->v[side][PM_COUNT]++;
		put(g, side, PM_MEMORY, p->memory, p->unknown & VPF_MEMORY);
		put(g, side, PM_MSGQ, p->message_queue_len, p->unknown & VPF_MESSAGE_QUEUE_LEN);
		put(g, side, PM_THS, p->total_heap_size, p->unknown & VPF_TOTAL_HEAP_SIZE);
	}
	for (size_t i = 0; i < vm->nets; i++) {
		const struct vm_ets *t = &vm->ets[i];
		c->len = 0;
		ets_key(c, vm, t);
		struct group *g = group_of(c, &c->ets);
		if (!g)
			return bc_error(BC_ENOMEM, "out of memory");
		g->in[side] = true;
		g->name = t->unknown & VEF_NAME ? NULL : t->name;
		g->v[side][EM_COUNT]++;
		put(g, side, EM_SIZE, t->size, t->unknown & VEF_SIZE);
		put(g, side, EM_MEMORY, t->memory, t->unknown & VEF_MEMORY);
	}
	return NULL;
}

static int64_t delta(const struct group *g, int m)
{
	return (int64_t)(g->v[1][m] - g->v[0][m]);
}

static bool known(const struct group *g, int side, int m)
{
	return g->in[side] && !(g->unknown[side] & (1u << m));
}

static bool dknown(const struct group *g, int m)
{
	return known(g, 0, m) && known(g, 1, m);
}

/* qsort_r on gset order entries: in both, largest memory growth first (then
 * the second metric's growth, then the key); only on one side, largest first. */
static int cmp(const void *x, const void *y, void *vset)
{
	const struct gset *s = vset;
	const struct group *a = &s->g[*(const uint32_t *)x], *b = &s->g[*(const uint32_t *)y];
	if (a->in[0] && a->in[1]) {
		int ka = dknown(a, s->mem), kb = dknown(b, s->mem);
		if (ka != kb)
			return kb - ka;  /* unknown last */
		int64_t da = delta(a, s->mem), db = delta(b, s->mem);
		if (da != db)
			return da < db ? 1 : -1;
		da = dknown(a, s->second) ? delta(a, s->second) : 0;
		db = dknown(b, s->second) ? delta(b, s->second) : 0;
		if (da != db)
			return da < db ? 1 : -1;
	} else {
		int side = a->in[1];
		uint64_t va = a->v[side][s->mem], vb = b->v[side][s->mem];
		if (va != vb)
			return va < vb ? 1 : -1;
	}
	return strcmp(a->key, b->key);
}

static bc_err *order(struct gset *s)
{
	s->order = malloc((s->n ? s->n : 1) * sizeof *s->order);
	if (!s->order)
		return bc_error(BC_ENOMEM, "out of memory");
	size_t k = 0;
	for (int part = 0; part < 3; part++) {  /* both, only A, only B */
		size_t from = k;
		for (size_t i = 0; i < s->n; i++) {
			const struct group *g = &s->g[i];
			int p = g->in[0] && g->in[1] ? 0 : g->in[0] ? 1 : 2;
			if (p == part)
				s->order[k++] = (uint32_t)i;
		}
		if (k - from > 1)
			qsort_r(s->order + from, k - from, sizeof *s->order, cmp, s);
		if (part == 0)
			s->nboth = k - from;
		else
			s->nonly[part - 1] = k - from;
	}
	return NULL;
}

static size_t cut(const struct ctx *c, size_t n)
{
	return c->top && c->top < n ? c->top : n;
}

/* ---- JSON ---- */

static void json_side(struct jw *w, const char *key, const struct gset *s, const struct group *g,
		      int side)
{
	jw_obj(w, key);
	for (size_t m = 0; m < s->nmetrics; m++)
		jw_u64_or_null(w, s->metrics[m], known(g, side, (int)m), g->v[side][m]);
	jw_obj_end(w);
}

static double relative(uint64_t a, int64_t d)
{
	return a ? (double)d / (double)a : NAN;  /* NaN: null */
}

static void json_groups(struct jw *w, const struct ctx *c, const struct gset *s, const char *key)
{
	jw_arr(w, key);
	for (size_t r = 0; r < cut(c, s->nboth); r++) {
		const struct group *g = &s->g[s->order[r]];
		jw_obj(w, NULL);
		jw_str(w, "key", g->key);
		if (s == &c->ets)
			jw_str(w, "name", g->name);
		json_side(w, "a", s, g, 0);
		json_side(w, "b", s, g, 1);
		jw_obj(w, "delta");
		for (size_t m = 0; m < s->nmetrics; m++) {
			if (dknown(g, (int)m))
				jw_i64(w, s->metrics[m], delta(g, (int)m));
			else
				jw_null(w, s->metrics[m]);
		}
		jw_obj_end(w);
		jw_obj(w, "relative");
		for (size_t m = 0; m < s->nmetrics; m++)
			jw_f64(w, s->metrics[m], dknown(g, (int)m) ? relative(g->v[0][m], delta(g, (int)m))
								   : NAN);
		jw_obj_end(w);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	char total[32];
	snprintf(total, sizeof total, "%s_total", key);
	jw_u64(w, total, s->nboth);
}

static void json_only(struct jw *w, const struct ctx *c, int side)
{
	const struct gset *sets[2] = { &c->procs, &c->ets };
	const char *kinds[2] = { "processes", "ets" };
	jw_arr(w, side ? "only_in_b" : "only_in_a");
	for (int k = 0; k < 2; k++) {
		const struct gset *s = sets[k];
		const uint32_t *o = s->order + s->nboth + (side ? s->nonly[0] : 0);
		for (size_t r = 0; r < cut(c, s->nonly[side]); r++) {
			const struct group *g = &s->g[o[r]];
			jw_obj(w, NULL);
			jw_str(w, "kind", kinds[k]);
			jw_str(w, "key", g->key);
			if (k == 1)
				jw_str(w, "name", g->name);
			json_side(w, side ? "b" : "a", s, g, side);
			jw_obj_end(w);
		}
	}
	jw_arr_end(w);
	jw_u64(w, side ? "only_in_b_total" : "only_in_a_total", c->procs.nonly[side] + c->ets.nonly[side]);
}

static bool mem_known(const struct vm *vm, int k)
{
	return vm->memory.known & (1u << k);
}

/* The matched group of the largest memory growth (NULL: none grew). */
static const struct group *fastest(const struct ctx *c)
{
	const struct group *g = c->procs.nboth ? &c->procs.g[c->procs.order[0]] : NULL;
	return g && dknown(g, PM_MEMORY) && delta(g, PM_MEMORY) > 0 ? g : NULL;
}

static double interval(const struct ctx *c)
{
	return c->vm[0]->time && c->vm[1]->time ? c->vm[1]->time - c->vm[0]->time : NAN;
}

static void json(struct jw *w, void *vctx)
{
	const struct ctx *c = vctx;
	const struct vm *a = c->vm[0], *b = c->vm[1];
	jw_obj(w, "memory");
	for (int k = 0; k < VM_MEM_COUNT; k++) {
		bool ka = mem_known(a, k), kb = mem_known(b, k);
		int64_t d = (int64_t)(b->memory.v[k] - a->memory.v[k]);
		jw_obj(w, vm_mem_names[k]);
		jw_u64_or_null(w, "a", ka, a->memory.v[k]);
		jw_u64_or_null(w, "b", kb, b->memory.v[k]);
		if (ka && kb)
			jw_i64(w, "delta", d);
		else
			jw_null(w, "delta");
		jw_f64(w, "relative", ka && kb ? relative(a->memory.v[k], d) : NAN);
		jw_obj_end(w);
	}
	jw_obj_end(w);
	json_groups(w, c, &c->procs, "processes");
	json_groups(w, c, &c->ets, "ets");
	json_only(w, c, 0);
	json_only(w, c, 1);
	double secs = interval(c);
	if (isnan(secs)) {  /* a side without a time */
		jw_null(w, "interval");
		return;
	}
	jw_obj(w, "interval");
	jw_f64(w, "a_time", a->time);
	jw_str(w, "a_time_from", a->time_from);
	jw_f64(w, "b_time", b->time);
	jw_str(w, "b_time_from", b->time_from);
	jw_f64(w, "seconds", secs);
	bool rates = secs > 0;
	jw_f64(w, "memory_total_per_second",
	       rates && mem_known(a, VM_MEM_TOTAL) && mem_known(b, VM_MEM_TOTAL)
		       ? (double)(int64_t)(b->memory.v[VM_MEM_TOTAL] - a->memory.v[VM_MEM_TOTAL]) / secs
		       : NAN);
	const struct group *f = rates ? fastest(c) : NULL;
	if (f) {
		jw_obj(w, "fastest_group");
		jw_str(w, "key", f->key);
		jw_f64(w, "memory_per_second", (double)delta(f, PM_MEMORY) / secs);
		jw_obj_end(w);
	} else {
		jw_null(w, "fastest_group");
	}
	jw_obj_end(w);
}

/* ---- text ---- */

/* "+1.5 MiB", "-12", "0"; "?" unknown */
static const char *sgn(int64_t d, bool ok, int bytes, char *buf, size_t len)
{
	char b[32];
	if (!ok)
		return "?";
	uint64_t m = d < 0 ? (uint64_t)0 - (uint64_t)d : (uint64_t)d;
	snprintf(buf, len, "%s%s", d > 0 ? "+" : d < 0 ? "-" : "",
		 bytes ? fmt_bytes(m, b, sizeof b) : fmt_count(m, b, sizeof b));
	return buf;
}

static const char *when(const struct vm *vm, char *buf, size_t len)
{
	if (!vm->time)
		return "time unknown";
	time_t t = (time_t)vm->time;
	struct tm tm;
	char s[40];
	gmtime_r(&t, &tm);
	strftime(s, sizeof s, "%Y-%m-%d %H:%M:%S UTC", &tm);
	snprintf(buf, len, "%s (%s)", s, vm->time_from);
	return buf;
}

/* A value known on both sides that differs (1); none, but one a side lacks
 * (a dump's total_heap_size of a garbage-collecting process) (2); 0 */
static int changed(const struct gset *s, const struct group *g)
{
	int lacks = 0;
	for (size_t m = 0; m < s->nmetrics; m++) {
		if (!dknown(g, (int)m))
			lacks = 2;
		else if (delta(g, (int)m))
			return 1;
	}
	return lacks;
}

static void text_groups(FILE *f, const struct ctx *c, const struct gset *s, const char *what)
{
	size_t nchanged = 0, nlacking = 0;
	for (size_t r = 0; r < s->nboth; r++) {
		int ch = changed(s, &s->g[s->order[r]]);
		nchanged += ch == 1;
		nlacking += ch == 2;
	}
	size_t shown = cut(c, nchanged);
	fprintf(f, "%s in both: %zu, %zu changed", what, s->nboth, nchanged);
	if (nlacking)
		fprintf(f, " (%zu more with a value one side lacks: --json)", nlacking);
	if (shown < nchanged)
		fprintf(f, ", the first %zu shown (--top)", shown);
	fprintf(f, "; largest memory growth first\n");
	if (!shown) {
		fprintf(f, "\n");
		return;
	}
	int ets = s == &c->ets;
	if (ets)
		fprintf(f, "  %12s %10s %8s  %s\n", "MEMORY", "SIZE", "COUNT", "TABLE");
	else
		fprintf(f, "  %12s %10s %12s %8s  %s\n", "MEMORY", "MSGQ", "TOTAL_HEAP", "COUNT", "GROUP");
	for (size_t r = 0, k = 0; r < s->nboth && k < shown; r++) {
		const struct group *g = &s->g[s->order[r]];
		if (changed(s, g) != 1)
			continue;
		k++;
		char b1[40], b2[40], b3[40], b4[40];
		int64_t dm = delta(g, s->mem);
		if (ets)
			fprintf(f, "  %12s %10s %8s  %s\n",
				sgn(dm * 8, dknown(g, EM_MEMORY), 1, b1, sizeof b1),
				sgn(delta(g, EM_SIZE), dknown(g, EM_SIZE), 0, b2, sizeof b2),
				sgn(delta(g, EM_COUNT), 1, 0, b3, sizeof b3), g->key);
		else
			fprintf(f, "  %12s %10s %12s %8s  %s\n",
				sgn(dm, dknown(g, PM_MEMORY), 1, b1, sizeof b1),
				sgn(delta(g, PM_MSGQ), dknown(g, PM_MSGQ), 0, b2, sizeof b2),
				sgn(delta(g, PM_THS) * 8, dknown(g, PM_THS), 1, b3, sizeof b3),
				sgn(delta(g, PM_COUNT), 1, 0, b4, sizeof b4), g->key);
	}
	fprintf(f, "\n");
}

static void text_only(FILE *f, const struct ctx *c, int side)
{
	const struct gset *sets[2] = { &c->procs, &c->ets };
	for (int k = 0; k < 2; k++) {
		const struct gset *s = sets[k];
		size_t n = s->nonly[side], shown = cut(c, n);
		if (!n)
			continue;
		fprintf(f, "only in %s: %zu %s", side ? "B" : "A", n,
			k ? "table groups" : "process groups");
		if (shown < n)
			fprintf(f, ", the first %zu shown (--top)", shown);
		fprintf(f, "\n");
		const uint32_t *o = s->order + s->nboth + (side ? s->nonly[0] : 0);
		for (size_t r = 0; r < shown; r++) {
			const struct group *g = &s->g[o[r]];
			char b1[32], b2[32];
			uint64_t mem = g->v[side][s->mem] * (s->mem_words ? 8 : 1);
			fprintf(f, "  %12s %8s  %s\n",
				known(g, side, s->mem) ? fmt_bytes(mem, b1, sizeof b1) : "?",
				fmt_count(g->v[side][0], b2, sizeof b2), g->key);
		}
		fprintf(f, "\n");
	}
}

static void text(FILE *f, void *vctx)
{
	const struct ctx *c = vctx;
	const struct vm *a = c->vm[0], *b = c->vm[1];
	for (int i = 0; i < 2; i++) {
		const struct vm *v = c->vm[i];
		char n[32], t[96];
		fprintf(f, "%s: %s %s: OTP %s, node %s, %s processes, %s\n", i ? "B" : "A",
			strcmp(v->kind, "core") ? "crash dump" : "core", v->source,
			v->otp_release[0] ? v->otp_release : "?", v->node ? v->node : "?",
			fmt_count(v->nprocs, n, sizeof n), when(v, t, sizeof t));
	}
	double secs = interval(c);
	if (!isnan(secs))
		fprintf(f, "interval: %.1f s%s\n", secs, secs > 0 ? "" : " (B is not later than A: no rates)");
	fprintf(f, "\n%-16s %12s %12s %12s %8s\n", "erlang:memory()", "A", "B", "CHANGE", "");
	for (int k = 0; k < VM_MEM_COUNT; k++) {
		bool ka = mem_known(a, k), kb = mem_known(b, k);
		int64_t d = (int64_t)(b->memory.v[k] - a->memory.v[k]);
		char b1[32], b2[32], b3[40], rel[32] = "";
		if (ka && kb && a->memory.v[k])
			snprintf(rel, sizeof rel, "%+.1f%%", 100.0 * (double)d / (double)a->memory.v[k]);
		fprintf(f, "  %-14s %12s %12s %12s %8s\n", vm_mem_names[k],
			ka ? fmt_bytes(a->memory.v[k], b1, sizeof b1) : "?",
			kb ? fmt_bytes(b->memory.v[k], b2, sizeof b2) : "?", sgn(d, ka && kb, 1, b3, sizeof b3),
			rel);
	}
	fprintf(f, "\n");
	text_groups(f, c, &c->procs, "process groups (by identity)");
	text_groups(f, c, &c->ets, "ETS tables (by name; unnamed by owner and type)");
	text_only(f, c, 0);
	text_only(f, c, 1);
	if (!isnan(secs) && secs > 0) {
		char b1[40], b2[40];
		bool tk = mem_known(a, VM_MEM_TOTAL) && mem_known(b, VM_MEM_TOTAL);
		int64_t d = (int64_t)(b->memory.v[VM_MEM_TOTAL] - a->memory.v[VM_MEM_TOTAL]);
		fprintf(f, "rates over %.1f s: memory total %s/s", secs,
			sgn((int64_t)((double)d / secs), tk, 1, b1, sizeof b1));
		const struct group *g = fastest(c);
		if (g)
			fprintf(f, "; fastest-growing group %s/s: %s",
				sgn((int64_t)((double)delta(g, PM_MEMORY) / secs), 1, 1, b2, sizeof b2), g->key);
		fprintf(f, "\n");
	}
}

static void gset_init(struct gset *s, const char *const *metrics, size_t n, int mem, int second)
{
	s->metrics = metrics;
	s->nmetrics = n;
	s->mem = mem;
	s->second = second;
}

static void ctx_release(void *vctx)
{
	struct ctx *c = vctx;
	strtab_free(c->keys);
	free(c->buf);
	struct gset *sets[2] = { &c->procs, &c->ets };
	for (int i = 0; i < 2; i++) {
		free(sets[i]->g);
		hmap_free(&sets[i]->index);
		free(sets[i]->order);
	}
	free(c);
}

static bc_err *run2(const struct vm *a, const struct vm *b, const struct an_opts *o,
		    struct an_out *out)
{
	struct ctx *c = an_own(out, calloc(1, sizeof *c), ctx_release);
	if (!c)
		return bc_error(BC_ENOMEM, "out of memory");
	out->ctx = c;
	c->vm[0] = a;
	c->vm[1] = b;
	c->top = o->top;
	gset_init(&c->procs, proc_metrics, 4, PM_MEMORY, PM_MSGQ);
	gset_init(&c->ets, ets_metrics, 3, EM_MEMORY, EM_SIZE);
	c->ets.mem_words = 1;
	bc_err *err = NULL;
	c->cap = 256;  /* grown by add() */
	if (!(c->buf = malloc(c->cap)) || !(c->keys = strtab_new()) ||
	    hmap_init(&c->procs.index, 1024) < 0 ||
	    hmap_init(&c->ets.index, 256) < 0)
		return bc_error(BC_ENOMEM, "out of memory");
	for (int side = 0; side < 2 && !err; side++)
		err = collect(c, side);
	if (!err)
		err = order(&c->procs);
	if (!err)
		err = order(&c->ets);
	if (err)
		return err;
	out->json = json;
	out->text = text;
	return NULL;
}

const struct analyzer analyzer_diff = {
	.name = "diff",
	.summary = "what changed between two snapshots of a node: memory, ETS tables, processes",
	.needs = NEED_PROCS | NEED_ETS | NEED_MEMORY,
	.opts = AO_JSON | AO_TOP,
	.targets = 2,
	.run2 = run2,
};
