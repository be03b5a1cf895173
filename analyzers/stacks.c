/* stacks: every process's Erlang stack (as process_info(P, current_stacktrace)),
 * grouped by identical stack, largest group first, so a stuck pool is one line.
 * --folded writes flamegraph.pl/speedscope's folded format, the width a process
 * count or a metric (--weight), optionally prefixed by the status (--by-status). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer.h"
#include "countsort.h"
#include "needs.h"

/* A hibernating process has no stack to tell it by: it is grouped by who it
 * is (its shown initial call: proc_lib's '$initial_call', else the spawn's)
 * and where it wakes (p->wake_up; a dump does not record it). */
static int hibernating(const struct vm_proc *p)
{
	return p->stack_n == 0 && vm_proc_hibernating(p);
}

/* Same stack (and status with --by-status)? */
static int same(const struct vm_proc *a, const struct vm_proc *b, const uint32_t *frames,
		int by_status)
{
	if (a->stack_n != b->stack_n || (by_status && a->status != b->status))
		return 0;
	int ha = hibernating(a);
	if (ha != hibernating(b))
		return 0;
	if (ha) {  /* interned: equal names are equal pointers */
		const struct vm_mfa *x = vm_shown_initial_call(a), *y = vm_shown_initial_call(b);
		return a->wake_up == b->wake_up && x->module == y->module &&
		       x->function == y->function && x->arity == y->arity;
	}
	/* no frames: frames may be NULL, and memcmp(NULL, NULL, 0) is undefined */
	return a->stack_n == 0 ||
	       memcmp(frames + a->stack_first, frames + b->stack_first, a->stack_n * 4) == 0;
}

static uint64_t stack_hash(const struct vm_proc *p, const uint32_t *frames, int by_status)
{
	uint64_t h = 1469598103934665603ull;
	for (uint32_t i = 0; i < p->stack_n; i++)
		h = (h ^ frames[p->stack_first + i]) * 1099511628211ull;
	if (hibernating(p)) {
		const struct vm_mfa *ic = vm_shown_initial_call(p);
		uint64_t k[4] = { p->wake_up, (uintptr_t)ic->module, (uintptr_t)ic->function,
				  (uint64_t)ic->arity };
		for (int i = 0; i < 4; i++)
			h = (h ^ k[i]) * 1099511628211ull;
	}
	if (by_status)
		h ^= (uint64_t)p->status << 32;
	return h;
}

/* --weight, resolved once (the per-process loop must not compare strings) */
enum weight { W_COUNT, W_MEMORY, W_TOTAL_HEAP_SIZE, W_MESSAGE_QUEUE_LEN, W_BINARY, W_N };
static const char *const weights[W_N] = { "count", "memory", "total_heap_size",
					  "message_queue_len", "binary" };

static uint64_t weight_of(const struct vm *vm, const struct vm_proc *p, enum weight w,
			  const uint64_t *binary)
{
	switch (w) {
	case W_MEMORY: return p->memory;
	case W_TOTAL_HEAP_SIZE: return p->total_heap_size;
	case W_MESSAGE_QUEUE_LEN: return p->message_queue_len;
	case W_BINARY: return binary[p - vm->procs];
	default: return 1;
	}
}

/* The input does not give p's weight (a dump's binaries): unknown, never 0. */
static int weight_unknown(const struct vm_proc *p, enum weight w)
{
	static const uint32_t bit[W_N] = { 0, VPF_MEMORY, VPF_TOTAL_HEAP_SIZE,
					   VPF_MESSAGE_QUEUE_LEN, VPF_BINARY };
	return (p->unknown & bit[w]) != 0;
}

static int group_cmp(const void *a, const void *b)
{
	const struct stack_group *x = a, *y = b;
	if (x->weight != y->weight)
		return x->weight < y->weight ? 1 : -1;
	if (x->nprocs != y->nprocs)
		return x->nprocs < y->nprocs ? 1 : -1;
	return x->first_proc < y->first_proc ? -1 : x->first_proc > y->first_proc;
}

static const char *frame_str(const struct vm *vm, uint32_t id, char *buf, size_t len)
{
	const char *s = vm_mfa_str(&vm->mfas[id], buf, len);
	return s ? s : "?";
}

/* p's wake_up as "m:f/a" in buf; NULL: none */
static const char *wake_up_str(const struct vm *vm, const struct vm_proc *p, char *buf, size_t len)
{
	return p->wake_up ? vm_mfa_str(&vm->mfas[p->wake_up - 1], buf, len) : NULL;
}

