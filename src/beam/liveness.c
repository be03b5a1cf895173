/* What a major garbage collection (erlang:garbage_collect/1) of a process in a
 * core would keep and free (vm->liveness). The words it keeps: every object of
 * the process's heaps (the young heap to htop, the old heap to old_htop, the
 * heap fragments) reachable from the roots the collector scans (erl_gc.c
 * setup_rootset: the stack, the x registers (arity of them),
 * the dictionary, fvalue, ftrace, the seq_trace token, the messages whose data
 * is on the heap), each counted once however often it is referenced, as the
 * collector copies it; literals and other heaps are not followed. A bitmap
 * over the heaps marks what was reached: no allocation per object, and a walk
 * ends within the heaps' words whatever a corrupt core holds. The heap it
 * leaves: the collector's own sizing (gcsize.h: major_collection,
 * adjust_after_fullsweep) applied to those words, from the release's own
 * table of heap sizes. */
#include <stdlib.h>
#include <string.h>

#include "etsrows.h"
#include "eterm.h"
#include "gcsize.h"
#include "grow.h"
#include "hmap.h"
#include "walks.h"

#define F_HEAP_GROW (1u << 3)        /* erl_process.h */
#define MAX_AREAS (1u << 16)         /* heap fragments followed; more is a cut */

struct area {
	uint64_t lo, hi;             /* [lo, hi), bytes */
	size_t bit0;                 /* its first word's bit */
};

struct span {
	uint64_t at, n;              /* n term words from address at */
	const uint64_t *direct;      /* the same words mapped, or NULL */
};

struct valuse {
	uint64_t val, slices, slice_bytes;
	bool direct;
};

struct lw {
	struct beam *b;
	struct eterm_ctx c;
	struct area *a;
	size_t na, acap;
	uint64_t *bits;
	size_t bits_cap;             /* words of bits */
	struct span *st;
	size_t n, cap;
	uint64_t live;
	bool cut;
	int64_t sizes[GC_MAX_HEAP_SIZES];
	int nsizes;
	/* atom_refs: atom i's class acls[i] (0: none), each class's references */
	const uint8_t *acls;
	size_t nacls;
	uint32_t tally[256];
	/* the refc references (ProcBin, BinRef) reached: directly, or only
	 * through slices (sub-binaries) of theirs; via_slice while a slice's is */
	struct pbuse {
		uint64_t ref;
		uint64_t slice_bytes;
		uint32_t slices;
		bool direct;
	} *pu;
	size_t npu, pucap;
	struct hmap pum;
	size_t sliced;               /* slices met in this process: none, no reference reached through one */
	bool via_slice, pu_oom;
	bool sliced_any;             /* a slice met in this walk (a process's, a table's) */
	struct valuse *vu;           /* slice_totals' scratch: the references by Binary */
	size_t vucap;
};

/* What a walk allocated, freed. */
static void lw_free(struct lw *w)
{
	free(w->vu);
	free(w->a);
	free(w->bits);
	free(w->st);
	free(w->pu);
	hmap_free(&w->pum);
}

static uint64_t hash_pu(const void *ctx, uint32_t item)
{
	const struct lw *w = ctx;
	return w->pu[item].ref * 0x9e3779b97f4a7c15ull;
}

/* The use of the refc reference at ref, made on first sight (NULL: out of memory). */
static struct pbuse *pb_use(struct lw *w, uint64_t ref)
{
	if (!w->pum.size && hmap_init(&w->pum, 64) < 0)
		return NULL;
	size_t j;
	for (j = hmap_first(&w->pum, ref * 0x9e3779b97f4a7c15ull); w->pum.slot[j];
	     j = hmap_next(&w->pum, j))
		if (w->pu[w->pum.slot[j] - 1].ref == ref)
			return &w->pu[w->pum.slot[j] - 1];
	struct pbuse *a = grow(w->pu, &w->pucap, w->npu, sizeof *a, 64);
	if (!a)
		return NULL;
	w->pu = a;
	w->pu[w->npu] = (struct pbuse){ .ref = ref };
	if (hmap_set(&w->pum, j, (uint32_t)w->npu, hash_pu, w) < 0 && !w->pum.slot[j])
		return NULL;
	return &w->pu[w->npu++];
}

