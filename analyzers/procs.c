/* procs: every process with what process_info/2 would have said, sorted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer.h"
#include "hmap.h"
#include "needs.h"
#include "procs.h"

/* the columns: enum procs_col of analyzer.h (the browser picks them by it) */
enum { C_PID = PC_PID, C_NAME = PC_NAME, C_REGNAME = PC_REGNAME, C_INITIAL = PC_INITIAL,
       C_MEMORY = PC_MEMORY, C_THS = PC_THS, C_HEAP = PC_HEAP, C_STACK = PC_STACK, C_MSGQ = PC_MSGQ,
       C_REDS = PC_REDS, C_STATUS = PC_STATUS, C_CURRENT = PC_CURRENT, C_NLINKS = PC_NLINKS,
       C_NMONITORS = PC_NMONITORS, C_NMONITORED = PC_NMONITORED,
       C_PROC_LIB_INITIAL = PC_PROC_LIB_INITIAL, C_ANCESTORS = PC_ANCESTORS,
       C_LABEL = PC_LABEL, C_LABEL_SOURCE = PC_LABEL_SOURCE, C_LIVE = PC_LIVE_WORDS,
       C_GARBAGE = PC_GARBAGE_BYTES, C_NCOLS };

static const struct rcol cols[] = {
	[C_PID] = { "pid", "PID", RC_STR, 0 },
	[C_NAME] = { NULL, "LABEL", RC_STR, RCOL_TEXT_ONLY | RCOL_WIDE | RCOL_CUT_MIDDLE },
	[C_REGNAME] = { "registered_name", NULL, RC_STR, RCOL_JSON_ONLY },
	[C_INITIAL] = { "initial_call", NULL, RC_STR, RCOL_JSON_ONLY },
	[C_MEMORY] = { "memory", "MEMORY", RC_BYTES, 0 },
	[C_THS] = { "total_heap_size", "TOTAL_HEAP", RC_WORDS, 0 },
	[C_HEAP] = { "heap_size", "HEAP", RC_WORDS, 0 },
	[C_STACK] = { "stack_size", "STACK", RC_WORDS, 0 },
	[C_MSGQ] = { "message_queue_len", "MSGQ", RC_U64, 0 },
	[C_REDS] = { "reductions", "REDS", RC_U64, 0 },
	[C_STATUS] = { "status", "STATUS", RC_STR, 0 },
	[C_CURRENT] = { "current_function", "CURRENT FUNCTION", RC_STR, RCOL_WIDE },
	[C_NLINKS] = { "link_count", NULL, RC_U64, RCOL_JSON_ONLY },
	[C_NMONITORS] = { "monitor_count", NULL, RC_U64, RCOL_JSON_ONLY },
	[C_NMONITORED] = { "monitored_by_count", NULL, RC_U64, RCOL_JSON_ONLY },
	[C_PROC_LIB_INITIAL] = { "proc_lib_initial_call", NULL, RC_STR, RCOL_JSON_ONLY },
	[C_ANCESTORS] = { "ancestors", NULL, RC_LIST, RCOL_JSON_ONLY },
	[C_LABEL] = { "label", NULL, RC_STR, RCOL_JSON_ONLY },
	[C_LABEL_SOURCE] = { "label_source", NULL, RC_STR, RCOL_JSON_ONLY },
	/* with --garbage (or sorted by garbage_bytes): a walk of every heap */
	[C_LIVE] = { "live_words", "LIVE", RC_WORDS, 0 },
	[C_GARBAGE] = { "garbage_bytes", "GARBAGE", RC_BYTES, 0 },
};

/* The sort keys, and the one place their rule is written: numbers sort
 * largest first, the text keys (text != 0) ascending, ties by pid. A value the
 * loader cannot give (unknown) sorts after every known one, except for the
 * sizes in words (by_memory): a process whose total_heap_size, heap_size or
 * stack_size is unknown (a dump's total_heap_size of a process with messages
 * on its heap) ranks by its memory in words, which bounds them from above, so
 * the largest process never sinks below smaller ones (after a known equal
 * value); with memory unknown too, last. */
enum { TK_NONE, TK_PID, TK_NAME, TK_STATUS, TK_CURRENT };

struct sort_key {
	const char *name;
	size_t off;
	uint32_t unknown_bit;
	int text;
	int col;              /* the column it sorts (enum procs_col) */
	bool by_memory;       /* unknown: ranked by memory, in words */
	bool garbage;         /* not a field: what a collection frees (vm->liveness) */
};

