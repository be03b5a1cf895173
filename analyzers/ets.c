/* ets: every ETS table with its owner, as ets:info/1 would list it, largest first. */
#include <stdlib.h>
#include <string.h>

#include "analyzer.h"
#include "needs.h"

enum { C_ID, C_NAME, C_NAMED, C_OWNER, C_OWNER_NAME, C_TYPE, C_PROT, C_SIZE, C_MEMORY };

static const struct rcol cols[] = {
	[C_ID] = { "id", "ID", RC_STR, RCOL_BROWSE_LAST },  /* #Ref<...>: 38 columns */
	[C_NAME] = { "name", "NAME", RC_STR, RCOL_WIDE },
	[C_NAMED] = { "named_table", "NAMED", RC_BOOL, RCOL_BROWSE_LAST },
	[C_OWNER] = { "owner", "OWNER", RC_STR, 0 },
	[C_OWNER_NAME] = { "owner_name", "OWNER NAME", RC_STR, RCOL_WIDE },
	[C_TYPE] = { "type", "TYPE", RC_STR, 0 },
	[C_PROT] = { "protection", "PROTECTION", RC_STR, RCOL_BROWSE_LAST },
	[C_SIZE] = { "size", "SIZE", RC_U64, 0 },
	[C_MEMORY] = { "memory", "MEMORY", RC_WORDS_AS_BYTES, 0 },
};

struct ctx {
	const struct vm *vm;
	uint32_t order[];
};

static int cmp(const void *a, const void *b, void *tables)
{
	const struct vm_ets *x = &((const struct vm_ets *)tables)[*(const uint32_t *)a];
	const struct vm_ets *y = &((const struct vm_ets *)tables)[*(const uint32_t *)b];
	int ux = (x->unknown & VEF_MEMORY) != 0, uy = (y->unknown & VEF_MEMORY) != 0;
	if (ux != uy)
		return ux - uy;
	if (x->memory != y->memory)
		return x->memory < y->memory ? 1 : -1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void cell(void *vctx, size_t row, size_t col, struct rcell *out, char *buf, size_t len)
{
	struct ctx *c = vctx;
	const struct vm_ets *t = &c->vm->ets[c->order[row]];
	const struct vm_proc *p;
	switch (col) {
	case C_ID:
		out->s = vm_ets_id_str(t, buf, len);
		out->null = t->unknown & VEF_ID;
		break;
	case C_NAME: out->s = t->name; out->null = t->unknown & VEF_NAME; break;
	case C_NAMED: out->u = t->named_table; break;
	case C_OWNER: out->s = vm_pid2str(t->owner, buf, len); break;
	case C_OWNER_NAME:
		p = vm_find_proc(c->vm, t->owner);
		out->s = p ? p->registered_name : NULL;  /* NULL: none (JSON null, blank text) */
		break;
	case C_TYPE: out->s = t->type; break;
	case C_PROT: out->s = t->protection; break;
	case C_SIZE: out->u = t->size; out->null = t->unknown & VEF_SIZE; break;
	case C_MEMORY: out->u = t->memory; out->null = t->unknown & VEF_MEMORY; break;
	}
}

bc_err *ets_table(const struct vm *vm, size_t top, struct rtable *t, void **priv)
{
	struct ctx *c = malloc(sizeof *c + (vm->nets ? vm->nets : 1) * sizeof c->order[0]);
	if (!c)
		return bc_error(BC_ENOMEM, "out of memory");
	c->vm = vm;
	for (size_t i = 0; i < vm->nets; i++)
		c->order[i] = (uint32_t)i;
	qsort_r(c->order, vm->nets, sizeof c->order[0], cmp, (void *)vm->ets);
	*t = (struct rtable){
		.json_key = "ets",
		.cols = cols,
		.ncols = sizeof cols / sizeof cols[0],
		.nrows = top && top < vm->nets ? top : vm->nets,
		.ctx = c,
		.cell = cell,
	};
	*priv = c;
	return NULL;
}

static bc_err *run(const struct vm *vm, const struct an_opts *o, struct an_out *out)
{
	void *rows = NULL;
	bc_err *err = ets_table(vm, o->top, &out->tables[0], &rows);
	if (!err && !an_own(out, rows, NULL))
		err = bc_error(BC_ENOMEM, "out of memory");
	if (!err)
		out->ntables = 1;
	return err;
}

const struct analyzer analyzer_ets = {
	.name = "ets",
	.options = an_rows_options,
	.summary = "every ETS table with its owner, size and memory, largest first",
	.needs = NEED_ETS,
	.run = run,
};

/* Row r of an ets table. */
const struct vm_ets *ets_row(const struct rtable *t, size_t r)
{
	const struct ctx *c = t->ctx;
	return &c->vm->ets[c->order[r]];
}
