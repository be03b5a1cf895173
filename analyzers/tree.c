/* tree: the supervision trees of the whole node, each subtree rolled up
 * (processes, memory, message queues, ETS tables owned, refc binaries held
 * only inside it): which part of the application holds the memory, as a
 * dominator tree would say. From what every process records, not from a list
 * of behaviours:
 *   parent      the head of its '$ancestors' (a pid, or a registered name)
 *               when that process lives: '$ancestors' decide; else (no
 *               '$ancestors': code_server under kernel_sup, an
 *               application_master:start_it/4; or the head is gone) the older
 *               process it is linked to, a supervisor first, else the
 *               youngest: links confirm. A cycle (a pid or name reused) is cut.
 *   supervisor  a process with children, whatever its behaviour (supervisor2,
 *               ranch_conns_sup, DynamicSupervisor, a gen_server), or one whose
 *               proc_lib '$initial_call' is supervisor:Callback/1 (also
 *               supervisor_bridge)
 *   roots       the processes without a parent; every process is in one tree
 *   coverage    placed: a parent, or a root by what it records; unplaced:
 *               '$ancestors' name a gone process and no older link, or the
 *               dictionary/links are unreadable (a gap then)
 * Links come from vm->detail, read only for the processes without a live
 * '$ancestors' head; everything else from the process table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer.h"
#include "grow.h"
#include "needs.h"
#include "term.h"

#define MAX_DEPTH 24   /* JSON nesting the writer keeps; deeper is said cut */

enum { U_MEMORY = 1, U_MSGQ = 2, U_ETS = 4, U_BINARY = 8 };

struct node {                      /* (one cache line: a million of them) */
	int32_t parent, first, next;   /* procs indices; -1: none */
	uint32_t depth;
	uint32_t nchildren;
	uint32_t procs;                /* the subtree's, */
	uint64_t memory, msgq, ets, binary;
	unsigned char unknown;         /* U_*: a figure of the subtree could not be read */
	unsigned char place;           /* enum place */
	bool in_tree;
};

/* How a process got its place (or why it has none). */
enum place {
	P_ROOT,       /* no '$ancestors', linked to no older process: a root */
	P_ANCESTORS,  /* the head of its '$ancestors' (pid or registered name) */
	P_LINK,       /* no live '$ancestors' head: the older process it is linked to */
	P_GONE,       /* '$ancestors' name a process that is gone, and no link: unplaced */
	P_NODATA,     /* its dictionary (or links) could not be read: unplaced */
};

struct group {                     /* processes of one initial call (unplaced, or alone) */
	uint32_t proc;                 /* one of them */
	uint64_t count;
};

struct tree {
	const struct vm *vm;
	struct node *n;                /* per node: every process, or (sparse) those that may be in a tree */
	size_t nn;                     /* nodes */
	uint32_t *proc;                /* sparse: node -> process index (NULL: node x is process x) */
	uint32_t *slot;                /* sparse: process index -> node + 1 (0: left out, alone) */
	uint64_t alone_held;           /* sparse: what the processes left out hold (each alone) */
	uint32_t *roots, *order;       /* order: every node, parents before children */
	size_t nroots, norder;
	size_t placed, nodata;         /* processes in a tree; unplaced for lack of data */
	struct group *groups;          /* the unplaced, by initial call, most first */
	size_t ngroups;
	struct group *lone;            /* those alone (no parent, no children), so; nalone: all */
	size_t nlone, nalone;
	uint32_t *shown;               /* the text's order: those alone left out */
	size_t nshown;
	bool cut;                      /* deeper than MAX_DEPTH somewhere */
	bool page;                     /* the report's page: trees of more than one
					* process, children with children of their own
					* (the leaves are the page's table's: "leaves") */
	uint32_t *page_roots;          /* page: the roots not alone */
	size_t npage_roots;
	uint64_t *pidkey;              /* per process: pid number << 32 | serial (link_up's sort) */
	struct walk {                  /* node_item's place in a children list */
		int64_t parent;
		size_t i;
		int32_t at;
	} walk[MAX_DEPTH + 1];
};

/* A supervisor by its behaviour: proc_lib's '$initial_call' is
 * supervisor:Callback/1 or supervisor_bridge:Callback/1 (what
 * proc_lib:translate_initial_call says). Any process with children is one too
 * (is_supervisor). */
static bool otp_supervisor(const struct vm_proc *p)
{
	const char *m = p->proc_lib_initial_call->module;
	return m && p->proc_lib_initial_call->arity == 1 &&
	       (strcmp(m, "supervisor") == 0 || strcmp(m, "supervisor_bridge") == 0);
}

/* Node x's process. */
static const struct vm_proc *proc_at(const struct tree *t, uint32_t x)
{
	return &t->vm->procs[t->proc ? t->proc[x] : x];
}

/* Process i's node, or -1 (sparse: left out, alone). */
static int64_t node_of(const struct tree *t, size_t i)
{
	return t->slot ? (int64_t)t->slot[i] - 1 : (int64_t)i;
}

static bool is_supervisor(const struct tree *t, uint32_t i)
{
	return t->n[i].nchildren > 0 || otp_supervisor(proc_at(t, i));
}

/* Was a spawned before b? (pids grow with time: serial, then number) */
static bool older(const struct vm_proc *a, const struct vm_proc *b)
{
	return a->pid_serial != b->pid_serial ? a->pid_serial < b->pid_serial
					       : a->pid_num < b->pid_num;
}

static int by_name(const void *a, const void *b, void *ctx)
{
	const struct vm *vm = ctx;
	return strcmp(vm->procs[*(const uint32_t *)a].registered_name,
		      vm->procs[*(const uint32_t *)b].registered_name);
}

/* The live process an '$ancestors' entry names (a local pid, or a registered
 * name: names[0..nnames) are the registered processes by name), or -1. */
