/* Processes by kind (procs --group-by, the summary's memory headline, the
 * browser's grouped list): the members of each kind and their sums. A kind
 * is the label a process is shown by (vm_proc_label), the initial call
 * observer shows (vm_shown_initial_call) or the stack as `stacks` groups them
 * (stack_groups: one grouping of stacks, not two). */
#include <stdlib.h>
#include <string.h>

#include "analyzer.h"
#include "countsort.h"

static const char *const by_names[PG_N] = { [PG_LABEL] = "label",
					    [PG_INITIAL_CALL] = "initial_call",
					    [PG_STACK] = "stack" };

const char *proc_group_by_name(size_t i)
{
	return i < PG_N ? by_names[i] : NULL;
}

bc_err *proc_group_by_find(const char *name, enum proc_group_by *by)
{
	for (size_t i = 0; name && i < PG_N; i++)
		if (strcmp(name, by_names[i]) == 0) {
			*by = (enum proc_group_by)i;
			return NULL;
		}
	return bc_error(BC_EUSAGE, "--group-by %s: one of label, initial_call, stack", name ? name : "");
}

/* A kind a process has, by which processes are grouped: its hash, and
 * whether two processes have the same */
struct kind {
	uint64_t (*hash)(const struct vm_proc *p);
	bool (*same)(const struct vm_proc *a, const struct vm_proc *b);
	bool runs;   /* neighbours in the table often share it: the previous one's tried first */
};

static uint64_t call_hash(const struct vm_proc *p)
{
	/* interned strings: their addresses are their identity */
	const struct vm_mfa *m = vm_shown_initial_call(p);
	uint64_t h = (uint64_t)(uintptr_t)m->module * 0x9e3779b97f4a7c15ull;
	h = (h ^ (uint64_t)(uintptr_t)m->function) * 0xff51afd7ed558ccdull;
	h = (h ^ (uint64_t)(uint32_t)m->arity) * 0xc4ceb9fe1a85ec53ull;
	return h ^ h >> 32;
}

static bool same_call(const struct vm_proc *x, const struct vm_proc *y)
{
	const struct vm_mfa *a = vm_shown_initial_call(x), *b = vm_shown_initial_call(y);
	return a->module == b->module && a->function == b->function && a->arity == b->arity;
}

/* the text of p's label (vm_proc_label's rule), "" when none */
static const char *label_of(const struct vm_proc *p, char *buf, size_t len)
{
	const char *s = vm_proc_label(p, buf, len);
	return s ? s : "";
}

static uint64_t label_hash(const struct vm_proc *p)
{
	char buf[512];
	const char *s = label_of(p, buf, sizeof buf);
	return hmap_hash_bytes(s, strlen(s));
}

static bool same_label(const struct vm_proc *x, const struct vm_proc *y)
{
	char a[512], b[512];
	return strcmp(label_of(x, a, sizeof a), label_of(y, b, sizeof b)) == 0;
}

static const struct kind kinds[] = { [PG_LABEL] = { label_hash, same_label, false },
				     [PG_INITIAL_CALL] = { call_hash, same_call, true } };

struct index_ctx {
	const struct proc_groups *pg;
	const struct kind *k;
};

static uint64_t group_hash(const void *vctx, uint32_t g)
{
	const struct index_ctx *c = vctx;
	return c->k->hash(&c->pg->vm->procs[c->pg->g[g].first]);
}

/* p, a member of g: its figures added to g's sums (binary: its refc binaries') */
static void add_member(struct proc_groups *pg, struct proc_group *g, const struct vm_proc *p,
		       uint64_t binary)
{
	g->count++;
	g->memory += p->memory;
	if (p->memory > g->largest)
		g->largest = p->memory;
	pg->memory_known += p->unknown & VPF_MEMORY ? 0 : p->memory;
	g->total_heap_size += p->total_heap_size;
	g->message_queue_len += p->message_queue_len;
	g->binary += binary;
	g->unknown |= p->unknown;
}

/* gid[i]: process i's group by kind k, each group's sums added in the same
 * pass (binary: each process's) */
static bc_err *by_kind(struct proc_groups *pg, const struct kind *k, uint32_t *gid,
		       const uint64_t *binary)
{
	const struct vm *vm = pg->vm;
	struct index_ctx ctx = { pg, k };
	struct hmap index = { 0 };
	if (hmap_init(&index, 64) < 0)
		return bc_error(BC_ENOMEM, "out of memory");
	for (size_t i = 0; i < vm->nprocs; i++) {
		const struct vm_proc *p = &vm->procs[i];
		if (k->runs && i && k->same(&vm->procs[pg->g[gid[i - 1]].first], p)) {
			gid[i] = gid[i - 1];
			add_member(pg, &pg->g[gid[i]], p, binary[i]);
			continue;
		}
		size_t j = hmap_first(&index, k->hash(p));
		for (; index.slot[j]; j = hmap_next(&index, j))
			if (k->same(&vm->procs[pg->g[index.slot[j] - 1].first], p))
				break;
		if (index.slot[j]) {
			gid[i] = index.slot[j] - 1;
			add_member(pg, &pg->g[gid[i]], p, binary[i]);
			continue;
		}
		/* a new kind (pg->g has room for every process); growing moves
		 * the slots: j is stale after hmap_set */
		gid[i] = (uint32_t)pg->n;
		pg->g[pg->n] = (struct proc_group){ .first = (uint32_t)i };
		add_member(pg, &pg->g[pg->n], p, binary[i]);
		if (hmap_set(&index, j, (uint32_t)pg->n++, group_hash, &ctx) < 0) {
			hmap_free(&index);
			return bc_error(BC_ENOMEM, "out of memory");
		}
	}
	hmap_free(&index);
	return NULL;
}

