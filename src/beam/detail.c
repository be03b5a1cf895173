/* One process in full from a core: links, monitors, dictionary, the first
 * messages, and every frame of its stack with file:line. Terms are decoded into
 * trees (terms.c) with limits; all in one arena. */
#include <stdlib.h>
#include <string.h>

#include "code.h"
#include "eterm.h"
#include "monlnk.h"
#include "terms.h"
#include "termsize.h"
#include "walks.h"
#include "term.h"

struct items {
	struct beam *b;
	struct vm_proc_detail *d;
	const struct vm_detail_limits *lim;
	struct vt **v;
	size_t n, cap;
	unsigned char *call;       /* MLF_CALL of each, while walking (malloc) */
	const char **ref;          /* each monitor's reference, printed (malloc; arena strings) */
	size_t ccap;
};

/* {Name, Node} of a monitor by name, as process_info(P, monitors) shows it. */
static struct vt *named(struct items *it, uint64_t node)
{
	struct beam *b = it->b;
	const struct layout *L = &b->L;
	uint64_t md, name, dist, nodename;
	if (!LHAS(L, MDE_NAME) || !LHAS(L, MDE_DIST) || !LHAS(L, MLD_NODENAME))
		return NULL;
	if (ml_main_struct(b, node, &md) < 0 ||
	    beam_read_u64(b, md + LV(L, MDE_NAME), &name) < 0 ||
	    beam_read_u64(b, md + LV(L, MDE_DIST), &dist) < 0)
		return NULL;
	if (dist ? beam_read_u64(b, dist + LV(L, MLD_NODENAME), &nodename) < 0
		 : beam_read_u64(b, beam_global(b, G_THIS_NODE), &dist) < 0 ||
			   beam_read_u64(b, dist + LV(L, NODE_SYSNAME), &nodename) < 0)
		return NULL;
	struct vt *t = vt_new(it->d->arena, VT_TUPLE);
	if (!t || !(t->elems = vt_alloc(it->d->arena, 2 * sizeof *t->elems)))
		return NULL;
	t->n = 2;
	t->elems[0] = beam_decode_term(b, it->d->arena, name, 1, 0);
	t->elems[1] = beam_decode_term(b, it->d->arena, nodename, 1, 0);
	return t;
}

/* "#Ref<0.a.b.c>" of the monitor whose origin node is at node, or NULL. */
static const char *monitor_ref(struct beam *b, struct vm_proc_detail *d, uint64_t node)
{
	const struct layout *L = &b->L;
	uint64_t md, ref;
	if (!LHAS(L, MD_REF) || ml_main_struct(b, node, &md) < 0 ||
	    beam_read_u64(b, md + LV(L, MD_REF), &ref) < 0)
		return NULL;
	struct vt *t = beam_decode_term(b, d->arena, ref, 1, 0);
	return t && t->kind == VT_REF ? t->text : NULL;
}

/* The other end of each link, or of each monitor process_info lists. */
static int item(void *ctx, uint64_t node, const struct ml_node *n, int is_link)
{
	struct items *it = ctx;
	if (!is_link && !ml_listed_monitor(n))
		return 0;
	if (!(it->v = vt_grow(it->d->arena, it->v, it->n, &it->cap)))
		return -1;
	struct vt *t = (n->flags & MLF_NAME) ? named(it, node) : NULL;
	size_t cap = it->ccap;  /* both arrays': set once both have grown */
	unsigned char *c = grow(it->call, &cap, it->n, 1, 16);
	if (c)
		it->call = c;
	const char **r = c ? grow(it->ref, &it->ccap, it->n, sizeof *r, 16) : NULL;
	if (!r)
		return -1;
	it->ref = r;
	it->call[it->n] = (n->flags & MLF_CALL) != 0;
	it->ref[it->n] = is_link ? NULL : monitor_ref(it->b, it->d, node);
	it->v[it->n++] = t ? t : beam_decode_term(it->b, it->d->arena, n->other, it->lim->items,
						   it->lim->bytes);
	return 0;
}