static const struct sort_key keys[] = {
	/* the order the browser's `s` cycles them in */
	{ "memory", offsetof(struct vm_proc, memory), VPF_MEMORY, TK_NONE, C_MEMORY, false, false },
	{ "total_heap_size", offsetof(struct vm_proc, total_heap_size), VPF_TOTAL_HEAP_SIZE, TK_NONE,
	  C_THS, true, false },
	{ "message_queue_len", offsetof(struct vm_proc, message_queue_len), VPF_MESSAGE_QUEUE_LEN,
	  TK_NONE, C_MSGQ, false, false },
	{ "reductions", offsetof(struct vm_proc, reductions), VPF_REDUCTIONS, TK_NONE, C_REDS, false, false },
	{ "heap_size", offsetof(struct vm_proc, heap_size), VPF_HEAP_SIZE, TK_NONE, C_HEAP, true, false },
	{ "stack_size", offsetof(struct vm_proc, stack_size), VPF_STACK_SIZE, TK_NONE, C_STACK, true, false },
	{ "pid", 0, 0, TK_PID, C_PID, false, false },
	{ "name", 0, VPF_REGISTERED_NAME, TK_NAME, C_NAME, false, false },
	{ "status", 0, 0, TK_STATUS, C_STATUS, false, false },
	{ "current_function", 0, VPF_CURRENT_FUNCTION, TK_CURRENT, C_CURRENT, false, false },
	{ "garbage_bytes", 0, 0, TK_NONE, C_GARBAGE, false, true },
};
#define NKEYS (sizeof keys / sizeof keys[0])
#define DEFAULT_KEY (&keys[1])  /* total_heap_size */

const char *procs_sort_name(size_t i)
{
	return i < NKEYS ? keys[i].name : NULL;
}

int procs_sort_col(const char *name)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (strcmp(keys[i].name, name) == 0)
			return keys[i].col;
	return -1;
}

bool procs_sort_rule(size_t i, const char **json, bool *text, bool *by_memory, bool *walk)
{
	if (i >= NKEYS)
		return false;
	*json = keys[i].col == C_NAME ? "label" : cols[keys[i].col].json;
	*text = keys[i].text != TK_NONE;
	*by_memory = keys[i].by_memory;
	*walk = keys[i].garbage;
	return true;
}

const char *procs_sort_names(void)
{
	static char list[256];
	if (!list[0])
		for (size_t i = 0, o = 0; i < NKEYS && o < sizeof list; i++)
			o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", i ? ", " : "", keys[i].name);
	return list;
}

static int strcmp0(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static int mfa_cmp(const struct vm_mfa *a, const struct vm_mfa *b)
{
	int c = strcmp0(a->module, b->module);
	if (!c)
		c = strcmp0(a->function, b->function);
	return c ? c : (a->arity > b->arity) - (a->arity < b->arity);
}

/* What the LABEL column shows (vm_proc_label): registered names first, then
 * the libraries' labels, then by initial call (proc_lib's where it has one). */
static int name_cmp(const struct vm_proc *x, const struct vm_proc *y)
{
	if (!!x->registered_name != !!y->registered_name)
		return x->registered_name ? -1 : 1;
	if (x->registered_name)
		return strcmp(x->registered_name, y->registered_name);
	if (!!x->label != !!y->label)
		return x->label ? -1 : 1;
	if (x->label)
		return strcmp(x->label, y->label);
	const struct vm_mfa *mx = x->proc_lib_initial_call->module ? x->proc_lib_initial_call
								   : x->initial_call;
	const struct vm_mfa *my = y->proc_lib_initial_call->module ? y->proc_lib_initial_call
								   : y->initial_call;
	return mfa_cmp(mx, my);
}

static int text_cmp(const struct vm_proc *x, const struct vm_proc *y, int k)
{
	switch (k) {
	case TK_NAME: return name_cmp(x, y);
	case TK_STATUS:  /* by name (the enum's order); unknown last */
		return ((unsigned)x->status - 1 > (unsigned)y->status - 1) -
		       ((unsigned)x->status - 1 < (unsigned)y->status - 1);
	case TK_CURRENT: return mfa_cmp(x->current_function, y->current_function);
	}
	return 0;  /* TK_PID: the pid order below */
}

struct ctx {
	const struct vm *vm;
	const struct sort_key *key;
	struct vm_liveness *live;  /* by process (in the same block, after order); NULL: not asked */
	uint32_t order[];
};

/* The value p sorts by; *unknown: 1 ranked by its memory instead (by_memory),
 * 2 unknown (last). live: each process's (garbage_bytes) */
static uint64_t keyval(const struct vm_proc *p, const struct sort_key *k,
		       const struct vm_liveness *live, int *unknown)
{
	uint64_t v;
	if (k->garbage) {
		*unknown = live->known ? 0 : 2;
		return live->garbage_bytes;
	}
	memcpy(&v, (const char *)p + k->off, 8);
	*unknown = (p->unknown & k->unknown_bit) != 0;
	if (*unknown && k->by_memory && !(p->unknown & VPF_MEMORY))
		return p->memory / 8;
	return *unknown ? (*unknown = 2, v) : v;
}

/* processes x, y by the key alone (0: only their pids tell them apart) */
static int key_cmp(const struct ctx *c, const struct vm_proc *x, const struct vm_proc *y)
{
	const struct sort_key *sort_by = c->key;
	int ux, uy;
	if (sort_by->text) {
		ux = (x->unknown & sort_by->unknown_bit) != 0;
		uy = (y->unknown & sort_by->unknown_bit) != 0;
		if (ux != uy)
			return ux - uy;
		int d = text_cmp(x, y, sort_by->text);
		if (d)
			return d;
	} else {
		const struct vm_liveness *lx = c->live ? &c->live[x - c->vm->procs] : NULL;
		const struct vm_liveness *ly = c->live ? &c->live[y - c->vm->procs] : NULL;
		uint64_t vx = keyval(x, sort_by, lx, &ux), vy = keyval(y, sort_by, ly, &uy);
		if ((ux == 2) != (uy == 2))
			return ux == 2 ? 1 : -1;  /* unknown last */
		if (vx != vy && ux != 2)
			return vx < vy ? 1 : -1;
		if (ux != uy)
			return ux - uy;  /* known before ranked by memory */
	}
	return 0;
}

/* order[] entries a, b by the key, then by pid (qsort_r: the context is the
 * table's ctx) */
static int cmp(const void *a, const void *b, void *vctx)
{
	const struct ctx *c = vctx;
	const struct vm_proc *x = &c->vm->procs[*(const uint32_t *)a];
	const struct vm_proc *y = &c->vm->procs[*(const uint32_t *)b];
	int d = key_cmp(c, x, y);
	if (d)
		return d;
	if (x->pid_num != y->pid_num)
		return x->pid_num < y->pid_num ? -1 : 1;
	return x->pid_serial < y->pid_serial ? -1 : x->pid_serial > y->pid_serial;
}

/* A hash equal for processes key_cmp finds equal (a text key's) */
static uint64_t mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3ull;
}

