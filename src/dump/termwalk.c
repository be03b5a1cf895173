/* beamcore proc --term on a crash dump: a process's terms as termpath.h asks
 * for them, a term being the text of its element (H<addr>, I<int>, A..., in
 * a =proc_stack, =proc_dictionary, =proc_messages or =proc_heap line): the
 * roots dump_each_root walks, the elements of tuples, lists and maps from
 * the heap lines, flat sizes and shapes from termsize.c, trees from terms.c. */
#include <stdlib.h>
#include <string.h>

#include "heap.h"
#include "internal.h"
#include "loads.h"
#include "needs.h"
#include "termpath.h"

#define MAX_SPINE (1ull << 28)  /* list cells counted; more: a cycle */

struct tctx {
	struct heap *h;
	const struct vm_proc *vp;
	const char *pid;
	struct dw w;
	uint64_t budget;            /* a flat size walk's words */
};

static const char *at(uint64_t term) { return (const char *)(uintptr_t)term; }
static uint64_t term_of(const char *p) { return (uint64_t)(uintptr_t)p; }

/* The end of the line an element lies in. */
static const char *line_end(struct tctx *t, const char *p)
{
	const char *fin = t->h->d->map + t->h->d->end;
	const char *nl = memchr(p, '\n', (size_t)(fin - p));
	return nl ? nl : fin;
}

struct roots_arg {
	struct tctx *t;
	tp_visit visit;
	void *arg;
};

static int root(void *arg, int kind, uint64_t idx, const char *p, const char *end, const char *aux)
{
	struct roots_arg *r = arg;
	char fn[512];
	const char *text = kind == ROOT_STACK
			   ? dump_frame_function(aux, line_end(r->t, aux ? aux : end), r->t->vp, fn, sizeof fn)
			   : NULL;
	(void)end;
	return r->visit(r->arg, kind, idx, text, kind == ROOT_DICT ? term_of(aux) : 0, term_of(p));
}

static void roots(void *ctx, tp_visit visit, void *arg)
{
	struct tctx *t = ctx;
	struct roots_arg r = { t, visit, arg };
	dump_each_root(t->h, t->pid, root, &r);
}

struct picker {
	uint64_t i, from;
	size_t max, *n;
	struct tp_kid *out;
};

static void pick(struct picker *p, const char *key, const char *value)
{
	if (p->i >= p->from && *p->n < p->max)
		p->out[(*p->n)++] = (struct tp_kid){ key ? term_of(key) : 0, term_of(value) };
	p->i++;
}

/* The line an element H<addr> names, or NULL. */
static const struct heap_line *line_of(struct tctx *t, const char *p, const char *end)
{
	uint64_t addr = 0;
	return heap_skip(&p, end, &addr) == 'H' ? heap_line_at(t->h, addr) : NULL;
}

/* A HAMT's entries "H<addr>,..." from p: leaves are [K|V] cells, others nodes
 * ("Mn<n>:<entries>"), in iteration order. */
static void hamt(struct tctx *t, const char *p, const char *end, struct picker *pk, int depth)
{
	p += p < end && *p == ':';
	while (p < end && *p == 'H' && *pk->n < pk->max && depth < 32) {
		const struct heap_line *l = line_of(t, p, end);
		uint64_t addr;
		heap_skip(&p, end, &addr);
		heap_sep(&p, end);
		if (!l || l->body >= l->end)
			continue;
		const char *q = l->body + 1;
		if (l->body[0] == 'l') {
			const char *k = q;
			heap_skip(&q, l->end, &addr);
			heap_sep(&q, l->end);
			pick(pk, k, q);
		} else if (l->body[0] == 'M' && q < l->end && *q == 'n') {
			q++;
			heap_hex(&q, l->end);
			hamt(t, q, l->end, pk, depth + 1);
		}
	}
}