/* A local call without a timeout (gen:do_call/4 with infinity) monitors with no
 * alias: of several monitors, the call's is the one whose reference the
 * waiting frame (the top of the stack, up to its return address) holds. */
static void call_by_stack(struct beam *b, struct vm_proc_detail *d, uint64_t p, const char **ref,
			  size_t n)
{
	const struct layout *L = &b->L;
	uint64_t stop, hend;
	if (beam_read_u64(b, p + LV(L, P_STOP), &stop) < 0 ||
	    beam_read_u64(b, p + LV(L, P_HEND), &hend) < 0 || hend < stop)
		return;
	for (uint64_t a = stop, k = 0; a < hend && k < 64; a += 8, k++) {
		uint64_t w;
		if (beam_read_u64(b, a, &w) < 0 || eterm_tag_kind(w) == EK_CP)
			return;  /* unreadable, or the frame's return address: its end */
		if (!is_boxed(w))
			continue;  /* only boxed terms can be references */
		struct vt *t = beam_decode_term(b, d->arena, w, 1, 0);
		if (!t || t->kind != VT_REF || !t->text)
			continue;
		for (size_t i = 0; i < n; i++)
			if (ref[i] && strcmp(ref[i], t->text) == 0)
				d->monitor_call[i] = 1;
	}
}

static void tree_items(struct beam *b, struct vm_proc_detail *d, uint64_t root, int is_link,
		       const struct vm_detail_limits *lim, struct vt ***out, size_t *n,
		       uint64_t pid_addr)
{
	struct items it = { b, d, lim, NULL, 0, 0, NULL, NULL, 0 };
	if (b->ml_bad || ml_walk(b, root, ML_TREE, is_link, item, &it) < 0)
		d->unreadable = is_link ? "a link" : "a monitor";
	*out = it.v;
	*n = it.n;
	if (!is_link && (d->monitor_call = vt_alloc(d->arena, it.n + 1))) {
		memcpy(d->monitor_call, it.call ? it.call : (unsigned char *)"", it.n);
		if (it.n > 1)
			call_by_stack(b, d, pid_addr, it.ref, it.n);
	}
	free(it.call);
	free(it.ref);
}

/* ProcDict data[]: NIL, a {Key, Value} tuple, or a list of them (erl_process_dict.c). */
static void dictionary(struct beam *b, struct vm_proc_detail *d, uint64_t dict,
		       const struct vm_detail_limits *lim)
{
	const struct layout *L = &b->L;
	uint32_t used;
	if (!dict)
		return;
	if (beam_read_u32(b, dict + LV(L, PD_USED_SLOTS), &used) < 0 || used > (1u << 26)) {
		d->unreadable = "the dictionary";
		return;
	}
	/* (a slot holds at most 64 pairs below: not the limit's million for each process) */
	size_t cap = ((size_t)used * 64 < lim->dict ? (size_t)used * 64 : lim->dict) + 1;
	d->dict_keys = vt_alloc(d->arena, cap * sizeof *d->dict_keys);
	d->dict_values = vt_alloc(d->arena, cap * sizeof *d->dict_values);
	if (!d->dict_keys || !d->dict_values)
		return;
	for (uint32_t i = 0; i < used && d->ndict < lim->dict; i++) {
		uint64_t slot;
		if (beam_read_u64(b, dict + LV(L, PD_DATA) + 8 * i, &slot) < 0) {
			d->unreadable = "the dictionary";
			return;
		}
		uint64_t pairs[64];
		int np = 0;
		if (is_boxed(slot)) {
			pairs[np++] = slot;
		} else {
			while (is_list(slot) && np < 64) {  /* a list of {K,V} */
				uint64_t cell[2];
				if (core_peek(b->core, slot & ~(uint64_t)_TAG_PRIMARY_MASK, cell, 16) < 0)
					break;
				pairs[np++] = cell[0];
				slot = cell[1];
			}
		}
		for (int k = 0; k < np && d->ndict < lim->dict; k++) {
			uint64_t kv[2];
			if (core_peek(b->core, (pairs[k] & ~(uint64_t)3) + 8, kv, 16) < 0)
				continue;
			d->dict_keys[d->ndict] = beam_decode_term(b, d->arena, kv[0], lim->items, lim->bytes);
			d->dict_values[d->ndict++] = beam_decode_term(b, d->arena, kv[1], lim->items,
								      lim->bytes);
		}
	}
}

