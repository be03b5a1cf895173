/* ets: every ETS table with its owner, as ets:info/1 would list it, largest
 * first; ets TABLE --rows [N]: one table's first rows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer.h"
#include "ets.h"
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
		.total = vm->nets,
		.ctx = c,
		.cell = cell,
	};
	*priv = c;
	return NULL;
}

#define SHOW_ROWS 20  /* ets TABLE --rows without a count */

/* The table TABLE names: its id (#Ref<...>) or its name, when one table has it. */
static bc_err *table_by_arg(const struct vm *vm, const char *arg, const struct vm_ets **out)
{
	char id[64], list[600] = "";
	size_t n = 0;
	*out = NULL;
	for (size_t i = 0; i < vm->nets; i++) {
		const struct vm_ets *t = &vm->ets[i];
		if (!(t->unknown & VEF_ID) && strcmp(vm_ets_id_str(t, id, sizeof id), arg) == 0) {
			*out = t;
			return NULL;
		}
		if (!(t->unknown & VEF_NAME) && t->name && strcmp(t->name, arg) == 0) {
			if (n++ < 4)
				snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
					 n > 1 ? ", " : "", vm_ets_id_str(t, id, sizeof id));
			*out = t;
		}
	}
	if (n > 1)
		return bc_error(BC_EUSAGE, "ets %s: %zu tables have that name (unnamed tables share "
				"names): give its id, one of %s%s", arg, n, list, n > 4 ? ", ..." : "");
	if (!n)
		return bc_error(BC_EFORMAT, "ets %s: no ETS table of that name or id in this %s "
				"(beamcore ets lists them)", arg, vm->kind);
	return NULL;
}

static void release_rows(void *r)
{
	vm_ets_rows_free(r);
	free(r);
}

/* ets TABLE --rows [N]: the table, then its first N rows (all counted). */
static bc_err *run_rows(const struct vm *vm, const struct an_opts *o, struct an_out *out)
{
	const struct vm_ets *t;
	char buf[600], n1[32], n2[32], n3[32];
	if (!vm->ets_rows)
		return bc_error(BC_EFORMAT, "ets %s --rows: a crash dump does not record a table's "
				"rows (its =ets section gives size and memory only): a core does", o->arg);
	bc_err *err = table_by_arg(vm, o->arg, &t);
	if (err)
		return err;
	size_t max = o->arg_count ? o->arg_count : SHOW_ROWS;
	struct vm_ets_rows *r = an_own(out, calloc(1, sizeof *r), release_rows);
	if (!r || vm->ets_rows(vm->loader, t, max, r) < 0)
		return bc_error(BC_ENOMEM, "out of memory");
	if (r->cut)
		an_gap(out, "ets %s: rows not read to the end (%s): %llu counted", o->arg, r->cut,
		       (unsigned long long)r->counted);
	out->fields_key = "table";
	struct an_field f[8];
	f[0] = (struct an_field){ .key = "id", .kind = t->unknown & VEF_ID ? AF_NULL : AF_STR,
				  .s = an_keep(out, vm_ets_id_str(t, buf, sizeof buf)) };
	f[1] = (struct an_field){ .key = "name", .kind = t->unknown & VEF_NAME ? AF_NULL : AF_STR,
				  .s = t->name };
	f[2] = (struct an_field){ .key = "owner", .kind = AF_STR,
				  .s = an_keep(out, vm_pid2str(t->owner, buf, sizeof buf)) };
	f[3] = (struct an_field){ .key = "type", .kind = AF_STR, .s = t->type };
	f[4] = (struct an_field){ .key = "size", .kind = t->unknown & VEF_SIZE ? AF_UNKNOWN : AF_U64,
				  .u = t->size };
	f[5] = (struct an_field){ .key = "rows_counted", .kind = AF_U64, .u = r->counted };
	f[6] = (struct an_field){ .key = "rows_complete", .kind = AF_BOOL, .u = !r->cut };
	if (r->counted > r->nrows)
		snprintf(buf, sizeof buf, "Rows (the first %s of %s; ... and %s more: --rows N for N)",
			 fmt_count(r->nrows, n1, sizeof n1), fmt_count(r->counted, n2, sizeof n2),
			 fmt_count(r->counted - r->nrows, n3, sizeof n3));
	else
		snprintf(buf, sizeof buf, "Rows (all %s)", fmt_count(r->nrows, n1, sizeof n1));
	f[7] = (struct an_field){ .key = "rows", .kind = AF_LIST, .list = r->rows, .n = r->nrows,
				  .title = an_keep(out, buf) };
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
		if (!an_field(out, f[i]))
			return bc_error(BC_ENOMEM, "out of memory");
	return NULL;
}

static struct ets_opts ets_opts;
extern const struct analyzer analyzer_ets;

static bc_err *run(const struct vm *vm, const struct an_opts *o, struct an_out *out)
{
	const struct ets_opts *eo = an_own_opts(o, &analyzer_ets);
	if (eo->rows)
		return run_rows(vm, o, out);
	void *rows = NULL;
	struct rtable *t = an_tables(out, 1);
	if (!t)
		return bc_error(BC_ENOMEM, "out of memory");
	bc_err *err = ets_table(vm, o->top, t, &rows);
	if (!err && !an_own(out, rows, NULL))
		err = bc_error(BC_ENOMEM, "out of memory");
	return err;
}

static const struct option_entry options[] = {
	OPT_INCLUDE(an_json_option),
	OPT_INCLUDE(an_top_option),
	OPT_FLAG("rows", "ets TABLE --rows [N]: the table's first N rows (20; a core only),\n"
		 "TABLE its name or id (#Ref<...>)", OPT_OWN, struct ets_opts, rows),
	OPT_SLOT(OPT_SLOT_TARGET_LIVE),
	OPT_SLOT(OPT_SLOT_TARGET_FILE),
	OPT_TABLE_END,
};

const struct analyzer analyzer_ets = {
	.name = "ets",
	.kind = CMD_MODEL,
	.options = options,
	.opts = &ets_opts,
	.arg_name = "[TABLE --rows [N]]",
	.arg_with = "rows",
	.arg_help = "with --rows: TABLE a table's name or id (#Ref<0.1.2.3>), N how many\n"
		    "        rows to show (20)",
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
