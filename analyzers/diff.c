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
#include "needs.h"

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
	uint32_t *changed;             /* those in both that changed (find_changed) */
	size_t nchanged, nlacking;
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
	if (!(p->unknown & VPF_IDENTITY) && p->proc_lib_initial_call->module) {
		add(c, "proc_lib:%s", vm_mfa_str(p->proc_lib_initial_call, m, sizeof m));
		if (p->has_ancestors) {
			add(c, " ancestors:");
			for (uint32_t i = 0; i < p->anc_n; i++)
				add(c, "%s%s", i ? "," : "", vm->ancestors[p->anc_first + i]);
		}
		return;
	}
	const char *ic = p->unknown & VPF_INITIAL_CALL ? NULL : vm_mfa_str(p->initial_call, m, sizeof m);
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
	struct group *g = grow(s->g, &s->cap, s->n, sizeof *g, 64);
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

static double relative(uint64_t a, int64_t d)
{
	return a ? (double)d / (double)a : NAN;  /* NaN: null */
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

/* Whether the interval can carry per-second rates, the one rule text and JSON
 * share. Each time is the start of its clock's step (a dump header's whole
 * second), so B - A is between secs - A's step and secs + B's step: rates only
 * when that is surely later and the steps together are no longer than the
 * interval (two cores' mtimes: any positive interval); else why not, in buf. */
static bool rates_known(const struct ctx *c, char *buf, size_t len)
{
	const struct vm *a = c->vm[0], *b = c->vm[1];
	double secs = interval(c), lo = secs - a->time_step, hi = secs + b->time_step;
	double steps = a->time_step + b->time_step;
	if (isnan(secs)) {
		snprintf(buf, len, "a target's time is unknown");
		return false;
	}
	if (hi <= 0) {
		snprintf(buf, len, "B is not later than A");
		return false;
	}
	if (lo > 0 && secs >= steps)
		return true;
	const char *clock = a->time_step > 0 && b->time_step > 0 ? "both clocks have"
			    : "the dump's clock has";
	if (lo > 0)
		snprintf(buf, len, "between %.1f and %.1f s: %s whole seconds", lo, hi, clock);
	else
		snprintf(buf, len, "under %.1f s: %s whole seconds", hi, clock);
	return false;
}

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

/* ---- the output ----
 * JSON: "memory" (each erlang:memory() key: a, b, delta, relative),
 * "processes" and "ets" (the groups in both, largest growth first), "only_in_a"
 * and "only_in_b", "interval". Text: the two targets, the memory table, the
 * groups that changed, those only on one side, the rates.
 * A group's record id: its index in its set's g, | ID_ETS (the ETS set),
 * | ID_B (only_in_b's side), | ID_ONLY (an only_in_* item). */
#define ID_ETS (1ull << 32)
#define ID_B (1ull << 33)
#define ID_ONLY (1ull << 34)

static const struct gset *set_of(const struct ctx *c, uint64_t id)
{
	return id & ID_ETS ? &c->ets : &c->procs;
}

/* A side's values (a, b), the deltas, the relative changes: the set's metrics */
static void metrics_get(void *ctx, uint64_t id, size_t m, struct rval *v, char *buf, size_t len,
			int what)
{
	(void)buf, (void)len;
	const struct gset *s = set_of(ctx, id);
	const struct group *g = &s->g[(uint32_t)id];
	int side = (id & ID_B) != 0;
	if (what == 0) {
		v->u = g->v[side][m];
		v->null = !known(g, side, (int)m);
	} else if (what == 1) {
		v->i = delta(g, (int)m);
		v->null = !dknown(g, (int)m);
	} else {
		v->f = dknown(g, (int)m) ? relative(g->v[0][m], delta(g, (int)m)) : NAN;
	}
}

static void side_get(void *ctx, uint64_t id, size_t m, struct rval *v, char *buf, size_t len)
{
	metrics_get(ctx, id, m, v, buf, len, 0);
}

static void delta_get(void *ctx, uint64_t id, size_t m, struct rval *v, char *buf, size_t len)
{
	metrics_get(ctx, id, m, v, buf, len, 1);
}

static void relative_get(void *ctx, uint64_t id, size_t m, struct rval *v, char *buf, size_t len)
{
	metrics_get(ctx, id, m, v, buf, len, 2);
}

#define METRIC(name, k) { .key = name, .kind = k }
static const struct rfield proc_side_f[] = { METRIC("count", RF_U64), METRIC("memory", RF_U64),
	METRIC("message_queue_len", RF_U64), METRIC("total_heap_size", RF_U64) };
static const struct rfield proc_delta_f[] = { METRIC("count", RF_I64), METRIC("memory", RF_I64),
	METRIC("message_queue_len", RF_I64), METRIC("total_heap_size", RF_I64) };
static const struct rfield proc_rel_f[] = { METRIC("count", RF_F64), METRIC("memory", RF_F64),
	METRIC("message_queue_len", RF_F64), METRIC("total_heap_size", RF_F64) };
static const struct rfield ets_side_f[] = { METRIC("count", RF_U64), METRIC("size", RF_U64),
	METRIC("memory", RF_U64) };
static const struct rfield ets_delta_f[] = { METRIC("count", RF_I64), METRIC("size", RF_I64),
	METRIC("memory", RF_I64) };
static const struct rfield ets_rel_f[] = { METRIC("count", RF_F64), METRIC("size", RF_F64),
	METRIC("memory", RF_F64) };
/* [set][side, delta, relative] */
static const struct rrec metric_recs[2][3] = {
	{ { .fields = proc_side_f, .nfields = 4, .get = side_get },
	  { .fields = proc_delta_f, .nfields = 4, .get = delta_get },
	  { .fields = proc_rel_f, .nfields = 4, .get = relative_get } },
	{ { .fields = ets_side_f, .nfields = 3, .get = side_get },
	  { .fields = ets_delta_f, .nfields = 3, .get = delta_get },
	  { .fields = ets_rel_f, .nfields = 3, .get = relative_get } },
};

enum { G_KIND, G_KEY, G_NAME, G_A, G_B, G_DELTA, G_RELATIVE, G_T_MEMORY, G_T_SECOND, G_T_HEAP,
       G_T_COUNT, G_O_MEMORY, G_O_COUNT };
static const struct rfield group_fields[] = {
	{ .key = "kind", .kind = RF_STR },
	{ .key = "key", .kind = RF_STR, .text = RT_RAW },
	{ .key = "name", .kind = RF_STR },
	{ .key = "a", .kind = RF_REC },
	{ .key = "b", .kind = RF_REC },
	{ .key = "delta", .kind = RF_REC },
	{ .key = "relative", .kind = RF_REC },
	/* text: the changes (memory and total_heap_size in bytes), a side's sums */
	{ .key = "t_memory", .kind = RF_I64, .text = RT_SIGNED_BYTES, .flags = RCOL_TEXT_ONLY },
	{ .key = "t_second", .kind = RF_I64, .text = RT_SIGNED_COUNT, .flags = RCOL_TEXT_ONLY },
	{ .key = "t_heap", .kind = RF_I64, .text = RT_SIGNED_BYTES, .flags = RCOL_TEXT_ONLY },
	{ .key = "t_count", .kind = RF_I64, .text = RT_SIGNED_COUNT, .flags = RCOL_TEXT_ONLY },
	{ .key = "o_memory", .kind = RF_U64, .text = RT_BYTES, .flags = RCOL_TEXT_ONLY },
	{ .key = "o_count", .kind = RF_U64, .text = RT_COUNT, .flags = RCOL_TEXT_ONLY },
};

static void group_get(void *ctx, uint64_t id, size_t f, struct rval *v, char *buf, size_t len)
{
	(void)buf, (void)len;
	const struct gset *s = set_of(ctx, id);
	const struct group *g = &s->g[(uint32_t)id];
	bool only = id & ID_ONLY, ets = id & ID_ETS;
	int side = (id & ID_B) != 0;
	int scale = s->mem_words ? 8 : 1;
	switch (f) {
	case G_KIND: v->s = ets ? "ets" : "processes"; v->absent = !only; break;
	case G_KEY: v->s = g->key; break;
	case G_NAME: v->s = g->name; v->absent = !ets; break;
	case G_A:
	case G_B:
		v->absent = only && side != (int)(f - G_A);
		v->id = (id & ~ID_B) | (f == G_B ? ID_B : 0);
		v->rec = &metric_recs[ets][0];
		break;
	case G_DELTA:
	case G_RELATIVE:
		v->absent = only;
		v->id = id;
		v->rec = &metric_recs[ets][f == G_DELTA ? 1 : 2];
		break;
	case G_T_MEMORY: v->i = delta(g, s->mem) * scale; v->null = !dknown(g, s->mem); break;
	case G_T_SECOND: v->i = delta(g, s->second); v->null = !dknown(g, s->second); break;
	case G_T_HEAP: v->i = delta(g, PM_THS) * 8; v->null = !dknown(g, PM_THS); break;
	case G_T_COUNT: v->i = delta(g, 0); break;
	case G_O_MEMORY: v->u = g->v[side][s->mem] * (uint64_t)scale; v->null = !known(g, side, s->mem); break;
	case G_O_COUNT: v->u = g->v[side][0]; break;
	}
}

static const char *const proc_changed_line[] = { "t_memory", "t_second", "t_heap", "t_count",
						  "key", NULL };
static const char *const ets_changed_line[] = { "t_memory", "t_second", "t_count", "key", NULL };
static const char *const only_line[] = { "o_memory", "o_count", "key", NULL };
#define GROUP_REC .fields = group_fields, .nfields = sizeof group_fields / sizeof *group_fields, \
		  .get = group_get
static const struct rrec group_rec = { GROUP_REC };
static const struct rrec proc_changed_rec = { GROUP_REC, .line = "  %12s %10s %12s %8s  %s\n",
					      .line_keys = proc_changed_line };
static const struct rrec ets_changed_rec = { GROUP_REC, .line = "  %12s %10s %8s  %s\n",
					     .line_keys = ets_changed_line };
static const struct rrec only_rec = { GROUP_REC, .line = "  %12s %8s  %s\n", .line_keys = only_line };

/* erlang:memory(): a record per key (record id: the key's index) */
enum { M_NAME, M_A, M_B, M_DELTA, M_RELATIVE, M_RELATIVE_TEXT };
static const struct rfield memrow_fields[] = {
	{ .key = "name", .kind = RF_STR, .text = RT_RAW, .flags = RCOL_TEXT_ONLY },
	{ .key = "a", .kind = RF_U64, .text = RT_BYTES },
	{ .key = "b", .kind = RF_U64, .text = RT_BYTES },
	{ .key = "delta", .kind = RF_I64, .text = RT_SIGNED_BYTES },
	{ .key = "relative", .kind = RF_F64, .flags = RCOL_JSON_ONLY },
	{ .key = "relative_text", .kind = RF_STR, .flags = RCOL_TEXT_ONLY },  /* "+1.5%" */
};

static void memrow_get(void *ctx, uint64_t k, size_t f, struct rval *v, char *buf, size_t len)
{
	const struct ctx *c = ctx;
	const struct vm *a = c->vm[0], *b = c->vm[1];
	bool ka = mem_known(a, (int)k), kb = mem_known(b, (int)k);
	int64_t d = (int64_t)(b->memory.v[k] - a->memory.v[k]);
	switch (f) {
	case M_NAME: v->s = vm_mem_names[k]; break;
	case M_A: v->u = a->memory.v[k]; v->null = !ka; break;
	case M_B: v->u = b->memory.v[k]; v->null = !kb; break;
	case M_DELTA: v->i = d; v->null = !ka || !kb; break;
	case M_RELATIVE: v->f = ka && kb ? relative(a->memory.v[k], d) : NAN; break;
	case M_RELATIVE_TEXT:
		buf[0] = '\0';
		if (ka && kb && a->memory.v[k])
			snprintf(buf, len, "%+.1f%%", 100.0 * (double)d / (double)a->memory.v[k]);
		v->s = buf;
		break;
	}
}

static const char *const memrow_line[] = { "name", "a", "b", "delta", "relative_text", NULL };
static const struct rrec memrow_rec = {
	.fields = memrow_fields, .nfields = 6, .get = memrow_get,
	.line = "  %-14s %12s %12s %12s %8s\n", .line_keys = memrow_line,
};

static void memory_get(void *ctx, uint64_t id, size_t k, struct rval *v, char *buf, size_t len)
{
	(void)ctx, (void)id, (void)buf, (void)len;
	v->id = k;
	v->rec = &memrow_rec;
}

/* (fields: the erlang:memory() keys, made once: vm_mem_names) */
static struct rfield memory_fields[VM_MEM_COUNT];
static const char *const memory_line[] = { "=erlang:memory()", "=A", "=B", "=CHANGE", "=", NULL };
static const struct rrec memory_rec = {
	.fields = memory_fields, .nfields = VM_MEM_COUNT, .get = memory_get,
	.line = "\n%-16s %12s %12s %12s %8s\n", .line_keys = memory_line, .tail = "\n",
};

/* "interval": the times, the interval, the rates */
enum { I_A_TIME, I_A_FROM, I_B_TIME, I_B_FROM, I_SECONDS, I_STEPS, I_NO_RATES, I_MEMORY_RATE,
       I_FASTEST };
static const struct rfield interval_fields[] = {
	{ .key = "a_time", .kind = RF_F64 },
	{ .key = "a_time_from", .kind = RF_STR },
	{ .key = "b_time", .kind = RF_F64 },
	{ .key = "b_time_from", .kind = RF_STR },
	{ .key = "seconds", .kind = RF_F64 },
	{ .key = "clock_steps", .kind = RF_F64 },
	{ .key = "no_rates", .kind = RF_STR },
	{ .key = "memory_total_per_second", .kind = RF_F64 },
	{ .key = "fastest_group", .kind = RF_REC },
};
static const struct rfield fastest_fields[] = {
	{ .key = "key", .kind = RF_STR },
	{ .key = "memory_per_second", .kind = RF_F64 },
};

static void fastest_get(void *ctx, uint64_t id, size_t f, struct rval *v, char *buf, size_t len)
{
	(void)id, (void)buf, (void)len;
	const struct ctx *c = ctx;
	const struct group *g = fastest(c);
	if (f == 0)
		v->s = g->key;
	else
		v->f = (double)delta(g, PM_MEMORY) / interval(c);
}

static const struct rrec fastest_rec = { .fields = fastest_fields, .nfields = 2, .get = fastest_get };

static void interval_get(void *ctx, uint64_t id, size_t f, struct rval *v, char *buf, size_t len)
{
	(void)id;
	const struct ctx *c = ctx;
	const struct vm *a = c->vm[0], *b = c->vm[1];
	double secs = interval(c);
	bool rates = rates_known(c, buf, len);
	switch (f) {
	case I_A_TIME: v->f = a->time; break;
	case I_A_FROM: v->s = a->time_from; break;
	case I_B_TIME: v->f = b->time; break;
	case I_B_FROM: v->s = b->time_from; break;
	case I_SECONDS: v->f = secs; break;
	case I_STEPS: v->f = a->time_step + b->time_step; break;
	case I_NO_RATES: v->s = rates ? NULL : buf; break;
	case I_MEMORY_RATE:
		v->f = rates && mem_known(a, VM_MEM_TOTAL) && mem_known(b, VM_MEM_TOTAL)
			? (double)(int64_t)(b->memory.v[VM_MEM_TOTAL] - a->memory.v[VM_MEM_TOTAL]) / secs
			: NAN;
		break;
	case I_FASTEST:
		v->null = !rates || !fastest(c);
		v->rec = &fastest_rec;
		break;
	}
}

static const struct rrec interval_rec = {
	.fields = interval_fields, .nfields = 9, .get = interval_get,
};

enum { D_TARGETS, D_MEMORY, D_PROCS, D_PROCS_TOTAL, D_PROCS_CHANGED, D_ETS, D_ETS_TOTAL,
       D_ETS_CHANGED, D_ONLY_A, D_ONLY_A_TOTAL, D_ONLY_A_PROCS, D_ONLY_A_ETS, D_ONLY_B,
       D_ONLY_B_TOTAL, D_ONLY_B_PROCS, D_ONLY_B_ETS, D_INTERVAL, D_RATES };
static const char *const targets_line[] = { "targets", NULL };
static const char *const rates_line[] = { "rates", NULL };
static const struct rfield diff_fields[] = {
	/* "A: core ...: OTP 27, node n@h, 1,234 processes, TIME" for A and B, the interval */
	{ .key = "targets", .kind = RF_STR, .text = RT_RAW, .flags = RCOL_TEXT_ONLY,
	  .line = "%s", .line_keys = targets_line },
	{ .key = "memory", .kind = RF_REC },
	{ .key = "processes", .kind = RF_LIST, .flags = RCOL_JSON_ONLY },
	{ .key = "processes_total", .kind = RF_U64 },
	{ .key = "processes_changed", .kind = RF_LIST, .flags = RCOL_TEXT_ONLY, .tail = "\n",
	  .head = "        MEMORY       MSGQ   TOTAL_HEAP    COUNT  GROUP\n" },
	{ .key = "ets", .kind = RF_LIST, .flags = RCOL_JSON_ONLY },
	{ .key = "ets_total", .kind = RF_U64 },
	{ .key = "ets_changed", .kind = RF_LIST, .flags = RCOL_TEXT_ONLY, .tail = "\n",
	  .head = "        MEMORY       SIZE    COUNT  TABLE\n" },
	{ .key = "only_in_a", .kind = RF_LIST, .flags = RCOL_JSON_ONLY },
	{ .key = "only_in_a_total", .kind = RF_U64 },
	{ .key = "only_a_procs", .kind = RF_LIST, .flags = RCOL_TEXT_ONLY, .tail = "\n" },
	{ .key = "only_a_ets", .kind = RF_LIST, .flags = RCOL_TEXT_ONLY, .tail = "\n" },
	{ .key = "only_in_b", .kind = RF_LIST, .flags = RCOL_JSON_ONLY },
	{ .key = "only_in_b_total", .kind = RF_U64 },
	{ .key = "only_b_procs", .kind = RF_LIST, .flags = RCOL_TEXT_ONLY, .tail = "\n" },
	{ .key = "only_b_ets", .kind = RF_LIST, .flags = RCOL_TEXT_ONLY, .tail = "\n" },
	{ .key = "interval", .kind = RF_REC },
	/* "rates over 60.0 s: memory total +1.2 KiB/s; fastest-growing group ..." */
	{ .key = "rates", .kind = RF_STR, .text = RT_RAW, .flags = RCOL_TEXT_ONLY,
	  .line = "%s", .line_keys = rates_line },
};

static void targets_text(const struct ctx *c, char *buf, size_t len)
{
	size_t o = 0;
	for (int i = 0; i < 2 && o < len; i++) {
		const struct vm *v = c->vm[i];
		char n[32], t[96];
		o += (size_t)snprintf(buf + o, len - o, "%s: %s %s: OTP %s, node %s, %s processes, %s\n",
				      i ? "B" : "A", strcmp(v->kind, "core") ? "crash dump" : "core",
				      v->source, v->otp_release[0] ? v->otp_release : "?",
				      v->node ? v->node : "?", fmt_count(v->nprocs, n, sizeof n),
				      when(v, t, sizeof t));
	}
	double secs = interval(c);
	char why[128];
	if (isnan(secs) || o >= len)
		return;
	if (rates_known(c, why, sizeof why))
		snprintf(buf + o, len - o, "interval: %.1f s\n", secs);
	else if (secs + c->vm[1]->time_step <= 0)
		snprintf(buf + o, len - o, "interval: %.1f s (%s: no rates)\n", secs, why);
	else
		snprintf(buf + o, len - o, "interval: %s (no rates)\n", why);
}

static void rates_text(const struct ctx *c, char *buf, size_t len)
{
	const struct vm *a = c->vm[0], *b = c->vm[1];
	double secs = interval(c);
	char b1[40], b2[40];
	bool tk = mem_known(a, VM_MEM_TOTAL) && mem_known(b, VM_MEM_TOTAL);
	int64_t d = (int64_t)(b->memory.v[VM_MEM_TOTAL] - a->memory.v[VM_MEM_TOTAL]);
	size_t o = (size_t)snprintf(buf, len, "rates over %.1f s: memory total %s/s", secs,
				    sgn((int64_t)((double)d / secs), tk, 1, b1, sizeof b1));
	const struct group *g = fastest(c);
	if (g && o < len)
		o += (size_t)snprintf(buf + o, len - o, "; fastest-growing group %s/s: %s",
				      sgn((int64_t)((double)delta(g, PM_MEMORY) / secs), 1, 1, b2,
					  sizeof b2), g->key);
	if (o < len)
		snprintf(buf + o, len - o, "\n");
}

/* "process groups (by identity) in both: 12, 3 changed; ..." */
static void changed_head(const struct ctx *c, const struct gset *s, char *buf, size_t len)
{
	size_t shown = cut(c, s->nchanged);
	size_t o = (size_t)snprintf(buf, len, "%s in both: %zu, %zu changed",
				    s == &c->ets ? "ETS tables (by name; unnamed by owner and type)"
						 : "process groups (by identity)",
				    s->nboth, s->nchanged);
	if (s->nlacking && o < len)
		o += (size_t)snprintf(buf + o, len - o, " (%zu more with a value one side lacks: --json)",
				      s->nlacking);
	if (shown < s->nchanged && o < len)
		o += (size_t)snprintf(buf + o, len - o, ", the first %zu shown (--top)", shown);
	if (o < len)
		snprintf(buf + o, len - o, "; largest memory growth first\n");
}

/* "only in A: 3 process groups, the first 2 shown (--top)"; absent when none */
static void only_list(const struct ctx *c, const struct gset *s, int side, struct rval *v,
		      char *buf, size_t len)
{
	size_t n = s->nonly[side];
	v->n = cut(c, n);
	v->absent = !n;
	v->rec = &only_rec;
	int o = snprintf(buf, len, "only in %s: %zu %s", side ? "B" : "A", n,
			 s == &c->ets ? "table groups" : "process groups");
	if (v->n < n && o >= 0 && (size_t)o < len)
		o += snprintf(buf + o, len - (size_t)o, ", the first %zu shown (--top)", v->n);
	if (o >= 0 && (size_t)o < len)
		snprintf(buf + o, len - (size_t)o, "\n");
	v->s = buf;
}

static void diff_get(void *ctx, uint64_t id, size_t f, struct rval *v, char *buf, size_t len)
{
	(void)id;
	const struct ctx *c = ctx;
	const struct gset *only[2][2] = { { &c->procs, &c->ets }, { &c->procs, &c->ets } };
	double secs = interval(c);
	switch (f) {
	case D_TARGETS: targets_text(c, buf, len); v->s = buf; break;
	case D_MEMORY: v->rec = &memory_rec; break;
	case D_PROCS: v->n = cut(c, c->procs.nboth); v->rec = &group_rec; break;
	case D_PROCS_TOTAL: v->u = c->procs.nboth; break;
	case D_PROCS_CHANGED:
		changed_head(c, &c->procs, buf, len);
		v->s = buf;
		v->n = cut(c, c->procs.nchanged);
		v->rec = &proc_changed_rec;
		break;
	case D_ETS: v->n = cut(c, c->ets.nboth); v->rec = &group_rec; break;
	case D_ETS_TOTAL: v->u = c->ets.nboth; break;
	case D_ETS_CHANGED:
		changed_head(c, &c->ets, buf, len);
		v->s = buf;
		v->n = cut(c, c->ets.nchanged);
		v->rec = &ets_changed_rec;
		break;
	case D_ONLY_A:
	case D_ONLY_B: {
		int side = f == D_ONLY_B;
		v->n = cut(c, c->procs.nonly[side]) + cut(c, c->ets.nonly[side]);
		v->rec = &group_rec;
		break;
	}
	case D_ONLY_A_TOTAL:
	case D_ONLY_B_TOTAL: {
		int side = f == D_ONLY_B_TOTAL;
		v->u = c->procs.nonly[side] + c->ets.nonly[side];
		break;
	}
	case D_ONLY_A_PROCS: only_list(c, only[0][0], 0, v, buf, len); break;
	case D_ONLY_A_ETS: only_list(c, only[0][1], 0, v, buf, len); break;
	case D_ONLY_B_PROCS: only_list(c, only[1][0], 1, v, buf, len); break;
	case D_ONLY_B_ETS: only_list(c, only[1][1], 1, v, buf, len); break;
	case D_INTERVAL: v->null = isnan(secs); v->rec = &interval_rec; break;
	case D_RATES:
		v->absent = !rates_known(c, buf, len);
		if (!v->absent)
			rates_text(c, buf, len);
		v->s = buf;
		break;
	}
}

/* A group in s's order, as a record id: i from the start of its part of the
 * order (both, only in A, only in B). */
static uint64_t group_id(const struct ctx *c, const struct gset *s, size_t from, size_t i,
			 uint64_t flags)
{
	return (uint64_t)s->order[from + i] | (s == &c->ets ? ID_ETS : 0) | flags;
}

static uint64_t diff_item(void *ctx, uint64_t id, size_t f, size_t i)
{
	(void)id;
	const struct ctx *c = ctx;
	const struct gset *p = &c->procs, *e = &c->ets;
	switch (f) {
	case D_PROCS: return group_id(c, p, 0, i, 0);
	case D_ETS: return group_id(c, e, 0, i, 0);
	case D_PROCS_CHANGED: return (uint64_t)p->changed[i];
	case D_ETS_CHANGED: return (uint64_t)e->changed[i] | ID_ETS;
	case D_ONLY_A:
	case D_ONLY_B: {
		int side = f == D_ONLY_B;
		uint64_t flags = ID_ONLY | (side ? ID_B : 0);
		size_t np = cut(c, p->nonly[side]);
		return i < np ? group_id(c, p, p->nboth + (side ? p->nonly[0] : 0), i, flags)
			      : group_id(c, e, e->nboth + (side ? e->nonly[0] : 0), i - np, flags);
	}
	case D_ONLY_A_PROCS: return group_id(c, p, p->nboth, i, ID_ONLY);
	case D_ONLY_A_ETS: return group_id(c, e, e->nboth, i, ID_ONLY);
	case D_ONLY_B_PROCS: return group_id(c, p, p->nboth + p->nonly[0], i, ID_ONLY | ID_B);
	case D_ONLY_B_ETS: return group_id(c, e, e->nboth + e->nonly[0], i, ID_ONLY | ID_B);
	}
	return 0;
}

static const struct rrec diff_rec = {
	.fields = diff_fields, .nfields = sizeof diff_fields / sizeof *diff_fields,
	.get = diff_get, .item = diff_item,
};

/* The groups in both that changed, in order (text shows them); how many
 * more differ only in a value one side lacks. */
static bc_err *find_changed(struct gset *s)
{
	s->changed = malloc((s->nboth ? s->nboth : 1) * sizeof *s->changed);
	if (!s->changed)
		return bc_error(BC_ENOMEM, "out of memory");
	for (size_t r = 0; r < s->nboth; r++) {
		int ch = changed(s, &s->g[s->order[r]]);
		if (ch == 1)
			s->changed[s->nchanged++] = s->order[r];
		s->nlacking += ch == 2;
	}
	return NULL;
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
		free(sets[i]->changed);
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
	if (!err)
		err = find_changed(&c->procs);
	if (!err)
		err = find_changed(&c->ets);
	if (err)
		return err;
	for (int k = 0; k < VM_MEM_COUNT; k++)
		memory_fields[k] = (struct rfield){ .key = vm_mem_names[k], .kind = RF_REC };
	out->doc = (struct rdoc){ &diff_rec, c, 0 };
	return NULL;
}

/* --pid and --no-stop are taken to say why they do not apply (two snapshots) */
static const struct option_entry options[] = {
	OPT_INCLUDE(an_json_option),
	OPT_INCLUDE(an_top_option),
	OPT_SLOT_HIDDEN(OPT_SLOT_TARGET_LIVE),
	OPT_SLOT(OPT_SLOT_TARGET_FILE),
	OPT_TABLE_END,
};

const struct analyzer analyzer_diff = {
	.name = "diff",
	.kind = CMD_MODELS,
	.summary = "what changed between two snapshots of a node: memory, ETS tables, processes",
	.needs = NEED_PROCS | NEED_ETS | NEED_MEMORY,
	.options = options,
	.run2 = run2,
};
