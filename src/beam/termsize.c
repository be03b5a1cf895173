/* largest_terms and message_shapes of one process in a core. The flat size of
 * a term is erts_debug:flat_size/1's count (copy.c size_object: heap words with
 * headers, a shared subterm each time it is reached, immediates 0, a refc
 * binary its ProcBin/BinRef words), walked with an explicit stack of word
 * spans: no recursion, a list's tail replaces its cell's span (a list of a
 * million elements keeps the stack flat), and a word budget from the heap's
 * size ends a walk that runs away (cycles, absurd arities in a corrupt core)
 * as a cut, never a hang. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "code.h"
#include "eterm.h"
#include "terms.h"
#include "termsize.h"
#include "termrank.h"

#define MAX_SPANS (1u << 22)   /* nesting the walk follows; deeper is a cut */

static int push(struct tw *w, uint64_t at, uint64_t n)
{
	if (w->n == w->cap) {
		size_t nc = w->cap ? 2 * w->cap : 256;
		struct span *m = nc <= MAX_SPANS ? realloc(w->st, nc * sizeof *m) : NULL;
		if (!m)
			return -1;
		w->st = m;
		w->cap = nc;
	}
	w->st[w->n++] = (struct span){ at, n, beam_words(w->b, at, n) };
	return 0;
}

static int word(struct tw *w, uint64_t a, uint64_t *v)
{
	return beam_read_u64(w->b, a, v);
}

/* The flat size of term; w->cut when some of it could not be counted. */
uint64_t beam_flat_size(struct tw *w, uint64_t term)
{
	uint64_t sum = 0, obj = term;
	w->n = 0;
	for (;;) {
		struct eterm o;
		uint64_t at = 0, n = 0, words = 0;
		if (is_list(obj)) {  /* a cell: inline, a long list is most of many heaps */
			words = n = 2;
			at = eterm_addr(&w->c, obj);
		} else if (is_boxed(obj)) {
			eterm_look(&w->c, obj, &o);
			if (o.header_ok) {
				words = o.words;
				at = o.at;
				n = o.n;
			}
			if (o.cut || !o.header_ok)
				w->cut = true;  /* not a header: the branch ends here */
		}
		if (words > w->budget) {
			/* past the bound (or an absurd arity): this object is left out,
			 * the rest still counted; what is counted is a lower bound.
			 * Nothing more is pushed, so the walk drains. */
			w->cut = true;
			words = n = 0;
		}
		w->budget -= words;
		sum += words;
		if (n && push(w, at, n) < 0) {
			w->cut = true;
			return sum;
		}
		/* the next term word; a span is popped before its last word is
		 * visited, so a list's tail takes its cell's place */
		for (;;) {
			if (!w->n)
				return sum;
			struct span *s = &w->st[w->n - 1];
			int ok = 1;
			if (s->direct)
				obj = *s->direct++;
			else
				ok = word(w, s->at, &obj) == 0;
			s->at += 8;
			if (--s->n == 0)
				w->n--;
			if (ok)
				break;
			w->cut = true;
		}
	}
}

/* The word each kind is said in (largest_terms' shapes, message_shapes). */
static const enum vt_kind vt_of[] = {
	[EK_CP] = VT_OTHER, [EK_LIST] = VT_LIST, [EK_PID] = VT_PID, [EK_PORT] = VT_PORT,
	[EK_SMALL] = VT_INT, [EK_ATOM] = VT_ATOM, [EK_CATCH] = VT_OTHER, [EK_NIL] = VT_NIL,
	[EK_IMMED] = VT_OTHER, [EK_UNREADABLE] = VT_UNREADABLE, [EK_TUPLE] = VT_TUPLE,
	[EK_RECORD] = VT_TUPLE, [EK_POS_BIG] = VT_BIG, [EK_NEG_BIG] = VT_BIG, [EK_REF] = VT_REF,
	[EK_FUN] = VT_FUN, [EK_FLOAT] = VT_FLOAT, [EK_EXT_PID] = VT_PID, [EK_EXT_PORT] = VT_PORT,
	[EK_EXT_REF] = VT_REF, [EK_FLATMAP] = VT_MAP, [EK_HAMT_NODE] = VT_MAP,
	[EK_HAMT_HEAD] = VT_MAP, [EK_MATCHSTATE] = VT_OTHER, [EK_EXPORT] = VT_FUN,
	[EK_PROCBIN] = VT_BINARY, [EK_HEAPBIN] = VT_BINARY, [EK_SUBBIN] = VT_BINARY,
	[EK_FUNREF] = VT_OTHER, [EK_HEAPBITS] = VT_BINARY, [EK_SUBBITS] = VT_BINARY,
	[EK_BINREF] = VT_OTHER, [EK_UNKNOWN] = VT_OTHER,
};