bool stack_hibernating(const struct vm_proc *p)
{
	return hibernating(p);
}

const char *stack_wake_up(const struct vm *vm, const struct vm_proc *p, char *buf, size_t len)
{
	return wake_up_str(vm, p, buf, len);
}

/* A hibernating group: "hibernating: who (wakes in m:f/a)", or folded
 * "who;erlang:hibernate/3" (as if its initial call had called it). */
static const char *hibernating_line(struct stack_groups *c, const struct vm_proc *p, int folded,
				    size_t o)
{
	char ic[300], wake[300];
	const char *who = vm_mfa_str(vm_shown_initial_call(p), ic, sizeof ic);
	const char *at = wake_up_str(c->vm, p, wake, sizeof wake);
	if (folded)
		snprintf(c->line + o, c->line_cap - o, "%s%s;erlang:hibernate/3", o ? ";" : "",
			 who ? who : "?");
	else
		snprintf(c->line + o, c->line_cap - o, "hibernating: %s%s%s%s", who ? who : "?",
			 at ? " (wakes in " : "", at ? at : "", at ? ")" : "");
	return c->line;
}

/* Group stack: "top <- caller <- ...", or folded: "status;bottom;...;top". */
static const char *stack_line(struct stack_groups *c, const struct vm_proc *p, int folded)
{
	size_t o = 0;
	char f[300];
	c->line[0] = '\0';
	if (folded && c->by_status)
		o += snprintf(c->line + o, c->line_cap - o, "%s",
			      p->status ? vm_status_name(p->status) : "unknown");
	if (hibernating(p))
		return hibernating_line(c, p, folded, o);
	for (uint32_t i = 0; i < p->stack_n && o < c->line_cap; i++) {
		uint32_t k = folded ? p->stack_n - 1 - i : i;
		o += snprintf(c->line + o, c->line_cap - o, "%s%s",
			      o ? (folded ? ";" : " <- ") : "",
			      frame_str(c->vm, c->vm->frames[p->stack_first + k], f, sizeof f));
	}
	if (!p->stack_n && o < c->line_cap)
		snprintf(c->line + o, c->line_cap - o, "%s(no stack)", o ? ";" : "");
	return c->line;
}

const char *stack_groups_line(struct stack_groups *sg, uint32_t proc)
{
	return stack_line(sg, &sg->vm->procs[proc], 0);
}

enum { G_COUNT, G_WEIGHT, G_STATUS, G_STACK, G_PIDS, G_HIBERNATING, G_INITIAL_CALL, G_WAKE_UP };
static const struct rcol group_cols[] = {
	[G_COUNT] = { "count", "PROCESSES", RC_U64, 0 },
	[G_WEIGHT] = { "weight", "WEIGHT", RC_U64, 0 },
	[G_STATUS] = { "status", "STATUS", RC_STR, 0 },
	[G_STACK] = { "current_stacktrace", "STACK (innermost first)", RC_LIST, 0 },
	[G_PIDS] = { "pids", NULL, RC_LIST, RCOL_JSON_ONLY },
	/* hibernating groups: who they are and where they wake; null for others */
	[G_HIBERNATING] = { "hibernating", NULL, RC_BOOL, RCOL_JSON_ONLY },
	[G_INITIAL_CALL] = { "initial_call", NULL, RC_STR, RCOL_JSON_ONLY },
	[G_WAKE_UP] = { "wake_up", NULL, RC_STR, RCOL_JSON_ONLY },
};

static void group_cell(void *vctx, size_t row, size_t col, struct rcell *out, char *buf, size_t len)
{
	struct stack_groups *c = vctx;
	const struct stack_group *g = &c->groups[row];
	const struct vm_proc *p = &c->vm->procs[g->first_proc];
	int hib = hibernating(p);
	switch (col) {
	case G_COUNT: out->u = g->nprocs; break;
	case G_WEIGHT: out->u = g->weight; out->null = g->unknown != 0; break;
	case G_STATUS: out->s = vm_status_name(g->status); break;
	case G_STACK: out->u = p->stack_n; break;
	case G_PIDS: out->u = g->nprocs; break;
	case G_HIBERNATING: out->u = (uint64_t)hib; break;
	case G_INITIAL_CALL:
		out->s = hib ? vm_mfa_str(vm_shown_initial_call(p), buf, len) : NULL;
		break;
	case G_WAKE_UP: out->s = hib ? wake_up_str(c->vm, p, buf, len) : NULL; break;
	}
}