static uint64_t str_hash(uint64_t h, const char *s)
{
	return mix(h, s ? hmap_hash_bytes(s, strlen(s)) : 0);
}

static uint64_t mfa_hash(uint64_t h, const struct vm_mfa *m)
{
	return mix(str_hash(str_hash(h, m->module), m->function), m->arity);
}

static uint64_t text_hash(const struct sort_key *k, const struct vm_proc *p)
{
	uint64_t h = mix(0xcbf29ce484222325ull, (p->unknown & k->unknown_bit) != 0);
	switch (k->text) {
	case TK_NAME:
		if (p->registered_name)
			return str_hash(mix(h, 1), p->registered_name);
		if (p->label)
			return str_hash(mix(h, 2), p->label);
		return mfa_hash(mix(h, 3), p->proc_lib_initial_call->module ? p->proc_lib_initial_call
									  : p->initial_call);
	case TK_STATUS: return mix(h, (uint64_t)p->status);
	case TK_CURRENT: return mfa_hash(h, p->current_function);
	}
	return h;
}

struct classes {
	const struct ctx *c;
	uint32_t *rep;  /* class -> a process of it */
};

static uint64_t class_hash(const void *vcl, uint32_t cls)
{
	const struct classes *cl = vcl;
	return text_hash(cl->c->key, &cl->c->vm->procs[cl->rep[cls]]);
}

/* classes a, b by their processes' key (no two are equal by it) */
static int class_cmp(const void *a, const void *b, void *vcl)
{
	const struct classes *cl = vcl;
	return key_cmp(cl->c, &cl->c->vm->procs[cl->rep[*(const uint32_t *)a]],
		       &cl->c->vm->procs[cl->rep[*(const uint32_t *)b]]);
}

/* The first `top` processes in sort order into order[0..top) (unsorted), by a
 * bounded heap whose root is the last of them: O(n log top) instead of sorting
 * a million rows for --top 20. */
static void sift(const struct ctx *c, uint32_t *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < n && cmp(&h[l], &h[m], (void *)c) > 0)
			m = l;
		if (r < n && cmp(&h[r], &h[m], (void *)c) > 0)
			m = r;
		if (m == i)
			return;
		uint32_t t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/* One selection of the first `top` rows (top_n's state), so that several keys'
 * can share one pass over the processes. For a number's key the root's value
 * is kept: a row ranking below it (most rows) costs one read of its own value,
 * not a comparison. */
struct top_sel {
	struct ctx *c;
	size_t top, k;
	bool by_value;
	uint64_t root_v;
	int root_u;
};

static void top_root(struct top_sel *s)
{
	const struct ctx *c = s->c;
	uint32_t r = c->order[0];
	if (s->by_value)
		s->root_v = keyval(&c->vm->procs[r], c->key, c->live ? &c->live[r] : NULL, &s->root_u);
}

static void top_add(struct top_sel *s, uint32_t v)
{
	struct ctx *c = s->c;
	uint32_t *order = c->order;
	if (s->k < s->top) {
		order[s->k++] = v;
		if (s->k == s->top) {  /* full: make it a heap (once; not per row) */
			for (size_t j = s->k / 2 + 1; j-- > 0;)
				sift(c, order, s->k, j);
			top_root(s);
		}
		return;
	}
	if (s->by_value && s->root_u != 2) {  /* cmp's rule: unknown last, then larger first */
		int u;
		uint64_t x = keyval(&c->vm->procs[v], c->key, c->live ? &c->live[v] : NULL, &u);
		if (u == 2 || x < s->root_v)
			return;
	}
	if (cmp(&v, &order[0], c) < 0) {
		order[0] = v;
		sift(c, order, s->k, 0);
		top_root(s);
	}
}