/* gid[i]: process i's group by its stack, the groups stacks makes */
static bc_err *by_stack(struct proc_groups *pg, uint32_t *gid)
{
	bc_err *err = stack_groups(pg->vm, NULL, 0, &pg->sg);
	for (size_t k = 0; !err && k < pg->sg.ngroups; k++) {
		const struct stack_group *s = &pg->sg.groups[k];
		pg->g[pg->n++] = (struct proc_group){ .first = s->first_proc };
		for (uint32_t m = 0; m < s->nprocs; m++)
			gid[s->members[m]] = (uint32_t)k;
	}
	return err;
}

bc_err *proc_groups(const struct vm *vm, enum proc_group_by by, struct proc_groups *pg)
{
	memset(pg, 0, sizeof *pg);
	pg->vm = vm;
	pg->by = by;
	size_t n = vm->nprocs ? vm->nprocs : 1;
	uint32_t *gid = malloc(n * sizeof *gid), *first = malloc((n + 1) * sizeof *first);
	uint64_t *binary = calloc(n, sizeof *binary);
	pg->g = malloc(n * sizeof *pg->g);
	pg->members = malloc(n * sizeof *pg->members);
	bc_err *err = NULL;
	if (!gid || !first || !binary || !pg->g || !pg->members)
		err = bc_error(BC_ENOMEM, "out of memory");
	/* process_info(P, binary)'s sizes, per process */
	for (size_t i = 0; !err && i < vm->nbinrefs; i++)
		binary[vm->binrefs[i].proc] += vm->binrefs[i].where == VBR_OFF_HEAP
					       ? vm->binrefs[i].orig_size : 0;
	if (!err)
		err = by == PG_STACK ? by_stack(pg, gid) : by_kind(pg, &kinds[by], gid, binary);
	if (err) {
		free(gid);
		free(first);
		free(binary);
		proc_groups_free(pg);
		return err;
	}
	for (size_t i = 0; by == PG_STACK && i < vm->nprocs; i++)  /* (by kind: summed already) */
		add_member(pg, &pg->g[gid[i]], &vm->procs[i], binary[i]);
	/* members, grouped in process order */
	count_sort_u32(gid, vm->nprocs, pg->n, pg->members, first);
	for (size_t k = 0; k < pg->n; k++)
		pg->g[k].members = pg->members + first[k];
	free(gid);
	free(first);
	free(binary);
	return NULL;
}

void proc_groups_free(struct proc_groups *pg)
{
	free(pg->g);
	free(pg->members);
	stack_groups_free(&pg->sg);
	memset(pg, 0, sizeof *pg);
}

/* The kind of process holding the most memory, when two or more processes
 * of one initial call hold at least KIND_SHARE% of what all processes hold
 * and no one of them half of it (that one is a large process, its own
 * finding): workers nobody supervises hold memory as much as a subtree does,
 * "190 processes with initial call X hold 113 MiB". live: each process's
 * (NULL: not estimated). Its value (0: none) into *value. */
#define KIND_SHARE 20

bc_err *kind_findings(const struct vm *vm, const struct vm_liveness *live, struct an_out *out,
		      uint64_t *value)
{
	*value = 0;
	struct proc_groups pg;
	bc_err *err = proc_groups(vm, PG_INITIAL_CALL, &pg);
	if (err)
		return err;
	uint64_t all = pg.memory_known;
	const struct proc_group *best = NULL;
	for (size_t k = 0; k < pg.n; k++) {
		const struct proc_group *g = &pg.g[k];
		if (g->count < 2 || (best && g->memory <= best->memory))
			continue;
		if (g->largest * 2 < g->memory)
			best = g;
	}
	if (best && all && best->memory * 100 >= all * KIND_SHARE) {
		const struct vm_proc *p = &vm->procs[best->first];
		char mfa[256], n[32], b1[32], b2[32], b3[32], garbage[96] = "";
		uint64_t g = 0, unknown = 0;
		for (uint32_t m = 0; live && m < best->count; m++) {
			g += live[best->members[m]].garbage_bytes;
			unknown += !live[best->members[m]].known;
		}
		if (live && unknown < best->count && g)
			snprintf(garbage, sizeof garbage, "; about %s of it garbage a collection would "
				 "free%s", fmt_bytes(g, b3, sizeof b3),
				 unknown ? " (of those it can tell)" : "");
		struct an_finding *f = an_find(out, "process_kind", "info",
			"%s processes with initial call %s hold %s, %u%% of all processes' memory "
			"(total_heap_size %s words%s)", fmt_count(best->count, n, sizeof n),
			vm_mfa_str(vm_shown_initial_call(p), mfa, sizeof mfa) ? mfa : "unknown",
			fmt_bytes(best->memory, b1, sizeof b1), (unsigned)(best->memory * 100 / all),
			fmt_count(best->total_heap_size, b2, sizeof b2), garbage);
		if (f) {
			f->has_value = true;
			f->value = best->memory;
		}
		*value = best->memory;
	}
	proc_groups_free(&pg);
	return NULL;
}
