/* The refc binaries ETS objects hold: each object (DbTerm) keeps the
 * off-heap values it references on its own list (first_oh). Hash tables
 * (set, bag, duplicate_bag: erl_db_hash.c BUCKET) and AVL trees (ordered_set:
 * erl_db_tree.c) are walked; ordered_set tables with write_concurrency (the
 * CA tree of erl_db_catree.c) are not, and are said. */
#include "walks.h"

/* DbTableCommon.status (erl_db_util.h), as ets.c reads it */
#define DB_DELETE (1u << 3)
#define DB_ORDERED_SET (1u << 7)
#define DB_CA_ORDERED_SET (1u << 8)

/* erl_db_hash.c: 256 slots in the first segment, 2048 in each further one */
#define FIRST_SEGSZ 256u
#define EXT_SEGSZ_EXP 11
#define EXT_SEGSZ (1u << EXT_SEGSZ_EXP)
/* more objects than memory holds: corrupt */
#define MAX_OBJECTS (1ull << 32)
#define MAX_DEPTH 128

static int object(struct beam *b, uint64_t dbterm, uint32_t table)
{
	uint64_t oh;
	if (beam_read_u64(b, dbterm + LV(&b->L, DBTERM_FIRST_OH), &oh) < 0)
		return -1;
	return beam_hold_offheap(b, oh, VBH_ETS, table);
}

static int hash_table(struct beam *b, uint64_t tb, uint32_t table)
{
	const struct layout *L = &b->L;
	uint64_t segtab, nactive, seen = 0;
	if (beam_read_u64(b, tb + LV(L, DBH_SEGTAB), &segtab) < 0 ||
	    beam_read_u64(b, tb + LV(L, DBH_NACTIVE), &nactive) < 0 || nactive > MAX_OBJECTS)
		return -1;
	for (uint64_t i = 0; i < nactive; i++) {
		uint64_t seg, t;
		if (beam_read_u64(b, segtab + ((i + (EXT_SEGSZ - FIRST_SEGSZ)) >> EXT_SEGSZ_EXP) * 8,
				  &seg) < 0 ||
		    beam_read_u64(b, seg + LV(L, SEG_BUCKETS) + (i & (EXT_SEGSZ - 1)) * 8, &t) < 0)
			return -1;
		for (; t; seen++)
			if (seen > MAX_OBJECTS || object(b, t + LV(L, HDBT_DBTERM), table) < 0 ||
			    beam_read_u64(b, t + LV(L, HDBT_NEXT), &t) < 0)
				return -1;
	}
	return 0;
}

/* An AVL tree, by an explicit stack (its height is logarithmic). */
static int tree_table(struct beam *b, uint64_t tb, uint32_t table)
{
	const struct layout *L = &b->L;
	uint64_t stack[MAX_DEPTH], node, seen = 0;
	size_t n = 0;
	if (beam_read_u64(b, tb + LV(L, DBT_ROOT), &node) < 0)
		return -1;
	if (node)
		stack[n++] = node;
	while (n) {
		uint64_t left, right;
		node = stack[--n];
		if (++seen > MAX_OBJECTS || object(b, node + LV(L, TDBT_DBTERM), table) < 0 ||
		    beam_read_u64(b, node + LV(L, TDBT_LEFT), &left) < 0 ||
		    beam_read_u64(b, node + LV(L, TDBT_RIGHT), &right) < 0 || n + 2 > MAX_DEPTH)
			return -1;
		if (left)
			stack[n++] = left;
		if (right)
			stack[n++] = right;
	}
	return 0;
}

bc_err *beam_load_ets_binaries(struct beam *b)
{
	static const enum layout_id need[] = {
		DB_STATUS, DB_BTID, DBH_SEGTAB, DBH_NACTIVE, SEG_BUCKETS, HDBT_NEXT, HDBT_DBTERM, DBT_ROOT,
		TDBT_LEFT, TDBT_RIGHT, TDBT_DBTERM, DBTERM_FIRST_OH, OHH_NEXT, BIN_ORIG_SIZE, BIN_REFC,
	};
	bc_err *err = layout_need(&b->L, need, sizeof need / sizeof need[0]);
	if (err) {
		vm_gap(b->vm, "the binaries of ETS objects not read: %s", err->msg);
		bc_err_free(err);
		return NULL;
	}
	size_t catree = 0, bad = 0;
	for (size_t i = 0; i < b->vm->nets; i++) {
		uint64_t tb = b->vm->ets[i].addr;
		uint32_t status;
		size_t before = b->vm->nbinholds;
		int e = beam_read_u32(b, tb + LV(&b->L, DB_STATUS), &status) < 0;
		if (!e && (status & DB_DELETE))
			continue;
		if (!e && (status & DB_CA_ORDERED_SET)) {
			catree++;  /* (its identity aside: counted with the rest) */
			continue;
		}
		/* the table's identity (btid, a magic binary) is in binary_alloc too */
		uint64_t btid, size;
		e = e || beam_read_u64(b, tb + LV(&b->L, DB_BTID), &btid) < 0 ||
		    (btid && beam_hold_binary(b, btid, VBH_ETS, (uint32_t)i, &size) < 0);
		e = e || (status & DB_ORDERED_SET ? tree_table(b, tb, (uint32_t)i)
						  : hash_table(b, tb, (uint32_t)i)) < 0;
		if (e) {
			b->vm->nbinholds = before;  /* none of a table read in part */
			bad++;
		}
	}
	if (catree)
		vm_gap(b->vm, "the binaries of %zu ordered_set tables with write_concurrency (CA trees) "
		       "not read", catree);
	if (bad)
		vm_gap(b->vm, "the binaries of %zu ETS tables unreadable (a table changing, or corrupt)",
		       bad);
	if (!catree && !bad)
		b->vm->binholds_read |= 1u << VBH_ETS;
	return NULL;
}