static const char *group_item(void *vctx, size_t row, size_t col, size_t i, char *buf, size_t len)
{
	struct stack_groups *c = vctx;
	const struct stack_group *g = &c->groups[row];
	if (col == G_PIDS)
		return vm_pid_str(&c->vm->procs[g->members[i]], buf, len);
	const struct vm_proc *p = &c->vm->procs[g->first_proc];
	return frame_str(c->vm, c->vm->frames[p->stack_first + i], buf, len);
}

/* The report's page: the groups with every weight's sum (the page weighs its
 * flame graph by any of them), their processes not listed (the page's
 * processes table holds them) */
enum { GP_COUNT, GP_STATUS, GP_STACK, GP_HIBERNATING, GP_INITIAL_CALL, GP_WAKE_UP, GP_SUM };
static const struct rcol group_page_cols[] = {
	[GP_COUNT] = { "count", "PROCESSES", RC_U64, 0 },
	[GP_STATUS] = { "status", "STATUS", RC_STR, 0 },
	[GP_STACK] = { "current_stacktrace", "STACK (innermost first)", RC_LIST, 0 },
	[GP_HIBERNATING] = { "hibernating", NULL, RC_BOOL, 0 },
	[GP_INITIAL_CALL] = { "initial_call", NULL, RC_STR, 0 },
	[GP_WAKE_UP] = { "wake_up", NULL, RC_STR, 0 },
	[GP_SUM + W_MEMORY - 1] = { "memory", NULL, RC_BYTES, 0 },
	[GP_SUM + W_TOTAL_HEAP_SIZE - 1] = { "total_heap_size", NULL, RC_WORDS, 0 },
	[GP_SUM + W_MESSAGE_QUEUE_LEN - 1] = { "message_queue_len", NULL, RC_U64, 0 },
	[GP_SUM + W_BINARY - 1] = { "binary", NULL, RC_BYTES, 0 },
};
_Static_assert(sizeof group_page_cols / sizeof *group_page_cols == GP_SUM + W_N - 1,
	       "a column per weight but count");

static void group_page_cell(void *vctx, size_t row, size_t col, struct rcell *out, char *buf,
			    size_t len)
{
	static const size_t as[] = { [GP_COUNT] = G_COUNT, [GP_STATUS] = G_STATUS,
		[GP_STACK] = G_STACK, [GP_HIBERNATING] = G_HIBERNATING,
		[GP_INITIAL_CALL] = G_INITIAL_CALL, [GP_WAKE_UP] = G_WAKE_UP };
	if (col < GP_SUM) {
		group_cell(vctx, row, as[col], out, buf, len);
		return;
	}
	const struct stack_group *g = &((struct stack_groups *)vctx)->groups[row];
	size_t k = col - GP_SUM + 1;
	out->u = g->sum[k];
	out->null = (g->sum_unknown >> k) & 1;
}

static const char *group_page_item(void *vctx, size_t row, size_t col, size_t i, char *buf,
				   size_t len)
{
	(void)col;
	return group_item(vctx, row, G_STACK, i, buf, len);
}

/* Text: one line per group with the whole stack, not a 3-item list. */
static const struct rcol group_text_cols[] = {
	{ "count", "PROCESSES", RC_U64, 0 },
	{ "weight", "WEIGHT", RC_U64, 0 },
	{ "current_stacktrace", "STACK (innermost first)", RC_STR, 0 },
	/* not printed: the browser lists them on Enter */
	{ "pids", NULL, RC_LIST, RCOL_JSON_ONLY },
};

static void group_text_cell(void *vctx, size_t row, size_t col, struct rcell *out, char *buf,
			    size_t len)
{
	struct stack_groups *c = vctx;
	const struct stack_group *g = &c->groups[row];
	(void)buf;
	(void)len;
	if (col == 0 || col == 3)
		out->u = g->nprocs;
	else if (col == 1) {
		out->u = g->weight;
		out->null = g->unknown != 0;
	}
	else
		out->s = stack_line(c, &c->vm->procs[g->first_proc], 0);
}

/* group_text_cols' pids (column 3) are group_cols' G_PIDS */
static const char *group_text_item(void *vctx, size_t row, size_t col, size_t i, char *buf,
				   size_t len)
{
	(void)col;
	return group_item(vctx, row, G_PIDS, i, buf, len);
}

static const struct rcol folded_cols[] = {
	{ "stack", "STACK", RC_STR, 0 },
	{ "weight", "WEIGHT", RC_U64, 0 },
};