/* Each selection's first rows into its ctx's order[] (unsorted), in one pass
 * over the n processes; top 0 (or n or more): every row */
static void top_n(struct top_sel *sel, size_t nsel, size_t n)
{
	for (size_t i = 0; i < nsel; i++)
		sel[i].by_value = !sel[i].c->key->text;
	for (uint32_t v = 0; v < n; v++)
		for (size_t i = 0; i < nsel; i++) {
			if (!sel[i].top || sel[i].top >= n)
				sel[i].c->order[sel[i].k++] = v;
			else
				top_add(&sel[i], v);
		}
}

static void cell(void *vctx, size_t row, size_t col, struct rcell *out, char *buf, size_t len)
{
	struct ctx *c = vctx;
	const struct vm_proc *p = &c->vm->procs[c->order[row]];
	switch (col) {
	case C_PID: out->s = vm_pid_str(p, buf, len); break;
	case C_NAME:
		out->s = vm_proc_label(p, buf, len);
		if (!out->s)
			out->s = "";
		break;
	case C_LABEL:
		out->s = vm_proc_label(p, buf, len);
		out->null = !out->s;
		break;
	case C_LABEL_SOURCE:
		out->s = vm_proc_label_source(c->vm, p);
		out->null = !out->s;
		break;
	case C_REGNAME:
		out->s = p->registered_name;
		out->null = p->unknown & VPF_REGISTERED_NAME;
		break;
	case C_INITIAL:
		out->s = vm_mfa_str(p->initial_call, buf, len);
		out->null = p->unknown & VPF_INITIAL_CALL;
		break;
	case C_CURRENT:
		out->s = vm_mfa_str(p->current_function, buf, len);
		out->null = !out->s;
		break;
	case C_STATUS: out->s = vm_status_name(p->status); break;
	case C_MEMORY: out->u = p->memory; out->null = p->unknown & VPF_MEMORY; break;
	case C_THS: out->u = p->total_heap_size; out->null = p->unknown & VPF_TOTAL_HEAP_SIZE; break;
	case C_HEAP: out->u = p->heap_size; out->null = p->unknown & VPF_HEAP_SIZE; break;
	case C_STACK: out->u = p->stack_size; out->null = p->unknown & VPF_STACK_SIZE; break;
	case C_MSGQ: out->u = p->message_queue_len; out->null = p->unknown & VPF_MESSAGE_QUEUE_LEN; break;
	case C_REDS: out->u = p->reductions; out->null = p->unknown & VPF_REDUCTIONS; break;
	case C_NLINKS: out->u = p->nlinks; out->null = p->unknown & VPF_MEMORY; break;
	case C_NMONITORS: out->u = p->nmonitors; out->null = p->unknown & VPF_MEMORY; break;
	case C_NMONITORED: out->u = p->nmonitored_by; out->null = p->unknown & VPF_MEMORY; break;
	case C_PROC_LIB_INITIAL:
		out->s = vm_mfa_str(p->proc_lib_initial_call, buf, len);
		out->null = p->unknown & VPF_IDENTITY;
		break;
	case C_ANCESTORS:  /* null: no '$ancestors' (not started by proc_lib) */
		out->u = p->anc_n;
		out->null = !p->has_ancestors || (p->unknown & VPF_IDENTITY);
		break;
	case C_LIVE:
		out->u = c->live[c->order[row]].live_words;
		out->null = !c->live[c->order[row]].known;
		break;
	case C_GARBAGE:
		out->u = c->live[c->order[row]].garbage_bytes;
		out->null = !c->live[c->order[row]].known;
		break;
	}
}

static const char *item(void *vctx, size_t row, size_t col, size_t i, char *buf, size_t len)
{
	(void)col;
	(void)buf;
	(void)len;
	struct ctx *c = vctx;
	const struct vm_proc *p = &c->vm->procs[c->order[row]];
	return c->vm->ancestors[p->anc_first + i];
}

/* --sort FIELD: its key into *key (NULL: the default); else the usage error:
 * the one rule */
static bc_err *sort_key(const char *sort, const struct sort_key **key)
{
	*key = DEFAULT_KEY;
	for (size_t i = 0; sort && i < NKEYS; i++)
		if (strcmp(keys[i].name, sort) == 0) {
			*key = &keys[i];
			return NULL;
		}
	return sort ? bc_error(BC_EUSAGE, "--sort %s: one of %s", sort, procs_sort_names()) : NULL;
}