static void messages(struct beam *b, struct vm_proc_detail *d, uint64_t p,
		     const struct vm_detail_limits *lim)
{
	const struct layout *L = &b->L;
	static const enum layout_id queues[] = { P_SIGQ_FIRST, P_SIGQ_CONT, P_SIGINQ_FIRST };
	size_t cap = 0;  /* grown: a JSON proc allows 64M messages, most queues hold few */
	if (!(d->messages = vt_grow(d->arena, NULL, 0, &cap)))
		return;
	for (size_t q = 0; q < 3 && d->nmessages < lim->messages; q++) {
		uint64_t mp;
		if (beam_read_u64(b, p + LV(L, queues[q]), &mp) < 0)
			continue;
		for (unsigned n = 0; mp && n < (1u << 26) && d->nmessages < lim->messages; n++) {
			uint64_t m0, next;
			if (beam_read_u64(b, mp + LV(L, MSG_M), &m0) < 0 ||
			    beam_read_u64(b, mp + LV(L, MSG_NEXT), &next) < 0) {
				d->unreadable = "the message queue";
				return;
			}
			if (!is_signal_tag(m0)) {
				if (!(d->messages = vt_grow(d->arena, d->messages, d->nmessages, &cap))) {
					d->nmessages = 0;
					return;
				}
				d->messages[d->nmessages++] =
					beam_decode_term(b, d->arena, m0, lim->items, lim->bytes);
			}
			mp = next;
		}
	}
}

/* One frame at code address pc, with file:line; -1 when the limit is reached. */
static int add_frame(struct beam *b, struct vm_proc_detail *d, uint64_t pc,
		     const struct vm_detail_limits *lim)
{
	struct vm_mfa mfa;
	struct vm_loc loc = { 0, 0, 0 };
	if (beam_lookup_code_loc(b, pc, &mfa, &loc) < 0)
		return 0;  /* beam_normal_exit and the like */
	if (d->nframes == lim->frames) {
		d->frames_cut = true;
		return -1;
	}
	char buf[512];
	struct vm_frame_loc *f = &d->frames[d->nframes++];
	f->function = vm_mfa_str(&mfa, buf, sizeof buf) ? vt_strdup(d->arena, buf, strlen(buf)) : "?";
	f->line = loc.line;
	if (loc.line) {
		struct vt *file = beam_decode_term(b, d->arena, loc.file_term, 512, 0);
		if (file && file->kind == VT_LIST) {
			char name[513];
			size_t n = 0;
			for (; n < file->n && n < 512 && file->elems[n]->kind == VT_INT; n++)
				name[n] = (char)file->elems[n]->i;
			f->file = vt_strdup(d->arena, name, n);
		}
	}
	return 0;
}

/* Where the process is, then every code address on its stack (as
 * erlang:process_display(P, backtrace) lists them), innermost first. */
