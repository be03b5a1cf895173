/* The rows of an ETS table in a core. Every object lives in a DbTerm whose
 * tpl[] is the tuple itself (its own pointers are absolute: copy_shallow),
 * hung from the table by its type:
 *  - hash (erl_db_hash.c): nactive buckets, bucket i in segment
 *    (i + EXT_SEGSZ - FIRST_SEGSZ) >> EXT_SEGSZ_EXP of segtab, at i & EXT_SEGSZ_MASK;
 *    each a chain of HashDbTerm (pseudo-deleted ones are gone for ets);
 *  - ordered_set (erl_db_tree.c): an AVL tree of TreeDbTerm, walked in order;
 *  - ordered_set with write_concurrency (erl_db_catree.c): route nodes over
 *    base nodes, each base node an AVL tree as above.
 * Bounds: chains and trees stop at what the table's size allows (a loop in a
 * corrupt core is said, never followed for ever). */
#include <stdlib.h>

#include "etsrows.h"
#include "eterm.h"

#define DB_ORDERED_SET (1u << 7)   /* DbTableCommon.status (erl_db_util.h) */
#define DB_CA_ORDERED_SET (1u << 8)
#define FIRST_SEGSZ 256u
#define EXT_SEGSZ_EXP 11
#define EXT_SEGSZ (1u << EXT_SEGSZ_EXP)
#define MAX_DEPTH 256              /* an AVL tree of 2^64 rows is ~92 deep */
#define SLACK 4096                 /* rows beyond the counted size (writes racing a gcore) */

struct walk {
	struct beam *b;
	beam_row_fn fn;
	void *arg;
	uint64_t seen, limit;      /* rows visited; more is a loop */
	const char *why;
};

/* One row: its tuple at tpl. 1: stop (fn said so, or the limit). */
static int row(struct walk *w, uint64_t tpl)
{
	if (++w->seen > w->limit) {
		w->why = "more rows than the table counts: a loop (corrupt core)";
		return 1;
	}
	return w->fn(w->b, tpl | TAG_PRIMARY_BOXED, w->arg) ? 1 : 0;
}

/* HashDbTerm.pseudo_deleted: a Uint32 after a Uint32 hvalue to OTP 28; from
 * OTP 29 the top bit of the word after next (UWord hvalue:63, pseudo_deleted:1),
 * a bitfield whose DWARF offset (DW_AT_data_bit_offset) the layout does not give. */
static int pseudo_deleted(struct beam *b, uint64_t t, uint64_t *deleted)
{
	const struct layout *L = &b->L;
	uint32_t v32;
	if (LV(L, HDB_PSEUDO_DELETED) == LV(L, HDB_NEXT) + 12) {
		int r = beam_read_u32(b, t + LV(L, HDB_PSEUDO_DELETED), &v32);
		*deleted = v32;
		return r;
	}
	int r = beam_read_u64(b, t + LV(L, HDB_NEXT) + 8, deleted);
	*deleted >>= 63;
	return r;
}

static int hash_rows(struct walk *w, uint64_t tb)
{
	struct beam *b = w->b;
	const struct layout *L = &b->L;
	uint64_t nactive, segtab;
	if (beam_read_u64(b, tb + LV(L, DBH_NACTIVE), &nactive) < 0 ||
	    beam_read_u64(b, tb + LV(L, DBH_SEGTAB), &segtab) < 0) {
		w->why = "the hash table's segments are unreadable";
		return -1;
	}
	if (nactive > (1ull << 40)) {
		w->why = "the hash table's slot count is absurd (corrupt core)";
		return -1;
	}
	uint64_t buckets[256];
	for (uint64_t i = 0; i < nactive;) {
		/* a run of buckets within one segment, read at once */
		uint64_t seg_ix = (i + EXT_SEGSZ - FIRST_SEGSZ) >> EXT_SEGSZ_EXP, seg;
		uint64_t in_seg = i & (EXT_SEGSZ - 1);
		uint64_t n = EXT_SEGSZ - in_seg;
		if (seg_ix == 0)
			n = FIRST_SEGSZ - in_seg;
		if (n > nactive - i)
			n = nactive - i;
		if (n > sizeof buckets / sizeof buckets[0])
			n = sizeof buckets / sizeof buckets[0];
		if (beam_read_u64(b, segtab + 8 * seg_ix, &seg) < 0 ||
		    core_peek(b->core, seg + 8 * in_seg, buckets, 8 * n) < 0) {
			w->why = "a hash table segment is unreadable";
			return -1;
		}
		for (uint64_t k = 0; k < n; k++) {
			struct cycle cy = CYCLE_INIT;  /* (pseudo-deleted terms count no row) */
			for (uint64_t t = buckets[k]; t;) {
				uint64_t next, deleted;
				if (cycle_seen(&cy, t)) {
					w->why = "a hash bucket's chain comes back on itself (corrupt core)";
					return -1;
				}
				if (beam_read_u64(b, t + LV(L, HDB_NEXT), &next) < 0 ||
				    pseudo_deleted(b, t, &deleted) < 0) {
					w->why = "a hash bucket's chain is unreadable";
					return -1;
				}
				if (!deleted && row(w, t + LV(L, HDB_TPL)))
					return w->why ? -1 : 1;
				t = next;
			}
		}
		i += n;
	}
	return 0;
}