/* What kind of term t is (VT_OTHER: not a term), and what eterm_look says of it. */
static enum vt_kind kind_of(struct tw *w, uint64_t t, struct eterm *o)
{
	eterm_look(&w->c, t, o);
	return o->header_ok ? vt_of[o->kind] : VT_UNREADABLE;
}

static const char *atom_of(struct tw *w, uint64_t t)
{
	return is_atom(t) ? beam_atom(w->b, t) : NULL;
}

/* A tuple's element i in shape_elems: its kind's word */
struct elems {
	struct tw *w;
	uint64_t at;
};
static const char *elem_word(void *ctx, uint64_t i)
{
	struct elems *t = ctx;
	struct eterm elem;
	uint64_t e;
	return word(t->w, t->at + 8 * i, &e) < 0 ? "?" : kind_word(kind_of(t->w, e, &elem));
}

/* "{integer,tuple,integer}" for a tuple, else its kind's word */
static void elem_text(struct tw *w, uint64_t t, char *buf, size_t len)
{
	struct eterm tuple;
	enum vt_kind k = kind_of(w, t, &tuple);
	struct elems el = { w, tuple.at };
	shape_elems(k, tuple.n, elem_word, &el, buf, len);
}

/* "map, 2 keys", "list of 500,000 {integer,tuple,integer}", "tuple of 3",
 * "binary 1,024 bytes" */
void beam_shape_text(struct tw *w, uint64_t t, char *buf, size_t len)
{
	const struct layout *L = &w->b->L;
	struct eterm o;
	enum vt_kind k = kind_of(w, t, &o);
	uint64_t p = o.p, v, v2;
	char e[160];
	struct term_shape s = { .kind = k, .sized = true };
	if (k != VT_LIST && (!is_boxed(t) || o.kind == EK_UNREADABLE)) {
		snprintf(buf, len, "%s", kind_word(k));
		return;
	}
	if (k == VT_LIST) {
		uint64_t count = 0, cell[2] = { 0, t }, first = 0, limit = w->budget;
		while (is_list(cell[1]) && count < limit &&
		       core_peek(w->b->core, eterm_addr(&w->c, cell[1]), cell, 16) == 0) {
			if (!count++)
				first = cell[0];
		}
		elem_text(w, first, e, sizeof e);
		s.n = count;
		s.proper = cell[1] == NIL;
		s.complete = !is_list(cell[1]);
		s.elem = e;
	} else if (k == VT_TUPLE) {
		s.n = o.n;
		if (o.n && word(w, o.at, &v) == 0)
			s.atom = atom_of(w, v);
	} else if (k == VT_MAP) {  /* a flatmap's size, a HAMT head's (nodes have none) */
		if (word(w, eterm_map_size_at(&w->c, &o), &v) < 0)
			v = 0;
		s.n = v;
	} else if (k == VT_BINARY) {
		uint64_t bits = 0;
		uint8_t bs = 0;
		switch (o.kind) {
		case EK_PROCBIN: case EK_HEAPBIN: case EK_SUBBIN:
			if (word(w, p + (o.kind == EK_PROCBIN ? LV(L, PROCBIN_SIZE)
					 : o.kind == EK_HEAPBIN ? LV(L, HEAPBIN_SIZE) : LV(L, SUBBIN_SIZE)), &v) == 0)
				bits = 8 * v;
			if (o.kind == EK_SUBBIN && core_peek(w->b->core, p + LV(L, SUBBIN_BITSIZE), &bs, 1) == 0)
				bits += bs;
			break;
		default:  /* EK_HEAPBITS, EK_SUBBITS */
			if (o.kind == EK_HEAPBITS && word(w, p + LV(L, HEAPBITS_SIZE), &v) == 0)
				bits = v;
			else if (word(w, p + LV(L, SUBBITS_START), &v) == 0 &&
				 word(w, p + LV(L, SUBBITS_END), &v2) == 0 && v2 >= v)
				bits = v2 - v;
		}
		s.n = bits;
	}
	shape_text(&s, buf, len);
}


struct roots {
	struct tw w;
	struct term_roots t;
};

static void weigh(struct roots *r, int kind, uint64_t idx, uint64_t term, uint64_t aux)
{
	if (!is_pointer(term))
		return;  /* immediates weigh nothing */
	struct tw *w = &r->w;
	w->budget = term_roots_budget(&r->t);
	w->cut = false;
	struct rank_item it = { .kind = kind, .idx = idx, .term = term, .aux = aux };
	it.size = beam_flat_size(w, term);
	it.cut = w->cut;
	term_roots_add(&r->t, &it, w->budget);
}