static int add_area(struct lw *w, uint64_t lo, uint64_t hi)
{
	if (hi <= lo)
		return 0;
	struct area *m = w->na < MAX_AREAS ? grow(w->a, &w->acap, w->na, sizeof *m, 8) : NULL;
	if (!m)
		return -1;
	w->a = m;
	w->a[w->na++] = (struct area){ lo, hi, 0 };
	return 0;
}

static int by_lo(const void *x, const void *y)
{
	const struct area *a = x, *b = y;
	return (a->lo > b->lo) - (a->lo < b->lo);
}

/* The area holding addr, or NULL: a literal, another heap. */
static const struct area *area_of(const struct lw *w, uint64_t addr)
{
	size_t lo = 0, hi = w->na;
	while (lo < hi) {
		size_t m = (lo + hi) / 2;
		if (addr < w->a[m].lo)
			hi = m;
		else if (addr >= w->a[m].hi)
			lo = m + 1;
		else
			return &w->a[m];
	}
	return NULL;
}

static int push(struct lw *w, uint64_t at, uint64_t n)
{
	if (!n)
		return 0;
	struct span *m = grow(w->st, &w->cap, w->n, sizeof *m, 256);
	if (!m)
		return -1;
	w->st = m;
	w->st[w->n++] = (struct span){ at, n, beam_words(w->b, at, n) };
	return 0;
}

static void direct_ref(struct lw *w, uint64_t t);

/* A ProcBin (to OTP 26) of part of its binary: a slice copied out of a
 * heap (copy_struct makes a byte-aligned sub-binary of a refc binary a
 * ProcBin of its bytes when a message or an ETS object is built): its size;
 * 0 when it is the whole binary (or unreadable: a direct use). */
static uint64_t procbin_part(struct lw *w, uint64_t pb)
{
	const struct layout *L = &w->b->L;
	uint64_t size, val, orig, flags;
	if (!LHAS(L, PROCBIN_SIZE) || !LHAS(L, PROCBIN_VAL) || !LHAS(L, PROCBIN_FLAGS) ||
	    eterm_word(&w->c, pb + LV(L, PROCBIN_SIZE), &size) < 0 ||
	    eterm_word(&w->c, pb + LV(L, PROCBIN_VAL), &val) < 0 ||
	    eterm_word(&w->c, pb + LV(L, PROCBIN_FLAGS), &flags) < 0 || (flags & 3) ||
	    beam_read_u64(w->b, val + LV(L, BIN_ORIG_SIZE), &orig) < 0)
		return 0;  /* (writable, 1, or its active writer, 2: a capacity, not a slice) */
	return size < orig ? size : 0;
}
static bool slice(struct lw *w, uint64_t addr, const struct eterm *o);

/* Term t reached: its object counted and its term words queued, once. */
static void reach(struct lw *w, uint64_t t)
{
	if (!is_pointer(t)) {
		uint64_t ix;
		if (w->acls && is_atom(t) && (ix = atom_val(t)) < w->nacls && w->acls[ix])
			w->tally[w->acls[ix] - 1]++;
		return;
	}
	uint64_t addr = eterm_addr(&w->c, t);
	const struct area *ar = area_of(w, addr);
	if (!ar)
		return;
	size_t bit = ar->bit0 + (addr - ar->lo) / 8;
	if (w->bits[bit / 64] & (1ull << (bit % 64))) {
		if (w->sliced && is_boxed(t) && !w->via_slice)
			direct_ref(w, t);  /* a refc reference reached first through a slice */
		return;
	}
	w->bits[bit / 64] |= 1ull << (bit % 64);
	uint64_t words = 2, at = addr, n = 2;  /* a cell: head and tail */
	if (is_boxed(t)) {
		struct eterm o;
		eterm_look(&w->c, t, &o);
		if (!o.header_ok || o.cut) {
			w->cut = true;
			return;
		}
		words = o.words;
		at = o.at;
		n = o.n;
		if ((o.kind == EK_PROCBIN || o.kind == EK_BINREF) && !w->via_slice) {
			struct pbuse *u = pb_use(w, addr);
			uint64_t part;
			if (!u)
				w->pu_oom = true;
			else if (o.kind == EK_PROCBIN && (part = procbin_part(w, addr)))
				u->slices++, u->slice_bytes += part, w->sliced++, w->sliced_any = true;
			else
				u->direct = true;
		}
		if ((o.kind == EK_SUBBIN || o.kind == EK_SUBBITS) && slice(w, addr, &o)) {
			/* its own words; the reference it slices reached as the slice's */
			w->bits[bit / 64] |= 1ull << (bit % 64);
			if (o.arity + 1 > (ar->hi - addr) / 8) {
				w->cut = true;
				return;
			}
			w->live += o.arity + 1;
			return;
		}
		switch (o.kind) {
		case EK_TUPLE: case EK_RECORD:
			words = o.arity + 1;  /* the empty tuple too, when on a heap */
			break;
		case EK_SUBBIN:  /* the object itself, and the binary it refers to */
			words = o.arity + 1;
			at = addr + LV(&w->b->L, SUBBIN_ORIG);
			n = 1;
			break;
		case EK_SUBBITS:  /* its last word is the BinRef or heap bits */
			words = o.arity + 1;
			at = addr + 8 * o.arity;
			n = 1;
			break;
		case EK_MATCHSTATE:
			words = o.arity + 1;
			n = 0;
			break;
		default:
			break;
		}
	}
	if (words > (ar->hi - addr) / 8) {  /* past its heap: not an object */
		w->cut = true;
		return;
	}
	w->live += words;
	if (push(w, at, n) < 0)
		w->cut = true;
}