/* An AVL tree of TreeDbTerm in key order: left, the node, right. */
static int tree_rows(struct walk *w, uint64_t root)
{
	struct beam *b = w->b;
	const struct layout *L = &b->L;
	uint64_t stack[MAX_DEPTH];
	size_t depth = 0;
	uint64_t t = root;
	/* each node is met once: one met again ends the walk (the row limit would,
	 * but not when the table's size is unknown) */
	struct cycle cy = CYCLE_INIT;
	while (t || depth) {
		while (t) {
			if (depth == MAX_DEPTH) {
				w->why = "an ordered_set tree deeper than an AVL tree can be (corrupt core)";
				return -1;
			}
			stack[depth++] = t;
			if (beam_read_u64(b, t + LV(L, TDB_LEFT), &t) < 0) {
				w->why = "an ordered_set tree node is unreadable";
				return -1;
			}
		}
		t = stack[--depth];
		if (cycle_seen(&cy, t)) {
			w->why = "an ordered_set tree that comes back on itself (corrupt core)";
			return -1;
		}
		if (row(w, t + LV(L, TDB_TPL)))
			return w->why ? -1 : 1;
		if (beam_read_u64(b, t + LV(L, TDB_RIGHT), &t) < 0) {
			w->why = "an ordered_set tree node is unreadable";
			return -1;
		}
	}
	return 0;
}

/* A CA tree: route nodes in order (left, right), each leaf a base node's tree. */
static int catree_rows(struct walk *w, uint64_t tb)
{
	struct beam *b = w->b;
	const struct layout *L = &b->L;
	uint64_t stack[MAX_DEPTH * 4], node;
	size_t depth = 0;
	if (beam_read_u64(b, tb + LV(L, DBC_ROOT), &node) < 0) {
		w->why = "the CA tree's root is unreadable";
		return -1;
	}
	if (node)
		stack[depth++] = node;
	struct cycle cy = CYCLE_INIT;  /* route nodes count no row */
	while (depth) {
		node = stack[--depth];
		uint64_t is_base, root, left, right;
		if (cycle_seen(&cy, node)) {
			w->why = "a CA tree that comes back on itself (corrupt core)";
			return -1;
		}
		if (beam_read_field(b, node, CAN_IS_BASE, &is_base) < 0) {
			w->why = "a CA tree node is unreadable";
			return -1;
		}
		if (is_base) {
			if (beam_read_u64(b, node + LV(L, CAN_ROOT), &root) < 0) {
				w->why = "a CA tree base node is unreadable";
				return -1;
			}
			int r = tree_rows(w, root);
			if (r)
				return r;
			continue;
		}
		if (beam_read_u64(b, node + LV(L, CAN_LEFT), &left) < 0 ||
		    beam_read_u64(b, node + LV(L, CAN_RIGHT), &right) < 0) {
			w->why = "a CA tree route node is unreadable";
			return -1;
		}
		if (depth + 2 > sizeof stack / sizeof stack[0]) {
			w->why = "a CA tree deeper than beamcore follows (corrupt core?)";
			return -1;
		}
		if (right)
			stack[depth++] = right;  /* popped after the left subtree: key order */
		if (left)
			stack[depth++] = left;
	}
	return 0;
}

int beam_ets_rows(struct beam *b, const struct vm_ets *t, beam_row_fn fn, void *arg,
		  const char **why)
{
	static const enum layout_id hash_need[] = { DBH_NACTIVE, DBH_SEGTAB, HDB_NEXT,
						    HDB_PSEUDO_DELETED, HDB_TPL };
	static const enum layout_id tree_need[] = { DBT_ROOT, TDB_LEFT, TDB_RIGHT, TDB_TPL };
	static const enum layout_id catree_need[] = { DBC_ROOT, CAN_IS_BASE, CAN_LEFT,
						      CAN_RIGHT, CAN_ROOT };
	const struct layout *L = &b->L;
	struct walk w = { b, fn, arg, 0, 0, NULL };
	uint32_t status;
	*why = NULL;
	if (t->compressed) {
		*why = "a compressed table: its rows are in the external format, not decoded";
		return -1;
	}
	if (!LHAS(L, DB_STATUS) || beam_read_u32(b, t->addr + LV(L, DB_STATUS), &status) < 0) {
		*why = "the table's type is unreadable";
		return -1;
	}
	w.limit = (t->unknown & VEF_SIZE ? 1ull << 32 : t->size) + SLACK;
	const enum layout_id *need = hash_need;
	size_t nneed = sizeof hash_need / sizeof hash_need[0];
	if (status & DB_CA_ORDERED_SET) {
		need = catree_need;
		nneed = sizeof catree_need / sizeof catree_need[0];
	} else if (status & DB_ORDERED_SET) {
		need = tree_need;
		nneed = sizeof tree_need / sizeof tree_need[0];
	}
	for (size_t i = 0; i < nneed; i++)
		if (!LHAS(L, need[i])) {
			*why = "beam.smp's DWARF lacks the table's structures";
			return -1;
		}
	int r;
	if (status & DB_CA_ORDERED_SET) {
		r = catree_rows(&w, t->addr);
	} else if (status & DB_ORDERED_SET) {
		uint64_t root;
		if (beam_read_u64(b, t->addr + LV(L, DBT_ROOT), &root) < 0) {
			*why = "the ordered_set's root is unreadable";
			return -1;
		}
		r = tree_rows(&w, root);
	} else {
		r = hash_rows(&w, t->addr);
	}
	if (w.why)
		r = -1;
	*why = w.why;
	return r;
}