/* Every message (not other signals) of the three queue parts, in order,
 * numbered from 1; *cut when the queue could not be read to its end. */
static void messages(struct beam *b, uint64_t p, beam_root_fn fn, void *arg, bool *cut)
{
	const struct layout *L = &b->L;
	static const enum layout_id queues[] = { P_SIGQ_FIRST, P_SIGQ_CONT, P_SIGINQ_FIRST };
	uint64_t idx = 0;
	/* the inner queue, the middle one (signals being handled), the outer one */
	for (size_t q = 0; q < 3; q++) {
		uint64_t mp;
		if (beam_read_u64(b, p + LV(L, queues[q]), &mp) < 0) {
			*cut = true;
			continue;
		}
		struct cycle cy = CYCLE_INIT;  /* a queue that comes back on itself: cut there */
		for (uint64_t n = 0; mp && n < (1u << 28); n++) {
			uint64_t m0, next;
			if (cycle_seen(&cy, mp) || beam_read_u64(b, mp + LV(L, MSG_M), &m0) < 0 ||
			    beam_read_u64(b, mp + LV(L, MSG_NEXT), &next) < 0) {
				*cut = true;
				break;
			}
			mp = next;
			if (is_signal_tag(m0))
				continue;  /* a signal, not a message */
			if (fn(arg, ROOT_MSG, ++idx, m0, 0))
				return;
		}
	}
}

/* A message's shape counted, and its size weighed. */
static void message_shape(struct roots *r, uint64_t m0)
{
	char buf[4096];
	struct eterm o;
	enum vt_kind k = kind_of(&r->w, m0, &o);
	uint64_t arity = k == VT_TUPLE ? o.n : 0, first = 0;
	const char *atom = k == VT_ATOM ? atom_of(&r->w, m0) : NULL;
	if (arity && word(&r->w, o.at, &first) == 0)
		atom = atom_of(&r->w, first);
	shapes_add(&r->t.shapes, msg_shape(k == VT_BIG ? VT_INT : k, arity, atom, buf, sizeof buf));
}

/* Every slot of the stack as y(N) of the function whose frame holds it. A
 * frame is its y registers, then the return address its function was called
 * with (OTP 23+: the call pushes it, allocate reserves the y registers below):
 * the slots from the top belong to the current function, those after a
 * return address to the function it returns into, numbered from 0 again as
 * erl_crash.dump's =proc_stack numbers them. */
static int stack(struct beam *b, uint64_t p, beam_root_fn fn, void *arg)
{
	const struct layout *L = &b->L;
	uint64_t stop, hend, heap;
	if (beam_read_u64(b, p + LV(L, P_STOP), &stop) < 0 ||
	    beam_read_u64(b, p + LV(L, P_HEND), &hend) < 0 || hend < stop ||
	    beam_read_u64(b, p + LV(L, P_HEAP), &heap) < 0 || stop < heap ||
	    hend - stop > (1ull << 34))
		return 0;
	uint32_t layout = 0;
	if (LHAS(L, G_FRAME_LAYOUT))
		beam_read_u32(b, beam_global(b, G_FRAME_LAYOUT), &layout);
	uint64_t y = 0, owner = 0;  /* owner 0: the current function; else a return address */
	for (uint64_t a = stop; a < hend; a += 8) {
		uint64_t v;
		if (beam_read_u64(b, a, &v) < 0)
			return 0;
		if (is_CP(v)) {  /* a return address (after the saved FP with +JPperf) */
			uint64_t ra = v;
			if (layout == 1) {
				if (a + 8 >= hend || beam_read_u64(b, a + 8, &ra) < 0)
					return 0;
				a += 8;
			}
			owner = ra;
			y = 0;
			continue;
		}
		if (fn(arg, ROOT_STACK, y++, v, owner))
			return 1;
	}
	return 0;
}

