/* beamcore proc --term on a core: a process's terms as termpath.h asks for
 * them (a term is its tagged word): the roots beam_each_root walks, the
 * elements of tuples, lists and maps, flat sizes and shapes from termsize.c,
 * the tree from terms.c. */
#include <stdlib.h>
#include <string.h>

#include "eterm.h"
#include "termpath.h"
#include "terms.h"
#include "termsize.h"
#include "walks.h"

#define MAX_SPINE (1ull << 28)  /* list cells counted; more: a cycle or corruption */

struct tctx {
	struct beam *b;
	const struct vm_proc *vp;
	struct tw w;
	uint64_t budget;            /* a flat size walk's words */
};

struct roots_arg {
	struct tctx *t;
	tp_visit visit;
	void *arg;
};

static int root(void *arg, int kind, uint64_t idx, uint64_t term, uint64_t aux)
{
	struct roots_arg *r = arg;
	char fn[512];
	const char *text = kind == ROOT_STACK ? beam_frame_function(r->t->b, r->t->vp, aux, fn, sizeof fn)
					      : NULL;
	return r->visit(r->arg, kind, idx, text, kind == ROOT_DICT ? aux : 0, term);
}

static void roots(void *ctx, tp_visit visit, void *arg)
{
	struct tctx *t = ctx;
	uint64_t dict;
	bool cut = false;
	struct roots_arg r = { t, visit, arg };
	if (beam_read_u64(t->b, t->vp->addr + LV(&t->b->L, P_DICTIONARY), &dict) < 0)
		dict = 0;
	beam_each_root(t->b, t->vp, dict, root, &r, &cut);
}

struct picker {
	uint64_t i, from, total;
	size_t max, *n;
	struct tp_kid *out;
};

static void pick(struct picker *p, uint64_t key, uint64_t value)
{
	if (p->i >= p->from && *p->n < p->max)
		p->out[(*p->n)++] = (struct tp_kid){ key, value };
	p->i++;
}

/* A HAMT's leaves ([K|V] cells) in iteration order (erl_map.c). */
static void hamt(struct tctx *t, uint64_t node, struct picker *p, int depth)
{
	struct eterm o;
	if (depth > 16 || eterm_look(&t->w.c, node, &o) < 0)
		return;
	for (uint64_t i = 0; i < o.n && *p->n < p->max; i++) {
		uint64_t c, kv[2];
		if (eterm_word(&t->w.c, o.at + 8 * i, &c) < 0)
			return;
		if (is_list(c) && core_peek(t->b->core, eterm_addr(&t->w.c, c), kv, 16) == 0)
			pick(p, kv[0], kv[1]);
		else if (is_boxed(c))
			hamt(t, c, p, depth + 1);
	}
}

static enum vt_kind elems(void *ctx, uint64_t term, uint64_t from, size_t max, struct tp_kid *out,
			  size_t *n, uint64_t *total, bool *cut)
{
	struct tctx *t = ctx;
	struct eterm o;
	struct picker p = { 0, from, 0, max, n, out };
	uint64_t v, keys, size;
	*n = 0;
	*total = 0;
	*cut = false;
	if (is_list(term)) {
		uint64_t cell[2] = { 0, term };
		while (is_list(cell[1]) && p.i < MAX_SPINE && p.i < t->budget &&
		       core_peek(t->b->core, eterm_addr(&t->w.c, cell[1]), cell, 16) == 0)
			pick(&p, 0, cell[0]);
		*total = p.i;
		*cut = is_list(cell[1]);  /* unreadable, or past the bound; an improper tail is read */
		return VT_LIST;
	}
	if (!is_boxed(term) || eterm_look(&t->w.c, term, &o) < 0)
		return VT_OTHER;
	switch (o.kind) {
	case EK_TUPLE:
		*total = o.n;
		for (uint64_t i = from; i < o.n && *n < max; i++)
			if (eterm_word(&t->w.c, o.at + 8 * i, &v) == 0)
				out[(*n)++] = (struct tp_kid){ 0, v };
		return VT_TUPLE;
	case EK_FLATMAP:  /* the keys tuple, then the values */
		if (eterm_word(&t->w.c, eterm_map_size_at(&t->w.c, &o), &size) < 0 ||
		    eterm_word(&t->w.c, o.at, &keys) < 0)
			return VT_OTHER;
		*total = size;
		for (uint64_t i = from; i < size && *n < max; i++) {
			uint64_t k;
			if (eterm_word(&t->w.c, eterm_addr(&t->w.c, keys) + 8 * (i + 1), &k) < 0 ||
			    eterm_word(&t->w.c, o.at + 8 * (i + 1), &v) < 0)
				break;
			out[(*n)++] = (struct tp_kid){ k, v };
		}
		return VT_MAP;
	case EK_HAMT_HEAD: case EK_HAMT_NODE:
		if (o.kind == EK_HAMT_HEAD &&
		    eterm_word(&t->w.c, eterm_map_size_at(&t->w.c, &o), total) < 0)
			return VT_OTHER;
		hamt(t, term, &p, 0);
		if (o.kind == EK_HAMT_NODE)
			*total = p.i;
		return VT_MAP;
	default:
		return VT_OTHER;
	}
}

static uint64_t flat_size(void *ctx, uint64_t term, bool *cut)
{
	struct tctx *t = ctx;
	t->w.budget = t->budget;
	t->w.cut = false;
	uint64_t s = beam_flat_size(&t->w, term);
	*cut = t->w.cut;
	return s;
}

static void shape(void *ctx, uint64_t term, char *buf, size_t len)
{
	struct tctx *t = ctx;
	t->w.budget = t->budget;
	beam_shape_text(&t->w, term, buf, len);
}

static struct vt *decode(void *ctx, struct vt_arena *a, uint64_t term, size_t items, size_t bytes)
{
	return beam_decode_term(((struct tctx *)ctx)->b, a, term, items, bytes);
}

int beam_term_view(void *loader, const struct vm_proc *vp, const char *path, size_t max,
		   struct vm_term_view *out)
{
	struct tctx t = { .b = loader, .vp = vp };
	t.w.b = t.b;
	eterm_init(&t.w.c, t.b);
	/* as largest_terms bounds one root's walk: twice the heap, and a little */
	uint64_t heap = vp->unknown & VPF_TOTAL_HEAP_SIZE ? (1ull << 28) : vp->total_heap_size;
	t.budget = 2 * heap + (1u << 20);
	struct tp_src s = { &t, roots, elems, flat_size, shape, decode };
	int rc = tp_walk(&s, path, max, out);
	free(t.w.st);
	return rc;
}