/* A boxed term already reached: a refc reference's direct use. */
static void direct_ref(struct lw *w, uint64_t t)
{
	uint64_t hdr;
	if (eterm_word(&w->c, eterm_addr(&w->c, t), &hdr) < 0)
		return;
	enum eterm_kind k = eterm_header_kind(&w->c, hdr);
	if ((k != EK_PROCBIN && k != EK_BINREF) ||
	    (k == EK_PROCBIN && procbin_part(w, eterm_addr(&w->c, t))))
		return;  /* (a ProcBin of part is a slice however often reached) */
	struct pbuse *u = pb_use(w, eterm_addr(&w->c, t));
	if (u)
		u->direct = true;
	else
		w->pu_oom = true;
}

/* A sub-binary (to OTP 26) or sub-bitstring (OTP 27+) at addr slicing a refc
 * binary: its bytes counted against the reference it slices, which is then
 * reached as the slice's (not a direct use). False: it slices a heap binary
 * (or is unreadable): an ordinary term. */
static bool slice(struct lw *w, uint64_t addr, const struct eterm *o)
{
	const struct layout *L = &w->b->L;
	uint64_t orig, hdr, bytes;
	if (o->kind == EK_SUBBIN) {
		if (!LHAS(L, SUBBIN_ORIG) || !LHAS(L, SUBBIN_SIZE) ||
		    eterm_word(&w->c, addr + LV(L, SUBBIN_ORIG), &orig) < 0 ||
		    eterm_word(&w->c, addr + LV(L, SUBBIN_SIZE), &bytes) < 0)
			return false;
	} else {
		uint64_t start, end;
		if (!LHAS(L, SUBBITS_START) || !LHAS(L, SUBBITS_END) ||
		    eterm_word(&w->c, addr + 8 * o->arity, &orig) < 0 ||
		    eterm_word(&w->c, addr + LV(L, SUBBITS_START), &start) < 0 ||
		    eterm_word(&w->c, addr + LV(L, SUBBITS_END), &end) < 0 || end < start)
			return false;
		bytes = (end - start + 7) / 8;
	}
	if (!is_boxed(orig) || eterm_word(&w->c, eterm_addr(&w->c, orig), &hdr) < 0)
		return false;
	enum eterm_kind k = eterm_header_kind(&w->c, hdr);
	if (k != EK_PROCBIN && k != EK_BINREF)
		return false;
	struct pbuse *u = pb_use(w, eterm_addr(&w->c, orig));
	if (!u) {
		w->pu_oom = true;
		return false;
	}
	u->slices++;
	u->slice_bytes += bytes;
	w->sliced++;
	w->sliced_any = true;
	w->via_slice = true;
	reach(w, orig);
	w->via_slice = false;
	return true;
}