static int dictionary(struct beam *b, uint64_t dict, beam_root_fn fn, void *arg)
{
	const struct layout *L = &b->L;
	uint64_t mask = 0;
	uint32_t used;
	struct eterm_ctx c;
	eterm_init(&c, b);
	mask = c.mask;
	if (!dict || beam_read_u32(b, dict + LV(L, PD_USED_SLOTS), &used) < 0 || used > (1u << 26))
		return 0;
	for (uint32_t i = 0; i < used; i++) {
		uint64_t slot;
		if (beam_read_u64(b, dict + LV(L, PD_DATA) + 8 * i, &slot) < 0)
			return 0;
		/* a {K,V} tuple, or a list of them (one that comes back on itself: cut) */
		struct cycle cy = CYCLE_INIT;
		for (unsigned n = 0; slot != NIL && n < (1u << 20); n++) {
			uint64_t pair = slot, cell[2], kv[2];
			if (is_list(slot)) {
				if (cycle_seen(&cy, slot) || core_peek(b->core, slot & mask, cell, 16) < 0)
					break;
				pair = cell[0];
				slot = cell[1];
			} else {
				slot = NIL;
			}
			/* the tuple's two elements, after its header */
			if (!is_boxed(pair) || core_peek(b->core, (pair & mask) + 8, kv, 16) < 0)
				continue;
			if (fn(arg, ROOT_DICT, i, kv[1], kv[0]))
				return 1;
		}
	}
	return 0;
}

const char *beam_frame_function(struct beam *b, const struct vm_proc *vp, uint64_t ra, char *buf,
				size_t len)
{
	struct vm_mfa mfa;
	if (!ra)
		return vm_mfa_str(vp->current_function, buf, len) ? buf : strcpy(buf, "?");
	if (beam_lookup_code(b, b->vm->jit ? ra - 1 : ra - 8, &mfa) < 0 ||
	    !vm_mfa_str(&mfa, buf, len))
		snprintf(buf, len, "?");
	return buf;
}

void beam_each_root(struct beam *b, const struct vm_proc *vp, uint64_t dict, beam_root_fn fn,
		    void *arg, bool *queue_cut)
{
	const struct layout *L = &b->L;
	if (stack(b, vp->addr, fn, arg))
		return;
	if (vp->status != VS_RUNNING) {  /* a running process's registers are the scheduler's */
		uint64_t arity = 0, regs;
		if (beam_read_field(b, vp->addr, P_ARITY, &arity) == 0 && arity <= 256 &&
		    beam_read_u64(b, vp->addr + LV(L, P_ARG_REG), &regs) == 0)
			for (uint64_t i = 0; i < arity; i++) {
				uint64_t x;
				if (beam_read_u64(b, regs + 8 * i, &x) == 0 && fn(arg, ROOT_XREG, i, x, 0))
					return;
			}
	}
	if (dictionary(b, dict, fn, arg))
		return;
	messages(b, vp->addr, fn, arg, queue_cut);
}

static int weigh_root(void *arg, int kind, uint64_t idx, uint64_t term, uint64_t aux)
{
	struct roots *r = arg;
	if (kind == ROOT_MSG)
		message_shape(r, term);
	weigh(r, kind, idx, term, aux);
	return 0;
}

void beam_term_roots(struct beam *b, const struct vm_proc *vp, uint64_t dict, size_t top,
		     struct vm_proc_detail *d)
{
	struct roots r;
	memset(&r, 0, sizeof r);
	r.w.b = b;
	eterm_init(&r.w.c, b);
	uint64_t heap = vp->unknown & VPF_TOTAL_HEAP_SIZE ? (1ull << 28) : vp->total_heap_size;
	d->roots_from = "stack, x registers, dictionary, messages";
	if (term_roots_begin(&r.t, heap, top, d) < 0)
		return;

	beam_each_root(b, vp, dict, weigh_root, &r, &d->shapes_cut);
	size_t n = term_roots_end(&r.t, d);
	for (size_t i = 0; i < n; i++) {
		const struct rank_item *it = &r.t.rank.v[i];
		char where[600], fn[512], shape[400];
		r.w.budget = r.t.per_root;
		beam_shape_text(&r.w, it->term, shape, sizeof shape);
		const char *text = NULL;
		if (it->kind == ROOT_STACK) {
			text = beam_frame_function(b, vp, it->aux, fn, sizeof fn);
		} else if (it->kind == ROOT_DICT) {
			static const struct vt_limits lim = { 4, 8, 32 };
			struct vt *key = beam_decode_term(b, d->arena, it->aux, 8, 32);
			text = vt_print(key, &lim, fn, 200);
		}
		root_where(it->kind, it->idx, text, where, sizeof where);
		char whole[8192];
		const char *small = NULL;
		if (it->size <= TERM_WHOLE_WORDS && !it->cut)
			small = vt_print(beam_decode_term(b, d->arena, it->term, term_whole_limits.items,
							  term_whole_limits.bytes),
					 &term_whole_limits, whole, sizeof whole);
		term_root_add(d, where, shape, it->size, it->cut, small);
	}
	term_roots_free(&r.t);
	free(r.w.st);
}