static enum vt_kind elems(void *ctx, uint64_t term, uint64_t from, size_t max, struct tp_kid *out,
			  size_t *n, uint64_t *total, bool *cut)
{
	struct tctx *t = ctx;
	const char *p = at(term);
	const struct heap_line *l = line_of(t, p, line_end(t, p));
	struct picker pk = { 0, from, max, n, out };
	uint64_t addr, size;
	*n = 0;
	*total = 0;
	*cut = false;
	if (!l || l->body >= l->end)
		return VT_OTHER;
	const char *q = l->body + 1, *e = l->end;
	switch (l->body[0]) {
	case 'l':  /* l<head>|<tail>: the tail another cell, [] (N) or improper */
		for (;;) {
			pick(&pk, NULL, q);
			heap_skip(&q, e, &addr);
			heap_sep(&q, e);
			if (q >= e || *q != 'H')
				break;  /* [] or an improper tail */
			const struct heap_line *nx = line_of(t, q, e);
			if (!nx || pk.i >= MAX_SPINE || pk.i >= t->budget) {
				*cut = true;  /* not dumped, or past the bound */
				break;
			}
			if (nx->body >= nx->end || nx->body[0] != 'l')
				break;  /* an improper tail */
			q = nx->body + 1;
			e = nx->end;
		}
		*total = pk.i;
		return VT_LIST;
	case 't': {
		*total = heap_tuple_at(l, &q);
		if (heap_overlong(*total, q, e)) {
			*total = 0;
			*cut = true;
			return VT_OTHER;
		}
		for (uint64_t i = 0; i < *total && q < e; i++) {
			pick(&pk, NULL, q);
			heap_skip(&q, e, &addr);
			heap_sep(&q, e);
		}
		return VT_TUPLE;
	}
	case 'M':
		if (q >= e)
			return VT_OTHER;
		if (*q == 'f') {  /* Mf<n>:<keys tuple>:<v>,... */
			q++;
			size = heap_hex(&q, e);
			q += q < e && *q == ':';
			const struct heap_line *kl = line_of(t, q, e);
			const char *k = NULL;
			if (!kl || kl->body >= kl->end || kl->body[0] != 't' || heap_tuple_at(kl, &k) != size)
				return VT_OTHER;
			heap_skip(&q, e, &addr);
			q += q < e && *q == ':';
			for (uint64_t i = 0; i < size && q < e; i++) {
				pick(&pk, k, q);
				heap_skip(&k, kl->end, &addr);
				heap_sep(&k, kl->end);
				heap_skip(&q, e, &addr);
				heap_sep(&q, e);
			}
			*total = size;
			return VT_MAP;
		}
		if (*q == 'h') {  /* Mh<size>:<n>:<entries> */
			q++;
			*total = heap_hex(&q, e);
			q += q < e && *q == ':';
			heap_hex(&q, e);
			hamt(t, q, e, &pk, 0);
			return VT_MAP;
		}
		return VT_OTHER;
	default:
		return VT_OTHER;
	}
}

/* A walk of term's words made ready (its bound anew): the end of its line. */
static const char *ready(struct tctx *t, uint64_t term)
{
	t->w.budget = t->budget;
	t->w.cut = false;
	return line_end(t, at(term));
}

static uint64_t flat_size(void *ctx, uint64_t term, bool *cut)
{
	struct tctx *t = ctx;
	uint64_t words = dump_flat_size(&t->w, at(term), ready(t, term));
	*cut = t->w.cut;
	return words;
}

static void shape(void *ctx, uint64_t term, char *buf, size_t len)
{
	dump_shape_text(&((struct tctx *)ctx)->w, at(term), ready(ctx, term), buf, len);
}

static struct vt *decode(void *ctx, struct vt_arena *a, uint64_t term, size_t items, size_t bytes)
{
	struct tctx *t = ctx;
	struct heap *h = t->h;
	const char *p = at(term);
	struct vt_arena *was = h->a;
	h->a = a;
	h->budget = 20000;
	h->items = items;
	h->bytes = bytes;
	struct vt *v = heap_element(h, &p, line_end(t, p), 0);
	h->a = was;
	return v;
}

int dump_term_view(void *loader, const struct vm_proc *vp, const char *path, size_t max,
		   struct vm_term_view *out)
{
	struct dump *d = loader;
	char pid[32];
	const char *hs, *he;
	vm_pid_str(vp, pid, sizeof pid);
	struct vt_arena *a = vt_arena_new();
	struct heap h = { .d = d, .a = a };
	if (!a || (heap_section(d, "=proc_heap:", pid, &hs, &he) == 0 &&
		   heap_index(hs, he, &h.lines) < 0)) {
		vt_arena_free(a);
		return -1;
	}
	if (!(d->loaded & NEED_NODES) && !dump_load_nodes(d))  /* names of the nodes' pids */
		d->loaded |= NEED_NODES;
	struct tctx t = { .h = &h, .vp = vp, .pid = pid };
	t.w.h = &h;
	t.w.rel = atoi(d->vm->otp_release);
	/* as largest_terms bounds one root's walk: twice the heap, and a little */
	uint64_t heap = vp->unknown & VPF_TOTAL_HEAP_SIZE ? h.lines.n * 8 : vp->total_heap_size;
	t.budget = 2 * heap + (1u << 20);
	struct tp_src s = { &t, roots, elems, flat_size, shape, decode };
	int rc = tp_walk(&s, path, max, out);
	free(t.w.st);
	heap_lines_free(&h.lines);
	heap_lines_free(&h.lit);
	vt_arena_free(a);
	return rc;
}