/* Every queued term word, depth first; a span is popped before its last word
 * is reached, so a list's tail takes its cell's place (a long list keeps the
 * stack flat). */
static void drain(struct lw *w)
{
	while (w->n) {
		struct span *s = &w->st[w->n - 1];
		uint64_t t;
		int ok = 1;
		if (s->direct)
			t = *s->direct++;
		else
			ok = eterm_word(&w->c, s->at, &t) == 0;
		s->at += 8;
		if (--s->n == 0)
			w->n--;
		if (ok)
			reach(w, t);
		else
			w->cut = true;
	}
}

/* n root words from address at (a stack, the registers, the dictionary) */
static void roots(struct lw *w, uint64_t at, uint64_t n)
{
	if (push(w, at, n) < 0)
		w->cut = true;
	drain(w);
}

static void field_root(struct lw *w, uint64_t p, enum layout_id id)
{
	if (LHAS(&w->b->L, id))
		roots(w, p + LV(&w->b->L, id), 1);
}

/* The messages of the private queues whose data is on the heap (the
 * others' data is in fragments the collection moves whole) */
static void message_roots(struct lw *w, uint64_t p)
{
	const struct layout *L = &w->b->L;
	static const enum layout_id queues[] = { P_SIGQ_FIRST, P_SIGQ_CONT };
	for (size_t q = 0; q < 2; q++) {
		uint64_t mp, next, attached, m0;
		struct cycle cy = CYCLE_INIT;
		if (beam_read_u64(w->b, p + LV(L, queues[q]), &mp) < 0)
			w->cut = true;
		for (; mp && !cycle_seen(&cy, mp); mp = next) {
			if (beam_read_u64(w->b, mp + LV(L, MSG_NEXT), &next) < 0 ||
			    beam_read_u64(w->b, mp + LV(L, MSG_ATTACHED), &attached) < 0 ||
			    beam_read_u64(w->b, mp + LV(L, MSG_M), &m0) < 0) {
				w->cut = true;
				break;
			}
			if (!attached && !is_signal_tag(m0))
				roots(w, mp + LV(L, MSG_M), 2);  /* the message and its token */
		}
	}
}

struct heaps {
	uint64_t heap, htop, hend, stop, heap_sz, old_heap, old_htop, old_hend, mbuf, mbuf_sz;
	uint64_t flags, min_heap_size;
};

static int read_heaps(struct beam *b, uint64_t p, struct heaps *h)
{
	static const enum layout_id ids[] = { P_HEAP, P_HTOP, P_HEND, P_STOP, P_HEAP_SZ, P_OLD_HEAP,
					      P_OLD_HTOP, P_OLD_HEND, P_MBUF, P_MBUF_SZ, P_FLAGS,
					      P_MIN_HEAP_SIZE };
	uint64_t v[sizeof ids / sizeof ids[0]];
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
		if (!LHAS(&b->L, ids[i]) || beam_read_field(b, p, ids[i], &v[i]) < 0)
			return -1;
	*h = (struct heaps){ v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10],
			     v[11] };
	if (h->heap > h->htop || h->htop > h->stop || h->stop > h->hend ||
	    (h->old_heap && (h->old_heap > h->old_htop || h->old_htop > h->old_hend)))
		return -1;
	return 0;
}

/* A cleared bit for each of the areas' words; -1 on OOM. */
static int clear_bits(struct lw *w, size_t bits)
{
	size_t need = bits / 64 + 1;
	if (need > w->bits_cap) {
		uint64_t *m = realloc(w->bits, need * sizeof *m);
		if (!m)
			return -1;
		w->bits = m;
		w->bits_cap = need;
	}
	memset(w->bits, 0, need * sizeof *w->bits);
	return 0;
}

/* The heaps' areas, sorted, each its bits; -1 when they cannot be read or
 * hold more words than the process's total_heap_size counts (a corrupt core:
 * the bitmap stays within what the heaps are said to be) */