static void frames(struct beam *b, struct vm_proc_detail *d, uint64_t p, int running,
		   const struct vm_detail_limits *lim)
{
	const struct layout *L = &b->L;
	uint64_t stop, hend, i;
	if (beam_read_u64(b, p + LV(L, P_STOP), &stop) < 0 ||
	    beam_read_u64(b, p + LV(L, P_HEND), &hend) < 0 ||
	    beam_read_u64(b, p + LV(L, P_I), &i) < 0 || hend < stop)
		return;
	/* at most a frame per stack word and where it waits: not the limit for each process */
	uint64_t most = (hend - stop) / 8 + 1;
	d->frames = vt_alloc(d->arena, ((most < lim->frames ? most : lim->frames) + 1) *
				       sizeof *d->frames);
	if (!d->frames)
		return;
	uint32_t layout = 0;
	if (LHAS(L, G_FRAME_LAYOUT))
		beam_read_u32(b, beam_global(b, G_FRAME_LAYOUT), &layout);
	int jit = b->vm->jit;
	/* where it waits (not for the running process: p->i is stale there) */
	if (i && !running)
		add_frame(b, d, i, lim);
	for (uint64_t a = stop; a < hend; a += 8) {
		uint64_t w, ra;
		if (beam_read_u64(b, a, &w) < 0) {
			d->unreadable = "the stack";
			return;
		}
		if (!is_CP(w))
			continue;
		ra = w;
		if (layout == 1) {  /* [saved FP, return address] */
			if (a + 8 >= hend || beam_read_u64(b, a + 8, &ra) < 0)
				break;
			a += 8;
		}
		if (add_frame(b, d, jit ? ra - 1 : ra - 8, lim) < 0)
			return;
	}
}

static int detail(void *loader, const struct vm_proc *vp, const struct vm_detail_limits *lim,
		  struct vm_proc_detail *d)
{
	struct beam *b = loader;
	const struct layout *L = &b->L;
	memset(d, 0, sizeof *d);
	if (!(d->arena = vt_arena_new()))
		return -1;
	uint64_t links, monitors, dict;
	if (beam_read_u64(b, vp->addr + LV(L, P_LINKS), &links) < 0 ||
	    beam_read_u64(b, vp->addr + LV(L, P_MONITORS), &monitors) < 0 ||
	    beam_read_u64(b, vp->addr + LV(L, P_DICTIONARY), &dict) < 0) {
		d->unreadable = "struct process";
		d->no_largest = d->no_shapes = true;  /* unknown, not none */
		return 0;
	}
	if (vp->status != VS_EXITING && vp->status != VS_FREE) {
		tree_items(b, d, links, 1, lim, &d->links, &d->nlinks, vp->addr);
		tree_items(b, d, monitors, 0, lim, &d->monitors, &d->nmonitors, vp->addr);
	}
	dictionary(b, d, dict, lim);
	messages(b, d, vp->addr, lim);
	frames(b, d, vp->addr, vp->status == VS_RUNNING, lim);
	if (lim->largest)
		beam_term_roots(b, vp, dict, lim->largest, d);
	return 0;
}

/* vm->binary_bytes: a Binary's first bytes (its orig_bytes) */
static int binary_bytes(void *loader, uint64_t bin, void *buf, size_t n)
{
	struct beam *b = loader;
	if (!LHAS(&b->L, BIN_ORIG_BYTES))
		return -1;
	return core_peek(b->core, bin + LV(&b->L, BIN_ORIG_BYTES), buf, n);
}

/* vm->binary_alloc_type: by its flags (erl_binary.h BIN_FLAG_DRV 8, in
 * every release since R13: erts_bin_drv_alloc's binaries) */
static const char *binary_alloc_type(void *loader, uint64_t bin)
{
	struct beam *b = loader;
	uint64_t flags;
	if (!LHAS(&b->L, BIN_FLAGS) || beam_read_u64(b, bin + LV(&b->L, BIN_FLAGS), &flags) < 0)
		return NULL;
	return flags & 8 ? "drv_binary" : "binary";
}

void beam_enable_detail(struct beam *b)
{
	b->vm->detail = detail;
	b->vm->binary_bytes = binary_bytes;
	b->vm->binary_alloc_type = binary_alloc_type;
	b->vm->term = beam_term_view;
	b->vm->ets_rows = beam_ets_rows_view;
	b->vm->loader = b;
}