bc_err *procs_classes(const struct vm *vm, const char *sort, uint32_t *rank, uint32_t **reps,
		      size_t *nclasses)
{
	const struct sort_key *key;
	bc_err *err = sort_key(sort, &key);
	*reps = NULL;
	*nclasses = 0;
	if (err)
		return err;
	if (key->text == TK_NONE || key->text == TK_PID)
		return bc_error(BC_EUSAGE, "procs: %s is not a text key", sort);
	struct ctx c = { .vm = vm, .key = key };
	size_t n = vm->nprocs ? vm->nprocs : 1, nc = 0;
	struct classes cl = { &c, malloc(n * sizeof *cl.rep) };
	uint32_t *ids = NULL, *pos = NULL;
	struct hmap ix = { 0 };
	if (!cl.rep || hmap_init(&ix, 1024) < 0)
		goto oom;
	/* each process into its class: a hash and one key_cmp, not a sort of every row */
	for (size_t i = 0; i < vm->nprocs; i++) {
		const struct vm_proc *p = &vm->procs[i];
		size_t j = hmap_first(&ix, text_hash(key, p));
		for (; ix.slot[j]; j = hmap_next(&ix, j))
			if (key_cmp(&c, &vm->procs[cl.rep[ix.slot[j] - 1]], p) == 0)
				break;
		if (ix.slot[j]) {
			rank[i] = ix.slot[j] - 1;
			continue;
		}
		cl.rep[nc] = (uint32_t)i;
		rank[i] = (uint32_t)nc;
		if (hmap_set(&ix, j, (uint32_t)nc++, class_hash, &cl) < 0)
			goto oom;
	}
	/* the classes in the key's order, each process's class renumbered so */
	ids = malloc((nc ? nc : 1) * sizeof *ids);
	pos = malloc((nc ? nc : 1) * sizeof *pos);
	if (!ids || !pos)
		goto oom;
	for (size_t k = 0; k < nc; k++)
		ids[k] = (uint32_t)k;
	qsort_r(ids, nc, sizeof *ids, class_cmp, &cl);
	for (size_t k = 0; k < nc; k++)
		pos[ids[k]] = (uint32_t)k;
	for (size_t i = 0; i < vm->nprocs; i++)
		rank[i] = pos[rank[i]];
	for (size_t k = 0; k < nc; k++)  /* (ids becomes the reps) */
		ids[k] = cl.rep[ids[k]];
	free(cl.rep);
	free(pos);
	hmap_free(&ix);
	*reps = ids;
	*nclasses = nc;
	return NULL;
oom:
	free(cl.rep);
	free(ids);
	free(pos);
	hmap_free(&ix);
	return bc_error(BC_ENOMEM, "out of memory");
}

/* The table of each of nsort keys (sorts[i], json_keys[i]) into t[i], its
 * rows' block into priv[i] (freed with free()), their first rows selected in
 * one pass over the processes; with garbage (or sorted by garbage_bytes) each
 * process's live_words and garbage_bytes */
static bc_err *tables(const struct vm *vm, size_t nsort, const char *const *sorts, size_t top,
		      const char *const *json_keys, int garbage, struct rtable *t, void **priv)
{
	struct top_sel sel[PROCS_TABLES_MAX];
	if (nsort > PROCS_TABLES_MAX)
		return bc_error(BC_EUSAGE, "procs: %zu tables in one pass (at most %d)", nsort,
				PROCS_TABLES_MAX);
	for (size_t i = 0; i < nsort; i++)
		priv[i] = NULL;
	for (size_t i = 0; i < nsort; i++) {
		const struct sort_key *key;
		bc_err *err = sort_key(sorts[i], &key);
		if (err)
			return err;
		int live = garbage | key->garbage;
		/* one block (*priv is freed with free()): the ctx, order, the liveness */
		size_t order = (vm->nprocs * sizeof(uint32_t) + 15) & ~(size_t)15;
		struct ctx *c = malloc(sizeof *c + order + (live ? vm->nprocs * sizeof *c->live : 0));
		if (!c)
			return bc_error(BC_ENOMEM, "out of memory");
		priv[i] = c;
		c->vm = vm;
		c->key = key;
		c->live = NULL;
		if (live) {
			c->live = (struct vm_liveness *)((char *)c->order + order);
			proc_liveness(vm, c->live);
		}
		sel[i] = (struct top_sel){ .c = c, .top = top };
		t[i] = (struct rtable){
			.json_key = json_keys[i],
			.cols = cols,
			.ncols = live ? C_NCOLS : C_LIVE,
			.ctx = c,
			.cell = cell,
			.item = item,
		};
	}
	top_n(sel, nsort, vm->nprocs);
	for (size_t i = 0; i < nsort; i++) {
		qsort_r(sel[i].c->order, sel[i].k, sizeof sel[i].c->order[0], cmp, sel[i].c);
		t[i].nrows = sel[i].k;
	}
	return NULL;
}

static bc_err *table(const struct vm *vm, const char *sort, size_t top, const char *json_key,
		     int garbage, struct rtable *t, void **priv)
{
	bc_err *err = tables(vm, 1, &sort, top, &json_key, garbage, t, priv);
	if (err) {
		free(*priv);
		*priv = NULL;
	}
	return err;
}

bc_err *procs_table(const struct vm *vm, const char *sort, size_t top, const char *json_key,
		    struct rtable *t, void **priv)
{
	return table(vm, sort, top, json_key, 0, t, priv);
}

