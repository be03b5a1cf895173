/* The offset table: every entry of dwarf/layout.def resolved through DWARF once. */
#ifndef BEAMCORE_LAYOUT_H
#define BEAMCORE_LAYOUT_H
#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "error.h"

enum layout_id {
#define L_GLOBAL(id, n) id,
#define L_GFIELD(id, g, p) id,
#define L_GELEM(id, g) id,
#define L_FIELD(id, t, p) id,
#define L_SIZE(id, t) id,
#include "layout.def"
#undef L_GLOBAL
#undef L_GFIELD
#undef L_GELEM
#undef L_FIELD
#undef L_SIZE
	L_COUNT
};

struct layout_entry {
	uint64_t value;   /* offset, size, or link-time address */
	uint64_t size;    /* size of the member or global */
	bool found;
};

struct layout {
	struct layout_entry e[L_COUNT];
	size_t nfound;
};

/* Fills every entry it can; never fails for a missing entry. */
bc_err *layout_resolve(Dwarf *dw, struct layout *L);
/* "struct member Process.sig_qs.len" etc., for messages. */
const char *layout_describe(enum layout_id id, char *buf, size_t len);
/* NULL if all ids were found, else an error naming the first missing one. */
bc_err *layout_need(const struct layout *L, const enum layout_id *ids, size_t n);

/* A hash of the table's entries as layout.def names them (what a layout
 * cache written by another beamcore may not hold alike). */
uint64_t layout_table_hash(void);
/* The same entries found in both, with the same values and sizes. */
int layout_same(const struct layout *a, const struct layout *b);
/* A hash of the entries found, their values and sizes (a layout cache's
 * check that it is whole). */
uint64_t layout_sum(const struct layout *L);
/* The entry's name in layout.def ("P_ID"), and the id of a name (-1: none). */
const char *layout_id_name(enum layout_id id);
int layout_id_find(const char *name, size_t len);
/* An L_GLOBAL's variable ("erts_proc", "beam_ranges.c:r"), *is_static set for a
 * file static; NULL for the other kinds. */
const char *layout_global_symbol(enum layout_id id, int *is_static);

/* The exported variables (name, link-time address) of each file static's
 * compile unit, for a layout pack's anchored route (pack.h). */
void layout_cu_exports(Dwarf *dw, void (*fn)(enum layout_id id, const char *name, uint64_t addr,
					     void *arg), void *arg);

#define LV(L, id) ((L)->e[id].value)
#define LHAS(L, id) ((L)->e[id].found)

#endif
