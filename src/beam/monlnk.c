/* Links and monitors of a core: both layouts of ErtsMonLnkNode, sizes and the
 * process_info/2 listing rules (erl_monitor_link.c, erl_bif_info.c). */
#include "monlnk.h"
#include "eterm.h"

#include <string.h>

#include "read.h"
#include "addrset.h"

/* Up to OTP 27 a node has `Uint16 flags; Uint16 type;`; OTP 28 folded the type
 * into the low 5 bits of `Uint32 flags` and moved the flag bits up past it and
 * two alias-state bits. The bit numbers are macros, not in the DWARF: this
 * table is the one place they live, picked by the members the DWARF has. */
static const struct ml_bits {
	uint32_t type_mask;        /* 0: the type is its own member */
	uint32_t target, name, extended, spawn_pending;
	uint32_t max_type;
	uint32_t alias_mask, alias_demonitor;  /* ERTS_ML_STATE_ALIAS_{MASK,DEMONITOR} */
} split = { 0, 1u << 0, 1u << 3, 1u << 4, 1u << 5, ML_LNK_DIST_PROC, 3u << 11, 2u << 11 },
  packed = { 0x1f, 1u << 7, 1u << 10, 1u << 11, 1u << 12, ML_LNK_DIST_PORT, 3u << 5, 2u << 5 };

static const struct ml_bits *bits(const struct beam *b)
{
	return b->ml_packed ? &packed : &split;
}

const char *ml_layout(struct beam *b)
{
	const struct layout *L = &b->L;
	if (!LHAS(L, ML_FLAGS) || !LHAS(L, ML_OFFSET) || !LHAS(L, ML_OTHER))
		return "ErtsMonLnkNode lacks 'flags', 'offset' or 'other' in this beam.smp's DWARF";
	uint64_t fsz = L->e[ML_FLAGS].size;
	if (LHAS(L, ML_TYPE) && fsz == 2 && L->e[ML_TYPE].size == 2) {
		b->ml_packed = 0;
		return NULL;
	}
	if (!LHAS(L, ML_TYPE) && fsz == 4) {
		b->ml_packed = 1;
		return NULL;
	}
	return "ErtsMonLnkNode's 'flags'/'type' members have a layout beamcore does not know "
	       "(link, monitor and memory figures unknown; this node's erl_crash.dump still reads)";
}

int ml_read(struct beam *b, uint64_t node, struct ml_node *out)
{
	const struct layout *L = &b->L;
	const struct ml_bits *k = bits(b);
	uint64_t raw, type;
	if (beam_read_u64(b, node + LV(L, ML_OTHER), &out->other) < 0 ||
	    beam_read_field(b, node, ML_FLAGS, &raw) < 0)
		return -1;
	if (b->ml_packed)
		type = raw & k->type_mask;
	else if (beam_read_field(b, node, ML_TYPE, &type) < 0)
		return -1;
	out->type = (uint32_t)type;
	if (type > k->max_type)
		return -1;  /* not a node of this layout: corrupt */
	out->flags = ((raw & k->target) ? MLF_TARGET : 0) | ((raw & k->name) ? MLF_NAME : 0) |
		     ((raw & k->extended) ? MLF_EXTENDED : 0) |
		     ((raw & k->spawn_pending) ? MLF_SPAWN_PENDING : 0) |
		     ((raw & k->alias_mask) == k->alias_demonitor ? MLF_CALL : 0);
	return 0;
}

int ml_nc_heap_size(struct beam *b, uint64_t term, uint64_t *words)
{
	uint64_t hdr;
	*words = 0;
	if (!is_boxed(term))
		return 0;  /* immediate (a local pid, port or atom) */
	if (beam_read_u64(b, term & ~(uint64_t)_TAG_PRIMARY_MASK, &hdr) < 0)
		return -1;
	*words = (hdr >> _HEADER_ARITY_OFFS) + 1;
	return 0;
}

int ml_main_struct(struct beam *b, uint64_t node, uint64_t *out)
{
	uint64_t off;
	if (beam_read_field(b, node, ML_OFFSET, &off) < 0)
		return -1;
	*out = node - off;
	return 0;
}

static int link_size(struct beam *b, uint64_t node, const struct ml_node *n, uint64_t *size)
{
	const struct layout *L = &b->L;
	if (!(n->flags & MLF_EXTENDED)) {
		*size = LV(L, S_LINK);
		return 0;
	}
	/* ErtsELink: both halves share it; the remote pid or port lives in heap[] */
	uint64_t elnk, hdr;
	uint32_t refc;
	if (ml_main_struct(b, node, &elnk) < 0 ||
	    beam_read_u64(b, elnk + LV(L, ELINK_HEAP), &hdr) < 0 ||
	    beam_read_u32(b, elnk + LV(L, ELINK_REFC), &refc) < 0 || refc == 0)
		return -1;
	*size = (LV(L, S_ELINK) + (hdr >> _HEADER_ARITY_OFFS) * 8) / refc;
	return 0;
}