bc_err *procs_tables(const struct vm *vm, size_t n, const char *const *sorts, size_t top,
		     const char *const *json_keys, struct rtable *t, void **priv)
{
	bc_err *err = tables(vm, n, sorts, top, json_keys, 0, t, priv);
	for (size_t i = 0; err && i < n; i++) {
		free(priv[i]);
		priv[i] = NULL;
	}
	return err;
}

/* --group-by: one row per kind, its sums, sorted by the same keys: a number
 * by its sum over the members (keyval's rule: a group with a member whose
 * value is unknown sorts after the known ones), pid by the group's first
 * process, name by the kind (its initial call; its stack, innermost first);
 * status and current_function are no group's. */
enum { G_COUNT, G_MEMORY, G_THS, G_MSGQ, G_BINARY, G_LIVE, G_GARBAGE, G_KIND, G_HIBERNATING,
       G_HIB_CALL, G_WAKE_UP, G_PIDS, G_NCOLS };
static const struct rcol group_cols[G_NCOLS] = {
	[G_COUNT] = { "count", "PROCESSES", RC_U64, 0 },
	[G_MEMORY] = { "memory", "MEMORY", RC_BYTES, 0 },
	[G_THS] = { "total_heap_size", "TOTAL_HEAP", RC_WORDS, 0 },
	[G_MSGQ] = { "message_queue_len", "MSGQ", RC_U64, 0 },
	[G_BINARY] = { "binary", "BINARY", RC_BYTES, 0 },
	[G_PIDS] = { "pids", NULL, RC_LIST, RCOL_JSON_ONLY },
	/* by stack: a hibernating group's (stacks' own), null for others */
	[G_HIBERNATING] = { "hibernating", NULL, RC_BOOL, RCOL_JSON_ONLY },
	[G_HIB_CALL] = { "initial_call", NULL, RC_STR, RCOL_JSON_ONLY },
	[G_WAKE_UP] = { "wake_up", NULL, RC_STR, RCOL_JSON_ONLY },
	/* with --garbage (or sorted by garbage_bytes) */
	[G_LIVE] = { "live_words", "LIVE", RC_WORDS, 0 },
	[G_GARBAGE] = { "garbage_bytes", "GARBAGE", RC_BYTES, 0 },
};
/* G_KIND of each --group-by */
static const struct rcol kind_cols[PG_N] = {
	[PG_LABEL] = { "label", "LABEL", RC_STR, RCOL_WIDE },
	[PG_INITIAL_CALL] = { "initial_call", "INITIAL CALL", RC_STR, RCOL_WIDE },
	[PG_STACK] = { "current_stacktrace", "STACK (innermost first)", RC_LIST, 0 },
};

struct gctx {
	struct proc_groups pg;
	const struct sort_key *key;
	uint64_t *val;        /* by group: the key's sum */
	unsigned char *unk;   /* by group: keyval's worst unknown */
	uint32_t *order;      /* the groups in table order */
	struct rcol cols[G_NCOLS];  /* the columns shown, */
	int colid[G_NCOLS];         /* each a G_* */
	struct vm_liveness *live;  /* by process; NULL: not asked */
	uint64_t *gsum;       /* by group: live_words, garbage_bytes (two each) */
	uint32_t *gunknown;   /* by group: members whose liveness is unknown */
};

static int group_kind_cmp(const struct gctx *c, const struct proc_group *x,
			  const struct proc_group *y)
{
	const struct vm *vm = c->pg.vm;
	const struct vm_proc *p = &vm->procs[x->first], *q = &vm->procs[y->first];
	if (c->pg.by == PG_INITIAL_CALL)
		return mfa_cmp(vm_shown_initial_call(p), vm_shown_initial_call(q));
	if (c->pg.by == PG_LABEL) {
		char a[512], b[512];
		return strcmp0(vm_proc_label(p, a, sizeof a), vm_proc_label(q, b, sizeof b));
	}
	for (uint32_t i = 0; i < p->stack_n && i < q->stack_n; i++) {
		int d = mfa_cmp(&vm->mfas[vm->frames[p->stack_first + i]],
				&vm->mfas[vm->frames[q->stack_first + i]]);
		if (d)
			return d;
	}
	return (p->stack_n > q->stack_n) - (p->stack_n < q->stack_n);
}

static int group_cmp(const void *a, const void *b, void *vctx)
{
	const struct gctx *c = vctx;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	const struct proc_group *x = &c->pg.g[i], *y = &c->pg.g[j];
	int d = 0;
	if (c->key->text == TK_NAME)
		d = group_kind_cmp(c, x, y);
	else if (!c->key->text) {
		if ((c->unk[i] == 2) != (c->unk[j] == 2))
			return c->unk[i] == 2 ? 1 : -1;
		if (c->val[i] != c->val[j])
			return c->val[i] < c->val[j] ? 1 : -1;
		d = c->unk[i] - c->unk[j];
	}
	if (d)
		return d;
	const struct vm_proc *p = &c->pg.vm->procs[x->first], *q = &c->pg.vm->procs[y->first];
	if (p->pid_num != q->pid_num)
		return p->pid_num < q->pid_num ? -1 : 1;
	return p->pid_serial < q->pid_serial ? -1 : p->pid_serial > q->pid_serial;
}

