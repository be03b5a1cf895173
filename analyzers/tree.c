/* tree: the supervision trees, each subtree rolled up (processes, memory,
 * message queues, ETS tables owned, refc binaries held only inside it): which
 * part of the application holds the memory, as a dominator tree would say.
 *   supervisor  proc_lib's '$initial_call' is supervisor:Callback/1 (also
 *               supervisor_bridge): what proc_lib:translate_initial_call says
 *   children    the processes linked to a supervisor whose first '$ancestors'
 *               entry is that supervisor (its pid, or its registered name),
 *               and those linked to it with no '$ancestors' but its parent
 *   roots       supervisors no supervisor claims as a child
 * A supervisor's links come from vm->detail (one full read each: there are few
 * supervisors); everything else from the process table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer.h"
#include "needs.h"
#include "term.h"

#define MAX_DEPTH 24   /* JSON nesting the writer keeps; deeper is said cut */

enum { U_MEMORY = 1, U_MSGQ = 2, U_ETS = 4, U_BINARY = 8 };

struct node {
	int32_t parent, first, next;   /* procs indices; -1: none */
	uint32_t depth;
	uint64_t procs, memory, msgq, ets, binary;  /* the subtree's */
	unsigned unknown;              /* U_*: a figure of the subtree could not be read */
	bool in_tree;
};

struct tree {
	const struct vm *vm;
	struct node *n;                /* per process */
	uint32_t *roots, *order;       /* order: every node, parents before children */
	size_t nroots, norder;
	bool cut;                      /* deeper than MAX_DEPTH somewhere */
	struct walk {                  /* node_item's place in a children list */
		int64_t parent;
		size_t i;
		int32_t at;
	} walk[MAX_DEPTH + 1];
};

static bool is_supervisor(const struct vm_proc *p)
{
	const char *m = p->proc_lib_initial_call.module;
	return m && p->proc_lib_initial_call.arity == 1 &&
	       (strcmp(m, "supervisor") == 0 || strcmp(m, "supervisor_bridge") == 0);
}

/* Is s the first of p's ancestors (by pid or by registered name)? */
static bool parent_is(const struct vm_proc *p, const struct vm_proc *s, const struct vm *vm)
{
	if (!p->has_ancestors || !p->anc_n || (p->unknown & VPF_IDENTITY))
		return false;
	const char *a = vm->ancestors[p->anc_first];
	char pid[32];
	return strcmp(a, vm_pid_str(s, pid, sizeof pid)) == 0 ||
	       (s->registered_name && strcmp(a, s->registered_name) == 0);
}

/* Is p s's parent: s's first ancestor? */
static bool is_parent_of(const struct vm_proc *p, const struct vm_proc *s, const struct vm *vm)
{
	return parent_is(s, p, vm);
}

/* Claim s's children: linked to it, s their first ancestor; or linked to it
 * and not started by proc_lib (no '$ancestors': code_server under
 * kernel_sup, spawned by a start function with spawn_link), unless it is
 * s's own parent. */
static bc_err *claim(struct tree *t, uint32_t si)
{
	const struct vm *vm = t->vm;
	const struct vm_proc *s = &vm->procs[si];
	struct vm_detail_limits lim = { .items = 4, .bytes = 16 };  /* the links alone */
	struct vm_proc_detail d;
	if (vm->detail(vm->loader, s, &lim, &d) < 0)
		return bc_error(BC_ENOMEM, "out of memory");
	for (size_t i = 0; i < d.nlinks; i++) {
		const struct vt *l = d.links[i];
		if (!l || l->kind != VT_PID || l->chan)
			continue;
		const struct vm_proc *c = vm_find_proc(vm, (struct vm_pid){ (uint32_t)l->i, (uint32_t)l->u });
		if (!c || c == s || (c->unknown & VPF_IDENTITY))
			continue;
		if (c->has_ancestors ? !parent_is(c, s, vm) : is_parent_of(c, s, vm))
			continue;
		struct node *cn = &t->n[c - vm->procs];
		if (cn->parent >= 0)
			continue;
		cn->parent = (int32_t)si;
	}
	vm_detail_free(&d);
	return NULL;
}