static int areas(struct lw *w, const struct heaps *h, uint64_t total_heap_size)
{
	const struct layout *L = &w->b->L;
	w->na = 0;
	if (add_area(w, h->heap, h->htop) < 0 || add_area(w, h->old_heap, h->old_htop) < 0)
		return -1;
	struct cycle cy = CYCLE_INIT;
	for (uint64_t f = h->mbuf; f && !cycle_seen(&cy, f);) {
		uint64_t used;
		if (!LHAS(L, HF_MEM) || beam_read_u64(w->b, f + LV(L, HF_USED), &used) < 0 ||
		    used > (1ull << 40) || add_area(w, f + LV(L, HF_MEM), f + LV(L, HF_MEM) + 8 * used) < 0 ||
		    beam_read_u64(w->b, f + LV(L, HF_NEXT), &f) < 0) {
			w->cut = true;
			break;
		}
	}
	if (w->na)  /* (qsort of NULL: undefined, even for none) */
		qsort(w->a, w->na, sizeof *w->a, by_lo);
	size_t bits = 0;
	for (size_t i = 0; i < w->na; i++) {
		if (i && w->a[i].lo < w->a[i - 1].hi)
			return -1;  /* overlapping heaps: not a process's */
		w->a[i].bit0 = bits;
		bits += (w->a[i].hi - w->a[i].lo) / 8;
	}
	if (bits > total_heap_size + 1024)
		return -1;
	return clear_bits(w, bits);
}

/* The heap a major collection leaves for live words: the VM's rule
 * (gcsize.h) with this process's heaps and the release's S_RESERVED */
static uint64_t heap_after(const struct lw *w, const struct heaps *h, uint64_t before,
			   uint64_t live)
{
	uint64_t reserved = 1;
	if (w->b->vm->jit) {  /* S_RESERVED: CP_SIZE + S_REDZONE (3 CP_SIZE) */
		uint32_t layout = 0;
		if (LHAS(&w->b->L, G_FRAME_LAYOUT))
			beam_read_u32(w->b, beam_global(w->b, G_FRAME_LAYOUT), &layout);
		reserved = 4 * (layout == 1 ? 2 : 1);
	}
	struct gc_heap g = { .sizes = w->sizes, .nsizes = w->nsizes, .heap_sz = h->heap_sz,
			     .before = before, .stack = (h->hend - h->stop) / 8,
			     .reserved = reserved, .min_heap_size = h->min_heap_size,
			     .heap_grow = (h->flags & F_HEAP_GROW) != 0 };
	return gc_heap_after(&g, live);
}

static int by_val(const void *x, const void *y)
{
	const struct valuse *a = x, *b = y;
	return a->val < b->val ? -1 : a->val > b->val;
}

/* What the walk's slices reference, against the binaries they alone keep it
 * holding, by Binary: two references to one binary (two messages cut from
 * one packet, two objects of a table) keep it once, and one used whole (a
 * direct use) keeps it anyway: not the slices'. out->known false: a reference
 * or binary unreadable (why says), or out of memory. */
static void slice_totals(struct lw *w, struct vm_slices *out)
{
	const struct layout *L = &w->b->L;
	uint64_t val_off = LHAS(L, BINREF_VAL) ? LV(L, BINREF_VAL) : LV(L, PROCBIN_VAL);
	*out = (struct vm_slices){ .known = !w->pu_oom && (LHAS(L, BINREF_VAL) || LHAS(L, PROCBIN_VAL)) };
	if (!out->known || !w->sliced_any) {
		out->why = out->known ? NULL : "out of memory, or no refc reference in the layout";
		return;
	}
	struct valuse *v = w->npu > w->vucap ? realloc(w->vu, w->npu * sizeof *v) : w->vu;
	if (!v) {
		*out = (struct vm_slices){ .why = "out of memory" };
		return;
	}
	if (w->npu > w->vucap)
		w->vu = v, w->vucap = w->npu;
	size_t n = 0;
	for (size_t i = 0; i < w->npu; i++) {
		const struct pbuse *u = &w->pu[i];
		uint64_t val;
		if (beam_read_u64(w->b, u->ref + val_off, &val) < 0) {
			*out = (struct vm_slices){ .why = "a refc reference unreadable" };
			return;
		}
		v[n++] = (struct valuse){ val, u->slices, u->slice_bytes, u->direct || !u->slices };
	}
	if (n)
		qsort(v, n, sizeof *v, by_val);
	for (size_t i = 0, j; i < n; i = j) {
		struct valuse sum = { v[i].val, 0, 0, false };
		for (j = i; j < n && v[j].val == v[i].val; j++) {
			sum.slices += v[j].slices;
			sum.slice_bytes += v[j].slice_bytes;
			sum.direct |= v[j].direct;
		}
		uint64_t size;
		if (sum.direct)
			continue;
		if (beam_read_u64(w->b, sum.val + LV(L, BIN_ORIG_SIZE), &size) < 0) {
			*out = (struct vm_slices){ .why = "a refc binary unreadable" };
			return;
		}
		out->slices += sum.slices;
		out->slice_bytes += sum.slice_bytes;
		out->binaries++;
		out->kept_bytes += size;
	}
}

