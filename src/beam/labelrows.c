/* Labels kept in ETS tables (the label rules' registry and ets kinds,
 * labels.h): after the processes and the tables are read, each table a rule
 * names (by its owner's module, or by its name) is walked row by row
 * (etsrows.c); a row holding a local pid at the rule's position names that
 * process, unless a rule read before (a dictionary key, an earlier table
 * rule, an earlier row) already did. One arena, reset per row. */
#include <stdlib.h>
#include <string.h>

#include "labelrows.h"
#include "etsrows.h"
#include "labels.h"
#include "term.h"
#include "terms.h"

#define ROW_ITEMS 32               /* elements decoded per tuple/list of a row */
#define ROW_BYTES 200              /* bytes per binary */

struct rows {
	struct vm *vm;
	const struct label_rule *r;
	const struct vm_ets *t;
	const char *parent;            /* the owner's '$ancestors' head, or NULL */
	struct vt_arena *a;
};

static int one_row(struct beam *b, uint64_t row, void *arg)
{
	struct rows *w = arg;
	vt_arena_reset(w->a);
	struct vt *t = beam_decode_term(b, w->a, row, ROW_ITEMS, ROW_BYTES);
	if (!label_row_matches(w->r, t))
		return 0;
	const struct vt *pid = label_at(t, &w->r->pid), *name = label_at(t, &w->r->name);
	if (!pid || pid->kind != VT_PID || pid->chan || pid->node || !name)
		return 0;
	struct vm_pid id = { (uint32_t)pid->i, (uint32_t)pid->u };
	struct vm_proc *p = (struct vm_proc *)vm_find_proc(w->vm, id);
	if (!p || p->label)
		return 0;
	vm_set_label(w->vm, p, w->r, name, w->t->name, w->parent);  /* (out of memory: none) */
	return 0;
}

/* Whether rule r reads table t: an ets rule by the table's name, a registry
 * rule by its owner's module (proc_lib's initial call, else the initial call). */
static bool reads(const struct label_rule *r, const struct vm_ets *t, const struct vm_proc *owner)
{
	if (r->kind == LABEL_ETS)
		return t->name && !strcmp(t->name, r->what);
	if (r->kind != LABEL_REGISTRY || !owner)
		return false;
	const struct vm_proc *o = owner;
	const char *mod = o->proc_lib_initial_call->module ? o->proc_lib_initial_call->module
							   : o->initial_call->module;
	return mod && !strcmp(mod, r->what);
}

void beam_label_tables(struct beam *b)
{
	struct vm *vm = b->vm;
	const struct label_rules *lr = label_rules();
	struct vt_arena *a = NULL;
	/* the tables' owners in one pass: the processes are not indexed by pid
	 * unless a row names one (the TUI's first screen needs no index) */
	struct vm_pid *pids = malloc((vm->nets ? vm->nets : 1) * sizeof *pids);
	const struct vm_proc **owners = malloc((vm->nets ? vm->nets : 1) * sizeof *owners);
	if (!pids || !owners) {
		free(pids);
		free(owners);
		vm_gap(vm, "labels: out of memory reading ETS rows");
		return;
	}
	for (size_t i = 0; i < vm->nets; i++)
		pids[i] = vm->ets[i].owner;
	vm_find_procs(vm, pids, vm->nets, owners);
	free(pids);
	for (size_t k = 0; k < lr->n; k++) {
		const struct label_rule *r = &lr->rule[k];
		if (r->kind == LABEL_DICT)
			continue;
		for (size_t i = 0; i < vm->nets; i++) {
			const struct vm_ets *t = &vm->ets[i];
			const struct vm_proc *owner = owners[i];
			if (!reads(r, t, owner))
				continue;
			if (!a && !(a = vt_arena_new())) {
				vm_gap(vm, "labels: out of memory reading ETS rows");
				free(owners);
				return;
			}
			struct rows w = { vm, r, t, NULL, a };
			if (owner && owner->has_ancestors && owner->anc_n)
				w.parent = vm->ancestors[owner->anc_first];
			const char *why;
			if (beam_ets_rows(b, t, one_row, &w, &why) < 0)
				vm_gap(vm, "labels (%s, rule %s): table %s's rows not all read: %s",
				       r->source, r->origin, t->name ? t->name : "?", why);
		}
	}
	free(owners);
	vt_arena_free(a);
}