static void folded_cell(void *vctx, size_t row, size_t col, struct rcell *out, char *buf, size_t len)
{
	struct stack_groups *c = vctx;
	const struct stack_group *g = &c->groups[row];
	(void)buf;
	(void)len;
	if (col == 0)
		out->s = stack_line(c, &c->vm->procs[g->first_proc], 1);
	else
		out->u = g->weight;
}

/* who each process is: a group of proc_lib:init_p/5 processes (gen_servers
 * in gen_server:loop/7) splits by its proc_lib initial call */
enum { P_PID, P_STATUS, P_STACK, P_REGNAME, P_PROC_LIB_INITIAL, P_HIBERNATING, P_WAKE_UP };
static const struct rcol proc_cols[] = {
	[P_PID] = { "pid", "PID", RC_STR, 0 },
	[P_STATUS] = { "status", "STATUS", RC_STR, 0 },
	[P_STACK] = { "current_stacktrace", "STACK", RC_LIST, 0 },
	[P_REGNAME] = { "registered_name", NULL, RC_STR, RCOL_JSON_ONLY },
	[P_PROC_LIB_INITIAL] = { "proc_lib_initial_call", NULL, RC_STR, RCOL_JSON_ONLY },
	[P_HIBERNATING] = { "hibernating", NULL, RC_BOOL, RCOL_JSON_ONLY },
	[P_WAKE_UP] = { "wake_up", NULL, RC_STR, RCOL_JSON_ONLY },
};

static void proc_cell(void *vctx, size_t row, size_t col, struct rcell *out, char *buf, size_t len)
{
	struct stack_groups *c = vctx;
	const struct vm_proc *p = &c->vm->procs[c->order[row]];
	switch (col) {
	case P_PID: out->s = vm_pid_str(p, buf, len); break;
	case P_STATUS: out->s = vm_status_name(p->status); break;
	case P_STACK:
		out->u = p->stack_n;
		out->null = p->unknown & VPF_STACKTRACE;
		break;
	case P_REGNAME:
		out->s = p->registered_name;
		out->null = p->unknown & VPF_REGISTERED_NAME;
		break;
	case P_PROC_LIB_INITIAL:
		out->s = vm_mfa_str(p->proc_lib_initial_call, buf, len);
		out->null = p->unknown & VPF_IDENTITY;
		break;
	case P_HIBERNATING: out->u = (uint64_t)hibernating(p); break;
	case P_WAKE_UP: out->s = wake_up_str(c->vm, p, buf, len); break;
	}
}

static const char *proc_item(void *vctx, size_t row, size_t col, size_t i, char *buf, size_t len)
{
	struct stack_groups *c = vctx;
	(void)col;
	const struct vm_proc *p = &c->vm->procs[c->order[row]];
	return frame_str(c->vm, c->vm->frames[p->stack_first + i], buf, len);
}

static uint64_t group_hash(const void *vc, uint32_t g)
{
	const struct stack_groups *c = vc;
	return stack_hash(&c->vm->procs[c->groups[g].first_proc], c->vm->frames, c->by_status);
}