static int by_pid(const void *a, const void *b, void *ctx)
{
	const struct vm *vm = ctx;
	const struct vm_proc *x = &vm->procs[*(const uint32_t *)a], *y = &vm->procs[*(const uint32_t *)b];
	if (x->pid_num != y->pid_num)
		return x->pid_num < y->pid_num ? -1 : 1;
	return (x->pid_serial > y->pid_serial) - (x->pid_serial < y->pid_serial);
}

/* Children lists (first/next, in pid order), roots, and the pre-order. */
static int link_up(struct tree *t, uint32_t *sups, size_t nsups)
{
	const struct vm *vm = t->vm;
	size_t n = vm->nprocs;
	uint32_t *kids = malloc((n ? n : 1) * sizeof *kids);
	if (!kids)
		return -1;
	size_t nk = 0;
	for (size_t i = 0; i < n; i++)
		if (t->n[i].parent >= 0)
			kids[nk++] = (uint32_t)i;
	if (nk > 1)
		qsort_r(kids, nk, sizeof *kids, by_pid, (void *)vm);
	for (size_t k = nk; k-- > 0;) {  /* prepend in reverse: lists in pid order */
		struct node *c = &t->n[kids[k]], *p = &t->n[c->parent];
		c->next = p->first;
		p->first = (int32_t)kids[k];
	}
	free(kids);
	if (nsups > 1)
		qsort_r(sups, nsups, sizeof *sups, by_pid, (void *)vm);
	t->roots = sups;
	for (size_t i = 0; i < nsups; i++)
		if (t->n[sups[i]].parent < 0)
			t->roots[t->nroots++] = sups[i];
	/* pre-order by an explicit stack (a corrupt chain must not recurse) */
	if (!(t->order = malloc((n ? n : 1) * sizeof *t->order)))
		return -1;
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
	for (size_t i = 0; i < t->norder; i++) {
		uint32_t x = t->order[i];
		const struct vm_proc *p = &vm->procs[x];
		struct node *nx = &t->n[x];
		nx->procs = 1;
		nx->memory = p->memory;
		nx->msgq = p->message_queue_len;
		nx->unknown |= (p->unknown & VPF_MEMORY ? U_MEMORY : 0) |
			       (p->unknown & VPF_MESSAGE_QUEUE_LEN ? U_MSGQ : 0) |
			       (p->unknown & VPF_BINARY ? U_BINARY : 0);
	}
	for (size_t i = 0; i < vm->nets; i++) {
		const struct vm_ets *e = &vm->ets[i];
		const struct vm_proc *o = vm_find_proc(vm, e->owner);
		if (!o || !t->n[o - vm->procs].in_tree)
			continue;
		struct node *no = &t->n[o - vm->procs];
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
		int32_t at = t->n[r->proc].in_tree ? (int32_t)r->proc : -1;
		for (j = i + 1; j < vm->nbinrefs && vm->binrefs[ix[j]].bin == r->bin; j++) {
			uint32_t h = vm->binrefs[ix[j]].proc;
			at = at >= 0 && t->n[h].in_tree ? lca(t, at, (int32_t)h) : -1;
		}
		if (at >= 0)
			t->n[at].binary += r->orig_size;
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
enum { N_PID, N_REGNAME, N_TYPE, N_CHILDREN, N_CUT, N_SUBTREE, N_LABEL };
static const struct rfield node_fields[] = {
	{ .key = "pid", .kind = RF_STR },
	{ .key = "registered_name", .kind = RF_STR },
	{ .key = "type", .kind = RF_STR },
	{ .key = "children", .kind = RF_LIST, .flags = RCOL_JSON_ONLY },
	{ .key = "children_cut", .kind = RF_BOOL },
	{ .key = "subtree", .kind = RF_REC },
	/* "  <0.80.0> kernel_sup (supervisor)": indented by depth */
	{ .key = "label", .kind = RF_STR, .flags = RCOL_TEXT_ONLY },
};
static const struct rfield subtree_fields[] = {
	{ .key = "processes", .kind = RF_U64, .text = RT_COUNT },
	{ .key = "memory", .kind = RF_U64, .text = RT_BYTES },
	{ .key = "message_queue_len", .kind = RF_U64, .text = RT_COUNT },
	{ .key = "ets_memory", .kind = RF_U64, .text = RT_BYTES },
	{ .key = "binary", .kind = RF_U64, .text = RT_BYTES },
};
enum { T_TREES, T_ORDER };
static const struct rfield root_fields[] = {
	{ .key = "trees", .kind = RF_LIST, .flags = RCOL_JSON_ONLY },
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
	case N_TYPE: v->s = is_supervisor(p) ? "supervisor" : "worker"; break;
	case N_CHILDREN:
		for (int32_t c = n->depth < MAX_DEPTH ? n->first : -1; c >= 0; c = t->n[c].next)
			v->n++;
		break;
	case N_CUT:
		v->u = 1;
		v->absent = !(n->depth >= MAX_DEPTH && n->first >= 0);
		break;
	case N_SUBTREE:
		v->id = x;
		v->rec = &subtree_rec;
		break;
	case N_LABEL: {
		char pid[32], mfa[256];
		const char *name = p->registered_name;
		if (!name)
			name = vm_mfa_str(vm_shown_initial_call(p), mfa, sizeof mfa);
		snprintf(buf, len, "%*s%s %s%s", (int)(2 * (n->depth < 40 ? n->depth : 40)), "",
			 vm_pid_str(p, pid, sizeof pid), name ? name : "",
			 is_supervisor(p) ? " (supervisor)" : "");
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
	if (w->parent != (int64_t)x || w->i > i)
		*w = (struct walk){ (int64_t)x, 0, t->n[x].first };
	for (; w->i < i; w->i++)
		w->at = t->n[w->at].next;
	return (uint64_t)w->at;
}

static const char *const node_line[] = { "label", "subtree.processes", "subtree.memory",
					  "subtree.message_queue_len", "subtree.ets_memory",
					  "subtree.binary", NULL };
static const struct rrec node_rec = {
	.fields = node_fields, .nfields = sizeof node_fields / sizeof *node_fields, .sub = &node_rec,
	.get = node_get, .item = node_item, .line = "%-52s %10s %10s %10s %10s %10s\n", .line_keys = node_line,
};

static void root_get(void *ctx, uint64_t id, size_t f, struct rval *v, char *buf, size_t len)
{
	(void)id, (void)buf, (void)len;
	const struct tree *t = ctx;
	v->n = f == T_TREES ? t->nroots : t->norder;
}

static uint64_t root_item(void *ctx, uint64_t id, size_t f, size_t i)
{
	(void)id;
	const struct tree *t = ctx;
	return f == T_TREES ? t->roots[i] : t->order[i];
}

static const struct rrec root_rec = { .fields = root_fields, .nfields = 2, .sub = &node_rec,
				       .get = root_get, .item = root_item };

/* What t holds (not t itself). */
static void tree_free(struct tree *t)
{
	free(t->roots);
	free(t->n);
	free(t->order);
}

static void tree_release(void *t)
{
	tree_free(t);
	free(t);
}

/* The trees, rolled up (freed with tree_free, also after a failure);
 * *unknown: processes whose identity is unknown. */
static bc_err *build(const struct vm *vm, struct tree *t, size_t *unknown_out)
{
	t->vm = vm;
	for (size_t d = 0; d <= MAX_DEPTH; d++)
		t->walk[d].parent = -1;
	size_t n = vm->nprocs;
	uint32_t *sups = t->roots = malloc((n ? n : 1) * sizeof *sups);  /* the roots, once linked */
	if (!sups || !(t->n = malloc((n ? n : 1) * sizeof *t->n)))
		return bc_error(BC_ENOMEM, "out of memory");
	size_t nsups = 0, unknown = 0;
	for (size_t i = 0; i < n; i++) {
		t->n[i] = (struct node){ .parent = -1, .first = -1, .next = -1 };
		if (is_supervisor(&vm->procs[i]))
			sups[nsups++] = (uint32_t)i;
		unknown += (vm->procs[i].unknown & VPF_IDENTITY) != 0;
	}
	if (!vm->detail)
		return bc_error(BC_EFORMAT, "tree: this input gives no process's links");
	for (size_t i = 0; i < nsups; i++) {
		bc_err *err = claim(t, sups[i]);
		if (err)
			return err;
	}
	if (link_up(t, sups, nsups) < 0 || roll_up(t) < 0)
		return bc_error(BC_ENOMEM, "out of memory");
	for (size_t i = 0; i < t->norder; i++)
		t->cut |= t->n[t->order[i]].depth >= MAX_DEPTH && t->n[t->order[i]].first >= 0;
	*unknown_out = unknown;
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
	size_t unknown = 0;
	*parent = NULL;
	bc_err *err = vm->detail ? build(vm, &t, &unknown) : NULL;
	int32_t *p = err ? NULL : malloc((vm->nprocs ? vm->nprocs : 1) * sizeof *p);
	if (!err && !p)
		err = bc_error(BC_ENOMEM, "out of memory");
	for (size_t i = 0; p && i < vm->nprocs; i++)
		p[i] = t.n ? t.n[i].parent : -1;
	tree_free(&t);
	*parent = p;
	return err;
}

bc_err *tree_findings(const struct vm *vm, struct an_out *out)
{
	struct tree t = { 0 };
	size_t unknown = 0;
	bc_err *err = vm->detail ? build(vm, &t, &unknown) : NULL;
	/* the root holding the most, then down while one child holds most of it:
	 * the part of the application the memory is in */
	int64_t at = -1;
	for (size_t i = 0; !err && i < t.nroots; i++)
		if (at < 0 || held(&t.n[t.roots[i]]) > held(&t.n[at]))
			at = t.roots[i];
	while (at >= 0) {
		int64_t best = -1;
		for (int32_t c = t.n[at].first; c >= 0; c = t.n[c].next)
			if (best < 0 || held(&t.n[c]) > held(&t.n[best]))
				best = c;
		if (best < 0 || held(&t.n[best]) * 2 < held(&t.n[at]))
			break;
		at = best;
	}
	if (at >= 0) {
		const struct node *x = &t.n[at];
		const struct vm_proc *p = &vm->procs[at];
		char pid[32], b1[32], b2[32], b3[32], b4[32] = "unknown", c[32], mfa[256];
		const char *name = p->registered_name ? p->registered_name
			: vm_mfa_str(&p->proc_lib_initial_call, mfa, sizeof mfa) ? mfa : "";
		struct an_finding *f = an_find(out, "subtree", "info",
			"the supervision subtree under %s %s holds the most: %s (%s process%s: %s; "
			"ETS %s; refc binaries only it holds %s)", vm_pid_str(p, pid, sizeof pid), name,
			fmt_bytes(held(x), b1, sizeof b1), fmt_count(x->procs, c, sizeof c),
			x->procs == 1 ? "" : "es",
			fmt_bytes(x->memory, b2, sizeof b2), fmt_bytes(x->ets, b3, sizeof b3),
			x->unknown & U_BINARY ? b4 : fmt_bytes(x->binary, b4, sizeof b4));
		an_find_proc(f, p);
		if (f) {
			f->has_value = true;
			f->value = held(x);
		}
	}
	tree_free(&t);
	return err;
}

static bc_err *run(const struct vm *vm, const struct an_opts *o, struct an_out *out)
{
	(void)o;
	struct tree *t = an_own(out, calloc(1, sizeof *t), tree_release);
	if (!t)
		return bc_error(BC_ENOMEM, "out of memory");
	if (!vm->detail)
		return bc_error(BC_EFORMAT, "tree: this input gives no process's links");
	size_t unknown = 0;
	bc_err *err = build(vm, t, &unknown);
	if (err)
		return err;
	out->doc = (struct rdoc){ &root_rec, t, 0 };
	char a[32];
	if (!t->nroots)
		an_find(out, NULL, NULL, "no supervisor (no process whose proc_lib initial call is "
			"supervisor:*/1)");
	if (unknown)
		an_find(out, NULL, "warning", "%s processes' '$initial_call'/'$ancestors' are unknown: "
			"they may be missing from the trees", fmt_count(unknown, a, sizeof a));
	if (t->cut)
		an_find(out, NULL, "warning", "trees deeper than %d levels are cut there (children_cut)",
			MAX_DEPTH);
	return NULL;
}

const struct analyzer analyzer_tree = {
	.name = "tree",
	.options = an_record_options,
	.summary = "the supervision trees, each subtree's processes, memory, queues, ETS, binaries",
	.needs = NEED_PROCS | NEED_ETS | NEED_BINARIES,
	.header = 1,
	.run = run,
};