/* The process's slices (slice_totals) into its liveness. */
static void slices_of(struct lw *w, struct vm_liveness *out)
{
	struct vm_slices t;
	slice_totals(w, &t);
	out->slices_known = t.known;
	out->slices = t.slices;
	out->slice_bytes = t.slice_bytes;
	out->slice_binaries = t.binaries;
	out->slice_kept_bytes = t.kept_bytes;
}

static void one(struct lw *w, const struct vm_proc *vp, struct vm_liveness *out)
{
	const struct layout *L = &w->b->L;
	struct heaps h;
	memset(out, 0, sizeof *out);
	/* a running process's heap top and stack are the scheduler's registers, a
	 * collecting one's heaps are half moved: unknown */
	if (!w->nsizes || (vp->unknown & VPF_TOTAL_HEAP_SIZE) || vp->status == VS_EXITING ||
	    vp->status == VS_FREE || vp->status == VS_RUNNING ||
	    vp->status == VS_GARBAGE_COLLECTING || vp->status == VS_UNKNOWN ||
	    read_heaps(w->b, vp->addr, &h) < 0)
		return;
	w->cut = false;
	w->live = 0;
	w->n = 0;
	w->npu = w->sliced = 0;
	w->sliced_any = false;
	w->pu_oom = false;
	if (w->pum.size)
		hmap_clear(&w->pum);
	if (areas(w, &h, vp->total_heap_size) < 0)
		return;
	uint64_t p = vp->addr, dict = 0, arity = 0, regs;
	roots(w, h.stop, (h.hend - h.stop) / 8);
	if (beam_read_field(w->b, p, P_ARITY, &arity) == 0 &&
	    arity <= 256 && beam_read_u64(w->b, p + LV(L, P_ARG_REG), &regs) == 0)
		roots(w, regs, arity);
	uint32_t used;
	if (beam_read_u64(w->b, p + LV(L, P_DICTIONARY), &dict) == 0 && dict &&
	    beam_read_u32(w->b, dict + LV(L, PD_USED_SLOTS), &used) == 0 && used <= (1u << 26))
		roots(w, dict + LV(L, PD_DATA), used);
	field_root(w, p, P_FVALUE);
	field_root(w, p, P_FTRACE);
	field_root(w, p, P_SEQ_TRACE_TOKEN);
	message_roots(w, p);
	/* message data in fragments (on_heap message queues): total_heap_size
	 * counts it (procs.c); the collection moves it whole onto the new heap */
	uint64_t old_sz = h.old_heap ? (h.old_hend - h.old_heap) / 8 : 0;
	uint64_t frags = h.heap_sz + old_sz + h.mbuf_sz;
	uint64_t attached = vp->total_heap_size > frags ? vp->total_heap_size - frags : 0;
	uint64_t before = (h.htop - h.heap) / 8 + h.mbuf_sz + attached +
			  (h.old_heap ? (h.old_htop - h.old_heap) / 8 : 0);
	out->known = true;
	out->cut = w->cut;
	out->live_words = w->live + attached;
	out->heap_after = heap_after(w, &h, before, out->live_words);
	out->garbage_bytes = vp->total_heap_size > out->heap_after
			     ? (vp->total_heap_size - out->heap_after) * 8 : 0;
	slices_of(w, out);
}

