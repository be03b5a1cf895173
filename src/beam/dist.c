/* The nodes a core's VM was connected to: its DistEntry lists (erl_node_tables.c
 * erts_visible/hidden/pending_dist_entries), each with its controller, state,
 * output queue and the links and monitors between its processes and ours (the
 * ErtsMonLnkDist lists that dist.c's crash dump prints per node). */
#include <string.h>

#include "monlnk.h"
#include "eterm.h"
#include "terms.h"
#include "walks.h"
#include "term.h"

/* enum dist_entry_state (erl_node_tables.h), unchanged from OTP 21 to 29 */
static const char *const states[] = { "idle", "pending", "connected", "exiting" };

/* More entries in one list than a VM has atoms for node names: corrupt. */
#define MAX_NODES (1u << 20)

struct counts {
	uint64_t links, monitors, monitored_by;
};

/* A dist-side node: the origin half when their process monitors ours. */
static int count(void *ctx, uint64_t node, const struct ml_node *n, int is_link)
{
	(void)node;
	struct counts *c = ctx;
	if (is_link)
		c->links++;
	else if (n->flags & MLF_TARGET)
		c->monitors++;
	else
		c->monitored_by++;
	return 0;
}

static void fill(struct beam *b, uint64_t de, const char *type, struct vm_node *n,
		 struct vt_arena *a)
{
	const struct layout *L = &b->L;
	uint64_t sysname, cid, qsize, mld;
	uint32_t state;
	n->type = type;
	n->addr = de;
	n->unknown = VNF_STATE | VNF_CREATION | VNF_CONNECTION_ID | VNF_OUTPUT_QUEUE | VNF_COUNTS;
	if (beam_read_u64(b, de + LV(L, DE_SYSNAME), &sysname) == 0) {
		const char *name = beam_atom(b, sysname);
		n->name = name ? vm_intern(b->vm, name, strlen(name)) : NULL;
		n->channel = atom_val(sysname);  /* dist_entry_channel_no */
	}
	if (beam_read_u64(b, de + LV(L, DE_CID), &cid) == 0 && cid != NIL) {
		char buf[64];
		static const struct vt_limits lim = { 1, 1, 0 };
		struct vt *t = beam_decode_term(b, a, cid, 1, 0);
		if (t && (t->kind == VT_PID || t->kind == VT_PORT)) {
			vt_print(t, &lim, buf, sizeof buf);
			n->controller = vm_intern(b->vm, buf, strlen(buf));
		}
	}
	if (beam_read_u32(b, de + LV(L, DE_STATE), &state) == 0 && state < 4) {
		n->state = states[state];
		n->unknown &= ~(uint32_t)VNF_STATE;
	}
	if (beam_read_u32(b, de + LV(L, DE_CREATION), &n->creation) == 0)
		n->unknown &= ~(uint32_t)VNF_CREATION;
	if (beam_read_u32(b, de + LV(L, DE_CONNECTION_ID), &n->connection_id) == 0)
		n->unknown &= ~(uint32_t)VNF_CONNECTION_ID;
	if (beam_read_u64(b, de + LV(L, DE_QSIZE), &qsize) == 0) {
		n->output_queue = qsize;
		n->unknown &= ~(uint32_t)VNF_OUTPUT_QUEUE;
	}
	if (beam_read_u64(b, de + LV(L, DE_MLD), &mld) < 0)
		return;
	struct counts c = { 0, 0, 0 };
	uint64_t links = 0, mons = 0, named = 0;
	if (mld && (b->ml_bad || beam_read_u64(b, mld + LV(L, MLD_LINKS), &links) < 0 ||
		    beam_read_u64(b, mld + LV(L, MLD_MONITORS), &mons) < 0 ||
		    beam_read_u64(b, mld + LV(L, MLD_ORIG_NAME_MONITORS), &named) < 0 ||
		    ml_walk(b, links, ML_LIST, 1, count, &c) < 0 ||
		    ml_walk(b, mons, ML_LIST, 0, count, &c) < 0 ||
		    ml_walk(b, named, ML_TREE, 0, count, &c) < 0))
		return;
	n->links = c.links;
	n->monitors = c.monitors;
	n->monitored_by = c.monitored_by;
	n->unknown &= ~(uint32_t)VNF_COUNTS;
}

bc_err *beam_load_nodes(struct beam *b)
{
	static const enum layout_id need[] = {
		G_VISIBLE_DIST, G_HIDDEN_DIST, G_PENDING_DIST, DE_NEXT, DE_SYSNAME, DE_CREATION,
		DE_CID, DE_CONNECTION_ID, DE_STATE, DE_QSIZE, DE_MLD, MLD_LINKS, MLD_MONITORS,
		MLD_ORIG_NAME_MONITORS,
	};
	static const struct { enum layout_id list; const char *type; } lists[] = {
		{ G_VISIBLE_DIST, "visible" }, { G_HIDDEN_DIST, "hidden" }, { G_PENDING_DIST, "pending" },
	};
	bc_err *err = layout_need(&b->L, need, sizeof need / sizeof need[0]);
	if (err)
		return err;
	struct vt_arena *a = vt_arena_new();
	if (!a)
		return bc_error(BC_ENOMEM, "out of memory");
	for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
		uint64_t de;
		if (beam_read_u64(b, beam_global(b, lists[i].list), &de) < 0) {
			vm_gap(b->vm, "the %s nodes: list head unreadable", lists[i].type);
			continue;
		}
		for (unsigned k = 0; de; k++) {
			if (k == MAX_NODES) {
				vm_gap(b->vm, "the %s nodes' list does not end: corrupt", lists[i].type);
				break;
			}
			struct vm_node *n = vm_add_node(b->vm);
			if (!n) {
				vt_arena_free(a);
				return bc_error(BC_ENOMEM, "out of memory");
			}
			fill(b, de, lists[i].type, n, a);
			if (n->unknown || !n->name)
				vm_gap(b->vm, "node %s (DistEntry at 0x%llx): some fields unreadable",
				       n->name ? n->name : "?", (unsigned long long)de);
			if (beam_read_u64(b, de + LV(&b->L, DE_NEXT), &de) < 0) {
				vm_gap(b->vm, "the %s nodes' list broken", lists[i].type);
				break;
			}
		}
	}
	vt_arena_free(a);
	return NULL;
}