static bc_err *build(const struct vm *vm, enum weight w, struct stack_groups *c)
{
	size_t n = vm->nprocs ? vm->nprocs : 1;
	uint64_t *binary = NULL;
	c->vm = vm;
	c->groups = calloc(n, sizeof *c->groups);
	c->members = malloc(n * sizeof *c->members);
	c->order = malloc(n * sizeof *c->order);
	uint32_t *gid = malloc(n * sizeof *gid), *first = malloc((n + 1) * sizeof *first);
	struct hmap index = { 0 };  /* groups by stack (and status) */
	hmap_init(&index, n);
	c->line_cap = 1 << 16;
	c->line = malloc(c->line_cap);
	if (w == W_BINARY || c->sums) {
		binary = calloc(n, sizeof *binary);
		for (size_t i = 0; binary && i < vm->nbinrefs; i++)  /* process_info(P, binary)'s */
			binary[vm->binrefs[i].proc] += vm->binrefs[i].where == VBR_OFF_HEAP
						       ? vm->binrefs[i].orig_size : 0;
	}
	bc_err *err = NULL;
	if (!c->groups || !c->members || !c->order || !gid || !first || !index.slot || !c->line ||
	    ((w == W_BINARY || c->sums) && !binary)) {
		err = bc_error(BC_ENOMEM, "out of memory");
		goto out;
	}
	/* group by hashing each stack once: no per-process allocation */
	for (size_t i = 0; i < vm->nprocs; i++) {
		const struct vm_proc *p = &vm->procs[i];
		size_t j = hmap_first(&index, stack_hash(p, vm->frames, c->by_status));
		for (; index.slot[j]; j = hmap_next(&index, j))
			if (same(&vm->procs[c->groups[index.slot[j] - 1].first_proc], p, vm->frames,
				 c->by_status))
				break;
		if (!index.slot[j]) {  /* sized for every process: never grows */
			c->groups[c->ngroups] = (struct stack_group){ .first_proc = (uint32_t)i,
								.status = p->status };
			hmap_set(&index, j, (uint32_t)c->ngroups++, group_hash, c);
		}
		struct stack_group *g = &c->groups[index.slot[j] - 1];
		g->nprocs++;
		if (weight_unknown(p, w))
			g->unknown++;
		else
			g->weight += weight_of(vm, p, w, binary);
		for (enum weight k = W_COUNT; c->sums && k < W_N; k++) {
			if (weight_unknown(p, k))
				g->sum_unknown |= (uint8_t)(1u << k);
			else if (k != W_BINARY || binary)
				g->sum[k] += weight_of(vm, p, k, binary);
		}
		gid[i] = index.slot[j] - 1;
		c->order[i] = (uint32_t)i;
	}
	/* members, grouped */
	count_sort_u32(gid, vm->nprocs, c->ngroups, c->members, first);
	for (size_t g = 0; g < c->ngroups; g++)
		c->groups[g].members = c->members + first[g];
	if (c->ngroups > 1)
		qsort(c->groups, c->ngroups, sizeof *c->groups, group_cmp);
out:
	free(gid);
	free(first);
	hmap_free(&index);
	free(binary);
	return err;
}

/* --weight NAME into *w (NULL: count); else the usage error: the one rule */
static bc_err *weight_find(const char *name, enum weight *w)
{
	*w = W_COUNT;
	while (name && *w < W_N && strcmp(name, weights[*w]) != 0)
		(*w)++;
	return *w < W_N ? NULL : bc_error(BC_EUSAGE, "--weight %s: one of count, memory, "
					  "total_heap_size, message_queue_len, binary", name);
}

bc_err *stack_groups(const struct vm *vm, const char *weight, int by_status,
		     struct stack_groups *sg)
{
	enum weight w;
	bc_err *err = weight_find(weight, &w);
	if (err)
		return err;
	memset(sg, 0, sizeof *sg);
	sg->by_status = by_status;
	return build(vm, w, sg);
}

void stack_groups_free(struct stack_groups *sg)
{
	free(sg->groups);
	free(sg->members);
	free(sg->order);
	free(sg->line);
	memset(sg, 0, sizeof *sg);
}

static void groups_release(void *sg)
{
	stack_groups_free(sg);
	free(sg);
}

/* stacks' own options */
struct stacks_opts {
	struct stack_group_opts group;  /* first: stacks_group_options' offsets */
	int folded;
};
_Static_assert(offsetof(struct stacks_opts, group) == 0, "stacks_group_options' offsets");
static struct stacks_opts stacks_opts;
extern const struct analyzer analyzer_stacks;