static void group_cell(void *vctx, size_t row, size_t col, struct rcell *out, char *buf,
		       size_t len)
{
	struct gctx *c = vctx;
	const struct proc_group *g = &c->pg.g[c->order[row]];
	const struct vm_proc *p = &c->pg.vm->procs[g->first];
	switch (c->colid[col]) {
	case G_KIND:
		if (c->cols[col].kind == RC_LIST)
			out->u = p->stack_n;
		else if (c->pg.by == PG_STACK)
			out->s = stack_groups_line(&c->pg.sg, g->first);
		else if (c->pg.by == PG_LABEL)
			out->s = vm_proc_label(p, buf, len);
		else
			out->s = vm_mfa_str(vm_shown_initial_call(p), buf, len);
		break;
	case G_COUNT: out->u = g->count; break;
	case G_MEMORY: out->u = g->memory; out->null = g->unknown & VPF_MEMORY; break;
	case G_THS:
		out->u = g->total_heap_size;
		out->null = g->unknown & VPF_TOTAL_HEAP_SIZE;
		break;
	case G_MSGQ:
		out->u = g->message_queue_len;
		out->null = g->unknown & VPF_MESSAGE_QUEUE_LEN;
		break;
	case G_BINARY: out->u = g->binary; out->null = g->unknown & VPF_BINARY; break;
	case G_PIDS: out->u = g->count; break;
	case G_HIBERNATING: out->u = stack_hibernating(p); break;
	case G_HIB_CALL:
		out->s = stack_hibernating(p) ? vm_mfa_str(vm_shown_initial_call(p), buf, len) : NULL;
		break;
	case G_WAKE_UP:
		out->s = stack_hibernating(p) ? stack_wake_up(c->pg.vm, p, buf, len) : NULL;
		break;
	case G_LIVE: case G_GARBAGE:
		out->u = c->gsum[2 * c->order[row] + (col == G_GARBAGE)];
		out->null = c->gunknown[c->order[row]] != 0;
		break;
	}
}

static const char *group_item(void *vctx, size_t row, size_t col, size_t i, char *buf, size_t len)
{
	struct gctx *c = vctx;
	const struct vm *vm = c->pg.vm;
	const struct proc_group *g = &c->pg.g[c->order[row]];
	if (c->colid[col] == G_PIDS)
		return vm_pid_str(&vm->procs[g->members[i]], buf, len);
	const struct vm_proc *p = &vm->procs[g->first];
	const char *s = vm_mfa_str(&vm->mfas[vm->frames[p->stack_first + i]], buf, len);
	return s ? s : "?";
}

static void gctx_release(void *vctx)
{
	struct gctx *c = vctx;
	proc_groups_free(&c->pg);
	free(c->val);
	free(c->unk);
	free(c->order);
	free(c->live);
	free(c->gsum);
	free(c->gunknown);
	free(c);
}

bc_err *procs_group_table(const struct vm *vm, const char *group_by, const char *sort, size_t top,
			  int json, int garbage, struct rtable *t, struct an_out *out)
{
	enum proc_group_by by;
	const struct sort_key *key;
	bc_err *err = proc_group_by_find(group_by, &by);
	if (!err)
		err = sort_key(sort, &key);
	if (!err && (key->text == TK_STATUS || key->text == TK_CURRENT))
		err = bc_error(BC_EUSAGE, "--sort %s: a group of processes has none; with --group-by "
			       "one of the numbers, pid or name", sort);
	if (err)
		return err;
	struct gctx *c = an_own(out, calloc(1, sizeof *c), gctx_release);
	if (!c || (err = proc_groups(vm, by, &c->pg)))
		return err ? err : bc_error(BC_ENOMEM, "out of memory");
	size_t n = c->pg.n;
	c->key = key;
	c->val = calloc(n ? n : 1, sizeof *c->val);
	c->unk = calloc(n ? n : 1, 1);
	c->order = malloc((n ? n : 1) * sizeof *c->order);
	garbage |= key->garbage;
	if (garbage) {
		c->live = malloc((vm->nprocs ? vm->nprocs : 1) * sizeof *c->live);
		c->gsum = calloc(2 * (n ? n : 1), sizeof *c->gsum);
		c->gunknown = calloc(n ? n : 1, sizeof *c->gunknown);
	}
	if (!c->val || !c->unk || !c->order || (garbage && (!c->live || !c->gsum || !c->gunknown)))
		return bc_error(BC_ENOMEM, "out of memory");
	if (garbage)
		proc_liveness(vm, c->live);
	for (size_t k = 0; k < n; k++) {
		const struct proc_group *g = &c->pg.g[k];
		c->order[k] = (uint32_t)k;
		for (uint32_t m = 0; m < g->count; m++) {
			uint32_t i = g->members[m];
			const struct vm_liveness *l = c->live ? &c->live[i] : NULL;
			if (l) {
				c->gsum[2 * k] += l->live_words;
				c->gsum[2 * k + 1] += l->garbage_bytes;
				c->gunknown[k] += !l->known;
			}
			if (key->text)
				continue;
			int u;
			c->val[k] += keyval(&vm->procs[i], key, l, &u);
			if (u > c->unk[k])
				c->unk[k] = (unsigned char)u;
		}
	}
	qsort_r(c->order, n, sizeof *c->order, group_cmp, c);
	size_t nc = 0;
	for (int k = 0; k < G_NCOLS; k++) {
		if ((!garbage && (k == G_LIVE || k == G_GARBAGE)) ||
		    (by != PG_STACK && (k == G_HIBERNATING || k == G_HIB_CALL || k == G_WAKE_UP)))
			continue;
		c->colid[nc] = k;
		c->cols[nc] = k == G_KIND ? kind_cols[by] : group_cols[k];
		if (k == G_KIND && by == PG_STACK && !json)  /* text: the whole stack on its line */
			c->cols[nc].kind = RC_STR;
		nc++;
	}
	*t = (struct rtable){
		.json_key = "groups",
		.cols = c->cols,
		.ncols = nc,
		.nrows = top && top < n ? top : n,
		.ctx = c,
		.cell = group_cell,
		.item = group_item,
	};
	return NULL;
}