static void liveness(void *loader, const struct vm_proc *procs, size_t n, struct vm_liveness *out)
{
	struct lw w = { .b = loader };
	eterm_init(&w.c, w.b);
	uint32_t num = 0;
	if (LHAS(&w.b->L, G_HEAP_SIZES) && LHAS(&w.b->L, G_NUM_HEAP_SIZES) &&
	    beam_read_u32(w.b, beam_global(w.b, G_NUM_HEAP_SIZES), &num) == 0 &&
	    num <= GC_MAX_HEAP_SIZES &&
	    core_peek(w.b->core, beam_global(w.b, G_HEAP_SIZES), w.sizes, num * 8) == 0)
		w.nsizes = (int)num;
	else  /* a file static a stripped beam.smp does not name: erts_init_gc's rule */
		w.nsizes = gc_heap_sizes(w.sizes, GC_MAX_HEAP_SIZES);
	for (size_t i = 0; i < n; i++)
		one(&w, &procs[i], &out[i]);
	lw_free(&w);
}

static void atom_refs(void *loader, const struct vm_proc *procs, const uint32_t *which, size_t n,
		      const uint8_t *cls, size_t ncls, unsigned k,
		      void (*emit)(void *ctx, size_t j, const uint32_t *tally), void *ctx)
{
	struct lw w = { .b = loader, .acls = cls, .nacls = ncls };
	eterm_init(&w.c, w.b);
	w.nsizes = gc_heap_sizes(w.sizes, GC_MAX_HEAP_SIZES);  /* (heap_after: not asked) */
	k = k > 256 ? 256 : k;
	for (size_t i = 0; i < n; i++) {
		size_t j = which ? which[i] : i;
		struct vm_liveness lv;
		memset(w.tally, 0, k * sizeof w.tally[0]);
		one(&w, &procs[j], &lv);
		for (unsigned c = 0; lv.known && c < k; c++)
			if (w.tally[c]) {
				emit(ctx, j, w.tally);
				break;
			}
	}
	lw_free(&w);
}

/* ets_slices: the walk of each object of a table, its DbTerm one area */
struct ets_walk {
	struct lw *w;
	bool bad;
};

static int ets_row(struct beam *b, uint64_t row, void *arg)
{
	struct ets_walk *e = arg;
	struct lw *w = e->w;
	const struct layout *L = &b->L;
	uint64_t tpl = eterm_addr(&w->c, row), size;
	if (beam_read_u64(b, tpl - LV(L, DBTERM_TPL) + LV(L, DBTERM_SIZE), &size) < 0 ||
	    size > (1ull << 32)) {
		e->bad = true;
		return 1;
	}
	w->na = 0;
	if (add_area(w, tpl, tpl + 8 * size) < 0 || clear_bits(w, size) < 0)
		return e->bad = true, 1;
	w->n = 0;
	w->sliced = 0;  /* (a row's own: its references are its own ProcBins) */
	reach(w, row);
	drain(w);
	return 0;
}

/* Each object's terms walked as liveness walks a heap (a slice's reference
 * reached as the slice's); then by Binary: the objects of a table each hold
 * their own references to one binary, and a binary any of them holds whole
 * keeps nothing more alive through slices. */
static void ets_slices(void *loader, const struct vm_ets *t, struct vm_slices *out)
{
	struct beam *b = loader;
	const struct layout *L = &b->L;
	*out = (struct vm_slices){ 0 };
	static const enum layout_id need[] = { DBTERM_TPL, DBTERM_SIZE, BIN_ORIG_SIZE };
	bc_err *err = layout_need(L, need, sizeof need / sizeof need[0]);
	if (err || !(LHAS(L, BINREF_VAL) || LHAS(L, PROCBIN_VAL))) {
		bc_err_free(err);
		out->why = "the layout lacks an ETS object's size or a refc reference's binary";
		return;
	}
	struct lw w = { .b = b };
	eterm_init(&w.c, b);
	struct ets_walk e = { &w, false };
	const char *why = NULL;
	int r = beam_ets_rows(b, t, ets_row, &e, &why);
	if (r < 0 || e.bad || w.cut || w.pu_oom) {
		out->why = why ? why : e.bad || w.pu_oom ? "an object unreadable (or out of memory)"
							   : "part of an object unreadable";
		lw_free(&w);
		return;
	}
	slice_totals(&w, out);
	lw_free(&w);
}

void beam_enable_liveness(struct beam *b)
{
	b->vm->liveness = liveness;
	b->vm->ets_slices = ets_slices;
	b->vm->atom_refs = atom_refs;
	b->vm->loader = b;
}