static int64_t resolve(const struct vm *vm, const char *a, const uint32_t *names, size_t nnames)
{
	unsigned ch, num, ser;
	char end;
	if (a[0] == '<') {
		if (sscanf(a, "<%u.%u.%u%c", &ch, &num, &ser, &end) != 4 || end != '>' || ch != 0)
			return -1;
		const struct vm_proc *q = vm_find_proc(vm, (struct vm_pid){ num, ser });
		return q ? q - vm->procs : -1;
	}
	size_t lo = 0, hi = nnames;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(vm->procs[names[mid]].registered_name, a);
		if (c == 0)
			return names[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* Is x in i's subtree (as the parents stand)? */
static bool below(const struct tree *t, uint32_t x, uint32_t i)
{
	size_t steps = t->nn;
	for (int32_t y = (int32_t)x; y >= 0 && steps--; y = t->n[y].parent)
		if (y == (int32_t)i)
			return true;
	return false;
}

/* A process without a live '$ancestors' head: the older process it is linked
 * to (its spawner linked it: code_server under kernel_sup, an
 * application_master under application_controller), a supervisor first, else
 * the youngest of them; -1: none. */
static bc_err *by_link(struct tree *t, uint32_t i, int64_t *parent, bool *unreadable)
{
	const struct vm *vm = t->vm;
	const struct vm_proc *p = proc_at(t, i);
	*parent = -1;
	*unreadable = false;
	if (!p->nlinks)
		return NULL;
	struct vm_detail_limits lim = { .items = 4, .bytes = 16 };  /* the links alone */
	struct vm_proc_detail d;
	if (vm->detail(vm->loader, p, &lim, &d) < 0)
		return bc_error(BC_ENOMEM, "out of memory");
	*unreadable = d.no_links;
	int64_t best = -1;
	bool best_sup = false;
	for (size_t k = 0; k < d.nlinks; k++) {
		const struct vt *l = d.links[k];
		if (!l || l->kind != VT_PID || l->chan)
			continue;
		const struct vm_proc *q = vm_find_proc(vm, (struct vm_pid){ (uint32_t)l->i, (uint32_t)l->u });
		if (!q || q == p || !older(q, p))
			continue;
		int64_t qn = node_of(t, (size_t)(q - vm->procs));
		if (qn < 0)   /* (sparse: links are mutual, a linked process is a node) */
			continue;
		uint32_t qi = (uint32_t)qn;
		if (below(t, qi, i))   /* its own descendant: a cycle */
			continue;
		bool sup = is_supervisor(t, qi);
		if (best < 0 || (sup && !best_sup) || (sup == best_sup && older(proc_at(t, (uint32_t)best), q))) {
			best = qi;
			best_sup = sup;
		}
	}
	vm_detail_free(&d);
	*parent = best;
	return NULL;
}

static uint64_t head_hash(const void *ctx, uint32_t item)
{
	return (uint64_t)(uintptr_t)((const char *const *)ctx)[item];
}

/* Each node's parent: the head of its '$ancestors' when that process
 * lives ('$ancestors' decides), else the older process it is linked to.
 * names[0..nnames): the registered processes (sparse: from sparse_nodes;
 * NULL: every node is a process, gathered here, in the one pass). Frees names. */
static bc_err *place(struct tree *t, uint32_t *names, size_t nnames)
{
	const struct vm *vm = t->vm;
	size_t n = t->nn;
	bool gather = !names;
	if (gather && !(names = malloc((n ? n : 1) * sizeof *names)))
		return bc_error(BC_ENOMEM, "out of memory");
	/* an '$ancestors' head resolved once per distinct (interned) string:
	 * heads[k] is one, headq[k] what resolve said; head: each process's
	 * (NULL: none); linked: it has links */
	struct hmap seen = { 0 };
	const char **heads = malloc((n ? n : 1) * sizeof *heads);
	int64_t *headq = malloc((n ? n : 1) * sizeof *headq);
	const char **head = malloc((n ? n : 1) * sizeof *head);
	bool *linked = malloc(n ? n : 1);
	size_t nheads = 0;
	t->pidkey = malloc((n ? n : 1) * sizeof *t->pidkey);
	if (!heads || !headq || !head || !linked || !t->pidkey || hmap_init(&seen, 1024) < 0) {
		free(names);
		free(heads);
		free(headq);
		free(head);
		free(linked);
		hmap_free(&seen);
		return bc_error(BC_ENOMEM, "out of memory");
	}
	/* one pass over the process table: what place, link_up and roll_up read
	 * of each process (the table is large: each pass over it costs) */
	mem_populate(t->pidkey, n * sizeof *t->pidkey);
	mem_populate(head, n * sizeof *head);
	for (size_t i = 0; i < n; i++) {
		const struct vm_proc *p = proc_at(t, (uint32_t)i);
		struct node *x = &t->n[i];
		if (gather && p->registered_name)
			names[nnames++] = (uint32_t)i;
		t->pidkey[i] = (uint64_t)p->pid_num << 32 | p->pid_serial;
		linked[i] = p->nlinks != 0;
		*x = (struct node){ .parent = -1, .first = -1, .next = -1, .memory = p->memory,
				    .msgq = p->message_queue_len };
		x->unknown = (p->unknown & VPF_MEMORY ? U_MEMORY : 0) |
			     (p->unknown & VPF_MESSAGE_QUEUE_LEN ? U_MSGQ : 0) |
			     (p->unknown & VPF_BINARY ? U_BINARY : 0);
		head[i] = NULL;
		if (p->unknown & VPF_IDENTITY)
			x->place = P_NODATA;
		else if (!p->has_ancestors || !p->anc_n)
			x->place = P_ROOT;   /* until a link says otherwise */
		else
			head[i] = vm->ancestors[p->anc_first];
	}
	if (gather && nnames > 1)
		qsort_r(names, nnames, sizeof *names, by_name, (void *)vm);
	for (size_t i = 0; i < n; i++) {
		struct node *x = &t->n[i];
		const char *a = head[i];
		if (!a)
			continue;
		uint64_t h = (uint64_t)(uintptr_t)a;
		size_t j;
		int64_t q = -2;
		for (j = hmap_first(&seen, h); seen.slot[j]; j = hmap_next(&seen, j))
			if (heads[seen.slot[j] - 1] == a) {
				q = headq[seen.slot[j] - 1];
				break;
			}
		if (q == -2) {
			q = resolve(vm, a, names, nnames);
			q = q >= 0 ? node_of(t, (size_t)q) : -1;
			heads[nheads] = a;
			headq[nheads] = q;
			/* not stored (out of memory): resolved again next time */
			if (hmap_set(&seen, j, (uint32_t)nheads, head_hash, heads) == 0 || seen.slot[j])
				nheads++;
		}
		if (q >= 0 && q != (int64_t)i) {
			x->parent = (int32_t)q;
			x->place = P_ANCESTORS;
			t->n[q].nchildren++;
		} else {
			x->place = P_GONE;   /* until a link says otherwise */
		}
	}
	free(names);
	free(heads);
	free(headq);
	free(head);
	hmap_free(&seen);
	/* a cycle of '$ancestors' (a pid or a name reused): its edges are cut,
	 * its processes unplaced (a link makes none: by_link passes a descendant) */
	unsigned char *state = calloc(n ? n : 1, 1);  /* 1: on the walk, 2: done */
	if (!state)
		return bc_error(BC_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		int32_t x = (int32_t)i;
		while (x >= 0 && !state[x]) {
			state[x] = 1;
			x = t->n[x].parent;
		}
		if (x >= 0 && state[x] == 1) {   /* back on this walk: a cycle through x */
			int32_t y = x;
			do {
				int32_t up = t->n[y].parent;
				t->n[up].nchildren--;
				t->n[y].parent = -1;
				t->n[y].place = P_GONE;
				state[y] = 2;
				y = up;
			} while (y != x);
		}
		for (x = (int32_t)i; x >= 0 && state[x] == 1; x = t->n[x].parent)
			state[x] = 2;
	}
	free(state);
	for (size_t i = 0; i < n; i++) {
		struct node *x = &t->n[i];
		if (!linked[i] || (x->place != P_ROOT && x->place != P_GONE))
			continue;   /* by_link: no links, no parent (linked first: it is the smaller array) */
		int64_t q;
		bool unreadable;
		bc_err *err = by_link(t, (uint32_t)i, &q, &unreadable);
		if (err) {
			free(linked);
			return err;
		}
		if (q >= 0) {
			x->parent = (int32_t)q;
			x->place = P_LINK;
			t->n[q].nchildren++;
		} else if (unreadable) {
			x->place = P_NODATA;
		}
	}
	free(linked);
	return NULL;
}

/* kids[0..n) (0, 1, ...) in pid order, ties in index order (a stable sort):
 * a least-significant-digit radix sort of t->pidkey, 16 bits
 * a pass, passes whose digit is the same everywhere skipped. */
static int pid_sort(const struct tree *t, uint32_t *kids)
{
	size_t n = t->nn;
	const uint64_t *key = t->pidkey;
	uint32_t *tmp = malloc(n * sizeof *tmp);
	size_t *count = malloc(65536 * sizeof *count);
	if (!tmp || !count) {
		free(tmp);
		free(count);
		return -1;
	}
	mem_populate(tmp, n * sizeof *tmp);
	uint64_t all_or = 0, all_and = ~0ull;
	for (size_t i = 0; i < n; i++) {
		all_or |= key[i];
		all_and &= key[i];
	}
	for (unsigned shift = 0; shift < 64; shift += 16) {
		if ((((all_or ^ all_and) >> shift) & 0xffff) == 0)
			continue;   /* every key has this digit: the pass keeps the order */
		memset(count, 0, 65536 * sizeof *count);
		for (size_t i = 0; i < n; i++)
			count[(key[kids[i]] >> shift) & 0xffff]++;
		size_t sum = 0;
		for (size_t d = 0; d < 65536; d++) {
			size_t c = count[d];
			count[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			tmp[count[(key[kids[i]] >> shift) & 0xffff]++] = kids[i];
		memcpy(kids, tmp, n * sizeof *kids);
	}
	free(tmp);
	free(count);
	return 0;
}

/* Children lists (first/next, in pid order), roots (every process without a
 * parent), and the pre-order. */
static int link_up(struct tree *t)
{
	size_t n = t->nn;
	uint32_t *kids = malloc((n ? n : 1) * sizeof *kids);
	if (!kids)
		return -1;
	mem_populate(kids, n * sizeof *kids);
	for (size_t i = 0; i < n; i++)
		kids[i] = (uint32_t)i;
	if (n > 1 && pid_sort(t, kids) < 0) {
		free(kids);
		return -1;
	}
	/* prepend in reverse: lists in pid order; the roots gathered at the end of
	 * kids in the same pass (each written where kids were read already), in
	 * pid order, then moved to its start */
	for (size_t k = n; k-- > 0;) {
		uint32_t x = kids[k];
		struct node *c = &t->n[x];
		if (c->parent < 0) {
			kids[n - ++t->nroots] = x;
			continue;
		}
		struct node *p = &t->n[c->parent];
		c->next = p->first;
		p->first = (int32_t)x;
	}
	t->roots = kids;
	memmove(kids, kids + n - t->nroots, t->nroots * sizeof *kids);
	/* pre-order by an explicit stack (a corrupt chain must not recurse) */
	if (!(t->order = malloc((n ? n : 1) * sizeof *t->order)))
		return -1;
	mem_populate(t->order, n * sizeof *t->order);
	uint32_t *stack = malloc((n ? n : 1) * sizeof *stack);
	if (!stack)
		return -1;
	for (size_t r = 0; r < t->nroots; r++) {
		size_t sp = 0;
		stack[sp++] = t->roots[r];
		while (sp) {
			uint32_t x = stack[--sp];
			struct node *nx = &t->n[x];
			if (nx->in_tree || t->norder == n)
				continue;
			nx->in_tree = true;
			nx->depth = nx->parent >= 0 ? t->n[nx->parent].depth + 1 : 0;
			t->cut |= nx->depth >= MAX_DEPTH && nx->first >= 0;
			t->order[t->norder++] = x;
			size_t mark = sp;
			for (int32_t c = nx->first; c >= 0 && sp < n; c = t->n[c].next)
				stack[sp++] = (uint32_t)c;
			for (size_t a = mark, b = sp; a + 1 < b; a++, b--) {  /* first child on top */
				uint32_t tmp = stack[a];
				stack[a] = stack[b - 1];
				stack[b - 1] = tmp;
			}
		}
	}
	free(stack);
	return 0;
}

static int bin_cmp(const void *a, const void *b, void *ctx)
{
	const struct vm_binref *r = ctx;
	uint64_t x = r[*(const uint32_t *)a].bin, y = r[*(const uint32_t *)b].bin;
	return (x > y) - (x < y);
}

/* The lowest node whose subtree holds both (in the same tree), or -1. */
static int32_t lca(const struct tree *t, int32_t a, int32_t b)
{
	while (a >= 0 && b >= 0 && a != b) {
		if (t->n[a].depth >= t->n[b].depth)
			a = t->n[a].parent;
		else
			b = t->n[b].parent;
	}
	return a == b ? a : -1;
}

/* Each node's own figures, then each subtree's: children before parents. */
static int roll_up(struct tree *t)
{
	const struct vm *vm = t->vm;
	for (size_t x = 0; x < t->nn; x++) {   /* memory, msgq, unknown: set by place */
		struct node *nx = &t->n[x];
		if (nx->in_tree) {
			nx->procs = 1;
		} else {
			nx->memory = nx->msgq = 0;
			nx->unknown = 0;
		}
	}
	for (size_t i = 0; i < vm->nets; i++) {
		const struct vm_ets *e = &vm->ets[i];
		const struct vm_proc *o = vm_find_proc(vm, e->owner);
		int64_t on = o ? node_of(t, (size_t)(o - vm->procs)) : -1;
		if (o && on < 0)   /* left out: alone */
			t->alone_held += e->memory * 8;
		if (on < 0 || !t->n[on].in_tree)
			continue;
		struct node *no = &t->n[on];
		no->ets += e->memory * 8;
		if (e->unknown & VEF_MEMORY)
			no->unknown |= U_ETS;
	}
	/* a binary counts where all its holders are: at their lowest common node */
	uint32_t *ix = malloc((vm->nbinrefs ? vm->nbinrefs : 1) * sizeof *ix);
	if (!ix)
		return -1;
	for (size_t i = 0; i < vm->nbinrefs; i++)
		ix[i] = (uint32_t)i;
	if (vm->nbinrefs > 1)
		qsort_r(ix, vm->nbinrefs, sizeof *ix, bin_cmp, vm->binrefs);
	for (size_t i = 0, j; i < vm->nbinrefs; i = j) {
		const struct vm_binref *r = &vm->binrefs[ix[i]];
		int64_t at = node_of(t, r->proc);
		bool one = true;   /* every holder is r->proc */
		at = at >= 0 && t->n[at].in_tree ? at : -1;
		for (j = i + 1; j < vm->nbinrefs && vm->binrefs[ix[j]].bin == r->bin; j++) {
			uint32_t h = vm->binrefs[ix[j]].proc;
			int64_t hn = node_of(t, h);
			one &= h == r->proc;
			at = at >= 0 && hn >= 0 && t->n[hn].in_tree ? lca(t, (int32_t)at, (int32_t)hn) : -1;
		}
		if (at >= 0)
			t->n[at].binary += r->orig_size;
		else if (one && node_of(t, r->proc) < 0 && !(vm->procs[r->proc].unknown & VPF_BINARY))
			t->alone_held += r->orig_size;   /* held only by a process left out */
	}
	free(ix);
	for (size_t i = t->norder; i-- > 0;) {
		const struct node *c = &t->n[t->order[i]];
		if (c->parent < 0)
			continue;
		struct node *p = &t->n[c->parent];
		p->procs += c->procs;
		p->memory += c->memory;
		p->msgq += c->msgq;
		p->ets += c->ets;
		p->binary += c->binary;
		p->unknown |= c->unknown;
	}
	return 0;
}

/* The output: "trees", the roots, each with its "children" (JSON: nested, cut
 * at MAX_DEPTH levels); text: every process in pre-order, one line each,
 * indented by depth. Record ids are indices into vm->procs. */
enum { N_PID, N_REGNAME, N_TYPE, N_CHILDREN, N_CUT, N_SUBTREE, N_LINE, N_LABEL, N_LEAVES };
static const struct rfield node_fields[] = {
	{ .key = "pid", .kind = RF_STR },
	{ .key = "registered_name", .kind = RF_STR },
	{ .key = "type", .kind = RF_STR },
	{ .key = "children", .kind = RF_LIST, .flags = RCOL_JSON_ONLY },
	{ .key = "children_cut", .kind = RF_BOOL },
	{ .key = "subtree", .kind = RF_REC },
	/* "  <0.80.0> kernel_sup (supervisor)": indented by depth */
	{ .key = "line", .kind = RF_STR, .flags = RCOL_TEXT_ONLY },
	{ .key = "label", .kind = RF_STR, .flags = RCOL_JSON_ONLY },  /* vm_proc_label */
	/* the page's: the children without children, not in "children" */
	{ .key = "leaves", .kind = RF_U64, .flags = RCOL_JSON_ONLY },
};
static const struct rfield subtree_fields[] = {
	{ .key = "processes", .kind = RF_U64, .text = RT_COUNT },
	{ .key = "memory", .kind = RF_U64, .text = RT_BYTES },
	{ .key = "message_queue_len", .kind = RF_U64, .text = RT_COUNT },
	{ .key = "ets_memory", .kind = RF_U64, .text = RT_BYTES },
	{ .key = "binary", .kind = RF_U64, .text = RT_BYTES },
};
enum { T_TREES, T_COVERAGE, T_ORDER };
static const struct rfield root_fields[] = {
	{ .key = "trees", .kind = RF_LIST, .flags = RCOL_JSON_ONLY },
	{ .key = "coverage", .kind = RF_REC, .flags = RCOL_JSON_ONLY },
	{ .key = "order", .kind = RF_LIST, .flags = RCOL_TEXT_ONLY,
	  .head = "SUPERVISION TREE                                      PROCES"
		  "SES     MEMORY       MSGQ        ETS     BINARY\n" },
};

static void subtree_get(void *ctx, uint64_t x, size_t f, struct rval *v, char *buf, size_t len)
{
	(void)buf, (void)len;
	const struct node *n = &((struct tree *)ctx)->n[x];
	static const unsigned unknown_bit[] = { 0, U_MEMORY, U_MSGQ, U_ETS, U_BINARY };
	const uint64_t values[] = { n->procs, n->memory, n->msgq, n->ets, n->binary };
	v->u = values[f];
	v->null = (n->unknown & unknown_bit[f]) != 0;
}

static const struct rrec subtree_rec = { .fields = subtree_fields, .nfields = 5, .get = subtree_get };

static void node_get(void *ctx, uint64_t x, size_t f, struct rval *v, char *buf, size_t len)
{
	const struct tree *t = ctx;
	const struct vm_proc *p = &t->vm->procs[x];
	const struct node *n = &t->n[x];
	switch (f) {
	case N_PID: v->s = vm_pid_str(p, buf, len); break;
	case N_REGNAME: v->s = p->registered_name; break;
	case N_TYPE: v->s = is_supervisor(t, (uint32_t)x) ? "supervisor" : "worker"; break;
	case N_CHILDREN:
		for (int32_t c = n->depth < MAX_DEPTH ? n->first : -1; c >= 0; c = t->n[c].next)
			v->n += !t->page || t->n[c].first >= 0;
		break;
	case N_LEAVES:
		v->absent = !t->page;
		for (int32_t c = n->depth < MAX_DEPTH ? n->first : -1; c >= 0; c = t->n[c].next)
			v->u += t->n[c].first < 0;
		break;
	case N_CUT:
		v->u = 1;
		v->absent = !(n->depth >= MAX_DEPTH && n->first >= 0);
		break;
	case N_SUBTREE:
		v->id = x;
		v->rec = &subtree_rec;
		break;
	case N_LABEL:
		v->s = vm_proc_label(p, buf, len);
		v->null = !v->s;
		break;
	case N_LINE: {
		char pid[32], mfa[256];
		const char *name = vm_proc_label(p, mfa, sizeof mfa);
		snprintf(buf, len, "%*s%s %s%s", (int)(2 * (n->depth < 40 ? n->depth : 40)), "",
			 vm_pid_str(p, pid, sizeof pid), name ? name : "",
			 is_supervisor(t, (uint32_t)x) ? " (supervisor)" : "");
		v->s = buf;
		break;
	}
	}
}

/* Child i of x: the renderer asks for them in turn, so the walk along the
 * list resumes where x's last one was (one place per depth: it nests). */
static uint64_t node_item(void *ctx, uint64_t x, size_t f, size_t i)
{
	(void)f;
	struct tree *t = ctx;
	struct walk *w = &t->walk[t->n[x].depth < MAX_DEPTH ? t->n[x].depth : MAX_DEPTH];
	if (w->parent != (int64_t)x || w->i > i) {
		*w = (struct walk){ (int64_t)x, 0, t->n[x].first };
		while (t->page && w->at >= 0 && t->n[w->at].first < 0)  /* (the page: leaves left out) */
			w->at = t->n[w->at].next;
	}
	for (; w->i < i; w->i++)
		do
			w->at = t->n[w->at].next;
		while (t->page && w->at >= 0 && t->n[w->at].first < 0);
	return (uint64_t)w->at;
}

static const char *const node_line[] = { "line", "subtree.processes", "subtree.memory",
					  "subtree.message_queue_len", "subtree.ets_memory",
					  "subtree.binary", NULL };
static const struct rrec node_rec = {
	.fields = node_fields, .nfields = sizeof node_fields / sizeof *node_fields, .sub = &node_rec,
	.get = node_get, .item = node_item, .line = "%-52s %10s %10s %10s %10s %10s\n", .line_keys = node_line,
};

/* coverage: {processes, placed, unplaced: [{initial_call, count}]} */
enum { C_PROCESSES, C_PLACED, C_UNPLACED };
static const struct rfield coverage_fields[] = {
	{ .key = "processes", .kind = RF_U64 },
	{ .key = "placed", .kind = RF_U64 },
	{ .key = "unplaced", .kind = RF_LIST },
};
static const struct rfield group_fields[] = {
	{ .key = "initial_call", .kind = RF_STR },
	{ .key = "count", .kind = RF_U64 },
};

static void group_get(void *ctx, uint64_t id, size_t f, struct rval *v, char *buf, size_t len)
{
	const struct tree *t = ctx;
	const struct group *g = &t->groups[id];
	if (f == 0)
		v->s = vm_mfa_str(vm_shown_initial_call(&t->vm->procs[g->proc]), buf, len);
	else
		v->u = g->count;
}

static const struct rrec group_rec = { .fields = group_fields, .nfields = 2, .get = group_get };

static void coverage_get(void *ctx, uint64_t id, size_t f, struct rval *v, char *buf, size_t len)
{
	(void)id, (void)buf, (void)len;
	const struct tree *t = ctx;
	switch (f) {
	case C_PROCESSES: v->u = t->vm->nprocs; break;
	case C_PLACED: v->u = t->placed; break;
	case C_UNPLACED: v->n = t->ngroups; break;
	}
}

static uint64_t coverage_item(void *ctx, uint64_t id, size_t f, size_t i)
{
	(void)ctx, (void)id, (void)f;
	return i;
}

static const struct rrec coverage_rec = { .fields = coverage_fields, .nfields = 3, .sub = &group_rec,
					   .get = coverage_get, .item = coverage_item };

static void root_get(void *ctx, uint64_t id, size_t f, struct rval *v, char *buf, size_t len)
{
	(void)id, (void)buf, (void)len;
	const struct tree *t = ctx;
	if (f == T_COVERAGE) {
		v->rec = &coverage_rec;
		v->id = 0;
		return;
	}
	v->n = f == T_TREES ? (t->page ? t->npage_roots : t->nroots) : t->nshown;
}

static uint64_t root_item(void *ctx, uint64_t id, size_t f, size_t i)
{
	(void)id;
	const struct tree *t = ctx;
	return f == T_TREES ? (t->page ? t->page_roots : t->roots)[i] : t->shown[i];
}

static const struct rrec root_rec = { .fields = root_fields, .nfields = 3, .sub = &node_rec,
				       .get = root_get, .item = root_item };

/* What t holds (not t itself). */
static void tree_free(struct tree *t)
{
	free(t->roots);
	free(t->page_roots);
	free(t->n);
	free(t->order);
	free(t->groups);
	free(t->lone);
	free(t->shown);
	free(t->pidkey);
	free(t->proc);
	free(t->slot);
}

static void tree_release(void *t)
{
	tree_free(t);
	free(t);
}

static int str_cmp(const char *a, const char *b)
{
	return a && b ? strcmp(a, b) : (a != NULL) - (b != NULL);
}

static int by_call(const void *a, const void *b, void *ctx)
{
	const struct vm *vm = ctx;
	const struct vm_mfa *x = vm_shown_initial_call(&vm->procs[*(const uint32_t *)a]),
			    *y = vm_shown_initial_call(&vm->procs[*(const uint32_t *)b]);
	int c = str_cmp(x->module, y->module);
	if (!c)
		c = str_cmp(x->function, y->function);
	return c ? c : (x->arity > y->arity) - (x->arity < y->arity);
}

static int by_count(const void *a, const void *b, void *ctx)
{
	const struct group *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return by_call(&x->proc, &y->proc, ctx);
}

/* Is process i alone: a root (placed or not) without children? */
static bool alone(const struct tree *t, size_t i)
{
	return t->n[i].parent < 0 && t->n[i].first < 0;
}

/* The processes unplaced (or, alone, those alone), by initial call, most
 * first: *out, *nout. */
static int group_by_call(struct tree *t, bool lone, struct group **out, size_t *nout)
{
	const struct vm *vm = t->vm;
	size_t n = vm->nprocs, nu = 0;
	uint32_t *u = malloc((n ? n : 1) * sizeof *u);
	if (!u)
		return -1;
	for (size_t i = 0; i < n; i++) {
		unsigned pl = t->n[i].place;
		if (lone ? alone(t, i) : pl == P_GONE || pl == P_NODATA)
			u[nu++] = (uint32_t)i;
	}
	if (nu > 1)
		qsort_r(u, nu, sizeof *u, by_call, (void *)vm);
	if (!(*out = malloc((nu ? nu : 1) * sizeof **out))) {
		free(u);
		return -1;
	}
	struct group *g = *out;
	size_t ng = 0;
	for (size_t k = 0; k < nu; k++) {
		if (k && by_call(&u[k - 1], &u[k], (void *)vm) == 0)
			g[ng - 1].count++;
		else
			g[ng++] = (struct group){ u[k], 1 };
	}
	if (ng > 1)
		qsort_r(g, ng, sizeof *g, by_count, (void *)vm);
	*nout = ng;
	free(u);
	return 0;
}

/* The unplaced processes by initial call (t->groups), the processes alone
 * (t->lone), what text shows (t->shown: the order without those alone). */
static int count_up(struct tree *t)
{
	const struct vm *vm = t->vm;
	for (size_t i = 0; i < vm->nprocs; i++) {
		unsigned pl = t->n[i].place;
		t->placed += pl != P_GONE && pl != P_NODATA;
		t->nodata += pl == P_NODATA;
		t->nalone += alone(t, i);
	}
	if (!(t->shown = malloc((t->norder ? t->norder : 1) * sizeof *t->shown)))
		return -1;
	for (size_t i = 0; i < t->norder; i++)
		if (!alone(t, t->order[i]))
			t->shown[t->nshown++] = t->order[i];
	return group_by_call(t, false, &t->groups, &t->ngroups) < 0 ||
	       group_by_call(t, true, &t->lone, &t->nlone) < 0 ? -1 : 0;
}

/* The nodes of a sparse tree: the processes that may be in a tree (a live
 * '$ancestors' or links: a parent to find) and the heads their '$ancestors'
 * name; every other process stands alone, and only what it holds is kept
 * (t->alone_held; roll_up adds its ETS tables and binaries). Most of a
 * million processes stand alone: memory and passes then scale with the trees.
 * *names, *nnames: the registered processes, by name (for place). */
static int sparse_nodes(struct tree *t, uint32_t **names, size_t *nnames)
{
	const struct vm *vm = t->vm;
	size_t n = vm->nprocs, nc = 0, nn = 0;
	uint32_t *cand = malloc((n ? n : 1) * sizeof *cand);   /* (touched as far as used) */
	*names = malloc((n ? n : 1) * sizeof **names);
	*nnames = 0;
	if (!cand || !*names || !(t->slot = calloc(n ? n : 1, sizeof *t->slot))) {
		free(cand);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const struct vm_proc *p = &vm->procs[i];
		if (p->registered_name)
			(*names)[(*nnames)++] = (uint32_t)i;
		if (p->nlinks || (!(p->unknown & VPF_IDENTITY) && p->has_ancestors && p->anc_n)) {
			t->slot[i] = 1;
			cand[nc++] = (uint32_t)i;
		} else {
			t->alone_held += p->memory;
		}
	}
	if (*nnames > 1)
		qsort_r(*names, *nnames, sizeof **names, by_name, (void *)vm);
	for (size_t k = 0; k < nc; k++) {   /* the heads: nodes too */
		const struct vm_proc *p = &vm->procs[cand[k]];
		if (p->unknown & VPF_IDENTITY || !p->has_ancestors || !p->anc_n)
			continue;
		int64_t q = resolve(vm, vm->ancestors[p->anc_first], *names, *nnames);
		if (q >= 0 && !t->slot[q]) {
			t->slot[q] = 1;
			t->alone_held -= vm->procs[q].memory;
		}
	}
	free(cand);
	for (size_t i = 0; i < n; i++)   /* numbered in process order: place walks them so */
		if (t->slot[i])
			t->slot[i] = (uint32_t)++nn;
	if (!(t->proc = malloc((nn ? nn : 1) * sizeof *t->proc)))
		return -1;
	for (size_t i = 0; i < n; i++)
		if (t->slot[i])
			t->proc[t->slot[i] - 1] = (uint32_t)i;
	t->nn = nn;
	return 0;
}

/* The trees, rolled up (freed with tree_free, also after a failure); counts:
 * also what count_up gives (only the tree command's output uses it); sparse:
 * nodes only for the processes that may be in a tree (sparse_nodes: not for
 * count_up, nor for the output, whose ids are process indices). */
static bc_err *build(const struct vm *vm, struct tree *t, bool counts, bool sparse)
{
	t->vm = vm;
	for (size_t d = 0; d <= MAX_DEPTH; d++)
		t->walk[d].parent = -1;
	if (!vm->detail)
		return bc_error(BC_EFORMAT, "tree: this input gives no process's links");
	uint32_t *names = NULL;
	size_t nnames = 0;
	t->nn = vm->nprocs;
	if (sparse && sparse_nodes(t, &names, &nnames) < 0) {
		free(names);
		return bc_error(BC_ENOMEM, "out of memory");
	}
	size_t n = t->nn;
	/* (each node is set by place's first pass over the processes) */
	if (!(t->n = malloc((n ? n : 1) * sizeof *t->n))) {
		free(names);
		return bc_error(BC_ENOMEM, "out of memory");
	}
	mem_populate(t->n, n * sizeof *t->n);
	bc_err *err = place(t, names, nnames);
	if (err)
		return err;
	if (link_up(t) < 0 || roll_up(t) < 0 || (counts && count_up(t) < 0))
		return bc_error(BC_ENOMEM, "out of memory");
	return NULL;
}

/* What a subtree holds: its processes' memory, the ETS tables they own and
 * the refc binaries only they hold. */
static uint64_t held(const struct node *x)
{
	return x->memory + x->ets + (x->unknown & U_BINARY ? 0 : x->binary);
}

bc_err *tree_parents(const struct vm *vm, int32_t **parent)
{
	struct tree t = { 0 };
	*parent = NULL;
	/* sparse: the processes left out stand alone, no parent */
	bc_err *err = vm->detail ? build(vm, &t, false, true) : NULL;
	int32_t *p = err ? NULL : malloc((vm->nprocs ? vm->nprocs : 1) * sizeof *p);
	if (!err && !p)
		err = bc_error(BC_ENOMEM, "out of memory");
	for (size_t i = 0; p && i < vm->nprocs; i++)
		p[i] = -1;
	for (size_t x = 0; p && t.n && x < t.nn; x++)
		if (t.n[x].parent >= 0)
			p[t.proc[x]] = (int32_t)t.proc[t.n[x].parent];
	tree_free(&t);
	*parent = p;
	return err;
}

/* percent of what all processes hold (their memory, the ETS tables they own,
 * the refc binaries only they hold) a subtree must hold to be named */
#define SHARE_MIN 20

/* What a finding calls p: its label (vm_proc_label). */
static const char *proc_name(const struct vm_proc *p, char *buf, size_t len)
{
	const char *label = vm_proc_label(p, buf, len);
	return label ? label : "";
}

bc_err *tree_findings(const struct vm *vm, struct an_out *out)
{
	struct tree t = { 0 };
	bc_err *err = vm->detail ? build(vm, &t, false, true) : NULL;
	/* the tree holding the most, then down while one child holds at least
	 * half of it: the part of the application the memory is in (a root
	 * holding the whole node says nothing: its largest child then, unless the
	 * root itself holds more). Only supervisors (processes with children):
	 * a lone process or a worker is no subtree, and where a worker holds half
	 * of its supervisor's the finding stops there and names it. */
	int64_t at = -1, worker = -1;
	for (size_t i = 0; !err && i < t.nroots; i++)
		if (t.n[t.roots[i]].first >= 0 && (at < 0 || held(&t.n[t.roots[i]]) > held(&t.n[at])))
			at = t.roots[i];
	for (bool root = true; at >= 0; root = false) {
		int64_t best = -1;
		for (int32_t c = t.n[at].first; c >= 0; c = t.n[c].next)
			if (best < 0 || held(&t.n[c]) > held(&t.n[best]))
				best = c;
		uint64_t kids = 0;
		for (int32_t c = t.n[at].first; c >= 0; c = t.n[c].next)
			kids += held(&t.n[c]);
		if (best < 0 || (root ? held(&t.n[at]) > kids && held(&t.n[at]) - kids >= held(&t.n[best])
				      : held(&t.n[best]) * 2 < held(&t.n[at])))
			break;
		if (t.n[best].first < 0 && held(&t.n[best]) * 2 >= held(&t.n[at])) {
			worker = best;
			break;
		}
		if (t.n[best].first < 0)
			break;
		at = best;
	}
	uint64_t all = t.alone_held;   /* what all processes hold: every tree's */
	for (size_t i = 0; i < t.nroots; i++)
		all += held(&t.n[t.roots[i]]);
	if (at >= 0 && all && held(&t.n[at]) * 100 >= all * SHARE_MIN) {
		const struct node *x = &t.n[at];
		const struct vm_proc *p = proc_at(&t, (uint32_t)at);
		char pid[32], b1[32], b2[32], b3[32], b4[32], c[32], mfa[256];
		char wpid[32], wmfa[256], wb[32], also[600] = "";
		if (worker >= 0)
			snprintf(also, sizeof also, "; its worker %s %s holds %s of it",
				 vm_pid_str(proc_at(&t, (uint32_t)worker), wpid, sizeof wpid),
				 proc_name(proc_at(&t, (uint32_t)worker), wmfa, sizeof wmfa),
				 fmt_bytes(held(&t.n[worker]), wb, sizeof wb));
		struct an_finding *f = an_find(out, "subtree", "info",
			"the supervision subtree under %s %s holds %s, %u%% of what all processes "
			"hold (%s process%s: %s; ETS %s; %s %s)%s",
			vm_pid_str(p, pid, sizeof pid), proc_name(p, mfa, sizeof mfa),
			fmt_bytes(held(x), b1, sizeof b1),
			(unsigned)(held(x) * 100 / all), fmt_count(x->procs, c, sizeof c),
			x->procs == 1 ? "" : "es", fmt_bytes(x->memory, b2, sizeof b2),
			fmt_bytes(x->ets, b3, sizeof b3),
			x->unknown & U_BINARY ? "refc binaries" : "refc binaries only it holds",
			!(x->unknown & U_BINARY) ? fmt_bytes(x->binary, b4, sizeof b4)
			: vm_not_recorded(vm, NEED_BINARIES) ? "not recorded (a crash dump)" : "unreadable",
			also);
		an_find_proc(f, p);
		if (f) {
			f->has_value = true;
			f->value = held(x);
		}
	}
	tree_free(&t);
	return err;
}

/* "m:f/a N, ..." of the first four groups into buf. */
static const char *calls_list(const struct tree *t, const struct group *g, size_t ng, char *buf,
			      size_t len)
{
	char mfa[256], c[32];
	size_t used = 0;
	buf[0] = 0;
	for (size_t i = 0; i < ng && i < 4 && used < len; i++) {
		const char *m = vm_mfa_str(vm_shown_initial_call(&t->vm->procs[g[i].proc]), mfa, sizeof mfa);
		int k = snprintf(buf + used, len - used, "%s%s %s", i ? ", " : "", m ? m : "?",
				 fmt_count(g[i].count, c, sizeof c));
		used += k > 0 ? (size_t)k : 0;
	}
	if (ng > 4 && used + 6 < len)
		strcat(buf, ", ...");
	return buf;
}

static bc_err *run(const struct vm *vm, const struct an_opts *o, struct an_out *out)
{
	struct tree *t = an_own(out, calloc(1, sizeof *t), tree_release);
	if (!t)
		return bc_error(BC_ENOMEM, "out of memory");
	if (!vm->detail)
		return bc_error(BC_EFORMAT, "tree: this input gives no process's links");
	bc_err *err = build(vm, t, true, false);
	if (err)
		return err;
	if ((t->page = o->page)) {
		if (!(t->page_roots = malloc((t->nroots ? t->nroots : 1) * sizeof *t->page_roots)))
			return bc_error(BC_ENOMEM, "out of memory");
		for (size_t r = 0; r < t->nroots; r++)
			if (!alone(t, t->roots[r]))
				t->page_roots[t->npage_roots++] = t->roots[r];
	}
	out->doc = (struct rdoc){ &root_rec, t, 0 };
	char a[32], b[32], l1[512], l2[512];
	size_t unplaced = vm->nprocs - t->placed;
	if (unplaced)
		an_find(out, NULL, t->nodata ? "warning" : "info",
			"%s of %s processes are in no tree: their '$ancestors' name a process that is gone "
			"and they are linked to no older one, or their dictionary is unreadable (%s)",
			fmt_count(unplaced, a, sizeof a), fmt_count(vm->nprocs, b, sizeof b),
			calls_list(t, t->groups, t->ngroups, l1, sizeof l1));
	if (t->nalone)
		an_find(out, NULL, NULL, "%s processes stand alone, each its own tree, left out of the "
			"%s: no '$ancestors', linked to no older process, no children (%s)",
			fmt_count(t->nalone, a, sizeof a), o->page ? "tree" : "text", calls_list(t, t->lone, t->nlone, l2, sizeof l2));
	if (t->nodata)
		an_gap(out, "tree: %s processes could not be placed: their '$initial_call'/'$ancestors' "
		       "or links are unreadable", fmt_count(t->nodata, a, sizeof a));
	if (t->cut)
		an_find(out, NULL, "warning", "trees deeper than %d levels are cut there (children_cut)",
			MAX_DEPTH);
	return NULL;
}

const struct analyzer analyzer_tree = {
	.name = "tree",
	.kind = CMD_MODEL,
	.options = an_record_options,
	.summary = "the supervision trees, each subtree's processes, memory, queues, ETS, binaries",
	.needs = NEED_PROCS | NEED_ETS | NEED_BINARIES,
	.header = 1,
	.run = run,
};