static bc_err *run(const struct vm *vm, const struct an_opts *o, struct an_out *out)
{
	const struct stacks_opts *so = an_own_opts(o, &analyzer_stacks);
	enum weight w;
	bc_err *err = weight_find(so->group.weight, &w);  /* (checked with the command line) */
	if (err)
		return err;
	struct stack_groups *c = an_own(out, calloc(1, sizeof *c), groups_release);
	if (!c)
		return bc_error(BC_ENOMEM, "out of memory");
	c->by_status = so->group.by_status;
	c->sums = o->page;
	err = build(vm, w, c);
	if (err)
		return err;
	/* weights the input does not give: none at all is a failure (as
	 * `binaries` on a dump), some is null for their groups and said */
	size_t unknown = 0;
	for (size_t g = 0; g < c->ngroups; g++)
		unknown += c->groups[g].unknown;
	if (vm->nprocs && unknown == vm->nprocs)
		return bc_error(BC_EFORMAT, "%s: --weight %s: this input does not give any process's "
				"%s%s", vm->source, weights[w], weights[w],
				w == W_BINARY ? " (a crash dump does not record the refc binaries "
				"a process holds: it needs a core)" : "");
	if (unknown && so->folded)
		return bc_error(BC_EFORMAT, "%s: --weight %s: %zu processes' %s unknown: folded "
				"lines need every weight", vm->source, weights[w], unknown, weights[w]);
	if (unknown) {
		struct an_finding *f = an_find(out, "weight_unknown", "info",
			"%zu processes' %s is unknown: their groups' weight is null", unknown,
			weights[w]);
		if (f) {
			f->has_value = true;
			f->value = unknown;
		}
	}
	size_t ng = o->top && o->top < c->ngroups ? o->top : c->ngroups;
	if (so->folded) {
		if (!an_table(out, (struct rtable){ .json_key = "folded", .cols = folded_cols, .ncols = 2,
						  .nrows = ng, .ctx = c, .cell = folded_cell,
						  .plain = 1 }, NULL))
			return bc_error(BC_ENOMEM, "out of memory");
		return NULL;
	}
	if (o->page) {
		if (!an_table(out, (struct rtable){ .json_key = "groups", .cols = group_page_cols,
						  .ncols = sizeof group_page_cols /
							   sizeof group_page_cols[0],
						  .nrows = ng, .total = c->ngroups, .ctx = c,
						  .cell = group_page_cell,
						  .item = group_page_item }, NULL))
			return bc_error(BC_ENOMEM, "out of memory");
		return NULL;
	}
	if (o->json) {
		if (!an_table(out, (struct rtable){ .json_key = "processes", .cols = proc_cols,
						  .ncols = sizeof proc_cols / sizeof proc_cols[0],
						  .nrows = vm->nprocs, .ctx = c, .cell = proc_cell,
						  .item = proc_item }, NULL))
			return bc_error(BC_ENOMEM, "out of memory");
		if (!an_table(out, (struct rtable){ .json_key = "groups", .cols = group_cols,
						  .ncols = sizeof group_cols / sizeof group_cols[0],
						  .nrows = ng, .ctx = c, .cell = group_cell,
						  .item = group_item }, NULL))
			return bc_error(BC_ENOMEM, "out of memory");
		return NULL;
	}
	if (!an_table(out, (struct rtable){ .json_key = "groups", .cols = group_text_cols,
					  .ncols = 4, .nrows = ng, .ctx = c,
					  .cell = group_text_cell, .item = group_text_item }, NULL))
		return bc_error(BC_ENOMEM, "out of memory");
	if (w == W_COUNT) {
		/* weight equals the count: show it once */
		static const struct rcol cols2[] = {
			{ "count", "PROCESSES", RC_U64, 0 },
			{ "weight", NULL, RC_U64, RCOL_JSON_ONLY },
			{ "current_stacktrace", "STACK (innermost first)", RC_STR, 0 },
			{ "pids", NULL, RC_LIST, RCOL_JSON_ONLY },
		};
		out->tables[0].cols = cols2;
	}
	return NULL;
}

static int check_weight(const char *weight)
{
	enum weight w;
	return option_error(weight_find(weight, &w));
}

static const char *weight_name(size_t i)
{
	return i < W_N ? weights[i] : NULL;
}

/* export's too (its speedscope profile is these groups) */
const struct option_entry stacks_group_options[] = {
	{ .kind = OPT_STRING, .name = "weight", .arg = "W",
	  .help = "what a group weighs: count (default), memory,\n"
		  "total_heap_size, message_queue_len, binary",
	  .offset = offsetof(struct stack_group_opts, weight), .check = check_weight,
	  .value = weight_name },
	OPT_FLAG("by-status", "group (and prefix folded lines) by status", OPT_OWN,
		 struct stack_group_opts, by_status),
	OPT_TABLE_END,
};

static const struct option_entry options[] = {
	OPT_INCLUDE(an_json_option),
	OPT_INCLUDE(an_top_option),
	OPT_FLAG("folded", "folded lines for flamegraph.pl / speedscope", OPT_OWN, struct stacks_opts,
		 folded),
	OPT_INCLUDE(stacks_group_options),
	OPT_SLOT(OPT_SLOT_TARGET_LIVE),
	OPT_SLOT(OPT_SLOT_TARGET_FILE),
	OPT_TABLE_END,
};

const struct analyzer analyzer_stacks = {
	.name = "stacks",
	.kind = CMD_MODEL,
	.options = options,
	.opts = &stacks_opts,
	.summary = "every process's Erlang stack, grouped by identical stack (--folded for flame graphs)",
	.needs = NEED_STACKS | NEED_BINARIES,
	.run = run,
};