static int monitor_size(struct beam *b, uint64_t node, const struct ml_node *n, uint64_t *size)
{
	const struct layout *L = &b->L;
	uint64_t md;
	uint32_t refc;
	struct ml_node origin;
	if (ml_main_struct(b, node, &md) < 0 || ml_read(b, md + LV(L, MD_ORIGIN), &origin) < 0 ||
	    beam_read_u32(b, md + LV(L, MD_REFC), &refc) < 0 || refc == 0)
		return -1;
	uint64_t sz;
	if (origin.type == ML_MON_ALIAS)
		sz = LV(L, S_MONITOR_DATA);
	else if (origin.type == ML_MON_SUSPEND)
		sz = LV(L, S_MONITOR_SUSPEND);
	else if (!(n->flags & MLF_EXTENDED))
		sz = LV(L, S_MONITOR_DATA_HEAP);
	else {
		uint64_t hsz = 0, w, ref, target_other;
		if (n->type != ML_MON_NODE && n->type != ML_MON_NODES) {
			if (beam_read_u64(b, md + LV(L, MD_REF), &ref) < 0 ||
			    ml_nc_heap_size(b, ref, &w) < 0)
				return -1;
			hsz += w;
			if (n->type == ML_MON_DIST_PROC || n->type == ML_MON_DIST_PORT) {
				if (beam_read_u64(b, md + LV(L, MD_TARGET) + LV(L, ML_OTHER),
						  &target_other) < 0)
					return -1;
				uint64_t w1, w2;
				if (ml_nc_heap_size(b, origin.other, &w1) < 0 ||
				    ml_nc_heap_size(b, target_other, &w2) < 0)
					return -1;
				hsz += w1 + w2;
			}
		}
		sz = LV(L, S_MONITOR_DATA_EXT) - 8 + hsz * 8;  /* heap[1] counted in hsz */
	}
	*size = sz / refc;
	return 0;
}

int ml_size(struct beam *b, uint64_t node, const struct ml_node *n, int is_link, uint64_t *size)
{
	return is_link ? link_size(b, node, n, size) : monitor_size(b, node, n, size);
}

/* collect_one_origin_monitor: active monitors of processes, ports and time
 * offset, by pid or by name (not node monitors, aliases, suspends, resources). */
int ml_listed_monitor(const struct ml_node *n)
{
	if (n->flags & (MLF_TARGET | MLF_SPAWN_PENDING))
		return 0;
	return n->type <= ML_MON_DIST_PORT;
}

/* collect_one_target_monitor: suspend monitors are not monitors to process_info. */
int ml_listed_monitored_by(const struct ml_node *n)
{
	if (!(n->flags & MLF_TARGET))
		return 0;
	switch (n->type) {
	case ML_MON_PROC: case ML_MON_PORT: case ML_MON_DIST_PROC: case ML_MON_DIST_PORT:
	case ML_MON_RESOURCE:
		return 1;
	}
	return 0;
}

/* A red-black tree is at most 2*log2(n) deep: 128 levels hold any real one. */
#define TREE_DEPTH 128
/* More nodes than any process has links or monitors: corrupt. */
#define WALK_LIMIT (1u << 26)
#define SEEN_AFTER 64

int ml_walk(struct beam *b, uint64_t root, enum ml_shape shape, int is_link, ml_visit *visit,
	    void *ctx)
{
	const struct layout *L = &b->L;
	uint64_t stack[TREE_DEPTH];
	int sp = 0;
	unsigned n = 0;
	struct ml_node mn;
	if (shape == ML_LIST) {
		struct cycle cy = CYCLE_INIT;  /* (a cycle that misses the root) */
		for (uint64_t node = root; node;) {
			if (++n > WALK_LIMIT || cycle_seen(&cy, node) || ml_read(b, node, &mn) < 0 ||
			    visit(ctx, node, &mn, is_link) < 0 ||
			    beam_read_u64(b, node + LV(L, ML_NEXT), &node) < 0)
				return -1;
			if (node == root)
				break;
		}
		return 0;
	}
	if (root)
		stack[sp++] = root;
	/* past SEEN_AFTER nodes (more than most processes have), each node is
	 * checked against those met: a node below itself or under two parents
	 * (a corrupt core) fails the walk instead of visiting it again and again */
	struct addrset seen = { 0 };
	int rc = 0;
	while (sp && !rc) {
		uint64_t node = stack[--sp], l, r;
		if (++n > WALK_LIMIT || (n > SEEN_AFTER && addrset_add(&seen, node) != 1) ||
		    ml_read(b, node, &mn) < 0 || visit(ctx, node, &mn, is_link) < 0 ||
		    beam_read_u64(b, node + LV(L, ML_LEFT), &l) < 0 ||
		    beam_read_u64(b, node + LV(L, ML_RIGHT), &r) < 0 || sp + 2 > TREE_DEPTH) {
			rc = -1;
			break;
		}
		if (l)
			stack[sp++] = l;
		if (r)
			stack[sp++] = r;
	}
	if (n > SEEN_AFTER)  /* (a million small trees: no free calls for nothing) */
		addrset_free(&seen);
	return rc;
}
