/* The refc binaries literal areas hold (global.h ErtsLiteralArea: an off-heap
 * list before the terms): each loaded module's code, current and old, in the
 * module table of every code index (module.c module_tables), and each
 * persistent term (erl_bif_persistent.c: a tuple in an area of its own). */
#include <stdlib.h>

#include "eterm.h"
#include "walks.h"

#define INDEX_PAGE_SHIFT 10          /* index.h */
#define MAX_MODULES (1u << 24)
#define MAX_TERMS (1ull << 26)   /* persistent terms: more is a corrupt table */

static int area_cmp(const void *a, const void *b)
{
	const struct lit_area *x = a, *y = b;
	return x->area < y->area ? -1 : x->area > y->area;
}

static int add_area(struct lit_areas *a, uint64_t area, uint64_t module, uint64_t hdr)
{
	struct lit_area *v = grow(a->v, &a->cap, a->n, sizeof *v, 256);
	if (!v)
		return -1;
	a->v = v;
	a->v[a->n++] = (struct lit_area){ area, module, hdr };
	return 0;
}

/* Each module of one code index's table: its code headers' literal areas. */
static int modules(struct beam *b, uint64_t table, struct lit_areas *a)
{
	const struct layout *L = &b->L;
	uint32_t entries;
	uint64_t seg_table;
	if (beam_read_u32(b, table + LV(L, IT_ENTRIES), &entries) < 0 || entries > MAX_MODULES ||
	    beam_read_u64(b, table + LV(L, IT_SEG_TABLE), &seg_table) < 0)
		return -1;
	for (uint32_t i = 0; i < entries; i++) {
		uint64_t seg, mod, hdr[2], area, name = 0;
		if (beam_read_u64(b, seg_table + (i >> INDEX_PAGE_SHIFT) * 8, &seg) < 0 ||
		    beam_read_u64(b, seg + (i & ((1u << INDEX_PAGE_SHIFT) - 1)) * 8, &mod) < 0 ||
		    !mod || beam_read_u64(b, mod + LV(L, MOD_CURR_HDR), &hdr[0]) < 0 ||
		    beam_read_u64(b, mod + LV(L, MOD_OLD_HDR), &hdr[1]) < 0)
			return -1;
		uint32_t ix;  /* its name (module.h: the atom's index, untagged) */
		if (LHAS(L, MOD_MODULE) && beam_read_u32(b, mod + LV(L, MOD_MODULE), &ix) == 0)
			name = make_atom(ix);
		for (int k = 0; k < 2; k++)
			if (hdr[k] && (beam_read_u64(b, hdr[k] + LV(L, BCH_LITERAL_AREA), &area) < 0 ||
				       (area && add_area(a, area, name, hdr[k]) < 0)))
				return -1;
	}
	return 0;
}

int beam_module_literal_areas(struct beam *b, struct lit_areas *a)
{
	const struct layout *L = &b->L;
	*a = (struct lit_areas){ 0 };
	uint64_t tables = beam_global(b, G_MODULE_TABLES);
	size_t ntables = L->e[G_MODULE_TABLES].size / LV(L, S_MODULE_TABLE);
	for (size_t i = 0; i < ntables; i++)
		if (modules(b, tables + i * LV(L, S_MODULE_TABLE), a) < 0)
			return -1;
	lit_areas_unique(a);
	return 0;
}

void lit_areas_unique(struct lit_areas *a)
{
	if (!a->n)  /* (none: no array to sort) */
		return;
	qsort(a->v, a->n, sizeof *a->v, area_cmp);
	size_t o = 1;
	for (size_t i = 1; i < a->n; i++)
		if (a->v[i].area != a->v[o - 1].area)
			a->v[o++] = a->v[i];
	a->n = o;
}

/* Each persistent term: a tuple at the start of its literal area. */
static int persistent(struct beam *b, struct lit_areas *a)
{
	const struct layout *L = &b->L;
	uint64_t tab, allocated;
	if (beam_read_u64(b, beam_global(b, G_PERSISTENT_TABLE), &tab) < 0 || !tab ||
	    beam_read_u64(b, tab + LV(L, PHT_ALLOCATED), &allocated) < 0 || allocated > MAX_TERMS)
		return -1;
	for (uint64_t i = 0; i < allocated; i++) {
		uint64_t term;
		if (beam_read_u64(b, tab + LV(L, PHT_TERM) + i * 8, &term) < 0)
			return -1;
		if ((term & 3) == TAG_PRIMARY_BOXED && add_area(a, (term & ~3ull) - LV(L, LA_START), 0, 0) < 0)
			return -1;
	}
	return 0;
}

/* Into vm->binholds (VBH_LITERAL); a gap when some could not be read. */
void beam_load_literal_binaries(struct beam *b)
{
	static const enum layout_id need[] = {
		G_MODULE_TABLES, S_MODULE_TABLE, IT_ENTRIES, IT_SEG_TABLE, MOD_CURR_HDR, MOD_OLD_HDR,
		BCH_LITERAL_AREA, LA_OFF_HEAP, LA_START, G_PERSISTENT_TABLE, PHT_ALLOCATED, PHT_TERM,
	};
	const struct layout *L = &b->L;
	bc_err *err = layout_need(L, need, sizeof need / sizeof need[0]);
	if (err) {
		vm_gap(b->vm, "the binaries of literals (code, persistent terms) not read: %s", err->msg);
		bc_err_free(err);
		return;
	}
	/* an area shared by the code indexes' tables: once */
	struct lit_areas a;
	int e = beam_module_literal_areas(b, &a) < 0 || persistent(b, &a) < 0;
	lit_areas_unique(&a);
	size_t bad = 0;
	for (size_t i = 0; i < a.n && !e; i++) {
		uint64_t oh;
		if (beam_read_u64(b, a.v[i].area + LV(L, LA_OFF_HEAP), &oh) < 0 ||
		    beam_hold_offheap(b, oh, VBH_LITERAL, 0) < 0)
			bad++;
	}
	free(a.v);
	if (e)
		vm_gap(b->vm, "the binaries of literals (code, persistent terms) not read: the module "
		       "or persistent term table is unreadable");
	else if (bad)
		vm_gap(b->vm, "the binaries of %zu literal areas unreadable", bad);
	else
		b->vm->binholds_read |= 1u << VBH_LITERAL;
}
