/* The refc binaries ETS objects hold: each object (DbTerm) keeps the
 * off-heap values it references on its own list (first_oh, just before its
 * tuple), walked over the table's rows (etsrows.c). (A table's identity,
 * its btid, is a magic indirection: not in binary_alloc.) */
#include "etsrows.h"
#include "eterm.h"
#include "walks.h"

#define DB_DELETE (1u << 3)  /* DbTableCommon.status (erl_db_util.h) */

struct table {
	uint32_t ix;
};

static int object(struct beam *b, uint64_t row, void *arg)
{
	const struct table *t = arg;
	uint64_t oh, tpl = row & ~(uint64_t)TAG_PRIMARY_BOXED;
	if (beam_read_u64(b, tpl - LV(&b->L, DBTERM_TPL) + LV(&b->L, DBTERM_FIRST_OH), &oh) < 0)
		return -1;
	return beam_hold_offheap(b, oh, VBH_ETS, t->ix) < 0 ? -1 : 0;
}

bc_err *beam_load_binary_holders(struct beam *b)
{
	static const enum layout_id need[] = {
		DB_STATUS, DBTERM_TPL, DBTERM_FIRST_OH, OHH_NEXT, BIN_ORIG_SIZE, BIN_REFC,
	};
	bc_err *err = layout_need(&b->L, need, sizeof need / sizeof need[0]);
	if (err) {
		vm_gap(b->vm, "the binaries of ETS objects not read: %s", err->msg);
		bc_err_free(err);
		beam_load_literal_binaries(b);
		return NULL;
	}
	size_t bad = 0;
	const char *why = NULL;
	for (size_t i = 0; i < b->vm->nets; i++) {
		const struct vm_ets *t = &b->vm->ets[i];
		uint32_t status;
		size_t before = b->vm->nbinholds;
		struct table tab = { (uint32_t)i };
		const char *w = NULL;
		int e = beam_read_u32(b, t->addr + LV(&b->L, DB_STATUS), &status) < 0;
		if (!e && (status & DB_DELETE))
			continue;
		/* (an object whose list is unreadable stops the walk: 1) */
		e = e || beam_ets_rows(b, t, object, &tab, &w) != 0;
		if (e) {
			b->vm->nbinholds = before;  /* none of a table read in part */
			why = w ? w : why;
			bad++;
		}
	}
	if (bad)
		vm_gap(b->vm, "the binaries of %zu ETS tables' objects not read%s%s", bad,
		       why ? ": " : "", why ? why : "");
	else
		b->vm->binholds_read |= 1u << VBH_ETS;
	beam_load_literal_binaries(b);
	return NULL;
}