static struct procs_opts procs_opts;
extern const struct analyzer analyzer_procs;

static bc_err *run(const struct vm *vm, const struct an_opts *o, struct an_out *out)
{
	const struct procs_opts *po = an_own_opts(o, &analyzer_procs);
	struct rtable *t = an_tables(out, 1);
	if (!t)
		return bc_error(BC_ENOMEM, "out of memory");
	if (po->group_by)
		return procs_group_table(vm, po->group_by, o->sort, o->top, o->json, po->garbage, t,
					 out);
	void *rows = NULL;
	if (vm->label_note)
		an_find(out, "labels", "info", "%s", vm->label_note);
	bc_err *err = table(vm, o->sort, o->top, "processes", po->garbage, t, &rows);
	if (!err && !an_own(out, rows, NULL))
		err = bc_error(BC_ENOMEM, "out of memory");
	return err;
}

/* --sort FIELD: the keys as procs knows them; numbers largest first */
static void sort_help(FILE *f, const char *indent)
{
	int col = 0;
	for (size_t k = 0; procs_sort_name(k); k++) {
		const char *n = procs_sort_name(k);
		if (col && col + (int)strlen(n) > 50) {
			fprintf(f, ",\n%s", indent);
			col = 0;
		} else if (col) {
			col += fprintf(f, ", ");
		}
		col += fprintf(f, "%s", n);
	}
	fprintf(f, "\n%s(default total_heap_size; numbers largest first,\n%stext ascending; unknown "
		"last, but an unknown size\n%sin words ranks by its memory)\n", indent, indent, indent);
}

static int check_sort(const char *sort)
{
	const struct sort_key *key;
	return option_error(sort_key(sort, &key));
}

static int check_group_by(const char *group_by)
{
	enum proc_group_by by;
	return option_error(proc_group_by_find(group_by, &by));
}

static const struct option_entry options[] = {
	OPT_INCLUDE(an_json_option),
	{ .kind = OPT_STRING, .name = "sort", .arg = "FIELD", .help_fn = sort_help,
	  .store = OPT_AN, .offset = offsetof(struct an_opts, sort), .check = check_sort, .value = procs_sort_name },
	OPT_INCLUDE(an_top_option),
	{ .kind = OPT_STRING, .name = "group-by", .arg = "KIND",
	  .help = "one row per kind of process, its sums: label,\n"
		  "initial_call or stack (as stacks groups them)",
	  .offset = offsetof(struct procs_opts, group_by), .check = check_group_by,
	  .value = proc_group_by_name },
	OPT_FLAG("garbage", "each process's live_words and garbage_bytes (what\n"
		 "erlang:garbage_collect/1 would free, estimated): a walk\n"
		 "of every heap", OPT_OWN, struct procs_opts, garbage),
	OPT_SLOT(OPT_SLOT_TARGET_LIVE),
	OPT_SLOT(OPT_SLOT_TARGET_FILE),
	OPT_TABLE_END,
};

/* --group-by sums binaries, by stack reads the stacks */
static unsigned needs_of(const struct an_opts *o)
{
	const struct procs_opts *po = an_own_opts(o, &analyzer_procs);
	if (!po->group_by)
		return NEED_PROCS;
	bool stack = strcmp(po->group_by, proc_group_by_name(PG_STACK)) == 0;
	return NEED_PROCS | NEED_BINARIES | (stack ? NEED_STACKS : 0);
}

const struct analyzer analyzer_procs = {
	.name = "procs",
	.kind = CMD_MODEL,
	.options = options,
	.opts = &procs_opts,
	.summary = "every process as process_info/2 saw it, largest first",
	.needs = NEED_PROCS,
	.needs_of = needs_of,
	.run = run,
};

/* Row r of a procs table. */
const struct vm_proc *procs_row(const struct rtable *t, size_t r)
{
	const struct ctx *c = t->ctx;
	return &c->vm->procs[c->order[r]];
}
